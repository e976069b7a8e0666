"""The terminal says a cooperative mission's progress when it changes (rulebook 7), with the
Goals tab's counts, not only when a mission is accomplished."""

from __future__ import annotations

import io

from builders import make_position
from companion.game import Game
from companion.table.console import ConsoleLog
from companion.table.session import TableSession


def session_with_console(**kw):
    pos = make_position(mode="cooperative", difficulty="easy", tiles={(3, 0): "P03", (2, 0): "P03", (1, 0): "P03"},
                        meeples={"blue": (3, 0), "orange": (-4, 0)}, market={"a": ["a01", "a04", "a02"], "b": ["b01"]},
                        decks={"a": 5, "b": 5}, taken=["place"], nutrients={c: {"pink": 1, "yellow": 1} for c in ("blue", "orange")}, **kw)
    session = TableSession(Game(pos))
    out = io.StringIO()
    session.bus.subscribe(ConsoleLog(session, out=out, board=False))
    return session, out


def test_a_purchase_prints_the_funga_count_as_the_goals_tab_has_it():
    session, out = session_with_console()
    assert session.submit({"player": "blue", "action": "buy", "card": "a01", "refill": "a05"}, source="dashboard").legal
    goals = [line for line in out.getvalue().splitlines() if line.startswith("[goal]")]
    assert goals == ["[goal] Funga: mushroom cards 1 of 3"]


def test_a_move_that_changes_no_count_prints_no_goal_line():
    session, out = session_with_console()
    assert session.submit({"player": "blue", "action": "move", "to": [1, 0], "color": "pink"}, source="dashboard").legal
    assert out.getvalue() and "[goal]" not in out.getvalue()
