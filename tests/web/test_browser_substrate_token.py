"""The "Lay … substrate" control in Debian's Chromium (rulebook 5.a): when a token is due the
action bar offers it, its picker lists the spaces printed on that kind's tokens (one holding a
tree says so in words and cannot be picked), and a tap and Confirm lay the token, after which
the turn ends.  The Give dialog says why nobody can receive when nobody can (5.c)."""

from __future__ import annotations

from builders import make_position
from test_browser import ARTIFACTS, browser, open_page, pytestmark  # noqa: F401  (fixture and skip reused)
from test_browser_undo import unlock
from test_substrate_token import TREE
from webtools import PIN

from companion.edition import load_edition
from web.demo import demo_session
from web.server import serve

ED = load_edition("default")


def test_the_due_token_is_laid_with_taps_and_the_turn_then_ends(browser):
    session = demo_session("competitive", 2, seed=3)
    session.start_from(make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood"}, trees=[TREE],
                                     meeples={"blue": (3, 0), "orange": (-4, 0)}), None, None)
    srv = serve(session, port=0, pin=PIN, announce=False)
    try:
        page, errors = open_page(browser, srv.local_url)
        unlock(page)
        assert page.locator("#act-substrate").count() == 0
        for mv in ({"player": "blue", "action": "place", "tile": "P03", "at": [2, 0], "rotation": 0},
                   {"player": "blue", "action": "draw", "tile": "Y03"}):
            session.submit(mv, source="dashboard")
        page.wait_for_selector("#act-substrate")
        assert page.locator("#act-substrate").inner_text() == "Lay wood substrate"
        page.click("#act-end")                              # refused: the token comes first
        page.wait_for_selector("#toast:not([hidden])")
        assert f"replace the one at {ED.label((2, 0))} (5.a)" in page.locator("#toast").inner_text()
        assert session.position.active == "blue"

        page.click("#act-substrate")
        grid = page.locator("#dlg-body .spacepick")
        grid.wait_for()
        tree = grid.locator(f"button[data-at='{TREE[0]},{TREE[1]}']")
        assert tree.is_disabled() and "holds a tree: draw another token" in tree.inner_text()
        free = next(h for h in ED.substrate_tokens["wood"] if h not in (TREE, (2, 0), (3, 0), (4, 0), (-4, 0)))
        grid.locator(f"button[data-at='{free[0]},{free[1]}']").click()
        assert page.locator("#substrate-ok").inner_text() == f"Confirm: the wood token on {ED.label(free)}"
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "substrate-token-1280x800.png"))
        page.click("#substrate-ok")
        page.wait_for_selector("#dlg", state="hidden")
        assert session.position.substrates[free] == "wood"
        page.wait_for_selector("#act-substrate", state="detached")
        page.click("#act-end")
        page.wait_for_function("window.MycDashboard.state().position.active === 'orange'")
        assert errors == []
        page.close()
    finally:
        srv.shutdown()


def test_the_give_dialog_says_why_nobody_can_receive(browser):
    session = demo_session("competitive", 2, seed=3)
    session.start_from(make_position(mode="cooperative", difficulty="easy", nutrients={"blue": {"pink": 1}}), None, None)
    srv = serve(session, port=0, pin=PIN, announce=False)
    try:
        page, errors = open_page(browser, srv.local_url)
        page.click("#act-give")
        page.locator("#give-refused").wait_for()
        assert page.locator("#give-none").inner_text() == "Nobody can receive a gift from Blue now:"
        assert page.locator("#give-refused li[data-player='orange']").inner_text() == \
            "Orange: You and orange are not on the same mycelium network."
        assert page.locator("#dlg-body [data-name='to']").count() == 0
        page.click("#dlg-buttons .cancel")
        assert errors == []
        page.close()
    finally:
        srv.shutdown()
