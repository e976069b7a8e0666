"""A hand, a phone or a rulebook over the board never gives a confident wrong board: the spaces
it covers are reported unreadable with a reason ("something covers D4: move it off the
board"), ``read-board`` exits with status 3, and a meeple hidden under it is not deduced onto
its spore.

The tests marked slow calibrate a styled table as the bench does (one calibration per style,
kept for the module: bands, meadow, inkline)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from bench_groups import SIZE, calibrate_group, group_board
from test_vision_cli import run
from vision_frames import shoot

from calibration.intrinsics import Intrinsics
from companion.sim.objects import random_object
from companion.sim.render import render_styled
from companion.sim.render_scene import random_board
from companion.sim.styles import TUNING_STYLES, get_style
from companion.vision.covered import is_covered_reason
from companion.vision.profile import load_profile
from companion.vision.reader import BoardReader
from companion.vision.unsure import LOW_CONFIDENCE

SKIN_BGR = (120, 150, 205)


def _paint_hand(img: np.ndarray) -> np.ndarray:
    """A hand painted flat over the centre of a photo, in one skin colour, as the user did."""
    out = img.copy()
    h, w = out.shape[:2]
    cv2.ellipse(out, (w // 2, h // 2), (int(0.09 * w), int(0.12 * h)), 20, 0, 360, SKIN_BGR, -1, cv2.LINE_AA)
    for k in range(4):
        a = np.radians(-60 + 25 * k)
        tip = (int(w / 2 + 0.16 * w * np.cos(a)), int(h / 2 + 0.16 * w * np.sin(a)))
        cv2.line(out, (w // 2, h // 2), tip, SKIN_BGR, int(0.025 * w), cv2.LINE_AA)
    return out


def _pieces(board: dict) -> dict:
    """(q, r) -> what stands there (kind, detail, meeple) for comparing a reading with the truth."""
    out: dict = {}
    for t in board["tiles"]:
        out[tuple(t["at"])] = ("tile", t["paths"])
    for r in board["rocks"]:
        out[tuple(r)] = ("rock",)
    for t in board["trees"]:
        out[tuple(t["at"])] = ("tree", tuple(t["mycorrhizae"]))
    for s in board["substrates"]:
        out[tuple(s["at"])] = ("substrate", s["kind"])
    for p, s in board["spores"].items():
        out[tuple(s["at"])] = ("spore", p)
    return {h: (v, next((p for p, m in board["meeples"].items() if tuple(m) == h), None)) for h, v in out.items()}


def _confident_misreads(reading, truth: dict, spaces) -> list:
    """Spaces read otherwise than ``truth`` at or above the table's bar and not reported unreadable."""
    got, want = _pieces(reading.board), _pieces(truth)
    return [h for h in spaces if got.get(tuple(h), (None, None)) != want.get(tuple(h), (None, None))
            and f"{h[0]},{h[1]}" not in reading.unreadable and reading.confidence[f"{h[0]},{h[1]}"] >= LOW_CONFIDENCE]


def test_a_hand_painted_flat_over_the_centre_is_reported_not_read(tmp_path, capsys, geo, codes):
    # the user's photo: a hand painted flat over the centre made read-board exit 0 with 16 wood
    # substrates where there are 4, blue's spore and meeple dropped without a word
    board = random_board(np.random.default_rng(5), geo, codes)
    frame, intr = shoot(board, geo, seed=5)
    img, k = tmp_path / "hand.png", tmp_path / "k.json"
    cv2.imwrite(str(img), _paint_hand(frame.image))
    intr.save(k)
    code, text, _ = run(["read-board", str(img), "--intrinsics", str(k)], capsys)
    assert code == 3
    said = [line for line in text.splitlines() if line.startswith("unreadable: something covers")]
    assert len(said) == 1 and said[0].endswith(": move it off the board") and said[0].count(",") >= 7, text
    listed = next(line for line in text.splitlines() if line.startswith("substrates:"))
    assert listed.count(" wood") + listed.count(" soil") <= len(board["substrates"]), listed
    code, out, _ = run(["read-board", str(img), "--intrinsics", str(k), "--json"], capsys)
    got = json.loads(out)
    assert code == 3 and sum(is_covered_reason(w) for w in got["unreadable"].values()) >= 8
    for key, why in got["unreadable"].items():
        assert got["confidence"][key] == 0.0 and why
    reading = BoardReader(geo, intrinsics=intr).read(_paint_hand(frame.image))
    assert _confident_misreads(reading, board, geo.spaces) == []


def test_read_board_exits_0_on_the_same_photo_without_the_hand(tmp_path, capsys, geo, codes):
    board = random_board(np.random.default_rng(5), geo, codes)
    frame, intr = shoot(board, geo, seed=5)
    img, k = tmp_path / "board.png", tmp_path / "k.json"
    cv2.imwrite(str(img), frame.image)
    intr.save(k)
    code, text, _ = run(["read-board", str(img), "--intrinsics", str(k)], capsys)
    assert code == 0 and "something covers" not in text


_TABLES: dict = {}


def _table(style: str, light_name: str, tmp_path_factory, geo):
    """A calibrated table as ``bench/vision.py`` sets it up (seed 2024): the style's layouts
    photographed under the lamp and calibrated with ``calibrate pieces``.  Returns the profile;
    cached for the module."""
    if (style, light_name) not in _TABLES:
        folder = tmp_path_factory.mktemp(f"{style}-{light_name.replace(' ', '-')}")
        _TABLES[style, light_name] = load_profile(calibrate_group(style, light_name, 2024, folder, geo))
    return _TABLES[style, light_name]


def _board_frame(style, light_name, board_no, tmp_path_factory, geo, codes, objects=None):
    """Board ``board_no`` of the bench's group, as a frame (with ``objects`` over it, built by a
    function of the board and camera); returns (reader, frame, board)."""
    profile = _table(style, light_name, tmp_path_factory, geo)
    board, cam, light, table, rng = group_board(style, light_name, 2024, board_no, geo, codes)
    obs = objects(board) if objects else None
    frame = render_styled(board, geo, style, light, rng=rng, size=SIZE, camera=cam, table=table, objects=obs)
    reader = BoardReader(geo, profile=profile, intrinsics=Intrinsics(cam.k, cam.dist, SIZE, 0.0), tile_codes=codes)
    return reader, frame, board


@pytest.mark.slow
@pytest.mark.parametrize("style", TUNING_STYLES)
def test_no_space_of_a_clean_board_is_reported_covered(style, tmp_path_factory, geo, codes):
    for board_no in (0,):
        reader, frame, board = _board_frame(style, "daylight", board_no, tmp_path_factory, geo, codes)
        reading = reader.read(frame.image)
        assert not [w for w in reading.unreadable.values() if is_covered_reason(w)], (style, board_no)


@pytest.mark.slow
def test_a_phone_lying_on_the_board_is_reported_not_read(tmp_path_factory, geo, codes):
    def phone(board):
        at = geo.center_mm((0, 0))
        return [random_object(np.random.default_rng(3), geo, get_style("meadow"), "phone", at=at, flat=True)]

    reader, frame, board = _board_frame("meadow", "daylight", 0, tmp_path_factory, geo, codes, phone)
    covered = [tuple(int(v) for v in k.split(",")) for k, f in frame.truth["covered"].items() if f >= 0.3]
    assert len(covered) >= 4
    reading = reader.read(frame.image)
    assert _confident_misreads(reading, board, geo.spaces) == []
    unread = [h for h in covered if is_covered_reason(reading.unreadable.get(f"{h[0]},{h[1]}"))]
    assert len(unread) >= 0.8 * len(covered), (covered, reading.unreadable)


def _meeple_on_a_tile(style, tmp_path_factory, geo, codes):
    """A board of the group whose player p has its meeple on a tile away from its spore:
    (board number, player, the tile (q, r), the spore (q, r))."""
    for board_no in range(20):
        board = group_board(style, "daylight", 2024, board_no, geo, codes)[0]
        for p, at in sorted(board["meeples"].items()):
            spore = tuple(board["spores"][p]["at"])
            d = np.subtract(at, spore)
            if tuple(at) != spore and (abs(d[0]) + abs(d[1]) + abs(d.sum())) // 2 >= 4:
                return board_no, p, tuple(at), spore
    raise AssertionError("no board with a meeple on a tile far from its spore")


@pytest.mark.slow
def test_a_meeple_under_a_hand_is_not_deduced_onto_its_spore(tmp_path_factory, geo, codes):
    board_no, p, tile, spore = _meeple_on_a_tile("bands", tmp_path_factory, geo, codes)

    def hand(board):
        return [random_object(np.random.default_rng(7), geo, get_style("bands"), "hand", at=geo.center_mm(tile), flat=True)]

    reader, clean, board = _board_frame("bands", "daylight", board_no, tmp_path_factory, geo, codes)
    _, frame, _ = _board_frame("bands", "daylight", board_no, tmp_path_factory, geo, codes, hand)
    assert frame.truth["covered"].get(f"{tile[0]},{tile[1]}", 0) >= 0.9  # the hand hides the meeple
    assert frame.truth["covered"].get(f"{spore[0]},{spore[1]}", 0) == 0  # and leaves its spore in view
    key = f"{spore[0]},{spore[1]}"
    committed = reader.read(clean.image)
    for reading in (reader.read(frame.image), reader.read(frame.image, previous=committed)):
        assert reading.board["meeples"].get(p) != list(spore)
        # its spore shows its symbol, which the reader takes as no meeple there: no doubt offers it
        assert reading.board["spores"][p]["at"] == list(spore)
        assert not any(f"its spore at {reader.label(spore)}" in why for why in reading.unsure.values()), reading.unsure
        assert _confident_misreads(reading, board, geo.spaces) == [] or reading.changed is not None


@pytest.mark.slow
def test_a_hand_over_a_committed_board_keeps_the_committed_pieces_unreadable(tmp_path_factory, geo, codes):
    # in play the table compares what it reads with the committed board: a covered space keeps
    # what was committed there (confidence 0, with its reason), not what the hand looks like
    def hand(board):
        return [random_object(np.random.default_rng(11), geo, get_style("inkline"), "hand", at=geo.center_mm((0, 0)), flat=True)]

    reader, clean, board = _board_frame("inkline", "daylight", 1, tmp_path_factory, geo, codes)
    _, frame, _ = _board_frame("inkline", "daylight", 1, tmp_path_factory, geo, codes, hand)
    committed = reader.read(clean.image)
    reading = reader.read(frame.image, previous=committed)
    covered = [k for k, w in reading.unreadable.items() if is_covered_reason(w)]
    assert len(covered) >= 4
    for key in covered:
        h = tuple(int(v) for v in key.split(","))
        was, now = committed.spaces[h], reading.spaces[h]
        assert (now.kind, now.code, now.player, now.meeple) == (was.kind, was.code, was.player, was.meeple)
        assert reading.confidence[key] == 0.0
