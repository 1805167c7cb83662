#!/usr/bin/env python3
"""probe-memory.py [BINARY] — a hostile memory probe against --max-memory.

Starts BINARY (default .build/release/storehouse; build it first with
`swift build -c release --product storehouse`) on a free port with a data directory of its own,
--max-memory MAX_MEMORY (default 268435456, 256 MiB) and --max-action-bytes 2 MiB (so the probe's
actions pass and only the budget stands in their way), then:

  SESSIONS (default 16) counter sessions; THREADS (default 16) clients send POSTS (default 20)
  `counter/incrTapped` actions per session, each with a `meta` array of numbers just under 1 MB
  (the largest body the default --max-body-bytes takes); after every POST the same client reads
  the session's state. RSS is sampled every 20 ms from /proc.

then stops the server (SIGTERM), starts it again on the same data and samples RSS until /readyz
answers 200 and for one second more. Prints RESULT lines: writes accepted and refused (by status and
problem type), reads answered and failed, peak RSS during the writes and during the restart, against
the budget.
"""
import http.client, json, os, shutil, signal, socket, subprocess, sys, tempfile, threading, time
from collections import Counter

binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".build", "release", "storehouse")
budget = int(os.environ.get("MAX_MEMORY", 256 << 20))
sessions_n = int(os.environ.get("SESSIONS", 16))
posts = int(os.environ.get("POSTS", 20))
threads_n = int(os.environ.get("THREADS", 16))
data = tempfile.mkdtemp(prefix="probe-memory-")
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]

# `[1,1,...,1]` just under 1 MB: half a million JSON values, the costliest shape per byte.
meta = "[" + ",".join(["1"] * 520_000) + "]"
body = '{"type":"counter/incrTapped","meta":' + meta + "}"
assert len(body) < 1 << 20

def start():
    return subprocess.Popen([binary, "--port", str(port), "--data-dir", data, "--fsync", "batch",
                             "--max-memory", str(budget), "--max-action-bytes", str(2 << 20),
                             "--max-sessions", str(max(100_000, sessions_n)), "--access-log", "false"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def rss(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return int(next(l for l in f if l.startswith("VmRSS")).split()[1]) * 1024
    except (OSError, StopIteration):
        return 0

class Sampler(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True); self.pid, self.peak, self.stop = pid, 0, False
    def run(self):
        while not self.stop:
            self.peak = max(self.peak, rss(self.pid)); time.sleep(0.02)

def request(conn, method, path, body=None, headers={}):
    conn.request(method, path, body=body, headers=headers)
    answer = conn.getresponse(); payload = answer.read()
    return answer.status, payload

def wait_ready():
    for _ in range(1200):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            if request(conn, "GET", "/readyz")[0] == 200: return conn
        except OSError:
            pass
        time.sleep(0.05)
    sys.exit("the server did not become ready")

mib = lambda b: b / (1 << 20)
server = start()
try:
    conn = wait_ready()
    sampler = Sampler(server.pid); sampler.start()
    sessions = []
    creations = Counter()
    for _ in range(sessions_n):
        status, payload = request(conn, "POST", "/sessions", body='{"kind":"counter"}')
        creations[status] += 1
        if status == 201: sessions.append(json.loads(payload))
    print(f"# probe-memory: budget {mib(budget):.0f} MiB, {sessions_n} sessions x {posts} POSTs of {len(body):,} bytes, "
          f"{threads_n} clients; RSS at start {mib(rss(server.pid)):.0f} MiB; load {os.getloadavg()[0]:.2f}")
    writes, reads, lock = Counter(), Counter(), threading.Lock()
    def client(mine):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for _ in range(posts):
            for session in mine:
                auth = {"Authorization": "Bearer " + session["token"]}
                status, payload = request(c, "POST", f"/sessions/{session['id']}/actions", body=body, headers=auth)
                kind = json.loads(payload).get("type", "") if status >= 400 else ""
                read, _ = request(c, "GET", f"/sessions/{session['id']}/state", headers=auth)
                with lock:
                    writes[(status, kind)] += 1; reads[read] += 1
    started = time.time()
    workers = [threading.Thread(target=client, args=(sessions[i::threads_n],)) for i in range(min(threads_n, len(sessions)))]
    for w in workers: w.start()
    for w in workers: w.join()
    elapsed = time.time() - started
    time.sleep(1.5)  # one heartbeat: the budget's once-a-second settlement
    settled = rss(server.pid)
    sampler.stop = True; sampler.join()
    status, metrics = request(conn, "GET", "/metrics")
    accounted = next((int(l.split()[1]) for l in metrics.decode().splitlines() if l.startswith("storehouse_memory_accounted_bytes")), -1)
    for (status, kind), n in sorted(writes.items()):
        print(f"RESULT writes status={status} type={kind or '-'} count={n}")
    print(f"RESULT creations {dict(creations)}")
    print(f"RESULT reads ok={reads[200]} failed={sum(reads.values()) - reads[200]}")
    print(f"RESULT live peak_rss_mib={mib(sampler.peak):.0f} settled_rss_mib={mib(settled):.0f} accounted_mib={mib(accounted):.0f} "
          f"budget_mib={mib(budget):.0f} peak_over_budget={sampler.peak / budget:.2f} seconds={elapsed:.1f}")
    server.send_signal(signal.SIGTERM); server.wait(timeout=60)
    server = start()
    sampler = Sampler(server.pid); sampler.start()
    started = time.time()
    conn = wait_ready()
    ready = time.time() - started
    time.sleep(1.0)
    sampler.stop = True; sampler.join()
    session = sessions[0] if sessions else None
    read = request(conn, "GET", f"/sessions/{session['id']}/state", headers={"Authorization": "Bearer " + session["token"]})[0] if session else 0
    print(f"RESULT restart peak_rss_mib={mib(sampler.peak):.0f} rss_mib={mib(rss(server.pid)):.0f} budget_mib={mib(budget):.0f} "
          f"peak_over_budget={sampler.peak / budget:.2f} ready_seconds={ready:.1f} read_after_restart={read}")
finally:
    server.terminate(); server.wait()
    shutil.rmtree(data, ignore_errors=True)
