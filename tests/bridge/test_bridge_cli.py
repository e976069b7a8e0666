"""The ``rfid`` commands and the tag registry, as the owner uses them."""

from __future__ import annotations

import argparse
import json

import pytest

from firmware_bridge import cli
from firmware_bridge.errors import RegistryError
from firmware_bridge.registry import TagRegistry
from firmware_bridge.virtual import VirtualReader


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="mycelium-companion")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


def test_listen_prints_one_json_object_per_event(tmp_path, capsys):
    reg = TagRegistry(tmp_path / "tags.json")
    reg.add("13005D1DA5", "P03")
    reg.save()
    with VirtualReader("rdm6300") as dev:
        dev.schedule(0.4, lambda: dev.draw(bytes.fromhex("13005D1DA5")))
        dev.schedule(0.5, lambda: dev.draw(bytes.fromhex("0102030405")))
        code = run(["rfid", "listen", "--driver", "rdm6300", "--port", dev.port,
                    "--registry", str(tmp_path / "tags.json"), "--seconds", "1.2"])
    assert code == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    tags = [(x["event"], x["uid"], x["tile"]) for x in lines if "uid" in x]
    assert tags == [("tile_drawn", "13005D1DA5", "P03"), ("unknown_tag", "0102030405", None)]
    assert lines[0]["event"] == "reader_connected"


def test_enroll_counts_progress_refuses_duplicates_and_saves(tmp_path, capsys):
    path = tmp_path / "tags.json"
    with VirtualReader("companion", bootloader_s=(0.05, 0.2)) as dev:
        for i, uid in enumerate(["04000001", "04000002", "04000001", "04000003"]):
            dev.schedule(0.4 + 0.15 * i, lambda u=uid: dev.draw(bytes.fromhex(u)))
        code = run(["rfid", "enroll", "--port", dev.port, "--registry", str(path),
                    "--expect", "P03=2,ROCK=1", "--seconds", "5"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Still without a tag: P03 x2, ROCK x1" in out
    assert "04000001 -> P03   1 of 3" in out
    assert "refused: tag 04000001 is already enrolled as P03" in out
    assert "04000003 -> ROCK   3 of 3" in out
    assert TagRegistry(path).items() == [("04000001", "P03"), ("04000002", "P03"), ("04000003", "ROCK")]


def test_enroll_takes_counts_from_an_edition_tiles_file(tmp_path, capsys):
    tiles = tmp_path / "tiles.json"
    tiles.write_text(json.dumps({"tiles": [{"code": "G1.P03", "count": {"fuchsia": 1, "purple": 1}},
                                           {"code": "ROCK", "count": {"fuchsia": 1}}]}))
    with VirtualReader("companion", bootloader_s=(0.05, 0.2)) as dev:
        code = run(["rfid", "enroll", "--port", dev.port, "--registry", str(tmp_path / "t.json"),
                    "--tiles", str(tiles), "--seconds", "0.5"])
    out = capsys.readouterr().out
    assert code == 1  # nothing scanned in time
    assert "0 of 3" in out and "still without a tag: P03.G1 x2, ROCK x1" in out


def test_enroll_without_any_tile_list_says_what_to_do(tmp_path, capsys):
    code = run(["rfid", "enroll", "--tiles", str(tmp_path / "missing.json"), "--registry", str(tmp_path / "t.json")])
    assert code == 2
    assert "--expect" in capsys.readouterr().err


def test_registry_refuses_duplicates_and_bad_codes(tmp_path):
    reg = TagRegistry(tmp_path / "tags.json")
    assert reg.add("04:a1:b2:c3", "P03.G1") == "P03.G1"
    with pytest.raises(RegistryError, match="already enrolled as P03.G1"):
        reg.add("04A1B2C3", "ROCK")
    with pytest.raises(RegistryError):
        reg.add("04A1B2C4", "Q9")
    with pytest.raises(RegistryError):
        reg.add("xyz", "ROCK")
    assert len(reg) == 1


def test_registry_save_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "tags.json"
    reg = TagRegistry(path)
    reg.add("04A1B2C3", "ROCK")
    reg.save()
    before = path.read_bytes()
    reg.add("04A1B2C4", "P03")

    def boom(*a):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(RegistryError, match="cannot save tag registry .*disk full"):
        reg.save()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tags.json"]  # no temp file left


def test_corrupt_registry_file_is_a_clear_error(tmp_path):
    path = tmp_path / "tags.json"
    path.write_text('{"version": 1, "tags": {"04A1B2C3": "P9"}}')
    with pytest.raises(RegistryError, match="tags.json"):
        TagRegistry(path)


def test_listen_with_an_unusable_registry_exits_2(tmp_path, capsys):
    bad = tmp_path / "tags.json"
    bad.write_text("not json")
    assert run(["rfid", "listen", "--port", "/nonexistent", "--registry", str(bad), "--seconds", "0"]) == 2
    assert "cannot read tag registry" in capsys.readouterr().err
