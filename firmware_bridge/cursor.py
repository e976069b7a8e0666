"""Where the host got to in a board's event stream, and the file that keeps it.

A :class:`Cursor` names the last event the host *delivered* (PROTOCOL.md section 7): the
session it belongs to, ``(board_id, boot_id)``, and its seq.  The companion driver starts
from one (so a restarted host asks the board only for newer events) and stamps every event
it passes up with the cursor that event moves to.  Whoever consumes the events persists the
cursor together with what it did with the event: the table loop in the game log (each draw
or end-of-turn move carries it), ``rfid listen`` in a small state file (:class:`CursorFile`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_bridge.jsonfile import write_json_atomically


@dataclass(frozen=True, slots=True)
class Cursor:
    """The last delivered event: ``board_id`` (32-bit random id, None from a firmware that
    does not send one), ``boot_id`` (16-bit cold-start counter) and ``seq`` (1..65535, 0 for
    "none yet in this session")."""

    board_id: int | None
    boot_id: int
    seq: int

    @property
    def session(self) -> tuple[int | None, int]:
        """``(board_id, boot_id)``: events of one session share one numbering."""
        return self.board_id, self.boot_id

    def to_json(self) -> dict[str, Any]:
        """``{"board": ..., "boot": ..., "seq": ...}``, the form stored in logs and files."""
        return {"board": self.board_id, "boot": self.boot_id, "seq": self.seq}

    @classmethod
    def from_json(cls, doc: Any) -> "Cursor":
        """Inverse of :meth:`to_json`; raises :class:`ValueError` naming the bad field."""
        if not isinstance(doc, dict):
            raise ValueError("a reader cursor must be an object with board, boot and seq")
        board, boot, seq = doc.get("board"), doc.get("boot"), doc.get("seq")
        if board is not None and (not isinstance(board, int) or not 0 < board <= 0xFFFFFFFF):
            raise ValueError(f"reader cursor: board must be a 32-bit id or null, got {board!r}")
        for name, v in (("boot", boot), ("seq", seq)):
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 0xFFFF:
                raise ValueError(f"reader cursor: {name} must be 0..65535, got {v!r}")
        return cls(board, boot, seq)


def default_state_path() -> Path:
    """``$XDG_STATE_HOME/mycelium-companion/reader-cursor.json`` (``~/.local/state/...``)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "mycelium-companion" / "reader-cursor.json"


class CursorFile:
    """One cursor in a JSON file, replaced atomically (write, fsync, rename) on each save.

    :meth:`load` returns None for a missing file; a damaged file raises :class:`ValueError`
    naming it (the caller says so and starts afresh rather than guessing).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def load(self) -> Cursor | None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            return Cursor.from_json(json.loads(text))
        except (json.JSONDecodeError, ValueError) as e:
            raise ValueError(f"{self.path}: not a reader cursor ({e})") from None

    def save(self, cursor: Cursor) -> None:
        """Store ``cursor``; raises :class:`OSError` when the folder cannot be written."""
        write_json_atomically(self.path, cursor.to_json())
