#!/usr/bin/env python3
"""bench-hibernation.py — hibernation's costs (docs/API.md "Lifecycle", `--hibernate-after-s`):

    python3 scripts/bench-hibernation.py [--bin PATH] [--sessions N] [--active A] [--after S] [--samples K]

  memory   creates N sessions (default 20,000) on disk with one action each, keeps A of them
           (default 100) busy with a request each every half second, and waits until the others
           hibernate: the server's resident size (VmRSS) with every session in memory, and with
           only the active ones;
  restart  SIGTERM, wait past --hibernate-after-s, start again on the same data directory:
           resident size once recovery is done (every session's files read, none rebuilt: each
           is registered hibernated);
  latency  K (default 200) hibernated sessions: the first GET of each state (which loads it from
           disk) against a second GET (resident), interleaved; medians and p99 in ms.

Starts its own server (a release build: swift build -c release) with --fsync never on a free
loopback port and a temporary data directory, and removes both. Prints figures and the load
average. Standard library only.
"""
import argparse
import http.client
import json
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method, path, body=None, token=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        data = None if body is None else json.dumps(body).encode()
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        payload = response.read()
        return response.status, payload


def metric(port, name):
    _, text = Client(port).request("GET", "/metrics")
    for line in text.decode().splitlines():
        if line.startswith(name + " "):
            return int(float(line.split()[-1]))
    raise SystemExit(f"bench-hibernation: no metric {name}")


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def start(binary, directory, port, after, admin):
    process = subprocess.Popen([binary, "--port", str(port), "--data-dir", directory, "--fsync", "never",
                                "--hibernate-after-s", str(after), "--admin-token", admin, "--access-log", "false",
                                "--max-sessions", "10000000"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while time.time() < deadline:
        try:
            if Client(port).request("GET", "/readyz")[0] == 200:
                return process
        except OSError:
            pass
        time.sleep(0.05)
    process.kill()
    raise SystemExit("bench-hibernation: the server did not become ready")


def wait_until(port, name, predicate, timeout=600):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = metric(port, name)
        if predicate(value):
            return value
        time.sleep(0.2)
    raise SystemExit(f"bench-hibernation: {name} did not settle in {timeout} s")


def keep_busy(port, sessions, stop):
    client = Client(port)
    while not stop.is_set():
        for id, token in sessions:
            client.request("GET", f"/sessions/{id}/state", token=token)
        stop.wait(0.5)


def create(port, count, out, lock):
    client = Client(port)
    mine = []
    for _ in range(count):
        status, body = client.request("POST", "/sessions", {"kind": "counter"})
        assert status == 201, body
        created = json.loads(body)
        status, body = client.request("POST", f"/sessions/{created['id']}/actions", {"type": "counter/incrTapped"}, token=created["token"])
        assert status == 200, body
        mine.append((created["id"], created["token"]))
    with lock:
        out.extend(mine)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "storehouse"))
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("--active", type=int, default=100)
    parser.add_argument("--after", type=int, default=3, help="--hibernate-after-s")
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    if not os.path.exists(args.bin):
        sys.exit(f"bench-hibernation: {args.bin} not found (swift build -c release)")
    admin = secrets.token_urlsafe(32)
    directory = tempfile.mkdtemp(prefix="storehouse-bench-hibernation-")
    port = free_port()
    process = start(args.bin, directory, port, args.after, admin)
    stop = threading.Event()
    try:
        empty = rss_mib(process.pid)
        sessions, lock, workers = [], threading.Lock(), 4
        started = time.time()
        threads = [threading.Thread(target=create, args=(port, args.sessions // workers, sessions, lock)) for _ in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"created {len(sessions)} sessions with one action each in {time.time() - started:.1f} s")
        all_resident = rss_mib(process.pid)
        active, idle = sessions[:args.active], sessions[args.active:]
        busy = threading.Thread(target=keep_busy, args=(port, active, stop))
        busy.start()
        wait_until(port, "storehouse_sessions_resident", lambda v: v <= args.active)
        time.sleep(1.5)  # one more sweep: its malloc_trim returns what the last unloads freed
        print(f"memory: {empty:.0f} MiB empty, {all_resident:.0f} MiB with all {len(sessions)} in memory, "
              f"{rss_mib(process.pid):.0f} MiB with {metric(port, 'storehouse_sessions_resident')} resident")

        # First requests to hibernated sessions (a load each) against second ones, interleaved.
        client = Client(port)
        first, second = [], []
        for id, token in idle[:args.samples]:
            t0 = time.perf_counter()
            status, _ = client.request("GET", f"/sessions/{id}/state", token=token)
            t1 = time.perf_counter()
            client.request("GET", f"/sessions/{id}/state", token=token)
            t2 = time.perf_counter()
            assert status == 200
            first.append((t1 - t0) * 1e3)
            second.append((t2 - t1) * 1e3)
        loads = metric(port, "storehouse_session_loads_total")
        print(f"latency: first GET of a hibernated session median {statistics.median(first):.2f} ms, p99 {percentile(first, 0.99):.2f} ms; "
              f"resident GET median {statistics.median(second):.2f} ms, p99 {percentile(second, 0.99):.2f} ms; "
              f"{loads} loads for {len(first)} samples")

        stop.set()
        busy.join()
        process.terminate()
        process.wait(timeout=60)
        # Every session idle past --hibernate-after-s: recovery registers them all hibernated.
        time.sleep(args.after + 0.5)
        started = time.time()
        process = start(args.bin, directory, port, args.after, admin)
        print(f"restart: ready in {time.time() - started:.1f} s, {rss_mib(process.pid):.0f} MiB after recovery, "
              f"{metric(port, 'storehouse_sessions_resident')} resident")
        wait_until(port, "storehouse_sessions_resident", lambda v: v == 0)
        time.sleep(1.5)
        print(f"restart: {rss_mib(process.pid):.0f} MiB once every session hibernated "
              f"({metric(port, 'storehouse_sessions')} sessions held)")
        print(f"load: {os.getloadavg()[0]:.2f} (1-min average), {os.cpu_count()} cores")
    finally:
        stop.set()
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
