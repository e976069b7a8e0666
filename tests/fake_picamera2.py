"""A fake ``picamera2`` (it cannot run off a Raspberry Pi): cameras that record every call in
order, give the metadata sequence the automatic controls would, and show a given image.

Shared by the camera-controls tests (``tests/table/test_camera_controls.py``) and the live
calibration tests (``tests/table/test_calibrate_live.py``)."""

from __future__ import annotations

import types
from collections.abc import Callable

import numpy as np

DEFAULT_CONTROLS = {"ExposureTime": (1, 1e6, 1), "AnalogueGain": (1.0, 16.0, 1.0)}
"""``camera_controls`` ranges (min, max, default) of a sensor with fixed focus."""


class FakeRequest:
    """One captured request: its sensor time stamp (ns) and image; records its release."""

    def __init__(self, cam: "FakePicamera2", n: int, image: np.ndarray):
        self.cam, self.image = cam, image
        self.stamp_ns = cam.stamp0_ns + n * 33_333_333
        self.released = False

    def get_metadata(self):
        self.cam.calls.append(("metadata",))
        return {"SensorTimestamp": self.stamp_ns, "ExposureTime": 8000}

    def release(self):
        self.released = True
        self.cam.calls.append(("release", self.stamp_ns))


class FakeJob:
    """What ``capture_request(wait=False)`` returns; ``ready`` False is a stalled camera."""

    def __init__(self, request: FakeRequest, ready: bool = True):
        self.request, self.ready = request, ready


class FakePicamera2:
    """A ``Picamera2`` that records every call in ``calls``.

    ``frame``: gives the image each request shows (default a 4x6 uint8 BGR patch of 7s).
    ``settle``: the metadata the automatic controls give, one dict per ``capture_metadata``
    call, then ``locked`` (default the last of ``settle``) for ever.  ``autofocus``: the
    sensor has a lens position control.  ``late``: capture jobs never become ready.
    ``bad_array``: mapping a buffer fails.  ``stamp0_ns``: the first sensor time stamp."""

    def __init__(self, frame: Callable[[], np.ndarray] | None = None, autofocus: bool = True,
                 settle: list[dict] | None = None, locked: dict | None = None, late: bool = False,
                 bad_array: bool = False, stamp0_ns: int = 1_000_000_000, controls: dict | None = None):
        self.calls: list[tuple] = []
        self.camera_controls = dict(DEFAULT_CONTROLS if controls is None else controls)
        if autofocus:
            self.camera_controls["LensPosition"] = (0.0, 15.0, 1.0)
        self.settle = list(settle or [{}])
        self.locked = dict(locked if locked is not None else self.settle[-1])
        self.frame = frame or (lambda: np.full((4, 6, 3), 7, np.uint8))
        self.late, self.bad_array, self.stamp0_ns = late, bad_array, stamp0_ns
        self.requests: list[FakeRequest] = []

    def create_video_configuration(self, main):
        self.calls.append(("create", dict(main)))
        return {"main": main}

    def configure(self, cfg):
        self.calls.append(("configure",))

    def start(self):
        self.calls.append(("start",))

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))

    def set_controls(self, controls):
        self.calls.append(("set_controls", dict(controls)))

    def autofocus_cycle(self):
        self.calls.append(("autofocus_cycle",))
        return True

    def capture_metadata(self):
        self.calls.append(("capture_metadata",))
        return self.settle.pop(0) if self.settle else dict(self.locked)

    def capture_request(self, wait=None):
        assert wait is False, "capture_request must not block"
        req = FakeRequest(self, len(self.requests) + 1, self.frame())
        self.requests.append(req)
        self.calls.append(("capture_request",))
        return FakeJob(req, ready=not self.late)

    def wait(self, job, timeout=None):
        self.calls.append(("wait", timeout))
        if not job.ready:
            raise TimeoutError
        return job.request


class FakeMapped:
    """``picamera2.MappedArray``: the request's image as ``array``."""

    def __init__(self, request: FakeRequest, stream):
        self.request = request
        if request.cam.bad_array:
            raise RuntimeError("buffer could not be mapped")
        self.array = request.image

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def fake_module(cams: list, **camera_kw) -> types.SimpleNamespace:
    """A ``picamera2`` module (for ``sys.modules``) whose every ``Picamera2()`` is a
    :class:`FakePicamera2` made with ``camera_kw`` and appended to ``cams``."""

    def make():
        cam = FakePicamera2(**camera_kw)
        cams.append(cam)
        return cam

    return types.SimpleNamespace(Picamera2=make, MappedArray=FakeMapped)
