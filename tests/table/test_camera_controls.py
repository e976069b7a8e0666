"""Frames that do not drift: the Pi camera's automatic controls are settled once, locked,
stored and applied at every start; webcams get the same through OpenCV; frames carry the
sensor's time stamp; a capture that does not come within its timeout is not waited on, and
every request is released on every path.  ``picamera2`` cannot run here: a fake records the
calls it gets."""

import json

import pytest

from companion.table.camera_controls import CameraSettings, CameraSettingsError, lock_opencv, settings_beside
from companion.table.sources import Picamera2Source, SourceError, open_camera
from fake_picamera2 import FakeMapped, FakePicamera2


SETTLED = [{"ExposureTime": 12000, "AnalogueGain": 2.0, "ColourGains": (1.9, 1.5), "LensPosition": 3.2}] * 8
DRIFTING = [{"ExposureTime": 9000 + 500 * i, "AnalogueGain": 1.5, "ColourGains": (1.8, 1.4), "LensPosition": 3.0}
            for i in range(4)] + SETTLED


def source(cam, **kw):
    return Picamera2Source((6, 4), camera_factory=lambda: cam, mapped_array=FakeMapped, **kw)


def test_first_start_settles_then_locks_and_stores_the_controls(tmp_path):
    cam = FakePicamera2(settle=DRIFTING)
    path = settings_beside(tmp_path / "profile.json")
    src = source(cam, settings_path=path)
    src.open()
    names = [c[0] for c in cam.calls]
    assert names[:3] == ["create", "configure", "start"]
    first, last = cam.calls[3], [c for c in cam.calls if c[0] == "set_controls"][-1]
    assert first == ("set_controls", {"AeEnable": True, "AwbEnable": True, "AfMode": 2})
    assert names.index("autofocus_cycle") < names.index("capture_metadata")
    assert names.count("capture_metadata") >= 5          # waited for the drift to stop
    assert list(last[1]) == ["AeEnable", "AwbEnable", "ExposureTime", "AnalogueGain", "ColourGains", "AfMode", "LensPosition"]
    assert last[1] == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 12000, "AnalogueGain": 2.0,
                       "ColourGains": (1.9, 1.5), "AfMode": 0, "LensPosition": 3.2}
    stored = json.loads(path.read_text())
    assert stored["exposure_time_us"] == 12000 and stored["colour_gains"] == [1.9, 1.5] and stored["lens_position"] == 3.2


def test_every_later_start_applies_the_stored_controls_without_settling(tmp_path):
    path = tmp_path / "camera-settings.json"
    CameraSettings("picamera2", 12000, 2.0, (1.9, 1.5), None).save(path)
    cam = FakePicamera2(autofocus=False)
    s = source(cam, settings=CameraSettings.load(path), settings_path=path)
    s.open()
    assert [c[0] for c in cam.calls] == ["create", "configure", "start", "set_controls"]
    assert cam.calls[-1][1] == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 12000, "AnalogueGain": 2.0,
                                "ColourGains": (1.9, 1.5)}          # no lens control on a fixed-focus module


def test_frames_carry_the_sensor_time_stamp_and_every_request_is_released():
    cam = FakePicamera2(settle=SETTLED)
    src = source(cam)
    src.open()
    a, b = src.read(0.2), src.read(0.2)
    assert (a.t_ms, b.t_ms) == pytest.approx((1033.333333, 1066.666666))
    assert a.image.shape == (4, 6, 3)
    assert all(r.released for r in cam.requests)
    assert ("wait", 0.2) in cam.calls


def test_a_request_whose_buffer_cannot_be_mapped_is_still_released():
    cam = FakePicamera2(settle=SETTLED, bad_array=True)
    src = source(cam)
    src.open()
    with pytest.raises(RuntimeError, match="mapped"):
        src.read(0.2)
    assert cam.requests and all(r.released for r in cam.requests)


def test_read_honours_its_timeout_and_a_late_request_is_released_on_close():
    cam = FakePicamera2(settle=SETTLED, late=True)
    src = source(cam)
    src.open()
    assert src.read(0.1) is None and src.read(0.1) is None
    assert sum(c[0] == "capture_request" for c in cam.calls) == 1     # the same capture is waited on again
    cam.requests[0].cam.late = False
    job_request = cam.requests[0]
    src._job.ready = True
    src.close()
    assert job_request.released
    assert [c[0] for c in cam.calls][-3:] == ["release", "stop", "close"]


def test_a_camera_that_fails_to_start_is_closed_and_named():
    class Broken(FakePicamera2):
        def start(self):
            raise RuntimeError("Camera __init__ sequence did not complete")
    cam = Broken()
    with pytest.raises(SourceError, match="cannot start the Pi camera: Camera __init__"):
        source(cam).open()
    assert cam.calls[-1] == ("close",)


def test_damaged_settings_are_clear_errors(tmp_path):
    path = tmp_path / "camera-settings.json"
    path.write_text('{"camera": "picamera2", "analogue_gain": 0.2}')
    with pytest.raises(CameraSettingsError, match="analogue_gain must be a number from 1.0 to 64.0"):
        CameraSettings.load(path)
    path.write_text("{")
    with pytest.raises(SourceError, match="camera settings: .*not JSON"):
        open_camera("picamera2", settings_path=path)


class FakeCapture:
    """A ``cv2.VideoCapture`` whose driver offers some controls and refuses others."""

    def __init__(self, refuses):
        import cv2
        self.cv2, self.refuses = cv2, {getattr(cv2, n) for n in refuses}
        self.props = {cv2.CAP_PROP_AUTO_EXPOSURE: 3.0, cv2.CAP_PROP_EXPOSURE: 156.0, cv2.CAP_PROP_GAIN: 4.0,
                      cv2.CAP_PROP_AUTO_WB: 1.0, cv2.CAP_PROP_WB_TEMPERATURE: 4600.0,
                      cv2.CAP_PROP_AUTOFOCUS: 1.0, cv2.CAP_PROP_FOCUS: 30.0}
        self.sets = []

    def set(self, prop, value):
        if prop in self.refuses:
            return False
        self.sets.append((prop, value))
        self.props[prop] = value
        return True

    def get(self, prop):
        return self.props.get(prop, 0.0)


def test_a_webcam_is_locked_where_its_driver_lets_it_and_says_what_it_could_not_lock():
    import cv2
    cap = FakeCapture(refuses=["CAP_PROP_AUTOFOCUS"])
    locked = lock_opencv(cap)
    assert locked.not_locked == ["focus"]
    assert cap.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 1.0 and cap.props[cv2.CAP_PROP_AUTO_WB] == 0.0
    assert locked.opencv == {"CAP_PROP_EXPOSURE": 156.0, "CAP_PROP_GAIN": 4.0, "CAP_PROP_WB_TEMPERATURE": 4600.0}
    again = FakeCapture(refuses=[])
    lock_opencv(again, CameraSettings("opencv", opencv={"CAP_PROP_EXPOSURE": 200.0}))
    assert again.props[cv2.CAP_PROP_EXPOSURE] == 200.0 and again.props[cv2.CAP_PROP_AUTOFOCUS] == 0.0
