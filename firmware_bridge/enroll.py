"""Enrollment: pairing every physical tile of an edition with its tag, one scan each.

The owner is asked for tile types in the edition's order ("scan a P03 tile"); each new UID
is stored for the type asked, a UID already in the registry is refused, and progress is
counted over the whole edition ("23 of 72").
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.errors import RegistryError
from firmware_bridge.registry import TagRegistry, normalise_uid, tile_type

DEFAULT_TILES = Path(__file__).resolve().parent.parent / "companion" / "editions" / "default" / "tiles.json"
"""The default edition's tile list, when that edition ships one."""


def expected_from_tiles_json(path: str | Path) -> dict[str, int]:
    """Tile type -> number of copies, from an edition's ``tiles.json``
    (``{"tiles": [{"code": "P03", "count": {"fuchsia": 2, ...} or 4}, ...]}``).

    Raises :class:`RegistryError` naming the file and the fault.
    """
    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
        out: dict[str, int] = {}
        for entry in doc["tiles"]:
            count = entry["count"]
            n = sum(int(v) for v in count.values()) if isinstance(count, dict) else int(count)
            code = tile_type(entry["code"])
            out[code] = out.get(code, 0) + n
    except FileNotFoundError:
        raise RegistryError(f"no tile list at {p}") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise RegistryError(f"{p} is not a tiles.json tile list: {e!r}") from None
    return {k: v for k, v in out.items() if v > 0}


def parse_expect(spec: str) -> dict[str, int]:
    """``"P03=4,G1.Y25=2,ROCK=3"`` -> tile type -> count.

    Raises :class:`RegistryError` for an empty spec, an item not shaped ``CODE=COUNT``, a
    count under 1, an unknown tile code, or a tile type listed twice (also under two
    spellings of the same type, e.g. ``G1.P03`` and ``P03.G1``).
    """
    out: dict[str, int] = {}
    spelled: dict[str, str] = {}
    for part in filter(None, (s.strip() for s in spec.split(","))):
        m = re.fullmatch(r"(.+?)\s*=\s*([+-]?\d+)", part)
        if not m:
            raise RegistryError(f"--expect item {part!r} must look like CODE=COUNT, e.g. P03=4")
        n = int(m.group(2))
        if n < 1:
            raise RegistryError(f"--expect item {part!r}: the count must be 1 or more")
        code = tile_type(m.group(1))
        if code in out:
            raise RegistryError(
                f"--expect lists {code} twice ({spelled[code]!r} and {part!r}); give each tile type once"
            )
        out[code] = n
        spelled[code] = part
    if not out:
        raise RegistryError("--expect names no tiles; give CODE=COUNT items, e.g. --expect P03=4,ROCK=3")
    return out


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one scan did: ``accepted`` and the message to show."""

    accepted: bool
    message: str
    error: bool = False
    """True when the scan was fine but could not be saved (the message says why)."""


class Enrollment:
    """Progress of enrolling the tiles ``expected`` (type -> count) into ``registry``."""

    def __init__(self, expected: dict[str, int], registry: TagRegistry) -> None:
        self.expected = dict(expected)
        self.registry = registry

    @property
    def total(self) -> int:
        """Tiles in the edition."""
        return sum(self.expected.values())

    @property
    def done(self) -> int:
        """Tiles of the edition that have a tag (extra tags of a type do not count)."""
        have = self.registry.counts()
        return sum(min(have.get(t, 0), n) for t, n in self.expected.items())

    def missing(self) -> Counter[str]:
        """Tile type -> how many of its tiles still lack a tag."""
        have = self.registry.counts()
        return Counter({t: n - have.get(t, 0) for t, n in self.expected.items() if n > have.get(t, 0)})

    def next_type(self) -> str | None:
        """The tile type to scan next, or None when every tile has a tag."""
        return next(iter(self.missing()), None)

    def prompt(self) -> str:
        """What to ask the owner for next."""
        t = self.next_type()
        if t is None:
            return f"All {self.total} tiles have a tag."
        n = self.expected[t]
        k = n - self.missing()[t] + 1
        return f"Scan a {t} tile ({k} of {n} of this type; {self.done} of {self.total} done)"

    def missing_text(self) -> str:
        """``"P03 x2, ROCK x1"``, or ``"none"``."""
        m = self.missing()
        return ", ".join(f"{t} x{n}" for t, n in m.items()) or "none"

    def offer(self, uid: str) -> Outcome:
        """A tag was scanned: store it for :meth:`next_type` and save, or refuse it.

        Never raises: a save failure comes back as an Outcome with ``error`` set, and the
        tag is then left out of the registry in memory too.
        """
        t = self.next_type()
        try:
            key = normalise_uid(uid)
        except RegistryError as e:
            return Outcome(False, str(e))
        if t is None:
            return Outcome(False, f"every tile already has a tag; {key} not stored")
        known = self.registry.lookup(key)
        if known is not None:
            return Outcome(False, f"tag {key} is already enrolled as {known}: set that tile aside and scan another")
        self.registry.add(key, t)
        try:
            self.registry.save()
        except RegistryError as e:
            self.registry.remove(key)  # not on disk, so not enrolled: the owner scans it again
            return Outcome(False, f"tag {key} for {t} was NOT saved: {e}; fix that and scan the tile again", error=True)
        return Outcome(True, f"{key} -> {t}   {self.done} of {self.total}")
