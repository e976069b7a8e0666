"""Read a photo file whole, or say why it cannot be read.

OpenCV decodes a JPEG cut short (a copy interrupted, a card pulled out while writing) without
an error: libjpeg fills the missing rows with grey and only warns on stderr.  Such a frame
reaches the reader as a board whose lower part is gone, and every later message would be
about markers or pieces.  So the byte stream is checked before decoding:

- JPEG (starts FF D8): the end-of-image marker FF D9 must follow the last start-of-scan
  marker FF DA (ITU-T T.81, B.2.1: a complete interchange stream ends with EOI);
- PNG (the 8-byte signature): the IEND chunk must be present (PNG specification, 11.2.5).

Other formats are left to OpenCV's own decoder.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_START = b"\xff\xd8"
JPEG_SCAN = b"\xff\xda"
JPEG_END = b"\xff\xd9"


def cut_short(data: bytes) -> str | None:
    """Why the image bytes ``data`` are incomplete (a sentence fragment naming the format), or
    ``None`` when they are whole or of a format not checked here."""
    if data.startswith(JPEG_START):
        scan = data.rfind(JPEG_SCAN)
        if scan < 0 or data.find(JPEG_END, scan) < 0:
            return "the JPEG file is cut short (it ends before its end-of-image code)"
    elif data.startswith(PNG_SIGNATURE):
        if data.rfind(b"IEND") < 0:
            return "the PNG file is cut short (it ends before its IEND chunk)"
    return None


def decode_whole(path: str | Path, flags: int = cv2.IMREAD_COLOR) -> tuple[np.ndarray | None, str | None]:
    """(image, None) for a whole image file at ``path``; (None, reason) when it is truncated,
    empty or cannot be decoded.  ``flags``: as for ``cv2.imdecode``.  The image is uint8
    (h, w, 3) BGR for ``IMREAD_COLOR``, (h, w) for ``IMREAD_GRAYSCALE``.  Raises ``OSError``
    when the file cannot be opened."""
    data = Path(path).read_bytes()
    if not data:
        return None, "the file is empty"
    short = cut_short(data)
    if short:
        return None, f"{short}: copy it again from the camera, or take the photo again"
    img = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if img is None or img.size == 0:
        return None, "not an image format OpenCV can decode"
    return img, None
