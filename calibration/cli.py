"""``mycelium-companion calibrate ...`` subcommands.

``calibrate camera``: intrinsics from ChArUco photos (default) or plain chessboard photos
(``--chessboard 9x6``), reporting the RMS reprojection error in px.
``calibrate colours``: colour profile from one photo of the calibration layout.
``calibrate sheet``: printable PDF/PNG with the board markers and the ChArUco board.
Exit code 2 on unusable input, with the reason on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: "argparse._SubParsersAction") -> None:
    """Add the ``calibrate`` command group to the top-level parser."""
    p = sub.add_parser("calibrate", help="camera intrinsics, colour profile, marker sheet")
    p.set_defaults(func=lambda args: p.print_help() or 2)
    group = p.add_subparsers(dest="calibrate_command", metavar="WHAT")

    cam = group.add_parser("camera", help="camera intrinsics from ChArUco or chessboard photos")
    cam.add_argument("images", nargs="+", metavar="IMAGE", help="calibration photos")
    cam.add_argument("--chessboard", metavar="COLSxROWS", help="plain chessboard with this many inner corners, e.g. 9x6")
    cam.add_argument("--square-mm", type=float, default=1.0, help="chessboard square side in mm (default 1)")
    cam.add_argument("--out", metavar="FILE", help="write the intrinsics JSON here (for read-board --intrinsics)")
    cam.add_argument("--json", action="store_true", help="print the result as JSON")
    cam.set_defaults(func=_camera)

    col = group.add_parser("colours", aliases=["colors"], help="colour profile from a photo of the calibration layout")
    col.add_argument("--image", required=True, help="photo of the board set up as in docs (calibration layout)")
    col.add_argument("--intrinsics", metavar="K", help="intrinsics JSON from 'calibrate camera'")
    col.add_argument("--layout", metavar="FILE", help="calibration layout JSON (default: the built-in one)")
    col.add_argument("--out", default="colour-profile.json", help="profile file to write (default colour-profile.json)")
    col.add_argument("--json", action="store_true", help="print a summary as JSON")
    col.set_defaults(func=_colours)

    sh = group.add_parser("sheet", help="printable board markers and ChArUco board (PDF + PNG)")
    sh.add_argument("--out", default="mycelium-markers", help="output path without extension (default mycelium-markers)")
    sh.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")
    sh.set_defaults(func=_sheet)


def _fail(msg: str) -> int:
    print(f"mycelium-companion calibrate: {msg}", file=sys.stderr)
    return 2


def _camera(args: argparse.Namespace) -> int:
    from calibration.intrinsics import CalibrationError, calibrate_charuco, calibrate_chessboard, parse_pattern

    try:
        if args.chessboard:
            result = calibrate_chessboard(args.images, parse_pattern(args.chessboard), args.square_mm)
        else:
            result = calibrate_charuco(args.images)
    except CalibrationError as exc:
        return _fail(str(exc))
    if args.out:
        result.save(args.out)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        k = result.camera_matrix
        print(f"{result.images_used} of {len(args.images)} images used, RMS reprojection error {result.rms_px:.3f} px")
        print(f"fx {k[0, 0]:.1f}  fy {k[1, 1]:.1f}  cx {k[0, 2]:.1f}  cy {k[1, 2]:.1f}  dist {[round(float(v), 4) for v in result.dist]}")
        if args.out:
            print(f"wrote {args.out}")
    return 0


def _colours(args: argparse.Namespace) -> int:
    from calibration.colours import calibrate_colours
    from companion.vision.errors import VisionError

    try:
        profile, summary = calibrate_colours(args.image, intrinsics=args.intrinsics, layout=args.layout)
    except (VisionError, ValueError, OSError) as exc:
        return _fail(str(exc))
    profile.save(args.out)
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"wrote {args.out}: {len(profile.classes)} colour classes from {summary['samples']} samples")
    return 0


def _sheet(args: argparse.Namespace) -> int:
    from calibration.sheet import write_sheets

    if args.dpi < 72 or args.dpi > 1200:
        return _fail(f"--dpi must be between 72 and 1200, got {args.dpi}")
    for path in write_sheets(args.out, dpi=args.dpi):
        print(f"wrote {path}")
    return 0
