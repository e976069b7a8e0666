"""Helpers for the dashboard tests: bots to move the game on, legal moves to try, and a
browser-like test client (cookie jar + CSRF token)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from companion.movegen import legal_moves
from companion.selfplay import BotTable

PIN = "432187"


def readerless_table():
    """A new table game with no hand dealt and no substrate token laid, as ``run --rfid none``
    starts it: its draws are tapped in on the dashboard."""
    import random
    from companion.edition import load_edition
    from companion.game import Game
    from companion.setup import GameConfig, new_game
    from companion.table.session import TableSession
    config = GameConfig()
    pos, _ = new_game(config, load_edition(config.edition), random.Random(4), deal=False)
    session = TableSession(Game(pos, config))
    session.draws_on_dashboard = True        # what run sets for --rfid none
    return session


def play_turns(session, turns: int, seed: int = 7) -> BotTable:
    """Bots play ``turns`` turns of ``session``'s game (through the game, as the table loop would)."""
    table = BotTable.from_game(session.game, seed, check_invariants=False)
    table.world()
    for _ in range(turns):
        if table.position.result is not None:
            break
        table.play_turn()
    return table


def legal(session, action: str) -> list[dict]:
    """The active player's legal moves of ``action`` right now."""
    return [m for m in legal_moves(session.position, session.edition) if m["action"] == action]


class Browser:
    """A Flask test client that behaves like the dashboard page: it loads ``/`` to get its
    cookie and CSRF token, then POSTs JSON with the token."""

    def __init__(self, app):
        self.client = app.test_client()
        page = self.client.get("/").get_data(as_text=True)
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)

    def get(self, path, **kw):
        return self.client.get(path, **kw)

    def post(self, path, body=None, csrf=True, headers=None, **kw):
        h = {"X-CSRF-Token": self.csrf} if csrf else {}
        h.update(headers or {})
        return self.client.post(path, json={} if body is None else body, headers=h, **kw)

    def unlock(self, pin=PIN):
        return self.post("/api/unlock", {"pin": pin})


@contextmanager
def served(mode: str, players: int, seed: int, turns: int = 0, options: dict | None = None,
           config: dict | None = None) -> Iterator[tuple]:
    """``(session, server)``: a demo game of ``players`` in ``mode`` dealt with ``seed``, moved
    on ``turns`` turns by the bots, served on a loopback port with :data:`PIN` (``options``:
    table rules; ``config``: the Flask settings, e.g. ``SSE_KEEPALIVE_S``); shut down on
    leaving."""
    from web.demo import demo_session
    from web.server import serve
    s = demo_session(mode, players, seed=seed, options=options)
    if turns:
        play_turns(s, turns)
    srv = serve(s, port=0, pin=PIN, announce=False, config=config)
    try:
        yield s, srv
    finally:
        srv.shutdown()
