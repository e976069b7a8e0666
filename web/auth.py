"""Who may change the game: the table PIN, the per-browser CSRF token, attempt limiting.

A browser gets a CSRF token in its signed session cookie (``SameSite=Lax``) and in the
page's ``<meta name="csrf-token">``.  Every state-changing request is a ``POST`` with a JSON
body, the token in the ``X-CSRF-Token`` header, and either an unlocked browser session
(``POST /api/unlock`` with the PIN) or the PIN in the ``X-Table-PIN`` header (scripts).
"""

from __future__ import annotations

import functools
import hmac
import math
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from flask import current_app, request, session as cookie


class ApiError(Exception):
    """A refused request: HTTP ``status`` (4xx), a stable ``code`` and a sentence."""

    def __init__(self, status: int, code: str, message: str, **extra: Any):
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra

    def to_json(self) -> dict[str, Any]:
        return {"ok": False, "error": self.code, "message": self.message, **self.extra}


PIN_MIN_DIGITS, PIN_MAX_DIGITS = 6, 8


def check_pin_format(pin: str) -> str:
    """``pin`` as a string when it is 6 to 8 digits; raises ``ValueError`` otherwise (a
    4-digit PIN has 10,000 values: too few against a script, even rate-limited)."""
    pin = str(pin)
    if not (pin.isdigit() and PIN_MIN_DIGITS <= len(pin) <= PIN_MAX_DIGITS):
        raise ValueError(f"the table PIN must be {PIN_MIN_DIGITS} to {PIN_MAX_DIGITS} digits")
    return pin


class TablePin:
    """The table PIN and two limiters on wrong guesses.

    - Per client address: after ``max_failures`` wrong PINs that client waits ``lockout_s``.
    - For the whole table (a script can use hundreds of addresses): up to ``table_free`` wrong
      PINs within ``table_window_s`` are free; each one beyond makes *every* client wait
      ``2 ** k`` s (k = 0, 1, 2, ...), at most ``table_max_delay_s``.  With the defaults a
      script gets about 30 guesses an hour at a 6-digit PIN (a million values: two
      years for even odds).  The price:
      while it tries, the table's own tablets wait too (they keep viewing; scripts using
      ``X-Table-PIN`` wait likewise).

    ``clock`` (seconds, monotonic) is injectable for tests.  Raises ``ValueError`` for a PIN
    that is not 6 to 8 digits (:func:`check_pin_format`).
    """

    def __init__(self, pin: str | None = None, max_failures: int = 5, lockout_s: float = 30.0, *,
                 table_free: int = 10, table_window_s: float = 3600.0, table_max_delay_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic):
        if pin is None:
            pin = f"{secrets.randbelow(10**6):06d}"
        self.pin = check_pin_format(pin)
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self.table_free, self.table_window_s, self.table_max_delay_s = table_free, table_window_s, table_max_delay_s
        self._clock = clock
        self._failures: dict[str, tuple[int, float]] = {}
        self._table_failures: deque[float] = deque()
        self._table_until = 0.0
        self._lock = threading.Lock()

    def check(self, candidate: Any, client: str) -> bool:
        """True when ``candidate`` is the PIN.  Raises :class:`ApiError` 429 while ``client``
        is locked out after too many wrong PINs, or while the whole table waits."""
        now = self._clock()
        with self._lock:
            if self._table_until > now:
                wait = math.ceil(self._table_until - now)
                raise ApiError(429, "too_many_attempts_table",
                               f"Too many wrong PINs at this table; every tablet waits {wait} s.", retry_after=wait)
            count, until = self._failures.get(client, (0, 0.0))
            if until > now:
                wait = math.ceil(until - now)
                raise ApiError(429, "too_many_attempts", f"Too many wrong PINs; try again in {wait} s.", retry_after=wait)
            ok = hmac.compare_digest(str(candidate or "")[:64].encode(), self.pin.encode())
            if ok:
                self._failures.pop(client, None)
                return True
            count += 1
            self._failures[client] = (0, now + self.lockout_s) if count >= self.max_failures else (count, 0.0)
            if len(self._failures) > 10_000:  # forget the oldest addresses, not the table count
                self._failures.pop(next(iter(self._failures)))
            tf = self._table_failures
            tf.append(now)
            while tf and tf[0] <= now - self.table_window_s:
                tf.popleft()
            extra = len(tf) - self.table_free
            if extra > 0:
                self._table_until = now + min(self.table_max_delay_s, 2.0 ** (extra - 1))
            return False


class Unlocks:
    """The unlocked browser sessions, kept on the server so that *Lock* really locks: a browser
    holds only a random session id in its cookie, and a copied cookie dies with its session.
    At most ``limit`` sessions are remembered (the oldest unlock is forgotten first)."""

    def __init__(self, limit: int = 1000):
        self.limit = limit
        self._ids: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, sid: str) -> None:
        with self._lock:
            self._ids[sid] = time.time()
            while len(self._ids) > self.limit:
                self._ids.pop(next(iter(self._ids)))

    def __contains__(self, sid: object) -> bool:
        with self._lock:
            return isinstance(sid, str) and sid in self._ids

    def discard(self, sid: str | None) -> None:
        with self._lock:
            self._ids.pop(sid or "", None)

    def clear(self) -> int:
        """End every unlocked session; returns how many there were."""
        with self._lock:
            n = len(self._ids)
            self._ids.clear()
            return n

    def __len__(self) -> int:
        return len(self._ids)


def csrf_token() -> str:
    """This browser's CSRF token (created on first use, kept in the signed cookie)."""
    tok = cookie.get("csrf")
    if not tok:
        tok = cookie["csrf"] = secrets.token_urlsafe(24)
    return tok


def _unlocks() -> Unlocks:
    return current_app.extensions["table_unlocks"]


def is_unlocked() -> bool:
    """True when this browser's session was unlocked with the PIN and not locked since."""
    return cookie.get("sid") in _unlocks()


def unlock(candidate: Any) -> None:
    """Check the PIN and unlock this browser: a new session id (never one chosen before the
    PIN was known) registered on the server.  Raises :class:`ApiError` 403 or 429."""
    pin: TablePin = current_app.extensions["table_pin"]
    if not pin.check(candidate, request.remote_addr or "?"):
        raise ApiError(403, "wrong_pin", "That is not the table PIN.")
    _unlocks().discard(cookie.get("sid"))
    sid = cookie["sid"] = secrets.token_urlsafe(24)
    _unlocks().add(sid)


def lock(everyone: bool = False) -> int:
    """End this browser's unlocked session, or with ``everyone`` every unlocked session of the
    table (every tablet needs the PIN again).  Returns how many sessions were ended."""
    sid = cookie.pop("sid", None)
    if everyone:
        return _unlocks().clear()
    was = sid in _unlocks()
    _unlocks().discard(sid)
    return int(was)


def check_csrf() -> None:
    """Refuse a state-changing request without JSON, from another origin, or without this
    browser's token (:class:`ApiError` 415/403)."""
    _check_json_and_origin()
    sent = request.headers.get("X-CSRF-Token", "")
    tok = cookie.get("csrf")
    if not tok or not hmac.compare_digest(sent.encode(), tok.encode()):
        raise ApiError(403, "csrf", "The page's security token is missing or stale; reload the page.")


def _check_json_and_origin() -> None:
    if not request.is_json:
        raise ApiError(415, "json_required", "Send the request body as JSON (Content-Type: application/json).")
    origin = request.headers.get("Origin")
    if origin and origin.rstrip("/") != request.host_url.rstrip("/"):
        raise ApiError(403, "cross_origin", "Requests from another site are refused.")


def table_input(require_pin: bool = True) -> Callable:
    """Decorator for a ``POST`` table input.

    A browser sends its CSRF token and must be unlocked; a script may instead send the PIN in
    the ``X-Table-PIN`` header (a custom header cannot be sent cross-site without a CORS
    preflight, which this server never grants).  Raises :class:`ApiError` 403/415/429.
    """

    def deco(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapper(*a, **kw):
            header = request.headers.get("X-Table-PIN")
            if header is not None:
                _check_json_and_origin()
                pin: TablePin = current_app.extensions["table_pin"]
                if not pin.check(header, request.remote_addr or "?"):
                    raise ApiError(403, "wrong_pin", "That is not the table PIN.")
            else:
                check_csrf()
                if require_pin and not is_unlocked():
                    raise ApiError(403, "pin_required", "Changes need the table PIN: unlock the dashboard first.")
            return view(*a, **kw)
        return wrapper
    return deco
