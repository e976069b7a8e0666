"""The systemd unit (systemd-analyze verify, and its command line parses with the real CLI) and
the udev rule's match keys."""

from __future__ import annotations

import getpass
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.pi.conftest import ROOT


def rendered_unit(installer, tmp_path) -> Path:
    """The unit for this checkout and user (its ExecStart must exist for verify)."""
    system = installer.System(Path("/"), getpass.getuser(), repo=ROOT)
    path = tmp_path / installer.SERVICE
    path.write_text(installer.unit_text(system))
    return path


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze missing (.ci/run installs systemd)")
def test_unit_passes_systemd_analyze_verify(installer, tmp_path):
    if not (ROOT / ".venv/bin/mycelium-companion").exists():
        pytest.skip("needs the checkout's .venv (make test makes it)")
    unit = rendered_unit(installer, tmp_path)
    r = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    # verify exits 0 on unknown keys and bad values too, and only says so on stderr
    assert r.returncode == 0 and r.stderr.strip() == "", r.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze missing")
def test_verify_would_catch_a_broken_unit(installer, tmp_path):
    unit = rendered_unit(installer, tmp_path)
    unit.write_text(unit.read_text().replace("Restart=on-failure", "Restart=sometimes"))
    r = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert "sometimes" in r.stderr


def unit_keys(text: str) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            keys.setdefault(k, []).append(v)
    return keys


def test_unit_starts_at_boot_resumes_restarts_and_logs_to_the_journal(installer, tmp_path):
    keys = unit_keys(rendered_unit(installer, tmp_path).read_text())
    assert keys["WantedBy"] == ["multi-user.target"]
    assert keys["Restart"] == ["on-failure"]
    assert keys["StandardOutput"] == ["journal"] and keys["StandardError"] == ["journal"]
    assert keys["User"] == [getpass.getuser()]
    (start,) = keys["ExecStart"]
    assert start.startswith(f"{ROOT}/.venv/bin/mycelium-companion run ") and "--resume" in start
    (pre,) = keys["ExecStartPre"]
    assert "doctor --wait-camera" in pre, "the service waits for the camera"
    assert "dialout" in keys["SupplementaryGroups"][0]


def expand(command: str, env: dict[str, str]) -> list[str]:
    """systemd's expansion: ${VAR} as one word, $VAR split on white space."""
    words = []
    for word in shlex.split(command):
        m = re.fullmatch(r"\$(\w+)", word)
        if m:
            words += env.get(m[1], "").split()
        else:
            words.append(re.sub(r"\$\{(\w+)\}", lambda m: env.get(m[1], ""), word))
    return words


def service_env(installer, unit_text: str) -> dict[str, str]:
    env = dict(v.split("=", 1) for v in unit_keys(unit_text)["Environment"])
    for line in (ROOT / "scripts/pi/mycelium-companion.default").read_text().splitlines():
        if line and not line.startswith("#"):
            k, v = line.split("=", 1)
            env[k] = v
    return env


def test_the_services_commands_parse_with_the_companions_own_parser(installer, tmp_path):
    from companion.cli import build_parser
    text = rendered_unit(installer, tmp_path).read_text()
    env = service_env(installer, text)
    keys = unit_keys(text)
    for key in ("ExecStartPre", "ExecStart"):
        argv = expand(keys[key][0], env)
        args = build_parser().parse_args(argv[1:])  # exits (SystemExit) on an unknown flag
        assert args.command in ("run", "doctor")
    run = build_parser().parse_args(expand(keys["ExecStart"][0], env)[1:])
    assert run.resume and run.or_new and run.host == "0.0.0.0" and run.rfid == "/dev/mycelium-reader"
    assert run.colors == "blue,orange"


def rule_lines(text: str) -> list[dict[str, str]]:
    """Each rule line as {key: value} (KEY=="v" matches and KEY+="v" / KEY="v" assignments)."""
    out = []
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            out.append({m[1] + m[2]: m[3] for m in re.finditer(r'([A-Z_]+(?:\{[^}]+\})?)\s*(==|\+=|=)\s*"([^"]*)"', line)})
    return out


def test_rule_without_serial_matches_each_known_reader_chip(installer):
    from firmware_bridge.discovery import KNOWN_USB_IDS
    assert installer.READER_USB_IDS == KNOWN_USB_IDS, "the installer's list must follow the bridge's"
    lines = rule_lines(installer.udev_rule([]))
    assert {(line["ATTRS{idVendor}=="], line["ATTRS{idProduct}=="]) for line in lines} == \
        {(f"{v:04x}", f"{p:04x}") for v, p in KNOWN_USB_IDS}
    for line in lines:
        assert line['SUBSYSTEM=='] == "tty"
        assert line['SYMLINK+='] == "mycelium-reader"
        assert line['GROUP='] == "dialout" and line["MODE="] == "0660"
        assert line['ENV{ID_MM_DEVICE_IGNORE}='] == "1"
        assert "ATTRS{serial}==" not in line


def test_rule_with_serials_matches_vid_pid_and_serial_together(installer):
    rule = installer.udev_rule([(0x0403, 0x6001, "A10KX3ZB"), (0x10C4, 0xEA60, "0001")])
    lines = rule_lines(rule)
    assert [(line["ATTRS{idVendor}=="], line["ATTRS{idProduct}=="], line["ATTRS{serial}=="]) for line in lines] == \
        [("0403", "6001", "A10KX3ZB"), ("10c4", "ea60", "0001")]
    assert all(line["SYMLINK+="] == "mycelium-reader" for line in lines)
    assert installer.rule_serials(rule) == [(0x0403, 0x6001, "A10KX3ZB"), (0x10C4, 0xEA60, "0001")]

