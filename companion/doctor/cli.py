"""``mycelium-companion doctor``: the command line around :mod:`companion.doctor.checks`."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from companion.doctor import probes
from companion.doctor.checks import SETTINGS, read_settings, run_checks, wait_for_camera


# -- command line ------------------------------------------------------------------------------
def register(sub: "argparse._SubParsersAction") -> None:
    """Add ``doctor`` to the top-level parser."""
    d = sub.add_parser("doctor", help="check camera, reader, permissions, disk, clock, dashboard and calibration")
    d.add_argument("--settings", default=SETTINGS, help=f"the service's settings file (default {SETTINGS})")
    d.add_argument("--camera", default=None, help="picamera2 or a webcam index (default: the service's)")
    d.add_argument("--rfid", default=None, help="reader port, auto or none (default: the service's)")
    d.add_argument("--driver", default=None, choices=["companion", "rdm6300", "pn532"])
    d.add_argument("--db", default=None, help="game log file (default: the service's)")
    d.add_argument("--port", type=int, default=None, help="dashboard port (default: the service's, 8080)")
    d.add_argument("--profile", default=None, help="colour profile JSON (default: the service's)")
    d.add_argument("--intrinsics", default=None, help="intrinsics JSON (default: the service's)")
    d.add_argument("--reader-timeout", type=float, default=5.0, help="seconds to wait for the reader's HELLO")
    d.add_argument("--wait-camera", type=float, default=None, metavar="SECONDS",
                   help="only wait up to SECONDS for the camera; exit 0 once it is there (used at boot)")
    d.add_argument("--json", action="store_true", help="one JSON object: ok and every check")
    d.set_defaults(func=cmd_doctor, probes=None)


def cmd_doctor(args: argparse.Namespace) -> int:
    """Print the checks; 0 when none failed, 1 otherwise."""
    p = args.probes or probes.Probes()
    s = read_settings(args.settings)
    for name in ("camera", "rfid", "driver", "db", "port", "profile", "intrinsics"):
        if getattr(args, name) is not None:
            setattr(s, name, getattr(args, name))
    if args.wait_camera is not None:
        checks = [wait_for_camera(p, s, args.wait_camera)]
    else:
        checks = run_checks(p, s, args.reader_timeout)
    ok = not any(c.status == "fail" for c in checks)
    if args.json:
        print(json.dumps({"ok": ok, "settings": s.source, "checks": [asdict(c) for c in checks]}))
    else:
        for c in checks:
            print(c.line())
        if args.wait_camera is None:
            bad = sum(c.status == "fail" for c in checks)
            print("All is well." if ok else f"{bad} check{'s' if bad != 1 else ''} failed.")
    return 0 if ok else 1
