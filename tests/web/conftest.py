"""Fixtures for the dashboard: a session in the middle of a bot game, the app, a browser-like
client, and a real server on a loopback port."""

from __future__ import annotations

import json
import os
from contextlib import ExitStack

import pytest

from web import create_app
from web.demo import demo_session
from web.server import serve
from webtools import PIN, Browser, play_turns, served


@pytest.fixture
def session():
    s = demo_session("competitive", 3, seed=11)
    play_turns(s, 12)
    return s


@pytest.fixture
def app(session):
    return create_app(session, pin=PIN)


@pytest.fixture
def browser(app):
    return Browser(app)


@pytest.fixture
def unlocked(browser):
    assert browser.unlock().status_code == 200
    return browser


@pytest.fixture
def server(session):
    srv = serve(session, host="127.0.0.1", port=0, pin=PIN, announce=False)
    yield srv
    srv.shutdown()


# --- the browser tests ------------------------------------------------------------------------
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium driven by Playwright, launched once for the whole run (each test opens
    its own pages, so no cookie or storage passes from one test to the next)."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip("Debian's chromium is not installed (.ci/run installs it: apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def shared_table():
    """``shared_table(mode, players, seed, turns=0, options=None)`` -> ``(session, server)``: a
    served demo game that **no test changes** (a test only reads it, or opens dialogs it
    closes), made once per set-up for the whole run.  A test that moves the game on, sets a
    status or answers anything takes :func:`fresh_table` instead; a shared game found changed
    fails the test that asks for it next, naming the set-up."""
    tables: dict[tuple, tuple] = {}
    with ExitStack() as stack:
        def get(mode: str, players: int, seed: int, turns: int = 0, options: dict | None = None):
            key = (mode, players, seed, turns, json.dumps(options, sort_keys=True))
            if key not in tables:
                s, srv = stack.enter_context(served(mode, players, seed, turns, options))
                tables[key] = (s, srv, s.bus.last_id, s.game)
            s, srv, last_id, game = tables[key]
            assert (s.bus.last_id, s.game) == (last_id, game), \
                f"the shared demo game {key} was changed by an earlier test: that test needs fresh_table"
            return s, srv
        yield get


@pytest.fixture
def fresh_table():
    """``fresh_table(mode, players, seed, turns=0, options=None, config=None)`` ->
    ``(session, server)``: a served demo game of this test's own, shut down after it."""
    with ExitStack() as stack:
        yield lambda *a, **kw: stack.enter_context(served(*a, **kw))
