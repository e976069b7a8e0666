"""Recording and replaying a table session, so any game (and any bug report) can be
reproduced bit-for-bit.

A recording is a folder: ``index.jsonl`` with one line per input in order —
``{"t_ms": ..., "kind": "frame", "file": "f000012.png"}``,
``{"t_ms": ..., "kind": "reader", "event": {...}}`` or ``{"t_ms": ..., "kind": "input", "move": {...}}``
— plus the frames as lossless PNG.  Identical consecutive frames share one file, so a still
board costs one image.  ``setup.json`` holds the initial position.  :func:`replay` feeds the
inputs to a :class:`~companion.table.live.LiveTable` in the recorded order with the recorded
time stamps, through the same code as a live game.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import cv2

from companion.table.sources import Frame


class RecordingError(RuntimeError):
    """A recording folder is missing, unreadable or inconsistent."""


class Recorder:
    """Append-only writer of a recording folder (created if missing)."""

    def __init__(self, folder: str | Path, setup: dict[str, Any] | None = None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._index = open(self.folder / "index.jsonl", "a", encoding="utf-8")
        self._last_hash: str | None = None
        self._last_file: str | None = None
        self._n = len(list(self.folder.glob("f*.png")))
        self._t0 = time.monotonic() * 1000.0
        if setup is not None:
            (self.folder / "setup.json").write_text(json.dumps(setup), encoding="utf-8")

    @staticmethod
    def setup_doc(game) -> dict[str, Any]:
        """What ``setup.json`` holds: the initial position and the game config."""
        return {"position": game.initial.to_json(), "config": game.config.to_json() if game.config else None}

    def _write(self, line: dict[str, Any]) -> None:
        self._index.write(json.dumps(line) + "\n")
        self._index.flush()

    def frame(self, frame: Frame) -> None:
        """Store a frame (PNG, deduplicated against the previous one)."""
        digest = hashlib.blake2b(frame.image.tobytes(), digest_size=16).hexdigest()
        if digest != self._last_hash:
            name = f"f{self._n:06d}.png"
            self._n += 1
            if not cv2.imwrite(str(self.folder / name), frame.image):
                raise RecordingError(f"cannot write {self.folder / name}")
            self._last_hash, self._last_file = digest, name
        self._write({"t_ms": frame.t_ms, "kind": "frame", "file": self._last_file})

    def reader(self, event: dict[str, Any]) -> None:
        self._write({"t_ms": time.monotonic() * 1000.0 - self._t0, "kind": "reader", "event": event})

    def input(self, item: dict[str, Any]) -> None:
        """A table input from the dashboard: ``{"input": "move", "move": {...}}``, ``undo``,
        ``answer``, ``correct``, ``clear_illegal`` or ``new_game``."""
        self._write({"t_ms": time.monotonic() * 1000.0 - self._t0, "kind": "input", **item})

    def close(self) -> None:
        self._index.close()


def load_setup(folder: str | Path):
    """The initial position and config stored with a recording, as ``(Position, GameConfig |
    None)``; raises :class:`RecordingError` naming the file and field."""
    from companion.position import Position, PositionError
    from companion.setup import GameConfig
    p = Path(folder) / "setup.json"
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise RecordingError(f"{p}: cannot read the recording's setup ({e})") from None
    if isinstance(doc, dict) and "position" in doc:
        pos_doc, cfg_doc = doc["position"], doc.get("config")
    else:
        pos_doc, cfg_doc = doc, None
    try:
        pos = Position.from_json(pos_doc)
    except PositionError as e:
        raise RecordingError(f"{p}: field {e.field}: {e.message}") from None
    try:
        config = GameConfig.from_json(cfg_doc) if isinstance(cfg_doc, dict) else None
    except (TypeError, ValueError, AttributeError) as e:
        raise RecordingError(f"{p}: field config: {e}") from None
    return pos, config


def replay(folder: str | Path, table) -> int:
    """Feed a recording to ``table`` (a LiveTable) in order; returns the number of inputs.

    Raises :class:`RecordingError` naming the line of a damaged index or a missing frame.
    """
    from companion.position import PositionError
    from companion.table.session import SessionError
    folder = Path(folder)
    try:
        lines = (folder / "index.jsonl").read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise RecordingError(f"{folder}: no recording here ({e.strerror})") from None
    cache: dict[str, Any] = {}
    session = table.session
    n = 0
    for i, line in enumerate(lines):
        where = f"{folder}/index.jsonl line {i + 1}"
        try:
            item = json.loads(line)
            if not isinstance(item, dict):
                raise RecordingError(f"{where}: not a JSON object")
            kind = item.get("kind")
            if kind == "frame":
                name = str(item["file"])
                img = cache.get(name)
                if img is None:
                    img = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
                    if img is None:
                        raise RecordingError(f"{folder / name}: missing or unreadable frame")
                    cache.clear()
                    cache[name] = img
                table.on_frame(Frame(img, float(item["t_ms"])))
            elif kind == "reader":
                event = item["event"]
                if not isinstance(event, dict) or "event" not in event:
                    raise RecordingError(f"{where}: a reader line needs an 'event' object")
                if event["event"] == "tile_drawn":
                    event["tile"]  # noqa: B018 - a drawn tile must name its tile
                table.on_reader_event(event)
            elif kind == "input":
                _replay_input(session, item, table)
            else:
                raise RecordingError(f"{where}: unknown kind {kind!r}")
        except RecordingError:
            raise
        except json.JSONDecodeError:
            raise RecordingError(f"{where}: not JSON") from None
        except KeyError as e:
            raise RecordingError(f"{where}: field {e.args[0]} is missing") from None
        except PositionError as e:
            raise RecordingError(f"{where}: field {e.field}: {e.message}") from None
        except (TypeError, ValueError) as e:
            raise RecordingError(f"{where}: {e}") from None
        except SessionError:
            pass  # the input was refused live too; the recording keeps it for fidelity
        n += 1
    return n


def _replay_input(session, item: dict[str, Any], table) -> None:
    what = item.get("input", "move")
    if what == "move":
        session.submit(item["move"], source="replay")
    elif what == "undo":
        session.undo()
    elif what == "answer":
        if session.question is not None:
            session.answer(session.question.id, int(item["choice"]))
    elif what == "correct":
        session.correct(tuple(item["at"]), item.get("content"))
    elif what == "clear_illegal":
        session.clear_illegal(item.get("why", "put back"), source="replay")
    elif what == "new_game":
        from companion.position import Position
        from companion.setup import GameConfig
        cfg = item.get("config")
        session.start_from(Position.from_json(item["position"]), GameConfig.from_json(cfg) if cfg else None,
                           session.game.log)
    else:
        raise RecordingError(f"unknown table input {what!r}")
