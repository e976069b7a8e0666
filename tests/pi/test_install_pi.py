"""scripts/install-pi on a fake Raspberry Pi OS root: the dry run on a fresh and on an installed
system, idempotence, the reader's serial number, numpy, uninstall."""

from __future__ import annotations

import subprocess
from pathlib import Path


from tests.pi.conftest import (DPKG_FRESH, REPO_IN_ROOT, ROOT, SCRIPT, SimulatedCommands, make_root, manifest, plug_reader,
                               snapshot, unplug_readers, write_dpkg)


def system(installer, root: Path, euid: int = 1000, **kw):
    return installer.System(root, "pi", repo=REPO_IN_ROOT, euid=euid, **kw)


def dry_run(installer, root: Path, euid: int = 1000, **kw) -> list[str]:
    """The plan's shell lines without the line counts of the files written."""
    sys_ = system(installer, root, euid, **kw)
    return [s.shell(sys_).split("  #")[0] for s in installer.install_plan(sys_)]


def install(installer, root: Path, *extra: str) -> tuple[int, SimulatedCommands]:
    sim = SimulatedCommands(root)
    rc = installer.main(["--root", str(root), "--user", "pi", "--repo", str(REPO_IN_ROOT), *extra], runner=sim)
    return rc, sim


def test_dry_run_on_a_fresh_system_lists_every_command_and_changes_nothing(installer, tmp_path):
    root = make_root(tmp_path)
    before = snapshot(root)
    lines = dry_run(installer, root)
    venv = f"{REPO_IN_ROOT}/.venv"
    assert lines == [
        "sudo install -D -m 0644 /dev/stdin /var/lib/mycelium-companion/installed.json",
        "sudo apt-get update",
        "sudo apt-get install -y --no-install-recommends python3-picamera2 python3-libcamera",
        "sudo usermod -aG dialout pi",
        f"/usr/bin/python3 -m venv --system-site-packages {venv}",
        f"{venv}/bin/python -m pip install --quiet -e {REPO_IN_ROOT} 'numpy<2'",
        f"install -D -m 0644 /dev/stdin {venv}/.pi-installed",
        "mkdir -p /home/pi/.local/share/mycelium-companion",
        "mkdir -p /home/pi/.config/mycelium-companion",
        "sudo install -D -m 0644 /dev/stdin /etc/udev/rules.d/99-mycelium-reader.rules",
        "sudo udevadm control --reload-rules",
        "sudo udevadm trigger --action=add --subsystem-match=tty",
        "sudo install -D -m 0644 /dev/stdin /etc/default/mycelium-companion",
        "sudo install -D -m 0644 /dev/stdin /etc/systemd/system/mycelium-companion.service",
        "sudo systemctl daemon-reload",
        "sudo systemctl enable mycelium-companion.service",
        "sudo systemctl restart mycelium-companion.service",
    ]
    # the command line's --dry-run prints the same plan and touches nothing
    out = subprocess.run(["python3", str(SCRIPT), "--dry-run", "--root", str(root), "--user", "pi",
                          "--repo", str(REPO_IN_ROOT)], capture_output=True, text=True, check=True).stdout
    assert len(out.splitlines()) == len(lines) and "apt-get install" in out
    assert snapshot(root) == before


def test_run_as_root_runs_the_users_steps_as_the_user(installer, tmp_path):
    lines = dry_run(installer, make_root(tmp_path), euid=0)
    assert "apt-get update" in lines
    assert any(line.startswith("runuser -u pi -- /usr/bin/python3 -m venv --system-site-packages") for line in lines)
    assert not any(line.startswith("sudo") for line in lines)


def test_installed_system_dry_run_prints_nothing_and_a_second_run_changes_nothing(installer, tmp_path, capsys):
    root = make_root(tmp_path)
    rc, sim = install(installer, root)
    assert rc == 0 and sim.ran, "the first run must do the work"
    assert (root / "etc/systemd/system/mycelium-companion.service").is_file()
    assert "pi" in (root / "etc/group").read_text().split("dialout:x:20:")[1].split("\n")[0]
    assert manifest(root)["packages"] == ["python3-picamera2", "python3-libcamera"]
    assert manifest(root)["groups"] == ["dialout"]
    assert dry_run(installer, root) == []
    before = snapshot(root)
    capsys.readouterr()
    rc, sim = install(installer, root)
    assert rc == 0 and sim.ran == []
    assert "Nothing to do" in capsys.readouterr().out
    rc, sim = install(installer, root, "--dry-run")
    assert rc == 0 and sim.ran == [] and capsys.readouterr().out == ""
    assert snapshot(root) == before


def test_an_update_reinstalls_the_venv_and_restarts_the_service_only(installer, tmp_path):
    root = make_root(tmp_path)
    install(installer, root)
    pyproject = root / REPO_IN_ROOT.relative_to("/") / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n# a new dependency after git pull\n")
    lines = dry_run(installer, root)
    assert [line.split()[0:4] for line in lines] == [
        [f"{REPO_IN_ROOT}/.venv/bin/python", "-m", "pip", "install"],
        ["install", "-D", "-m", "0644"],
        ["sudo", "systemctl", "restart", "mycelium-companion.service"],
    ]


def test_a_venv_made_without_system_packages_is_switched_over(installer, tmp_path):
    root = make_root(tmp_path)
    install(installer, root)
    cfg = root / REPO_IN_ROOT.relative_to("/") / ".venv/pyvenv.cfg"
    cfg.write_text("home = /usr/bin\ninclude-system-site-packages = false\n")  # what `make test` alone makes
    assert dry_run(installer, root) == [f"/usr/bin/python3 -m venv --system-site-packages {REPO_IN_ROOT}/.venv"]


def test_the_rule_matches_the_plugged_readers_serial_and_keeps_it_when_unplugged(installer, tmp_path):
    root = make_root(tmp_path)
    plug_reader(root, 0x0403, 0x6001, "A10KX3ZB")
    plug_reader(root, 0x046D, 0x082D, "WEBCAM1", name="1-1.2")  # a webcam: not a reader
    install(installer, root)
    rule = (root / "etc/udev/rules.d/99-mycelium-reader.rules").read_text()
    assert 'ATTRS{serial}=="A10KX3ZB"' in rule and "WEBCAM1" not in rule
    assert 'ATTRS{idVendor}=="1a86"' not in rule, "with a serial number, other USB chips must not get the name"
    unplug_readers(root)
    assert dry_run(installer, root) == [], "an update with the reader unplugged keeps its rule"
    plug_reader(root, 0x0403, 0x6001, "B20QQ1XY")  # a second reader (or a replacement)
    assert any("99-mycelium-reader.rules" in line for line in dry_run(installer, root))


def test_system_numpy_2_needs_no_numpy_pin(installer, tmp_path):
    root = make_root(tmp_path, dpkg={**{"python3-venv": "3.13"}, "python3-numpy": "1:2.2.4+ds-1"})
    pip = [line for line in dry_run(installer, root) if " pip install " in line]
    assert pip and "numpy<2" not in pip[0]


def test_not_raspberry_pi_os_is_refused_with_the_reason(installer, tmp_path, capsys):
    root = make_root(tmp_path, raspi=False)
    rc, sim = install(installer, root, "--dry-run")
    assert rc == 2 and sim.ran == []
    assert "python3-picamera2" in capsys.readouterr().err


def test_too_old_a_python_is_refused(installer, tmp_path, capsys):
    root = make_root(tmp_path, dpkg={**DPKG_FRESH, "python3": "3.9.2-3"})
    rc, sim = install(installer, root, "--dry-run")
    assert rc == 2 and "3.11" in capsys.readouterr().err
    write_dpkg(root, {**DPKG_FRESH, "python3": "3.11.2-1+b1"})
    assert dry_run(installer, root)


def test_unknown_user_is_refused(installer, tmp_path, capsys):
    root = make_root(tmp_path)
    sim = SimulatedCommands(root)
    assert installer.main(["--root", str(root), "--user", "nobody2", "--dry-run"], runner=sim) == 2
    assert "no user 'nobody2'" in capsys.readouterr().err


def test_a_failing_command_stops_with_its_name_and_a_rerun_carries_on(installer, tmp_path, capsys):
    root = make_root(tmp_path)

    class AptDown(SimulatedCommands):
        def __call__(self, argv, stdin):
            if "usermod" in argv:
                raise subprocess.CalledProcessError(6, argv)
            super().__call__(argv, stdin)

    sim = AptDown(root)
    rc = installer.main(["--root", str(root), "--user", "pi", "--repo", str(REPO_IN_ROOT)], runner=sim)
    assert rc == 1
    assert "usermod -aG dialout pi failed with status 6" in capsys.readouterr().err
    left = dry_run(installer, root)
    assert not any("apt-get" in line for line in left), "packages installed before the failure are not redone"
    assert left[0] == "sudo usermod -aG dialout pi"
    assert manifest(root)["packages"] == ["python3-picamera2", "python3-libcamera"], "what was added is on record"


def test_uninstall_removes_what_it_added_and_keeps_the_users_data(installer, tmp_path):
    root = make_root(tmp_path)
    install(installer, root)
    data = root / "home/pi/.local/share/mycelium-companion/games.sqlite3"
    data.write_text("a game")
    profile = root / "home/pi/.config/mycelium-companion/colours.json"
    profile.write_text("{}")
    plan = [s.shell(system(installer, root)) for s in installer.uninstall_plan(system(installer, root))]
    assert plan == [
        "sudo systemctl disable --now mycelium-companion.service",
        "sudo rm -f /etc/systemd/system/mycelium-companion.service",
        "sudo systemctl daemon-reload",
        "sudo rm -f /etc/udev/rules.d/99-mycelium-reader.rules",
        "sudo udevadm control --reload-rules",
        "sudo rm -f /etc/default/mycelium-companion",
        "sudo gpasswd -d pi dialout",
        "sudo apt-get remove -y python3-picamera2 python3-libcamera",
        "sudo rm -f /var/lib/mycelium-companion/installed.json",
    ]
    rc, _ = install(installer, root, "--uninstall")
    assert rc == 0
    assert installer.uninstall_plan(system(installer, root)) == []
    assert data.read_text() == "a game" and profile.exists()
    assert "video:x:44:pi" in (root / "etc/group").read_text(), "a group the user already had stays"
    assert "python3-venv" in system(installer, root).dpkg(), "a package that was there before stays"
    # and it installs again from there
    assert dry_run(installer, root)[1] == "sudo apt-get update"


def test_uninstall_on_a_system_without_it_does_nothing(installer, tmp_path):
    root = make_root(tmp_path)
    assert installer.uninstall_plan(system(installer, root)) == []


def test_make_pi_targets_call_the_installer():
    out = subprocess.run(["make", "-n", "-C", str(ROOT), "pi", "pi-uninstall"], capture_output=True, text=True,
                         check=True).stdout
    assert "scripts/install-pi\n" in out and "scripts/install-pi --uninstall" in out


def test_the_makefile_keeps_the_venv_seeing_system_packages_after_make_pi(tmp_path):
    makefile = (ROOT / "Makefile").read_text()
    assert "$(if $(wildcard $(VENV)/.pi-installed),--system-site-packages)" in makefile


def test_on_the_real_root_files_go_through_sudo_install_with_their_content(installer):
    sys_ = installer.System(Path("/"), "pi", repo=REPO_IN_ROOT, euid=1000)
    steps = [installer.Step(path="/etc/default/mycelium-companion", content="A=1\n", root=True),
             installer.Step(path="/etc/udev/rules.d/99-mycelium-reader.rules", root=True),
             installer.Step(["systemctl", "daemon-reload"], root=True),
             installer.Step(["mkdir", "-p", "/home/pi/.config/mycelium-companion"], as_user=True)]
    ran = []
    import io
    installer.execute(steps, sys_, runner=lambda argv, stdin: ran.append((argv, stdin)), out=io.StringIO())
    assert ran == [
        (["sudo", "install", "-D", "-m", "0644", "/dev/stdin", "/etc/default/mycelium-companion"], "A=1\n"),
        (["sudo", "rm", "-f", "/etc/udev/rules.d/99-mycelium-reader.rules"], None),
        (["sudo", "systemctl", "daemon-reload"], None),
        (["mkdir", "-p", "/home/pi/.config/mycelium-companion"], None),
    ]
