"""The bridge's own error types: every failure the bridge reports is one of these."""

from __future__ import annotations


class BridgeError(Exception):
    """Base class of every error raised by :mod:`firmware_bridge`."""


class FrameError(BridgeError):
    """A frame on the wire is malformed.

    ``kind`` is a short machine-readable tag (``"crc"``, ``"cobs"``, ``"length"``,
    ``"checksum"``, ...) that becomes the ``kind`` of a ``frame_error`` event.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class PortError(BridgeError):
    """No serial port could be found or opened; the message says which and why."""


class RegistryError(BridgeError):
    """The tag registry file is unreadable or a registry operation is refused."""
