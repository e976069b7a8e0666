"""A table without a bag reader (``run --rfid none``) enters each draw on the dashboard, in
Debian's Chromium: the player a drawn tile goes to gets *Drew a tile*, which opens a grid of the
tiles still in the bag (picture and code, as the hand shows them) to tap; the confirmed tile is
in the hand.  With a reader (or the bots' demo) there is no such control."""

from __future__ import annotations

import random

import pytest

from test_browser import ARTIFACTS, browser, open_page, pytestmark  # noqa: F401  (fixture and skip reused)
from webtools import PIN, Browser

from companion.edition import load_edition
from companion.game import Game
from companion.setup import GameConfig, new_game
from companion.table.session import TableSession
from web import create_app
from web.server import serve


def readerless_table() -> TableSession:
    """A new table game with no hand dealt, as ``run --rfid none`` starts it."""
    config = GameConfig()
    pos, _ = new_game(config, load_edition(config.edition), random.Random(4), deal=False)
    session = TableSession(Game(pos, config))
    session.draws_on_dashboard = True        # what run sets for --rfid none
    return session


def test_the_state_offers_the_bag_only_to_a_table_without_a_reader(shared_table):
    with_reader, _ = shared_table("cooperative", 3, 13)
    assert with_reader.state()["draw"] is None
    session = readerless_table()
    offer = Browser(create_app(session, pin=PIN)).get("/api/state").get_json()["draw"]
    bag = session.position.bag_tiles
    assert offer["player"] == session.position.colors[0]
    assert {t["code"]: t["left"] for t in offer["tiles"]} == {c: n for c, n in bag.items() if n}


def test_a_draw_is_tapped_in_and_the_hand_shows_it(browser):
    session = readerless_table()
    blue = session.position.colors[0]
    srv = serve(session, port=0, pin=PIN, announce=False)
    try:
        page, errors = open_page(browser, srv.local_url, 800, 1280)
        page.locator("#btn-lock").click()
        page.fill("#pin-input", PIN)
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#btn-lock').textContent === 'Lock'")
        row = page.locator(f".player[data-color={blue}]")
        assert page.locator("#btn-draw").count() == 1 and row.locator("#btn-draw").count() == 1
        drawn = []
        for n in range(1, 4):                               # the opening hand: three draws (rulebook 3)
            row.locator("#btn-draw").click()
            tiles = page.locator(".drawpick button")
            offer = session.state()["draw"]
            assert tiles.count() == len(offer["tiles"])
            assert tiles.first.locator("svg.tile-icon").count() == 1          # the picture the hand shows
            assert page.locator("#draw-ok").is_disabled()                     # a tap picks, Confirm draws
            pick = next(t["code"] for t in offer["tiles"][n:] if t["code"] != "ROCK")
            page.locator(f".drawpick button[data-code='{pick}']").click()
            assert pick in page.locator(f".drawpick button[data-code='{pick}']").inner_text()
            if n == 1:
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / "draw-800x1280.png"))
            page.locator("#draw-ok").click()
            page.wait_for_function(f"document.querySelectorAll('.player[data-color={blue}] .hand .tile-icon').length === {n}")
            drawn.append(pick)
        moves = [e.move for e in session.game.events]
        assert [(m["player"], m["action"], m["tile"]) for m in moves] == [(blue, "draw", t) for t in drawn]
        # blue's hand is full: the next tile drawn goes to the second player
        second = session.position.colors[1]
        page.wait_for_selector(f".player[data-color={second}] #btn-draw")
        assert row.locator("#btn-draw").count() == 0
        assert errors == []
        page.close()
    finally:
        srv.shutdown()
