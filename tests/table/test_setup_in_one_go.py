"""Set-up placements a table lays in one go are read as set-up moves, in the rulebook's order
(docs/table.md, "From frames to moves"; rulebook 2.c and 3); a spore seen before the tokens is
held as illegal, naming the tokens to lay first.

The four tokens are those of a user's report (``u4.json``: wood on E5 and E7, soil on G3 and
B2, here B3: see ``TOKENS``, laid at once on an empty two-player table), where the companion called the board a
mismatch because one still period could hold only three moves."""

import random
from types import SimpleNamespace

import numpy as np

from companion import movegen
from companion.edition import load_edition
from companion.game import Game
from companion.position import Position
from companion.rules import Board, apply
from companion.setup import GameConfig, new_game
from companion.table.inference import explain, view_of_position
from companion.table.live import LiveTable
from companion.table.session import TableSession
from companion.table.sources import Frame

TOKENS = [("wood", (0, 0)), ("wood", (2, 0)), ("soil", (-2, 2)), ("soil", (1, -3))]
"""u4.json's tokens: E5, E7 wood; G3 soil; its other soil token lay on B2, which the edition's
placeholder tokens print on a wood token only, so it is B3 here (a soil token's space)."""


class ScriptedReader:
    """A board reader that reads whatever board the test lays on the table."""

    def __init__(self):
        self.board = None

    def read(self, image, hand=None, previous=None):
        return SimpleNamespace(board=self.board, confidence={}, changed=None, unreadable={})


class Table:
    """A live table at a real table's start (nothing dealt), or at ``pos``, fed frames 100 ms
    apart."""

    def __init__(self, pos: Position | None = None):
        if pos is None:
            pos, _ = new_game(GameConfig(), load_edition(), random.Random(3), deal=False)
        self.session = TableSession(Game(pos))
        self.reader = ScriptedReader()
        self.live = LiveTable(self.session, reader=self.reader)
        self.t_ms, self.shade = 0.0, 40

    def show(self, board: dict) -> None:
        """A hand over the board, then the board still long enough to be read (0.5 s)."""
        self.reader.board = board
        self.shade += 40
        image = np.full((90, 160, 3), 100, np.uint8)
        image[40:50, 70:90] = self.shade
        hand = image.copy()
        hand[10:80, 20:120] = 230
        for img in [hand] + [image] * 5:
            self.t_ms += 100.0
            self.live.on_frame(Frame(img, self.t_ms))

    def board_with(self, tokens) -> dict:
        board = self.session.position.to_json()["board"]
        board["substrates"] = [{"at": list(at), "kind": kind} for kind, at in tokens]
        return board


def test_the_four_substrate_tokens_laid_at_once_are_four_setup_moves_in_order():
    t = Table()
    t.show(t.board_with([]))
    t.show(t.board_with(TOKENS))
    s = t.session
    assert [(e.move["action"], e.move["kind"], s.edition.label(e.move["at"])) for e in s.game.events] == [
        ("substrate", "wood", "E5"), ("substrate", "wood", "E7"),     # 2.c lists wood first
        ("substrate", "soil", "B3"), ("substrate", "soil", "G3")]
    assert s.position.pending_substrates == []
    assert not any(m.kind == "mismatch" for m in s.bus.since(0))


def test_a_token_too_many_at_setup_is_still_a_mismatch():
    t = Table()
    t.show(t.board_with([]))
    t.show(t.board_with(TOKENS[:3] + [("wood", (0, -3))]))     # three wood: 2.c has two
    s = t.session
    assert s.game.events == []
    mismatch = [m for m in s.bus.since(0) if m.kind == "mismatch"]
    assert mismatch and {"E5", "E7", "G3", "B2"} <= set(mismatch[-1].data["spaces"])


def test_tokens_and_every_spore_of_the_first_round_at_once_come_in_the_rulebook_order():
    ed = load_edition()
    dealt, _ = new_game(GameConfig(players=["blue", "orange", "red", "black"]), ed, random.Random(5))
    start = dealt.copy()                                # hands drawn, the four tokens still to lay
    tokens = sorted(start.substrates.items())
    for at, kind in tokens:
        del start.substrates[at]
        start.pending_substrates.append(kind)
    after: Position = start
    for kind, at in [(k, a) for a, k in tokens]:
        after = apply(after, {"player": "table", "action": "substrate", "kind": kind, "at": list(at)}, ed).position
    spores = []
    for color in start.colors:                          # each player's spore in turn order (3)
        at = movegen.starting_spaces(Board(after, ed), color)[0]
        spores.append({"player": color, "action": "spore", "at": [at.q, at.r]})
        after = apply(after, spores[-1], ed).position
    ex = explain(start, ed, view_of_position(after))
    assert len(ex.matches) == 1
    seq, _ = ex.matches[0]
    assert [m["action"] for m in seq] == ["substrate"] * 4 + ["spore"] * 4
    assert [m for m in seq if m["action"] == "spore"] == spores


def test_a_spore_seen_before_the_tokens_is_held_naming_the_tokens_then_read_with_them():
    # 2.c before 3: the camera sees blue's spore while no token is down
    t = Table()
    s = t.session
    for color in s.position.colors:
        for _ in range(3):
            code = next(c for c, n in sorted(s.position.bag_tiles.items()) if n and c != "ROCK")
            assert s.submit({"player": color, "action": "draw", "tile": code}).legal
    t.show(t.board_with([]))
    blue = s.position.colors[0]
    at = movegen.starting_spaces(Board(s.position, s.edition), blue)[0]
    board = t.board_with([])
    board["spores"] = {blue: {"at": [at.q, at.r], "used": False}}
    board["meeples"] = {blue: [at.q, at.r]}
    t.show(board)
    assert s.illegal is not None and s.illegal["reason"] == "setup_order"
    assert s.illegal["message"].startswith("Lay the 1st and 2nd wood and the 1st and 2nd soil substrates first (2.c)")
    assert [e.move["action"] for e in s.game.events] == ["draw"] * 6
    board["substrates"] = t.board_with(TOKENS)["substrates"]     # the tokens laid beside it
    t.show(board)
    assert [e.move["action"] for e in s.game.events[6:]] == ["substrate"] * 4 + ["spore"]
    assert s.illegal is None
