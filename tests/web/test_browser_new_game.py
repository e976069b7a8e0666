"""The New game dialog in Debian's Chromium says what a set-up lacks while it is chosen (team
mode with three players, teams not alternating) and keeps *Start new game* off until it is
right, instead of refusing it after the replace question and the PIN, with the choices lost."""

from __future__ import annotations

import pytest

from test_browser import browser, open_page, pytestmark  # noqa: F401
from web.demo import demo_session
from web.server import serve
from webtools import PIN


@pytest.fixture
def table():
    s = demo_session("cooperative", 3, seed=13)
    srv = serve(s, port=0, pin=PIN, announce=False)
    yield s, srv
    srv.shutdown()


def test_team_mode_with_three_players_is_said_before_starting(browser, table):
    session, srv = table
    game = session.game
    page, errors = open_page(browser, srv.local_url, 390, 844)
    page.locator("#btn-lock").click()
    page.fill("#pin-input", PIN)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#btn-lock').textContent === 'Lock'")
    page.locator("#act-new").click()
    ok, problem = page.locator("#new-ok"), page.locator("#new-problem")
    assert ok.is_enabled() and problem.inner_text() == ""          # the game's own set-up is fine
    page.click("[data-name=mode] [data-value=team]")                  # blue, orange, red: three players
    assert ok.is_disabled() and "Team mode needs 4 players" in problem.inner_text()
    page.click(".order [data-color=black]")                           # a fourth player, no team yet
    assert ok.is_disabled() and "Give each player a team" in problem.inner_text()
    page.click("[data-name=team-black] [data-value='1']")            # blue 1, orange 2, red 1, black 1
    assert ok.is_disabled() and "two teams of two" in problem.inner_text()
    page.click("[data-name=team-black] [data-value='2']")            # 1 2 1 2: alternating
    assert ok.is_enabled() and problem.inner_text() == ""
    page.click("[data-name=team-red] [data-value='2']")               # 1 2 2 2
    page.click("[data-name=team-orange] [data-value='1']")            # 1 1 2 2: two of two, not alternating
    assert ok.is_disabled() and "Turns alternate between the teams" in problem.inner_text()
    assert session.game is game and errors == []
    page.close()
