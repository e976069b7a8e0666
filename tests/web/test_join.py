"""Joining the table: the QR code carries the LAN address read from the interfaces (never
the host name's 127.0.1.1), ``mycelium.local`` is advertised over mDNS, both are printed, and
mDNS fails soft.  Interface lists and the mDNS responder are injected: nothing is sent off
this machine."""

from __future__ import annotations

import io
from types import SimpleNamespace as NS

import pytest

from web.lan import Address, default_route_interface, interface_addresses, lan_address, served_names
from web.server import serve
from webtools import PIN

ROUTES = """Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0
wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
wlan0\t0001A8C0\t00000000\t0001\t0\t0\t600\t00FFFFFF\t0\t0\t0
"""

# what ifaddr.get_adapters() gives on a Raspberry Pi with Docker installed
ADAPTERS = [
    NS(name="lo", ips=[NS(ip="127.0.0.1"), NS(ip=("::1", 0, 0))]),
    NS(name="docker0", ips=[NS(ip="172.17.0.1")]),
    NS(name="eth0", ips=[NS(ip="169.254.10.3")]),  # no cable: a link-local address
    NS(name="wlan0", ips=[NS(ip="192.168.1.20"), NS(ip=("fe80::1", 0, 3))]),
]


def test_interface_addresses_skip_loopback_link_local_and_ipv6():
    assert interface_addresses(ADAPTERS) == [Address("docker0", "172.17.0.1"), Address("wlan0", "192.168.1.20")]


def test_the_default_route_interface_is_preferred():
    assert default_route_interface(ROUTES) == "wlan0"
    addrs = interface_addresses(ADAPTERS)
    assert lan_address(addrs, "wlan0") == "192.168.1.20"      # not docker0, listed first
    assert lan_address(addrs, None) is not None
    assert lan_address([Address("usb0", "100.64.0.2"), Address("eth0", "10.0.0.7")], "none") == "10.0.0.7"
    assert lan_address([], "wlan0") is None
    assert default_route_interface("Iface\tDestination\n") is None


class FakeZeroconf:
    """Records what would be announced; sends nothing."""
    made: list = []

    def __init__(self, interfaces):
        self.interfaces, self.services, self.closed = interfaces, [], False
        FakeZeroconf.made.append(self)

    def register_service(self, info, allow_name_change=False):
        self.services.append(info)

    def unregister_service(self, info):
        self.services.remove(info)

    def close(self):
        self.closed = True


def test_a_wildcard_server_puts_the_lan_address_in_the_qr_code_and_prints_both(session, monkeypatch):
    monkeypatch.setattr("socket.gethostname", lambda: "raspberrypi")  # maps to 127.0.1.1 on Pi OS
    FakeZeroconf.made.clear()
    out = io.StringIO()
    srv = serve(session, host="0.0.0.0", port=0, pin=PIN, out=out, addresses=interface_addresses(ADAPTERS),
                default_iface="wlan0", zeroconf_factory=FakeZeroconf)
    try:
        url = f"http://192.168.1.20:{srv.port}/"
        assert srv.url == url and srv.mdns_url == f"http://mycelium.local:{srv.port}/"
        text = out.getvalue()
        assert f"Dashboard: {url}" in text and f"http://mycelium.local:{srv.port}/" in text
        zc = FakeZeroconf.made[-1]
        assert zc.interfaces == ["172.17.0.1", "192.168.1.20"]  # bound to the LAN only
        info = zc.services[0]
        assert info.server == "mycelium.local." and info.port == srv.port
        assert sorted(info.parsed_addresses()) == ["172.17.0.1", "192.168.1.20"]
        # the QR code on the page carries the numeric address, and the page answers to every name
        import urllib.request
        page = urllib.request.urlopen(srv.local_url + "join").read().decode()
        assert f"Join: {url}" in page and "127.0.1.1" not in page and "raspberrypi" not in page
        assert f"http://mycelium.local:{srv.port}/" in page  # the name is offered beside the code
        for host in ("192.168.1.20", "mycelium.local", "raspberrypi.local"):
            req = urllib.request.Request(srv.local_url + "api/state", headers={"Host": f"{host}:{srv.port}"})
            assert urllib.request.urlopen(req).status == 200
    finally:
        srv.shutdown()
    assert zc.closed and zc.services == []  # the name is withdrawn at shutdown


def test_mdns_fails_soft_with_a_printed_line(session):
    def no_multicast(interfaces):
        raise OSError(19, "No such device")
    out = io.StringIO()
    srv = serve(session, host="0.0.0.0", port=0, pin=PIN, out=out, addresses=[Address("wlan0", "192.168.1.20")],
                default_iface="wlan0", zeroconf_factory=no_multicast, qr=False)
    try:
        text = out.getvalue()
        assert "mDNS: not advertised as mycelium.local (No such device)" in text
        assert f"Dashboard: http://192.168.1.20:{srv.port}/" in text and srv.mdns_url is None
    finally:
        srv.shutdown()


def test_loopback_servers_do_not_advertise(session):
    FakeZeroconf.made.clear()
    srv = serve(session, port=0, pin=PIN, announce=False, zeroconf_factory=FakeZeroconf)
    srv.shutdown()
    assert FakeZeroconf.made == [] and srv.url.startswith("http://127.0.0.1:")


def test_served_names():
    assert served_names("127.0.0.1") == ["localhost", "127.0.0.1", "::1", "[::1]"]
    names = served_names("0.0.0.0", [Address("wlan0", "192.168.1.20")])
    assert "192.168.1.20" in names and "mycelium.local" in names


def test_mycelium_local_resolves_on_the_loopback_interface():
    """The real responder, bound to 127.0.0.1 only: the name resolves to the address."""
    zeroconf = pytest.importorskip("zeroconf")
    from web.mdns import advertise
    advert, line = advertise(8080, ["127.0.0.1"], name="mycelium-test.local")
    if advert is None:
        pytest.skip(f"no multicast on the loopback interface here: {line}")
    zc = zeroconf.Zeroconf(interfaces=["127.0.0.1"])
    try:
        r = zeroconf.AddressResolver("mycelium-test.local.")
        assert r.request(zc, 3000) and r.parsed_addresses() == ["127.0.0.1"]
    finally:
        zc.close()
        advert.close()
