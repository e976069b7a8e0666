"""The hint's sentences keep their promises on positions a new user asked about
(tests/data/hints/README.md): the reason a card waits agrees with the suggested turn, "can be
bought now" is said only of the card that turn buys (docs/rules.md "Hints"), and a card keeps
its printed name mid-sentence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.edition import load_edition
from companion.hints import hint
from companion.position import Position

ED = load_edition()
DATA = Path(__file__).resolve().parent.parent / "data" / "hints"


def position(name: str) -> Position:
    return Position.from_json(json.loads((DATA / f"{name}.json").read_text()), ED)


@pytest.mark.parametrize("name, bought, others", [("g3_66", "a08", ("b07", "a05")),
                                                   ("g4_21b", "a04", ("b01", "a07"))])
def test_a_card_waits_for_the_card_the_suggested_turn_buys(name, bought, others):
    # one mushroom card a turn (Turn Sequence Summary 2): an affordable card waits because
    # the suggestion buys another, not because the bot is "one step" from a card it buys now
    h = hint(position(name), ED)
    assert h.move["action"] == "buy" and h.move["card"] == bought
    card = ED.cards[bought]
    instead = (f"the suggestion buys {card.name} ({bought}, {card.vp} VP) this turn instead "
               "(one mushroom card a turn)")
    for other in others:
        (plan,) = [c for c in h.cards if c.card == other]
        assert plan.wait == instead


@pytest.mark.parametrize("name", ["d1", "g3_66", "g4_21b"])
def test_can_be_bought_now_is_said_only_of_the_card_the_suggestion_buys(name, tmp_path, capsys):
    assert main(["hint", "--position", str(DATA / f"{name}.json"), "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)["cards"]
    now = [c for c in cards if c["status"] == "can be bought now"]
    assert [c["card"] for c in now] == [c["card"] for c in cards if c["can_buy"]] and len(now) == 1
    waiting = [c for c in cards if c["when"] == "now" and not c["can_buy"]]
    assert waiting and all(c["status"] == "affordable now, but the suggestion waits" for c in waiting)
    assert main(["hint", "--position", str(DATA / f"{name}.json")]) == 0
    text = capsys.readouterr().out
    assert text.count("can be bought now") == 1
    for c in waiting:
        assert f"{c['name']} ({c['card']}, {c['vp']} VP): affordable now, but the suggestion waits: {c['wait']}" in text


def test_a_card_keeps_its_printed_name_mid_sentence(capsys):
    assert main(["hint", "--position", str(DATA / "g4_49.json")]) == 0
    text = capsys.readouterr().out
    assert "no longer affordable: Pleurotus ostreatus needs 2 pink tiles" in text
    assert "pleurotus ostreatus" not in text


def test_a_removal_says_what_the_tile_laid_on_the_freed_space_achieves():
    # 4.c then 5.b: orange removes its tile at B4 to lay a pink-yellow-green tile there facing
    # tree B with a green path; the reason is that mycorrhiza, in the words a placement's hint
    # uses, not that the space "opens" (any space holding a tile opens once it is removed)
    pos = position("g2_33")
    h = hint(pos, ED)
    assert h.move["action"] == "remove" and ED.label(tuple(h.move["at"])) == "B4"
    assert h.reason.startswith("orange removes the tile at B4: it frees B4 for a pink-yellow-green tile from your "
                               "hand, which the suggestion lays there next: orange gains 1 yellow (mycorrhiza with "
                               "tree B)")
    assert "opens B4" not in h.reason
