"""Meeples and spore sides from learned piece appearance; incremental reading; glare that clips."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from test_vision_cli import run
from test_vision_hard import linear_glare
from test_vision_reader import every_piece
from vision_frames import mild, normalised, shoot

from calibration.colours import load_layout
from companion.vision.pieces import PieceModel, assign_meeples, symbol_features
from companion.vision.profile import load_profile
from companion.vision.reader import BoardReader


# --- joint meeple assignment -----------------------------------------------------------------

def test_a_colour_on_two_spaces_goes_to_the_better_meeple_evidence():
    ev = np.full((5, 4), -6.0)
    ev[0, 2] = 4.0  # the red meeple on a tile
    ev[3, 2] = 2.5  # red seen on a spore too (its tinted symbol): weaker evidence of a standing piece
    owner, conf = assign_meeples(ev)
    assert list(owner) == [2, -1, -1, -1, -1]
    assert conf[0] > 0.3


def test_no_meeple_where_no_space_stands_out():
    ev = np.full((6, 4), -6.0)
    ev[1, 0], ev[2, 0] = -2.0, -2.5  # blue faintly on two spaces: not a meeple
    assert (assign_meeples(ev)[0] == -1).all()


def test_a_meeple_dimmed_by_glare_is_kept_when_it_stands_out_clearly():
    ev = np.full((6, 4), -6.0)
    ev[4, 1] = -1.5  # the only space showing orange at all
    owner, conf = assign_meeples(ev)
    assert owner[4] == 1 and conf[4] < 0.9  # kept, but less sure


def test_one_meeple_per_space_even_if_two_colours_fit_it():
    ev = np.full((3, 4), -6.0)
    ev[0, 0], ev[0, 1], ev[1, 1] = 5.0, 4.0, 3.0
    owner, _ = assign_meeples(ev)
    assert list(owner) == [0, 1, -1]


# --- spore sides -----------------------------------------------------------------------------

def _model(unused: np.ndarray, used: np.ndarray | None) -> PieceModel:
    spore = np.full((4, 2, 3, 5), np.nan, np.float32)
    spore[:, 0] = unused
    if used is not None:
        spore[:, 1] = used
    return PieceModel(np.zeros((4, 3), np.float32), np.ones((4, 3), np.float32), np.zeros((4, 3, 5), np.float32), spore)


def _lab_spore(chip: tuple, symbol: tuple, where: str) -> np.ndarray:
    """float32 (1, P, 3): a chip colour, the symbol colour on the centre ("dot") or diagonals ("x")."""
    from companion.vision import layout as L

    lab = np.tile(np.float32(chip), (1, L.POINTS_PER_SPACE, 1))
    if where == "dot":
        lab[0, L.CENTRE] = symbol
        lab[0, L.SYM_IN] = symbol
    else:
        for g, step in ((L.SYM_IN, 2), (L.SYM_MID, 4), (L.SYM_OUT, 6)):
            idx = np.arange(g.start, g.stop)
            lab[0, idx[::step]] = symbol  # four arms at any turn of the chip
        lab[0, L.CENTRE] = symbol
    return lab


@pytest.mark.parametrize("symbol", [(20.0, 0.0, 0.0), (95.0, 0.0, 0.0)])
def test_a_used_side_is_far_from_the_learned_unused_side_dark_or_light(symbol):
    # only the unused side was photographed (layout 1): a dark X on a light chip and a light X
    # both read used; the unused side (a pale dot tinted like the chip) reads unused
    chip = (70.0, 30.0, 60.0)
    unused = symbol_features(_lab_spore(chip, (80.0, 25.0, 50.0), "dot"))[0]
    model = _model(unused, None)
    for lab, want in ((_lab_spore(chip, (80.0, 25.0, 50.0), "dot"), False), (_lab_spore(chip, symbol, "x"), True)):
        used, conf = model.spore_side(symbol_features(lab), np.array([1]), np.array([False]))
        assert bool(used[0]) is want and conf[0] > 0.5


def test_with_both_sides_learned_the_nearer_side_wins():
    chip = (45.0, 60.0, 40.0)
    un, us = (_lab_spore(chip, (55.0, 50.0, 30.0), "dot"), _lab_spore(chip, (60.0, 40.0, 30.0), "x"))
    model = _model(symbol_features(un)[0], symbol_features(us)[0])
    used, _ = model.spore_side(symbol_features(np.concatenate([un, us])), np.array([2, 2]), np.array([False, False]))
    assert list(used) == [False, True]


# --- calibration from three layouts ------------------------------------------------------------

def test_three_layout_photos_teach_both_sides_and_meeples_on_spores(tmp_path, capsys, geo, codes):
    cond = mild(colour_temperature_k=3200.0, gradient=0.12)
    photos = []
    for n in (1, 2, 3):
        frame, intr = shoot(load_layout(n), geo, cond, seed=20 + n)
        photos.append(tmp_path / f"layout{n}.png")
        cv2.imwrite(str(photos[-1]), frame.image)
    k = tmp_path / "k.json"
    intr.save(k)
    prof = tmp_path / "p.json"
    argv = ["calibrate", "pieces", "--intrinsics", str(k), "--out", str(prof)]
    for p in photos:
        argv += ["--image", str(p)]
    code, out, err = run(argv + ["--json"], capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert all(s["sides_learned"] == ["unused", "used"] for s in summary["pieces"]["spores"].values())
    assert set(summary["separation"]) >= {"board", "tile", "pink", "yellow", "green", "rock", "tree"}
    code, out, _ = run(argv, capsys)
    assert code == 0 and "separation" in out and "sides" in out
    board = every_piece(codes)
    board["meeples"] = {"blue": [0, -4], "orange": [4, -4], "red": [-1, 0], "black": [2, -2]}
    frame, _ = shoot(board, geo, cond, seed=30)
    reading = BoardReader(geo, profile=load_profile(prof), intrinsics=intr, tile_codes=codes).read(frame.image)
    assert normalised(reading.board) == normalised(board, seen=reading.board)
    # a side not claimed is one its own meeple hides
    assert all(board["meeples"][p] == s["at"] for p, s in reading.board["spores"].items() if s["used"] is None)


def test_layouts_are_refused_in_the_wrong_number(tmp_path, capsys):
    code, _, err = run(["calibrate", "pieces", "--image", "a.jpg", "--image", "b.jpg", "--layout", "1",
                        "--out", str(tmp_path / "p.json")], capsys)
    assert code == 2 and "one --layout per --image" in err


# --- incremental reading ---------------------------------------------------------------------

def test_an_unchanged_board_keeps_its_reading_and_a_new_tile_is_read(geo, codes):
    from vision_frames import SIZE
    from companion.sim.render import make_camera

    board = every_piece(codes)
    cond = mild()
    cam = make_camera(geo, cond, SIZE)
    frame, intr = shoot(board, geo, cond, seed=1, camera=cam)
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes)
    first = reader.read(frame.image)
    assert normalised(first.board) == normalised(board, seen=first.board) and first.changed is None

    noise = np.random.default_rng(2).normal(0, 3.0, frame.image.shape)  # new sensor noise, same board
    again = np.clip(frame.image + noise, 0, 255).astype(np.uint8)
    same = reader.read(again, previous=first)
    assert same.changed == 0 and normalised(same.board) == normalised(board, seen=same.board)

    moved = json.loads(json.dumps(board))
    moved["tiles"].append({"at": [-3, 1], "paths": codes[3]})
    moved["meeples"]["red"] = [-3, 1]
    later, _ = shoot(moved, geo, cond, seed=3, camera=cam)
    step = reader.read(later.image, previous=same)
    assert 0 < step.changed <= 4
    assert normalised(step.board) == normalised(moved, seen=step.board)


# --- glare that clips ------------------------------------------------------------------------

def test_spaces_under_clipping_glare_are_right_or_unreadable_never_confidently_wrong(geo, codes):
    board = every_piece(codes)
    frame, intr = shoot(board, geo, mild(noise_sigma=3.0), seed=8)
    image = linear_glare(frame.image, (0.5, 0.45), 55.0, 600.0)  # far beyond what the camera holds
    reading = BoardReader(geo, intrinsics=intr, tile_codes=codes).read(image)
    want, got = normalised(board), normalised(reading.board)
    from test_vision_cases import per_space

    truth, seen = per_space(board, geo.spaces, seen=reading.board), per_space(reading.board, geo.spaces)
    for h in geo.spaces:
        key = f"{h[0]},{h[1]}"
        if truth[h] != seen[h]:
            assert reading.confidence[key] < 0.5, (h, truth[h], seen[h])
    for key, reason in reading.unreadable.items():
        assert reading.confidence[key] == 0.0 and reason.startswith("glare ") and reason.endswith("move the lamp")
    assert len(reading.unreadable) >= 3  # the spot is named, not silently misread


def test_round_pieces_are_told_apart_by_their_learned_look():
    from companion.vision.pieces import TOKEN_KINDS, nearest_token

    chip = (40.0, 10.0, -50.0)
    unused, used = _lab_spore(chip, (60.0, 5.0, -40.0), "dot"), _lab_spore(chip, (15.0, 0.0, 0.0), "x")
    wood = _lab_spore((45.0, 20.0, 30.0), (35.0, 18.0, 25.0), "x")  # grain
    soil = _lab_spore((30.0, 5.0, 10.0), (25.0, 4.0, 8.0), "dot")
    model = _model(symbol_features(unused)[0], symbol_features(used)[0])
    model.substrate = np.stack([symbol_features(wood)[0], symbol_features(soil)[0]])
    model.spore[1:] = np.nan  # only the blue spore was photographed here
    best, conf, dist = nearest_token(model, symbol_features(np.concatenate([used, soil, wood])), np.zeros(3, bool))
    assert [TOKEN_KINDS[b] for b in best] == [("spore", "blue", True), ("soil", None, None), ("wood", None, None)]
    assert (dist < 0.5).all() and (conf > 0.5).all()


def test_weak_meeple_evidence_under_a_glare_spot_neither_takes_nor_blocks_a_meeple():
    # under the spot every colour is lifted towards every meeple's: a glared space's weak
    # evidence must not win a meeple, nor stand as the runner-up that keeps the real one (a
    # clear winner elsewhere) off the board
    ev = np.full((6, 4), -8.0)
    ev[0, 0] = -2.4  # the real blue meeple, in the shade of a tall tile
    ev[4, 0] = -1.3  # a glared space, lifted towards blue
    glared = np.array([False, False, False, False, True, False])
    assert assign_meeples(ev)[0][0] == -1  # without knowing the glare, blue is lost
    owner, _ = assign_meeples(ev, doubtful=glared)
    assert owner[0] == 0 and owner[4] == -1
    strong = ev.copy()
    strong[4, 1] = 2.5  # a meeple under the spot with strong evidence still counts
    assert assign_meeples(strong, doubtful=glared)[0][4] == 1


def test_a_spore_under_its_meeple_read_as_another_colour_is_the_meeples_own(geo):
    # a meeple never stands on another player's spore (rulebook 5.b): blue's covered spore,
    # misread as a second black spore, is blue's, and the real black spore stays
    from companion.vision import layout as L
    from companion.vision.classify import SpaceReading
    from companion.vision.reader import BoardReader

    reader = BoardReader(geo, refine_grid=False)
    readings = [SpaceReading("empty", confidence=0.9) for _ in geo.spaces]
    readings[3] = SpaceReading("spore", player="black", used=True, confidence=0.8)
    readings[10] = SpaceReading("spore", player="black", meeple="blue", confidence=0.6)
    owner = np.full(len(readings), -1)
    owner[10] = 0
    lab = np.zeros((len(readings), L.POINTS_PER_SPACE, 3), np.float32)
    out = reader._covered_spores(lab, readings, owner)
    assert (out[10].kind, out[10].player, out[10].meeple) == ("spore", "blue", "blue")
    assert (out[3].kind, out[3].player) == ("spore", "black")
    # with blue's spore read elsewhere, the space under the meeple is left as read
    readings[20] = SpaceReading("spore", player="blue", confidence=0.9)
    assert reader._covered_spores(lab, readings, owner)[10].player == "black"


def test_a_dark_spore_under_its_meeple_read_as_empty_is_the_meeples_spore(geo):
    # in play a meeple stands only on tiles and its own spore (rulebook 4): a meeple on a
    # space read empty, with its spore read nowhere else, stands on that spore (a dark chip
    # around the meeple looks like the board)
    from companion.vision import layout as L
    from companion.vision.classify import SpaceReading

    reader = BoardReader(geo, refine_grid=False)
    readings = [SpaceReading("empty", confidence=0.9) for _ in geo.spaces]
    readings[10] = SpaceReading("empty", meeple="black", confidence=0.7)
    owner = np.full(len(readings), -1)
    owner[10] = 3
    lab = np.zeros((len(readings), L.POINTS_PER_SPACE, 3), np.float32)
    out = reader._covered_spores(lab, readings, owner)
    assert (out[10].kind, out[10].player, out[10].meeple) == ("spore", "black", "black")
    assert out[10].confidence == pytest.approx(0.7)
    # in play, with black's spore committed on a space not read again, the space stays empty
    assert reader._covered_spores(lab, readings, owner, elsewhere=["black"])[10].kind == "empty"
    # and a meeple on a tile stays on the tile
    readings[10] = SpaceReading("tile", code="P03", meeple="black", confidence=0.7)
    assert reader._covered_spores(lab, readings, owner)[10].kind == "tile"


def test_in_play_a_spore_under_another_colour_is_the_meeples_own(geo):
    # the covered-spore rule holds on incremental reads too: the spores committed on the
    # spaces not read again count as read elsewhere
    from companion.vision import layout as L
    from companion.vision.classify import SpaceReading

    reader = BoardReader(geo, refine_grid=False)
    readings = [SpaceReading("spore", player="black", meeple="blue", confidence=0.6)]
    owner = np.array([0])
    lab = np.zeros((1, L.POINTS_PER_SPACE, 3), np.float32)
    assert reader._covered_spores(lab, readings, owner, elsewhere=["black"])[0].player == "blue"
    assert reader._covered_spores(lab, readings, owner, elsewhere=["blue", "black"])[0].player == "black"


def test_a_dark_symbol_still_showing_on_a_spore_grows_no_other_players_meeple():
    # measured on a meadow board: a blue spore's dark used symbol, seen from above, lies a
    # little nearer the black meeple's learned core (z 1.15) than the learned used side (z 1.74)
    from companion.vision import layout as L
    from companion.vision.pieces import RING_POINTS, STAT_STD, meeple_evidence

    lab = np.zeros((1, L.POINTS_PER_SPACE, 3), np.float32)
    lab[0, :] = (45.0, 9.0, -50.0)  # the blue chip
    core = RING_POINTS["core"]
    lab[0, core[: len(core) * 2 // 3]] = (11.0, 4.0, -2.0)  # the dark symbol
    lab[0, L.CAP.start:L.CAP.stop] = (11.0, 4.0, -2.0)
    feat = symbol_features(lab)[0]
    rings = np.repeat(feat[None], 4, axis=0)
    spore = np.repeat(rings[:, None], 2, axis=1).copy()
    spore[0, 0] += 6.0 * STAT_STD  # the unused blue side looks nothing like it
    spore[0, 1, 0] += 1.74 * STAT_STD  # used side: z 1.74 in every statistic
    meeple_rings = rings.copy()
    meeple_rings[3, 0] += 1.15 * STAT_STD  # black meeple: z 1.15
    meeple_rings[:3, 0] += 8.0 * STAT_STD
    model = PieceModel(meeple_mean=np.array([[45, 9, -50], [60, 35, 55], [45, 60, 30], [11, 4, -2]], np.float32),
                       meeple_std=np.full((4, 3), 3.0, np.float32), meeple_rings=meeple_rings, spore=spore)
    ll = np.zeros((1, L.POINTS_PER_SPACE, 5), np.float32)
    ll[..., 4] = -50.0  # no flat surface fits the dark symbol: colour alone says "black meeple"
    ev = meeple_evidence(lab, ll, model, np.array([0]), np.arange(4), np.array([4]))
    owner, _ = assign_meeples(np.vstack([ev, np.full((3, 4), -6.0)]))
    assert ev[0, 3] < 0 and owner[0] == -1
