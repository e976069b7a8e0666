"""``serve`` plays with the greedy bots by default, like ``demo``: cards are bought on the
dashboard's game, not only tiles laid until the bag runs out."""

from __future__ import annotations

import time

import pytest

from companion.cli import main
from web.demo import DemoDriver, demo_session


def test_serve_defaults_to_the_greedy_bots(monkeypatch):
    seen = {}

    class Spy(DemoDriver):
        def start(self):
            seen["bot"] = self.bot
            raise KeyboardInterrupt   # Ctrl-C: the command stops its server and returns

    monkeypatch.setattr("web.demo.DemoDriver", Spy)
    assert main(["serve", "--port", "0", "--db", ":memory:", "--no-qr"]) == 0
    assert seen["bot"] == "greedy"
    assert main(["serve", "--port", "0", "--db", ":memory:", "--no-qr", "--bot", "random"]) == 0
    assert seen["bot"] == "random"


def test_the_greedy_bots_buy_cards_on_the_dashboard_game():
    s = demo_session("competitive", 2, seed=3)
    d = DemoDriver(s, seed=3, pace=0.0, show_illegal=0.0).start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any(s.position.cards.values()) and s.position.result is None:
        time.sleep(0.05)
    d.stop()
    assert d.bot == "greedy"
    assert any(ev.move["action"] == "buy" for ev in s.game.events)


def test_an_unknown_bot_level_is_refused():
    with pytest.raises(ValueError, match="greedy"):
        DemoDriver(demo_session("competitive", 2, seed=3), bot="clever")
