"""The order `make test` hands test files to its workers in."""

from __future__ import annotations


# The files that take longest, longest first.  `make test` hands whole files to its workers in
# collection order (--dist loadfile --no-loadscope-reorder), so these start first and the run
# ends on short files: no worker is left alone with a long file while the others wait.  A file
# missing from the list only runs in its usual place.
LONGEST_FILES = (
    "tests/table/test_live_table.py",        # twenty simulated games through the live loop
    "tests/rules/test_properties.py",        # a thousand bot games
    "tests/vision/test_calibration_photos.py",
    "tests/rules/test_cli.py",
    "tests/table/test_game_log_cli.py",
    "tests/vision/test_vision_meeple_at_home.py",
    "tests/table/test_failed_starts.py",
    "tests/vision/test_vision_pieces.py",
    "tests/vision/test_vision_meeple_rules.py",
    "tests/table/test_run_stops.py",
    "tests/vision/test_calibration_layout_check.py",
    "tests/vision/test_vision_glare_skip.py",
    "tests/table/test_camera_loop.py",
)


def longest_files_first(items: list) -> None:
    """Sort collected ``items`` (anything with a ``nodeid``, in place) so the files of
    :data:`LONGEST_FILES` come first, in that order; each file's tests keep their order (a
    stable sort), so module fixtures are still built once per file."""
    rank = {path: i for i, path in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
