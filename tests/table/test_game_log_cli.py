"""The game log as a user meets it through the command line: which game --resume continues,
the games list, damaged logs (named, salvaged), read-only logs, fixes kept in the log, the
table PIN across restarts, serve's log folder and player choices, moves in words."""

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.eventlog import EventLog
from companion.game import Game
from companion.selfplay import BotTable
from companion.setup import GameConfig
from companion.table.session import TableSession

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, timeout=120, env=None):
    return subprocess.run([sys.executable, "-m", "companion.cli", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


def table_game(db, turns=3, seed=11, kind="table"):
    """A logged bot game of ``kind`` after ``turns`` turns; returns (game id, moves)."""
    log = EventLog(db)
    t = BotTable(GameConfig(), seed=seed, log=log)
    t.game.kind = kind
    log.db.execute("UPDATE games SET kind = ? WHERE id = ?", (kind, t.game.game_id))
    for _ in range(turns):
        t.play_turn()
    gid, n = t.game.game_id, len(t.game.events)
    log.close()
    return gid, n


@pytest.fixture
def camera(tmp_path):
    """A camera folder with one blank frame: ``run`` opens it, reads nothing, and ends."""
    import cv2
    import numpy as np
    d = tmp_path / "cam"
    d.mkdir()
    cv2.imwrite(str(d / "f0.png"), np.zeros((48, 64, 3), np.uint8))
    return d


def run_resume(db, camera, *extra):
    return cli("run", "--resume", "--db", db, "--camera", camera, "--rfid", "none", "--port", "0", *extra)


def read_nothing(r) -> bool:
    """The run went through and ended with the camera folder's one blank frame: no move read
    from it, said, exit 1 (``docs/table.md``, How ``run`` stops)."""
    return r.returncode == 1 and "no move was read from these frames" in r.stderr and "Traceback" not in r.stderr


# --- 1. which game --resume continues; the games list ------------------------------------------
def test_resume_takes_the_unfinished_table_game_not_a_newer_demo(tmp_path, camera):
    db = tmp_path / "games.sqlite3"
    table_id, n = table_game(db, turns=4)
    table_game(db, turns=1, seed=3, kind="demo")           # a demo and a dashboard game after it
    table_game(db, turns=1, seed=4, kind="dashboard")
    done = EventLog(db)
    finished = BotTable(GameConfig(), seed=5, log=done)
    finished.run()                                          # a newer table game that is over
    done.close()
    r = run_resume(db, camera)
    assert read_nothing(r), r.stderr
    assert f"Resuming table game {table_id} (competitive, blue and orange) at move {n}, started" in r.stdout

    r = cli("games", "--db", db)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [line.split()[1] for line in lines] == ["table", "demo", "dashboard", "table"]
    assert f"{n:>4} moves" in lines[0] and "unfinished" in lines[0] and "finished (" in lines[3]
    doc = json.loads(cli("games", "--db", db, "--json").stdout)
    assert doc[0] == {**doc[0], "id": table_id, "kind": "table", "players": ["blue", "orange"], "moves": n,
                      "finished": None}


def test_of_two_unfinished_table_games_the_newest_is_resumed_and_the_other_named(tmp_path, camera):
    # the boot service resumes with nobody at a keyboard: it must not stop to ask (docs/pi.md)
    db = tmp_path / "games.sqlite3"
    first, n1 = table_game(db, turns=3)
    second, _ = table_game(db, turns=1, seed=2)
    r = run_resume(db, camera)
    assert read_nothing(r), r.stderr
    assert f"Resuming table game {second}" in r.stdout and f"Other unfinished table game in this log: {first}" in r.stdout
    assert "'mycelium-companion run --resume --game ID' continues one instead" in r.stdout
    r = run_resume(db, camera, "--game", first)
    assert read_nothing(r), r.stderr
    assert f"table game {first}" in r.stdout and f"at move {n1}" in r.stdout


def test_no_table_game_to_resume_says_so(tmp_path, camera):
    db = tmp_path / "games.sqlite3"
    demo, _ = table_game(db, turns=1, kind="demo")
    r = run_resume(db, camera)
    assert r.returncode == 2 and "no unfinished table game" in r.stderr and demo in r.stderr


def test_a_game_replaced_from_the_dashboard_is_not_offered_for_resume(tmp_path):
    db = tmp_path / "games.sqlite3"
    log = EventLog(db)
    s = TableSession.start(GameConfig(), log, seed=1)
    old = s.game.game_id
    s.new_game(GameConfig(), log, seed=2)
    assert [g.id for g in log.unfinished("table")] == [s.game.game_id]
    assert next(g for g in log.games() if g.id == old).finished == f"abandoned: replaced by game {s.game.game_id}"


# --- 2. damaged logs -------------------------------------------------------------------------------
def _tamper(db):
    d = sqlite3.connect(db)
    (payload,) = d.execute("SELECT payload FROM events WHERE seq = 3").fetchone()
    doc = json.loads(payload)
    doc["move"]["player"] = "orange" if doc["move"]["player"] == "blue" else "blue"
    d.execute("UPDATE events SET payload = ? WHERE seq = 3", (json.dumps(doc, sort_keys=True),))
    d.commit()
    d.close()
    return 3, "changed after it was written"


def _delete(db):
    d = sqlite3.connect(db)
    d.execute("DELETE FROM events WHERE seq = 4")
    d.commit()
    d.close()
    return 4, "this event is missing"


def _delete_last(db):
    d = sqlite3.connect(db)
    (last,) = d.execute("SELECT MAX(seq) FROM events").fetchone()
    d.execute("DELETE FROM events WHERE seq = ?", (last,))
    d.commit()
    d.close()
    return last, "this event is missing"


def _bad_json(db):
    d = sqlite3.connect(db)
    d.execute("UPDATE events SET payload = '{\"move\": {\"action\": ' WHERE seq = 5")
    d.commit()
    d.close()
    return 5, "not valid JSON"


def _flip_bytes(db):
    """Flip bytes in the file itself, inside the stored text of the 2nd end of turn."""
    data = bytearray(Path(db).read_bytes())
    at = data.index(b'"end_turn"', data.index(b'"end_turn"') + 1)
    for i in range(at - 40, at + 40):
        data[i] ^= 0xFF
    Path(db).write_bytes(data)
    return None, None


@pytest.mark.parametrize("damage", [_tamper, _delete, _delete_last, _bad_json, _flip_bytes])
def test_a_damaged_log_is_one_sentence_and_can_be_salvaged(tmp_path, damage):
    db = tmp_path / "games.sqlite3"
    gid, n = table_game(db, turns=4)
    seq, what = damage(db)
    r = cli("export", "--db", db)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    first = r.stderr.splitlines()[0]
    m = re.search(r"game (\S+) is damaged, event (\d+): (.+)\.$", first)
    assert m, first
    assert m.group(1) == gid
    if seq is not None:
        assert int(m.group(2)) == seq and what in m.group(3)
    bad = int(m.group(2))
    assert f"--salvage" in r.stderr
    before = Path(db).read_bytes()

    r = cli("export", "--db", db, "--salvage")
    assert r.returncode == 0, r.stderr
    copies = list(tmp_path.glob("games.sqlite3.damaged-*[0-9]"))
    assert len(copies) == 1 and copies[0].read_bytes() == before          # the damaged file is kept
    assert f"kept up to event {bad - 1}" in r.stderr
    doc = json.loads(r.stdout)
    assert doc["game"] == gid and len(doc["events"]) == bad - 1           # every good event, no more
    assert cli("export", "--db", db).returncode == 0                        # the rebuilt log is sound
    truth = BotTable(GameConfig(), seed=11)
    while len(truth.game.events) < bad - 1:
        truth.play_turn()
    assert truth.game._positions[bad - 1].to_json() == doc["position"]


def test_a_file_sqlite_cannot_read_is_a_sentence_and_resume_salvages_it(tmp_path, camera):
    db = tmp_path / "games.sqlite3"
    gid, n = table_game(db, turns=4)
    data = bytearray(Path(db).read_bytes())
    page = 4096 * (len(data) // 4096 - 1)      # the last page: a b-tree page of the events
    data[page] = 0x77                          # not a valid page type
    Path(db).write_bytes(data)
    r = run_resume(db, camera)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "damaged" in r.stderr and "malformed" in r.stderr and "--salvage" in r.stderr
    r = run_resume(db, camera, "--salvage")
    assert read_nothing(r), r.stderr
    assert "The damaged log was copied to" in r.stdout and f"Resuming table game {gid}" in r.stdout


def test_resume_salvage_continues_from_the_last_good_event(tmp_path, camera):
    db = tmp_path / "games.sqlite3"
    gid, n = table_game(db, turns=4)
    _delete(db)
    r = run_resume(db, camera)
    assert r.returncode == 2 and "event 4: this event is missing" in r.stderr
    assert "DAMAGED at event 4: this event is missing" in cli("games", "--db", db).stdout
    r = run_resume(db, camera, "--salvage")
    assert read_nothing(r), r.stderr
    assert f"Resuming table game {gid} (competitive, blue and orange) at move 3" in r.stdout
    game = Game.resume(EventLog(db), gid)
    from companion.movegen import legal_moves
    game.play(legal_moves(game.position, game.edition)[0])
    assert len(Game.resume(EventLog(db), gid).events) == 4                 # and the log takes new moves


# --- 3. read-only logs -------------------------------------------------------------------------------
def test_export_and_games_read_a_log_they_cannot_write(tmp_path, monkeypatch, capsys):
    db = tmp_path / "games.sqlite3"
    gid, n = table_game(db, turns=2)
    ro = tmp_path / "backup"
    ro.mkdir()
    (ro / "games.sqlite3").write_bytes(db.read_bytes())
    before = sorted(p.name for p in ro.iterdir()), (ro / "games.sqlite3").read_bytes()
    real_access = os.access
    # As root every folder is writable; let the folder say it is not, as a mounted backup would.
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == ro and mode == os.W_OK else real_access(p, mode))
    os.chmod(ro, 0o555)
    try:
        from companion.cli import main
        assert main(["export", "--db", str(ro / "games.sqlite3")]) == 0
        assert json.loads(capsys.readouterr().out)["game"] == gid
        assert main(["games", "--db", str(ro / "games.sqlite3")]) == 0
        assert gid in capsys.readouterr().out
    finally:
        os.chmod(ro, 0o755)
    assert (sorted(p.name for p in ro.iterdir()), (ro / "games.sqlite3").read_bytes()) == before
    log = EventLog(ro / "games.sqlite3", readonly=True)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        log.append(gid, 99, "move", {})


def test_a_read_only_copy_taken_after_a_power_cut_still_shows_every_event(tmp_path, monkeypatch, capsys):
    db = tmp_path / "games.sqlite3"
    log = EventLog(db)
    t = BotTable(GameConfig(), seed=11, log=log)
    for _ in range(2):
        t.play_turn()
    wal = Path(str(db) + "-wal")
    assert wal.stat().st_size > 0                          # the newest events are still in the WAL
    ro = tmp_path / "card"
    ro.mkdir()
    (ro / "games.sqlite3").write_bytes(db.read_bytes())
    (ro / "games.sqlite3-wal").write_bytes(wal.read_bytes())
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == ro and mode == os.W_OK else real_access(p, mode))
    from companion.cli import main
    assert main(["export", "--db", str(ro / "games.sqlite3")]) == 0
    assert len(json.loads(capsys.readouterr().out)["events"]) == len(t.game.events)
    assert sorted(p.name for p in ro.iterdir()) == ["games.sqlite3", "games.sqlite3-wal"]
    log.close()


# --- 4. fixes are events ------------------------------------------------------------------------------
def test_fixes_are_logged_replayed_on_resume_and_shown_in_the_log(tmp_path, camera):
    db = tmp_path / "games.sqlite3"
    log = EventLog(db)
    s = TableSession.start(GameConfig(), log, seed=1)
    s.correct((0, 0), {"kind": "rock"})
    s.correct((1, 0), {"kind": "tile", "paths": "P03"})
    s.correct((0, 0), None)                                  # trust the camera again there
    gid = s.game.game_id
    log.close()
    game = Game.resume(EventLog(db), gid)
    assert {(h.q, h.r): c for h, c in game.corrections.items()} == {(1, 0): {"kind": "tile", "paths": "P03"}}
    state = TableSession(game).state()
    assert [f["text"] for f in state["fixes"]] == ["E5 set by hand: a rock", "E6 set by hand: a pink tile",
                                                   "E5: the camera is trusted again"]
    assert state["corrections"] == [{"at": [1, 0], "content": {"kind": "tile", "paths": "P03"}}]
    r = run_resume(db, camera)
    assert read_nothing(r), r.stderr
    assert "1 space(s) fixed by hand: E6 set by hand: a pink tile" in r.stdout
    doc = json.loads(cli("export", "--db", db).stdout)
    assert [f["label"] for f in doc["fixes"]] == ["E5", "E6", "E5"]


def test_a_recording_of_a_resumed_game_replays_from_where_it_resumed(tmp_path, camera):
    db = tmp_path / "games.sqlite3"
    gid, n = table_game(db, turns=3)
    log = EventLog(db)
    game = Game.resume(log, gid)
    TableSession(game).correct((0, 0), {"kind": "rock"})
    log.close()
    rec = tmp_path / "rec"
    r = run_resume(db, camera, "--record", rec)
    assert read_nothing(r), r.stderr
    r = cli("run", "--replay", rec, "--db", tmp_path / "replay.sqlite3", "--no-web")
    assert r.returncode == 0, r.stderr
    assert "cannot be checked" not in r.stderr
    replayed = Game.resume(EventLog(tmp_path / "replay.sqlite3"))
    original = Game.resume(EventLog(db), gid)
    assert [e.move for e in replayed.events] == [e.move for e in original.events] and len(replayed.events) == n
    assert replayed.corrections == original.corrections and replayed.log_seq == original.log_seq


# --- 7. undo names its move ------------------------------------------------------------------------------
def test_undo_is_an_event_naming_the_move_and_a_stale_one_changes_nothing(tmp_path):
    from companion.table.session import SessionError
    db = tmp_path / "games.sqlite3"
    log = EventLog(db)
    t = BotTable(GameConfig(), seed=11, log=log)
    for _ in range(2):
        t.play_turn()
    s = TableSession(t.game)
    last = s.game.events[-1]
    if last.move["action"] == "draw":
        s.game.play({"player": s.position.active, "action": "end_turn"})
        last = s.game.events[-1]
    n = last.seq
    s.undo(n)
    with pytest.raises(SessionError, match=f"move {n} is no longer the last move") as e:
        s.undo(n)                                          # the double tap
    assert e.value.stale and len(s.game.events) == n - 1
    rows = log.events(s.game.game_id)
    assert rows[-1][1] == "undo" and rows[-1][2]["undoes"] == n
    assert len(Game.resume(EventLog(db), s.game.game_id).events) == n - 1


# --- 8. the PIN survives restarts -----------------------------------------------------------------------
def test_the_table_pin_survives_a_restart_unless_asked(tmp_path, camera):
    db = tmp_path / "games.sqlite3"
    web = ("--rfid", "none", "--port", "0", "--camera", camera, "--db", db)

    def pin(r):
        assert read_nothing(r), r.stderr
        return re.search(r"Table PIN: (\d+)", r.stdout).group(1)

    p1 = pin(cli("run", *web))   # no move is read: the game is not kept, the PIN is (--or-new starts anew)
    assert (Path(str(db) + ".pin").stat().st_mode & 0o777) == 0o600
    assert pin(cli("run", "--resume", "--or-new", *web)) == p1
    p2 = pin(cli("run", "--resume", "--or-new", "--new-pin", *web))
    assert p2 != p1 or pin(cli("run", "--resume", "--or-new", "--new-pin", *web)) != p1
    assert pin(cli("run", "--resume", "--or-new", "--pin", "246813", *web)) == "246813"
    assert pin(cli("run", "--resume", "--or-new", *web)) == "246813"
    r = cli("run", "--pin", "12", *web)
    assert r.returncode == 2 and "6 to 8 digits" in r.stderr


# --- 9. serve, players, words ------------------------------------------------------------------------------
def test_serve_creates_the_log_folder_and_offers_no_single_player(tmp_path):
    import signal
    import time
    r = cli("serve", "--players", "1")
    assert r.returncode == 2 and "invalid choice: 1" in r.stderr
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "fresh")}
    # Ctrl+C as at a terminal, even when the suite itself runs in the background (where the
    # shell has the children ignore SIGINT)
    proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "serve", "--port", "0", "--no-bots", "--no-qr"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.time() + 60
        line = ""
        while time.time() < deadline and "Press Ctrl+C" not in line:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
        assert "Press Ctrl+C" in line, proc.stderr.read()
        db = tmp_path / "fresh" / "mycelium-companion" / "games.sqlite3"
        assert db.is_file()
        assert [g.kind for g in EventLog(db, readonly=True).games()] == ["dashboard"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(10)


def test_the_log_describes_moves_in_words_and_keeps_codes_in_json():
    t = BotTable(GameConfig(), seed=11)
    while not any(e.move["action"] == "place" for e in t.game.events):
        t.play_turn()
    for ev in t.game.events:
        text = ev.notes[0]
        assert not re.search(r"\b[PYG][0-5]{1,6}\b", text), text
        if ev.move["action"] == "place":
            assert re.fullmatch(r"\w+ places an? [a-z-]+ tile at [A-Z]\d+(, turned (once|twice|\d times))?", text), text
            assert ev.move["tile"] and "rotation" in ev.move
        if ev.move["action"] == "draw":
            assert re.fullmatch(r"\w+ draws (an? [a-z-]+ tile|a rock)", text), text


def test_games_before_any_game_is_an_empty_list_not_an_error(tmp_path, capsys, monkeypatch):
    from companion.cli import main
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "none-yet"))   # a fresh install: no log made yet
    db = tmp_path / "none-yet" / "mycelium-companion" / "games.sqlite3"
    assert main(["games"]) == 0
    assert "No game was logged yet" in capsys.readouterr().out
    assert main(["games", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == [] and "No game was logged yet" in err
    assert not db.parent.exists()   # listing creates nothing
    assert main(["games", "--db", str(tmp_path)]) == 2   # a folder is still a mistake, named
    assert "is a folder" in capsys.readouterr().err
    # a log named on the command line that does not exist is a typo, refused as export refuses it
    assert main(["games", "--db", str(tmp_path / "typo.db")]) == 2
    assert "no game log at" in capsys.readouterr().err


def test_resuming_a_finished_game_says_only_that_it_is_over(tmp_path, camera):
    db = tmp_path / "games.sqlite3"
    log = EventLog(db)
    finished = BotTable(GameConfig(), seed=5, log=log)
    finished.run()
    gid, reason = finished.game.game_id, finished.game.position.result["reason"]
    log.close()
    r = run_resume(db, camera, "--game", gid)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "Resuming" not in r.stdout, r.stdout
    assert f"That game, table game {gid} (competitive, blue and orange)" in r.stdout and f"is over: {reason}." in r.stdout
    assert "run the same command without --resume for a new game" in r.stdout
    # the export it suggests names the same log, and works as written
    from companion.cli import main
    suggested = f"mycelium-companion export --db {db} --game {gid}"
    assert f"'{suggested}'" in r.stdout
    assert main(suggested.split()[1:]) == 0


def test_export_without_db_exports_from_the_companions_own_log(tmp_path, monkeypatch, capsys):
    from companion.cli import main
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    db = tmp_path / "mycelium-companion" / "games.sqlite3"
    db.parent.mkdir()
    log = EventLog(db)
    game = BotTable(GameConfig(), seed=5, log=log)
    game.run()
    log.close()
    capsys.readouterr()
    assert main(["export", "--game", game.game.game_id]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == game.game.game_id
    db.unlink()
    assert main(["export"]) == 2
    assert "no game log at" in capsys.readouterr().err


def test_a_demo_game_resumed_at_a_table_is_said_to_be_simulated(tmp_path, camera):
    db = tmp_path / "games.sqlite3"
    demo, n = table_game(db, turns=2, kind="demo")
    r = run_resume(db, camera, "--game", demo)
    assert read_nothing(r), r.stderr
    assert f"Resuming demo game {demo}" in r.stdout
    assert "Note: this was a simulated game (demo" in r.stdout and "lay the pieces out as the dashboard shows" in r.stdout
    table, _ = table_game(db, turns=2)
    r = run_resume(db, camera, "--game", table)
    assert read_nothing(r) and "simulated" not in r.stdout, r.stdout


def test_salvage_leaves_the_log_and_one_copy_and_nothing_else(tmp_path):
    # SQLite's -wal and -shm files of the rebuilt log and of the copy used to stay beside them
    db = tmp_path / "games.sqlite3"
    table_game(db, turns=4)
    _tamper(db)
    assert cli("export", "--db", db, "--salvage").returncode == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 2 and names[0] == "games.sqlite3" and names[1].startswith("games.sqlite3.damaged-"), names
    assert cli("export", "--db", db).returncode == 0 and sorted(p.name for p in tmp_path.iterdir()) == names


def test_salvage_of_a_card_pulled_with_events_in_the_wal_keeps_them_in_one_copy(tmp_path):
    # a power cut: the damage (here a tampered event) is still only in the -wal
    live, card = tmp_path / "live", tmp_path / "card"
    live.mkdir()
    card.mkdir()
    db = live / "games.sqlite3"
    gid, _ = table_game(db, turns=4)
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_autocheckpoint=0")
    (payload,) = con.execute("SELECT payload FROM events WHERE seq = 3").fetchone()
    doc = json.loads(payload)
    doc["move"]["player"] = "orange" if doc["move"]["player"] == "blue" else "blue"
    con.execute("UPDATE events SET payload = ? WHERE seq = 3", (json.dumps(doc, sort_keys=True),))
    con.commit()
    for f in live.iterdir():                     # the card as it was pulled, connection still open
        shutil.copy2(f, card / f.name)
    con.close()
    assert (card / "games.sqlite3-wal").stat().st_size > 0
    r = cli("export", "--db", card / "games.sqlite3", "--salvage")
    assert r.returncode == 0 and "kept up to event 2" in r.stderr, r.stderr
    names = sorted(p.name for p in card.iterdir())
    assert len(names) == 2 and names[1].startswith("games.sqlite3.damaged-"), names
    kept = sqlite3.connect(card / names[1])           # the copy alone holds the event from the -wal
    (payload,) = kept.execute("SELECT payload FROM events WHERE game = ? AND seq = 3", (gid,)).fetchone()
    kept.close()
    assert json.loads(payload)["move"]["player"] == doc["move"]["player"]
