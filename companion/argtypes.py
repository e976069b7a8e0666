"""``argparse`` types shared by the command-line interfaces (``selfplay``, ``sim-photo``,
``sim-calibration``, ``demo``): a bad value is refused by the parser with exit status 2 and
one sentence naming the option, before anything starts."""

from __future__ import annotations

import argparse
from typing import Callable


def at_least(minimum: int, kind: type = int) -> Callable[[str], int | float]:
    """An ``argparse`` type: a number of ``kind`` (``int`` or ``float``) of ``minimum`` or more.

    >>> parser.add_argument("--seed", type=at_least(0), default=1)
    >>> parser.add_argument("--games", type=at_least(1), default=10)

    Raises :class:`argparse.ArgumentTypeError` on text that is no such number ("'x' is not a
    whole number") or on a smaller value ("must be 0 or more, got -3").
    """
    what = "a whole number" if kind is int else "a number"

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {text}")
        return value
    return parse
