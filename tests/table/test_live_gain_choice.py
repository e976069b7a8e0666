"""A mycorrhiza's cube "of your choice" (5.b) at a simulated table, in a move that also gains
cubes from a degraded substrate (5.a): the companion asks, each simulated player answers with the
colour their own move took, and the inferred log equals the players' log.

The random players name no colour, so the rules' default reading picks the colour they hold
fewest of once the substrate's cubes are in (docs/rules.md, 5.b); an answer read from the
holdings before the move names another colour and the two games part."""

from companion.setup import GameConfig
from companion.sim.table import SimulatedTable


def _gain_notes(event):
    """The event's notes on cubes gained (a discard's differ in words: named by the players at
    the table, the default reading in the players' game)."""
    return [n for n in event.notes if " gains " in n]


def test_the_players_answer_a_gain_with_the_colour_their_move_took():
    import cv2
    cv2.setNumThreads(1)
    # seed 203: blue's tile degrades a wood substrate (2 pink) and forms a mycorrhiza; the rules
    # give blue yellow, the colour blue then holds fewest of
    sim = SimulatedTable(GameConfig(players=["blue", "orange"], mode="competitive"), 203, fast=True, bot="random")
    report = sim.run()
    assert report.log_matches_truth, report.first_divergence
    asked_after_substrate = [e for e in sim.session.game.events if e.move.get("choose") and any(
        "substrate degraded" in n for n in e.notes)]
    assert asked_after_substrate
    truth = {e.seq: _gain_notes(e) for e in sim.truth.game.events}
    assert all(_gain_notes(e) == truth[e.seq] for e in asked_after_substrate)
