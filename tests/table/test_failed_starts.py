"""Starts that fail leave the game log as it was, and salvage says when it cannot work.

A new user's failed starts (a short PIN, a busy port, a recording folder that is a file) must
not leave empty games that ``games`` lists and ``--resume`` could pick; ``--salvage`` on a
read-only backup or on a file SQLite cannot open must say so instead of suggesting itself, and
must never leave a second copy of the damaged file."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from test_game_log_cli import cli, table_game

from companion.eventlog import EventLog


@pytest.fixture
def busy_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def games_in(db: Path) -> list:
    if not db.exists():
        return []
    log = EventLog(db, readonly=True)
    try:
        return log.games()
    finally:
        log.close()


def one_line_error(r) -> str:
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    return r.stderr


def test_serve_with_a_short_pin_or_a_busy_port_logs_no_game(tmp_path, busy_port):
    db = tmp_path / "games.sqlite3"
    table_game(db, turns=1)          # a table game already in the log stays alone in it
    assert "6 to 8 digits" in one_line_error(cli("serve", "--pin", "12", "--db", db, "--no-qr", "--port", "0"))
    assert "cannot listen" in one_line_error(cli("serve", "--port", busy_port, "--db", db, "--no-qr"))
    assert "cannot listen" in one_line_error(cli("demo", "--port", busy_port, "--db", db))
    assert [g.kind for g in games_in(db)] == ["table"]


def test_discarding_a_failed_start_never_removes_a_played_game(tmp_path):
    db = tmp_path / "games.sqlite3"
    played, _ = table_game(db, turns=1)
    log = EventLog(db)
    from companion.setup import GameConfig
    from companion.table.session import TableSession
    empty = TableSession.start(GameConfig(), log, seed=1, kind="dashboard").game.game_id
    assert not log.discard_if_empty(played)
    assert log.discard_if_empty(empty)
    assert [g.id for g in log.games()] == [played]


def test_record_into_a_file_or_an_old_recording_is_one_line_and_logs_nothing(tmp_path):
    db = tmp_path / "games.sqlite3"
    afile = tmp_path / "notes.txt"
    afile.write_text("mine\n")
    err = one_line_error(cli("demo", "--fast", "--record", afile, "--db", db))
    assert f"--record {afile}: this is a file" in err and afile.read_text() == "mine\n"
    old = tmp_path / "rec"
    old.mkdir()
    (old / "index.jsonl").write_text("{}\n")
    assert "already holds a recording" in one_line_error(cli("demo", "--fast", "--record", old, "--db", db))
    assert "already holds a recording" in one_line_error(
        cli("run", "--camera", tmp_path, "--rfid", "none", "--port", "0", "--record", old, "--db", db))
    assert (old / "index.jsonl").read_text() == "{}\n" and games_in(db) == []


def _unopenable(db: Path) -> None:
    data = bytearray(db.read_bytes())
    data[100] = 0x77          # the first page's b-tree header: SQLite cannot read the schema
    db.write_bytes(data)


def copies(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("games.sqlite3.damaged-*") if not p.name.endswith(("-wal", "-shm")))


def test_a_file_sqlite_cannot_open_is_not_offered_salvage_and_leaves_no_copy(tmp_path):
    db = tmp_path / "games.sqlite3"
    table_game(db, turns=2)
    _unopenable(db)
    before = db.read_bytes()
    r = cli("export", "--db", db)
    assert r.returncode == 2 and "--salvage" not in r.stderr and "no game can be recovered" in r.stderr
    for _ in range(2):
        r = cli("export", "--db", db, "--salvage")
        assert r.returncode == 2 and "Traceback" not in r.stderr and "no game can be recovered" in r.stderr
    assert copies(tmp_path) == [] and db.read_bytes() == before


def _missing_event(db: Path) -> None:
    log = EventLog(db)
    log.db.execute("DELETE FROM events WHERE seq = 2")
    log.close()


def test_salvage_on_a_read_only_backup_says_to_copy_it_first_and_makes_no_copy(tmp_path, monkeypatch, capsys):
    from companion.cli import main
    ro = tmp_path / "backup"
    ro.mkdir()
    db = ro / "games.sqlite3"
    table_game(db, turns=3)
    _missing_event(db)
    real_access = os.access
    # As root every folder is writable; let the folder say it is not, as a mounted backup would.
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == ro and mode == os.W_OK else real_access(p, mode))
    assert main(["export", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "event 2: this event is missing" in err and "copy the file somewhere writable first" in err
    assert "--salvage\n" not in err
    assert main(["export", "--db", str(db), "--salvage"]) == 2
    assert "copy the file somewhere writable first" in capsys.readouterr().err
    assert copies(ro) == []


def test_a_second_salvage_attempt_reuses_the_copy_it_already_kept(tmp_path):
    from companion.eventlog import salvage
    db = tmp_path / "games.sqlite3"
    table_game(db, turns=3)
    _missing_event(db)
    earlier = tmp_path / "games.sqlite3.damaged-20260101-000000"
    earlier.write_bytes(db.read_bytes())
    backup, kept = salvage(db)
    assert backup == earlier and copies(tmp_path) == [earlier.name] and list(kept.values()) == [1]


def test_a_pin_that_cannot_be_kept_is_one_line_and_logs_no_game(tmp_path):
    db = tmp_path / "games.sqlite3"
    (tmp_path / "games.sqlite3.pin").mkdir()          # where the PIN file goes: fails even as root
    cam = tmp_path / "cam"
    cam.mkdir()
    import cv2
    import numpy as np
    cv2.imwrite(str(cam / "f0.png"), np.zeros((36, 64, 3), np.uint8))
    err = one_line_error(cli("run", "--camera", cam, "--rfid", "none", "--port", "0", "--db", db))
    assert f"cannot keep the table PIN in {db}.pin" in err
    assert games_in(db) == []


def test_calibration_files_that_cannot_be_written_are_one_line(tmp_path, capsys):
    from companion.cli import main
    (tmp_path / "a-file").write_text("")
    assert main(["calibrate", "sheet", "--out", str(tmp_path / "a-file" / "markers")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mycelium-companion calibrate: cannot write") and err.count("\n") == 1


def test_a_camera_index_with_no_camera_is_one_sentence_without_opencv_warnings(tmp_path):
    # OpenCV's own log used to print "[ WARN:0@1.6] global cap_v4l.cpp ... can't open camera
    # by index" lines before the companion's sentence
    index = next(n for n in range(57, 99) if not Path(f"/dev/video{n}").exists())
    db = tmp_path / "games.sqlite3"
    err = one_line_error(cli("run", "--camera", index, "--rfid", "none", "--port", "0", "--db", db))
    assert f"cannot open camera {index}: /dev/video{index} does not exist" in err and "WARN" not in err
    assert games_in(db) == []
    err = one_line_error(cli("camera", "check", "--camera", index))
    assert err.count("cannot open camera") == 1 and "WARN" not in err and "systemctl" not in err, err


def test_a_file_that_is_no_video_is_one_sentence(tmp_path):
    junk = tmp_path / "notes.mp4"
    junk.write_text("not a video")
    err = one_line_error(cli("run", "--camera", junk, "--rfid", "none", "--port", "0", "--db", tmp_path / "g.sqlite3"))
    assert "not an image or a video OpenCV can read" in err and "WARN" not in err and "[" not in err, err


@pytest.mark.parametrize("flag", ["--seed", "--pace", "--illegal-every"])
def test_a_negative_demo_number_is_refused_before_the_game_starts(tmp_path, flag):
    # a negative seed crashed in the renderer's random generator, a negative pace mid-game
    db = tmp_path / "demo.sqlite3"
    r = cli("demo", "--fast", "--no-web", "--db", db, flag, "-1")
    assert r.returncode == 2 and f"argument {flag}: must be 0 or more, got -1" in r.stderr
    assert "Traceback" not in r.stderr and games_in(db) == []
