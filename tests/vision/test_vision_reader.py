"""Reading synthetic camera frames: every piece kind, every tile rotation, hand restriction."""

from __future__ import annotations

import numpy as np
import pytest
from vision_frames import mild, normalised, shoot

from companion.tiles import distinct_rotations
from companion.vision.reader import BoardReader

def every_piece(codes: list[str]) -> dict:
    """A board with every kind of piece; tiles are catalogue types in assorted rotations."""
    from companion.tiles import rotate_code

    return {
        "tiles": [
            {"at": [0, -1], "paths": rotate_code(codes[0], 1)},
            {"at": [1, -1], "paths": rotate_code(codes[1 % len(codes)], 2)},
            {"at": [-1, 0], "paths": rotate_code(codes[2 % len(codes)], 5)},
            {"at": [2, -2], "paths": codes[-1]},
        ],
        "rocks": [[-2, 2]],
        "trees": [{"at": [0, 0], "mycorrhizae": [None, "blue", "red", None]},
                  {"at": [2, 1], "mycorrhizae": ["orange", None, None, "black"]}],
        "substrates": [{"at": [1, 1], "kind": "wood"}, {"at": [-1, 2], "kind": "soil"}],
        "spores": {"blue": {"at": [0, -4], "used": False}, "orange": {"at": [4, -4], "used": True},
                   "red": {"at": [-4, 2], "used": False}, "black": {"at": [4, 0], "used": True}},
        "meeples": {"blue": [0, -4], "orange": [0, -1], "red": [-1, 0], "black": [4, 0]},
    }


def test_every_piece_kind_is_read(geo, codes):
    frame, intr = shoot(every_piece(codes), geo)
    reading = BoardReader(geo, intrinsics=intr, tile_codes=codes).read(frame.image)
    assert normalised(reading.board) == normalised(every_piece(codes), seen=reading.board)
    assert len(reading.confidence) == len(geo.spaces)
    assert all(0.0 <= v <= 1.0 for v in reading.confidence.values())
    under_meeples = {f"{q},{r}" for q, r in every_piece(codes)["meeples"].values()}
    assert min(v for k, v in reading.confidence.items() if k not in under_meeples) > 0.6


def _rotation_boards(geo, codes):
    placed = [c for code in codes for _, c in distinct_rotations(code)]
    spaces = list(geo.spaces)
    boards = []
    for i in range(0, len(placed), len(spaces)):
        chunk = placed[i:i + len(spaces)]
        boards.append({"tiles": [{"at": list(h), "paths": c} for h, c in zip(spaces, chunk)]})
    return boards


def test_every_catalogue_tile_in_every_rotation(geo, codes):
    assert codes, "the edition's tiles.json lists the catalogue"
    wrong = []
    for n, board in enumerate(_rotation_boards(geo, codes)):
        frame, intr = shoot(board, geo, mild(board_rotation_deg=-7.0 + 90 * n), seed=n)
        got = BoardReader(geo, intrinsics=intr, tile_codes=codes).read(frame.image).board
        truth = {tuple(t["at"]): t["paths"] for t in board["tiles"]}
        seen = {tuple(t["at"]): t["paths"] for t in got["tiles"]}
        wrong += [(h, c, seen.get(h)) for h, c in truth.items() if seen.get(h) != c]
    assert wrong == []


def test_open_mode_without_catalogue_decodes_edge_colours(geo):
    board = {"tiles": [{"at": [0, 0], "paths": "P03.G1"}, {"at": [1, 0], "paths": "Y024"}]}
    frame, intr = shoot(board, geo)
    got = BoardReader(geo, intrinsics=intr, tile_codes=[]).read(frame.image).board
    assert sorted((tuple(t["at"]), t["paths"]) for t in got["tiles"]) == [((0, 0), "P03.G1"), ((1, 0), "Y024")]


def test_hand_restricts_the_tile_codes(geo, codes):
    board = {"tiles": [{"at": [0, 0], "paths": "P03.G1"}]}
    frame, intr = shoot(board, geo)
    reader = BoardReader(geo, intrinsics=intr, tile_codes=["P03", "P03.G1"])
    assert reader.read(frame.image).board["tiles"] == [{"at": [0, 0], "paths": "P03.G1"}]
    got = reader.read(frame.image, hand=["Y03", "P03"]).board
    assert got["tiles"] == [{"at": [0, 0], "paths": "P03"}]


def test_warm_lamp_and_uneven_light(geo, codes):
    frame, intr = shoot(every_piece(codes), geo, mild(colour_temperature_k=3300.0, gradient=0.25, gradient_angle_deg=60.0), seed=3)
    reading = BoardReader(geo, intrinsics=intr, tile_codes=codes).read(frame.image)
    assert normalised(reading.board) == normalised(every_piece(codes), seen=reading.board)


def test_confidence_drops_where_a_hand_covers_the_board(geo, codes):
    from companion.sim.render import make_camera
    from vision_frames import SIZE

    cond = mild()
    cam = make_camera(geo, cond, SIZE)
    clean, intr = shoot(every_piece(codes), geo, cond, camera=cam)
    reader = BoardReader(geo, intrinsics=intr, tile_codes=codes)
    reader.read(clean.image)
    covered = clean.image.copy()
    centre = reader.tracker.current.to_image(np.array([geo.center_mm((0, -1))], np.float32))[0]
    x, y = int(centre[0]), int(centre[1])
    covered[y - 60:y + 60, x - 60:x + 60] = (140, 172, 224)  # a palm over space (0, -1)
    reading = reader.read(covered)
    assert reader.tracker.last_event == "still"  # the markers were not covered: the registration stands
    assert reading.confidence["0,-1"] < 0.5
