"""Camera controls that do not drift: settle exposure, gain, white balance and focus once,
lock them, store them, and apply them at every start.

Automatic exposure and white balance re-adjust when a hand or a sleeve enters the frame, so
the colours of every space would shift between two still frames of the same board (and away
from the colour profile, calibrated under other settings); an autofocus lens may hunt when a
hand passes.  A machine-vision rig locks them:

- Pi camera (``picamera2``/libcamera controls): ``AeEnable`` and ``AwbEnable`` off, a fixed
  ``ExposureTime`` (µs), ``AnalogueGain`` and ``ColourGains`` (red, blue), and on a module with
  autofocus (Camera Module 3) ``AfMode`` manual with a fixed ``LensPosition`` (dioptres).
- USB webcam (OpenCV, V4L2): ``CAP_PROP_AUTO_EXPOSURE`` manual, ``CAP_PROP_AUTO_WB`` off and
  ``CAP_PROP_AUTOFOCUS`` off where the driver offers them, with the values it settled on; what
  the driver refuses is listed in :attr:`CameraSettings.not_locked` and said at start.

The settings are kept in a small JSON file beside the colour profile (``camera-settings.json``),
separate from the profile itself.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SETTINGS_FILE = "camera-settings.json"
AF_MODE_MANUAL = 0
"""libcamera ``AfModeEnum.Manual``; ``2`` is ``Continuous``."""
AF_MODE_CONTINUOUS = 2


class CameraSettingsError(ValueError):
    """A camera settings file that cannot be used (not JSON, a field missing or out of range)."""


@dataclass
class CameraSettings:
    """Locked camera settings.

    ``camera``: ``"picamera2"`` or ``"opencv"``.  Pi camera: ``exposure_time_us`` (µs, int),
    ``analogue_gain`` (>= 1.0), ``colour_gains`` (red, blue gains), ``lens_position``
    (dioptres; ``None`` on a fixed-focus module).  Webcam: ``opencv`` maps OpenCV property
    names (``"CAP_PROP_EXPOSURE"``...) to the driver's values (driver units).  ``not_locked``
    names what the camera would not lock.
    """

    camera: str
    exposure_time_us: int | None = None
    analogue_gain: float | None = None
    colour_gains: tuple[float, float] | None = None
    lens_position: float | None = None
    opencv: dict[str, float] = field(default_factory=dict)
    not_locked: list[str] = field(default_factory=list)

    def picamera2_controls(self) -> dict[str, Any]:
        """The libcamera controls that lock this camera, in the order they are set."""
        controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        if self.exposure_time_us is not None:
            controls["ExposureTime"] = int(self.exposure_time_us)
        if self.analogue_gain is not None:
            controls["AnalogueGain"] = float(self.analogue_gain)
        if self.colour_gains is not None:
            controls["ColourGains"] = (float(self.colour_gains[0]), float(self.colour_gains[1]))
        if self.lens_position is not None:
            controls["AfMode"] = AF_MODE_MANUAL
            controls["LensPosition"] = float(self.lens_position)
        return controls

    def describe(self) -> str:
        """One line for the terminal: what is locked, and what the camera would not lock."""
        parts = []
        if self.exposure_time_us is not None:
            parts.append(f"exposure {self.exposure_time_us} µs")
        if self.analogue_gain is not None:
            parts.append(f"gain {self.analogue_gain:.2f}")
        if self.colour_gains is not None:
            parts.append(f"colour gains {self.colour_gains[0]:.2f}/{self.colour_gains[1]:.2f}")
        if self.lens_position is not None:
            parts.append(f"focus {self.lens_position:.2f} dioptres")
        parts += [f"{k.removeprefix('CAP_PROP_').lower()} {v:g}" for k, v in self.opencv.items()]
        line = "camera controls locked: " + (", ".join(parts) or "none")
        if self.not_locked:
            line += "; could not lock " + ", ".join(self.not_locked) + " (the driver does not offer it)"
        return line

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["colour_gains"] = list(self.colour_gains) if self.colour_gains is not None else None
        return doc

    @classmethod
    def from_json(cls, doc: Any) -> "CameraSettings":
        """Raises :class:`CameraSettingsError` naming the bad field."""
        if not isinstance(doc, dict):
            raise CameraSettingsError("camera settings: not a JSON object")
        if doc.get("camera") not in ("picamera2", "opencv"):
            raise CameraSettingsError("camera settings: field camera must be 'picamera2' or 'opencv'")

        def number(name: str, low: float, high: float) -> float | None:
            v = doc.get(name)
            if v is None:
                return None
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not low <= v <= high:
                raise CameraSettingsError(f"camera settings: field {name} must be a number from {low} to {high}")
            return float(v)

        gains = doc.get("colour_gains")
        if gains is not None:
            if (not isinstance(gains, list) or len(gains) != 2
                    or not all(isinstance(g, (int, float)) and 0 < g <= 32 for g in gains)):
                raise CameraSettingsError("camera settings: field colour_gains must be [red, blue] gains from 0 to 32")
            gains = (float(gains[0]), float(gains[1]))
        exposure = number("exposure_time_us", 1, 10_000_000)
        opencv = doc.get("opencv") or {}
        if not isinstance(opencv, dict) or not all(isinstance(v, (int, float)) for v in opencv.values()):
            raise CameraSettingsError("camera settings: field opencv must map property names to numbers")
        not_locked = doc.get("not_locked") or []
        if not isinstance(not_locked, list):
            raise CameraSettingsError("camera settings: field not_locked must be a list")
        return cls(camera=doc["camera"], exposure_time_us=None if exposure is None else int(exposure),
                   analogue_gain=number("analogue_gain", 1.0, 64.0), colour_gains=gains,
                   lens_position=number("lens_position", 0.0, 32.0), opencv={str(k): float(v) for k, v in opencv.items()},
                   not_locked=[str(x) for x in not_locked])

    def save(self, path: str | Path) -> None:
        """Write the settings as JSON (raises OSError)."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "CameraSettings":
        """Read settings written by :meth:`save`; raises OSError or :class:`CameraSettingsError`."""
        try:
            doc = json.loads(Path(path).read_text())
        except json.JSONDecodeError as e:
            raise CameraSettingsError(f"{path}: not JSON ({e.msg}, line {e.lineno})") from None
        try:
            return cls.from_json(doc)
        except CameraSettingsError as e:
            raise CameraSettingsError(f"{path}: {e}") from None


def settings_beside(profile: str | Path) -> Path:
    """Where the camera settings for a colour profile are kept: the same folder."""
    return Path(profile).with_name(SETTINGS_FILE)


# --- Pi camera ---------------------------------------------------------------------------------

def settle_picamera2(cam, settle_s: float = 3.0, stable_frames: int = 5, clock=time.monotonic) -> CameraSettings:
    """Let a started ``Picamera2`` settle its automatic controls, then read what they chose.

    Runs auto exposure and white balance (and one autofocus cycle on a module that has
    ``LensPosition``) until ``ExposureTime``, ``AnalogueGain`` and ``ColourGains`` in the
    frame metadata stay within 2 % for ``stable_frames`` frames, or ``settle_s`` s pass.
    Returns the settings to lock (:meth:`CameraSettings.picamera2_controls`); raises nothing
    of its own (picamera2 errors pass through).
    """
    has_af = "LensPosition" in getattr(cam, "camera_controls", {})
    auto: dict[str, Any] = {"AeEnable": True, "AwbEnable": True}
    if has_af:
        auto["AfMode"] = AF_MODE_CONTINUOUS
    cam.set_controls(auto)
    if has_af:
        cam.autofocus_cycle()
    deadline = clock() + settle_s
    last, steady, md = None, 0, {}
    while clock() < deadline and steady < stable_frames:
        md = cam.capture_metadata()
        now = (md.get("ExposureTime"), md.get("AnalogueGain"), tuple(md.get("ColourGains") or ()))
        if last is not None and _close(now, last):
            steady += 1
        else:
            steady = 0
        last = now
    gains = md.get("ColourGains")
    return CameraSettings(
        camera="picamera2",
        exposure_time_us=int(md["ExposureTime"]) if md.get("ExposureTime") else None,
        analogue_gain=max(1.0, float(md["AnalogueGain"])) if md.get("AnalogueGain") else None,
        colour_gains=(float(gains[0]), float(gains[1])) if gains else None,
        lens_position=float(md["LensPosition"]) if has_af and md.get("LensPosition") is not None else None,
        not_locked=[] if gains and md.get("ExposureTime") else ["exposure or white balance (no metadata)"])


def _close(a: tuple, b: tuple, rel: float = 0.02) -> bool:
    def flat(t):
        out = []
        for x in t:
            out += list(x) if isinstance(x, tuple) else [x]
        return out
    fa, fb = flat(a), flat(b)
    return len(fa) == len(fb) and all(x is not None and y is not None and abs(x - y) <= rel * max(abs(x), abs(y), 1e-9)
                                      for x, y in zip(fa, fb))


# --- USB webcams (OpenCV) ------------------------------------------------------------------------

OPENCV_SETTLE_FRAMES = 30
"""Frames a webcam is read with its automatic controls on before they are locked (about 1 s at
30 fps: UVC webcams converge on exposure and white balance within it)."""
OPENCV_SETTLE_S = 3.0
"""Longest time spent settling a webcam, however slow its frames."""
# (auto property, value meaning "auto/on" on V4L2)
_OPENCV_AUTO = [("CAP_PROP_AUTO_EXPOSURE", 3.0), ("CAP_PROP_AUTO_WB", 1.0), ("CAP_PROP_AUTOFOCUS", 1.0)]


def settle_opencv(cap, frames: int = OPENCV_SETTLE_FRAMES, settle_s: float = OPENCV_SETTLE_S,
                  clock=time.monotonic) -> int:
    """Turn a webcam's automatic exposure, white balance and focus on (``cap`` is a
    ``cv2.VideoCapture``) and read ``frames`` frames, at most ``settle_s`` s, so they settle on
    the scene before :func:`lock_opencv` holds what they chose.  A control the driver does not
    offer is skipped here (:func:`lock_opencv` names it).  Returns the frames read."""
    import cv2
    for auto, on in _OPENCV_AUTO:
        cap.set(getattr(cv2, auto), on)
    deadline, n = clock() + settle_s, 0
    while n < frames and clock() < deadline:
        ok, _ = cap.read()
        n += bool(ok)
    return n


# (auto property, value meaning "manual/off" on V4L2, the value properties it freezes)
_OPENCV_LOCKS = [
    ("CAP_PROP_AUTO_EXPOSURE", 1.0, ["CAP_PROP_EXPOSURE", "CAP_PROP_GAIN"], "exposure"),
    ("CAP_PROP_AUTO_WB", 0.0, ["CAP_PROP_WB_TEMPERATURE"], "white balance"),
    ("CAP_PROP_AUTOFOCUS", 0.0, ["CAP_PROP_FOCUS"], "focus"),
]


def lock_opencv(cap, settings: CameraSettings | None = None) -> CameraSettings:
    """Turn a webcam's automatic exposure, white balance and focus off (``cap`` is a
    ``cv2.VideoCapture``) and hold the values it had settled on, or those of ``settings``.

    Returns what is now locked; :attr:`CameraSettings.not_locked` names each control the driver
    refused (``set`` returned false, or ``get`` does not read back the value).
    """
    import cv2
    out = CameraSettings(camera="opencv")
    for auto, manual, values, what in _OPENCV_LOCKS:
        prop = getattr(cv2, auto)
        held = {name: (settings.opencv.get(name) if settings and name in settings.opencv else cap.get(getattr(cv2, name)))
                for name in values}
        if not cap.set(prop, manual) or abs(cap.get(prop) - manual) > 1e-6:
            out.not_locked.append(what)
            continue
        for name, value in held.items():
            if value is not None and cap.set(getattr(cv2, name), value):
                out.opencv[name] = float(value)
    return out
