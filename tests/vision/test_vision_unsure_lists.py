"""Each unsure space's reason names the piece read there, its meeple too (the text lists every
unsure space ``--json`` lists: tests/vision/test_vision_unsure_bar.py)."""

from __future__ import annotations

from companion.vision.classify import SpaceReading
from companion.vision.game_colours import doubt_foreign_colours
from companion.vision.unsure import why_unsure

def test_a_reason_names_the_meeple_read_on_a_spore_of_another_colour():
    # "read as the black spore; its side or its colour is not clear" where orange's meeple
    # was read on that spore: the reason named the spore and left out the meeple
    r = SpaceReading("spore", player="black", used=False, meeple="orange", confidence=0.3)
    why = why_unsure(r)
    assert why.startswith("read as the black spore with orange's meeple on it")
    assert "its own spore" in why


def test_a_foreign_colour_reason_names_the_piece_and_meeple_read():
    # "read as a black spore, but black is not a colour of this game" where orange's meeple
    # stood on it; "read with a red meeple" where the tile under it went unnamed
    spore = SpaceReading("spore", player="black", used=False, meeple="orange", confidence=0.9)
    tile = SpaceReading("tile", code="P03", meeple="red", confidence=0.9)
    doubt_foreign_colours([spore, tile], ["blue", "orange"])
    assert why_unsure(spore).startswith("read as the black spore with orange's meeple on it, but black is not a colour")
    assert why_unsure(tile).startswith("read as tile P03 with red's meeple on it, but red is not a colour")


def test_an_unsure_reading_names_the_piece_it_looks_almost_as_much_like():
    r = SpaceReading("empty", confidence=0.3, runner_up="a soil substrate")
    assert why_unsure(r).startswith("read as an empty space, but it looks almost as much like a soil substrate")


def test_a_spore_whose_side_its_meeple_hides_is_unsure_of_its_colour_not_of_its_side():
    r = SpaceReading("spore", player="blue", used=None, meeple="blue", confidence=0.06, runner_up="the black spore",
                     side_unknown="covered by its meeple")
    why = why_unsure(r)
    assert why == "read as the blue spore with blue's meeple on it; the chip around its meeple looks almost as much like the black spore"


def test_a_spore_unsure_while_its_meeple_may_be_under_an_object_speaks_of_the_meeple():
    # a phone over another part of the board, blue's meeple seen on no space and its spore read
    # unsure: read-board said "read as the blue spore; its side or its colour is not clear",
    # though what a player must settle is where blue's meeple stands
    from companion.vision.meeple_doubts import hidden_meeple

    r = SpaceReading("spore", player="blue", used=True, confidence=0.3)
    r.doubt = hidden_meeple(r, "blue", "E5", "D4, D5", symbol_shows=True)
    assert why_unsure(r) == ("read as the blue spore; blue's meeple is not seen: on its spore at E5 or under what "
                             "covers D4, D5; the camera cannot tell")
    # a spore read surely, its symbol in view, needs no reason: the meeple is under the object
    assert hidden_meeple(SpaceReading("spore", player="blue", confidence=0.8), "blue", "E5", "D4", symbol_shows=True) is None
