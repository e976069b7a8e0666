"""Tile-bag benchmark: every draw counted once at the game's level, across USB drops that
reset the board and ``kill -9`` restarts of the host.

The board is the virtual Nano (:class:`firmware_bridge.virtual.VirtualReader`) on a real
pty, in this process: a USB drop closes its pty and a new one appears; the host's open of
the new port asserts DTR and resets the board (warm: ring kept), whose bootloader then runs
for 0.5 to 2 s (drawn per reset); tags drawn meanwhile are read when the firmware starts.

The host is a separate process (this script with ``--host``), as the table would run it:
:class:`~firmware_bridge.reader.BagReader` -> :class:`~companion.tilebag.TileLedger` ->
the game log (:class:`~companion.eventlog.EventLog`, SQLite, synchronous=FULL), each draw a
move carrying its UID and the reader's position; on start it rebuilds the ledger from the log
and resumes the reader from the last logged position.  The parent kills it with SIGKILL at
chosen moments and starts it again at once.

Printed: draws lost and duplicated in the log (targets 0 and 0), repeated reads the ledger
ignored, draw-to-log latency (median, p99, max) over draws made while the link and host were
up, recovery times, and the load average.  It asserts nothing about timing.

The board keeps 32 events (0.64 s of draws at 50/s): a host restart or a reconnection slower
than that loses draws at this rate, and the host reports each such gap (``replay_gap``); at
a real table, where draws are seconds apart, the same 32 events last minutes.

    .venv/bin/python bench/rfid.py                        # 10,000 draws at 50/s (~3.5 min)
    .venv/bin/python bench/rfid.py --draws 2000 --drops 1 --kills 1
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path


# -- the host process ----------------------------------------------------------------------
def host(db: Path, port_file: Path) -> int:
    """Run the reader into the game log until killed."""
    from companion.eventlog import EventLog
    from firmware_bridge import events as E
    from firmware_bridge.cursor import Cursor
    from firmware_bridge.drivers.companion import CompanionDriver
    from firmware_bridge.reader import BagReader

    log = EventLog(db)
    gid = log.latest_game()
    if gid is None:
        gid = log.new_game({"bench": "rfid"})
        log.append(gid, 0, "setup", {})
    # the reader starts first, from the last logged position; the ledger is rebuilt meanwhile
    last = log.db.execute("SELECT seq, payload FROM events WHERE game = ? ORDER BY seq DESC LIMIT 1", (gid,)).fetchone()
    seq = last[0]
    at = json.loads(last[1]).get("move", {}).get("reader") if seq else None
    driver = CompanionDriver()
    if at:
        driver.resume(Cursor.from_json(at))
    ledger = draw_move = None  # the ledger is imported and rebuilt once the reader runs
    ready = threading.Event()
    lock = threading.Lock()

    def sink(ev):
        nonlocal seq
        if isinstance(ev, E.TileDrawn):
            ready.wait()
            with lock:
                seen = ledger.sighting(ev.uid, ev.tile)
                if seen.action != "draw":
                    print(f"repeat {ev.uid}", flush=True)
                    return
                move = draw_move("blue", ev.tile, ev.uid, ev.reader)
                seq += 1
                t = time.time()
                log.append(gid, seq, "move", {"move": move, "t": t, "t_event": ev.time})
                print(f"committed {ev.uid} {time.time() - t:.6f}", flush=True)  # on disk only now
                ledger.apply(move)
        elif isinstance(ev, E.ReaderConnected):
            print(f"connected {time.time()}", flush=True)
        elif isinstance(ev, E.FrameErrorEvent) and ev.kind == "replay_gap":
            print(f"replay_gap {ev.detail}", flush=True)

    def port():
        try:
            return port_file.read_text().strip() or None
        except OSError:
            return None

    reader = BagReader(driver, port, sink, lambda uid: "P03").start()
    from companion.tilebag import TileLedger, draw_move  # noqa: F811 - late on purpose
    ledger = TileLedger()
    for _, kind, payload, _ in log.events(gid):
        if kind == "move":
            ledger.apply(payload["move"])
    ready.set()
    signal.signal(signal.SIGTERM, lambda *a: reader.stop())
    while reader._thread.is_alive():
        time.sleep(0.2)
    return 0


# -- the table: board, drops, kills ----------------------------------------------------------
class Host:
    """The host process and what it says on stdout."""

    def __init__(self, db: Path, port_file: Path, out: dict):
        self.proc = subprocess.Popen([sys.executable, __file__, "--host", "--db", str(db), "--port-file", str(port_file)],
                                     stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[1])
        self.out = out
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            kind, _, rest = line.strip().partition(" ")
            if kind == "connected":
                self.out["connected"].append(float(rest))
            elif kind == "committed":
                uid, took = rest.split()
                self.out["commit"][uid] = float(took)
            elif kind == "repeat":
                self.out["repeats"] += 1
            elif kind == "replay_gap":
                self.out["gaps"].append(rest)

    def kill(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=10_000)
    ap.add_argument("--rate", type=float, default=50.0, help="draws per second")
    ap.add_argument("--drops", type=int, default=3, help="USB drops (each resets the board on reconnect)")
    ap.add_argument("--kills", type=int, default=2, help="kill -9 restarts of the host")
    ap.add_argument("--unplugged-s", type=float, default=0.3, help="seconds the USB link stays down")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--host", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--port-file", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.host:
        return host(args.db, args.port_file)

    from companion.eventlog import EventLog
    from firmware_bridge.virtual import VirtualReader

    tmp = Path(tempfile.mkdtemp(prefix="rfid-bench-"))
    db, port_file = tmp / "game.db", tmp / "port"
    out = {"connected": [], "repeats": 0, "gaps": [], "commit": {}}
    kinds, drops, kills = [], args.drops, args.kills
    while drops or kills:  # alternate: drop, kill, drop, kill, drop
        take = "drop" if drops and (len(kinds) % 2 == 0 or not kills) else "kill"
        kinds.append(take)
        drops, kills = drops - (take == "drop"), kills - (take == "kill")
    at = {args.draws * (k + 1) // (len(kinds) + 1): kind for k, kind in enumerate(kinds)}
    uids = [(0x04000000 + i).to_bytes(4, "big").hex().upper() for i in range(args.draws)]
    sent: dict[str, float] = {}
    disturbed: list[list[float]] = []  # [start, end] wall-time windows of drops and restarts

    def connected_after(t: float, timeout: float = 15.0) -> float | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            later = [c for c in out["connected"] if c > t]
            if later:
                return later[0]
            time.sleep(0.005)
        return None

    with VirtualReader("companion", present_ms=0, seed=args.seed, bootloader_s=(0.5, 2.0)) as dev:
        port_file.write_text(dev.port)
        h = Host(db, port_file, out)
        if connected_after(0.0) is None:
            print("the host never connected")
            return 1
        period = 1.0 / args.rate
        t0 = time.monotonic()
        replug_at = 0.0
        for i, uid in enumerate(uids):
            target = t0 + i * period
            while (d := target - time.monotonic()) > 0:
                time.sleep(min(d, 0.002))
            now = time.monotonic()
            if replug_at and now >= replug_at:
                dev.replug()  # a new port; the host's open of it resets the board
                port_file.write_text(dev.port)
                replug_at = 0.0
            if at.get(i) == "drop":
                dev.unplug()
                port_file.write_text("")
                replug_at = now + args.unplugged_s
            elif at.get(i) == "kill":
                h.kill()
                h = Host(db, port_file, out)  # restarted at once, as a service manager would
            sent[uid] = time.time()
            dev.draw(bytes.fromhex(uid))
        if replug_at:
            dev.replug()
            port_file.write_text(dev.port)

        deadline = time.monotonic() + 20
        log = EventLog(db)
        while time.monotonic() < deadline:
            gid = log.latest_game()
            if gid and sum(1 for _, k, _, _ in log.events(gid) if k == "move") >= len(sent):
                break
            time.sleep(0.2)
        time.sleep(1.0)
        h.kill()
        elapsed = time.monotonic() - t0
        load = os.getloadavg()

    rows = [p for _, k, p, _ in EventLog(db).events(EventLog(db).latest_game()) if k == "move"]
    shutil.rmtree(tmp, ignore_errors=True)
    counts = Counter(p["move"]["uid"] for p in rows)
    logged_at, decoded_at = {}, {}
    for p in rows:  # logged = when its commit returned (a draw killed mid-commit: its start)
        logged_at.setdefault(p["move"]["uid"], p["t"] + out["commit"].get(p["move"]["uid"], 0.0))
        decoded_at.setdefault(p["move"]["uid"], p["t_event"])
    lost = [u for u in sent if u not in counts]
    dups = sum(n - 1 for n in counts.values() if n > 1)
    # a disturbance lasts until the backlog is drained: up to the first draw after it that is
    # logged within 50 ms and after every draw sent before it
    order = sorted(sent, key=sent.get)
    for s0 in sorted(_disturbance_starts(at, sent, uids)):
        latest = 0.0
        for u in order:
            if u not in logged_at:
                continue
            if sent[u] > s0 and logged_at[u] - sent[u] < 0.05 and logged_at[u] >= latest:
                disturbed.append([s0, sent[u]])
                break
            latest = max(latest, logged_at[u])
    calm = [(logged_at[u] - sent[u]) * 1000 for u in sent if u in logged_at
            and not any(a <= sent[u] <= b for a, b in disturbed)]
    commits = sorted(v * 1000 for v in out["commit"].values())
    bridge = sorted((decoded_at[u] - sent[u]) * 1000 for u in sent if u in decoded_at
                    and not any(a <= sent[u] <= b for a, b in disturbed))
    every = sorted((logged_at[u] - sent[u]) * 1000 for u in sent if u in logged_at)
    calm.sort()

    def pct(xs, p):
        return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")

    print(f"{len(sent)} draws at {args.rate:g}/s in {elapsed:.1f} s; {args.drops} USB drops of {args.unplugged_s:g} s "
          f"(board reset on reconnect, bootloader 0.5-2 s), {args.kills} kill -9 restarts of the host")
    print(f"board resets   {dev.resets:>6}   (the first open, and one per USB drop)")
    print(f"lost           {len(lost):>6}   (target 0)")
    print(f"duplicated     {dups:>6}   (target 0; in the game log)")
    print(f"repeat reads   {out['repeats']:>6}   (replayed events the ledger ignored)")
    print(f"replay gaps    {len(out['gaps']):>6}")
    print(f"latency        median {statistics.median(calm) if calm else float('nan'):.2f} ms, p99 {pct(calm, 99):.2f} ms, "
          f"max {calm[-1] if calm else float('nan'):.2f} ms over {len(calm)} draws made with link and host up "
          f"(target p99 < 20 ms)")
    print(f"               of which the bridge (draw to decoded event): median {statistics.median(bridge) if bridge else float('nan'):.2f} ms, "
          f"p99 {pct(bridge, 99):.2f} ms; the rest is the ledger and the game log's fsync'd commit "
          f"(median {statistics.median(commits) if commits else float('nan'):.2f} ms, p99 {pct(commits, 99):.2f} ms)")
    print(f"               all draws: p99 {pct(every, 99):.0f} ms, max {every[-1] if every else float('nan'):.0f} ms "
          "(includes draws waiting out drops, bootloaders and restarts)")
    kinds_in_order = [at[i] for i in sorted(at)]
    starts = sorted(_disturbance_starts(at, sent, uids))
    conn = [next((c - s0 for c in out["connected"] if c > s0), float("nan")) for s0 in starts]
    if conn:
        print("reconnected    " + ", ".join(f"{k} {r:.2f} s" for k, r in zip(kinds_in_order, conn))
              + "  (from the drop or kill to reader_connected)")
    if disturbed:
        print("caught up      " + ", ".join(f"{k} {b - a:.2f} s" for k, (a, b) in zip(kinds_in_order, disturbed))
              + "  (until draws are logged within 50 ms again; draws in between are left out of the latency)")
    print(f"load average   {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}  ({os.cpu_count()} cores)")
    return 0 if not lost and not dups else 1


def _disturbance_starts(at, sent, uids):
    """Wall times of the drops and kills: the send time of the draw each came before."""
    for i in at:
        if i < len(uids) and uids[i] in sent:
            yield sent[uids[i]] - 0.001


if __name__ == "__main__":
    raise SystemExit(main())
