"""One definition of an unsure space, for ``read-board`` (text and ``--json``) and the table.

A space is *unsure* when it was read (it is not unreadable) with a confidence under
:data:`LOW_CONFIDENCE`: the table loop holds a change read that unsurely and asks, and
``read-board`` lists the same spaces, each with the likely reason (:func:`why_unsure`).
"""

from __future__ import annotations

LOW_CONFIDENCE = 0.5
"""Confidence under which a space read is unsure: the table holds a change read below it
(:mod:`companion.table.inference`), and ``read-board`` lists it with its reason.  On the
simulated boards (docs/simulated-camera.md) a reading at 0.5 or more is wrong about once in
several hundred spaces; a meeple deduced with a margin under 1.04 gets less."""

FLAT_KINDS = ("rock", "tree", "wood", "soil", "empty")


def an(word: str) -> str:
    """``word`` with its indefinite article: ``an orange``, ``a blue``."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def unsure_keys(confidence: dict[str, float], unreadable: dict[str, str]) -> list[str]:
    """Keys (``"q,r"``) of the spaces read with a confidence under :data:`LOW_CONFIDENCE`, least
    sure first; the spaces in ``unreadable`` are not read at all, so they are not listed."""
    return [k for _v, k in sorted((v, k) for k, v in confidence.items() if v < LOW_CONFIDENCE and k not in unreadable)]


def why_unsure(r) -> str:
    """The likely reason a space (:class:`companion.vision.classify.SpaceReading`, or ``None``)
    was read with low confidence, from what was read there.  Every reason begins with what the
    space was read as, its meeple too (:func:`companion.vision.meeple_doubts.read_as`: "read as
    the black spore with orange's meeple on it; ..."), so that a player knows which piece the
    doubt is about; a doubt the reader gave without it gets it put in front."""
    if r is None:
        return "no reading"
    if r.reason:
        return r.reason
    from companion.vision.meeple_doubts import describe, read_as  # the reader's modules import this one

    said = read_as(r)
    if r.doubt:
        return r.doubt if r.doubt.startswith(said) else f"{said}; {r.doubt}"
    if r.meeple and r.kind in FLAT_KINDS:
        return f"{said}, where no meeple stands in a game: one of the two is doubtful"
    if r.kind == "spore":
        if r.meeple and r.meeple != r.player:
            return f"{said}, where a meeple stands only on its own spore: the spore's colour or the meeple's is doubtful"
        if r.used is None and getattr(r, "runner_up", None):
            # its meeple hides its side, which is not claimed: only the chip's colour is in doubt
            return f"{said}; the chip around its meeple looks almost as much like {r.runner_up}"
        return f"{said}; its side or its colour is not clear"
    from companion.vision.classify import slot_doubt

    if slot_doubt(r):
        return f"{said}; {slot_doubt(r)}"
    like = getattr(r, "runner_up", None) or "another piece"
    return f"{said}, but it looks almost as much like {like} (check the light, or calibrate again)"
