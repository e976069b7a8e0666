"""The checks of ``doctor``: each reads the machine through :class:`~companion.doctor.probes.Probes`
and returns :class:`Check` lines (ok, warn, fail, unknown) with what to do."""

from __future__ import annotations

import json
import os
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.doctor.probes import ProbeError, Probes

SETTINGS = "/etc/default/mycelium-companion"
"""The boot service's settings (``MYCELIUM_CAMERA``, ``MYCELIUM_RFID``, ``MYCELIUM_ARGS``)."""
READER_LINK = "/dev/mycelium-reader"
FRAME_SIZE = (1920, 1080)
"""Frame size in px that ``run`` asks the camera for (:func:`companion.table.sources.open_camera`)."""
MIN_FREE_MB = 50
LOW_FREE_MB = 500
CLOCK_FLOOR = 1735689600.0
"""2025-01-01 00:00 UTC: a clock before this has never been set."""

SENSORS = {
    "imx708": "Camera Module 3", "imx708_wide": "Camera Module 3 Wide", "imx708_noir": "Camera Module 3 NoIR",
    "imx708_wide_noir": "Camera Module 3 Wide NoIR", "imx219": "Camera Module 2", "ov5647": "Camera Module 1",
    "imx477": "HQ Camera", "imx296": "Global Shutter Camera", "imx500": "AI Camera",
}
"""libcamera sensor names of the Raspberry Pi cameras."""


@dataclass
class Check:
    """One line of the report: ``status`` is ok, warn, fail or unknown; ``fix`` says what to do."""

    name: str
    status: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        """``STATUS  name  detail  Do: fix`` as printed."""
        return f"{self.status.upper():<8}{self.name:<16}{self.detail}" + (f"  Do: {self.fix}" if self.fix else "")


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/mycelium-companion`` (``~/.config/mycelium-companion`` when unset),
    written out in full: the service gets no ``~`` expanded."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mycelium-companion"


# -- the settings the service uses -------------------------------------------------------------
@dataclass
class Settings:
    """What to check: ``camera`` spec, reader ``rfid`` port (or auto/none) and ``driver``,
    ``db`` (game log file), ``port`` (dashboard TCP port), ``profile`` / ``intrinsics`` files
    (None: the service runs without one), and ``source`` (where they came from)."""

    camera: str = "picamera2"
    rfid: str = READER_LINK
    driver: str = "companion"
    db: str | None = None
    port: int = 8080
    profile: str | None = None
    intrinsics: str | None = None
    source: str = "no settings file"


def read_settings(path: str | Path = SETTINGS) -> Settings:
    """The service's settings from its environment file (shell-like ``KEY=value`` lines); the
    defaults when there is none.  Unknown ``run`` arguments are ignored."""
    s = Settings()
    try:
        text = Path(path).read_text()
    except OSError:
        return s
    s.source = str(path)
    env: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            k, v = line.split("=", 1)
            env[k.strip()] = " ".join(shlex.split(v)) if v.strip() else ""
    s.camera = env.get("MYCELIUM_CAMERA", s.camera) or s.camera
    s.rfid = env.get("MYCELIUM_RFID", s.rfid) or s.rfid
    words = shlex.split(env.get("MYCELIUM_ARGS", ""))
    for i, w in enumerate(words[:-1]):
        nxt = words[i + 1]  # as the service gets it: systemd expands no ~
        if w == "--profile":
            s.profile = nxt
        elif w == "--intrinsics":
            s.intrinsics = nxt
        elif w == "--db":
            s.db = nxt
        elif w == "--driver":
            s.driver = nxt
        elif w == "--port" and nxt.isdigit():
            s.port = int(nxt)
    return s


# -- the checks --------------------------------------------------------------------------------
def camera_name(info: dict) -> str:
    model = str(info.get("Model", "?"))
    return f"{SENSORS[model]} ({model})" if model in SENSORS else model


def check_camera(p: Probes, s: Settings) -> tuple[Check, dict | None]:
    """Camera present, and which model; returns the check and the camera's info (or None)."""
    if s.camera != "picamera2" and not s.camera.isdigit():
        return Check("camera", "unknown", f"{s.camera}: a file, folder or stream; not checked"), None
    try:
        cams = p.cameras(s.camera)
    except ProbeError as e:
        fix = ("run make pi: the venv must see the system's python3-picamera2 (--system-site-packages)"
               if s.camera == "picamera2" else "pass --camera picamera2 or a webcam index")
        return Check("camera", "fail", str(e), fix), None
    if not cams:
        fix = ("check the ribbon cable (seated straight, contacts the right way) with the Pi off, then boot again; "
               "rpicam-hello --list-cameras shows what the system sees") if s.camera == "picamera2" else \
            f"plug the webcam in; ls /dev/video* lists the cameras (--camera {s.camera})"
        return Check("camera", "fail", f"no camera found ({s.camera})", fix), None
    extra = f"; {len(cams) - 1} more attached, the first is used" if len(cams) > 1 else ""
    return Check("camera", "ok", camera_name(cams[0]) + extra), cams[0]


LOCKED_KEYS = ("AeEnable", "AwbEnable")


def find_camera_controls(profile: str | None) -> tuple[Path, dict] | None:
    """The locked camera settings saved beside the colour profile: a JSON file there whose
    object (or its ``controls`` member) holds libcamera's ``AeEnable``/``AwbEnable``."""
    if not profile:
        return None
    folder = Path(profile).parent
    for f in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            d = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(d, dict):
            c = d.get("controls", d)
            if isinstance(c, dict) and any(k in c for k in LOCKED_KEYS):
                return f, c
    return None


def check_camera_controls(s: Settings) -> Check:
    """Auto exposure and auto white balance off, with the values saved: a camera that re-adjusts
    while a hand crosses the board shifts every colour the profile was measured with."""
    from companion.table.camera_controls import CameraSettings, CameraSettingsError, settings_beside
    stored = settings_beside(s.profile) if s.profile else None
    if stored is not None and stored.is_file():   # written by 'calibrate pieces --camera'
        try:
            cs = CameraSettings.load(stored)
        except (OSError, CameraSettingsError) as e:
            return Check("camera locked", "fail", str(e), f"calibrate pieces --camera {s.camera} again")
        if cs.not_locked:
            return Check("camera locked", "warn", f"{stored.name}: {cs.describe()}",
                         "colours may drift with the light: use the Pi camera, or a webcam whose driver offers these")
        return Check("camera locked", "ok", f"{stored.name}: {cs.describe()}")
    found = find_camera_controls(s.profile)
    if found is None:
        return Check("camera locked", "unknown",
                     "no saved camera settings beside the colour profile"
                     + ("" if s.profile else " (no profile is set)"),
                     f"calibrate pieces --camera {s.camera} locks exposure, white balance and focus and stores "
                     "them beside the profile")
    path, c = found
    loose = [k for k in LOCKED_KEYS if c.get(k, True) not in (False, 0)]
    if loose:
        return Check("camera locked", "fail", f"{path.name}: {', '.join(loose)} still on: colours drift with the light",
                     "calibrate pieces again with the camera settings locked")
    values = [f"exposure {c['ExposureTime']} us" if "ExposureTime" in c else "",
              f"gain {c['AnalogueGain']}" if "AnalogueGain" in c else "",
              f"colour gains {c['ColourGains']}" if "ColourGains" in c else ""]
    shown = ", ".join(v for v in values if v)
    return Check("camera locked", "ok", f"{path.name}: auto exposure and white balance off" + (f" ({shown})" if shown else ""))


def check_reader(p: Probes, s: Settings, timeout: float) -> list[Check]:
    """Reader present, its HELLO (firmware, protocol, health), and permission on its port."""
    if s.rfid == "none":
        return [Check("reader", "ok", "not used (--rfid none): draws are entered on the dashboard")]
    path = p.find_port() if s.rfid == "auto" else s.rfid
    if path is None:
        return [Check("reader", "fail", "no USB reader plugged in (--rfid auto)", "plug the reader into the Pi")]
    port = p.port(path)
    if not port.get("exists"):
        fix = ("plug the reader in; if it is plugged in, run make pi again (the udev rule names it), "
               "or see udevadm info -a /dev/ttyUSB0" if path == READER_LINK else f"plug the reader in, or fix the port ({path})")
        return [Check("reader", "fail", f"nothing at {path}", fix)]
    where = path if port["target"] == path else f"{path} -> {port['target']}"
    checks = [check_port_permission(p, path, port)]
    if not port["rw"]:
        return [Check("reader", "unknown", f"{where}: cannot open it to ask (see port)")] + checks
    reply = p.reader_hello(path, s.driver, timeout)
    if reply.state == "busy":
        status = (p.dashboard_status(s.port) or {}).get("reader")
        said = f"; the companion's dashboard says: {_status_text(status)}" if status else ""
        return [Check("reader", "ok", f"{where} is in use by a running companion{said}"),
                Check("firmware", "unknown", "not asked: the running companion holds the port",
                      "sudo systemctl stop mycelium-companion, run doctor, then start it again")] + checks
    if reply.state == "error":
        return [Check("reader", "fail", f"{where}: {reply.detail}", "unplug and replug the reader")] + checks
    if reply.state == "silent":
        return [Check("reader", "fail", f"{where}: no HELLO within {timeout:.0f} s",
                      "check the USB cable; flash the firmware (make -C hardware flash PORT=...); "
                      "for an RDM6300 or PN532 pass --driver")] + checks
    if reply.state == "refused":
        return [Check("reader", "ok", f"{where} answered"),
                Check("firmware", "fail", reply.detail,
                      f"flash the firmware of this version: make -C hardware firmware flash PORT={port['target']}")] + checks
    info = reply.info
    if s.driver != "companion":
        return [Check("reader", "ok", f"{where} opens; an {s.driver} reader sends nothing until a tag passes "
                      "(mycelium-companion rfid listen shows it)")] + checks
    out = [Check("reader", "ok", f"{where} answered")]
    if "protocol" in info:
        out.append(Check("firmware", "ok", f"firmware {info.get('firmware', '?')}, protocol {info['protocol']}"))
    else:
        out.append(Check("firmware", "unknown", f"the {s.driver} reader does not report a firmware version"))
    out.append(check_reader_health(info.get("health")))
    return out + checks


def _status_text(status) -> str:
    if isinstance(status, dict):
        return " ".join(str(v) for v in status.values() if v)
    if isinstance(status, (list, tuple)):
        return " ".join(str(v) for v in status if v)
    return str(status)


def check_reader_health(health) -> Check:
    """The reader's own view of itself (HELLO ``health``): ``ok``/true, or what is wrong."""
    if health is None or (isinstance(health, str) and health.startswith("unknown (")):
        return Check("reader health", "unknown", "this firmware or bridge does not report the reader's health")
    if health in (True, "ok") or (isinstance(health, dict) and health.get("ok", False) is True):
        return Check("reader health", "ok", "the reader reports no fault")
    what = health if isinstance(health, str) else json.dumps(health, sort_keys=True)
    return Check("reader health", "fail", f"the reader reports: {what}",
                 "check the antenna module's wiring (hardware/README.md); its LED shows steady red without one")


def check_port_permission(p: Probes, path: str, port: dict) -> Check:
    """This user may open the reader's port; if not, whether a new login or the group is missing."""
    if port["rw"]:
        return Check("port", "ok", f"{path}: readable and writable (group {port['group']}, mode {port['mode']})")
    now, listed = p.groups()
    g = port["group"]
    if g in listed and g not in now:
        return Check("port", "fail", f"{path}: you were added to {g}, but this login is older than that",
                     "log out and in again (or reboot)")
    return Check("port", "fail", f"{path}: no permission (group {g}, mode {port['mode']})",
                 f"sudo usermod -aG {g} $USER, then log in again (make pi does this)")


def check_log_folder(p: Probes, s: Settings) -> Check:
    """The game log's folder is (or can be) written, with :data:`MIN_FREE_MB` MB free at least."""
    from companion.commands import default_db
    folder = os.path.dirname(os.path.abspath(s.db or default_db()))
    if not os.path.isdir(folder):
        parent = folder
        while parent and not os.path.isdir(parent):
            parent = os.path.dirname(parent)
        if p.writable(parent):
            return Check("log folder", "ok", f"{folder} will be created at the first game")
        return Check("log folder", "fail", f"{folder} does not exist and cannot be created",
                     f"mkdir -p {folder} (as the user the companion runs as)")
    if not p.writable(folder):
        return Check("log folder", "fail", f"{folder} is not writable: moves cannot be logged",
                     f"sudo chown -R $USER {folder}")
    free_mb = p.free_bytes(folder) / 1e6
    text = f"{folder}: writable, {free_mb:,.0f} MB free"
    if free_mb < MIN_FREE_MB:
        return Check("log folder", "fail", text, "free space on the SD card (sudo apt-get clean, old recordings)")
    if free_mb < LOW_FREE_MB:
        return Check("log folder", "warn", text + " (a --record session takes about 1 GB an hour)",
                     "free space on the SD card")
    return Check("log folder", "ok", text)


def check_clock(p: Probes) -> Check:
    """The clock: a Pi has no battery-backed clock (but the Pi 5 with a battery); without
    network it starts from the time it was shut down (fake-hwclock)."""
    now = p.now()
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(now))
    effect = ("the log's times, game ids and 'the newest game' that --resume picks all follow this clock; "
              "the order of moves does not (they are numbered)")
    if now < CLOCK_FLOOR:
        return Check("clock", "fail", f"{stamp}: never set; {effect}",
                     "connect the Pi to a network once (it sets the clock), or fit an RTC battery; "
                     "resume a given game with --resume --game ID")
    synced = p.clock_synced()
    if synced is False:
        return Check("clock", "warn", f"{stamp}, not synchronised (no network time): it may lag by the time "
                     f"the Pi was off; {effect}", "connect to a network before playing, or fit an RTC battery")
    if synced is None:
        return Check("clock", "unknown", f"{stamp}; timedatectl cannot say whether it is synchronised")
    return Check("clock", "ok", f"{stamp}, synchronised")


def check_dashboard(p: Probes, s: Settings) -> Check:
    """The dashboard answers at this machine's LAN address, where the tablets look for it."""
    lan = p.lan_address()
    if lan is None:
        return Check("dashboard", "fail", "no LAN address: tablets cannot reach the Pi",
                     "join the Pi to the network (sudo nmtui, or raspi-config)")
    url = f"http://{lan}:{s.port}/"
    try:
        p.http_get(url + "api/state", 3.0)
    except OSError:
        try:
            p.http_get(f"http://127.0.0.1:{s.port}/api/state", 3.0)
        except OSError:
            return Check("dashboard", "fail", f"nothing answers at {url}",
                         "start it: sudo systemctl start mycelium-companion; why it stopped: "
                         "journalctl -u mycelium-companion -e")
        return Check("dashboard", "fail", f"answers on this Pi but not at {url}",
                     "run with --host 0.0.0.0 (the service does), and check the firewall")
    return _join_address(p, url, lan) or Check("dashboard", "ok", f"{url} answers")


def _join_address(p: Probes, url: str, lan: str) -> Check | None:
    """A warning when the QR code sends tablets to a host name rather than the LAN address:
    Raspberry Pi OS resolves its own name to 127.0.1.1, and many tablets cannot resolve a bare
    host name (only ``NAME.local`` through mDNS, and not every one of them)."""
    import re
    from urllib.parse import urlsplit
    try:
        page = p.http_get(url + "join", 3.0)
    except OSError:
        return None
    m = re.search(r'<a href="([^"]+)"', page)
    if m is None:
        return None
    host = urlsplit(m[1]).hostname or ""
    if host == lan or re.fullmatch(r"[\d.]+|[0-9a-f]*:[0-9a-f:]*", host):
        return None
    return Check("dashboard", "warn", f"{url} answers, but the QR code gives {m[1]}, a name tablets may not resolve",
                 f"if a tablet cannot open it, type {url}")


def check_profile(s: Settings, camera: dict | None) -> Check:
    """The colour profile the service uses exists, loads, and was made with this camera."""
    if not s.profile:
        return Check("colour profile", "fail", f"none set ({s.source}): the reference copy's colours are used",
                     f"mycelium-companion calibrate pieces --camera {s.camera} --out {config_dir() / 'colours.json'}, "
                     f"then add --profile with that path to MYCELIUM_ARGS in {SETTINGS}")
    if s.profile.startswith("~"):
        return Check("colour profile", "fail", f"{s.profile}: the service gets no ~ expanded",
                     f"write the full path in {s.source}")
    from companion.vision.profile import ProfileError, load_profile
    try:
        load_profile(s.profile)
    except ProfileError as e:
        return Check("colour profile", "fail", str(e), "calibrate pieces again")
    return _made_with(Check("colour profile", "ok", s.profile), s.profile, camera)


def check_intrinsics(s: Settings, camera: dict | None) -> Check:
    """The intrinsics the service uses load, fit the captured frame size, and this camera."""
    if not s.intrinsics:
        return Check("intrinsics", "fail", f"none set ({s.source}): the lens is guessed from the markers",
                     f"mycelium-companion calibrate camera ... --out {config_dir() / 'intrinsics.json'}, "
                     f"then add --intrinsics with that path to MYCELIUM_ARGS in {SETTINGS}")
    if s.intrinsics.startswith("~"):
        return Check("intrinsics", "fail", f"{s.intrinsics}: the service gets no ~ expanded",
                     f"write the full path in {s.source}")
    from calibration.intrinsics import CalibrationError, load_intrinsics
    try:
        k = load_intrinsics(s.intrinsics)
    except CalibrationError as e:
        return Check("intrinsics", "fail", str(e), "calibrate the camera again")
    w, h = k.image_size
    if (w, h) != FRAME_SIZE:
        return Check("intrinsics", "fail", f"{s.intrinsics}: made from {w}x{h} photos, the companion captures "
                     f"{FRAME_SIZE[0]}x{FRAME_SIZE[1]}", "calibrate the camera again with photos from the mounted camera")
    return _made_with(Check("intrinsics", "ok", f"{s.intrinsics}: {w}x{h}, RMS {k.rms_px:.2f} px"), s.intrinsics, camera)


def _made_with(check: Check, path: str, camera: dict | None) -> Check:
    """Compare the camera recorded in a calibration file (``camera``: a sensor name, or a dict
    with ``Model``) with the one attached; ``unknown`` when the file does not record it."""
    try:
        recorded = json.loads(Path(path).read_text()).get("camera")
    except (OSError, ValueError, AttributeError):
        recorded = None
    if isinstance(recorded, dict):
        recorded = recorded.get("Model") or recorded.get("model")
    if recorded is None:
        return Check(check.name, "unknown", check.detail + "; which camera made it is not recorded in the file")
    if camera is None:
        return Check(check.name, "unknown", check.detail + f"; made with {recorded}, no camera attached to compare")
    if str(recorded) != str(camera.get("Model")):
        return Check(check.name, "fail", check.detail + f": made with {recorded}, the attached camera is {camera_name(camera)}",
                     "calibrate again with this camera")
    return Check(check.name, check.status, check.detail + f", made with this camera ({recorded})")


def check_user(p: Probes) -> Check | None:
    """A warning when doctor runs as another user than the service (``sudo doctor``): the log
    folder, the groups and the calibration files it finds are then not the service's."""
    me, service = p.users()
    if service is None or service == me:
        return None
    return Check("user", "warn", f"running as {me}, the service runs as {service}: log folder and permissions "
                 f"below are {me}'s", f"run doctor as {service}, without sudo")


def run_checks(p: Probes, s: Settings, reader_timeout: float = 5.0) -> list[Check]:
    """Every check, in the order a table is set up."""
    cam, info = check_camera(p, s)
    user = check_user(p)
    checks = ([user] if user else []) + [cam, check_camera_controls(s)]
    checks += check_reader(p, s, reader_timeout)
    checks += [check_log_folder(p, s), check_clock(p), check_dashboard(p, s),
               check_profile(s, info), check_intrinsics(s, info)]
    return checks


def wait_for_camera(p: Probes, s: Settings, seconds: float, sleep: Callable[[float], None] = time.sleep) -> Check:
    """Poll the camera until it is there or ``seconds`` have passed (the service's start).  A
    camera that cannot be looked for (a file or stream) does not hold the start up."""
    deadline = time.monotonic() + seconds
    while True:
        check, _ = check_camera(p, s)
        if check.status != "fail" or time.monotonic() >= deadline:
            return check
        sleep(1.0)
