"""Photographing the calibration layouts with the mounted camera (``calibrate pieces --camera``).

The colour profile is only as good as the camera settings it was measured under, so this is
where the camera's exposure, gain, white balance and focus are settled and locked
(:mod:`companion.table.camera_controls`): the camera is opened with its automatic controls on,
they settle on the board, they are locked, and every layout is photographed with the locked
values.  The caller stores those values beside the profile (``camera-settings.json``), and
``run`` applies them at every start, so the table is read under the settings it was
calibrated with.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from companion.vision.errors import VisionError

DRAIN_FRAMES = 5
"""Frames read after the user says the layout is ready; the last one is kept (the earlier ones
may have been captured before, while hands were still over the board)."""
DRAIN_S = 0.3
"""...and at least this long (s)."""
FRAME_TIMEOUT_S = 5.0
"""No frame for this long (s) is a camera that does not deliver."""


class CalibrationAborted(VisionError):
    """The user did not confirm a layout (end of input); nothing is written."""


def capture_layouts(spec: str, layout_names: list[str], ask: Callable[[str], bool],
                    say: Callable[[str], None] = print, clock: Callable[[], float] = time.monotonic):
    """Open the camera ``spec`` (``picamera2``, a webcam index, a folder of frames), settle and
    lock its controls, then for each of ``layout_names`` ask the user to lay it out
    (``ask(sentence)`` returns False when they cannot answer: end of input) and keep one frame.

    Returns ``(frames, settings)``: BGR uint8 (h, w, 3) arrays, one per layout, and the locked
    :class:`~companion.table.camera_controls.CameraSettings` (``None`` for a folder of frames,
    which has no controls).  Raises :class:`VisionError` (camera cannot be opened or gives no
    frame) or :class:`CalibrationAborted`; the camera is closed on every path.
    """
    from companion.table.sources import FolderSource, SourceError, open_camera

    try:
        src = open_camera(spec)   # no stored settings: the automatic controls settle, then lock
    except SourceError as exc:
        busy = ("; if the companion's service is running it holds the camera: "
                "'sudo systemctl stop mycelium-companion' first") if spec == "picamera2" or spec.isdigit() else ""
        raise VisionError(f"cannot open camera {spec}: {exc}{busy}") from None
    try:
        settings = getattr(src, "locked", None) or getattr(src, "settings", None)
        if settings is not None:
            say(settings.describe())
        frames = []
        for k, name in enumerate(layout_names):
            if not ask(f"Set up the board as {name} (hardware/camera.md#calibration-layouts), keep hands out of "
                       f"view, then press Enter [{k + 1} of {len(layout_names)}]"):
                raise CalibrationAborted(f"stopped before {name} was photographed (no answer on the input); "
                                         "nothing was written")
            frames.append(_still_frame(src, spec, one=isinstance(src, FolderSource), clock=clock))
            say(f"photographed {name}")
        return frames, settings
    finally:
        src.close()


def _still_frame(src, spec: str, one: bool, clock) -> np.ndarray:
    """The newest frame after :data:`DRAIN_FRAMES` frames and :data:`DRAIN_S` s (one frame from a
    folder).  Raises VisionError when the camera gives none within :data:`FRAME_TIMEOUT_S`."""
    start, n, last = clock(), 0, None
    while True:
        f = src.read(0.5)
        if f is not None:
            n, last = n + 1, f.image
            if one or (n >= DRAIN_FRAMES and clock() - start >= DRAIN_S):
                return last
        elif src.finished:
            if last is not None:
                return last
            raise VisionError(f"camera {spec} has no more frames")
        if clock() - start > FRAME_TIMEOUT_S:
            if last is not None:
                return last
            raise VisionError(f"camera {spec} gave no frame in {FRAME_TIMEOUT_S:.0f} s")
