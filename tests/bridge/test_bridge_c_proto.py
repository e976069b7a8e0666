"""The firmware's plain-C framing module, compiled with the host gcc and checked against
its own unit test and against the Python codec, byte for byte (PROTOCOL.md sections 2-4)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as P

HW = Path(__file__).resolve().parents[2] / "hardware"

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="host gcc not installed: cannot build hardware/firmware/proto.c")


@pytest.fixture(scope="module")
def test_proto(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("proto") / "test_proto"
    subprocess.run(
        ["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(exe),
         str(HW / "test" / "test_proto.c"), str(HW / "firmware" / "proto.c")],
        check=True, capture_output=True, text=True,
    )
    return exe


def test_c_unit_tests_pass(test_proto):
    run = subprocess.run([str(test_proto)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith(", 0 failed")


def _c_encode(exe: Path, f: P.Frame) -> bytes:
    out = subprocess.run([str(exe), "encode", str(f.type), str(f.seq), f.payload.hex() or "-"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return bytes.fromhex(out)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=P.MAX_PAYLOAD))
def test_c_and_python_encode_identically(test_proto, ftype, seq, payload):
    f = P.Frame(ftype, seq, payload)
    wire = P.encode_frame(f)
    assert _c_encode(test_proto, f) == wire
    out = subprocess.run([str(test_proto), "decode", wire[:-1].hex()], capture_output=True, text=True).stdout.split()
    assert out[:3] == ["ok", str(ftype), str(seq)]
    assert bytes.fromhex(out[3] if len(out) > 3 else "") == payload


def test_c_rejects_a_corrupted_frame(test_proto):
    wire = bytearray(P.encode_frame(P.tag_frame(5, bytes.fromhex("04A1B2C3"))))
    wire[4] ^= 0x10
    out = subprocess.run([str(test_proto), "decode", bytes(wire[:-1]).hex()], capture_output=True, text=True).stdout
    assert out.startswith("error")
