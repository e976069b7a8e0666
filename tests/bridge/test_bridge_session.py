"""HELLO with board id and health, old HELLOs, the reader position and its state file."""

from __future__ import annotations

import pytest

from firmware_bridge import protocol as P
from firmware_bridge.cursor import Cursor, CursorFile
from firmware_bridge.drivers.base import Notice, Ready, TagSeen
from firmware_bridge.drivers.companion import CompanionDriver


def wire(*frames):
    return b"".join(P.encode_frame(f) for f in frames)


def test_hello_fields_old_and_new():
    new = P.parse_hello(P.hello_frame(7, 12, 3, board_id=0xCAFEF00D, health=0x02))
    assert (new.boot_id, new.last_seq, new.oldest_seq, new.board_id, new.health) == (7, 12, 3, 0xCAFEF00D, 2)
    old = P.parse_hello(P.hello_frame(7, 12, 3))
    assert old.board_id is None and old.health is None
    other = P.parse_hello(P.Frame(P.HELLO, 0, b"\x02"))  # protocol 2 may lay out the rest differently
    assert other.protocol == 2
    assert P.describe_health(None) == "unknown (old firmware)" and P.describe_health(0) == "ok"
    assert "does not answer" in P.describe_health(1) and "unknown health flags 0x80" in P.describe_health(0x80)


def test_heartbeat_health_change_is_a_notice():
    d = CompanionDriver()
    d.on_open(0.0)
    d.feed(wire(P.hello_frame(1, 0, 0, board_id=5, health=0)), 0.0)
    out = d.feed(wire(P.heartbeat_frame(0, 1000, health=1)), 1.0)
    assert [r.kind for r in out if isinstance(r, Notice)] == ["health"]
    assert d.feed(wire(P.heartbeat_frame(0, 2000, health=1)), 2.0) == []  # said once


def test_resume_asks_only_for_newer_events_and_stamps_each_event():
    d = CompanionDriver()
    d.resume(Cursor(5, 2, 40))
    d.on_open(0.0)
    out = d.feed(wire(P.hello_frame(2, 43, 20, board_id=5, health=0)), 0.0)
    assert any(isinstance(r, Ready) for r in out) and not any(isinstance(r, Notice) for r in out)
    sent = P.FrameSplitter().feed(d.poll(0.0))
    assert [(f.type, f.payload) for f in sent] == [(P.RESEND, (41).to_bytes(2, "little"))]
    got = d.feed(wire(P.tag_frame(41, b"\x04\x01\x02\x03")), 0.01)
    assert got == [TagSeen("04010203")] and got[0].at == Cursor(5, 2, 41)


def test_first_contact_without_a_position_skips_what_the_ring_held():
    d = CompanionDriver()
    d.on_open(0.0)
    out = d.feed(wire(P.hello_frame(1, 9, 1, board_id=5, health=0)), 0.0)
    assert [r.kind for r in out if isinstance(r, Notice)] == ["skipped"]
    assert not P.FrameSplitter().feed(d.poll(0.0))  # no RESEND of old draws
    assert d.feed(wire(P.tag_frame(10, b"\x04\x00\x00\x0a")), 0.1) == [TagSeen("0400000A")]


def test_cursor_file_round_trip_and_damage(tmp_path):
    f = CursorFile(tmp_path / "s" / "cursor.json")
    assert f.load() is None
    f.save(Cursor(0xCAFEF00D, 3, 65535))
    assert f.load() == Cursor(0xCAFEF00D, 3, 65535)
    f.path.write_text('{"board": 0, "boot": 1, "seq": 2}')
    with pytest.raises(ValueError, match="board must be"):
        f.load()
    f.path.write_text("not json")
    with pytest.raises(ValueError, match="not a reader cursor"):
        f.load()
