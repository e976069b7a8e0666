"""Consistent Overhead Byte Stuffing (PROTOCOL.md section 2).

COBS rewrites a frame so it contains no ``0x00`` byte, costing one byte per started run of
254 data bytes; a single ``0x00`` then marks the end of each frame on the wire.
"""

from __future__ import annotations

from firmware_bridge.errors import FrameError


def encode(data: bytes) -> bytes:
    """COBS-encode ``data`` (no trailing delimiter).  Output is ``len(data) + 1`` bytes
    plus one more for every 254 non-zero data bytes in a row."""
    out = bytearray()
    code_index = 0
    out.append(0)
    code = 1
    for b in data:
        if b == 0:
            out[code_index] = code
            code_index = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_index] = code
                code_index = len(out)
                out.append(0)
                code = 1
    out[code_index] = code
    return bytes(out)


def decode(data: bytes) -> bytes:
    """Invert :func:`encode`.  ``data`` excludes the ``0x00`` delimiter.

    Raises :class:`FrameError` (kind ``"cobs"``) for an empty block, a zero byte inside the
    block, or a code byte that points past the end.
    """
    if not data:
        raise FrameError("cobs", "empty COBS block")
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("cobs", f"zero byte inside COBS block at offset {i}")
        end = i + code
        if end > n:
            raise FrameError("cobs", f"COBS code {code} at offset {i} runs past the block end ({n} bytes)")
        chunk = data[i + 1 : end]
        if 0 in chunk:
            raise FrameError("cobs", f"zero byte inside COBS block near offset {i}")
        out += chunk
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
