"""``mycelium-companion sim-photo``: a simulated overhead photo of a position's board, which
``read-board`` reads back as that board; any art style and light; bad arguments are one
sentence and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from companion.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "positions" / "move-legal.json"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A position after a few turns of a bot game (tiles from the bag, spores, meeples,
    trees and substrates), as a file."""
    from companion.selfplay import BotTable
    from companion.setup import GameConfig
    table = BotTable(GameConfig(), seed=11, check_invariants=False)
    for _ in range(8):
        table.play_turn()
    path = tmp_path_factory.mktemp("pos") / "position.json"
    path.write_text(json.dumps(table.position.to_json()))
    return path, table.position


def tiles(doc_tiles) -> list:
    from companion.tiles import parse
    return sorted((tuple(t["at"]), parse(t["paths"]).code) for t in doc_tiles)


def test_a_reference_photo_reads_back_as_the_position(tmp_path, capsys, played):
    path, pos = played
    out, truth = tmp_path / "photo.png", tmp_path / "truth.json"
    assert main(["sim-photo", "--position", str(path), "--out", str(out), "--truth", str(truth)]) == 0
    said = capsys.readouterr().out
    assert f"read it with: mycelium-companion read-board {out}" in said
    assert cv2.imread(str(out)).shape == (1080, 1920, 3)
    board = pos.to_json()["board"]
    assert len(board["tiles"]) >= 4
    assert tiles(json.loads(truth.read_text())["board"]["tiles"]) == tiles(board["tiles"])
    assert main(["read-board", str(out), "--json"]) == 0
    read = json.loads(capsys.readouterr().out)["board"]
    assert tiles(read["tiles"]) == tiles(board["tiles"])
    assert {c: tuple(m) for c, m in read["meeples"].items()} == \
        {c: tuple(m) for c, m in board["meeples"].items() if m}


def test_a_styled_photo_under_another_light(tmp_path, capsys):
    ref, styled = tmp_path / "ref.png", tmp_path / "riso.jpg"
    common = ["--position", str(FIXTURE), "--size", "1280x720", "--seed", "3"]
    assert main(["sim-photo", *common, "--out", str(ref)]) == 0
    assert main(["sim-photo", *common, "--out", str(styled), "--style", "riso", "--light", "glare 45",
                 "--table", "cloth"]) == 0
    said = capsys.readouterr().out
    assert "style riso, light glare 45, table cloth, seed 3" in said and "--profile P" in said
    a, b = cv2.imread(str(ref)), cv2.imread(str(styled))
    assert a.shape == b.shape == (720, 1280, 3)
    assert cv2.absdiff(a, b).mean() > 10          # another copy of the game, not the reference art


@pytest.mark.parametrize("extra,said", [
    (["--size", "big"], "--size big: give width x height in px"),
    (["--out", "/no/such/folder/p.png"], "the folder /no/such/folder does not exist"),
    (["--out", "{tmp}/p.txt"], "sim-photo writes a PNG or a JPEG"),
    (["--light", "glare 90"], "--light draws a styled photo only"),
    (["--table", "cloth"], "--table draws a styled photo only"),
])
def test_bad_arguments_are_one_sentence(tmp_path, capsys, extra, said):
    extra = [e.replace("{tmp}", str(tmp_path)) for e in extra]
    argv = ["sim-photo", "--position", str(FIXTURE), "--out", str(tmp_path / "p.png"), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_malformed_position_names_the_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["sim-photo", "--position", str(bad), "--out", str(tmp_path / "p.png")]) == 2
    assert "bad.json" in capsys.readouterr().err
