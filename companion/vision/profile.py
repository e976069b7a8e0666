"""Colour profile: the Lab colour of every surface the reader tells apart.

Colours are measured after white balancing against the printed white around the markers
(:func:`white_balance`), then converted to CIE Lab (L 0-100, a and b roughly -128..127, float32).
Each class has a mean and a standard deviation per channel; a sample's log-likelihood is a
diagonal Gaussian, clipped at :data:`LL_FLOOR` so a few occluded points (a meeple, a hand)
cannot outvote the rest.  Profiles are JSON::

    {"version": 1, "classes": {"board": {"mean": [L, a, b], "std": [sL, sa, sb]}, ...},
     "pieces": {...}}

``pieces`` (optional; profiles made before it read as before) is what calibration learned of
the meeples and both spore sides (:class:`companion.vision.pieces.PieceModel`).  ``frame_size``
(optional, ``[width, height]`` px) is the size of the calibration photos: frames much smaller
show every piece in fewer pixels than the profile learned it from (:func:`frame_size_problem`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

CLASSES: tuple[str, ...] = (
    "board", "tile", "pink", "yellow", "green", "rock", "tree", "slot",
    "wood", "soil", "blue", "orange", "red", "black", "white",
)
"""Surface classes: empty board, tile base, the three path colours, rock, tree, empty
mycorrhiza slot, the two substrates, the four player colours, and the white spore symbol."""
PLAYERS: tuple[str, ...] = ("blue", "orange", "red", "black")
PATHS: tuple[str, ...] = ("pink", "yellow", "green")
MIN_STD = np.array([3.0, 3.0, 3.0], np.float32)
LL_FLOOR = -12.0

DEFAULT_PROFILE_PATH = Path(__file__).resolve().parent / "default_profile.json"


class ProfileError(ValueError):
    """A colour profile file is missing, malformed or lacks a class."""


@dataclass
class ColourProfile:
    """``mean`` and ``std``: float32 (K, 3) Lab per class, in :data:`CLASSES` order;
    ``pieces``: learned meeple and spore appearance, or ``None``; ``builtin``: the reference
    copy's profile shipped with the companion, not one calibrated at this table; ``frame_size``:
    (width, height) px of the calibration photos, ``None`` for profiles made before it was kept."""

    mean: np.ndarray
    std: np.ndarray
    pieces: "PieceModel | None" = None
    builtin: bool = False
    frame_size: tuple[int, int] | None = None

    @property
    def classes(self) -> tuple[str, ...]:
        return CLASSES

    def index(self, name: str) -> int:
        return CLASSES.index(name)

    def log_likelihood(self, lab: np.ndarray) -> np.ndarray:
        """float32 (..., 3) Lab -> float32 (..., K) clipped log-likelihood of each class."""
        # the quadratic form [x^2, x, 1] (n, 7) . (7, K) as seven broadcast multiply-adds: a
        # BLAS product of this small size may start threads, which costs more than it saves
        # (and a lot on a busy machine)
        # computed class by sample, (K, n), so each step runs over long rows (with the K
        # classes innermost numpy spends its time starting short loops); the same
        # multiply-adds in the same order, transposed back once at the end
        x = np.ascontiguousarray(np.asarray(lab, np.float32).reshape(-1, 3).T)  # (3, n)
        q = self._quadratic()[:, :, None]  # (7, K, 1)
        x2 = x * x
        ll = q[0] * x2[0]
        for j, row in ((1, x2[1]), (2, x2[2]), (3, x[0]), (4, x[1]), (5, x[2])):
            ll += row * q[j]
        ll += q[6]
        np.maximum(ll, LL_FLOOR, out=ll)
        return np.ascontiguousarray(ll.T).reshape(*lab.shape[:-1], len(CLASSES))

    def _quadratic(self) -> np.ndarray:
        """float32 (7, K) coefficients of the log-likelihood in [L^2, a^2, b^2, L, a, b, 1]."""
        if getattr(self, "_q", None) is None:
            inv = 1.0 / (self.std.astype(np.float64) ** 2)
            const = -0.5 * np.sum(self.mean**2 * inv, axis=1) - np.sum(np.log(self.std), axis=1) + 3 * np.log(MIN_STD[0])
            self._q = np.vstack([-0.5 * inv.T, (self.mean * inv).T, const[None, :]]).astype(np.float32)
        return self._q

    def to_json(self) -> dict:
        d = {
            "version": 1,
            "classes": {c: {"mean": [round(float(v), 2) for v in self.mean[i]], "std": [round(float(v), 2) for v in self.std[i]]}
                        for i, c in enumerate(CLASSES)},
        }
        if self.pieces is not None:
            d["pieces"] = self.pieces.to_json()
        if self.frame_size is not None:
            d["frame_size"] = [int(self.frame_size[0]), int(self.frame_size[1])]
        return d

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def from_json(cls, d: dict) -> "ColourProfile":
        try:
            classes = d["classes"]
            mean = np.array([classes[c]["mean"] for c in CLASSES], np.float32)
            std = np.array([classes[c]["std"] for c in CLASSES], np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise ProfileError(f"colour profile lacks or mangles a class ({exc}); classes needed: {', '.join(CLASSES)}") from exc
        if mean.shape != (len(CLASSES), 3) or std.shape != mean.shape:
            raise ProfileError("colour profile: each class needs a 3-number mean and std")
        pieces = None
        if d.get("pieces") is not None:
            from companion.vision.pieces import PieceModel
            try:
                pieces = PieceModel.from_json(d["pieces"])
            except (KeyError, TypeError, ValueError) as exc:
                raise ProfileError(f"colour profile: malformed 'pieces' section ({exc}); calibrate again") from exc
        size = d.get("frame_size")
        valid = isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)
        if size is not None and not valid:
            raise ProfileError(f"colour profile: 'frame_size' must be [width, height] in px, got {size!r}; calibrate again")
        return cls(mean, np.maximum(std, MIN_STD), pieces, frame_size=tuple(size) if size else None)


def load_profile(path: str | Path | None = None) -> ColourProfile:
    """Read a profile JSON; ``None`` gives the built-in profile of the reference copy."""
    p = Path(path) if path else DEFAULT_PROFILE_PATH
    try:
        d = json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise ProfileError(f"cannot read colour profile {p}: {exc}") from exc
    profile = ColourProfile.from_json(d)
    profile.builtin = p.resolve() == DEFAULT_PROFILE_PATH
    return profile


def white_balance(bgr: np.ndarray, white: np.ndarray) -> np.ndarray:
    """float32 (n, 3) BGR samples / per-sample white (n, 3) -> Lab float32 (n, 3).

    The printed white maps to 0.95 so the white symbols stay below clipping.
    """
    rgb = (bgr[:, ::-1].astype(np.float32) / np.maximum(white[:, ::-1], 1.0)) * 0.95
    rgb = np.clip(rgb, 0.0, 1.0).reshape(-1, 1, 3)
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2Lab).reshape(-1, 3)


def fit_white_field(marker_xy_mm: np.ndarray, marker_white: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
    """Interpolate the white level measured at the markers over the board.

    ``marker_xy_mm``: (m, 2) marker centres; ``marker_white``: (m, 3) BGR white there;
    ``pts_mm``: (n, 2).  Fits w = a + b x + c y (+ d x y with 4 markers) per channel by least
    squares; with 1-2 markers the white is their mean.  Returns float32 (n, 3).
    """
    m = len(marker_xy_mm)
    if m == 0:
        return np.full((len(pts_mm), 3), 255.0, np.float32)
    if m < 3:
        return np.tile(marker_white.mean(0), (len(pts_mm), 1)).astype(np.float32)
    def design(xy: np.ndarray) -> np.ndarray:
        cols = [np.ones(len(xy)), xy[:, 0] / 100.0, xy[:, 1] / 100.0]
        if m >= 4:
            cols.append(xy[:, 0] * xy[:, 1] / 1e4)
        return np.column_stack(cols)
    coef, *_ = np.linalg.lstsq(design(marker_xy_mm), marker_white, rcond=None)
    return np.clip(design(pts_mm) @ coef, 20.0, 400.0).astype(np.float32)


SMALLER_FRAME = 0.8
"""A frame whose width or height is under this share of the calibration photos' is refused by
:func:`frame_size_problem` (a camera reopened at a lower resolution, a 960x540 mode)."""


def frame_size_problem(size: tuple[int, int], profile: ColourProfile | None = None, intrinsics=None) -> str | None:
    """A sentence when a frame of ``size`` (width, height) px cannot be read with ``profile`` or
    ``intrinsics`` (:class:`calibration.intrinsics.Intrinsics`), else ``None``.

    Intrinsics hold in the pixels of the photos they were calibrated on: any other frame size
    is refused.  A profile is refused for frames clearly smaller than its calibration photos
    (:data:`SMALLER_FRAME`): the pieces then cover fewer pixels than it learned them from and
    the reader's 35 px per hex side (``hardware/camera.md``) is lost; a profile without a
    recorded size (made before it was kept) accepts every size."""
    w, h = int(size[0]), int(size[1])
    if intrinsics is not None and tuple(int(v) for v in intrinsics.image_size) != (w, h):
        iw, ih = (int(v) for v in intrinsics.image_size)
        return (f"the frame is {w}x{h} px but the intrinsics were calibrated on {iw}x{ih} px photos: set the camera "
                f"to {iw}x{ih}, or run 'calibrate camera' at {w}x{h}")
    if profile is not None and profile.frame_size is not None:
        pw, ph = profile.frame_size
        if w < SMALLER_FRAME * pw or h < SMALLER_FRAME * ph:
            return (f"the frame is {w}x{h} px, smaller than the {pw}x{ph} px of the photos the colour profile was "
                    f"calibrated on: every piece shows in fewer pixels than the profile learned it from; set the camera to "
                    f"{pw}x{ph}, or calibrate again at this size")
    return None
