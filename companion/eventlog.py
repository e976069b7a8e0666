"""The game's event log in SQLite: written before anything is announced, survives a power cut.

One row per event, append-only: the setup (the initial position) at ``seq = 0``, then every
accepted move, every fix of a misread space and every undo, numbered 1, 2, 3...  The database
runs in WAL mode with ``synchronous=FULL``, so a committed event is on disk when
:meth:`EventLog.append` returns, and a ``kill -9`` or a power cut loses nothing committed.

Each row carries a checksum chained over the rows before it (BLAKE2b of the previous checksum,
the sequence number, the kind and the JSON payload), so an edited, deleted or garbled event is
found when the game is read (:class:`LogDamaged`), and :func:`salvage` can rebuild the file up
to the last good event after keeping a copy of the damaged one.

Each game has a ``kind``: ``table`` (``run``), ``demo`` (the simulated table), ``replay``
(``run --replay``) or ``dashboard`` (``serve``, a dashboard-only bot game); games logged before
kinds existed read as ``unknown``.  The ``meta`` table holds key/value pairs (the schema
version) so later additions need no new table.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

SCHEMA_VERSION = 2
KINDS = ("table", "demo", "replay", "dashboard")

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
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""
# Columns added after the first release: (table, column, declaration).
MIGRATIONS = [
    ("games", "kind", "TEXT"),
    ("games", "finished", "TEXT"),
    ("events", "chain", "TEXT"),
    ("games", "last_seq", "INTEGER"),   # the newest event's number: a deleted last event is found too
]


def no_log_at(path: str | Path) -> str:
    """Why there is no game log at ``path``: nothing there, or a folder where the file was meant."""
    if Path(path).is_dir():
        return f"{path} is a folder; give the game log file in it (e.g. {Path(path) / 'games.sqlite3'})"
    return f"no game log at {path}"


class EventLogError(RuntimeError):
    """The log file cannot be opened or holds no such game."""


class LogDamaged(EventLogError):
    """The log of ``game`` is damaged at event ``seq``: ``what`` says how.

    ``good`` is the number of the last event that reads back as written (-1: not even the
    setup).  The message is one sentence naming the file, the game, the event and the fault.
    """

    def __init__(self, path: str, game: str | None, seq: int | None, what: str, good: int = -1):
        self.path, self.game, self.seq, self.what, self.good = path, game, seq, what, good
        where = f"game {game}" if game else "the log"
        at = f", event {seq}" if seq is not None else ""
        super().__init__(f"{path}: {where} is damaged{at}: {what}")


def chain_of(prev: str, seq: int, kind: str, payload: str) -> str:
    """The checksum of one row: BLAKE2b-128 (hex) over the previous row's checksum (the game
    id for the setup), the sequence number, the kind and the payload text."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{prev}\n{seq}\n{kind}\n".encode())
    h.update(payload.encode())
    return h.hexdigest()


def _malformed(path: str, e: sqlite3.DatabaseError, game: str | None = None, seq: int | None = None,
               good: int = -1) -> LogDamaged:
    """SQLite's own complaint about a damaged file, as :class:`LogDamaged`."""
    text = str(e).split(" with text ")[0]
    if "decode" in text:
        what = f"its bytes are garbled (SQLite: {text})"
    elif "malformed" in text or "not a database" in text or "corrupt" in text:
        what = f"the file is damaged and SQLite cannot read it (SQLite: {text})"
    else:
        what = f"SQLite cannot read it ({text})"
    return LogDamaged(path, game, seq, what, good)


@dataclass
class GameInfo:
    """One game of the log as ``games`` lists it."""

    id: str
    created: float            # unix time, s
    config: dict[str, Any]
    kind: str                 # table, demo, replay, dashboard, unknown
    finished: str | None      # the result's reason, or None while the game goes on
    moves: int                # move events (undone ones subtracted)
    damaged: str | None = None  # "event 41: ..." when a check found damage (see EventLog.check)

    @property
    def mode(self) -> str:
        return self.config.get("mode", "competitive") if self.config else "?"

    @property
    def players(self) -> list[str]:
        return list(self.config.get("players", [])) if self.config else []

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "mode": self.mode, "players": self.players, "moves": self.moves,
                "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.created)),
                "finished": self.finished, "damaged": self.damaged}

    def line(self) -> str:
        """``20261130-221500-ab12cd  table  competitive  blue,orange  74 moves  started ...``."""
        d = self.to_json()
        return (f"{d['id']}  {d['kind']:<9} {d['mode']:<11} {','.join(d['players']):<22} {d['moves']:>4} moves  "
                f"started {d['started']}  " + (f"finished ({d['finished']})" if d["finished"] else "unfinished")
                + (f"  DAMAGED at {d['damaged']}" if d["damaged"] else ""))


class EventLog:
    """An append-only log of games and their events in one SQLite file.

    ``path``: file path, or ``":memory:"`` for tests; ``create_dirs`` creates its folder (for
    the default location).  ``readonly`` opens the file with SQLite's ``mode=ro`` (and
    ``immutable=1`` when its folder is not writable: a copied SD card, a mounted backup), so
    reading never needs write access; ``unchanging`` (with ``readonly``) reads a file nobody
    writes, such as salvage's copy, as immutable.  Raises :class:`EventLogError` when the
    folder or the file is missing, or the file cannot be opened as a database.
    """

    def __init__(self, path: str | Path, create_dirs: bool = False, readonly: bool = False,
                 unchanging: bool = False):
        self.path = str(path)
        self.readonly = readonly
        self._unchanging = unchanging   # a private copy nobody writes: read it as immutable
        if self.path != ":memory:":
            parent = Path(self.path).parent
            if create_dirs and not readonly:
                parent.mkdir(parents=True, exist_ok=True)
            elif not parent.is_dir():
                raise EventLogError(f"{self.path}: the folder {parent} does not exist")
            if readonly and not Path(self.path).is_file():
                raise EventLogError(no_log_at(self.path))
        try:
            if readonly and self.path != ":memory:":
                self.db = sqlite3.connect(self._readonly_uri(), uri=True, check_same_thread=False, isolation_level=None)
            else:
                self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(SCHEMA)
                self._migrate()
            self.columns = {t: {r[1] for r in self.db.execute(f"PRAGMA table_info({t})")} for t in ("games", "events")}
        except sqlite3.DatabaseError as e:
            if "malformed" in str(e):
                raise _malformed(self.path, e) from None
            raise EventLogError(f"{self.path}: cannot open the game log ({e})") from None
        if not self.columns["games"]:
            raise EventLogError(f"{self.path}: not a game log (no games table)")

    def _readonly_uri(self) -> str:
        """``mode=ro``; in a folder that cannot be written (no ``-shm`` can be made there), or
        for a file opened ``unchanging`` without a ``-wal`` (salvage's private copy: SQLite then
        makes no ``-wal``/``-shm`` beside it), ``immutable=1`` — unless a ``-wal`` file holds events not yet in the main file (a card
        pulled after a power cut): then both are read from a private temporary copy, so no
        event is missed."""
        path = os.path.abspath(self.path)
        wal = Path(path + "-wal")
        if os.access(Path(path).parent, os.W_OK) and not (self._unchanging and not wal.is_file()):
            return f"file:{quote(path)}?mode=ro"
        if wal.is_file() and wal.stat().st_size > 0:
            import tempfile
            self._tmpdir = tempfile.mkdtemp(prefix="mycelium-log-")
            copy = os.path.join(self._tmpdir, os.path.basename(path))
            shutil.copyfile(path, copy)
            shutil.copyfile(wal, copy + "-wal")
            return f"file:{quote(copy)}?mode=ro"
        return f"file:{quote(path)}?mode=ro&immutable=1"

    def _migrate(self) -> None:
        for table, col, decl in MIGRATIONS:
            have = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
            if col not in have:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {col} {decl}")
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None or row[0] != str(SCHEMA_VERSION):
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    def close(self) -> None:
        """Close the database (everything appended is already durable)."""
        self.db.close()
        tmp = getattr(self, "_tmpdir", None)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
            self._tmpdir = None

    # --- writing ----------------------------------------------------------------------------
    def new_game(self, config: dict[str, Any], game_id: str | None = None, kind: str = "table") -> str:
        """Register a game of ``kind`` (one of :data:`KINDS`) and return its id."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        gid = game_id or time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT INTO games (id, created, config, kind) VALUES (?, ?, ?, ?)",
                            (gid, time.time(), json.dumps(config, sort_keys=True), kind))
        return gid

    def append(self, game: str, seq: int, kind: str, payload: dict[str, Any]) -> None:
        """Durably store event ``seq`` of ``game``, chained to the one before; raises
        ``sqlite3.IntegrityError`` if that sequence number is already taken (two writers)."""
        text = json.dumps(payload, sort_keys=True)
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            prev = game
            if seq > 0:
                row = self.db.execute("SELECT chain FROM events WHERE game = ? AND seq = ?", (game, seq - 1)).fetchone()
                prev = row[0] if row and row[0] else ""
            self.db.execute("INSERT INTO events (game, seq, kind, payload, ts, chain) VALUES (?, ?, ?, ?, ?, ?)",
                            (game, seq, kind, text, time.time(), chain_of(prev, seq, kind, text)))
            self.db.execute("UPDATE games SET last_seq = ? WHERE id = ?", (seq, game))

    def copy_events(self, game: str, rows: list[tuple[int, str, dict[str, Any], float]]) -> None:
        """Store the events ``rows`` (as :meth:`events` returns them, time stamps kept) of a
        game with no events yet, in one transaction (:func:`salvage`)."""
        prev = game
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            for seq, kind, payload, ts in rows:
                text = json.dumps(payload, sort_keys=True)
                prev = chain_of(prev, seq, kind, text)
                self.db.execute("INSERT INTO events (game, seq, kind, payload, ts, chain) VALUES (?, ?, ?, ?, ?, ?)",
                                (game, seq, kind, text, ts, prev))
            if rows:
                self.db.execute("UPDATE games SET last_seq = ? WHERE id = ?", (rows[-1][0], game))

    def set_finished(self, game: str, reason: str | None) -> None:
        """Mark ``game`` finished with the result's reason (``None``: going on again, after an
        undo of the last move)."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("UPDATE games SET finished = ? WHERE id = ?", (reason, game))

    def discard_if_empty(self, game: str) -> bool:
        """Remove ``game`` when nothing but its setup was logged (a start that failed after the
        game was registered); True when it was removed.  A game with a move is never touched."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            played = self.db.execute("SELECT 1 FROM events WHERE game = ? AND kind != 'setup' LIMIT 1",
                                     (game,)).fetchone()
            if played:
                return False
            self.db.execute("DELETE FROM events WHERE game = ?", (game,))
            cur = self.db.execute("DELETE FROM games WHERE id = ?", (game,))
        return cur.rowcount > 0

    # --- reading ----------------------------------------------------------------------------
    def events(self, game: str) -> list[tuple[int, str, dict[str, Any], float]]:
        """All events of ``game`` in order: (seq, kind, payload, unix time in s).

        Every row is checked: numbered 0, 1, 2... with none missing, valid JSON, and its
        checksum matching (rows logged before checksums existed are taken as they are).
        Raises :class:`LogDamaged` at the first bad event, :class:`EventLogError` when there
        is no such game.
        """
        good: list[tuple[int, str, dict[str, Any], float]] = []
        err = self.read_events(game, good)
        if err is not None:
            raise err
        if not good:
            raise EventLogError(f"{self.path}: no game {game!r}")
        return good

    def read_events(self, game: str, out: list) -> LogDamaged | None:
        """Append the good events of ``game`` to ``out`` (as :meth:`events` returns them) and
        return the damage that stopped the reading, or ``None`` when every row is good.

        The rows and the game's newest event number are read in one transaction, so a game
        being written meanwhile reads as a consistent snapshot.
        """
        try:
            self.db.execute("BEGIN")
        except sqlite3.DatabaseError as e:
            return _malformed(self.path, e, game, 0, -1)
        try:
            return self._read_events(game, out)
        finally:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")

    def _read_events(self, game: str, out: list) -> LogDamaged | None:
        chained = "chain" in self.columns["events"]
        sql = f"SELECT seq, kind, payload, ts{', chain' if chained else ''} FROM events WHERE game = ? ORDER BY seq"
        prev = game
        expect = 0
        try:
            cur = self.db.execute(sql, (game,))
            for row in cur:
                seq, kind, text, ts = row[0], row[1], row[2], row[3]
                chain = row[4] if chained else None
                if not isinstance(seq, int) or seq > expect:
                    missing = expect if isinstance(seq, int) else expect
                    return LogDamaged(self.path, game, missing, "this event is missing (deleted from the file)", expect - 1)
                if seq < expect:
                    return LogDamaged(self.path, game, seq, "this event number appears twice", expect - 1)
                if not isinstance(text, str) or not isinstance(kind, str):
                    return LogDamaged(self.path, game, seq, "its fields are garbled", expect - 1)
                try:
                    payload = json.loads(text)
                except json.JSONDecodeError as e:
                    return LogDamaged(self.path, game, seq, f"it is not valid JSON ({e.msg} at character {e.pos})",
                                      expect - 1)
                if not isinstance(payload, dict):
                    return LogDamaged(self.path, game, seq, "it is not a JSON object", expect - 1)
                if chain is not None and prev is not None and chain != chain_of(prev, seq, kind, text):
                    return LogDamaged(self.path, game, seq, "it was changed after it was written "
                                      "(its checksum does not match)", expect - 1)
                out.append((seq, kind, payload, float(ts)))
                prev = chain
                expect += 1
            if "last_seq" in self.columns["games"]:
                row = self.db.execute("SELECT last_seq FROM games WHERE id = ?", (game,)).fetchone()
                if row and isinstance(row[0], int) and row[0] >= expect:
                    return LogDamaged(self.path, game, expect, "this event is missing (deleted from the file)",
                                      expect - 1)
        except sqlite3.DatabaseError as e:
            return _malformed(self.path, e, game, expect, expect - 1)
        return None

    def games(self) -> list[GameInfo]:
        """Every game, newest last; raises :class:`LogDamaged` when the file cannot be read."""
        cols = self.columns["games"]
        kind = "kind" if "kind" in cols else "NULL"
        fin = "finished" if "finished" in cols else "NULL"
        try:
            rows = self.db.execute(f"SELECT id, created, config, {kind}, {fin} FROM games ORDER BY created, id").fetchall()
            counts = dict(self.db.execute(
                "SELECT game, SUM(CASE kind WHEN 'move' THEN 1 WHEN 'undo' THEN -1 ELSE 0 END) FROM events GROUP BY game"))
        except sqlite3.DatabaseError as e:
            raise _malformed(self.path, e) from None
        out = []
        for g, c, cfg, k, f in rows:
            try:
                config = json.loads(cfg)
            except (TypeError, json.JSONDecodeError):
                raise LogDamaged(self.path, g, None, "its settings are not valid JSON") from None
            out.append(GameInfo(g, float(c), config if isinstance(config, dict) else {}, k or "unknown", f,
                                int(counts.get(g) or 0)))
        return out

    def check(self, games: list[GameInfo]) -> list[GameInfo]:
        """Fill in ``damaged`` for each game whose stored events do not read back as written
        (numbering, JSON, checksums; the rules are not replayed).  Returns ``games``."""
        for g in games:
            err = self.read_events(g.id, [])
            g.damaged = f"event {err.seq}: {err.what}" if err is not None else None
        return games

    def latest_game(self, kind: str | None = None) -> str | None:
        """Id of the most recently created game (of ``kind`` when given), or ``None``."""
        games = [g for g in self.games() if kind is None or g.kind == kind]
        return games[-1].id if games else None

    def unfinished(self, kind: str = "table") -> list[GameInfo]:
        """The games of ``kind`` without a result, oldest first."""
        return [g for g in self.games() if g.kind == kind and not g.finished]


def salvage(path: str | Path, check=None) -> tuple[Path, dict[str, int]]:
    """Rebuild a damaged log up to the last good event of every game, keeping a copy first.

    The damaged file is copied to ``<path>.damaged-YYYYmmdd-HHMMSS`` (its ``-wal``, when it
    holds events, folded in by SQLite's own checkpoint, so the copy is one file); then
    every game is read from the copy and its events are kept up to the first bad one (for
    ``check(log, game_id, rows) -> int``, also up to the last event it accepts: the rules'
    replay); the result is written to a new file that replaces ``path``.  Returns the copy's
    path and, per game, how many events were kept.  Raises :class:`EventLogError` when not even
    the list of games can be read.
    """
    path = Path(path)
    problem = salvage_problem(path)
    if problem:
        raise EventLogError(problem)
    backup = _earlier_copy(path)
    made = backup is None
    if made:
        backup = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        if made:
            shutil.copy2(path, backup)
            wal = Path(str(path) + "-wal")
            if wal.is_file() and wal.stat().st_size > 0:   # events not yet in the main file (a power cut)
                shutil.copy2(wal, Path(str(backup) + "-wal"))
                _single_file(backup)
        return _salvage_into(path, backup, check)
    except BaseException:
        if made:   # a failed attempt leaves no copy behind: the damaged file itself is untouched
            for f in (backup, Path(str(backup) + "-wal"), Path(str(backup) + "-shm")):
                f.unlink(missing_ok=True)
        raise


def _single_file(db: Path) -> None:
    """Fold ``db``'s write-ahead log into the file and leave it in rollback-journal mode
    (SQLite's ``wal_checkpoint(TRUNCATE)`` and ``journal_mode=DELETE``), so it is one file and
    opening it read-only makes no ``-wal``/``-shm`` beside it.  A file SQLite refuses to
    checkpoint keeps its ``-wal`` (its events are still read from there)."""
    try:
        con = sqlite3.connect(db, isolation_level=None)
        try:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            con.execute("PRAGMA journal_mode=DELETE")
        finally:
            con.close()
    except sqlite3.DatabaseError:
        return
    for ext in ("-wal", "-shm"):
        side = Path(str(db) + ext)
        if side.exists() and (ext == "-shm" or side.stat().st_size == 0):
            side.unlink()


def salvage_problem(path: str | Path) -> str | None:
    """Why :func:`salvage` cannot work on ``path``, in a sentence, or ``None``.  Reads only.

    A log in a folder (or a file) that cannot be written, such as a mounted backup, cannot be
    rebuilt in place; a file SQLite cannot even list the games of has nothing to recover."""
    path = Path(path)
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return (f"{path} cannot be rewritten where it is (a read-only folder, file or backup): "
                "copy the file somewhere writable first, then --salvage the copy")
    try:
        log = EventLog(path, readonly=True)
    except EventLogError:
        return "SQLite cannot open the file at all, so no game can be recovered from it (restore a backup if you have one)"
    try:
        try:
            log.games()
        except LogDamaged:
            if not _games_one_by_one(log):
                return f"{path}: SQLite cannot read the list of games, so no game can be recovered from it"
    except EventLogError as e:
        return str(e)
    finally:
        log.close()
    return None


def _earlier_copy(path: Path) -> Path | None:
    """A ``.damaged-*`` copy of ``path`` with the same bytes, kept by an earlier attempt."""
    data = None
    for f in sorted(path.parent.glob(f"{path.name}.damaged-*")):
        if f.name.endswith(("-wal", "-shm")) or f.stat().st_size != path.stat().st_size:
            continue
        data = path.read_bytes() if data is None else data
        if f.read_bytes() == data:
            return f
    return None


def _salvage_into(path: Path, backup: Path, check) -> tuple[Path, dict[str, int]]:
    # the copy stays exactly as the damaged file was, and reading it leaves nothing beside it
    src = EventLog(backup, readonly=True, unchanging=True)
    tmp = path.with_name(path.name + ".salvage-tmp")
    if tmp.exists():
        tmp.unlink()
    kept: dict[str, int] = {}
    try:
        dst = EventLog(tmp)
        try:
            games = src.games()
        except LogDamaged:
            games = _games_one_by_one(src)
        for g in games:
            rows: list = []
            err = src.read_events(g.id, rows)
            if not rows:
                continue
            complete = len(rows) if err is None else -1
            if check is not None:
                rows = rows[:check(src, g.id, rows) + 1]
            with dst.db:
                dst.db.execute("BEGIN IMMEDIATE")
                dst.db.execute("INSERT INTO games (id, created, config, kind) VALUES (?, ?, ?, ?)",
                               (g.id, g.created, json.dumps(g.config, sort_keys=True), g.kind if g.kind in KINDS else None))
            dst.copy_events(g.id, rows)
            if g.finished and len(rows) == complete:
                dst.set_finished(g.id, g.finished)
            kept[g.id] = len(rows) - 1
        dst.close()
        _single_file(tmp)   # the rebuilt log is one file: nothing beside it until it is written to again
    finally:
        src.close()
    if not kept:
        tmp.unlink()
        raise EventLogError(f"{path}: no game could be recovered from it (the damaged file is also kept as {backup})")
    for ext in ("-wal", "-shm"):
        side = Path(str(path) + ext)
        if side.exists():
            side.unlink()
    os.replace(tmp, path)
    return backup, kept


def _games_one_by_one(log: EventLog) -> list[GameInfo]:
    """The games whose row can still be read, when a whole-table query fails."""
    out = []
    try:
        ids = [r[0] for r in log.db.execute("SELECT id FROM games")]
    except sqlite3.DatabaseError:
        try:
            ids = [r[0] for r in log.db.execute("SELECT DISTINCT game FROM events")]
        except sqlite3.DatabaseError:
            raise EventLogError(f"{log.path}: the file is too damaged to recover any game") from None
    for gid in ids:
        try:
            g, c, cfg = log.db.execute("SELECT id, created, config FROM games WHERE id = ?", (gid,)).fetchone()
            out.append(GameInfo(g, float(c), json.loads(cfg), "unknown", None, 0))
        except (sqlite3.DatabaseError, TypeError, json.JSONDecodeError):
            continue
    return out
