"""Issue 11, items 5 to 9, on real ptys: a wrong firmware version, junk floods, discovery
among several adapters, a slow PN532, and a reader loop that meets an exception or a
write that never completes."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from types import SimpleNamespace

from firmware_bridge import protocol as P
from firmware_bridge.discovery import Discovery
from firmware_bridge.drivers.companion import CompanionDriver
from firmware_bridge.events import as_dict
from firmware_bridge.reader import BagReader
from firmware_bridge.virtual import VirtualReader
from lockstep import CountingPN532, Lockstep, SteppedClock

FAST_BOOT = (0.05, 0.2)


class StrayPort:
    """A pty that is not the reader: silent, or sending random bytes at about 115200 baud
    (another device, or the reader at a wrong baud rate)."""

    def __init__(self, junk: bool, seed: int = 3):
        self.master, slave = os.openpty()
        self.port = os.ttyname(slave)
        os.close(slave)
        os.set_blocking(self.master, False)
        self._rng = random.Random(seed)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True) if junk else None

    def _run(self):
        while not self._stop.is_set():
            try:
                # ~11.5 kB/s, a third of it zeros: thousands of broken "frames" a second
                os.write(self.master, bytes(0 if self._rng.random() < 0.3 else self._rng.randrange(1, 256)
                                            for _ in range(115)))
                while True:  # drain what the host sends
                    os.read(self.master, 4096)
            except OSError:
                pass
            time.sleep(0.01)

    def __enter__(self):
        if self._thread:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread:
            self._thread.join(1)
        os.close(self.master)


def test_wrong_protocol_is_one_clear_message_on_the_dashboard_status(make_rig, collector):
    from companion.setup import GameConfig
    from companion.table.live import LiveTable
    from companion.table.session import TableSession

    session = TableSession.start(GameConfig(), None, seed=1)
    live = LiveTable(session, reader=object())
    got = collector()
    with VirtualReader("companion", protocol=2, bootloader_s=FAST_BOOT, heartbeat_ms=200) as dev:
        def sink(ev):
            got.q.put_nowait(ev)
            live.on_reader_event(as_dict(ev))

        reader = BagReader(CompanionDriver(), lambda: dev.port or None, sink).start()
        try:
            assert got.wait(lambda g: g.of("frame_error"), timeout=5)
            time.sleep(2.0)  # the old host reported this every 0.5 s, forever
            errors = got.of("frame_error")
            assert [e.kind for e in errors] == ["version"]
            assert "speaks protocol 2, this companion speaks 1" in errors[0].detail
            assert "make -C hardware flash" in errors[0].detail
            assert not reader.connected.is_set() and reader.status["state"] == "wrong_firmware"
            assert session.status["reader"] == "wrong firmware"
            assert not got.of("reader_disconnected")  # it stays on the port it found
        finally:
            reader.stop()


def test_junk_is_counted_per_second_and_the_port_is_given_up(collector):
    got = collector()
    with StrayPort(junk=True) as stray:
        driver = CompanionDriver()
        driver.handshake_timeout = 1.5
        reader = BagReader(driver, stray.port, got.q.put_nowait).start()
        try:
            assert got.wait(lambda g: g.of("reader_disconnected"), timeout=5)
        finally:
            reader.stop()
    errors = got.of("frame_error")
    total = sum(e.count for e in errors)
    assert total >= 1000  # the junk was seen...
    assert len(errors) <= 12  # ...as a few events, not thousands
    reason = got.of("reader_disconnected")[0].reason
    assert reason.startswith("no answer") and "no valid frame" in reason


def test_discovery_skips_a_silent_adapter_and_remembers_the_reader(tmp_path, collector):
    memory = tmp_path / "reader-port.json"
    got = collector()
    with StrayPort(junk=False) as silent, VirtualReader("companion", bootloader_s=FAST_BOOT) as dev:
        def comports():
            return [SimpleNamespace(device=silent.port, vid=0x1A86, pid=0x7523, serial_number=None),
                    SimpleNamespace(device=dev.port, vid=0x1A86, pid=0x55D4, serial_number="CH9102-0042")]

        disc = Discovery(memory=memory, comports=comports)
        assert disc.candidates() == [silent.port, dev.port]  # the CH340 ranks first
        driver = CompanionDriver()
        driver.handshake_timeout = 1.0
        t0 = time.monotonic()
        reader = BagReader(driver, disc, got.q.put_nowait).start()
        try:
            assert reader.connected.wait(6)
            took = time.monotonic() - t0
            assert got.of("reader_connected")[0].port == dev.port
            assert took < 4.0
        finally:
            reader.stop()
        assert json.loads(memory.read_text())["serial_number"] == "CH9102-0042"
        again = Discovery(memory=memory, comports=comports)
        assert again() == dev.port  # next time the remembered reader is tried first


def test_a_pn532_that_takes_a_second_per_poll_gets_one_command_at_a_time(collector):
    # host and chip on one clock the test moves on (tests/bridge/lockstep.py): the chip's
    # second per poll and the driver's timeouts are seconds of that clock, whatever the load
    clock = SteppedClock()
    got = collector()
    driver = CountingPN532()
    with VirtualReader("pn532", pn532_poll_s=1.0, present_ms=2500, bootloader_s=FAST_BOOT, clock=clock) as dev:
        reader = BagReader(driver, lambda: dev.port or None, got.q.put_nowait, lambda uid: "P03.G2", clock=clock).start()
        try:
            link = Lockstep(clock, dev, driver, host_thread="bag-reader-pn532", dev_thread="virtual-pn532")
            connected = link.run_until(reader.connected.is_set, limit=8.0)
            link.run(0.2)
            dev.draw(bytes.fromhex("04A1B2C3"))             # rests on the reader for 2.5 s: several polls
            lag = link.run_until(lambda: got.of("tile_drawn"), limit=5.0)
            link.run(1.5)
            assert [e.uid for e in got.of("tile_drawn")] == ["04A1B2C3"]      # one draw, however many polls saw it
            assert connected < 3.0                           # was 8 s, or never
            assert lag <= 2 * 1.0 + 2 * link.step            # at most the poll in progress plus the next one (was 5 s)
            assert dev.pn532_overlaps == 0                   # no command sent into a busy chip
            assert driver.retries == 0                       # nor sent again while the chip worked
            assert not got.of("frame_error")
        finally:
            reader.stop()


class BuggyDriver(CompanionDriver):
    """A companion driver whose decoder fails once, as a bug would."""

    failed = False

    def feed(self, data, now):
        if self._hello_seen and not self.failed:
            self.failed = True
            raise TypeError("'NoneType' object cannot be interpreted as an integer")
        return super().feed(data, now)


def test_an_exception_in_the_reader_loop_is_reported_and_the_reader_reconnects(collector):
    got = collector()
    with VirtualReader("companion", bootloader_s=FAST_BOOT, heartbeat_ms=100) as dev:
        reader = BagReader(BuggyDriver(), lambda: dev.port or None, got.q.put_nowait).start()
        try:
            assert got.wait(lambda g: g.of("reader_disconnected"), timeout=5)
            reason = got.of("reader_disconnected")[0].reason
            assert "TypeError" in reason and "internal error" in reason
            assert got.wait(lambda g: len(g.of("reader_connected")) == 2, timeout=5)
            dev.draw(bytes.fromhex("04A1B2C3"))
            assert got.wait(lambda g: g.tags() == ["04A1B2C3"])
        finally:
            reader.stop()


def test_stop_returns_when_the_board_stops_reading(collector):
    got = collector()
    dev = VirtualReader("companion", bootloader_s=FAST_BOOT).start()
    reader = BagReader(CompanionDriver(), lambda: dev.port or None, got.q.put_nowait).start()
    try:
        assert reader.connected.wait(5)
        dev._stop.set()  # the device side hangs: nobody drains the port any more
        dev._thread.join(2)
        for _ in range(30000):  # about 400 kB of commands: far more than the pty buffers
            reader.send(P.set_led(1, 2, 3))
        assert got.wait(lambda g: g.of("reader_disconnected"), timeout=5)
        assert "io error" in got.of("reader_disconnected")[0].reason
        t0 = time.monotonic()
        reader.stop(timeout=3)
        assert time.monotonic() - t0 < 2 and not reader._thread.is_alive()
    finally:
        dev.stop()


def test_a_failing_event_consumer_is_reported_and_the_reader_goes_on(capsys, collector):
    got = collector()
    calls = []

    def sink(ev):
        if ev.event == "unknown_tag" and not calls:
            calls.append(ev)
            raise RuntimeError("the game could not take it")
        got.q.put_nowait(ev)

    with VirtualReader("companion", bootloader_s=FAST_BOOT) as dev:
        reader = BagReader(CompanionDriver(), lambda: dev.port or None, sink).start()
        try:
            assert reader.connected.wait(5)
            dev.draw(bytes.fromhex("04A1B2C3"))
            dev.draw(bytes.fromhex("04D4E5F6"))
            assert got.wait(lambda g: g.tags() == ["04D4E5F6"])
            assert reader.connected.is_set() and reader._thread.is_alive()
        finally:
            reader.stop()
    assert "the consumer of its events failed on unknown_tag" in capsys.readouterr().err
