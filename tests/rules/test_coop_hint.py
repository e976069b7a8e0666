"""The "What can I do?" hint in cooperative play (7, 8): it says what the team still lacks for
the win, names each tree as the Goals tab does, says when a placement lays the team's Forest
Communication network (7.c), and never tells a player to work toward a card they can already
buy."""

from __future__ import annotations

import json
import re

import pytest

from companion import economy
from companion.cli import main
from companion.hexgrid import Hex
from companion.hints import hint
from companion.selfplay import BotTable
from companion.setup import GameConfig


def greedy_positions(seed: int, players: int = 3, turns: int = 60):
    """Positions before each action of a greedy cooperative game."""
    table = BotTable(GameConfig(players=["blue", "orange", "red", "black"][:players], mode="cooperative"),
                     seed, check_invariants=False, bot="greedy")
    seen = []
    for _ in range(turns):
        if table.position.result is not None:
            break
        seen.append(table.position)
        table.play_turn()
    return table.edition, seen


@pytest.fixture(scope="module")
def game():
    return greedy_positions(6, turns=40)


@pytest.fixture(scope="module")
def hints(game):
    ed, positions = game
    return [(pos, hint(pos, ed)) for pos in positions]


def test_the_hint_lists_what_the_team_still_lacks(game):
    ed, positions = game
    pos = positions[3]
    goals = hint(pos, ed).goals
    open_missions = [m for m in economy.missions(pos, ed) if not m.done]
    assert len(goals) == len(open_missions) + 1          # every open mission, then the points
    assert any(g.startswith("Forest Communication (7): trees joined by one green network") for g in goals), goals
    target = ed.cooperative_vp[pos.difficulty]
    assert goals[-1].startswith("victory points (8): the team has") and goals[-1].endswith(f"of {target}")


def test_the_command_prints_the_team_goals(game, tmp_path, capsys):
    ed, positions = game
    path = tmp_path / "p.json"
    path.write_text(json.dumps(positions[3].to_json()))
    assert main(["hint", "--position", str(path)]) == 0
    out = capsys.readouterr().out
    assert "team still needs: Forest Communication (7): trees joined by one green network" in out
    assert main(["hint", "--position", str(path), "--json"]) == 0
    assert any("Forest Communication" in g for g in json.loads(capsys.readouterr().out)["goals"])


def test_trees_are_named_by_their_letter_as_on_the_goals_tab(game, hints):
    ed, _ = game
    named = set()
    for pos, h in hints:
        ids = economy.tree_ids(pos, ed)
        for plan in h.cards:
            for step in plan.steps:
                assert "the tree at" not in step, step
                for letter, label in re.findall(r"tree ([A-H]) \((\w+)\)", step):
                    at = next(h for h, t in ids.items() if t == letter)
                    assert ed.label(at) == label
                    named.add(letter)
    assert named, "no card plan named a tree"


def test_a_placement_on_the_blueprint_says_it_builds_forest_communication(hints):
    laid = [h for _, h in hints if "Forest Communication, every tree on one green network (7.c)" in h.reason]
    assert laid and all(h.move["action"] == "place" for h in laid)
    # A planned tile beside a tree forms a mycorrhiza too (5.b): the hint names both the cube
    # and the plan, not the cube alone.
    assert any(" gains " in h.reason for h in laid), [h.reason for h in laid]


def test_a_card_already_affordable_is_not_called_a_card_to_work_toward(game, hints):
    from companion.purchase import can_buy
    ed, _ = game
    affordable = 0
    for pos, h in hints:
        for card in re.findall(r"it works toward .* \((\w+), \d VP\)", h.reason):
            assert not can_buy(pos, ed, pos.active, card).can_buy, h.reason
        if "which you can afford now" in h.reason:
            card = re.search(r"then buy .* \((\w+), \d VP\)", h.reason).group(1)
            assert can_buy(pos, ed, pos.active, card).can_buy
            assert h.move["action"] != "spore_ability"     # it ends the turn (4.d): no buying after it
            affordable += 1
    assert affordable


def test_a_rock_in_cooperative_play_speaks_of_the_team_not_of_opponents(game):
    import random

    from companion import movegen
    from companion.bots import GreedyBot
    from companion.hints import _reason
    from companion.rules import Board
    ed, positions = game
    said = []
    for pos in positions:
        spots = movegen.rock_spots(Board(pos, ed), pos.active) if "ROCK" in pos.hands[pos.active] else []
        if spots:
            said.append(_reason(pos, ed, spots[0], GreedyBot(random.Random(0))))
    assert said and all("opponent" not in s and "the team's networks" in s for s in said), said


def test_the_setup_hint_names_the_starting_space_by_its_label():
    table = BotTable(GameConfig(players=["blue", "orange"], mode="cooperative"), 3, check_invariants=False, bot="greedy")
    pos, ed = table.position, table.edition
    assert pos.in_setup
    h = hint(pos, ed)
    label = ed.label(Hex(*h.move["at"]))
    assert h.move["action"] == "spore" and f"puts the spore and the meeple on {label}:" in h.reason


def test_the_spore_redraw_says_where_which_path_and_why_that_tile_goes(tmp_path, capsys):
    # Blue's network reaches the planned arm space (2, -1), whose green path joins tree B
    # (across edge 3) and (1, 0); no tile in hand has it, the bag does: blue redraws (4.d).
    from test_coop_bots import ED, _at_planned_space
    pos = _at_planned_space(["ROCK", "Y03", "Y12"])
    h = hint(pos, ED)
    assert h.move == {"player": "blue", "action": "spore_ability", "mode": "redraw", "discard": "ROCK"}
    space, other = ED.label(Hex(2, -1)), ED.label(Hex(1, 0))
    assert f"{space} (reached from your network) needs a green path joining tree B and {other}" in h.reason, h.reason
    assert "the rock goes, as no other action may discard one (4.a.3)" in h.reason
    # without a rock the tile that goes is named, with why it is that one
    h = hint(_at_planned_space(["P012.Y3", "Y03", "Y12"]), ED)
    assert h.move["discard"] in ("Y03", "Y12"), h.move
    # two yellow tiles in hand: the one that goes is told apart, by its place in the hand
    which = "the second" if h.move["discard"] == "Y03" else "the third"
    assert (f"a yellow tile ({which} in your hand, {h.move['discard']}) goes, the tile least worth keeping: "
            "it has no three-way path and another does") in h.reason, h.reason
    h = hint(_at_planned_space(["Y03", "Y12", "P0.Y2.G4"]), ED)
    assert h.move["mode"] == "redraw" and "none in hand fits the plan" in h.reason, h.reason
    # the command says the player's name once
    path = tmp_path / "p.json"
    doc = _at_planned_space(["ROCK", "Y03", "Y12"]).to_json()
    doc["board"]["substrates"] = [{"at": at, "kind": kind} for at, kind in   # a file holds 5.a's 2 + 2, far off
                                  (([-2, -2], "wood"), ([0, -3], "wood"), ([1, 3], "soil"), ([-1, 3], "soil"))]
    path.write_text(json.dumps(doc))
    assert main(["hint", "--position", str(path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("blue flips the spore") and first.count("blue") == 1, first
