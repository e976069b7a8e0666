"""``GET /api/hint``: "What can I do?" for the active player, when the table allows it.

The answer is :func:`companion.hints.hint`, the same as ``mycelium-companion hint``: the
action the greedy bot would take with its reason in words, and per face-up card the shortest
plan to afford it.  It is a read (viewers may ask: hands and nutrients are on the dashboard
anyway), offered only when the table rule ``hints`` is on (``docs/rules.md``, "Hints").
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Blueprint, current_app, jsonify

from companion.options import option
from companion.rules import check
from web.auth import ApiError

bp = Blueprint("hint", __name__, url_prefix="/api")

_cache_lock = threading.Lock()


def hint_doc(session) -> dict[str, Any]:
    """The hint for ``session``'s live position as the dashboard shows it: ``player``,
    ``move`` (a move document or ``None``), ``text`` (the move in words), ``reason``, ``cards``
    (``[{"card", "name", "vp", "can_buy", "when", "wait", "status", "steps": [sentence, ...]}]``,
    :meth:`companion.hints.CardPlan.to_json`: ``status`` says in words whether an affordable card
    can be bought now or after the placement and why the suggestion waits) and ``seq`` (the bus
    message id it was computed at).

    While a move waits for the players' choices (``session.choices``: every move is refused,
    409 ``awaiting_choices``) the hint suggests no move: ``text`` says who chooses what
    (:meth:`~companion.table.choices.ChoicePrompt.waiting_words`), ``reason`` that the table waits for it, ``cards`` is empty.

    Raises :class:`ApiError` 409 ``hints_off`` when the table rule is off and ``game_over``
    after the result.  Computed once per change of the game (the greedy bot's one-ply search
    takes tens of ms), however many tablets ask.
    """
    from companion.hints import hint, team_goals

    with session.lock:
        pos, ed, seq = session.position, session.edition, session.bus.last_id
        waiting = session.choices.waiting_words() if session.choices is not None else None
    if not option(pos.options, "hints"):
        raise ApiError(409, "hints_off", "Hints are off at this table: the table rule 'hints' turns on the "
                                         "\"What can I do?\" button (New game → Table rules).")
    if pos.result is not None:
        raise ApiError(409, "game_over", "The game is over: " + pos.result.get("reason", "") + ".")
    if waiting is not None:   # every move is refused until the choices are in (awaiting_choices)
        text, why = waiting
        return {"player": pos.active, "move": None, "text": text, "cards": [], "goals": team_goals(pos, ed),
                "reason": (f"{text}: the table waits for these choices ({why}) before the move is played, and "
                           "nothing else is played meanwhile; then ask again for the next action"),
                "seq": seq}
    cache = current_app.extensions.setdefault("hint_cache", {})
    with _cache_lock:
        if cache.get("pos") is pos:   # committed positions are never changed: the same object, the same hint
            return dict(cache["doc"], seq=seq)
    h = hint(pos, ed)
    doc = h.to_json()
    doc["text"] = check(pos, h.move, ed).message if h.move is not None else h.reason.split(": ", 1)[-1]
    doc["seq"] = seq
    with _cache_lock:
        cache.update(pos=pos, doc=doc)
    return doc


@bp.get("/hint")
def get_hint():
    """The active player's hint (see :func:`hint_doc`); 409 ``hints_off`` or ``game_over``."""
    return jsonify({"ok": True, **hint_doc(current_app.extensions["table_session"])})
