"""The event-sourced game and its SQLite log: undo, resume, and survival of kill -9."""

import sys
from pathlib import Path

import pytest

from companion.eventlog import EventLog, EventLogError
from companion.game import Game
from companion.selfplay import BotTable
from companion.setup import GameConfig, SetupError, new_game
from builders import kill_after_moves

ROOT = Path(__file__).resolve().parents[2]


def test_play_undo_and_resume_give_the_same_positions(tmp_path):
    log = EventLog(tmp_path / "g.sqlite3")
    table = BotTable(GameConfig(), seed=11, log=log)
    for _ in range(12):
        table.play_turn()
    game = table.game
    n = len(game.events)
    resumed = Game.resume(EventLog(tmp_path / "g.sqlite3"))
    assert len(resumed.events) == n
    assert resumed.position.to_json() == game.position.to_json()
    before = game._positions[-2].to_json()
    game.undo()
    assert game.position.to_json() == before
    again = Game.resume(EventLog(tmp_path / "g.sqlite3"))
    assert len(again.events) == n - 1 and again.position.to_json() == before


def test_illegal_move_is_not_logged(tmp_path):
    log = EventLog(tmp_path / "g.sqlite3")
    table = BotTable(GameConfig(), seed=3, log=log)
    table.world()
    n = len(log.events(table.game.game_id))
    from companion.rules import IllegalMove
    with pytest.raises(IllegalMove):
        table.game.play({"player": "orange", "action": "spore", "at": [0, 0]})
    assert len(log.events(table.game.game_id)) == n


def test_unreadable_log_and_missing_game_are_clear_errors(tmp_path):
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(EventLogError, match="cannot open"):
        EventLog(bad)
    with pytest.raises(EventLogError, match="no game"):
        Game.resume(EventLog(tmp_path / "empty.sqlite3"))


def test_setup_refuses_impossible_tables():
    import random
    from companion.edition import load_edition
    ed = load_edition()
    with pytest.raises(SetupError, match="colour"):
        new_game(GameConfig(players=["blue", "pink"]), ed, random.Random(1))
    with pytest.raises(SetupError, match="alternate"):
        new_game(GameConfig(players=["blue", "red", "orange", "black"], mode="team",
                            teams={"blue": "1", "red": "1", "orange": "2", "black": "2"}), ed, random.Random(1))
    pos, _ = new_game(GameConfig(players=["blue", "orange", "red"]), ed, random.Random(1))
    assert pos.bag == 60 - 9 and all(len(h) == 3 for h in pos.hands.values())
    assert len(pos.substrates) == 4 and not set(pos.substrates) & set(pos.trees)
    assert [len(pos.market[d]) for d in "ab"] == [3, 3]


KILLER = """
import sys, time
sys.path.insert(0, {root!r})
from companion.eventlog import EventLog
from companion.selfplay import BotTable
from companion.setup import GameConfig
t = BotTable(GameConfig(), seed=5, log=EventLog({db!r}), on_event=lambda e, p: time.sleep(0.01))
t.run()
"""


def test_kill_9_mid_game_resumes_the_same_game_at_the_same_move(tmp_path):
    db = tmp_path / "crash.sqlite3"
    kill_after_moves([sys.executable, "-c", KILLER.format(root=str(ROOT), db=str(db))], db, 40, 60)
    resumed = Game.resume(EventLog(db))
    k = len(resumed.events)
    assert k > 40
    # The same seed replayed in memory passes through exactly that position at move k.
    truth = BotTable(GameConfig(), seed=5)
    while len(truth.game.events) < k:
        truth.play_turn()
    assert truth.game._positions[k].to_json() == resumed.position.to_json()
    # And the game goes on from there.
    cont = BotTable.from_game(resumed, seed=9)
    cont.run()
    assert cont.position.result is not None


def test_a_log_written_before_kinds_and_checksums_still_reads_and_migrates(tmp_path):
    import json
    import sqlite3
    truth = BotTable(GameConfig(), seed=11)
    for _ in range(3):
        truth.play_turn()
    db = tmp_path / "old.sqlite3"
    d = sqlite3.connect(db)
    d.executescript("""CREATE TABLE games (id TEXT PRIMARY KEY, created REAL NOT NULL, config TEXT NOT NULL);
        CREATE TABLE events (game TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL,
                             ts REAL NOT NULL, PRIMARY KEY (game, seq));""")
    d.execute("INSERT INTO games VALUES ('old', 1.0, ?)", (json.dumps(GameConfig().to_json()),))
    d.execute("INSERT INTO events VALUES ('old', 0, 'setup', ?, 1.0)", (json.dumps(truth.game.initial.to_json()),))
    for e in truth.game.events:
        d.execute("INSERT INTO events VALUES ('old', ?, 'move', ?, 1.0)", (e.seq, json.dumps(e.to_json())))
    d.commit()
    d.close()
    ro = EventLog(db, readonly=True)                 # read as it is, without migrating
    assert [(g.id, g.kind, g.moves) for g in ro.games()] == [("old", "unknown", len(truth.game.events))]
    ro.close()
    game = Game.resume(EventLog(db))                  # opened for writing: migrated, then goes on
    assert game.position.to_json() == truth.position.to_json()
    from companion.movegen import legal_moves
    game.play(legal_moves(game.position, game.edition)[0])
    again = Game.resume(EventLog(db), "old")
    assert len(again.events) == len(truth.game.events) + 1


def test_undo_and_fixes_are_events_and_tampering_is_found(tmp_path):
    import sqlite3
    from companion.eventlog import LogDamaged
    from companion.hexgrid import Hex
    db = tmp_path / "g.sqlite3"
    table = BotTable(GameConfig(), seed=11, log=EventLog(db))
    for _ in range(2):
        table.play_turn()
    game = table.game
    game.fix(Hex(0, 0), {"kind": "rock"})
    last = game.undo()
    kinds = [k for _, k, _, _ in EventLog(db).events(game.game_id)[-2:]]
    assert kinds == ["fix", "undo"]
    back = Game.resume(EventLog(db), game.game_id)
    assert len(back.events) == len(game.events) and back.corrections == {Hex(0, 0): {"kind": "rock"}}
    assert back.fixes[0]["after"] == last.seq
    d = sqlite3.connect(db)
    d.execute("UPDATE events SET payload = replace(payload, '\"rock\"', '\"empty\"') WHERE kind = 'fix'")
    d.commit()
    d.close()
    with pytest.raises(LogDamaged, match=r"is damaged, event \d+: it was changed after it was written"):
        Game.resume(EventLog(db), game.game_id)
