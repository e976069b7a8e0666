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

    def input(self, move: dict[str, Any]) -> None:
        self._write({"t_ms": time.monotonic() * 1000.0 - self._t0, "kind": "input", "move": move})

    def close(self) -> None:
        self._index.close()


def load_setup(folder: str | Path) -> dict[str, Any]:
    """The initial position stored with a recording; raises :class:`RecordingError`."""
    p = Path(folder) / "setup.json"
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise RecordingError(f"{p}: cannot read the recording's setup ({e})") from None


def replay(folder: str | Path, table) -> int:
    """Feed a recording to ``table`` (a LiveTable) in order; returns the number of inputs.

    Raises :class:`RecordingError` for a missing index or frame.
    """
    folder = Path(folder)
    try:
        lines = (folder / "index.jsonl").read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise RecordingError(f"{folder}: no recording here ({e.strerror})") from None
    cache: dict[str, Any] = {}
    n = 0
    for i, line in enumerate(lines):
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            raise RecordingError(f"{folder}/index.jsonl line {i + 1}: not JSON") from None
        kind = item.get("kind")
        if kind == "frame":
            name = item["file"]
            img = cache.get(name)
            if img is None:
                img = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
                if img is None:
                    raise RecordingError(f"{folder / name}: missing or unreadable frame")
                cache.clear()
                cache[name] = img
            table.on_frame(Frame(img, float(item["t_ms"])))
        elif kind == "reader":
            table.on_reader_event(item["event"])
        elif kind == "input":
            table.session.submit(item["move"], source="replay")
        n += 1
    return n
