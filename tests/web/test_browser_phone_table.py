"""The dashboard at the table on a phone (360x740) in Debian's Chromium, checked on a portrait
tablet (800x1280) and a landscape one (1280x800) too: team names are whole, a question to the
table ("does orange's turn end now?") says what it asks in its heading and leaves the board its
room, and a toast never covers a button the players need (a tap dismisses it).  Screenshots go
to ``test-artifacts/``."""

from __future__ import annotations

import pytest

from test_browser import ARTIFACTS, browser, open_page, pytestmark  # noqa: F401  (fixture and skip reused)
from webtools import PIN

from companion.table.live import LiveTable

SIZES = [(360, 740), (800, 1280), (1280, 800)]
IDS = [f"{w}x{h}" for w, h in SIZES]

CUT = """(sel) => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null)
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


def overlap(a, b):
    return a["x"] < b["x"] + b["width"] - 0.5 and b["x"] < a["x"] + a["width"] - 0.5 \
        and a["y"] < b["y"] + b["height"] - 0.5 and b["y"] < a["y"] + a["height"] - 0.5


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_each_player_row_shows_the_whole_name_and_team(browser, shared_table, size):
    session, srv = shared_table("team", 4, 13, turns=6)
    width, height = size
    page, errors = open_page(browser, srv.local_url, width, height)
    page.evaluate("document.fonts.ready.then(() => true)")
    assert page.evaluate(CUT, ".pname .pn, .pname .pteam") == []          # was "Orange · te..."
    for p in session.position.players:
        row = page.locator(f".player[data-color={p.color}]")
        box = row.bounding_box()
        assert p.color.capitalize() in row.locator(".pn").inner_text()
        assert row.locator(".pteam").inner_text() == f"team {p.team}"
        for part in (row.locator(".pn"), row.locator(".pteam")):
            b = part.bounding_box()
            assert box["x"] <= b["x"] and b["x"] + b["width"] <= box["x"] + box["width"] + 0.5, (p.color, b, box)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"team-rows-{width}x{height}.png"))
    assert errors == []
    page.close()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_question_says_what_it_asks_and_leaves_the_board_its_room(browser, fresh_table, size):
    session, srv = fresh_table("team", 4, 13, turns=6)
    width, height = size
    page, errors = open_page(browser, srv.local_url, width, height)
    board_alone = page.locator("#board").bounding_box()["height"]
    ended = [e.move["player"] for e in session.game.events if e.move["action"] == "end_turn"][-1]
    player = session.position.active
    live = LiveTable(session, reader=object())
    with session.lock:   # the press that came right after orange's turn ended, before red drew
        live._ask_press({"player": player, "action": "end_turn"}, ended)
    page.wait_for_selector("#question-banner:not([hidden]) .answer")
    title = page.locator("#question-banner .q-title").inner_text()
    assert title == f"Does {player}'s turn end now?"                           # was "?"
    assert f"right after {ended}'s turn ended" in page.locator("#question-banner").inner_text()
    board = page.locator("#board").bounding_box()
    assert board["height"] >= 180 and board["height"] >= 0.7 * board_alone, (board, board_alone)   # was 21 px on a phone
    for b in [e.bounding_box() for e in page.locator("#question-banner .answer, #actions button").all()]:
        assert b["y"] >= 0 and b["y"] + b["height"] <= height + 0.5 and b["height"] >= 44, b
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"question-{width}x{height}.png"))
    # answered on the page: the banner goes and the board is back to its size
    page.locator("#btn-lock").click()
    page.fill("#pin-input", PIN)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#btn-lock').textContent === 'Lock'")
    page.locator("#question-banner .answer").nth(1).click()                 # "No: orange pressed twice"
    page.wait_for_selector("#question-banner", state="hidden")
    assert session.question is None and session.position.active == player
    assert abs(page.locator("#board").bounding_box()["height"] - board_alone) < 1
    assert errors == []
    page.close()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_toast_covers_no_button_and_a_tap_dismisses_it(browser, shared_table, size):
    _, srv = shared_table("team", 4, 13, turns=6)        # unlocking changes this page's cookie, not the game
    width, height = size
    page, errors = open_page(browser, srv.local_url, width, height)
    page.locator("#btn-lock").click()
    page.fill("#pin-input", PIN)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#btn-lock').textContent === 'Lock'")
    toast = page.locator("#toast")
    # The toast shows for 3 s: read it and every visible button in one round trip, so a busy
    # machine cannot let it time out between the reads and the tap.
    seen = page.evaluate("""() => {
        const box = e => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; };  // as Playwright's bounding_box
        const t = document.querySelector('#toast');
        const buttons = [];
        for (const sel of ['#actions button', '#topbar button', '#tabs button', '.open button'])
            for (const e of document.querySelectorAll(sel))
                if (e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden') buttons.push([sel, box(e)]);
        return {shown: !t.hidden, text: t.textContent, toast: box(t), buttons};
    }""")
    assert seen["shown"] and "Unlocked" in seen["text"]
    assert {sel for sel, _ in seen["buttons"]} >= {"#actions button", "#topbar button"}, seen["buttons"]
    t = seen["toast"]
    assert 0 <= t["y"] and t["y"] + t["height"] <= height and 0 <= t["x"] and t["x"] + t["width"] <= width, t
    for sel, b in seen["buttons"]:
        assert not overlap(t, b), (sel, t, b)                                  # was over the inputs
    toast.click()
    assert toast.is_hidden()
    assert errors == []
    page.close()
