"""``make test`` starts the longest test files first (tests/run_order.py): the list names files
that exist, and the order it gives keeps each file's tests together and in their order."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from run_order import LONGEST_FILES, longest_files_first

ROOT = Path(__file__).resolve().parent.parent


def test_every_file_listed_as_longest_exists():
    # a renamed file would silently drop back to its usual place in the run
    assert [p for p in LONGEST_FILES if not (ROOT / p).is_file()] == []
    assert len(set(LONGEST_FILES)) == len(LONGEST_FILES)


def test_the_longest_files_come_first_and_each_file_keeps_its_order():
    first, second = LONGEST_FILES[0], LONGEST_FILES[1]
    ids = ["tests/a/test_short.py::test_one", f"{second}::test_x", "tests/a/test_short.py::test_two",
           f"{first}::test_b", f"{first}::test_a", f"{second}::test_y[1]", "tests/b/test_other.py::test_z"]
    items = [SimpleNamespace(nodeid=i) for i in ids]
    longest_files_first(items)
    assert [i.nodeid for i in items] == [
        f"{first}::test_b", f"{first}::test_a", f"{second}::test_x", f"{second}::test_y[1]",
        "tests/a/test_short.py::test_one", "tests/a/test_short.py::test_two", "tests/b/test_other.py::test_z"]
