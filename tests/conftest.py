"""Shared test setup: the project root on sys.path, and the default edition fixture."""

from __future__ import annotations

import sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from companion.edition import load_edition  # noqa: E402
from hypothesis import settings  # noqa: E402
from run_order import longest_files_first  # noqa: E402

# Property tests check behaviour, not speed: a per-example deadline only measures how loaded
# the machine is (speed is measured by bench/), so it is off.
settings.register_profile("project", deadline=None)
settings.load_profile("project")


@pytest.fixture(scope="session")
def edition():
    return load_edition()


def pytest_collection_modifyitems(config, items):
    """The longest test files first (:mod:`run_order`)."""
    longest_files_first(items)
