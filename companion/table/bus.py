"""A publish/subscribe bus with numbered messages, for the terminal log and server-sent events.

Every message gets the next integer id.  The bus keeps the last ``history`` messages so an
SSE client that reconnects with ``Last-Event-ID`` receives what it missed; a client too far
behind gets a ``reset`` message telling it to reload the whole state.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Message:
    """One published change: ``id`` (1, 2, ...), ``kind`` (``move``, ``undo``, ``illegal``,
    ``question``, ``status``...), JSON-ready ``data`` and the unix time ``ts`` in s."""

    id: int
    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    ts: float = 0.0


class EventBus:
    """Thread-safe bus.  ``publish`` never blocks on slow subscribers: callbacks run in the
    publisher's thread and must be quick (the terminal log); web clients poll :meth:`wait`."""

    def __init__(self, history: int = 2000):
        self._cond = threading.Condition()
        self._history: deque[Message] = deque(maxlen=history)
        self._next = 1
        self._callbacks: list[Callable[[Message], None]] = []

    @property
    def last_id(self) -> int:
        """Id of the newest message (0 before the first)."""
        with self._cond:
            return self._next - 1

    def subscribe(self, callback: Callable[[Message], None]) -> None:
        """Call ``callback(message)`` for every message from now on."""
        with self._cond:
            self._callbacks.append(callback)

    def publish(self, kind: str, data: dict[str, Any] | None = None) -> Message:
        """Number, store and announce a message; returns it."""
        with self._cond:
            msg = Message(self._next, kind, data or {}, time.time())
            self._next += 1
            self._history.append(msg)
            callbacks = list(self._callbacks)
            self._cond.notify_all()
        for cb in callbacks:
            cb(msg)
        return msg

    def since(self, last_id: int) -> list[Message]:
        """Messages newer than ``last_id``.  If some were already dropped from the history,
        the list starts with a ``reset`` message (reload the state, then follow on)."""
        with self._cond:
            return self._since(last_id)

    def _since(self, last_id: int) -> list[Message]:
        if last_id > self._next - 1:
            # The client knew a later message than exist: the server restarted since.
            return [Message(self._next - 1, "reset", {"reason": "the companion restarted; reload the state"}, time.time())]
        if last_id == self._next - 1:
            return []
        oldest = self._history[0].id if self._history else self._next
        out = [m for m in self._history if m.id > last_id]
        if last_id + 1 < oldest:
            out.insert(0, Message(oldest - 1, "reset", {"reason": "missed messages; reload the state"}, time.time()))
        return out

    def wait(self, last_id: int, timeout: float) -> list[Message]:
        """Block up to ``timeout`` s for messages newer than ``last_id``; [] on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                out = self._since(last_id)
                remaining = deadline - time.monotonic()
                if out or remaining <= 0:
                    return out
                self._cond.wait(remaining)
