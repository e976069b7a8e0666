"""A table without a bag reader (``run --rfid none``) enters each draw on the dashboard, in
Debian's Chromium: the player a drawn tile goes to gets *Drew a tile*, which opens a grid of the
tiles still in the bag (picture and code, as the hand shows them) to tap; the confirmed tile is
in the hand.  The open dialog follows draws entered on another tablet and clears a pick made
before one came in; a Confirm sent before the page heard of it is refused as already entered
by another tablet, and the dialog is drawn again.  With a reader (or the bots' demo) there is no such
control."""

from __future__ import annotations

import pytest

from test_browser import ARTIFACTS, browser, open_page, pytestmark  # noqa: F401  (fixture and skip reused)
from test_browser_undo import unlock
from webtools import PIN, Browser, readerless_table

from web import create_app
from web.server import serve


def test_the_state_offers_the_bag_only_to_a_table_without_a_reader(shared_table):
    with_reader, _ = shared_table("cooperative", 3, 13)
    assert with_reader.state()["draw"] is None
    session = readerless_table()
    offer = Browser(create_app(session, pin=PIN)).get("/api/state").get_json()["draw"]
    bag = session.position.bag_tiles
    assert offer["player"] == session.position.colors[0]
    assert {t["code"]: t["left"] for t in offer["tiles"]} == {c: n for c, n in bag.items() if n}


def test_a_tile_no_longer_in_the_bag_is_refused_without_speaking_of_a_reader():
    # a script (or a stale page) enters a tile all of whose copies are out: the sentence fits a
    # table whose draws are tapped in, not only one with a bag reader
    session = readerless_table()
    offer = session.state()["draw"]
    last = min(offer["tiles"], key=lambda t: t["left"])
    for _ in range(last["left"]):                      # the opening hands take every copy of it
        assert session.submit({"player": session.state()["draw"]["player"], "action": "draw", "tile": last["code"]}).legal
    tablet = Browser(create_app(session, pin=PIN))
    tablet.unlock()
    r = tablet.post("/api/move", {"move": {"player": session.state()["draw"]["player"], "action": "draw", "tile": last["code"]}})
    assert r.status_code == 409 and r.get_json()["error"] == "tile_not_in_bag"
    assert "check which tile was drawn" in r.get_json()["message"] and "reader" not in r.get_json()["message"]


def twice_in_bag(session) -> str:
    """A tile code (not a rock) of which the bag still holds two or more."""
    return next(t["code"] for t in session.state()["draw"]["tiles"] if t["code"] != "ROCK" and t["left"] >= 2)


def pick_before_another_tablet_draws(page, session, player: str) -> tuple[str, int]:
    """Open *Drew a tile* for ``player``, tap a tile the bag holds twice or more, then enter
    that tile for ``player`` as another tablet would; ``(code, copies left before)``."""
    page.locator(f".player[data-color={player}] #btn-draw").click()
    code = twice_in_bag(session)
    left = next(t["left"] for t in session.state()["draw"]["tiles"] if t["code"] == code)
    page.locator(f".drawpick button[data-code='{code}']").click()
    assert session.submit({"player": player, "action": "draw", "tile": code}).legal
    return code, left


def test_a_draw_is_tapped_in_and_the_dialog_follows_the_game(browser):
    session = readerless_table()
    blue, orange = session.position.colors
    srv = serve(session, port=0, pin=PIN, announce=False)
    try:
        page, errors = open_page(browser, srv.local_url, 800, 1280)
        unlock(page)
        row = page.locator(f".player[data-color={blue}]")
        hand = f".player[data-color={blue}] .hand .tile-icon"
        assert page.locator("#btn-draw").count() == 1 and row.locator("#btn-draw").count() == 1
        # the first tile of the opening hand (rulebook 3)
        row.locator("#btn-draw").click()
        tiles = page.locator(".drawpick button")
        offer = session.state()["draw"]
        assert tiles.count() == len(offer["tiles"])
        assert tiles.first.locator("svg.tile-icon").count() == 1          # the picture the hand shows
        assert page.locator("#draw-ok").is_disabled()                     # a tap picks, Confirm draws
        first = next(t["code"] for t in offer["tiles"][1:] if t["code"] != "ROCK")
        page.locator(f".drawpick button[data-code='{first}']").click()
        assert first in page.locator(f".drawpick button[data-code='{first}']").inner_text()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "draw-800x1280.png"))
        page.locator("#draw-ok").click()
        page.wait_for_function(f"document.querySelectorAll('{hand}').length === 1")

        # another tablet enters blue's second draw while this one has a tile picked: the open
        # dialog follows (tiles left, that tile's count, a line saying what was entered) and
        # clears the pick, since it may be that very draw: Confirm cannot enter it twice; a
        # tile tapped again is blue's third draw
        code, left = pick_before_another_tablet_draws(page, session, blue)
        page.wait_for_function("document.querySelector('#dlg-body .detail').textContent.includes('(46 left)')")
        assert page.locator(f".drawpick button[data-code='{code}'] .left").inner_text() == f"×{left - 1}"
        assert "entered meanwhile" in page.locator("#dlg-error").inner_text()
        assert "Your pick was cleared" in page.locator("#dlg-error").inner_text()
        assert page.locator(f".drawpick button[data-code='{code}']").get_attribute("aria-checked") == "false"
        assert page.locator("#draw-ok").is_disabled() and len(session.position.hands[blue]) == 2
        page.locator(f".drawpick button[data-code='{code}']").click()
        page.locator("#draw-ok").click()
        page.wait_for_function(f"document.querySelectorAll('{hand}').length === 3")
        assert session.position.hands[blue][1:] == [code, code]

        # a phone that missed the move (its event stream cut): Confirm is refused, that draw
        # being already entered by another tablet; the refusal shows above the buttons, the
        # dialog is drawn again from the game as it is now with the pick cleared, and a tile
        # tapped again is taken as the next draw
        phone = browser.new_page(viewport={"width": 360, "height": 740}, bypass_csp=True)
        phone.on("pageerror", lambda e: errors.append(str(e)))
        phone.route("**/api/events*", lambda route: route.abort())
        phone.goto(srv.local_url)
        phone.wait_for_selector("body[data-rendered='1']")
        unlock(phone)
        code, left = pick_before_another_tablet_draws(phone, session, orange)
        assert phone.locator(f".drawpick button[data-code='{code}'] .left").inner_text() == f"×{left}"   # not told
        phone.locator("#draw-ok").click()
        phone.wait_for_function("document.querySelector('#dlg-error').textContent.includes('already entered by another tablet')")
        assert len(session.position.hands[orange]) == 1
        phone.wait_for_function(f"document.querySelector(\".drawpick button[data-code='{code}'] .left\").textContent === '×{left - 1}'")
        text, buttons = phone.evaluate("""() => {
            const range = document.createRange();
            range.selectNodeContents(document.querySelector('#dlg-error'));
            const t = range.getBoundingClientRect(), b = document.querySelector('#dlg-buttons').getBoundingClientRect();
            return [[t.top, t.bottom], [b.top, b.bottom]];
        }""")
        assert 0 <= text[0] < text[1] <= buttons[0] <= buttons[1] <= 740, \
            f"the refusal's text ({text}) must show above the dialog's buttons ({buttons}) on a 360x740 phone"
        phone.screenshot(path=str(ARTIFACTS / "draw-stale-360x740.png"))
        assert phone.locator(f".drawpick button[data-code='{code}']").get_attribute("aria-checked") == "false"
        assert phone.locator("#draw-ok").is_disabled()
        phone.locator(f".drawpick button[data-code='{code}']").click()
        phone.locator("#draw-ok").click()
        phone.wait_for_selector("#dlg", state="hidden")
        assert session.position.hands[orange] == [code, code]
        phone.close()

        # the last draw of the opening hands is entered elsewhere: nothing is left to draw
        page.locator(f".player[data-color={orange}] #btn-draw").click()
        page.locator(".drawpick button").first.click()
        assert session.submit({"player": orange, "action": "draw", "tile": twice_in_bag(session)}).legal
        page.wait_for_function("document.querySelector('#dlg-body .detail').textContent.startsWith('No draw is due now')")
        assert page.locator("#draw-ok").is_disabled() and not page.locator(".drawpick").is_visible()
        page.locator("#dlg-buttons .cancel").click()
        assert page.locator("#btn-draw").count() == 0
        assert errors == []
        page.close()
    finally:
        srv.shutdown()
