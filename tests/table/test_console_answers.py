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


def test_a_paced_demo_prints_the_result_once_with_the_scores(monkeypatch, capsys):
    # the terminal printed "RESULT: <reason>" as the last move came in, then "Result: <reason>"
    # again at the end, and the scores never
    import types

    import companion.sim.table as simtable
    from builders import make_position
    from companion.cli import main
    from companion.sim.table import SimReport

    class LastDrawTable:
        """The simulated table, reduced to its last move: blue draws the bag's last tile (8)."""

        def __init__(self, config, seed, **kwargs):
            pos = make_position(bag=1, taken=["place"], hands={"blue": ["P03", "Y03"], "orange": ["P03", "Y03", "ROCK"]},
                                cards={"blue": ["a01"]})
            self.session = TableSession(Game(pos))
            self.live = types.SimpleNamespace(recorder=None)

        def run(self):
            LastDrawTable.played = self
            self.session.submit({"player": "blue", "action": "draw", "tile": "Y03"}, source="reader")
            return SimReport(result=self.session.position.result, events=1, log_matches_truth=True)

    monkeypatch.setattr(simtable, "SimulatedTable", LastDrawTable)
    assert main(["demo", "--no-web", "--db", ":memory:"]) == 0
    out = capsys.readouterr().out
    said = [line for line in out.splitlines() if "the last tile was drawn" in line]
    assert len(said) == 1, out
    scores = LastDrawTable.played.session.position.result["scores"]
    assert scores["blue"] > 0 and said[0].startswith("RESULT: ")
    assert said[0].endswith(f"; scores: blue {scores['blue']} VP, orange 0 VP"), said[0]


def test_a_real_table_without_a_dashboard_is_told_to_turn_up_the_market_once():
    # a real table's cards are turned up by the players and entered (2.d, 6); with --no-web
    # nothing but the console can say so, and it says how to get a dashboard to enter them
    session = TableSession.start(GameConfig(), None, seed=1)
    session.real_table = True
    session.new_game(GameConfig(), None, seed=1)   # a real table: nothing dealt, the market empty
    out = io.StringIO()
    session.bus.subscribe(ConsoleLog(session, out=out, board=False, answers=NO_DASHBOARD))
    from companion.bag_contents import tiles_in_bag
    for tile in sorted(tiles_in_bag(session.position, session.edition))[:2]:   # the opening draws
        session.submit({"player": "blue", "action": "draw", "tile": tile}, source="reader")
    said = [line for line in out.getvalue().splitlines() if line.startswith("[market]")]
    assert len(said) == 1, out.getvalue()
    assert "deck A" in said[0] and "deck B" in said[0] and said[0].endswith(f"on the dashboard; {NO_DASHBOARD}")
    # each card entered fills a place: nothing more is said until a purchase opens one again
    from companion.market import face_down
    for deck in ("a", "b"):
        session.submit({"player": "table", "action": "reveal", "deck": deck,
                        "card": face_down(session.position, session.edition, deck)[0]}, source="dashboard")
    assert all(len(cards) == 1 for cards in session.position.market.values()), out.getvalue()
    assert sum(line.startswith("[market]") for line in out.getvalue().splitlines()) == 1, out.getvalue()


def test_the_demo_never_asks_for_market_cards():
    from companion.movegen import legal_moves
    session = TableSession.start(GameConfig(), None, seed=1)
    out = io.StringIO()
    session.bus.subscribe(demo_console(session, out=out))
    session.submit(legal_moves(session.position)[0], source="camera")
    assert out.getvalue() and "[market]" not in out.getvalue()
