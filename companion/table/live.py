"""The live table loop: camera frames and tile-bag events in, validated moves out.

:class:`LiveTable` turns inputs into moves on a :class:`~companion.table.session.TableSession`:

- :meth:`LiveTable.on_frame`: stillness gate, board reading (the active hand and the tiles on
  the board narrow the tile candidates), move inference, then the rules through the session;
- :meth:`LiveTable.on_reader_event`: a tile drawn from the bag becomes a ``draw``, the button
  ends the turn; a draw or button press that arrives before the camera has committed the
  placement it follows waits (a few seconds at most) and is retried after each commit.

Both are plain synchronous methods: the camera thread and the reader thread call them (under
the session's lock), a replay calls them in recorded order, and the simulated table in fast
mode calls :meth:`on_frame` directly.  :meth:`run` starts the threads and stops cleanly on
Ctrl-C.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Any, NamedTuple

from companion import tiles as tilecodes
from companion.table.gating import StillnessGate
from companion.table.inference import (LOW_CONFIDENCE, apply_corrections, attempted_move, explain, position_key,
                                       view_of_board)
from companion.table.session import TableSession
from companion.table.sources import GIVE_UP_S, STALL_S, CameraFailed, Frame, FrameSource, StallWatchdog
from companion.tilebag import TileLedger, draw_move

PENDING_S = 5.0
"""How long a reader input that is not yet legal (a draw before the placement was seen) waits."""
READER_STATUS = {"BoardNotFoundError": "no board", "UnreadableImageError": "unreadable frame"}
"""The camera status word shown for each kind of reader error (others: ``unreadable``)."""
MAX_FRAME_ERRORS = 50
"""Frames in a row that may fail in the loop before the companion stops and says why."""
RETRY_REASONS = {"hand_full", "must_place_or_discard", "must_draw", "spore_turn_over", "substrate_due"}
"""Refusals of a reader input that the camera may lift within :data:`PENDING_S` (a draw read before
the placement is seen; a press before the new substrate token is seen laid, 5.a): the input waits."""
LOOK_AGAIN_MS = 2000.0
"""How long (ms of the frames' clock) a still board waits before it is read again when its last
reading left something to look at again: an unsure reading that two or more moves explain (the
same reading then is asked about; docs/table.md, "Unsure readings"), or spaces it could not read,
something covering them or glare (read again until they read clean; docs/table.md, "When the
camera misbehaves")."""


class HeldReading(NamedTuple):
    """An unsure reading that two or more moves explain, held waiting for a clearer view."""

    spaces: frozenset
    """The differing spaces read unsure (:class:`~companion.hexgrid.Hex`)."""
    candidates: frozenset
    """The positions the explaining moves lead to (:func:`~companion.table.inference.position_key`)."""
    since_ms: float
    """The time stamp (ms) of the frame it was first read from."""
    asked: bool = False
    """Whether the table has been asked which move it was (the board is then not read again
    until it moves)."""


class PressTurn(NamedTuple):
    """The turn an end-of-turn press of the bag reader's button was made in."""

    round: int
    """The position's ``turn_number`` when the press came."""
    player: str
    """The active player when the press came."""
    after: str | None = None
    """The player whose turn had just ended when the press came, before anything of
    ``player``'s turn was logged or drawn (docs/table.md, "Early inputs"): the press is
    theirs pressed twice or ``player``'s own before drawing, so the table is asked.
    ``None`` for any other press."""


class PendingInput(NamedTuple):
    """A reader input waiting for the move it follows (at most :data:`PENDING_S`)."""

    since: float
    """When it started waiting (the loop's clock, seconds)."""
    move: dict[str, Any]
    """The ``draw`` or ``end_turn`` move it becomes."""
    turn: PressTurn | None
    """The turn an end-of-turn press belongs to; ``None`` for a draw."""


def _times(n: int) -> str:
    """``once``, ``2 times``."""
    return "once" if n == 1 else f"{n} times"


def hidden_differences(before, after, others) -> str:
    """What ``after`` leaves that the camera cannot see and that differs between the candidate
    positions ``others``, in words: per player the tiles played from the hand, the nutrients,
    the cards; then the actions left this turn ("blue: plays a rock, nutrients 3 -> 1").
    Empty when nothing hidden differs."""
    def doc(p):
        return {c: (sorted(p.hands.get(c, [])), sum(p.nutrients.get(c, {}).values()), dict(p.nutrients.get(c, {})),
                    sorted(p.cards.get(c, []))) for c in p.colors}
    docs, mine, old = [doc(o) for o in others], doc(after), doc(before)
    out = []
    for c in after.colors:
        bits = []
        if any(d[c][0] != mine[c][0] for d in docs):
            gone = ["a rock" if t == tilecodes.ROCK else t for t in (Counter(old[c][0]) - Counter(mine[c][0])).elements()]
            bits.append("plays " + ", ".join(gone) if gone else "plays no tile")
        if any(d[c][2] != mine[c][2] for d in docs):
            bits.append(f"nutrients {old[c][1]} -> {mine[c][1]}"
                        + ("" if any(d[c][1] != mine[c][1] for d in docs) else f" ({_cubes(mine[c][2])})"))
        if any(d[c][3] != mine[c][3] for d in docs):
            bits.append(f"cards {len(old[c][3])} -> {len(mine[c][3])}")
        if bits:
            out.append(f"{c}: " + ", ".join(bits))
    if {tuple(sorted(o.taken)) for o in others} != {tuple(sorted(after.taken))}:
        out.append("done this turn: " + (", ".join(sorted(after.taken)) or "nothing"))
    return "; ".join(out)


def _cubes(held: dict[str, int]) -> str:
    return ", ".join(f"{n} {c}" for c, n in sorted(held.items()) if n) or "none"


def drawing_player(pos) -> str:
    """Who a tile drawn from the bag goes to: the active player, or during setup the first
    player in turn order with fewer than 3 tiles (rulebook 3)."""
    if pos.in_setup:
        return next((c for c in pos.colors if len(pos.hands[c]) < 3), pos.active)
    return pos.active


class LiveTable:
    """The loop around one session.  ``reader``: a :class:`~companion.vision.reader.BoardReader`
    (created on first use when ``None``).  ``recorder``: a
    :class:`~companion.table.record.Recorder` or ``None``."""

    def __init__(self, session: TableSession, reader=None, gate: StillnessGate | None = None, recorder=None,
                 clock: Callable[[], float] = time.monotonic):
        self.session = session
        self._reader = reader
        self._small_sizes: dict[tuple[int, int], str | None] = {}
        self.gate = gate or StillnessGate()
        self.recorder = recorder
        self.clock = clock
        # reader inputs waiting for the move they follow
        self.pending: deque[PendingInput] = deque()
        self.stats = {"frames": 0, "reads": 0, "read_errors": 0, "frame_errors": 0, "held_low_confidence": 0, "questions": 0,
                      "mismatches": 0, "last_read_ms": 0.0, "last_commit_latency_ms": 0.0,
                      "reads_in_play": 0, "last_read_changed": None, "reader_connects": 0, "reader_events": 0,
                      "moves_read": 0, "illegal_read": 0}
        """Counts of what the camera and the bag reader gave.  ``moves_read``: the moves committed
        from the camera's readings (a still frame may show several; the answers to the camera's
        questions and the moves that waited for the players' choices count once played);
        ``illegal_read``: still frames showing a move the rules refuse (each announced once)."""
        self.commit_latencies_ms: list[float] = []
        """Per still frame that committed moves, how long its reading and inference took (ms)."""
        self._last_attempt: dict[str, Any] | None = None
        self._last_uncertain: frozenset = frozenset()
        self._held: HeldReading | None = None   # the unsure reading waiting for a clearer view
        self._unreadable = False   # whether the last reading left any space unread (covered or glare)
        self._last_read_at_ms: float | None = None   # the time stamp of the last still frame read
        self._stop = threading.Event()
        self.bag_reader = None
        self.tilebag = TileLedger()
        """Where each tag is; a read of a tag that is not in the bag is no draw (issue 11)."""
        self._recheck = False
        self._committed = None  # the last reading that matched the game: the next read starts from it
        self._frame_shape: tuple[int, int] | None = None
        self._asked: str | None = None
        self._asked_press: str | None = None   # the open "whose press was that?" question
        self.stopped_because: str | None = None
        """Why the camera loop stopped, when it was not the end of the frames or a stop asked for."""
        self.interrupted: str | None = None
        """How a person stopped :meth:`run` ("Ctrl-C", "SIGTERM"), or ``None``."""
        self.frame_errors = 0
        self.stall_s = STALL_S
        """Seconds without a frame after which the camera is reopened."""
        self.give_up_s = GIVE_UP_S
        """Seconds of reopening without a frame after which the loop stops and says why."""
        self._awaiting_reading = None   # the reading whose move waits for the players' choices
        self._camera_move_waits = False   # the move waiting for the players' choices is the camera's
        self.feed = None
        """A lazy :class:`web.setup.CameraFeed`: every frame is offered to the dashboard's
        camera setup page (it copies one only while the page is open)."""
        session.bus.subscribe(self._on_message)

    def _on_message(self, msg) -> None:
        if msg.kind in ("move", "undo", "reset") and self._asked_press is not None:
            self._settle_press_question(msg)
        # After an undo, a fix or a new game the board has not moved, so the gate will not
        # open by itself: compare the still board with the new position on the next frame.
        if msg.kind in ("undo", "correction", "reset"):
            self._recheck = True
            self._committed = None
            self._held = None
        elif msg.kind in ("choices_done", "choices_withdrawn"):
            # The move that waited for the players' choices is settled: read the still board
            # again (from the reading that showed the move, once it is in the game), and give
            # the reader inputs that waited behind it their full time.
            self._recheck = True
            if msg.kind == "choices_done" and self._awaiting_reading is not None:
                self._committed = self._awaiting_reading
            if msg.kind == "choices_done" and self._camera_move_waits:
                self.stats["moves_read"] += 1
            self._awaiting_reading = None
            self._camera_move_waits = False
            self.pending = deque(PendingInput(self.clock(), p.move, p.turn) for p in self.pending)

    @property
    def reader(self):
        if self._reader is None:
            from companion.vision.reader import BoardReader
            self._reader = BoardReader()
        return self._reader

    # --- camera -------------------------------------------------------------------------
    def on_frame(self, frame: Frame) -> bool:
        """Process one frame; returns ``True`` when it was read (the board had been still).

        A frame of another size than the last one is reported and starts the gate and the
        reader over; raises ``ValueError`` for something that is not an image."""
        self.stats["frames"] += 1
        if self.recorder is not None:
            self.recorder.frame(frame)
        if self.feed is not None:
            self.feed.offer(frame.image)
        self._check_size(frame.image)
        if not self.gate.feed(frame.image, frame.t_ms):
            if self._recheck and not self.gate.motion and self.gate.has_read:
                self._recheck = False
                self.read_still(frame)
                return True
            if self._look_again(frame.t_ms):
                self.read_still(frame)
                return True
            return False
        self._recheck = False
        self.read_still(frame)
        return True

    def _look_again(self, t_ms: float) -> bool:
        """Whether the board, still since its last reading (no hand has moved over it), has
        stayed so for :data:`LOOK_AGAIN_MS` and is read again because that reading left
        something to look at again: an unsure reading held that two or more moves explain, not
        yet asked about (the same reading again is asked about instead of waiting for ever), or
        spaces it could not read: something covered them (a sleeve, a phone, a hand lifted just
        before the frame) or glare did (a lamp moved or dimmed since); the board is read until
        they read clean, and what they show is committed.  A still board with neither is never
        read again, so a clean board costs no read."""
        held = self._held
        waiting = (held is not None and not held.asked) or self._unreadable
        since, last = self.gate.still_since_ms, self._last_read_at_ms
        return (waiting and not self.gate.motion and since is not None and last is not None
                and since <= last and t_ms - last >= LOOK_AGAIN_MS)

    def _hand_codes(self) -> list[str]:
        pos = self.session.position
        codes = {tilecodes.canonical(c) for c in pos.hands.get(pos.active, []) if c != tilecodes.ROCK}
        codes |= {tilecodes.canonical(c) for c in pos.tiles.values()}
        return sorted(codes)

    def read_still(self, frame: Frame) -> None:
        """Read a still frame and turn what changed into moves (or an illegal report)."""
        from companion.vision.errors import VisionError
        s = self.session
        self._last_read_at_ms = frame.t_ms
        small = self._too_small(frame.image)
        if small:   # pieces a few pixels wide would be misread: camera check's sentence instead
            self.stats["read_errors"] += 1
            s.set_status("camera", "too small", small)
            return
        # The game's colours: a marker, spore or meeple of a colour out of the game (a mug's
        # red rim) is then unsure, not a piece (rulebook 2.g, 3).
        self.reader.players = list(s.position.colors) or None
        t0 = time.perf_counter()
        try:
            reading = self.reader.read(frame.image, hand=self._hand_codes() or None, previous=self._committed)
        except VisionError as e:
            # Nothing is guessed from a frame the reader refuses; the sentence says what to fix.
            self.stats["read_errors"] += 1
            s.set_status("camera", READER_STATUS.get(type(e).__name__, "unreadable"), str(e))
            return
        except Exception as e:  # a reader failure must not end the loop, nor pass unheard
            self.stats["read_errors"] += 1
            reset = getattr(self._reader, "reset", None)
            if callable(reset):
                reset()
            s.set_status("camera", "reader error", f"the board reader failed on this frame ({type(e).__name__}: {e}); "
                                                   "the next still frame is read afresh")
            return
        self.stats["reads"] += 1
        self.stats["last_read_ms"] = (time.perf_counter() - t0) * 1000
        # read in play: only the spaces changed since the committed reading were read again
        changed = getattr(reading, "changed", None)
        self.stats["reads_in_play"] += changed is not None
        self.stats["last_read_changed"] = changed
        covered = _covered_labels(reading, s.edition)
        self._unreadable = bool(getattr(reading, "unreadable", None))
        if covered:   # the dashboard's banner says it; the spaces are held (confidence 0) below
            from companion.vision.covered import covered_sentence
            s.set_status("camera", "covered", covered_sentence(covered))
        else:
            s.set_status("camera", "ok")
        with s.lock:
            if s.choices is not None:
                return   # a move waits for the players' choices: the board is read again once it is settled
            pos = s.position
            observed = apply_corrections(view_of_board(reading.board), s.corrections)
            ex = explain(pos, s.edition, observed)
            diff = ex.diff
            if not diff:
                self._committed = reading
                self._last_attempt = None
                self._held = None
                s.clear_illegal(source="camera")
                self._retry_pending()
                return
            low = frozenset(h for h in diff if reading.confidence.get(f"{h.q},{h.r}", 1.0) < LOW_CONFIDENCE)
            if low and len(ex.matches) != 1:
                # An unsure reading is committed only when exactly one legal move explains it.
                self.stats["held_low_confidence"] += 1
                self._hold_unsure(low, ex, frame.t_ms)
                return
            self._last_uncertain = frozenset()
            self._held = None
            if len(ex.matches) == 1:
                seq, _ = ex.matches[0]
                n0 = len(s.game.events)
                self._withdraw_question()
                for mv in seq:
                    s.submit(mv, source="camera")
                if s.choices is not None and s.choices.source == "camera":
                    self._awaiting_reading = reading
                    self._camera_move_waits = True
                self.stats["moves_read"] += len(s.game.events) - n0
                if len(s.game.events) > n0:
                    self._committed = reading
                    lat = (time.perf_counter() - t0) * 1000
                    self.stats["last_commit_latency_ms"] = lat
                    self.commit_latencies_ms.append(lat)
                self._last_attempt = None
                self._retry_pending()
                return
            if len(ex.matches) > 1:
                self._ask(ex)
                return
            attempt = attempted_move(pos, s.edition, observed)
            if attempt is not None and not s.game.check(attempt).legal:
                if attempt != self._last_attempt:
                    self._last_attempt = attempt
                    self.stats["illegal_read"] += 1
                    s.submit(attempt, source="camera")
                return
            self.stats["mismatches"] += 1
            labels = [s.edition.label(h) for h in sorted(diff)]
            s.bus.publish("mismatch", {"spaces": labels,
                                       "message": "The board differs from the game at " + ", ".join(labels)
                                       + "; put the pieces back or fix the spaces on the dashboard."})

    def _hold_unsure(self, low: frozenset, ex, t_ms: float) -> None:
        """Hold a reading with the spaces ``low`` read unsure that no single move explains
        (``ex``: its :class:`~companion.table.inference.Explanation`), read from the frame of
        time stamp ``t_ms``.  Two or more moves explaining it: the same reading again at least
        :data:`LOOK_AGAIN_MS` later (the board still, or read again after it moved) asks the
        table which move it was; a new one waits for a clearer view from then on."""
        s = self.session
        labels = [s.edition.label(h) for h in sorted(low)]
        candidates = frozenset(position_key(after) for _, after in ex.matches)
        held = self._held
        if len(candidates) >= 2 and held is not None and (held.spaces, held.candidates) == (low, candidates):
            asked = held.asked or (t_ms - held.since_ms >= LOOK_AGAIN_MS and self._ask(ex, unsure=labels))
            self._held = held._replace(asked=asked)
            return
        # with no move that fits, there is nothing to ask: the reading waits for a clearer view or a fix
        self._held = HeldReading(low, candidates, t_ms) if len(candidates) >= 2 else None
        if low != self._last_uncertain:
            self._last_uncertain = low
            then = (f" If the board stays as it is, the table is asked in {LOOK_AGAIN_MS / 1000:.0f} s which of the "
                    f"{len(candidates)} moves that fit it was made." if len(candidates) >= 2 else "")
            s.bus.publish("uncertain", {"spaces": [{"at": [h.q, h.r], "label": s.edition.label(h)} for h in sorted(low)],
                                        "message": f"The camera is unsure of {', '.join(labels)}; waiting for a clearer "
                                                   f"view (or fix the space).{then}"})

    def _withdraw_question(self) -> None:
        # A later still board that only one sequence explains settles an open question of
        # the camera's (a tile placed after "rock then removal?" rules the rock out).
        s = self.session
        q = s.question
        if q is not None and q.id == self._asked:
            s.question = None
            s.bus.publish("answered", {"id": q.id, "choice": None, "why": "the board that followed settled it"})
        self._asked = None

    def _ask(self, ex, unsure: list[str] | None = None) -> bool:
        """Ask the table which of several explanations happened: each choice names its moves
        (each described on the board it was made on) and what it leaves that the camera cannot
        see (hands, nutrients, cards, spores, turn).  ``unsure``: the labels of the spaces the
        camera read unsure, said in the question.  Returns whether it was asked (not while
        another question is open)."""
        s = self.session
        if s.question is not None:
            return False
        self.stats["questions"] += 1
        from companion.moves import parse_move
        from companion.rules import Board, _describe, apply
        choices = []
        for seq, after in ex.matches:
            p, parts = s.position, []
            for mv in seq:
                parts.append(_describe(Board(p, s.edition), parse_move(mv)))
                p = apply(p, mv, s.edition).position
            hidden = hidden_differences(s.position, after, [m for _, m in ex.matches])
            label = "; then ".join(parts) + (f" ({hidden})" if hidden else "")
            choices.append({"label": label, "moves": seq})
        if unsure:
            where = ", ".join(unsure)
            detail = (f"The camera is unsure of {where} and has read the same board twice, "
                      f"{LOOK_AGAIN_MS / 1000:.0f} s or more apart; each of these moves leaves it so. "
                      f"If none of them was made, fix {where} on the dashboard.")
            prompt = f"The camera is unsure of {where}, and each of these moves fits what it reads; which happened?"
        else:
            detail = "The camera sees the same board after each of them."
            prompt = "The camera sees the same board after each of these; which happened?"
        self._asked = s.ask(prompt, choices, lambda i: self._play_answer(choices[i]["moves"]),
                            title="Which of these happened?", detail=detail).id
        return True

    def _play_answer(self, moves: list[dict[str, Any]]) -> None:
        """Play the moves of the answer the table gave to a question of the camera's (they are
        moves the camera read: :attr:`stats` counts them)."""
        s = self.session
        n0 = len(s.game.events)
        for mv in moves:
            s.submit(mv, source="answer")
        if s.choices is not None and s.choices.source == "answer":
            self._camera_move_waits = True
        self.stats["moves_read"] += len(s.game.events) - n0

    # --- tile bag -----------------------------------------------------------------------
    def on_reader_event(self, ev: dict[str, Any]) -> None:
        """Handle one bridge event as a dict (``firmware_bridge.events.as_dict``)."""
        s = self.session
        if self.recorder is not None:
            self.recorder.reader(ev)
        kind = ev.get("event")
        if kind in ("tile_drawn", "button", "unknown_tag"):
            self.stats["reader_events"] += 1
        if kind == "tile_drawn":
            with s.lock:
                self.tilebag.follow(s.game.events, s.game.initial.hands)
                seen = self.tilebag.sighting(ev["uid"], ev["tile"], (p.move.get("uid") for p in self.pending))
                if seen.action == "repeat":
                    s.bus.publish("tag_repeat", {"uid": ev["uid"], "tile": ev["tile"], "place": seen.place,
                                                 "count": sum(self.tilebag.repeats.values()),
                                                 "message": f"{ev['tile']} ({ev['uid']}) was read again but is not in "
                                                            f"the bag ({seen.place}): not a draw. "
                                                            + self.tilebag.summary() + "."})
                    s.set_status("reader_repeats", str(sum(self.tilebag.repeats.values())), self.tilebag.summary())
                    return
                move = draw_move(drawing_player(s.position), ev["tile"], ev["uid"], ev.get("reader"))
                self._submit_or_wait(move)
        elif kind == "button":
            with s.lock:
                if ev.get("kind") == "long":
                    s.bus.publish("button", {"kind": "long"})
                    return
                move = {"player": s.position.active, "action": "end_turn"}
                if ev.get("reader"):
                    move["reader"] = ev["reader"]  # where a restarted table resumes the reader
                self._submit_or_wait(move)
        elif kind == "unknown_tag":
            s.bus.publish("unknown_tag", {"uid": ev.get("uid"),
                                          "message": f"Tag {ev.get('uid')} is not enrolled: run 'mycelium-companion rfid enroll'."})
            self.feedback("illegal")
        elif kind == "reader_connected":
            self.stats["reader_connects"] += 1
            s.set_status("reader", "connected", ev.get("port", ""))
        elif kind == "reader_disconnected":
            why = ev.get("reason", "")
            if why == "stopped":   # closed by the companion itself (the end of a game), not a fault
                s.set_status("reader", "closed", "")
            else:
                s.set_status("reader", "disconnected", why)
        elif kind == "frame_error":
            if ev.get("kind") == "version":
                s.set_status("reader", "wrong firmware", ev.get("detail", ""))
            s.bus.publish("reader_error", {"kind": ev.get("kind"), "count": ev.get("count", 1),
                                           "detail": ev.get("detail", "")})
        elif kind == "reader_notice":
            s.bus.publish("reader_notice", {"kind": ev.get("kind"), "message": ev.get("detail", "")})

    def _press_after_turn_end(self) -> bool:
        """Whether a press arriving now comes before anything of the active player's turn:
        the last move logged ended the previous turn and no draw waits.  At the table a
        player draws before pressing, and the reader gives its events in the order they
        happened, so such a press is either a second press of the player whose turn just
        ended or this player's press made before drawing; the table is asked which
        (:meth:`_ask_press`) before it ends anyone's turn."""
        events = self.session.game.events
        return bool(events) and events[-1].move["action"] == "end_turn" and \
            not any(p.move["action"] == "draw" for p in self.pending)

    def _ask_press(self, move: dict[str, Any], before: str) -> None:
        """Ask whether a press that came right after ``before``'s turn ended (see
        :meth:`_press_after_turn_end`) ends the active player's turn; "yes" plays ``move``."""
        s = self.session
        player = move["player"]
        why = f"The button was pressed right after {before}'s turn ended, before {player} drew"
        q = s.ask(f"{why}: does {player}'s turn end now?",
                  [{"label": f"Yes: {player} ends the turn", "moves": [move]},
                   {"label": f"No: {before} pressed twice; {player}'s turn goes on", "moves": []}],
                  title=f"Does {player}'s turn end now?", detail=why + ".")
        self._asked_press = q.id

    def _settle_press_question(self, msg) -> None:
        # A turn that ended (a press of the player's own, the dashboard), an undo or a new game
        # after the question was put: its answer no longer applies.
        s = self.session
        if msg.kind == "move" and (msg.data.get("event") or {}).get("move", {}).get("action") != "end_turn":
            return
        with s.lock:
            q = s.question
            if q is not None and q.id == self._asked_press:
                s.question = None
                s.bus.publish("answered", {"id": q.id, "choice": None, "why": "the turn was ended or changed meanwhile"})
            self._asked_press = None

    def _submit_or_wait(self, move: dict[str, Any]) -> None:
        s = self.session
        pos = s.position
        turn = PressTurn(pos.turn_number, pos.active) if move["action"] == "end_turn" else None
        if turn is not None and self._press_after_turn_end():
            turn = turn._replace(after=s.game.events[-1].move["player"])   # pressed right after that player's turn
        if s.choices is not None:   # after the move that waits for the players' choices
            self.pending.append(PendingInput(self.clock(), move, turn))
            return
        verdict = s.game.check(move)
        if verdict.legal and turn is not None and turn.after is not None:
            if s.question is None:
                self._ask_press(move, turn.after)
            else:
                self.pending.append(PendingInput(self.clock(), move, turn))
        elif verdict.legal:
            s.submit(move, source="reader")
            self._retry_pending()
        elif verdict.reason in RETRY_REASONS and s.question is None:
            self.pending.append(PendingInput(self.clock(), move, turn))
        else:
            s.submit(move, source="reader")  # held as illegal, with its reason

    def _retry_pending(self) -> None:
        s = self.session
        if s.choices is not None:
            return
        now = self.clock()
        progress = True
        while progress and self.pending:
            progress = False
            for _ in range(len(self.pending)):
                t, move, turn = self.pending.popleft()
                if move["action"] == "draw":
                    move = dict(move, player=drawing_player(s.position))
                elif move["action"] == "end_turn":
                    if turn is not None and (turn.round, turn.player) != (s.position.turn_number, s.position.active):
                        # a second press (a bounce, a press repeated while the first waited)
                        # of a turn that has ended since: it must not end the next player's turn
                        s.bus.publish("button_ignored", {"message": f"An end-of-turn press of {turn.player}'s turn "
                                                                    "came after that turn had ended: ignored."})
                        continue
                    move = dict(move, player=s.position.active)
                legal = s.game.check(move).legal
                if legal and turn is not None and turn.after is not None:   # pressed right after a turn ended
                    if s.question is None:
                        self._ask_press(move, turn.after)
                    elif now - t < PENDING_S:
                        self.pending.append(PendingInput(t, move, turn))
                    else:   # another question stayed open all along: say so, end no turn
                        s.bus.publish("button_ignored", {"message": f"A press right after {turn.after}'s turn ended "
                                                                    f"was not taken: {move['player']}, press again to "
                                                                    "end the turn."})
                elif legal:
                    s.submit(move, source="reader")
                    progress = True
                elif now - t < PENDING_S:
                    self.pending.append(PendingInput(t, move, turn))
                else:
                    s.submit(move, source="reader")

    def tick(self) -> None:
        """Expire reader inputs that waited too long (called by the camera thread)."""
        with self.session.lock:
            self._retry_pending()

    # --- feedback at the table ------------------------------------------------------------
    def feedback(self, kind: str) -> None:
        """Red LED and a low beep for an illegal move, a short green blink for a legal one."""
        br = self.bag_reader
        if br is None:
            return
        from firmware_bridge import protocol as P
        from firmware_bridge.errors import FrameError
        try:
            if kind == "illegal":
                br.send(P.set_led(255, 0, 0, 2000))
                br.send(P.beep(440, 300))
            else:
                br.send(P.set_led(0, 255, 0, 300))
        except FrameError:
            pass  # a reader without LED or buzzer (RDM6300, PN532)

    # --- threads ---------------------------------------------------------------------------
    def camera_problem(self, status: str, detail: str) -> None:
        """Report a camera problem (or its end) on the terminal and the dashboard (the status
        chip, and the sentence under the top bar)."""
        self.session.set_status("camera", status, detail)

    def restart_vision(self) -> None:
        """Forget frame history after the camera was reopened or changed size: the gate starts
        over, the reader drops what it kept of earlier frames, and the board is compared again
        once still."""
        self.gate.reset()
        self._frame_shape = None
        reset = getattr(self._reader, "reset", None)
        if callable(reset):
            reset()
        self._recheck = True

    def _too_small(self, image) -> str | None:
        """``camera check``'s sentence when frames of this size are too small for the board
        reader however the camera is placed (:func:`companion.vision.assistant.resolution_problem`),
        else ``None``; worked out once per frame size."""
        from companion.vision.assistant import resolution_problem
        size = (image.shape[1], image.shape[0])
        if size not in self._small_sizes:
            geo = getattr(self.reader, "geo", None)   # a stand-in reader without a board: not judged
            self._small_sizes[size] = resolution_problem(size, geo) if geo is not None else None
        return self._small_sizes[size]

    def _check_size(self, image) -> None:
        shape = image.shape[:2] if getattr(image, "ndim", 0) >= 2 else None
        if shape is None:
            raise ValueError(f"the camera gave no image (an array of shape {getattr(image, 'shape', None)})")
        if self._frame_shape is not None and shape != self._frame_shape:
            old = self._frame_shape
            self.restart_vision()
            self.camera_problem("resized", f"frames changed size from {old[1]}x{old[0]} to {shape[1]}x{shape[0]} px; "
                                           "the stillness gate and the board reader start over")
        self._frame_shape = shape

    def camera_loop(self, source: FrameSource) -> None:
        """Read frames until :meth:`stop` or the end of a replay.

        Nothing here stops the loop but the end of the frames or a camera that cannot be
        brought back: an error from the source or a stall reopens it, an error while handling
        a frame is reported and the gate and reader start over.  The reason the loop ended is
        in :attr:`stopped_because` (``None`` for the normal end of a folder or a replay).
        """
        dog = StallWatchdog(source, self.camera_problem, stall_s=self.stall_s, on_restart=self.restart_vision,
                            give_up_s=self.give_up_s)
        handling_errors = 0
        try:
            while not self._stop.is_set():
                f = dog.read(0.5)
                if f is not None:
                    try:
                        self.on_frame(f)
                        handling_errors = 0
                    except Exception as e:   # a bug or a frame no part of the loop expected
                        handling_errors += 1
                        self.stats["frame_errors"] += 1
                        self.restart_vision()
                        self.camera_problem("error", f"a frame could not be handled ({type(e).__name__}: {e}); "
                                                     "starting over with the next frames")
                        if handling_errors >= MAX_FRAME_ERRORS:
                            raise CameraFailed(f"{handling_errors} frames in a row could not be handled; last: {e}") from e
                elif dog.finished:
                    self.frame_errors = dog.errors
                    break
                self.tick()
        except CameraFailed as e:
            self.stopped_because = f"camera: {e}"
        except Exception as e:   # the loop itself must never die unheard
            self.stopped_because = f"camera loop: {type(e).__name__}: {e}"
        finally:
            dog.close()
            self.frame_errors = dog.errors
            if self.stopped_because:
                self.camera_problem("failed", self.stopped_because)

    def stop(self) -> None:
        self._stop.set()

    def run(self, source: FrameSource | None, bag_reader=None, until: Callable[[], bool] | None = None) -> int:
        """Run the camera thread (and the bag reader's own thread) until Ctrl-C, :meth:`stop`,
        ``until()`` or the end of the frames; then shut everything down.

        Returns the exit status: 0 for a stop asked for (Ctrl-C, SIGTERM: see
        :attr:`interrupted`) or frames that ended after a move was read; 1 when the camera loop
        had to stop (the reason is printed and kept in :attr:`stopped_because`) or a finite
        source (a folder, a video file) ended without one move read from it (the reason, from
        :meth:`why_no_moves`, is printed).
        """
        self.bag_reader = bag_reader
        threads = []
        if source is not None:
            t = threading.Thread(target=self.camera_loop, args=(source,), name="camera", daemon=True)
            t.start()
            threads.append(t)
        try:
            while not self._stop.is_set() and not (until and until()):
                if source is not None and not threads[0].is_alive():
                    break
                time.sleep(0.1)
        except KeyboardInterrupt as e:
            self.interrupted = str(e) or "Ctrl-C"
            print(f"\nStopping ({self.interrupted})...", file=sys.stderr)
        finally:
            self.stop()
            for t in threads:
                t.join(2)
                if t.is_alive() and not self.stopped_because:
                    self.stopped_because = "the camera thread did not stop within 2 s"
            if bag_reader is not None:
                bag_reader.stop()
            if source is not None:
                # A driver that hangs on close must not keep the companion from stopping.
                closer = threading.Thread(target=source.close, name="camera-close", daemon=True)
                closer.start()
                closer.join(2)
        if self.stopped_because:
            print(f"mycelium-companion: stopped: {self.stopped_because} (the game log is kept; "
                  "continue with 'run --resume')", file=sys.stderr)
            return 1
        if source is not None and source.finished:
            bad = f", {self.frame_errors} could not be read" if self.frame_errors else ""
            print(f"The frames of {source.name} are over ({self.stats['frames']} frames{bad}).", file=sys.stderr)
            why = self.why_no_moves(bag_reader is not None, from_file=source.name.startswith("file:"))
            if why:
                print(f"mycelium-companion: no move was read from these frames: {why}", file=sys.stderr)
                return 1
        return 0

    def why_no_moves(self, reader_attached: bool, from_file: bool = False) -> str | None:
        """Why a run over a finite set of frames committed no move from the camera, in a
        sentence (``None`` when it committed one).  Read from :attr:`stats`: no frame at all
        (every file unreadable), no still frame, every still frame refused, a move the rules
        refuse (the ``[ILLEGAL ...]`` line the terminal printed), a question of the camera's
        left unanswered, a board that never matched the game, a board that never changed.
        ``from_file``: the frames came from one file (a photo or a video), not a folder, and
        are spoken of so."""
        st = self.stats
        if st["moves_read"]:
            return None
        if st["frames"] == 0:
            return (f"none of its {self.frame_errors} frame(s) could be read as an image" if self.frame_errors
                    else "the source gave no frame")
        if st["reads"] == 0 and st["read_errors"] == 0:
            need = int(self.gate.still_ms // 100) + 1
            if from_file and st["frames"] == 1:
                return (f"a photo is one frame, and the board must look the same for {self.gate.still_ms:.0f} ms "
                        f"({need} or more identical frames 100 ms apart) to be read: give a video, or a folder "
                        f"holding the photos in order, {need} or more copies of each position's photo in a row")
            if from_file:
                return (f"no frame was still long enough to be read (the board must look the same for "
                        f"{self.gate.still_ms:.0f} ms; a video file's frames count as 100 ms apart, so a still board "
                        f"needs {need} or more identical frames in a row)")
            return (f"no frame was still long enough to be read (the board must look the same for "
                    f"{self.gate.still_ms:.0f} ms; a folder's frames count as 100 ms apart, so a still board needs "
                    f"{need} or more identical frames in a row)")
        if st["reads"] == 0:
            detail = self.session.status_detail.get("camera", "")
            return f"every still frame was refused by the board reader ({st['read_errors']} frames; last: {detail})"
        tiles_drawn = any(self.session.position.hands.get(c) for c in self.session.position.colors)
        no_draws = ("" if reader_attached or tiles_drawn else
                    "; no tile was drawn (without a bag reader, --rfid none, each draw is entered on the "
                    "dashboard with 'Drew a tile'), so no placement could be legal")
        said = []
        if st["illegal_read"]:
            n = st["illegal_read"]
            said.append(f"the board showed {'a move' if n == 1 else f'{n} moves'} the rules refuse (the [ILLEGAL ...] "
                        f"line{'' if n == 1 else 's'} above) and no legal move")
        if st["questions"]:
            said.append("the camera's question of which move was made (the [?] line above) was not answered")
        if said:
            return f"{st['reads']} still frames were read, but " + "; and ".join(said) + no_draws
        if st["mismatches"] or st["held_low_confidence"]:
            return (f"{st['reads']} still frames were read, but the board never matched a legal move of this game "
                    f"({_times(st['mismatches'])} it differed from the game, {_times(st['held_low_confidence'])} the reading "
                    f"was unsure): the frames do not start from this game's setup{no_draws}")
        return f"{st['reads']} still frames were read and the board never changed from the game's position{no_draws}"


def _covered_labels(reading, edition) -> list[str]:
    """The printed labels of the spaces the reading says something covers, in board order."""
    from companion.hexgrid import Hex
    from companion.vision.covered import is_covered_reason

    keys = [k for k, why in (getattr(reading, "unreadable", None) or {}).items() if is_covered_reason(why, sure=True)]
    hexes = sorted(Hex(*(int(v) for v in k.split(","))) for k in keys)
    return [edition.label(h) for h in hexes]
