"""The dashboard's header on a phone in Debian's Chromium (390x844, 360x740): whose turn it is,
every counter (bag, decks, scores, mode) and every device chip wrap onto more lines instead of
being cut or pushed off the screen, in a team game of four with a camera and a reader in
trouble (the longest chips).  Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import pytest

from test_browser import ARTIFACTS, CHROMIUM, browser, open_page, pytestmark  # noqa: F401
from webtools import served

PHONES = [(390, 844), (360, 740)]

SHOWN_WHOLE = """(sel) => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null).map(e => {
  // the element's box, and whether it or an ancestor up to the top bar cuts its content
  const r = e.getBoundingClientRect();
  let cut = e.scrollWidth > e.clientWidth + 1;
  for (let a = e.parentElement; a && a.id !== 'topbar'; a = a.parentElement) {
    const b = a.getBoundingClientRect(), st = getComputedStyle(a);
    if (st.overflowX !== 'visible' && (r.left < b.left - 0.5 || r.right > b.right + 0.5)) cut = true;
  }
  return {what: (e.id || e.className) + ': ' + e.textContent.trim(), cls: String(e.className), left: r.left, right: r.right,
          top: r.top, bottom: r.bottom, cut};
})"""


@pytest.fixture(scope="module")
def table():
    with served("team", 4, 13, turns=6) as (s, srv):   # its own: the statuses are set on it
        s.set_status("camera", "stalled", "no frame for 2 s; reopening the camera")
        s.set_status("reader", "disconnected", "io error: unplugged")
        yield s, srv


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_header_wraps_on_a_phone(browser, table, size):
    session, srv = table
    width, height = size
    page, errors = open_page(browser, srv.local_url, width, height)
    page.evaluate("document.fonts.ready.then(() => true)")
    chips = page.evaluate(SHOWN_WHOLE, "#topbar .counter, #topbar .dev, #turn, #topbar button")
    assert len([c for c in chips if "counter" in c["cls"]]) == 4   # bag, decks, team scores, mode
    assert len([c for c in chips if c["cls"].startswith("dev ")]) == 2
    for c in chips:
        assert c["left"] >= -0.5 and c["right"] <= width + 0.5, c
        assert not c["cut"], c
    assert "to play" in page.locator("#turn").inner_text()
    assert "Team" in page.locator("#counters").inner_text()
    # the header leaves the page below it on screen: the players and the table inputs
    bar = page.locator("#topbar").bounding_box()
    assert bar["y"] + bar["height"] < 0.35 * height, bar
    for b in [e.bounding_box() for e in page.locator("#actions button").all()]:
        assert b["y"] + b["height"] <= height + 0.5, b
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"header-{width}x{height}.png"))
    assert errors == [], errors
    page.close()
