"""Shared helpers for the tile-bag bridge tests: a reader wired to a virtual pty device."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from firmware_bridge import events as E
from firmware_bridge.drivers import make_driver
from firmware_bridge.reader import BagReader
from firmware_bridge.virtual import VirtualReader


class Collected:
    """Events from a running BagReader, with helpers to wait for them."""

    def __init__(self) -> None:
        self.q: "queue.Queue[E.Event]" = queue.Queue()
        self.seen: list[E.Event] = []

    def _drain(self) -> None:
        while True:
            try:
                self.seen.append(self.q.get_nowait())
            except queue.Empty:
                return

    def of(self, name: str) -> list[E.Event]:
        self._drain()
        return [e for e in self.seen if e.event == name]

    def tags(self) -> list[str]:
        self._drain()
        return [e.uid for e in self.seen if e.event in ("tile_drawn", "unknown_tag")]

    def wait(self, pred: Callable[["Collected"], bool], timeout: float = 5.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred(self):
                return True
            time.sleep(0.01)
        return pred(self)


FAST_BOOT = (0.05, 0.2)
"""Bootloader time range (s) for tests that are not about the reset itself."""


@contextmanager
def rig(kind: str, lookup=lambda uid: None, **virtual_kw) -> Iterator[tuple[VirtualReader, BagReader, Collected]]:
    """A virtual ``kind`` reader and a connected BagReader that follows it across replugs.
    The board's bootloader is kept short (50-200 ms) unless a test asks for more."""
    got = Collected()
    virtual_kw.setdefault("bootloader_s", FAST_BOOT)
    with VirtualReader(kind, **virtual_kw) as dev:
        reader = BagReader(make_driver(kind), lambda: dev.port or None, got.q.put_nowait, lookup).start()
        try:
            assert reader.connected.wait(5), f"{kind} reader never connected"
            yield dev, reader, got
        finally:
            reader.stop()


import pytest  # noqa: E402


@pytest.fixture
def make_rig():
    """The :func:`rig` context manager, for tests."""
    return rig


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path, monkeypatch):
    """Reader positions and the remembered port go to a folder of the test's own."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def collector():
    """The :class:`Collected` class: ``collector()`` is a fresh event collector."""
    return Collected
