"""A substrate token taken off the board in play is replaced before the turn ends (rulebook 5.a):
the state says which token is due and where it may land, ``/api/end-turn`` is refused until it
is laid, and the dashboard lays it with a ``substrate`` move.  The Give offer (5.c, 7.a, 9.b)
lists only the receivers the rules accept now, and says why the others cannot receive."""

from __future__ import annotations

from builders import make_position
from companion import rules
from companion.edition import load_edition

ED = load_edition("default")
TREE = ED.substrate_tokens["wood"][0]
"""A wood token's space holding a tree: a token drawn for it is discarded and another drawn."""


def degrade_wood(unlocked):
    """Blue grows a pink tile onto the wood substrate at (2, 0) and draws back to 3 tiles."""
    r = unlocked.post("/api/move", {"move": {"player": "blue", "action": "place", "tile": "P03", "at": [2, 0], "rotation": 0}})
    assert r.status_code == 200, r.get_json()
    r = unlocked.post("/api/move", {"move": {"player": "blue", "action": "draw", "tile": "Y03"}})
    assert r.status_code == 200, r.get_json()


def start(session):
    pos = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood"}, trees=[TREE],
                        meeples={"blue": (3, 0), "orange": (-4, 0)})
    session.start_from(pos, None, None)


def test_the_state_says_which_token_is_due_and_where_it_may_land(unlocked, session):
    start(session)
    assert unlocked.get("/api/state").get_json()["substrate"] is None
    degrade_wood(unlocked)
    offer = unlocked.get("/api/state").get_json()["substrate"]
    where = ED.label((2, 0))
    assert offer["kind"] == "wood" and offer["due"] is True
    assert offer["token"] == f"the wood substrate token drawn to replace the one at {where}"
    assert offer["message"] == rules.check(session.position, {"player": "blue", "action": "end_turn"}).message
    spaces = {tuple(sp["at"]): sp for sp in offer["spaces"]}
    # the token showing (2, 0) is the one just degraded: discarded, it is not drawn again (5.a)
    assert set(spaces) == set(ED.substrate_tokens["wood"]) - {(2, 0)}
    assert spaces[TREE]["holds"] == "a tree" and spaces[TREE]["label"] == ED.label(TREE)
    free = [at for at, sp in spaces.items() if sp["holds"] is None]
    assert free and all(rules.check(session.position, {"player": "table", "action": "substrate", "kind": "wood",
                                                       "at": list(at)}).legal for at in free)


def test_the_turn_ends_only_after_the_dashboard_lays_the_token(unlocked, session):
    start(session)
    degrade_wood(unlocked)
    r = unlocked.post("/api/end-turn", {})
    assert r.status_code == 409 and r.get_json()["error"] == "substrate_due"
    assert f"replace the one at {ED.label((2, 0))} (5.a)" in r.get_json()["message"]
    r = unlocked.post("/api/move", {"move": {"player": "table", "action": "substrate", "kind": "wood", "at": list(TREE)}})
    assert r.status_code == 409 and "holds a tree: discard that token and draw another" in r.get_json()["message"]
    soil_only = next(h for h in ED.substrate_tokens["soil"] if h not in ED.substrate_tokens["wood"])
    r = unlocked.post("/api/move", {"move": {"player": "table", "action": "substrate", "kind": "wood", "at": list(soil_only)}})
    assert r.status_code == 409 and r.get_json()["error"] == "not_on_token"
    r = unlocked.post("/api/move", {"move": {"player": "table", "action": "substrate", "kind": "wood", "at": [2, 0]}})
    assert r.status_code == 409 and r.get_json()["error"] == "token_just_discarded"
    space = next(sp for sp in unlocked.get("/api/state").get_json()["substrate"]["spaces"] if sp["holds"] is None)
    r = unlocked.post("/api/move", {"move": {"player": "table", "action": "substrate", "kind": "wood", "at": space["at"]}})
    assert r.status_code == 200, r.get_json()
    assert session.position.substrates[tuple(space["at"])] == "wood"
    assert unlocked.get("/api/state").get_json()["substrate"] is None
    r = unlocked.post("/api/end-turn", {})
    assert r.status_code == 200, r.get_json()
    assert session.position.active == "orange"


ROW = {(3, 0): "P03", (2, 0): "P03", (1, 0): "P03"}


def test_the_give_offer_lists_only_the_receivers_the_rules_accept_now(browser, session):
    # orange stands on blue's pink network, red on its own spore away from it (5.c)
    pos = make_position(mode="cooperative", difficulty="easy", players=("blue", "orange", "red"), tiles=dict(ROW),
                        spores={"blue": (4, 0), "orange": (-4, 0), "red": (0, 4)},
                        meeples={"blue": (3, 0), "orange": (1, 0), "red": (0, 4)}, nutrients={"blue": {"pink": 2}})
    session.start_from(pos, None, None)
    offer = browser.get("/api/state").get_json()["give"]
    assert offer["to"] == ["orange"]
    assert offer["refused"] == [{"player": "red", "reason": "not_same_network",
                                 "message": "You and red are not on the same mycelium network."}]
    for other in ("orange", "red"):
        v = rules.check(session.position, {"player": "blue", "action": "give", "to": other, "nutrients": {"pink": 1}})
        assert v.legal == (other in offer["to"])


def test_the_give_offer_says_why_nobody_can_receive(browser, session):
    pos = make_position(mode="cooperative", difficulty="easy", nutrients={"blue": {"pink": 1}})
    session.start_from(pos, None, None)
    offer = browser.get("/api/state").get_json()["give"]
    assert offer["to"] == [] and [r["reason"] for r in offer["refused"]] == ["not_same_network"]
