"""Same readings before and after a change to the board reader: save the bench's frames once,
read them with each version of the code, compare every space.

    .venv/bin/python bench/vision_readings.py save /tmp/frames --n 4      # frames, profiles, intrinsics
    .venv/bin/python bench/vision_readings.py read /tmp/frames /tmp/after.json
    (cd /path/to/the/other/checkout && python bench/vision_readings.py read /tmp/frames /tmp/before.json)
    .venv/bin/python bench/vision_readings.py compare /tmp/before.json /tmp/after.json

``save`` renders the boards of ``bench/vision.py --n N`` (the same seeds, every style and light
unless narrowed) and calibrates each group with its own layout photos, as the bench does; the
PNG frames, profiles and intrinsics go to the folder (about 5 MB per board).  ``read`` reads
every saved board with the code of the checkout it runs from (this script puts its own checkout
first on the path): in full, again on the cached registration, and in play (two spaces'
patches copied onto two others, read against the full reading with ``previous=``).  ``compare``
prints every space whose reading differs (kind, tile code, player, side, slots, meeple,
unreadable reason) or whose confidence differs at all, and exits 1 if any does.  Speed work
must leave every reading and confidence as it was; a change meant to alter readings shows here
exactly which spaces it altered.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

READS = ("full", "cached", "play")


def save(folder: Path, n: int, styles: list[str] | None, lights: list[str] | None) -> None:
    import vision as bench  # bench/vision.py: the same boards, seeds and calibration
    from calibration.intrinsics import Intrinsics
    from companion.sim.calibration import render_calibration_frames
    from companion.sim.light import Light, light_preset
    from companion.sim.render import make_camera, random_conditions, render_styled
    from companion.sim.render_scene import random_board
    from companion.sim.styles import STYLES, TABLES
    from companion.vision.geometry import load_board, load_tile_codes

    geo, codes, seed, tables = load_board(), load_tile_codes(), 2024, sorted(TABLES)
    for style in sorted(STYLES):
        for light_name in bench.BENCH_LIGHTS:
            if (styles and style not in styles) or (lights and light_name not in lights):
                continue
            g = folder / f"{style}_{light_name.replace(' ', '_')}"
            g.mkdir(parents=True, exist_ok=True)
            # as bench.run_group draws them, in the same order from the same generators
            rng = np.random.default_rng(bench.group_seed(seed, style, light_name))
            lamp = light_preset(light_name, rng)
            cal_cam = make_camera(geo, random_conditions(rng), bench.SIZE)
            cal = render_calibration_frames(style, Light(**{**lamp.__dict__, "glare": 0.0}), int(rng.integers(1 << 30)),
                                            bench.SIZE, cal_cam, geo, tables[int(rng.integers(3))])
            profile, said, _ = bench.calibrate(cal, Intrinsics(cal_cam.k, cal_cam.dist, bench.SIZE, 0.0), g)
            boards = []
            for i in range(n if profile else 0):
                rng = np.random.default_rng((bench.group_seed(seed, style, light_name), i))
                board = random_board(rng, geo, codes)
                cam = make_camera(geo, random_conditions(rng), bench.SIZE)
                light = Light(**{**lamp.__dict__, "glare_xy": (float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.3, 0.7))),
                                 "glare_radius": float(rng.uniform(60, 160))})
                table = tables[int(rng.integers(3))]
                frame = render_styled(board, geo, style, light, rng=rng, size=bench.SIZE, camera=cam, table=table)
                cv2.imwrite(str(g / f"board_{i}.png"), frame.image)
                Intrinsics(cam.k, cam.dist, bench.SIZE, 0.0).save(g / f"board_{i}_intrinsics.json")
                boards.append({"i": i, "truth": board})
            (g / "boards.json").write_text(json.dumps({"calibrated": profile is not None, "said": said, "boards": boards}))
            print(f"{g.name}: {len(boards)} boards" + ("" if profile else " (calibration refused)"), flush=True)


def space_rows(reading) -> dict:
    return {f"{h[0]},{h[1]}": [r.kind, r.code, r.player, r.used, list(r.slots), r.meeple, float(r.confidence), r.reason,
                               r.side_unknown] for h, r in reading.spaces.items()}


def read(folder: Path, out: Path) -> None:
    from calibration.intrinsics import load_intrinsics
    from companion.vision.geometry import load_board, load_tile_codes
    from companion.vision.profile import load_profile
    from companion.vision.reader import BoardReader

    cv2.setNumThreads(1)
    geo, codes = load_board(), load_tile_codes()
    result = {}
    for g in sorted(p for p in folder.iterdir() if (p / "boards.json").is_file()):
        saved = json.loads((g / "boards.json").read_text())
        if not saved["calibrated"]:
            continue
        profile = load_profile(g / "profile.json")
        for b in saved["boards"]:
            i = b["i"]
            image = cv2.imread(str(g / f"board_{i}.png"))
            reader = BoardReader(geo, profile=profile, intrinsics=load_intrinsics(g / f"board_{i}_intrinsics.json"),
                                 tile_codes=codes)
            rows = {}
            try:
                rows["full"] = space_rows(reader.read(image))
                full = reader.read(image)
                rows["cached"] = space_rows(full)
                # in play: two spaces' patches copied onto two others (a fixed camera, pieces moved)
                centres = full.registration.to_image(np.array([geo.center_mm(h) for h in geo.spaces], np.float32))
                later, rng = image.copy(), np.random.default_rng(i)
                for _ in range(2):
                    a, c = rng.choice(len(geo.spaces), 2, replace=False)
                    (xa, ya), (xc, yc) = np.round(centres[a]).astype(int), np.round(centres[c]).astype(int)
                    later[yc - 25:yc + 25, xc - 25:xc + 25] = image[ya - 25:ya + 25, xa - 25:xa + 25]
                rows["play"] = space_rows(reader.read(later, previous=full))
            except ValueError as exc:  # a frame the reader refuses: the refusal is compared too
                rows["refused"] = str(exc)
            result[f"{g.name}/{i}"] = rows
    out.write_text(json.dumps(result))
    print(f"{len(result)} boards read into {out}")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    spaces = differ = 0
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            print(f"{key}: read by one version only")
            differ += 1
            continue
        if a[key].get("refused") != b[key].get("refused"):
            print(f"{key}: refused {a[key].get('refused')!r} -> {b[key].get('refused')!r}")
            differ += 1
        for how in READS:
            x, y = a[key].get(how, {}), b[key].get(how, {})
            for s in sorted(set(x) | set(y)):
                spaces += 1
                if x.get(s) != y.get(s):
                    differ += 1
                    print(f"{key} {how} {s}: {x.get(s)} -> {y.get(s)}")
    print(f"{spaces} space readings compared, {differ} differ (reading or confidence)")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("save", help="render and calibrate the bench's boards into a folder")
    s.add_argument("folder", type=Path)
    s.add_argument("--n", type=int, default=4, help="boards per style and light (default 4)")
    s.add_argument("--styles", nargs="+")
    s.add_argument("--lights", nargs="+")
    r = sub.add_parser("read", help="read every saved board with this checkout's reader")
    r.add_argument("folder", type=Path)
    r.add_argument("out", type=Path)
    c = sub.add_parser("compare", help="compare two read files space by space")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args()
    if args.command == "save":
        save(args.folder, args.n, args.styles, args.lights)
        return 0
    if args.command == "read":
        read(args.folder, args.out)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
