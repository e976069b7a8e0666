"""Forest Communication at the table, end to end in Debian's Chromium: the camera's move waits
for the players' choices, blue's phone opens blue's chooser by itself, blue answers for
orange (whose tablet is away) after confirming, and the move is committed with both answers
while another tablet follows; the chooser fits a 390x844 phone."""

from __future__ import annotations

from test_browser import ARTIFACTS, browser, pytestmark  # noqa: F401  (fixture and skip reused)
from test_choices import forest_communication_move
from webtools import PIN

from companion.game import Game
from companion.table.session import TableSession
from web.server import serve


def inside(box, w, h):
    return box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= w + 0.5 and box["y"] + box["height"] <= h + 0.5


def unlock(page):
    page.click("#btn-lock")
    page.fill("#pin-input", PIN)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#btn-lock').textContent === 'Lock'")


def seated_page(context, url: str, color: str, errors: list[str]):
    """A dashboard page on ``context`` that says it is ``color``'s ("I am Blue", said once on
    this phone), unlocked; page errors go to ``errors``."""
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("body[data-rendered='1']")
    page.evaluate(f"window.MycDashboard.setSeat('{color}')")
    unlock(page)
    return page


def test_forest_communication_waits_for_every_player_in_chromium(browser):
    pos, move = forest_communication_move()
    s = TableSession(Game(pos))
    srv = serve(s, port=0, pin=PIN, announce=False)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    tablet = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    errors = []
    try:
        blue = seated_page(phone, srv.local_url, "blue", errors)
        other = tablet.new_page()
        other.on("pageerror", lambda e: errors.append(str(e)))
        other.goto(srv.local_url)
        other.wait_for_selector("body[data-rendered='1']")

        s.submit(move, source="camera")                              # the camera sees blue's tile
        assert s.game.events == []
        other.wait_for_selector("#choices-banner:not([hidden])")
        assert "waiting for blue and orange" in other.locator("#choices-banner").inner_text()

        # blue's chooser opens by itself on blue's phone
        blue.wait_for_selector("#choice-form[data-player=blue]")
        assert inside(blue.locator("#dlg").bounding_box(), 390, 844)
        sections = blue.locator(".choice-section")
        for i in range(sections.count()):
            sec = sections.nth(i)
            want = int(sec.locator("label").inner_text().split(": ")[-1].split(" ")[0])
            for _ in range(want):
                sec.locator("button.nut[data-color=yellow]").click()
        ARTIFACTS.mkdir(exist_ok=True)
        blue.screenshot(path=str(ARTIFACTS / "choices-390x844.png"))
        blue.click("#choice-ok")
        other.wait_for_selector("#choices-banner .chosen[data-player=blue]")
        assert s.game.events == [] and s.choices.waiting_for == ["orange"]

        # orange's tablet is away: blue answers for orange, after confirming
        blue.click("#choices-banner button.choose[data-player=orange]")
        blue.wait_for_selector("#answer-other")
        assert "only when Orange's tablet is away" in blue.locator("#dlg-body").inner_text()
        blue.click("#answer-other")
        blue.wait_for_selector("#choice-form[data-player=orange]")
        blue.locator("button.nut[data-color=white]").click()
        assert blue.locator("#choice-ok").is_disabled()              # one more cube to pick
        blue.locator("button.nut[data-color=pink]").click()
        blue.click("#choice-ok")

        other.wait_for_selector("#choices-banner", state="hidden")
        assert len(s.game.events) == 1
        ev = s.game.events[0]
        assert ev.move["choose"]["orange"] == ["white", "pink"] and set(ev.move["choose"]["blue"]) == {"yellow"}
        assert s.position.nutrients["orange"] == {"pink": 4, "yellow": 0, "white": 1}
        other.wait_for_function("document.querySelectorAll('#log > li').length === 1")
        assert "Forest Communication" in other.locator("#log").inner_text()
        assert errors == []
    finally:
        phone.close()
        tablet.close()
        srv.shutdown()
