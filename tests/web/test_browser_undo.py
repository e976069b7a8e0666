"""Undo on the dashboard in Debian's Chromium: it asks before taking back another player's
move, is disabled while its request is in flight, and a double tap takes back one move."""

from __future__ import annotations

import pytest

from companion.movegen import legal_moves
from test_browser import CHROMIUM, browser, open_page, pytestmark  # noqa: F401  (fixture and skip reused)
from webtools import PIN


@pytest.fixture
def table(fresh_table):
    return fresh_table("competitive", 2, 5, turns=6)


def unlock(page):
    page.evaluate(f"window.MycDashboard.post('unlock', {{pin: '{PIN}'}})")
    page.evaluate("window.MycDashboard.refresh()")
    page.wait_for_function("window.MycDashboard.state().viewer.unlocked === true")


def test_undo_asks_first_for_another_players_move_and_a_double_tap_undoes_one(browser, table):
    s, srv = table
    # The last move is the previous player's end of turn: someone else's move for the table.
    if s.game.events[-1].move["action"] != "end_turn":
        s.submit({"player": s.position.active, "action": "end_turn"}, source="dashboard")
    last = s.game.events[-1]
    assert last.move["player"] != s.position.active
    page, errors = open_page(browser, srv.local_url)
    unlock(page)
    sent = []
    page.on("request", lambda r: sent.append(r.post_data) if r.url.endswith("/api/undo") else None)
    n = len(s.game.events)
    page.click("#act-undo")
    page.wait_for_selector("#undo-confirm")
    assert f"Undo {last.move['player'].capitalize()}'s move?" in page.locator("#dlg-title").inner_text()
    assert len(s.game.events) == n                              # nothing happens before the answer
    busy = page.evaluate("() => { document.querySelector('#undo-confirm').click();"
                         " return document.querySelector('#act-undo').disabled; }")
    assert busy                                                  # disabled while in flight
    page.wait_for_function(f"window.MycDashboard.state().log.length === {n - 1}", timeout=10000)
    assert len(s.game.events) == n - 1 and sent == [f'{{"seq":{last.seq}}}']

    # The active player's own move: no question, and a double tap sends one request.
    s.submit(last.move, source="dashboard")                     # the turn ends again
    mv = next(m for m in legal_moves(s.position, s.edition) if m["action"] not in ("draw", "end_turn"))
    s.submit(mv, source="dashboard")
    n = len(s.game.events)
    page.wait_for_function(f"window.MycDashboard.state().log.length === {n}", timeout=10000)
    page.evaluate("() => { const b = document.querySelector('#act-undo'); b.click(); b.click(); }")
    page.wait_for_function(f"window.MycDashboard.state().log.length === {n - 1}", timeout=10000)
    assert len(s.game.events) == n - 1 and len(sent) == 2
    assert errors == []
    page.close()
