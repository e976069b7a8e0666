"""What a new user reads: the text board's legend, the reader's status at the end of a game,
the rfid commands' error lines, an image path that is a folder."""

from __future__ import annotations

import io
import random

from test_game_log_cli import cli

from companion.edition import load_edition
from companion.setup import GameConfig, new_game
from companion.table.console import ConsoleLog
from companion.table.live import LiveTable
from companion.table.session import TableSession
from companion.textboard import cell, legend


def four_players():
    """A four-player position with blue's and black's spores on the board."""
    from companion.position import Position
    config = GameConfig(players=["blue", "orange", "red", "black"])
    pos, _ = new_game(config, load_edition(config.edition), random.Random(3))
    doc = pos.to_json()
    doc["board"]["spores"] = {"blue": {"at": [4, -4], "used": False}, "black": {"at": [-4, 4], "used": True}}
    doc["board"]["meeples"].update(blue=[4, -4], black=[-4, 4])     # each meeple on its spore
    return Position.from_json(doc)


def test_the_text_board_has_a_legend_and_tells_blue_from_black():
    pos = four_players()
    key = legend(pos)
    assert "PYG tile with pink, yellow, green paths" in key and "# rock" in key and "T2 tree with 2 mycorrhizae" in key
    assert "players B blue, O orange, R red, K black" in key and "E5: row E, 5th space" in key
    from companion.hexgrid import Hex
    assert cell(pos, Hex(-4, 4)) == "Kx:k" and cell(pos, Hex(4, -4)) == "Bs:b"


def test_show_prints_the_legend_under_the_board(tmp_path):
    import json
    path = tmp_path / "p.json"
    path.write_text(json.dumps(four_players().to_json()))
    r = cli("show", "--position", path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[9].startswith("key: ") and lines[0].startswith(" A ")


def test_the_reader_closed_at_the_end_of_a_game_is_not_called_disconnected():
    session = TableSession.start(GameConfig(), None, seed=1)
    out = io.StringIO()
    session.bus.subscribe(ConsoleLog(session, out=out))
    live = LiveTable(session)
    live.on_reader_event({"event": "reader_disconnected", "port": "/dev/pts/3", "reason": "stopped"})
    live.on_reader_event({"event": "reader_disconnected", "port": "/dev/pts/3", "reason": "io error: unplugged"})
    assert out.getvalue().splitlines() == ["[reader] closed", "[reader] disconnected: io error: unplugged"]


def test_rfid_errors_start_like_every_other_command(tmp_path):
    r = cli("rfid", "listen", "--port", tmp_path / "nothing", "--seconds", "0.1")
    assert r.returncode == 2
    assert r.stderr.startswith("mycelium-companion rfid: no serial port at ") and "error:" not in r.stderr
    r = cli("rfid", "enroll", "--expect", "P03=x", "--seconds", "0.1")
    assert r.returncode == 2 and r.stderr.startswith("mycelium-companion rfid: --expect item")


def test_an_image_path_that_is_a_folder_is_named_a_folder(tmp_path):
    r = cli("read-board", tmp_path)
    assert r.returncode == 2 and "this is a folder; give an image file" in r.stderr and "no such file" not in r.stderr
    r = cli("export", "--db", tmp_path)
    assert r.returncode == 2 and f"{tmp_path} is a folder; give the game log file in it" in r.stderr
