"""The real reader firmware (``hardware/build/reader.elf``, ATmega328P at 16 MHz) running in
simavr with a model of the MFRC522 and of ISO 14443A tags (``hardware/sim/``), checked
through the product's own decoder (``firmware_bridge.protocol``).

Simulated time only moves on ``run``: the scripts below give the same bytes on any machine,
whatever its load.  Tag answer latencies, UIDs and the ADC noise vary with the seed.
"""

from __future__ import annotations

import random
import shutil
import struct
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from firmware_bridge import protocol as P
from firmware_bridge.drivers import make_driver
from firmware_bridge.errors import FrameError
from firmware_bridge.reader import BagReader

HW = Path(__file__).resolve().parents[2] / "hardware"

_missing = [what for what, ok in (
    ("libsimavr-dev (/usr/include/simavr/sim_avr.h)", Path("/usr/include/simavr/sim_avr.h").exists()),
    ("avr-gcc", shutil.which("avr-gcc") is not None),
    ("gcc", shutil.which("gcc") is not None),
) if not ok]
pytestmark = pytest.mark.skipif(bool(_missing), reason=f"cannot run the firmware in simavr: {', '.join(_missing)} "
                                "not installed (apt-get install simavr libsimavr-dev gcc-avr avr-libc)")

FW = "1.1.0"
HEALTH_NO_CHIP = 0x01
HEALTH_REINIT = 0x02


def symbol(build: Path, name: str) -> int:
    """SRAM address of a firmware variable (avr-nm gives 0x800000 + address)."""
    nm = subprocess.run(["avr-nm", str(build / "reader.elf")], capture_output=True, text=True, check=True).stdout
    for line in nm.splitlines():
        addr, _, sym = line.split()
        if sym == name:
            return int(addr, 16) - 0x800000
    raise AssertionError(f"{name} not in reader.elf")


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> Path:
    """reader.elf and reader_sim built from this tree into a temporary directory."""
    out = tmp_path_factory.mktemp("fwsim")
    run = subprocess.run(["make", "-s", "-C", str(HW), f"BUILD={out}", "sim"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return out


@dataclass
class HelloInfo:
    """A HELLO with the fields appended to protocol 1's payload (PROTOCOL.md section 5.1)."""

    hello: P.Hello
    board_id: int
    health: int


def hello_info(frame: P.Frame) -> HelloInfo:
    assert frame.type == P.HELLO
    assert len(frame.payload) >= 13, f"HELLO payload {frame.payload.hex()} has no board_id/health"
    board_id, health = struct.unpack_from("<IB", frame.payload, 8)
    return HelloInfo(P.parse_hello(frame), board_id, health)


def heartbeat(frame: P.Frame) -> tuple[int, int]:
    """(uptime_ms, health) of a HEARTBEAT."""
    assert frame.type == P.HEARTBEAT and len(frame.payload) >= 5, frame
    return struct.unpack_from("<IB", frame.payload)


class Board:
    """One simulated reader: a ``reader_sim`` process scripted line by line."""

    def __init__(self, build: Path, seed: int = 1, eeprom: Path | None = None):
        args = [str(build / "reader_sim"), str(build / "reader.elf"), "--seed", str(seed)]
        if eeprom is not None:
            args += ["--eeprom", str(eeprom)]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.splitter = P.FrameSplitter()
        self.t_ms = 0
        self.led = (0, 0, 0)
        self.cmd_seq = 0

    def cmd(self, line: str) -> str:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline().strip()
        if not reply.startswith("ok"):
            raise AssertionError(f"reader_sim: {line!r} -> {reply or self.proc.stderr.read()!r}")
        return reply

    def run(self, ms: int) -> list[P.Frame]:
        """Simulate ``ms`` ms; the frames the board sent meanwhile (a bad frame fails the test)."""
        fields = dict(kv.split("=", 1) for kv in self.cmd(f"run {ms}").split()[1:])
        self.t_ms = int(fields["t"])
        self.led = tuple(int(v) for v in fields["led"].split(","))
        data = b"" if fields["uart"] == "-" else bytes.fromhex(fields["uart"])
        frames = self.splitter.feed(data)
        errors = [f for f in frames if isinstance(f, FrameError)]
        assert not errors, f"the firmware sent frames the decoder refuses: {errors}"
        return frames

    def send(self, frame: P.Frame) -> None:
        self.cmd("send " + P.encode_frame(frame).hex())

    def next_cmd_seq(self) -> int:
        self.cmd_seq += 1
        return self.cmd_seq

    def boot(self) -> tuple[HelloInfo, list[P.Frame]]:
        """Run until the HELLO the board sends at start; it must be the first frame."""
        frames = []
        for _ in range(20):
            frames += self.run(50)
            if frames:
                break
        assert frames, "no HELLO within 1 s of power-on"
        return hello_info(frames[0]), frames[1:]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.cmd("quit")
            except (AssertionError, BrokenPipeError):
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if f:
                f.close()


@pytest.fixture
def board(build):
    made: list[Board] = []

    def make(**kw) -> Board:
        b = Board(build, **kw)
        made.append(b)
        return b

    yield make
    for b in made:
        b.close()


def tags(frames) -> list[tuple[int, str]]:
    return [(f.seq, P.parse_tag(f)) for f in frames if f.type == P.TAG]


# -- HELLO, heartbeats, health ---------------------------------------------------------

def test_hello_then_heartbeats_each_second_with_board_id_and_health(board):
    b = board(seed=11)
    info, rest = b.boot()
    assert info.hello.protocol == P.PROTOCOL_VERSION and info.hello.firmware == FW
    assert info.hello.boot_id == 1, "a fresh EEPROM starts the boot counter at 1, never 0"
    assert (info.hello.last_seq, info.hello.oldest_seq) == (0, 0)
    assert info.board_id not in (0, 0xFFFFFFFF)
    assert info.health == 0
    assert b.led == (0, 16, 0), "idle green with a healthy reader"
    beats = [heartbeat(f) for f in rest + b.run(3200) if f.type == P.HEARTBEAT]
    assert len(beats) == 3
    gaps = [b2[0] - b1[0] for b1, b2 in zip(beats, beats[1:])]
    assert all(995 <= g <= 1010 for g in gaps), gaps
    assert all(h == 0 for _, h in beats)


def test_no_chip_is_reported_and_shown_red_until_one_answers(board):
    b = board(seed=12)
    b.cmd("chip absent")
    info, _ = b.boot()
    assert info.health == HEALTH_NO_CHIP
    assert b.led == (255, 0, 0)
    beats = [heartbeat(f) for f in b.run(1100) if f.type == P.HEARTBEAT]
    assert beats and all(h & HEALTH_NO_CHIP for _, h in beats)
    b.cmd("tag in 04A1B2C3")
    assert not tags(b.run(300)), "no chip, no reads"

    b.cmd("chip present")  # fitted (or its connector reseated) while running
    beats = [heartbeat(f) for f in b.run(1600) if f.type == P.HEARTBEAT]
    assert beats[-1][1] == HEALTH_REINIT, "chip back: fault gone, re-initialisation reported"
    assert b.led == (0, 16, 0)
    b.send(P.Frame(P.HELLO_REQ, b.next_cmd_seq()))
    hello = [hello_info(f) for f in b.run(100) if f.type == P.HELLO]
    assert hello and hello[0].health == HEALTH_REINIT
    beats = [heartbeat(f) for f in b.run(1100) if f.type == P.HEARTBEAT]
    assert beats and beats[-1][1] == 0, "the re-init flag clears once a HELLO carried it"
    b.cmd("tag out 04A1B2C3")
    b.run(400)
    b.cmd("tag in 04A1B2C3")
    assert [u for _, u in tags(b.run(300))] == ["04A1B2C3"]


def test_a_floating_miso_reading_ff_is_no_chip_either(board):
    b = board(seed=13)
    b.cmd("chip absent ff")
    info, _ = b.boot()
    assert info.health == HEALTH_NO_CHIP
    beats = [heartbeat(f) for f in b.run(2100) if f.type == P.HEARTBEAT]
    assert len(beats) == 2 and all(h == HEALTH_NO_CHIP for _, h in beats)
    assert 995 <= beats[1][0] - beats[0][0] <= 1010, "the retries do not hold up the heartbeat"


def test_a_chip_that_resets_itself_is_reinitialised_and_reads_again(board):
    b = board(seed=14)
    b.boot()
    b.cmd("tag in 04111111")
    assert len(tags(b.run(200))) == 1
    b.cmd("chip glitch")  # supply dip: the chip's registers are back to their defaults
    frames = b.run(1300)
    beats = [heartbeat(f) for f in frames if f.type == P.HEARTBEAT]
    assert beats[-1][1] == HEALTH_REINIT
    b.cmd("tag in 04222222")
    got = tags(b.run(300))
    assert [u for _, u in got] == ["04222222"], "the tag still in the field is the same draw, the new one is read"


def test_a_chip_lost_while_running_turns_the_board_red_and_is_reported(board):
    b = board(seed=17)
    b.boot()
    b.run(300)
    b.cmd("chip absent")  # a loose wire
    frames = b.run(1100)
    beats = [heartbeat(f) for f in frames if f.type == P.HEARTBEAT]
    assert beats[-1][1] == HEALTH_NO_CHIP
    assert b.led == (255, 0, 0)
    b.send(P.Frame(P.HELLO_REQ, b.next_cmd_seq()))
    assert [hello_info(f).health for f in b.run(50) if f.type == P.HELLO] == [HEALTH_NO_CHIP]


def test_a_timed_led_command_does_not_hide_the_fault_colour(board):
    b = board(seed=15)
    b.cmd("chip absent")
    b.boot()
    assert b.led == (255, 0, 0)
    seq = b.next_cmd_seq()
    b.send(P.set_led(0, 0, 255, duration_ms=100, cmd_seq=seq))
    frames = b.run(20)
    assert any(f.type == P.ACK and f.payload[:3] == bytes([P.SET_LED, seq, 0]) for f in frames)
    assert b.led == (0, 0, 255)
    b.run(150)
    assert b.led == (255, 0, 0), "after the timed colour, the fault colour is back"


def test_a_fault_that_begins_under_a_steady_host_colour_shows_red(board):
    b = board(seed=18)
    b.boot()
    b.send(P.set_led(0, 0, 255, duration_ms=0, cmd_seq=b.next_cmd_seq()))  # until changed
    b.run(600)
    assert b.led == (0, 0, 255)
    b.cmd("chip absent")
    b.run(600)
    assert b.led == (255, 0, 0)


def test_a_timed_led_command_returns_to_idle_green_when_healthy(board):
    b = board(seed=16)
    b.boot()
    b.send(P.set_led(255, 0, 0, duration_ms=100, cmd_seq=b.next_cmd_seq()))
    b.run(20)
    assert b.led == (255, 0, 0)
    b.run(150)
    assert b.led == (0, 16, 0)


# -- tags -------------------------------------------------------------------------------

def test_a_tag_in_and_out_is_one_event_and_again_after_300_ms_away(board):
    b = board(seed=21)
    b.boot()
    b.cmd("tag in 04A1B2C3")
    frames = b.run(1000)  # held in the field for 25 scans
    assert tags(frames) == [(1, "04A1B2C3")]
    tag = next(f for f in frames if f.type == P.TAG)
    assert P.encode_frame(tag) == bytes.fromhex("030201080404A1B2C35EE200"), "PROTOCOL.md section 9"
    b.cmd("tag out 04A1B2C3")
    b.run(150)
    b.cmd("tag in 04A1B2C3")  # back within 300 ms: the hand wobbled, same draw
    assert tags(b.run(500)) == []
    b.cmd("tag out 04A1B2C3")
    b.run(450)
    b.cmd("tag in 04A1B2C3")
    assert tags(b.run(200)) == [(2, "04A1B2C3")]
    beats = [f for f in b.run(1000) if f.type == P.HEARTBEAT]
    assert beats and beats[-1].seq == 2, "heartbeats carry the latest event seq"


@pytest.mark.parametrize("uid", ["04112233445566", "0455AA33CC11EE22FF99"])
def test_7_and_10_byte_uids(board, uid):
    b = board(seed=22)
    b.boot()
    b.cmd(f"tag in {uid}")
    assert tags(b.run(400)) == [(1, uid)]


def test_several_tags_in_the_field_are_reported_once_each(board):
    b = board(seed=23)
    b.boot()
    # UIDs sharing long prefixes, so the anticollision has to resolve deep bit collisions
    uids = ["04A1B2C3", "04A1B2C2", "04A1B3C3", "0421B2C3", "04112233445566", "04112233445567",
            "08A1B2C3", "0455AA33CC11EE22FF99"]
    for i, u in enumerate(uids):
        b.cmd(f"tag in {u} {90 + 60 * i}")
    got = tags(b.run(1500))
    assert sorted(u for _, u in got) == sorted(uids), "each tag once"
    assert [s for s, _ in got] == list(range(1, 9))
    b.cmd("tag in 04DEADBE")  # a ninth joins the eight still lying there
    assert [u for _, u in tags(b.run(800))] == ["04DEADBE"]
    for u in uids[:4]:
        b.cmd(f"tag out {u}")
    assert tags(b.run(800)) == [], "leaving is not an event"


@pytest.mark.parametrize("seed", [101, 202, 303])
def test_random_handfuls_of_tags_are_each_reported_once(board, seed):
    """UID sizes, values, count and answer latency drawn at random; no tuning to them."""
    rnd = random.Random(seed)
    b = board(seed=seed)
    b.boot()
    expected = []
    for _ in range(2):
        handful = set()
        while len(handful) < rnd.randint(1, 10):
            size = rnd.choice([4, 4, 7, 7, 10])
            uid = bytes([rnd.choice([0x04, 0x08, 0x1D, 0x5A])]) + rnd.randbytes(size - 1)
            handful.add(uid.hex().upper())
        for u in handful:
            b.cmd(f"tag in {u} {rnd.randint(80, 900)}")
        got = tags(b.run(900))
        assert sorted(u for _, u in got) == sorted(handful)
        expected += got
        for u in handful:
            b.cmd(f"tag out {u}")
        b.run(rnd.randint(320, 600))
    assert [s for s, _ in expected] == list(range(1, len(expected) + 1))


# -- replay -----------------------------------------------------------------------------

def draw(b: Board, uid: str) -> None:
    b.cmd(f"tag in {uid}")
    b.run(100)
    b.cmd(f"tag out {uid}")
    b.run(20)


def test_resend_replays_kept_events_with_their_own_seq(board):
    b = board(seed=31)
    b.boot()
    uids = ["04000001", "04000002", "04000003"]
    for u in uids:
        draw(b, u)
    seq = b.next_cmd_seq()
    b.send(P.resend(2, seq))
    frames = b.run(30)
    assert frames[0].type == P.ACK and frames[0].payload[:3] == bytes([P.RESEND, seq, 0])
    assert tags(frames[1:]) == [(2, uids[1]), (3, uids[2])]
    b.send(P.resend(4, b.next_cmd_seq()))  # the next seq: nothing missing
    frames = b.run(30)
    assert [f.type for f in frames] == [P.ACK]


def test_resend_older_than_the_ring_is_a_nak_then_everything_kept(board):
    b = board(seed=32)
    b.boot()
    drawn = []
    for k in range(3):  # 36 draws, twelve tags at a time
        batch = [f"04{k:02X}{i:02X}0{i % 7}" for i in range(12)]
        for u in batch:
            b.cmd(f"tag in {u}")
        drawn += tags(b.run(600))
        for u in batch:
            b.cmd(f"tag out {u}")
        b.run(20)
    assert [s for s, _ in drawn] == list(range(1, 37))
    seq = b.next_cmd_seq()
    b.send(P.resend(1, seq))
    frames = b.run(60)
    assert frames[0].type == P.NAK and frames[0].payload == bytes([P.RESEND, seq, 0, P.NAK_REPLAY_GAP])
    assert [s for s, _ in tags(frames)] == list(range(5, 37)), "the last 32 events"


def test_a_warm_reset_keeps_numbering_and_ring(board):
    b = board(seed=33)
    first, _ = b.boot()
    for u in ["04000011", "04000012", "04000013"]:
        draw(b, u)
    b.cmd("reset")  # DTR auto-reset: the host opened the port
    again, _ = b.boot()
    assert again.hello.boot_id == first.hello.boot_id
    assert again.board_id == first.board_id
    assert (again.hello.last_seq, again.hello.oldest_seq) == (3, 1)
    b.send(P.resend(1, b.next_cmd_seq()))
    assert tags(b.run(40)) == [(1, "04000011"), (2, "04000012"), (3, "04000013")]
    draw(b, "04000014")
    b.cmd("reset")
    b.boot()
    b.run(100)
    draw(b, "04000015")
    b.send(P.resend(4, b.next_cmd_seq()))
    assert tags(b.run(40)) == [(4, "04000014"), (5, "04000015")]


def test_a_damaged_ring_after_a_reset_is_a_cold_start_not_a_wrong_replay(board, build):
    b = board(seed=37)
    first, _ = b.boot()
    for u in ["04000041", "04000042"]:
        draw(b, u)
    ring = symbol(build, "keep") + 12  # past magic, boot_id, last_seq, kept, head: first event
    b.cmd(f"poke {ring + 4:x} 07")  # one byte of a kept UID, as a bootloader's buffer could
    b.cmd("reset")
    hello, _ = b.boot()
    assert hello.hello.boot_id == first.hello.boot_id + 1, "the host must hear that numbering restarted"
    assert (hello.hello.last_seq, hello.hello.oldest_seq) == (0, 0)


def test_a_tag_lying_on_the_reader_through_a_warm_reset_is_not_drawn_again(board):
    b = board(seed=36)
    b.boot()
    b.cmd("tag in 04000031")
    assert len(tags(b.run(200))) == 1
    b.cmd("reset")
    b.boot()
    assert tags(b.run(1000)) == []
    b.cmd("tag out 04000031")
    b.run(400)
    b.cmd("tag in 04000031")
    assert tags(b.run(200)) == [(2, "04000031")]


def test_a_cold_start_bumps_boot_id_and_a_fresh_eeprom_makes_a_new_board_id(board, tmp_path):
    ee = tmp_path / "eeprom.bin"
    b = board(seed=34, eeprom=ee)
    first, _ = b.boot()
    draw(b, "04000021")
    b.cmd("power")  # unplugged: SRAM lost, EEPROM kept
    cold, _ = b.boot()
    assert cold.hello.boot_id == first.hello.boot_id + 1
    assert cold.board_id == first.board_id
    assert (cold.hello.last_seq, cold.hello.oldest_seq) == (0, 0), "the ring did not survive"
    b.close()

    again = board(seed=35, eeprom=ee)  # the same board on another day: EEPROM from the file
    hello, _ = again.boot()
    assert (hello.board_id, hello.hello.boot_id) == (first.board_id, first.hello.boot_id + 2)
    again.cmd("eeprom erase")  # a replacement board
    again.cmd("power")
    fresh, _ = again.boot()
    assert fresh.hello.boot_id == 1
    assert fresh.board_id not in (first.board_id, 0, 0xFFFFFFFF)


def test_two_fresh_boards_get_different_ids(board):
    ids = {board(seed=s).boot()[0].board_id for s in (41, 42, 43)}
    assert len(ids) == 3


def test_the_button_press_and_long_press_are_events(board):
    b = board(seed=51)
    b.boot()
    b.cmd("button down")
    b.run(200)
    b.cmd("button up")
    frames = b.run(100)
    b.cmd("button down")
    frames += b.run(1100)
    b.cmd("button up")
    frames += b.run(100)
    got = [(f.seq, P.parse_button(f)) for f in frames if f.type == P.BUTTON]
    assert got == [(1, "press"), (2, "long")]


# -- the companion's host code against the real firmware --------------------------------

def test_the_companion_reads_draws_from_the_real_firmware_across_a_warm_reset(build):
    """reader_sim --pty: the board in real time on a pseudo-terminal, opened by BagReader."""
    sim = subprocess.Popen([str(build / "reader_sim"), str(build / "reader.elf"), "--pty", "--seed", "61"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    events, lock = [], threading.Lock()

    def on_event(e) -> None:
        with lock:
            events.append(e)

    def drawn() -> list[str]:
        with lock:
            return [e.uid for e in events if e.event in ("tile_drawn", "unknown_tag")]

    def wait_for(n: int) -> list[str]:
        end = time.monotonic() + 10
        while len(drawn()) < n and time.monotonic() < end:
            time.sleep(0.02)
        return drawn()

    reader = None
    try:
        first = sim.stdout.readline().split()
        assert first[:1] == ["pty"], first

        def cmd(line: str) -> None:
            sim.stdin.write(line + "\n")
            sim.stdin.flush()
            assert sim.stdout.readline().startswith("ok"), line

        registry = {"04A1B2C3": "G1.P03"}
        reader = BagReader(make_driver("companion"), lambda: first[1], on_event, registry.get).start()
        assert reader.connected.wait(10), "the host never connected to the simulated board"
        cmd("tag in 04A1B2C3")
        assert wait_for(1) == ["04A1B2C3"]
        with lock:
            assert [e.tile for e in events if e.event == "tile_drawn"] == ["G1.P03"]
        cmd("tag out 04A1B2C3")
        time.sleep(0.4)
        cmd("reset")  # as a Nano does when its port is opened again
        cmd("tag in 04556677")
        assert wait_for(2) == ["04A1B2C3", "04556677"]
        cmd("tag in 04A1B2C3")  # drawn again: it has been out of the field for long
        assert wait_for(3) == ["04A1B2C3", "04556677", "04A1B2C3"]
        time.sleep(0.5)
        assert drawn() == ["04A1B2C3", "04556677", "04A1B2C3"], "each draw once, none replayed twice"
    finally:
        if reader is not None:
            reader.stop()
        if sim.poll() is None:
            sim.stdin.close()
            try:
                sim.wait(5)
            except subprocess.TimeoutExpired:
                sim.kill()
                sim.wait()
        sim.stdout.close()
        sim.stderr.close()
