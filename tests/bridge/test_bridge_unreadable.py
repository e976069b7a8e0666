"""Frames that pass their CRC but cannot be read (PROTOCOL.md section 8): a newer
firmware's frame type, a BUTTON with an unknown kind, a TAG with a bad uid_len.  Each is
reported once, its seq is passed, and later draws arrive; RESEND requests never flood."""

from __future__ import annotations

import time

import pytest

from firmware_bridge import protocol as P
from firmware_bridge.drivers.base import TagSeen
from firmware_bridge.drivers.companion import RESEND_MIN_GAP, CompanionDriver
from firmware_bridge.errors import FrameError

A, B = bytes.fromhex("04A1B2C3"), bytes.fromhex("0BADCAFE")


@pytest.mark.parametrize(
    "ftype, payload, kind",
    [(0x7F, b"\x01", "unknown_type"), (P.BUTTON, b"\x09", "button_kind"), (P.TAG, b"\x03\x01\x02\x03", "tag_uid_len")],
)
def test_unreadable_event_is_reported_once_and_the_next_draw_arrives(make_rig, ftype, payload, kind):
    with make_rig("companion", heartbeat_ms=100) as (dev, reader, got):
        dev.draw(A)
        dev.event(ftype, payload)
        time.sleep(0.3)  # heartbeats carrying the unreadable event's seq
        dev.draw(B)
        assert got.wait(lambda g: len(g.tags()) == 2, timeout=3), got.seen
        time.sleep(1.0)  # ten more heartbeats: nothing may be asked for again
        assert got.tags() == [A.hex().upper(), B.hex().upper()]
        assert [e.kind for e in got.of("frame_error")] == [kind]
        assert reader.driver.last_seq == dev.last_seq == 3
        assert len([c for c in dev.commands if c.type == P.RESEND]) <= 2


def test_unknown_non_event_frames_are_reported_once_per_type(make_rig):
    with make_rig("companion", heartbeat_ms=100) as (dev, reader, got):
        for i in range(5):
            dev.frame(0x7E, bytes([i]))  # carries the latest seq, like a heartbeat
            dev.draw(bytes([4, 0, 0, i]))
        assert got.wait(lambda g: len(g.tags()) == 5, timeout=3)
        time.sleep(0.3)
        assert [e.kind for e in got.of("frame_error")] == ["unknown_type"]
        assert not [c for c in dev.commands if c.type == P.RESEND]


# -- the driver on plain bytes ----------------------------------------------------------

def wire(*frames: P.Frame) -> bytes:
    return b"".join(P.encode_frame(f) for f in frames)


def resends(out: bytes) -> list[int]:
    frames = [f for f in P.FrameSplitter().feed(out) if isinstance(f, P.Frame)]
    return [int.from_bytes(f.payload[:2], "little") for f in frames if f.type == P.RESEND]


def test_unknown_frame_ahead_of_a_lost_tag_does_not_take_the_tags_seq():
    d = CompanionDriver()
    d.on_open(0.0)
    assert d.feed(wire(P.hello_frame(1, 0, 0)), 0.0)
    # TAG seq 1 was lost on the wire; a newer firmware's non-event frame says "latest is 1"
    assert d.feed(wire(P.Frame(0x7E, 1, b"\x00")), 0.01) == []
    assert resends(d.poll(0.01)) == [1]
    ack = P.Frame(P.ACK, 1, bytes([P.RESEND, 1, 0]))
    got = d.feed(wire(ack, P.tag_frame(1, A)), 0.02)
    assert got[0] == TagSeen(A.hex().upper())
    assert [e.kind for e in got[1:] if isinstance(e, FrameError)] == ["unknown_type"]
    assert d.last_seq == 1


def test_identical_resend_requests_are_rate_limited():
    d = CompanionDriver()
    d.on_open(0.0)
    d.feed(wire(P.hello_frame(1, 0, 0)), 0.0)
    ack = P.Frame(P.ACK, 3, bytes([P.RESEND, 0, 0]))
    sent: list[tuple[float, int]] = []
    now = 0.0
    while now < 1.0:  # a board that answers every RESEND with an ACK but never the lost seq 1
        d.feed(wire(ack, P.tag_frame(3, A)), now)  # the ACK, then an event still ahead of the gap
        sent += [(now, s) for s in resends(d.poll(now))]
        now += 0.001
    assert [s for _, s in sent] == [1] * len(sent)
    assert 2 <= len(sent) <= 1.0 / RESEND_MIN_GAP + 1
    assert all(b - a >= RESEND_MIN_GAP - 1e-9 for (a, _), (b, _) in zip(sent, sent[1:]))


def test_a_damaged_tag_that_passes_the_crc_is_asked_for_again_not_skipped():
    d = CompanionDriver()
    d.on_open(0.0)
    d.feed(wire(P.hello_frame(1, 0, 0)), 0.0)
    good = P.tag_frame(1, bytes.fromhex("040000C2"))
    damaged = P.encode_frame(good)[:-2] + b"\x00"  # the final 00 of the frame was lost
    assert P.decode_frame(damaged[:-1]).payload == b"\x04\x04\x00\x00"  # the CRC still matches
    assert d.feed(damaged, 0.01) == []
    assert resends(d.poll(0.01)) == [1]
    ack = P.Frame(P.ACK, 1, bytes([P.RESEND, 1, 0]))
    got = d.feed(wire(ack, good), 0.02)
    assert got[0] == TagSeen("040000C2")
    assert [e.kind for e in got[1:]] == ["tag_uid_len"]
    assert d.last_seq == 1
