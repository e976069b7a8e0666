"""The market on a phone in Debian's Chromium (360x740, 390x844): every face-up card shows its
whole name (on two lines if need be, not cut to "Xylaria hy..."), and a market taller than the
screen scrolls, so the last cards can be brought above the action bar instead of staying hidden
under it.  Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import pytest

from test_browser import ARTIFACTS, CHROMIUM, browser, open_page, pytestmark  # noqa: F401
from web.demo import demo_session
from web.server import serve
from webtools import PIN

PHONES = [(360, 740), (390, 844)]

NAMES_CUT = """() => [...document.querySelectorAll('#tab-market .cname strong')]
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


@pytest.fixture(scope="module")
def table():
    s = demo_session("cooperative", 3, seed=13)
    srv = serve(s, port=0, pin=PIN, announce=False)
    yield s, srv
    srv.shutdown()


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_market_card_can_be_read_whole_on_a_phone(browser, table, size):
    _, srv = table
    width, height = size
    page, errors = open_page(browser, srv.local_url, width, height)
    page.click("#tabs button[data-tab='market']")
    cards = page.locator("#tab-market .card")
    assert cards.count() == 6
    assert page.evaluate(NAMES_CUT) == []
    bar = page.locator("#actions").bounding_box()
    last = cards.nth(5)
    last.scroll_into_view_if_needed()
    box = last.bounding_box()
    assert box["y"] + box["height"] <= bar["y"] + 0.5, (box, bar)   # above the action bar, whole
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"market-{width}x{height}.png"))
    assert errors == [], errors
    page.close()
