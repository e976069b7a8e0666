"""Camera sources behind one interface: a frame (BGR uint8 array) and its time stamp.

- :class:`Picamera2Source`: the Raspberry Pi camera through ``picamera2`` (only on the Pi),
  continuous capture with ``capture_request`` and ``MappedArray`` (no extra copy of the
  sensor buffer but the one the loop keeps).
- :class:`OpenCVSource`: a USB webcam index or a stream URL through ``cv2.VideoCapture``.
- :class:`FolderSource`: the images of a folder (sorted by name) or a video file, for replays.
- :class:`QueueSource`: frames pushed by another thread (the simulated table).

Every source yields :class:`Frame` objects from :meth:`FrameSource.read`, which returns
``None`` when no frame came within the timeout.  :class:`StallWatchdog` reopens a source that
has given nothing for 2 s and reports the stall.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

STALL_S = 2.0
"""A source that yields no frame for this many seconds is reopened."""


class SourceError(RuntimeError):
    """A camera cannot be opened (no device, no picamera2 module, unreadable file)."""


@dataclass
class Frame:
    """One camera frame: ``image`` is a BGR uint8 array of shape (h, w, 3); ``t_ms`` is the
    capture time in milliseconds (monotonic clock, or the recording's clock on replay)."""

    image: np.ndarray
    t_ms: float


class FrameSource:
    """Interface of every camera source."""

    name = "source"

    def open(self) -> None:
        """Acquire the device; raises :class:`SourceError`."""

    def read(self, timeout: float = 0.5) -> Frame | None:
        """The next frame, or ``None`` when none came within ``timeout`` s (or at the end of
        a replay, after which :attr:`finished` is true)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the device (idempotent)."""

    finished = False


def _now_ms() -> float:
    return time.monotonic() * 1000.0


class OpenCVSource(FrameSource):
    """``cv2.VideoCapture`` on a webcam index (``0``) or a URL/path; ``size`` (w, h) px asks the
    driver for a resolution."""

    def __init__(self, device: int | str, size: tuple[int, int] | None = (1920, 1080)):
        self.device = device
        self.size = size
        self.name = f"opencv:{device}"
        self.cap: cv2.VideoCapture | None = None

    def open(self) -> None:
        self.close()
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            raise SourceError(f"cannot open camera {self.device!r} with OpenCV")
        if self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self.cap = cap

    def read(self, timeout: float = 0.5) -> Frame | None:
        if self.cap is None:
            return None
        ok, img = self.cap.read()
        if not ok or img is None:
            time.sleep(min(timeout, 0.05))
            return None
        return Frame(img, _now_ms())

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None


class Picamera2Source(FrameSource):
    """The Pi camera via ``picamera2``: a BGR888 stream of ``size`` (w, h) px.

    Raises :class:`SourceError` when ``picamera2`` is not installed (it is an optional
    dependency: ``pip install .[pi]``) or no camera is attached.
    """

    name = "picamera2"

    def __init__(self, size: tuple[int, int] = (1920, 1080)):
        self.size = size
        self.cam = None

    def open(self) -> None:
        try:
            from picamera2 import MappedArray, Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise SourceError("picamera2 is not installed; on the Pi: pip install '.[pi]' (or use --camera 0)") from None
        self._mapped = MappedArray
        try:
            cam = Picamera2()
            # "RGB888" in libcamera's naming is B, G, R byte order: what OpenCV calls BGR.
            cam.configure(cam.create_video_configuration(main={"size": self.size, "format": "RGB888"}))
            cam.start()
        except Exception as e:  # picamera2 raises RuntimeError/IndexError without a camera
            raise SourceError(f"cannot start the Pi camera: {e}") from None
        self.cam = cam

    def read(self, timeout: float = 0.5) -> Frame | None:
        if self.cam is None:
            return None
        request = self.cam.capture_request()
        try:
            with self._mapped(request, "main") as m:
                image = m.array.copy()  # the buffer goes back to the camera on release
        finally:
            request.release()
        return Frame(image, _now_ms())

    def close(self) -> None:
        if self.cam is not None:
            try:
                self.cam.stop()
                self.cam.close()
            finally:
                self.cam = None


class FolderSource(FrameSource):
    """Frames from a folder of images (sorted by name, ``period_ms`` apart) or a video file.

    A recording made with ``--record`` is replayed by :mod:`companion.table.record` instead,
    which keeps the recorded time stamps.
    """

    def __init__(self, path: str | Path, period_ms: float = 100.0):
        self.path = Path(path)
        self.period_ms = period_ms
        self.name = f"folder:{path}"
        self._files: list[Path] = []
        self._cap: cv2.VideoCapture | None = None
        self._i = 0

    def open(self) -> None:
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp"))
            if not self._files:
                raise SourceError(f"{self.path}: no images (.png, .jpg) in this folder")
        elif self.path.is_file():
            self._cap = cv2.VideoCapture(str(self.path))
            if not self._cap.isOpened():
                raise SourceError(f"{self.path}: not a video OpenCV can read")
        else:
            raise SourceError(f"{self.path}: no such file or folder")
        self._i = 0

    def read(self, timeout: float = 0.5) -> Frame | None:
        t = self._i * self.period_ms
        if self._cap is not None:
            ok, img = self._cap.read()
            if not ok:
                self.finished = True
                return None
        else:
            if self._i >= len(self._files):
                self.finished = True
                return None
            img = cv2.imread(str(self._files[self._i]), cv2.IMREAD_COLOR)
            if img is None:
                raise SourceError(f"{self._files[self._i]}: unreadable image")
        self._i += 1
        return Frame(img, t)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class QueueSource(FrameSource):
    """Frames pushed with :meth:`push` from another thread (bounded; a full queue blocks the
    producer, which is how the simulated table keeps pace with the reader)."""

    name = "simulated"

    def __init__(self, maxsize: int = 8):
        self.q: "queue.Queue[Frame | None]" = queue.Queue(maxsize=maxsize)

    def push(self, frame: Frame | None, timeout: float | None = None) -> None:
        """Queue a frame; ``None`` ends the stream."""
        self.q.put(frame, timeout=timeout)

    def read(self, timeout: float = 0.5) -> Frame | None:
        try:
            f = self.q.get(timeout=timeout)
        except queue.Empty:
            return None
        if f is None:
            self.finished = True
        return f


def open_camera(spec: str, size: tuple[int, int] = (1920, 1080)) -> FrameSource:
    """A source from the ``--camera`` argument: ``picamera2``, a webcam index (``0``), or a
    path (folder of images, video file) or URL.  Raises :class:`SourceError`."""
    if spec == "picamera2":
        src: FrameSource = Picamera2Source(size)
    elif spec.isdigit():
        src = OpenCVSource(int(spec), size)
    elif "://" in spec:
        src = OpenCVSource(spec, size)
    else:
        src = FolderSource(spec)
    src.open()
    return src


class StallWatchdog:
    """Wraps a source: after ``stall_s`` without a frame it reopens the source and calls
    ``on_status("stalled" | "ok", detail)``."""

    def __init__(self, source: FrameSource, on_status: Callable[[str, str], None], stall_s: float = STALL_S,
                 clock: Callable[[], float] = time.monotonic):
        self.source = source
        self.on_status = on_status
        self.stall_s = stall_s
        self.clock = clock
        self._last = clock()
        self._stalled = False

    def read(self, timeout: float = 0.5) -> Frame | None:
        f = self.source.read(timeout)
        now = self.clock()
        if f is not None:
            self._last = now
            if self._stalled:
                self._stalled = False
                self.on_status("ok", "frames again")
            return f
        if not self.source.finished and now - self._last >= self.stall_s:
            self._last = now
            self._stalled = True
            self.on_status("stalled", f"no frame for {self.stall_s:.0f} s; reopening {self.source.name}")
            try:
                self.source.open()
            except SourceError as e:
                self.on_status("stalled", str(e))
        return None
