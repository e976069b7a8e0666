"""Issue 11, items 1 and 4, on real ptys: opening the port must not reset the board, a reset
that does happen (a replugged cable) keeps the board's ring, and a cold start, a replacement
board or a numbering that went backwards is a new session whose draws are all delivered."""

from __future__ import annotations

import termios
import time

import serial

from firmware_bridge.cursor import Cursor
from firmware_bridge.drivers.companion import CompanionDriver
from firmware_bridge.port import open_port
from firmware_bridge.reader import BagReader
from firmware_bridge.virtual import VirtualReader

FAST_BOOT = (0.05, 0.2)  # bootloader seconds where the reset's length does not matter

A, B, C = bytes.fromhex("04A1B2C3"), bytes.fromhex("04D4E5F6"), bytes.fromhex("0B0C0D0E")


def wait_until(pred, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


def test_plain_pyserial_reopen_resets_the_board_but_open_port_does_not():
    with VirtualReader("companion", bootloader_s=FAST_BOOT) as dev:
        ser = serial.Serial(dev.port, 115200, timeout=0.05)  # the old way: HUPCL left set
        assert wait_until(lambda: dev.resets == 1)  # the first open after plugging in resets
        ser.close()
        time.sleep(0.05)
        ser = serial.Serial(dev.port, 115200, timeout=0.05)
        assert wait_until(lambda: dev.resets == 2), "closing dropped DTR, so the reopen reset the board"
        ser.close()
        time.sleep(0.05)

        ser = open_port(dev.port, 115200, timeout=0.05)
        assert wait_until(lambda: dev.resets == 3)  # DTR was down: this open still resets once
        assert not termios.tcgetattr(ser.fd)[2] & termios.HUPCL
        ser.close()
        for _ in range(3):  # from now on close and reopen leave DTR up: no reset
            time.sleep(0.05)
            ser = open_port(dev.port, 115200, timeout=0.05)
            time.sleep(0.05)
            ser.close()
        time.sleep(0.05)
        assert dev.resets == 3


def test_usb_drop_resets_the_board_on_replug_and_its_ring_brings_every_draw(make_rig):
    uids = [bytes([4, 9, 0, i]) for i in range(12)]
    with make_rig("companion", heartbeat_ms=200, bootloader_s=(0.5, 0.8)) as (dev, reader, got):
        boot = got.of("reader_connected")[0].info["boot_id"]
        for u in uids[:3]:
            dev.draw(u)
        assert got.wait(lambda g: len(g.tags()) == 3)
        resets = dev.resets
        dev.unplug()  # the USB link drops; the board keeps its power and keeps reading
        for u in uids[3:9]:
            dev.draw(u)
        assert got.wait(lambda g: g.of("reader_disconnected"))
        dev.replug()  # a new port: the host's open asserts DTR and resets the board
        assert wait_until(lambda: dev.booting)
        dev.draw(uids[9])  # during the bootloader: read when the firmware starts
        assert got.wait(lambda g: len(g.of("reader_connected")) == 2, timeout=6)
        # the tile held over the reader through the bootloader comes first, once
        assert got.wait(lambda g: len(g.tags()) == 10, timeout=5)
        for u in uids[10:]:
            dev.draw(u)
        assert got.wait(lambda g: len(g.tags()) >= 12, timeout=5)
        time.sleep(0.3)
        assert dev.resets == resets + 1
        assert got.tags() == [u.hex().upper() for u in uids]  # each once, in order
        assert got.of("reader_connected")[1].info["boot_id"] == boot  # a warm reset
        assert not got.of("frame_error")


def test_power_loss_starts_a_new_session_and_says_so(make_rig):
    with make_rig("companion", heartbeat_ms=100) as (dev, reader, got):
        for i in range(3):
            dev.draw(bytes([4, 1, 0, i]))
        assert got.wait(lambda g: len(g.tags()) == 3)
        dev.power_cycle()
        time.sleep(0.4)
        dev.draw(bytes([4, 2, 0, 0]))
        assert got.wait(lambda g: len(g.tags()) == 4)
        assert [n.kind for n in got.of("reader_notice")] == ["new_boot"]


def test_a_replacement_board_with_a_fresh_eeprom_has_every_draw_delivered(collector):
    got = collector()
    old = VirtualReader("companion", boot_id=0, board_id=0x11111111, bootloader_s=FAST_BOOT).start()
    new = VirtualReader("companion", boot_id=0, board_id=0x22222222, bootloader_s=FAST_BOOT)
    current = [old]
    reader = BagReader(CompanionDriver(), lambda: current[0].port or None, got.q.put_nowait).start()
    try:
        assert reader.connected.wait(5)
        for i in range(5):
            old.draw(bytes([4, 0, 0, i]))
        assert got.wait(lambda g: len(g.tags()) == 5)
        old.stop()  # swapped for a new board: same boot id 0, numbering from 1 again
        new.start()
        current[0] = new
        assert got.wait(lambda g: len(g.of("reader_connected")) == 2, timeout=6)
        for i in range(3):
            new.draw(bytes([4, 7, 0, i]))
        assert got.wait(lambda g: len(g.tags()) == 8)
        time.sleep(0.2)
        assert got.tags()[5:] == ["04070000", "04070001", "04070002"]
        assert [n.kind for n in got.of("reader_notice")] == ["new_board"]
    finally:
        reader.stop()
        new.stop()


def test_numbering_that_went_back_under_the_same_ids_is_a_new_session_not_old_events(make_rig):
    with make_rig("companion", heartbeat_ms=100) as (dev, reader, got):
        for i in range(6):
            dev.draw(bytes([4, 5, 0, i]))
        assert got.wait(lambda g: len(g.tags()) == 6)
        with dev._lock:  # a board that lost its ring without counting a boot (EEPROM failed)
            dev.last_seq = 0
            dev._ring.clear()
        dev.draw(bytes([4, 6, 0, 0]))  # seq 1 again
        dev.draw(bytes([4, 6, 0, 1]))
        assert got.wait(lambda g: len(g.tags()) == 8, timeout=5)
        assert got.tags()[6:] == ["04060000", "04060001"]
        assert "seq_restart" in [n.kind for n in got.of("reader_notice")]


def test_old_firmware_without_board_id_or_health_still_works(make_rig):
    with make_rig("companion", legacy_hello=True) as (dev, reader, got):
        info = got.of("reader_connected")[0].info
        assert info["board_id"] is None and info["health"] == "unknown (old firmware)"
        dev.draw(A)
        assert got.wait(lambda g: g.tags() == [A.hex().upper()])


def test_a_board_without_its_rfid_chip_says_so(make_rig):
    with make_rig("companion", health=0x01) as (dev, reader, got):
        info = got.of("reader_connected")[0].info
        assert "does not answer" in info["health"]
        assert "does not answer" in reader.status["health"]
        assert any(n.kind == "health" for n in got.of("reader_notice"))


def test_a_restarted_host_resumes_after_what_it_delivered_without_resetting_the_board(collector):
    with VirtualReader("companion", bootloader_s=FAST_BOOT) as dev:
        got = collector()
        driver = CompanionDriver()
        reader = BagReader(driver, lambda: dev.port or None, got.q.put_nowait).start()
        assert reader.connected.wait(5)
        for u in (A, B):
            dev.draw(u)
        assert got.wait(lambda g: len(g.tags()) == 2)
        saved = Cursor.from_json(got.of("unknown_tag")[-1].reader)
        reader.stop()  # the host goes away; the board keeps its ring
        resets = dev.resets
        dev.draw(C)  # drawn while no host runs
        again = collector()
        d2 = CompanionDriver()
        d2.resume(saved)
        r2 = BagReader(d2, lambda: dev.port or None, again.q.put_nowait).start()
        try:
            assert r2.connected.wait(5)
            assert again.wait(lambda g: g.tags())
            time.sleep(0.3)
            assert again.tags() == [C.hex().upper()]  # not A and B again
            assert dev.resets == resets  # DTR stayed up: no reset on the reopen
        finally:
            r2.stop()


def test_numbering_wraps_from_65535_to_1_across_a_usb_drop(collector):
    uids = [bytes([4, 0xEE, 0, i]) for i in range(12)]
    got = collector()
    dev = VirtualReader("companion", bootloader_s=FAST_BOOT, heartbeat_ms=150)
    dev.last_seq = 65530  # a long session
    dev.start()
    reader = BagReader(CompanionDriver(), lambda: dev.port or None, got.q.put_nowait).start()
    try:
        assert reader.connected.wait(5)
        for u in uids[:3]:
            dev.draw(u)  # 65531..65533
        assert got.wait(lambda g: len(g.tags()) == 3)
        dev.unplug()
        for u in uids[3:9]:
            dev.draw(u)  # 65534, 65535, 1, 2, 3, 4 while the link is down
        assert got.wait(lambda g: g.of("reader_disconnected"))
        dev.replug()
        for u in uids[9:]:
            dev.draw(u)
        assert got.wait(lambda g: len(g.tags()) >= 12, timeout=6)
        time.sleep(0.3)
        assert got.tags() == [u.hex().upper() for u in uids]
        assert got.of("unknown_tag")[-1].reader["seq"] == 7
    finally:
        reader.stop()
        dev.stop()
