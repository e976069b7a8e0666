"""A virtual tile-bag reader on a real pseudo-terminal (``os.openpty``).

It plays the device side of one driver's protocol (``companion``, ``rdm6300`` or
``pn532``) in a thread, so the bridge, its tests, the benchmark and the demo exercise
pyserial and the kernel's tty layer for real.  It can inject noise, drop bytes and
simulate an unplug: the pty is closed (the host sees EIO / ``SerialException``) and on
replug a new pty appears under a new path, as a USB reader can after re-enumeration.

The companion device models an Arduino Nano with the reader firmware (PROTOCOL.md
sections 1 and 7):

* **DTR reset.**  A pty has no modem lines, so the model follows what Linux does to a real
  USB serial port: opening the port asserts DTR; closing it drops DTR only while the
  port's ``HUPCL`` flag is set (the device reads it from the pty's termios).  DTR going
  from dropped to asserted resets the board, as the Nano's auto-reset capacitor does: a
  replugged cable (a new port starts with DTR dropped) or a reopen after a close with
  ``HUPCL`` set.  The host's open is seen because the device holds no fd on the slave.
* **Bootloader.**  After a reset the board is deaf for ``bootloader_s`` seconds (drawn from
  the range for each reset): host bytes are lost, no heartbeat, and tags drawn meanwhile
  are read when the firmware starts, one per :data:`SCAN_S` (the model assumes they are
  still in the field; a tile that passed the antenna faster would be missed by a real board).
* **Warm and cold starts.**  A reset with power kept keeps the event ring, its seq and the
  boot id (the firmware's ``.noinit`` ring).  :meth:`VirtualReader.power_cycle` (a full
  unplug, a power loss) loses the ring and counts a new boot id.  ``board_id`` is the
  random id of the board's EEPROM; a replacement board is a new ``VirtualReader``.
* **Health.**  ``health`` goes into HELLO and HEARTBEAT; with the chip flag set
  (``no_chip``) no tag is read.
"""

from __future__ import annotations

import heapq
import itertools
import os
import random
import select
import struct
import threading
import termios
import time
import tty
from collections import deque
from collections.abc import Callable

from firmware_bridge import protocol as P
from firmware_bridge.drivers import pn532, rdm6300

REPLAY_DEPTH = 32
"""Events the firmware keeps for replay (PROTOCOL.md section 6.1)."""
SCAN_S = 0.005
"""Seconds per tag when the firmware starts with several tags waiting in the field
(REQA, anticollision and select take a few ms per tag)."""


class VirtualReader:
    """A simulated reader.  Use as a context manager or call :meth:`start`/:meth:`stop`.

    ``noise``: probability (0..1) that random garbage bytes precede a frame.
    ``drop``: probability (0..1) that one byte of a frame is lost.
    ``heartbeat_ms``: companion HEARTBEAT period.  ``repeat_ms`` / ``present_ms``: how
    often an RDM6300 repeats a frame and how long a drawn tag stays in the field.
    ``clock``: the device's seconds (monotonic); a test may give the host and the device one
    clock it moves on itself, so timings hold however loaded the machine is.
    """

    def __init__(
        self,
        kind: str = "companion",
        *,
        noise: float = 0.0,
        drop: float = 0.0,
        seed: int = 0,
        heartbeat_ms: int = 1000,
        repeat_ms: int = 60,
        present_ms: int = 150,
        boot_id: int = 1,
        board_id: int | None = None,
        bootloader_s: tuple[float, float] = (0.5, 2.0),
        health: int | None = 0,
        protocol: int = P.PROTOCOL_VERSION,
        legacy_hello: bool = False,
        pn532_poll_s: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if kind not in ("companion", "rdm6300", "pn532"):
            raise ValueError(f"unknown reader kind {kind!r}")
        self.kind = kind
        self._clock = clock
        self.noise = noise
        self.drop = drop
        self._rng = random.Random(seed)
        self._heartbeat = heartbeat_ms / 1000.0
        self._repeat = repeat_ms / 1000.0
        self._present = present_ms / 1000.0
        self.boot_id = boot_id
        self.board_id = board_id if board_id is not None else self._rng.randrange(1, 1 << 32)
        self.bootloader_s = bootloader_s
        self.health = health
        self.protocol = protocol
        self.legacy_hello = legacy_hello
        self.pn532_poll_s = pn532_poll_s
        self.resets = 0
        """Resets so far (DTR edges and power cycles), as the board would count them."""
        self._dtr = False  # as the host's tty driver would drive it
        self._host_open = False
        self._booting_until = 0.0
        self._deferred: list[bytes] = []  # tags drawn while the bootloader ran
        self.last_seq = 0
        self._ring: deque[P.Frame] = deque(maxlen=REPLAY_DEPTH)
        self._field: list[tuple[float, bytes]] = []  # (leaves_at, uid) for the PN532
        self._lock = threading.RLock()
        self._master: int | None = None
        self.pn532_overlaps = 0
        """PN532 commands that arrived while the chip was still busy with the last one."""
        self._pn532_busy_until = 0.0
        self._path = ""
        self._tasks: list[tuple[float, int, Callable[[], None]]] = []
        self._tick = itertools.count()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._host_rx = P.FrameSplitter()
        self._pn_rx = pn532.FrameParser()
        self.received = bytearray()
        """Every byte the host wrote, across connections."""
        self.sent = 0
        """Bytes written to the host, across connections (lost ones not counted)."""
        self.commands: list[P.Frame] = []
        """Host commands received (companion), in order: tests read LED/BEEP from here."""

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def port(self) -> str:
        """Current device path of the slave side ('' while unplugged)."""
        return self._path

    def start(self) -> "VirtualReader":
        self._plug()
        self._thread = threading.Thread(target=self._run, name=f"virtual-{self.kind}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(2)
        self._unplug()

    def __enter__(self) -> "VirtualReader":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _plug(self) -> None:
        with self._lock:
            master, slave = os.openpty()
            tty.setraw(slave)
            attrs = termios.tcgetattr(slave)
            attrs[2] |= termios.HUPCL  # a fresh USB serial port drops DTR on close
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
            self._path = os.ttyname(slave)
            os.close(slave)  # only the host holds the slave: its open and close are seen
            os.set_blocking(master, False)
            self._master = master
            self._poll = select.poll()
            self._poll.register(master, select.POLLIN | select.POLLHUP)
            self._host_open = False
            self._dtr = False
            self._host_rx.reset()
            self._pn_rx.reset()

    def _unplug(self) -> None:
        with self._lock:
            if self._master is not None:
                os.close(self._master)
            self._master = None
            self._host_open = False
            self._path = ""

    def unplug(self, seconds: float | None = None) -> None:
        """Pull the cable; plug it back in after ``seconds`` (on a new path) if given."""
        self._unplug()
        if seconds is not None:
            self.schedule(seconds, self.replug)

    def replug(self) -> None:
        """Plug the cable back in: a new pty, and (companion) a HELLO as after enumeration."""
        if self._master is None:
            self._plug()

    def reboot(self) -> None:
        """Companion board cold start (power lost): new boot id, empty event ring, HELLO
        after the bootloader."""
        self.power_cycle()

    def power_cycle(self) -> None:
        """Cut and restore the board's power: the ring and its seq are lost, the EEPROM
        boot counter goes up, the bootloader runs."""
        with self._lock:
            self.boot_id = (self.boot_id + 1) & 0xFFFF
            self.last_seq = 0
            self._ring.clear()
            self._deferred.clear()
        self.reset()

    def reset(self) -> None:
        """A warm reset (DTR edge, watchdog): power kept, ring and boot id kept; the
        board is deaf while its bootloader runs, then says HELLO."""
        with self._lock:
            self.resets += 1
            lo, hi = self.bootloader_s
            self._booting_until = self._clock() + (lo if hi <= lo else self._rng.uniform(lo, hi))

    @property
    def booting(self) -> bool:
        """True while the bootloader runs after a reset."""
        return self._clock() < self._booting_until

    def _hello(self) -> P.Frame:
        if self.legacy_hello:
            return P.hello_frame(self.boot_id, self.last_seq, self._oldest())
        return P.hello_frame(self.boot_id, self.last_seq, self._oldest(), board_id=self.board_id,
                             health=self.health, protocol=self.protocol)

    def schedule(self, delay: float, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the device thread after ``delay`` seconds."""
        with self._lock:
            heapq.heappush(self._tasks, (self._clock() + delay, next(self._tick), fn))

    # -- what a person does at the table -------------------------------------------------
    def draw(self, uid: bytes) -> None:
        """A tile with tag ``uid`` passes the reader (5 bytes for an RDM6300, 4/7/10 for
        the others).  Writes immediately from the calling thread."""
        if self.kind == "companion":
            with self._lock:
                if self.health and self.health & P.HEALTH_NO_CHIP:
                    return  # no chip: nothing is read
                if self._booting_until and self._clock() < self._booting_until:
                    self._deferred.append(uid)  # read when the firmware starts
                    return
            self.event(P.TAG, bytes([len(uid)]) + uid)
        elif self.kind == "rdm6300":
            frame = rdm6300.encode(uid)
            self._write_noisy(frame)
            n_repeats = max(0, int(self._present / self._repeat))
            for k in range(1, n_repeats + 1):
                self.schedule(k * self._repeat, lambda: self._write_noisy(frame))
        else:
            with self._lock:
                self._field.append((self._clock() + self._present, uid))

    def press(self, kind: str = "press") -> None:
        """The button (companion only): ``"press"`` or ``"long"``."""
        code = {v: k for k, v in P.BUTTON_KINDS.items()}[kind]
        self.event(P.BUTTON, bytes([code]))

    def event(self, ftype: int, payload: bytes) -> int:
        """Companion only: the board makes an event frame of any ``ftype`` (0..255) with
        ``payload`` (at most 48 bytes), numbered with the next seq, kept in the replay
        ring and written at once.  Tests use it for a newer firmware's event types and for
        malformed TAG/BUTTON payloads.  Returns the event's seq."""
        with self._lock:   # numbered and written together: frames leave in seq order
            self.last_seq = P.next_seq(self.last_seq)
            f = P.Frame(ftype, self.last_seq, bytes(payload))
            self._ring.append(f)
            self._send(f)
        return f.seq

    def frame(self, ftype: int, payload: bytes = b"") -> None:
        """Companion only: write one non-event frame of ``ftype`` carrying the latest seq
        (as a HEARTBEAT does); it is not kept for replay."""
        with self._lock:
            self._send(P.Frame(ftype, self.last_seq, bytes(payload)))

    def inject(self, raw: bytes) -> None:
        """Write raw bytes (garbage, half frames) as they are."""
        self._write(raw)

    # -- wire ----------------------------------------------------------------------------
    def _oldest(self) -> int:
        return self._ring[0].seq if self._ring else 0

    def _write(self, data: bytes) -> None:
        with self._lock:
            if self._master is None:
                return  # unplugged: the bytes go nowhere
            if self.kind == "companion" and not self._host_open:
                return  # the Nano's USB chip drops what no program reads
            try:
                self.sent += os.write(self._master, data)
            except (BlockingIOError, OSError):
                pass  # nobody reading and the buffer is full: lost, as on a real link

    def _write_noisy(self, frame: bytes) -> None:
        with self._lock:
            if self.noise and self._rng.random() < self.noise:
                junk = bytes(self._rng.randrange(256) for _ in range(self._rng.randint(1, 8)))
                self._write(junk)
            if self.drop and self._rng.random() < self.drop:
                i = self._rng.randrange(len(frame))
                frame = frame[:i] + frame[i + 1 :]
        self._write(frame)

    def _send(self, f: P.Frame) -> None:
        # Callers that number a frame with last_seq hold _lock from reading it to writing the
        # frame: the firmware makes events and heartbeats in one loop, so a frame never leaves
        # with a seq older than an event already sent.  A heartbeat numbered before an event
        # and written after it would tell the host the numbering went back (section 7.4).
        self._write_noisy(P.encode_frame(f))

    # -- device thread -------------------------------------------------------------------
    def _lines(self, hup: bool) -> None:
        """Follow the host's open and close of the port (and so DTR)."""
        with self._lock:
            if self._master is None:
                return
            if hup and self._host_open:
                self._host_open = False
                try:
                    hupcl = bool(termios.tcgetattr(self._master)[2] & termios.HUPCL)
                except termios.error:
                    hupcl = True
                if hupcl:
                    self._dtr = False
            elif not hup and not self._host_open:
                self._host_open = True
                if not self._dtr:
                    self._dtr = True
                    if self.kind == "companion":
                        self.reset()  # the auto-reset capacitor pulses RESET

    def _run(self) -> None:
        next_beat = self._clock() + self._heartbeat
        booting = False
        while not self._stop.is_set():
            fd = self._master
            data = b""
            if fd is not None:
                try:
                    events = self._poll.poll(2)
                except (OSError, ValueError):
                    events = []
                hup = any(ev & select.POLLHUP for _, ev in events)
                self._lines(hup)
                if hup:
                    time.sleep(0.002)
                elif any(ev & select.POLLIN for _, ev in events):
                    try:
                        data = os.read(fd, 4096)
                    except OSError:
                        data = b""
            else:
                time.sleep(0.002)
            now = self._clock()
            if self.kind == "companion" and now < self._booting_until:
                booting = True
                continue  # the bootloader: host bytes are lost, the firmware is not running
            if booting:
                booting = False
                self._boot_done()
                next_beat = now + self._heartbeat
            if data:
                self._from_host(data)
            while True:
                with self._lock:
                    if not self._tasks or self._tasks[0][0] > now:
                        break
                    _, _, fn = heapq.heappop(self._tasks)
                fn()
            if self.kind == "companion" and now >= next_beat:
                # the firmware's loop sends it when due, late by a scan or a replay (section 5.4)
                next_beat = now + self._heartbeat * (1 + self._rng.uniform(0.0, 0.1))
                self._send_heartbeat(now)

    def _send_heartbeat(self, now: float) -> None:
        """Send one HEARTBEAT carrying the latest seq (``now``: monotonic seconds)."""
        with self._lock:
            ms = int(now * 1000) & 0xFFFFFFFF
            self._send(P.heartbeat_frame(self.last_seq, ms, None if self.legacy_hello else self.health))

    def _boot_done(self) -> None:
        """The firmware starts: HELLO, then the tags that waited in the field."""
        with self._lock:
            waiting, self._deferred = self._deferred, []
            self._send(self._hello())
        for k, uid in enumerate(waiting):  # one tag per scan, as the MFRC522 reads them
            self.schedule((k + 1) * SCAN_S, lambda u=uid: self.event(P.TAG, bytes([len(u)]) + u))

    def _from_host(self, data: bytes) -> None:
        self.received += data
        if self.kind == "companion":
            for f in self._host_rx.feed(data):
                if isinstance(f, P.Frame):
                    self._command(f)
        elif self.kind == "pn532":
            for f in self._pn_rx.feed(data):
                if isinstance(f, pn532.PN532Frame) and f.kind == "data" and f.tfi == pn532.HOST_TFI:
                    self._pn532_command(f.data)
        # an RDM6300 has no receive line

    def _command(self, f: P.Frame) -> None:
        with self._lock:   # an answer (a whole replay) goes out in one go, as in section 6.1
            self._answer(f)

    def _answer(self, f: P.Frame) -> None:
        self.commands.append(f)
        ack = bytes([f.type]) + struct.pack("<H", f.seq)
        if f.type == P.HELLO_REQ:
            self._send(self._hello())
        elif f.type == P.RESEND and len(f.payload) >= 2:
            want = struct.unpack("<H", f.payload[:2])[0]
            with self._lock:
                kept = list(self._ring)
            seqs = [k.seq for k in kept]
            if want in seqs:
                self._send(P.Frame(P.ACK, self.last_seq, ack))
                for k in kept[seqs.index(want) :]:
                    self._send(k)
            elif want == P.next_seq(self.last_seq):
                self._send(P.Frame(P.ACK, self.last_seq, ack))
            else:
                self._send(P.Frame(P.NAK, self.last_seq, ack + bytes([P.NAK_REPLAY_GAP])))
                for k in kept:
                    self._send(k)
        elif f.type in (P.SET_LED, P.BEEP):
            self._send(P.Frame(P.ACK, self.last_seq, ack))
        else:
            self._send(P.Frame(P.NAK, self.last_seq, ack + bytes([P.NAK_UNKNOWN])))

    def _pn532_command(self, data: bytes) -> None:
        now = self._clock()
        if now < self._pn532_busy_until:
            self.pn532_overlaps += 1
        self._write(pn532.ACK)
        code = data[0]
        if code == pn532.CMD_GET_FIRMWARE_VERSION:
            reply = bytes([0x03, 0x32, 0x01, 0x06, 0x07])
        elif code == pn532.CMD_IN_LIST_PASSIVE_TARGET:
            now = self._clock()
            with self._lock:
                self._field = [(t, u) for t, u in self._field if t > now]
                uid = self._field[0][1] if self._field else None
            if uid is None:
                reply = bytes([0x4B, 0x00])
            else:
                reply = bytes([0x4B, 0x01, 0x01, 0x00, 0x04, 0x08, len(uid)]) + uid
            if self.pn532_poll_s:  # a slow chip: the answer comes after the RF timeouts
                self._pn532_busy_until = now + self.pn532_poll_s
                frame = pn532.encode(pn532.CHIP_TFI, reply)
                self.schedule(self.pn532_poll_s, lambda: self._write_noisy(frame))
                return
        else:
            reply = bytes([code + 1])
        self._write_noisy(pn532.encode(pn532.CHIP_TFI, reply))
