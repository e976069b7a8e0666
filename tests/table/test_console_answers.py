"""Where the table's questions are answered, as the terminal says it: the demo's simulated
players answer (there may be no dashboard: ``demo --no-web``), a real table answers on its
dashboard, and a real table started with ``--no-web`` is told how to get one.  Each answer is
printed when it is given, so the terminal shows what was settled."""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

from companion.game import Game
from companion.setup import GameConfig
from companion.table.cli import demo_console
from companion.table.console import NO_DASHBOARD, ConsoleLog
from companion.table.session import TableSession

RULES = Path(__file__).parents[1] / "rules"


def forest_communication_move():
    """Blue's last green tile joins every tree (tests/rules/test_rule_gaps.py): a move that
    waits for both players' nutrient choices (rulebook 7.c)."""
    sys.path.insert(0, str(RULES))
    try:
        spec = importlib.util.spec_from_file_location("rule_gaps_for_console", RULES / "test_rule_gaps.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.forest_communication_move()
    finally:
        sys.path.remove(str(RULES))


def two_readings(session):
    return session.ask("The camera sees the same board after each of these; which happened?",
                       [{"label": "blue moves along yellow to G4", "moves": []},
                        {"label": "blue removes the tile at G4; then blue places it again", "moves": []}])


def test_the_demo_says_its_simulated_players_answer_and_prints_their_answer():
    session = TableSession.start(GameConfig(), None, seed=1)
    out = io.StringIO()
    session.bus.subscribe(demo_console(session, out=out))
    q = two_readings(session)
    session.answer(q.id, 1)
    asked, answered = out.getvalue().splitlines()
    assert asked.startswith("[?] The camera sees") and "dashboard" not in asked
    assert asked.endswith("(the simulated players answer)")
    assert answered == "[answered] 2) blue removes the tile at G4; then blue places it again"


def test_the_demo_names_who_chooses_nutrients_without_a_dashboard():
    pos, move = forest_communication_move()
    session = TableSession(Game(pos))
    out = io.StringIO()
    session.bus.subscribe(demo_console(session, out=out))
    session.submit(move, source="camera")
    assert session.choices is not None
    line = out.getvalue().splitlines()[-1]
    assert line.startswith("[?] ") and "Forest Communication" in line
    assert "waiting for blue and orange to choose" in line and "dashboard" not in line
    assert line.endswith("(the simulated players answer)")
    p = session.choices
    for g in p.groups():
        session.choose(p.id, g["player"], ["pink"] * sum(part["count"] for part in g["parts"]), g["kind"])
    assert session.choices is None and "[chosen] blue and orange have chosen; the move is played" in out.getvalue()


def test_a_real_table_without_a_dashboard_says_how_to_answer():
    session = TableSession.start(GameConfig(), None, seed=1)
    out = io.StringIO()
    session.bus.subscribe(ConsoleLog(session, out=out, answers=NO_DASHBOARD))
    two_readings(session)
    line = out.getvalue().splitlines()[-1]
    assert "--no-web" in line and "run --resume" in line
    # with a dashboard, the default: answer there
    out2 = io.StringIO()
    session.bus.subscribe(ConsoleLog(session, out=out2))
    session.question = None
    two_readings(session)
    assert out2.getvalue().rstrip().endswith("(answer on the dashboard)")


def test_a_question_the_next_board_settles_is_printed_as_settled():
    session = TableSession.start(GameConfig(), None, seed=1)
    out = io.StringIO()
    session.bus.subscribe(demo_console(session, out=out))
    q = two_readings(session)
    session.question = None   # as LiveTable._withdraw_question does
    session.bus.publish("answered", {"id": q.id, "choice": None, "why": "the board that followed settled it"})
    assert out.getvalue().splitlines()[-1] == "[answered] the board that followed settled it"


def test_an_illegal_move_in_the_demo_is_taken_back_by_the_simulated_player():
    session = TableSession.start(GameConfig(), None, seed=1)
    out = io.StringIO()
    session.bus.subscribe(demo_console(session, out=out))
    other = next(c for c in session.position.colors if c != session.position.active)
    verdict = session.submit({"player": other, "action": "end_turn"}, source="camera")
    assert not verdict.legal
    line = out.getvalue().splitlines()[-1]
    assert line.startswith("[ILLEGAL ") and line.endswith("(the simulated player takes it back)")
