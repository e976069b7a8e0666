"""The calibration layouts a player can lay out with the game's own tiles, the learner that takes
each path colour from where the layout says it runs, the layouts and profiles of earlier
versions, the pictures of the layouts, and frames smaller than the calibration's."""

from __future__ import annotations

import json
from collections import Counter

import cv2
import numpy as np
import pytest
from test_vision_cli import run

from calibration.colours import OLD_LAYOUT_NAMES, calibrate_pieces, load_layout, tiles_not_in_edition
from companion.edition import load_edition
from companion.sim.calibration import calibration_layouts, render_calibration_frames
from companion.sim.render import Conditions, make_camera
from companion.tiles import canonical, parse, rotate_code
from companion.vision.layout import tile_colour_offsets

HD = (1920, 1080)


def fuchsia_counts() -> Counter:
    ed = load_edition("default")
    return Counter({canonical(code): counts.get("fuchsia", 0) for code, counts in ed.tile_counts.items()})


@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_layout_is_made_of_tiles_a_two_player_bag_holds(n):
    """Every copy of the game has the fuchsia tiles: each layout uses only those, never more
    copies of a type than the bag holds, and says each tile's printed code and turn."""
    layout = load_layout(n)
    have = fuchsia_counts()
    used = Counter(canonical(t["paths"]) for t in layout["tiles"])
    for code, count in used.items():
        assert have[code] >= count, f"layout {n} lays {count} of {code}, the fuchsia bag holds {have[code]}"
    for t in layout["tiles"]:
        assert rotate_code(parse(t["tile"]).code, t["rotation"]) == parse(t["paths"]).code
        assert canonical(t["tile"]) in have
        assert len(parse(t["paths"]).colors()) >= 2   # the game's tiles carry several path colours
    assert tiles_not_in_edition(layout) == []


def test_the_layouts_together_show_every_path_colour_on_uncovered_tiles():
    seen = Counter()
    for n in (1, 2, 3):
        layout = load_layout(n)
        covered = {tuple(m) for m in layout["meeples"].values()}
        for t in layout["tiles"]:
            if tuple(t["at"]) not in covered:
                for colour, pts in tile_colour_offsets(t["paths"]).items():
                    seen[colour] += len(pts)
    assert all(seen[c] >= 150 for c in ("pink", "yellow", "green", "tile")), seen


@pytest.mark.parametrize("style", ["bands", "meadow", "inkline", "woodcut", "riso"])
def test_the_points_learned_for_a_path_colour_lie_on_that_colour_in_every_art(style):
    """Draw every tile of the layouts in an art style (path widths, shapes and hubs of its own)
    and look at the points the learner takes each colour from: they show that colour, apart
    from the path's border (an outline, the tile beside a narrow path) that the reader's own
    edge points see too, and never another path's colour."""
    from companion.sim.render_art import Canvas
    from companion.sim.styled_art import Sizes, draw_tile
    from companion.sim.styles import get_style

    st = get_style(style)
    rng = np.random.default_rng(3)
    ppm, s = 8.0, 25.0
    paths = ("pink", "yellow", "green")
    codes = sorted({t["paths"] for n in (1, 2, 3) for t in load_layout(n)["tiles"]})
    on_own, on_other, total = 0, 0, 0
    for code in codes:
        for _ in range(3):   # three instances: each draws its own path width
            cv = Canvas((-30, -30, 30, 30), ppm, (0, 0, 0))
            draw_tile(cv, (0.0, 0.0), s, code, st, Sizes(st, rng), float(rng.uniform(-st.turn_deg, st.turn_deg)))
            for colour, pts in tile_colour_offsets(code).items():
                px = np.round((pts * s + 30.0) * ppm).astype(int)
                got = cv.img[px[:, 1], px[:, 0]].astype(int)

                def near(name):
                    return np.abs(got - np.array(st.colours[name], int)).max(axis=1) <= 40

                own = near(colour)
                other = np.zeros(len(got), bool)
                for o in paths:
                    if o != colour and o in st.colours:
                        other |= near(o) & ~own
                assert own.mean() >= 0.5, f"{style} {code}: {colour} points on {colour}: {own.mean():.0%}"
                on_own, on_other, total = on_own + own.sum(), on_other + other.sum(), total + len(got)
    assert on_own / total >= 0.85 and on_other / total <= 0.01, (style, on_own / total, on_other / total)


@pytest.fixture(scope="module")
def bands_photos(geo):
    return render_calibration_frames("bands", "daylight", 1, HD, make_camera(geo, Conditions(), HD), geo)


def test_path_colours_learned_from_tiles_of_three_colours_stay_apart(bands_photos):
    """The game's tiles show pink, yellow and green side by side: learning a tile's colours from
    where its code puts each path keeps them as far apart as tiles of one colour did (pink
    separated by 3-5 pooled standard deviations in bench/calibration_separation.py)."""
    _, summary = calibrate_pieces([], layouts=[1, 2, 3], frames=[f.image for f in bands_photos])
    sep = summary["separation"]
    for c in ("pink", "yellow", "green"):
        assert sep[c]["distance"] >= 2.0, (c, sep[c])
    assert summary["layout_notes"] == []


def test_a_profile_records_its_photos_size_and_one_without_it_still_loads(tmp_path, bands_photos):
    from companion.vision.profile import ColourProfile, load_profile

    profile, _ = calibrate_pieces([], layouts=[1, 2, 3], frames=[f.image for f in bands_photos])
    path = tmp_path / "p.json"
    profile.save(path)
    assert load_profile(path).frame_size == HD
    old = json.loads(path.read_text())
    del old["frame_size"]       # a profile from last month
    path.write_text(json.dumps(old))
    assert load_profile(path).frame_size is None
    assert isinstance(ColourProfile.from_json(old), ColourProfile)


def test_a_photo_of_an_earlier_layout_is_named_and_learned_with_its_name(tmp_path, capsys, geo):
    """A user with last month's photos (layout 1 as it was, tiles of one colour) is told which
    layout they show and how to name it; named, they calibrate with a note."""
    from calibration.colours import OLD_LAYOUTS_DIR

    cam = make_camera(geo, Conditions(), HD)
    frame = render_calibration_frames("bands", "daylight", 2, HD, cam, geo, layouts=[OLD_LAYOUTS_DIR / "1.json"])[0]
    photo = tmp_path / "last-month.png"
    cv2.imwrite(str(photo), frame.image)
    out = tmp_path / "p.json"
    code, _, err = run(["calibrate", "pieces", "--image", str(photo), "--out", str(out)], capsys)
    assert code == 2 and "does not show calibration layout 1" in err and "--layout old-1" in err
    assert not out.exists()
    code, stdout, err = run(["calibrate", "pieces", "--image", str(photo), "--layout", "old-1", "--out", str(out)], capsys)
    assert code == 0, err
    assert "note: the layout of" in stdout and "P03" in stdout and out.exists()


def test_an_unknown_old_layout_name_is_refused_in_a_sentence():
    from companion.vision.errors import VisionError

    assert OLD_LAYOUT_NAMES == ("old-1", "old-2", "old-3")
    assert load_layout("old-2")["tiles"][0]["paths"] == "P03"
    with pytest.raises(VisionError, match="old-1, old-2 or old-3"):
        load_layout("old-4")


def test_a_frame_smaller_than_the_calibration_photos_is_refused_naming_both_sizes(tmp_path, capsys, bands_photos):
    """A camera set to 960x540 after calibrating at 1920x1080: read-board says so, with both sizes,
    instead of reading pieces in a quarter of the pixels (or finding no marker at all)."""
    profile, _ = calibrate_pieces([], layouts=[1, 2, 3], frames=[f.image for f in bands_photos])
    prof = tmp_path / "p.json"
    profile.save(prof)
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(bands_photos[0].image, (960, 540), interpolation=cv2.INTER_AREA))
    code, _, err = run(["read-board", str(small), "--profile", str(prof)], capsys)
    assert code == 2 and "960x540" in err and "1920x1080" in err and "markers" not in err
    from companion.cli import main as companion_main

    code = companion_main(["camera", "check", "--image", str(small), "--profile", str(prof), "--json"])
    out = capsys.readouterr().out
    advice = {a["code"]: a["text"] for a in json.loads(out)["advice"]}
    assert code == 1 and "960x540" in advice["resolution"] and "1920x1080" in advice["resolution"]


def test_intrinsics_of_another_frame_size_are_refused(tmp_path, capsys, geo):
    from calibration.intrinsics import Intrinsics

    frame = render_calibration_frames("bands", "daylight", 3, (960, 540), make_camera(geo, Conditions(), (960, 540)), geo)[0]
    path = tmp_path / "f.png"
    cv2.imwrite(str(path), frame.image)
    k = tmp_path / "k.json"
    Intrinsics(np.array([[1400.0, 0, 960], [0, 1400.0, 540], [0, 0, 1]]), np.zeros(5), (1920, 1080), 0.3, 12).save(k)
    code, _, err = run(["read-board", str(path), "--intrinsics", str(k)], capsys)
    assert code == 2 and "960x540" in err and "1920x1080" in err


def test_the_layout_pictures_list_every_piece_a_player_lays(tmp_path, geo):
    from companion.sim.layout_picture import TURNS, draw_layout_picture, main, piece_lines

    ed = load_edition("default")
    labels = {h: ed.label(h) for h in geo.spaces}
    for n in (1, 2, 3):
        layout = load_layout(n)
        lines = piece_lines(layout, labels)
        text = "\n".join(f"{a} {b}" for a, b in lines)
        for t in layout["tiles"]:
            assert f"{ed.label(tuple(t['at']))} tile {t['tile']}, {TURNS[t['rotation']]}" in text
        assert len(lines) == (len(layout["tiles"]) + len(layout["rocks"]) + len(layout["trees"])
                              + len(layout["substrates"]) + len(layout["spores"]) + len(layout["meeples"]))
        assert sum("meeple standing" in b for _, b in lines) == 4
    img = draw_layout_picture(load_layout(1), "Calibration layout 1")
    assert img.ndim == 3 and img.shape[0] >= 900 and img.shape[1] >= 1500
    assert main(["--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"calibration_layout_{p.stem}.png" for p in calibration_layouts()]


def test_a_mangled_frame_size_is_refused_in_a_sentence():
    from companion.vision.profile import DEFAULT_PROFILE_PATH, ColourProfile, ProfileError

    d = json.loads(DEFAULT_PROFILE_PATH.read_text())
    d["frame_size"] = [1920]
    with pytest.raises(ProfileError, match=r"'frame_size' must be \[width, height\]"):
        ColourProfile.from_json(d)


def test_the_layout_pictures_footnote_gives_no_turn_direction_of_its_own():
    # the list says "turned 1/6 clockwise" for some tiles and "anticlockwise" for others; a
    # footnote saying every turn is anticlockwise contradicted it
    from companion.sim.layout_picture import TILE_NOTE, TURNS

    note = " ".join(TILE_NOTE)
    assert "as written beside it" in note
    assert "clockwise" not in note
    assert any("anticlockwise" in t for t in TURNS) and any(" clockwise" in t for t in TURNS)
