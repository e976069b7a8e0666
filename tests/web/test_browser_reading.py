"""Reading the dashboard at the table in Debian's Chromium, at 1280x800 and 768x1024 (tablets)
and 390x844 (a phone), in cooperative and team games of four: the six market cards with their
printed cost and what each player lacks (on a phone, whole names make the market scroll: each
card comes into view whole), the three missions, every player row and the last move in words lie
inside the viewport without scrolling (element boxes, not pixels); the
portrait board fills the width; after the game nobody is to play.  Screenshots go to
``test-artifacts/``."""

from __future__ import annotations

import pytest

from test_browser import ARTIFACTS, CHROMIUM, browser, open_page, pytestmark  # noqa: F401

SIZES = [(1280, 800), (768, 1024), (390, 844)]


@pytest.fixture(params=["cooperative", "team"])
def table(request, shared_table):
    return shared_table(request.param, 4, 13, turns=14)


CUT = """(sel) => [...document.querySelectorAll(sel)].filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


def inside(page, sel, width, height):
    """Every element matching ``sel`` is displayed and wholly inside the viewport."""
    boxes = [e.bounding_box() for e in page.locator(sel).all()]
    assert boxes, f"no {sel}"
    for b in boxes:
        assert b is not None and b["width"] > 0 and b["height"] > 0, (sel, b)
        assert b["x"] >= -0.5 and b["y"] >= -0.5 and b["x"] + b["width"] <= width + 0.5 \
            and b["y"] + b["height"] <= height + 0.5, (sel, b, width, height)
    return boxes


def overlap(a, b):
    return a["x"] < b["x"] + b["width"] - 0.5 and b["x"] < a["x"] + a["width"] - 0.5 \
        and a["y"] < b["y"] + b["height"] - 0.5 and b["y"] < a["y"] + a["height"] - 0.5


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_everything_a_player_reads_is_on_screen(browser, table, size):
    session, srv = table
    width, height = size
    page, errors = open_page(browser, srv.local_url, width, height)
    page.evaluate("document.fonts.ready.then(() => true)")
    mode = session.position.mode
    assert page.evaluate("scrollY") == 0 and page.evaluate("document.scrollingElement.scrollHeight") <= height

    # every player row and the last move in words, whatever the tab
    rows = inside(page, ".player", width, height)
    assert len(rows) == 4
    inside(page, "#lastmove", width, height)
    last = session.game.events[-1]
    assert page.locator("#lastmove .lm-text").inner_text().lower() == last.notes[0].lower() if last.notes else True
    assert page.evaluate("(() => { const t = document.querySelector('#lastmove'); return t.scrollHeight <= t.clientHeight + 1; })()")

    # the market: six cards, each with its cost per meeple colour and what each player lacks
    page.evaluate("window.MycDashboard.selectTab('market')")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"reading-{mode}-{width}x{height}-market.png"))
    panel = page.locator("#tab-market").bounding_box()  # not clipped by the panel or under the inputs
    actions = page.locator("#actions").bounding_box()
    if width > 600:   # a tablet: the six cards at once
        cards = inside(page, "#tab-market .card", width, height)
    else:             # a phone: whole names on two lines, so the market scrolls; each card comes into view whole
        cards = []
        for card in page.locator("#tab-market .card").all():
            card.scroll_into_view_if_needed()
            cards.append(card.bounding_box())
            assert cards[-1]["y"] >= panel["y"] - 0.5, (cards[-1], panel)
        assert page.evaluate(CUT, "#tab-market .cname strong") == []
    assert len(cards) == 6
    for b in cards:
        assert b["y"] + b["height"] <= panel["y"] + panel["height"] + 0.5, (b, panel)
        assert not overlap(b, actions), (b, actions)
    for card in page.locator("#tab-market .card").all():
        assert card.locator(".ccost .permeeple, .ccost .nut, .ccost .myc").count() >= 1
        assert card.locator(".afford .lack").count() == 4  # one per player, not only the active one
    if mode in ("cooperative", "team"):
        state = page.evaluate("window.MycDashboard.state()")
        colored = [c for c in state["market"] if any(sum(v.values()) for v in (c.get("nutrients_by_meeple") or {}).values())]
        for c in colored:
            shown = page.locator(f"#tab-market .card[data-card='{c['id']}'] .permeeple").count()
            assert shown == sum(1 for v in c["nutrients_by_meeple"].values() if sum(v.values())), c["id"]

    # the goals: all three missions with their progress, and the cooperative VP target
    page.evaluate("window.MycDashboard.selectTab('goals')")
    if mode == "cooperative":
        missions = inside(page, "#tab-goals .mission", width, height)
        assert len(missions) == 3
        panel = page.locator("#tab-goals").bounding_box()
        assert all(b["y"] + b["height"] <= panel["y"] + panel["height"] + 0.5 for b in missions)
        inside(page, "#tab-goals .mission .bar", width, height)
        assert f"of {session.state()['targets']['target']} VP" in page.locator("#tab-goals h3").inner_text()
    else:
        inside(page, "#tab-goals .score", width, height)

    # portrait: the board is a tab and fills the width
    if height > width:
        page.evaluate("window.MycDashboard.selectTab('board')")
        board = page.locator("#board .spaces").bounding_box()
        assert board["width"] >= 0.85 * width, board
        inside(page, ".player", width, height)
        inside(page, "#actions button", width, height)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"reading-{mode}-{width}x{height}.png"))
    assert errors == [], errors
    page.close()


def test_a_covered_space_shows_its_label_on_hover(browser, table):
    session, srv = table
    page, errors = open_page(browser, srv.local_url)
    tile = next(iter(session.position.tiles))
    sel = f"#board .space[data-at='{tile.q},{tile.r}']"
    label = page.locator(f"{sel} .space-label.covered")
    assert label.text_content() == session.edition.label(tile)
    assert float(label.evaluate("e => getComputedStyle(e).opacity")) == 0
    page.hover(sel)
    page.wait_for_function(f"getComputedStyle(document.querySelector(\"{sel} .space-label.covered\")).opacity === '1'")
    page.click(sel)  # and on tap: the panel names it too
    assert f"Space {session.edition.label(tile)}" in page.locator("#space-panel").inner_text()
    assert errors == []
    page.close()


def test_after_the_game_nobody_is_to_play(browser, shared_table):
    s, srv = shared_table("competitive", 2, 3, turns=400)
    assert s.position.result is not None, "the bots did not finish the game"
    page, errors = open_page(browser, srv.local_url)
    turn = page.locator("#turn").inner_text()
    assert "Game over" in turn and "to play" not in turn
    assert page.locator(".player.active, .turnmark").count() == 0
    assert page.locator("#tab-market .buy").count() == 0 and "for " not in page.locator("#tab-market").inner_text()
    assert errors == []
    page.close()
