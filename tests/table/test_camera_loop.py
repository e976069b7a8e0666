"""The camera loop never dies and never stops unheard: frames that change size, unreadable
files, a capture that never returns, a camera that does not come back.

``data/cases/table/frame-size-change`` comes from ``shared/cases/table/frame-size-change``."""

import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import numpy as np

from companion.edition import load_edition
from companion.game import Game
from companion.rules import apply
from companion.setup import GameConfig, new_game
from companion.sim.render import _hands
from companion.sim.table import SimulatedTable
from companion.table.live import LiveTable
from companion.table.session import TableSession
from companion.table.sources import Frame, FrameSource, QueueSource, SourceError

ROOT = Path(__file__).resolve().parents[2]
SIZE_CASE = ROOT / "tests" / "data" / "cases" / "table" / "frame-size-change"


def run_camera(folder: Path, db: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion.cli", "run", "--camera", str(folder), "--rfid", "none",
                           "--port", "0", "--db", str(db)], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_frames_changing_size_and_an_unreadable_file_are_reported_and_the_loop_goes_on(tmp_path):
    folder = tmp_path / "frames"
    shutil.copytree(SIZE_CASE, folder)
    (folder / "f03b.png").write_bytes(b"\x89PNG\r\n\x1a\n not really")
    r = run_camera(folder, tmp_path / "g.sqlite3")
    assert r.returncode == 1, r.stderr   # went on to the end, where no move had been read: said, not a success
    assert "Traceback" not in r.stderr
    assert "frames changed size from 64x36 to 48x36 px" in r.stdout
    assert "f03b.png: unreadable image; skipped" in r.stdout
    assert "are over (12 frames, 1 could not be read)" in r.stderr


def test_a_folder_of_unreadable_files_is_reported_file_by_file_to_its_end(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(8):
        (folder / f"f{i}.png").write_bytes(b"broken")
    r = run_camera(folder, tmp_path / "g.sqlite3")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert all(f"f{i}.png: unreadable image; skipped" in r.stdout for i in range(8))
    assert "are over (0 frames, 8 could not be read)" in r.stderr
    assert "no move was read from these frames: none of its 8 frame(s) could be read as an image" in r.stderr


def rendered_game(seed=4):
    sim = SimulatedTable(GameConfig(), seed=seed, fast=True, illegal_every=0)
    before = sim.truth.position
    after = apply(before, {"player": "blue", "action": "spore", "at": [4, 0]}).position
    return sim, sim._render(before.to_json()["board"]), sim._render(after.to_json()["board"])


def test_after_a_size_change_the_next_move_is_read_at_the_new_size():
    sim, before, after = rendered_game()
    # another size the reader still reads (960x540 would be refused as too small for it)
    small = lambda img: cv2.resize(img, (img.shape[1] * 5 // 4, img.shape[0] * 5 // 4), interpolation=cv2.INTER_LINEAR)
    hand = small(after).copy()
    _hands(hand, 1, np.random.default_rng(3))
    live = sim.live
    src = QueueSource(maxsize=64)
    for img in [before] * 5 + [small(before)] * 5 + [hand] + [small(after)] * 5:
        src.push(Frame(img, 100.0 * src.q.qsize()))
    src.push(None)
    live.camera_loop(src)
    assert live.stopped_because is None
    assert [e.move["action"] for e in sim.session.game.events] == ["spore"]
    said = [m.data["detail"] for m in sim.session.bus.since(0) if m.kind == "status" and m.data["status"] == "resized"]
    assert said == ["frames changed size from 1280x720 to 1600x900 px; the stillness gate and the board reader start over"]


class Hanging(FrameSource):
    """Frames from a list; after ``hang_after`` frames ``read`` blocks until released (the
    Pi camera hang).  Every (re)open starts a new list of frames."""

    name = "hanging"

    def __init__(self, frames, hang_after):
        self.frames, self.hang_after = frames, hang_after
        self.opened = 0
        self.release = threading.Event()
        self.i = 0

    def open(self):
        self.opened += 1
        self.i = 0

    def read(self, timeout=0.5):
        if self.opened == 1 and self.i >= self.hang_after:
            self.release.wait()             # never returns on its own
            return None
        if self.i >= len(self.frames):
            time.sleep(0.02)
            return None
        f = self.frames[self.i]
        self.i += 1
        return Frame(f.image, f.t_ms + 10_000 * self.opened)


def test_a_capture_that_never_returns_is_a_stall_and_the_camera_is_reopened():
    sim, before, after = rendered_game()
    s = sim.session
    statuses = []
    s.bus.subscribe(lambda m: statuses.append(m.data["status"]) if m.kind == "status" else None)
    hand = after.copy()
    _hands(hand, 1, np.random.default_rng(3))
    frames = [Frame(img, 100.0 * i) for i, img in enumerate([before] * 5 + [hand] + [after] * 5)]
    src = Hanging(frames, hang_after=5)
    src.open()
    live = sim.live
    live.stall_s = 0.6
    done = threading.Event()
    t = threading.Thread(target=lambda: (live.run(src, until=lambda: len(s.game.events) >= 1), done.set()), daemon=True)
    t.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not done.is_set():
        time.sleep(0.05)
    src.release.set()
    assert done.is_set(), "the loop froze with the capture"
    assert src.opened == 2
    assert "stalled" in statuses and "ok" in statuses[statuses.index("stalled"):]
    assert [e.move["action"] for e in s.game.events] == ["spore"]
    assert live.stopped_because is None


def test_status_never_says_ok_while_frames_do_not_arrive():
    session = TableSession(Game(SimulatedTable(GameConfig(), seed=1, fast=True).truth.position))
    live = LiveTable(session, reader=object())
    live.stall_s, live.give_up_s = 0.3, 1.5

    class Dead(FrameSource):
        name = "dead"
        opens = 0

        def open(self):
            Dead.opens += 1
            if Dead.opens > 1:
                raise SourceError("no camera on /dev/video0")

        def read(self, timeout=0.5):
            time.sleep(timeout)
            return None

    src = Dead()
    src.open()
    session.set_status("camera", "starting", "waiting for the first frame")
    assert live.run(src) == 1
    assert session.status["camera"] == "failed"
    assert "did not come back" in live.stopped_because
    said = [(m.data["status"], m.data["detail"]) for m in session.bus.since(0) if m.kind == "status"]
    assert any("no camera on /dev/video0" in d for _, d in said)
    assert "ok" not in [st for st, _ in said]


class Flaky:
    """The real reader, after raising the given errors one per still frame."""

    def __init__(self, reader, errors):
        self.reader, self.errors = reader, list(errors)
        self.resets = 0

    def read(self, image, hand=None, previous=None):
        if self.errors:
            raise self.errors.pop(0)
        return self.reader.read(image, hand=hand, previous=previous)

    def reset(self):
        self.resets += 1


def test_any_reader_error_is_reported_and_the_loop_reads_on():
    from companion.vision.errors import BoardNotFoundError, UnreadableImageError
    sim, before, after = rendered_game()
    hand = before.copy()
    _hands(hand, 1, np.random.default_rng(5))
    live = sim.live
    live._reader = Flaky(live.reader, [UnreadableImageError("the frame has no colour: is the camera set to greyscale?"),
                                       BoardNotFoundError("no board found: 1 of 4 corner markers visible"),
                                       RuntimeError("index 7 is out of bounds")])
    src = QueueSource(maxsize=64)
    for img in ([before] * 5 + [hand]) * 3 + [after] * 5:
        src.push(Frame(img, 100.0 * src.q.qsize()))
    src.push(None)
    live.camera_loop(src)
    said = [(m.data["status"], m.data["detail"]) for m in sim.session.bus.since(0) if m.kind == "status"]
    assert ("unreadable frame", "the frame has no colour: is the camera set to greyscale?") in said
    assert ("no board", "no board found: 1 of 4 corner markers visible") in said
    assert any(st == "reader error" and "RuntimeError: index 7 is out of bounds" in d for st, d in said)
    assert live.stopped_because is None and live._reader.resets >= 1
    assert [e.move["action"] for e in sim.session.game.events] == ["spore"]
    assert said[-1][0] == "ok"


def test_a_greyscale_camera_logs_no_move_and_the_terminal_says_so(tmp_path):
    """``data/cases/table/grey-frame`` (from ``shared/cases/table/grey-frame``): a camera set to
    monochrome.  Whatever the reader makes of it, nothing is logged on a guess and the loop
    says why on the terminal."""
    folder = tmp_path / "frames"
    folder.mkdir()
    grey = ROOT / "tests" / "data" / "cases" / "table" / "grey-frame" / "grey_frame.jpg"
    for i in range(4):
        shutil.copy(grey, folder / f"g{i}.jpg")
    db = tmp_path / "g.sqlite3"
    r = run_camera(folder, db)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    from companion.eventlog import EventLog
    assert EventLog(db).games() == []   # no move was logged, so no game was kept
    assert "no move was played, so no game was kept" in r.stderr
    reports = [line for line in r.stdout.splitlines()
               if line.startswith(("[uncertain]", "[mismatch]")) or (line.startswith("[camera]") and not line.startswith("[camera] ok"))]
    assert reports, r.stdout


def test_a_driver_that_hangs_on_reopen_stops_the_companion_with_its_reason():
    session = TableSession(Game(SimulatedTable(GameConfig(), seed=1, fast=True).truth.position))
    live = LiveTable(session, reader=object())
    live.stall_s = 0.3
    hang = threading.Event()

    class Stuck(FrameSource):
        name = "picamera2"

        def read(self, timeout=0.5):
            hang.wait()                  # the capture hangs...
            return None

        def close(self):
            hang.wait()                  # ...and so does stopping the camera

    import companion.table.sources as sources
    old, sources.REOPEN_TIMEOUT_S = sources.REOPEN_TIMEOUT_S, 0.5
    try:
        t0 = time.monotonic()
        status = live.run(Stuck())
    finally:
        sources.REOPEN_TIMEOUT_S = old
        hang.set()
    assert status == 1 and time.monotonic() - t0 < 10
    assert "did not finish in" in live.stopped_because and "driver hangs" in live.stopped_because
    assert session.status["camera"] == "failed"


def test_after_the_first_commit_the_table_reads_only_what_changed():
    sim, before, after = rendered_game()
    live = sim.live
    src = QueueSource(maxsize=64)
    hand = after.copy()
    _hands(hand, 1, np.random.default_rng(3))
    for img in [before] * 5 + [hand] + [after] * 5:
        src.push(Frame(img, 100.0 * src.q.qsize()))
    src.push(None)
    live.camera_loop(src)
    assert [e.move["action"] for e in sim.session.game.events] == ["spore"]
    assert live.stats["reads"] >= 2 and live.stats["reads_in_play"] == live.stats["reads"] - 1
    assert 1 <= live.stats["last_read_changed"] <= 3  # the spore's space (and a neighbour its edge reaches)


def test_a_table_without_a_reader_that_read_no_move_says_draws_are_entered_on_the_dashboard():
    config = GameConfig()
    pos, _ = new_game(config, load_edition(config.edition), random.Random(4), deal=False)
    live = LiveTable(TableSession(Game(pos, config)), reader=None)
    live.stats.update(frames=12, reads=3)          # still frames read, the board never changed
    why = live.why_no_moves(reader_attached=False)
    assert "no tile was drawn (without a bag reader, --rfid none, each draw is entered on the dashboard" in why
    assert "through the bag reader" not in why
    assert "Drew a tile" not in live.why_no_moves(reader_attached=True)
