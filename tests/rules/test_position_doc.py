"""docs/position.md's examples are what a reader copies first: the example position must be a
position of the default edition (its tiles in the edition's catalogue, its pieces where they
can stand), read back from a simulated photo as it is written, and every example move must be
a well-formed move naming tiles of the edition."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.edition import load_edition
from companion.moves import parse_move
from companion.position import Position, check_against_edition, check_substrate_count
from companion.tiles import ROCK, canonical

DOC = Path(__file__).resolve().parents[2] / "docs" / "position.md"


def example_position() -> dict:
    """The JSON block under "## Position"."""
    block = re.search(r"## Position\n\n```json\n(.*?)```", DOC.read_text(), re.S)
    assert block, "docs/position.md lost its example position"
    return json.loads(block.group(1))


def example_moves() -> list[dict]:
    """The moves after "Examples:" in the Moves section, one JSON object per backtick span."""
    text = DOC.read_text()
    start = text.index("Examples: ")
    para = text[start:text.index("\n\n", start)]
    return [json.loads(m) for m in re.findall(r"`(\{.*?\})`", para)]


def tile_types(edition) -> set[str]:
    return {canonical(code) for code in edition.tile_counts}


def test_the_example_position_is_one_of_the_default_edition():
    doc = example_position()
    edition = load_edition(doc["edition"])
    pos = Position.from_json(doc)
    check_against_edition(pos, edition)           # raises, naming the field, when it cannot happen
    check_substrate_count(pos, edition)           # 5.a: 2 substrates of each colour
    codes = [t["paths"] for t in doc["board"]["tiles"]] + [c for hand in doc["hands"].values() for c in hand]
    unknown = [c for c in codes if canonical(c) not in tile_types(edition)]
    assert unknown == [], f"tiles the {edition.name} edition does not have: {unknown}"


def test_every_example_move_is_well_formed_and_names_tiles_of_the_edition():
    moves = example_moves()
    assert {m["action"] for m in moves} >= {"place", "rock", "discard", "move", "buy"}
    types = tile_types(load_edition("default")) | {ROCK}
    for m in moves:
        parse_move(m)                             # raises on a malformed move
        if "tile" in m:
            assert canonical(m["tile"]) in types, m


def test_the_place_rock_and_discard_examples_are_legal_on_the_example_position():
    # The first moves a reader copies with the example position must be accepted by check-move.
    from companion import rules
    edition = load_edition("default")
    pos = Position.from_json(example_position())
    for m in example_moves():
        if m["action"] in ("place", "rock", "discard"):
            verdict = rules.check(pos, m, edition)
            assert verdict.legal, (m, verdict.message)


@pytest.mark.slow
def test_the_example_position_reads_back_from_a_simulated_photo_as_written():
    from companion.sim.cli import photo
    from companion.vision.reader import BoardReader

    doc = example_position()
    board = Position.from_json(doc).to_json()["board"]
    frame = photo(board, "reference", "daylight", "wood", (1920, 1080), 0)
    reading = BoardReader().read(frame.image)
    assert reading.unsure == {} and reading.unreadable == {}   # was "check the light" on the tile P03
    read = reading.board
    assert [(t["at"], t["paths"]) for t in read["tiles"]] == [(t["at"], t["paths"]) for t in doc["board"]["tiles"]]
    assert sorted(read["rocks"]) == sorted(doc["board"]["rocks"])
    assert read["meeples"] == doc["board"]["meeples"]
    assert {c: s["at"] for c, s in read["spores"].items()} == {c: s["at"] for c, s in doc["board"]["spores"].items()}
