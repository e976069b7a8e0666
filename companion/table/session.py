"""The game at the table, as the dashboard and the table loop share it.

A :class:`TableSession` owns the :class:`~companion.game.Game` (with its SQLite log), the
:class:`~companion.table.bus.EventBus`, and what the table still has to resolve: an illegal
move waiting to be taken back, a question when two readings fit, corrections of spaces the
camera misread.  Every method is thread-safe; every change is committed to the log first, then
published.
"""

from __future__ import annotations

import random
import threading
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion import economy, rules
from companion.edition import Edition, load_edition
from companion.eventlog import EventLog
from companion.game import Event, Game, StaleUndo
from companion.hexgrid import Hex
from companion.moves import parse_move
from companion.movegen import open_actions
from companion.networks import MyceliumGraph
from companion.market import DECKS, face_down, free_slots
from companion.position import Position
from companion.purchase import can_buy
from companion.rules import REASONS, IllegalMove, Verdict, choices_needed
from companion.table.choices import ChoiceError, ChoicePrompt
from companion.setup import GameConfig, new_game
from companion.setup_steps import player_setup_task, setup_steps
from companion.wording import and_list

ACTION_SLOTS = {"place": "place or discard a tile", "move": "move the meeple", "remove": "remove a tile or rock",
                "spore": "use the spore ability", "give": "give a nutrient", "buy": "buy a mushroom card"}


class SessionError(ValueError):
    """A table input that cannot be applied (bad question id, undo across a draw...)."""


@dataclass
class Question:
    """Two or more readings fit what the camera saw: the table picks one."""

    id: str
    prompt: str
    choices: list[dict[str, Any]]          # each {"label": str, "moves": [move, ...]}
    on_answer: Callable[[int], None] | None = field(default=None, repr=False)
    title: str | None = None
    """What is asked, in a few words ("Does red's turn end now?"): the dashboard's heading."""
    detail: str | None = None
    """Why it is asked, shown under the title (``prompt`` says both in one sentence)."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "prompt": self.prompt, "title": self.title or self.prompt, "detail": self.detail,
                "choices": [{"label": c["label"], "moves": c.get("moves", [])} for c in self.choices]}


class TableSession:
    """The shared, thread-safe state of the table.

    ``feedback(kind)`` is called with ``"illegal"`` or ``"ok"`` so the tile-bag reader can turn
    its LED red and beep (the live table wires it to the reader's LED/beep commands).
    """

    def __init__(self, game: Game, bus=None, feedback: Callable[[str], None] | None = None):
        from companion.table.bus import EventBus
        self.lock = threading.RLock()
        self.game = game
        self.bus = bus or EventBus()
        self.feedback = feedback or (lambda kind: None)
        self.illegal: dict[str, Any] | None = None
        self.question: Question | None = None
        self.choices: ChoicePrompt | None = None
        """A legal move waiting for the players' choices (7.c, 5); see :meth:`choose`."""
        self.status: dict[str, str] = {"camera": "none", "reader": "none"}
        self.draws_on_dashboard = False
        """True when the table has no bag reader (``run --rfid none``): the state offers the
        player who draws next the tiles still in the bag (``draw``), to enter on the dashboard."""
        self.real_table = False
        """True for a game played at a real table (``run``, not a replay): the state offers the
        market's free places to turn up (``reveal``), and a new game set up on the dashboard
        starts with nothing dealt (the players draw, lay the substrates and turn up the cards).
        The simulated games (``demo``, ``serve``) deal and turn up their own."""
        self.status_detail: dict[str, str] = {}
        self.counts = {"illegal_caught": 0, "legal_rejected": 0}
        self.input_hooks: list[Callable[[dict[str, Any]], None]] = []
        """Called with every table input from the dashboard, as ``{"input": kind, ...}`` (the
        recorder keeps them for replay)."""
        self._state_cache: tuple | None = None
        self.game.subscribe(self._on_game)

    # --- construction -------------------------------------------------------------------
    @classmethod
    def start(cls, config: GameConfig, log: EventLog | None, seed: int | None = None, kind: str = "table",
              **kw) -> "TableSession":
        """A new game of ``kind`` (see :mod:`companion.eventlog`) set up from ``config`` (raises
        :class:`~companion.setup.SetupError`)."""
        ed = load_edition(config.edition)
        pos, _ = new_game(config, ed, random.Random(seed))
        return cls(Game(pos, config, ed, log=log, kind=kind), **kw)

    @property
    def corrections(self) -> dict[Hex, dict[str, Any]]:
        """The spaces fixed by hand (``Hex -> content``), kept in the game's log."""
        return self.game.corrections

    @property
    def edition(self) -> Edition:
        return self.game.edition

    @property
    def position(self) -> Position:
        return self.game.position

    def _on_game(self, kind: str, ev: Event | None, pos: Position) -> None:
        data = {"event": ev.to_json() if ev else None, "active": pos.active, "result": pos.result}
        self.bus.publish(kind, data)

    # --- inputs ---------------------------------------------------------------------------
    def submit(self, move: dict[str, Any], source: str = "dashboard") -> Verdict:
        """Judge and, when legal, commit a move; an illegal one is held and announced.

        Raises :class:`~companion.position.PositionError` for a malformed move (nothing
        changes).
        """
        m = parse_move(move)
        if source == "dashboard":
            self._record({"input": "move", "move": m.to_json()})
        with self.lock:
            if self.choices is not None:
                # Nothing passes a move that waits for the players: it comes first.
                return Verdict(False, "awaiting_choices", self.choices.sentence() + " first.")
            verdict = self.game.check(m)
            if not verdict.legal:
                self.illegal = {"move": m.to_json(), "reason": verdict.reason, "message": verdict.message,
                                "source": source, "explain": REASONS.get(verdict.reason or "", "")}
                self.counts["illegal_caught"] += 1
                self.bus.publish("illegal", self.illegal)
                self.feedback("illegal")
                return verdict
            asked = choices_needed(self.position, m, self.edition)
            # Gains (and a removal's cubes, 4.c) first: what goes back above the cap (5)
            # depends on the cubes chosen, so it is asked once they are known
            # (ChoicePrompt.final_move, then choose()).
            asked = [a for a in asked if a["kind"] != "discard"] or asked
            if asked:
                # "Of their choice": the move waits until every player asked has chosen.
                self.choices = ChoicePrompt(m.to_json(), source, asked)
                self._clear_held("a legal move was made")
                self.bus.publish("choices", self.choices.to_json())
                self.feedback("ok")
                return verdict
            try:
                self.game.play(m)
            except IllegalMove as e:  # the position changed between check and play
                return Verdict(False, e.reason, e.message)
            if self.illegal is not None:
                self.illegal = None
                self.bus.publish("cleared", {"why": "a legal move was made"})
            self.feedback("ok")
            return verdict

    def _clear_held(self, why: str) -> None:
        if self.illegal is not None:
            self.illegal = None
            self.bus.publish("cleared", {"why": why})

    def choose(self, prompt_id: str, player: str, colors: list[str], kind: str = "gain",
               by_other: bool = False) -> Event | None:
        """Answer ``player``'s entries of ``kind`` (``gain``, ``discard`` or ``pay``) in the open
        :class:`~companion.table.choices.ChoicePrompt` with ``colors`` (one per cube; a
        payment names only cubes the player holds).
        ``by_other``: answered from another player's tablet.

        When every entry is answered the move is committed with the answers and its event is
        returned (``None`` while others still have to choose).  Raises :class:`SessionError`
        for a stale prompt id or an answer that does not fit (nothing changes); when the
        completed move is no longer legal (the game moved on) the prompt is withdrawn and
        the error says why.
        """
        self._record({"input": "choose", "player": player, "choice": kind,
                      "colors": list(colors) if isinstance(colors, list) else colors, "by_other": by_other})
        with self.lock:
            p = self.choices
            if p is None or p.id != prompt_id:
                raise SessionError("that choice is no longer open")
            before = (dict(p.answers), set(p.by_other))
            try:
                p.answer(player, colors, kind, by_other)
            except ChoiceError as e:
                raise SessionError(str(e)) from None
            refused = self._unheld_payment(player, colors) if kind == "pay" else self._reoffer(p, player)
            if refused is not None:
                p.answers, p.by_other = before
                raise SessionError(refused)
            if not p.complete:
                self.bus.publish("choices", p.to_json())
                return None
            move = p.final_move()
            try:
                more = choices_needed(self.position, move, self.edition)
            except IllegalMove as e:
                self._withdraw(f"the move is no longer legal: {e.message}")
                raise SessionError(f"the move waiting for the choices is no longer legal ({e.message}); it was withdrawn") from None
            if more:   # the answers raise new questions (cubes above the cap to return)
                p.asked.extend(more)
                self.bus.publish("choices", p.to_json())
                return None
            self.choices = None
            ev = self.game.play(move)
            self.bus.publish("choices_done", {"id": p.id, "seq": ev.seq, "by_other": sorted(
                {p.asked[i]["player"] for i in p.by_other})})
            return ev

    def _unheld_payment(self, player: str, colors: list[str]) -> str | None:
        """The sentence refusing a payment (4.c) naming more cubes of a colour than ``player``
        holds, else ``None``."""
        held = self.position.nutrients[player]
        short = economy.shortfall(held, dict(Counter(colors)))
        if not short:
            return None
        holds = and_list([f"{v} {k}" for k, v in held.items() if v]) or "no cube"
        return f"colors: {player} holds {holds}, so cannot pay {and_list([f'{v} {k}' for k, v in Counter(colors).items()])}"

    def _reoffer(self, p: ChoicePrompt, player: str) -> str | None:
        """After ``player``'s answer: the players choose in turn order from the active player,
        each from what the supply still holds (7.c, docs/rules.md).  A later player's answer
        that the supply can no longer meet is dropped (they are asked again), and every
        unanswered gain is offered only the colours left.  Returns the sentence refusing
        ``player``'s own answer when that is the one the supply cannot meet, else ``None``."""
        while True:
            try:
                fresh = choices_needed(self.position, p.final_move(), self.edition)
            except IllegalMove as e:
                if e.reason != "supply_empty" or e.chooser is None:
                    return None   # the move itself no longer stands: the caller withdraws it
                if e.chooser == player or not p.forget(e.chooser):
                    return e.message
                continue
            p.reoffer(fresh)
            return None

    def withdraw_choices(self, why: str = "withdrawn on the dashboard") -> None:
        """Drop the move waiting for choices (it was misread, or taken back at the table);
        raises :class:`SessionError` when none waits."""
        self._record({"input": "withdraw_choices", "why": why})
        with self.lock:
            if self.choices is None:
                raise SessionError("no move is waiting for choices")
            self._withdraw(why)

    def _withdraw(self, why: str) -> None:
        p, self.choices = self.choices, None
        self.bus.publish("choices_withdrawn", {"id": p.id if p else None, "why": why})

    def _record(self, item: dict[str, Any]) -> None:
        for hook in self.input_hooks:
            hook(item)

    def clear_illegal(self, why: str = "the board was put back", source: str = "dashboard") -> None:
        """Forget the held illegal move (the pieces were put back as they were)."""
        if source == "dashboard":
            self._record({"input": "clear_illegal", "why": why})
        with self.lock:
            if self.illegal is not None:
                self.illegal = None
                self.bus.publish("cleared", {"why": why})

    def draw_undoable(self, ev: Event) -> bool:
        """True when ``ev`` is a draw that may be taken back: one tapped in on the dashboard at
        a table without a bag reader (a mis-tap; the tile never left the bag in the game's
        eyes), or in a replay, which plays back the undos such a table accepted.  A draw the
        reader saw (it carries the tag's ``uid``) really left the bag."""
        tapped = self.draws_on_dashboard or self.game.kind == "replay"
        return ev.move["action"] == "draw" and tapped and "uid" not in ev.move

    def undo(self, expect: int | None = None) -> Event:
        """Take back the last move; never a draw the bag reader saw (the tile is out of the bag
        for real), though a draw tapped in on the dashboard may be (:meth:`draw_undoable`).

        ``expect``: the number of the move the table means to undo (the one the dashboard
        showed); a double tap or another tablet's undo makes it stale.  Raises
        :class:`SessionError` when there is nothing to undo, the last event is a reader's draw, or
        ``expect`` is not the last move (``stale`` is then true on the error); nothing changes.
        """
        self._record({"input": "undo", **({"expect": expect} if expect is not None else {})})
        with self.lock:
            if self.choices is not None:
                raise SessionError("a move is waiting for the players' choices: withdraw it first (it is not in the log yet)")
            if not self.game.events:
                raise SessionError("nothing to undo")
            last = self.game.events[-1]
            if expect is not None and last.seq != expect:
                err = SessionError(f"move {expect} is no longer the last move (the last is move {last.seq}: "
                                   f"{last.notes[0] if last.notes else last.move['action']}); nothing was undone")
                err.stale = True
                raise err
            if last.move["action"] == "draw" and not self.draw_undoable(last):
                raise SessionError("the last event is a tile drawn from the bag; a draw cannot be undone")
            try:
                return self.game.undo(expect)
            except StaleUndo as e:  # pragma: no cover - checked above under the same lock
                raise SessionError(str(e)) from None

    def ask(self, prompt: str, choices: list[dict[str, Any]], on_answer: Callable[[int], None] | None = None, *,
            title: str | None = None, detail: str | None = None) -> Question:
        """Put a question to the table (two readings fit); the answer calls ``on_answer``.
        ``prompt`` is the whole question in one sentence (the terminal prints it); ``title``
        (what is asked) and ``detail`` (why) split it for the dashboard's banner."""
        with self.lock:
            self.question = Question(uuid.uuid4().hex[:8], prompt, choices, on_answer, title, detail)
            self.bus.publish("question", self.question.to_json())
            return self.question

    def answer(self, question_id: str, choice: int) -> None:
        """Pick choice ``choice`` (0-based) of the open question; plays its moves in order.

        Raises :class:`SessionError` for a stale id or a choice out of range.
        """
        self._record({"input": "answer", "choice": choice})
        with self.lock:
            q = self.question
            if q is None or q.id != question_id:
                raise SessionError("that question is no longer open")
            if not 0 <= choice < len(q.choices):
                raise SessionError(f"choice must be 0 to {len(q.choices) - 1}")
            self.question = None
            self.bus.publish("answered", {"id": question_id, "choice": choice})
            if q.on_answer is not None:
                q.on_answer(choice)
            else:
                for mv in q.choices[choice].get("moves", []):
                    self.submit(mv, source="answer")

    def correct(self, at: tuple[int, int], content: dict[str, Any] | None) -> None:
        """Record what really stands on a space the camera misread.

        ``content``: ``{"kind": "tile", "paths": "P03"}``, ``{"kind": "rock"}``,
        ``{"kind": "empty"}``, or ``None`` to trust the camera again.  The table loop reads
        corrections in place of the camera for that space.  Raises :class:`SessionError` for an
        off-board space or unknown content.
        """
        h = Hex(int(at[0]), int(at[1]))
        if h not in self.edition.spaces:
            raise SessionError(f"{list(at)} is not a space of the board")
        if content is not None:
            kind = content.get("kind")
            if kind not in ("tile", "rock", "empty", "substrate", "tree"):
                raise SessionError("content.kind must be tile, rock, empty, substrate or tree")
            if kind == "tile":
                from companion.tiles import TileCodeError, validate
                try:
                    content = {"kind": "tile", "paths": validate(str(content.get("paths")))}
                except TileCodeError as e:
                    raise SessionError(f"content.paths: {e}") from None
        self._record({"input": "correct", "at": [h.q, h.r], "content": content})
        with self.lock:
            fix = self.game.fix(h, content)   # logged first: a resumed game keeps its fixes
            self.bus.publish("correction", {"at": [h.q, h.r], "label": fix["label"], "content": content,
                                            "text": fix["text"], "after": fix["after"]})

    def set_status(self, device: str, status: str, detail: str = "") -> None:
        """Camera or reader status change (``ok``, ``stalled``, ``connected``...), announced;
        a new sentence about a problem is announced even when the status word stays."""
        with self.lock:
            problem = status not in ("ok", "connected") and self.status_detail.get(device) != detail
            if self.status.get(device) != status or problem:
                self.status[device] = status
                self.status_detail[device] = detail
                self.bus.publish("status", {"device": device, "status": status, "detail": detail})

    def new_game(self, config: GameConfig, log: EventLog | None, seed: int | None = None) -> None:
        """Replace the game with a new one (the setup wizard), dealt unless the table is real
        (:attr:`real_table`); raises SetupError."""
        ed = load_edition(config.edition)
        pos, _ = new_game(config, ed, random.Random(seed), deal=not self.real_table)
        self.start_from(pos, config, log)

    def start_from(self, pos: Position, config: GameConfig | None, log: EventLog | None) -> None:
        """Replace the game with one starting at ``pos`` (a new game, or a replayed one)."""
        self._record({"input": "new_game", "config": config.to_json() if config else None, "position": pos.to_json()})
        ed = load_edition(pos.edition)
        with self.lock:
            old = self.game
            self.game = Game(pos, config, ed, log=log, kind=old.kind)
            self.game.log_hooks.extend(old.log_hooks)
            if old.log is not None and old.position.result is None:
                # The table chose to replace it: not a game for --resume to offer again.
                old.log.set_finished(old.game_id, f"abandoned: replaced by game {self.game.game_id}")
            self.game.subscribe(self._on_game)
            self.illegal = None
            self.question = None
            self.choices = None
            self.bus.publish("reset", {"reason": "new game"})

    # --- views ------------------------------------------------------------------------------
    def state(self, log_tail: int = 300) -> dict[str, Any]:
        """Everything the dashboard shows, JSON-ready (see ``docs/dashboard.md``).

        Computed once per change (cached by the bus's last message id) and mostly outside the
        lock: committed positions are never modified, so a snapshot is enough, and many tablets
        polling at once do not hold up the camera loop.
        """
        with self.lock:
            seq = self.bus.last_id
            cached = self._state_cache
            if cached is not None and cached[0] == (seq, log_tail, id(self.game)):
                return cached[1]
            game = self.game
            snap = {
                "pos": game.position,
                "events": list(game.events[-log_tail:]),
                "undo_allowed": bool(game.events) and self.choices is None
                                and (game.events[-1].move["action"] != "draw" or self.draw_undoable(game.events[-1])),
                "illegal": self.illegal,
                "question": self.question.to_json() if self.question else None,
                "choices": self.choices.to_json() if self.choices else None,
                "corrections": [{"at": [h.q, h.r], "content": c} for h, c in self.corrections.items()],
                "fixes": list(game.fixes[-log_tail:]),
                "status": dict(self.status),
                "status_detail": dict(self.status_detail),
                "draws_on_dashboard": self.draws_on_dashboard,
                "real_table": self.real_table,
            }
        out = self._compute_state(game, seq, snap)
        with self.lock:
            self._state_cache = ((seq, log_tail, id(game)), out)
        return out

    def _compute_state(self, game: Game, seq: int, snap: dict[str, Any]) -> dict[str, Any]:
        pos: Position = snap["pos"]
        ed = game.edition
        graph = MyceliumGraph.of(pos)
        players, market = panels(pos, ed)
        last_at = None
        for ev in reversed(snap["events"]):
            mv = ev.move
            if mv.get("at") is not None or mv.get("to") is not None:
                last_at = mv.get("at") or mv.get("to")
                break
        return {
            "seq": seq,
            "game": game.game_id,
            "position": pos.to_json(),
            "board": {"radius": ed.radius, "spaces": [{"at": [h.q, h.r], "label": ed.label(h)} for h in sorted(ed.spaces)],
                      "outermost": [[h.q, h.r] for h in sorted(ed.outermost)],
                      "trees": {f"{h.q},{h.r}": tid for h, tid in economy.tree_ids(pos, ed).items()}},
            "players": players,
            "market": market,
            "decks": dict(pos.decks),
            "bag": pos.bag,
            "missions": [vars(m) for m in economy.missions(pos, ed, graph)],
            "targets": self._targets(pos, ed),
            "networks": [{"color": n.color, "spaces": [[h.q, h.r] for h in sorted(n.spaces)], "spores": list(n.spores)}
                         for n in graph.networks],
            "log": [{"seq": e.seq, "text": e.notes[0] if e.notes else "", "notes": e.notes[1:], "move": e.move}
                    for e in snap["events"]],
            "last_move_at": last_at,
            "illegal": snap["illegal"],
            "question": snap["question"],
            "choices": snap["choices"],
            "corrections": snap["corrections"],
            "fixes": [{"after": f["after"], "text": f["text"], "at": f["at"]} for f in snap["fixes"]],
            "status": snap["status"],
            "status_detail": snap["status_detail"],
            "result": pos.result,
            "undo_allowed": snap["undo_allowed"],
            "give_amounts": [] if pos.result is not None else list(rules.gift_amounts(pos)),
            "give": rules.gift_offer(pos, ed),
            "substrate": substrate_offer(pos, ed) if snap["choices"] is None else None,
            "draw": draw_offer(pos, ed) if snap["draws_on_dashboard"] and snap["choices"] is None else None,
            "reveal": reveal_offer(pos, ed) if snap["real_table"] and snap["choices"] is None else None,
            "real_table": snap["real_table"],
            "setup": [step.to_json() for step in setup_steps(pos, ed)],
        }

    @staticmethod
    def _targets(pos: Position, ed: Edition) -> dict[str, Any]:
        if pos.mode == "cooperative":
            vp = sum(economy.victory_points(pos, ed, c) for c in pos.colors)
            return {"vp": vp, "target": ed.cooperative_vp.get(pos.difficulty or "easy")}
        if pos.mode == "team":
            teams: dict[str, int] = {}
            for p in pos.players:
                teams[p.team] = teams.get(p.team, 0) + economy.victory_points(pos, ed, p.color)
            return {"teams": teams, "target": ed.team_vp}
        return {"scores": {c: economy.victory_points(pos, ed, c) for c in pos.colors}, "target": ed.competitive_vp}


def card_json(ed: Edition, cid: str) -> dict[str, Any]:
    """A mushroom card as the dashboard shows it (unknown ids pass through by name)."""
    card = ed.cards.get(cid)
    if card is None:
        return {"id": cid, "name": cid, "vp": 0}
    return {"id": cid, "name": card.name, "deck": card.deck, "vp": card.vp,
            "mycelia": {"color": card.mycelia_color, "count": card.mycelia_count},
            "nutrients": card.nutrients, "nutrients_by_meeple": card.nutrients_by_meeple, "effect": card.effect}


def panels(pos: Position, ed: Edition, live: bool = True) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The players panel and the market (with every player's affordability) of a position.

    ``live=False`` (a replayed position) lists no open actions; the active player's
    ``open_actions`` are the actions the rules accept now (:func:`companion.movegen.open_actions`).
    """
    open_now = [ACTION_SLOTS[k] for k in open_actions(pos, ed)] if live else []
    players = []
    for p in pos.players:
        c = p.color
        spore = pos.spores.get(c)
        players.append({
            "color": c, "team": p.team, "active": c == pos.active,
            "hand": list(pos.hands[c]), "nutrients": dict(pos.nutrients[c]),
            "nutrient_total": pos.nutrient_total(c), "nutrient_cap": ed.nutrient_cap,
            "cards": [card_json(ed, cid) for cid in pos.cards[c]],
            "vp": economy.victory_points(pos, ed, c),
            "spore": None if spore is None else {"at": None if spore.at is None else list(spore.at), "used": spore.used},
            "open_actions": open_now if c == pos.active else [],
            "setup": player_setup_task(pos, c) if live else None,
        })
    market = []
    for deck in DECKS:
        for cid in pos.market[deck]:
            card = card_json(ed, cid)
            card["afford"] = {c: can_buy(pos, ed, c, cid).to_json() for c in pos.colors} if cid in ed.cards else {}
            market.append(card)
    return players, market


__all__ = ["TableSession", "SessionError", "Question", "card_json", "panels"]


def draw_offer(pos: Position, ed: Edition) -> dict[str, Any] | None:
    """What a table without a bag reader enters on the dashboard: ``{"player": colour, "tiles":
    [{"code": canonical code, "left": count in the bag}, ...]}`` for the player a drawn tile
    goes to (:func:`companion.table.live.drawing_player`), listing each tile type still in the
    bag that they may draw now (rulebook 3 and 4.a.3); ``None`` when nobody may draw (a full
    hand, a placement still to make, an empty bag, the game over)."""
    from companion.bag_contents import tiles_in_bag
    from companion.table.live import drawing_player
    if pos.result is not None or pos.bag <= 0:
        return None
    player = drawing_player(pos)
    # A position that does not list the bag counts the tiles seen out of it (2.f).
    left = pos.bag_tiles if pos.bag_tiles is not None else tiles_in_bag(pos, ed)
    tiles = [{"code": code, "left": n} for code, n in sorted(left.items()) if n > 0
             and rules.check(pos, {"player": player, "action": "draw", "tile": code}, ed).legal]
    return {"player": player, "tiles": tiles} if tiles else None


def substrate_offer(pos: Position, ed: Edition) -> dict[str, Any] | None:
    """The substrate token the table lays next, for the dashboard's "Lay … substrate" control
    (rulebook 2.c, 5.a): ``{"kind", "token": it in words ("the wood substrate token drawn to
    replace the one at D4"), "due": whether the active player's turn cannot end before it
    (:func:`companion.rules.tokens_due`), "message": the sentence refusing the end of the turn
    (``None`` when not due), "spaces": [{"at": [q, r], "label", "holds": what keeps the token
    off that space in words, ``None`` when it may land there}]}`` (the spaces printed on the
    edition's tokens of that kind, but not those of the tokens just discarded,
    :func:`companion.rules.drawable_token_spaces`); ``None`` when no token waits or the game
    is over."""
    if pos.result is not None or not pos.pending_substrates:
        return None
    b = rules.Board(pos, ed)
    due = rules.tokens_due(b)
    kind = (due or pos.pending_substrates)[0]
    spaces = rules.drawable_token_spaces(b, kind) or sorted(ed.spaces, key=lambda h: rules.label_order(ed.label(h)))
    return {"kind": kind, "token": rules.token_words(b, kind), "due": bool(due),
            "message": rules.substrate_due_message(b) if due else None,
            "spaces": [{"at": [h.q, h.r], "label": ed.label(h), "holds": rules.token_space_holds(pos, h)} for h in spaces]}


def reveal_offer(pos: Position, ed: Edition) -> dict[str, Any] | None:
    """What a real table turns up on the dashboard: per deck with a free place in its row and a
    card left face down, ``{"missing": free places, "cards": [card as the market shows it, ...]}``
    (the cards that may lie face down: neither face up nor bought, :func:`companion.market.face_down`);
    ``None`` when both rows are full or their decks empty, or the game is over (2.d, 6)."""
    if pos.result is not None:
        return None
    offer = {deck: {"missing": free_slots(pos, deck), "cards": [card_json(ed, cid) for cid in face_down(pos, ed, deck)]}
             for deck in DECKS if free_slots(pos, deck)}
    return offer or None
