"""``mycelium-companion rfid ...`` subcommands."""

from __future__ import annotations

import argparse


def register(sub: "argparse._SubParsersAction") -> None:
    """Add the ``rfid`` command group to the top-level parser."""
    p = sub.add_parser("rfid", help="tile-bag reader: listen, enroll tags")
    p.set_defaults(func=lambda args: p.print_help() or 2)
