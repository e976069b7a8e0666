"""mycelium-companion doctor: every check against fake probes (each failure says what to do),
the real reader probe on a virtual reader, and the command line (text, --json, exit status)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from companion import doctor as D
from companion.cli import main

GOOD_INTRINSICS = {"image_size": [1920, 1080], "rms_px": 0.31, "camera_matrix": [[1500, 0, 960], [0, 1500, 540], [0, 0, 1]],
                   "dist": [0.01, -0.02, 0, 0, 0]}


class FakeProbes(D.Probes):
    """A Pi where everything is well; tests change one thing at a time."""

    def __init__(self, tmp: Path):
        self.camera_list: list[dict] | Exception = [{"Model": "imx708", "Location": 2}]
        self.port_info = {"exists": True, "target": "/dev/ttyUSB0", "rw": True, "group": "dialout", "mode": "660"}
        self.reply = D.ReaderReply("answered", {"protocol": 1, "firmware": "1.0.0", "boot_id": 7, "health": "ok"})
        self.group_sets = ({"pi", "dialout", "video"}, {"pi", "dialout", "video"})
        self.free = 20e9
        self.clock = 1798000000.0  # 2026-12-23
        self.synced: bool | None = True
        self.lan: str | None = "192.168.1.20"
        self.answering = {"http://192.168.1.20:8080/api/state", "http://127.0.0.1:8080/api/state"}
        self.status = {"reader": {"state": "connected", "detail": "/dev/ttyUSB0"}}
        self.join_url = "http://192.168.1.20:8080/"
        self.me = "pi"
        self.hello_asked: list[tuple[str, str]] = []
        self.log_dir = tmp / "data"
        self.log_dir.mkdir()

    def cameras(self, spec):
        if isinstance(self.camera_list, Exception):
            raise self.camera_list
        return self.camera_list

    def users(self):
        return self.me, "pi"

    def find_port(self):
        return "/dev/ttyUSB0"

    def port(self, path):
        return self.port_info

    def groups(self):
        return self.group_sets

    def reader_hello(self, path, driver, timeout):
        self.hello_asked.append((path, driver))
        return self.reply

    def dashboard_status(self, port):
        return self.status

    def free_bytes(self, path):
        return int(self.free)

    def now(self):
        return self.clock

    def clock_synced(self):
        return self.synced

    def lan_address(self):
        return self.lan

    def http_get(self, url, timeout):
        if url.replace("/join", "/api/state") not in self.answering:
            raise ConnectionRefusedError(111, "Connection refused")
        if url.endswith("/join"):
            return f'<p class="url"><a href="{self.join_url}">{self.join_url}</a></p>'
        return json.dumps({"status": self.status})


@pytest.fixture
def table(tmp_path):
    """A calibrated table: settings file, profile, locked camera settings, intrinsics."""
    conf = tmp_path / "config"
    conf.mkdir()
    from companion.vision.profile import DEFAULT_PROFILE_PATH
    profile = json.loads(DEFAULT_PROFILE_PATH.read_text())
    profile["camera"] = "imx708"
    (conf / "colours.json").write_text(json.dumps(profile))
    (conf / "camera-controls.json").write_text(json.dumps(
        {"camera": "imx708", "controls": {"AeEnable": False, "AwbEnable": False, "ExposureTime": 12000,
                                          "AnalogueGain": 2.0, "ColourGains": [1.9, 1.6]}}))
    (conf / "intrinsics.json").write_text(json.dumps({**GOOD_INTRINSICS, "camera": "imx708"}))
    settings = tmp_path / "mycelium-companion"
    probes = FakeProbes(tmp_path)
    settings.write_text(f"MYCELIUM_CAMERA=picamera2\nMYCELIUM_RFID=/dev/mycelium-reader\n"
                        f"MYCELIUM_ARGS=--colors blue,orange --profile {conf}/colours.json "
                        f"--intrinsics {conf}/intrinsics.json --db {probes.log_dir}/games.sqlite3\n")
    return probes, settings, conf


def checks(probes, settings, **override) -> dict[str, D.Check]:
    s = D.read_settings(settings)
    for k, v in override.items():
        setattr(s, k, v)
    return {c.name: c for c in D.run_checks(probes, s, reader_timeout=0.1)}


def only_failure(probes, settings, **override) -> D.Check:
    got = checks(probes, settings, **override)
    failed = [c for c in got.values() if c.status == "fail"]
    assert len(failed) == 1, [c.line() for c in failed]
    assert failed[0].fix, f"{failed[0].name} fails without saying what to do"
    return failed[0]


def test_all_well_on_a_calibrated_table(table):
    probes, settings, _ = table
    got = checks(probes, settings)
    assert {c.status for c in got.values()} == {"ok"}, [c.line() for c in got.values() if c.status != "ok"]
    assert got["camera"].detail == "Camera Module 3 (imx708)"
    assert "firmware 1.0.0, protocol 1" in got["firmware"].detail
    assert "made with this camera" in got["intrinsics"].detail
    assert probes.hello_asked == [("/dev/mycelium-reader", "companion")]


def test_settings_file_is_what_the_service_runs_with(table):
    _, settings, conf = table
    s = D.read_settings(settings)
    assert (s.camera, s.rfid, s.profile, s.intrinsics) == ("picamera2", "/dev/mycelium-reader",
                                                         f"{conf}/colours.json", f"{conf}/intrinsics.json")
    assert D.read_settings(settings.parent / "missing").source == "no settings file"


def test_doctor_under_sudo_warns_that_it_sees_roots_folders(table):
    probes, settings, _ = table
    probes.me = "root"
    c = checks(probes, settings)["user"]
    assert c.status == "warn" and "without sudo" in c.fix


def test_picamera2_missing_from_the_venv(table):
    probes, settings, _ = table
    probes.camera_list = D.ProbeError("picamera2 cannot be imported (No module named 'libcamera')")
    got = checks(probes, settings)
    assert got["camera"].status == "fail" and "make pi" in got["camera"].fix
    assert got["colour profile"].status == "unknown", "no camera to compare the calibration with"


def test_no_camera_on_the_ribbon(table):
    probes, settings, _ = table
    probes.camera_list = []
    got = checks(probes, settings)
    assert got["camera"].status == "fail" and "ribbon" in got["camera"].fix


def test_calibrated_with_another_camera(table):
    probes, settings, _ = table
    probes.camera_list = [{"Model": "imx219"}]
    got = checks(probes, settings)
    assert got["colour profile"].status == "fail" and "Camera Module 2 (imx219)" in got["colour profile"].detail
    assert got["intrinsics"].status == "fail"


def test_auto_exposure_left_on(table):
    probes, settings, conf = table
    (conf / "camera-controls.json").write_text(json.dumps({"controls": {"AeEnable": True, "AwbEnable": False}}))
    c = only_failure(probes, settings)
    assert c.name == "camera locked" and "AeEnable" in c.detail


def test_no_saved_camera_settings_is_unknown_not_failed(table):
    probes, settings, conf = table
    (conf / "camera-controls.json").unlink()
    got = checks(probes, settings)
    assert got["camera locked"].status == "unknown"
    assert not any(c.status == "fail" for c in got.values())


def test_reader_unplugged(table):
    probes, settings, _ = table
    probes.port_info = {"exists": False}
    c = only_failure(probes, settings)
    assert c.name == "reader" and "nothing at /dev/mycelium-reader" in c.detail and "make pi" in c.fix


def test_reader_silent(table):
    probes, settings, _ = table
    probes.reply = D.ReaderReply("silent")
    c = only_failure(probes, settings)
    assert c.name == "reader" and "no HELLO" in c.detail and "flash" in c.fix


def test_reader_speaks_another_protocol(table):
    probes, settings, _ = table
    probes.reply = D.ReaderReply("refused", detail="reader speaks protocol 2, this host speaks 1")
    c = only_failure(probes, settings)
    assert c.name == "firmware" and "protocol 2" in c.detail and "make -C hardware firmware flash PORT=/dev/ttyUSB0" in c.fix


def test_reader_reports_a_fault(table):
    probes, settings, _ = table
    probes.reply.info["health"] = {"ok": False, "rfid_chip": "no answer"}
    c = only_failure(probes, settings)
    assert c.name == "reader health" and "rfid_chip" in c.detail


def test_reader_health_not_reported_yet_is_unknown(table):
    probes, settings, _ = table
    del probes.reply.info["health"]
    got = checks(probes, settings)
    assert got["reader health"].status == "unknown" and got["reader"].status == "ok"


def test_reader_in_use_by_the_running_companion_is_not_disturbed(table):
    probes, settings, _ = table
    probes.reply = D.ReaderReply("busy")
    got = checks(probes, settings)
    assert got["reader"].status == "ok" and "connected /dev/ttyUSB0" in got["reader"].detail
    assert got["firmware"].status == "unknown" and "systemctl stop" in got["firmware"].fix


def test_a_reader_without_handshake_is_not_claimed_to_answer(table):
    probes, settings, _ = table
    probes.reply = D.ReaderReply("answered", {})
    got = checks(probes, settings, driver="rdm6300", rfid="/dev/serial0")
    assert "sends nothing until a tag passes" in got["reader"].detail and "firmware" not in got
    assert probes.hello_asked == [("/dev/serial0", "rdm6300")]


def test_port_permission_missing(table):
    probes, settings, _ = table
    probes.port_info = {**probes.port_info, "rw": False}
    probes.group_sets = ({"pi"}, {"pi"})
    c = only_failure(probes, settings)
    assert c.name == "port" and "usermod -aG dialout" in c.fix


def test_port_permission_needs_a_new_login(table):
    probes, settings, _ = table
    probes.port_info = {**probes.port_info, "rw": False}
    probes.group_sets = ({"pi"}, {"pi", "dialout"})
    c = only_failure(probes, settings)
    assert c.name == "port" and "log out and in again" in c.fix


def test_log_folder_not_writable(table):
    probes, settings, _ = table
    os.chmod(probes.log_dir, 0o500)
    try:
        if os.access(probes.log_dir, os.W_OK):
            probes.writable = lambda path: False  # root may write anywhere: the probe says no instead
        c = only_failure(probes, settings)
    finally:
        os.chmod(probes.log_dir, 0o700)
    assert c.name == "log folder" and "not writable" in c.detail


def test_disk_almost_full(table):
    probes, settings, _ = table
    probes.free = 20e6
    c = only_failure(probes, settings)
    assert c.name == "log folder" and "20 MB free" in c.detail
    probes.free = 300e6
    assert checks(probes, settings)["log folder"].status == "warn"


def test_clock_never_set(table):
    probes, settings, _ = table
    probes.clock = 0.0
    probes.synced = False
    c = only_failure(probes, settings)
    assert c.name == "clock" and "1970-01-01" in c.detail and "--resume" in c.detail and "--game" in c.fix


def test_clock_not_synchronised_is_a_warning_saying_what_it_affects(table):
    probes, settings, _ = table
    probes.synced = False
    c = checks(probes, settings)["clock"]
    assert c.status == "warn" and "log's times" in c.detail and "order of moves" in c.detail


def test_no_network(table):
    probes, settings, _ = table
    probes.lan = None
    c = only_failure(probes, settings)
    assert c.name == "dashboard" and "no LAN address" in c.detail


def test_dashboard_not_running(table):
    probes, settings, _ = table
    probes.answering = set()
    probes.status = None
    c = only_failure(probes, settings)
    assert c.name == "dashboard" and "http://192.168.1.20:8080/" in c.detail and "journalctl" in c.fix


def test_dashboard_bound_to_localhost_only(table):
    probes, settings, _ = table
    probes.answering = {"http://127.0.0.1:8080/api/state"}
    c = only_failure(probes, settings)
    assert "0.0.0.0" in c.fix


def test_qr_code_with_a_bare_host_name_is_a_warning(table):
    probes, settings, _ = table
    probes.join_url = "http://raspberrypi:8080/"
    c = checks(probes, settings)["dashboard"]
    assert c.status == "warn" and "http://raspberrypi:8080/" in c.detail and "http://192.168.1.20:8080/" in c.fix


def test_no_profile_or_intrinsics_set(table):
    probes, settings, _ = table
    got = checks(probes, settings, profile=None, intrinsics=None)
    assert got["colour profile"].status == "fail" and "calibrate pieces" in got["colour profile"].fix
    assert got["intrinsics"].status == "fail" and "calibrate camera" in got["intrinsics"].fix


def test_a_tilde_in_the_service_settings_is_caught(table, tmp_path):
    probes, settings, _ = table
    settings.write_text("MYCELIUM_ARGS=--profile ~/.config/mycelium-companion/colours.json\n")
    c = checks(probes, settings)["colour profile"]
    assert c.status == "fail" and "full path" in c.fix


def test_profile_unreadable(table):
    probes, settings, conf = table
    (conf / "colours.json").write_text('{"version": 1, "classes": {}}')
    c = only_failure(probes, settings)
    assert c.name == "colour profile"


def test_intrinsics_from_another_frame_size(table):
    probes, settings, conf = table
    (conf / "intrinsics.json").write_text(json.dumps({**GOOD_INTRINSICS, "image_size": [1280, 720]}))
    c = only_failure(probes, settings)
    assert c.name == "intrinsics" and "1280x720" in c.detail


def test_calibration_without_camera_record_is_unknown(table):
    probes, settings, conf = table
    (conf / "intrinsics.json").write_text(json.dumps(GOOD_INTRINSICS))
    c = checks(probes, settings)["intrinsics"]
    assert c.status == "unknown" and "not recorded" in c.detail


def test_wait_for_camera_returns_once_it_appears():
    class Late(D.Probes):
        calls = 0

        def cameras(self, spec):
            Late.calls += 1
            return [{"Model": "imx708_wide"}] if Late.calls >= 3 else []

    slept = []
    c = D.wait_for_camera(Late(), D.Settings(), 60, sleep=slept.append)
    assert c.status == "ok" and c.detail == "Camera Module 3 Wide (imx708_wide)" and len(slept) == 2
    Late.calls = -10**9
    assert D.wait_for_camera(Late(), D.Settings(), 0, sleep=slept.append).status == "fail"
    stream = D.wait_for_camera(Late(), D.Settings(camera="rtsp://cam.local/1"), 60, sleep=slept.append)
    assert stream.status == "unknown" and len(slept) == 2, "a stream is not waited for"


# -- the command line ------------------------------------------------------------------------------
@pytest.fixture
def cli(table, monkeypatch):
    probes, settings, conf = table
    monkeypatch.setattr("companion.doctor.probes.Probes", lambda: probes)
    return probes, settings, conf


def test_cli_all_well_exits_0(cli, capsys):
    probes, settings, _ = cli
    assert main(["doctor", "--settings", str(settings)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "All is well."
    assert out[0].startswith("OK") and "camera" in out[0]


def test_cli_failure_exits_1_with_the_fix_on_the_line(cli, capsys):
    probes, settings, _ = cli
    probes.reply = D.ReaderReply("silent")
    assert main(["doctor", "--settings", str(settings)]) == 1
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("FAIL"))
    assert "reader" in line and "Do: " in line
    assert out.splitlines()[-1] == "1 check failed."


def test_cli_json_for_scripts(cli, capsys):
    probes, settings, _ = cli
    probes.synced = False
    assert main(["doctor", "--settings", str(settings), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True and doc["settings"] == str(settings)
    by_name = {c["name"]: c for c in doc["checks"]}
    assert by_name["clock"]["status"] == "warn" and set(by_name["clock"]) == {"name", "status", "detail", "fix"}


def test_cli_arguments_override_the_service_settings(cli, capsys):
    probes, settings, _ = cli
    assert main(["doctor", "--settings", str(settings), "--rfid", "none", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert probes.hello_asked == [] and "not used" in doc["checks"][2]["detail"]


def test_cli_wait_camera(cli, capsys):
    probes, settings, _ = cli
    probes.camera_list = []
    assert main(["doctor", "--settings", str(settings), "--wait-camera", "0"]) == 1
    assert capsys.readouterr().out.startswith("FAIL    camera")


# -- the real reader probe, on a virtual reader behind a pty -----------------------------------------
def test_reader_probe_gets_the_hello_of_a_virtual_reader():
    from firmware_bridge.virtual import VirtualReader
    with VirtualReader("companion") as dev:
        reply = D.Probes().reader_hello(dev.port, "companion", 5.0)
    assert reply.state == "answered" and reply.info["protocol"] == 1 and reply.info["firmware"] == "1.0.0"


def test_reader_probe_reports_a_protocol_mismatch(monkeypatch):

    from firmware_bridge import protocol as P
    from firmware_bridge.virtual import VirtualReader
    real_hello = P.hello_frame
    monkeypatch.setattr(P, "hello_frame", lambda *a, **k: real_hello(*a, **{**k, "protocol": 2, "fw": (2, 0, 0)}))
    with VirtualReader("companion") as dev:
        reply = D.Probes().reader_hello(dev.port, "companion", 5.0)
    assert reply.state == "refused" and "protocol 2" in reply.detail


def test_reader_probe_leaves_a_port_in_use_alone():
    import fcntl

    from firmware_bridge.virtual import VirtualReader
    with VirtualReader("companion") as dev:
        fd = os.open(dev.port, os.O_RDWR | os.O_NOCTTY)
        fcntl.flock(fd, fcntl.LOCK_EX)  # what the running companion's pyserial (exclusive=True) holds
        try:
            assert D.Probes().reader_hello(dev.port, "companion", 1.0).state == "busy"
        finally:
            os.close(fd)


# -- the real HTTP probe, against a running dashboard ---------------------------------------------
def test_dashboard_check_against_a_running_dashboard():
    from web.demo import demo_session
    from web.server import serve

    class Loopback(D.Probes):
        def lan_address(self):
            return "127.0.0.1"

    srv = serve(demo_session("competitive", 2, seed=3), host="127.0.0.1", port=0, announce=False)
    try:
        ok = D.check_dashboard(Loopback(), D.Settings(port=srv.port))
    finally:
        srv.shutdown()
    assert ok.status == "ok" and ok.detail == f"http://127.0.0.1:{srv.port}/ answers"
    gone = D.check_dashboard(Loopback(), D.Settings(port=srv.port))
    assert gone.status == "fail" and "nothing answers" in gone.detail


def test_reader_health_as_the_bridge_describes_it():
    from firmware_bridge import protocol as P
    assert D.check_reader_health(P.describe_health(0)).status == "ok"
    bad = D.check_reader_health(P.describe_health(P.HEALTH_NO_CHIP))
    assert bad.status == "fail" and "does not answer" in bad.detail
    assert D.check_reader_health(P.describe_health(None)).status == "unknown"
