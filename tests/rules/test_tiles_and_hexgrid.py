"""Tile path codes and axial hex geometry."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import hexgrid, tiles
from companion.hexgrid import DIRECTIONS, Hex

edges = st.lists(st.integers(0, 5), min_size=1, max_size=6, unique=True)


@st.composite
def tile_codes(draw):
    free = list(range(6))
    draw(st.randoms()).shuffle(free)
    parts, i = [], 0
    for letter in draw(st.lists(st.sampled_from("PYG"), min_size=1, max_size=3)):
        n = draw(st.integers(1, max(1, 6 - i - 1)))
        if i + n > 6:
            break
        parts.append(letter + "".join(map(str, sorted(free[i:i + n]))))
        i += n
    return ".".join(parts)


def test_code_is_normalised_and_edge_colours_read():
    t = tiles.parse("G1.P30")
    assert t.code == "P03.G1"
    assert t.edge_color == ("pink", "green", None, "pink", None, None)


@pytest.mark.parametrize("bad", ["", "X03", "P", "P06", "P00", "P03.Y3", "p03", "P03..G1", "ROCK"])
def test_malformed_codes_raise_a_clear_error(bad):
    with pytest.raises(tiles.TileCodeError):
        tiles.parse(bad)


def test_rotation_moves_edge_e_to_e_plus_k():
    assert tiles.rotate_code("P03.G1", 1) == "P14.G2"
    assert tiles.rotate_code("P03.G1", 5) == "P25.G0"
    assert tiles.parse(tiles.rotate_code("P03.G1", 5)).edge_color[0] == "green"
    assert tiles.rotate_code("ROCK", 3) == "ROCK"


@given(tile_codes(), st.integers(0, 5), st.integers(0, 5))
def test_rotations_compose_and_six_turns_are_identity(code, a, b):
    code = tiles.parse(code).code
    assert tiles.rotate_code(tiles.rotate_code(code, a), b) == tiles.rotate_code(code, a + b)
    assert tiles.rotate_code(code, 6) == code
    assert tiles.canonical(tiles.rotate_code(code, a)) == tiles.canonical(code)
    assert tiles.rotation_between(code, tiles.rotate_code(code, a)) is not None


def test_symmetric_tiles_have_fewer_distinct_rotations():
    assert len(tiles.distinct_rotations("P03")) == 3
    assert len(tiles.distinct_rotations("P024")) == 2
    assert len(tiles.distinct_rotations("P03.G1")) == 6


def test_neighbours_follow_the_fixed_edge_directions():
    assert Hex(0, 0).neighbors() == [Hex(*d) for d in DIRECTIONS]
    for e in range(6):
        n = Hex(2, -1).neighbor(e)
        assert n.neighbor(hexgrid.opposite(e)) == Hex(2, -1)
        assert hexgrid.direction_between(Hex(2, -1), n) == e


def test_rings_and_distance():
    assert [len(hexgrid.ring((0, 0), k)) for k in range(5)] == [1, 6, 12, 18, 24]
    assert all(hexgrid.distance(h, (0, 0)) == 3 for h in hexgrid.ring((0, 0), 3))
    assert len(list(hexgrid.spiral((0, 0), 4))) == 61
    with pytest.raises(ValueError):
        hexgrid.ring((0, 0), -1)


@given(st.integers(-6, 6), st.integers(-6, 6), st.floats(5, 80))
def test_pixel_round_trip(q, r, size):
    x, y = hexgrid.hex_to_pixel((q, r), size, (100.0, 50.0))
    assert hexgrid.pixel_to_hex(x, y, size, (100.0, 50.0)) == Hex(q, r)


def test_rotation_about_origin_matches_edge_rotation():
    for i, d in enumerate(DIRECTIONS):
        assert hexgrid.rotate_about_origin(d, 2) == Hex(*DIRECTIONS[(i + 2) % 6])
