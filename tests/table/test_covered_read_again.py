"""A still board whose reading found a space covered is read again every ``LOOK_AGAIN_MS`` until it
reads clean (docs/table.md, "When the camera misbehaves"): the first still frame after a hand
lifts (its shadow, a sleeve at the board's edge) may read F4 covered on a board that is in fact
clear, and the board stays still from then on, so without another look the piece laid on F4 is
never committed and the camera status stays "covered".

The reader is scripted (what each still read returns), so only the loop is under test; the
reading of a real hand lifting is ``test_hand_lifted.py``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from builders import setup_position_doc
from companion.game import Game
from companion.hexgrid import Hex
from companion.position import Position
from companion.rules import apply
from companion.table.live import LOOK_AGAIN_MS, LiveTable
from companion.table.session import TableSession
from companion.table.sources import Frame
from companion.vision.covered import covered_reason

F4 = Hex(-1, 1)
TOKEN = {"at": [F4.q, F4.r], "kind": "wood"}
"""F4 is printed on a wood token (``companion/editions/default/substrates.json``)."""


def _setup() -> dict:
    """A 2-player game at set-up with one wood token still to lay (rulebook 2.c), the other three
    laid."""
    return setup_position_doc([{"at": [1, -1], "kind": "wood"}, {"at": [2, -1], "kind": "soil"},
                               {"at": [0, -2], "kind": "soil"}])


class ScriptedReader:
    """A board reader that gives, read after read, the readings of ``script`` (the last one again
    once the script is used up), and counts its reads."""

    def __init__(self, script: list[SimpleNamespace]):
        self.script, self.reads = script, 0

    def read(self, image, hand=None, previous=None):
        self.reads += 1
        return self.script[min(self.reads, len(self.script)) - 1]


def _reading(board: dict, covered: bool = False) -> SimpleNamespace:
    """A reading of ``board``; ``covered``: F4 is read covered, so it keeps what was committed
    there (nothing) with confidence 0, as the board reader does."""
    key = f"{F4.q},{F4.r}"
    return SimpleNamespace(board=board, confidence={key: 0.0} if covered else {}, changed=None,
                           unreadable={key: covered_reason("F4")} if covered else {})


class Table:
    """A live table fed frames 100 ms apart."""

    def __init__(self, script: list[SimpleNamespace]):
        self.session = TableSession(Game(Position.from_json(_setup())))
        self.reader = ScriptedReader(script)
        self.live = LiveTable(self.session, reader=self.reader)
        self.t_ms = 0.0
        self.board = np.full((90, 160, 3), 100, np.uint8)

    def frame(self, image: np.ndarray) -> None:
        self.t_ms += 100.0
        self.live.on_frame(Frame(image, self.t_ms))

    def hand(self, i: int = 0) -> None:
        """A hand moving over the board."""
        image = self.board.copy()
        image[10:80, 20 + 10 * (i % 2):120] = 230
        self.frame(image)

    def still(self, ms: float) -> None:
        """The board stays still: the camera goes on giving frames of it."""
        for _ in range(int(ms // 100)):
            self.frame(self.board)


def _boards() -> tuple[dict, dict]:
    """The board before the token and with the token on F4."""
    before = Position.from_json(_setup())
    after = apply(before, {"player": "table", "action": "substrate", **TOKEN}).position
    return before.to_json()["board"], after.to_json()["board"]


def test_a_space_read_covered_on_a_clear_still_board_is_read_again_and_its_piece_committed():
    empty, laid = _boards()
    t = Table([_reading(empty), _reading(empty, covered=True), _reading(laid)])
    t.still(500)                           # the board before: read once
    t.hand()                               # the token laid on F4
    t.still(500)                           # the first still frame reads F4 covered
    s = t.session
    assert s.status["camera"] == "covered" and "F4" in s.status_detail["camera"]
    assert F4 not in s.position.substrates
    t.still(LOOK_AGAIN_MS + 200)           # nothing moves
    assert s.status["camera"] == "ok", s.status_detail.get("camera")
    assert s.position.substrates.get(F4) == "wood"
    assert t.reader.reads == 3
    t.still(5 * LOOK_AGAIN_MS)             # a clean still board is not read again
    assert t.reader.reads == 3


def test_a_space_that_stays_covered_keeps_the_status_and_is_read_again_only_while_the_board_is_still():
    empty, laid = _boards()
    t = Table([_reading(empty), _reading(empty, covered=True)])
    t.still(500)
    t.hand()
    t.still(500)
    assert t.reader.reads == 2
    t.still(3 * LOOK_AGAIN_MS + 100)       # once per LOOK_AGAIN_MS, not on every frame
    assert t.reader.reads == 5
    s = t.session
    assert s.status["camera"] == "covered" and s.status_detail["camera"] == "something covers F4: move it off the board"
    for i in range(int(2 * LOOK_AGAIN_MS // 100)):   # a hand keeps moving over the board: not read
        t.hand(i)
    assert t.reader.reads == 5
    t.reader.script.append(_reading(laid))
    t.still(500)                           # still again: read once the gate opens, clean
    assert t.reader.reads == 6
    assert s.status["camera"] == "ok" and s.position.substrates.get(F4) == "wood"


def test_a_still_board_with_a_space_unreadable_under_glare_is_read_again_until_it_reads_clean():
    """Glare alone is treated as a covered space is: the lamp may be moved or dimmed while the
    board stays still, and the piece under the glare is then committed without anyone touching
    the board."""
    empty, laid = _boards()
    key = f"{F4.q},{F4.r}"
    glare = SimpleNamespace(board=empty, confidence={key: 0.0}, changed=None,
                            unreadable={key: "glare on F4: move the lamp"})
    t = Table([_reading(empty), glare, glare])
    t.still(500)
    t.hand()                               # the token laid on F4, under the lamp's reflection
    t.still(500)
    assert t.reader.reads == 2 and F4 not in t.session.position.substrates
    t.still(2 * LOOK_AGAIN_MS + 100)       # the board stays still: read again every LOOK_AGAIN_MS
    assert t.reader.reads == 4
    t.reader.script.append(_reading(laid))  # the lamp moved: F4 reads clean
    t.still(LOOK_AGAIN_MS + 100)
    assert t.reader.reads == 5
    assert t.session.position.substrates.get(F4) == "wood"
    t.still(3 * LOOK_AGAIN_MS)             # read whole: not read again
    assert t.reader.reads == 5
