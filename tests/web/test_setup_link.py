"""The camera setup page's way to the dashboard: before a game runs (``camera check --web``)
there is no dashboard, so the page offers no link that loops back to itself but says why and
what starts one; beside a game (``run``, ``demo``) its link opens the dashboard."""

from __future__ import annotations

import re

from webtools import PIN, Browser

from companion.vision.geometry import load_board
from web import create_app
from web.demo import demo_session
from web.setup import CameraFeed, setup_app


def links(page: str) -> list[str]:
    return re.findall(r'<a [^>]*href="([^"]+)"', page)


def test_before_a_game_the_setup_page_says_why_there_is_no_dashboard():
    client = setup_app(CameraFeed(load_board()), pin=PIN).test_client()
    page = client.get("/setup").get_data(as_text=True)
    # every link on the page leads somewhere other than back to this page
    for href in links(page):
        r = client.get(href)
        assert not (r.status_code in (301, 302, 303, 307, 308) and r.headers["Location"].endswith("/setup")), href
    assert "Dashboard</a>" not in page
    assert "No game yet: the dashboard opens once a game runs" in page and "mycelium-companion run" in page


def test_beside_a_game_the_link_opens_the_dashboard():
    app = create_app(demo_session("competitive", 2, seed=3), pin=PIN)
    app.extensions["camera_feed"] = CameraFeed(load_board())
    b = Browser(app)
    page = b.get("/setup").get_data(as_text=True)
    assert "No game yet" not in page
    href = re.search(r'<a id="to-dashboard" href="([^"]+)">Dashboard</a>', page).group(1)
    r = b.get(href)
    assert r.status_code == 200 and 'id="topbar"' in r.get_data(as_text=True)
