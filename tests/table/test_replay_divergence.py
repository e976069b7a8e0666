"""Recordings carry the events the run logged: a replay checks each one and stops at the first
difference; a damaged recording is refused before anything is logged; a fix that contradicts
the simulated players' board ends the demo instead of hanging it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.eventlog import EventLog
from companion.game import Game
from companion.hexgrid import Hex
from companion.setup import GameConfig
from companion.sim.table import SimulatedTable, SimulationAborted
from companion.table.record import Recorder

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "companion.cli", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """The first 12 moves of a simulated game (camera frames, reader events, logged events)."""
    import cv2
    cv2.setNumThreads(1)
    folder = tmp_path_factory.mktemp("rec")
    db = folder.parent / (folder.name + ".sqlite3")
    sim = SimulatedTable(GameConfig(), 8, fast=True, illegal_every=0, log=EventLog(db))
    rec = Recorder(folder, setup=Recorder.setup_doc(sim.session.game))
    sim.live.recorder = rec
    sim.session.input_hooks.append(rec.input)
    sim.session.game.log_hooks.append(rec.logged)
    mirror = sim.truth.on_event

    def stop_after(ev, pos):
        mirror(ev, pos)
        if ev.seq >= 12:
            raise SimulationAborted("enough for the test")
    sim.truth.on_event = stop_after
    with pytest.raises(SimulationAborted):
        sim.run()
    rec.close()
    return folder, sim.session.game


def lines(folder):
    return [json.loads(x) for x in (folder / "index.jsonl").read_text().splitlines()]


def copy_of(folder, dst):
    import shutil
    shutil.copytree(folder, dst)
    return dst


def test_a_recording_has_one_clock_and_the_logged_events(recording):
    folder, game = recording
    items = lines(folder)
    t = [it["t_ms"] for it in items]
    assert t == sorted(t)                                   # never backwards
    assert all("frame_ms" in it for it in items if it["kind"] == "frame")
    logged = [(it["seq"], it["event"], it["payload"]["move"]) for it in items if it["kind"] == "event"]
    assert [m for _, _, m in logged] == [e.move for e in game.events]
    assert {k for _, k, _ in logged} == {"move"} and any(it["kind"] == "reader" for it in items)


def test_the_replay_checks_every_event_and_matches(recording, tmp_path):
    folder, game = recording
    db = tmp_path / "replay.sqlite3"
    r = cli("run", "--replay", folder, "--db", db, "--no-web")
    assert r.returncode == 0, r.stderr
    replayed = Game.resume(EventLog(db))
    assert replayed.kind == "replay" and [e.move for e in replayed.events] == [e.move for e in game.events]


def test_a_recording_made_before_its_notes_were_reworded_still_replays(recording, tmp_path):
    # the notes put each move in words; a later version may word them differently, and the
    # game recorded before must still replay (the moves are what is checked)
    folder, game = recording
    rec = copy_of(folder, tmp_path / "rec")
    items = lines(rec)
    for it in items:
        if it["kind"] == "event" and it["payload"].get("notes"):
            it["payload"]["notes"] = ["(worded differently) " + n for n in it["payload"]["notes"]]
    (rec / "index.jsonl").write_text("".join(json.dumps(it) + "\n" for it in items))
    db = tmp_path / "replay.sqlite3"
    r = cli("run", "--replay", rec, "--db", db, "--no-web")
    assert r.returncode == 0, r.stderr
    assert [e.move for e in Game.resume(EventLog(db)).events] == [e.move for e in game.events]


def test_an_edited_reader_event_stops_the_replay_at_that_step(recording, tmp_path):
    folder, game = recording
    rec = copy_of(folder, tmp_path / "rec")
    items = lines(rec)
    i = next(i for i, it in enumerate(items) if it["kind"] == "reader" and it["event"]["event"] == "tile_drawn")
    drawn = items[i]["event"]["tile"]
    other = next(e.move["tile"] for e in game.events if e.move["action"] == "draw" and e.move["tile"] != drawn) \
        if any(e.move["action"] == "draw" and e.move["tile"] != drawn for e in game.events) else "P03"
    items[i]["event"]["tile"] = other
    (rec / "index.jsonl").write_text("".join(json.dumps(it) + "\n" for it in items))
    r = cli("run", "--replay", rec, "--db", tmp_path / "replay.sqlite3", "--no-web")
    assert r.returncode == 1
    msg = r.stderr.strip().splitlines()[-1]
    assert "the replay diverges at step" in msg and "Traceback" not in r.stderr, r.stderr
    step = int(msg.split("at step ")[1].split()[0])
    assert step >= i + 1                                     # at the edited draw or where it commits
    assert "draws" in msg


def test_a_damaged_recording_is_refused_before_anything_is_logged(recording, tmp_path):
    folder, _ = recording
    rec = copy_of(folder, tmp_path / "rec")
    with open(rec / "index.jsonl", "a") as f:
        f.write('{"t_ms": 1e12, "kind": "reader", "event": {"event": "tile_drawn"}}\n')
    db = tmp_path / "replay.sqlite3"
    r = cli("run", "--replay", rec, "--db", db, "--no-web")
    assert r.returncode == 2 and "field tile is missing" in r.stderr
    assert not db.exists()
    items = lines(folder)
    items[5]["t_ms"] = items[4]["t_ms"] - 50
    (rec / "index.jsonl").write_text("".join(json.dumps(it) + "\n" for it in items))
    r = cli("run", "--replay", rec, "--db", db, "--no-web")
    assert r.returncode == 2 and "line 6: field t_ms goes back in time" in r.stderr and not db.exists()


def test_a_wrong_fix_ends_the_demo_with_the_divergence_message():
    import time
    sim = SimulatedTable(GameConfig(), seed=4, fast=True, illegal_every=0, bot="random")  # the same players as truth
    sim.session.correct((0, 0), {"kind": "rock"})           # nothing stands on E5
    t0 = time.monotonic()
    with pytest.raises(SimulationAborted, match=r"differ at move 1 \(E5 set by hand: a rock, but the simulated "
                                                r"players' board has nothing there\); the simulated players stop here"):
        sim.run()
    assert time.monotonic() - t0 < 60
    # A fix that agrees with the simulated players' board does not stop them.
    sim = SimulatedTable(GameConfig(), seed=4, fast=True, illegal_every=0, bot="random")  # the same players as truth
    sim.session.correct((0, 0), {"kind": "empty"})
    assert sim._diverged is None


def test_a_fix_that_a_later_move_contradicts_ends_the_demo_too():
    from companion.selfplay import BotTable
    truth = BotTable(GameConfig(), seed=4)
    while not any(e.move["action"] == "place" for e in truth.game.events):
        truth.play_turn()
    place = next(e for e in truth.game.events if e.move["action"] == "place")
    q, r = place.move["at"]
    sim = SimulatedTable(GameConfig(), seed=4, fast=True, illegal_every=0, bot="random")  # the same players as truth
    sim.session.correct((q, r), {"kind": "empty"})         # true until the tile is placed there
    assert sim._diverged is None
    label = sim.edition.label(Hex(q, r))
    with pytest.raises(SimulationAborted, match=rf"differ at move {place.seq} \({label} set by hand: nothing, but the "
                                                r"simulated players' board has an? [a-z-]+ tile there\)"):
        sim.run()


def test_a_wrong_fix_on_the_dashboard_ends_demo_with_exit_1(tmp_path):
    """Through the CLI: the demo's dashboard takes a fix with the PIN, the demo stops, exit 1."""
    import re
    import time
    import urllib.request
    proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "demo", "--pace", "0", "--port", "0",
                             "--db", str(tmp_path / "g.sqlite3"), "--illegal-every", "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        url = pin = None
        deadline = time.time() + 120
        while time.time() < deadline and not (url and pin):
            line = proc.stdout.readline()
            url = url or (re.search(r"Dashboard: (\S+)", line) or [None, None])[1]
            pin = pin or (re.search(r"Table PIN: (\d+)", line) or [None, None])[1]
        assert url and pin
        local = re.sub(r"//[^:/]+", "//127.0.0.1", url)
        req = urllib.request.Request(local + "api/correct", method="POST",
                                     data=json.dumps({"at": [0, 0], "content": {"kind": "rock"}}).encode(),
                                     headers={"Content-Type": "application/json", "X-Table-PIN": pin,
                                              "Origin": local.rstrip("/")})
        assert urllib.request.urlopen(req, timeout=30).status == 200
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 1, err
    assert "E5 set by hand: a rock, but the simulated players' board has " in err and "stop here" in err
