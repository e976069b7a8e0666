"""End-to-end through real pseudo-terminals: the virtual reader on one side, the bridge
with pyserial on the other.  Covers the worked examples per driver, the 300 ms hold,
noise and dropped bytes, unplug/replug with replay, board resets, and LED/beep commands."""

from __future__ import annotations

import time

from firmware_bridge import protocol as P
from firmware_bridge.drivers import pn532
from firmware_bridge.drivers.companion import beep_frame, led_frame

REGISTRY = {"13005D1DA5": "P03", "04A1B2C3": "G1.P03", "04A1B2C3D4E5F6": "ROCK"}


def test_rdm6300_worked_example_over_pty(make_rig):
    with make_rig("rdm6300", REGISTRY.get) as (dev, reader, got):
        dev.draw(bytes.fromhex("13005D1DA5"))
        assert got.wait(lambda g: g.of("tile_drawn"))
        ev = got.of("tile_drawn")[0]
        assert (ev.uid, ev.tile) == ("13005D1DA5", "P03")


def test_rdm6300_tag_held_in_field_is_one_event_and_a_redraw_is_another(make_rig):
    with make_rig("rdm6300", REGISTRY.get, repeat_ms=60, present_ms=600) as (dev, reader, got):
        tag = bytes.fromhex("13005D1DA5")
        dev.draw(tag)  # repeats every 60 ms for 600 ms
        time.sleep(1.1)  # leaves the field, > 300 ms gap
        dev.draw(tag)
        time.sleep(0.3)
        assert got.tags() == ["13005D1DA5", "13005D1DA5"]


def test_rdm6300_survives_garbage_and_partial_frames(make_rig):
    with make_rig("rdm6300", REGISTRY.get, present_ms=0) as (dev, reader, got):
        dev.inject(b"\xff\x00junk\x0213005D")  # a frame cut short, then noise
        dev.draw(bytes.fromhex("13005D1DA5"))
        assert got.wait(lambda g: g.tags())
        assert got.tags() == ["13005D1DA5"]
        assert got.wait(lambda g: g.of("frame_error"))


def test_pn532_handshake_sends_the_worked_example_and_reads_a_tag(make_rig):
    # the tag stays in the field 600 ms, as a tile passing the reader does: the default 150 ms
    # is three polls, which a loaded machine's scheduler can all delay (this test is about the
    # handshake and the read, not the polling rate)
    with make_rig("pn532", REGISTRY.get, present_ms=600) as (dev, reader, got):
        assert bytes.fromhex("0000FF02FED4022A00") in dev.received
        connected = got.of("reader_connected")[0]
        assert connected.info == {"ic": "PN532", "firmware": "1.6"}
        dev.draw(bytes.fromhex("04A1B2C3D4E5F6"))
        assert got.wait(lambda g: g.of("tile_drawn"))
        time.sleep(0.3)
        assert [(e.uid, e.tile) for e in got.of("tile_drawn")] == [("04A1B2C3D4E5F6", "ROCK")]
        assert pn532.PN532Driver.POLL in dev.received


def test_companion_draws_and_button_in_order(make_rig):
    with make_rig("companion", REGISTRY.get) as (dev, reader, got):
        dev.draw(bytes.fromhex("04A1B2C3"))
        dev.press("long")
        dev.draw(bytes.fromhex("0BADCAFE"))
        assert got.wait(lambda g: len(g.tags()) == 2 and g.of("button"))
        assert [(e.uid, e.tile) for e in got.of("tile_drawn")] == [("04A1B2C3", "G1.P03")]
        assert [e.uid for e in got.of("unknown_tag")] == ["0BADCAFE"]
        assert got.of("button")[0].kind == "long"


def test_companion_noise_and_dropped_bytes_lose_nothing(make_rig):
    uids = [i.to_bytes(4, "big") for i in range(0x04000000, 0x04000000 + 60)]
    # about one frame in four is corrupted; draws come at 50 per second
    with make_rig("companion", noise=0.15, drop=0.1, seed=7, heartbeat_ms=100) as (dev, reader, got):
        for u in uids:
            dev.draw(u)
            time.sleep(0.02)
        assert got.wait(lambda g: len(g.tags()) >= 60, timeout=10)
        time.sleep(0.3)
        assert got.tags() == [u.hex().upper() for u in uids]  # each once, in order
        assert got.of("frame_error")  # the corruption was seen and reported


def test_companion_unplug_replug_mid_stream_loses_no_draw(make_rig):
    uids = [bytes([4, 0, 0, i]) for i in range(1, 21)]
    with make_rig("companion", heartbeat_ms=200) as (dev, reader, got):
        for u in uids[:5]:
            dev.draw(u)
        assert got.wait(lambda g: len(g.tags()) == 5)
        dev.unplug()
        for u in uids[5:15]:  # drawn while the cable is out
            dev.draw(u)
        assert got.wait(lambda g: g.of("reader_disconnected"))
        dev.replug()
        for u in uids[15:]:
            dev.draw(u)
        assert got.wait(lambda g: len(g.tags()) >= 20, timeout=5)
        time.sleep(0.3)
        assert got.tags() == [u.hex().upper() for u in uids]
        assert len(got.of("reader_connected")) == 2


def test_companion_board_reset_restarts_numbering_without_losing_new_draws(make_rig):
    with make_rig("companion", heartbeat_ms=100) as (dev, reader, got):
        for i in range(3):
            dev.draw(bytes([4, 1, 0, i]))
        assert got.wait(lambda g: len(g.tags()) == 3)
        dev.reboot()
        dev.draw(bytes([4, 2, 0, 0]))
        assert got.wait(lambda g: len(g.tags()) == 4)
        time.sleep(0.3)
        assert got.tags()[-1] == "04020000" and len(got.tags()) == 4


def test_companion_replay_gap_is_reported_and_the_kept_draws_arrive(make_rig):
    with make_rig("companion", heartbeat_ms=100) as (dev, reader, got):
        dev.unplug()
        assert got.wait(lambda g: g.of("reader_disconnected"))
        uids = [bytes([4, 3, 0, i]) for i in range(40)]  # more than the 32 the board keeps
        for u in uids:
            dev.draw(u)
        dev.replug()
        assert got.wait(lambda g: len(g.tags()) >= 32, timeout=5)
        time.sleep(0.3)
        assert got.tags() == [u.hex().upper() for u in uids[-32:]]
        assert [e.kind for e in got.of("frame_error")] == ["replay_gap"]


def test_led_and_beep_commands_reach_the_board(make_rig):
    with make_rig("companion") as (dev, reader, got):
        reader.send(led_frame(255, 0, 0, 500))
        reader.send(beep_frame(2000, 150))
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and len([c for c in dev.commands if c.type in (P.SET_LED, P.BEEP)]) < 2:
            time.sleep(0.01)
        cmds = [c for c in dev.commands if c.type in (P.SET_LED, P.BEEP)]
        assert [(c.type, c.payload) for c in cmds] == [
            (P.SET_LED, bytes([255, 0, 0, 0xF4, 0x01])),
            (P.BEEP, bytes([0xD0, 0x07, 0x96, 0x00])),
        ]
        assert not got.of("frame_error")
