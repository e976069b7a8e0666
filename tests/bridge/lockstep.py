"""Time the test moves on itself, for a host and a virtual reader talking over a real pty.

Both ends read one :class:`SteppedClock`.  The test moves it on by a small step, then waits
until the link is quiet: every byte either end wrote has been read and handled by the other,
and each end's loop has gone round since.  So a slow chip's one-second answer, the driver's
timeouts and the tag's time in the field are seconds of this clock, whatever the machine's
load does to the threads; nothing is timed by the wall clock except a generous bound that only
catches a link that hangs.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable

from firmware_bridge.drivers.pn532 import PN532Driver


class SteppedClock:
    """Monotonic seconds that pass only by :meth:`advance`; counts its reads per thread."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.reads: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.reads[threading.current_thread().name] += 1
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


class CountingPN532(PN532Driver):
    """The PN532 driver, counting the bytes it asks the host to write and the bytes it is fed."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = 0
        self.fed = 0

    def on_open(self, now: float) -> bytes:
        out = super().on_open(now)
        self.sent += len(out)
        return out

    def poll(self, now: float) -> bytes:
        out = super().poll(now)
        self.sent += len(out)
        return out

    def feed(self, data: bytes, now: float):
        self.fed += len(data)
        return super().feed(data, now)


class Lockstep:
    """Moves ``clock`` on in ``step`` seconds, waiting after each step until the host loop
    (thread ``host_thread``, driving ``driver``) and the virtual device ``dev`` (thread
    ``dev_thread``) are quiet."""

    def __init__(self, clock: SteppedClock, dev, driver: CountingPN532, host_thread: str, dev_thread: str,
                 step: float = 0.02, hang_s: float = 60.0) -> None:
        self.clock, self.dev, self.driver = clock, dev, driver
        self.threads = (host_thread, dev_thread)
        self.step = step
        self.hang_s = hang_s

    def _counts(self) -> tuple[int, int, int, int]:
        return self.driver.sent, len(self.dev.received), self.dev.sent, self.driver.fed

    def quiet(self) -> None:
        """Wait until every byte written was handled and both loops went round since."""
        give_up = time.monotonic() + self.hang_s
        while True:
            before = self._counts()
            reads = [self.clock.reads[t] for t in self.threads]
            while any(self.clock.reads[t] < r + 3 for t, r in zip(self.threads, reads)):
                assert time.monotonic() < give_up, f"the link hung: {self._counts()}, clock reads {dict(self.clock.reads)}"
                time.sleep(0.0005)
            after = self._counts()
            if before == after and after[0] == after[1] and after[2] == after[3]:
                return

    def run(self, seconds: float) -> None:
        """Let ``seconds`` of the clock pass."""
        end = self.clock.now + seconds - 1e-9
        self.quiet()
        while self.clock.now < end:
            self.clock.advance(self.step)
            self.quiet()

    def run_until(self, done: Callable[[], object], limit: float) -> float:
        """Let the clock run until ``done()`` is true; returns the seconds it took. Fails
        (AssertionError) when ``limit`` seconds of the clock pass first."""
        start = self.clock.now
        self.quiet()
        while not done():
            assert self.clock.now - start < limit, f"not done after {limit} s of the clock"
            self.clock.advance(self.step)
            self.quiet()
        return self.clock.now - start
