"""The default edition loads, and a broken edition file names its file and field."""

import json
import shutil

import pytest

from companion.edition import EditionError, load_edition


def test_default_edition_matches_the_rulebook_components(edition):
    assert len(edition.spaces) == 61 and len(edition.outermost) == 24
    assert sum(edition.bag_composition(2).values()) == 48
    assert sum(edition.bag_composition(3).values()) == 60
    assert sum(edition.bag_composition(4).values()) == 72
    assert edition.bag_composition(4)["ROCK"] == 8
    assert sum(len(v) for v in edition.substrate_tokens.values()) == 36
    assert all(len(edition.trees(d)) == 4 for d in ("easy", "medium", "hard"))
    assert edition.label((0, 0)) == "E5"
    assert "cards.json" in edition.placeholders


def test_player_count_outside_the_bag_rules_is_refused(edition):
    with pytest.raises(ValueError, match="players"):
        edition.bag_composition(5)


@pytest.mark.parametrize("file,mutate,field", [
    ("tiles.json", lambda d: d["tiles"][0].update(code="P9"), "tiles[0].code"),
    ("board.json", lambda d: d["spaces"][3].update(at=[9, 9]), "spaces[3].at"),
    ("trees.json", lambda d: d["layouts"]["easy"]["trees"].pop(), "layouts.easy.trees"),
    ("cards.json", lambda d: d["cards"][2].update(effect="double_everything"), "cards[2].effect"),
    ("substrates.json", lambda d: d["tokens"]["wood"].__setitem__(0, "E5"), "tokens.wood[0]"),
    ("rules.json", lambda d: d.pop("nutrient_cap"), "nutrient_cap"),
])
def test_broken_edition_names_file_and_field(tmp_path, file, mutate, field):
    src = load_edition().name
    from companion.edition import EDITIONS_DIR
    shutil.copytree(EDITIONS_DIR / src, tmp_path / "broken")
    doc = json.loads((tmp_path / "broken" / file).read_text())
    mutate(doc)
    (tmp_path / "broken" / file).write_text(json.dumps(doc))
    with pytest.raises(EditionError) as err:
        load_edition("broken", str(tmp_path))
    assert file in str(err.value) and field in str(err.value)


def test_unreadable_edition_file_is_reported(tmp_path):
    from companion.edition import EDITIONS_DIR
    shutil.copytree(EDITIONS_DIR / "default", tmp_path / "bad")
    (tmp_path / "bad" / "board.json").write_text("{not json")
    with pytest.raises(EditionError, match="board.json: not valid JSON"):
        load_edition("bad", str(tmp_path))


def test_docs_name_every_reason_code_action_and_table_rule():
    from pathlib import Path

    from companion.moves import ACTIONS
    from companion.options import DEFAULTS
    from companion.rules import REASONS
    docs = Path(__file__).resolve().parents[2] / "docs"
    position = (docs / "position.md").read_text()
    rules = (docs / "rules.md").read_text()
    assert [c for c in REASONS if f"`{c}`" not in position] == []
    assert [a for a in ACTIONS if f"`{a}`" not in position] == []
    assert [o for o in DEFAULTS if f"`{o}`" not in rules] == []
