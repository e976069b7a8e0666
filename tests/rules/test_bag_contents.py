"""What is left in the tile bag when the position does not list it (rulebook 2.f, 4.a.3)."""

from __future__ import annotations

from collections import Counter

from companion import tiles as tilecodes
from companion.bag_contents import tiles_in_bag
from companion.edition import load_edition
from companion.forest_plan import bag_shapes, branches_available
from tests.builders import make_position

ED = load_edition()


def test_tiles_out_of_the_bag_are_counted_whatever_their_rotation():
    # The edition prints the three-way green tile as P1.G024 (2 in the 2-player bag); on the
    # board it lies in another rotation and the discard pile holds its canonical code.
    turned = tilecodes.rotate_code("P1.G024", 1)
    assert turned != "P1.G024"
    pos = make_position(tiles={(1, 0): turned}, hands={"blue": ["P12.Y03.G45"], "orange": []}, rocks=[(2, 0)])
    pos.discard = [tilecodes.canonical("P1.G024")]
    assert pos.bag_tiles is None
    left = tiles_in_bag(pos, ED)
    assert tilecodes.canonical("P1.G024") not in left and "P1.G024" not in left
    full = Counter()
    for code, n in ED.bag_composition(2).items():
        full[tilecodes.canonical(code)] += n
    assert left[tilecodes.canonical("P12.Y03.G45")] == full[tilecodes.canonical("P12.Y03.G45")] - 1
    assert left[tilecodes.ROCK] == full[tilecodes.ROCK] - 1
    assert sum(left.values()) == sum(full.values()) - 4   # board, discard, hand, rock
    # The plan's count of three-way tiles agrees: none left in the bag or in hand.
    assert branches_available(pos, ED, bag_shapes(ED, 2)) == 0


def test_a_listed_bag_is_taken_as_it_is():
    pos = make_position(hands={"blue": [], "orange": []})
    pos.bag_tiles = Counter({"P1.G024": 1, "Y03.G5": 0})
    assert tiles_in_bag(pos, ED) == Counter({tilecodes.canonical("P1.G024"): 1})
