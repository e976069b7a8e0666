"""Dashboard benchmark: event -> SSE client latency, page size, time to first render, and the
time for ten tabs of one browser (one shared event stream) to all show a new move.

Run: ``.venv/bin/python bench/dashboard.py [--moves N] [--clients N] [--renders N] [--tabs N]``.
Everything runs on 127.0.0.1.  Prints figures against the targets (p95 latency under 100 ms,
page under 150 KB transferred) and the load average beside each timing; asserts nothing.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.selfplay import BotTable  # noqa: E402
from web.demo import demo_session  # noqa: E402
from web.server import serve  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def sse_reader(port: int, start_after: int, want: int, out: list[float], ready: threading.Event) -> None:
    """Read ``want`` messages; record arrival minus publish time (ms) for each."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/events", headers={"Last-Event-ID": str(start_after)})
    resp = conn.getresponse()
    ready.set()
    got = 0
    while got < want:
        line = resp.fp.readline()
        if not line:
            break
        if line.startswith(b"data: "):
            now = time.time()
            ts = json.loads(line[6:])["ts"]
            out.append((now - ts) * 1000.0)
            got += 1
    conn.close()


def latency(srv, session, moves: int, clients: int, gap_s: float) -> list[float]:
    """Bots commit ``moves`` moves, ``gap_s`` apart, while ``clients`` SSE clients listen."""
    table = BotTable.from_game(session.game, 5, check_invariants=False)
    start = session.bus.last_id
    results: list[list[float]] = [[] for _ in range(clients)]
    threads = []
    for i in range(clients):
        ready = threading.Event()
        t = threading.Thread(target=sse_reader, args=(srv.port, start, moves, results[i], ready), daemon=True)
        t.start()
        ready.wait(5)
        threads.append(t)
    time.sleep(0.2)
    plain = table.play

    def locked(move):  # commit under the session lock, as the table loop does
        with session.lock:
            return plain(move)

    table.play = locked
    made = 0
    while made < moves:
        before = session.bus.last_id
        if table.position.result is not None:
            session.set_status("camera", f"frame {made}")  # keep publishing after the game ends
        else:
            table.play_turn()
        made += session.bus.last_id - before
        time.sleep(gap_s)
    for t in threads:
        t.join(10)
    return [x for r in results for x in r]


def page_size(srv) -> tuple[int, dict[str, int]]:
    """Bytes of the page, every asset it references, and one /api/state."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    sizes = {}
    conn.request("GET", "/")
    page = conn.getresponse().read()
    sizes["/"] = len(page)
    for ref in re.findall(r'(?:src|href)="(/[^"]+)"', page.decode()):
        conn.request("GET", ref)
        sizes[ref] = len(conn.getresponse().read())
    conn.request("GET", "/api/state")
    sizes["/api/state"] = len(conn.getresponse().read())
    conn.close()
    return sum(sizes.values()), sizes


def first_render(srv, runs: int) -> tuple[list[float], list[float], int | None]:
    """Time from navigation to the first complete render (ms, in-page clock), wall time from
    goto to rendered (ms), and bytes Chromium transferred."""
    from playwright.sync_api import sync_playwright
    inpage, wall, transferred = [], [], None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(runs):
            ctx = b.new_context(viewport={"width": 1280, "height": 800})
            page = ctx.new_page()
            t0 = time.perf_counter()
            page.goto(srv.local_url)
            page.wait_for_selector("body[data-rendered='1']")
            wall.append((time.perf_counter() - t0) * 1000)
            inpage.append(float(page.get_attribute("body", "data-first-render-ms")))
            entries = page.evaluate("JSON.stringify(performance.getEntries().map(e => e.transferSize || 0))")
            transferred = sum(json.loads(entries))
            ctx.close()
        b.close()
    return inpage, wall, transferred


def ten_tabs(srv, session, tabs: int, rounds: int) -> tuple[list[float], int]:
    """Open ``tabs`` tabs in one Chromium context; per committed move, the time (ms) until every
    tab shows it.  Returns the times and the event streams the server had open."""
    from playwright.sync_api import sync_playwright
    table = BotTable.from_game(session.game, 8, check_invariants=False)
    times = []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        ctx = b.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
        pages = []
        for _ in range(tabs):
            page = ctx.new_page()
            page.goto(srv.local_url)
            page.wait_for_selector("body[data-rendered='1']")
            pages.append(page)
        time.sleep(1.5)  # the tabs settle on one leader
        streams = srv.app.extensions["event_streams"].open
        hidden = sum(page.evaluate("document.visibilityState") != "visible" for page in pages)
        if hidden:
            print(f"({hidden} of {tabs} tabs are in the background: the browser delays their timers)")
        for _ in range(rounds):
            if table.position.result is not None:
                break
            t0 = time.perf_counter()
            with session.lock:
                table.play_turn()
            want = session.bus.last_id
            for page in pages:
                page.wait_for_function(f"Number(document.body.dataset.lastEvent) >= {want} && "
                                       f"window.MycDashboard.state().seq >= {want}", timeout=15000, polling=10)
            times.append((time.perf_counter() - t0) * 1000)
        ctx.close()
        b.close()
    return times, streams


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=300)
    ap.add_argument("--clients", type=int, default=3)
    ap.add_argument("--gap", type=float, default=0.01, help="seconds between bot turns")
    ap.add_argument("--renders", type=int, default=5)
    ap.add_argument("--tabs", type=int, default=10)
    ap.add_argument("--tab-rounds", type=int, default=10)
    args = ap.parse_args()

    session = demo_session("competitive", 3, seed=5)
    table = BotTable.from_game(session.game, 5, check_invariants=False)
    table.world()
    for _ in range(25):
        table.play_turn()  # a mid-game board for the page and state sizes
    srv = serve(session, port=0, pin="123456", announce=False)
    try:
        total, sizes = page_size(srv)
        print(f"page size: {total / 1024:.1f} KB total, uncompressed: "
              + ", ".join(f"{k} {v / 1024:.1f} KB" for k, v in sizes.items()))
        if os.access(CHROMIUM, os.X_OK):
            # first: the render runs below leave streams the server reaps only at its next keepalive
            times, streams = ten_tabs(srv, session, args.tabs, args.tab_rounds)
            print(f"{args.tabs} tabs of one browser: {streams} event stream(s) open; a new move shown in every tab "
                  f"after median {statistics.median(times):.0f} ms, max {max(times):.0f} ms ({len(times)} moves; {load()})")
            inpage, wall, transferred = first_render(srv, args.renders)
            print(f"first render in headless Chromium at 1280x800 ({args.renders} runs): "
                  f"median {statistics.median(inpage):.0f} ms after navigation start "
                  f"(goto to rendered: median {statistics.median(wall):.0f} ms); "
                  f"Chromium transferred {transferred / 1024:.1f} KB (target < 150 KB); {load()}")

        else:
            print("first render: skipped, /usr/bin/chromium is not installed")
        lat = latency(srv, session, args.moves, args.clients, args.gap)
        print(f"event -> SSE client latency over {len(lat)} deliveries ({args.clients} clients): "
              f"median {statistics.median(lat):.1f} ms, p95 {pct(lat, 0.95):.1f} ms, max {max(lat):.1f} ms "
              f"(target p95 < 100 ms; {load()})")
    finally:
        srv.shutdown()


if __name__ == "__main__":
    main()
