"""The join QR code (segno): as inline SVG for the page, as text for the terminal."""

from __future__ import annotations

import io

import segno


def qr_svg(url: str, scale: int = 6) -> str:
    """The QR code of ``url`` as an SVG document (dark modules on white, 4-module border)."""
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=scale, border=4, dark="#000", light="#fff",
                                    xmldecl=False, svgns=True, title=f"Join: {url}")
    return buf.getvalue().decode()


def qr_text(url: str) -> str:
    """The QR code of ``url`` drawn with half-block characters, for a terminal (dark text on a
    light background and the reverse both scan, thanks to the quiet zone)."""
    buf = io.StringIO()
    segno.make(url, error="m").terminal(out=buf, compact=True, border=2)
    return buf.getvalue()
