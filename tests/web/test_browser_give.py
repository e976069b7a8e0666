"""The Give dialog in Debian's Chromium offers only the amounts a gift may hold now (rulebook
5.c, 7.b): one nutrient in a competitive game, where two are refused without the Funga mission."""

from __future__ import annotations

import pytest

from test_browser import browser, pytestmark  # noqa: F401  (fixture and skip reused)


@pytest.fixture
def table(shared_table):
    return shared_table("competitive", 3, 11, turns=12)   # only read: the dialog is closed unsent


def test_the_give_dialog_offers_one_nutrient_without_funga(browser, table):
    s, srv = table
    assert "funga" not in s.position.missions
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(srv.local_url)
        page.wait_for_selector("body[data-rendered='1']")
        page.click("#act-give")
        amounts = page.locator("#dlg-body [data-name='n'] button")
        amounts.first.wait_for()
        assert amounts.evaluate_all("bs => bs.map(b => b.dataset.value)") == ["1"]
        page.click("#dlg-buttons .cancel")
    finally:
        page.close()
