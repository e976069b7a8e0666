"""A legal move that leaves choices to the players waits, uncommitted, for every answer.

Rulebook 7.c (Forest Communication): "all players gain 2 nutrients of their choice"; the
engine says whom to ask with :func:`companion.rules.choices_needed` (each entry
``{"player", "kind", "count", "colors", "why"}``; ``kind`` ``"gain"`` picks ``count`` cubes
among ``colors``, ``"discard"`` returns ``count`` cubes above the cap, rulebook 5, ``"pay"``
the ``count`` cubes a removal costs, 4.c "any 1 nutrient").  The table cannot guess what each
player would take, so :class:`ChoicePrompt` holds the move until every entry is answered, then
the move is committed with the answers in its ``choose``, ``drop`` and ``pay`` fields
(``docs/position.md``): the log keeps exactly what was chosen.
"""

from __future__ import annotations

import re
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from companion.wording import and_list, counted


_REMOVAL_WHY = re.compile(r"^(?P<name>\w+): the (?:tile|rock) at (?P<at>\S+) \(4\.c\)$")
"""The ``why`` of a removal's ``pay`` entry (:func:`companion.rules.choices_needed`)."""


class ChoiceError(ValueError):
    """An answer that does not fit the prompt (wrong count or colour, no such entry)."""


@dataclass
class ChoicePrompt:
    """The waiting ``move`` (a move document), where it came from (``source``), the
    ``asked`` entries and the answers so far (entry index -> colours, one per cube).

    Players answer per player and kind (:meth:`answer`, :meth:`groups`).
    ``by_other``: the entries answered from a tablet that is not the player's own (the
    player's tablet was away), so the table can see it.
    """

    move: dict[str, Any]
    source: str
    asked: list[dict[str, Any]]
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    answers: dict[int, list[str]] = field(default_factory=dict)
    by_other: set[int] = field(default_factory=set)

    @property
    def waiting_for(self) -> list[str]:
        """The players with an entry still unanswered, in the order they were asked."""
        out: list[str] = []
        for i, a in enumerate(self.asked):
            if i not in self.answers and a["player"] not in out:
                out.append(a["player"])
        return out

    @property
    def complete(self) -> bool:
        return len(self.answers) == len(self.asked)

    def groups(self) -> list[dict[str, Any]]:
        """The entries as the players answer them: one per player and kind, in the order
        asked, ``{"player", "kind", "count", "colors", "why": [...], "parts", "answer", "by_other"}``
        (a tile forming three mycorrhizae and Forest Communication is one pick of 5 cubes);
        ``parts``: each entry's ``{"why", "count", "colors"}`` in order, which the answer's
        colours follow."""
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for i, a in enumerate(self.asked):
            g = out.setdefault((a["player"], a["kind"]), {"player": a["player"], "kind": a["kind"], "count": 0,
                                                          "colors": [], "why": [], "parts": [], "index": []})
            g["count"] += a["count"]
            g["parts"].append({"why": a["why"], "count": a["count"], "colors": list(a["colors"])})
            g["colors"] += [c for c in a["colors"] if c not in g["colors"]]
            # "(3)": three cubes for one reason; a removal's reason already says what the cubes pay for
            g["why"].append(a["why"] if a["count"] == 1 or a["kind"] == "pay" else f"{a['why']} ({a['count']})")
            g["index"].append(i)
        for g in out.values():
            idx = g.pop("index")
            done = all(i in self.answers for i in idx)
            g["answer"] = [c for i in idx for c in self.answers[i]] if done else None
            g["by_other"] = done and any(i in self.by_other for i in idx)
        return list(out.values())

    def kinds_asked(self, player: str) -> list[str]:
        """The kinds (``gain``, ``discard``, ``pay``) ``player`` has entries of, in the order
        asked; empty when ``player`` is not asked."""
        return list(dict.fromkeys(a["kind"] for a in self.asked if a["player"] == player))

    def answer(self, player: str, colors: list[str], kind: str = "gain", by_other: bool = False) -> None:
        """Record ``player``'s colours (one per cube) for all their entries of ``kind``, in the
        order asked; a second answer replaces the first until the move is committed.  Raises
        :class:`ChoiceError` when ``player`` is not asked, for the wrong number of cubes, or a
        colour an entry does not offer."""
        idx = [i for i, a in enumerate(self.asked) if a["player"] == player and a["kind"] == kind]
        if not idx:
            raise ChoiceError(f"player: {player} has no {kind} to choose here")
        need = sum(self.asked[i]["count"] for i in idx)
        if not isinstance(colors, list) or len(colors) != need:
            raise ChoiceError(f"colors: {player} picks exactly {counted(need, 'cube')}")
        parts, at = {}, 0
        for i in idx:
            a = self.asked[i]
            part = colors[at: at + a["count"]]
            bad = [c for c in part if c not in a["colors"]]
            if bad:
                raise ChoiceError(f"colors: {bad[0]!r} is not offered here (choose among {', '.join(a['colors'])})")
            parts[i] = list(part)
            at += a["count"]
        for i, part in parts.items():
            self.answers[i] = part
            if by_other:
                self.by_other.add(i)
            else:
                self.by_other.discard(i)

    def forget(self, player: str, kind: str = "gain") -> bool:
        """Drop ``player``'s answer of ``kind``: they are asked again.  False when there was
        no such answer to drop."""
        dropped = False
        for i, a in enumerate(self.asked):
            if a["player"] == player and a["kind"] == kind and i in self.answers:
                del self.answers[i]
                self.by_other.discard(i)
                dropped = True
        return dropped

    def reoffer(self, fresh: list[dict[str, Any]]) -> None:
        """Offer each unanswered gain only the colours ``fresh`` offers it: ``fresh`` is
        :func:`companion.rules.choices_needed` of :meth:`final_move` with the answers so far,
        so what the earlier players (in turn order) chose is gone from the supply (7.c)."""
        queue = [a for a in fresh if a["kind"] == "gain"]
        for i, a in enumerate(self.asked):
            if a["kind"] != "gain" or i in self.answers:
                continue
            match = next((f for f in queue if f["player"] == a["player"] and f["why"] == a["why"]), None)
            if match is not None:
                queue.remove(match)
                a["colors"] = list(match["colors"])

    def final_move(self) -> dict[str, Any]:
        """The move with every answer written in: gains in ``choose`` (per player, after any
        colours the move already named), discards in ``drop``, a removal's cubes in ``pay``.
        Unanswered entries are left out (the move then says what the engine's default reading
        would give them)."""
        move = dict(self.move)
        choose = move.get("choose", [])
        if not isinstance(choose, dict):
            choose = {move["player"]: list([choose] if isinstance(choose, str) else choose)} if choose else {}
        choose = {p: list([c] if isinstance(c, str) else c) for p, c in choose.items()}
        drop = {p: dict(v) for p, v in (move.get("drop") or {}).items()}
        for i, a in enumerate(self.asked):
            if i not in self.answers:
                continue
            colors = self.answers[i]
            if a["kind"] == "discard":
                d = Counter(drop.get(a["player"], {}))
                d.update(colors)
                drop[a["player"]] = dict(d)
            elif a["kind"] == "pay":
                move["pay"] = dict(Counter(colors))
            else:
                choose.setdefault(a["player"], []).extend(colors)
        if choose:
            move["choose"] = choose
        if drop:
            move["drop"] = drop
        return move

    def sentence(self, where: str = "on the dashboard") -> str:
        """What the table waits for, in words: "mycorrhiza with tree A: waiting for orange to
        choose on the dashboard"; ``where`` says where the players answer."""
        who = self.waiting_for
        return f"{self.reasons()}: waiting for {and_list(list(who))} to choose" + (f" {where}" if where else "")

    def reasons(self) -> str:
        """Why the move waits, in words: "mycorrhizae with trees A and B, cap of 8 nutrients",
        "Mycophages at E4"."""
        whys: list[str] = []
        trees: list[str] = []
        for a in self.asked:   # "mycorrhiza with tree A" x3 reads "mycorrhizae with trees A, B and C"
            paid = _REMOVAL_WHY.match(a["why"]) if a["kind"] == "pay" else None
            if paid:   # "Mycophages: the tile at E4 (4.c)" reads "Mycophages at E4"
                whys.append(f"{paid['name']} at {paid['at']}")
            elif a["why"].startswith("mycorrhiza with tree "):
                trees.append(a["why"].rsplit(" ", 1)[-1])
                if "mycorrhiza" not in whys:
                    whys.append("mycorrhiza")
            elif a["why"] not in whys:
                whys.append(a["why"])
        if trees:
            whys[whys.index("mycorrhiza")] = ("mycorrhiza with tree " + trees[0] if len(trees) == 1 else
                                              "mycorrhizae with trees " + ", ".join(trees[:-1]) + " and " + trees[-1])
        return ", ".join(whys)

    def waiting_words(self) -> tuple[str, str]:
        """``(what, why)`` for the hint while the move waits (docs/rules.md, "What the camera
        cannot see"): what each player still to answer chooses, "blue chooses which cube pays
        for the removal at E4 (Mycophages, 4.c)", and :meth:`reasons`."""
        parts = []
        for g in self.groups():
            if g["answer"] is not None:
                continue
            who, cubes = g["player"], counted(g["count"], "cube")
            if g["kind"] == "pay":
                removal = _REMOVAL_WHY.match(g["why"][0])
                what = f"the removal at {removal['at']} ({removal['name']}, 4.c)" if removal else "the removal (4.c)"
                paid = "cube pays" if g["count"] == 1 else f"{cubes} pay"
                parts.append(f"{who} chooses which {paid} for {what}")
            elif g["kind"] == "discard":
                parts.append(f"{who} chooses {cubes} to return to the supply ({and_list(g['why'])}, 5)")
            else:
                parts.append(f"{who} chooses {cubes} gained for {and_list(g['why'])}")
        return "; ".join(parts), self.reasons()

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "move": self.move, "source": self.source, "text": self.sentence(), "reasons": self.reasons(),
                "asked": self.groups(), "waiting_for": self.waiting_for}


__all__ = ["ChoicePrompt", "ChoiceError"]
