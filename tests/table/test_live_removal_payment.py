"""A removal seen by the camera at a simulated table (rulebook 4.c: the player chooses which
cubes pay for it): the companion asks, each simulated player answers with the cubes they paid
in their own game, and the inferred log equals the players' log."""

from companion.setup import GameConfig
from companion.sim.table import SimulatedTable


def test_the_players_say_which_cubes_paid_and_the_log_equals_theirs():
    import cv2
    cv2.setNumThreads(1)
    # seed 204: the simulated (random) players remove two tiles holding cubes of several colours
    sim = SimulatedTable(GameConfig(players=["blue", "orange", "red"], mode="cooperative"), 204, fast=True, bot="random")
    asked = set()
    sim.session.bus.subscribe(lambda m: asked.add(m.data["id"]) if m.kind == "choices" and any(
        g["kind"] == "pay" for g in m.data["asked"]) else None)
    report = sim.run()
    assert report.log_matches_truth, report.first_divergence
    removals = [e.move for e in sim.session.game.events if e.move["action"] == "remove"]
    assert len(asked) == 2 and all("pay" in m for m in removals)
    truth = [e.move["pay"] for e in sim.truth.game.events if e.move["action"] == "remove"]
    assert [m["pay"] for m in removals] == truth
