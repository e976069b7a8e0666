"""NXP PN532 over HSU (UART, 115200 8N1), user manual UM0701-02 section 6.2.

Normal information frame: ``00 00 FF LEN LCS TFI PD0..PDn DCS 00`` where LEN counts TFI and
the PD bytes, ``LEN + LCS == 0 (mod 256)``, ``TFI + sum(PD) + DCS == 0 (mod 256)``; TFI is
``D4`` host to PN532 and ``D5`` PN532 to host.  ACK is ``00 00 FF 00 FF 00``, NACK
``00 00 FF FF 00 00``.  Worked example: GetFirmwareVersion is
``00 00 FF 02 FE D4 02 2A 00``.

The driver wakes the chip (``55 55`` then zeros), configures the SAM (normal mode), asks
for the firmware version, then polls ``InListPassiveTarget`` (106 kbps type A, one target)
every 50 ms.  A tag is reported when it appears in a poll after being absent from the
field for at least :data:`ABSENT_MIN` seconds (or never seen), so a tag resting on the
reader is one draw however slowly the chip polls.

It follows the chip's exchange (UM0701-02 section 6.2.3): **one command in flight**; the
chip answers an ACK frame first, then the response.  A command without an ACK within
:data:`ACK_TIMEOUT` is sent again (the manual's 15 ms, plus a USB-UART's latency); a
command that was ACKed is waited for up to :data:`RESPONSE_TIMEOUT` (a poll with slow RF
timeouts can take about a second), then aborted with an ACK frame from the host (section
6.2.1.3) and sent again.  A slow chip therefore slows polling down and never gets a second
command while it works.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.drivers.base import Driver, Reading, Ready, TagSeen
from firmware_bridge.errors import FrameError

HOST_TFI = 0xD4
CHIP_TFI = 0xD5
ACK = bytes.fromhex("0000FF00FF00")
NACK = bytes.fromhex("0000FFFF0000")
WAKEUP = b"\x55\x55" + bytes(14)

CMD_GET_FIRMWARE_VERSION = 0x02
CMD_SAM_CONFIGURATION = 0x14
CMD_RF_CONFIGURATION = 0x32
CMD_IN_LIST_PASSIVE_TARGET = 0x4A

ABSENT_MIN = 0.3
"""Seconds a tag must have been out of the field before its next appearance is a new read
(the companion firmware's rule, PROTOCOL.md section 5.2)."""
POLL_INTERVAL = 0.05
"""Seconds between InListPassiveTarget polls."""
ACK_TIMEOUT = 0.1
"""Seconds to wait for the chip's ACK frame before sending the command again (UM0701-02
6.2.3 gives 15 ms on the wire; a USB-UART adds up to 16 ms latency each way, and a busy
host some scheduling delay)."""
RESPONSE_TIMEOUT = 2.5
"""Seconds to wait, after the ACK, for the response before aborting the command (an ACK
from the host) and sending it again."""


@dataclass(frozen=True, slots=True)
class PN532Frame:
    """One decoded frame: ``kind`` is ``"ack"``, ``"nack"`` or ``"data"``; for data frames
    ``tfi`` and ``data`` (the PD bytes, command code first)."""

    kind: str
    tfi: int = 0
    data: bytes = b""


def encode(tfi: int, data: bytes) -> bytes:
    """A normal information frame carrying ``data`` (up to 254 bytes) with ``tfi``."""
    if len(data) > 254:
        raise FrameError("length", f"PN532 normal frame holds at most 254 data bytes, got {len(data)}")
    length = len(data) + 1
    dcs = (-(tfi + sum(data))) & 0xFF
    return bytes([0x00, 0x00, 0xFF, length, (-length) & 0xFF, tfi]) + data + bytes([dcs, 0x00])


def command(code: int, params: bytes = b"") -> bytes:
    """A host-to-PN532 command frame."""
    return encode(HOST_TFI, bytes([code]) + params)


class FrameParser:
    """Stream parser for PN532 frames in either direction; never raises.

    Looks for the ``00 FF`` start code, then checks LEN/LCS and DCS; anything that fails is
    a :class:`FrameError` (kind ``"length"`` or ``"checksum"``) and the search goes on one
    byte later, so a good frame right after garbage is still found.
    """

    def __init__(self) -> None:
        self._buf = bytearray()

    def reset(self) -> None:
        """Forget any partial frame."""
        self._buf.clear()

    def feed(self, data: bytes) -> list[PN532Frame | FrameError]:
        """Add bytes; return the frames and errors they complete."""
        out: list[PN532Frame | FrameError] = []
        self._buf += data
        while True:
            start = self._buf.find(b"\x00\xff")
            if start < 0:
                # keep a trailing 00 that may begin a start code
                del self._buf[: max(0, len(self._buf) - 1)]
                return out
            del self._buf[:start]
            if len(self._buf) < 4:
                return out
            length, lcs = self._buf[2], self._buf[3]
            if length == 0x00 and lcs == 0xFF:
                out.append(PN532Frame("ack"))
                del self._buf[:4]
                continue
            if length == 0xFF and lcs == 0x00:
                out.append(PN532Frame("nack"))
                del self._buf[:4]
                continue
            if (length + lcs) & 0xFF or length == 0:
                out.append(FrameError("length", f"PN532 LEN {length:02X} and LCS {lcs:02X} do not sum to 0"))
                del self._buf[:2]
                continue
            if len(self._buf) < 4 + length + 1:
                return out
            body = bytes(self._buf[4 : 4 + length])
            dcs = self._buf[4 + length]
            if (sum(body) + dcs) & 0xFF:
                out.append(FrameError("checksum", f"PN532 DCS {dcs:02X} wrong for {body.hex(' ')}"))
                del self._buf[:2]
                continue
            del self._buf[: 4 + length + 1]
            out.append(PN532Frame("data", body[0], body[1:]))


def parse_targets(data: bytes) -> list[str]:
    """UIDs from an InListPassiveTarget response (``4B NbTg [Tg SENS_RES(2) SEL_RES
    NFCIDLength NFCID [ATSLength ATS...]]...``, type A at 106 kbps)."""
    if len(data) < 2 or data[0] != CMD_IN_LIST_PASSIVE_TARGET + 1:
        raise FrameError("length", f"not an InListPassiveTarget response: {data.hex(' ')}")
    count, i, uids = data[1], 2, []
    if count > 2:
        raise FrameError("length", f"InListPassiveTarget reports {count} targets (at most 2)")
    for _ in range(count):
        if i + 5 > len(data):
            raise FrameError("length", "InListPassiveTarget response cut short")
        sel_res, uid_len = data[i + 3], data[i + 4]
        i += 5
        if uid_len not in (4, 7, 10) or i + uid_len > len(data):
            raise FrameError("length", f"bad NFCID length {uid_len} in InListPassiveTarget response")
        uids.append(data[i : i + uid_len].hex().upper())
        i += uid_len
        if sel_res & 0x20 and i < len(data):  # ISO 14443-4 target: ATS follows
            i += max(1, data[i])
    return uids


class PN532Driver(Driver):
    """PN532 over HSU, polled."""

    name = "pn532"
    baudrate = 115200
    repeats_while_present = False  # the driver reports each arrival in the field once
    silence_timeout = RESPONSE_TIMEOUT + 0.5  # a slow poll is not a dead link
    needs_handshake = True
    handshake_timeout = 4.0

    SETUP = (
        command(CMD_SAM_CONFIGURATION, bytes([0x01, 0x14, 0x00])),
        command(CMD_RF_CONFIGURATION, bytes([0x05, 0xFF, 0x01, 0x02])),
        command(CMD_GET_FIRMWARE_VERSION),
    )
    POLL = command(CMD_IN_LIST_PASSIVE_TARGET, bytes([0x01, 0x00]))

    def __init__(self) -> None:
        self._parser = FrameParser()
        self._queue: list[bytes] = []
        self._pending: bytes | None = None
        self._acked = False
        self._sent_at = 0.0
        self._next_poll = 0.0
        self._ready = False
        self.valid_frames = 0
        self.retries = 0
        """Commands sent again after a missing ACK or response."""
        self._present: set[str] = set()  # UIDs in the last answered poll
        self._left: dict[str, float] = {}  # UID -> when it was first missing from a poll

    def on_open(self, now: float) -> bytes:
        self._parser.reset()
        self._queue = list(self.SETUP)
        self._ready = False
        self._pending, self._acked = None, False
        return WAKEUP

    def feed(self, data: bytes, now: float) -> list[Reading]:
        out: list[Reading] = []
        for fr in self._parser.feed(data):
            if isinstance(fr, FrameError):
                out.append(fr)
                continue
            self.valid_frames += 1
            if fr.kind == "ack":
                if self._pending is not None and not self._acked:
                    self._acked, self._sent_at = True, now  # the response clock starts now
                continue
            if fr.kind == "nack":
                continue  # the chip asks for the last response again; our timeout covers it
            if fr.tfi != CHIP_TFI or not fr.data:
                out.append(FrameError("unexpected", f"PN532 frame with TFI {fr.tfi:02X}"))
                continue
            self._pending, self._acked = None, False
            code = fr.data[0]
            if code == 0x7F:
                out.append(FrameError("chip", "PN532 reported a syntax error frame"))
            elif code == CMD_GET_FIRMWARE_VERSION + 1 and len(fr.data) >= 5:
                self._ready = True
                out.append(Ready({"ic": f"PN5{fr.data[1]:02X}", "firmware": f"{fr.data[2]}.{fr.data[3]}"}))
            elif code == CMD_IN_LIST_PASSIVE_TARGET + 1:
                try:
                    out.extend(TagSeen(u) for u in self._arrivals(parse_targets(fr.data), now))
                except FrameError as e:
                    out.append(e)
        return out

    def _arrivals(self, uids: list[str], now: float) -> list[str]:
        """The UIDs of this poll that count as new reads (see :data:`ABSENT_MIN`)."""
        seen = set(uids)
        for gone in self._present - seen:
            self._left.setdefault(gone, now)
        new = [u for u in uids if u not in self._present
               and (u not in self._left or now - self._left[u] >= ABSENT_MIN)]
        for u in seen:
            self._left.pop(u, None)
        self._present = seen
        if len(self._left) > 1024:  # bounded memory: forget tags long gone
            self._left = {u: t for u, t in self._left.items() if now - t < ABSENT_MIN}
        return new

    def poll(self, now: float) -> bytes:
        abort = b""
        if self._pending is not None:
            limit = RESPONSE_TIMEOUT if self._acked else ACK_TIMEOUT
            if now - self._sent_at < limit:
                return b""  # one command in flight
            if self._acked:
                abort = ACK  # the host's ACK aborts the command still running (6.2.1.3)
            self.retries += 1
            self._queue.insert(0, self._pending)
            self._pending, self._acked = None, False
        if not self._queue and self._ready and now >= self._next_poll:
            self._queue.append(self.POLL)
            self._next_poll = now + POLL_INTERVAL
        if not self._queue:
            return b""
        self._pending = self._queue.pop(0)
        self._sent_at = now
        return abort + self._pending
