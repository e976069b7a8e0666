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

SNAPSHOT_INTERVAL_S = 1.0
"""The annotated snapshot is recomputed at most this often, however many browsers ask."""


class CameraFeed:
    """The latest camera frame and its annotated snapshot (thread-safe).

    ``geo``, ``intrinsics``, ``reader`` and ``labels`` are passed to
    :func:`companion.vision.assistant.assess` (``reader`` with a calibrated profile adds the
    confidence map).
    """

    def __init__(self, geo=None, intrinsics=None, reader=None, labels=None, width: int = 1280):
        self.geo, self.intrinsics, self.reader, self.labels, self.width = geo, intrinsics, reader, labels, width
        self._lock = threading.Lock()
        self._frame = None
        self._frame_t = 0.0
        self._snap: tuple[bytes, dict] | None = None
        self._snap_t = -1e9

    def offer(self, image) -> None:
        """A new BGR uint8 (h, w, 3) frame from the camera (the newest one wins)."""
        with self._lock:
            self._frame, self._frame_t = image, time.monotonic()

    def snapshot(self) -> tuple[bytes, dict] | None:
        """(JPEG bytes, report JSON) of the latest frame, recomputed at most every
        :data:`SNAPSHOT_INTERVAL_S`; ``None`` before the first frame."""
        from companion.vision.assistant import annotate, assess

        with self._lock:
            frame, t = self._frame, self._frame_t
            if frame is None:
                return None
            if self._snap is not None and (time.monotonic() - self._snap_t < SNAPSHOT_INTERVAL_S or t <= self._snap_t):
                return self._snap
            rep = assess(frame, self.geo, self.intrinsics, self.reader, self.labels)
            pic = annotate(frame, rep, self.geo, self.labels, width=self.width)
            ok, buf = cv2.imencode(".jpg", pic, [cv2.IMWRITE_JPEG_QUALITY, 85])
            doc = rep.to_json()
            doc["frame_age_s"] = round(time.monotonic() - t, 1)
            self._snap, self._snap_t = (buf.tobytes(), doc), time.monotonic()
            return self._snap


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
            raise auth.ApiError(503, "no_frame", "No frame from the camera yet.")
        return view(snap)
    wrapper.__name__ = view.__name__
    return wrapper


@bp.get("/setup")
def page():
    """The setup page; asks for the PIN first, then refreshes the snapshot about once a second."""
    resp = Response(render_template("setup.html", csrf=auth.csrf_token(), unlocked=auth.is_unlocked(),
                                    has_feed=current_app.extensions.get("camera_feed") is not None))
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


def setup_app(feed: CameraFeed, pin: str | None = None):
    """A dashboard app with no game, for mounting the camera: ``/`` leads to ``/setup``."""
    from flask import redirect

    from web import create_app

    app = create_app(None, pin=pin)
    app.extensions["camera_feed"] = feed
    app.view_functions["pages.index"] = lambda: redirect("/setup")
    return app
