"""The driver interface: a driver turns the bytes one reader sends into readings and says
what to write back.  Drivers do no I/O themselves; :class:`firmware_bridge.reader.BagReader`
owns the serial port, so every driver is testable on plain bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_bridge.cursor import Cursor
from firmware_bridge.errors import FrameError


@dataclass(frozen=True, slots=True)
class TagSeen:
    """A tag was read.  ``uid`` is upper-case hex without separators; ``at`` is the
    board's event position it moves the host to (companion firmware only)."""

    uid: str
    at: Cursor | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ButtonSeen:
    """The reader's button: ``kind`` is ``"press"`` or ``"long"``; ``at`` as for tags."""

    kind: str
    at: Cursor | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the owner should know that is not a damaged frame: ``kind`` is
    ``new_board``, ``new_boot``, ``seq_restart``, ``skipped`` or ``health``; ``detail``
    says it in words."""

    kind: str
    detail: str


@dataclass(frozen=True, slots=True)
class Ready:
    """The reader identified itself; ``info`` goes into the ``reader_connected`` event."""

    info: dict = field(default_factory=dict)


Reading = TagSeen | ButtonSeen | Ready | Notice | FrameError


class Driver:
    """Base class of the reader drivers.

    Class attributes: ``name``; ``baudrate`` (bits per second); ``repeats_while_present``,
    True when the reader reports a tag over and over while it stays in the field (the
    bridge then merges sightings less than 300 ms apart into one draw);
    ``silence_timeout`` (seconds without any byte after which the link counts as dead, or
    None for readers that are silent when idle); ``needs_handshake``, True when the reader
    must answer before it counts as connected.
    """

    name = "base"
    baudrate = 9600
    repeats_while_present = True
    silence_timeout: float | None = None
    needs_handshake = False
    handshake_timeout: float | None = None
    """Seconds after opening within which a reader that needs a handshake must answer; a
    port that stays mute, or sends only junk, that long is not this reader."""
    valid_frames = 0
    """Count of well-formed frames decoded so far (the bridge watches it: junk alone does
    not keep a link alive)."""

    def on_open(self, now: float) -> bytes:
        """Bytes to write right after the port opens (``now`` in seconds, monotonic).
        Also forgets any partial frame from an earlier connection."""
        return b""

    def feed(self, data: bytes, now: float) -> list[Reading]:
        """Decode ``data``; never raises: corrupt input comes back as :class:`FrameError`."""
        raise NotImplementedError

    def poll(self, now: float) -> bytes:
        """Bytes to write now (periodic polls, retries); called every loop turn."""
        return b""
