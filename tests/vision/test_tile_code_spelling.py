"""Tile types are spelled one way everywhere a user reads them: as the edition's tile list
prints them (``G024.P1``, not its normalised form ``P1.G024``).  The code of a tile *as laid*
(``paths``, turned) is the normalised form and is another thing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from calibration.colours import OLD_LAYOUTS_DIR, LAYOUTS_DIR
from companion.tiles import parse, rotate_code

ROOT = Path(__file__).resolve().parents[2]
EDITION_CODES = [t["code"] for t in json.loads((ROOT / "companion/editions/default/tiles.json").read_text())["tiles"]
                 if t["code"] != "ROCK"]
OTHER_SPELLING = {parse(c).code: c for c in EDITION_CODES if parse(c).code != c}
"""Normalised spelling -> the edition's, for the types whose two spellings differ."""


@pytest.mark.parametrize("path", sorted(LAYOUTS_DIR.glob("*.json")), ids=lambda p: p.name)
def test_layouts_name_each_tile_as_the_edition_prints_it(path):
    for t in json.loads(path.read_text())["tiles"]:
        assert t["tile"] in EDITION_CODES, f"{path.name}: {t['tile']} is not spelled as in tiles.json"
        assert parse(rotate_code(t["tile"], t["rotation"])).code == parse(t["paths"]).code, t


def test_the_earlier_layouts_use_tiles_of_no_edition_and_calibrate_says_so():
    from calibration.colours import load_layout, tiles_not_in_edition

    for n in (1, 2, 3):
        assert tiles_not_in_edition(load_layout(f"old-{n}")), n
        assert not tiles_not_in_edition(load_layout(n)), n
    assert (OLD_LAYOUTS_DIR / "1.json").exists()


@pytest.mark.parametrize("doc", ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")),
                                 *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "hardware").glob("*.md"))])
def test_docs_spell_tile_types_as_the_edition(doc):
    text = (ROOT / doc).read_text()
    for normal, printed in OTHER_SPELLING.items():
        assert not re.search(rf"(?<![\w.]){re.escape(normal)}(?![\w.])", text), f"{doc} writes {normal}: the edition prints {printed}"
