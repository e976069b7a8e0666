"""Every message and help text names the colour calibration as the command is now called
(``calibrate pieces``; ``calibrate colours`` still runs it), and its profile is written under
the one name the docs and ``doctor`` use (``colours.json``)."""

from __future__ import annotations

import pytest

from companion.cli import main as companion_main


@pytest.mark.parametrize("argv", [["read-board", "--help"], ["camera", "check", "--help"], ["run", "--help"],
                                  ["calibrate", "pieces", "--help"]])
def test_help_names_calibrate_pieces_not_the_old_name(argv, capsys):
    with pytest.raises(SystemExit):
        companion_main(argv)
    text = capsys.readouterr().out
    assert "calibrate colours" not in text and "colour-profile.json" not in text


def test_calibrate_pieces_writes_colours_json_by_default():
    import argparse

    from calibration import cli as calib_cli

    parser = argparse.ArgumentParser()
    calib_cli.register(parser.add_subparsers(dest="command"))
    for name in ("pieces", "colours"):
        assert parser.parse_args(["calibrate", name, "--image", "layout1.jpg"]).out == "colours.json"


def test_doctor_advice_names_calibrate_pieces():
    from companion.doctor.checks import Settings, check_profile

    fix = check_profile(Settings(), None).fix
    assert "calibrate pieces --camera picamera2 --out" in fix and fix.count("colours.json") == 1
