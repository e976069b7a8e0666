"""A real table (``run``) starts with an empty market and no hands: the dashboard offers the
cards still face down to turn up (``reveal``), says what the set-up still needs, and lets a
draw tapped in by mistake be taken back when there is no bag reader (``run --rfid none``)."""

from __future__ import annotations

import random

import pytest
from builders import make_position
from webtools import PIN, Browser

from companion.edition import load_edition
from companion.game import Game
from companion.hints import hint
from companion.setup import GameConfig, new_game
from companion.table.session import TableSession
from web import create_app


def real_table(reader: bool = False, options: dict | None = None) -> TableSession:
    """A new game of a real table: nothing dealt (``run``), draws on the dashboard unless the
    table has a bag reader."""
    config = GameConfig(options=dict(options or {}))
    pos, _ = new_game(config, load_edition(config.edition), random.Random(4), deal=False)
    session = TableSession(Game(pos, config, kind="table"))
    session.draws_on_dashboard = not reader     # what run sets for --rfid none
    session.real_table = True                   # and for any table game
    return session


def buying_table() -> TableSession:
    """A table game in which blue (placed this turn) can buy Amanita muscaria (a01) now."""
    pos = make_position(tiles={(3, 0): "P03", (2, 0): "P03"}, nutrients={"blue": {"pink": 1, "yellow": 1}},
                        taken=["place"], market={"a": ["a01", "a02", "a03"], "b": ["b01", "b02", "b03"]},
                        decks={"a": 9, "b": 9})
    session = TableSession(Game(pos, GameConfig(), kind="table"))
    session.real_table = True
    return session


def tablet(session: TableSession) -> Browser:
    b = Browser(create_app(session, pin=PIN))
    assert b.unlock().status_code == 200
    return b


def reveal(b: Browser, deck: str, card: str, **extra):
    return b.post("/api/move", {"move": {"player": "table", "action": "reveal", "deck": deck, "card": card}, **extra})


def test_an_empty_market_offers_each_decks_face_down_cards_and_the_setup_lists_it():
    session = real_table()
    b = tablet(session)
    state = b.get("/api/state").get_json()
    ed = session.edition
    assert {d: o["missing"] for d, o in state["reveal"].items()} == {"a": 3, "b": 3}
    assert [c["id"] for c in state["reveal"]["a"]["cards"]] == [c.id for c in ed.deck("a")]
    first = state["reveal"]["a"]["cards"][0]
    assert first["name"] and first["vp"] and first["mycelia"]["count"]      # what the market shows of a card
    assert [s["key"] for s in state["setup"]] == ["substrates", "market", "draw", "spores"]
    assert reveal(b, "a", "a02").status_code == 200
    state = b.get("/api/state").get_json()
    assert state["reveal"]["a"]["missing"] == 2
    assert "a02" not in [c["id"] for c in state["reveal"]["a"]["cards"]]    # face up: not offered again
    assert "deck A shows 1 of 3" in next(s["text"] for s in state["setup"] if s["key"] == "market")
    for deck in "ab":
        for card in [c["id"] for c in state["reveal"][deck]["cards"]][:3 if deck == "b" else 2]:
            assert reveal(b, deck, card).status_code == 200
    state = b.get("/api/state").get_json()
    assert state["reveal"] is None and "market" not in [s["key"] for s in state["setup"]]
    assert [len(v) for v in session.position.market.values()] == [3, 3]


@pytest.mark.parametrize("deck, card, code, says", [
    ("a", "b01", "card_not_in_deck", "is a card of deck B, not of deck A"),
    ("a", "a02", "card_not_in_deck", "is already face up in the market"),
    ("a", "a01", "card_not_in_deck", "was bought by blue: it is no longer in the deck"),
    ("b", "zz9", "card_unknown", "The edition has no card 'zz9'"),
])
def test_a_card_not_in_that_deck_or_already_out_is_refused_in_a_sentence(deck, card, code, says):
    session = buying_table()
    b = tablet(session)
    assert b.post("/api/buy", {"card": "a01"}).status_code == 200          # a01 now held, a02 still face up
    before = session.position.to_json()
    r = reveal(b, deck, card)
    assert r.status_code == 409 and r.get_json()["error"] == code
    assert says in r.get_json()["message"]
    assert session.position.to_json() == before


def test_a_full_row_or_an_empty_deck_is_refused():
    session = buying_table()
    b = tablet(session)
    r = reveal(b, "b", "b04")
    assert r.status_code == 409 and r.get_json()["message"] == "Deck B's row already shows 3 cards."
    empty = make_position(market={"a": ["a01"], "b": []}, decks={"a": 0, "b": 0})
    r = reveal(tablet(TableSession(Game(empty, GameConfig()))), "a", "a02")   # the rules refuse it anywhere
    assert r.status_code == 409 and "Deck A is empty: no card is left to turn up." == r.get_json()["message"]


def test_after_a_purchase_the_next_card_is_asked_for_and_a_wrong_one_is_taken_back_by_undo():
    session = buying_table()
    b = tablet(session)
    assert b.get("/api/state").get_json()["reveal"] is None
    assert b.post("/api/buy", {"card": "a01"}).status_code == 200
    state = b.get("/api/state").get_json()
    assert "turn up the next card of deck A" in state["log"][-1]["notes"]
    assert list(state["reveal"]) == ["a"] and state["reveal"]["a"]["missing"] == 1
    assert state["setup"] == []                                              # the game has started: no set-up banner
    assert reveal(b, "a", "a05", after=len(session.game.events)).status_code == 200
    wrong = b.get("/api/state").get_json()["log"][-1]
    assert wrong["text"] == f"{session.edition.cards['a05'].name} (a05) is turned face up on deck A"
    assert b.get("/api/state").get_json()["undo_allowed"]
    assert b.post("/api/undo", {"seq": wrong["seq"]}).status_code == 200
    assert "a05" not in session.position.market["a"] and session.position.decks["a"] == 9
    assert b.get("/api/state").get_json()["reveal"]["a"]["missing"] == 1
    r = reveal(b, "a", "a06", after=wrong["seq"])                            # a tablet that still showed the wrong card
    assert r.status_code == 409 and r.get_json()["error"] == "stale"


def test_the_market_is_turned_up_on_the_dashboard_only_at_a_real_table(shared_table):
    demo, _ = shared_table("cooperative", 3, 13)
    assert demo.state()["reveal"] is None and not demo.state()["real_table"]


def test_a_new_game_set_up_on_the_dashboard_of_a_real_table_deals_nothing():
    session = real_table()
    b = tablet(session)
    assert b.post("/api/new-game", {"players": ["red", "blue", "orange"], "mode": "competitive",
                                    "difficulty": "medium"}).status_code == 200
    pos = session.position
    assert pos.colors == ["red", "blue", "orange"] and pos.market == {"a": [], "b": []}
    assert all(pos.hands[c] == [] for c in pos.colors) and not pos.substrates and len(pos.pending_substrates) == 4
    assert {d: o["missing"] for d, o in session.state()["reveal"].items()} == {"a": 3, "b": 3}


def test_a_draw_tapped_in_is_taken_back_until_the_next_move():
    session = real_table()
    b = tablet(session)
    blue = session.position.colors[0]
    tile = session.state()["draw"]["tiles"][0]["code"]
    assert b.post("/api/move", {"move": {"player": blue, "action": "draw", "tile": tile}}).status_code == 200
    state = b.get("/api/state").get_json()
    assert state["undo_allowed"]
    r = b.post("/api/undo", {"seq": state["log"][-1]["seq"]})
    assert r.status_code == 200, r.get_json()
    assert session.position.hands[blue] == [] and session.position.bag == 48
    assert b.get("/api/state").get_json()["draw"]["player"] == blue          # the same player draws again


def test_a_replay_takes_back_a_tapped_draw_as_the_table_did():
    """``run --replay`` offers no draws (they come from the recording), but plays back the undo
    of a draw tapped in at a table without a reader."""
    table = real_table()
    session = TableSession(Game(table.position, GameConfig(), kind="replay"))
    blue = session.position.colors[0]
    assert session.submit({"player": blue, "action": "draw", "tile": "P03.G2"}, source="replay").legal
    session.undo(session.game.events[-1].seq)
    assert session.position.hands[blue] == []


def test_with_a_bag_reader_a_draw_stays_out_of_the_bag():
    session = real_table(reader=True)
    b = tablet(session)
    blue = session.position.colors[0]
    session.submit({"player": blue, "action": "draw", "tile": "P03.G2", "uid": "04A1B2C3"}, source="reader")
    state = b.get("/api/state").get_json()
    assert not state["undo_allowed"]
    r = b.post("/api/undo", {"seq": state["log"][-1]["seq"]})
    assert r.status_code == 409 and r.get_json()["error"] == "cannot_undo"
    session.draws_on_dashboard = True                 # the reader unplugged: its draws are still out of the bag
    assert b.post("/api/undo", {}).status_code == 409
    assert session.position.hands[blue] == ["P03.G2"]


def test_during_the_setup_the_rows_and_the_hint_speak_of_the_setup_not_of_turns_or_networks():
    session = real_table(options={"hints": True})
    state = session.state()
    blue, orange = state["players"]
    assert blue["open_actions"] == [] and blue["setup"] == "draw 3 tiles" and orange["setup"] == "draw 3 tiles"
    h = hint(session.position, session.edition)
    assert h.move is None and h.cards == [] and "network" not in h.reason
    assert h.reason.startswith("the set-up comes first: lay the substrate tokens: 2 wood and 2 soil (2.c)")
    for c in session.position.colors:                 # the hands drawn: the spores are what is left of the players' part
        for code in [t["code"] for t in session.state()["draw"]["tiles"] if t["code"] != "ROCK"][:3]:
            assert session.submit({"player": c, "action": "draw", "tile": code}).legal
    rows = {p["color"]: p["setup"] for p in session.state()["players"]}
    assert rows == {"blue": "place the spore after the substrate tokens", "orange": "place the spore after blue"}
    for kind in ("wood", "wood", "soil", "soil"):     # 2.c before 3: the tokens laid, the spores may come
        at = next(h for h in session.edition.substrate_tokens[kind]
                  if h not in session.position.substrates and h not in session.position.trees)
        assert session.submit({"player": "table", "action": "substrate", "kind": kind, "at": [at.q, at.r]}).legal
    rows = {p["color"]: p["setup"] for p in session.state()["players"]}
    assert rows == {"blue": "place the spore", "orange": "place the spore after blue"}
