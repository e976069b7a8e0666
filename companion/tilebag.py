"""Which tagged tile is where: the tile bag's ledger by tag UID (issue 11, rulebook 4.a.3).

The reader reports a tag every time it enters the field, and a hand that goes back into the
bag holding a tile brings that tile's tag back into the field.  So a tag read is a draw only
when the ledger says that tile is in the bag; a second read of a drawn tag is ignored (and
counted).  The ledger follows the game's own moves, so it never disagrees with the log:

* ``draw`` with a ``uid`` puts that tag in the player's hand;
* ``place``, ``discard`` and ``rock`` take one tag of that tile type out of the hand (to the
  board or the discard pile; which of two identical tiles went is irrelevant);
* ``spore_ability`` with ``redraw`` discards one tag and returns the others to the bag, by
  UID (rulebook 4.d: the rest of the hand goes back into the bag).

Two tiles of one type in a hand look alike: the ledger cannot tell which of them went to the
board, so it remembers the other as its *twin*.  When the twin went back into the bag (a
spore redraw) and the tag the ledger had on the board is read, the two swap places and the
read is a draw: the person put the other tile down.

Draws entered without a UID (from the dashboard) have no tag to follow; tags of such tiles
stay "in the bag" for the ledger.  Such a tile still holds its place in the hand: when it
and a tagged look-alike are in one hand, the untagged one is taken to have gone down, so
the tagged one, if a spore redraw returned it, is drawn again on its next read.  The ledger is rebuilt from the game's events whenever
they change in a way it did not follow (an undo, a new game, a fix), so a restarted host
rebuilt from the game log knows every tag's place.

Each reader move also carries the reader's event position (``reader``:
:meth:`firmware_bridge.cursor.Cursor.to_json`); :func:`resume_cursor` finds the last one,
so a restarted table asks the board only for events after it (PROTOCOL.md section 7).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from companion import tiles as tilecodes

BAG = "bag"
BOARD = "board"
DISCARDED = "discarded"


def hand(color: str) -> str:
    """The place name of ``color``'s hand: ``"hand:blue"``."""
    return f"hand:{color}"


def _same_type(a: str, b: str) -> bool:
    try:
        return tilecodes.canonical(a) == tilecodes.canonical(b)
    except Exception:  # noqa: BLE001 - codes the tile parser does not know compare as text
        return a == b


@dataclass
class Sighting:
    """What one tag read means: ``action`` is ``"draw"`` (the tile leaves the bag),
    ``"repeat"`` (a tag already out of the bag: ignored) or ``"not_enrolled"`` (no tile
    for this UID in the registry); ``place`` is where the ledger has the tag."""

    action: str
    uid: str
    place: str = BAG


@dataclass
class TileLedger:
    """Places of the tags that left the bag, rebuilt from moves (see the module text).

    ``places`` maps UID to :data:`BOARD`, :data:`DISCARDED` or :func:`hand` (a UID not in
    it is in the bag); ``hands`` lists each player's tags with their tile codes, in draw
    order (``None`` for a tile drawn without a tag).  ``repeats`` counts tag reads ignored because the tag was not in the bag, by UID.
    """

    places: dict[str, str] = field(default_factory=dict)
    hands: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    repeats: Counter = field(default_factory=Counter)
    not_enrolled: Counter = field(default_factory=Counter)
    twins: dict[str, set[str]] = field(default_factory=dict)
    _done: int = 0
    _last: Any = None

    def place_of(self, uid: str) -> str:
        """Where the tag ``uid`` is (:data:`BAG` unless a move took it out)."""
        return self.places.get(uid, BAG)

    # -- following the game ----------------------------------------------------------------
    def reset(self) -> None:
        """Every tag back in the bag (a new game)."""
        self.places.clear()
        self.hands.clear()
        self.twins.clear()

    def _take(self, player: str, code: str, to: str) -> None:
        held = self.hands.get(player, [])
        alike = [i for i, (_, drawn) in enumerate(held) if _same_type(drawn, code)]
        if not alike:
            return
        # A look-alike drawn without a tag (entered on the dashboard) is taken first: the
        # tagged one is then still followed, so when it was the one kept (a spore redraw
        # returns it to the bag) its next read is a draw, not a repeat.
        i = next((i for i in alike if held[i][0] is None), alike[0])
        uid, drawn = held.pop(i)
        if uid is None:
            return
        self.places[uid] = to
        twins = {u for u, d in held if u is not None and _same_type(d, drawn)}
        if twins:
            self.twins[uid] = twins

    def apply(self, move: dict[str, Any]) -> None:
        """Follow one accepted move document."""
        action, player = move.get("action"), move.get("player", "")
        if action == "draw":
            uid = str(move["uid"]) if move.get("uid") else None
            if uid is not None:
                self.places[uid] = hand(player)
            self.hands.setdefault(player, []).append((uid, str(move.get("tile", ""))))
        elif action == "place":
            self._take(player, str(move.get("tile", "")), BOARD)
        elif action == "discard":
            self._take(player, str(move.get("tile", "")), DISCARDED)
        elif action == "rock":
            self._take(player, tilecodes.ROCK, BOARD)
        elif action == "spore_ability" and move.get("mode") == "redraw":
            self._take(player, str(move.get("discard", "")), DISCARDED)
            for uid, _ in self.hands.pop(player, []):
                if uid is not None:
                    self.places.pop(uid, None)  # back into the bag, by UID

    def follow(self, events: list, opening_hands: dict[str, list[str]] | None = None) -> None:
        """Bring the ledger up to date with ``events`` (a game's :class:`~companion.game.Event`
        list): only the new ones when it grew, from scratch when it changed otherwise.
        ``opening_hands``: the tiles each player held before the first event (colour -> tile
        codes, the game's initial position), held in the hands untagged."""
        n = len(events)
        last = events[-1] if events else None
        if n == self._done and last is self._last:
            return
        # the last event seen is held (not its id), so a new game's events cannot look the same
        if 0 < self._done <= n and events[self._done - 1] is self._last:
            new = events[self._done:]
        else:
            self.reset()
            for color, codes in (opening_hands or {}).items():
                self.hands[color] = [(None, str(c)) for c in codes]
            new = events
        for ev in new:
            self.apply(ev.move)
        self._done, self._last = n, last

    # -- reading a tag ---------------------------------------------------------------------
    def sighting(self, uid: str, tile: str | None, in_flight: Iterable[str] = ()) -> Sighting:
        """Classify a tag read: ``tile`` is the registry's code (None: not enrolled);
        ``in_flight`` the UIDs of draws accepted but not yet in the game (waiting for the
        camera).  Counts repeats and unknown tags."""
        if tile is None:
            self.not_enrolled[uid] += 1
            return Sighting("not_enrolled", uid, self.place_of(uid))
        place = self.place_of(uid)
        if place == BAG and uid in set(in_flight):
            place = "drawn, waiting for the board"
        twin = next((t for t in sorted(self.twins.get(uid, ())) if self.place_of(t) == BAG), None)
        if twin is not None and place in (BOARD, DISCARDED):
            # the look-alike went down instead; this one was returned to the bag
            self.places[twin] = place
            del self.places[uid]
            self.twins[twin] = self.twins.pop(uid) - {twin} | {uid}
            return Sighting("draw", uid)
        if place != BAG:
            self.repeats[uid] += 1
            return Sighting("repeat", uid, place)
        return Sighting("draw", uid)

    def summary(self) -> str:
        """``"2 repeated reads ignored"`` or ``""``: the line the reader status shows."""
        n = sum(self.repeats.values())
        return f"{n} repeated read{'s' if n != 1 else ''} of drawn tiles ignored" if n else ""


def resume_cursor(events: list) -> dict[str, Any] | None:
    """The ``reader`` position of the last move that came from the bag reader, or None."""
    for ev in reversed(events):
        at = ev.move.get("reader") if isinstance(ev.move, dict) else None
        if isinstance(at, dict):
            return at
    return None


def draw_move(player: str, tile: str, uid: str, reader: dict[str, Any] | None) -> dict[str, Any]:
    """The move document of a draw read by the bag reader: the tag's UID and the reader's
    event position go into the game log with it."""
    move: dict[str, Any] = {"player": player, "action": "draw", "tile": tile, "uid": uid}
    if reader:
        move["reader"] = reader
    return move

