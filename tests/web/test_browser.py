"""The dashboard in Debian's Chromium (headless, driven by Playwright) during a bot game:
moves arrive live, a correction needs the PIN, a restarted server resets the page, the layout
holds at the four tablet sizes (screenshots saved under ``test-artifacts/``), a new game is
confirmed first, and replay shows the replayed players."""

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


@pytest.fixture
def browser(chromium):
    """The Chromium of the whole run (``conftest.chromium``), under the name the browser-test
    modules import from here."""
    return chromium


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
    banner = page.locator("#illegal-banner").inner_text()
    assert session.illegal["message"] in banner
    assert session.illegal["explain"] not in banner  # the reason once, not twice in other words
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
    board = page.locator("#board .spaces").bounding_box()
    players = page.locator("#players").bounding_box()
    actions = page.locator("#actions").bounding_box()
    # stacked: players, the tabs with the board (the first tab in portrait) filling the width, inputs
    assert players["y"] + players["height"] <= board["y"] + 1 and board["y"] + board["height"] <= actions["y"] + 1
    assert board["width"] >= 0.85 * 800
    for b in page.locator("#actions button").all():
        box = b.bounding_box()
        assert box["height"] >= 48 and box["width"] >= 48  # touch targets
    page.locator("#tabs button[data-tab=log]").click()
    page.locator("#rp-first").click()
    page.wait_for_selector("#replay-badge:not([hidden])")  # the top bar says so on every tab
    page.locator("#tabs button[data-tab=board]").click()
    assert "move 0 of" in page.locator("#replay-banner").inner_text()
    assert page.locator("#board .tile").count() == 0
    page.locator("#tabs button[data-tab=log]").click()
    page.locator("#rp-next").click()
    page.wait_for_function("document.querySelector('#replay-banner').textContent.includes('move 1 of')")
    page.locator("#rp-live").click()
    page.wait_for_selector("#replay-badge", state="hidden")
    page.locator("#tabs button[data-tab=board]").click()
    assert page.locator("#board .tile").count() == len(session.position.tiles)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-800x1280.png"))
    assert errors == []
    page.close()


def test_a_restarted_server_resets_the_page(browser):
    """A power cut: the new server knows fewer messages than the page; the page must drop the
    old game, follow the new one, and not wait for message ids the new server never reaches."""
    from webtools import play_turns
    old = demo_session("competitive", 3, seed=5)
    play_turns(old, 10)
    srv = serve(old, port=0, pin=PIN, announce=False)
    page, errors = open_page(browser, srv.local_url)
    page.wait_for_function(f"Number(document.body.dataset.lastEvent) === {old.bus.last_id}")
    assert page.locator("#log > li").count() == len(old.game.events) > 10
    port = srv.port
    srv.shutdown()

    new = demo_session("cooperative", 2, seed=6)  # nothing played yet: bus ids far below the page's
    srv = serve(new, port=port, pin=PIN, announce=False)
    try:
        page.wait_for_function("document.querySelectorAll('#log > li').length === 0", timeout=10000)
        assert page.locator(".player").count() == 2
        assert int(page.evaluate("document.body.dataset.lastEvent")) <= new.bus.last_id
        # and the stream follows the new game from there
        play_turns(new, 2)
        page.wait_for_function(f"document.querySelectorAll('#log > li').length === {len(new.game.events)}", timeout=10000)
        assert "reconnecting" not in page.locator("#turn").inner_text()
        assert errors == []
    finally:
        page.close()
        srv.shutdown()


@pytest.fixture
def eventful(fresh_table):
    """A game with a stalled camera, a space fixed by hand, a used spore or two, and an illegal
    placement held: everything the page can show at once."""
    s, srv = fresh_table("competitive", 3, 11, turns=14)
    s.set_status("camera", "stalled")
    s.set_status("reader", "connected")
    pos = s.position
    free = next(h for h in sorted(s.edition.spaces) if h not in pos.tiles and h not in pos.trees and h not in pos.rocks)
    s.correct([free.q, free.r], {"kind": "rock"})
    tree = sorted(pos.trees)[0]
    tile = next(c for c in pos.hands[pos.active] if c != "ROCK")
    s.submit({"player": pos.active, "action": "place", "tile": tile, "at": list(tree), "rotation": 0}, source="camera")
    return s, srv


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768), (800, 1280), (768, 1024)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_layout_at_tablet_sizes(browser, eventful, size):
    session, srv = eventful
    width, height = size
    page, errors = open_page(browser, srv.local_url, width, height)
    page.evaluate("document.fonts.ready.then(() => true)")
    page.wait_for_selector("#illegal-banner:not([hidden])")
    time.sleep(0.2)  # the state is loaded twice on open (page load, stream open): let both settle
    box = lambda sel: page.locator(sel).first.bounding_box()

    def on_screen(sel):
        b = box(sel)
        return b is not None and b["width"] > 0 and b["x"] >= 0 and b["y"] >= 0 \
            and b["x"] + b["width"] <= width + 0.5 and b["y"] + b["height"] <= height + 0.5

    # the devices and the mode are shown (a stalled camera must be seen), nothing runs off
    for sel in ("#turn", "#btn-join", "#btn-lock", "#devices .dev.bad", ".counter.mode", "#bag",
                "#illegal-banner button", "#actions button:last-child", "#tabs"):
        assert on_screen(sel), f"{sel} at {width}x{height}: {box(sel)}"
    assert "stalled" in page.locator("#devices").inner_text()
    assert page.evaluate("(() => { const t = document.querySelector('#turn'); return t.scrollWidth <= t.clientWidth; })()"), \
        page.locator("#turn").inner_text()
    # touch targets
    for sel in ("#btn-join", "#btn-lock", "#illegal-banner button", "#actions button", "#tabs button"):
        for b in page.locator(sel).all():
            if not b.is_visible():
                continue  # the Board tab exists in portrait only
            bb = b.bounding_box()
            assert bb["height"] >= 48 and bb["width"] >= 48, (sel, bb)
    # hand tiles big enough to tell apart; board labels readable
    for t in page.locator(".hand .tile-icon").all():
        assert t.bounding_box()["height"] >= 48
    label_px = page.evaluate("Math.min(...[...document.querySelectorAll('#board .space-label')].map(e => e.getBoundingClientRect().height))")
    assert label_px >= 9, label_px
    # a spore never hides its space's label: the label is drawn after the pieces of its space
    covered = page.evaluate("""[...document.querySelectorAll('#board .space')].filter(g => g.querySelector('.spore, .meeple'))
        .filter(g => g.querySelector('.space-label') && g.lastElementChild !== g.querySelector('.space-label')).length""")
    assert covered == 0
    # the last move is not an orange dashed ring any more: a solid double outline with a badge
    ring = page.locator("#board .last-ring")
    assert ring.count() == 1
    assert page.evaluate("getComputedStyle(document.querySelector('#board .last-ring')).strokeDasharray") == "none"
    assert page.locator("#board .last-badge").count() == 1
    assert page.locator("#board .fixed-badge-bg").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"dashboard-{width}x{height}-layout.png"))
    assert errors == [], errors
    page.close()


def test_new_game_asks_before_replacing_the_game(browser, live):
    session, srv, driver = live
    from webtools import play_turns
    play_turns(session, 3)
    game, n = session.game, len(session.game.events)
    page, errors = open_page(browser, srv.local_url)
    page.locator("#btn-lock").click()
    page.fill("#pin-input", PIN)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#btn-lock').textContent === 'Lock'")
    page.locator("#act-new").click()
    page.locator("#new-ok").click()
    page.wait_for_selector("#new-confirm")
    assert "Replace the current game?" in page.locator("#dlg-title").inner_text()
    assert session.game is game and len(game.events) == n  # nothing happened yet
    page.locator("#dlg-buttons button.cancel").click()
    time.sleep(0.3)
    assert session.game is game
    page.locator("#act-new").click()
    page.locator("#new-ok").click()
    page.locator("#new-confirm").click()
    page.wait_for_function("document.querySelectorAll('#log > li').length === 0", timeout=5000)
    assert session.game is not game
    assert errors == []
    page.close()


def test_replay_says_so_and_shows_that_positions_players(browser, live):
    session, srv, driver = live
    from webtools import play_turns
    play_turns(session, 6)
    page, errors = open_page(browser, srv.local_url)
    page.locator("#tabs button[data-tab=log]").click()
    page.locator("#rp-first").click()
    page.wait_for_selector("#replay-badge:not([hidden])")
    assert "REPLAY" in page.locator("#replay-badge").inner_text()
    assert page.evaluate("document.body.classList.contains('replaying')")
    assert "replay" in page.locator("#side-note").inner_text()
    initial = session.game.initial
    for color in initial.colors:
        hand = page.locator(f".player[data-color={color}] .hand .tile-icon")
        assert [h.get_attribute("aria-label") for h in hand.all()] == list(initial.hands[color])
    assert page.locator(f".player.active[data-color={initial.active}]").count() == 1
    page.locator("#tabs button[data-tab=market]").click()
    assert page.locator("#tab-market .buy").count() == 0  # nothing to buy in the past
    page.locator("#tabs button[data-tab=goals]").click()
    assert "Live game" in page.locator("#tab-goals").inner_text()
    page.locator("#tabs button[data-tab=log]").click()
    page.locator("#rp-live").click()
    page.wait_for_selector("#replay-badge", state="hidden")
    live_hand = session.position.hands[session.position.active]
    hand = page.locator(f".player[data-color={session.position.active}] .hand .tile-icon")
    assert [h.get_attribute("aria-label") for h in hand.all()] == list(live_hand)
    assert errors == []
    page.close()


def test_a_camera_problem_is_said_in_words_under_the_top_bar(browser, live):
    session, srv, driver = live
    page, errors = open_page(browser, srv.local_url)
    session.set_status("camera", "stalled", "no frame for 2.0 s from picamera2; reopening")
    page.wait_for_selector("#device-banner:not([hidden])", timeout=5000)
    assert "Camera: no frame for 2.0 s from picamera2; reopening" in page.locator("#device-banner").inner_text()
    assert "stalled" in page.locator("#devices").inner_text()
    session.set_status("camera", "ok", "frames from picamera2")
    page.wait_for_selector("#device-banner", state="hidden", timeout=5000)
    assert errors == []
    page.close()
