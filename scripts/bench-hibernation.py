#!/usr/bin/env python3
"""bench-hibernation.py — hibernation at scale (docs/API.md "Lifecycle", `--hibernate-after-s`):

    python3 scripts/bench-hibernation.py [--bin PATH] [--sessions N] [--active A] [--after S]
                                         [--samples K] [--load-seconds T]

  seed     a server with --hibernate-after-s 1 gets N counter sessions (default 100,000) from wrk
           (64 connections, POST /sessions); each hibernates a second after its creation: how long
           seeding takes, and VmRSS once all N hibernated at run time;
  listing  GET /sessions?limit=1000 page by page through all N with the admin token: total time,
           ms per page, and the loads it caused (storehouse_session_loads_total: none expected);
  restart  SIGTERM, wait until every session is idle past --after (default 60), start again with
           --hibernate-after-s S on the same data: ready time and VmRSS (every session registered
           hibernated, none rebuilt);
  active   wrk keeps A sessions (default 10,000) busy, a GET of each one's state every second
           (admin token, `delay()` pacing), for --load-seconds (default 60); once all A are
           resident: VmRSS with A resident and N-A hibernated, per idle session;
  latency  meanwhile, K (default 300) other sessions: the first GET of each (a load from disk)
           against a second GET (resident), interleaved, under that load; medians and p99 in ms.

Starts its own servers (a release build: swift build -c release) with --fsync never on a free
loopback port and a temporary data directory, and removes both. Prints figures and the load
average. Needs wrk (apt-get install -y wrk); otherwise the standard library only.
"""
import argparse
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CREATE_LUA = """
local quota = tonumber(os.getenv("QUOTA"))
local count = 0
wrk.method = "POST"
wrk.body = '{"kind":"counter"}'
wrk.headers["Content-Type"] = "application/json"
function response(status, headers, body)
  count = count + 1
  if count >= quota then wrk.thread:stop() end
end
function done(summary, latency, requests)
  io.write(string.format("WRK requests=%d non2xx=%d errors=%d\\n", summary.requests, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
"""

ACTIVE_LUA = """
local threads = 0
function setup(thread)
  thread:set("index", threads)
  threads = threads + 1
end
local ids, next = {}, 1
local pause
function init(args)
  local n = 0
  for line in io.lines(os.getenv("IDS")) do
    if n % tonumber(os.getenv("THREADS")) == index then ids[#ids + 1] = line end
    n = n + 1
  end
  -- each id once a second: this thread's connections share its ids' requests
  pause = 1000 * tonumber(os.getenv("CONNECTIONS")) / tonumber(os.getenv("THREADS")) / #ids
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("ADMIN")
end
function request()
  local id = ids[next]
  next = next % #ids + 1
  return wrk.format("GET", "/sessions/" .. id .. "/state")
end
function delay() return pause end
function done(summary, latency, requests)
  io.write(string.format("WRK requests=%d non2xx=%d errors=%d p99_ms=%.2f\\n", summary.requests, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, latency:percentile(99) / 1000))
end
"""


ID = re.compile(rb'[\[,]\{"id":"([A-Za-z0-9_.-]+)"')
NEXT = re.compile(rb'"next":(?:"([A-Za-z0-9_.-]+)"|null)\}$')


class Client:
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def request(self, method, path, token=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.conn.request(method, path, headers=headers)
        response = self.conn.getresponse()
        return response.status, response.read()


def metric(port, name):
    _, text = Client(port).request("GET", "/metrics")
    for line in text.decode().splitlines():
        if line.startswith(name + " "):
            return int(float(line.split()[-1]))
    raise SystemExit(f"bench-hibernation: no metric {name}")


def cpu_seconds(pid):
    """User plus system CPU time of process `pid` (/proc/PID/stat, fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def start(binary, directory, port, after, admin):
    process = subprocess.Popen([binary, "--port", str(port), "--data-dir", directory, "--fsync", "never",
                                "--hibernate-after-s", str(after), "--admin-token", admin, "--access-log", "false",
                                "--max-sessions", "10000000", "--max-connections", "4096"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 1800
    while time.time() < deadline:
        try:
            if Client(port).request("GET", "/readyz")[0] == 200:
                return process
        except OSError:
            pass
        time.sleep(0.05)
    process.kill()
    raise SystemExit("bench-hibernation: the server did not become ready")


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=300)
    except subprocess.TimeoutExpired:
        process.kill()


def wait_until(port, name, predicate, timeout=1800, poll=0.2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = metric(port, name)
        if predicate(value):
            return value
        time.sleep(poll)
    raise SystemExit(f"bench-hibernation: {name} did not settle in {timeout} s")


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def wrk(script_dir, name, text, port, connections, seconds, env):
    path = os.path.join(script_dir, name)
    with open(path, "w") as f:
        f.write(text)
    return subprocess.Popen(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "-s", path, f"http://127.0.0.1:{port}/sessions"],
                            env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wrk_counts(output):
    found = re.search(r"WRK requests=(\d+) non2xx=(\d+) errors=(\d+)", output)
    if not found:
        raise SystemExit(f"bench-hibernation: wrk said\n{output}")
    return tuple(int(x) for x in found.groups())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "storehouse"))
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--active", type=int, default=10_000)
    parser.add_argument("--after", type=int, default=60, help="--hibernate-after-s once seeded")
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--load-seconds", type=int, default=60)
    args = parser.parse_args()
    if not os.path.exists(args.bin):
        sys.exit(f"bench-hibernation: {args.bin} not found (swift build -c release)")
    if shutil.which("wrk") is None:
        sys.exit("bench-hibernation: needs wrk (apt-get install -y wrk)")
    admin = secrets.token_urlsafe(32)
    directory = tempfile.mkdtemp(prefix="storehouse-bench-hibernation-")
    scripts = tempfile.mkdtemp(prefix="storehouse-bench-hibernation-lua-")
    port = free_port()
    process = start(args.bin, directory, port, 1, admin)
    load = None
    try:
        empty = rss_mib(process.pid)
        # Seed: wrk creates sessions until the server holds N, then is stopped (SIGINT: it reports).
        started = time.time()
        seeding = wrk(scripts, "create.lua", CREATE_LUA, port, 64, 3600, {"QUOTA": str((args.sessions + 1) // 2)})
        total = wait_until(port, "storehouse_sessions", lambda v: v >= args.sessions, poll=0.05)
        seeded = time.time() - started
        seeding.send_signal(signal.SIGINT)
        out, _ = seeding.communicate()
        requests, non2xx, errors = wrk_counts(out)
        last_created = time.time()
        total = metric(port, "storehouse_sessions")
        print(f"seed: {total} sessions created in {seeded:.1f} s ({total / seeded:,.0f}/s; {non2xx} refused, {errors} errors)")
        wait_until(port, "storehouse_sessions_resident", lambda v: v == 0)
        time.sleep(1.5)  # one more sweep
        print(f"seed: {empty:.0f} MiB empty, {rss_mib(process.pid):.0f} MiB with all {total} hibernated at run time")

        # Listing, page by page, from the records alone.
        loads = metric(port, "storehouse_session_loads_total")
        client, ids, cursor, pages = Client(port), [], None, 0
        started, server_cpu, client_cpu = time.perf_counter(), cpu_seconds(process.pid), time.process_time()
        while True:
            status, body = client.request("GET", "/sessions?limit=1000" + (f"&cursor={cursor}" if cursor else ""), token=admin)
            assert status == 200, body[:200]
            # Read with a regular expression, not decoded: the figure is the server's, and a
            # loaded machine starves a Python decoder of 1,000 objects a page.
            ids += [m.decode() for m in ID.findall(body)]
            pages += 1
            cursor = NEXT.search(body).group(1)
            if cursor is None:
                break
            cursor = cursor.decode()
        listed = time.perf_counter() - started
        server_cpu, client_cpu = cpu_seconds(process.pid) - server_cpu, time.process_time() - client_cpu
        assert len(ids) == total and ids == sorted(ids), (len(ids), total)
        print(f"listing: {len(ids)} sessions in {pages} pages in {listed:.2f} s ({listed / pages * 1e3:.2f} ms a page), "
              f"{metric(port, 'storehouse_session_loads_total') - loads} loads; CPU: server {server_cpu:.2f} s "
              f"({server_cpu / pages * 1e3:.2f} ms a page), client {client_cpu:.2f} s")

        # Restart past the window: every session registered hibernated.
        stop(process)
        time.sleep(max(0.0, args.after + 1 - (time.time() - last_created)))
        started = time.time()
        process = start(args.bin, directory, port, args.after, admin)
        print(f"restart: ready in {time.time() - started:.1f} s, {rss_mib(process.pid):.0f} MiB, "
              f"{metric(port, 'storehouse_sessions_resident')} resident of {metric(port, 'storehouse_sessions')}")

        # A sessions, a GET each per second; the rest stay hibernated.
        active = ids[:args.active]
        rest = ids[args.active:]
        with open(os.path.join(scripts, "active.txt"), "w") as f:
            f.write("\n".join(active) + "\n")
        connections = 200
        load = wrk(scripts, "active.lua", ACTIVE_LUA, port, connections, args.load_seconds,
                   {"IDS": os.path.join(scripts, "active.txt"), "THREADS": "2", "CONNECTIONS": str(connections), "ADMIN": admin})
        wait_until(port, "storehouse_sessions_resident", lambda v: v >= len(active), timeout=args.load_seconds)

        # First requests to hibernated sessions (a load each) against second ones, interleaved.
        client = Client(port)
        first, second = [], []
        for id in rest[:: max(1, len(rest) // args.samples)][:args.samples]:
            t0 = time.perf_counter()
            status, _ = client.request("GET", f"/sessions/{id}/state", token=admin)
            t1 = time.perf_counter()
            client.request("GET", f"/sessions/{id}/state", token=admin)
            t2 = time.perf_counter()
            assert status == 200
            first.append((t1 - t0) * 1e3)
            second.append((t2 - t1) * 1e3)
        added = sorted(a - b for a, b in zip(first, second))
        print(f"latency, under the load: first GET of a hibernated session median {statistics.median(first):.2f} ms, "
              f"p99 {percentile(first, 0.99):.2f} ms; resident GET median {statistics.median(second):.2f} ms, "
              f"p99 {percentile(second, 0.99):.2f} ms; added by loading: median {statistics.median(added):.2f} ms, "
              f"p99 {percentile(added, 0.99):.2f} ms ({len(first)} samples)")
        time.sleep(2)
        resident = metric(port, "storehouse_sessions_resident")
        rss = rss_mib(process.pid)
        out, _ = load.communicate()
        load = None
        requests, non2xx, errors = wrk_counts(out)
        p99 = re.search(r"p99_ms=([\d.]+)", out).group(1)
        print(f"active: {rss:.0f} MiB with {resident} resident of {total}; load {requests / args.load_seconds:,.0f} GET/s, "
              f"p99 {p99} ms, {non2xx} non-2xx, {errors} errors")
        print(f"load: {os.getloadavg()[0]:.2f} (1-min average), {os.cpu_count()} cores")
    finally:
        if load is not None:
            load.kill()
        stop(process)
        shutil.rmtree(directory, ignore_errors=True)
        shutil.rmtree(scripts, ignore_errors=True)


if __name__ == "__main__":
    main()
