"""The ``rfid`` commands when something is wrong: no reader, a path that is not a serial
port, an unwritable registry, a bad ``--expect``.  Each says so on stderr; none is silent
and none ends in a traceback."""

from __future__ import annotations

import argparse
import json
import os

import pytest

from firmware_bridge import cli, discovery, reader
from firmware_bridge.registry import TagRegistry
from firmware_bridge.virtual import VirtualReader


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="mycelium-companion")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)

EXPECT = ["--expect", "P03=1,ROCK=1"]


@pytest.mark.parametrize("action", ["listen", "enroll"])
def test_a_port_that_does_not_exist_is_exit_2(tmp_path, capsys, action):
    extra = EXPECT if action == "enroll" else []
    code = run(["rfid", action, "--port", str(tmp_path / "nonexistent"), "--registry", str(tmp_path / "t.json"),
                "--seconds", "0.3", *extra])
    err = capsys.readouterr().err
    assert code == 2
    assert f"no serial port at {tmp_path / 'nonexistent'}" in err


@pytest.mark.parametrize("action", ["listen", "enroll"])
def test_a_port_that_is_not_a_terminal_is_exit_2(tmp_path, capsys, action):
    extra = EXPECT if action == "enroll" else []
    plain = tmp_path / "passwd"
    plain.write_text("root:x:0:0\n")
    for path in (str(plain), os.devnull):
        code = run(["rfid", action, "--port", path, "--registry", str(tmp_path / "t.json"), "--seconds", "0.3", *extra])
        assert code == 2
        assert f"{path} is not a serial port" in capsys.readouterr().err


def test_rdm6300_without_the_pi_uart_is_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(discovery, "DEFAULT_UART", str(tmp_path / "serial0"))
    code = run(["rfid", "listen", "--driver", "rdm6300", "--registry", str(tmp_path / "t.json"), "--seconds", "0.3"])
    err = capsys.readouterr().err
    assert code == 2
    assert "no serial port at" in err and "serial0" in err and "--port" in err


def test_listen_with_nothing_plugged_in_says_it_is_waiting_on_stderr(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: [])
    code = run(["rfid", "listen", "--registry", str(tmp_path / "t.json"), "--seconds", "0.5"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""   # no reader answered: said last, and not a success
    assert err.strip().splitlines()[-1].startswith("mycelium-companion rfid: no reader answered")
    assert "waiting for the reader on any USB serial port with id 1a86:7523" in err
    assert "(is it plugged in?)" in err


def test_listen_says_it_is_waiting_while_the_port_is_gone_and_stdout_stays_json(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(reader, "NOTICE_AFTER", 0.1)
    monkeypatch.setattr(reader, "NOTICE_EVERY", 0.2)
    with VirtualReader("companion", bootloader_s=(0.05, 0.2)) as dev:
        path = dev.port
        dev.schedule(0.4, dev.unplug)
        code = run(["rfid", "listen", "--port", path, "--registry", str(tmp_path / "t.json"), "--seconds", "1.5"])
    out, err = capsys.readouterr()
    assert code == 0
    events = [json.loads(line)["event"] for line in out.splitlines()]  # every line is JSON
    assert events[:2] == ["reader_connected", "reader_disconnected"]
    notices = [line for line in err.splitlines() if line.startswith(f"waiting for the reader on {path} (is it plugged in?)")]
    assert len(notices) >= 3, err  # periodic, not once


def test_enroll_says_it_waits_for_the_reader_before_prompting(tmp_path, capsys, monkeypatch):
    # no USB serial port attached, whatever this machine has: the port search finds nothing
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: [])
    monkeypatch.setattr(discovery, "default_memory_path", lambda: tmp_path / "last-port.json")
    code = run(["rfid", "enroll", "--registry", str(tmp_path / "t.json"), "--seconds", "0.5", *EXPECT])
    out, err = capsys.readouterr()
    assert code == 1
    assert "Waiting for the reader on any USB serial port" in out
    assert "Scan a" not in out  # no prompt while there is no reader
    assert "(is it plugged in?)" in err

    with VirtualReader("companion", bootloader_s=(0.05, 0.2)) as dev:
        code = run(["rfid", "enroll", "--port", dev.port, "--registry", str(tmp_path / "t.json"),
                    "--seconds", "0.5", *EXPECT])
    out = capsys.readouterr().out
    assert out.index(f"Waiting for the reader on {dev.port}") < out.index("reader connected") < out.index("Scan a P03")


def test_enroll_refuses_an_unwritable_registry_at_start(tmp_path, capsys):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    with VirtualReader("companion", bootloader_s=(0.05, 0.2)) as dev:
        code = run(["rfid", "enroll", "--port", dev.port, "--registry", str(not_a_dir / "tags.json"),
                    "--seconds", "0.5", *EXPECT])
    out, err = capsys.readouterr()
    assert code == 2
    assert f"cannot write tag registry {not_a_dir / 'tags.json'}" in err
    assert "Scan a" not in out


def test_enroll_reports_a_failed_save_and_does_not_count_the_scan(tmp_path, capsys, monkeypatch):
    path = tmp_path / "tags.json"

    def disk_full(*a):
        raise OSError(28, "No space left on device")

    with VirtualReader("companion", bootloader_s=(0.05, 0.2)) as dev:
        dev.schedule(0.4, lambda: dev.draw(bytes.fromhex("04000001")))
        monkeypatch.setattr("os.replace", disk_full)
        code = run(["rfid", "enroll", "--port", dev.port, "--registry", str(path), "--seconds", "1.0", *EXPECT])
    out, err = capsys.readouterr()
    assert code == 1
    assert "tag 04000001 for P03 was NOT saved" in err and "No space left on device" in err
    assert "Traceback" not in err
    assert "Stopped at 0 of 2" in out
    assert not path.exists() and len(TagRegistry(path)) == 0


@pytest.mark.parametrize(
    "spec, message",
    [("", "names no tiles"), ("P03=0", "must be 1 or more"), ("P03=-2", "must be 1 or more"),
     ("ROCK=1,ROCK=2", "lists ROCK twice"), ("G1.P03=1,P03.G1=1", "lists P03.G1 twice")],
)
def test_enroll_refuses_a_bad_expect(tmp_path, capsys, spec, message):
    with VirtualReader("companion", bootloader_s=(0.05, 0.2)) as dev:
        code = run(["rfid", "enroll", "--port", dev.port, "--registry", str(tmp_path / "t.json"),
                    "--tiles", str(tmp_path / "missing.json"), "--expect", spec, "--seconds", "0.3"])
    out, err = capsys.readouterr()
    assert code == 2
    assert message in err
    assert "Done" not in out
