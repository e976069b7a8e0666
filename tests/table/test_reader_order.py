"""The bag reader's events reach the table once and in order, whatever frame comes late.

A HEARTBEAT numbered before an event but written after it (the virtual reader's device thread
did that while the simulated players drew or pressed) once made the host restart its count
and take every event of the board's ring again: old presses ended the next player's turn at
their draw, and tiles back in the bag were drawn twice.  The board and the host are driven
here by hand, one frame at a time, in the order that went wrong.
"""

from __future__ import annotations

import threading

from companion.game import Game
from companion.movegen import placements
from companion.rules import Board
from companion.selfplay import BotTable
from companion.setup import GameConfig
from companion.table.live import LiveTable
from companion.table.session import TableSession
from firmware_bridge import protocol as P
from firmware_bridge.drivers.companion import CompanionDriver
from firmware_bridge.events import as_dict
from firmware_bridge.reader import BagReader
from firmware_bridge.virtual import VirtualReader


class Link:
    """A virtual board and the host's driver with the wire between them in the test's hands:
    nothing moves until :meth:`pump`, so the order of frames is the test's."""

    def __init__(self, live: LiveTable, tiles: dict[str, str]):
        self.board = VirtualReader("companion", seed=1)
        self.wire: list[bytes] = []
        self.board._write = self.wire.append     # what the board sends, held until pumped
        self.driver = CompanionDriver()
        self.host = BagReader(self.driver, "virtual", lambda e: live.on_reader_event(as_dict(e)), tiles.get)
        self.now = 0.0
        self.board._from_host(self.driver.on_open(self.now))
        self.pump()

    def pump(self) -> None:
        """Carry frames both ways until the line is quiet (each turn 10 ms later)."""
        for _ in range(50):
            data = b"".join(self.wire)
            self.wire.clear()
            for reading in self.driver.feed(data, self.now):
                self.host._handle(reading, "virtual", self.now)
            out = self.driver.poll(self.now)
            if out:
                self.board._from_host(out)
            self.now += 0.01
            if not data and not out and not self.wire:
                return
        raise AssertionError("the board and the host never stopped talking")


def table() -> tuple[BotTable, TableSession, LiveTable]:
    truth = BotTable(GameConfig(), seed=5)
    while truth.position.in_setup:
        truth.play_turn()
    session = TableSession(Game(truth.position.copy()))
    return truth, session, LiveTable(session, reader=object())


def place(session: TableSession) -> None:
    pos = session.position
    assert session.submit(placements(Board(pos), pos.active)[0], source="camera").legal


def test_a_heartbeat_sent_after_the_press_it_predates_does_not_end_the_next_turn():
    truth, session, live = table()
    tiles = {"04AA0001": truth.supplies.bag[-1], "04AA0002": truth.supplies.bag[-2]}
    link = Link(live, tiles)
    first = session.position.active
    place(session)
    link.board.draw(bytes.fromhex("04AA0001"))
    link.pump()
    stale = link.board.last_seq            # the seq a heartbeat read just before the press
    link.board.press()
    link.pump()
    second = session.position.active
    assert second != first
    link.board._send(P.heartbeat_frame(stale, 0, 0))   # ... and wrote just after it
    link.pump()
    place(session)
    link.board.draw(bytes.fromhex("04AA0002"))
    link.pump()
    assert [e.move["action"] for e in session.game.events] == ["place", "draw", "end_turn", "place", "draw"]
    assert session.position.active == second, "the first player's press ended the second player's turn"
    assert not live.pending
    notices = [m.data for m in session.bus.since(0) if m.kind == "reader_notice"]
    assert notices == [], notices


def test_a_board_whose_numbering_went_back_still_delivers_its_new_events():
    # A heartbeat behind is not believed alone, but a HELLO behind is a restart (PROTOCOL 7.3):
    # the draw made under the new numbering is delivered, once.
    truth, session, live = table()
    tiles = {"04AA0001": truth.supplies.bag[-1], "04AA0002": truth.supplies.bag[-2]}
    link = Link(live, tiles)
    place(session)
    link.board.draw(bytes.fromhex("04AA0001"))
    link.board.press()
    link.pump()
    second = session.position.active
    with link.board._lock:                  # the board lost its ring without counting a boot
        link.board.last_seq = 0
        link.board._ring.clear()
    place(session)
    link.board.draw(bytes.fromhex("04AA0002"))   # seq 1 again: to the host, an old event
    link.pump()
    assert len(session.game.events) == 4
    link.board._send(P.heartbeat_frame(link.board.last_seq, 0, 0))
    link.pump()
    assert [e.move["action"] for e in session.game.events] == ["place", "draw", "end_turn", "place", "draw"]
    assert session.game.events[-1].move["uid"] == "04AA0002" and session.position.active == second
    assert [m.data["kind"] for m in session.bus.since(0) if m.kind == "reader_notice"] == ["seq_restart"]


def test_the_virtual_board_never_sends_a_frame_numbered_before_an_event_it_already_sent(monkeypatch):
    # The device thread builds a heartbeat while the simulated players draw a tile: the
    # heartbeat goes first, or carries the draw's seq; never an older seq after the draw.
    board = VirtualReader("companion", seed=1, heartbeat_ms=20)
    wire: list[bytes] = []
    board._write = wire.append
    building, drawn = threading.Event(), threading.Event()
    real = P.heartbeat_frame

    def heartbeat_frame(seq, ms, health=None):
        if not building.is_set():
            building.set()
            drawn.wait(1.0)   # the draw has every chance to get in between (it cannot, once fixed)
        return real(seq, ms, health)

    monkeypatch.setattr(P, "heartbeat_frame", heartbeat_frame)
    board.start()
    try:
        assert building.wait(5)
        board.draw(bytes.fromhex("04AA0001"))
        drawn.set()
        while sum(b.count(0) for b in wire) < 4:   # a few frames after the draw
            threading.Event().wait(0.01)
    finally:
        board.stop()
    frames = [f for f in P.FrameSplitter().feed(b"".join(wire)) if isinstance(f, P.Frame)]
    seen = 0
    for f in frames:
        assert not P.seq_after(seen, f.seq), f"{f} left after event {seen}"
        if f.type in P.EVENT_TYPES:
            seen = f.seq
    assert seen == 1


# --- a press that comes right after a turn ended --------------------------------------------

def press(live: LiveTable) -> None:
    live.on_reader_event({"event": "button", "kind": "short", "time": 0})


def draw(live: LiveTable, uid: str, tile: str) -> None:
    live.on_reader_event({"event": "tile_drawn", "uid": uid, "tile": tile, "time": 0})


def second_press_then_next_turn() -> tuple[TableSession, LiveTable, str, str]:
    """Blue plays, draws and presses twice; the second press comes once orange's turn has
    begun.  Orange then places and draws."""
    truth, session, live = table()
    first = session.position.active
    place(session)
    draw(live, "04AA0001", truth.supplies.bag[-1])
    press(live)
    second = session.position.active
    assert second != first and [e.move["action"] for e in session.game.events] == ["place", "draw", "end_turn"]
    press(live)                         # the same player's second press, or orange's own?
    assert session.question is None and len(session.game.events) == 3
    waiting = live.pending[-1].turn      # it waits, marked as pressed right after blue's turn
    assert (waiting.player, waiting.after) == (second, first)
    place(session)
    draw(live, "04AA0002", truth.supplies.bag[-2])
    return session, live, first, second


def test_a_second_press_does_not_end_the_next_turn_at_its_draw_the_table_is_asked():
    session, live, first, second = second_press_then_next_turn()
    assert [e.move["action"] for e in session.game.events] == ["place", "draw", "end_turn", "place", "draw"]
    assert session.position.active == second
    q = session.question
    assert q is not None and f"right after {first}'s turn ended" in q.prompt
    assert [c["label"] for c in q.choices] == [f"Yes: {second} ends the turn",
                                              f"No: {first} pressed twice; {second}'s turn goes on"]
    session.answer(q.id, 1)
    assert session.position.active == second and not live.pending and len(session.game.events) == 5
    press(live)                         # orange's own press, after the draw: ends the turn
    assert [e.move["action"] for e in session.game.events][-1] == "end_turn"
    assert session.position.active not in (second,) and session.question is None


def test_the_table_says_the_press_was_the_next_players_own():
    session, live, first, second = second_press_then_next_turn()
    session.answer(session.question.id, 0)
    ends = [e.move for e in session.game.events if e.move["action"] == "end_turn"]
    assert [m["player"] for m in ends] == [first, second]
    assert session.question is None and not live.pending


def test_a_press_after_the_draw_settles_the_question():
    session, live, first, second = second_press_then_next_turn()
    q = session.question
    assert q is not None
    press(live)                         # orange presses (again) after drawing: clearly orange's
    ends = [e.move for e in session.game.events if e.move["action"] == "end_turn"]
    assert [m["player"] for m in ends] == [first, second]
    assert session.question is None
    answered = [m.data for m in session.bus.since(0) if m.kind == "answered"]
    assert answered and answered[-1]["id"] == q.id and answered[-1]["choice"] is None
