"""The camera setup page: ``/setup`` shows what the camera sees, annotated by the assistant.

PIN-gated like every table input (the picture shows the table; the page is for whoever mounts
the camera): ``/setup/snapshot.jpg`` and ``/setup/report.json`` answer only an unlocked browser
or a request carrying the PIN in ``X-Table-PIN``.  Frames come from a :class:`CameraFeed` in
``app.extensions["camera_feed"]``: whatever reads the camera calls :meth:`CameraFeed.offer`
with each frame, and the page fetches a fresh annotated snapshot about once a second.
"""

from __future__ import annotations

import threading
import time

import cv2
from flask import Blueprint, Response, current_app, jsonify, render_template, request

from web import auth

bp = Blueprint("setup", __name__)

STALE_FRAME_S = 3.0
"""Age (s) of the latest frame from which the setup page says the picture is not live: the
camera sends several frames a second, so 3 s without one is a stopped or unplugged camera."""
SNAPSHOT_INTERVAL_S = 1.0
"""The annotated snapshot is recomputed at most this often, however many browsers ask."""


WATCH_S = 5.0
"""A setup page counts as watching for this long after its last snapshot or report request."""


class CameraFeed:
    """The latest camera frame and its annotated snapshot (thread-safe).

    ``geo``, ``intrinsics``, ``reader`` and ``labels`` are passed to
    :func:`companion.vision.assistant.assess` (``reader`` with a calibrated profile adds the
    confidence map).  ``reader_factory``: builds that reader on the first snapshot instead
    (the live table gives the assistant a reader of its own: a reader keeps per-frame state,
    and the camera thread uses the table's).

    ``lazy``: the table's camera loop offers every frame; it should cost nothing while no
    setup page is open.  A lazy feed ignores frames unless a page asked for a snapshot in the
    last :data:`WATCH_S` s, and then copies one at most every half :data:`SNAPSHOT_INTERVAL_S`
    (the camera may reuse its buffers).  ``copies`` counts the frames copied.
    """

    def __init__(self, geo=None, intrinsics=None, reader=None, labels=None, width: int = 1280, *,
                 reader_factory=None, lazy: bool = False):
        self.geo, self.intrinsics, self.reader, self.labels, self.width = geo, intrinsics, reader, labels, width
        self.reader_factory = reader_factory
        self.lazy = lazy
        self.copies = 0
        self._lock = threading.Lock()
        self._compute = threading.Lock()
        self._frame = None
        self._frame_t = 0.0
        self._snap: tuple[bytes, dict] | None = None
        self._snap_t = -1e9
        self._watched_t = -1e9

    @property
    def watched(self) -> bool:
        """A setup page asked for a snapshot within the last :data:`WATCH_S` s."""
        return time.monotonic() - self._watched_t < WATCH_S

    def offer(self, image) -> None:
        """A new BGR uint8 (h, w, 3) frame from the camera (the newest one wins).  A lazy
        feed returns at once while nobody watches (no copy, no work)."""
        if not self.lazy:
            with self._lock:
                self._frame, self._frame_t = image, time.monotonic()
            return
        now = time.monotonic()
        if now - self._watched_t >= WATCH_S or now - self._frame_t < SNAPSHOT_INTERVAL_S / 2:
            return
        frame = image.copy()
        with self._lock:
            self._frame, self._frame_t = frame, now
            self.copies += 1

    def snapshot(self) -> tuple[bytes, dict] | None:
        """(JPEG bytes, report JSON) of the latest frame, recomputed at most every
        :data:`SNAPSHOT_INTERVAL_S`; ``None`` before the first frame (a lazy feed starts
        keeping frames from this call on)."""
        from companion.vision.assistant import annotate, assess

        with self._lock:
            self._watched_t = time.monotonic()
        # One snapshot at a time, computed outside the frame lock: the camera thread's
        # offer() never waits for the assistant.
        with self._compute:
            with self._lock:
                frame, t, snap, snap_t = self._frame, self._frame_t, self._snap, self._snap_t
            if frame is None:
                return None
            if snap is not None and (time.monotonic() - snap_t < SNAPSHOT_INTERVAL_S or t <= snap_t):
                return _aged(snap, t)
            if self.reader is None and self.reader_factory is not None:
                self.reader = self.reader_factory()
            rep = assess(frame, self.geo, self.intrinsics, self.reader, self.labels)
            pic = annotate(frame, rep, self.geo, self.labels, width=self.width)
            ok, buf = cv2.imencode(".jpg", pic, [cv2.IMWRITE_JPEG_QUALITY, 85])
            doc = rep.to_json()
            snap = (buf.tobytes(), doc)
            with self._lock:
                self._snap, self._snap_t = snap, time.monotonic()
            return _aged(snap, t)


def _aged(snap: tuple[bytes, dict], frame_t: float) -> tuple[bytes, dict]:
    """``snap`` with the report's ``frame_age_s`` (s since the frame arrived, now: a cached
    snapshot of a camera that stopped grows older) and ``frame_stale`` (older than
    :data:`STALE_FRAME_S`)."""
    age = time.monotonic() - frame_t
    return snap[0], {**snap[1], "frame_age_s": round(age, 1), "frame_stale": age > STALE_FRAME_S}


def _allowed() -> bool:
    header = request.headers.get("X-Table-PIN")
    if header is not None:
        return current_app.extensions["table_pin"].check(header, request.remote_addr or "?")
    return auth.is_unlocked()


def _guarded(view):
    def wrapper():
        if not _allowed():
            raise auth.ApiError(403, "pin_required", "The camera setup page needs the table PIN.")
        feed: CameraFeed | None = current_app.extensions.get("camera_feed")
        if feed is None:
            raise auth.ApiError(503, "no_camera", "No camera feeds this dashboard: run "
                                "'mycelium-companion camera check --camera SRC --web'.")
        snap = feed.snapshot()
        if snap is None:
            raise auth.ApiError(503, "no_frame", "Waiting for the next frame from the camera…" if feed.lazy
                                else "No frame from the camera yet.")
        return view(snap)
    wrapper.__name__ = view.__name__
    return wrapper


@bp.get("/setup")
def page():
    """The setup page; asks for the PIN first, then refreshes the snapshot about once a second."""
    # Before a game runs (camera check --web) "/" leads back here: no link to a dashboard
    # that is not there, but why there is none yet.
    resp = Response(render_template("setup.html", csrf=auth.csrf_token(), unlocked=auth.is_unlocked(),
                                    has_feed=current_app.extensions.get("camera_feed") is not None,
                                    has_game=current_app.extensions.get("table_session") is not None))
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/setup/snapshot.jpg")
@_guarded
def snapshot(snap):
    """The latest frame, annotated (JPEG)."""
    resp = Response(snap[0], mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/setup/report.json")
@_guarded
def report(snap):
    """What the assistant found and its advice (see ``SetupReport.to_json``)."""
    resp = jsonify(snap[1])
    resp.headers["Cache-Control"] = "no-store"
    return resp


def attach_table_feed(app, live) -> CameraFeed:
    """Let the live table's camera feed ``app``'s setup page while the game runs: a lazy
    :class:`CameraFeed` (no copy while no page is open) on ``live`` (a
    :class:`~companion.table.live.LiveTable`), with the table's board geometry, lens
    intrinsics and colour profile, and a board reader of its own for the confidence map."""
    from companion.vision.assistant import space_labels
    from companion.vision.reader import BoardReader

    table_reader = live.reader
    geo, intr = table_reader.geo, table_reader.tracker.intrinsics

    def reader():
        return BoardReader(geo, profile=table_reader.profile, intrinsics=intr, edition_dir=table_reader.edition_dir)

    feed = CameraFeed(geo, intr, labels=space_labels(table_reader.edition_dir), reader_factory=reader, lazy=True)
    app.extensions["camera_feed"] = feed
    live.feed = feed
    return feed


def setup_app(feed: CameraFeed, pin: str | None = None):
    """A dashboard app with no game, for mounting the camera: ``/`` leads to ``/setup``."""
    from flask import redirect

    from web import create_app

    from flask import jsonify, request

    app = create_app(None, pin=pin)
    app.extensions["camera_feed"] = feed
    app.view_functions["pages.index"] = lambda: redirect("/setup")

    @app.before_request
    def no_game_here():
        # the game API needs a game: answer what this server is, not an internal error
        if request.path.startswith("/api/") and request.path not in ("/api/unlock", "/api/lock"):
            return jsonify(error="no_game", message="this server shows only the camera setup page; "
                           "the game's dashboard is served by 'run', 'demo' or 'serve'"), 404
        return None

    return app
