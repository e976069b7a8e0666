"""Driver for our own firmware, protocol v1 (``hardware/PROTOCOL.md``).

Beyond decoding, it keeps the event sequence (section 7): it remembers the boot id and the
last event seq it delivered, passes each event up exactly once and in order, and asks the
board to RESEND from the first missing seq whenever a HELLO, HEARTBEAT or later event shows
a gap (a corrupt frame, bytes lost on the wire, or draws made while the cable was out).
A HEARTBEAT whose seq is behind the last delivered event is not believed alone: the driver
asks for a HELLO, which says whether the numbering restarted.
State survives reconnects: create one driver per physical reader, not per connection.

A frame that passes its CRC but cannot be read (section 8) never stalls the sequence.
Such a frame is either the board's own (a newer firmware's frame type, a firmware bug) or
a damaged frame that slipped past the CRC (losing a final ``00`` does so for about one
frame in 256), so the driver asks the board rather than guessing:

* if its seq is not ahead of the last delivered event, it is a non-event frame of a newer
  type (reported once per type and connection, kind ``unknown_type``) or an old event's
  replay (dropped);
* if its seq is ahead, the driver asks for a RESEND.  If the replay brings the same frame
  back under that seq, it is the board's event: passed up once, in seq order, as a
  :class:`FrameError` (kind ``unknown_type``, ``tag_uid_len`` or ``button_kind``), and the
  next event follows.  If the replay brings a readable TAG or BUTTON, that is delivered and
  the unreadable frame is reported once.

Identical RESEND requests are at least :data:`RESEND_MIN_GAP` seconds apart, whatever asks
for them, so no frame can make the driver flood the board.

Sessions (section 7): events are numbered per ``(board_id, boot_id)``.  The driver starts
from a :class:`~firmware_bridge.cursor.Cursor` (``resume``) when the host has one, and asks
only for events after it.  A HELLO under another board id (a replacement board), another
boot id (a cold start), or the same ids with a seq behind the cursor (a board that lost
its numbering without counting a boot) starts a new session: its events are all delivered
from 1, and a :class:`Notice` says what happened.  Without any cursor (a host that has
never seen this board) the events already in the board's ring predate the host and are
skipped, with a notice; the first new event is delivered.
"""

from __future__ import annotations

from firmware_bridge import protocol as P
from firmware_bridge.cursor import Cursor
from firmware_bridge.drivers.base import ButtonSeen, Driver, Notice, Reading, Ready, TagSeen
from firmware_bridge.errors import FrameError

FLASH_HINT = "flash it with `make -C hardware flash`"

HELLO_RETRY = 0.5
"""Seconds between HELLO_REQ frames until the board answers (it may be in its bootloader)."""
MAX_EARLY = 4096
"""Events kept while waiting for a missing earlier one (a replay after a reset arrives
behind the live events; about 60 bytes each, so at most a quarter MB)."""
RESEND_RETRY = 0.25
"""Seconds before a RESEND that brought nothing is sent again."""
RESEND_MIN_GAP = 0.05
"""Least time in seconds between two RESEND requests for the same seq (the board keeps 32
events, 0.64 s of draws at 50 per second, so retries must stay quick but bounded)."""


class CompanionDriver(Driver):
    """Protocol v1 decoder, sequencer and command encoder."""

    name = "companion"
    baudrate = 115200
    repeats_while_present = False  # the firmware reports each draw once
    silence_timeout = 3.5  # three missed heartbeats and a half
    needs_handshake = True
    handshake_timeout = 4.0  # bootloader (up to 2 s) plus HELLO retries

    def __init__(self, resume: Cursor | None = None) -> None:
        self._splitter = P.FrameSplitter()
        self.board_id: int | None = resume.board_id if resume else None
        self.boot_id: int | None = resume.boot_id if resume else None
        self.last_seq = resume.seq if resume else 0
        """Seq of the last event passed up (0: none this session)."""
        self.health: int | None = None
        """The board's last reported health flags (None: unknown, old firmware)."""
        self.valid_frames = 0
        self.wrong_version: int | None = None
        """The protocol a refused board speaks, until a board speaking ours answers."""
        self._hello_seen = False
        self._next_hello = 0.0
        self._want_from: int | None = None  # first missing seq, when a gap is known
        self._resend_at = 0.0
        self._last_resend: tuple[int, float] | None = None  # (from_seq, when sent)
        self._suspect: tuple[int, int, bytes, FrameError] | None = None  # unreadable frame ahead, asked about
        self._unknown_reported: set[int] = set()  # non-event unknown types reported this connection
        self._accept_any = False  # after a replay-gap NAK, the next event restarts the count
        self._early: dict[int, Reading] = {}  # events that arrived ahead of a gap, by seq
        self._cmd_seq = 0
        self._out = bytearray()

    # -- commands the table sends --------------------------------------------------------
    def command(self, frame: P.Frame) -> bytes:
        """Wire bytes of a host command, numbered with the driver's command counter."""
        self._cmd_seq = (self._cmd_seq + 1) & 0xFFFF
        return P.encode_frame(P.Frame(frame.type, self._cmd_seq, frame.payload))

    # -- Driver interface --------------------------------------------------------------
    def resume(self, cursor: Cursor) -> None:
        """Start from ``cursor`` (the last event the host delivered before it restarted):
        on the next HELLO of that session only newer events are asked for."""
        self.board_id, self.boot_id, self.last_seq = cursor.board_id, cursor.boot_id, cursor.seq
        self._early.clear()
        self._want_from = None

    @property
    def cursor(self) -> Cursor | None:
        """The last delivered event (None before the first HELLO)."""
        return None if self.boot_id is None else Cursor(self.board_id, self.boot_id, self.last_seq)

    def on_open(self, now: float) -> bytes:
        self._splitter.reset()
        self._unknown_reported.clear()
        self._hello_seen = False
        self._next_hello = now + HELLO_RETRY
        return self.command(P.Frame(P.HELLO_REQ, 0))

    def poll(self, now: float) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        if not self._hello_seen:
            if now >= self._next_hello:
                self._next_hello = now + HELLO_RETRY
                out += self.command(P.Frame(P.HELLO_REQ, 0))
        elif self._want_from is not None and now >= self._resend_at:
            last = self._last_resend
            if last is not None and last[0] == self._want_from and now - last[1] < RESEND_MIN_GAP:
                self._resend_at = last[1] + RESEND_MIN_GAP  # same request too soon: wait
            else:
                self._resend_at = now + RESEND_RETRY
                self._last_resend = (self._want_from, now)
                out += self.command(P.resend(self._want_from))
        return out

    def feed(self, data: bytes, now: float) -> list[Reading]:
        out: list[Reading] = []
        for item in self._splitter.feed(data):
            if isinstance(item, FrameError):
                out.append(item)
                continue
            self.valid_frames += 1
            try:
                self._handle(item, now, out)
            except FrameError as e:
                out.append(e)
        return out

    # -- sequencing (PROTOCOL.md section 7) --------------------------------------------
    def _gap(self, upto: int, now: float) -> None:
        """The board has events up to ``upto`` that we lack: ask for them."""
        if P.seq_after(upto, self.last_seq):
            first = P.next_seq(self.last_seq)
            if self._want_from != first:
                self._want_from = first
                self._resend_at = now  # ask at once

    def _deliver(self, seq: int, reading: Reading, out: list[Reading]) -> None:
        self.last_seq = seq
        if isinstance(reading, (TagSeen, ButtonSeen)):
            reading = type(reading)(reading.uid if isinstance(reading, TagSeen) else reading.kind, self.cursor)
        if self._want_from is not None and not P.seq_after(self._want_from, seq):
            self._want_from = None
        out.append(reading)
        if self._early:
            self._early = {k: v for k, v in self._early.items() if P.seq_after(k, seq)}
        if self._suspect is not None and not P.seq_after(self._suspect[0], seq):
            # its seq went to a readable event: the unreadable frame was not the board's event
            ftype, err = self._suspect[1], self._suspect[3]
            self._suspect = None
            if err.kind == "unknown_type":
                self._report_unknown(ftype, out)
            else:
                out.append(err)

    def _event(self, seq: int, reading: Reading, now: float, out: list[Reading]) -> None:
        """An event (or an unreadable event, as a FrameError) numbered ``seq`` arrived."""
        if self._accept_any or seq == P.next_seq(self.last_seq):
            self._accept_any = False
            self._deliver(seq, reading, out)
            while P.next_seq(self.last_seq) in self._early:  # the gap is filled
                s = P.next_seq(self.last_seq)
                self._deliver(s, self._early.pop(s), out)
        elif P.seq_after(seq, self.last_seq):
            # ahead of a gap: keep it (bounded) and ask for what is missing
            if len(self._early) < MAX_EARLY:
                self._early[seq] = reading
            self._gap(seq, now)
        # else a duplicate from a replay: already delivered

    def _health(self, health: int | None, out: list[Reading]) -> None:
        if health != self.health:
            before, self.health = self.health, health
            if health or before:  # report a fault, and its end; not a healthy first contact
                out.append(Notice("health", f"reader health: {P.describe_health(health)}"))

    def _new_session(self, board_id: int | None, boot_id: int) -> None:
        self._early.clear()
        self.board_id, self.boot_id = board_id, boot_id
        self.last_seq = 0
        self._want_from = None
        self._suspect = None
        self._last_resend = None
        self._accept_any = False

    def _restart(self, seq: int, what: str) -> Notice:
        """The board numbers its events from scratch under the same ids (section 7.3)."""
        old = self.last_seq
        self._new_session(self.board_id, self.boot_id)
        return Notice("seq_restart", f"the board's {what} says seq {seq}, behind the {old} already delivered "
                      f"under boot {self.boot_id}: its numbering restarted; every event it now holds is delivered")

    def _confirm(self, now: float) -> None:
        """A HEARTBEAT whose seq is behind the last delivered event: the board's numbering
        restarted (section 7.3), or the frame is not the board's latest word (a damaged frame
        that passed its CRC, a frame that left before the last event).  Restarting on it alone
        would deliver every event of the ring again (presses that end turns, draws of tiles
        back in the bag), so the board is asked: its HELLO decides, as at connection.  Until it
        answers, frames are not taken; what they carried is asked for again after the HELLO."""
        self._hello_seen = False
        self._next_hello = now

    def _hello(self, h: P.Hello, now: float, out: list[Reading]) -> None:
        if h.protocol != P.PROTOCOL_VERSION:
            self._hello_seen = False
            self._next_hello = now + 5.0  # it answered: ask again only now and then
            if self.wrong_version != h.protocol:
                self.wrong_version = h.protocol
                raise FrameError("version", f"the reader's firmware speaks protocol {h.protocol}, this companion "
                                 f"speaks {P.PROTOCOL_VERSION}: {FLASH_HINT}")
            return
        self.wrong_version = None
        if self.boot_id is None:
            # first contact, no cursor: what the ring holds predates this host
            self._new_session(h.board_id, h.boot_id)
            self.last_seq = h.last_seq
            if h.last_seq:
                out.append(Notice("skipped", f"first contact with board {h.board_id or '(no id)'}: "
                                  f"{h.last_seq} earlier event(s) left undelivered"))
        elif h.board_id != self.board_id and not (h.board_id is None or self.board_id is None):
            out.append(Notice("new_board", f"another reader board (id {h.board_id:08x}, was {self.board_id:08x}): "
                              "its events are all delivered"))
            self._new_session(h.board_id, h.boot_id)
        elif h.boot_id != self.boot_id:
            out.append(Notice("new_boot", f"the reader restarted from cold (boot {h.boot_id}, was {self.boot_id}): "
                              "events it made before are gone with its power"))
            self._new_session(h.board_id if h.board_id is not None else self.board_id, h.boot_id)
        elif self.last_seq and P.seq_after(self.last_seq, h.last_seq):
            out.append(self._restart(h.last_seq, "HELLO"))
        if h.board_id is not None:
            self.board_id = h.board_id
        self._hello_seen = True
        self._health(h.health, out)
        self._gap(h.last_seq, now)
        info = {"protocol": h.protocol, "firmware": h.firmware, "boot_id": h.boot_id,
                "board_id": None if h.board_id is None else f"{h.board_id:08x}",
                "health": P.describe_health(h.health)}
        out.append(Ready(info))

    def _report_unknown(self, ftype: int, out: list[Reading]) -> None:
        if ftype not in self._unknown_reported:
            self._unknown_reported.add(ftype)
            out.append(FrameError("unknown_type", f"frame type {ftype:#04x} is not in protocol v1; ignored"))

    def _unreadable(self, f: P.Frame, err: FrameError, now: float, out: list[Reading]) -> None:
        """A frame whose CRC is right but which cannot be read; ``err`` says why."""
        if not (self._accept_any or P.seq_after(f.seq, self.last_seq)):
            if f.type not in P.EVENT_TYPES:
                self._report_unknown(f.type, out)  # a newer firmware's non-event frame
            return  # else an old event's replay, already accounted for
        key = (f.seq, f.type, f.payload)
        same = self._suspect is not None and self._suspect[:3] == key
        if self._accept_any or (same and f.seq == P.next_seq(self.last_seq)):
            # in a replay (it came back under the same seq): the board's own event
            self._suspect = None
            self._event(f.seq, err, now, out)
            return
        if not same:
            self._suspect = (*key, err)
            self._last_resend = None  # a new question for the board: ask at once
        self._gap(f.seq, now)

    def _handle(self, f: P.Frame, now: float, out: list[Reading]) -> None:
        if f.type == P.HELLO:
            self._hello(P.parse_hello(f), now, out)
            return
        if not self._hello_seen:
            return  # frames before HELLO belong to a boot we have not identified yet
        if f.type == P.HEARTBEAT:
            _, health = P.parse_heartbeat(f)
            self._health(health, out)
            if self.last_seq and P.seq_after(self.last_seq, f.seq):
                self._confirm(now)
                return
            self._gap(f.seq, now)
            return
        if f.type in P.EVENT_TYPES:
            try:
                reading: Reading = TagSeen(P.parse_tag(f)) if f.type == P.TAG else ButtonSeen(P.parse_button(f))
            except FrameError as e:
                self._unreadable(f, e, now, out)
            else:
                self._event(f.seq, reading, now, out)
            return
        if f.type == P.NAK and len(f.payload) >= 4 and f.payload[0] == P.RESEND:
            if f.payload[3] == P.NAK_REPLAY_GAP:
                self._accept_any = True
                self._want_from = None
                raise FrameError("replay_gap", "the reader no longer holds every missed event; some draws are lost")
            return
        if f.type in (P.ACK, P.NAK):
            if f.type == P.ACK and f.payload[:1] == bytes([P.RESEND]):
                # the replay follows; if it is lost, the next heartbeat shows the gap again
                self._want_from = None
            return
        err = FrameError("unknown_type", f"frame type {f.type:#04x} (seq {f.seq}) is not in protocol v1; skipped")
        self._unreadable(f, err, now, out)


def led_frame(r: int, g: int, b: int, duration_ms: int = 0) -> P.Frame:
    """SET_LED command (send with :meth:`firmware_bridge.reader.BagReader.send`)."""
    return P.set_led(r, g, b, duration_ms)


def beep_frame(freq_hz: int = 2000, duration_ms: int = 150) -> P.Frame:
    """BEEP command."""
    return P.beep(freq_hz, duration_ms)
