"""Build positions for tests in one line, through the JSON parser."""

from __future__ import annotations

from typing import Any

from companion.position import Position

SIX_TILE_TREES = ((-1, 0), (1, -1), (0, 1), (2, 0))
"""Four tree spaces whose smallest Forest Communication network (7.c) takes 6 tiles, two of
them three-way; on an empty board the planner's blueprint has an arm tile on (2, -1) with
green on edges 3 and 4.  Tests of the cooperative bots and the planner lay their positions
around these spaces rather than the edition's cards, which a user may replace
(docs/edition.md)."""


def make_position(tiles: dict | None = None, rocks=(), trees: dict | None = None, substrates: dict | None = None,
                  spores: dict | None = None, meeples: dict | None = None, hands: dict | None = None,
                  nutrients: dict | None = None, players=("blue", "orange"), active: str = "blue",
                  mode: str = "competitive", taken=(), bag: int | None = None, cards: dict | None = None,
                  market: dict | None = None, difficulty: str | None = None, missions=(),
                  options: dict | None = None, teams: dict | None = None, decks: dict | None = None) -> Position:
    """A position from compact Python values, through the JSON parser.

    ``tiles``: {(q, r): "P03"}; ``trees``: {(q, r): [slots]} or a list of spaces;
    ``substrates``: {(q, r): "wood"}; ``spores``: {"blue": (q, r)} or {"blue": ((q, r), used)}.
    Spores default to blue (4, 0) and orange (-4, 0) with meeples on them.  ``bag`` defaults
    to what is left of the 2-player bag (48 tiles) once the board and the hands are counted.
    """
    spores = spores if spores is not None else {"blue": (4, 0), "orange": (-4, 0)}
    sp = {}
    for c, v in spores.items():
        if v is None:
            continue  # not placed yet (first round)
        elif isinstance(v[0], tuple) or v[0] is None:
            sp[c] = {"at": None if v[0] is None else list(v[0]), "used": v[1]}
        else:
            sp[c] = {"at": list(v), "used": False}
    if meeples is None:
        meeples = {c: (tuple(sp[c]["at"]) if c in sp and sp[c]["at"] else None) for c in players}
    if isinstance(trees, (list, tuple)):
        trees = {t: [None] * 4 for t in trees}
    doc: dict[str, Any] = {
        "edition": "default", "mode": mode, "difficulty": difficulty,
        "players": [{"color": c, "team": (teams or {}).get(c)} for c in players],
        "active": active, "turn": {"taken": list(taken)},
        "board": {
            "tiles": [{"at": list(h), "paths": p} for h, p in (tiles or {}).items()],
            "rocks": [list(h) for h in rocks],
            "trees": [{"at": list(h), "mycorrhizae": s} for h, s in (trees or {}).items()],
            "substrates": [{"at": list(h), "kind": k} for h, k in (substrates or {}).items()],
            "spores": sp,
            "meeples": {c: (list(h) if h is not None else None) for c, h in meeples.items()},
        },
        "hands": hands or {c: ["P03", "Y03", "ROCK"] for c in players},
        "bag": bag if bag is not None else max(0, 48 - len(tiles or {}) - len(rocks)
                                                  - sum(len(h) for h in (hands or {c: [0] * 3 for c in players}).values())),
        "nutrients": {c: {"pink": 0, "yellow": 0, "white": 0, **(nutrients or {}).get(c, {})} for c in players},
        "cards": {c: list((cards or {}).get(c, [])) for c in players},
        "market": market or {"a": [], "b": []},
        "decks": decks or {"a": 0, "b": 0},
        "missions": list(missions),
        "options": options or {},
    }
    return Position.from_json(doc)


def kill_after_moves(cmd: list[str], db, moves: int, timeout_s: float, cwd=None) -> None:
    """Run ``cmd`` (a process writing a game log to ``db``), ``kill -9`` it as soon as the log
    holds more than ``moves`` moves (or after ``timeout_s``), and wait for it to die."""
    import os
    import signal
    import subprocess
    import time

    from companion.eventlog import EventLog, EventLogError

    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            time.sleep(0.2)
            try:
                log = EventLog(db)
                gid = log.latest_game()
                if gid and len(log.events(gid)) - 1 > moves:  # the first row is the setup
                    break
            except EventLogError:
                pass
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)


def setup_position_doc(substrates: list[dict]) -> dict[str, Any]:
    """A 2-player game at set-up as a position document (rulebook 2.c: the 4 substrate tokens
    to lay), with ``substrates`` (``[{"at": [q, r], "kind": "wood"}, ...]``) on the board and the
    rest pending; the easy card's trees, no spore, empty hands."""
    pending = ["wood", "wood", "soil", "soil"]
    for s in substrates:
        pending.remove(s["kind"])
    return {"edition": "default", "mode": "competitive", "difficulty": "easy",
            "players": [{"color": "blue", "team": None}, {"color": "orange", "team": None}],
            "active": "blue", "turn": {"taken": [], "number": 1},
            "board": {"tiles": [], "rocks": [], "substrates": list(substrates), "spores": {},
                      "meeples": {"blue": None, "orange": None},
                      "trees": [{"at": at, "mycorrhizae": [None] * 4} for at in ([-2, 0], [2, -2], [-1, 2], [1, 1])]},
            "hands": {"blue": [], "orange": []}, "bag": 48,
            "nutrients": {c: {"pink": 0, "yellow": 0, "white": 0} for c in ("blue", "orange")},
            "cards": {"blue": [], "orange": []}, "market": {"a": [], "b": []}, "decks": {"a": 12, "b": 12},
            "discard": [], "pending": {"substrates": pending}, "missions": [], "result": None, "options": {}}
