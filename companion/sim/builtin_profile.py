"""Make the built-in colour profile's piece model from the simulated table's own camera.

The built-in profile (``companion/vision/default_profile.json``) is what the companion uses
when no ``--profile`` is given: in practice the simulated table of ``demo`` and ``serve``. A
real copy of the game is calibrated by its owner (``mycelium-companion calibrate pieces``);
the simulated table is calibrated the same way here, from photos of the three calibration
layouts taken by its camera under its light, so the demo trusts no hand-set value.  The
colour classes are kept; the pieces (meeples, spore sides, substrate looks) are learned anew.

    python -m companion.sim.builtin_profile        # rewrites default_profile.json
"""

from __future__ import annotations

import json

from calibration.colours import calibrate_pieces, load_layout
from companion.setup import GameConfig
from companion.vision.profile import DEFAULT_PROFILE_PATH


def learn_builtin_pieces(seed: int = 1) -> dict:
    """The ``pieces`` part of a profile learned from layouts 1-3 photographed by the
    simulated table's camera (1280x720, as ``demo --fast`` films); raises VisionError like
    :func:`calibration.colours.calibrate_pieces`."""
    from companion.sim.table import SimulatedTable

    table = SimulatedTable(GameConfig(), seed=seed, fast=True, illegal_every=0)
    frames = [table._render(load_layout(n)) for n in (1, 2, 3)]
    profile, _ = calibrate_pieces([], frames=frames)
    return profile.to_json()["pieces"]


def main() -> None:
    doc = json.loads(DEFAULT_PROFILE_PATH.read_text())
    doc["pieces"] = learn_builtin_pieces()
    DEFAULT_PROFILE_PATH.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote the piece model of {DEFAULT_PROFILE_PATH}")


if __name__ == "__main__":
    main()
