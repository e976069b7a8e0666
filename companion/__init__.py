"""Mycelium table companion: the rules core and the table loop.

The rules core is small and pure: :mod:`companion.hexgrid` (axial coordinates),
:mod:`companion.tiles` (tile path codes), :mod:`companion.edition` (the physical
components of one copy of the game), :mod:`companion.position` (the position JSON),
:mod:`companion.networks` (mycelium networks) and :mod:`companion.rules` (validation of
every turn action).  Everything else (camera, tile bag, dashboard) reports into it.
"""

__version__ = "0.1.0"
