"""Issue 11, item 2: a host restart (``kill -9``) must not replay draws it already
delivered: ``rfid listen`` keeps its position in a state file, the table loop in the game
log, and both ask the board only for newer events."""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time

from companion.edition import load_edition
from companion.eventlog import EventLog
from companion.game import Game
from companion.setup import GameConfig, new_game
from companion.table.live import LiveTable
from companion.table.session import TableSession
from companion.tilebag import resume_cursor
from firmware_bridge.cursor import Cursor
from firmware_bridge.drivers.companion import CompanionDriver
from firmware_bridge.events import as_dict
from firmware_bridge.reader import BagReader
from firmware_bridge.virtual import VirtualReader

FAST_BOOT = (0.05, 0.2)


class Listen:
    """``mycelium-companion rfid listen`` in its own process, its JSON lines on a queue."""

    def __init__(self, port: str, tmp_path):
        env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "config"))
        self.proc = subprocess.Popen([sys.executable, "-m", "companion.cli", "rfid", "listen", "--port", port],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        self.lines: "queue.Queue[dict]" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def tags(self, n: int, timeout: float = 15.0) -> list[str]:
        got, end = [], time.monotonic() + timeout
        while len(got) < n and time.monotonic() < end:
            try:
                ev = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            if "uid" in ev:
                got.append(ev["uid"])
        return got

    def kill(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(5)


def test_listen_killed_and_restarted_prints_only_new_draws(tmp_path):
    uids = [bytes([4, 0xAB, 0, i]) for i in range(5)]
    with VirtualReader("companion", bootloader_s=FAST_BOOT) as dev:
        first = Listen(dev.port, tmp_path)
        try:
            deadline = time.monotonic() + 15
            while not dev._host_open and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.5)  # its HELLO exchange
            for u in uids[:3]:
                dev.draw(u)
            assert first.tags(3) == [u.hex().upper() for u in uids[:3]]
            time.sleep(0.3)  # a kill at a moment unrelated to the printing
        finally:
            first.kill()
        resets = dev.resets
        for u in uids[3:]:  # drawn while no host runs
            dev.draw(u)
        second = Listen(dev.port, tmp_path)
        try:
            got = second.tags(2)
            time.sleep(0.5)
            got += second.tags(1, timeout=0.5)
        finally:
            second.kill()
        assert got == [u.hex().upper() for u in uids[3:]]  # the 3 it had printed did not come again
        assert dev.resets == resets  # the restart did not reset the board


def test_the_table_resumes_the_reader_from_the_game_log(tmp_path, collector):
    config = GameConfig()
    ed = load_edition(config.edition)
    pos, _ = new_game(config, ed, random.Random(4), deal=False)
    codes = sorted(pos.bag_tiles)[:3]
    registry = {f"04BB000{i}": c for i, c in enumerate(codes)}
    game = Game(pos, config, ed, log=EventLog(tmp_path / "game.db"))
    gid = game.game_id
    with VirtualReader("companion", bootloader_s=FAST_BOOT) as dev:
        session = TableSession(game)
        live = LiveTable(session, reader=object())
        reader = BagReader(CompanionDriver(), lambda: dev.port or None,
                           lambda e: live.on_reader_event(as_dict(e)), registry.get).start()
        assert reader.connected.wait(5)
        dev.draw(bytes.fromhex("04BB0000"))
        dev.draw(bytes.fromhex("04BB0001"))
        deadline = time.monotonic() + 5
        while len(session.game.events) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        reader.stop()  # the table process dies
        dev.draw(bytes.fromhex("04BB0002"))

        again = Game.resume(EventLog(tmp_path / "game.db"), gid)
        at = resume_cursor(again.events)
        assert at is not None and at["seq"] == 2
        session2 = TableSession(again)
        live2 = LiveTable(session2, reader=object())
        got = collector()
        driver = CompanionDriver()
        driver.resume(Cursor.from_json(at))
        r2 = BagReader(driver, lambda: dev.port or None,
                       lambda e: (got.q.put_nowait(e), live2.on_reader_event(as_dict(e))), registry.get).start()
        try:
            assert got.wait(lambda g: g.tags(), timeout=5)
            time.sleep(0.3)
            assert got.tags() == ["04BB0002"]  # no replay of the two drawn before
        finally:
            r2.stop()
    first = session2.position.colors[0]
    assert len(session2.position.hands[first]) == 3
    assert [e.move.get("uid") for e in session2.game.events] == ["04BB0000", "04BB0001", "04BB0002"]
