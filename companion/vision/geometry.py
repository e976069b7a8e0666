"""Physical board geometry for the camera: spaces and registration markers in mm.

Read straight from an edition's ``board.json`` (plain JSON, no rules-core classes).  The
board frame has its origin at the centre of space (0, 0), x to the right and y down as seen
by the camera; a space centre is :func:`companion.hexgrid.hex_to_pixel` with ``hex_size_mm``.
Each ArUco marker is printed with its own axes parallel to the board's (its top edge towards
-y), so its corners in mm follow from ``center_mm`` and ``size_mm``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.hexgrid import hex_to_pixel

EDITIONS_DIR = Path(__file__).resolve().parent.parent / "editions"
DEFAULT_EDITION = EDITIONS_DIR / "default"


class BoardGeometryError(ValueError):
    """The edition's board.json is missing or malformed."""


@dataclass(frozen=True)
class Marker:
    """One registration marker: ArUco id and centre in mm in the board frame."""

    id: int
    center_mm: tuple[float, float]


@dataclass(frozen=True)
class BoardGeometry:
    """Spaces and markers of one edition's board.

    ``spaces``: axial (q, r) of every space, in board.json order.  ``hex_size_mm``: centre to
    corner of a space in mm.  ``marker_size_mm``: side of the black marker square in mm.
    """

    hex_size_mm: float
    spaces: tuple[tuple[int, int], ...]
    outermost: tuple[tuple[int, int], ...]
    dictionary: str
    marker_size_mm: float
    markers: tuple[Marker, ...]

    def center_mm(self, h: tuple[int, int]) -> tuple[float, float]:
        """Centre of space ``h`` in mm in the board frame."""
        return hex_to_pixel(h, self.hex_size_mm)

    def marker_corners_mm(self, marker_id: int) -> np.ndarray:
        """float32 (4, 2) corners in mm, ArUco order: top-left, top-right, bottom-right, bottom-left."""
        for m in self.markers:
            if m.id == marker_id:
                cx, cy = m.center_mm
                h = self.marker_size_mm / 2.0
                return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], np.float32)
        raise KeyError(f"no board marker with id {marker_id}")

    def aruco_dictionary(self) -> cv2.aruco.Dictionary:
        """The OpenCV dictionary object named by ``dictionary`` (e.g. DICT_4X4_50)."""
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))

    def extent_mm(self, margin_mm: float = 0.0) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) bounding every space and marker, grown by ``margin_mm``."""
        pts = [self.center_mm(h) for h in self.spaces]
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        s = self.hex_size_mm
        x0, x1, y0, y1 = min(xs) - s, max(xs) + s, min(ys) - s, max(ys) + s
        for m in self.markers:
            h = self.marker_size_mm / 2.0
            x0, x1 = min(x0, m.center_mm[0] - h), max(x1, m.center_mm[0] + h)
            y0, y1 = min(y0, m.center_mm[1] - h), max(y1, m.center_mm[1] + h)
        return (x0 - margin_mm, y0 - margin_mm, x1 + margin_mm, y1 + margin_mm)


def load_board(edition_dir: str | Path = DEFAULT_EDITION) -> BoardGeometry:
    """Read ``board.json`` of an edition folder; raise :class:`BoardGeometryError`."""
    path = Path(edition_dir) / "board.json"
    try:
        d = json.loads(path.read_text())
        spaces = tuple((int(s["at"][0]), int(s["at"][1])) for s in d["spaces"])
        outer = tuple((int(a), int(b)) for a, b in d.get("outermost", []))
        mk = d["markers"]
        markers = tuple(Marker(int(c["id"]), (float(c["center_mm"][0]), float(c["center_mm"][1]))) for c in mk["corners"])
        geo = BoardGeometry(float(d["hex_size_mm"]), spaces, outer, str(mk["dictionary"]), float(mk["size_mm"]), markers)
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise BoardGeometryError(f"cannot read board geometry from {path}: {exc}") from exc
    if not hasattr(cv2.aruco, geo.dictionary):
        raise BoardGeometryError(f"{path}: unknown ArUco dictionary {geo.dictionary!r}")
    if len(geo.markers) < 4:
        raise BoardGeometryError(f"{path}: need 4 registration markers, found {len(geo.markers)}")
    return geo


def load_tile_codes(edition_dir: str | Path = DEFAULT_EDITION) -> list[str]:
    """Tile type codes (rotation 0) of the edition's catalogue, ``ROCK`` excluded.

    Reads ``tiles.json`` ``"tiles"[i]["code"]``; returns an empty list when the file is absent
    (the reader then decodes any combination of edge colours).
    """
    path = Path(edition_dir) / "tiles.json"
    if not path.exists():
        return []
    try:
        d = json.loads(path.read_text())
        codes = [str(t["code"]) for t in d["tiles"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BoardGeometryError(f"cannot read tile catalogue from {path}: {exc}") from exc
    return [c for c in codes if c != "ROCK"]
