"""Camera controls are settled and locked at calibration (``calibrate pieces --camera``), stored
beside the profile, and the next ``run`` applies them without settling again.

The Pi camera is a fake ``picamera2`` module that records every call; the webcam is a fake
``cv2.VideoCapture`` whose driver refuses one control.  Both show the rendered calibration
layouts: the layout on the table changes when the user presses Enter."""

from __future__ import annotations

import argparse
import io
import json
import sys

import cv2
import numpy as np
import pytest

from calibration import cli as calib_cli
from companion.table import cli as table_cli
from fake_picamera2 import fake_module

LOCKED = {"ExposureTime": 14000, "AnalogueGain": 1.8, "ColourGains": (2.1, 1.6), "LensPosition": 2.5}


class Table:
    """What lies in front of the camera: the photo of the layout set up now; ``Enter`` (a
    line read from stdin) means the next layout has been laid out."""

    def __init__(self, photos, grey=False):
        self.photos, self.shown = photos, 0
        self.grey = grey

    def frame(self) -> np.ndarray:
        img = self.photos[min(self.shown, len(self.photos) - 1)]
        if self.grey:
            img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        return img.copy()


class Stdin(io.StringIO):
    """The user: presses Enter ``presses`` times, after laying out the next layout each time."""

    def __init__(self, table: Table, presses: int):
        super().__init__()
        self.table, self.left, self.first = table, presses, True

    def readline(self, *a):
        if self.left == 0:
            return ""
        self.left -= 1
        if not self.first:
            self.table.shown += 1
        self.first = False
        return "\n"


def fake_picamera2(table: Table, cams: list):
    """A ``picamera2`` module whose cameras show ``table`` and record their calls in order."""
    drift = [{"ExposureTime": 9000 + 1000 * i, "AnalogueGain": 1.2, "ColourGains": (1.8, 1.4), "LensPosition": 1.0}
             for i in range(4)]
    return fake_module(cams, frame=table.frame, settle=drift, locked=LOCKED, stamp0_ns=5_000_000_000,
                       controls={"ExposureTime": (1, 1e6, 1)})


def fake_webcam(table: Table, caps: list, refuses=("CAP_PROP_AUTOFOCUS",)):
    """A ``cv2.VideoCapture`` for index devices: records ``set`` calls and reads in order."""
    refused = {getattr(cv2, n) for n in refuses}

    class Capture:
        def __init__(self, device):
            self.calls = []
            self.props = {cv2.CAP_PROP_AUTO_EXPOSURE: 1.0, cv2.CAP_PROP_EXPOSURE: 80.0, cv2.CAP_PROP_GAIN: 0.0,
                          cv2.CAP_PROP_AUTO_WB: 0.0, cv2.CAP_PROP_WB_TEMPERATURE: 6500.0, cv2.CAP_PROP_FOCUS: 0.0}
            caps.append(self)

        def isOpened(self):
            return True

        def set(self, prop, value):
            if prop in refused:
                return False
            self.calls.append(("set", prop, value))
            self.props[prop] = value
            return True

        def get(self, prop):
            if prop == cv2.CAP_PROP_EXPOSURE and self.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 3.0:
                return 156.0          # what auto exposure chose on this table
            if prop == cv2.CAP_PROP_WB_TEMPERATURE and self.props[cv2.CAP_PROP_AUTO_WB] == 1.0:
                return 4300.0
            return self.props.get(prop, 0.0)

        def read(self):
            self.calls.append(("read",))
            return True, table.frame()

        def release(self):
            self.calls.append(("release",))

    return Capture


@pytest.fixture(scope="module")
def layouts():
    """Photos of the three calibration layouts from one mounted camera, and its intrinsics."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent / "vision"))
    from vision_frames import mild, shoot

    from calibration.colours import load_layout
    from companion.sim.render import make_camera
    from companion.vision.geometry import load_board
    from vision_frames import SIZE
    geo = load_board()
    cond = mild(colour_temperature_k=3600.0)
    cam = make_camera(geo, cond, SIZE)
    shots = [shoot(load_layout(n), geo, cond, seed=40 + n, camera=cam) for n in (1, 2, 3)]
    return [f.image for f, _ in shots], shots[0][1]


def calibrate(argv, capsys):
    parser = argparse.ArgumentParser()
    calib_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["calibrate", "pieces", *argv])
    code = args.func(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def run_args(argv):
    parser = argparse.ArgumentParser()
    table_cli.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["run", *argv])


def test_pi_camera_is_settled_and_locked_at_calibration_and_the_next_run_applies_it(tmp_path, capsys, monkeypatch, layouts):
    photos, intr = layouts
    table, cams = Table(photos), []
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2(table, cams))
    monkeypatch.setattr(sys, "stdin", Stdin(table, 3))
    k = tmp_path / "k.json"
    intr.save(k)
    prof = tmp_path / "colours.json"
    code, out, err = calibrate(["--camera", "picamera2", "--intrinsics", str(k), "--out", str(prof)], capsys)
    assert code == 0, err
    calls = cams[0].calls
    names = [c[0] for c in calls]
    sets = [c[1] for c in calls if c[0] == "set_controls"]
    # automatic controls first, one focus cycle, settle on the metadata, then lock: before any photo
    assert sets[0] == {"AeEnable": True, "AwbEnable": True, "AfMode": 2}
    assert names.index("autofocus_cycle") < names.index("capture_metadata")
    assert sets[1] == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 14000, "AnalogueGain": 1.8,
                       "ColourGains": (2.1, 1.6), "AfMode": 0, "LensPosition": 2.5}
    assert len(sets) == 2 and names.index("capture_request") > max(i for i, n in enumerate(names) if n == "set_controls")
    assert names.count("capture_request") == names.count("release")   # every buffer went back
    assert names[-2:] == ["stop", "close"]
    assert table.shown == 2                                             # all three layouts photographed
    stored = json.loads((tmp_path / "camera-settings.json").read_text())
    assert stored["exposure_time_us"] == 14000 and stored["colour_gains"] == [2.1, 1.6] and stored["lens_position"] == 2.5
    assert "camera controls locked: exposure 14000 µs" in out and "camera-settings.json" in out
    assert json.loads(prof.read_text())["classes"]

    # the next start applies the stored controls and never runs the automatic ones
    source = table_cli._camera(run_args(["--camera", "picamera2", "--profile", str(prof), "--rfid", "none"]))
    try:
        again = cams[1].calls
        assert [c[0] for c in again] == ["create", "configure", "start", "set_controls"]
        assert again[-1][1] == sets[1]
        assert source.read(1.0).t_ms == pytest.approx(5033.333333)   # the sensor's time stamp
    finally:
        source.close()

    # the setup assistant looks through the same locked controls, and writes none
    from companion.cli import main
    before = (tmp_path / "camera-settings.json").read_text()
    assert main(["camera", "check", "--camera", "picamera2", "--profile", str(prof), "--json"]) in (0, 1)
    capsys.readouterr()
    assert [c[0] for c in cams[2].calls][:4] == ["create", "configure", "start", "set_controls"]
    assert [c[1] for c in cams[2].calls if c[0] == "set_controls"] == [sets[1]]
    assert (tmp_path / "camera-settings.json").read_text() == before


def test_a_webcam_is_settled_then_locked_at_calibration_and_says_what_it_could_not_lock(tmp_path, capsys, monkeypatch, layouts):
    photos, intr = layouts
    table, caps = Table(photos), []
    monkeypatch.setattr(cv2, "VideoCapture", fake_webcam(table, caps))
    monkeypatch.setattr(sys, "stdin", Stdin(table, 1))
    k = tmp_path / "k.json"
    intr.save(k)
    prof = tmp_path / "colours.json"
    code, out, err = calibrate(["--camera", "0", "--layout", "1", "--intrinsics", str(k), "--out", str(prof)], capsys)
    assert code == 0, err
    calls = caps[0].calls
    sets = [(c[1], c[2]) for c in calls if c[0] == "set"]
    autos_on = [(cv2.CAP_PROP_AUTO_EXPOSURE, 3.0), (cv2.CAP_PROP_AUTO_WB, 1.0)]
    lock = [(cv2.CAP_PROP_AUTO_EXPOSURE, 1.0), (cv2.CAP_PROP_EXPOSURE, 156.0), (cv2.CAP_PROP_GAIN, 0.0),
            (cv2.CAP_PROP_AUTO_WB, 0.0), (cv2.CAP_PROP_WB_TEMPERATURE, 4300.0)]
    assert sets[2:4] == autos_on and sets[4:] == lock            # after the frame size: settle, then lock
    first_lock = calls.index(("set", cv2.CAP_PROP_AUTO_EXPOSURE, 1.0))
    reads = [i for i, c in enumerate(calls) if c[0] == "read"]
    assert sum(i < first_lock for i in reads) >= 20                # it watched the scene before locking
    assert "could not lock focus" in out
    stored = json.loads((tmp_path / "camera-settings.json").read_text())
    assert stored["camera"] == "opencv" and stored["not_locked"] == ["focus"]
    assert stored["opencv"] == {"CAP_PROP_EXPOSURE": 156.0, "CAP_PROP_GAIN": 0.0, "CAP_PROP_WB_TEMPERATURE": 4300.0}

    source = table_cli._camera(run_args(["--camera", "0", "--profile", str(prof), "--rfid", "none"]))
    try:
        again = [(c[1], c[2]) for c in caps[1].calls if c[0] == "set"]
        assert again[2:] == lock and not any(c[0] == "read" for c in caps[1].calls)   # applied, not settled
    finally:
        source.close()


def test_no_answer_or_a_greyscale_camera_writes_nothing_and_keeps_the_previous_profile(tmp_path, capsys, monkeypatch, layouts):
    photos, intr = layouts
    prof = tmp_path / "colours.json"
    prof.write_text('{"previous": true}\n')
    table, cams = Table(photos), []
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2(table, cams))
    monkeypatch.setattr(sys, "stdin", Stdin(table, 1))      # Enter once, then the input ends
    code, _, err = calibrate(["--camera", "picamera2", "--out", str(prof)], capsys)
    assert code == 2 and "stopped before calibration layout 2 was photographed" in err
    assert cams[0].calls[-1] == ("close",)

    grey = Table(photos, grey=True)
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2(grey, cams))
    monkeypatch.setattr(sys, "stdin", Stdin(grey, 1))
    code, _, err = calibrate(["--camera", "picamera2", "--layout", "1", "--out", str(prof)], capsys)
    assert code == 2 and "no usable colour" in err and "colour photo of the board set up as calibration layout 1" in err
    assert err.count("\n") == 1
    assert prof.read_text() == '{"previous": true}\n' and not (tmp_path / "camera-settings.json").exists()
