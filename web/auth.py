"""Who may change the game: the table PIN, the per-browser CSRF token, attempt limiting.

A browser gets a CSRF token in its signed session cookie (``SameSite=Lax``) and in the
page's ``<meta name="csrf-token">``.  Every state-changing request is a ``POST`` with a JSON
body, the token in the ``X-CSRF-Token`` header, and either an unlocked browser session
(``POST /api/unlock`` with the PIN) or the PIN in the ``X-Table-PIN`` header (scripts).
"""

from __future__ import annotations

import functools
import hmac
import secrets
import threading
import time
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


class TablePin:
    """The table PIN and a limiter: after ``max_failures`` wrong PINs from one client, that
    client waits ``lockout_s`` seconds before trying again.

    Raises ``ValueError`` for a PIN that is not 4 to 8 digits.
    """

    def __init__(self, pin: str | None = None, max_failures: int = 5, lockout_s: float = 30.0):
        if pin is None:
            pin = f"{secrets.randbelow(10**6):06d}"
        pin = str(pin)
        if not (pin.isdigit() and 4 <= len(pin) <= 8):
            raise ValueError("the table PIN must be 4 to 8 digits")
        self.pin = pin
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self._failures: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()

    def check(self, candidate: Any, client: str) -> bool:
        """True when ``candidate`` is the PIN.  Raises :class:`ApiError` (429) while ``client``
        is locked out after too many wrong PINs."""
        now = time.monotonic()
        with self._lock:
            count, until = self._failures.get(client, (0, 0.0))
            if until > now:
                raise ApiError(429, "too_many_attempts",
                               f"Too many wrong PINs; try again in {int(until - now) + 1} s.")
            ok = hmac.compare_digest(str(candidate or "").encode(), self.pin.encode())
            if ok:
                self._failures.pop(client, None)
            else:
                count += 1
                self._failures[client] = (0, now + self.lockout_s) if count >= self.max_failures else (count, 0.0)
            return ok


def csrf_token() -> str:
    """This browser's CSRF token (created on first use, kept in the signed cookie)."""
    tok = cookie.get("csrf")
    if not tok:
        tok = cookie["csrf"] = secrets.token_urlsafe(24)
    return tok


def is_unlocked() -> bool:
    """True when this browser entered the PIN of the running server."""
    pin: TablePin = current_app.extensions["table_pin"]
    return cookie.get("unlocked") == _pin_tag(pin)


def _pin_tag(pin: TablePin) -> str:
    return hmac.new(current_app.config["SECRET_KEY"], pin.pin.encode(), "sha256").hexdigest()[:16]


def unlock(candidate: Any) -> None:
    """Check the PIN and mark this browser unlocked; raises :class:`ApiError` 403 or 429."""
    pin: TablePin = current_app.extensions["table_pin"]
    if not pin.check(candidate, request.remote_addr or "?"):
        raise ApiError(403, "wrong_pin", "That is not the table PIN.")
    cookie["unlocked"] = _pin_tag(pin)


def lock() -> None:
    """Forget this browser's unlocked state."""
    cookie.pop("unlocked", None)


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
