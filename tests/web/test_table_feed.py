"""``run`` shows its camera on the setup page while the table plays: the simulated table's
frames reach ``/setup`` through the live loop, and no frame is copied while no page watches."""

from __future__ import annotations

import time

import pytest
from webtools import PIN, Browser

from companion.setup import GameConfig
from companion.sim.table import SimulatedTable
from web import create_app
from web.setup import WATCH_S, attach_table_feed


@pytest.fixture(scope="module")
def sim():
    return SimulatedTable(GameConfig(players=["blue", "orange"]), seed=5, fast=True)


def test_the_live_tables_frames_reach_the_setup_page_only_while_it_is_watched(sim):
    app = create_app(sim.session, pin=PIN)
    feed = attach_table_feed(app, sim.live)
    board = sim.truth.position.to_json()["board"]

    sim.show(board, hands=False)                 # nobody watches: the frames cost nothing
    assert feed.copies == 0 and sim.live.stats["frames"] == 5

    b = Browser(app)
    assert b.get("/setup/report.json").status_code == 403      # the picture shows the table: PIN first
    b.unlock()
    r = b.get("/setup/report.json")
    assert r.status_code == 503 and "next frame" in r.get_json()["message"]

    frames = sim.live.stats["frames"]
    sim.show(board, hands=False)                 # the page watches now: a frame is kept
    assert 1 <= feed.copies <= sim.live.stats["frames"] - frames
    doc = b.get("/setup/report.json").get_json()
    assert doc["markers"]["found"] == [0, 1, 2, 3] and doc["markers"]["missing"] == []
    assert doc["px_per_hex_side"]["farthest"] is not None
    shot = b.get("/setup/snapshot.jpg")
    assert shot.status_code == 200 and shot.data[:2] == b"\xff\xd8"
    assert feed.reader is not None and feed.reader is not sim.live.reader   # the table's reader is left alone

    feed._watched_t = time.monotonic() - WATCH_S - 0.1   # the page was closed
    n = feed.copies
    sim.show(board, hands=False)
    assert feed.copies == n
