"""Advertise the dashboard over mDNS (``zeroconf``) as ``http://mycelium.local:PORT/``.

A tablet can type ``mycelium.local:8080`` instead of an address that changes with the router's
whim.  The numeric address stays the one in the QR code: Android resolves ``.local`` names
only in some browsers.  mDNS fails soft: where multicast is unavailable (no network, a
container, a firewall) the caller gets ``None`` and a sentence to print, and the dashboard
runs on without it.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from web.lan import MDNS_NAME

SERVICE_TYPE = "_http._tcp.local."


class MdnsAdvert:
    """A registered ``_http._tcp`` service whose server name is ``mycelium.local``; the
    zeroconf responder answers the name's A queries with ``addresses``.  :meth:`close`
    withdraws it (a goodbye packet) and stops the responder."""

    def __init__(self, zc, info):
        self._zc, self.info = zc, info

    @property
    def url(self) -> str:
        return f"http://{self.info.server.rstrip('.')}:{self.info.port}/"

    def close(self) -> None:
        try:
            self._zc.unregister_service(self.info)
        finally:
            self._zc.close()


def advertise(port: int, addresses: list[str], *, name: str = MDNS_NAME,
              zeroconf_factory: Callable[..., Any] | None = None) -> tuple[MdnsAdvert | None, str]:
    """Advertise ``http://<name>:<port>/`` answering with ``addresses`` (IPv4, dotted).

    Returns ``(advert, line to print)``; ``advert`` is ``None`` when there is nothing to
    advertise or multicast failed (the line says why).  Never raises for a network error.
    ``zeroconf_factory(interfaces=[...])`` builds the responder (``zeroconf.Zeroconf``), for
    tests; it is bound to ``addresses`` only, so nothing is sent on other interfaces.
    """
    if not addresses:
        return None, f"mDNS: not advertised as {name} (no network address to announce)"
    try:
        from zeroconf import ServiceInfo, Zeroconf
    except ImportError:  # pragma: no cover - a dependency, but fail soft all the same
        return None, f"mDNS: not advertised as {name} (the zeroconf package is not installed)"
    factory = zeroconf_factory or Zeroconf
    label = name.split(".")[0]
    info = ServiceInfo(SERVICE_TYPE, f"Mycelium table ({label}).{SERVICE_TYPE}", port=port,
                       addresses=[socket.inet_aton(a) for a in addresses],
                       properties={"path": "/"}, server=name.rstrip(".") + ".")
    zc = None
    try:
        zc = factory(interfaces=list(addresses))
        zc.register_service(info, allow_name_change=True)
    except Exception as e:  # noqa: BLE001 - any failure of multicast must leave the dashboard up
        if zc is not None:
            try:
                zc.close()
            except Exception:  # noqa: BLE001
                pass
        why = getattr(e, "strerror", None) or str(e) or type(e).__name__
        return None, f"mDNS: not advertised as {name} ({why}); use the address above"
    advert = MdnsAdvert(zc, info)
    return advert, f"Also: {advert.url}   (mDNS name; tablets that cannot resolve it use the address above)"
