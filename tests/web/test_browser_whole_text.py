"""Text a glancing player needs is never cut, in Debian's Chromium: on a phone (360x740,
390x844) every face-up card shows its whole name (on two lines if need be, not cut to
"Xylaria hy..."), and a market taller than the screen scrolls, so the last cards can be brought
above the action bar instead of staying hidden under it; on a tablet (1280x800) the card names
too; on the Goals tab each mission's title as the rulebook names it and its whole progress
(every tree's count).  Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import pytest

from test_browser import ARTIFACTS, CHROMIUM, browser, open_page, pytestmark  # noqa: F401
PHONES = [(360, 740), (390, 844)]

NAMES_CUT = """() => [...document.querySelectorAll('#tab-market .cname strong')]
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


@pytest.fixture
def table(shared_table):
    return shared_table("cooperative", 3, 13)


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


CUT = """(sel) => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null)
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_card_names_and_mission_progress_are_whole(browser, table, size):
    _, srv = table
    page, errors = open_page(browser, srv.local_url, *size)
    page.click("#tabs button[data-tab='market']")
    assert page.locator("#tab-market .card").count() == 6 and page.evaluate(CUT, "#tab-market .cname strong") == []
    page.click("#tabs button[data-tab='goals']")
    titles = [t.split(" ")[0:2] for t in page.locator("#tab-goals .mission strong").all_inner_texts()]
    assert titles == [["Funga"], ["Forest", "Symbiosis"], ["Forest", "Communication"]]
    details = page.locator("#tab-goals .mission .detail")
    assert "tree D" in details.nth(1).inner_text() and page.evaluate(CUT, "#tab-goals .mission .detail") == []
    assert errors == [], errors
    page.close()
