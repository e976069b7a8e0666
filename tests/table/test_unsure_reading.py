"""An unsure reading that two moves explain, on a board that stays still: the table is asked
which move it was instead of waiting for ever (docs/table.md, "Unsure readings").

``data/cases/table/unsure-two-moves/position.json`` is the position before move 203 of the
simulated game of seed 110 (three players, cooperative, ``SimulatedTable``): orange moves its
meeple off its spore along yellow to I5, and the same board follows from removing the tile on
I5, putting the same tile back and moving there.  The camera read I5 unsure."""

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from companion import movegen
from companion.game import Game
from companion.position import Position
from companion.rules import Board, apply
from companion.table.inference import explain, view_of_position
from companion.table.live import LOOK_AGAIN_MS, LiveTable
from companion.table.session import TableSession
from companion.table.sources import Frame

CASE = Path(__file__).resolve().parents[1] / "data" / "cases" / "table" / "unsure-two-moves"
MOVE = {"player": "orange", "action": "move", "to": [0, 4], "color": "yellow"}


class ScriptedReader:
    """A board reader that reads whatever board the test says is on the table."""

    def __init__(self):
        self.board, self.confidence = None, {}

    def read(self, image, hand=None, previous=None):
        return SimpleNamespace(board=self.board, confidence=dict(self.confidence), changed=None, unreadable={})


class Table:
    """A live table on the case's position, fed frames 100 ms apart; each board has its own image."""

    def __init__(self):
        self.before = Position.from_json(json.loads((CASE / "position.json").read_text()))
        self.session = TableSession(Game(self.before.copy()))
        self.reader = ScriptedReader()
        self.live = LiveTable(self.session, reader=self.reader)
        self.t_ms, self.shade = 0.0, 40

    def frame(self, image) -> None:
        self.t_ms += 100.0
        self.live.on_frame(Frame(image, self.t_ms))

    def show(self, pos: Position, unsure: tuple = ()) -> np.ndarray:
        """A hand over the board, then the board still long enough to be read (0.5 s)."""
        self.reader.board = pos.to_json()["board"]
        self.reader.confidence = {f"{q},{r}": 0.3 for q, r in unsure}
        self.shade += 40
        image = np.full((90, 160, 3), 100, np.uint8)
        image[40:50, 70:90] = self.shade          # the pieces that changed: a small patch
        hand = image.copy()
        hand[10:80, 20:120] = 230
        self.frame(hand)
        for _ in range(5):
            self.frame(image)
        return image

    def wait(self, image, ms: float) -> None:
        """The board stays still: the camera goes on giving frames of it."""
        for _ in range(int(ms // 100)):
            self.frame(image)


def test_an_unsure_reading_on_a_still_board_is_asked_about_not_held_for_ever():
    t = Table()
    after = apply(t.before, MOVE).position
    ex = explain(t.before, t.session.edition, view_of_position(after))
    assert len(ex.matches) == 2 and [MOVE] in [seq for seq, _ in ex.matches]   # the case: two moves fit
    t.show(t.before)
    still = t.show(after, unsure=[(0, 4)])
    s = t.session
    assert s.question is None and s.game.events == []      # first, a clearer view is waited for
    assert any(m.kind == "uncertain" for m in s.bus.since(0))
    t.wait(still, LOOK_AGAIN_MS + 200)
    q = s.question
    assert q is not None, "the table never asked which move it was"
    assert "I5" in q.prompt and "unsure" in q.detail
    assert len(q.choices) == 2 and [MOVE] in [c["moves"] for c in q.choices]
    assert any("moves along yellow" in c["label"] and "removes" not in c["label"] for c in q.choices)
    assert s.game.events == []                             # asked, not guessed
    s.answer(q.id, next(i for i, c in enumerate(q.choices) if c["moves"] == [MOVE]))
    assert [e.move for e in s.game.events] == [MOVE]


def test_a_board_that_moved_is_not_asked_about_until_it_is_still_again():
    t = Table()
    t.show(t.before)
    after = apply(t.before, MOVE).position
    t.show(after, unsure=[(0, 4)])
    for i in range(int(LOOK_AGAIN_MS // 100) + 5):   # a hand keeps moving over the board
        hand = np.full((90, 160, 3), 100, np.uint8)
        hand[10:80, 20 + 10 * (i % 2):120] = 230
        t.frame(hand)
    assert t.session.question is None and t.session.game.events == []


def test_a_later_board_that_one_move_explains_settles_the_question():
    t = Table()
    t.show(t.before)
    after = apply(t.before, MOVE).position
    still = t.show(after, unsure=[(0, 4)])
    t.wait(still, LOOK_AGAIN_MS + 200)
    assert t.session.question is not None
    # orange places a tile next: the other reading spent the turn's placement on I5
    place = next(p for p in movegen.placements(Board(after, t.session.edition), "orange")
                 if len(explain(t.before, t.session.edition,
                                view_of_position(apply(after, p).position)).matches) == 1)
    t.show(apply(after, place).position)
    assert t.session.question is None
    assert [e.move["action"] for e in t.session.game.events] == ["move", "place"]


def test_a_held_reading_read_again_into_a_refused_frame_is_not_read_on_every_frame():
    # The reader refusing the look again (a marker lost to glare) must not turn the still board
    # into a read per frame: the next look comes LOOK_AGAIN_MS later, as the first did.
    from companion.vision.errors import BoardNotFoundError

    t = Table()
    reads = []
    read = t.reader.read

    def refusing(image, hand=None, previous=None):
        reads.append(image)
        if len(reads) > 2:
            raise BoardNotFoundError("only 3 of the 4 corner markers were found")
        return read(image, hand, previous)

    t.reader.read = refusing
    t.show(t.before)
    still = t.show(apply(t.before, MOVE).position, unsure=[(0, 4)])
    assert len(reads) == 2
    t.wait(still, 3 * LOOK_AGAIN_MS)
    assert t.session.status["camera"] == "no board"
    assert len(reads) == 2 + 3   # one look every LOOK_AGAIN_MS
