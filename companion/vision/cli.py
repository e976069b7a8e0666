"""``mycelium-companion read-board``: one camera frame in, the board part of a position out.

Prints ``{"board": ..., "confidence": {"q,r": float}, "unreadable": {"q,r": reason},
"registration": {"markers": [...], "reprojection_px": float}}`` with ``--json``, a short
summary otherwise.  ``unreadable`` names the spaces the camera could not read (their
confidence is 0 and their piece in ``board`` is a guess) and why, e.g. "glare on F6: move the
lamp".  Exit 2 with the reason
on stderr for an unreadable image, bad intrinsics, profile or hand, or when no board is found.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: "argparse._SubParsersAction") -> None:
    """Add ``read-board`` to the top-level parser."""
    p = sub.add_parser("read-board", help="read the board from an overhead camera photo")
    p.add_argument("image", metavar="IMAGE", help="camera frame (any format OpenCV reads)")
    p.add_argument("--profile", metavar="P", help="profile JSON from 'calibrate pieces' or 'calibrate colours' (default: built-in)")
    p.add_argument("--intrinsics", metavar="K", help="intrinsics JSON from 'calibrate camera' (undistorts the lens)")
    p.add_argument("--hand", metavar="CODES", help="comma-separated tile codes that can appear, e.g. P03,Y03.G1")
    p.add_argument("--edition", metavar="DIR", help="edition folder (default: the built-in default edition)")
    p.add_argument("--json", action="store_true", help="print the reading as JSON")
    p.set_defaults(func=_read_board)


def _read_board(args: argparse.Namespace) -> int:
    from calibration.intrinsics import CalibrationError, load_intrinsics
    from companion.tiles import TileCodeError, validate
    from companion.vision.errors import VisionError
    from companion.vision.geometry import DEFAULT_EDITION, BoardGeometryError
    from companion.vision.profile import ProfileError, frame_size_problem, load_profile
    from companion.vision.reader import BoardReader, read_image

    try:
        hand = [validate(c.strip()) for c in args.hand.split(",") if c.strip()] if args.hand else None
        profile = load_profile(args.profile)
        intr = load_intrinsics(args.intrinsics) if args.intrinsics else None
        reader = BoardReader(profile=profile, intrinsics=intr, edition_dir=args.edition or DEFAULT_EDITION)
        frame = read_image(args.image)
        wrong_size = frame_size_problem((frame.shape[1], frame.shape[0]), profile, intr)
        if wrong_size:
            raise VisionError(wrong_size)
        reading = reader.read(frame, hand=hand)
    except (VisionError, ProfileError, CalibrationError, BoardGeometryError, TileCodeError) as exc:
        print(f"mycelium-companion read-board: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(reading.to_json()))
        return 0
    b = reading.board
    low = sorted((v, k) for k, v in reading.confidence.items())[:3]
    print(f"board registered with markers {sorted(reading.registration.markers_px)}, "
          f"reprojection {reading.registration.reprojection_px:.2f} px")
    print(f"{len(b['tiles'])} tiles, {len(b['rocks'])} rocks, {len(b['trees'])} trees, {len(b['substrates'])} substrates, "
          f"spores {sorted(b['spores'])}, meeples {b['meeples']}")
    print("least sure: " + ", ".join(f"({k}) {v:.2f}" for v, k in low))
    for k, reason in sorted(reading.unreadable.items()):
        print(f"unreadable ({k}): {reason}")
    for k, reason in sorted(reading.side_unknown.items()):
        print(f"spore side not visible ({k}): {reason}")
    return 0
