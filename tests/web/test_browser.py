"""The dashboard in Debian's Chromium (headless, driven by Playwright) during a bot game:
moves arrive live, a correction needs the PIN, and a 1280x800 screenshot is saved under
``test-artifacts/``."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from web.demo import DemoDriver, demo_session
from web.server import serve
from webtools import PIN

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK),
                                reason="Debian's chromium is not installed (.ci/run installs it: apt-get install -y chromium)")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def live():
    """A cooperative bot game on a loopback server, bots moving every 50 ms."""
    s = demo_session("cooperative", 3, seed=21)
    srv = serve(s, port=0, pin=PIN, announce=False)
    driver = DemoDriver(s, seed=21, pace=0.05, show_illegal=0.0)
    yield s, srv, driver
    driver.stop()
    srv.shutdown()


def open_page(browser, url, width=1280, height=800):
    # bypass_csp lets Playwright evaluate its wait conditions; the page itself allows no eval
    page = browser.new_page(viewport={"width": width, "height": height}, bypass_csp=True)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("body[data-rendered='1']")
    return page, errors


def test_dashboard_follows_the_game_and_guards_changes(browser, live):
    session, srv, driver = live
    page, errors = open_page(browser, srv.local_url)
    assert page.locator("#board .space").count() == len(session.edition.spaces)
    driver.start()

    # moves arrive: the log grows and the board fills without a reload
    page.wait_for_function("document.querySelectorAll('#log > li').length >= 15", timeout=15000)
    page.wait_for_function("document.querySelectorAll('#board .tile').length >= 3", timeout=15000)
    driver.stop()
    page.wait_for_function(f"Number(document.body.dataset.lastEvent) >= {session.bus.last_id}", timeout=5000)
    time.sleep(0.2)
    assert page.locator("#log > li").first.get_attribute("data-seq") == str(len(session.game.events))
    active = session.position.active
    assert page.locator(f".player.active[data-color={active}]").count() == 1
    assert "to play" in page.locator("#turn").inner_text() or "spore" in page.locator("#turn").inner_text()

    # tap an empty space and try to fix it without the PIN: refused, nothing recorded
    empty = next(h for h in sorted(session.edition.spaces)
                 if h not in session.position.tiles and h not in session.position.trees
                 and h not in session.position.rocks and h not in {s.at for s in session.position.spores.values() if s})
    label = session.edition.label(empty)
    page.locator(f"#board .space[data-at='{empty.q},{empty.r}']").click()
    page.locator("#sp-fix").click()
    page.locator("#dlg button[data-value=rock]").click()
    page.locator("#fix-ok").click()
    page.wait_for_selector("#pin-input")  # the PIN is asked first
    page.fill("#pin-input", "0000")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#dlg-error').textContent.includes('not the table PIN')")
    assert session.corrections == {}
    # a viewer's page cannot post around the dialog either
    status = page.evaluate("""async () => (await fetch('/api/correct', {method: 'POST',
        headers: {'Content-Type': 'application/json',
                  'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content},
        body: JSON.stringify({at: [0, 0], content: {kind: 'rock'}})})).status""")
    assert status == 403 and session.corrections == {}

    # with the PIN the correction goes through and shows on the board
    page.fill("#pin-input", PIN)
    page.keyboard.press("Enter")
    page.wait_for_selector("#toast:not([hidden])")
    page.wait_for_function(f"document.querySelectorAll('#board .fixed-ring').length === 1", timeout=5000)
    assert session.corrections[empty] == {"kind": "rock"}
    assert "Unlock" not in page.locator("#btn-lock").inner_text()
    assert f"Space {label}" in page.locator("#space-panel").inner_text()

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "dashboard-1280x800.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert errors == []
    page.close()


def test_illegal_placement_is_outlined_with_its_reason(browser, live):
    session, srv, driver = live
    page, errors = open_page(browser, srv.local_url)
    from webtools import play_turns
    play_turns(session, 8)
    pos = session.position
    tree = sorted(pos.trees)[0]
    tile = next(c for c in pos.hands[pos.active] if c != "ROCK")
    session.submit({"player": pos.active, "action": "place", "tile": tile, "at": list(tree), "rotation": 0}, source="camera")
    page.wait_for_selector("#illegal-banner:not([hidden])", timeout=5000)
    assert session.illegal["message"] in page.locator("#illegal-banner").inner_text()
    assert page.locator(f"#board .illegal-ring[data-at='{tree[0]},{tree[1]}']").count() == 1
    session.clear_illegal()
    page.wait_for_selector("#illegal-banner", state="hidden", timeout=5000)
    assert page.locator("#board .illegal-ring").count() == 0
    assert errors == []
    page.close()


def test_portrait_tablet_and_replay(browser, live):
    session, srv, driver = live
    from webtools import play_turns
    play_turns(session, 6)
    page, errors = open_page(browser, srv.local_url, 800, 1280)
    board = page.locator("#board").bounding_box()
    side = page.locator("#side").bounding_box()
    assert side["y"] >= board["y"] + board["height"] - 1  # stacked: board above, panel below
    for b in page.locator("#actions button").all():
        box = b.bounding_box()
        assert box["height"] >= 48 and box["width"] >= 48  # touch targets
    page.locator("#tabs button[data-tab=log]").click()
    page.locator("#rp-first").click()
    page.wait_for_selector("#replay-banner:not([hidden])")
    assert "move 0 of" in page.locator("#replay-banner").inner_text()
    assert page.locator("#board .tile").count() == 0
    page.locator("#rp-next").click()
    page.wait_for_function("document.querySelector('#replay-banner').textContent.includes('move 1 of')")
    page.locator("#rp-live").click()
    page.wait_for_selector("#replay-banner", state="hidden")
    assert page.locator("#board .tile").count() == len(session.position.tiles)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-800x1280.png"))
    assert errors == []
    page.close()
