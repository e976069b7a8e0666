"""Something over the board: the camera status says which spaces it covers, in one sentence."""

from __future__ import annotations

from types import SimpleNamespace

from companion.edition import load_edition
from companion.hexgrid import Hex
from companion.table.live import _covered_labels
from companion.vision.covered import covered_reason, covered_sentence


def test_the_status_names_the_covered_spaces_in_board_order_and_no_glare_space():
    ed = load_edition()
    a, b = Hex(1, 0), Hex(0, 0)
    reading = SimpleNamespace(unreadable={"1,0": covered_reason(ed.label(a)), "0,0": covered_reason(ed.label(b)),
                                          "2,-1": "glare on F6: move the lamp"})
    labels = _covered_labels(reading, ed)
    assert labels == [ed.label(b), ed.label(a)]
    assert covered_sentence(labels) == f"something covers {ed.label(b)}, {ed.label(a)}: move it off the board"


def test_a_reading_with_nothing_covered_leaves_the_camera_ok():
    assert _covered_labels(SimpleNamespace(unreadable={"2,-1": "glare on F6: move the lamp"}), load_edition()) == []
