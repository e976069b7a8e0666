"""A hand lying over the board is something covering it, not glare.

A user painted a hand flat over ``sim-photo`` photos (an arm from the frame's border, a palm
and fingers in one skin colour with a little shading and noise): on half of them
``read-board`` exited 0 and said "glare or something over ...": the reader had fitted a glare
spot to the bright hand, and a space under a glare spot may be glare.  The spot fitted to a hand
also left the board around it darkened, read as trees with black mycorrhiza markers at 0.6 in
a blue and orange game.  A reflection adds light to the pieces under it and taking it off gives
them back; a hand is a surface of its own, and taking a spot off leaves it as poorly explained
as before (:func:`companion.vision.covered.spot_explains`)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_vision_cli import run
from test_vision_objects import _confident_misreads

from companion.sim.cli import photo
from companion.vision.covered import spot_explains
from companion.vision.reader import BoardReader

BOARDS = Path(__file__).resolve().parents[1] / "fixtures" / "boards"
SKIN_BGR = {"medium": (138, 172, 224), "light": (196, 224, 255)}


def paint_hand(img: np.ndarray, rng: np.random.Generator, skin: tuple) -> np.ndarray:
    """An arm from a random border of the frame to a palm near the middle, four fingers and a
    thumb, in ``skin`` (BGR) with soft shading and pixel noise, blended with soft edges."""
    out = img.astype(np.float32)
    h, w = img.shape[:2]
    side = int(rng.integers(4))
    start = np.array([(rng.uniform(.2, .8) * w, 0), (rng.uniform(.2, .8) * w, h), (0, rng.uniform(.2, .8) * h),
                      (w, rng.uniform(.2, .8) * h)][side])
    palm = np.array([w / 2 + rng.uniform(-.15, .15) * w, h / 2 + rng.uniform(-.15, .15) * h])
    d = palm - start
    u = d / np.linalg.norm(d)
    n = np.array([-u[1], u[0]])
    mask = np.zeros((h, w), np.uint8)

    def pt(p):
        return tuple(int(v) for v in p)

    cv2.line(mask, pt(start), pt(palm), 255, int(0.07 * w), cv2.LINE_AA)
    cv2.ellipse(mask, pt(palm), (int(0.06 * w), int(0.045 * w)), float(np.degrees(np.arctan2(d[1], d[0]))), 0, 360, 255, -1,
                cv2.LINE_AA)
    for k in range(4):
        off = (k - 1.5) * 0.02 * w
        a = palm + u * 0.04 * w + n * off
        cv2.line(mask, pt(a), pt(a + u * rng.uniform(0.05, 0.08) * w + n * off * 0.3), 255, int(0.016 * w), cv2.LINE_AA)
    cv2.line(mask, pt(palm), pt(palm + n * 0.05 * w + u * 0.02 * w), 255, int(0.018 * w), cv2.LINE_AA)
    shading = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 9) * 40
    skin_img = np.clip(np.array(skin, np.float32) + shading[..., None] + rng.normal(0, 4, out.shape), 0, 255)
    a = (mask.astype(np.float32) / 255)[..., None]
    return np.clip(out * (1 - a) + skin_img * a, 0, 255).astype(np.uint8)


def board_of(n: int) -> dict:
    return json.loads((BOARDS / f"bot-game-{n}.json").read_text())["board"]


def drawn(board: dict) -> dict:
    """The pieces ``sim-photo`` draws: spores and meeples on the board only."""
    board = dict(board)
    board["meeples"] = {c: m for c, m in board["meeples"].items() if m is not None}
    board["spores"] = {c: s for c, s in board["spores"].items() if s and s.get("at") is not None}
    return board


@pytest.mark.parametrize("n,skin", [(0, "medium"), (1, "medium"), (2, "medium"), (0, "light")])
def test_a_hand_painted_over_a_photo_is_covered_not_glare(n, skin, tmp_path, capsys, geo):
    board = board_of(n)
    img = paint_hand(photo(board, seed=n).image, np.random.default_rng(n * 7 + len(skin)), SKIN_BGR[skin])
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), img)
    code, text, _ = run(["read-board", str(path)], capsys)
    assert code == 3, text
    assert "unreadable: something covers" in text and "glare or something" not in text, text
    # nothing read around the hand with confidence that is not there (no tree of black markers)
    reading = BoardReader(geo).read(img)
    assert _confident_misreads(reading, drawn(board), geo.spaces) == []


def test_a_spot_is_glare_when_taking_it_off_explains_its_spaces():
    lifted = np.ones(40, bool)
    before, after = np.zeros(40, bool), np.zeros(40, bool)
    before[:19], after[:1] = True, True       # clipping glare: 19 spaces poorly explained, 1 left
    assert spot_explains(after, before, lifted)
    before[:], after[:] = False, False
    before[:22], after[:32] = True, True      # a hand: the spot fitted to it explains nothing
    assert not spot_explains(after, before, lifted)
    assert spot_explains(np.zeros(40, bool), np.zeros(40, bool), lifted)   # nothing covered either way
    # only the spaces the spot lifts count
    assert spot_explains(after, before, np.zeros(40, bool))
