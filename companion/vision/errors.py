"""Errors raised by the board reader; each message says what the user can do."""

from __future__ import annotations


class VisionError(ValueError):
    """Base class: the image cannot be read as a board."""


class UnreadableImageError(VisionError):
    """The file is missing, empty or not an image OpenCV can decode."""


class BoardNotFoundError(VisionError):
    """Too few registration markers are visible and no earlier registration agrees with them."""


class RegistrationError(BoardNotFoundError):
    """All four markers are visible but no choice of them fits the board geometry: a stray copy
    of a marker, or a marker stuck far from its documented place.  ``duplicated``: marker ids
    seen more than once; ``off``: marker id -> how far (mm) it is from where the others put it."""

    def __init__(self, message: str, duplicated: tuple[int, ...] = (), off: dict[int, float] | None = None):
        super().__init__(message)
        self.duplicated = tuple(duplicated)
        self.off = dict(off or {})


class FrameQualityError(UnreadableImageError):
    """The frame decodes but cannot be read as colours: no colour (greyscale), far too dark or
    bright, a strong colour cast, or colours far outside the calibrated profile.  ``kind`` is one
    of ``"no-colour"``, ``"too-dark"``, ``"too-bright"``, ``"colour-cast"``, ``"off-profile"``."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind
