"""The JSON API: the state, the live event stream, replay, and every table input.

Reads (``GET``) are open to every viewer.  Table inputs are ``POST`` with a JSON body and go
through :func:`web.auth.table_input`.  A refused input answers 4xx with
``{"ok": false, "error": code, "message": sentence}`` and changes nothing; an accepted one
answers ``{"ok": true, ...}``.  Moves proposed from the dashboard are judged before they are
committed: an illegal one is refused (409 with the rules' reason code), not held on the board.
"""

from __future__ import annotations

import json
import time
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from companion import rules
from companion.edition import DIFFICULTIES, load_edition
from companion.moves import parse_move
from companion.options import DEFAULTS as OPTION_DEFAULTS, DESCRIPTIONS as OPTION_DESCRIPTIONS
from companion.position import MODES, PositionError
from companion.setup import GameConfig, SetupError
from companion.table.session import SessionError, panels
from web import auth
from web.auth import ApiError

bp = Blueprint("api", __name__, url_prefix="/api")


def _session():
    return current_app.extensions["table_session"]


MAX_TEXT = 200        # characters in any string of a request body (codes, ids, colours)
MAX_TEAM_NAME = 20    # characters in a team name: it is shown in every player row
MAX_DEPTH = 6         # nesting of a request body: the deepest input is {"move": {"tiles": [[q, r]]}}
MAX_ITEMS = 200       # list items and object keys in one request body


def _refusal_line(status: int, code: str, message: str) -> None:
    """One line on the table's terminal per refused request (no traceback)."""
    current_app.logger.warning("dashboard: %s %s from %s refused, %d %s: %s", request.method, request.path,
                               request.remote_addr or "?", status, code, message[:160])


def register_error_handlers(app) -> None:
    """Every error under ``/api`` answers JSON, never an HTML page; each refusal is logged as
    one line, and an unexpected error as one line too (the traceback only at DEBUG level)."""

    @app.errorhandler(ApiError)
    def _api_error(e: ApiError):
        _refusal_line(e.status, e.code, e.message)
        resp = jsonify(e.to_json())
        if "retry_after" in e.extra:
            resp.headers["Retry-After"] = str(e.extra["retry_after"])
        return resp, e.status

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException):
        if e.code and e.code >= 400 and e.code not in (404, 405):
            _refusal_line(e.code, e.name, e.description or "")
        if request.path.startswith("/api/"):
            return jsonify({"ok": False, "error": e.name.lower().replace(" ", "_"), "message": e.description}), e.code
        return e

    @app.errorhandler(Exception)
    def _unexpected(e: Exception):
        current_app.logger.error("dashboard: %s %s failed: %s: %s", request.method, request.path, type(e).__name__, e)
        current_app.logger.debug("traceback", exc_info=e)
        return jsonify({"ok": False, "error": "internal", "message": "The companion could not do that; nothing was changed."}), 500


def check_host():
    """DNS rebinding: a page of another site whose name was re-pointed at this machine sends
    that name in ``Host``.  Only the names and addresses this dashboard serves on are answered
    (``SERVED_HOSTS``); anything else is 400 ``unknown_host``."""
    allowed = current_app.config.get("SERVED_HOSTS")
    if not allowed:
        return None
    raw = (request.headers.get("Host") or "").strip().lower()
    name = raw[: raw.index("]") + 1] if raw.startswith("[") and "]" in raw else raw.rsplit(":", 1)[0]
    if name in allowed:
        return None
    raise ApiError(400, "unknown_host", f"This dashboard answers only to its own addresses, not to {name[:60]!r}; "
                                        "open the address printed where the companion was started.")


def _check_shape(value: Any, where: str = "body", depth: int = 0) -> None:
    """Refuse bodies deeper than MAX_DEPTH, lists or objects larger than MAX_ITEMS and strings
    longer than MAX_TEXT, naming the field (:class:`ApiError` 400)."""
    if depth > MAX_DEPTH:
        raise ApiError(400, "bad_json", f"{where}: nested too deeply")
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise ApiError(400, "too_long", f"{where}: at most {MAX_TEXT} characters")
    elif isinstance(value, (list, dict)):
        if len(value) > MAX_ITEMS:
            raise ApiError(400, "too_long", f"{where}: at most {MAX_ITEMS} items")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, v in items:
            if isinstance(k, str) and len(k) > MAX_TEXT:
                raise ApiError(400, "too_long", f"{where}: a key is longer than {MAX_TEXT} characters")
            _check_shape(v, f"{where}.{str(k)[:20]}" if where != "body" else str(k)[:20], depth + 1)


def _body() -> dict[str, Any]:
    """The request's JSON object; 400 ``bad_json`` for anything else (not JSON, not an object,
    too deep, too long): parsed here, not by Flask, so that a deeply nested body is a 400 and
    not a ``RecursionError``."""
    raw = request.get_data(cache=True)
    try:
        doc = json.loads(raw.decode("utf-8")) if raw else None
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise ApiError(400, "bad_json", "The body must be a JSON object.") from None
    if not isinstance(doc, dict):
        raise ApiError(400, "bad_json", "The body must be a JSON object.")
    _check_shape(doc)
    return doc


# --- reads ---------------------------------------------------------------------------------
@bp.get("/state")
def state():
    """Everything the page shows (``TableSession.state()``) plus ``viewer``: whether this
    browser is unlocked."""
    doc = _session().state()
    doc["viewer"] = {"unlocked": auth.is_unlocked()}
    return jsonify(doc)


@bp.get("/setup")
def setup_options():
    """What the setup wizard offers: modes, difficulties (tree layouts), colours, options."""
    ed = load_edition(_session().edition.name)
    return jsonify({
        "modes": list(MODES), "difficulties": list(DIFFICULTIES), "colors": list(ed.meeple_colors),
        "players": sorted(ed.bag_by_players),
        "trees": {d: [{"id": tid, "at": [h.q, h.r], "label": ed.label(h)} for tid, h in ed.tree_layouts[d]]
                  for d in DIFFICULTIES},
        "options": [{"name": k, "default": v, "text": OPTION_DESCRIPTIONS.get(k, "")} for k, v in OPTION_DEFAULTS.items()],
    })


@bp.get("/replay/<int:seq>")
def replay(seq: int):
    """The position after the first ``seq`` events (0 = after setup), for step-through replay.

    404 JSON when ``seq`` is past the last event.
    """
    s = _session()
    with s.lock:
        game = s.game
        events = list(game.events)
        if not 0 <= seq <= len(events):
            raise ApiError(404, "no_such_move", f"The game has {len(events)} moves; ask for 0 to {len(events)}.")
        pos = _replay_cache(game, events, seq)
    ev = events[seq - 1] if seq else None
    at = None
    if ev is not None:
        at = ev.move.get("at") or ev.move.get("to")
    players, market = panels(pos, game.edition, live=False)
    return jsonify({"seq": seq, "of": len(events), "game": game.game_id, "position": pos.to_json(),
                    "text": ev.notes[0] if ev and ev.notes else "set-up", "notes": ev.notes[1:] if ev else [],
                    "move": ev.move if ev else None, "last_move_at": at, "players": players, "market": market})


def _replay_cache(game, events, seq):
    """Fold the game's moves up to ``seq``, reusing the positions already folded for the same
    event objects (an undo or a new game invalidates the rest)."""
    cache = current_app.extensions.setdefault("replay_cache", {"game": None, "events": [], "positions": []})
    if cache["game"] is not game:
        cache.update(game=game, events=[], positions=[game.initial])
    known = 0
    while known < min(len(cache["events"]), seq) and cache["events"][known] is events[known]:
        known += 1
    del cache["events"][known:]
    del cache["positions"][known + 1:]
    pos = cache["positions"][known]
    for ev in events[known:seq]:
        pos = rules.apply(pos, ev.move, game.edition).position
        cache["events"].append(ev)
        cache["positions"].append(pos)
    return cache["positions"][seq]


@bp.get("/events")
def events():
    """Server-sent events: every bus message as ``id: N`` / ``data: {"kind", "data", "ts"}``.

    Starts after ``Last-Event-ID`` (the browser sends it when it reconnects) or the ``last``
    query parameter, else from now.  A client too far behind gets a ``reset`` message (reload
    the state).  A comment line keeps idle connections open.  Beyond ``SSE_MAX_STREAMS`` open
    streams the extra client gets one ``full`` message saying so and a ``retry`` of
    ``SSE_FULL_RETRY_MS``, and the stream ends (each open stream holds a server thread).
    """
    s = _session()
    raw = request.headers.get("Last-Event-ID") or request.args.get("last")
    try:
        last = int(raw) if raw not in (None, "") else s.bus.last_id
    except ValueError:
        raise ApiError(400, "bad_last_event_id", "Last-Event-ID must be a message number.") from None
    stopping = current_app.extensions["table_stopping"]
    keepalive = float(current_app.config["SSE_KEEPALIVE_S"])
    poll = float(current_app.config["SSE_POLL_S"])
    streams = current_app.extensions["event_streams"]
    limit = int(current_app.config["SSE_MAX_STREAMS"])
    full_retry = int(current_app.config["SSE_FULL_RETRY_MS"])
    logger, client = current_app.logger, request.remote_addr

    def stream():
        # counted from the first chunk on: a generator that never starts never runs its finally
        if not streams.enter(limit):
            logger.warning("dashboard: event stream refused to %s: %d streams open (the cap)", client, limit)
            msg = (f"The table already feeds {limit} screens, its limit; this one tries again in "
                   f"{full_retry // 1000} s. Closing a tab on another tablet frees a place.")
            yield (f"retry: {full_retry}\n\ndata: " +
                   json.dumps({"kind": "full", "data": {"message": msg, "limit": limit}, "ts": time.time()}) + "\n\n")
            return
        try:
            yield from follow()
        finally:
            streams.leave()

    def follow():
        nonlocal last
        yield "retry: 1000\n\n"
        quiet_since = time.monotonic()
        while not stopping.is_set():
            msgs = s.bus.wait(last, poll)
            if msgs:
                out = []
                for m in msgs:
                    payload = json.dumps({"kind": m.kind, "data": m.data, "ts": m.ts}, separators=(",", ":"))
                    out.append(f"id: {m.id}\ndata: {payload}\n\n")
                    # in order, so the last one wins: a reset may carry an id below ``last``
                    # (the server restarted and the client came back ahead of it)
                    last = m.id
                yield "".join(out)
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= keepalive:
                yield ": keepalive\n\n"
                quiet_since = time.monotonic()

    return Response(stream(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


# --- the PIN -------------------------------------------------------------------------------
@bp.post("/unlock")
@auth.table_input(require_pin=False)
def unlock():
    """``{"pin": "123456"}``: unlock this browser (403 wrong PIN, 429 after repeated failures)."""
    pin = _body().get("pin")
    if not isinstance(pin, str):
        raise ApiError(400, "bad_pin", "pin: the table PIN as a string of digits")
    auth.unlock(pin)
    return jsonify({"ok": True, "unlocked": True})


@bp.post("/lock")
@auth.table_input(require_pin=False)
def lock():
    """``{}``: lock this browser (its session ends on the server, so a copy of its cookie is
    locked too); ``{"everyone": true}``: end every unlocked session of the table."""
    doc = _body()
    everyone = doc.get("everyone", False)
    if not isinstance(everyone, bool):
        raise ApiError(400, "bad_everyone", "everyone: true or false")
    ended = auth.lock(everyone)
    return jsonify({"ok": True, "unlocked": False, "ended": ended})


# --- moves ----------------------------------------------------------------------------------
def _commit(doc: dict[str, Any], after: int | None = None):
    """Judge and commit a move proposed from the dashboard; 400 malformed, 409 illegal, or
    409 ``stale`` when ``after`` is given and the game no longer has that many moves."""
    s = _session()
    try:
        move = parse_move(doc)
    except PositionError as e:
        raise ApiError(400, "bad_move", str(e)) from None
    except (TypeError, ValueError, KeyError, AttributeError) as e:  # a field of the wrong type
        raise ApiError(400, "bad_move", f"malformed move ({type(e).__name__}): see docs/position.md") from None
    with s.lock:
        if after is not None and len(s.game.events) != after:
            raise ApiError(409, "stale", _stale_message(move, s.game.events, after))
        if s.choices is not None:
            raise ApiError(409, "awaiting_choices", s.choices.sentence() + " first.")
        verdict = s.game.check(move)
        if not verdict.legal:
            raise ApiError(409, verdict.reason or "illegal", verdict.message,
                           explain=rules.REASONS.get(verdict.reason or "", ""))
        verdict = s.submit(move.to_json(), source="dashboard")
        if not verdict.legal:  # another move waits for the players' choices
            raise ApiError(409, verdict.reason or "illegal", verdict.message)
        if s.choices is not None:   # legal, but it waits for the players' choices (7.c)
            return jsonify({"ok": True, "event": None, "choices": s.choices.to_json(), "seq": s.bus.last_id})
        ev = s.game.events[-1]
    return jsonify({"ok": True, "event": ev.to_json(), "seq": s.bus.last_id})


ALREADY_ENTERED = {
    "draw": "That draw was already entered by another tablet",
    "reveal": "That card was already turned up on another tablet",
}
"""The refusal of a table input another tablet entered first, by action (a draw or a card tapped
in on two tablets at once)."""


def _stale_message(move, events: list, after: int) -> str:
    """Why ``move``, made against ``after`` moves, is refused now that the game has
    ``len(events)``: when what it enters came in meanwhile (a draw for the same player: a tile
    has copies, so any of theirs; the same card turned up), that another tablet already entered
    it, naming the move; else that the game moved on."""
    def same(ev) -> bool:
        return (ev.move.get("action") == move.action and ev.move.get("player") == move.player
                and (move.action != "reveal" or ev.move.get("card") == move.card))
    entered = next((ev for ev in reversed(events[after:]) if same(ev)), None)
    if entered is not None and move.action in ALREADY_ENTERED:
        what = entered.notes[0] if entered.notes else move.action
        return (f"{ALREADY_ENTERED[move.action]} (move {entered.seq}: {what}): nothing was entered. The page now shows "
                "the game as it is; tap again only for another one.")
    return ("The game moved on since this was opened (a move was entered meanwhile, perhaps on another "
            "tablet): nothing was entered; look again.")


def _player(doc: dict[str, Any]) -> str:
    p = doc.get("player")
    return _session().position.active if p in (None, "") else p


@bp.post("/move")
@auth.table_input()
def move():
    """``{"move": {...}, "after"?: n}``: any move of ``docs/position.md``; ``after``: the number
    of moves in the game when the dashboard offered this one (409 ``stale`` when another
    tablet has entered a move since: a draw tapped on two tablets is entered once)."""
    body = _body()
    doc, after = body.get("move"), body.get("after")
    if not isinstance(doc, dict):
        raise ApiError(400, "bad_move", "move: must be a move object (docs/position.md)")
    if after is not None and (not isinstance(after, int) or isinstance(after, bool) or after < 0):
        raise ApiError(400, "bad_after", "after: must be the number of moves in the game, a whole number")
    return _commit(doc, after)


@bp.post("/buy")
@auth.table_input()
def buy():
    """Confirm a purchase: ``{"card": "a04", "tiles"?: [[q, r], ...], "player"?}``; without
    ``tiles`` the rules pick payable ones."""
    doc = _body()
    mv = {"player": _player(doc), "action": "buy", "card": doc.get("card")}
    for k in ("tiles", "spore_to", "refill"):
        if doc.get(k) is not None:
            mv[k] = doc[k]
    return _commit(mv)


@bp.post("/give")
@auth.table_input()
def give():
    """``{"to": "orange", "nutrients": {"pink": 1}, "player"?}``."""
    doc = _body()
    return _commit({"player": _player(doc), "action": "give", "to": doc.get("to"), "nutrients": doc.get("nutrients")})


@bp.post("/swap")
@auth.table_input()
def swap():
    """``{"give": "pink", "take": "white", "player"?}``."""
    doc = _body()
    return _commit({"player": _player(doc), "action": "swap", "give": doc.get("give"), "take": doc.get("take")})


@bp.post("/end-turn")
@auth.table_input()
def end_turn():
    """End the active player's turn."""
    return _commit({"player": _player(_body()), "action": "end_turn"})


# --- other table inputs ----------------------------------------------------------------------
@bp.post("/undo")
@auth.table_input()
def undo():
    """``{"seq": n}``: take back move ``n``, the last move the page showed.  409 ``stale_undo``
    when move ``n`` is no longer the last one (a double tap, another tablet), 409
    ``cannot_undo`` when the last move is a bag draw or there is none; nothing changes."""
    doc = _body()
    expect = doc.get("seq")
    if expect is not None and (not isinstance(expect, int) or isinstance(expect, bool)):
        raise ApiError(400, "bad_seq", "seq: the number of the move to undo, as the log shows it")
    s = _session()
    try:
        ev = s.undo(expect)
    except SessionError as e:
        raise ApiError(409, "stale_undo" if getattr(e, "stale", False) else "cannot_undo", str(e)) from None
    return jsonify({"ok": True, "undone": ev.to_json() if ev else None, "seq": s.bus.last_id})


@bp.post("/correct")
@auth.table_input()
def correct():
    """``{"at": [q, r], "content": {"kind": "tile", "paths": "P03"} | {"kind": "rock"} |
    {"kind": "empty"} | null}``: what really stands on a space the camera misread."""
    doc = _body()
    at = doc.get("at")
    if not (isinstance(at, list) and len(at) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in at)):
        raise ApiError(400, "bad_space", "at: must be an axial coordinate [q, r] of two integers")
    if "content" not in doc:
        raise ApiError(400, "bad_content", "content: give what stands there, or null to trust the camera again")
    content = doc["content"]
    if content is not None and not isinstance(content, dict):
        raise ApiError(400, "bad_content", "content: must be an object such as {\"kind\": \"rock\"} or null")
    s = _session()
    try:
        s.correct(at, content)
    except SessionError as e:
        raise ApiError(400, "bad_correction", str(e)) from None
    return jsonify({"ok": True, "seq": s.bus.last_id})


@bp.post("/answer")
@auth.table_input()
def answer():
    """``{"id": "ab12cd34", "choice": 0}``: answer the open question."""
    doc = _body()
    choice = doc.get("choice")
    if not isinstance(choice, int) or isinstance(choice, bool):
        raise ApiError(400, "bad_choice", "choice: must be the number of a choice (0, 1, ...)")
    s = _session()
    try:
        s.answer(str(doc.get("id")), choice)
    except SessionError as e:
        raise ApiError(409, "bad_answer", str(e)) from None
    return jsonify({"ok": True, "seq": s.bus.last_id})


@bp.post("/clear-illegal")
@auth.table_input()
def clear_illegal():
    """The pieces of the held illegal move were put back; 409 when no illegal move is held."""
    _body()
    s = _session()
    with s.lock:
        if s.illegal is None:
            raise ApiError(409, "nothing_held", "No illegal move is being held: there is nothing to put back.")
        s.clear_illegal("put back at the table")
    return jsonify({"ok": True, "seq": s.bus.last_id})


@bp.post("/new-game")
@auth.table_input()
def new_game():
    """The setup wizard: ``{"players": [...turn order], "mode", "difficulty", "teams"?,
    "options"?}``; 400 naming the field for a set-up the rules do not allow."""
    doc = _body()
    players = doc.get("players")
    if not (isinstance(players, list) and players and all(isinstance(p, str) for p in players)):
        raise ApiError(400, "bad_setup", "players: list the meeple colours in turn order")
    teams = doc.get("teams")
    if teams is not None and not isinstance(teams, dict):
        raise ApiError(400, "bad_setup", "teams: must map each colour to a team name")
    for name in (teams or {}).values():
        if not (isinstance(name, str) and 0 < len(name) <= MAX_TEAM_NAME and name.isprintable()):
            raise ApiError(400, "bad_setup", f"teams: a team name is 1 to {MAX_TEAM_NAME} printable characters")
    options = doc.get("options") or {}
    if not isinstance(options, dict):
        raise ApiError(400, "bad_setup", "options: must be an object")
    config = GameConfig(players=players, mode=str(doc.get("mode", "competitive")),
                        difficulty=str(doc.get("difficulty", "easy")),
                        teams=teams if doc.get("mode") == "team" else None, options=options)
    s = _session()
    config.edition = s.edition.name   # a new game at this table plays the same copy of the game
    try:
        config.check(s.edition)
        s.new_game(config, s.game.log)
    except SetupError as e:
        raise ApiError(400, "bad_setup", str(e)) from None
    return jsonify({"ok": True, "seq": s.bus.last_id})
