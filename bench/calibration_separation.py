"""Per-class separation that ``calibrate pieces`` learns from photos of the calibration layouts,
per art style and light (:func:`calibration.colours.separation`: each class's distance to its
nearest other class, in pooled standard deviations; what ``calibrate pieces`` prints).

    .venv/bin/python bench/calibration_separation.py [--styles bands,meadow,inkline]
        [--lights "daylight,warm lamp"] [--seeds 1] [--layouts DIR_OR_FILES]

``--layouts``: a folder of layout JSON files photographed in name order, or a comma-separated
list of files (default: the documented layouts; ``old`` for the layouts of earlier versions,
:data:`calibration.colours.OLD_LAYOUTS_DIR`).  Prints one column per style and light, one row
per class (the median over the seeds and, in brackets, the smallest), then the smallest separation
of any class.  The photos are rendered at 1920x1080 by
:func:`companion.sim.calibration.render_calibration_frames`, one camera and lamp per seed."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.colours import calibrate_pieces  # noqa: E402
from companion.sim.calibration import render_calibration_frames  # noqa: E402


def layout_files(arg: str | None) -> list[Path] | None:
    """The layout files named by ``--layouts`` (``None``: the documented ones)."""
    if not arg:
        return None
    if arg == "old":
        from calibration.colours import OLD_LAYOUTS_DIR
        return sorted(OLD_LAYOUTS_DIR.glob("*.json"))
    p = Path(arg)
    if p.is_dir():
        return sorted(p.glob("*.json"))
    return [Path(x) for x in arg.split(",")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--styles", default="bands,meadow,inkline")
    ap.add_argument("--lights", default="daylight,warm lamp")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--layouts", help="folder or comma-separated layout files (default: the documented layouts)")
    args = ap.parse_args()
    files = layout_files(args.layouts)
    t0 = time.time()
    columns: dict[str, dict] = {}
    for style in args.styles.split(","):
        for light in args.lights.split(","):
            for seed in range(args.seeds):
                frames = render_calibration_frames(style, light, seed, layouts=files)
                layouts = [str(f.truth["layout"]) for f in frames]
                _, summary = calibrate_pieces([f"photo {k + 1}" for k in range(len(frames))], layouts=layouts,
                                              frames=[f.image for f in frames])
                columns[f"{style}/{light}" + (f"/{seed}" if args.seeds > 1 else "")] = summary["separation"]
    # one column per style and light: the median over the seeds, and the smallest
    groups: dict[str, list[str]] = {}
    for name in columns:
        groups.setdefault("/".join(name.split("/")[:2]), []).append(name)
    classes = list(next(iter(columns.values())))
    print(f"layouts: {', '.join(p.name for p in files) if files else 'documented'}; {args.seeds} seed(s) per column, "
          "median (smallest)")
    print(f"{'class':<8}" + "".join(f"{g:>20}" for g in groups))
    for c in classes + ["min"]:
        cells = []
        for names in groups.values():
            vals = [min(v["distance"] for v in columns[n].values()) if c == "min" else columns[n][c]["distance"]
                    for n in names]
            cells.append(f"{np.median(vals):.2f} ({min(vals):.2f})")
        print(f"{c:<8}" + "".join(f"{x:>20}" for x in cells))
    print(f"{time.time() - t0:.0f} s, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
