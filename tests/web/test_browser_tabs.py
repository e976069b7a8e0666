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


def wait_leaders(pages, timeout=5.0):
    """The number of tabs holding the stream once it is one, or after ``timeout`` s: a handover
    may leave two (or none) for one beat, 1 s, never longer."""
    deadline = time.monotonic() + timeout
    while True:
        n = sum(p.evaluate("window.MycDashboard.leading()") for p in pages)
        if n == 1 or time.monotonic() > deadline:
            return n
        time.sleep(0.1)


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
        assert wait_leaders(pages) == 1
        leaders = [i for i, p in enumerate(pages) if p.evaluate("window.MycDashboard.leading()")]

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
        assert wait_leaders(pages) == 1
    finally:
        ctx.close()


def test_a_tab_whose_relayed_state_is_lost_loads_it_itself(browser, table):
    """The leader relays each message, then the state after it; a leader that steps down or
    closes while loading that state never relays it.  The other tabs, which already show the
    message's id, must not stay on the old board."""
    s, srv = table
    ctx = browser.new_context(bypass_csp=True)
    try:
        pages = []
        for _ in range(2):
            page = ctx.new_page()
            page.goto(srv.local_url)
            page.wait_for_selector("body[data-rendered='1']")
            pages.append(page)
        assert wait_leaders(pages) == 1
        leader, follower = sorted(pages, key=lambda p: not p.evaluate("window.MycDashboard.leading()"))
        leader.evaluate("""() => {   // this leader relays messages but never the state after them
            const post = BroadcastChannel.prototype.postMessage;
            BroadcastChannel.prototype.postMessage = function (m) {
                if (!(m && m.type === "state")) return post.call(this, m);
            };
        }""")
        play_turns(s, 1, seed=3)
        for p in pages:
            p.wait_for_function(f"document.querySelectorAll('#log > li').length === {len(s.game.events)}", timeout=10000)
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
