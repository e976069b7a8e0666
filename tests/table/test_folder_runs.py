"""``run --camera FOLDER`` that reads no move says why; a recording given as a folder of frames
is sent to ``--replay`` before any game is logged."""

from __future__ import annotations

import cv2
import numpy as np
from test_failed_starts import games_in
from test_game_log_cli import cli


def run_folder(folder, db):
    return cli("run", "--camera", folder, "--rfid", "none", "--port", "0", "--db", db)


def frames(folder, images):
    folder.mkdir()
    for i, img in enumerate(images):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), img)
    return folder


def test_a_recording_given_as_a_camera_folder_is_sent_to_replay(tmp_path):
    rec = frames(tmp_path / "rec", [np.zeros((36, 64, 3), np.uint8)])
    (rec / "index.jsonl").write_text('{"t_ms": 0, "frame": "f000.png"}\n')
    r = run_folder(rec, tmp_path / "g.sqlite3")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert f"is a recording made with --record: replay it with 'mycelium-companion run --replay {rec}'" in r.stderr
    assert games_in(tmp_path / "g.sqlite3") == []


def test_frames_that_never_stand_still_are_named_as_the_reason(tmp_path):
    rng = np.random.default_rng(5)
    folder = frames(tmp_path / "moving", [rng.integers(0, 255, (36, 64, 3), dtype=np.uint8) for _ in range(8)])
    r = run_folder(folder, tmp_path / "g.sqlite3")
    assert r.returncode == 1, r.stderr
    assert "no move was read from these frames: no frame was still long enough to be read" in r.stderr


def test_still_frames_the_reader_refuses_are_named_as_the_reason(tmp_path):
    folder = frames(tmp_path / "blank", [np.full((1080, 1920, 3), 90, np.uint8)] * 8)   # big enough to be read
    r = run_folder(folder, tmp_path / "g.sqlite3")
    assert r.returncode == 1, r.stderr
    assert "no move was read from these frames: every still frame was refused by the board reader" in r.stderr
    assert "no board found" in r.stderr.split("refused by the board reader")[1]


def test_frames_too_small_for_the_reader_are_refused_with_camera_checks_sentence(tmp_path):
    # a camera left at 960x540 shows pieces a few pixels wide: nothing is read from it
    folder = frames(tmp_path / "small", [np.full((540, 960, 3), 90, np.uint8)] * 8)
    r = run_folder(folder, tmp_path / "g.sqlite3")
    assert r.returncode == 1, r.stderr
    last = r.stderr.split("refused by the board reader")[1]
    assert "the frame is 960x540 px: set the camera to 1920x1080" in last
