"""The dashboard against a scripted attacker: PIN guessing from many addresses, a copied
unlocked cookie after Lock, DNS rebinding, hostile bodies, huge names, too many streams."""

from __future__ import annotations

import http.client
import json
import logging
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from web import create_app
from web.auth import TablePin
from webtools import PIN, Browser


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def test_the_whole_table_slows_down_a_guesser_with_many_addresses(app):
    clock = Clock()
    app.extensions["table_pin"] = TablePin(PIN, clock=clock)
    guesser = Browser(app)
    statuses = []
    for i in range(10):  # ten free wrong PINs, each from a new address
        r = guesser.post("/api/unlock", {"pin": f"{i:06d}"}, environ_base={"REMOTE_ADDR": f"10.0.0.{i}"})
        statuses.append(r.status_code)
    assert statuses == [403] * 10
    waits = []
    for i in range(10, 14):  # then every wrong PIN makes the whole table wait longer
        r = guesser.post("/api/unlock", {"pin": f"{i:06d}"}, environ_base={"REMOTE_ADDR": f"10.0.1.{i}"})
        assert r.status_code == 403
        r = guesser.post("/api/unlock", {"pin": f"{i:06d}"}, environ_base={"REMOTE_ADDR": f"10.0.2.{i}"})
        assert r.status_code == 429 and r.get_json()["error"] == "too_many_attempts_table"
        waits.append(int(r.headers["Retry-After"]))
        clock.t += waits[-1]
    assert waits == [1, 2, 4, 8]
    # even the right PIN from the table's own tablet waits while the table is slowed down
    r = guesser.post("/api/unlock", {"pin": "999999"}, environ_base={"REMOTE_ADDR": "10.0.3.1"})
    owner = Browser(app)
    r = owner.unlock()
    assert r.status_code == 429 and "every tablet waits 16 s" in r.get_json()["message"]
    clock.t += 16
    assert owner.unlock().status_code == 200
    # an hour later the table is forgiven
    clock.t += 3600
    for i in range(10):
        r = guesser.post("/api/unlock", {"pin": f"{i:06d}"}, environ_base={"REMOTE_ADDR": f"10.0.4.{i}"})
        assert r.status_code == 403


def test_a_guesser_gets_few_tries_an_hour():
    clock = Clock()
    pin = TablePin(PIN, clock=clock)
    tries, end = 0, clock.t + 3600
    while clock.t < end:
        try:
            pin.check("000000", f"10.9.{tries // 250}.{tries % 250}")
            tries += 1
        except Exception as e:
            clock.t += e.extra["retry_after"]
    assert tries <= 32, tries  # a million PINs: two years of guessing for even odds


def test_lock_ends_the_session_on_the_server_so_a_copied_cookie_is_locked_too(app):
    a = Browser(app)
    assert a.unlock().status_code == 200
    thief = Browser(app)
    thief.client.set_cookie("mycelium_table", a.client.get_cookie("mycelium_table").value)
    assert thief.post("/api/undo", {}, headers={"X-CSRF-Token": a.csrf}).status_code != 403  # the copy works...
    assert a.post("/api/lock", {}).get_json()["ended"] == 1
    r = thief.post("/api/undo", {}, headers={"X-CSRF-Token": a.csrf})
    assert r.status_code == 403 and r.get_json()["error"] == "pin_required"  # ...until Lock
    assert a.get("/api/state").get_json()["viewer"]["unlocked"] is False


def test_lock_everyone_ends_every_unlocked_tablet(app):
    tablets = [Browser(app) for _ in range(3)]
    for t in tablets:
        assert t.unlock().status_code == 200
    assert tablets[0].post("/api/lock", {"everyone": True}).get_json()["ended"] == 3
    for t in tablets:
        assert t.get("/api/state").get_json()["viewer"]["unlocked"] is False
        assert t.post("/api/end-turn", {}).status_code == 403


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "192.168.1.20.evil.example", "[::2]:80"])
def test_dns_rebinding_a_foreign_host_is_refused(app, host):
    app.config["SERVED_HOSTS"] = ["localhost", "127.0.0.1", "192.168.1.20", "mycelium.local"]
    b = Browser(app)
    b.unlock()
    origin = f"http://{host}"
    for r in (b.get("/api/state", headers={"Host": host}),
              b.get("/", headers={"Host": host}),
              b.post("/api/end-turn", {}, headers={"Host": host, "Origin": origin})):
        assert r.status_code == 400
    assert b.get("/api/state", headers={"Host": host}).get_json()["error"] == "unknown_host"


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1:8080", "192.168.1.20:8080", "MYCELIUM.local:8080"])
def test_the_served_names_are_answered(app, host):
    app.config["SERVED_HOSTS"] = ["localhost", "127.0.0.1", "192.168.1.20", "mycelium.local"]
    assert Browser(app).get("/api/state", headers={"Host": host}).status_code == 200


POSTS = ["unlock", "lock", "move", "buy", "give", "swap", "end-turn", "undo", "correct", "answer",
         "clear-illegal", "new-game"]


@pytest.mark.parametrize("path", POSTS)
@pytest.mark.parametrize("who", ["viewer", "unlocked"])
def test_deeply_nested_json_is_a_400_with_one_log_line(app, path, who, caplog):
    b = Browser(app)
    if who == "unlocked":
        b.unlock()
    for body in ("[" * 2000 + "]" * 2000, '{"a":' * 600 + "1" + "}" * 600, '{"pin": ' + "[" * 900 + "]" * 900 + "}"):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            r = b.client.post(f"/api/{path}", data=body, content_type="application/json",
                              headers={"X-CSRF-Token": b.csrf})
        # a viewer is refused the PIN-guarded inputs before the body is read
        want = 403 if who == "viewer" and path not in ("unlock", "lock") else 400
        assert r.status_code == want and r.is_json
        lines = [rec.getMessage() for rec in caplog.records]
        assert len(lines) == 1 and "\n" not in lines[0] and "Traceback" not in lines[0], lines


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["player", "move", "action", "tile", "at", "to", "card", "tiles", "nutrients", "give",
                         "take", "seq", "content", "kind", "paths", "id", "choice", "players", "mode", "teams",
                         "options", "pin", "everyone", "rotation", "difficulty", "spore_to", "refill"]) | st.text(max_size=5),
        inner, max_size=5),
    max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(POSTS), body=json_values)
def test_any_json_body_from_an_unlocked_tablet_is_answered_never_a_500(unlocked, session, path, body):
    if path == "new-game":
        return  # a valid one replaces the game: covered by the named-field tests
    r = unlocked.post(f"/api/{path}", body)
    assert r.status_code < 500, (path, body, r.get_json())
    assert r.is_json


def test_text_fields_are_length_limited(unlocked, session):
    game = session.game
    r = unlocked.post("/api/new-game", {"players": ["blue", "orange", "red", "black"], "mode": "team",
                                        "difficulty": "easy", "teams": {"blue": "x" * 3000, "orange": "2", "red": "x" * 3000, "black": "2"}})
    assert r.status_code == 400 and "at most" in r.get_json()["message"]
    r = unlocked.post("/api/new-game", {"players": ["blue", "orange", "red", "black"], "mode": "team",
                                        "difficulty": "easy", "teams": {"blue": "A" * 21, "orange": "B", "red": "A" * 21, "black": "B"}})
    assert r.status_code == 400 and "1 to 20" in r.get_json()["message"]
    r = unlocked.post("/api/correct", {"at": [0, 0], "content": {"kind": "tile", "paths": "P" * 500}})
    assert r.status_code == 400 and r.get_json()["error"] == "too_long"
    assert session.game is game


def read_sse(port, want_kind=None, timeout=5):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", "/api/events")
    resp = conn.getresponse()
    return conn, resp


def test_event_streams_are_capped_with_a_message_to_the_extra_client(session):
    from web.server import serve
    srv = serve(session, port=0, pin=PIN, announce=False, config={"SSE_MAX_STREAMS": 3, "SSE_KEEPALIVE_S": 0.2})
    try:
        held = [read_sse(srv.port) for _ in range(3)]
        for _, resp in held:
            assert resp.readline() == b"retry: 1000\n"
        conn, resp = read_sse(srv.port)
        assert resp.status == 200
        text = resp.read().decode()  # one message, then the stream ends
        assert "retry: 30000" in text
        msg = json.loads(text.split("data: ", 1)[1])
        assert msg["kind"] == "full" and "limit" in msg["data"]["message"]
        conn.close()
        assert srv.app.extensions["event_streams"].open == 3
        held[0][1].close()
        held[0][0].close()
        deadline = time.monotonic() + 5
        while srv.app.extensions["event_streams"].open > 2 and time.monotonic() < deadline:
            time.sleep(0.05)  # the server notices at its next keepalive
        conn, resp = read_sse(srv.port)
        assert resp.readline() == b"retry: 1000\n"  # a place was freed
        conn.close()
        for c, r in held[1:]:
            r.close()
            c.close()
    finally:
        srv.shutdown()
