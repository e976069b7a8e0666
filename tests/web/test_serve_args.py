"""What ``serve`` and ``demo`` say of options that cannot work: a negative pace is a usage
error, a host that is not this computer's is named as the fault (not the port), and ``demo
--fast`` (no dashboard) refuses ``--port`` instead of ignoring it."""

from __future__ import annotations

import pytest

from companion.cli import build_parser, main


@pytest.mark.parametrize("option", ["--pace", "--loop"])
def test_serve_refuses_a_negative_pace(capsys, option):
    with pytest.raises(SystemExit) as stop:                 # by the parser, before anything starts
        build_parser().parse_args(["serve", option, "-1"])
    assert stop.value.code == 2
    assert f"{option}: must be 0 or more" in capsys.readouterr().err


@pytest.mark.parametrize("host", ["999.1.1.1", "192.0.2.7"])   # no such name; an address of another computer
def test_serve_names_the_host_when_the_host_is_at_fault(capsys, tmp_path, host):
    assert main(["serve", "--host", host, "--port", "0", "--no-qr", "--db", str(tmp_path / "g.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert f"--host {host}" in err and "pick another --host" in err
    assert "--port" not in err


def test_demo_fast_refuses_a_port_it_would_ignore(capsys):
    assert main(["demo", "--fast", "--port", "8092", "--db", ":memory:"]) == 2
    err = capsys.readouterr().err
    assert "--fast" in err and "--port" in err and "dashboard" in err


def test_demo_fast_refuses_a_pace_it_would_ignore(capsys):
    # --fast plays without pauses: a pace given with it is refused in one sentence, not ignored
    assert main(["demo", "--fast", "--pace", "1", "--db", ":memory:"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--fast plays without pauses between moves, so --pace would be ignored" in err


@pytest.mark.parametrize("command", [["serve", "--no-qr"], ["run", "--rfid", "none", "--camera", "0"]])
def test_a_host_name_that_does_not_resolve_is_said_to_be_no_such_name(capsys, tmp_path, command):
    assert main([*command, "--host", "nosuchhost.invalid", "--port", "0", "--db", str(tmp_path / "g.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert "nosuchhost.invalid: no such host name" in err and "pick another --host" in err
    assert "not an address of this computer" not in err
