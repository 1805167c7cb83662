#!/usr/bin/env python3
"""bench-stalled-subscriber.py [BINARY ...] — POST latency on a large state while one SSE subscriber has stopped reading.

Starts each BINARY (default .build/release/storehouse; build it first with
`swift build -c release --product storehouse`) with --in-memory on a free port, creates a `shop`
session holding PRODUCTS products of ~1,000 bytes (default 12,000: a ~12 MB state), opens one
`GET /sessions/{id}/events` whose client never reads (4 KiB receive buffer), then POSTs ACTIONS
(default 60) `shop/add` with `Prefer: return=minimal` one after another on one connection.
Prints per binary the POST latency (p50, p90, max), the server's `storehouse_subscriber_resets_total`
and its RSS (RESULT lines). Several binaries run one after another, so two builds compare in one sitting.
"""
import json, os, socket, statistics, subprocess, sys, time, urllib.request

from benchlib import free_port

binaries = sys.argv[1:] or [os.path.join(os.path.dirname(__file__), "..", ".build", "release", "storehouse")]
products, actions = int(os.environ.get("PRODUCTS", 12_000)), int(os.environ.get("ACTIONS", 60))


def run(binary):
    port = free_port()
    server = subprocess.Popen([binary, "--in-memory", "--port", str(port), "--access-log", "false",
                               "--max-body-bytes", str(64 << 20)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(base + "/healthz")
                break
            except OSError:
                time.sleep(0.05)
        body = json.dumps({"kind": "shop", "state": {"products": [f"{i}" + "p" * 1000 for i in range(products)]}}).encode()
        created = json.load(urllib.request.urlopen(urllib.request.Request(
            base + "/sessions", data=body, headers={"Content-Type": "application/json"})))
        sid, token = created["id"], created["token"]
        stalled = socket.socket()
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.connect(("127.0.0.1", port))
        stalled.sendall(f"GET /sessions/{sid}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        conn = socket.create_connection(("127.0.0.1", port))

        def post(i):
            payload = json.dumps({"type": "shop/add", "payload": f"item{i}"}).encode()
            conn.sendall(f"POST /sessions/{sid}/actions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                         f"Prefer: return=minimal\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n".encode() + payload)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, rest = data.split(b"\r\n\r\n", 1)
            length = int(next(l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")))
            while len(rest) < length:
                rest += conn.recv(65536)

        latencies = []
        for i in range(actions):
            started = time.perf_counter()
            post(i)
            latencies.append((time.perf_counter() - started) * 1e3)
        metrics = urllib.request.urlopen(base + "/metrics").read().decode()
        resets = next(l.split()[1] for l in metrics.splitlines() if l.startswith("storehouse_subscriber_resets_total"))
        rss = next(int(l.split()[1]) for l in open(f"/proc/{server.pid}/status") if l.startswith("VmRSS"))
        latencies.sort()
        print(f"RESULT binary={binary} post_p50_ms={statistics.median(latencies):.2f} "
              f"post_p90_ms={latencies[int(len(latencies) * 0.9)]:.2f} post_max_ms={latencies[-1]:.2f} "
              f"resets={resets} rss_mib={rss >> 10}", flush=True)
    finally:
        server.terminate()
        server.wait()


for b in binaries:
    run(b)
