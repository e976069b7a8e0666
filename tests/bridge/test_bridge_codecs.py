"""Codec-level checks: CRC check value, COBS, frame layout, and the worked examples of
each reader's wire format (PROTOCOL.md; RDM6300 and PN532 data sheets)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import cobs
from firmware_bridge import protocol as P
from firmware_bridge.crc import CHECK_VALUE, crc16_ccitt_false
from firmware_bridge.drivers import pn532, rdm6300
from firmware_bridge.errors import FrameError


def test_crc_check_value():
    assert crc16_ccitt_false(b"123456789") == CHECK_VALUE == 0x29B1


@pytest.mark.parametrize(
    "raw, enc",
    [("00", "0101"), ("0000", "010101"), ("001100", "01021101"), ("11220033", "0311220233"), ("11223344", "0511223344")],
)
def test_cobs_worked_examples(raw, enc):
    assert cobs.encode(bytes.fromhex(raw)) == bytes.fromhex(enc)
    assert cobs.decode(bytes.fromhex(enc)) == bytes.fromhex(raw)


@given(st.binary(max_size=700))
def test_cobs_round_trip_has_no_zero(data):
    enc = cobs.encode(data)
    assert 0 not in enc
    assert cobs.decode(enc) == data


def test_protocol_md_worked_example_tag_frame():
    wire = P.encode_frame(P.tag_frame(1, bytes.fromhex("04A1B2C3")))
    assert wire == bytes.fromhex("030201080404A1B2C35EE200")


def test_payload_too_long_is_refused():
    with pytest.raises(FrameError) as e:
        P.encode_frame(P.Frame(P.TAG, 1, bytes(P.MAX_PAYLOAD + 1)))
    assert e.value.kind == "length"


def test_rdm6300_worked_example():
    tag = bytes.fromhex("13005D1DA5")
    assert rdm6300.checksum(tag) == 0xF6
    frame = rdm6300.encode(tag)
    assert frame == b"\x0213005D1DA5F6\x03"
    assert rdm6300.decode(frame) == "13005D1DA5"
    with pytest.raises(FrameError) as e:
        rdm6300.decode(b"\x0213005D1DA5F7\x03")
    assert e.value.kind == "checksum"


def test_pn532_worked_example():
    assert pn532.command(pn532.CMD_GET_FIRMWARE_VERSION) == bytes.fromhex("0000FF02FED4022A00")
    frames = pn532.FrameParser().feed(bytes.fromhex("0000FF02FED4022A00"))
    assert frames == [pn532.PN532Frame("data", 0xD4, b"\x02")]
    assert pn532.FrameParser().feed(pn532.ACK) == [pn532.PN532Frame("ack")]


def test_pn532_bad_checksums_are_errors_not_frames():
    bad_lcs = bytes.fromhex("0000FF02FDD4022A00")
    bad_dcs = bytes.fromhex("0000FF02FED4022B00")
    kinds = [getattr(x, "kind", None) for x in pn532.FrameParser().feed(bad_lcs + bad_dcs)]
    assert kinds == ["length", "checksum"]


def test_pn532_target_list_with_seven_byte_uid():
    data = bytes.fromhex("4B01010044000704A1B2C3D4E5F6")
    assert pn532.parse_targets(data) == ["04A1B2C3D4E5F6"]
