"""``doctor`` reads the camera settings ``calibrate pieces --camera`` stores, and its advice
names the user's real config folder ($XDG_CONFIG_HOME), not a ``~/.config`` it does not use."""

from __future__ import annotations

from test_doctor import checks, table  # noqa: F401 - the fixture is used by name

from companion.table.camera_controls import CameraSettings


def test_the_settings_stored_at_calibration_are_read(table):  # noqa: F811
    probes, settings, conf = table
    (conf / "camera-controls.json").unlink()
    CameraSettings("picamera2", 12000, 2.0, (1.9, 1.6), 3.2).save(conf / "camera-settings.json")
    got = checks(probes, settings)["camera locked"]
    assert got.status == "ok" and "camera-settings.json" in got.detail and "exposure 12000 µs" in got.detail
    CameraSettings("opencv", opencv={"CAP_PROP_EXPOSURE": 156.0}, not_locked=["white balance"]).save(
        conf / "camera-settings.json")
    got = checks(probes, settings)["camera locked"]
    assert got.status == "warn" and "could not lock white balance" in got.detail


def test_advice_writes_out_the_config_folder_in_use(table, monkeypatch, tmp_path):  # noqa: F811
    probes, settings, conf = table
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    got = checks(probes, settings, profile=None, intrinsics=None)
    assert f"--out {tmp_path / 'xdg' / 'mycelium-companion' / 'colours.json'}" in got["colour profile"].fix
    assert "--camera picamera2" in got["colour profile"].fix
    assert f"--out {tmp_path / 'xdg' / 'mycelium-companion' / 'intrinsics.json'}" in got["intrinsics"].fix
    assert "~/.config" not in got["colour profile"].fix + got["intrinsics"].fix
