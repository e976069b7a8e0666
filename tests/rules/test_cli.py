"""The rules commands as a user runs them: JSON out, exit codes, and clear errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "positions"
OTHER_SUBSTRATES = {(-1, -2): "wood", (-2, 2): "soil", (2, -3): "soil"}
"""With a wood token on the move's space, the rest of rulebook 5.a's 2 wood and 2 soil, out of the way."""


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, input=stdin, timeout=120)


def split(tmp_path, case_file):
    case = json.loads(case_file.read_text())
    p, m = tmp_path / "p.json", tmp_path / "m.json"
    p.write_text(json.dumps(case["position"]))
    m.write_text(json.dumps(case["move"]))
    return p, m, case["expect"]


@pytest.mark.parametrize("case_file", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.stem)
def test_check_move_agrees_with_every_worked_example(tmp_path, case_file):
    p, m, expect = split(tmp_path, case_file)
    r = run("check-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) == {"legal", "reason", "message"}
    assert out["legal"] == expect["legal"]
    assert (out["reason"] is None) if expect["legal"] else out["reason"] in expect["reason_any"]


def test_malformed_files_exit_2_naming_the_field(tmp_path):
    p, m, _ = split(tmp_path, FIXTURES / "move-legal.json")
    doc = json.loads(p.read_text())
    doc["board"]["tiles"][1]["at"] = [2]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    r = run("check-move", "--position", str(bad), "--move", str(m))
    assert r.returncode == 2 and "board.tiles[1].at" in r.stderr
    badm = tmp_path / "badm.json"
    badm.write_text(json.dumps({"player": "blue", "action": "place", "tile": "Q03", "at": [1, 0], "rotation": 0}))
    r = run("check-move", "--position", str(p), "--move", str(badm))
    assert r.returncode == 2 and "field tile" in r.stderr
    (tmp_path / "broken.json").write_text("{")
    r = run("check-move", "--position", str(tmp_path / "broken.json"), "--move", str(m))
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    r = run("check-move", "--position", str(tmp_path / "missing.json"), "--move", str(m))
    assert r.returncode == 2 and "missing.json" in r.stderr


def test_a_misspelt_or_missing_move_field_is_refused_not_defaulted(tmp_path):
    """A typo such as "rotaton" used to be ignored and the tile played at rotation 0."""
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    m = tmp_path / "m.json"
    m.write_text(json.dumps({"player": "blue", "action": "place", "tile": "P03", "at": [2, 0], "rotaton": 3}))
    r = run("check-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 2 and "rotaton" in r.stderr and "rotation" in r.stderr
    m.write_text(json.dumps({"player": "blue", "action": "place", "tile": "P03", "at": [2, 0]}))
    r = run("check-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 2 and "rotation" in r.stderr and "missing" in r.stderr
    m.write_text(json.dumps({"player": "blue", "action": "rock", "at": [2, 0], "tile": "P03"}))
    r = run("check-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 2 and "tile" in r.stderr and "rock move" in r.stderr


@pytest.mark.parametrize("choose,said", [
    ({"green": ["pink"]}, "field choose.green: green is not a player in this game (players: blue, orange)"),
    ({"blue": "white"}, "field choose.blue: must be a list of nutrient colours, one per cube"),
    ("white", "field choose: must list nutrient colours, one per cube"),
    (["pink", "mauve"], "field choose[1]: \"mauve\" is not a nutrient colour"),
])
def test_a_malformed_choose_is_refused_naming_the_field_not_ignored(tmp_path, choose, said):
    """{"green": [...]} for a colour nobody plays was ignored, and {"blue": "white"} taken as one cube."""
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    m = tmp_path / "m.json"
    m.write_text(json.dumps({"player": "blue", "action": "place", "tile": "P03", "at": [2, 0], "rotation": 0,
                             "choose": choose}))
    for command in ("check-move", "apply-move"):
        r = run(command, "--position", str(p), "--move", str(m))
        assert r.returncode == 2 and said in r.stderr and "Traceback" not in r.stderr, (command, r.stderr)


def test_a_space_may_be_given_by_its_label_as_every_output_names_it(tmp_path):
    """"to": "D8" was refused with "must be list, got str"; [q, r] still works."""
    from companion.edition import load_edition
    p, m, _ = split(tmp_path, FIXTURES / "move-legal.json")
    by_coords = json.loads(m.read_text())   # blue moves along pink to [1, 0]
    expect = json.loads(run("apply-move", "--position", str(p), "--move", str(m)).stdout)
    assert expect["legal"]
    label = load_edition().label(tuple(by_coords["to"]))
    m.write_text(json.dumps({**by_coords, "to": label.lower()}))
    r = run("apply-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == expect and label in " ".join(expect["notes"])
    m.write_text(json.dumps({**by_coords, "to": "Z9"}))
    r = run("check-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 2 and "field to: \"Z9\" is not a space of the board" in r.stderr, r.stderr


def test_legal_moves_lists_the_worked_legal_move(tmp_path):
    p, m, _ = split(tmp_path, FIXTURES / "move-legal.json")
    r = run("legal-moves", "--position", str(p))
    out = json.loads(r.stdout)
    assert json.loads(m.read_text()) in out["moves"] and out["count"] == len(out["moves"])


def test_afford_reports_shortfall_per_player_and_card(tmp_path):
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    doc = json.loads(p.read_text())
    doc["market"] = {"a": ["a01"], "b": ["b02"]}
    doc["nutrients"]["blue"] = {"pink": 1, "yellow": 1, "white": 0}
    p.write_text(json.dumps(doc))
    out = json.loads(run("afford", "--position", str(p)).stdout)["players"]
    assert out["blue"]["a01"]["can_buy"] is True
    assert out["orange"]["a01"]["can_buy"] is False and "needs" in out["orange"]["a01"]["shortfall"]
    assert "yellow network of 4 tiles" in out["blue"]["b02"]["shortfall"]


@pytest.mark.parametrize("mode", ["competitive", "cooperative", "team"])
def test_selfplay_summary(mode):
    r = run("selfplay", "--mode", mode, "--games", "3", "--seed", "4")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["games"] == 3 and sum(out["end_reasons"].values()) == 3 and out["violations"] == []
    assert out["turns"]["min"] > 5


def test_demo_fast_logs_a_whole_game_and_export_reads_it(tmp_path):
    db = tmp_path / "demo.sqlite3"
    r = run("demo", "--fast", "--no-web", "--db", str(db))   # the default game, as `make demo` plays it
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    assert summary["result"]["reason"] and summary["events"] > 50
    # The simulated players buy mushroom cards (6) and a player wins before the bag is empty (8).
    assert summary["cards_bought"] >= 1 and summary["ended"] == "victory", summary["result"]
    # README: "now and then a bot makes an illegal placement on purpose and the companion catches it"
    assert summary["illegal_injected"] >= 1 and summary["illegal_caught"] == summary["illegal_injected"], summary
    out = tmp_path / "game.json"
    r = run("export", "--db", str(db), "--out", str(out))
    exported = json.loads(out.read_text())
    assert len(exported["events"]) == summary["events"] and exported["position"]["result"] == summary["result"]
    assert summary["removals"] == sum(e["move"]["action"] == "remove" for e in exported["events"])


@pytest.mark.parametrize("patch,field", [
    ({"result": "over"}, "result"),
    ({"decks": ["a"]}, "decks"),
    ({"pending": "x"}, "pending"),
    ({"turn": {"taken": [], "number": "x"}}, "turn.number"),
    ({"turn": None}, "turn"),
    ({"edition": 5}, "edition"),
    ({"missions": ["foo"]}, "missions"),
    ({"options": {"rock_on_own_spores": False}}, "options"),
    ({"options": {"rock_on_own_spore": "no"}}, "options.rock_on_own_spore"),
    ({"options": {"max_purchases_per_turn": 0}}, "options.max_purchases_per_turn"),
    ({"board": {"spores": {"blue": [4, 0]}}}, "board.spores.blue"),
    ({"board": {"meeples": "x"}}, "board.meeples"),
    ({"board": {"tiles": [{"at": [9, 0], "paths": "P03"}]}}, "board.tiles"),
    ({"board": {"meeples": {"blue": [0, 0]}}}, "board.meeples.blue"),
    ({"board": {"spores": {"blue": {"at": [0, 0], "used": False}}, "meeples": {"blue": [0, 0]}}}, "board.spores.blue.at"),
    ({"hands": {"blue": ["P03", "P03", "P03", "P03"]}}, "hands.blue"),
    ({"nutrients": {"blue": {"pink": 9}}}, "nutrients.blue"),
    ({"market": {"a": ["a01", "a01"], "b": []}}, "market.a"),
    ({"market": {"a": ["zz9"], "b": []}}, "market.a"),
    ({"mode": "cooperative", "difficulty": None}, "difficulty"),
    ({"market": {"a": ["a01", "a02", "a03", "a04"], "b": []}}, "market.a"),
    ({"market": {"a": [], "b": [], "c": []}}, "market.c"),
    ({"bag": 1000}, "bag"),
    ({"board": {"rocks": [[0, 0], [1, 1], [2, 2], [-1, -1], [-3, 1]]}}, "board.rocks"),
    ({"nutrients": {"blue": {"pink": 8}, "orange": {"pink": 8}}}, "nutrients"),
    ({"board": {"spores": {"blue": {"at": [-4, 1], "used": False}, "orange": {"at": [-4, 0], "used": False}},
                "meeples": {"blue": [-4, 1], "orange": [-4, 0]}}}, "board.spores.orange.at"),
    ({"hands": {"green": []}}, "hands.green"),
    ({"turn": {"taken": ["place", "place"]}}, "turn.taken"),
    ({"turn": {"taken": ["spore", "place"]}}, "turn.taken"),
    ({"board": {"meeples": {"blue": None, "orange": [-4, 0]}}}, "board.meeples.blue"),
    ({"players": [{"color": "blue", "team": "1"}, {"color": "orange", "team": None}]}, "players[0].team"),
    ({"result": {"winners": ["green"], "reason": "x"}}, "result.winners"),
    ({"decks": {"a": 100, "b": 0}}, "decks.a"),
    ({"optoins": {"spore_redraw": True}}, "optoins"),   # a misspelt top-level field is not dropped
    # Components: 32 mycorrhiza markers, 8 per colour; 9 orange ones on the trees cannot be.
    ({"board": {"trees": [{"at": [-2, 0], "mycorrhizae": ["orange"] * 4}, {"at": [2, -2], "mycorrhizae": ["orange"] * 4},
                          {"at": [-1, 2], "mycorrhizae": ["orange", None, None, None]}]}}, "board.trees: orange has 9"),
])
def test_impossible_or_malformed_positions_exit_2_naming_the_field(tmp_path, patch, field):
    p, m, _ = split(tmp_path, FIXTURES / "move-legal.json")
    doc = json.loads(p.read_text())
    for k, v in patch.items():
        if k == "board":
            doc["board"].update(v)
        elif k in ("hands", "nutrients") and isinstance(v, dict):
            doc[k].update(v)
        else:
            doc[k] = v
    p.write_text(json.dumps(doc))
    r = run("check-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert f"field {field}" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("color", ["purple", "Orange", ""])
def test_a_player_colour_that_is_no_meeple_of_the_edition_is_refused_naming_the_player(tmp_path, color):
    # only players[1].color changes: the player is blamed, not the spore that colour owns
    p, m, _ = split(tmp_path, FIXTURES / "move-legal.json")
    doc = json.loads(p.read_text())
    assert doc["players"][1]["color"] == "orange" and "orange" in doc["board"]["spores"]
    doc["players"][1]["color"] = color
    p.write_text(json.dumps(doc))
    r = run("check-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert f"field players[1].color: {color!r} is not a meeple colour" in r.stderr
    assert "(blue, orange, red, black)" in r.stderr


@pytest.mark.parametrize("command", ["show", "sim-photo"])
def test_every_position_command_refuses_an_unknown_player_colour(tmp_path, command):
    # sed 's/orange/purple/g' P.json: show used to key it as "P purple" (P is pink), sim-photo to crash
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    p.write_text(p.read_text().replace("orange", "purple"))
    extra = ["--out", str(tmp_path / "photo.png")] if command == "sim-photo" else []
    r = run(command, "--position", str(p), *extra)
    assert r.returncode == 2 and "Traceback" not in r.stderr, (r.stdout, r.stderr)
    assert "field players[1].color: 'purple' is not a meeple colour of the edition" in r.stderr
    assert not (tmp_path / "photo.png").exists()


def test_sim_photo_writes_png_or_jpeg_only(tmp_path):
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    r = run("sim-photo", "--position", str(p), "--out", str(tmp_path / "x.gif"))
    assert r.returncode == 2 and "--out" in r.stderr and ".png" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "x.gif").exists()


@pytest.mark.parametrize("command", ["legal-moves", "hint"])
def test_a_misspelt_top_level_field_is_refused_by_every_position_command(tmp_path, command):
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    doc = json.loads(p.read_text())
    doc["optoins"] = doc.pop("options", {})
    p.write_text(json.dumps(doc))
    r = run(command, "--position", str(p))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "field optoins: unknown field" in r.stderr and "options" in r.stderr


def test_legal_moves_after_a_purchase_are_only_what_the_rules_allow(tmp_path):
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    doc = json.loads(p.read_text())
    doc["turn"]["taken"] = ["place", "buy"]
    doc["hands"]["blue"] = ["P03", "Y03"]
    doc["bag"] = 40
    p.write_text(json.dumps(doc))
    out = json.loads(run("legal-moves", "--position", str(p)).stdout)
    assert {m["action"] for m in out["moves"]} <= {"end_turn", "buy", "swap"}


def test_run_refuses_inconsistent_arguments_before_touching_anything(tmp_path):
    db = tmp_path / "g.sqlite3"
    cases = [
        (["--game", "x"], "--resume"),
        (["--resume", "--db", ":memory:"], "keeps none"),
        (["--resume", "--db", str(tmp_path / "none.sqlite3")], "no game log"),
        (["--rfid", str(tmp_path / "nope")], "--rfid"),
        (["--players", "2", "--colors", "blue,orange,red"], "--colors"),
        (["--rfid", "none"], "no draw could be entered"),    # with --no-web: no reader, no dashboard
    ]
    for extra, expect in cases:
        r = run("run", "--camera", str(tmp_path), "--no-web", *extra)
        assert r.returncode == 2 and expect in r.stderr, (extra, r.stderr)
    assert not db.exists() and not (tmp_path / "none.sqlite3").exists()


def test_apply_move_plays_and_says_what_happened_in_words(tmp_path):
    # Rulebook 5.a: degrading a wood substrate gives 2 pink cubes; the notes say so.
    from builders import make_position
    pos = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood", **OTHER_SUBSTRATES}, meeples={"blue": (3, 0), "orange": (-4, 0)})
    p, m, out = tmp_path / "p.json", tmp_path / "m.json", tmp_path / "p2.json"
    p.write_text(json.dumps(pos.to_json()))
    m.write_text(json.dumps({"player": "blue", "action": "place", "tile": "P03", "at": [2, 0], "rotation": 0}))
    r = run("apply-move", "--position", str(p), "--move", str(m), "--out", str(out))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert "blue gains 2 pink (wood substrate degraded)" in doc["notes"]
    after = json.loads(out.read_text())
    assert after["nutrients"]["blue"]["pink"] == 2
    # The new position chains: playing the same move again is refused with its reason, exit 1.
    r = run("apply-move", "--position", str(out), "--move", str(m))
    assert r.returncode == 1 and json.loads(r.stdout)["reason"] in ("action_already_taken", "tile_not_in_hand")


def test_hint_prints_the_suggestion_and_the_card_plans(tmp_path):
    from builders import make_position
    pos = make_position(tiles={(3, 0): "P03"}, substrates={(2, 0): "wood", **OTHER_SUBSTRATES}, meeples={"blue": (3, 0), "orange": (-4, 0)},
                        market={"a": ["a01"], "b": []}, decks={"a": 5, "b": 5})
    p = tmp_path / "p.json"
    p.write_text(json.dumps(pos.to_json()))
    r = run("hint", "--position", str(p), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["player"] == "blue" and doc["move"]["player"] == "blue" and doc["reason"]
    assert [c["card"] for c in doc["cards"]] == ["a01"]
    r = run("hint", "--position", str(p))
    assert r.returncode == 0 and "Amanita" in r.stdout
    over = pos.to_json()
    over["result"] = {"winners": ["blue"], "reason": "blue reached 10 victory points", "scores": {"blue": 10, "orange": 3}}
    p.write_text(json.dumps(over))
    r = run("hint", "--position", str(p))   # a finished game gets no advice
    assert r.returncode == 1 and r.stdout == "" and "the game is over: blue reached 10 victory points" in r.stderr


def test_binary_inputs_and_unwritable_outputs_are_one_line_errors(tmp_path):
    """A position that is not text, and an --out that cannot be written: exit 2, one sentence,
    no traceback."""
    junk = tmp_path / "junk.json"
    junk.write_bytes(b"\xff\xfe\x00\x81 not a position")
    r = run("show", "--position", str(junk))
    assert r.returncode == 2 and "not UTF-8 text" in r.stderr and "Traceback" not in r.stderr
    p, m, _ = split(tmp_path, FIXTURES / "move-legal.json")
    r = run("apply-move", "--position", str(p), "--move", str(m), "--out", str(tmp_path / "no" / "dir" / "p2.json"))
    assert r.returncode == 2 and "cannot write" in r.stderr and "Traceback" not in r.stderr


def test_a_space_off_the_board_is_named_like_every_other_space(tmp_path):
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    m = tmp_path / "m.json"
    m.write_text(json.dumps({"player": "blue", "action": "place", "tile": "P03", "at": [9, 9], "rotation": 0}))
    out = json.loads(run("check-move", "--position", str(p), "--move", str(m)).stdout)
    assert out["reason"] == "off_board" and out["message"] == "(9,9) is off the board."


def test_a_board_reading_given_as_a_position_is_named_as_such(tmp_path):
    # read-board --json prints a reading whose "board" goes into a position; given whole, the
    # refusal says so instead of naming its "confidence" field as a misspelling
    p, m, _ = split(tmp_path, FIXTURES / "move-legal.json")
    board = json.loads(p.read_text())["board"]
    reading = tmp_path / "reading.json"
    reading.write_text(json.dumps({"board": board, "confidence": {"0,0": 0.9}, "unreadable": {},
                                   "side_unknown": {}, "unsure": [], "registration": {}}))
    r = run("check-move", "--position", str(reading), "--move", str(m))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "board reading ('read-board --json'), not a position" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_position_without_decks_still_has_cards_to_turn_up(tmp_path):
    # "decks" is optional: left out, the face-down cards are the edition's deck less those face
    # up and held, so the market can be refilled after a purchase (2.d, 6)
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    doc = json.loads(p.read_text())
    doc.pop("decks", None)
    doc["market"] = {"a": ["a01"], "b": []}
    p.write_text(json.dumps(doc))
    from companion.edition import load_edition
    free = next(c.id for c in load_edition().deck("a") if c.id != "a01")
    m = tmp_path / "reveal.json"
    m.write_text(json.dumps({"player": "table", "action": "reveal", "deck": "a", "card": free}))
    r = run("check-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 0 and json.loads(r.stdout)["legal"] is True, (r.stdout, r.stderr)


def test_the_hint_puts_a_displaced_spore_back_first(tmp_path):
    # 4.a.2 "On another player's Spore. The affected player must relocate the spore": with blue's
    # spore pushed off by a rock, the hint is the relocation, not a discard
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    doc = json.loads(p.read_text())
    doc["board"]["rocks"] = doc["board"].get("rocks", []) + [[4, 0]]
    doc["board"]["spores"]["blue"]["at"] = None
    doc["board"]["meeples"]["blue"] = None
    doc["bag"] -= 1                      # the rock came out of the bag
    p.write_text(json.dumps(doc))
    r = run("hint", "--position", str(p), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["move"]["action"] == "relocate" and "put it back first" in out["reason"]
    m = tmp_path / "relocate.json"
    m.write_text(json.dumps(out["move"]))
    assert json.loads(run("check-move", "--position", str(p), "--move", str(m)).stdout)["legal"] is True


def test_a_position_file_without_two_substrates_of_each_colour_is_refused(tmp_path):
    # 5.a "There must always be 2 Substrates of each color on the board": a file with 1 wood and
    # no soil is refused naming the count; a soil token waiting for its replacement counts
    p, m, _ = split(tmp_path, FIXTURES / "move-legal.json")
    doc = json.loads(p.read_text())
    laid = doc["board"]["substrates"]
    doc["board"]["substrates"] = [s for s in laid if s["kind"] == "wood"][:1]
    p.write_text(json.dumps(doc))
    r = run("check-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 2 and "board.substrates" in r.stderr, (r.stdout, r.stderr)
    assert "1 wood substrate on the board, 2 expected" in r.stderr and "5.a" in r.stderr, r.stderr
    doc["board"]["substrates"] = [s for s in laid if s["at"] != [2, -3]]
    doc["pending"] = {"substrates": ["soil"]}
    p.write_text(json.dumps(doc))
    r = run("check-move", "--position", str(p), "--move", str(m))
    assert r.returncode == 0 and json.loads(r.stdout)["legal"] is True, (r.stdout, r.stderr)


@pytest.mark.parametrize("argv,said", [
    (["selfplay", "--games", "1", "--seed", "-3"], "argument --seed: must be 0 or more, got -3"),
    (["selfplay", "--games", "0"], "argument --games: must be 1 or more, got 0"),
    (["sim-photo", "--position", "P", "--out", "p.png", "--seed", "-5"], "argument --seed: must be 0 or more, got -5"),
    (["sim-calibration", "--style", "bands", "--out", "cal", "--seed", "-1"], "argument --seed: must be 0 or more, got -1"),
    (["demo", "--fast", "--seed", "x"], "argument --seed: 'x' is not a whole number"),
])
def test_a_negative_seed_or_count_is_refused_by_every_command(argv, said, capsys):
    # selfplay played games from a negative seed; the sim commands checked theirs after parsing
    from companion.cli import main
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and said in capsys.readouterr().err


def test_legal_moves_say_the_substrate_token_due_and_offer_no_end_of_turn(tmp_path):
    p, _, _ = split(tmp_path, FIXTURES / "move-legal.json")
    doc = json.loads(p.read_text())
    doc["turn"]["taken"] = ["place"]
    wood = next(s for s in doc["board"]["substrates"] if s["kind"] == "wood")
    doc["board"]["substrates"].remove(wood)      # degraded this turn (5.a)
    doc["pending"] = {"substrates": ["wood"], "vacated": [wood]}
    p.write_text(json.dumps(doc))
    out = json.loads(run("legal-moves", "--position", str(p)).stdout)
    assert "end_turn" not in {m["action"] for m in out["moves"]}
    assert out["substrate_due"].startswith("Lay the wood substrate token drawn to replace the one at ")
    doc["board"]["substrates"].append(wood)
    doc["pending"] = {"substrates": []}
    p.write_text(json.dumps(doc))
    out = json.loads(run("legal-moves", "--position", str(p)).stdout)
    assert "end_turn" in {m["action"] for m in out["moves"]} and "substrate_due" not in out
