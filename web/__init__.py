"""The tablet dashboard: a Flask app over a :class:`~companion.table.session.TableSession`.

Layout follows Flask's tutorial: :func:`create_app` is the application factory, the pages and
the JSON API are blueprints (:mod:`web.pages`, :mod:`web.api`), and :func:`serve` runs the app
in a background thread for the table loop (:mod:`web.server`).

Viewers read; every change needs the table PIN (printed when the server starts) and a
per-browser CSRF token (see :mod:`web.auth`).
"""

from __future__ import annotations

import secrets
import threading
from typing import Any
from urllib.parse import urlsplit

from flask import Flask

from web.auth import TablePin, Unlocks
from web.lan import served_names
from web.streams import StreamCount

__all__ = ["create_app", "serve"]


def create_app(session, pin: str | None = None, *, join_url: str | None = None,
               secret_key: bytes | None = None, config: dict[str, Any] | None = None) -> Flask:
    """Build the dashboard app for ``session``.

    ``pin``: the table PIN (6 to 8 digits); a random 6-digit one when ``None`` (read it back
    from ``app.extensions["table_pin"].pin``).  ``join_url``: the address encoded in the QR
    code (defaults to the address the browser used).  ``secret_key`` signs the cookie that
    holds a browser's CSRF token and session id; the unlocked sessions live in this process
    only, so a restart locks every tablet again.  Raises ``ValueError`` for a malformed PIN.

    ``config`` may set ``SERVED_HOSTS`` (the host names and addresses the ``Host`` header may
    name; default: this machine's, :func:`web.lan.served_names`; :class:`web.server.DashboardServer`
    narrows it to the bound address) and ``SSE_MAX_STREAMS`` (open event streams at once).
    """
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_bytes(32),
        SESSION_COOKIE_NAME="mycelium_table",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",  # a tablet arriving from the QR scanner keeps its unlock
        JSON_SORT_KEYS=False,
        MAX_CONTENT_LENGTH=64 * 1024,
        SSE_KEEPALIVE_S=15.0,
        SSE_POLL_S=0.5,
        JOIN_URL=join_url,
        SEND_FILE_MAX_AGE_DEFAULT=300,
        SSE_MAX_STREAMS=1000,     # one per browser (its tabs share it); each holds a thread
        SSE_FULL_RETRY_MS=30000,  # when the cap is reached, the extra client retries this late
        SERVED_HOSTS=None,
    )
    if config:
        app.config.update(config)
    app.extensions["table_session"] = session
    if app.config["SERVED_HOSTS"] is None:
        names = served_names("0.0.0.0")
        if join_url and urlsplit(join_url).hostname:
            names.append(urlsplit(join_url).hostname.lower())
        app.config["SERVED_HOSTS"] = names
    app.extensions["table_session"] = session
    app.extensions["table_pin"] = TablePin(pin)
    app.extensions["table_unlocks"] = Unlocks()
    app.extensions["table_stopping"] = threading.Event()
    app.extensions["event_streams"] = StreamCount()

    from web import api, pages
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    from web.setup import bp as setup_bp  # the camera setup page
    app.register_blueprint(setup_bp)
    from web.hint import bp as hint_bp  # "What can I do?"
    app.register_blueprint(hint_bp)
    from web.choices import bp as choices_bp  # the players' choices a move waits for
    app.register_blueprint(choices_bp)
    api.register_error_handlers(app)
    app.before_request(api.check_host)
    return app


def serve(session, host: str = "127.0.0.1", port: int = 8080, pin: str | None = None, **kw):
    """Run the dashboard for ``session`` in a background thread; see :func:`web.server.serve`."""
    from web.server import serve as _serve
    return _serve(session, host=host, port=port, pin=pin, **kw)
