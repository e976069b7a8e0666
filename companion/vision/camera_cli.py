"""``mycelium-companion camera check``: the camera setup assistant on a photo or a live camera.

    mycelium-companion camera check --image FRAME.jpg --out check.png [--json]
    mycelium-companion camera check --camera 0 --out check.png        # one live frame
    mycelium-companion camera check --camera picamera2 --web          # the setup page, live

Prints what the assistant found and its advice (see :mod:`companion.vision.assistant`), writes
the annotated picture with ``--out``.  Exit 0 when the camera is ready, 1 when something needs
changing, 2 when the image or a file cannot be read.  ``--web`` serves the dashboard's setup
page (``/setup``, PIN-gated) with a snapshot refreshed about once a second, until Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: "argparse._SubParsersAction") -> None:
    """Add ``camera check`` to the top-level parser."""
    p = sub.add_parser("camera", help="camera setup assistant")
    csub = p.add_subparsers(dest="camera_command", required=True)
    c = csub.add_parser("check", help="check the camera's view of the board and say what to change")
    src = c.add_mutually_exclusive_group(required=True)
    src.add_argument("--image", metavar="FILE", help="a photo from the mounted camera")
    src.add_argument("--camera", metavar="SRC", help="picamera2, a webcam index (0) or a folder of frames")
    c.add_argument("--out", metavar="PNG", help="write the annotated picture here")
    c.add_argument("--intrinsics", metavar="K", help="intrinsics JSON from 'calibrate camera'")
    c.add_argument("--profile", metavar="P", help="colour profile from 'calibrate pieces': adds the confidence map")
    c.add_argument("--edition", metavar="DIR", help="edition folder (default: the built-in one)")
    c.add_argument("--json", action="store_true", help="print the findings as JSON")
    c.add_argument("--web", action="store_true", help="with --camera: serve the live setup page")
    c.add_argument("--host", default="127.0.0.1", help="with --web: address to listen on (0.0.0.0 for the tablet)")
    c.add_argument("--port", type=int, default=8080, help="with --web: port")
    c.add_argument("--pin", help="with --web: the PIN that unlocks the page (random when omitted)")
    c.set_defaults(func=_check)


def _setup(args):
    from calibration.intrinsics import load_intrinsics
    from companion.vision.assistant import space_labels
    from companion.vision.geometry import DEFAULT_EDITION, load_board
    from companion.vision.profile import load_profile
    from companion.vision.reader import BoardReader

    edition = args.edition or DEFAULT_EDITION
    geo = load_board(edition)
    intr = load_intrinsics(args.intrinsics) if args.intrinsics else None
    reader = BoardReader(geo, profile=load_profile(args.profile), intrinsics=intr, edition_dir=edition) if args.profile else None
    return geo, intr, reader, space_labels(edition)


def _check(args: argparse.Namespace) -> int:
    import cv2

    from calibration.intrinsics import CalibrationError
    from companion.vision.assistant import annotate, assess
    from companion.vision.errors import VisionError
    from companion.vision.geometry import BoardGeometryError
    from companion.vision.profile import ProfileError
    from companion.vision.reader import read_image

    from web.auth import check_pin_format

    try:
        if args.out and not cv2.haveImageWriter(args.out):
            raise VisionError(f"--out {args.out}: the annotated picture is an image: give a name ending in .png or .jpg")
        if args.web and args.pin is not None:
            try:
                check_pin_format(args.pin)
            except ValueError as exc:
                raise VisionError(f"--pin {args.pin}: {exc}") from None
        geo, intr, reader, labels = _setup(args)
        if args.web:
            if not args.camera:
                raise VisionError("--web needs a live --camera")
            return _serve(args, geo, intr, reader, labels)
        frame = read_image(args.image) if args.image else _one_frame(args.camera, _stored_settings(args))
    except (VisionError, ProfileError, CalibrationError, BoardGeometryError) as exc:
        return _fail(args, str(exc))
    rep = assess(frame, geo, intr, reader, labels)
    if args.out:
        try:
            written = cv2.imwrite(args.out, annotate(frame, rep, geo, labels))
        except cv2.error:
            written = False
        if not written:
            return _fail(args, f"cannot write {args.out}")
    if args.json:
        print(json.dumps(rep.to_json()))
    else:
        print("camera ready" if rep.ok else "camera needs attention")
        print(f"markers found {rep.found}" + (f", missing {rep.missing}" if rep.missing else "")
              + (f", duplicated {rep.duplicated}" if rep.duplicated else ""))
        if rep.px_per_side_far is not None:
            print(f"px per hex side: nearest {rep.px_per_side_near:.1f}, farthest {rep.px_per_side_far:.1f}")
        if rep.focus is not None:
            print(f"focus: variance of the Laplacian {rep.focus:.0f}")
        for a in rep.advice:
            print(f"- {a.text}")
        for note in rep.notes:
            print(f"note: {note}")
    return 0 if rep.ok else 1


def _fail(args, message: str) -> int:
    """Report ``message`` in one line (a JSON object ``{"ok": false, "error": ...}`` on stdout
    with ``--json``, for the script reading it) and return exit status 2."""
    if getattr(args, "json", False):
        print(json.dumps({"ok": False, "error": message}))
    else:
        print(f"mycelium-companion camera check: {message}", file=sys.stderr)
    return 2


def _stored_settings(args):
    """The controls locked at calibration (``camera-settings.json`` beside ``--profile``), so the
    check sees what ``run`` will see; ``None`` (the controls settle afresh, nothing is written)."""
    if not args.profile:
        return None
    from companion.table.camera_controls import settings_beside
    path = settings_beside(args.profile)
    return path if path.is_file() else None


def _one_frame(spec: str, settings=None):
    from companion.table.sources import SourceError, open_camera
    from companion.vision.errors import UnreadableImageError

    try:
        src = open_camera(spec, settings_path=settings)
    except SourceError as exc:
        raise UnreadableImageError(_cannot_open(spec, exc)) from exc
    frame = None
    try:
        for _ in range(10):  # a camera's first frames may be dark while its exposure settles
            f = src.read(2.0)
            if f is not None:
                frame = f.image
            elif src.finished:
                break
        if frame is None:
            raise UnreadableImageError(f"camera {spec} gave no frame")
        return frame
    finally:
        src.close()


def _cannot_open(spec: str, exc: Exception) -> str:
    """``cannot open camera SPEC: why``, once, whether or not the source's sentence says it,
    with :func:`_busy_hint` unless the camera is not there at all."""
    text = str(exc)
    text = text if text.startswith("cannot open camera") else f"cannot open camera {spec}: {text}"
    return text if "does not exist" in text else text + _busy_hint(spec)


def _busy_hint(spec: str) -> str:
    """Why a camera that exists may not open: the running service holds it."""
    return ("; if the companion's service is running it holds the camera: "
            "'sudo systemctl stop mycelium-companion' first") if spec == "picamera2" or str(spec).isdigit() else ""


def _serve(args, geo, intr, reader, labels) -> int:
    import threading
    import time

    from companion.table.sources import SourceError, open_camera
    from web.server import DashboardServer
    from web.setup import CameraFeed, setup_app

    try:
        src = open_camera(args.camera, settings_path=_stored_settings(args))
    except SourceError as exc:
        return _fail(args, _cannot_open(args.camera, exc))
    feed = CameraFeed(geo, intr, reader, labels)
    app = setup_app(feed, pin=args.pin)
    stop = threading.Event()

    def pump():
        while not stop.is_set():
            try:
                f = src.read(1.0)
            except Exception as exc:  # noqa: BLE001 - a dying camera is reported, not silent
                print(f"mycelium-companion camera check: camera error: {exc}", file=sys.stderr)
                stop.wait(1.0)
                continue
            if f is not None:
                feed.offer(f.image)
            elif src.finished:
                stop.wait(1.0)

    try:
        srv = DashboardServer(app, args.host, args.port).start()
    except OSError as exc:
        src.close()
        print(f"mycelium-companion camera check: the setup page cannot listen on {args.host}:{args.port} "
              f"({exc.strerror or exc}); pick another --port", file=sys.stderr)
        return 2
    threading.Thread(target=pump, name="camera-check", daemon=True).start()
    print(f"setup page: {srv.url.rstrip('/')}/setup   table PIN {srv.pin}   (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        srv.shutdown()
        src.close()
    return 0
