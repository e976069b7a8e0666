"""Errors raised by the board reader; each message says what the user can do."""

from __future__ import annotations


class VisionError(ValueError):
    """Base class: the image cannot be read as a board."""


class UnreadableImageError(VisionError):
    """The file is missing, empty or not an image OpenCV can decode."""


class BoardNotFoundError(VisionError):
    """Too few registration markers are visible and no earlier registration agrees with them."""
