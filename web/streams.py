"""How many event streams are open: each holds a server thread, so they are capped."""

from __future__ import annotations

import threading


class StreamCount:
    """A counter of open event streams with a cap: :meth:`enter` returns False when ``limit``
    streams are already open (the caller tells the client to come back later)."""

    def __init__(self):
        self.open = 0
        self.refused = 0
        self._lock = threading.Lock()

    def enter(self, limit: int) -> bool:
        with self._lock:
            if self.open >= limit:
                self.refused += 1
                return False
            self.open += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.open -= 1
