"""Ten tabs of one browser (ten QR scans) in Debian's Chromium: they share one event stream,
all load and follow the game, inputs are not stalled, and closing the tab that holds the
stream hands it to another."""

from __future__ import annotations

import time

import pytest

from test_browser import CHROMIUM, browser, pytestmark  # noqa: F401  (fixture and skip reused)
from webtools import PIN, play_turns


@pytest.fixture
def table(fresh_table):
    # a closed tab's stream is noticed at the next write: keepalives every second, not 15 s
    return fresh_table("competitive", 3, 9, turns=4, config={"SSE_KEEPALIVE_S": 1.0})


def wait_streams(srv, n, timeout=8.0):
    counter = srv.app.extensions["event_streams"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if counter.open == n:
            return True
        time.sleep(0.05)
    return counter.open


def test_ten_tabs_share_one_stream_and_all_follow_the_game(browser, table):
    s, srv = table
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    try:
        pages = []
        for _ in range(10):
            page = ctx.new_page()
            page.goto(srv.local_url)
            page.wait_for_selector("body[data-rendered='1']", timeout=10000)  # tab 7 loads too
            pages.append(page)
        assert wait_streams(srv, 1) is True  # one stream for the whole browser
        leaders = [i for i, p in enumerate(pages) if p.evaluate("window.MycDashboard.leading()")]
        assert len(leaders) == 1

        play_turns(s, 1, seed=3)
        for p in pages:
            p.wait_for_function(f"Number(document.body.dataset.lastEvent) >= {s.bus.last_id}", timeout=10000)
        # an input from the last tab is not stalled behind held connections
        status = pages[-1].evaluate(f"""async () => (await fetch('/api/unlock', {{method: 'POST',
            headers: {{'Content-Type': 'application/json',
                      'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content}},
            body: JSON.stringify({{pin: '{PIN}'}})}})).status""")
        assert status == 200

        # the leader closes: another tab takes the stream over and nobody misses a move
        pages.pop(leaders[0]).close()
        play_turns(s, 1, seed=4)
        for p in pages:
            p.wait_for_function(f"Number(document.body.dataset.lastEvent) >= {s.bus.last_id}", timeout=10000)
            p.wait_for_function(f"document.querySelectorAll('#log > li').length === {len(s.game.events)}", timeout=10000)
        assert wait_streams(srv, 1) is True
        assert sum(p.evaluate("window.MycDashboard.leading()") for p in pages) == 1
    finally:
        ctx.close()


def test_lock_every_tablet_from_the_page(browser, table):
    s, srv = table
    a, b = (browser.new_context(bypass_csp=True) for _ in range(2))
    try:
        pages = []
        for ctx in (a, b):
            page = ctx.new_page()
            page.goto(srv.local_url)
            page.wait_for_selector("body[data-rendered='1']")
            page.click("#btn-lock")
            page.fill("#pin-input", PIN)
            page.keyboard.press("Enter")
            page.wait_for_function("document.querySelector('#btn-lock').textContent === 'Lock'")
            pages.append(page)
        pages[0].click("#btn-lock")
        pages[0].click("#lock-all")
        pages[0].wait_for_function("document.querySelector('#btn-lock').textContent === 'Unlock'")
        pages[1].evaluate("window.MycDashboard.refresh()")
        pages[1].wait_for_function("document.querySelector('#btn-lock').textContent === 'Unlock'")
        assert len(srv.app.extensions["table_unlocks"]) == 0
    finally:
        a.close()
        b.close()
