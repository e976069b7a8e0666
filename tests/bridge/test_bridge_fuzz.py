"""Hypothesis fuzz of every decoder: arbitrary bytes never raise anything but the bridge's
own FrameError, and never produce a tag that was not sent; real frames separated by noise
are all still found, whatever the chunking."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as P
from firmware_bridge.drivers import make_driver, pn532, rdm6300
from firmware_bridge.drivers.base import ButtonSeen, Ready, TagSeen
from firmware_bridge.errors import BridgeError, FrameError

DRIVERS = ["companion", "rdm6300", "pn532"]
uids4 = st.binary(min_size=4, max_size=4)
uids5 = st.binary(min_size=5, max_size=5)


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:])]


def _feed_all(name: str, chunks: list[bytes]) -> list:
    d = make_driver(name)
    d.on_open(0.0)
    out = []
    for c in chunks:
        out += d.feed(c, 0.0)
    return out


@settings(max_examples=300)
@given(st.sampled_from(DRIVERS), st.binary(max_size=400), st.lists(st.integers(0, 400), max_size=8))
def test_garbage_never_raises_and_never_invents_a_tag(name, data, cuts):
    out = _feed_all(name, _chunks(data, cuts))
    assert all(isinstance(r, (FrameError, Ready, ButtonSeen)) for r in out)
    assert not any(isinstance(r, TagSeen) for r in out)


@given(st.binary(max_size=120))
def test_frame_decoders_raise_only_frame_error(block):
    for decode in (P.decode_frame, rdm6300.decode, lambda b: pn532.parse_targets(b)):
        try:
            decode(block)
        except FrameError:
            pass
        except BridgeError:  # pragma: no cover - would be a wrong error subtype
            raise AssertionError("decoder raised a non-frame bridge error")


def _pn532_reply(uid: bytes) -> bytes:
    return pn532.encode(pn532.CHIP_TFI, bytes([0x4B, 1, 1, 0, 4, 8, 4]) + uid)


# driver -> (UID strategy, stream prefix, (index, uid, noise) -> bytes of one draw)
STREAMS = {
    "rdm6300": (uids5, b"", lambda i, uid, junk: junk + rdm6300.encode(uid)),
    "pn532": (uids4, b"", lambda i, uid, junk: junk + _pn532_reply(uid)),
    # COBS resynchronises at the delimiter, so noise there is a block of its own
    "companion": (uids4, P.encode_frame(P.hello_frame(1, 0, 0)),
                  lambda i, uid, junk: junk + b"\x00" + P.encode_frame(P.tag_frame(i + 1, uid))),
}


@settings(max_examples=150)
@given(st.data(), st.sampled_from(sorted(STREAMS)), st.lists(st.binary(max_size=20), min_size=7, max_size=7),
       st.lists(st.integers(0, 300), max_size=6))
def test_every_frame_between_noise_is_found_once_in_order(data, name, noise, cuts):
    uid_strategy, prefix, one = STREAMS[name]
    # a polled PN532 reports a tag on arrival: the same UID in back-to-back polls is one read
    tags = data.draw(st.lists(uid_strategy, min_size=1, max_size=6, unique=name == "pn532"))
    stream = prefix + b"".join(one(i, t, noise[i]) for i, t in enumerate(tags)) + noise[-1]
    got = [r.uid for r in _feed_all(name, _chunks(stream, cuts)) if isinstance(r, TagSeen)]
    assert got == [t.hex().upper() for t in tags]
