"""Fixtures for the board-reader tests; the frame helpers are in ``vision_frames``."""

from __future__ import annotations

import pytest

from companion.vision.geometry import load_board, load_tile_codes


@pytest.fixture(scope="session")
def geo():
    return load_board()


@pytest.fixture(scope="session")
def codes():
    return load_tile_codes()


