"""Run the dashboard in a background thread, so the table loop can embed it.

>>> srv = serve(session, host="0.0.0.0", port=8080)   # prints the URL, the QR code and the PIN
>>> ...                                                # the table loop runs
>>> srv.shutdown()
"""

from __future__ import annotations

import errno
import ipaddress
import logging
import socket
import sys
import threading
from typing import TextIO
from urllib.parse import urlsplit

from werkzeug.serving import get_sockaddr, make_server, select_address_family

from web.cli import port_number  # noqa: F401  (re-exported for the table's own CLI)
from web.lan import ANY_HOSTS, Address, interface_addresses, lan_address, served_names, url_for_host
from web.mdns import advertise
from web.qr import qr_text

LISTEN_BACKLOG = 128


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port``; raises ``OSError`` when that is impossible
    (port in use or out of range, no permission, unknown host)."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise OSError(errno.EINVAL, f"port must be a number from 0 to 65535, not {port!r}")
    family = select_address_family(host, port)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Werkzeug: restart at once
        sock.bind(get_sockaddr(host, port, family))
        sock.listen(LISTEN_BACKLOG)
    except BaseException:
        sock.close()
        raise
    return sock


def _is_loopback(host: str) -> bool:
    """True for an address only this machine reaches (127.0.0.0/8, ::1, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def public_url(host: str, port: int, addresses: list[Address] | None = None,
               default_iface: str | None = None) -> str:
    """The address to give tablets for a server bound to ``host``:``port``: with a wildcard
    bind, the LAN address (:func:`web.lan.lan_address`; the host name only when the machine has
    no network address at all)."""
    if host in ANY_HOSTS:
        host = lan_address(addresses, default_iface) or socket.gethostname()
    return url_for_host(host, port)


class DashboardServer:
    """A running dashboard: ``url``, ``port``, ``pin``, ``app``; :meth:`shutdown` stops it.

    ``addresses`` (this machine's interface addresses, :func:`web.lan.interface_addresses`)
    and ``default_iface`` (the default route's interface) are read from the system when
    ``None``; tests inject them.  ``mdns``: advertise ``mycelium.local`` (default: when bound
    to every interface); ``zeroconf_factory`` builds the mDNS responder (tests).
    Raises ``OSError`` at construction when the port cannot be bound (in use, no permission).
    """

    def __init__(self, app, host: str = "127.0.0.1", port: int = 8080, *,
                 addresses: list[Address] | None = None, default_iface: str | None = None,
                 mdns: bool | None = None, zeroconf_factory=None):
        self.app = app
        self.host = host
        wildcard = host in ANY_HOSTS
        if addresses is None:
            addresses = interface_addresses() if wildcard else []
        # Bind here rather than in make_server: Werkzeug prints its own message and calls
        # sys.exit(1) when it cannot bind, where the caller needs an OSError.
        sock = bind_socket(host, port)
        try:
            self._server = make_server(host, port, app, threaded=True, fd=sock.fileno())
        finally:
            sock.close()  # the server holds its own duplicate of the descriptor
        self._server.daemon_threads = True
        self.port = self._server.port
        if not app.config.get("JOIN_URL"):
            app.config["JOIN_URL"] = public_url(host, self.port, addresses, default_iface)
        self.url = app.config["JOIN_URL"]
        # DNS rebinding: answer only to the names and addresses this server is reached by
        names = served_names(host, addresses)
        join_host = urlsplit(self.url).hostname
        if join_host and join_host.lower() not in names:
            names.append(join_host.lower())
        app.config["SERVED_HOSTS"] = names
        self._mdns, self.mdns_line = None, None
        if mdns if mdns is not None else wildcard:
            ips = [a.ip for a in addresses] if wildcard else [host]
            self._mdns, self.mdns_line = advertise(self.port, ips, zeroconf_factory=zeroconf_factory)
        self.mdns_url = self._mdns.url if self._mdns else None
        app.config["MDNS_URL"] = self.mdns_url  # the join dialog and page name it too
        self.local_url = f"http://{'127.0.0.1' if host in ANY_HOSTS else host}:{self.port}/"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="dashboard", daemon=True)

    @property
    def pin(self) -> str:
        return self.app.extensions["table_pin"].pin

    def start(self) -> "DashboardServer":
        self._thread.start()
        return self

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop accepting requests, end the event streams, and wait up to ``timeout`` s."""
        self.app.extensions["table_stopping"].set()
        if self._mdns is not None:
            try:
                self._mdns.close()
            except Exception:  # noqa: BLE001 - withdrawing the name must not block shutdown
                pass
            self._mdns = None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout)

    def banner(self, qr: bool = True) -> str:
        """What to print at start-up: the address, the QR code and the PIN.

        Bound to a loopback address, the dashboard is reachable from this computer only: the
        banner says so and how to let tablets join, and draws no QR code a phone could not follow.
        """
        if _is_loopback(self.host):
            lines = [f"Dashboard: {self.url} (this computer only: to open it on a tablet or phone, "
                     "start again with --host 0.0.0.0)"]
            qr = False
        else:
            lines = [f"Dashboard: {self.url}"]
        if self.mdns_line:
            lines.append(self.mdns_line)
        if qr:
            lines.append(qr_text(self.url))
        lines.append(f"Table PIN: {self.pin}   (viewers need no PIN; every change does)")
        return "\n".join(lines)

    def __enter__(self) -> "DashboardServer":
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()


def serve(session, host: str = "127.0.0.1", port: int = 8080, pin: str | None = None, *,
          announce: bool = True, qr: bool = True, out: TextIO | None = None, quiet_log: bool = True,
          addresses: list[Address] | None = None, default_iface: str | None = None,
          mdns: bool | None = None, zeroconf_factory=None, **app_kw) -> DashboardServer:
    """Start the dashboard for ``session`` on ``host``:``port`` (0 picks a free port) in a
    daemon thread and return the :class:`DashboardServer`.

    ``announce`` prints :meth:`DashboardServer.banner` to ``out`` (stdout); a closed ``out``
    (``run ... | head -2``) is no failure of the dashboard, which runs on: the banner and
    every later line on ``out`` are dropped.  ``quiet_log``
    silences the per-request log lines.  ``addresses``, ``default_iface``, ``mdns`` and
    ``zeroconf_factory``: see :class:`DashboardServer`.  Raises ``OSError`` if the port cannot be bound and
    ``ValueError`` for a malformed PIN.
    """
    from web import create_app
    if quiet_log:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app(session, pin=pin, **app_kw)
    srv = DashboardServer(app, host, port, addresses=addresses, default_iface=default_iface,
                          mdns=mdns, zeroconf_factory=zeroconf_factory).start()
    if announce:
        from companion.table.console import print_or_drop
        print_or_drop(srv.banner(qr=qr), out or sys.stdout)
    return srv
