"""Shared test setup: the project root on sys.path, and the default edition fixture."""

from __future__ import annotations

import sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from companion.edition import load_edition  # noqa: E402


@pytest.fixture(scope="session")
def edition():
    return load_edition()
