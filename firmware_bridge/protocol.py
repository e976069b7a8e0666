"""The companion firmware's wire protocol, version 1 (``hardware/PROTOCOL.md``).

A frame is ``TYPE (1 byte) | SEQ (2 bytes, little-endian) | PAYLOAD (0..48 bytes) |
CRC (2 bytes, big-endian)`` where CRC is CRC-16/CCITT-FALSE over TYPE..PAYLOAD (section 3);
the frame is COBS-encoded and followed by one ``0x00`` delimiter (section 2).  This module
is pure: bytes in, frames out, no I/O.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from firmware_bridge import cobs
from firmware_bridge.crc import crc16_ccitt_false
from firmware_bridge.errors import FrameError

PROTOCOL_VERSION = 1
MAX_PAYLOAD = 48
"""Largest payload in bytes (section 3)."""
MAX_FRAME = 3 + MAX_PAYLOAD + 2
"""Largest decoded frame in bytes."""
MAX_WIRE = MAX_FRAME + 2
"""Largest COBS-encoded frame on the wire, delimiter included (bytes)."""

# Device -> host (section 5)
HELLO = 0x01
TAG = 0x02
BUTTON = 0x03
HEARTBEAT = 0x04
ACK = 0x05
NAK = 0x06
# Host -> device (section 6)
RESEND = 0x81
SET_LED = 0x82
BEEP = 0x83
HELLO_REQ = 0x84

EVENT_TYPES = frozenset({TAG, BUTTON})
"""Frame types that carry an event sequence number and are kept for replay."""

NAK_UNKNOWN = 1
NAK_BAD_PAYLOAD = 2
NAK_REPLAY_GAP = 3

BUTTON_KINDS = {1: "press", 2: "long"}


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame: ``type`` (see the constants), ``seq`` (0..65535), ``payload``."""

    type: int
    seq: int
    payload: bytes = b""


HEALTH_NO_CHIP = 0x01
"""Health bit: the RFID chip does not answer (absent, or its initialisation failed)."""
HEALTH_REINIT = 0x02
"""Health bit: the chip was re-initialised after a fault since the last HELLO."""


@dataclass(frozen=True, slots=True)
class Hello:
    """HELLO payload (section 5.1).

    ``board_id`` (32-bit, never 0) and ``health`` (bit flags, :data:`HEALTH_NO_CHIP`,
    :data:`HEALTH_REINIT`) are None when an older firmware did not send them.
    """

    protocol: int
    firmware: str
    boot_id: int
    last_seq: int
    oldest_seq: int
    board_id: int | None = None
    health: int | None = None


def describe_health(health: int | None) -> str:
    """A line for the owner: ``"ok"``, ``"unknown (old firmware)"``, or what is wrong."""
    if health is None:
        return "unknown (old firmware)"
    parts = []
    if health & HEALTH_NO_CHIP:
        parts.append("the RFID chip does not answer: check its wiring")
    if health & HEALTH_REINIT:
        parts.append("the RFID chip was restarted after a fault")
    if health & ~(HEALTH_NO_CHIP | HEALTH_REINIT):
        parts.append(f"unknown health flags {health:#04x}")
    return "; ".join(parts) or "ok"


def encode_frame(frame: Frame) -> bytes:
    """The wire bytes of ``frame``: COBS(body + CRC) + ``0x00``.

    Raises :class:`FrameError` (kind ``"length"``) for a payload over :data:`MAX_PAYLOAD`
    bytes or a type/seq out of range.
    """
    if len(frame.payload) > MAX_PAYLOAD:
        raise FrameError("length", f"payload of {len(frame.payload)} bytes exceeds {MAX_PAYLOAD}")
    if not (0 <= frame.type <= 0xFF and 0 <= frame.seq <= 0xFFFF):
        raise FrameError("length", f"type {frame.type} or seq {frame.seq} out of range")
    body = struct.pack("<BH", frame.type, frame.seq) + bytes(frame.payload)
    body += struct.pack(">H", crc16_ccitt_false(body))
    return cobs.encode(body) + b"\x00"


def decode_frame(block: bytes) -> Frame:
    """Decode one COBS block (delimiter removed) into a :class:`Frame`.

    Raises :class:`FrameError` with kind ``"cobs"``, ``"length"`` (under 5 or over
    :data:`MAX_FRAME` decoded bytes) or ``"crc"``.
    """
    if len(block) > MAX_WIRE:
        raise FrameError("length", f"block of {len(block)} bytes is longer than any frame")
    body = cobs.decode(block)
    if len(body) < 5:
        raise FrameError("length", f"frame of {len(body)} bytes is shorter than the 5-byte minimum")
    if len(body) > MAX_FRAME:
        raise FrameError("length", f"frame of {len(body)} bytes exceeds {MAX_FRAME}")
    want = struct.unpack(">H", body[-2:])[0]
    got = crc16_ccitt_false(body[:-2])
    if want != got:
        raise FrameError("crc", f"CRC mismatch: frame says {want:04X}, computed {got:04X}")
    ftype, seq = struct.unpack("<BH", body[:3])
    return Frame(ftype, seq, bytes(body[3:-2]))


class FrameSplitter:
    """Cut a byte stream at ``0x00`` delimiters and decode each block (section 2).

    Garbage before the first delimiter, over-long runs and corrupt blocks come back as
    :class:`FrameError` items in the output list; the splitter itself never raises and
    holds at most :data:`MAX_WIRE` bytes of an unfinished frame.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def reset(self) -> None:
        """Forget any partial frame (call after reopening the port)."""
        self._buf.clear()
        self._overflow = False

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        """Add ``data``; return the frames (or errors) completed by it, in order."""
        out: list[Frame | FrameError] = []
        for b in data:
            if b == 0:
                if self._overflow:
                    out.append(FrameError("length", "over-long run of bytes without a delimiter"))
                elif self._buf:
                    try:
                        out.append(decode_frame(bytes(self._buf)))
                    except FrameError as e:
                        out.append(e)
                self._buf.clear()
                self._overflow = False
            elif not self._overflow:
                self._buf.append(b)
                if len(self._buf) > MAX_WIRE:
                    self._overflow = True
                    self._buf.clear()
        return out


# -- payload helpers -------------------------------------------------------------------

def next_seq(seq: int) -> int:
    """The event sequence number after ``seq``: 1..65535, wrapping to 1 (0 means "none")."""
    return 1 if seq >= 0xFFFF else seq + 1


def seq_after(a: int, b: int) -> bool:
    """True when event seq ``a`` is newer than ``b`` (16-bit serial arithmetic)."""
    return a != b and ((a - b) & 0xFFFF) < 0x8000


def parse_hello(frame: Frame) -> Hello:
    """Decode a HELLO payload (section 5.1); extra trailing bytes are ignored.

    Only the protocol byte is read when it is not :data:`PROTOCOL_VERSION` (a later
    protocol may lay out the rest differently); the caller refuses such a board.
    Raises :class:`FrameError` kind ``"length"`` for a payload shorter than 8 bytes
    (1 byte for another protocol).
    """
    p = frame.payload
    if p and p[0] != PROTOCOL_VERSION:
        return Hello(p[0], "?", 0, frame.seq, 0)
    if len(p) < 8:
        raise FrameError("length", f"HELLO payload of {len(p)} bytes, need 8")
    proto, major, minor, patch, boot_id, oldest = struct.unpack("<BBBBHH", p[:8])
    board_id = struct.unpack("<I", p[8:12])[0] if len(p) >= 12 else None
    health = p[12] if len(p) >= 13 else None
    return Hello(proto, f"{major}.{minor}.{patch}", boot_id, frame.seq, oldest, board_id, health)


def hello_frame(boot_id: int, last_seq: int, oldest_seq: int, fw: tuple[int, int, int] = (1, 0, 0),
                board_id: int | None = None, health: int | None = None, protocol: int = PROTOCOL_VERSION) -> Frame:
    """Build a HELLO frame (used by the virtual reader and the tests); ``board_id`` and
    ``health`` are appended when given (``health`` needs ``board_id``)."""
    payload = struct.pack("<BBBBHH", protocol, *fw, boot_id, oldest_seq)
    if board_id is not None:
        payload += struct.pack("<I", board_id)
        if health is not None:
            payload += bytes([health])
    return Frame(HELLO, last_seq, payload)


def parse_heartbeat(frame: Frame) -> tuple[int | None, int | None]:
    """``(uptime_ms, health)`` of a HEARTBEAT (section 5.4); either is None when the
    firmware did not send it."""
    p = frame.payload
    uptime = struct.unpack("<I", p[:4])[0] if len(p) >= 4 else None
    return uptime, (p[4] if len(p) >= 5 else None)


def heartbeat_frame(last_seq: int, uptime_ms: int, health: int | None = None) -> Frame:
    """Build a HEARTBEAT frame (virtual reader, tests)."""
    payload = struct.pack("<I", uptime_ms & 0xFFFFFFFF) + (b"" if health is None else bytes([health]))
    return Frame(HEARTBEAT, last_seq, payload)


def parse_tag(frame: Frame) -> str:
    """UID of a TAG frame as upper-case hex (section 5.2).

    Raises :class:`FrameError` kind ``"tag_uid_len"`` when the payload is not
    ``uid_len`` (4, 7 or 10) followed by that many UID bytes.
    """
    p = frame.payload
    if not p or p[0] not in (4, 7, 10) or len(p) < 1 + p[0]:
        raise FrameError("tag_uid_len", f"TAG seq {frame.seq} payload {p.hex() or '(empty)'} "
                         "is not uid_len (4, 7 or 10) + UID")
    return p[1 : 1 + p[0]].hex().upper()


def tag_frame(seq: int, uid: bytes) -> Frame:
    """Build a TAG frame for ``uid`` (4, 7 or 10 bytes)."""
    return Frame(TAG, seq, bytes([len(uid)]) + uid)


def parse_button(frame: Frame) -> str:
    """``"press"`` or ``"long"`` from a BUTTON frame (section 5.3).

    Raises :class:`FrameError` kind ``"button_kind"`` for an empty payload or a kind
    byte other than 01 or 02.
    """
    if not frame.payload or frame.payload[0] not in BUTTON_KINDS:
        raise FrameError("button_kind", f"BUTTON seq {frame.seq} payload {frame.payload.hex() or '(empty)'} "
                         "has no known kind")
    return BUTTON_KINDS[frame.payload[0]]


def resend(from_seq: int, cmd_seq: int = 0) -> Frame:
    """RESEND request: replay every kept event with seq >= ``from_seq`` (section 6.1)."""
    return Frame(RESEND, cmd_seq, struct.pack("<H", from_seq))


def set_led(r: int, g: int, b: int, duration_ms: int = 0, cmd_seq: int = 0) -> Frame:
    """SET_LED: colour 0..255 per channel for ``duration_ms`` (0 = until changed), section 6.2."""
    return Frame(SET_LED, cmd_seq, struct.pack("<BBBH", r, g, b, duration_ms))


def beep(freq_hz: int, duration_ms: int, cmd_seq: int = 0) -> Frame:
    """BEEP: a tone of ``freq_hz`` Hz for ``duration_ms`` ms (section 6.3)."""
    return Frame(BEEP, cmd_seq, struct.pack("<HH", freq_hz, duration_ms))
