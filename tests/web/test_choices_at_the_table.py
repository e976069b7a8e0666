"""Forest Communication through the camera and the bag reader (rulebook 7.c): the simulated
table's camera sees the tile that joins every tree, the move waits for the players' choices,
a tile drawn from the bag meanwhile waits behind it, and the simulated players answer the
prompt with their own picks; the log then holds exactly what each player chose."""

from __future__ import annotations

import random

from test_choices import forest_communication_move

from companion.bots import GreedyBot
from companion.game import Event, Game
from companion.rules import apply
from companion.setup import GameConfig
from companion.sim.table import SimulatedTable
from companion.table.live import LiveTable
from companion.table.session import TableSession
from companion.vision.reader import BoardReader


def test_the_camera_sees_forest_communication_and_the_players_choose():
    pos, move = forest_communication_move()
    sim = SimulatedTable(GameConfig(players=["blue", "orange"], mode="cooperative"), seed=5, fast=True)
    session = TableSession(Game(pos))
    sim.session, sim.live = session, LiveTable(session, reader=BoardReader(profile=sim.profile))
    kinds = []
    session.bus.subscribe(lambda m: kinds.append(m.kind))

    # what the simulated players pick: each the colours their plans need (GreedyBot.choose)
    truth_move = GreedyBot(random.Random(1)).choose(pos, sim.edition, move)
    outcome = apply(pos, truth_move, sim.edition)
    after = outcome.position
    assert "forest_communication" in after.missions

    sim.show(pos.to_json()["board"], hands=False)
    sim.show(after.to_json()["board"])                 # blue lays the last green tile
    assert session.choices is not None and session.game.events == []
    assert session.choices.source == "camera" and session.choices.waiting_for == ["blue", "orange"]
    assert "Forest Communication" in session.choices.sentence()

    tile = sorted(sim.edition.bag_composition(2))[0]   # blue draws while the others think
    sim.live.on_reader_event({"event": "tile_drawn", "uid": "04A1B2C3", "tile": tile})
    assert session.game.events == [] and session.illegal is None and len(sim.live.pending) == 1

    sim._truth_event = Event(1, truth_move, outcome.notes)   # the players' move, as their game logged it
    sim._answer_choices()                              # each simulated player on their own tablet
    assert session.choices is None and "choices_done" in kinds
    sim.live.tick()
    placed, drawn = [e.move for e in session.game.events]
    assert placed["action"] == "place" and drawn == {**drawn, "action": "draw", "player": "blue", "tile": tile}
    assert session.game._positions[1].nutrients == after.nutrients   # the players' own picks, not a default
    assert set(placed["choose"]) == {"blue", "orange"}
    assert "forest_communication" in session.position.missions
