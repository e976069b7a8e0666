"""Missions, victory and the end of the game (rulebook sections 7, 8 and 9)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion import economy
from companion.edition import Edition
from companion.position import MISSIONS, Position
from companion.wording import mission_title

if TYPE_CHECKING:
    from companion.board import Board


def check_missions(b: "Board", notes: list[str]) -> None:
    """Record newly accomplished cooperative missions and grant Forest Communication's
    one-time reward: every player gains 2 nutrients of their choice (7.c)."""
    pos, ed = b.pos, b.edition
    if pos.mode != "cooperative":
        return
    for prog in economy.missions(pos, ed, b.graph):
        if prog.done and prog.mission not in pos.missions:
            pos.missions.append(prog.mission)
            notes.append(f"mission accomplished: {mission_title(prog.mission)} ({prog.detail})")
            if prog.mission == "forest_communication":
                # Every player picks their own colours, in turn order from the active player,
                # each from what the supply holds after the earlier players' cubes: the move's
                # ``choose`` per player, else the default reading (the colours they hold fewest
                # of), reported by b.pick (docs/rules.md).
                for color in b.turn_order():
                    for k in b.pick(color, ed.forest_communication_bonus, ("pink", "yellow", "white"), "Forest Communication",
                                    notes):
                        economy.gain(pos, ed, color, k, 1, "Forest Communication", notes)


def _scores(pos: Position, ed: Edition) -> dict[str, int]:
    return {c: economy.victory_points(pos, ed, c) for c in pos.colors}


def early_result(pos: Position, ed: Edition) -> dict[str, Any] | None:
    """The result when a victory condition is met before the bag runs out, else ``None``.

    Competitive: first to 10 VP (8).  Team: first team to 15 VP (9).  Cooperative: all three
    missions and the difficulty's VP target (8).
    """
    scores = _scores(pos, ed)
    if pos.mode == "competitive":
        reached = [c for c in pos.colors if scores[c] >= ed.competitive_vp]
        if reached:
            return {"winners": reached, "reason": f"{' and '.join(reached)} reached {ed.competitive_vp} victory points",
                    "scores": scores}
    elif pos.mode == "team":
        teams = _team_scores(pos, scores)
        reached = [t for t, s in teams.items() if s >= ed.team_vp]
        if reached:
            return {"winners": _members(pos, reached), "teams": reached,
                    "reason": f"team {' and '.join(reached)} reached {ed.team_vp} victory points", "scores": scores}
    elif pos.difficulty:
        target = ed.cooperative_vp[pos.difficulty]
        total = sum(scores.values())
        if len(pos.missions) >= 3 and total >= target:
            return {"winners": pos.colors, "reason": f"all three missions accomplished and {total} of {target} victory points",
                    "scores": scores}
    return None


def _team_scores(pos: Position, scores: dict[str, int]) -> dict[str, int]:
    teams: dict[str, int] = {}
    for p in pos.players:
        teams[p.team] = teams.get(p.team, 0) + scores[p.color]
    return teams


def _members(pos: Position, teams: list[str]) -> list[str]:
    return [p.color for p in pos.players if p.team in teams]


def final_result(pos: Position, ed: Edition, why: str) -> dict[str, Any]:
    """The result when the game ends by ``why`` (the last tile drawn, 8), with tie-breaks.

    Competitive: most VP, then most cards, then most nutrients, then a shared victory (8).
    Team: highest team score, then most team nutrients, then shared (9).
    Cooperative: the team wins only with every mission and the VP target; else it loses (8).
    """
    early = early_result(pos, ed)
    if early is not None:
        return early
    scores = _scores(pos, ed)
    if pos.mode == "competitive":
        def key(c: str) -> tuple[int, int, int]:
            return (scores[c], len(pos.cards[c]), pos.nutrient_total(c))
        best = max(key(c) for c in pos.colors)
        winners = [c for c in pos.colors if key(c) == best]
        tie = ""
        if len(winners) > 1:
            tie = "; the winners share the victory"
        elif sum(1 for c in pos.colors if key(c)[0] == best[0]) > 1:
            tie = "; tie on points broken by " + ("cards" if sum(1 for c in pos.colors if key(c)[:2] == best[:2]) == 1 else "nutrients")
        return {"winners": winners, "reason": f"{why}: {' and '.join(winners)} with {best[0]} VP{tie}", "scores": scores}
    if pos.mode == "team":
        teams = _team_scores(pos, scores)
        nuts = {t: sum(pos.nutrient_total(p.color) for p in pos.players if p.team == t) for t in teams}
        best = max((teams[t], nuts[t]) for t in teams)
        won = [t for t in teams if (teams[t], nuts[t]) == best]
        return {"winners": _members(pos, won), "teams": won,
                "reason": f"{why}: team {' and '.join(won)} with {best[0]} VP" + ("; shared" if len(won) > 1 else ""),
                "scores": scores}
    target = ed.cooperative_vp.get(pos.difficulty or "easy", 0)
    total = sum(scores.values())
    missing = [mission_title(m) for m in MISSIONS if m not in pos.missions]
    lacks = []
    if missing:
        lacks.append("missions not accomplished: " + ", ".join(missing))
    if total < target:
        lacks.append(f"{total} of {target} victory points")
    return {"winners": [], "reason": f"{why}: the team loses ({'; '.join(lacks)})", "scores": scores}
