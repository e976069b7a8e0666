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

from builders import setup_position_doc
from companion.cli import main
from companion.game import Game
from companion.position import Position
from companion.table.live import LiveTable
from companion.table.sources import Frame
from companion.table.session import TableSession

TOKENS = [{"at": [1, -1], "kind": "wood"}, {"at": [1, 0], "kind": "soil"},    # D5, E6
          {"at": [0, -2], "kind": "soil"}, {"at": [-1, 1], "kind": "wood"}]   # C3, F4 (under the hand)
"""The report's tokens were wood on D5 and E5, soil on C3 and F4; the edition's placeholder
tokens print E5 and F4 on wood tokens only, so E5's token is soil on E6 here and F4's is wood."""


def _photo(tmp_path, name: str, substrates: list[dict], *objects: str):
    pos, out = tmp_path / f"{name}.json", tmp_path / f"{name}.jpg"
    pos.write_text(json.dumps(setup_position_doc(substrates)))
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
    session = TableSession(Game(Position.from_json(setup_position_doc([]))))
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
