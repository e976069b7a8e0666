"""Events the bridge hands to its consumer (a callback or a :class:`queue.Queue`).

Every event is a frozen dataclass with an ``event`` name and :meth:`as_dict`, which gives
the JSON object printed by ``mycelium-companion rfid listen``.  ``time`` is Unix time in
seconds (float) taken when the host decoded the frame.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import ClassVar, Union


@dataclass(frozen=True, slots=True)
class TileDrawn:
    """A registered tag was read: the tile ``tile`` left the bag.  ``reader`` is the
    board's event position (:meth:`firmware_bridge.cursor.Cursor.to_json`) for the
    companion firmware, None for readers without event numbers; a consumer that stores it
    with what it did resumes there after a restart."""

    event: ClassVar[str] = "tile_drawn"
    uid: str
    tile: str
    time: float
    reader: dict | None = None


@dataclass(frozen=True, slots=True)
class UnknownTag:
    """A tag was read whose UID is not in the registry (the dashboard shows it)."""

    event: ClassVar[str] = "unknown_tag"
    uid: str
    time: float
    tile: None = None
    reader: dict | None = None


@dataclass(frozen=True, slots=True)
class Button:
    """The reader's push button: ``kind`` is ``"press"`` or ``"long"`` (held >= 1000 ms)."""

    event: ClassVar[str] = "button"
    kind: str
    time: float
    reader: dict | None = None


@dataclass(frozen=True, slots=True)
class ReaderConnected:
    """The port ``port`` is open and the reader answered; ``info`` is driver-specific
    (firmware and protocol versions for the companion firmware)."""

    event: ClassVar[str] = "reader_connected"
    port: str
    driver: str
    time: float
    info: dict = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReaderDisconnected:
    """The reader went away (unplug, I/O error, silence); ``reason`` says which."""

    event: ClassVar[str] = "reader_disconnected"
    port: str
    reason: str
    time: float


@dataclass(frozen=True, slots=True)
class FrameErrorEvent:
    """A corrupt or unexpected frame was dropped; ``kind`` is e.g. ``crc``, ``cobs``,
    ``checksum``, ``length``, ``replay_gap``, ``unknown_type``, ``tag_uid_len``,
    ``button_kind``, ``version``.  Nothing else is lost: an unreadable event still uses up
    its seq and is reported once, in its place."""

    event: ClassVar[str] = "frame_error"
    kind: str
    detail: str
    time: float
    count: int = 1
    """How many errors of this kind the event stands for: line noise (``crc``, ``cobs``,
    ``length``, ``checksum``, ``framing``, ``hex``) is reported at once for the first error
    and then as one event per second with the count."""


@dataclass(frozen=True, slots=True)
class ReaderNotice:
    """Something about the reader the table should know that is not an error in a frame:
    ``kind`` ``new_board`` (a replacement board), ``new_boot`` (it lost power),
    ``seq_restart`` (its numbering restarted under the same ids), ``skipped`` (events
    from before this host's first contact), ``health`` (the RFID chip's state)."""

    event: ClassVar[str] = "reader_notice"
    kind: str
    detail: str
    time: float


Event = Union[TileDrawn, UnknownTag, Button, ReaderConnected, ReaderDisconnected, FrameErrorEvent, ReaderNotice]
Sink = Callable[[Event], None]


def as_dict(ev: Event) -> dict:
    """The JSON-ready dict for ``ev``, ``event`` first."""
    return {"event": ev.event, **asdict(ev)}


def queue_sink(q: "queue.Queue[Event]") -> Sink:
    """A sink that puts each event on ``q`` (never blocks: the queue should be unbounded)."""
    return q.put_nowait
