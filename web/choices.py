"""The players' choices a move waits for (rulebook 7.c "of their choice"; 5, above the cap).

``state.choices`` (``/api/state``) shows the open prompt: the waiting move, and per player
and kind (``asked[i]``) the player, ``kind`` (``gain``, ``discard`` or ``pay``: the cubes a
removal costs, 4.c), ``count``, the
``colors`` offered, ``why`` (a list), and the ``answer`` once given.  Each player answers on their own tablet;
a player whose tablet is away can be answered for from another one, which the request must
confirm (``confirm_other``), so nobody answers for someone else by a mis-tap.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from companion.table.session import SessionError
from web import auth
from web.api import _body
from web.auth import ApiError

bp = Blueprint("choices", __name__, url_prefix="/api")


def _session():
    return current_app.extensions["table_session"]


@bp.post("/choose")
@auth.table_input()
def choose():
    """``{"id": prompt id, "player": "orange", "kind"?: "gain" | "discard" | "pay", "colors": ["pink",
    "white"], "seat": "blue" | null, "confirm_other"?: bool}``: the player's cubes, one colour
    per cube, for all their entries of ``kind`` (``state.choices.asked`` groups them); without
    ``kind``, the only kind the player is asked.

    ``seat`` is the player this tablet belongs to (``null``: not said).  Answering for another
    player needs ``confirm_other: true``, else 409 ``confirm_other`` (the page asks first).
    400 ``bad_choice`` for an answer that does not fit or a player not asked (checked before
    ``confirm_other``), 409 ``no_such_choice`` for a prompt
    that is no longer open, 409 ``withdrawn`` when the completed move is no longer legal.
    Answers ``{"ok", "committed": bool, "event", "choices"}``.
    """
    doc = _body()
    s = _session()
    player, kind, colors, seat = doc.get("player"), doc.get("kind"), doc.get("colors"), doc.get("seat")
    if not isinstance(player, str):
        raise ApiError(400, "bad_choice", "player: the colour of the player who chooses")
    if kind is not None and kind not in ("gain", "discard", "pay"):
        raise ApiError(400, "bad_choice", "kind: gain, discard or pay")
    if not (isinstance(colors, list) and all(isinstance(c, str) for c in colors)):
        raise ApiError(400, "bad_choice", "colors: one nutrient colour per cube, e.g. [\"pink\", \"white\"]")
    if seat is not None and not isinstance(seat, str):
        raise ApiError(400, "bad_seat", "seat: the colour of the player holding this tablet, or null")
    confirm = doc.get("confirm_other", False)
    if not isinstance(confirm, bool):
        raise ApiError(400, "bad_choice", "confirm_other: true or false")
    with s.lock:
        p = s.choices
        if p is None or p.id != str(doc.get("id")):
            raise ApiError(409, "no_such_choice", "That choice is no longer open: the page shows the current one.")
        kind = _kind_asked(p, player, kind)
        other = seat != player
        if other and not confirm:
            mine = f"This tablet is {seat}'s" if seat else "This tablet has not said whose it is"
            raise ApiError(409, "confirm_other", f"{mine}: answer for {player} only when {player}'s tablet is away "
                                                 "(confirm it).", player=player)
        try:
            ev = s.choose(p.id, player, colors, kind, by_other=other)
        except SessionError as e:
            if s.choices is None:   # completed, but the game had moved on: withdrawn
                raise ApiError(409, "withdrawn", str(e)) from None
            raise ApiError(400, "bad_choice", str(e)) from None
        return jsonify({"ok": True, "committed": ev is not None, "event": ev.to_json() if ev else None,
                        "choices": s.choices.to_json() if s.choices else None, "seq": s.bus.last_id})


def _kind_asked(prompt, player: str, kind: str | None) -> str:
    """The kind ``player`` answers: ``kind`` when given, else the only kind they are asked
    (a removal's ``pay`` alone is answered without naming it).  400 ``bad_choice`` when
    ``player`` is not asked that kind, or is asked several and the request names none."""
    asked = prompt.kinds_asked(player)
    if not asked:
        raise ApiError(400, "bad_choice", f"player: {player} has nothing to choose here "
                                          f"(asked: {' and '.join(prompt.waiting_for) or 'nobody'})")
    if kind is None and len(asked) > 1:
        raise ApiError(400, "bad_choice", f"kind: {player} has {' and '.join(asked)} to choose here; say which")
    kind = kind or asked[0]
    if kind not in asked:
        raise ApiError(400, "bad_choice", f"player: {player} has no {kind} to choose here")
    return kind


@bp.post("/choose/withdraw")
@auth.table_input()
def withdraw():
    """``{"id": prompt id}``: drop the move waiting for choices (misread, or taken back at the
    table); 409 ``no_such_choice`` when it is no longer open."""
    doc = _body()
    s = _session()
    with s.lock:
        if s.choices is None or s.choices.id != str(doc.get("id")):
            raise ApiError(409, "no_such_choice", "No move is waiting for these choices any more.")
        s.withdraw_choices("withdrawn on the dashboard")
    return jsonify({"ok": True, "seq": s.bus.last_id})
