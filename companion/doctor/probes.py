"""The machine as ``doctor`` sees it: camera list, serial port and reader handshake, groups,
disk, clock, network.  :class:`Probes` does the looking; tests replace its methods."""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class ReaderReply:
    """What the reader did when the port was opened: ``state`` is ``answered`` (``info`` holds
    the HELLO: protocol, firmware, and health when the bridge reports it), ``silent``,
    ``busy`` (another program, usually the running companion, holds the port), ``refused``
    (HELLO with another protocol version, in ``detail``) or ``error`` (``detail``)."""

    state: str
    info: dict = field(default_factory=dict)
    detail: str = ""


class ProbeError(Exception):
    """A probe cannot look (module missing, command missing): the message says why."""


class Probes:
    """The machine as the checks see it.  Every method is replaceable in tests."""

    def cameras(self, spec: str) -> list[dict]:
        """Cameras that ``spec`` (``picamera2`` or a webcam index) can use: dicts with
        ``Model`` (libcamera sensor name or V4L2 card name).  Raises :class:`ProbeError`."""
        if spec == "picamera2":
            try:
                from picamera2 import Picamera2  # type: ignore[import-not-found]
            except ImportError as e:
                raise ProbeError(f"picamera2 cannot be imported ({e})") from None
            return [dict(c) for c in Picamera2.global_camera_info()]
        if spec.isdigit():
            name = Path(f"/sys/class/video4linux/video{spec}/name")
            if not name.exists():
                return []
            return [{"Model": name.read_text().strip()}]
        raise ProbeError(f"--camera {spec}: only picamera2 or a webcam index can be looked for")

    def users(self) -> tuple[str, str | None]:
        """(this process's user, the user the boot service runs as or None without a service)."""
        import pwd
        me = pwd.getpwuid(os.getuid()).pw_name
        try:
            unit = Path("/etc/systemd/system/mycelium-companion.service").read_text()
        except OSError:
            return me, None
        service = next((line.split("=", 1)[1].strip() for line in unit.splitlines() if line.startswith("User=")), None)
        return me, service

    def find_port(self) -> str | None:
        """The first known USB reader's device path (``--rfid auto``), or None."""
        from firmware_bridge.discovery import find_port
        return find_port()

    def port(self, path: str) -> dict:
        """``exists``, ``target`` (resolved path), ``rw`` (this process may open it), ``group``."""
        if not os.path.exists(path):
            return {"exists": False}
        st = os.stat(path)
        import grp
        try:
            group = grp.getgrgid(st.st_gid).gr_name
        except KeyError:
            group = str(st.st_gid)
        return {"exists": True, "target": os.path.realpath(path), "rw": os.access(path, os.R_OK | os.W_OK),
                "group": group, "mode": f"{st.st_mode & 0o777:o}"}

    def groups(self) -> tuple[set[str], set[str]]:
        """(groups of this process, groups /etc/group lists the user in): they differ until
        the user logs in again after ``usermod -aG``."""
        import grp
        import pwd
        user = pwd.getpwuid(os.getuid()).pw_name
        now = {grp.getgrgid(g).gr_name for g in os.getgroups() if _has_gid(g)}
        listed = {g.gr_name for g in grp.getgrall() if user in g.gr_mem}
        listed.add(grp.getgrgid(os.getgid()).gr_name)
        return now, listed

    def reader_hello(self, path: str, driver: str, timeout: float) -> ReaderReply:
        """Open the port, wait up to ``timeout`` s for the reader to identify itself."""
        import fcntl
        import queue

        from firmware_bridge import events as E
        from firmware_bridge.drivers import make_driver
        from firmware_bridge.reader import BagReader
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError as e:
            return ReaderReply("error", detail=e.strerror or str(e))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return ReaderReply("busy")
        finally:
            os.close(fd)
        q: "queue.Queue" = queue.Queue()
        reader = BagReader(make_driver(driver), path, q.put_nowait, on_waiting=lambda line: None).start()
        deadline = time.monotonic() + timeout
        try:
            while (left := deadline - time.monotonic()) > 0:
                try:
                    ev = q.get(timeout=left)
                except queue.Empty:
                    break
                if isinstance(ev, E.ReaderConnected):
                    return ReaderReply("answered", dict(ev.info))
                if isinstance(ev, E.FrameErrorEvent) and (ev.kind == "version" or "protocol" in ev.detail):
                    return ReaderReply("refused", detail=ev.detail)
        finally:
            reader.stop()
        return ReaderReply("silent")

    def dashboard_status(self, port: int) -> dict | None:
        """The running companion's device status (``/api/state``), or None when none answers."""
        try:
            return json.loads(self.http_get(f"http://127.0.0.1:{port}/api/state", 2.0)).get("status")
        except (OSError, ValueError):
            return None

    def free_bytes(self, path: str) -> int:
        """Bytes free for this user on the file system holding ``path``."""
        return shutil.disk_usage(path).free

    def writable(self, path: str) -> bool:
        """True when ``path`` is a folder this process can create files in."""
        return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)

    def now(self) -> float:
        """Unix time in s (the system clock)."""
        return time.time()

    def clock_synced(self) -> bool | None:
        """NTP synchronisation per ``timedatectl``; None when it cannot say."""
        import subprocess
        try:
            out = subprocess.run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"], capture_output=True,
                                 text=True, timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            return None
        value = out.stdout.strip()
        return {"yes": True, "no": False}.get(value)

    def lan_address(self) -> str | None:
        """The IPv4 address other machines on the LAN reach this one at: the source address
        of the default route (a UDP socket is connected, no packet is sent)."""
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed beyond the gateway
                ip = s.getsockname()[0]
        except OSError:
            return None
        return None if ip.startswith("127.") or ip == "0.0.0.0" else ip

    def http_get(self, url: str, timeout: float) -> str:
        """The body of ``url``; raises OSError when nothing answers."""
        import urllib.request
        # no proxy: the dashboard is on this machine or its LAN
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(url, timeout=timeout) as r:
            return r.read().decode()


def _has_gid(gid: int) -> bool:
    import grp
    try:
        grp.getgrgid(gid)
    except KeyError:
        return False
    return True
