"""The ``mycelium-companion`` command line.

Each package registers its own subcommands through a ``register(subparsers)`` function,
so this module only assembles them and dispatches.  Exit codes: 0 on success (a move that
is illegal is still a successful check), 2 on a malformed input file or bad arguments,
1 on a runtime failure.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from companion import __version__


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every package's subcommands registered."""
    parser = argparse.ArgumentParser(
        prog="mycelium-companion",
        description="Table companion for the board game Mycelium.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    from companion import commands
    commands.register(sub)

    import companion.table.cli
    companion.table.cli.register(sub)

    import calibration.cli
    calibration.cli.register(sub)

    import companion.vision.cli
    companion.vision.cli.register(sub)
    import companion.vision.camera_cli
    companion.vision.camera_cli.register(sub)

    import firmware_bridge.cli
    firmware_bridge.cli.register(sub)
    import web.cli
    web.cli.register(sub)

    import companion.doctor
    companion.doctor.register(sub)
    import companion.sim.cli
    companion.sim.cli.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand and return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head`): not an error of ours.
        from companion.table.console import drop_output
        drop_output(sys.stdout)
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
