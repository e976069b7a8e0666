"""``selfplay``'s JSON summary reads clearly: each mode gets only its own fields (no winner's VP
for a lost cooperative game, no difficulty or missions in a competitive one), a victory shared
after every tie-break (rulebook 8) is counted once under ``shared`` instead of as a "winner"
named "blue and orange and red and black", and every figure is rounded."""

from __future__ import annotations

import json
import random

from companion.cli import main
from companion.edition import load_edition
from companion.outcome import final_result
from companion.selfplay import GameSummary, results, summarize, tie_settled
from companion.setup import GameConfig, new_game

ED = load_edition()
LAST_TILE = "the last tile was drawn from the bag"


def selfplay(capsys, *args) -> dict:
    assert main(["selfplay", "--bot", "random", "--games", "3", "--seed", "4", *args]) == 0
    return json.loads(capsys.readouterr().out)


def numbers(doc):
    if isinstance(doc, dict):
        for v in doc.values():
            yield from numbers(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from numbers(v)
    elif isinstance(doc, float):
        yield doc


def test_each_mode_reports_only_its_own_fields_rounded(capsys):
    comp = selfplay(capsys, "--mode", "competitive")
    assert "winner_vp" in comp and "ties" in comp and set(comp["results"]) >= {"won", "shared"}
    for field in ("missions", "cooperative_won", "team_vp"):
        assert field not in comp, field
    assert comp["difficulty"] == "easy"  # it places the trees in every mode (2.a)
    coop = selfplay(capsys, "--mode", "cooperative", "--difficulty", "medium")
    assert coop["difficulty"] == "medium" and set(coop["missions"]) == {"funga", "forest_symbiosis", "forest_communication"}
    assert "winner_vp" not in coop and "ties" not in coop and "team_vp" in coop
    assert coop["results"]["won"] + coop["results"]["lost"] == 3
    team = selfplay(capsys, "--mode", "team")
    assert "broken_by_cards" not in team["ties"] and team["difficulty"] == "easy"
    assert all(k.startswith("team ") for k in team["results"]["won"])
    for doc in (comp, coop, team):
        assert sum(doc["end_reasons"].values()) == 3
        assert all(round(x, 3) == x for x in numbers(doc)), doc
        assert all(round(x, 2) == x for x in numbers(doc["seconds_per_game"]))


def test_per_game_lists_each_game_in_seed_order_and_agrees_with_the_totals(capsys):
    plain = selfplay(capsys, "--mode", "cooperative")
    assert "per_game" not in plain
    doc = selfplay(capsys, "--mode", "cooperative", "--per-game")
    games = doc["per_game"]
    assert [g["seed"] for g in games] == [4, 5, 6]
    for g in games:
        assert {"ended", "team_vp", "cards_bought", "removals", "missions", "seconds", "won"} <= set(g)
    assert sorted(g["cards_bought"] for g in games)[1] == doc["cards_bought"]["median"]
    # removals (4.c): the share of games with one and the mean per game agree with the games
    assert doc["removal_games"] == round(sum(g["removals"] > 0 for g in games) / 3, 3)
    assert doc["removals_per_game"] == round(sum(g["removals"] for g in games) / 3, 2)
    ended: dict[str, int] = {}
    for g in games:
        ended[g["ended"]] = ended.get(g["ended"], 0) + 1
    assert ended == doc["end_reasons"]
    comp = selfplay(capsys, "--mode", "competitive", "--per-game")
    assert [g["winner_vp"] for g in comp["per_game"]] and max(g["winner_vp"] for g in comp["per_game"]) == comp["winner_vp"]["max"]


def level_finish(players: int) -> object:
    """A competitive game that ends on the last tile with every player level: no VP, no card,
    the same nutrients (the start)."""
    colors = ["blue", "orange", "red", "black"][:players]
    pos, _ = new_game(GameConfig(players=colors), ED, random.Random(2))
    pos.result = final_result(pos, ED, LAST_TILE)
    return pos


def test_a_four_way_tie_is_one_shared_victory_not_a_winner_named_by_four():
    pos = level_finish(4)
    assert pos.result["winners"] == ["blue", "orange", "red", "black"]
    assert tie_settled(pos, ED) == "shared"
    tied = GameSummary(1, "competitive", pos.result, 16, 300, tie="shared", players=4)
    alone = GameSummary(2, "competitive", {"winners": ["red"], "reason": "red reached 10 victory points"}, 12, 250,
                        ended_early=True, winner_vp=10, players=4)
    assert results([tied, alone]) == {"won": {"red": 1}, "shared": {"blue, orange, red and black": 1}}
    assert summarize([tied, alone])["ties"] == {"shared": 1, "broken_by_cards": 0, "broken_by_nutrients": 0}


def test_a_tie_on_points_broken_by_cards_is_reported_as_such():
    pos = level_finish(2)
    four = next(c.id for c in ED.cards.values() if c.vp == 4)
    twos = [c.id for c in ED.cards.values() if c.vp == 2][:2]
    pos.cards["blue"], pos.cards["orange"] = [four], twos   # 4 VP each; orange has more cards (rulebook 8)
    for c in [four, *twos]:
        pos.market[c[0]] = [m for m in pos.market[c[0]] if m != c]
    pos.result = final_result(pos, ED, LAST_TILE)
    assert pos.result["winners"] == ["orange"] and "broken by cards" in pos.result["reason"]
    assert tie_settled(pos, ED) == "cards"


def test_a_lost_cooperative_game_has_no_winner_in_its_summary():
    lost = GameSummary(3, "cooperative", {"winners": [], "reason": f"{LAST_TILE}: the team loses (...)"}, 18, 400,
                       winner_vp=9, players=2, difficulty="easy")
    doc = lost.to_json()
    assert doc["won"] is False and doc["team_vp"] == 9 and "winner_vp" not in doc and doc["difficulty"] == "easy"
    s = summarize([lost])
    assert s["cooperative_won"] == 0 and s["team_vp"]["median"] == 9 and "winner_vp" not in s
    assert results([lost]) == {"won": 0, "lost": 1}


def test_the_rate_per_player_count_says_how_many_games_it_is_over():
    games = [GameSummary(s, "competitive", {"winners": ["blue"], "reason": "blue reached 10 victory points"}, 12, 200,
                         ended_early=s != 3, winner_vp=10, players=2 if s < 3 else 3) for s in range(1, 5)]
    s = summarize(games)
    assert s["games_by_players"] == {"2": 2, "3": 2} and s["ended_early_by_players"] == {"2": 1.0, "3": 0.5}


def test_every_field_of_the_summary_is_documented():
    import re
    from pathlib import Path
    documented = set(re.findall(r"`(\w+)`", (Path(__file__).resolve().parents[2] / "docs" / "selfplay.md").read_text()))
    lost = GameSummary(3, "cooperative", {"winners": [], "reason": "x"}, 18, 400, winner_vp=9, players=2, difficulty="easy")
    won = GameSummary(1, "team", {"winners": ["blue", "red"], "reason": "x"}, 12, 250, winner_vp=15, players=4)
    fields = set(summarize([lost])) | set(summarize([won])) | {"results", "end_reasons", "turns", "events", "violations",
                                                                "games_per_second", "load_average"}
    assert fields - documented == set()


def test_a_lost_cooperative_game_says_what_the_team_lacked_in_its_end_reason():
    from companion.selfplay import end_reason
    why = ("the last tile was drawn from the bag: the team loses (missions not accomplished: "
           "Forest Communication; 10 of 12 victory points)")
    lost = GameSummary(3, "cooperative", {"winners": [], "reason": why}, 18, 400, players=2, difficulty="easy")
    assert end_reason(lost) == ("the last tile was drawn from the bag: the team loses (missions not "
                                "accomplished: Forest Communication; short of the VP target)")
    won = GameSummary(1, "competitive", {"winners": ["blue"], "reason": "blue reached 10 victory points"}, 12, 250,
                      winner_vp=10, players=2)
    assert end_reason(won) == "a player reached 10 victory points"
