"""The camera setup page: PIN-gated, a fresh annotated snapshot and the advice, and (in
headless Chromium) a page that unlocks and refreshes by itself."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from webtools import PIN, Browser

from companion.sim.render import Conditions, make_camera, render
from companion.vision.geometry import load_board
from web.server import DashboardServer
from web.setup import CameraFeed, setup_app

HD = (1920, 1080)
BOARD = {"tiles": [{"at": [0, 0], "paths": "P03.Y12.G45"}, {"at": [1, 0], "paths": "P0.Y2.G4"}],
         "rocks": [[-1, 0]], "trees": [{"at": [0, 1], "mycorrhizae": ["blue", None, None, None]}],
         "substrates": [{"at": [2, -1], "kind": "soil"}], "spores": {"red": {"at": [-4, 4], "used": False}},
         "meeples": {"red": [-4, 4]}}
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


class SetupBrowser(Browser):
    """The test browser, arriving on the setup page (the setup-only server has no dashboard)."""

    def __init__(self, app):
        import re

        self.client = app.test_client()
        page = self.client.get("/setup").get_data(as_text=True)
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)


@pytest.fixture(scope="module")
def frames():
    geo = load_board()
    good = Conditions(tilt_deg=8.0, tilt_direction_deg=30.0, board_rotation_deg=5.0, fill=0.92, noise_sigma=1.5,
                      jpeg_quality=90)
    glare = Conditions(**{**good.__dict__, "glare": 140.0, "glare_radius": 120.0, "glare_xy": (0.55, 0.45)})
    shot = lambda c: render(BOARD, geo, c, np.random.default_rng(0), size=HD, camera=make_camera(geo, good, HD)).image  # noqa: E731
    return geo, shot(good), shot(glare)


def test_setup_page_needs_the_pin_and_shows_the_latest_frame(frames):
    geo, good, glare = frames
    feed = CameraFeed(geo)
    app = setup_app(feed, pin=PIN)
    b = SetupBrowser(app)
    assert "Camera setup" in b.get("/setup").get_data(as_text=True)
    assert b.get("/").headers["Location"].endswith("/setup")
    # no game runs behind the setup page: the game API says so instead of failing
    for path in ("/api/state", "/api/hint"):
        r = b.get(path)
        assert r.status_code == 404 and r.get_json()["error"] == "no_game", path
    assert b.get("/setup/snapshot.jpg").status_code == 403  # locked: the picture shows the table
    assert b.get("/setup/report.json").status_code == 403
    b.unlock()
    assert b.get("/setup/report.json").status_code == 503  # no frame yet, said so
    feed.offer(good)
    r = b.get("/setup/snapshot.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"
    doc = b.get("/setup/report.json").get_json()
    assert doc["ok"] and doc["markers"]["found"] == [0, 1, 2, 3]
    # a lamp moved: the next snapshot (after the refresh interval) says so
    feed.offer(glare)
    feed._snap_t -= 5.0
    doc = b.get("/setup/report.json").get_json()
    assert any(a["code"] == "lamp" for a in doc["advice"])
    assert doc["frame_stale"] is False and doc["frame_age_s"] < 3
    # the camera stops sending: the same picture must not pass for live
    feed._frame_t -= 10.0
    doc = b.get("/setup/report.json").get_json()
    assert doc["frame_stale"] is True and doc["frame_age_s"] >= 10
    # a script may send the PIN instead
    assert app.test_client().get("/setup/snapshot.jpg", headers={"X-Table-PIN": PIN}).status_code == 200


@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason="Debian's chromium is not installed")
def test_setup_page_in_chromium(frames, chromium):
    geo, _, glare = frames
    import threading

    feed = CameraFeed(geo)
    feed.offer(glare)
    stopped = threading.Event()

    def camera():  # a live camera keeps sending frames until it is unplugged
        while not stopped.wait(0.3):
            feed.offer(glare)
    threading.Thread(target=camera, daemon=True).start()
    srv = DashboardServer(setup_app(feed, pin=PIN), "127.0.0.1", 0).start()
    try:
        page = chromium.new_page(viewport={"width": 1800, "height": 900}, bypass_csp=True)   # the run's Chromium (conftest)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(srv.local_url + "setup")
        page.fill("#pin", PIN)
        page.click("#unlock button")
        page.wait_for_selector("body[data-rendered='1']", timeout=20000)
        page.wait_for_function("document.getElementById('shot').naturalWidth > 0", timeout=20000)
        assert "move the lamp" in page.locator("#advice").inner_text()
        # while the camera sends, the picture is live (a loaded machine may take a refresh or two)
        page.wait_for_function("document.getElementById('status').textContent === 'Camera needs attention'",
                               timeout=20000)
        assert not page.locator("#stale").is_visible()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "setup-page.png"))
        stopped.set()  # the camera is unplugged
        page.wait_for_selector("#stale:visible", timeout=20000)
        assert "No new frame for" in page.locator("#stale").inner_text()
        assert "is the camera connected?" in page.locator("#stale").inner_text()
        assert page.locator("#status").inner_text() == "No live picture"
        page.close()
        assert errors == []
    finally:
        stopped.set()
        srv.shutdown()
