"""``mycelium-companion read-board``: one camera frame in, the board part of a position out.

Prints ``{"board": ..., "complete": bool, "guessed": {...}, "confidence": {"q,r": float},
"unreadable": {"q,r": reason}, "side_unknown": {"q,r": reason}, "unsure": {"q,r": reason},
"labels": {"q,r": "E5"}, "registration": {"markers": [...], "reprojection_px": float}}`` with
``--json``.  ``board`` holds what was read, in the form of a position's board (a spore side the
camera could not see is given unused and listed under ``side_unknown``,
:func:`position_board`); ``complete`` says whether every space was read, so that ``board`` is
the whole board: when it is false, pieces are missing (those on the spaces listed in
``unreadable``, whose best guesses are under ``guessed``) and the board must not be judged as a
position.  ``unsure``: the readable spaces read with a confidence under
:data:`LOW_CONFIDENCE`, each with its likely reason, as the text lists them; ``labels``: every
space's printed label.  Otherwise the reading in words, every space by its printed label (``E5``,
as on the dashboard), and each space read with low confidence or not at all with its reason (the
pieces of the spaces it could not read are left out of the lists, those spaces named once per
reason; every unsure space of ``--json`` is listed, those sharing a reason on one line,
:func:`unsure_lines`).  ``unreadable`` names the spaces the camera could not read and why, e.g. "glare on F6:
move the lamp" (confidence 0).  When something
covers spaces (a hand, a phone, a cup: "something covers D4: move it off the board") the
reading is printed all the same and the exit status is 3: the board is not all in view.  When
spaces are unreadable for glare alone ("glare on F6: move the lamp", "glare near F6", or "glare
or something over D4", where the camera cannot tell the two) the exit status is 4: the board was
not read whole either (``complete`` is false), but what to change is the lamp.  Exit 0 only for
a board read whole; a script can tell the three apart without the JSON.  Exit 2 with the reason
on stderr for an unreadable image, bad intrinsics, profile or hand, a frame too small for the
reader (``camera check``'s sentence) or of another size than the calibration's, or when no
board is found.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import argparse
import json
import sys

from companion.vision.unsure import LOW_CONFIDENCE, unsure_keys, why_unsure


def register(sub: "argparse._SubParsersAction") -> None:
    """Add ``read-board`` to the top-level parser."""
    p = sub.add_parser("read-board", help="read the board from an overhead camera photo",
                       epilog="exit status: 0 the whole board read (unsure spaces are listed with their reason); 3 read, "
                              "but something covers part of the board (a hand, a phone, a cup: move it off); 4 "
                              "read, but glare leaves spaces unreadable (move or dim the lamp); 2 refused "
                              "(unreadable image, no board found, bad profile or intrinsics). With 3 or 4 the "
                              "reading is printed all the same, and --json says complete: false")
    p.add_argument("image", metavar="IMAGE", help="camera frame (any format OpenCV reads)")
    p.add_argument("--profile", metavar="P", help="profile JSON from 'calibrate pieces' (default: built-in)")
    p.add_argument("--intrinsics", metavar="K", help="intrinsics JSON from 'calibrate camera' (undistorts the lens)")
    p.add_argument("--hand", metavar="CODES", help="comma-separated tile codes that can appear, e.g. P03,Y03.G1")
    p.add_argument("--edition", metavar="DIR", help="edition folder (default: the built-in default edition)")
    p.add_argument("--json", action="store_true", help="print the reading as JSON")
    p.add_argument("--colors", metavar="C1,C2", help="the game's player colours, e.g. blue,orange: a piece of another "
                   "colour is listed as unsure (default: the colours of the spores read)")
    p.set_defaults(func=_read_board)


def _read_board(args: argparse.Namespace) -> int:
    from calibration.intrinsics import CalibrationError, load_intrinsics
    from companion.tiles import TileCodeError, validate
    from companion.vision.assistant import size_problem
    from companion.vision.errors import VisionError
    from companion.vision.geometry import DEFAULT_EDITION, BoardGeometryError
    from companion.vision.profile import ProfileError, load_profile
    from companion.vision.reader import BoardReader, read_image

    try:
        hand = [validate(c.strip()) for c in args.hand.split(",") if c.strip()] if args.hand else None
        profile = load_profile(args.profile)
        intr = load_intrinsics(args.intrinsics) if args.intrinsics else None
        reader = BoardReader(profile=profile, intrinsics=intr, edition_dir=args.edition or DEFAULT_EDITION,
                             players=_colours(args.colors))
        frame = read_image(args.image)
        wrong_size = size_problem((frame.shape[1], frame.shape[0]), reader.geo, profile, intr)
        if wrong_size:   # camera check's sentence: the reader would misread pieces in too few pixels
            raise VisionError(wrong_size)
        reading = reader.read(frame, hand=hand)
    except (VisionError, ProfileError, CalibrationError, BoardGeometryError, TileCodeError) as exc:
        print(f"mycelium-companion read-board: {exc}", file=sys.stderr)
        return 2
    from companion.vision.assistant import space_labels

    edition = args.edition or DEFAULT_EDITION
    labels = space_labels(edition)
    if args.json:
        out = reading.to_json()
        # what the camera could not read is no reading: the board holds only what it read, as
        # the text lists it, and says whether that is the whole board
        out["board"] = position_board(out["board"], reading.unreadable)
        out["guessed"] = guessed_pieces(reading.board, reading.unreadable)
        out["complete"] = not reading.unreadable
        out["labels"] = {f"{q},{r}": label for (q, r), label in sorted(labels.items())}
        print(json.dumps(out))
        return _status(reading)
    from companion.vision.geometry import load_tile_codes

    for line in reading_lines(reading, labels, load_tile_codes(edition)):
        print(line)
    return _status(reading)


def _colours(text: str | None) -> list[str] | None:
    """``--colors blue,orange`` -> ["blue", "orange"]; raises VisionError naming a colour that is no
    player colour, or one given twice."""
    from companion.vision.errors import VisionError
    from companion.vision.profile import PLAYERS

    if not text:
        return None
    colours = [c.strip().lower() for c in text.split(",") if c.strip()]
    for c in colours:
        if c not in PLAYERS:
            raise VisionError(f"--colors {text}: {c!r} is not a player colour ({', '.join(PLAYERS)})")
    if len(set(colours)) != len(colours):
        raise VisionError(f"--colors {text}: a colour is given twice")
    return colours


UNSEEN_SIDE_GIVEN = False
"""The side ``read-board --json`` gives a spore whose side its meeple hides (listed under
``side_unknown``): the unused side, the one the rules put under a meeple on its spore at setup
and after every mushroom card bought (rulebook, setup and 5.b); docs/rules.md."""


def position_board(board: dict, unreadable: Iterable[str] = ()) -> dict:
    """The board part of a position (docs/position.md) from :attr:`Reading.board`: a spore's
    ``"used"`` must be true or false there, so a side the camera could not see (``None``, a
    spore covered by its meeple) is given as :data:`UNSEEN_SIDE_GIVEN`.  The spores this touches
    are those ``read-board --json`` lists under ``side_unknown``: trust no side listed there.
    ``unreadable``: "q,r" keys of spaces left out (``read-board --json`` passes every space it
    could not read): the piece the reader guessed there is dropped, as the text leaves it out
    (:func:`guessed_pieces` gives them)."""
    gone = _spaces(unreadable)
    out = _pieces(board, lambda at: at is None or _space(at) not in gone)
    if "spores" in out:
        out["spores"] = {p: dict(s, used=UNSEEN_SIDE_GIVEN) if s is not None and s.get("used") is None else s
                         for p, s in out["spores"].items()}
    return out


def guessed_pieces(board: dict, unreadable: Iterable[str]) -> dict:
    """The pieces of :attr:`Reading.board` on the spaces ``unreadable`` ("q,r" keys): the
    reader's guesses where it could not read (confidence 0), board-shaped (docs/position.md),
    for ``read-board --json``'s ``guessed``."""
    gone = _spaces(unreadable)
    return _pieces(board, lambda at: at is not None and _space(at) in gone)


def _spaces(keys: Iterable[str]) -> set[tuple[int, int]]:
    return {_space(k) for k in keys}


def _pieces(board: dict, keep) -> dict:
    """``board`` with only the pieces whose space (or ``None``) ``keep`` accepts."""
    out = dict(board)
    for kind in ("tiles", "trees", "substrates"):
        if kind in out:
            out[kind] = [x for x in out[kind] if keep(x.get("at"))]
    if "rocks" in out:
        out["rocks"] = [at for at in out["rocks"] if keep(at)]
    if "meeples" in out:
        out["meeples"] = {p: at for p, at in out["meeples"].items() if keep(at)}
    if "spores" in out:
        out["spores"] = {p: s for p, s in out["spores"].items() if keep(None if s is None else s.get("at"))}
    return out


COVERED_STATUS = 3
"""Exit status of ``read-board`` when something covers spaces of the board (the reading is
printed all the same)."""
GLARE_STATUS = 4
"""Exit status of ``read-board`` when spaces are unreadable, none of them for something
covering it: glare (a space under a glare spot that may be glare or an object counts as glare).
The reading is printed all the same; the board was not read whole (docs/rules.md)."""


def _status(reading) -> int:
    """0 when every space was read; :data:`COVERED_STATUS` when something covers spaces of the
    board; else :data:`GLARE_STATUS` when any space is unreadable (glare)."""
    from companion.vision.covered import is_covered_reason

    why = reading.unreadable.values()
    if any(is_covered_reason(w, sure=True) for w in why):
        return COVERED_STATUS
    return GLARE_STATUS if why else 0


def unsure_lines(spaces: list[tuple[str, str]]) -> list[str]:
    """One line per reason for the unsure spaces, every space listed (``read-board --json``
    lists the same ones under ``unsure``): ``spaces`` holds (``"E5 0.31"``: the space's label
    and confidence, its reason) least sure first, and the spaces that share a reason (a dozen
    empty spaces that each look a little like a soil substrate) go on one line, in that order:
    ``unsure: E5 0.31: read as ...``, or ``unsure: 3 spaces, E5 0.31, F6 0.40, G2 0.45: read as ...``."""
    groups: dict[str, list[str]] = {}
    for space, why in spaces:
        groups.setdefault(why, []).append(space)
    return [f"unsure: {', '.join(at)}: {why}" if len(at) == 1 else f"unsure: {len(at)} spaces, {', '.join(at)}: {why}"
            for why, at in groups.items()]
SLOT_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")


TURNS = ("as printed", "turned 1/6 anticlockwise", "turned 1/3 anticlockwise", "turned half round",
         "turned 1/3 clockwise", "turned 1/6 clockwise")
"""How far a tile lies turned from its printed code, as the calibration layout pictures say it."""


def tile_words(laid: str, printed_codes: list[str]) -> str:
    """``P0.G135 (G024.P1, turned 1/6 clockwise)``: the code as laid (the position format's)
    and, when ``printed_codes`` (the edition's tile types) holds its type, the type as printed
    and how far it is turned, in the words of the layout pictures."""
    from companion.tiles import canonical, rotation_between

    try:
        printed = next((c for c in printed_codes if c != "ROCK" and canonical(c) == canonical(laid)), None)
        k = rotation_between(printed, laid) if printed else None
    except ValueError:
        printed, k = None, None
    return f"{laid} ({printed}, {TURNS[k]})" if printed and k is not None else laid


def reading_lines(reading, labels: dict[tuple[int, int], str], printed_codes: list[str] = ()) -> list[str]:
    """The reading in words, one line per kind of piece, every space by its printed label
    (``labels``: (q, r) -> ``"E5"``; axial ``(q, r)`` where the board has none), each tile by
    its code as laid and its type as the edition prints it (``printed_codes``), then the spaces
    read with low confidence or not at all, each with its reason."""
    def name(at) -> str:
        h = _space(at)
        return labels.get(h) or f"({h[0]}, {h[1]})"

    b, reg = reading.board, reading.registration
    unreadable = {_space(key) for key in reading.unreadable}
    readable = lambda at: _space(at) not in unreadable  # noqa: E731 - a guess there is no reading
    lines = [f"board registered with markers {', '.join(str(m) for m in sorted(reg.markers_px))} "
             f"(reprojection {reg.reprojection_px:.2f} px)"]
    lines += [f"warning: {w}" for w in reg.warnings()]   # the text says what --json says

    def listing(what: str, items: list[str]) -> None:
        lines.append(f"{what}: {', '.join(items) if items else 'none'}")

    listing("tiles", [f"{name(t['at'])} {tile_words(t['paths'], list(printed_codes))}" for t in b.get("tiles", []) if readable(t["at"])])
    listing("rocks", [name(r) for r in b.get("rocks", []) if readable(r)])
    trees = []
    for t in (t for t in b.get("trees", []) if readable(t["at"])):
        slots = [f"{p} {SLOT_NAMES[k]}" for k, p in enumerate(t.get("mycorrhizae", [])) if p]
        trees.append(f"{name(t['at'])} ({'markers ' + ', '.join(slots) if slots else 'four empty slots'})")
    listing("trees", trees)
    listing("substrates", [f"{name(sub['at'])} {sub['kind']}" for sub in b.get("substrates", []) if readable(sub["at"])])
    side_unknown = reading.side_unknown
    spores = []
    for p, sp in b.get("spores", {}).items():
        if not readable(sp["at"]):
            continue
        key = f"{sp['at'][0]},{sp['at'][1]}"
        side = ("side not visible: " + side_unknown[key] if sp.get("used") is None
                else "used side up" if sp["used"] else "unused side up")
        spores.append(f"{p} at {name(sp['at'])} ({side})")
    listing("spores", spores)
    listing("meeples", [f"{p} on {name(at)}" for p, at in b.get("meeples", {}).items() if readable(at)])
    lines += unreadable_lines({name(k): why for k, why in reading.unreadable.items()})
    low = [(reading.confidence[k], k) for k in unsure_spaces(reading)]
    lines += unsure_lines([(f"{name(key)} {v:.2f}", why_unsure(reading.spaces.get(_space(key)))) for v, key in low])
    if not low and not reading.unreadable and reading.confidence:
        v, key = min((v, k) for k, v in reading.confidence.items())
        lines.append(f"every space read with confidence {LOW_CONFIDENCE} or more (least sure: {name(key)} {v:.2f})")
    return lines


def unsure_spaces(reading) -> list[str]:
    """Keys (``"q,r"``) of the spaces read, but unsure (:mod:`companion.vision.unsure`), least
    sure first (spaces not read at all are in ``reading.unreadable`` instead)."""
    return unsure_keys(reading.confidence, reading.unreadable)


def _space(at: str | Sequence) -> tuple[int, int]:
    """A space as ``(q, r)``, from a ``"q,r"`` key (the reading's dictionaries) or a
    ``[q, r]`` list (the board's pieces)."""
    q, r = at.split(",") if isinstance(at, str) else at
    return int(q), int(r)


def unreadable_lines(why_by_space: dict[str, str]) -> list[str]:
    """One line per reason for the spaces that could not be read (``why_by_space``: printed
    label -> reason), not one per space: a lamp's glare spot covers a dozen spaces with the
    same reason.  A reason naming its own space ("glare on C5: move the lamp") names them all
    in its place (``unreadable: glare on C5, C6, D5: move the lamp``); any other reason follows
    the spaces it concerns (``unreadable: D6, E7: glare near D5: move the lamp``)."""
    groups: dict[tuple[str, bool], list[str]] = {}
    for space in sorted(why_by_space, key=_label_order):
        why = why_by_space[space]
        own = f" {space}:" in f" {why}"
        groups.setdefault((why.replace(f" {space}:", " {}:", 1) if own else why, own), []).append(space)
    lines = []
    for (why, own), spaces in groups.items():
        lines.append(f"unreadable: {why.replace('{}', ', '.join(spaces), 1)}" if own
                     else f"unreadable: {', '.join(spaces)}: {why}")
    return lines


def _label_order(label: str) -> tuple:
    """``C5`` before ``C10``: a label's letters, then its number."""
    head = label.rstrip("0123456789")
    tail = label[len(head):]
    return (head, int(tail) if tail else -1, label)


_why_unsure = why_unsure   # the name older callers use
