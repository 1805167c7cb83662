#!/usr/bin/env python3
"""bench-health.py — health probes of a server whose connections are all held by SSE streams
(docs/API.md "Lifecycle": beyond --max-connections, health, readiness and metrics are answered):

    python3 scripts/bench-health.py [--bin PATH] [--streams N] [--probes P]

Starts an in-memory release server (swift build -c release) on a free loopback port with
`--max-connections N` (default 1,000), opens N event streams on one session, checks that one more
session request is refused, then times P (default 200) `GET /healthz` on fresh connections, one
at a time, and prints the median and p99 (the target: under 50 ms). Standard library only.
"""
import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import time

from benchlib import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wait_ready(port, server):
    for _ in range(500):
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/readyz")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.02)
    raise SystemExit("the server did not become ready")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/release/storehouse"))
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--probes", type=int, default=200)
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen([args.bin, "--in-memory", "--host", "127.0.0.1", "--port", str(port),
                               "--max-connections", str(args.streams), "--access-log", "false"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    streams = []
    try:
        wait_ready(port, server)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("POST", "/sessions", body=b'{"kind":"counter"}', headers={"Content-Type": "application/json"})
        created = json.loads(conn.getresponse().read())
        conn.close()
        head = (f"GET /sessions/{created['id']}/events HTTP/1.1\r\nHost: x\r\n"
                f"Authorization: Bearer {created['token']}\r\nAccept: text/event-stream\r\n\r\n").encode()
        for _ in range(args.streams):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(head)
            if not s.recv(4096).startswith(b"HTTP/1.1 200"):
                raise SystemExit("a stream was refused before the limit")
            streams.append(s)
        extra = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        extra.request("GET", f"/sessions/{created['id']}/state", headers={"Authorization": f"Bearer {created['token']}"})
        refused = extra.getresponse().status
        extra.close()
        times = []
        for _ in range(args.probes):
            start = time.perf_counter()
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            probe.request("GET", "/healthz")
            status = probe.getresponse().status
            probe.close()
            times.append((time.perf_counter() - start) * 1000)
            if status != 200:
                raise SystemExit(f"/healthz answered {status}")
        times.sort()
        p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
        print(f"{args.streams} streams held, a session request beyond them: {refused}; load {os.getloadavg()[0]:.2f}")
        print(f"/healthz on a fresh connection: median {statistics.median(times):.2f} ms, p99 {p99:.2f} ms, "
              f"max {times[-1]:.2f} ms ({args.probes} probes, every one 200)")
    finally:
        for s in streams:
            s.close()
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
