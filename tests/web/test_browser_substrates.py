"""Substrate tokens in Debian's Chromium: each fills its own hex, striped (wood) or dotted
(soil) as docs/dashboard.md says, and its name sits in the middle of that hex, not at the tip
beside the next row's label (where a token on C3 read as "SOIL D3")."""

from __future__ import annotations

import pytest

from test_browser import ARTIFACTS, browser, pytestmark  # noqa: F401  (fixture and skip reused)


@pytest.fixture
def table(shared_table):
    return shared_table("competitive", 3, 11, turns=12)   # only read: four bare substrate spaces


def test_a_substrate_token_is_drawn_on_its_own_space(browser, table):
    s, srv = table
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(srv.local_url)
        page.wait_for_selector("body[data-rendered='1']")
        subs = s.position.substrates
        assert subs
        for at, kind in subs.items():
            space = page.locator(f"#board g.space[data-at='{at.q},{at.r}']")
            fill = space.locator("polygon.hex").evaluate("e => getComputedStyle(e).fill")
            assert f"#{kind}" in fill, (at, kind, fill)                 # the pattern, not the plain space colour
            hexbox = space.locator("polygon.hex").bounding_box()
            word = space.locator("text.sub-label")
            assert word.count() == 1 and word.text_content() == kind.upper()
            box = word.bounding_box()
            middle = hexbox["y"] + hexbox["height"] / 2
            # inside the middle band of its own hex, well above the tip
            assert middle - hexbox["height"] * 0.2 <= box["y"] and box["y"] + box["height"] <= middle + hexbox["height"] * 0.2
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "substrates-1280x800.png"))
    finally:
        page.close()
