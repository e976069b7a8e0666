"""Is this photo one ``calibrate pieces`` can learn from?  Checked before anything is written.

A calibration photo teaches the colours of one copy under one light, so a photo without colour
(a camera set to greyscale) or of another layout than the one it is filed under would yield a
profile whose classes all look alike, and every later reading would be nonsense.  Each photo is
refused with one sentence saying what is wrong and what photo is wanted:

- the whole-frame checks of :mod:`companion.vision.check` (no colour, far too dark or bright,
  a colour cast white balance cannot undo);
- the layout check: every sample point whose surface the layout knows is filed under that
  class, and the points are classified back to the nearest class median (Lab).  The photo of
  the right layout puts 87-99.8 % of its points back in their own class, a photo of another
  documented layout 4-38 % (``bench/calibration_photos.py``: four art styles, the held-out
  ``woodcut`` included, under daylight, a warm lamp and glare; the shared calibration photos of
  an independent renderer in three lights: 96-98 % against 6-34 %).
"""

from __future__ import annotations

import numpy as np

from companion.vision.errors import VisionError
from companion.vision.profile import CLASSES

MIN_LAYOUT_FIT = 0.7
"""Share of a photo's sample points nearest to their own class below which the photo does not
show the layout it is filed under (right layout: 0.87-0.998; another layout: 0.04-0.38)."""


class CalibrationPhotoError(VisionError):
    """A calibration photo that cannot be learned from; the message says why and what to give."""


def layout_fit(lab: np.ndarray, labels: np.ndarray) -> float:
    """Share (0-1) of the labelled sample points whose Lab colour is nearest to the median of
    their own class.  ``lab``: float (S, P, 3) samples of one photo; ``labels``: int (S, P)
    class index per point, -1 where unknown.  Classes with fewer than 3 points, and the spore
    symbol's white, are left out."""
    x, y = lab.reshape(-1, 3), labels.ravel()
    white = CLASSES.index("white")
    cls = [c for c in range(len(CLASSES)) if c != white and np.count_nonzero(y == c) >= 3]
    if len(cls) < 2:
        return 1.0
    medians = np.array([np.median(x[y == c], axis=0) for c in cls])
    keep = np.isin(y, cls)
    d = np.linalg.norm(x[keep][:, None, :] - medians[None], axis=2)
    return float(np.mean(np.asarray(cls)[d.argmin(1)] == y[keep]))


def check_photo(frame: np.ndarray, name: str, layout: dict, layout_name: str, reader, intrinsics=None,
                documented: dict[str, dict] | None = None) -> np.ndarray:
    """Raise :class:`CalibrationPhotoError` when ``frame`` (BGR uint8, (h, w, 3)) cannot teach
    ``layout`` (board part of a position, called ``layout_name`` in messages, e.g. "calibration
    layout 1").  ``name``: the photo as the user knows it (a file name).  ``reader``: a
    :class:`~companion.vision.reader.BoardReader` (only its geometry and sampling are used).
    ``documented``: the documented layouts by name, to say which one the photo shows instead.
    Raises :class:`VisionError` as registration does (no board found).  Returns the photo's
    white-balanced Lab samples, float32 (S, P, 3), for :func:`calibration.layout_check.check_spaces`.
    """
    from calibration.colours import _labels
    from companion.vision.check import check_frame
    from companion.vision.errors import FrameQualityError
    from companion.vision.registration import BoardTracker

    reg = BoardTracker(reader.geo, intrinsics).register(frame)
    try:
        check_frame(frame, reg, reader.geo, None)
    except FrameQualityError as exc:
        raise CalibrationPhotoError(
            f"{name}: {exc}; calibration needs a colour photo of the board set up as {layout_name}") from None
    spaces = list(reader.geo.spaces)
    lab = reader.sample(frame, reg)
    fit = layout_fit(lab, _labels(layout, spaces))
    if fit >= MIN_LAYOUT_FIT:
        return lab
    others = {n: layout_fit(lab, _labels(lay, spaces)) for n, lay in (documented or {}).items() if n != layout_name}
    best = max(others, key=others.get) if others else None
    looks = (f"; it looks like {best}" if best is not None and others[best] >= MIN_LAYOUT_FIT
             else "")
    raise CalibrationPhotoError(
        f"{name} does not show {layout_name}: only {100 * fit:.0f} % of the board's colours are where {layout_name} "
        f"puts them (a photo of it scores about 90 % or more){looks}; give one photo of each layout set up as "
        "hardware/camera.md#calibration-layouts shows, in the order 1, 2, 3, or name each photo's layout with --layout")


def calibration_layout_shown(frame: np.ndarray, reg, reader) -> str | None:
    """``"calibration layout N"`` when ``frame`` (BGR uint8 (h, w, 3), registered as ``reg``)
    is a photo of documented calibration layout N as documented: its colours fit the layout
    (:func:`layout_fit` at least :data:`MIN_LAYOUT_FIT`) and every space shows its piece
    (:func:`calibration.layout_check.check_spaces`); else ``None``.  Such a photo shows meeples
    where no game puts them, so its low reading confidences say nothing of the profile."""
    from calibration.colours import LAYOUT_NUMBERS, _labels, load_layout
    from calibration.layout_check import check_spaces

    spaces = list(reader.geo.spaces)
    lab = reader.sample(frame, reg)
    for n in LAYOUT_NUMBERS:
        layout = load_layout(n)
        if layout_fit(lab, _labels(layout, spaces)) >= MIN_LAYOUT_FIT and not check_spaces([lab], [layout], spaces):
            return f"calibration layout {n}"
    return None
