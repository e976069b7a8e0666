"""An event-sourced game: the setup position plus the accepted moves, folded into a position.

``Game`` validates every move through :mod:`companion.rules`, writes it to the
:class:`~companion.eventlog.EventLog` *before* telling subscribers, and can be rebuilt from
the log after a crash (:meth:`Game.resume`).  Undo pops the last event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion import rules
from companion.edition import Edition, load_edition
from companion.eventlog import EventLog
from companion.moves import Move, parse_move
from companion.position import Position
from companion.setup import GameConfig


@dataclass
class Event:
    """One accepted move: its sequence number (1-based), the move document and the notes."""

    seq: int
    move: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "move": self.move, "notes": self.notes}


class Game:
    """A game in progress.

    ``initial`` is the position after setup; ``events`` the accepted moves; ``position`` the
    fold of both.  With a ``log`` (and ``game_id``), every event is stored durably before
    :meth:`play` returns or subscribers hear of it.
    """

    def __init__(self, initial: Position, config: GameConfig | None = None, edition: Edition | None = None,
                 log: EventLog | None = None, game_id: str | None = None):
        self.edition = edition or load_edition(initial.edition)
        self.config = config
        self.initial = initial.copy()
        self.events: list[Event] = []
        self._positions: list[Position] = [self.initial]
        self.log = log
        self.game_id = game_id
        self._subscribers: list[Callable[[str, Event | None, Position], None]] = []
        if log is not None and game_id is None:
            self.game_id = log.new_game(config.to_json() if config else {})
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

    def play(self, move: dict[str, Any] | Move) -> Event:
        """Validate and commit ``move``; return the event.

        Raises :class:`~companion.rules.IllegalMove` (nothing is stored) or
        :class:`~companion.position.PositionError` for a malformed move.
        """
        m = move if isinstance(move, Move) else parse_move(move)
        out = rules.apply(self.position, m, self.edition)
        ev = Event(len(self.events) + 1, m.to_json(), out.notes)
        if self.log is not None:
            self.log.append(self.game_id, ev.seq, "move", ev.to_json())
        self.events.append(ev)
        self._positions.append(out.position)
        for cb in self._subscribers:
            cb("move", ev, out.position)
        return ev

    def undo(self) -> Event | None:
        """Pop the last event (and its log row); return it, or ``None`` at the start."""
        if not self.events:
            return None
        if self.log is not None:
            self.log.pop(self.game_id)
        ev = self.events.pop()
        self._positions.pop()
        for cb in self._subscribers:
            cb("undo", ev, self.position)
        return ev

    # --- persistence --------------------------------------------------------------------
    @classmethod
    def resume(cls, log: EventLog, game_id: str | None = None) -> "Game":
        """Rebuild a game from the log (the newest game when ``game_id`` is ``None``).

        Every stored move is re-validated; raises :class:`~companion.eventlog.EventLogError`
        if there is no such game.
        """
        from companion.eventlog import EventLogError
        gid = game_id or log.latest_game()
        if gid is None:
            raise EventLogError(f"{log.path}: the log holds no game")
        rows = log.events(gid)
        config = next((GameConfig.from_json(c) for g, _, c in log.games() if g == gid and c), None)
        initial = Position.from_json(rows[0][2])
        game = cls(initial, config, log=None)
        for _seq, _kind, payload, _ts in rows[1:]:
            game.play(payload["move"])
        game.log, game.game_id = log, gid
        return game

    def export(self) -> dict[str, Any]:
        """The whole game as JSON: config, initial position, events and final position."""
        return {
            "game": self.game_id,
            "config": self.config.to_json() if self.config else None,
            "initial": self.initial.to_json(),
            "events": [e.to_json() for e in self.events],
            "position": self.position.to_json(),
        }
