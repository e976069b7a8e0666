"""``GET /api/hint``: the "What can I do?" answer is the CLI's, only when the table allows it."""

from __future__ import annotations

import json

from webtools import PIN, Browser, play_turns

from companion.cli import main as cli_main
from companion.rules import check
from web import create_app
from web.demo import demo_session


def _session(hints: bool, seed: int = 11):
    s = demo_session("competitive", 3, seed=seed, options={"hints": True} if hints else None)
    play_turns(s, 12)
    return s


def test_hint_is_refused_while_the_table_rule_is_off():
    b = Browser(create_app(_session(False), pin=PIN))
    r = b.get("/api/hint")
    assert r.status_code == 409
    assert r.get_json()["error"] == "hints_off" and "table rule 'hints'" in r.get_json()["message"]


def test_hint_gives_the_cli_answer_for_the_active_player(tmp_path, capsys):
    s = _session(True)
    b = Browser(create_app(s, pin=PIN))
    doc = b.get("/api/hint").get_json()
    assert doc["ok"] and doc["player"] == s.position.active
    # the suggested move is legal where it is suggested, and said in words
    assert check(s.position, doc["move"], s.edition).legal
    assert doc["text"] == check(s.position, doc["move"], s.edition).message
    assert doc["reason"].startswith(doc["text"])
    # one plan per face-up card, steps in words for the cards not yet affordable, and when
    # an affordable one can be bought
    faceup = [c for d in ("a", "b") for c in s.position.market[d]]
    assert sorted(c["card"] for c in doc["cards"]) == sorted(faceup)
    assert all(c["steps"] if c["when"] is None and c["wait"] is None else c["status"] for c in doc["cards"])
    # the same content as `mycelium-companion hint --json`
    p = tmp_path / "pos.json"
    p.write_text(json.dumps(s.position.to_json()))
    capsys.readouterr()
    assert cli_main(["hint", "--position", str(p), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert {k: doc[k] for k in ("player", "move", "reason", "cards", "goals")} == cli


def test_hint_follows_the_game_and_a_new_game_can_turn_it_on():
    s = _session(True)
    b = Browser(create_app(s, pin=PIN))
    first = b.get("/api/hint").get_json()
    play_turns(s, 1, seed=3)
    after = b.get("/api/hint").get_json()
    assert after["player"] == s.position.active and after["seq"] > first["seq"]
    assert check(s.position, after["move"], s.edition).legal if after["move"] else True

    off = _session(False)
    b = Browser(create_app(off, pin=PIN))
    b.unlock()
    r = b.post("/api/new-game", {"players": ["blue", "red"], "mode": "competitive", "options": {"hints": True}})
    assert r.status_code == 200, r.get_json()
    doc = b.get("/api/hint").get_json()
    assert doc["ok"] and doc["move"]["action"] == "spore"   # set-up: where to put the spore
    assert b.get("/api/state").get_json()["position"]["options"]["hints"] is True


def test_an_undone_move_replaced_by_another_gets_a_fresh_hint():
    # a game whose suggested move asks nobody to choose: a move waiting for a choice is not in
    # the log yet, so there is nothing to undo
    s = _session(True, seed=13)
    b = Browser(create_app(s, pin=PIN))
    b.unlock()
    before = b.get("/api/hint").get_json()
    mv = before["move"]
    assert b.post("/api/move", {"move": mv}).status_code == 200
    after_first = b.get("/api/hint").get_json()
    assert b.post("/api/undo", {}).status_code == 200
    assert b.get("/api/hint").get_json()["move"] == before["move"]       # back where it was
    from webtools import legal
    other = next(m for m in legal(s, mv["action"]) if m != mv)
    assert b.post("/api/move", {"move": other}).status_code == 200
    fresh = b.get("/api/hint").get_json()
    from companion.hints import hint
    want = hint(s.position, s.edition).to_json()          # same number of moves, another position
    assert {k: fresh[k] for k in want} == want
    assert want != {k: after_first[k] for k in want}


def test_plans_before_any_spore_name_no_made_up_distance():
    # during spore setup nobody has a network yet: the plans used to say "(99 space(s) from
    # where you can grow)"
    from companion.edition import load_edition
    from companion.hints import card_plans
    from companion.setup import GameConfig
    from companion.table.session import TableSession
    pos = TableSession.start(GameConfig(), None, seed=1).position
    assert pos.in_setup and not any(pos.meeples.values())
    steps = [s for c in card_plans(pos, load_edition(), pos.active) for s in c.steps]
    assert any("substrate at" in s or "tree at" in s for s in steps), steps
    assert not any("99" in s for s in steps) and not any("space(s)" in s for s in steps), steps


def test_a_full_hand_after_placing_is_told_to_end_the_turn_with_the_move(tmp_path, capsys):
    from pathlib import Path
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "positions" / "move-legal.json"
    doc = json.loads(fixture.read_text())["position"]
    doc["turn"] = {"taken": ["place"]}   # placed and drew back: blue holds 3 tiles, no nutrient to spend
    p = tmp_path / "pos.json"
    p.write_text(json.dumps(doc))
    assert cli_main(["hint", "--position", str(p), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["move"] == {"player": "blue", "action": "end_turn"}
    assert "draw" not in out["reason"]
    assert cli_main(["hint", "--position", str(p)]) == 0
    text = capsys.readouterr().out
    assert "draw" not in text and '"end_turn"' in text
    # with 2 tiles in hand and a full bag the draw comes first: how many, and no move (the bag picks the tile)
    doc["hands"]["blue"] = doc["hands"]["blue"][:2]
    p.write_text(json.dumps(doc))
    assert cli_main(["hint", "--position", str(p), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["move"] is None and "draw 1 tile(s) from the bag, then end the turn" in out["reason"]


def test_a_cooperative_hint_during_spore_placement_lists_the_team_goals():
    # the team's missions (7) and VP target (8) hold from the set-up on: the hint for the
    # spore placement gave "goals": [] while every later hint lists them
    from companion.hints import team_goals
    s = demo_session("cooperative", 2, seed=5, options={"hints": True})
    assert s.position.in_setup
    doc = Browser(create_app(s, pin=PIN)).get("/api/hint").get_json()
    assert doc["ok"] and doc["move"]["action"] == "spore"
    assert doc["goals"] == team_goals(s.position, s.edition)
    assert any(g.startswith("Forest Communication (7)") for g in doc["goals"]), doc["goals"]
    assert doc["goals"][-1].startswith("victory points (8): the team has 0 of")


def test_a_substrate_token_due_is_laid_before_the_hint_ends_the_turn(tmp_path, capsys):
    from pathlib import Path
    from companion.edition import load_edition
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "positions" / "move-legal.json"
    doc = json.loads(fixture.read_text())["position"]
    doc["turn"] = {"taken": ["place"]}
    wood = next(s for s in doc["board"]["substrates"] if s["kind"] == "wood")
    doc["board"]["substrates"].remove(wood)    # degraded this turn: its new token is still to draw (5.a)
    doc["pending"] = {"substrates": ["wood"], "vacated": [wood]}
    p = tmp_path / "pos.json"
    p.write_text(json.dumps(doc))
    assert cli_main(["hint", "--position", str(p), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    where = load_edition("default").label(tuple(wood["at"]))
    assert out["move"] is None
    assert f"lay the wood substrate token drawn to replace the one at {where} (5.a), then end the turn" in out["reason"]


def test_while_a_removal_waits_for_its_cubes_the_hint_says_what_the_table_waits_for():
    # 4.c "any 1 nutrient": the removal waits uncommitted for blue's pick and every other move
    # is refused meanwhile (awaiting_choices), so the hint suggests no draw or end of turn
    from builders import make_position

    from companion.game import Game
    from companion.table.session import TableSession

    pos = make_position(tiles={(3, 0): "P03"}, nutrients={"blue": {"pink": 1, "yellow": 2}}, options={"hints": True},
                        hands={"blue": ["P03", "Y03", "G03"], "orange": ["P03", "Y03", "G03"]})
    s = TableSession(Game(pos))
    b = Browser(create_app(s, pin=PIN))
    b.unlock()
    before = b.get("/api/hint").get_json()
    assert b.post("/api/move", {"move": {"player": "blue", "action": "remove", "at": [3, 0]}}).get_json()["event"] is None
    assert s.choices is not None
    doc = b.get("/api/hint").get_json()
    assert doc["ok"] and doc["move"] is None and doc["cards"] == []
    assert doc["text"] == "blue chooses which cube pays for the removal at E8 (Mycophages, 4.c)"
    assert doc["reason"].startswith(doc["text"] + ": the table waits for these choices (Mycophages at E8)")
    assert "then ask again for the next action" in doc["reason"]
    # once blue has chosen, the hint suggests a move again
    assert b.post("/api/choose", {"id": s.choices.id, "player": "blue", "kind": "pay", "colors": ["pink"],
                                "seat": "blue"}).get_json()["committed"]
    after = b.get("/api/hint").get_json()
    assert after["seq"] > before["seq"] and "chooses" not in after["text"]
