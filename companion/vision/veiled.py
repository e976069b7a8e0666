"""Is a space read as a rock the empty board under glare?

A lamp's reflection adds light in linear light, before the camera's gamma: it lifts the dark
board until its lightness is a rock's.  Where the glare spot is fitted
(:func:`companion.vision.glare.fit_veil_from_readings`) the reader takes it off first; but a
small spot at the rim of the board, whose spaces the first reading already calls rocks, may
leave nothing lifted above its reading, and then no spot is looked for at all.

Added light keeps the board's own colour under a colourless veil (white-balanced: the
reflection has the lamp's colour, as the paper does), and it may vary across the space (the
rim of a spot), while a printed rock shows its own colour, evenly.  So each zone of the space
(its middle and its six edges, :func:`companion.vision.glare._zones`) is explained in linear
light, as a fraction of the white paper, twice: as the rock plus a veil >= 0, and as the board
plus a veil >= 0.  Where the board explains it far better (:data:`BOARD_BETTER`) and the veil it
needs is a real one (:data:`MIN_VEIL`), the space is the empty board under glare.
"""

from __future__ import annotations

import numpy as np

from companion.vision.glare import _zones, pigment_linear, to_linear

BOARD_BETTER = 4.0
"""How many times smaller the board's misfit must be than the rock's for the board to win."""
MIN_VEIL = 0.04
"""Least veil (fraction of the white paper's linear light, about 8 of 255 linear levels on a
white of 200) the board needs: below it the Lab reading had the board's own colour to judge."""
NOISE = 0.02
"""Relative misfit (per channel) that sensor noise and print mottling give any explanation:
added to both, so two near-perfect fits do not decide by their noise."""


def zone_fit(frac: np.ndarray, pigment: np.ndarray) -> tuple[float, np.ndarray]:
    """Misfit of one explanation, and its veil per zone.

    ``frac``: float32 (P, 3) BGR of one space's samples as a fraction of the white paper, linear
    light; ``pigment``: float32 (3,) the fraction the piece reflects (:func:`pigment_linear`).
    Per zone, the veil is the mean over B, G, R of the zone's median excess over the pigment,
    at least 0 (glare adds light, never takes it); the misfit is the mean over zones of the
    squared relative residual (residual / (pigment + veil)) summed over channels.
    Returns (misfit, veil float (7,)).
    """
    zones = _zones()
    med = np.stack([np.median(frac[z], axis=0) for z in zones])  # (Z, 3)
    veil = np.maximum((med - pigment).mean(1), 0.0)
    model = pigment[None, :] + veil[:, None]
    rel = (med - model) / np.maximum(model, 1e-3)
    return float(np.mean(np.sum(rel * rel, axis=1))), veil


def board_under_glare(frac: np.ndarray, board: np.ndarray, rock: np.ndarray) -> tuple[bool, float]:
    """Whether one space read as a rock is the board under glare, and the veil (fraction of the
    white, the mean over its zones) the board needs.  ``frac``: float32 (P, 3) as in
    :func:`zone_fit`; ``board``, ``rock``: float32 (3,) their pigments (:func:`pigment_linear`)."""
    floor = 3 * NOISE * NOISE
    miss_rock, _ = zone_fit(frac, rock)
    miss_board, veil = zone_fit(frac, board)
    lifted = float(veil.mean())
    return bool(lifted >= MIN_VEIL and miss_rock + floor > BOARD_BETTER * (miss_board + floor)), lifted


def white_fraction(bgr: np.ndarray, white: np.ndarray) -> np.ndarray:
    """float32 (..., 3) camera BGR samples ``bgr`` as a fraction of the white paper's ``white``
    (both 8-bit, same shape) in linear light."""
    return (to_linear(bgr) / np.maximum(to_linear(white), 1e-3)).astype(np.float32)


def rocks_under_glare(bgr: np.ndarray, white: np.ndarray, kinds: list[str], mean_lab: np.ndarray,
                      board: int, rock: int, neighbours: list[list[int]]) -> list[tuple[int, float]]:
    """The spaces read as rocks that are the board under glare: [(space index, veil)].

    ``bgr``, ``white``: float32 (S, P, 3) camera samples (any fitted glare already taken off)
    and the white field; ``kinds``: the kind read on each space; ``mean_lab``: float32 (K, 3)
    the profile's class means; ``board``, ``rock``: their class indices; ``neighbours``: per
    space, the indices (into the same arrays) of its neighbours.  A spot is wider than a space,
    so the glare must also show on an empty neighbour (:data:`MIN_VEIL` over the board): a rock
    whose art is not one even colour (darker outlines, texture) may fit "board plus a veil"
    better than its learned mean colour, but its empty neighbours show no veil.  The veil is a
    fraction of the white paper in linear light.
    """
    pig = pigment_linear(mean_lab)
    rocks = [i for i, k in enumerate(kinds) if k == "rock"]
    if not rocks:
        return []
    # the zone medians of every rock and every empty neighbour, all at once (the same medians,
    # space by space, as zone_fit takes)
    near = sorted({n for s in rocks for n in neighbours[s] if kinds[n] == "empty"})
    at = np.array(rocks + near)
    med = zone_medians(white_fraction(bgr[at], white[at]))
    miss_rock, _ = _zone_misfit(med[:len(rocks)], pig[rock])
    miss_board, veil = _zone_misfit(med, pig[board])
    floor = 3 * NOISE * NOISE
    lifted = veil.mean(1)
    lit = dict(zip(near, lifted[len(rocks):]))
    out = []
    for i, s in enumerate(rocks):
        glared = (float(lifted[i]) >= MIN_VEIL
                  and float(miss_rock[i]) + floor > BOARD_BETTER * (float(miss_board[i]) + floor))  # board_under_glare
        if not glared:
            continue
        around = [lit[n] for n in neighbours[s] if kinds[n] == "empty"]
        if around and max(around) >= MIN_VEIL:
            out.append((s, float(lifted[i])))
    return out


def zone_medians(frac: np.ndarray) -> np.ndarray:
    """float32 (n, Z, 3) median of each zone (:func:`companion.vision.glare._zones`) of each
    space's samples ``frac`` (n, P, 3), per channel."""
    return np.stack([np.median(frac[:, z], axis=1) for z in _zones()], axis=1)


def _zone_misfit(med: np.ndarray, pigment: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`zone_fit` of many spaces from their zone medians (n, Z, 3): misfit (n,), veil (n, Z)."""
    veil = np.maximum((med - pigment).mean(2), 0.0)
    model = pigment[None, None, :] + veil[:, :, None]
    rel = (med - model) / np.maximum(model, 1e-3)
    return np.mean(np.sum(rel * rel, axis=2), axis=1), veil
