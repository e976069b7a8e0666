"""How ``run`` stops, as a player reads it: a stop asked for (Ctrl-C, SIGTERM from
``systemctl stop``) exits 0 and says what was kept (the game, its moves, where it is logged,
how to continue, what the camera and the bag reader gave, with the ports tried for a reader
never found); frames that end with no move read exit 1 and say why."""

from __future__ import annotations

import os
import signal
import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest
from test_failed_starts import games_in
from test_folder_runs import frames, run_folder

import companion.table.cli as table_cli
from companion.cli import main
from companion.table.sources import Frame, FrameSource
from firmware_bridge import discovery


OPEN_CAMERA = table_cli._camera


class LiveCamera(FrameSource):
    """A camera that gives a blank frame (no board in view) every 50 ms, for ever."""

    name = "test camera"

    def __init__(self):
        self.frames = 0

    def read(self, timeout: float = 0.5):
        time.sleep(0.05)
        self.frames += 1
        return Frame(np.full((36, 64, 3), 90, np.uint8), self.frames * 50.0)

    def close(self):
        pass


def stop_after(camera, sig, frames=5):
    """Send ``sig`` to this process once the run's camera loop has read ``frames`` frames
    (never before: the handlers are only in place while the loop runs)."""
    def send():
        deadline = time.monotonic() + 60
        while camera.frames < frames and time.monotonic() < deadline:
            time.sleep(0.05)
        if camera.frames >= frames:
            os.kill(os.getpid(), sig)
    threading.Thread(target=send, daemon=True).start()


@pytest.fixture
def live_run(tmp_path, monkeypatch):
    camera = LiveCamera()
    monkeypatch.setattr(table_cli, "_camera", lambda args: camera)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(discovery.list_ports, "comports", lambda: [SimpleNamespace(
        device="/dev/ttyS0", vid=None, pid=None, serial_number=None)])
    db = tmp_path / "games.sqlite3"
    return camera, db, ["run", "--camera", "0", "--rfid", "auto", "--no-web", "--db", str(db),
                        "--registry", str(tmp_path / "tags.json")]


def test_ctrl_c_before_any_move_exits_0_and_says_what_was_kept(live_run, capsys):
    camera, db, argv = live_run
    stop_after(camera, signal.SIGINT)
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert games_in(db) == []   # a game with no move is not kept: 'run --resume' would resume it "at move 0"
    report = err[err.index("Stopped (Ctrl-C):"):]
    assert "no move was played, so no game was kept" in report and "--resume" not in report
    assert "the camera gave" in report and "0 move(s) seen" in report
    assert "the bag reader never answered: no attached serial port has a reader's USB id" in report
    assert "/dev/ttyS0 (no USB id)" in report
    # in 'run' --port is the dashboard's port: the way out names the reader's option
    assert "give the reader's port with --rfid PATH or usb:VID:PID" in report and "--port PATH" not in report


def test_sigterm_stops_like_ctrl_c(live_run, capsys):
    camera, db, argv = live_run
    stop_after(camera, signal.SIGTERM)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Stopped (SIGTERM):\n  no move was played, so no game was kept" in err
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL   # put back after the run


def test_frames_that_end_with_no_move_read_exit_1(tmp_path):
    folder = frames(tmp_path / "blank", [np.full((36, 64, 3), 90, np.uint8)] * 8)
    r = run_folder(folder, tmp_path / "g.sqlite3")
    assert r.returncode == 1, r.stderr
    assert "no move was read from these frames: every still frame was refused by the board reader" in r.stderr
    assert "Done:\n  no move was played, so no game was kept" in r.stderr
    assert games_in(tmp_path / "g.sqlite3") == []


def test_a_single_photo_is_spoken_of_as_a_file_not_a_folder(tmp_path):
    import cv2
    photo = tmp_path / "one.jpg"
    cv2.imwrite(str(photo), np.full((36, 64, 3), 90, np.uint8))
    r = run_folder(photo, tmp_path / "g.sqlite3")
    assert r.returncode == 1, r.stderr
    assert "a photo is one frame" in r.stderr and "folder's frames" not in r.stderr
    assert "4 or more copies of each position's photo in a row" in r.stderr   # what a folder of photos needs
    assert games_in(tmp_path / "g.sqlite3") == []


def test_ctrl_c_in_the_demo_says_which_game_it_kept(tmp_path):
    import subprocess
    import sys
    db = tmp_path / "games.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "demo", "--fast", "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not any(g.moves >= 3 for g in _games(db)):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    game = games_in(db)[0]
    if proc.returncode == 0:
        pytest.skip("the demo game ended before the stop")   # a very fast machine
    assert proc.returncode == 130
    assert f"Stopped (Ctrl-C): demo game {game.id} ({game.moves} move(s)) is kept in {db}" in err


def _games(db):
    try:
        return games_in(db)
    except Exception:   # the log is being created
        return []


def test_replay_of_a_missing_or_empty_folder_names_it_in_a_sentence(tmp_path, capsys):
    missing = tmp_path / "no-such-folder"
    assert main(["run", "--replay", str(missing), "--no-web", "--db", ":memory:"]) == 2
    err = capsys.readouterr().err
    assert f"no recording at {missing}" in err and "Errno" not in err
    assert main(["run", "--replay", str(tmp_path), "--no-web", "--db", ":memory:"]) == 2
    err = capsys.readouterr().err
    assert f"no recording at {tmp_path} (it holds no setup.json" in err and "Errno" not in err


class BoardsByShade:
    """A board reader that reads the board each frame stands for: a frame whose patch at
    (40, 70) has shade ``40 * (k + 1)`` shows ``boards[k]`` (the camera is not under test)."""

    def __init__(self, boards):
        self.boards = boards

    def read(self, image, hand=None, previous=None):
        return SimpleNamespace(board=self.boards[int(image[45, 80, 0]) // 40 - 1], confidence={}, changed=None,
                               unreadable={})


def run_boards(live_run, tmp_path, monkeypatch, boards, db=None):
    """``run`` over a folder of frames showing each of ``boards`` still in turn, the first being
    the empty table a new game starts from; ``db``: another ``--db`` than live_run's.  Returns
    the exit status."""
    import cv2

    argv = live_run[2]
    if db is not None:
        argv = [*argv[:argv.index("--db") + 1], db, *argv[argv.index("--db") + 2:]]
    folder = tmp_path / "frames"
    folder.mkdir()
    for k in range(len(boards)):
        image = np.full((90, 160, 3), 100, np.uint8)
        image[40:50, 70:90] = 40 * (k + 1)
        hand = image.copy()
        hand[10:80, 20:120] = 230          # a hand over the board, then the board still for 0.5 s
        for i, frame in enumerate([hand] + [image] * 5):
            cv2.imwrite(str(folder / f"f{k}{i}.png"), frame)
    monkeypatch.setattr(table_cli, "_camera", OPEN_CAMERA)     # the folder, not live_run's camera
    monkeypatch.setattr(table_cli, "_board_reader", lambda args: BoardsByShade(boards))
    return main([*argv[:2], str(folder), *argv[3:]])


def empty_table() -> dict:
    """The board a new 2-player game of ``run`` starts from: the trees of the easy card (2.b)."""
    import random

    from companion.edition import load_edition
    from companion.setup import GameConfig, new_game
    return new_game(GameConfig(players=["blue", "orange"]), load_edition(), random.Random(0), deal=False)[0] \
        .to_json()["board"]


def test_the_stop_report_counts_moves_not_the_still_frames_that_showed_them(live_run, tmp_path, monkeypatch, capsys):
    start = empty_table()
    two_tokens = dict(start, substrates=[{"at": [0, 0], "kind": "wood"}, {"at": [-2, 2], "kind": "soil"}])
    code = run_boards(live_run, tmp_path, monkeypatch, [start, two_tokens])
    err = capsys.readouterr().err
    assert code == 0, err
    report = err[err.index("Kept:"):]
    assert "(2 move(s))" in report                                  # both tokens, from one still frame
    assert "2 still frame(s) read, 2 move(s) seen" in report


def test_frames_that_end_on_an_illegal_move_say_so_not_that_the_board_never_changed(
        live_run, tmp_path, monkeypatch, capsys):
    start = empty_table()
    a_tile = dict(start, tiles=[{"at": [0, 0], "paths": "P03"}])   # no tile is played during the set-up
    code = run_boards(live_run, tmp_path, monkeypatch, [start, a_tile])
    out, err = capsys.readouterr()
    assert code == 1, err
    assert "[ILLEGAL" in out
    why = err[err.index("no move was read from these frames:"):].splitlines()[0]
    assert "never changed" not in why
    assert "the board showed a move the rules refuse (the [ILLEGAL ...] line above)" in why


@pytest.mark.parametrize("db", ["log", ":memory:"])
def test_the_market_line_of_a_table_without_a_dashboard_says_a_true_way_on(live_run, tmp_path, monkeypatch, capsys, db):
    # a real table turns its market cards up itself (2.d, 6) and enters them on the dashboard;
    # with --no-web the console says how to get one: 'run --resume' only for a logged game
    start = empty_table()
    token = dict(start, substrates=[{"at": [0, 0], "kind": "wood"}])
    run_boards(live_run, tmp_path, monkeypatch, [start, token], db=None if db == "log" else db)
    market = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[market]")]
    assert len(market) == 1
    if db == "log":
        assert "continue with 'run --resume' without --no-web" in market[0]
    else:
        assert "--resume" not in market[0]
        assert "the game is not logged (--db :memory:), so it cannot be continued" in market[0]
        assert market[0].endswith("start a new game without --no-web to answer on the dashboard")
