"""The game's event log in SQLite: written before anything is announced, survives a power cut.

One row per event: the setup (the initial position) at ``seq = 0``, then every accepted move.
The database runs in WAL mode with ``synchronous=FULL``, so a committed event is on disk when
:meth:`EventLog.append` returns, and a ``kill -9`` or a power cut loses nothing committed.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    game TEXT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    ts REAL NOT NULL,
    PRIMARY KEY (game, seq)
);
"""


class EventLogError(RuntimeError):
    """The log file cannot be opened or holds no such game."""


class EventLog:
    """An append-only (but for undo) log of games and their events in one SQLite file.

    ``path``: file path, or ``":memory:"`` for tests; ``create_dirs`` creates its folder (for
    the default location).  Raises :class:`EventLogError` when the folder is missing or the
    file cannot be opened as a database.
    """

    def __init__(self, path: str | Path, create_dirs: bool = False):
        self.path = str(path)
        if self.path != ":memory:":
            parent = Path(self.path).parent
            if create_dirs:
                parent.mkdir(parents=True, exist_ok=True)
            elif not parent.is_dir():
                raise EventLogError(f"{self.path}: the folder {parent} does not exist")
        try:
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise EventLogError(f"{self.path}: cannot open the game log ({e})") from None

    def close(self) -> None:
        """Close the database (everything appended is already durable)."""
        self.db.close()

    def new_game(self, config: dict[str, Any], game_id: str | None = None) -> str:
        """Register a game and return its id."""
        gid = game_id or time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT INTO games (id, created, config) VALUES (?, ?, ?)",
                            (gid, time.time(), json.dumps(config, sort_keys=True)))
        return gid

    def append(self, game: str, seq: int, kind: str, payload: dict[str, Any]) -> None:
        """Durably store event ``seq`` of ``game``; raises ``sqlite3.IntegrityError`` if that
        sequence number is already taken (two writers)."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT INTO events (game, seq, kind, payload, ts) VALUES (?, ?, ?, ?, ?)",
                            (game, seq, kind, json.dumps(payload, sort_keys=True), time.time()))

    def pop(self, game: str) -> dict[str, Any] | None:
        """Delete and return the last move event of ``game`` (never the setup)."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            row = self.db.execute("SELECT seq, kind, payload FROM events WHERE game = ? AND seq > 0 "
                                  "ORDER BY seq DESC LIMIT 1", (game,)).fetchone()
            if row is None:
                return None
            self.db.execute("DELETE FROM events WHERE game = ? AND seq = ?", (game, row[0]))
        return json.loads(row[2])

    def events(self, game: str) -> list[tuple[int, str, dict[str, Any], float]]:
        """All events of ``game`` in order: (seq, kind, payload, unix time in s)."""
        rows = self.db.execute("SELECT seq, kind, payload, ts FROM events WHERE game = ? ORDER BY seq", (game,)).fetchall()
        if not rows:
            raise EventLogError(f"{self.path}: no game {game!r}")
        return [(s, k, json.loads(p), ts) for s, k, p, ts in rows]

    def games(self) -> list[tuple[str, float, dict[str, Any]]]:
        """Every game: (id, creation time in s, config), newest last."""
        rows = self.db.execute("SELECT id, created, config FROM games ORDER BY created, id").fetchall()
        return [(g, c, json.loads(cfg)) for g, c, cfg in rows]

    def latest_game(self) -> str | None:
        """Id of the most recently created game, or ``None``."""
        games = self.games()
        return games[-1][0] if games else None
