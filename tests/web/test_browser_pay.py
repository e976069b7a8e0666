"""A removal's cubes chosen on a phone, in Debian's Chromium (rulebook 4.c: Lichens cost "any 2
nutrients"): the camera's removal waits, blue's chooser opens by itself, says what the cubes
pay for, and never takes more cubes of a colour than blue holds."""

from __future__ import annotations

from test_browser import browser, pytestmark  # noqa: F401  (fixture and skip reused)
from test_browser_choices import seated_page
from webtools import PIN

from builders import make_position
from companion.game import Game
from companion.table.session import TableSession
from web.server import serve


def test_blue_pays_for_lichens_on_the_phone(browser):
    # blue's meeple on its spore (4, 0) beside a rock at D8 (4, -1), holding 1 pink and 2 yellow
    s = TableSession(Game(make_position(rocks=[(4, -1)], nutrients={"blue": {"pink": 1, "yellow": 2}})))
    srv = serve(s, port=0, pin=PIN, announce=False)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    errors = []
    try:
        blue = seated_page(phone, srv.local_url, "blue", errors)

        s.submit({"player": "blue", "action": "remove", "at": [4, -1]}, source="camera")
        blue.wait_for_selector("#choice-form[data-player=blue][data-kind=pay]")
        assert blue.locator("#dlg-title").inner_text() == "Blue: pay 2 cubes for removing the rock at D8"
        assert "Pay 2 cubes for removing the rock at D8" in blue.locator("#dlg-body").inner_text()
        assert "Lichens at D8: waiting for blue" in blue.locator("#choices-banner").inner_text()
        assert blue.locator("#choice-form button.nut").evaluate_all("bs => bs.map(b => b.dataset.color)") == ["pink", "yellow"]
        blue.locator("button.nut[data-color=pink]").click()
        blue.locator("button.nut[data-color=pink]").click()       # blue holds one pink: not taken twice
        assert blue.locator("button.nut[data-color=pink] b").inner_text() == "1"
        assert blue.locator("#choice-ok").is_disabled()
        blue.locator("button.nut[data-color=yellow]").click()
        blue.click("#choice-ok")
        blue.wait_for_selector("#choices-banner", state="hidden")
        assert [e.move.get("pay") for e in s.game.events] == [{"pink": 1, "yellow": 1}]
        assert s.position.nutrients["blue"] == {"pink": 0, "yellow": 1, "white": 0}
        assert errors == []
    finally:
        phone.close()
        srv.shutdown()
