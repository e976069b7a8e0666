"""Two tablets at a table without a bag reader both show the opening draw (rulebook 3) and both
enter it: the first is taken, the second is refused as already entered by another tablet and
nothing is entered twice; a draw the page offers after that is taken.  A card turned up on two
tablets is entered once the same way."""

from __future__ import annotations

from web import create_app
from webtools import PIN, Browser, readerless_table


def offered_draw(tablet: Browser) -> tuple[dict, int]:
    """The draw the tablet's page offers (its first tile) and the number of moves it shows."""
    state = tablet.get("/api/state").get_json()
    offer = state["draw"]
    move = {"player": offer["player"], "action": "draw", "tile": offer["tiles"][0]["code"]}
    return move, (state["log"][-1]["seq"] if state["log"] else 0)


def test_the_second_tablet_entering_the_same_draw_is_refused_and_nothing_is_entered_twice():
    session = readerless_table()
    app = create_app(session, pin=PIN)
    first, second = Browser(app), Browser(app)
    for tablet in (first, second):
        assert tablet.unlock().status_code == 200
    blue = session.position.colors[0]
    mine, after = offered_draw(first)
    theirs, after2 = offered_draw(second)
    assert mine["player"] == theirs["player"] == blue and after == after2 == 0

    assert first.post("/api/move", {"move": mine, "after": after}).status_code == 200
    r = second.post("/api/move", {"move": theirs, "after": after2})
    doc = r.get_json()
    assert r.status_code == 409 and doc["error"] == "stale"
    assert doc["message"].startswith("That draw was already entered by another tablet (move 1: blue draws ")
    assert "nothing was entered" in doc["message"]
    assert len(session.position.hands[blue]) == 1 and len(session.game.events) == 1

    # the second tablet, refreshed, enters blue's next draw
    again, after = offered_draw(second)
    assert after == 1
    assert second.post("/api/move", {"move": again, "after": after}).status_code == 200
    assert len(session.position.hands[blue]) == 2


def test_a_move_of_another_kind_meanwhile_says_the_game_moved_on():
    session = readerless_table()
    tablet = Browser(create_app(session, pin=PIN))
    tablet.unlock()
    move, after = offered_draw(tablet)
    kind = session.position.pending_substrates[0]
    at = next(h for h in session.edition.substrate_tokens[kind] if h not in session.position.trees)
    assert session.submit({"player": "table", "action": "substrate", "kind": kind, "at": [at.q, at.r]}).legal
    doc = tablet.post("/api/move", {"move": move, "after": after}).get_json()
    assert doc["error"] == "stale" and doc["message"].startswith("The game moved on")


def test_the_same_card_turned_up_on_two_tablets_is_entered_once():
    session = readerless_table()
    session.real_table = True                # its market is turned up on the dashboard
    app = create_app(session, pin=PIN)
    first, second = Browser(app), Browser(app)
    for tablet in (first, second):
        tablet.unlock()
    card = session.state()["reveal"]["a"]["cards"][0]["id"]
    move = {"player": "table", "action": "reveal", "deck": "a", "card": card}
    assert first.post("/api/move", {"move": move, "after": 0}).status_code == 200
    doc = second.post("/api/move", {"move": move, "after": 0}).get_json()
    assert doc["error"] == "stale" and doc["message"].startswith("That card was already turned up on another tablet (move 1: ")
    assert session.position.market["a"] == [card]
