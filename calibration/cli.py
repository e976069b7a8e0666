"""``mycelium-companion calibrate ...`` subcommands.

``calibrate camera``: intrinsics from ChArUco photos (default) or plain chessboard photos
(``--chessboard 9x6``), reporting the RMS reprojection error in px.
``calibrate pieces`` (also ``colours``): colour profile and the look of meeples and spore sides
from 1-3 photos of the calibration layouts, with per-class separation printed.
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
    cam.add_argument("--force", action="store_true",
                     help="write the intrinsics even when the fit is implausible (normally refused: retake the photos)")
    cam.set_defaults(func=_camera)

    col = group.add_parser("pieces", aliases=["colours", "colors"],
                           help="colours and piece appearance from 1-3 photos of the calibration layouts")
    col.add_argument("--image", action="extend", nargs="+", metavar="PHOTO",
                     help="photos of the board set up as the calibration layouts 1, 2, 3 in order (1 to 3 photos)")
    col.add_argument("--camera", metavar="SRC",
                     help="photograph the layouts with the mounted camera instead (picamera2, a webcam index): its "
                          "exposure, white balance and focus are settled, locked and stored beside --out")
    col.add_argument("--camera-settings", metavar="FILE",
                     help="with --camera: where to store the locked controls (default camera-settings.json beside --out)")
    col.add_argument("--intrinsics", metavar="K", help="intrinsics JSON from 'calibrate camera'")
    col.add_argument("--layout", action="extend", nargs="+", metavar="N|FILE",
                     help="layout of each photo, in order: 1, 2, 3, old-1, old-2, old-3 (the layouts of earlier "
                          "versions) or a layout JSON (default: 1, 2, 3 in order; with --camera, the layouts to "
                          "photograph)")
    col.add_argument("--out", default="colours.json", help="profile file to write (default colours.json, the name doctor and the docs use)")
    col.add_argument("--json", action="store_true", help="print a summary as JSON")
    col.add_argument("--force", action="store_true",
                     help="write the profile even when two colours barely differ (normally refused: retake the photos)")
    col.set_defaults(func=_colours)

    sh = group.add_parser("sheet", help="printable board markers and ChArUco board (PDF + PNG)")
    sh.add_argument("--out", default="mycelium-markers", help="output path without extension (default mycelium-markers)")
    sh.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")
    sh.set_defaults(func=_sheet)


def _fail(msg: str) -> int:
    print(f"mycelium-companion calibrate: {msg}", file=sys.stderr)
    return 2


def _camera(args: argparse.Namespace) -> int:
    from calibration.intrinsics import CalibrationError, calibrate_charuco, calibrate_chessboard, implausible, parse_pattern

    try:
        if args.chessboard:
            result = calibrate_chessboard(args.images, parse_pattern(args.chessboard), args.square_mm)
        else:
            try:
                result = calibrate_charuco(args.images)
            except CalibrationError as exc:
                if not str(exc).startswith("ChArUco board found"):
                    raise   # an unreadable photo or a mixed size: not about the pattern
                raise CalibrationError(f"{exc}; photos of a plain chessboard are read with --chessboard COLSxROWS "
                                       "(its inner corners, e.g. 9x6)") from None
    except CalibrationError as exc:
        return _fail(str(exc))
    problem = implausible(result)
    if problem and not args.force:
        kept = f"; {args.out} was not written" if args.out else ""
        return _fail(f"{problem}{kept} (--force writes it anyway)")
    if problem:
        print(f"warning: {problem}", file=sys.stderr)
    if args.out:
        try:
            _write_atomically(args.out, result.save)
        except OSError as exc:
            return _fail(f"cannot write {args.out} ({exc.strerror})")
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
    from calibration.colours import calibrate_pieces
    from companion.vision.errors import VisionError

    if bool(args.image) == bool(args.camera):
        return _fail("give the calibration photos with --image, or photograph them with --camera (one of the two)")
    if args.camera_settings and not args.camera:
        return _fail("--camera-settings stores the controls locked by --camera: use it with --camera")
    count = len(args.image) if args.image else len(args.layout or (1, 2, 3))
    if count > 3:
        what = "photos" if args.image else "layouts"
        return _fail(f"give at most 3 {what} (one per calibration layout), got {count}")
    if args.image and args.layout and len(args.layout) != len(args.image):
        return _fail(f"give one --layout per --image ({len(args.image)} photos, {len(args.layout)} layouts)")
    layouts = list(args.layout or (1, 2, 3)[:count])
    settings = None
    try:
        names = [_layout_name(x) for x in layouts]
        if args.camera:
            from calibration.live import capture_layouts
            frames, settings = capture_layouts(args.camera, names, _ask)
            photos = [f"the photo of {n}" for n in names]
        else:
            from companion.vision.reader import read_image
            frames, photos = [read_image(p) for p in args.image], list(args.image)
        _check_sizes(frames, photos, args.intrinsics)
        misplaced = _check_resolution(frames, photos, args.force, args.out)
        misplaced += _check_photos(frames, photos, layouts, names, args.intrinsics, args.force)
        profile, summary = calibrate_pieces(photos, intrinsics=args.intrinsics, layouts=layouts, frames=frames)
    except (VisionError, ValueError, OSError) as exc:
        return _fail(str(exc))
    from calibration.colours import FAIR_SEPARATION, POOR_SEPARATION, close_pairs
    poor = close_pairs(summary["separation"], POOR_SEPARATION, by_place=False)
    if poor and not args.force:
        return _fail(f"{_pairs(poor)} barely differ (separation under {POOR_SEPARATION}): the photos cannot teach "
                     f"them apart{_likely_causes(frames, photos, args.intrinsics)}; retake the photos, or keep this "
                     f"profile anyway with --force; {args.out} was not changed")
    checked = _unfit_photos(frames, photos, args.intrinsics)
    # a photo blurred as a whole blurs every colour learned: refused; the assistant's focus
    # verdict by areas of the board also reacts to plain art and empty spaces, and its glare
    # verdict to a bright piece in good light, so those are warnings the user reads beside the
    # separations (colours that really washed together were refused above)
    warned = [t for code, t in checked if code in ("lamp", "focus")]
    unfit = [] if args.force else [t for code, t in checked if code == "blurred"]
    if unfit:
        return _fail(f"{'; '.join(unfit)}; the colours learned from such a photo would be wrong: retake it, or keep "
                     f"this profile anyway with --force; {args.out} was not changed")
    summary["poor_separation"] = [list(p) for p in poor]
    settings_path = None
    if settings is not None:
        from companion.table.camera_controls import settings_beside
        settings_path = args.camera_settings or settings_beside(args.out)
    try:   # the previous profile stays whole until the new one is complete
        _write_atomically(args.out, profile.save)
        if settings_path is not None:
            _write_atomically(settings_path, settings.save)
    except OSError as exc:
        return _fail(f"cannot write {exc.filename or args.out} ({exc.strerror}); nothing else was changed")
    if settings_path is not None:
        summary["camera_settings"] = str(settings_path)
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"wrote {args.out}: {len(profile.classes)} colour classes from {summary['samples']} samples "
          f"in {len(layouts)} photo(s)")
    if settings_path is not None:
        print(f"wrote {settings_path}: the camera controls the profile was measured with; 'run' applies them at every start")
    print("separation of each colour from its nearest other (pooled standard deviations; under 0.5 is poor; "
          "the spore symbol's white is judged by its ring, below):")
    worst = sorted(summary["separation"].items(), key=lambda kv: kv[1]["distance"])
    print("  " + ", ".join(f"{c} {v['distance']:.1f} (vs {v['nearest']})" for c, v in worst))
    pieces = summary["pieces"]
    for p, m in pieces["meeples"].items():
        sides = pieces["spores"][p]["sides_learned"]
        side_note = (f"sides {pieces['spores'][p]['side_distance']:.1f} apart" if "side_distance" in pieces["spores"][p]
                     else "used side not photographed: read as 'far from the unused side'")
        if "profile_distance" in pieces["spores"][p]:
            side_note += f", radial profiles {pieces['spores'][p]['profile_distance']:.1f} apart at any size"
        print(f"  {p}: meeple vs its spore's symbol {m['core_distance_from_unused_spore']:.1f}; spore {', '.join(sides)} ({side_note})")
    if poor:
        print(f"warning: kept with --force although {_pairs(poor)} barely differ: readings of them will be unsure")
    fair = [p for p in close_pairs(summary["separation"], FAIR_SEPARATION) if p not in poor]
    if fair:
        # more photos only help while a calibration layout is still missing
        more = ", or add the other layouts' photos" if len({str(x) for x in layouts}) < 3 else ", or retake the photos"
        print(f"warning: {_pairs(fair)} are only just told apart: check the light{more}")
    for text in warned:
        print(f"warning: {text}; if the separations above are poor, retake that photo")
    for text in misplaced:
        print(f"warning: {text}")
    for text in summary.get("layout_notes", []):
        print(f"note: {text}")
    return 0


def _pairs(pairs) -> str:
    """``tile and slot (0.0), yellow and wood (0.4)`` from :func:`calibration.colours.close_pairs`."""
    return ", ".join(f"{a} and {b} ({d:.1f})" for a, b, d in pairs)


def _likely_causes(frames, photos, intrinsics) -> str:
    """``: likely cause: PHOTO: glare makes ...`` from the camera setup assistant's verdict on
    each photo (glare, soft focus, too far, tilt, exposure), or an empty string."""
    from calibration.intrinsics import load_intrinsics
    from companion.vision.assistant import assess

    intr = load_intrinsics(intrinsics) if intrinsics else None
    causes = []
    for frame, photo in zip(frames, photos):
        try:
            report = assess(frame, intrinsics=intr)
        except ValueError:
            continue
        order = ("lamp", "exposure", "lower", "focus", "turn")  # glare first: it flattens focus too
        causes += [f"{photo}: {a.text}" for a in sorted(report.advice, key=lambda a: order.index(a.code)
                                                        if a.code in order else 9) if a.code in order]
    return f"; likely cause: {'; '.join(causes)}" if causes else "; check the light and that each photo shows its layout"


BLURRED_EDGE_RATIO = 0.003
"""Whole-frame edge ratio (:func:`companion.vision.assistant.frame_edge_ratio`) under which a
calibration photo is refused as blurred: rendered frames measure 0.010-0.036 sharp and
0.0006-0.0017 blurred by 2.5-6 px; sharp photos of plain art measured down to 0.006."""


def _unfit_photos(frames, photos, intrinsics) -> list[tuple[str, str]]:
    """(code, ``PHOTO: ...``) for each calibration photo: ``blurred`` when the whole photo is
    out of focus (refused), else the camera setup assistant's advice on it (``lamp``: glare on
    spaces, ``focus``: an area of the board looks soft; both warnings), the same verdict
    ``camera check`` gives on that frame."""
    import cv2

    from calibration.intrinsics import load_intrinsics
    from companion.vision.assistant import assess, frame_edge_ratio

    intr = load_intrinsics(intrinsics) if intrinsics else None
    found = []
    for frame, photo in zip(frames, photos):
        ratio = frame_edge_ratio(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        if ratio < BLURRED_EDGE_RATIO:
            found.append(("blurred", f"{photo}: the whole picture is out of focus (edge ratio {ratio:.4f}, a sharp "
                                     "photo measures about 0.01 or more): focus the lens on the board"))
            continue
        report = assess(frame, intrinsics=intr)
        found += [(a.code, f"{photo}: {a.text}") for a in report.advice if a.code in ("lamp", "focus")]
    return found


def _layout_name(layout: str) -> str:
    """How a layout is called in messages: ``calibration layout 2``, ``the earlier calibration
    layout 1 (--layout old-1)`` or its file name."""
    if str(layout) in ("old-1", "old-2", "old-3"):
        return f"the earlier calibration layout {str(layout)[4:]} (--layout {layout})"
    return f"calibration layout {layout}" if str(layout) in ("1", "2", "3") else str(layout)


def _ask(sentence: str) -> bool:
    """Print ``sentence`` and wait for Enter; False at the end of the input."""
    print(sentence, flush=True)
    return sys.stdin.readline() != ""


def _check_photos(frames, photos, layouts, names, intrinsics, force: bool = False) -> list[str]:
    """Refuse, with one sentence, a photo calibration cannot learn from (:mod:`calibration.photo_check`),
    then one whose spaces do not all show what its layout puts there (a piece missing, a tile
    turned: :mod:`calibration.layout_check`).  Returns the warnings to print: those spaces when
    ``force`` keeps them, or when the photo shows glare (which can hide a piece; the separation
    check refuses a photo whose colours it washed together)."""
    import numpy as np

    from calibration.colours import OLD_LAYOUT_NAMES, load_layout
    from calibration.intrinsics import load_intrinsics
    from calibration.photo_check import CalibrationPhotoError, check_photo
    from companion.vision.profile import CLASSES, ColourProfile
    from companion.vision.reader import BoardReader

    intr = load_intrinsics(intrinsics) if intrinsics else None
    flat = ColourProfile(np.zeros((len(CLASSES), 3), np.float32), np.ones((len(CLASSES), 3), np.float32))
    reader = BoardReader(profile=flat, intrinsics=intr, tile_codes=[])
    documented = {_layout_name(str(n)): load_layout(n) for n in (1, 2, 3, *OLD_LAYOUT_NAMES)}
    labs = []
    for frame, photo, layout, name in zip(frames, photos, layouts, names):
        try:
            labs.append(check_photo(frame, photo, load_layout(layout), name, reader, intr, documented))
        except CalibrationPhotoError as exc:
            if "does not show" not in str(exc) or "it looks like" in str(exc):
                raise
            # no other layout fits either: glare or a soft focus may have mixed its colours
            causes = _likely_causes([frame], [photo], intrinsics)
            if "likely cause" not in causes:
                raise
            raise CalibrationPhotoError(f"{exc}{causes}") from None
    problems = _misplaced(labs, photos, layouts, list(reader.geo.spaces))
    # under a glare spot a piece can look like the bare board: the separation check names the
    # glare when it washed colours together, so there these spaces are only a warning
    glared = {k for k in problems if _glare_on(frames[k], intr)}
    refused = [text for k, text in problems.items() if k not in glared]
    if refused and not force:
        raise CalibrationPhotoError("; ".join(refused) + "; nothing was written (--force keeps the profile anyway)")
    return [f"{text} (glare on this photo may hide pieces: if so, move the lamp first)" if k in glared
            else f"kept with --force although {text}" for k, text in problems.items()]


def _glare_on(frame, intr) -> bool:
    """Whether the camera setup assistant sees glare on the photo (its ``lamp`` advice)."""
    from companion.vision.assistant import assess

    try:
        return any(a.code == "lamp" for a in assess(frame, intrinsics=intr).advice)
    except ValueError:
        return False


MAX_NAMED_SPACES = 3
"""At most this many spaces are named per photo: past that the photo is of another set-up."""


def _misplaced(labs, photos, layouts, spaces) -> dict[int, str]:
    """Photo index -> one sentence naming, in the layout's words, the spaces of that photo
    that do not show their layout's piece (:func:`calibration.layout_check.check_spaces`), and
    saying what to do."""
    from calibration.colours import load_layout
    from calibration.layout_check import check_spaces, describe
    from companion.vision.assistant import space_labels

    lays = [load_layout(x) for x in layouts]
    found = check_spaces(labs, lays, spaces)
    labels = space_labels()
    out = {}
    for k, (photo, layout, lay) in enumerate(zip(photos, layouts, lays)):
        mine = [m for m in found if m.photo == k]
        if not mine:
            continue
        named = [describe(m, lay, labels.get(m.space, f"({m.space[0]}, {m.space[1]})")) for m in mine[:MAX_NAMED_SPACES]]
        more = f" and {len(mine) - MAX_NAMED_SPACES} more space(s)" if len(mine) > MAX_NAMED_SPACES else ""
        out[k] = (f"{photo}: {'; '.join(named)}{more}; lay the layout as in {_layout_picture(layout)} and take the "
                  "photo again")
    return out


def _layout_picture(layout) -> str:
    """Where the user sees how ``layout`` (a number, ``old-N`` or a file) is set up."""
    if str(layout) in ("1", "2", "3"):
        return f"hardware/img/calibration_layout_{layout}.png"
    if str(layout) in ("old-1", "old-2", "old-3"):
        return f"companion/vision/calibration_layouts/old/{str(layout)[4:]}.json"
    return str(layout)


def _check_sizes(frames, photos, intrinsics) -> None:
    """Refuse photos of another size than the intrinsics were calibrated on, before any marker
    is looked for: the lens model then puts every marker in the wrong place, which would read
    as markers hidden or too small.  Raises :class:`~companion.vision.errors.VisionError`."""
    if not intrinsics:
        return
    from calibration.intrinsics import load_intrinsics
    from companion.vision.errors import VisionError

    intr = load_intrinsics(intrinsics)
    iw, ih = (int(v) for v in intr.image_size)
    for frame, photo in zip(frames, photos):
        h, w = frame.shape[:2]
        if (w, h) != (iw, ih):
            raise VisionError(f"{photo} is {w}x{h} px but the intrinsics {intrinsics} were calibrated on {iw}x{ih} px "
                              f"photos, and they hold only at that size: take the calibration photos at {iw}x{ih} "
                              f"with the mounted camera, or run 'calibrate camera' again on {w}x{h} photos; nothing "
                              "was written")


def _check_resolution(frames, photos, force: bool, out) -> list[str]:
    """Refuse photos too small for the reader however the camera was placed, with the sentence
    ``camera check`` gives (:func:`companion.vision.assistant.resolution_problem`): the pieces
    cover too few pixels to learn them from.  With ``force``, the sentences come back as
    warnings instead.  Raises :class:`~companion.vision.errors.VisionError`."""
    from companion.vision.assistant import resolution_problem
    from companion.vision.errors import VisionError

    small = [f"{photo}: {why}" for frame, photo in zip(frames, photos)
             if (why := resolution_problem((frame.shape[1], frame.shape[0])))]
    if small and not force:
        raise VisionError(f"{'; '.join(small)}; retake the photos at 1920x1080, or keep a profile from these photos "
                          f"anyway with --force; {out} was not changed")
    return small


def _write_atomically(path, write) -> None:
    """``write(tmp)`` then rename over ``path``: a failure leaves the old file as it was."""
    import os
    from pathlib import Path

    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        exc.filename = str(path)   # the user named this file, not the temporary one
        raise


def _sheet(args: argparse.Namespace) -> int:
    from calibration.sheet import write_sheets

    if args.dpi < 72 or args.dpi > 1200:
        return _fail(f"--dpi must be between 72 and 1200, got {args.dpi}")
    try:
        written = write_sheets(args.out, dpi=args.dpi)
    except OSError as exc:
        return _fail(f"cannot write {exc.filename or args.out} ({exc.strerror}); --out names the files "
                     "without extension, in a folder you can write")
    for path in written:
        print(f"wrote {path}")
    return 0
