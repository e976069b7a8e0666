"""The cubes a removal costs are the player's choice (rulebook 4.c: Mycophages "any 1
nutrient", Lichens "any 2 nutrients"): the camera cannot see which cube went back to the
supply, so the removal waits until the player picks them on the dashboard, and the ledger
follows the answer."""

from __future__ import annotations

import pytest
from webtools import PIN, Browser

from companion.edition import load_edition
from companion.game import Game
from companion.hexgrid import Hex
from companion.table.choices import ChoicePrompt
from companion.table.inference import explain, view_of_position
from companion.table.session import SessionError, TableSession
from companion.rules import apply
from web import create_app
from builders import make_position

REMOVE_E8 = {"player": "blue", "action": "remove", "at": [3, 0]}


def blue_beside_a_tile():
    """Blue's meeple on its spore (4, 0) beside its tile at E8 (3, 0), holding 1 pink and 2 yellow
    and no rock (a rock put on the tile and removed would explain the empty space too)."""
    return make_position(tiles={(3, 0): "P03"}, nutrients={"blue": {"pink": 1, "yellow": 2}},
                         hands={"blue": ["P03", "Y03", "G03"], "orange": ["P03", "Y03", "G03"]})


def test_the_prompt_writes_the_answer_into_the_moves_pay():
    asked = [{"player": "blue", "kind": "pay", "count": 2, "colors": ["pink", "yellow"], "why": "Lichens: the rock at D8 (4.c)"}]
    p = ChoicePrompt({"player": "blue", "action": "remove", "at": [4, -1]}, "camera", asked)
    assert p.sentence() == "Lichens at D8: waiting for blue to choose on the dashboard"
    p.answer("blue", ["pink", "yellow"], "pay")
    assert p.final_move() == {"player": "blue", "action": "remove", "at": [4, -1], "pay": {"pink": 1, "yellow": 1}}
    assert "choose" not in p.final_move() and "drop" not in p.final_move()


def test_a_removal_waits_for_the_players_cubes_and_the_ledger_follows_the_answer():
    s = TableSession(Game(blue_beside_a_tile()))
    v = s.submit(dict(REMOVE_E8), source="dashboard")   # entered by hand, naming no cubes
    assert v.legal and s.game.events == [] and s.choices is not None
    assert s.choices.sentence() == "Mycophages at E8: waiting for blue to choose on the dashboard"
    assert s.choices.groups()[0]["colors"] == ["pink", "yellow"] and s.choices.groups()[0]["count"] == 1
    with pytest.raises(SessionError, match="blue picks exactly 1 cube"):
        s.choose(s.choices.id, "blue", ["pink", "yellow"], "pay")
    with pytest.raises(SessionError, match="not offered"):
        s.choose(s.choices.id, "blue", ["white"], "pay")
    ev = s.choose(s.choices.id, "blue", ["pink"], "pay")    # not the largest stack
    assert ev is not None and ev.move["pay"] == {"pink": 1}
    assert s.position.nutrients["blue"] == {"pink": 0, "yellow": 2, "white": 0}
    assert Hex(3, 0) not in s.position.tiles


def test_a_payment_names_only_cubes_the_player_holds():
    s = TableSession(Game(make_position(rocks=[(4, -1)], nutrients={"blue": {"pink": 1, "yellow": 2}})))
    s.submit({"player": "blue", "action": "remove", "at": [4, -1]})
    with pytest.raises(SessionError, match="blue holds 1 pink and 2 yellow, so cannot pay 2 pink"):
        s.choose(s.choices.id, "blue", ["pink", "pink"], "pay")
    assert s.choices is not None and s.choices.answers == {}     # still waiting, nothing withdrawn
    s.choose(s.choices.id, "blue", ["yellow", "pink"], "pay")
    assert s.position.nutrients["blue"] == {"pink": 0, "yellow": 1, "white": 0}


def test_the_camera_names_no_payment_so_the_table_asks():
    pos = blue_beside_a_tile()
    after = apply(pos, dict(REMOVE_E8)).position
    (seq, _), = explain(pos, load_edition(pos.edition), view_of_position(after)).matches
    assert seq == [REMOVE_E8]          # no "pay": the camera cannot see which cube went back
    s = TableSession(Game(pos))
    s.submit(seq[0], source="camera")
    assert s.choices is not None and s.choices.source == "camera" and s.game.events == []


def test_the_dashboard_answers_a_payment():
    s = TableSession(Game(blue_beside_a_tile()))
    b = Browser(create_app(s, pin=PIN))
    b.unlock()
    assert b.post("/api/move", {"move": dict(REMOVE_E8)}).get_json()["event"] is None
    prompt = b.get("/api/state").get_json()["choices"]
    assert prompt["reasons"] == "Mycophages at E8"
    assert [(g["player"], g["kind"], g["count"], g["colors"]) for g in prompt["asked"]] == [("blue", "pay", 1, ["pink", "yellow"])]
    r = b.post("/api/choose", {"id": prompt["id"], "player": "blue", "kind": "pay", "colors": ["pink", "pink"], "seat": "blue"})
    assert r.status_code == 400 and r.get_json()["error"] == "bad_choice"
    r = b.post("/api/choose", {"id": prompt["id"], "player": "blue", "kind": "pay", "colors": ["pink"], "seat": "blue"}).get_json()
    assert r["ok"] and r["committed"] and r["event"]["move"]["pay"] == {"pink": 1}
    assert s.position.nutrients["blue"] == {"pink": 0, "yellow": 2, "white": 0}


def removal_waiting_for_payment() -> tuple[Browser, str]:
    """An unlocked dashboard whose Mycophages removal at E8 waits for blue's cube; the prompt id."""
    b = Browser(create_app(TableSession(Game(blue_beside_a_tile())), pin=PIN))
    b.unlock()
    b.post("/api/move", {"move": dict(REMOVE_E8)})
    return b, b.get("/api/state").get_json()["choices"]["id"]


def test_a_payment_answered_without_its_kind_is_the_payment():
    # blue is asked only to pay: a request leaving "kind" out answers that, not a gain
    b, pid = removal_waiting_for_payment()
    r = b.post("/api/choose", {"id": pid, "player": "blue", "colors": ["yellow"], "seat": "blue"})
    assert r.status_code == 200 and r.get_json()["event"]["move"]["pay"] == {"yellow": 1}


def test_a_player_not_asked_is_told_so_before_being_asked_to_confirm():
    b, pid = removal_waiting_for_payment()
    r = b.post("/api/choose", {"id": pid, "player": "orange", "colors": ["pink"], "seat": "blue"})
    assert r.status_code == 400 and r.get_json()["error"] == "bad_choice"
    assert r.get_json()["message"] == "player: orange has nothing to choose here (asked: blue)"
    r = b.post("/api/choose", {"id": pid, "player": "blue", "kind": "gain", "colors": ["pink"], "seat": "blue"})
    assert r.status_code == 400 and "blue has no gain to choose here" in r.get_json()["message"]
