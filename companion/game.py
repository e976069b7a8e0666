"""An event-sourced game: the setup position plus the accepted moves, folded into a position.

``Game`` validates every move through :mod:`companion.rules`, writes it to the
:class:`~companion.eventlog.EventLog` *before* telling subscribers, and can be rebuilt from
the log after a crash (:meth:`Game.resume`).  The log is append-only: an undo is an ``undo``
event naming the move it takes back, and a fix of a space the camera misread is a ``fix``
event, so both come back on resume.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion import rules
from companion.edition import Edition, load_edition
from companion.eventlog import EventLog, EventLogError, LogDamaged
from companion.hexgrid import Hex
from companion.moves import Move, parse_move
from companion.position import Position, PositionError
from companion.setup import GameConfig


@dataclass
class Event:
    """One accepted move: its move number (1-based), the move document and the notes."""

    seq: int
    move: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "move": self.move, "notes": self.notes}


class StaleUndo(ValueError):
    """An undo named a move that is no longer the last one (someone else undid or played)."""


class Game:
    """A game in progress.

    ``initial`` is the position after setup; ``events`` the accepted moves; ``position`` the
    fold of both; ``corrections`` the spaces fixed by hand (``Hex -> content``) and ``fixes``
    every fix in order.  ``kind``: what the game is (``table``, ``demo``, ``replay``,
    ``dashboard``; see :mod:`companion.eventlog`).  With a ``log`` (and no ``game_id``), the
    game is registered and every event is stored durably before :meth:`play` returns or
    subscribers hear of it.  ``log_seq`` is the number of the last logged event (moves, fixes
    and undos share one numbering; the setup is event 0).
    """

    def __init__(self, initial: Position, config: GameConfig | None = None, edition: Edition | None = None,
                 log: EventLog | None = None, game_id: str | None = None, kind: str = "table"):
        self.edition = edition or load_edition(initial.edition)
        self.config = config
        self.kind = kind
        self.initial = initial.copy()
        self.events: list[Event] = []
        self._positions: list[Position] = [self.initial]
        self.corrections: dict[Hex, dict[str, Any]] = {}
        self.fixes: list[dict[str, Any]] = []
        self.log = log
        self.game_id = game_id
        self.log_seq = 0
        self.history: list[tuple[str, dict[str, Any]]] = []
        """Every event after the setup as ``(kind, payload)``, in log order (a recording of a
        resumed game starts from it)."""
        self._subscribers: list[Callable[[str, Event | None, Position], None]] = []
        self.log_hooks: list[Callable[[int, str, dict[str, Any]], None]] = []
        """Called with ``(event number, kind, payload)`` after every logged event (a
        recording keeps them, so a replay can check it logs the same)."""
        if log is not None and game_id is None:
            self.game_id = log.new_game(config.to_json() if config else {}, kind=kind)
            log.append(self.game_id, 0, "setup", initial.to_json())

    # --- state --------------------------------------------------------------------------
    @property
    def position(self) -> Position:
        """The current position (do not mutate; copy it)."""
        return self._positions[-1]

    def subscribe(self, callback: Callable[[str, Event | None, Position], None]) -> None:
        """Call ``callback(kind, event, position)`` after each committed change; kind is
        ``"move"`` or ``"undo"``."""
        self._subscribers.append(callback)

    def check(self, move: dict[str, Any] | Move) -> rules.Verdict:
        """Judge a move against the current position without playing it."""
        return rules.check(self.position, move, self.edition)

    def _log(self, kind: str, payload: dict[str, Any]) -> None:
        seq = self.log_seq + 1
        if self.log is not None:
            self.log.append(self.game_id, seq, kind, payload)
        self.log_seq = seq
        self.history.append((kind, payload))
        for hook in self.log_hooks:
            hook(seq, kind, payload)

    def play(self, move: dict[str, Any] | Move) -> Event:
        """Validate and commit ``move``; return the event.

        Raises :class:`~companion.rules.IllegalMove` (nothing is stored) or
        :class:`~companion.position.PositionError` for a malformed move.
        """
        m = move if isinstance(move, Move) else parse_move(move)
        out = rules.apply(self.position, m, self.edition)
        ev = Event(len(self.events) + 1, m.to_json(), out.notes)
        self._log("move", ev.to_json())
        self.events.append(ev)
        self._positions.append(out.position)
        if out.position.result is not None and self.log is not None:
            self.log.set_finished(self.game_id, out.position.result.get("reason") or "over")
        for cb in self._subscribers:
            cb("move", ev, out.position)
        return ev

    def undo(self, expect: int | None = None) -> Event | None:
        """Take back the last move (logged as an ``undo`` event naming it); return it, or
        ``None`` at the start.

        ``expect``: the move number the caller means to undo (the one it showed); raises
        :class:`StaleUndo` when the last move is another one, and nothing changes.
        """
        if expect is not None and (not self.events or self.events[-1].seq != expect):
            last = self.events[-1].seq if self.events else 0
            raise StaleUndo(f"move {expect} is no longer the last move (the last is move {last}); nothing was undone")
        if not self.events:
            return None
        ev = self.events[-1]
        was_over = self.position.result is not None
        self._log("undo", {"undoes": ev.seq, "move": ev.move, "notes": ev.notes[:1]})
        self.events.pop()
        self._positions.pop()
        if was_over and self.log is not None:
            self.log.set_finished(self.game_id, None)
        for cb in self._subscribers:
            cb("undo", ev, self.position)
        return ev

    def fix(self, at: Hex, content: dict[str, Any] | None) -> dict[str, Any]:
        """Log a fix of a space the camera misread (``content`` as
        :meth:`~companion.table.session.TableSession.correct` takes it; ``None`` trusts the
        camera again) and return the fix as logged: ``{"at", "label", "content", "after",
        "text"}`` with ``after`` the number of moves before it."""
        from companion.wording import fix_words
        label = self.edition.label(at)
        fix = {"at": [at.q, at.r], "label": label, "content": content, "after": len(self.events),
               "text": fix_words(label, content)}
        self._log("fix", fix)
        self._apply_fix(fix)
        return fix

    def _apply_fix(self, fix: dict[str, Any]) -> None:
        h = Hex(int(fix["at"][0]), int(fix["at"][1]))
        if fix["content"] is None:
            self.corrections.pop(h, None)
        else:
            self.corrections[h] = fix["content"]
        self.fixes.append(fix)

    # --- persistence --------------------------------------------------------------------
    @classmethod
    def resume(cls, log: EventLog, game_id: str | None = None) -> "Game":
        """Rebuild a game from the log (the newest game when ``game_id`` is ``None``).

        Every stored event is checked (see :meth:`EventLog.events`) and every move re-validated
        by the rules; fixes and undos are applied as they were.  Raises
        :class:`~companion.eventlog.LogDamaged` at the first bad event and
        :class:`~companion.eventlog.EventLogError` if there is no such game.
        """
        gid = game_id or log.latest_game()
        if gid is None:
            raise EventLogError(f"{log.path}: the log holds no game")
        rows = log.events(gid)
        info = next((g for g in log.games() if g.id == gid), None)
        game, err = cls.fold(log, gid, rows, info.config if info else None, info.kind if info else "table")
        if err is not None:
            raise err
        game.log, game.game_id = log, gid
        return game

    @classmethod
    def fold(cls, log: EventLog, gid: str, rows: list, config_doc: dict[str, Any] | None = None,
             kind: str = "table") -> tuple["Game | None", LogDamaged | None]:
        """Replay the log rows of one game (not logging them again); returns the game up to
        the last good event and the damage found after it, or ``None``."""
        try:
            initial = Position.from_json(rows[0][2])
            config = GameConfig.from_json(config_doc) if config_doc else None
        except (PositionError, TypeError, ValueError, AttributeError) as e:
            return None, LogDamaged(log.path, gid, 0, f"the setup is not a valid position ({e})", -1)
        game = cls(initial, config, log=None, kind=kind if kind != "unknown" else "table")
        for seq, kind_, payload, _ts in rows[1:]:
            try:
                game._replay(kind_, payload)
            except rules.IllegalMove as e:
                return game, LogDamaged(log.path, gid, seq, f"the move it holds is not legal there ({e.message})", seq - 1)
            except (PositionError, KeyError, TypeError, ValueError, IndexError) as e:
                what = e.message if isinstance(e, PositionError) else (f"field {e.args[0]} is missing"
                                                                         if isinstance(e, KeyError) else str(e))
                return game, LogDamaged(log.path, gid, seq, f"it does not hold a valid {kind_} event ({what})", seq - 1)
            game.log_seq = seq
        return game, None

    def redo(self, kind: str, payload: dict[str, Any]) -> None:
        """Play one logged event again (``move``, ``undo`` or ``fix``), logging it anew: a
        replayed recording of a resumed game starts with the events before the recording.
        Raises the errors of :meth:`play`, or ``ValueError`` for an event that does not fit."""
        self._replay(kind, payload)

    def _replay(self, kind: str, payload: dict[str, Any]) -> None:
        if kind == "move":
            if payload.get("seq", len(self.events) + 1) != len(self.events) + 1:
                raise ValueError(f"it is numbered move {payload.get('seq')} where move {len(self.events) + 1} comes next")
            self.play(payload["move"])
        elif kind == "undo":
            if not self.events or payload["undoes"] != self.events[-1].seq:
                raise ValueError(f"it undoes move {payload['undoes']}, which is not the last move")
            self.undo()
        elif kind == "fix":
            self.fix(Hex(int(payload["at"][0]), int(payload["at"][1])), payload["content"])
        else:
            raise ValueError(f"unknown event kind {kind!r}")

    def export(self) -> dict[str, Any]:
        """The whole game as JSON: id, kind, config, initial position, events (moves), fixes
        and final position."""
        return {
            "game": self.game_id,
            "kind": self.kind,
            "config": self.config.to_json() if self.config else None,
            "initial": self.initial.to_json(),
            "events": [e.to_json() for e in self.events],
            "fixes": list(self.fixes),
            "position": self.position.to_json(),
        }


def good_prefix(log: EventLog, gid: str, rows: list) -> int:
    """The number of the last event of ``rows`` (one game's checked log rows) that the rules
    accept on replay: :func:`~companion.eventlog.salvage` keeps the events up to it."""
    try:
        info = next((g for g in log.games() if g.id == gid), None)
    except EventLogError:
        info = None
    _game, err = Game.fold(log, gid, rows, info.config if info else None)
    return len(rows) - 1 if err is None else err.good
