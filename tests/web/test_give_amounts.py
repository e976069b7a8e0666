"""The Give dialog offers only what a gift may hold now: the state's ``give_amounts`` (rulebook
5.c, 7.b) and ``give`` (the receivers of the mode, the teammate in team play, 9.b; the colours
and amounts the giver holds), and a Funga gift of two colours is given (7.b)."""

from __future__ import annotations

from builders import make_position
from companion import rules


def gift(pos, n):
    to = next(c for c in pos.colors if c != pos.active)
    return {"player": pos.active, "action": "give", "to": to, "nutrients": {"pink": n}}


def test_a_competitive_game_offers_one_nutrient_only(browser, session):
    doc = browser.get("/api/state").get_json()
    assert doc["give_amounts"] == [1]
    assert rules.check(session.position, gift(session.position, 2), session.edition).reason == "mission_locked"


def test_the_funga_mission_offers_two(browser, session):
    # A cooperative team that has accomplished the Funga mission (7.b).
    pos = make_position(mode="cooperative", difficulty="easy", missions=("funga",), nutrients={"blue": {"pink": 2}})
    session.start_from(pos, None, None)
    doc = browser.get("/api/state").get_json()
    assert doc["give_amounts"] == [1, 2]
    for n in doc["give_amounts"]:
        assert rules.check(session.position, gift(session.position, n), session.edition).reason != "mission_locked"
    assert rules.check(session.position, gift(session.position, 3), session.edition).reason == "wrong_payment"


ROW = {(3, 0): "P03", (2, 0): "P03", (1, 0): "P03"}
TEAMS = {"blue": "1", "orange": "2", "red": "1", "black": "2"}


def team_position(**kw):
    """A team game (9): blue and red against orange and black, blue to play, with every meeple
    on one pink network so only the team decides who may receive."""
    args = dict(mode="team", players=("blue", "orange", "red", "black"), teams=TEAMS, tiles=dict(ROW),
                spores={"blue": (4, 0), "orange": (-4, 0), "red": (0, 4), "black": (0, -4)},
                meeples={"blue": (3, 0), "orange": (2, 0), "red": (1, 0), "black": (0, -4)},
                nutrients={"blue": {"pink": 2, "white": 1}})
    args.update(kw)
    return make_position(**args)


def test_in_team_play_the_give_offer_lists_the_teammate_only_as_the_engine_allows(browser, session):
    session.start_from(team_position(), None, None)
    offer = browser.get("/api/state").get_json()["give"]
    assert offer["player"] == "blue" and offer["to"] == ["red"]
    pos = session.position
    for other in ("orange", "red", "black"):
        v = rules.check(pos, {"player": "blue", "action": "give", "to": other, "nutrients": {"pink": 1}}, session.edition)
        assert (v.reason == "not_teammate") == (other not in offer["to"]), (other, v.reason)
    v = rules.check(pos, {"player": "blue", "action": "give", "to": "orange", "nutrients": {"pink": 1}}, session.edition)
    assert "your teammate only (red, 9.b)" in v.message


def test_the_give_offer_holds_only_the_colours_and_amounts_the_giver_has(browser, session):
    session.start_from(team_position(nutrients={"blue": {"yellow": 1}}), None, None)
    offer = browser.get("/api/state").get_json()["give"]
    assert offer["held"] == {"yellow": 1} and offer["amounts"] == [1]
    pos = make_position(mode="cooperative", difficulty="easy", missions=("funga",), nutrients={"blue": {"pink": 1}})
    session.start_from(pos, None, None)
    offer = browser.get("/api/state").get_json()["give"]
    assert offer["held"] == {"pink": 1} and offer["amounts"] == [1]   # two cannot be paid
    session.start_from(make_position(mode="cooperative", difficulty="easy"), None, None)
    assert browser.get("/api/state").get_json()["give"]["amounts"] == []


def test_with_funga_a_gift_of_two_colours_is_given(unlocked, session):
    # 7.b "any two nutrients": one pink and one yellow in one gift
    pos = make_position(mode="cooperative", difficulty="easy", missions=("funga",), tiles=dict(ROW),
                        meeples={"blue": (3, 0), "orange": (1, 0)}, nutrients={"blue": {"pink": 1, "yellow": 1}})
    session.start_from(pos, None, None)
    r = unlocked.post("/api/give", {"to": "orange", "nutrients": {"pink": 1, "yellow": 1}})
    assert r.status_code == 200, r.get_json()
    assert session.position.nutrients["orange"] == {"pink": 1, "yellow": 1, "white": 0}
