"""The synthetic camera: ground truth agrees with what is drawn, and a seed repeats a frame."""

from __future__ import annotations

import numpy as np
from vision_frames import SIZE, mild

from companion.sim.render import make_camera, random_conditions, render
from companion.sim.render_scene import random_board
from companion.vision.registration import BoardTracker


def test_truth_marker_corners_match_the_drawn_markers(geo):
    cond = mild(tilt_deg=25.0, dist=(-0.15, 0.03, 0, 0, 0))
    frame = render({}, geo, cond, np.random.default_rng(1), size=SIZE)
    found = BoardTracker(geo).detect(frame.image[:, :, 1])
    assert sorted(found) == [0, 1, 2, 3]
    for i, corners in found.items():
        assert np.abs(corners - np.array(frame.truth["markers_px"][i])).max() < 1.5  # px


def test_same_seed_same_frame_and_valid_random_boards(geo, codes):
    boards = [random_board(np.random.default_rng(9), geo, codes) for _ in range(2)]
    assert boards[0] == boards[1]
    b = boards[0]
    spaces = [tuple(t["at"]) for t in b["tiles"]] + [tuple(r) for r in b["rocks"]] + \
        [tuple(t["at"]) for t in b["trees"]] + [tuple(s["at"]) for s in b["substrates"]] + \
        [tuple(s["at"]) for s in b["spores"].values()]
    assert len(spaces) == len(set(spaces)), "one piece per space"
    assert set(b["meeples"]) == set(b["spores"])
    cond = random_conditions(np.random.default_rng(3), hard=True)
    cam = make_camera(geo, cond, (640, 360))
    a = render(b, geo, cond, np.random.default_rng(5), size=(640, 360), camera=cam).image
    c = render(b, geo, cond, np.random.default_rng(5), size=(640, 360), camera=cam).image
    assert a.shape == (360, 640, 3) and np.array_equal(a, c)


# --- the styled world: other copies of the game under other lamps ------------------------------

import ast  # noqa: E402
import dataclasses  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import pytest  # noqa: E402

from companion.sim import styled_art  # noqa: E402
from companion.sim.calibration import calibration_layouts, render_calibration  # noqa: E402
from companion.sim.light import Light, expose, glare_for_lift, light_preset  # noqa: E402
from companion.sim.render import render_styled  # noqa: E402
from companion.sim.styles import DOCUMENTED, HELD_OUT, STYLES, TUNING_STYLES, get_style  # noqa: E402

SMALL = (640, 360)
ONE_OF_EACH = {
    "tiles": [{"at": [0, 0], "paths": "P03.Y1.G45"}, {"at": [1, 0], "paths": "G024"}],
    "rocks": [[-1, 0]],
    "trees": [{"at": [0, 1], "mycorrhizae": ["blue", None, "red", None]}],
    "substrates": [{"at": [1, 1], "kind": "wood"}, {"at": [-1, 1], "kind": "soil"}],
    "spores": {"blue": {"at": [0, -4], "used": True}, "red": {"at": [4, -4], "used": False}},
    "meeples": {"blue": [0, 0], "red": [4, -4]},
}


def _art(style: str, board: dict, geo, seed: int = 0, ppm: float = 3.0, centred: bool = False):
    st = get_style(style)
    if centred:  # every piece exactly on its space centre (still at its own turn)
        st = dataclasses.replace(st, jitter_mm=0.0)
    return styled_art.draw_board(board, geo, st, np.random.default_rng(seed), ppm, "wood")


def _lightness(bgr) -> float:
    px = np.array(bgr, np.uint8).reshape(1, 1, 3)
    return float(cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0, 0])


def test_piece_sizes_vary_per_instance_across_the_documented_range(geo):
    factors: dict[str, list[float]] = {}
    for i, name in enumerate(STYLES):
        for seed in range(6):
            _, drawn = _art(name, ONE_OF_EACH, geo, 10 * i + seed, ppm=1.0)
            for k, v in drawn.items():
                factors.setdefault(k, []).extend(v)
    for k in ("path_width", "chip_radius", "symbol", "slot_radius"):
        f = np.array(factors[k])
        assert f.min() >= 0.75 and f.max() <= 1.25, k
        assert f.min() < 0.85 and f.max() > 1.15, f"{k} spans only {f.min():.2f}-{f.max():.2f}"
        assert len(set(np.round(f, 6))) > len(f) // 2, f"{k}: each instance draws its own size"


def test_a_drawn_chip_is_as_large_as_its_size_factor_says(geo):
    # a lone wood chip: its area in the art follows the factor drawn for it
    areas = []
    for seed in range(8):
        cv, drawn = _art("bands", {"substrates": [{"at": [0, 0], "kind": "wood"}]}, geo, seed)
        c = cv.pt(*geo.center_mm((0, 0)))
        x, y = c[0] >> cv.SHIFT, c[1] >> cv.SHIFT
        r = int(0.8 * geo.hex_size_mm * cv.ppm)
        patch = cv.img[y - r:y + r, x - r:x + r].astype(int)
        wood = np.array(get_style("bands").colours["wood"])
        grain = np.array(get_style("bands").colours["wood_grain"])
        on_chip = (np.abs(patch - wood).sum(2) < 40) | (np.abs(patch - grain).sum(2) < 40)
        radius_mm = np.sqrt(on_chip.sum() / np.pi) / cv.ppm
        areas.append((drawn["chip_radius"][0], radius_mm / (DOCUMENTED["chip_radius"] * geo.hex_size_mm)))
    f, measured = np.array(areas).T
    assert np.abs(f - measured).max() < 0.06
    assert f.max() - f.min() > 0.2


def test_used_spore_symbols_are_light_in_one_style_and_dark_in_another(geo):
    contrast = {}
    for name in STYLES:
        board = {"spores": {"orange": {"at": [0, 0], "used": True}}}
        cv, _ = _art(name, board, geo, centred=True)
        cx, cy = (v >> cv.SHIFT for v in cv.pt(*geo.center_mm((0, 0))))
        # the crossing of the X (at the centre whatever the chip's turn) against the chip
        contrast[name] = _lightness(cv.img[cy, cx]) - _lightness(get_style(name).colours["orange"])
    assert contrast["bands"] > 15 and contrast["inkline"] > 15  # white X (inkline: thin, outlined)
    assert contrast["meadow"] < -15 and contrast["woodcut"] < -15  # dark X


def test_unused_spore_symbols_differ_between_styles(geo):
    centre_l = {}
    for name in STYLES:
        cv, _ = _art(name, {"spores": {"blue": {"at": [0, 0], "used": False}}}, geo, centred=True)
        cx, cy = (v >> cv.SHIFT for v in cv.pt(*geo.center_mm((0, 0))))
        patch = cv2.cvtColor(cv.img[cy - 2:cy + 3, cx - 2:cx + 3], cv2.COLOR_BGR2Lab)[:, :, 0].astype(float)
        centre_l[name] = float(np.median(patch)) - _lightness(get_style(name).colours["blue"])
    assert centre_l["bands"] > 30  # white dot
    assert centre_l["inkline"] < -5  # dark dot
    assert abs(centre_l["meadow"]) < 5 and abs(centre_l["woodcut"]) < 5  # pale dots / ring: the centre shows the chip


def test_glare_lifts_a_dark_board_more_than_a_light_tile_and_clips_only_past_one():
    img = np.zeros((40, 80, 3), np.uint8)
    img[:, :40] = 96  # dark board
    img[:, 40:] = 200  # light tile
    light = Light(kelvin=5500, white_balance_k=5500, falloff=0, glare=glare_for_lift(60), glare_radius=1e5,
                  noise=0, read_noise=0, blur_sigma=0, jpeg_quality=0)
    base = expose(img, Light(**{**light.__dict__, "glare": 0.0}), np.random.default_rng(0)).astype(int)
    lit = expose(img, light, np.random.default_rng(0)).astype(int)
    board_lift = (lit[:, :40] - base[:, :40]).mean()
    tile_lift = (lit[:, 40:] - base[:, 40:]).mean()
    assert board_lift > 50 and tile_lift < 0.6 * board_lift
    assert lit.max() < 255  # the sum stays below 1: nothing clips
    strong = expose(img, Light(**{**light.__dict__, "glare": 0.5}), np.random.default_rng(0))
    assert (strong[:, 40:] == 255).all() and (strong[:, :40] < 255).all()  # only where the sum passes 1


def test_a_warm_lamp_leaves_the_paper_orange_and_daylight_leaves_it_grey():
    paper = np.full((8, 8, 3), 242, np.uint8)
    quiet = dict(noise=0.0, read_noise=0.0, blur_sigma=0.0, jpeg_quality=0, falloff=0.0)
    warm = expose(paper, Light(**{**light_preset("warm lamp", np.random.default_rng(1)).__dict__, **quiet}), np.random.default_rng(0))
    day = expose(paper, Light(**{**light_preset("daylight", np.random.default_rng(1)).__dict__, **quiet}), np.random.default_rng(0))
    b, g, r = warm[0, 0].astype(int)
    assert r - b > 25
    b, g, r = day[0, 0].astype(int)
    assert abs(r - b) < 25


def test_styled_renders_repeat_per_seed_and_differ_between_styles(geo, codes):
    board = random_board(np.random.default_rng(4), geo, codes)
    cam = make_camera(geo, random_conditions(np.random.default_rng(2)), SMALL)
    shot = lambda style, seed: render_styled(board, geo, style, "glare 45", rng=np.random.default_rng(seed), size=SMALL,  # noqa: E731
                                             camera=cam, px_per_mm=1.2).image
    a, b = shot("meadow", 7), shot("meadow", 7)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, shot("meadow", 8))
    others = [shot(s, 7) for s in ("bands", "inkline", HELD_OUT)]
    for o in others:
        assert np.abs(o.astype(int) - a.astype(int)).mean() > 8  # clearly another copy, not noise


def test_a_meeple_stands_up_its_cap_is_displaced_and_hides_the_space(geo):
    board = {"spores": {"red": {"at": [4, -4], "used": False}}, "meeples": {"red": [4, -4]}}
    cond = random_conditions(np.random.default_rng(0))
    cond.tilt_deg, cond.tilt_direction_deg, cond.offset_mm = 30.0, 180.0, (0.0, 0.0)
    cam = make_camera(geo, cond, (1280, 720))
    light = Light(noise=0, read_noise=0, blur_sigma=0, jpeg_quality=0, falloff=0, shadow=0)
    f = render_styled(board, geo, "bands", light, cond, np.random.default_rng(1), (1280, 720), cam, px_per_mm=2.0)
    drawn = f.truth["meeples_drawn"][0]
    base = cam.project(np.array([[*geo.center_mm((4, -4)), 0.0]]))[0]
    cap = np.array(drawn["cap_px"])
    assert np.linalg.norm(cap - base) > 6  # px of parallax for an 18 mm piece far from the optical axis
    # the cap shows the meeple's colour, and the spot of the space the cap covers is red too
    hsv = cv2.cvtColor(f.image, cv2.COLOR_BGR2HSV)
    x, y = np.round(cap).astype(int)
    assert hsv[y, x, 0] < 10 or hsv[y, x, 0] > 170
    assert hsv[y, x, 1] > 120
    empty = render_styled({"spores": board["spores"]}, geo, "bands", light, cond, np.random.default_rng(1), (1280, 720), cam,
                          px_per_mm=2.0)
    assert np.abs(f.image.astype(int) - empty.image.astype(int)).sum(2)[y - 2:y + 3, x - 2:x + 3].mean() > 20


def test_calibration_photos_are_one_per_layout_in_the_style_and_light(geo):
    photos = render_calibration("inkline", "warm lamp", seed=3, size=(1280, 720))
    assert len(photos) == len(calibration_layouts()) >= 1
    for p in photos:
        assert p.shape == (720, 1280, 3) and p.dtype == np.uint8
        assert sorted(BoardTracker(geo).detect(p[:, :, 1])) == [0, 1, 2, 3]
    again = render_calibration("inkline", "warm lamp", seed=3, size=(1280, 720))
    assert np.array_equal(photos[0], again[0])
    other = render_calibration("meadow", "warm lamp", seed=3, size=(1280, 720))
    assert not np.array_equal(photos[0], other[0])


def test_the_simulated_world_takes_nothing_from_the_reader():
    sim = Path(__file__).resolve().parents[2] / "companion" / "sim"
    for name in ("styles.py", "styled_art.py", "light.py", "calibration.py", "render.py", "render_scene.py"):
        tree = ast.parse((sim / name).read_text())
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        reader_side = {m for m in imported if m.startswith("companion.vision") and m != "companion.vision.geometry"}
        assert not reader_side, f"{name} imports {reader_side}"


def test_held_out_style_is_named_and_not_among_the_tuning_styles():
    assert HELD_OUT in STYLES and HELD_OUT not in TUNING_STYLES and len(TUNING_STYLES) >= 3
    with pytest.raises(KeyError, match="known"):
        get_style("no such style")


def test_every_calibration_layout_file_is_photographed_in_name_order(tmp_path):
    (tmp_path / "calibration_layout.json").write_text("{}")
    assert calibration_layouts(tmp_path) == [tmp_path / "calibration_layout.json"]
    folder = tmp_path / "calibration_layouts"
    folder.mkdir()
    for name in ("2.json", "1.json", "3.json"):
        (folder / name).write_text("{}")
    assert [p.name for p in calibration_layouts(tmp_path)] == ["1.json", "2.json", "3.json"]
