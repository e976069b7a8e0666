"""Reading in play: an unchanged board costs no marker search, a bumped or covered board does."""

from __future__ import annotations

import cv2
import numpy as np
from test_vision_reader import every_piece
from vision_frames import SIZE, mild, normalised, shoot

from companion.sim.render import make_camera
from companion.vision.reader import BoardReader


def _noisy(image: np.ndarray, seed: int) -> np.ndarray:
    """The same view with new sensor noise (a later frame of a still table)."""
    noise = np.random.default_rng(seed).normal(0, 3.0, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def _first(geo, codes, cond):
    board = every_piece(codes)
    frame, intr = shoot(board, geo, cond, seed=1, camera=make_camera(geo, cond, SIZE))
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes, refine_grid=False)
    return board, frame, reader, reader.read(frame.image)


def test_a_still_board_is_read_without_searching_the_markers(geo, codes):
    board, frame, reader, first = _first(geo, codes, mild())
    assert first.rechecked
    same = reader.read(_noisy(frame.image, 2), previous=first)
    assert not same.rechecked and same.changed == 0 and reader.tracker.last_event == "still"
    assert normalised(same.board) == normalised(board, seen=same.board)
    # the reference stays the frame the markers were last found in
    reference = reader.tracker.reference
    reader.read(_noisy(frame.image, 5), previous=same)
    assert reader.tracker.reference is reference


def test_a_bumped_board_is_registered_again_and_read_right(geo, codes):
    board, _, reader, first = _first(geo, codes, mild())
    bumped = mild(board_rotation_deg=6.5)  # the board turned by 1.5 degrees on the table
    frame, _ = shoot(board, geo, bumped, seed=4, camera=make_camera(geo, bumped, SIZE))
    moved = reader.read(frame.image, previous=first)
    assert moved.rechecked and reader.tracker.last_event == "re-registered"
    assert moved.registration is not first.registration
    assert normalised(moved.board) == normalised(board, seen=moved.board)


def test_a_hand_over_a_marker_makes_the_reader_look_again(geo, codes):
    board, frame, reader, first = _first(geo, codes, mild())
    covered = _noisy(frame.image, 3)
    x, y = np.round(first.registration.markers_px[0].mean(0)).astype(int)
    covered[y - 25:y + 25, x - 25:x + 25] = (90, 120, 170)  # skin over the marker's middle
    reading = reader.read(covered, previous=first)
    assert reading.rechecked and reader.tracker.last_event == "cached-partial"
    assert normalised(reading.board) == normalised(board, seen=reading.board)


# --- kind 5: what did not change keeps its reading; what changed is seen -------------------------

def _shade(image: np.ndarray, centre_px, radius_px: float, depth: float = 0.5) -> np.ndarray:
    """A soft shadow (a hand's, a player leaning over): the light multiplied by down to
    ``depth`` in linear light around ``centre_px``."""
    from companion.vision.glare import to_linear, to_srgb

    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d2 = ((xx - centre_px[0]) ** 2 + (yy - centre_px[1]) ** 2) / radius_px**2
    gain = 1.0 - (1.0 - depth) * np.exp(-0.5 * d2 ** 2)  # flat core, soft edge
    return np.clip(np.round(to_srgb(to_linear(image) * gain[..., None])), 0, 255).astype(np.uint8)


def _with_tile(board: dict, at, code: str) -> dict:
    out = {k: (dict(v) if isinstance(v, dict) else list(v)) for k, v in board.items()}
    out["tiles"] = board["tiles"] + [{"at": list(at), "paths": code}]
    return out


def test_under_a_static_glare_spot_nothing_unchanged_is_read_again_frame_after_frame(geo, codes):
    board = every_piece(codes)
    cond = mild(glare=70.0, glare_xy=(0.45, 0.4), glare_radius=120.0)
    frame, intr = shoot(board, geo, cond, seed=1, camera=make_camera(geo, cond, SIZE))
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes, refine_grid=False)
    committed = reader.read(frame.image)
    assert committed.unreadable or committed.veil is not None  # the spot is strong enough to matter
    for seed in range(2, 8):
        later = reader.read(_noisy(frame.image, seed), previous=committed)
        # only the spaces the glare left unreadable are looked at again (the lamp may have moved)
        assert later.changed == len(committed.unreadable)
        assert later.board == committed.board
        # a space the glare hid may read clean on a new look, none turns unreadable, and every
        # space read before keeps its confidence
        assert set(later.unreadable) <= set(committed.unreadable)
        read = [k for k in committed.confidence if k not in committed.unreadable]
        assert [later.confidence[k] for k in read] == [committed.confidence[k] for k in read]
    # a tile placed under the spot's edge is still seen
    after = _with_tile(board, (-2, -1), codes[3])
    placed, _ = shoot(after, geo, cond, seed=9, camera=make_camera(geo, cond, SIZE))
    seen = reader.read(placed.image, previous=committed)
    assert 1 <= seen.changed - len(committed.unreadable) <= 2   # and the spaces glare hid, looked at again
    assert normalised(seen.board)["tiles"] == normalised(after)["tiles"]
    assert {k: v for k, v in seen.board.items() if k != "tiles"} == {k: v for k, v in committed.board.items() if k != "tiles"}


def test_odd_art_on_an_unchanged_space_keeps_the_committed_reading(geo, codes):
    board = every_piece(codes)
    frame, intr = shoot(board, geo, mild(), seed=1, camera=make_camera(geo, mild(), SIZE))
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes, refine_grid=False)
    reg = None

    def sticker(image):
        # a bright printed sticker half over the empty space (-3, 1): art no profile class knows
        nonlocal reg
        reg = reg or reader.tracker.current
        x, y = np.round(reg.to_image(np.array([geo.center_mm((-3, 1))], np.float32))[0] + (6, -4)).astype(int)
        out = image.copy()
        cv2.circle(out, (int(x), int(y)), 14, (200, 40, 230), -1, cv2.LINE_AA)
        cv2.line(out, (int(x) - 10, int(y) + 8), (int(x) + 12, int(y) - 9), (30, 220, 240), 4, cv2.LINE_AA)
        return out

    reader.read(frame.image)
    committed = reader.read(sticker(frame.image))  # the table committed the board with the sticker on it
    assert list(committed.unreadable) == ["-3,1"]   # read as something covering the space
    for seed in range(2, 6):
        later = reader.read(sticker(_noisy(frame.image, seed)), previous=committed)
        # only the covered space is read again (what covered it may have left), and it reads as before
        assert later.changed == 1 and later.board == committed.board and later.confidence == committed.confidence
    after = _with_tile(board, (3, -2), codes[5])
    placed, _ = shoot(after, geo, mild(), seed=6, camera=make_camera(geo, mild(), SIZE))
    seen = reader.read(sticker(placed.image), previous=committed)
    assert 2 <= seen.changed <= 3  # the tile, maybe a neighbour its edge reaches, and the covered space
    assert [3, -2] in [t["at"] for t in seen.board["tiles"]]
    assert seen.spaces[(-3, 1)] == committed.spaces[(-3, 1)]


def test_a_shadow_over_the_board_keeps_the_readings_and_a_move_under_it_is_seen(geo, codes):
    board = every_piece(codes)
    frame, intr = shoot(board, geo, mild(), seed=1, camera=make_camera(geo, mild(), SIZE))
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes, refine_grid=False)
    committed = reader.read(frame.image)
    assert normalised(committed.board) == normalised(board, seen=committed.board)
    centre = reader.tracker.current.to_image(np.array([geo.center_mm((1, 0))], np.float32))[0]
    shaded = reader.read(_shade(_noisy(frame.image, 2), centre, 110.0), previous=committed)
    assert shaded.relit >= 5  # the spaces under the shadow changed by light alone...
    assert shaded.changed == 0 and shaded.board == committed.board  # ...and kept their readings
    # a tile put down in the shadow is a change of pattern, not of light: it is read
    after = _with_tile(board, (1, -2), codes[3])
    placed, _ = shoot(after, geo, mild(), seed=3, camera=make_camera(geo, mild(), SIZE))
    seen = reader.read(_shade(placed.image, centre, 110.0), previous=committed)
    assert seen.changed >= 1
    assert normalised(seen.board) == normalised(after, seen=seen.board)


def test_a_meeple_moved_is_read_from_the_two_spaces_that_changed(geo, codes):
    board = every_piece(codes)
    frame, intr = shoot(board, geo, mild(), seed=1, camera=make_camera(geo, mild(), SIZE))
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes, refine_grid=False)
    committed = reader.read(frame.image)
    after = {**board, "meeples": {**board["meeples"], "red": [-2, 0]}}
    moved, _ = shoot(after, geo, mild(), seed=4, camera=make_camera(geo, mild(), SIZE))
    seen = reader.read(moved.image, previous=committed)
    assert 2 <= seen.changed <= 4
    assert normalised(seen.board) == normalised(after, seen=seen.board)
    # the committed reading is left as it was: the table may come back to it
    assert normalised(committed.board) == normalised(board, seen=committed.board)


def test_light_alone_is_told_from_a_new_piece():
    from companion.vision import layout as L
    from companion.vision.glare import to_linear, to_srgb
    from companion.vision.reader import relit_spaces

    rng = np.random.default_rng(0)
    P = L.POINTS_PER_SPACE
    board = np.clip(rng.normal((60, 90, 70), 6, (P, 3)), 0, 255).astype(np.float32)  # mottled dark green board
    tile = board.copy()
    tile[L.EDGES] = (200, 215, 225)  # cream tile with a path: a pattern, not a light
    tile[L.EDGES.start:L.EDGES.start + 12] = (60, 60, 210)
    before = np.vstack([board, board, board, board])
    x = L.OFFSETS[:, 0]
    smooth = 0.45 + 0.45 * (x - x.min()) / np.ptp(x)  # a soft shadow's edge across the space
    edge = np.where(x < 0, 0.45, 0.9).astype(np.float32)  # a sharp one
    now = np.vstack([
        to_srgb(to_linear(board) * 0.4),  # a hand's shadow over the whole space
        to_srgb(to_linear(board) * smooth[:, None]),
        to_srgb(to_linear(board) * edge[:, None]),
        tile,  # a tile put down
    ]).astype(np.float32)
    assert list(relit_spaces(now, before, np.arange(4))) == [0, 1, 2]
    assert not len(relit_spaces(to_srgb(to_linear(tile) * 0.5), before[:P], np.arange(1)))  # a tile put down in a shadow
    red = board.copy()
    red[L.CAP] = (40, 40, 200)  # a red meeple's cap over the centre
    assert not len(relit_spaces(red, board, np.arange(1)))


def test_a_flat_piece_on_a_flat_surface_is_not_taken_for_light():
    from companion.vision import layout as L
    from companion.vision.reader import relit_spaces

    P = L.POINTS_PER_SPACE
    board = np.tile(np.float32((70, 95, 60)), (P, 1))  # a plain green board, no mottling
    rock = np.tile(np.float32((120, 120, 120)), (P, 1))  # a plain grey rock covering the whole space
    assert not len(relit_spaces(rock, board, np.arange(1)))
    assert not len(relit_spaces(board, rock, np.arange(1)))  # ...and taken away
