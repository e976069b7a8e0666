"""``sim-photo --object``: something over the simulated board, which ``read-board`` reports
(exit 3); ``sim-calibration``: the calibration photos of the same simulated table, so a styled
photo can be calibrated for and read back from the command line alone."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from companion.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "boards" / "bot-game-0.json"


def tiles(doc_tiles) -> list:
    from companion.tiles import parse
    return sorted((tuple(t["at"]), parse(t["paths"]).code) for t in doc_tiles)


def test_a_hand_over_the_reference_photo_is_reported(tmp_path, capsys):
    out, truth = tmp_path / "hand.png", tmp_path / "truth.json"
    clean = tmp_path / "clean.png"
    assert main(["sim-photo", "--position", str(FIXTURE), "--out", str(out), "--seed", "1", "--object", "hand",
                 "--truth", str(truth)]) == 0
    assert "hand over the board" in capsys.readouterr().out
    covered = json.loads(truth.read_text())["covered"]
    assert sum(f >= 0.3 for f in covered.values()) >= 5
    assert main(["read-board", str(out)]) == 3
    assert "unreadable: something covers" in capsys.readouterr().out
    # the same seed without the object: the same board, read whole
    assert main(["sim-photo", "--position", str(FIXTURE), "--out", str(clean), "--seed", "1"]) == 0
    assert main(["read-board", str(clean)]) == 0
    assert cv2.absdiff(cv2.imread(str(out)), cv2.imread(str(clean))).mean() > 1


def test_an_unknown_object_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["sim-photo", "--position", str(FIXTURE), "--out", str(tmp_path / "p.png"), "--object", "cat"])
    assert exc.value.code == 2 and "invalid choice: 'cat'" in capsys.readouterr().err


@pytest.mark.slow
def test_a_styled_photo_is_calibrated_for_and_read_from_the_command_line(tmp_path, capsys):
    table = ["--style", "meadow", "--light", "warm lamp", "--table", "cloth", "--seed", "4"]
    assert main(["sim-calibration", *table, "--out", str(tmp_path / "cal")]) == 0
    said = capsys.readouterr().out
    photos = sorted((tmp_path / "cal").glob("layout*.png"))
    assert len(photos) >= 1 and "calibrate pieces --image" in said
    profile = tmp_path / "profile.json"
    assert main(["calibrate", "pieces", *[a for p in photos for a in ("--image", str(p))], "--out", str(profile)]) == 0
    capsys.readouterr()
    clean, mug = tmp_path / "clean.png", tmp_path / "mug.png"
    assert main(["sim-photo", "--position", str(FIXTURE), *table, "--out", str(clean)]) == 0
    assert f"sim-calibration --style meadow --light \"warm lamp\" --table cloth --seed 4" in capsys.readouterr().out
    assert main(["read-board", str(clean), "--profile", str(profile), "--json"]) == 0
    read = json.loads(capsys.readouterr().out)["board"]
    board = json.loads(FIXTURE.read_text())["board"]
    assert tiles(read["tiles"]) == tiles(board["tiles"])
    assert main(["sim-photo", "--position", str(FIXTURE), *table, "--object", "mug", "--out", str(mug)]) == 0
    assert main(["read-board", str(mug), "--profile", str(profile)]) == 3


def test_sim_calibration_refuses_a_file_as_its_folder(tmp_path, capsys):
    f = tmp_path / "x.png"
    f.write_bytes(b"")
    assert main(["sim-calibration", "--style", "bands", "--out", str(f)]) == 2
    err = capsys.readouterr().err
    assert "this is a file; give a folder" in err and len(err.strip().splitlines()) == 1


def test_sim_calibration_prints_the_calibrate_command_the_docs_give(tmp_path, capsys, monkeypatch):
    """docs/simulated-camera.md's steps are the commands ``sim-calibration`` prints: the profile
    the docs read the photo with is the one the printed command writes."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "simulated-camera.md").read_text()
    monkeypatch.chdir(tmp_path)
    assert main(["sim-calibration", "--style", "meadow", "--light", "warm lamp", "--table", "cloth", "--seed", "4",
                 "--size", "480x270", "--out", "cal"]) == 0
    printed = capsys.readouterr().out.split("calibrate with: ", 1)[1].strip()
    assert f"    {printed}\n" in docs
    profile = printed.rsplit("--out ", 1)[1]
    assert f"read-board photo.png --profile {profile}\n" in docs
