"""The New game dialog in Debian's Chromium says what a set-up lacks while it is chosen (team
mode with three players, teams not alternating) and keeps *Start new game* off until it is
right, instead of refusing it after the replace question and the PIN, with the choices lost."""

from __future__ import annotations

import pytest

from test_browser import ARTIFACTS, browser, open_page, pytestmark  # noqa: F401
from webtools import PIN


@pytest.fixture
def table(shared_table):
    return shared_table("cooperative", 3, 13)      # the dialogs are opened, no game is started


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


def unlocked_new_game(browser, srv, width, height):
    """The dashboard at ``width`` x ``height`` px, unlocked with the PIN, the New game dialog
    open in team mode with four players; the page and its errors."""
    page, errors = open_page(browser, srv.local_url, width, height)
    page.locator("#btn-lock").click()
    page.fill("#pin-input", PIN)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#btn-lock').textContent === 'Lock'")
    assert page.locator("#toast").is_visible()          # "Unlocked: ..." for a few seconds
    page.locator("#act-new").click()
    page.wait_for_selector("#new-ok")
    page.click("[data-name=mode] [data-value=team]")
    if page.locator(".order [data-color=black] .ord").count() == 0:
        page.click(".order [data-color=black]")
    assert page.locator("[data-name^=team-] [role=radio]").count() == 8   # four team rows
    return page, errors


@pytest.fixture
def team_table(shared_table):
    return shared_table("team", 4, 13)


SIZES = [(1280, 800), (800, 1280), (360, 740)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_start_is_on_screen_in_team_mode(browser, team_table, size):
    width, height = size
    page, errors = unlocked_new_game(browser, team_table[1], width, height)
    ok = page.locator("#new-ok")
    box = ok.bounding_box()
    dlg = page.locator("#dlg").bounding_box()
    # on screen and inside the dialog's visible area, with nothing scrolled (tablets) or after
    # scrolling the dialog's body at most (the phone: the buttons stay put)
    assert 0 <= box["y"] and box["y"] + box["height"] <= height + 0.5, (box, size)
    assert dlg["y"] - 0.5 <= box["y"] and box["y"] + box["height"] <= dlg["y"] + dlg["height"] + 0.5, (box, dlg)
    assert page.evaluate("document.querySelector('#dlg').scrollTop") == 0
    if width >= 800:
        assert page.evaluate("(() => { const b = document.querySelector('#dlg-body'); return b.scrollHeight <= b.clientHeight + 1; })()")
    ok.click(trial=True)          # reachable: enabled and nothing covers it
    # what keeps Start off is said beside it, even with the body scrolled
    page.click("[data-name=team-orange] [data-value='1']")
    problem = page.locator("#new-problem")
    assert ok.is_disabled() and problem.is_visible()
    pb = problem.bounding_box()
    assert 0 <= pb["y"] and pb["y"] + pb["height"] <= height + 0.5, pb
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"new-game-team-{width}x{height}.png"))
    assert errors == []
    page.close()


def test_a_leftover_toast_does_not_show_under_the_dialog(browser, team_table):
    page, errors = unlocked_new_game(browser, team_table[1], 360, 740)
    assert page.locator("#toast").is_hidden()
    assert errors == []
    page.close()
