"""The Give dialog offers only the amounts a gift may hold now (rulebook 5.c, 7.b): the state's
``give_amounts``, which the page's "How many" row lists."""

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
