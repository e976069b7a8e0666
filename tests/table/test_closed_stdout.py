"""A closed standard output (``run ... | head -2``) does not crash the table: the terminal log
stops printing, saying nothing more, the game plays on and its log is written."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from companion.eventlog import EventLog
from companion.table.console import ConsoleLog

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import sys
sys.path[:0] = {paths!r}
from companion.eventlog import EventLog
from companion.table.console import ConsoleLog
from web.demo import demo_session
from webtools import play_turns
s = demo_session("competitive", 2, seed=5, log=EventLog({db!r}))
s.bus.subscribe(ConsoleLog(s))
play_turns(s, 1)
print("before", len(s.game.events), file=sys.stderr)
sys.stdin.read()          # until the reader has closed the pipe
play_turns(s, 8)
print("after", len(s.game.events), file=sys.stderr)
"""


def test_the_table_plays_on_after_the_reader_of_its_output_went_away(tmp_path):
    db = tmp_path / "games.sqlite3"
    code = CHILD.format(paths=[str(ROOT), str(ROOT / "tests" / "web"), str(ROOT / "tests")], db=str(db))
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=ROOT)
    first = [child.stdout.readline(), child.stdout.readline()]      # `| head -2`
    child.stdout.close()
    child.stdin.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 0, err
    assert all(line.strip() for line in first)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    before, after = (int(line.split()[1]) for line in err.splitlines()[-2:])
    assert after > before                                              # played on
    assert [g.moves for g in EventLog(db, readonly=True).games()] == [after]   # and logged


class ClosedPipe(io.StringIO):
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")


def test_the_console_log_stops_printing_on_a_closed_stream():
    from web.demo import demo_session
    s = demo_session("competitive", 2, seed=5)
    out = ClosedPipe()
    seen = []
    s.bus.subscribe(ConsoleLog(s, out=out))
    s.bus.subscribe(seen.append)               # a later subscriber still hears every message
    s.set_status("reader", "closed", "")
    s.set_status("camera", "ok", "")
    assert [m.kind for m in seen] == ["status", "status"]


HEAD_2 = """
import io, os, sys
sys.path[:0] = {paths!r}
r, w = os.pipe()


class Head(io.RawIOBase):
    # `| head -2`: the reader goes away as soon as two lines have come through
    lines = 0

    def writable(self):
        return True

    def fileno(self):
        return w

    def write(self, data):
        n = os.write(w, bytes(data))          # BrokenPipeError once the reader is gone
        Head.lines += bytes(data[:n]).count(b"\\n")
        if Head.lines >= 2 and r is not None:
            globals()["r"] = os.close(r)
        return n


sys.stdout = io.TextIOWrapper(io.BufferedWriter(Head()), encoding="utf-8")
from companion.cli import main
code = main(["run", "--camera", {folder!r}, "--rfid", "none", "--port", "0", "--db", {db!r}])
print("exit", code, file=sys.stderr)
"""


def test_run_piped_into_head_does_not_call_the_dashboard_failed(tmp_path):
    # the first two lines (the game, the camera starting) are read; the dashboard's banner,
    # with the table PIN, then meets a closed pipe: the dashboard runs all the same
    import cv2
    import numpy as np
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"f{i}.png"), np.full((36, 64, 3), 90, np.uint8))
    code = HEAD_2.format(paths=[str(ROOT)], folder=str(folder), db=str(tmp_path / "g.sqlite3"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.stderr.splitlines()[-1] == "exit 1", r.stderr     # no move in these frames: said on stderr
    assert "cannot start the dashboard" not in r.stderr and "Broken pipe" not in r.stderr, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    assert "no move was read from these frames" in r.stderr
