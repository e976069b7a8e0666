"""``mycelium-companion calibrate ...`` subcommands."""

from __future__ import annotations

import argparse


def register(sub: "argparse._SubParsersAction") -> None:
    """Add the ``calibrate`` command group to the top-level parser."""
    p = sub.add_parser("calibrate", help="camera intrinsics, colour profile, marker sheet")
    p.set_defaults(func=lambda args: p.print_help() or 2)
