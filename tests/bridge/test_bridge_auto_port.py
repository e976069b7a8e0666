"""``rfid listen --port auto`` looks for the reader as ``run --rfid auto`` does (every USB
serial port with a reader's VID:PID, each passed over once it gives no valid frame); when no
reader answers it says so, lists the ports it tried or the serial ports there are, and exits 1."""

from __future__ import annotations

import json
import os
import re
import time
from types import SimpleNamespace

from companion.cli import main as run
from firmware_bridge import discovery
from firmware_bridge.virtual import VirtualReader


def port(device, vid=None, pid=None, serial_number=None):
    return SimpleNamespace(device=device, vid=vid, pid=pid, serial_number=serial_number)


def listen(tmp_path, *extra):
    return run(["rfid", "listen", "--registry", str(tmp_path / "t.json"), "--state", str(tmp_path / "cursor.json"),
                *extra])


def test_auto_finds_a_reader_on_a_usb_port_with_a_known_id(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    with VirtualReader("companion", bootloader_s=(0.05, 0.1)) as dev:
        path = dev.port
        monkeypatch.setattr(discovery.list_ports, "comports",
                            lambda: [port("/dev/ttyS0"), port(path, 0x1A86, 0x7523, "A50285BI")])
        code = listen(tmp_path, "--port", "auto", "--seconds", "1.5")
    out, err = capsys.readouterr()
    assert code == 0, err
    first = json.loads(out.splitlines()[0])
    assert first["event"] == "reader_connected" and first["port"] == path
    assert "no serial port at auto" not in err


def test_auto_with_no_reader_lists_the_ports_there_are_and_exits_1(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(discovery.list_ports, "comports",
                        lambda: [port("/dev/ttyS0"), port("/dev/ttyACM0", 0x2E8A, 0x000A)])
    code = listen(tmp_path, "--port", "auto", "--seconds", "0.4")
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    last = err.strip().splitlines()[-1]
    assert re.match(r"mycelium-companion rfid: no reader answered in 0\.[4-9] s: no attached serial port has a reader's USB id", last), last
    assert "/dev/ttyS0 (no USB id), /dev/ttyACM0 (2e8a:000a)" in last or "/dev/ttyACM0 (2e8a:000a), /dev/ttyS0 (no USB id)" in last
    assert "1a86:7523" in last and "--port" in last


def test_auto_with_no_serial_port_at_all_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: [])
    assert listen(tmp_path, "--port", "auto", "--seconds", "0.3") == 1
    assert "no serial port is attached" in capsys.readouterr().err


def test_a_port_with_a_reader_id_that_stays_silent_is_named_as_tried(tmp_path, capsys, monkeypatch):
    """A USB-serial adapter with a CH340 id that is not the reader: the handshake time passes
    (a few seconds), the port is named with why it was passed over."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    master, slave = os.openpty()
    try:
        silent = os.ttyname(slave)
        monkeypatch.setattr(discovery.list_ports, "comports", lambda: [port(silent, 0x1A86, 0x7523)])
        code = listen(tmp_path, "--port", "auto", "--seconds", "5")
    finally:
        os.close(master)
        os.close(slave)
    err = capsys.readouterr().err
    assert code == 1
    last = err.strip().splitlines()[-1]
    assert "tried 1 port(s) with a reader's USB id" in last and f"{silent} (1a86:7523): no " in last


def test_the_wait_reported_counts_the_port_search_too(tmp_path, capsys, monkeypatch):
    # opening and searching the ports took time the message left out: it said "2 s" after ~3 s
    from firmware_bridge import cli as bridge_cli

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: [port("/dev/ttyS0")])
    slow_open = bridge_cli._events
    monkeypatch.setattr(bridge_cli, "_events", lambda *a: (time.sleep(0.6), slow_open(*a))[1])
    assert listen(tmp_path, "--port", "auto", "--seconds", "0.2") == 1
    waited = re.search(r"no reader answered in ([0-9.]+) s", capsys.readouterr().err)
    assert waited and float(waited.group(1)) >= 0.8  # 0.6 s opening + 0.2 s listening
