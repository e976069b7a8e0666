"""Where tablets find the dashboard: this machine's LAN address and the names it serves on.

The host name is no help: Raspberry Pi OS maps it to ``127.0.1.1`` in ``/etc/hosts``, so a QR
code built from it points back at the tablet itself.  The addresses come from the network
interfaces instead (``ifaddr``), preferring the interface of the default route (Linux
``/proc/net/route``), which is the one the table's Wi-Fi reaches.

Nothing here sends a packet.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from pathlib import Path

MDNS_NAME = "mycelium.local"
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")
ANY_HOSTS = ("0.0.0.0", "::", "")


@dataclass(frozen=True)
class Address:
    """One IPv4 address of a network interface: ``interface`` (``"wlan0"``), ``ip``
    (``"192.168.1.20"``)."""

    interface: str
    ip: str


def interface_addresses(adapters=None) -> list[Address]:
    """The IPv4 addresses of this machine's interfaces, loopback and link-local (169.254/16)
    left out.

    ``adapters``: a list shaped like ``ifaddr.get_adapters()`` (objects with ``name`` and
    ``ips``, each with ``ip``), for tests; read from the system when ``None``.  IPv6 addresses
    are skipped: a QR code with ``[fe80::...]`` is no use to a tablet.
    """
    if adapters is None:
        import ifaddr
        adapters = ifaddr.get_adapters()
    out = []
    for ad in adapters:
        for ip in ad.ips:
            if not isinstance(ip.ip, str):  # IPv6 addresses come as tuples
                continue
            try:
                addr = ipaddress.IPv4Address(ip.ip)
            except ValueError:
                continue
            if addr.is_loopback or addr.is_link_local or addr.is_unspecified:
                continue
            out.append(Address(ad.name, ip.ip))
    return out


def default_route_interface(route_table: str | None = None) -> str | None:
    """The name of the interface of the IPv4 default route, or ``None`` (no default route, or
    not Linux).

    ``route_table``: the text of ``/proc/net/route`` (tab-separated, a header line, the
    destination ``00000000`` for the default route); read from the system when ``None``.
    """
    if route_table is None:
        try:
            route_table = Path("/proc/net/route").read_text()
        except OSError:
            return None
    best = None
    for line in route_table.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 8 and cols[1] == "00000000" and cols[7] == "00000000":
            metric = int(cols[6]) if cols[6].isdigit() else 0
            if best is None or metric < best[0]:
                best = (metric, cols[0])
    return best[1] if best else None


def lan_address(addresses: list[Address] | None = None, default_iface: str | None = None) -> str | None:
    """The address to put in the QR code: one on the default route's interface, else the first
    private one (192.168/16, 10/8, 172.16/12), else any; ``None`` when the machine has no
    network.  Both arguments are read from the system when ``None``."""
    if addresses is None:
        addresses = interface_addresses()
    if default_iface is None:
        default_iface = default_route_interface()
    for a in addresses:
        if a.interface == default_iface:
            return a.ip
    for a in addresses:
        if ipaddress.IPv4Address(a.ip).is_private:
            return a.ip
    return addresses[0].ip if addresses else None


def url_for_host(host: str, port: int) -> str:
    """``http://host:port/``, with brackets around an IPv6 address."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def served_names(bound_host: str, addresses: list[Address] | None = None) -> list[str]:
    """The host names and addresses a browser may use to reach a server bound to
    ``bound_host``: what the ``Host`` header is checked against (DNS rebinding).

    Loopback names always; with a wildcard bind (``0.0.0.0``) also every interface address,
    the host name, ``<host name>.local`` and ``mycelium.local``.
    """
    names = list(LOCAL_NAMES)
    if bound_host in ANY_HOSTS:
        if addresses is None:
            addresses = interface_addresses()
        names += [a.ip for a in addresses]
        host = socket.gethostname()
        names += [host, host + ".local", MDNS_NAME]
    elif bound_host not in names:
        names.append(bound_host)
    seen = []
    for n in names:
        n = n.lower()
        if n and n not in seen:
            seen.append(n)
    return seen
