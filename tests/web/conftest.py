"""Fixtures for the dashboard: a session in the middle of a bot game, the app, a browser-like
client, and a real server on a loopback port."""

from __future__ import annotations

import pytest

from web import create_app
from web.demo import demo_session
from web.server import serve
from webtools import PIN, Browser, play_turns


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
