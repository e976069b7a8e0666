"""A dashboard over a bot-driven game, for ``mycelium-companion serve`` and the tests.

:class:`DemoDriver` lets :class:`~companion.selfplay.BotTable` bots play the session's game
in a background thread, one move at a time with a pause between moves, each move committed
under the session lock so the dashboard always reads a consistent state.  Now and then it
shows what the table reports for a misplaced tile: an illegal placement held on the board
for a few seconds, then put back.
"""

from __future__ import annotations

import random
import threading

from companion.bots import BOTS
from companion.edition import load_edition
from companion.rules import IllegalMove
from companion.selfplay import BotTable
from companion.setup import GameConfig
from companion.table.session import TableSession

COLORS = ["blue", "orange", "red", "black"]
TEAMS = {"blue": "1", "orange": "2", "red": "1", "black": "2"}


def demo_config(mode: str = "competitive", players: int = 3, difficulty: str = "easy",
                options: dict | None = None) -> GameConfig:
    """A game config for the demo: ``players`` colours (4 in team mode), in the usual order;
    ``options``: table rules (``companion.options``), e.g. ``{"hints": True}``."""
    n = 4 if mode == "team" else players
    return GameConfig(players=COLORS[:n], mode=mode, difficulty=difficulty, teams=TEAMS if mode == "team" else None,
                      options=dict(options or {}))


class _PacedTable(BotTable):
    driver: "DemoDriver"

    def play(self, move):
        d = self.driver
        # A move entered on the dashboard may wait for the players' choices: it comes first.
        while d.session.choices is not None and not d._stop.is_set():
            d._stop.wait(0.1)
        if d._stop.is_set():
            raise _Stopped
        with d.session.lock:
            if d.session.game is not self.game:
                raise _Stopped  # a new game was set up from the dashboard
            ev = super().play(move)
        d._pause()
        return ev


class _Stopped(Exception):
    pass


class DemoDriver:
    """Bots play ``session``'s game in a thread, ``pace`` s between moves.

    ``show_illegal``: chance per turn of a held illegal placement (shown ``illegal_s`` s).
    ``loop``: start a fresh game ``loop`` s after a result (``None``: stop at the result).
    ``bot``: the players' level (:data:`companion.bots.BOTS`); ``greedy`` plays to win, as in
    ``demo``, so purchases, missions and a victory show on the dashboard.  Raises
    ``ValueError`` for an unknown level.
    """

    def __init__(self, session: TableSession, seed: int = 1, pace: float = 0.8, show_illegal: float = 0.15,
                 illegal_s: float = 4.0, loop: float | None = None, bot: str = "greedy"):
        if bot not in BOTS:
            raise ValueError(f"unknown bot level {bot!r} (known: {', '.join(BOTS)})")
        self.bot = bot
        self.session = session
        self.seed = seed
        self.pace = pace
        self.show_illegal = show_illegal
        self.illegal_s = illegal_s
        self.loop = loop
        self.rng = random.Random(seed)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="demo-bots", daemon=True)
        self.turns = 0

    def start(self) -> "DemoDriver":
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the current move; waits up to ``timeout`` s."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _pause(self, s: float | None = None) -> None:
        self._stop.wait(self.pace if s is None else s)

    def _table(self) -> _PacedTable:
        with self.session.lock:
            t = _PacedTable.from_game(self.session.game, self.rng.randrange(1 << 30), check_invariants=False,
                                      bot=self.bot)
        t.driver = self
        return t

    def _run(self) -> None:
        table = self._table()
        while not self._stop.is_set():
            try:
                if self.session.game is not table.game:
                    table = self._table()
                if table.position.result is not None:
                    if self.loop is None:
                        self._stop.wait(0.5)
                        continue
                    self._pause(self.loop)
                    if self.session.game is table.game and not self._stop.is_set():
                        with self.session.lock:
                            self.session.new_game(self.session.game.config or demo_config(), self.session.game.log,
                                                  seed=self.rng.randrange(1 << 30))
                    continue
                if self.rng.random() < self.show_illegal and not table.position.in_setup:
                    self._misplace()
                table.world()
                table.play_turn()
                self.turns += 1
            except _Stopped:
                continue
            except IllegalMove:
                table = self._table()  # someone changed the game under the bots: look again
                self._pause()

    def _misplace(self) -> None:
        """A tile put on a tree, as the camera would report it; taken back after a while."""
        s = self.session
        with s.lock:
            pos = s.position
            hand = [c for c in pos.hands[pos.active] if c != "ROCK"]
            if not hand or not pos.trees:
                return
            tree = self.rng.choice(sorted(pos.trees))
            move = {"player": pos.active, "action": "place", "tile": hand[0], "at": list(tree), "rotation": 0}
            if s.game.check(move).legal:
                return
            s.submit(move, source="bot")   # serve has no camera: the banner names the bot
        self._pause(self.illegal_s)
        s.clear_illegal("the tile was taken back")


def demo_session(mode: str = "competitive", players: int = 3, seed: int = 1, log=None,
                 difficulty: str = "easy", options: dict | None = None) -> TableSession:
    """A fresh :class:`TableSession` for a bot demo (raises SetupError for a bad config)."""
    return TableSession.start(demo_config(mode, players, difficulty, options), log, seed=seed, kind="dashboard")


__all__ = ["DemoDriver", "demo_session", "demo_config", "load_edition"]
