"""The real server on a loopback port: the event stream, resuming after a dropped connection,
the start-up banner, shutdown, the pages and their local assets, the serve command."""

from __future__ import annotations

import argparse
import http.client
import io
import json
import re
import socket
import time

import pytest

from companion.cli import main
from companion.table.bus import EventBus
from companion.table.session import TableSession
from web.demo import DemoDriver, demo_config, demo_session
from web.server import port_number, serve
from webtools import PIN, play_turns


class SSEClient:
    """A minimal server-sent-events reader over http.client."""

    def __init__(self, port: int, last_event_id: int | None = None, query: str = ""):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.conn.request("GET", "/api/events" + query, headers=headers)
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200
        assert self.resp.getheader("Content-Type").startswith("text/event-stream")

    def messages(self, n: int, timeout: float = 5.0) -> list[dict]:
        out, cur = [], {}
        deadline = time.monotonic() + timeout
        while len(out) < n and time.monotonic() < deadline:
            line = self.resp.fp.readline().decode().rstrip("\n")
            if line.startswith("id: "):
                cur["id"] = int(line[4:])
            elif line.startswith("data: "):
                cur.update(json.loads(line[6:]))
            elif line == "" and "id" in cur:
                out.append(cur)
                cur = {}
        return out

    def close(self):
        self.conn.close()


def test_moves_arrive_on_the_event_stream(server, session):
    client = SSEClient(server.port)
    n = len(session.game.events)
    table = play_turns(session, 0)
    table.play_turn()
    msgs = client.messages(2)
    client.close()
    assert [m["kind"] for m in msgs] == ["move", "move"]
    assert msgs[0]["data"]["event"] == session.game.events[n].to_json()
    assert msgs[1]["id"] == msgs[0]["id"] + 1


def test_a_dropped_connection_resumes_with_last_event_id(server, session):
    client = SSEClient(server.port)
    session.set_status("camera", "ok")
    first = client.messages(1)[0]
    client.close()  # the tablet's Wi-Fi drops...
    session.set_status("reader", "connected")
    session.set_status("camera", "stalled")
    again = SSEClient(server.port, last_event_id=first["id"])  # ...and the browser reconnects
    msgs = again.messages(2)
    again.close()
    assert [(m["data"]["device"], m["data"]["status"]) for m in msgs] == [("reader", "connected"), ("camera", "stalled")]
    assert [m["id"] for m in msgs] == [first["id"] + 1, first["id"] + 2]


def test_a_client_too_far_behind_is_told_to_reload():
    s = TableSession.start(demo_config("competitive", 2), None, seed=1, bus=EventBus(history=5))
    for i in range(10):
        s.set_status("camera", f"s{i}")
    srv = serve(s, port=0, pin=PIN, announce=False)
    try:
        client = SSEClient(srv.port, last_event_id=1)
        msgs = client.messages(2)
        client.close()
    finally:
        srv.shutdown()
    assert msgs[0]["kind"] == "reset"
    assert msgs[1]["data"]["status"] == "s5"


def test_bad_last_event_id_is_refused(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/api/events", headers={"Last-Event-ID": "yesterday"})
    r = conn.getresponse()
    assert r.status == 400 and "Last-Event-ID" in json.loads(r.read())["message"]
    conn.close()


def _has_qr(text: str) -> bool:
    return "█" in text or "▀" in text or "▄" in text  # the QR code in block characters


def test_banner_prints_url_qr_and_pin(session):
    from web.lan import Address
    out = io.StringIO()
    srv = serve(session, host="0.0.0.0", port=0, pin="246813", out=out, mdns=False,
                addresses=[Address("wlan0", "192.168.1.20")], default_iface="wlan0")
    try:
        text = out.getvalue()
    finally:
        srv.shutdown()
    assert f"Dashboard: http://192.168.1.20:{srv.port}/" in text
    assert "Table PIN: 246813" in text
    assert _has_qr(text)


def test_a_loopback_banner_says_tablets_cannot_join_and_draws_no_qr_code(session):
    # a phone scanning a QR code of 127.0.0.1 would open itself, not the table
    out = io.StringIO()
    srv = serve(session, port=0, pin="246813", out=out)
    try:
        text = out.getvalue()
    finally:
        srv.shutdown()
    assert f"http://127.0.0.1:{srv.port}/ (this computer only" in text and "--host 0.0.0.0" in text
    assert "Table PIN: 246813" in text
    assert not _has_qr(text)


def test_shutdown_ends_streams_and_frees_the_port(session):
    srv = serve(session, port=0, pin=PIN, announce=False)
    client = SSEClient(srv.port)
    t0 = time.monotonic()
    srv.shutdown()
    assert time.monotonic() - t0 < 3
    client.resp.fp.readline()  # the stream ends instead of hanging
    client.close()
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", srv.port)) != 0


def test_binds_loopback_by_default(session):
    srv = serve(session, port=0, pin=PIN, announce=False)
    try:
        assert srv.host == "127.0.0.1" and srv.url == f"http://127.0.0.1:{srv.port}/"
    finally:
        srv.shutdown()


def test_start_page_shows_the_qr_code_and_uses_only_local_assets(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/")
    page = conn.getresponse().read().decode()
    assert "<svg" in page and server.url in page
    refs = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert refs and all(r.startswith("/") for r in refs), refs
    for ref in refs:
        conn.request("GET", ref)
        r = conn.getresponse()
        body = r.read().decode()
        assert r.status == 200, ref
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", body), f"{ref} reaches outside"
    conn.request("GET", "/qr.svg")
    r = conn.getresponse()
    assert r.getheader("Content-Type").startswith("image/svg+xml") and b"<svg" in r.read()
    conn.request("GET", "/join")
    assert server.url in conn.getresponse().read().decode()
    conn.close()


def test_demo_driver_plays_into_the_session():
    s = demo_session("cooperative", 2, seed=4)
    d = DemoDriver(s, seed=4, pace=0.0, show_illegal=0.0).start()
    deadline = time.monotonic() + 10
    while len(s.game.events) < 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    d.stop()
    n = len(s.game.events)
    assert n >= 20
    time.sleep(0.2)
    assert len(s.game.events) == n  # stopped


def test_demo_driver_follows_a_new_game_from_the_wizard():
    s = demo_session("competitive", 2, seed=4)
    d = DemoDriver(s, seed=4, pace=0.01, show_illegal=0.0).start()
    time.sleep(0.3)
    s.new_game(demo_config("cooperative", 3), None, seed=9)
    deadline = time.monotonic() + 10
    while len(s.game.events) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    d.stop()
    assert s.position.mode == "cooperative" and len(s.game.events) >= 5


def test_serve_command_help_and_bad_pin(capsys):
    with pytest.raises(SystemExit) as e:
        main(["serve", "--help"])
    assert e.value.code == 0
    assert "--host" in capsys.readouterr().out
    assert main(["serve", "--pin", "1234", "--port", "0", "--db", ":memory:"]) == 2
    assert "6 to 8 digits" in capsys.readouterr().err


def test_a_busy_port_raises_oserror_instead_of_exiting(session):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(OSError):
            serve(session, port=port, pin=PIN, announce=False)


@pytest.mark.parametrize("port", [65536, 99999, -5])
def test_a_port_out_of_range_raises_oserror(session, port):
    with pytest.raises(OSError, match="0 to 65535"):
        serve(session, port=port, pin=PIN, announce=False)


def test_a_port_is_free_again_for_a_restart(session):
    srv = serve(session, port=0, pin=PIN, announce=False)
    client = SSEClient(srv.port)
    srv.shutdown()
    client.close()
    again = serve(session, port=srv.port, pin=PIN, announce=False)  # the power came back
    again.shutdown()
    assert again.port == srv.port


def test_port_number_is_an_argparse_type():
    assert port_number("0") == 0 and port_number("8080") == 8080 and port_number("65535") == 65535
    for bad in ("65536", "99999", "-5", "http", "80.5", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="port"):
            port_number(bad)


def test_serve_command_refuses_bad_and_busy_ports(capsys):
    for bad in ("99999", "-5"):
        with pytest.raises(SystemExit) as e:
            main(["serve", "--port", bad, "--db", ":memory:"])
        assert e.value.code == 2
        assert "0 to 65535" in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", ":memory:", "--no-qr"]) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and "in use" in err and "--port" in err
    assert "--no-web" not in err  # serve has no such option
