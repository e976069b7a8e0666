"""Property tests: random games between bots keep every invariant, and legal-move generation
agrees with the move checker."""

import random
from concurrent.futures import ProcessPoolExecutor

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.movegen import legal_moves
from companion.rules import check
from companion.selfplay import BotTable, play_games
from companion.setup import GameConfig

TEAMS = {"blue": "1", "orange": "2", "red": "1", "black": "2"}


def config(mode: str, players: int) -> GameConfig:
    colors = ["blue", "orange", "red", "black"]
    if mode == "team":
        return GameConfig(players=colors, mode="team", teams=TEAMS)
    return GameConfig(players=colors[:players], mode=mode)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["competitive", "cooperative", "team"]), st.integers(2, 4),
       st.sampled_from(["easy", "medium", "hard"]))
def test_random_bot_games_keep_every_invariant(seed, mode, players, difficulty):
    cfg = config(mode, players)
    cfg.difficulty = difficulty
    table = BotTable(cfg, seed)   # checks tile, cube, card conservation and placement after every event
    pos = table.run()
    assert pos.result is not None and pos.result["reason"]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.integers(5, 60))
def test_generated_moves_are_exactly_the_legal_ones(seed, turns):
    table = BotTable(config("competitive", 2), seed)
    for _ in range(turns):
        if table.position.result is not None:
            break
        table.play_turn()
    pos = table.position
    if pos.result is not None:
        return
    moves = legal_moves(pos)
    for mv in moves:
        assert check(pos, mv).legal, mv
    # Every placement the generator leaves out is illegal.
    listed = {(m["tile"], tuple(m["at"]), m["rotation"]) for m in moves if m["action"] == "place"}
    rng = random.Random(seed)
    p = pos.active
    for code in pos.hands[p]:
        if code == "ROCK" or "place" in pos.taken:
            continue
        for _ in range(40):
            at = [rng.randint(-4, 4), rng.randint(-4, 4)]
            rot = rng.randint(0, 5)
            from companion.tiles import distinct_rotations, rotate_code
            k = next(k for k, c in distinct_rotations(code) if c == rotate_code(code, rot))
            legal = check(pos, {"player": p, "action": "place", "tile": code, "at": at, "rotation": rot}).legal
            assert legal == ((code, tuple(at), k) in listed)


def _batch(args):
    mode, seeds = args
    return [s.violations for s in play_games(mode, len(seeds), seeds[0])]


def test_a_thousand_bot_games_end_with_a_result_and_no_violation():
    batches = []
    for mode, start in (("competitive", 0), ("cooperative", 10_000), ("team", 20_000)):
        n = 334 if mode != "team" else 332
        for i in range(0, n, 50):
            batches.append((mode, list(range(start + i, start + min(n, i + 50)))))
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = [v for batch in pool.map(_batch, batches) for v in batch]
    assert len(results) == 1000
    assert [v for v in results if v] == []
