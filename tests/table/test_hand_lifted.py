"""A piece laid under a resting hand while other pieces are laid in view: once the hand lifts,
that space is read afresh and its piece committed, and the camera status goes back to ok.

The sequence is the one of a user's report (frames made with ``sim-photo``, seed 3: a hand
over F4 and the spaces towards H3-I5, the other three substrate tokens in view): the empty
board, the four tokens under the hand, a mug moved across (motion), the clean board.  The
hand's rim over F4 changes its samples too little for the space to count as changed, so before
the fix F4 kept its "covered" verdict for good.
"""

from __future__ import annotations

import contextlib
import io
import json

import cv2

from companion.cli import main
from companion.game import Game
from companion.position import Position
from companion.table.live import LiveTable
from companion.table.sources import Frame
from companion.table.session import TableSession

TOKENS = [{"at": [1, -1], "kind": "wood"}, {"at": [0, 0], "kind": "wood"},    # D5, E5
          {"at": [0, -2], "kind": "soil"}, {"at": [-1, 1], "kind": "soil"}]   # C3, F4 (under the hand)


def _start(substrates: list[dict]) -> dict:
    """A 2-player game at set-up (rulebook 2.c: the 4 substrate tokens still to lay), with
    ``substrates`` on the board and the rest pending."""
    laid = [s["kind"] for s in substrates]
    pending = ["wood", "wood", "soil", "soil"]
    for k in laid:
        pending.remove(k)
    return {"edition": "default", "mode": "competitive", "difficulty": "easy",
            "players": [{"color": "blue", "team": None}, {"color": "orange", "team": None}],
            "active": "blue", "turn": {"taken": [], "number": 1},
            "board": {"tiles": [], "rocks": [], "substrates": substrates, "spores": {},
                      "meeples": {"blue": None, "orange": None},
                      "trees": [{"at": at, "mycorrhizae": [None] * 4} for at in ([-2, 0], [2, -2], [-1, 2], [1, 1])]},
            "hands": {"blue": [], "orange": []}, "bag": 48,
            "nutrients": {c: {"pink": 0, "yellow": 0, "white": 0} for c in ("blue", "orange")},
            "cards": {"blue": [], "orange": []}, "market": {"a": [], "b": []}, "decks": {"a": 12, "b": 12},
            "discard": [], "pending": {"substrates": pending}, "missions": [], "result": None, "options": {}}


def _photo(tmp_path, name: str, substrates: list[dict], *objects: str):
    pos, out = tmp_path / f"{name}.json", tmp_path / f"{name}.jpg"
    pos.write_text(json.dumps(_start(substrates)))
    args = ["sim-photo", "--position", str(pos), "--out", str(out), "--seed", "3"]
    for o in objects:
        args += ["--object", o]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(args) == 0
    return cv2.imread(str(out))


def test_a_piece_laid_under_a_resting_hand_is_read_once_the_hand_lifts(tmp_path):
    cv2.setNumThreads(1)
    empty = _photo(tmp_path, "empty", [])
    hand = _photo(tmp_path, "hand", TOKENS, "hand")
    mug = _photo(tmp_path, "mug", TOKENS, "mug")
    clean = _photo(tmp_path, "clean", TOKENS)
    session = TableSession(Game(Position.from_json(_start([]))))
    live = LiveTable(session)
    t = 0.0
    for image, n in ((empty, 5), (hand, 5), (mug, 2), (clean, 5)):
        for _ in range(n):
            live.on_frame(Frame(image, t))
            t += 100.0
        if image is hand:   # the three tokens in view are committed from the half-covered frame
            assert session.status["camera"] == "covered"
            assert "F4" in session.status_detail["camera"]
            assert len(session.position.substrates) == 3
    assert session.status["camera"] == "ok", session.status_detail.get("camera")
    assert {(h.q, h.r): k for h, k in session.position.substrates.items()} == {tuple(s["at"]): s["kind"] for s in TOKENS}
