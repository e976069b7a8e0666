"""A fake Raspberry Pi OS root for the installer, and the installer loaded as a module."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-pi"
REPO_IN_ROOT = Path("/home/pi/mycelium")


def load_installer():
    loader = importlib.machinery.SourceFileLoader("install_pi", str(SCRIPT))
    spec = importlib.util.spec_from_loader("install_pi", loader)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["install_pi"] = mod
    loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def installer():
    return load_installer()


DPKG_FRESH = {"python3-numpy": "1:1.24.2-1", "python3-venv": "3.11.2-1+b1", "systemd": "252.30-1~deb12u2"}


def make_root(tmp: Path, *, raspi: bool = True, dpkg: dict | None = None, dialout: bool = False) -> Path:
    """A fresh Raspberry Pi OS as the installer sees it: user pi (in video, not in dialout),
    the Raspberry Pi apt source, no picamera2, a checkout without a venv."""
    root = tmp / "root"
    (root / "etc/apt/sources.list.d").mkdir(parents=True)
    if raspi:
        (root / "etc/apt/sources.list.d/raspi.sources").write_text("URIs: http://archive.raspberrypi.com/debian/\n")
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\npi:x:1000:1000:,,,:/home/pi:/bin/bash\n")
    (root / "etc/group").write_text(f"root:x:0:\ndialout:x:20:{'pi' if dialout else ''}\nvideo:x:44:pi\npi:x:1000:\n")
    write_dpkg(root, DPKG_FRESH if dpkg is None else dpkg)
    repo = root / REPO_IN_ROOT.relative_to("/")
    repo.mkdir(parents=True)
    (repo / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    return root


def write_dpkg(root: Path, packages: dict[str, str]) -> None:
    path = root / "var/lib/dpkg/status"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n\n".join(f"Package: {p}\nStatus: install ok installed\nVersion: {v}" for p, v in packages.items()) + "\n")


def plug_reader(root: Path, vid: int, pid: int, serial: str | None, name: str = "1-1.3") -> None:
    dev = root / "sys/bus/usb/devices" / name
    dev.mkdir(parents=True, exist_ok=True)
    (dev / "idVendor").write_text(f"{vid:04x}\n")
    (dev / "idProduct").write_text(f"{pid:04x}\n")
    if serial is not None:
        (dev / "serial").write_text(serial + "\n")


def unplug_readers(root: Path) -> None:
    import shutil
    shutil.rmtree(root / "sys", ignore_errors=True)


class SimulatedCommands:
    """Plays the system commands against the fake root (apt, usermod, venv, pip, systemctl...),
    so a real install can be followed by a second run; records every command."""

    def __init__(self, root: Path):
        self.root = root
        self.ran: list[list[str]] = []

    def __call__(self, argv: list[str], stdin: str | None) -> None:
        self.ran.append(argv)
        while argv and argv[0] in ("sudo", "runuser", "-u", "pi", "--"):
            argv = argv[1:] if argv[0] != "-u" else argv[2:]
        cmd = argv[0]
        if cmd == "apt-get" and argv[1] == "install":
            status = self.root / "var/lib/dpkg/status"
            pkgs = {p: "1.0" for p in argv[2:] if not p.startswith("-")}
            status.write_text(status.read_text() + "".join(
                f"\nPackage: {p}\nStatus: install ok installed\nVersion: {v}\n" for p, v in pkgs.items()))
        elif cmd == "apt-get" and argv[1] == "remove":
            status = self.root / "var/lib/dpkg/status"
            gone = set(argv[3:])
            stanzas = [s for s in status.read_text().split("\n\n") if not any(f"Package: {p}\n" in s + "\n" for p in gone)]
            status.write_text("\n\n".join(stanzas))
        elif cmd == "usermod":
            group, user = argv[2], argv[3]
            self._edit_group(group, lambda members: members + [user])
        elif cmd == "gpasswd":
            user, group = argv[2], argv[3]
            self._edit_group(group, lambda members: [m for m in members if m != user])
        elif argv[1:3] == ["-m", "venv"]:
            venv = self.root / argv[-1].lstrip("/")
            venv.mkdir(parents=True, exist_ok=True)
            (venv / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = true\n")
        elif cmd == "mkdir":
            (self.root / argv[-1].lstrip("/")).mkdir(parents=True, exist_ok=True)
        elif cmd == "systemctl" and argv[1] == "enable":
            link = self.root / "etc/systemd/system/multi-user.target.wants" / argv[2]
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to("/etc/systemd/system/" + argv[2])
        elif cmd == "systemctl" and argv[1] == "disable":
            (self.root / "etc/systemd/system/multi-user.target.wants" / argv[-1]).unlink()

    def _edit_group(self, group: str, change) -> None:
        path = self.root / "etc/group"
        lines = []
        for line in path.read_text().splitlines():
            f = line.split(":")
            if f[0] == group:
                members = [m for m in f[3].split(",") if m]
                f[3] = ",".join(change(members))
            lines.append(":".join(f))
        path.write_text("\n".join(lines) + "\n")

    def shell(self) -> list[str]:
        return [shlex.join(a) for a in self.ran]


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` with its content (symlinks by target)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_symlink():
            out[str(p.relative_to(root))] = "-> " + str(p.readlink())
        elif p.is_file():
            out[str(p.relative_to(root))] = p.read_text()
    return out


def manifest(root: Path) -> dict:
    return json.loads((root / "var/lib/mycelium-companion/installed.json").read_text())
