"""In play, a hand that rested over the board and left: the spaces it covered read again as
what they show, not as still covered (the table would otherwise say "something covers D3"
until a space is fixed by hand)."""

from __future__ import annotations

from pathlib import Path

import cv2

from companion.cli import main
from companion.vision.reader import BoardReader

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "boards" / "bot-game-0.json"


def test_spaces_a_hand_covered_read_again_once_it_left(tmp_path, capsys):
    clean, hand = tmp_path / "clean.png", tmp_path / "hand.png"
    assert main(["sim-photo", "--position", str(FIXTURE), "--out", str(clean), "--seed", "1"]) == 0
    assert main(["sim-photo", "--position", str(FIXTURE), "--out", str(hand), "--seed", "1", "--object", "hand"]) == 0
    capsys.readouterr()
    cv2.setNumThreads(1)
    reader = BoardReader()
    before = reader.read(cv2.imread(str(clean)))
    covered = reader.read(cv2.imread(str(hand)), previous=before)
    assert covered.changed is not None   # read in play, from the committed reading
    assert sum("something covers" in why for why in covered.unreadable.values()) >= 5
    after = reader.read(cv2.imread(str(clean)), previous=covered)
    assert after.unreadable == {}
    assert after.board == before.board
