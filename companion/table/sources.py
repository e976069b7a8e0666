"""Camera sources behind one interface: a frame (BGR uint8 array) and its time stamp.

- :class:`Picamera2Source`: the Raspberry Pi camera through ``picamera2`` (only on the Pi),
  continuous capture with ``capture_request`` and ``MappedArray`` (no extra copy of the
  sensor buffer but the one the loop keeps).
- :class:`OpenCVSource`: a USB webcam index or a stream URL through ``cv2.VideoCapture``.
- :class:`FolderSource`: the images of a folder (sorted by name) or a video file, for replays.
- :class:`QueueSource`: frames pushed by another thread (the simulated table).

Every source yields :class:`Frame` objects from :meth:`FrameSource.read`, which returns
``None`` when no frame came within the timeout.  :class:`StallWatchdog` reads the source in its
own capture thread, so a capture that never returns (the known Pi camera hang after long runs)
is still noticed: after 2 s without a frame, or on any error from the source, it reports and
reopens the source, and gives up (saying why) only when the camera cannot be reopened.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import TimeoutError as FutureTimeout
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.vision.image_file import decode_whole

STALL_S = 2.0
"""A source that yields no frame for this many seconds is reopened."""
REOPEN_TIMEOUT_S = 10.0
"""Closing and opening a camera that takes longer than this means its driver hangs."""
GIVE_UP_S = 120.0
"""Reopening that brings no frame for this many seconds stops the companion (with the reason)."""


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

    def reopen(self) -> None:
        """Start over after an error or a stall: close, then open (raises :class:`SourceError`)."""
        self.close()
        self.open()

    finished = False
    recovery = "reopening"
    """What :meth:`reopen` does, in words for the status line."""


def _now_ms() -> float:
    return time.monotonic() * 1000.0


@contextmanager
def opencv_quiet():
    """OpenCV's own log silenced for the block (``cv2.utils.logging``): a camera that does not
    open makes it print ``[ WARN:0@1.6] global cap_v4l.cpp ...`` lines on stderr, while the
    companion says what happened in one sentence of its own.  The level before is restored.

    FFmpeg, under OpenCV's video backend, logs on its own (``moov atom not found`` for a file
    that is no video); OpenCV reads its level once, from ``OPENCV_FFMPEG_LOGLEVEL``, when the
    backend first opens something, so it is set to quiet (-8) for the process unless the user
    set it."""
    import os

    from cv2.utils import logging as cv_log
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    before = cv_log.getLogLevel()
    cv_log.setLogLevel(cv_log.LOG_LEVEL_SILENT)
    try:
        yield
    finally:
        cv_log.setLogLevel(before)


def _why_not_open(device: int | str) -> str:
    """Why the webcam ``device`` did not open, in words: on Linux, whether its ``/dev/videoN``
    exists and which cameras do; a URL, that OpenCV could not open it."""
    if not isinstance(device, int):
        return f"OpenCV cannot open {device}"
    node = Path(f"/dev/video{device}")
    if Path("/dev").is_dir() and not node.exists():
        found = sorted(str(p) for p in Path("/dev").glob("video[0-9]*"))
        there = (f"this computer has {', '.join(found)}: try --camera {found[0].removeprefix('/dev/video')}"
                 if found else "no camera is connected: plug one in, or use --camera picamera2 for the Pi camera")
        return f"{node} does not exist ({there})"
    return f"OpenCV cannot open {node} (is another program using it?)"


class OpenCVSource(FrameSource):
    """``cv2.VideoCapture`` on a webcam index (``0``) or a URL/path; ``size`` (w, h) px asks the
    driver for a resolution.

    A webcam (an index) gets its automatic exposure, white balance and focus locked at every
    open (:func:`~companion.table.camera_controls.lock_opencv`): to ``settings`` when given,
    else to what its automatic controls chose after settling on the scene for about a second
    (:func:`~companion.table.camera_controls.settle_opencv`); :attr:`locked` holds what was
    locked and what the driver refused.  Frames carry the
    driver's buffer time stamp (``CAP_PROP_POS_MSEC``) when it gives increasing ones, else the
    host's monotonic clock.
    """

    def __init__(self, device: int | str, size: tuple[int, int] | None = (1920, 1080), settings=None):
        self.device = device
        self.size = size
        self.settings = settings
        self.locked = None
        self.name = f"opencv:{device}"
        self.cap: cv2.VideoCapture | None = None
        self._last_stamp: float | None = None
        self._driver_stamps = True

    def open(self) -> None:
        self.close()
        with opencv_quiet():
            cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open camera {self.device}: {_why_not_open(self.device)}")
        if self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        if isinstance(self.device, int):
            from companion.table.camera_controls import lock_opencv, settle_opencv
            if self.settings is None:
                settle_opencv(cap)   # the values held are the ones chosen for this scene
            self.locked = lock_opencv(cap, self.settings)
        self.cap = cap
        self._last_stamp, self._driver_stamps = None, True

    def read(self, timeout: float = 0.5) -> Frame | None:
        if self.cap is None:
            return None
        ok, img = self.cap.read()
        if not ok or img is None:
            time.sleep(min(timeout, 0.05))
            return None
        return Frame(img, self._stamp())

    def _stamp(self) -> float:
        # The driver's stamp is the capture time; the host's is when Python got the frame.
        t = self.cap.get(cv2.CAP_PROP_POS_MSEC) if self._driver_stamps and self.cap is not None else 0.0
        if self._driver_stamps and t > 0 and (self._last_stamp is None or t > self._last_stamp):
            self._last_stamp = t
            return t
        self._driver_stamps = False
        return _now_ms()

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None


class Picamera2Source(FrameSource):
    """The Pi camera via ``picamera2``: a BGR888 stream of ``size`` (w, h) px with locked
    exposure, gain, white balance and focus.

    At open: with ``settings`` (a :class:`~companion.table.camera_controls.CameraSettings`)
    those controls are set; without, the automatic controls settle and are then locked, and
    the result is written to ``settings_path`` when given (so the next start applies the same).
    :attr:`settings` holds what is locked.

    :meth:`read` honours its timeout: the capture is asked for without waiting and waited on
    for ``timeout`` s; a request that comes late is released on the next read, every request
    is released on every path.  Frames carry the sensor's time stamp (request metadata
    ``SensorTimestamp``, ns) in ms.

    ``camera_factory``: makes the ``Picamera2`` object (a fake in tests).  Raises
    :class:`SourceError` when ``picamera2`` is not installed (an optional dependency:
    ``make pi`` on Raspberry Pi OS) or no camera is attached.
    """

    name = "picamera2"

    def __init__(self, size: tuple[int, int] = (1920, 1080), settings=None, settings_path: str | Path | None = None,
                 camera_factory: Callable[[], Any] | None = None, mapped_array=None):
        self.size = size
        self.settings = settings
        self.settings_path = settings_path
        self._factory = camera_factory
        self._mapped = mapped_array
        self.cam = None
        self._job = None

    def open(self) -> None:
        self.close()
        factory, mapped = self._factory, self._mapped
        if factory is None:
            try:
                from picamera2 import MappedArray, Picamera2  # type: ignore[import-not-found]
            except ImportError:
                raise SourceError("picamera2 is not installed; on Raspberry Pi OS run 'make pi' (it comes from the system's python3-picamera2; a plain pip install cannot provide libcamera), or use --camera 0") from None
            factory, mapped = Picamera2, MappedArray
        self._mapped = mapped
        cam = None
        try:
            cam = factory()
            # "RGB888" in libcamera's naming is B, G, R byte order: what OpenCV calls BGR.
            cam.configure(cam.create_video_configuration(main={"size": self.size, "format": "RGB888"}))
            cam.start()
            if self.settings is None:
                from companion.table.camera_controls import settle_picamera2
                self.settings = settle_picamera2(cam)
                if self.settings_path is not None:
                    self.settings.save(self.settings_path)
            cam.set_controls(self.settings.picamera2_controls())
        except Exception as e:  # picamera2 raises RuntimeError/IndexError without a camera
            if cam is not None:
                _quietly(cam.close)
            raise SourceError(f"cannot start the Pi camera: {e}") from None
        self.cam = cam

    def read(self, timeout: float = 0.5) -> Frame | None:
        if self.cam is None:
            return None
        if self._job is None:
            self._job = self.cam.capture_request(wait=False)
        try:
            request = self.cam.wait(self._job, timeout=timeout)
        except (TimeoutError, FutureTimeout):
            return None          # the same job is waited on again next time
        self._job = None
        try:
            metadata = request.get_metadata()
            with self._mapped(request, "main") as m:
                image = m.array.copy()  # the buffer goes back to the camera on release
        finally:
            request.release()
        stamp = metadata.get("SensorTimestamp")
        return Frame(image, stamp / 1e6 if stamp else _now_ms())

    def close(self) -> None:
        cam, self.cam, job, self._job = self.cam, None, self._job, None
        if cam is None:
            return
        if job is not None:
            # A request that arrived after its read timed out still holds a buffer.
            try:
                late = cam.wait(job, timeout=0)
            except Exception:
                late = None
            if late is not None:
                _quietly(late.release)
        try:
            cam.stop()
        finally:
            _quietly(cam.close)


def _quietly(fn) -> None:
    try:
        fn()
    except Exception:
        pass


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
            self.name = f"file:{self.path}"
            with opencv_quiet():   # a file that is no video: our sentence below, not OpenCV's warnings
                self._cap = cv2.VideoCapture(str(self.path))
                ok = self._cap.isOpened() and self._cap.read()[0]  # a damaged file opens but gives nothing
            if ok:
                self._cap.release()
                self._cap = cv2.VideoCapture(str(self.path))  # back to its first frame
            if not ok or not self._cap.isOpened():
                self._cap.release()
                self._cap = None
                raise SourceError(f"{self.path}: not an image or a video OpenCV can read")
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
            path = self._files[self._i]
            self._i += 1
            try:
                img, why = decode_whole(path)   # a copy cut short would read as a board half gone
            except OSError as exc:
                img, why = None, exc.strerror
            if img is None:
                raise SourceError(f"{path}: unreadable image; skipped ({why})")
            return Frame(img, t)
        self._i += 1
        return Frame(img, t)

    recovery = "going on with the next frame"

    def reopen(self) -> None:
        """Go on with the next file: a folder is not replayed from the start after an error."""
        if self._cap is None and self._files:
            return
        i = self._i
        self.close()
        self.open()
        for _ in range(i):
            self._cap.grab()
        self._i = i

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


def open_camera(spec: str, size: tuple[int, int] = (1920, 1080), settings_path: str | Path | None = None) -> FrameSource:
    """A source from the ``--camera`` argument: ``picamera2``, a webcam index (``0``), or a
    path (folder of images, video file) or URL.

    ``settings_path``: the locked camera settings (``camera-settings.json``); applied when the
    file exists, written after the controls settle when it does not (Pi camera; a webcam
    applies it when present).  Raises :class:`SourceError` (also for a damaged settings file).
    """
    from companion.table.camera_controls import CameraSettings, CameraSettingsError
    settings = None
    if settings_path is not None and Path(settings_path).is_file():
        try:
            settings = CameraSettings.load(settings_path)
        except (OSError, CameraSettingsError) as e:
            raise SourceError(f"camera settings: {e}") from None
    if spec == "picamera2":
        src: FrameSource = Picamera2Source(size, settings=settings, settings_path=settings_path)
    elif spec.isdigit():
        src = OpenCVSource(int(spec), size, settings=settings)
    elif "://" in spec:
        src = OpenCVSource(spec, size)
    else:
        src = FolderSource(spec)
    src.open()
    locked = getattr(src, "locked", None)
    if locked is not None and settings is None and settings_path is not None:
        try:
            locked.save(settings_path)
        except OSError as e:
            src.close()
            raise SourceError(f"camera settings: cannot write {settings_path} ({e.strerror})") from None
    return src


class CameraFailed(RuntimeError):
    """The camera could not be brought back after errors or stalls; the message says why."""


class StallWatchdog:
    """Reads a source in its own capture thread, so the loop never waits on a capture that
    does not return.

    :meth:`read` gives the next frame (or ``None`` after ``timeout`` s).  After ``stall_s``
    without a frame, or when the source raises, it calls ``on_status("stalled" | "error",
    sentence)``, abandons the capture thread (a hung one cannot be interrupted), reopens the
    source (:meth:`FrameSource.reopen`) and captures in a new thread; ``on_status("ok", ...)``
    when frames come (the first time, and after each problem).  ``on_restart()`` is called
    after every reopen (the loop resets its gate and reader).  When reopening has brought no frame for ``give_up_s`` s (time to
    plug a cable back in) it raises :class:`CameraFailed`.  ``clock``: monotonic seconds.
    """

    def __init__(self, source: FrameSource, on_status: Callable[[str, str], None], stall_s: float = STALL_S,
                 clock: Callable[[], float] = time.monotonic, on_restart: Callable[[], None] | None = None,
                 give_up_s: float = GIVE_UP_S):
        self.source = source
        self.on_status = on_status
        self.on_restart = on_restart
        self.stall_s = stall_s
        self.clock = clock
        self.give_up_s = give_up_s
        self.reopen_timeout_s = REOPEN_TIMEOUT_S
        self.failures = 0
        self._failing_since: float | None = None
        self.errors = 0
        self._last = clock()
        self._bad = True          # "ok" is said only once frames come
        self._gen = 0
        self._q: "queue.Queue[tuple[int, str, Any]]" = queue.Queue(maxsize=2)
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def finished(self) -> bool:
        return self.source.finished

    def _start(self) -> None:
        self._gen += 1
        self._thread = threading.Thread(target=self._capture, args=(self._gen,), name=f"capture-{self._gen}", daemon=True)
        self._thread.start()

    def _capture(self, gen: int) -> None:
        while gen == self._gen and not self._closed.is_set():
            try:
                f = self.source.read(0.5)
            except Exception as e:   # any failure of the device or driver is reported, not fatal
                self._put(gen, "error", e)
                return
            if f is not None:
                self._put(gen, "frame", f)
            elif self.source.finished:
                self._put(gen, "end", None)
                return
            else:
                time.sleep(0.005)   # a source that returns at once without a frame is not spun on

    def _put(self, gen: int, kind: str, item: Any) -> None:
        # Frames are never dropped (a replay must see them all); a stale thread gives up.
        while gen == self._gen and not self._closed.is_set():
            try:
                self._q.put((gen, kind, item), timeout=0.2)
                return
            except queue.Full:
                continue

    def read(self, timeout: float = 0.5) -> Frame | None:
        """The next frame, or ``None``; raises :class:`CameraFailed` when the camera is gone."""
        if self._thread is None:
            self._start()
        try:
            gen, kind, item = self._q.get(timeout=timeout)
        except queue.Empty:
            gen, kind, item = self._gen, "timeout", None
        if gen != self._gen:
            return None                          # from a capture thread already abandoned
        now = self.clock()
        if kind == "frame":
            self._last = now
            self.failures = 0
            self._failing_since = None
            if self._bad:
                self._bad = False
                self.on_status("ok", f"frames from {self.source.name}")
            return item
        if kind == "end":
            return None
        if kind == "error":
            self.errors += 1
            self._restart("error", f"{self.source.name}: {item}")
        elif not self.source.finished and now - self._last >= self.stall_s:
            self._restart("stalled", f"no frame for {now - self._last:.1f} s from {self.source.name}")
        return None

    def _restart(self, status: str, why: str) -> None:
        self._bad = True
        now = self._last = self.clock()
        self._gen += 1                            # the old capture thread stops (or is left hanging)
        self.failures += 1
        if self._failing_since is None:
            self._failing_since = now
        elif now - self._failing_since >= self.give_up_s:
            raise CameraFailed(f"{why}; the camera did not come back in {now - self._failing_since:.0f} s "
                               f"({self.failures} attempts)")
        self.on_status(status, f"{why}; {self.source.recovery}" + (f" ({self.failures} failures in a row)" if self.failures > 1 else ""))
        problem = self._reopen()
        if problem:
            self.on_status(status, problem)
        if self.on_restart is not None:
            self.on_restart()
        self._start()

    def _reopen(self) -> str | None:
        """Reopen the source in a helper thread: a driver that hangs on close must not hang
        the loop.  Returns a sentence when reopening failed; raises :class:`CameraFailed` when
        it did not finish within ``reopen_timeout_s``."""
        outcome: list[str | None] = []

        def work() -> None:
            try:
                self.source.reopen()
                outcome.append(None)
            except SourceError as e:
                outcome.append(str(e))
            except Exception as e:
                outcome.append(f"reopening {self.source.name} failed: {type(e).__name__}: {e}")

        t = threading.Thread(target=work, name="camera-reopen", daemon=True)
        t.start()
        t.join(self.reopen_timeout_s)
        if t.is_alive():
            raise CameraFailed(f"reopening {self.source.name} did not finish in {self.reopen_timeout_s:.0f} s: "
                               "the camera driver hangs; restart the companion")
        return outcome[0] if outcome else None

    def close(self) -> None:
        """Stop capturing (the source itself is closed by its owner)."""
        self._closed.set()
        self._gen += 1
