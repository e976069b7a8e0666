"""`run --resume --or-new`, the boot service's command: a new game when there is none to
continue, the interrupted one otherwise."""

from __future__ import annotations

import argparse
import types

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.table import cli as table_cli


@pytest.fixture
def camera_folder(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), np.zeros((72, 128, 3), np.uint8))  # no board in view
    return folder


def logged_games(db, seeds, kind="table", turns=1) -> list[str]:
    """Bot games of ``kind`` in the log ``db``, one per seed in that order (the last is the
    newest), each played ``turns`` turns; their ids."""
    from companion.eventlog import EventLog
    from companion.selfplay import BotTable
    from companion.setup import GameConfig
    log = EventLog(db)
    ids = []
    for seed in seeds:
        t = BotTable(GameConfig(), seed=seed, log=log)
        log.db.execute("UPDATE games SET kind = ? WHERE id = ?", (kind, t.game.game_id))
        for _ in range(turns):
            t.play_turn()
        ids.append(t.game.game_id)
    log.close()
    return ids


def run(db, camera_folder, *extra):
    return main(["run", "--camera", str(camera_folder), "--rfid", "none", "--port", "0", "--db", str(db),
                 "--resume", "--or-new", "--colors", "blue,orange", *extra])


def test_first_boot_starts_a_game_and_the_next_boot_resumes_it(tmp_path, camera_folder, capsys):
    db = tmp_path / "games.sqlite3"
    assert run(db, camera_folder) == 1   # its one blank frame reads no move: said, exit 1 (docs/table.md)
    out = capsys.readouterr().out
    assert f"Nothing to resume (no game log at {db} yet): starting a new game" in out
    # that game read no move and was not kept: the next boot starts anew instead of resuming "at move 0"
    assert run(db, camera_folder) == 1
    assert "holds no unfinished table game): starting a new game" in capsys.readouterr().out
    # a game with moves (the table played, then the power went) is the one the next boot resumes
    game_id, = logged_games(db, [11])
    assert run(db, camera_folder) == 1
    assert f"Resuming table game {game_id} (" in capsys.readouterr().out


def test_or_new_needs_resume(tmp_path, camera_folder, capsys):
    assert main(["run", "--camera", str(camera_folder), "--rfid", "none", "--port", "0", "--or-new"]) == 2
    assert "use it with --resume" in capsys.readouterr().err


def test_resume_alone_still_refuses_a_missing_log(tmp_path, camera_folder, capsys):
    assert main(["run", "--camera", str(camera_folder), "--rfid", "none", "--port", "0", "--resume",
                 "--db", str(tmp_path / "none.sqlite3")]) == 2
    assert "no game log" in capsys.readouterr().err


def test_a_finished_game_is_not_resumed(tmp_path, monkeypatch):
    db = tmp_path / "games.sqlite3"
    db.write_bytes(b"")
    unfinished: list = []
    monkeypatch.setattr("companion.eventlog.EventLog",
                        lambda path, readonly=False: types.SimpleNamespace(unfinished=lambda kind="table": unfinished))
    over = types.SimpleNamespace(game_id="20261130-g1", position=types.SimpleNamespace(result={"reason": "end"}))
    monkeypatch.setattr("companion.game.Game.resume", classmethod(lambda cls, log, gid=None: over))
    assert table_cli._nothing_to_resume(argparse.Namespace(db=str(db), game=None)) == \
        f"{db} holds no unfinished table game"
    unfinished.append(object())
    assert table_cli._nothing_to_resume(argparse.Namespace(db=str(db), game=None)) is None
    args = argparse.Namespace(db=str(db), game="20261130-g1")
    assert table_cli._nothing_to_resume(args) == "game 20261130-g1 is over"
    over.position.result = None
    assert table_cli._nothing_to_resume(args) is None


def test_a_move_less_game_an_older_version_kept_is_not_offered_beside_a_played_one(tmp_path, camera_folder, capsys):
    # older versions kept a table game stopped before its first move; the boot service's
    # --resume would then ask which of two games to continue, on a Pi nobody types at
    from companion.eventlog import EventLog
    db = tmp_path / "games.sqlite3"
    played, = logged_games(db, [11])
    logged_games(db, [12], turns=0)   # newer, never played
    log = EventLog(db)
    assert table_cli._pick_table_game(log) == played
    log.close()
    assert run(db, camera_folder) == 1
    assert f"Resuming table game {played} (" in capsys.readouterr().out


def test_the_boot_service_resumes_the_newest_of_several_unfinished_games(tmp_path, camera_folder, capsys):
    # after a power cut someone started a plain 'run' too: two unfinished table games; the
    # service (nobody at a keyboard, restarted on failure) must not stop to ask which one
    db = tmp_path / "games.sqlite3"
    games = logged_games(db, [11, 12])
    assert run(db, camera_folder) == 1   # its blank frame reads no move: exit 1, not 2
    out = capsys.readouterr().out
    assert f"Resuming table game {games[-1]} (" in out
    assert f"Other unfinished table game in this log: {games[0]} at move" in out
    assert "'mycelium-companion run --resume --game ID' continues one instead" in out


def test_a_resumed_demo_game_is_told_to_be_continued_by_its_id(tmp_path, camera_folder, capsys):
    # 'run --resume' alone takes the newest unfinished *table* game: advice for a demo game names it
    db = tmp_path / "games.sqlite3"
    gid, = logged_games(db, [11], kind="demo")
    main(["run", "--camera", str(camera_folder), "--rfid", "none", "--port", "0", "--db", str(db), "--resume", "--game", gid])
    both = "".join(capsys.readouterr())
    assert f"Resuming demo game {gid}" in both
    assert f"continue it with 'mycelium-companion run --resume --game {gid}'" in both
