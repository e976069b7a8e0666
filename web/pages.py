"""The pages: the dashboard itself and a printable join page with the QR code."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, render_template, request

from web import auth
from web.qr import qr_svg

bp = Blueprint("pages", __name__)


def join_url() -> str:
    """The address tablets should open: the configured one, else the one this browser used."""
    return current_app.config.get("JOIN_URL") or request.host_url


@bp.get("/")
def index():
    """The dashboard (rendered in the browser from ``/api/state``)."""
    url = join_url()
    resp = Response(render_template("index.html", csrf=auth.csrf_token(), join_url=url, qr=qr_svg(url, scale=5),
                                    mdns_url=current_app.config.get("MDNS_URL")))
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/join")
def join():
    """A page with just the QR code and the address, to print or show on another screen."""
    url = join_url()
    return render_template("join.html", join_url=url, qr=qr_svg(url, scale=10), mdns_url=current_app.config.get("MDNS_URL"))


@bp.get("/qr.svg")
def qr():
    """The join QR code as an SVG image."""
    return Response(qr_svg(join_url()), mimetype="image/svg+xml")


@bp.after_app_request
def security_headers(resp: Response) -> Response:
    """Everything comes from this server; no framing by other sites."""
    resp.headers.setdefault("Content-Security-Policy",
                            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                            "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "no-referrer")
    return resp
