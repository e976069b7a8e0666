"""Undo names the move it takes back: a double tap or a second tablet cannot undo two moves;
fixes of misread spaces reach the dashboard's log."""

from companion.movegen import legal_moves


def _play_one(session):
    """Commit one legal move that is not a bag draw (those cannot be undone); its number."""
    mv = next(m for m in legal_moves(session.position, session.edition) if m["action"] != "draw")
    assert session.submit(mv, source="dashboard").legal
    return session.game.events[-1].seq


def _last_undoable(session):
    if session.game.events[-1].move["action"] == "draw":
        return _play_one(session)
    return session.game.events[-1].seq


def test_a_double_tap_undoes_one_move_and_the_second_is_refused_as_stale(unlocked, session):
    n = _last_undoable(session)
    shown = unlocked.get("/api/state").get_json()["log"][-1]
    assert shown["seq"] == n
    r = unlocked.post("/api/undo", {"seq": n})
    assert r.status_code == 200 and r.get_json()["undone"]["seq"] == n
    r = unlocked.post("/api/undo", {"seq": n})                    # the second tap of a double tap
    assert r.status_code == 409 and r.get_json()["error"] == "stale_undo"
    assert f"move {n} is no longer the last move" in r.get_json()["message"]
    assert len(session.game.events) == n - 1
    rows = session.game.log.events(session.game.game_id) if session.game.log else None
    assert rows is None or rows[-1][2]["undoes"] == n


def test_an_undo_after_another_tablet_played_is_refused(unlocked, session):
    n = _last_undoable(session)
    _play_one(session)                                            # another tablet plays a move
    r = unlocked.post("/api/undo", {"seq": n})                    # the page still showed move n
    assert r.status_code == 409 and r.get_json()["error"] == "stale_undo"
    assert len(session.game.events) == n + 1
    assert unlocked.post("/api/undo", {"seq": "last"}).status_code == 400


def test_fixes_show_in_the_dashboards_log(unlocked, session):
    r = unlocked.post("/api/correct", {"at": [0, 0], "content": {"kind": "rock"}})
    assert r.status_code == 200
    state = unlocked.get("/api/state").get_json()
    assert state["fixes"][-1] == {"after": len(session.game.events), "text": "E5 set by hand: a rock", "at": [0, 0]}
