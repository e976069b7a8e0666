"""Stillness gating: read the board only once it has been still for a while.

A person's hands over the board move; pieces do not.  :class:`StillnessGate` compares each
frame with the previous one on a small blurred grey copy (160 px wide): when the share of
changed pixels is above ``motion_fraction`` there is motion.  After ``still_ms`` without
motion the gate opens once, and stays shut until the next motion, or until a still frame
differs from the last one read by more than ``change_fraction`` of its pixels: a change no
frame showed happening (a camera slower than the hand, a folder of photos) opens a new still
window.  A still frame that differs from the last read one by a blob larger than
``hand_fraction`` of the image (a hand resting on the table) is not read either.
"""

from __future__ import annotations

import cv2
import numpy as np

SMALL_W = 160


def _small(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    small = cv2.resize(image, (SMALL_W, max(1, round(h * SMALL_W / w))), interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    return cv2.GaussianBlur(grey, (3, 3), 0)


class StillnessGate:
    """Feed every frame with its time stamp (ms; the sensor's capture time where the camera
    gives one); :meth:`feed` returns ``True`` for the one frame at which the board has been
    still for ``still_ms``.  A frame of another size than the previous one, or a time stamp
    earlier than the previous one, starts the gate over (nothing is compared across them).

    ``pixel_delta``: grey-level change (0-255) that counts as changed.  ``motion_fraction``:
    share of changed pixels that counts as motion.  ``hand_fraction``: largest blob (share of
    the image) a still change may cover and still be pieces rather than a hand.
    ``change_fraction``: share of changed pixels between a still frame and the last one read
    that is a change to read (a meeple moved changes about 0.06 % of them, a tile 0.2 %).
    """

    def __init__(self, still_ms: float = 300.0, pixel_delta: int = 18, motion_fraction: float = 0.002,
                 hand_fraction: float = 0.08, change_fraction: float = 0.0002):
        self.still_ms = still_ms
        self.pixel_delta = pixel_delta
        self.motion_fraction = motion_fraction
        self.hand_fraction = hand_fraction
        self.change_fraction = change_fraction
        self._refused = False   # the last opening was a hand resting: not read
        self._prev: np.ndarray | None = None
        self._last_read: np.ndarray | None = None
        self._still_since: float | None = None
        self._fired = False
        self._t_ms = float("-inf")
        self.motion = False

    @property
    def has_read(self) -> bool:
        """Whether a still frame has been read since the last reset."""
        return self._last_read is not None

    @property
    def still_since_ms(self) -> float | None:
        """The time stamp (ms) of the last frame that moved (or of the first frame since a
        reset): the board has been still from then on.  ``None`` before the first frame."""
        return self._still_since

    def _changed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (cv2.absdiff(a, b) > self.pixel_delta).astype(np.uint8)

    def feed(self, image: np.ndarray, t_ms: float) -> bool:
        """Whether this frame should be read (see the class docstring)."""
        small = _small(image)
        if self._prev is not None and (self._prev.shape != small.shape or t_ms < self._t_ms):
            # Another frame size (a camera reopened) or a clock that went back: start over.
            self.reset()
        self._t_ms = t_ms
        if self._prev is None:
            self._prev = small
            self._still_since = t_ms
            self._fired = False
            return False
        changed = self._changed(small, self._prev)
        self._prev = small
        self.motion = changed.mean() > self.motion_fraction
        if self.motion:
            self._still_since = t_ms
            self._fired = False
            return False
        if (self._fired and not self._refused and self._last_read is not None
                and self._changed(small, self._last_read).mean() > self.change_fraction):
            # the board changed between two frames without any frame showing motion: a new
            # still window starts here, so the change is read once it has lasted
            self._still_since = t_ms
            self._fired = False
            return False
        since = t_ms if self._still_since is None else self._still_since
        if self._fired or t_ms - since < self.still_ms:
            return False
        self._fired = True
        self._refused = (self._last_read is not None
                         and self._largest_blob(self._changed(small, self._last_read)) > self.hand_fraction)
        if self._refused:
            return False
        self._last_read = small
        return True

    @staticmethod
    def _largest_blob(mask: np.ndarray) -> float:
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if n <= 1:
            return 0.0
        return float(stats[1:, cv2.CC_STAT_AREA].max()) / mask.size

    def reset(self) -> None:
        """Forget history (after the camera was reopened or the board bumped)."""
        self._prev = None
        self._last_read = None
        self._still_since = None
        self._fired = False
        self._refused = False
        self._t_ms = float("-inf")
