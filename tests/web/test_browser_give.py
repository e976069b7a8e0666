"""The Give dialog in Debian's Chromium offers only what the rules allow (rulebook 5.c, 7.b,
9.b): one nutrient in a competitive game without the Funga mission; in team play the teammate
alone as receiver and only the colours the giver holds; with Funga two cubes of two colours,
which are given."""

from __future__ import annotations

import pytest

from builders import make_position
from test_browser import ARTIFACTS, browser, open_page, pytestmark  # noqa: F401  (fixture and skip reused)
from test_browser_undo import unlock
from test_give_amounts import ROW, team_position
from webtools import PIN

from web.demo import demo_session
from web.server import serve


@pytest.fixture
def table(shared_table):
    return shared_table("competitive", 3, 11, turns=12)   # only read: the dialog is closed unsent


def values(page, name):
    return page.locator(f"#dlg-body [data-name='{name}'] button[data-{'value' if name == 'to' else 'color'}]") \
        .evaluate_all(f"bs => bs.map(b => b.dataset.{'value' if name == 'to' else 'color'})")


def test_the_give_dialog_offers_one_nutrient_without_funga(browser, table):
    s, srv = table
    assert "funga" not in s.position.missions
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(srv.local_url)
        page.wait_for_selector("body[data-rendered='1']")
        page.click("#act-give")
        page.locator("#dlg-body [data-name='nutrients'], #give-none").first.wait_for()
        held = [c for c, n in s.position.nutrients[s.position.active].items() if n]
        offer = s.state()["give"]
        if held and not offer["to"]:   # nobody can receive now (5.c): the dialog says why for each player
            assert page.locator("#give-refused li").count() == len(offer["refused"])
        elif held:    # a second tap of a colour keeps one cube: a gift of one
            page.locator(f"#dlg-body [data-color='{held[0]}']").click()
            page.locator(f"#dlg-body [data-color='{held[0]}']").click()
            assert page.locator(f"#dlg-body [data-color='{held[0]}'] b").inner_text() == "1"
        page.click("#dlg-buttons .cancel")
    finally:
        page.close()


def test_team_play_offers_the_teammate_and_held_colours_and_funga_gives_two_colours(browser):
    session = demo_session("competitive", 2, seed=3)
    session.start_from(team_position(nutrients={"blue": {"pink": 2, "yellow": 0, "white": 1}}), None, None)
    srv = serve(session, port=0, pin=PIN, announce=False)
    try:
        page, errors = open_page(browser, srv.local_url)
        unlock(page)
        page.click("#act-give")
        page.locator("#dlg-body [data-name='nutrients']").wait_for()
        assert values(page, "to") == ["red"]                      # 9.b: no opponent is offered
        assert values(page, "nutrients") == ["pink", "white"]     # no yellow: blue holds none
        page.click("#dlg-buttons .cancel")

        # a cooperative game with Funga (7.b): one pink and one yellow in one gift
        pos = make_position(mode="cooperative", difficulty="easy", missions=("funga",), tiles=dict(ROW),
                            meeples={"blue": (3, 0), "orange": (1, 0)}, nutrients={"blue": {"pink": 1, "yellow": 2}})
        session.start_from(pos, None, None)
        page.wait_for_function("window.MycDashboard.state().position.mode === 'cooperative'")
        page.click("#act-give")
        page.locator("#dlg-body [data-name='nutrients']").wait_for()
        assert page.locator("#give-ok").is_disabled()
        for c in ("pink", "pink", "yellow", "yellow"):   # a second pink is not held; a third cube is too many
            page.locator(f"#dlg-body [data-color='{c}']").click()
        assert page.locator("#dlg-body [data-color='pink'] b").inner_text() == "1"
        assert page.locator("#dlg-body [data-color='yellow'] b").inner_text() == "1"
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "give-funga-1280x800.png"))
        page.click("#give-ok")
        page.wait_for_selector("#dlg", state="hidden")
        assert session.position.nutrients["orange"] == {"pink": 1, "yellow": 1, "white": 0}
        assert session.position.nutrients["blue"] == {"pink": 0, "yellow": 1, "white": 0}
        assert errors == []
        page.close()
    finally:
        srv.shutdown()
