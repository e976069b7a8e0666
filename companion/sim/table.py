"""The simulated table: bots play Mycelium with their hands, a camera films it, a bag reader
reports the draws, and the companion has to work out the game from that alone.

The *truth* is a :class:`~companion.selfplay.BotTable` game.  Every truth move becomes a
physical step, in order:

- a change on the board (a tile, a rock, a meeple, a spore, a substrate token) is rendered by
  :mod:`companion.sim.render` as camera frames — a hand over the board, then the still board —
  and fed to the :class:`~companion.table.live.LiveTable`;
- a draw goes through a :class:`~firmware_bridge.virtual.VirtualReader` on a real pty, read by
  the :class:`~firmware_bridge.reader.BagReader`; the end of a turn is the reader's button;
- what the camera cannot see (gifts, swaps, purchases, a redraw with the spore, a card turned
  up) is a dashboard input, submitted to the session as the dashboard would.

Now and then the bots make an illegal placement on purpose, wait for the companion to flag it,
and take the tile back.  At the end the companion's event log is compared with the truth.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from companion import economy
from companion import tiles as tilecodes
from companion.game import Event
from companion.hexgrid import Hex
from companion.position import Position
from companion.rules import check
from companion.selfplay import BotTable
from companion.setup import GameConfig
from companion.table.live import LiveTable
from companion.table.session import TableSession
from companion.table.sources import Frame
from companion.vision.reader import BoardReader
from companion.wording import counted

CAMERA_ACTIONS = {"spore", "place", "rock", "move", "remove", "relocate", "substrate"}
DASHBOARD_ACTIONS = {"discard", "give", "swap", "buy", "reveal"}


@dataclass
class SimReport:
    """What the simulated game came to (the ``demo --fast`` JSON line)."""

    result: dict[str, Any] | None
    events: int
    illegal_injected: int = 0
    illegal_caught: int = 0
    legal_rejected: int = 0
    log_matches_truth: bool = False
    questions: int = 0
    frames: int = 0
    reads: int = 0
    first_divergence: str | None = None
    rejections: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    cards_bought: int = 0
    removals: int = 0
    """Tiles and rocks removed over the game (4.c ``remove`` moves)."""
    ended: str | None = None
    """``victory`` (a side reached its goal before the bag ran out), ``bag_empty`` or ``None``."""

    def to_json(self) -> dict[str, Any]:
        return {"result": self.result, "events": self.events, "illegal_injected": self.illegal_injected,
                "illegal_caught": self.illegal_caught, "legal_rejected": self.legal_rejected,
                "log_matches_truth": self.log_matches_truth, "cards_bought": self.cards_bought,
                "removals": self.removals, "ended": self.ended}


class SimulationAborted(RuntimeError):
    """The game at the table no longer follows the simulated players (changed by hand on the
    dashboard: an undo, a new game)."""


class TagBox:
    """One UID per physical tile (4-byte ISO 14443A UIDs), drawn and returned with the tile."""

    def __init__(self, bag: list[str], rng: random.Random):
        self.by_type: dict[str, list[bytes]] = {}
        self.code_of: dict[str, str] = {}
        for i, code in enumerate(sorted(bag)):
            uid = bytes([0x04, (i >> 8) & 0xFF, i & 0xFF, rng.randrange(256)])
            self.by_type.setdefault(tilecodes.canonical(code), []).append(uid)
            self.code_of[uid.hex().upper()] = code
        self.held: dict[str | None, list[tuple[str, bytes]]] = {}  # holder -> (type, uid), in draw order

    def take(self, code: str, holder: str | None = None) -> bytes:
        """A tile of ``code`` leaves the bag into ``holder``'s hand; returns its tag."""
        uid = self.by_type[tilecodes.canonical(code)].pop()
        self.held.setdefault(holder, []).append((tilecodes.canonical(code), uid))
        return uid

    def _from_hand(self, code: str, holder: str | None) -> bytes:
        hand = self.held.get(holder, [])
        i = next(i for i, (t, _) in enumerate(hand) if t == tilecodes.canonical(code))
        return hand.pop(i)[1]

    def used(self, code: str, holder: str | None = None) -> None:
        """A tile of ``code`` left ``holder``'s hand for the board or the discard pile."""
        self._from_hand(code, holder)

    def give_back(self, codes: list[str], holder: str | None = None) -> None:
        """Tiles of ``holder``'s hand go back into the bag, each with its own tag."""
        for c in codes:
            self.by_type[tilecodes.canonical(c)].append(self._from_hand(c, holder))

    def lookup(self, uid: str) -> str | None:
        return self.code_of.get(uid.upper())


class SimulatedTable:
    """Drives a whole simulated game into ``session`` through ``live``.

    ``fast``: frames carry simulated time stamps and nothing sleeps; otherwise the game plays
    at a pace a person can follow (``pace_s`` between steps).  ``size``: frame size in px.
    ``illegal_every``: about one deliberate illegal placement per this many placements, and at
    least one once a game has made that many (0: none).
    ``bot``: the simulated players' level (:data:`companion.bots.BOTS`; greedy plays to win).
    """

    def __init__(self, config: GameConfig, seed: int, fast: bool = True, size: tuple[int, int] | None = None,
                 illegal_every: int = 12, pace_s: float = 0.6, log=None, camera_tilt_deg: float = 6.0,
                 bot: str = "greedy"):
        from companion.sim.render import Conditions, make_camera
        from companion.vision.geometry import load_board

        self.fast = fast
        self.pace_s = pace_s
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.truth = BotTable(config, seed, on_event=self._on_truth, bot=bot)
        # The camera sees a placement, not the colours a player picks for a mycorrhiza or
        # Forest Communication (5.b, 7.c): each simulated player picks their own, and answers
        # the dashboard's prompt with them (_answer_choices).
        self.truth.fill_choices = True
        self._truth_event: Event | None = None   # the simulated players' move being mirrored
        self.edition = self.truth.edition
        self.size = size or ((1280, 720) if fast else (1920, 1080))
        self.px_per_mm = 1.5 if fast else 2.5
        self.geo = load_board()
        self.cond = Conditions(tilt_deg=camera_tilt_deg, tilt_direction_deg=30.0, gradient=0.12,
                               gradient_angle_deg=40.0)
        self.camera = make_camera(self.geo, self.cond, self.size)
        self.session = TableSession(self.truth.game.__class__(self.truth.game.initial, config, self.edition, log=log,
                                                                     kind="demo"))
        self._game = self.session.game
        self.profile = self._calibrate()
        self.live = LiveTable(self.session, reader=BoardReader(profile=self.profile))
        self.tags = TagBox(list(self.truth.supplies.bag) + [c for h in self.truth.position.hands.values() for c in h],
                           self.rng)
        for color, hand in self.truth.position.hands.items():
            for code in hand:
                self.tags.take(code, color)
        self.illegal_every = illegal_every
        self.report = SimReport(None, 0)
        self._t_ms = 0.0
        self._still: np.ndarray | None = None
        self._filmed = 0.0   # wall-clock time of the last frame filmed while waiting (paced games)
        self._placements = 0
        self.virtual = None
        self.bag_reader = None
        self._diverged: str | None = None
        self.session.bus.subscribe(self._on_message)

    def _on_message(self, msg) -> None:
        # A fix on the dashboard that contradicts the simulated players' board: the camera
        # reading (with the fix) can never match again, so stop instead of waiting for it.
        if msg.kind == "correction" and msg.data.get("content") is not None and not self._diverged:
            at = msg.data["at"]
            self._check_fix(Hex(int(at[0]), int(at[1])), msg.data["content"], self.truth.position)

    def _check_fix(self, h: Hex, content: dict[str, Any], truth: Position) -> None:
        """Note a divergence when the fix of space ``h`` says otherwise than ``truth``."""
        kind = content.get("kind")
        code = truth.tiles.get(h)
        if kind == "tile":
            ok = code is not None and tilecodes.parse(code).code == tilecodes.parse(content["paths"]).code
        elif kind == "rock":
            ok = h in truth.rocks
        elif kind == "empty":
            ok = code is None and h not in truth.rocks
        else:
            ok = True   # substrates and trees: the reading decides
        if not ok and not self._diverged:
            from companion.wording import fix_words, tile_words
            there = tile_words(code) if code else ("a rock" if h in truth.rocks else "nothing")
            self._diverged = (f"the companion's game and the simulated players' game differ at move "
                              f"{len(self.session.game.events) + 1} ({fix_words(self.edition.label(h), content)}, "
                              f"but the simulated players' board has {there} there); the simulated players stop here")

    def _calibrate(self):
        """The companion's colour and piece profile, learned as a user learns it for a copy of
        the game: from photos of the three calibration layouts (hardware/camera.md) taken by
        this table's camera under its light, not the built-in profile."""
        from calibration.colours import calibrate_pieces, load_layout
        profile, _ = calibrate_pieces([], frames=[self._render(load_layout(n)) for n in (1, 2, 3)])
        return profile

    # --- the physical world -----------------------------------------------------------------
    def _render(self, board: dict[str, Any]) -> np.ndarray:
        from companion.sim.render import render
        board = dict(board)
        # Off-board pieces (no spore yet, a displaced spore) are not on camera.
        board["meeples"] = {c: m for c, m in board["meeples"].items() if m is not None}
        board["spores"] = {c: s for c, s in board["spores"].items() if s and s.get("at") is not None}
        return render(board, self.geo, self.cond, self.np_rng, size=self.size, camera=self.camera,
                      px_per_mm=self.px_per_mm).image

    def _feed(self, image: np.ndarray, pause: bool = True) -> None:
        self._t_ms += 100.0
        if not self.fast and pause:
            time.sleep(0.1)
        self.live.on_frame(Frame(image, self._t_ms))
        self.report.frames += 1

    def show(self, board: dict[str, Any], hands: bool = True) -> None:
        """A hand reaches over the board, then the board stays still for 0.4 s."""
        from companion.sim.render import _hands
        image = self._render(board)
        if hands and self._still is not None:
            over = self._still.copy()
            _hands(over, 1, self.np_rng)
            self._feed(over)
            over2 = image.copy()
            _hands(over2, 1, self.np_rng)
            self._feed(over2)
        for _ in range(5):
            self._feed(image)
        self._still = image

    def _keep_filming(self) -> None:
        """The camera goes on filming the still board while the table waits for the companion,
        as a real camera does: a frame 100 ms (of the frames' clock) after the last one, at most
        one per 100 ms of wall-clock time when the game is paced for people to follow."""
        if self._still is None:
            return
        if not self.fast and time.monotonic() - self._filmed < 0.1:
            return
        self._filmed = time.monotonic()
        self._feed(self._still, pause=False)

    def _wait_events(self, n: int, timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while len(self.session.game.events) < n and time.monotonic() < deadline:
            if self._diverged:
                raise SimulationAborted(self._diverged)
            if self.session.illegal is not None and self.session.illegal.get("source") == "reader":
                return False
            if self.session.choices is not None:
                self._answer_choices()
                continue
            if self.session.question is not None:   # answered by _settle
                return False
            time.sleep(0.002)
            self._keep_filming()
            self.live.tick()
        return len(self.session.game.events) >= n

    # --- mirroring the truth -------------------------------------------------------------------
    def _on_truth(self, ev: Event, pos: Position) -> None:
        if self._diverged:
            raise SimulationAborted(self._diverged)
        self._check_in_step(ev, "before")
        mv = ev.move
        self._truth_event = ev
        action = mv["action"]
        before = self.truth.game._positions[-2]
        if action == "place" and self._illegal_now():
            self._inject_illegal(before)
        if action in ("place", "discard"):
            self.tags.used(mv["tile"], mv["player"])
        elif action == "rock":
            self.tags.used(tilecodes.ROCK, mv["player"])
        for h, content in list(self.session.corrections.items()):
            self._check_fix(h, content, pos)   # a fix that held until this move changed the space
        if self._diverged:
            raise SimulationAborted(self._diverged)
        if action in CAMERA_ACTIONS:
            self.show(pos.to_json()["board"])
        elif action == "draw":
            self.virtual.draw(self.tags.take(mv["tile"], mv["player"]))
        elif action == "end_turn":
            self.virtual.press("press")
        elif action == "spore_ability":
            if mv["mode"] == "redraw":
                hand = list(before.hands[mv["player"]])
                i = next(i for i, c in enumerate(hand) if tilecodes.canonical(c) == tilecodes.canonical(mv["discard"]))
                hand.pop(i)
                self.tags.used(mv["discard"], mv["player"])
                self.tags.give_back(hand, mv["player"])
                self.session.submit(mv, source="dashboard")
            self.show(pos.to_json()["board"])
        elif action in DASHBOARD_ACTIONS:
            self.session.submit(mv, source="dashboard")
            if action == "buy":
                self.show(pos.to_json()["board"])
        self._settle(ev, pos)
        if not self.fast:
            time.sleep(self.pace_s)

    def _check_in_step(self, ev: Event, when: str) -> None:
        """Stop when the companion's game is no longer one step behind the simulated players'
        (or level with it): a new game or an undo on the dashboard, or moves the companion
        logged that the players did not make (each named, so the log says which)."""
        s = self.session
        n = len(s.game.events)
        if s.game is not self._game:
            why = "a new game was started on the dashboard"
        elif n < ev.seq - 1:
            why = f"the companion's game went back to move {n} (an undo on the dashboard)"
        elif n > ev.seq:
            extra = "; ".join(f"{e.seq}: {e.notes[0] if e.notes else e.move}" for e in s.game.events[ev.seq - 1:])
            truth = "; ".join(f"{e.seq}: {e.notes[0] if e.notes else e.move}"
                              for e in self.truth.game.events[max(0, ev.seq - 3):ev.seq])
            why = (f"the companion logged {n - ev.seq + 1} move(s) from move {ev.seq} on, {when} the simulated players "
                   f"made move {ev.seq} ({extra}); the players' last moves were {truth}")
        else:
            return
        raise SimulationAborted(why + "; the simulated players stop here")

    def _settle(self, ev: Event, pos: Position) -> None:
        """Wait for the companion to commit this step; count and repair a rejection."""
        s = self.session
        self._check_in_step(ev, "after")
        # Generous: a loaded machine (tablets polling, other programs) must not turn a slow
        # commit into a "rejection".
        ok = self._wait_events(ev.seq, timeout=20.0 if self.fast else 30.0)
        q = s.question
        if not ok and q is not None:
            self.report.questions += 1
            # The truth's whole position picks the answer: boards alone may not tell them apart.
            from companion.table.inference import position_key
            truth = position_key(pos)
            pick = next((i for i, c in enumerate(q.choices)
                         if self._position_after(c["moves"]) == truth), None)
            if pick is not None:
                s.answer(q.id, pick)
                ok = self._wait_events(ev.seq, 2.0)
        if ok:
            return
        self.report.legal_rejected += 1
        self.report.rejections.append(f"event {ev.seq} {ev.move}: illegal={s.illegal} question={bool(q)}")
        if self.report.first_divergence is None:
            self.report.first_divergence = self.report.rejections[-1]
        # Repair as a person would on the dashboard: enter the move by hand.
        s.question = None
        if s.choices is not None:
            s.withdraw_choices("entered on the dashboard")
        s.clear_illegal("entered on the dashboard")
        while len(s.game.events) < ev.seq:
            truth_mv = self.truth.game.events[len(s.game.events)].move
            v = s.submit(truth_mv, source="dashboard")
            if not v.legal:
                raise SimulationAborted(f"the companion's game and the simulated players' game differ at move "
                                        f"{len(s.game.events) + 1} ({v.message}); the simulated players stop here")

    def _answer_choices(self) -> None:
        """Each simulated player answers the dashboard's prompt on their own tablet with the
        cubes their move took in the truth's game: the colours gained for each reason, named
        in the move (``choose``) or left to the rules' default reading (5.b, 7.c), as the
        truth's notes say (:meth:`_gained`); the cubes returned above the cap (5); a
        removal's ``pay`` (4.c).  Raises :class:`SimulationAborted` when the truth's move took
        no cube for a choice the companion asks about."""
        s = self.session
        p = s.choices
        truth = self._truth_event.move if self._truth_event else {}
        gained = self._gained()
        for g in p.groups():
            if g["answer"] is not None:
                continue
            who = g["player"]
            held = dict(s.position.nutrients[who])
            colors: list[str] = []
            for part in g["parts"]:   # in the order the rules ask, as the rules take them (Board.pick)
                allowed, n = part["colors"], part["count"]
                if g["kind"] == "discard":
                    # the cubes this player returned in the truth's move, as the rules took them
                    # (the move's drop in its order, then the most plentiful colour after the
                    # gains): the answer that makes the table's move the same one
                    drop = self._returned(who) or dict((truth.get("drop") or {}).get(who) or {})
                    got = []
                    # in the order the move names them, as the rules take a move's drop
                    # (economy.settle_cap): a drop naming more than the excess keeps its first colours
                    for c in [k for k in drop if k in allowed]:
                        while drop.get(c, 0) > 0 and len(got) < n:
                            drop[c] -= 1
                            got.append(c)
                    while len(got) < n:
                        c = max(allowed, key=lambda k: held.get(k, 0))
                        held[c] -= 1
                        got.append(c)
                elif g["kind"] == "pay":
                    got = self._paid(truth, who, n)
                else:
                    got = self._took(gained, who, part["why"], n)
                colors += got
            s.choose(p.id, who, colors, g["kind"])
            if s.choices is not p:
                return

    def _gained(self) -> dict[tuple[str, str], list[str]]:
        """The cubes each player gained in the truth's last move, per ``(player, why)``, one
        colour per cube in the order gained (from the move's notes, ``economy.gain``: "blue
        gains 1 yellow (mycorrhiza with tree B)").  The notes, not the move, say what a
        choice the move left open took: the rules' default reading counts the cubes gained
        earlier in the same move (a degraded substrate's), which the dashboard's prompt,
        asked before the move is played, cannot."""
        out: dict[tuple[str, str], list[str]] = {}
        for note in self._truth_event.notes if self._truth_event else []:
            m = economy.GAIN_NOTE.match(note)
            if m:
                out.setdefault((m.group(1), m.group(4)), []).extend([m.group(3)] * int(m.group(2)))
        return out

    def _took(self, gained: dict[tuple[str, str], list[str]], who: str, why: str, n: int) -> list[str]:
        """The ``n`` colours ``who`` gained for ``why`` in the truth's move, taken from
        ``gained`` (:meth:`_gained`); raises :class:`SimulationAborted` when it lists fewer."""
        have = gained.get((who, why), [])
        if len(have) < n:
            raise SimulationAborted(f"the companion asks {who} which {counted(n, 'cube')} they gained for {why}, but in "
                                    f"the simulated players' move they gained {len(have)}; the simulated players stop here")
        got, gained[(who, why)] = have[:n], have[n:]
        return got

    def _paid(self, truth: dict[str, Any], who: str, n: int) -> list[str]:
        """The ``n`` cubes ``who`` paid for the truth's removal (4.c), one colour per cube:
        its ``pay``, else the rules' default (the largest stacks)."""
        pay = truth.get("pay") or economy.any_payment(self.session.position.nutrients[who], n) or {}
        return [k for k, v in pay.items() for _ in range(v)]

    def _returned(self, who: str) -> dict[str, int]:
        """Cubes ``who`` discarded above the cap in the truth's last move, by colour in the
        order returned (from the move's notes, ``economy.pay``: "blue returns 2 pink
        (discarded ...)")."""
        out: dict[str, int] = {}
        for note in self._truth_event.notes if self._truth_event else []:
            m = economy.RETURN_NOTE.match(note)
            if m and m.group(1) == who and "cap of" in m.group(4):
                out[m.group(3)] = out.get(m.group(3), 0) + int(m.group(2))
        return out

    def _position_after(self, moves: list[dict[str, Any]]) -> str | None:
        from companion.rules import IllegalMove, apply
        from companion.table.inference import position_key
        p = self.session.position
        try:
            for m in moves:
                p = apply(p, m, self.edition).position
        except IllegalMove:
            return None
        return position_key(p)

    def _illegal_now(self) -> bool:
        """Whether this placement is first made illegally: about one in ``illegal_every`` (a
        random draw), and the ``illegal_every``-th and each later one while none was injected
        yet, so that every demo long enough shows the companion catching a rule (README)."""
        self._placements += 1
        if not self.illegal_every:
            return False
        drawn = self.rng.random() < 1.0 / self.illegal_every    # drawn first: each seed's game stays the same
        return drawn or (self.report.illegal_injected == 0 and self._placements >= self.illegal_every)

    def _inject_illegal(self, before: Position) -> None:
        """Place a hand tile where the rules forbid it, wait to be told, take it back."""
        p = before.active
        hand = [c for c in before.hands[p] if c != tilecodes.ROCK]
        if not hand or self.session.position.to_json()["board"] != before.to_json()["board"]:
            return
        spaces = sorted(h for h in self.edition.spaces if before.occupant(h) is None and h not in before.substrates
                        and h != before.meeples.get(p))
        self.rng.shuffle(spaces)
        for h in spaces[:40]:
            code = self.rng.choice(hand)
            k = self.rng.randrange(6)
            mv = {"player": p, "action": "place", "tile": code, "at": [h.q, h.r], "rotation": k}
            if check(before, mv, self.edition).legal:
                continue
            board = before.to_json()["board"]
            board["tiles"].append({"at": [h.q, h.r], "paths": tilecodes.rotate_code(code, k)})
            self.report.illegal_injected += 1
            n_caught = self.session.counts["illegal_caught"]
            self.show(board)
            if self.session.counts["illegal_caught"] > n_caught and self.session.illegal is not None:
                self.report.illegal_caught += 1
            self.show(before.to_json()["board"])   # taken back
            return

    # --- the whole game ----------------------------------------------------------------------
    def run(self) -> SimReport:
        """Play the game to its end through the camera and the reader; returns the report."""
        from firmware_bridge.drivers import make_driver
        from firmware_bridge.events import as_dict
        from firmware_bridge.reader import BagReader
        from firmware_bridge.virtual import VirtualReader

        self.virtual = VirtualReader("companion", heartbeat_ms=500).start()
        self.bag_reader = BagReader(make_driver("companion"), lambda: self.virtual.port,
                                    lambda e: self.live.on_reader_event(as_dict(e)), self.tags.lookup).start()
        self.live.bag_reader = self.bag_reader
        self.session.feedback = self.live.feedback
        try:
            deadline = time.monotonic() + 10
            while not self.bag_reader.connected.is_set() and time.monotonic() < deadline:
                time.sleep(0.01)
            self.show(self.truth.position.to_json()["board"], hands=False)
            self.truth.run()
        finally:
            self.bag_reader.stop()
            self.virtual.stop()
        self._finish()
        return self.report

    def _finish(self) -> None:
        r = self.report
        s = self.session
        r.result = s.position.result
        r.events = len(s.game.events)
        r.cards_bought = sum(len(v) for v in s.position.cards.values())
        r.removals = sum(e.move.get("action") == "remove" for e in s.game.events)
        if r.result is not None:
            r.ended = "bag_empty" if s.position.bag == 0 else "victory"
        r.reads = self.live.stats["reads"]
        r.latencies_ms = list(self.live.commit_latencies_ms)
        truth = self.truth.game
        same = len(truth.events) == len(s.game.events)
        if same:
            for i, (a, b) in enumerate(zip(truth.events, s.game.events)):
                if (a.move["action"], a.move["player"]) != (b.move["action"], b.move["player"]) or \
                        truth._positions[i + 1].to_json() != s.game._positions[i + 1].to_json():
                    same = False
                    if r.first_divergence is None:
                        r.first_divergence = f"event {i + 1}: truth {a.move} vs inferred {b.move}"
                    break
        r.log_matches_truth = same and r.legal_rejected == 0
