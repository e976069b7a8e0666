"""The JSON API as the tablet uses it: reads are open, every change needs the PIN and the
page's token, bad input is refused with a clear message and changes nothing."""

from __future__ import annotations

import pytest

from webtools import PIN, Browser, legal, play_turns
from web import create_app


def snapshot(session):
    """What a change would alter: events, corrections, held illegal move, bus position."""
    return (len(session.game.events), dict(session.corrections), session.illegal, session.position.to_json())


def test_state_carries_the_position_and_everything_shown(browser, session):
    doc = browser.get("/api/state").get_json()
    assert doc["position"] == session.position.to_json()
    assert [p["color"] for p in doc["players"]] == ["blue", "orange", "red"]
    assert len(doc["market"]) == 6 and all(session.position.active in c["afford"] for c in doc["market"])
    assert doc["viewer"] == {"unlocked": False}
    assert doc["log"][-1]["seq"] == len(session.game.events)
    assert doc["bag"] == session.position.bag


def test_viewer_cannot_correct_a_space(browser, session):
    before = snapshot(session)
    r = browser.post("/api/correct", {"at": [0, 0], "content": {"kind": "rock"}})
    assert r.status_code == 403
    assert r.get_json()["error"] == "pin_required"
    assert "PIN" in r.get_json()["message"]
    assert snapshot(session) == before


def test_correction_with_the_pin_is_recorded_and_announced(unlocked, session):
    last = session.bus.last_id
    r = unlocked.post("/api/correct", {"at": [0, 0], "content": {"kind": "tile", "paths": "P03"}})
    assert r.status_code == 200, r.get_json()
    doc = unlocked.get("/api/state").get_json()
    assert {"at": [0, 0], "content": {"kind": "tile", "paths": "P03"}} in doc["corrections"]
    assert [m.kind for m in session.bus.since(last)] == ["correction"]
    # null trusts the camera again
    assert unlocked.post("/api/correct", {"at": [0, 0], "content": None}).status_code == 200
    assert unlocked.get("/api/state").get_json()["corrections"] == []


def test_wrong_pin_is_refused_and_repeated_failures_lock_out(browser, session):
    r = browser.unlock("0000")
    assert r.status_code == 403 and r.get_json()["error"] == "wrong_pin"
    for _ in range(4):
        browser.unlock("0000")
    r = browser.unlock(PIN)  # even the right PIN waits now
    assert r.status_code == 429
    assert "try again" in r.get_json()["message"]
    assert browser.get("/api/state").get_json()["viewer"]["unlocked"] is False


def test_missing_or_foreign_token_is_refused(browser, session):
    assert browser.unlock().status_code == 200
    before = snapshot(session)
    r = browser.post("/api/correct", {"at": [0, 0], "content": {"kind": "rock"}}, csrf=False)
    assert r.status_code == 403 and r.get_json()["error"] == "csrf"
    r = browser.post("/api/correct", {"at": [0, 0], "content": {"kind": "rock"}}, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    r = browser.post("/api/correct", {"at": [0, 0], "content": {"kind": "rock"}}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and r.get_json()["error"] == "cross_origin"
    r = browser.client.post("/api/correct", data="at=0,0", headers={"X-CSRF-Token": browser.csrf},
                            content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415
    assert snapshot(session) == before


def test_state_changes_are_post_only(unlocked):
    assert unlocked.get("/api/undo").status_code == 405
    assert unlocked.get("/api/undo").is_json


def test_a_script_may_send_the_pin_in_a_header(app, session):
    client = app.test_client()
    r = client.post("/api/correct", json={"at": [1, 0], "content": {"kind": "rock"}}, headers={"X-Table-PIN": PIN})
    assert r.status_code == 200
    r = client.post("/api/correct", json={"at": [1, 0], "content": None}, headers={"X-Table-PIN": "9999"})
    assert r.status_code == 403
    assert session.corrections  # the refused request changed nothing


@pytest.mark.parametrize("body, fragment", [
    ({"at": [9, 9], "content": {"kind": "rock"}}, "not a space of the board"),
    ({"at": [0, 0], "content": {"kind": "tile", "paths": "Q9"}}, "content.paths"),
    ({"at": [0, 0], "content": {"kind": "dragon"}}, "content.kind"),
    ({"at": "E4", "content": {"kind": "rock"}}, "at: must be an axial coordinate"),
    ({"at": [0, 0]}, "content"),
])
def test_bad_corrections_say_what_is_wrong_and_change_nothing(unlocked, session, body, fragment):
    before = snapshot(session)
    r = unlocked.post("/api/correct", body)
    assert r.status_code == 400
    assert fragment in r.get_json()["message"]
    assert snapshot(session) == before


def test_malformed_move_names_the_field(unlocked, session):
    before = snapshot(session)
    r = unlocked.post("/api/move", {"move": {"player": session.position.active, "action": "place", "tile": "P03", "at": "x", "rotation": 0}})
    assert r.status_code == 400 and "at" in r.get_json()["message"]
    assert snapshot(session) == before


def test_illegal_move_is_refused_with_the_rules_reason_and_not_held(unlocked, session):
    pos = session.position
    other = next(c for c in pos.colors if c != pos.active)
    before = snapshot(session)
    r = unlocked.post("/api/move", {"move": {"player": other, "action": "end_turn"}})
    assert r.status_code == 409
    doc = r.get_json()
    assert doc["error"] == "not_your_turn" and doc["message"]
    assert snapshot(session) == before  # nothing held on the board either


def test_legal_move_from_the_dashboard_is_committed(unlocked, session):
    move = (legal(session, "move") or legal(session, "place"))[0]
    n = len(session.game.events)
    r = unlocked.post("/api/move", {"move": move})
    assert r.status_code == 200, r.get_json()
    assert len(session.game.events) == n + 1
    assert unlocked.get("/api/state").get_json()["log"][-1]["move"]["action"] == move["action"]


def test_a_move_offered_before_another_was_entered_is_refused_as_stale(unlocked, session):
    # Two tablets confirm the same offered move (a tapped draw): the second must not enter it again.
    move = (legal(session, "move") or legal(session, "place"))[0]
    n = len(session.game.events)
    before = snapshot(session)
    r = unlocked.post("/api/move", {"move": move, "after": n - 1})
    assert r.status_code == 409 and r.get_json()["error"] == "stale"
    assert snapshot(session) == before
    r = unlocked.post("/api/move", {"move": move, "after": n})
    assert r.status_code == 200, r.get_json()
    assert len(session.game.events) == n + 1
    assert unlocked.post("/api/move", {"move": move, "after": n}).get_json()["error"] == "stale"
    assert len(session.game.events) == n + 1
    assert unlocked.post("/api/move", {"move": move, "after": "two"}).status_code == 400


def test_end_turn_before_placing_is_refused_then_allowed(unlocked, session):
    if "place" in session.position.taken:
        pytest.skip("the bots already placed this turn")  # pragma: no cover - fixed seed
    r = unlocked.post("/api/end-turn", {})
    assert r.status_code == 409 and r.get_json()["error"] == "must_place_or_discard"
    first = session.position.active
    mv = legal(session, "discard")[0]
    assert unlocked.post("/api/move", {"move": mv}).status_code == 200
    pos = session.position
    tile = next(iter(pos.bag_tiles))
    assert unlocked.post("/api/move", {"move": {"player": first, "action": "draw", "tile": tile}}).status_code == 200
    r = unlocked.post("/api/end-turn", {})
    assert r.status_code == 200, r.get_json()
    assert session.position.active != first


def test_undo_takes_back_a_move_but_never_a_draw(unlocked, session):
    mv = legal(session, "discard")[0]
    unlocked.post("/api/move", {"move": mv})
    n = len(session.game.events)
    r = unlocked.post("/api/undo", {})
    assert r.status_code == 200 and r.get_json()["undone"]["move"]["action"] == "discard"
    assert len(session.game.events) == n - 1
    unlocked.post("/api/move", {"move": mv})
    tile = next(iter(session.position.bag_tiles))
    unlocked.post("/api/move", {"move": {"player": session.position.active, "action": "draw", "tile": tile}})
    assert unlocked.get("/api/state").get_json()["undo_allowed"] is False
    n = len(session.game.events)
    r = unlocked.post("/api/undo", {})
    assert r.status_code == 409 and "draw" in r.get_json()["message"]
    assert len(session.game.events) == n


def test_give_and_swap_build_the_active_players_move(unlocked, session):
    pos = session.position
    to = next(c for c in pos.colors if c != pos.active)
    r = unlocked.post("/api/give", {"to": to, "nutrients": {"pink": 9}})
    assert r.status_code == 409 and r.get_json()["message"]
    r = unlocked.post("/api/swap", {"give": "pink", "take": "white"})
    assert r.status_code == 409 and r.get_json()["error"] in ("no_swap_card", "insufficient_nutrients", "swap_already_used")
    assert unlocked.post("/api/give", {"to": to, "nutrients": "lots"}).status_code == 400


def buyable_now(session):
    pos = session.position
    return [c["id"] for c in session.state()["market"] if c["afford"].get(pos.active, {}).get("can_buy")]


def test_purchase_confirmation(unlocked, session):
    table = play_turns(session, 0)

    class Affordable(Exception):
        pass

    def stop_when_affordable(ev, pos):
        # a purchase comes last in the turn (Turn Sequence Summary 2): after the placement
        if "place" in pos.taken and "buy" not in pos.taken and buyable_now(session):
            raise Affordable

    table.on_event = stop_when_affordable  # bots play on until the active player can afford a card
    try:
        for _ in range(80):
            table.play_turn()
    except Affordable:
        pass
    cards = buyable_now(session)
    assert cards, "the bots never reached an affordable card"
    pos = session.position
    short = next(c for c in session.state()["market"] if not c["afford"][pos.active]["can_buy"])
    r = unlocked.post("/api/buy", {"card": short["id"]})
    assert r.status_code == 409 and r.get_json()["message"]
    r = unlocked.post("/api/buy", {"card": cards[0]})
    assert r.status_code == 200, r.get_json()
    assert cards[0] in session.position.cards[pos.active]
    assert cards[0] not in [c["id"] for c in unlocked.get("/api/state").get_json()["market"]]


def test_buying_an_unknown_card_is_refused(unlocked, session):
    r = unlocked.post("/api/buy", {"card": "zz99"})
    assert r.status_code == 409 and r.get_json()["error"] == "card_unknown"


def test_question_answer(unlocked, session):
    picked = []
    q = session.ask("Which tile is on E4?", [{"label": "P03"}, {"label": "Y03"}], on_answer=picked.append)
    assert unlocked.get("/api/state").get_json()["question"]["prompt"] == "Which tile is on E4?"
    assert unlocked.post("/api/answer", {"id": q.id, "choice": 5}).status_code == 409
    assert unlocked.post("/api/answer", {"id": q.id, "choice": "first"}).status_code == 400
    assert unlocked.post("/api/answer", {"id": q.id, "choice": 1}).status_code == 200
    assert picked == [1]
    assert unlocked.post("/api/answer", {"id": q.id, "choice": 0}).status_code == 409  # no longer open


def test_held_illegal_move_can_be_cleared(unlocked, session):
    pos = session.position
    tree = sorted(pos.trees)[0]
    tile = next(c for c in pos.hands[pos.active] if c != "ROCK")
    session.submit({"player": pos.active, "action": "place", "tile": tile, "at": list(tree), "rotation": 0}, source="camera")
    ill = unlocked.get("/api/state").get_json()["illegal"]
    assert ill["reason"] == "on_tree" and ill["message"]
    assert unlocked.post("/api/clear-illegal", {}).status_code == 200
    assert unlocked.get("/api/state").get_json()["illegal"] is None


def test_putting_back_with_nothing_held_is_refused(unlocked, session):
    seq = session.bus.last_id
    r = unlocked.post("/api/clear-illegal", {})
    assert r.status_code == 409
    doc = r.get_json()
    assert doc["ok"] is False and doc["error"] == "nothing_held" and "nothing to put back" in doc["message"]
    assert session.bus.last_id == seq  # nothing announced


def test_setup_wizard(unlocked, session):
    opts = unlocked.get("/api/setup").get_json()
    assert opts["modes"] == ["competitive", "cooperative", "team"]
    assert all(len(opts["trees"][d]) >= 1 for d in opts["difficulties"])
    r = unlocked.post("/api/new-game", {"players": ["blue", "blue"], "mode": "competitive"})
    assert r.status_code == 400 and "players" in r.get_json()["message"]
    r = unlocked.post("/api/new-game", {"players": ["blue", "red", "orange", "black"], "mode": "team",
                                        "teams": {"blue": "1", "red": "1", "orange": "2", "black": "2"}})
    assert r.status_code == 400 and "alternate" in r.get_json()["message"]
    before = session.game
    r = unlocked.post("/api/new-game", {"players": ["red", "blue"], "mode": "cooperative", "difficulty": "hard"})
    assert r.status_code == 200
    doc = unlocked.get("/api/state").get_json()
    assert session.game is not before
    assert doc["position"]["active"] == "red" and doc["position"]["mode"] == "cooperative"
    assert doc["log"] == [] and doc["targets"]["target"] == session.edition.cooperative_vp["hard"]
    assert session.bus.since(session.bus.last_id - 1)[0].kind == "reset"


def test_replay_steps_through_the_game(browser, session):
    n = len(session.game.events)
    first = browser.get("/api/replay/0").get_json()
    assert first["position"] == session.game.initial.to_json() and first["of"] == n
    last = browser.get(f"/api/replay/{n}").get_json()
    assert last["position"] == session.position.to_json()
    mid = browser.get("/api/replay/3").get_json()
    assert mid["text"] == session.game.events[2].notes[0]
    r = browser.get(f"/api/replay/{n + 1}")
    assert r.status_code == 404 and r.is_json


def test_replay_carries_the_players_and_market_of_that_position(browser, session):
    live = browser.get("/api/state").get_json()
    first = browser.get("/api/replay/0").get_json()
    initial = session.game.initial
    assert [p["color"] for p in first["players"]] == [p["color"] for p in live["players"]]
    for p in first["players"]:
        assert p["hand"] == list(initial.hands[p["color"]])
        assert p["nutrients"] == dict(initial.nutrients[p["color"]])
        assert p["active"] == (p["color"] == initial.active)
    assert [c["id"] for c in first["market"]] == initial.market["a"] + initial.market["b"]
    assert all("afford" in c for c in first["market"])
    # the last step equals the live panels
    last = browser.get(f"/api/replay/{len(session.game.events)}").get_json()
    strip = lambda ps: [{k: p[k] for k in ("color", "hand", "nutrients", "vp", "spore", "active")} for p in ps]
    assert strip(last["players"]) == strip(live["players"])
    assert [c["id"] for c in last["market"]] == [c["id"] for c in live["market"]]


def test_replay_follows_an_undo(unlocked, session):
    mv = legal(session, "discard")[0]
    unlocked.post("/api/move", {"move": mv})
    n = len(session.game.events)
    assert unlocked.get(f"/api/replay/{n}").get_json()["move"]["action"] == "discard"
    unlocked.post("/api/undo", {})
    other = legal(session, "place")[0]
    unlocked.post("/api/move", {"move": other})
    assert unlocked.get(f"/api/replay/{n}").get_json()["position"] == session.position.to_json()


def test_unknown_api_path_answers_json(browser):
    r = browser.get("/api/nothing-here")
    assert r.status_code == 404 and r.get_json()["ok"] is False


def test_lock_returns_to_viewing(unlocked, session):
    assert unlocked.get("/api/state").get_json()["viewer"]["unlocked"] is True
    unlocked.post("/api/lock", {})
    assert unlocked.post("/api/undo", {}).status_code == 403


def test_pin_must_be_digits(session):
    with pytest.raises(ValueError, match="6 to 8 digits"):
        create_app(session, pin="12ab")
    for short in ("1234", "12345"):  # 10,000 or 100,000 values: too few against a script
        with pytest.raises(ValueError, match="6 to 8 digits"):
            create_app(session, pin=short)
    app = create_app(session)
    assert len(app.extensions["table_pin"].pin) == 6 and app.extensions["table_pin"].pin.isdigit()


def test_restart_locks_every_tablet(session):
    a = create_app(session, pin=PIN)
    b = Browser(a)
    b.unlock()
    b2 = Browser(create_app(session, pin=PIN))
    b2.client.set_cookie("mycelium_table", b.client.get_cookie("mycelium_table").value)
    assert b2.post("/api/undo", {}, headers={"X-CSRF-Token": b.csrf}).status_code == 403


def test_setup_offers_and_checks_the_editions_meeple_colours(unlocked, session, monkeypatch):
    # the wizard offered, and new games accepted, the default edition's four colours whatever
    # the edition: a copy whose cards price three meeples (6.b.2) has only those three players
    from dataclasses import replace

    from companion.setup import GameConfig, SetupError
    three = replace(session.edition, meeple_colors=("blue", "orange", "red"))
    monkeypatch.setattr(session.game, "edition", three)
    monkeypatch.setattr("web.api.load_edition", lambda name: three)
    assert unlocked.get("/api/setup").get_json()["colors"] == ["blue", "orange", "red"]
    r = unlocked.post("/api/new-game", {"players": ["blue", "black"], "mode": "competitive"})
    assert r.status_code == 400
    assert r.get_json()["message"] == "players: 'black' is not a meeple colour of the edition (blue, orange, red)"
    GameConfig(players=["green", "blue"]).check(replace(three, meeple_colors=("blue", "green")))   # no SetupError
    with pytest.raises(SetupError):
        GameConfig(players=["red", "blue"]).check(replace(three, meeple_colors=("blue", "green")))
