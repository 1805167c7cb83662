#!/usr/bin/env python3
"""bench-operators.py — the operator routes' costs against their targets (docs/API.md "Operators"):

    python3 scripts/bench-operators.py [--bin PATH] [--sessions N] [--actions N] [--rounds R]
                                       [--only listing|export] [--disk]

  listing  creates N sessions (default 100,000), then pages through GET /sessions 1,000 at a
           time, R rounds: seconds per full listing and per page (the target: 1,000,000 sessions
           listed in under 10 s, i.e. 10 ms a page);
  export   a session with --actions actions (default 10,000; the server runs with --history at
           least that): GET /sessions/{id}/export, then DELETE and POST /sessions/import, R
           rounds, each checked: the imported state, log and version equal the original's
           (target: each under 100 ms). Also the server's CPU time per export and import (all its
           threads, from /proc), which load on a shared machine stretches far less than wall time.

`--only` runs one of the two; `--disk` runs the server on a temporary data directory under
`--fsync always` (an import then writes its record and snapshot) instead of `--in-memory`.

Starts its own in-memory server (a release build: swift build -c release) on a free loopback port
with an admin token, and stops it. Prints medians and the load average. Standard library only.
"""
import argparse
import http.client
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Client:
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method, path, body=None, token=None, raw=False):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        payload = response.read()
        return response.status, (payload if raw else (json.loads(payload) if payload else None))


def cpu_seconds(pid):
    """The server's CPU time so far, all threads (Linux schedstat, in ns): what a request costs
    whatever else the machine runs, where wall times under load mostly measure the wait."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass  # a thread that ended meanwhile
    return total / 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "storehouse"))
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--actions", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=["listing", "export"])
    parser.add_argument("--disk", action="store_true")
    args = parser.parse_args()
    if args.only == "export":
        args.sessions = 0
    if not os.path.exists(args.bin):
        sys.exit(f"bench-operators: {args.bin} not found (swift build -c release)")
    admin = secrets.token_urlsafe(32)
    port = free_port()
    data_dir = tempfile.mkdtemp(prefix="bench-operators-") if args.disk else None
    storage = ["--data-dir", data_dir, "--fsync", "always"] if data_dir else ["--in-memory"]
    server = subprocess.Popen([args.bin, *storage, "--port", str(port), "--access-log", "false",
                               "--max-sessions", str(args.sessions + 10), "--history", str(max(10_000, args.actions)),
                               "--max-body-bytes", str(64 << 20)],
                              env={**os.environ, "STOREHOUSE_ADMIN_TOKEN": admin}, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                if Client(port).request("GET", "/readyz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.05)
        c = Client(port)
        print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores shared)")

        if args.only != "export":
            started = time.perf_counter()
            for _ in range(args.sessions):
                c.request("POST", "/sessions", {"kind": "counter"})
            print(f"created {args.sessions} sessions in {time.perf_counter() - started:.1f} s")
            listings = []
            for _ in range(args.rounds):
                started, cursor, seen, pages = time.perf_counter(), None, 0, 0
                while True:
                    path = "/sessions?limit=1000" + (f"&cursor={cursor}" if cursor else "")
                    status, page = c.request("GET", path, token=admin)
                    assert status == 200, (status, page)
                    seen += len(page["sessions"])
                    pages += 1
                    cursor = page["next"]
                    if cursor is None:
                        break
                assert seen >= args.sessions, seen
                listings.append((time.perf_counter() - started, pages))
            total = statistics.median(t for t, _ in listings)
            pages = listings[0][1]
            print(f"listing: {args.sessions} sessions in {pages} pages of 1,000: median {total:.2f} s "
                  f"({total / pages * 1000:.2f} ms a page; rounds {', '.join(f'{t:.2f}' for t, _ in listings)})")

        if args.only != "listing":
            status, created = c.request("POST", "/sessions", {"kind": "tasks"})
            sid, token = created["id"], created["token"]
            batch = 500
            for start in range(0, args.actions, batch):
                actions = [{"type": "tasks/add", "payload": {"title": f"t{n}"}} for n in range(start, min(args.actions, start + batch))]
                status, _ = c.request("POST", f"/sessions/{sid}/actions", actions, token=token)
                assert status == 200, status

            def observed():
                state = c.request("GET", f"/sessions/{sid}/state", token=token, raw=True)[1]
                log, since = [], 0
                while since is not None:
                    page = c.request("GET", f"/sessions/{sid}/actions?since={since}&limit=1000", token=token)[1]
                    log += page["actions"]
                    since = page["next"]
                return state, log

            before = observed()
            exports, imports, export_cpu, import_cpu = [], [], [], []
            for _ in range(args.rounds):
                started, cpu = time.perf_counter(), cpu_seconds(server.pid)
                status, document = c.request("GET", f"/sessions/{sid}/export", token=token, raw=True)
                exports.append(time.perf_counter() - started)
                export_cpu.append(cpu_seconds(server.pid) - cpu)
                assert status == 200, status
                assert c.request("DELETE", f"/sessions/{sid}", token=admin)[0] == 204
                started, cpu = time.perf_counter(), cpu_seconds(server.pid)
                status, answer = c.request("POST", "/sessions/import", document, token=admin)
                imports.append(time.perf_counter() - started)
                import_cpu.append(cpu_seconds(server.pid) - cpu)
                assert status == 201, (status, answer)
                assert observed() == before, "the imported session differs from the original"
            print(f"export of a session with {args.actions} actions ({len(document) / 1e6:.1f} MB): median {statistics.median(exports) * 1000:.1f} ms "
                  f"(rounds {', '.join(f'{t * 1000:.1f}' for t in exports)}); server CPU median {statistics.median(export_cpu) * 1000:.1f} ms")
            print(f"import of it: median {statistics.median(imports) * 1000:.1f} ms (rounds {', '.join(f'{t * 1000:.1f}' for t in imports)}); "
                  f"server CPU median {statistics.median(import_cpu) * 1000:.1f} ms; state, log and version equal the original's")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        if data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
