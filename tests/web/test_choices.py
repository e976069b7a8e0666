"""Forest Communication's reward "of their choice" (rulebook 7.c) and a mycorrhiza's cube
(5.b) at the table: the move waits, uncommitted, until every player asked has chosen on the
dashboard; another tablet may answer for a player only after confirming."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from webtools import PIN, Browser

from companion.game import Game
from companion.table.session import SessionError, TableSession
from web import create_app

RULES = Path(__file__).parents[1] / "rules"


def forest_communication_move():
    """Blue's last green tile joins every tree: the position of tests/rules/test_rule_gaps.py."""
    import sys
    sys.path.insert(0, str(RULES))
    try:
        spec = importlib.util.spec_from_file_location("rule_gaps", RULES / "test_rule_gaps.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.forest_communication_move()
    finally:
        sys.path.remove(str(RULES))


@pytest.fixture
def table():
    pos, move = forest_communication_move()
    s = TableSession(Game(pos))
    seen = []
    s.bus.subscribe(lambda m: seen.append(m))
    return s, move, seen


def test_the_move_waits_for_every_players_choice(table):
    s, move, seen = table
    b = Browser(create_app(s, pin=PIN))
    b.unlock()
    r = b.post("/api/move", {"move": move}).get_json()
    assert r["ok"] and r["event"] is None                      # legal, but not committed yet
    assert s.game.events == [] and s.position.nutrients["orange"] == {"pink": 3, "yellow": 0, "white": 0}
    prompt = b.get("/api/state").get_json()["choices"]
    assert prompt["waiting_for"] == ["blue", "orange"] and "Forest Communication" in prompt["text"]
    assert "mycorrhizae with trees" in prompt["text"] and "waiting for blue and orange" in prompt["text"]
    groups = {g["player"]: g for g in prompt["asked"]}
    assert groups["orange"]["count"] == 2 and groups["orange"]["kind"] == "gain"
    assert groups["blue"]["count"] == 5          # three mycorrhizae (5.b) and Forest Communication (7.c)
    assert sorted(groups["orange"]["colors"]) == ["pink", "white", "yellow"]

    # the game waits: no other move, no undo of the move before
    assert b.post("/api/end-turn", {}).get_json()["error"] == "awaiting_choices"
    assert b.post("/api/undo", {}).status_code == 409
    assert b.get("/api/state").get_json()["undo_allowed"] is False

    pid = prompt["id"]
    # blue's tablet answers for orange without confirming: refused, nothing recorded
    r = b.post("/api/choose", {"id": pid, "player": "orange", "colors": ["white", "white"], "seat": "blue"})
    assert r.status_code == 409 and r.get_json()["error"] == "confirm_other" and "orange's tablet is away" in r.get_json()["message"]
    # answers that do not fit
    assert b.post("/api/choose", {"id": pid, "player": "blue", "colors": ["pink"], "seat": "blue"}).status_code == 400
    assert b.post("/api/choose", {"id": pid, "player": "blue", "colors": ["green"] * 5, "seat": "blue"}).status_code == 400
    assert b.post("/api/choose", {"id": "stale", "player": "blue", "colors": ["pink"] * 5, "seat": "blue"}).status_code == 409
    assert s.choices.answers == {}

    r = b.post("/api/choose", {"id": pid, "player": "blue", "colors": ["yellow"] * 5, "seat": "blue"}).get_json()
    assert r["ok"] and not r["committed"] and r["choices"]["waiting_for"] == ["orange"]
    assert s.game.events == []
    # orange's tablet is away: blue's tablet answers for orange, confirmed
    r = b.post("/api/choose", {"id": pid, "player": "orange", "colors": ["white", "yellow"], "seat": "blue",
                               "confirm_other": True}).get_json()
    assert r["ok"] and r["committed"]
    assert r["event"]["move"]["choose"] == {"blue": ["yellow"] * 5, "orange": ["white", "yellow"]}
    pos = s.position
    assert "forest_communication" in pos.missions
    assert pos.nutrients["orange"] == {"pink": 3, "yellow": 1, "white": 1}
    assert pos.nutrients["blue"] == {"pink": 0, "yellow": 5, "white": 0}
    assert s.choices is None and b.get("/api/state").get_json()["choices"] is None
    done = [m for m in seen if m.kind == "choices_done"]
    assert len(done) == 1 and done[0].data["by_other"] == ["orange"]


def test_a_player_answers_on_their_own_tablet_without_confirming(table):
    s, move, _ = table
    app = create_app(s, pin=PIN)
    blue, orange = Browser(app), Browser(app)
    blue.unlock()
    orange.unlock()
    blue.post("/api/move", {"move": move})
    pid = s.choices.id
    assert orange.post("/api/choose", {"id": pid, "player": "orange", "colors": ["pink", "pink"],
                                       "seat": "orange"}).get_json()["committed"] is False
    assert blue.post("/api/choose", {"id": pid, "player": "blue", "colors": ["white"] * 5,
                                     "seat": "blue"}).get_json()["committed"] is True
    assert s.position.nutrients["orange"]["pink"] == 5 and s.position.nutrients["blue"]["white"] == 5


def test_a_waiting_move_can_be_withdrawn_and_nothing_is_logged(table):
    s, move, _ = table
    b = Browser(create_app(s, pin=PIN))
    b.unlock()
    b.post("/api/move", {"move": move})
    assert b.post("/api/choose/withdraw", {"id": "nope"}).status_code == 409
    assert b.post("/api/choose/withdraw", {"id": s.choices.id}).get_json()["ok"]
    assert s.choices is None and s.game.events == []
    assert b.post("/api/move", {"move": move}).get_json()["event"] is None   # played again: asked again
    assert s.choices is not None


def test_choices_need_the_pin(table):
    s, move, _ = table
    s.submit(move, source="camera")
    b = Browser(create_app(s, pin=PIN))
    r = b.post("/api/choose", {"id": s.choices.id, "player": "orange", "colors": ["pink", "pink"], "seat": "orange"})
    assert r.status_code == 403 and s.choices.answers == {}


def test_a_camera_move_that_needs_choices_is_announced_and_holds_the_table(table):
    s, move, seen = table
    v = s.submit(move, source="camera")
    assert v.legal and s.game.events == []
    assert [m.kind for m in seen][-1] == "choices"
    v = s.submit({"player": "blue", "action": "end_turn"}, source="reader")
    assert not v.legal and v.reason == "awaiting_choices" and s.illegal is None   # not an illegal move
    with pytest.raises(SessionError, match="withdraw it first"):
        s.undo()


def test_a_move_the_game_moved_past_is_withdrawn_with_its_reason(table):
    s, move, seen = table
    b = Browser(create_app(s, pin=PIN))
    b.unlock()
    b.post("/api/move", {"move": move})
    pid = s.choices.id
    b.post("/api/choose", {"id": pid, "player": "blue", "colors": ["pink"] * 5, "seat": "blue"})
    s.game.play(move)                     # committed around the table's prompt (a script, defaults)
    r = b.post("/api/choose", {"id": pid, "player": "orange", "colors": ["pink", "pink"], "seat": "orange"})
    assert r.status_code == 409 and r.get_json()["error"] == "withdrawn" and "no longer legal" in r.get_json()["message"]
    assert s.choices is None and len(s.game.events) == 1
    assert "choices_withdrawn" in [m.kind for m in seen]


FC_BEFORE = Path(__file__).parents[1] / "data" / "cases" / "fc_before.json"


def test_each_chooser_is_offered_only_what_the_earlier_players_left(tmp_path):
    """Rulebook 7.c with 2 yellow cubes left in the supply: the players choose in turn order from
    red (active), then blue, then orange, each from what the supply still holds.  Blue's two
    yellow left orange's chooser offering yellow, and red's later yellow gave red 1 cube, not 2."""
    import json
    from companion.position import Position
    s = TableSession(Game(Position.from_json(json.loads(FC_BEFORE.read_text()))))
    move = {"player": "red", "action": "place", "tile": "P1.G024", "at": [0, 0], "rotation": 3}
    assert s.submit(move, source="dashboard").legal and s.choices is not None
    pid = s.choices.id

    def offered(player):
        return next(g["colors"] for g in s.choices.to_json()["asked"] if g["player"] == player and g["kind"] == "gain")

    assert offered("orange") == ["pink", "yellow", "white"]
    s.choose(pid, "blue", ["yellow", "yellow"])
    assert offered("orange") == ["pink", "white"]           # both yellow cubes are blue's now
    # red comes before blue: red's yellow leaves one, so blue is asked again, with yellow still offered
    s.choose(pid, "red", ["yellow", "pink"])
    assert s.choices.waiting_for == ["blue", "orange"] and offered("blue") == ["pink", "yellow", "white"]
    with pytest.raises(SessionError, match=r"blue chose yellow .* left: 5 pink and 6 white"):
        s.choose(pid, "blue", ["yellow", "yellow"])
    assert s.choices.waiting_for == ["blue", "orange"]      # nothing recorded for the refused answer
    s.choose(pid, "blue", ["yellow", "white"])
    assert offered("orange") == ["pink", "white"]
    s.choose(pid, "orange", ["white", "white"])
    assert s.choices.waiting_for == ["blue"]                # 9 cubes: blue returns one (5)
    s.choose(pid, "blue", ["white"], kind="discard")
    assert s.choices is None
    pos = s.position
    assert pos.nutrients["red"] == {"pink": 3, "yellow": 3, "white": 1}
    assert pos.nutrients["blue"] == {"pink": 1, "yellow": 5, "white": 2}
    notes = s.game.events[-1].notes
    assert not any("supply" in n for n in notes), notes
