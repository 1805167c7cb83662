#!/usr/bin/env bash
# bench-http.sh — the HTTP engine alone vs the Hummingbird 2 peer, same machine, same run.
#
#   scripts/bench-http.sh              # 2 rounds, writes $OUT/report.md (default .build-http/bench/)
#   ROUNDS=3 DURATION=10s scripts/bench-http.sh
#
# Builds `storehouse-bench` (release) and the peer (../shared/peers/hummingbird/hb-counter, copied to
# $HB_DIR because the shared folder is read-only), installs wrk if missing, then per round:
#   storehouse-bench http-server: GET /json (small JSON) and POST /echo (28-byte JSON body echoed)
#   hb-counter: GET /sessions/{id}/state and POST /sessions/{id}/actions (the shared lua scripts)
# each with wrk -t2 -c64 -d$DURATION --latency after a 2 s warm-up, under cpu-account.py for the NOISE
# line, and /proc/loadavg recorded. Then 10,000 idle keep-alive connections against our server for RSS.
# Like-for-like: our GET /json vs the peer's GET state (both a ~100-byte JSON document from memory;
# the peer also routes a path parameter, checks a Bearer token and encodes with JSONEncoder).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
SHARED="${SHARED:-$ROOT/../../shared}"
[ -d "$SHARED/bench" ] || SHARED=/work/shared
ROUNDS="${ROUNDS:-2}"
DURATION="${DURATION:-10s}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
HB_DIR="${HB_DIR:-/tmp/hbpeer/hb-counter}"
OUT="${OUT:-$ROOT/.build-http/bench}"
IDLE_CONNECTIONS="${IDLE_CONNECTIONS:-10000}"
mkdir -p "$OUT"
LOG="$OUT/bench-$(date -u +%Y%m%dT%H%M%SZ).log"
: > "$LOG"
say() { echo "$@" | tee -a "$LOG"; }

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

say "# build storehouse-bench (release)"
swift build -c release --scratch-path .build-http --product storehouse-bench 2>&1 | tail -1
BENCH_BIN="$ROOT/.build-http/release/storehouse-bench"

if [ ! -x "$HB_DIR/.build/release/HBCounter" ]; then
  say "# build Hummingbird peer in $HB_DIR"
  mkdir -p "$(dirname "$HB_DIR")"
  [ -d "$HB_DIR" ] || { cp -r "$SHARED/peers/hummingbird/hb-counter" "$HB_DIR"; chmod -R u+w "$HB_DIR"; }
  (cd "$HB_DIR" && swift build -c release 2>&1 | tail -1)
fi
HB_BIN="$HB_DIR/.build/release/HBCounter"

LUA="$OUT/lua"
mkdir -p "$LUA"
cat > "$LUA/engine-get.lua" <<EOF
wrk.method = "GET"
wrk.path = "/json"
dofile("$SHARED/bench/lua/report.lua")
EOF
cat > "$LUA/engine-post.lua" <<EOF
wrk.method = "POST"
wrk.path = "/echo"
wrk.body = '{"type":"counter/incrTapped"}'
wrk.headers["Content-Type"] = "application/json"
dofile("$SHARED/bench/lua/report.lua")
EOF
export BENCH_LUA_DIR="$SHARED/bench/lua"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; return 1; }

# run_wrk LABEL SERVER_PID URL SCRIPT
run_wrk() {
  local label="$1" pid="$2" url="$3" script="$4"
  WORKLOAD="$label-warmup" wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -s "$script" "$url" >/dev/null
  say "## $label  loadavg: $(cat /proc/loadavg)"
  WORKLOAD="$label" python3 "$SHARED/bench/cpu-account.py" --pid "$pid" -- \
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$script" "$url" 2>&1 | tee -a "$LOG" | grep -E "^(RESULT|NOISE)"
}

for round in $(seq 1 "$ROUNDS"); do
  say "# round $round $(date -u +%FT%TZ)"
  port="$(free_port)"
  "$BENCH_BIN" http-server --port "$port" > "$OUT/engine.out" 2>&1 &
  pid=$!
  wait_port "$port"
  run_wrk "engine-get-json-r$round" "$pid" "http://127.0.0.1:$port" "$LUA/engine-get.lua"
  run_wrk "engine-post-echo-r$round" "$pid" "http://127.0.0.1:$port" "$LUA/engine-post.lua"
  kill -TERM "$pid"; wait "$pid" || say "engine exit status $?"

  # The I/O-model choice: the same GET with one acceptor thread handing connections off.
  port="$(free_port)"
  "$BENCH_BIN" http-server --port "$port" --single-acceptor > "$OUT/engine.out" 2>&1 &
  pid=$!
  wait_port "$port"
  run_wrk "engine-single-acceptor-get-json-r$round" "$pid" "http://127.0.0.1:$port" "$LUA/engine-get.lua"
  kill -TERM "$pid"; wait "$pid" || say "engine exit status $?"

  port="$(free_port)"
  PORT="$port" "$HB_BIN" > "$OUT/hb.out" 2>&1 &
  pid=$!
  wait_port "$port"
  created="$(curl -sS -X POST -H 'Content-Type: application/json' -d '{"kind":"counter"}' "http://127.0.0.1:$port/sessions")"
  read -r SESSION_ID TOKEN < <(printf '%s' "$created" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["id"], d["token"])')
  export SESSION_ID TOKEN
  run_wrk "hb-get-state-r$round" "$pid" "http://127.0.0.1:$port" "$SHARED/bench/lua/state.lua"
  run_wrk "hb-post-action-r$round" "$pid" "http://127.0.0.1:$port" "$SHARED/bench/lua/action.lua"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done

say "# idle connections: $IDLE_CONNECTIONS keep-alive clients, one request each, then held"
port="$(free_port)"
"$BENCH_BIN" http-server --port "$port" --max-connections $((IDLE_CONNECTIONS + 100)) > "$OUT/engine.out" 2>&1 &
pid=$!
wait_port "$port"
python3 - "$port" "$pid" "$IDLE_CONNECTIONS" <<'EOF' | tee -a "$LOG"
import resource, socket, sys, time
port, pid, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1]) * 1024
def fds(): 
    import os; return len(os.listdir(f"/proc/{pid}/fd"))
# Warm the server (thread stacks, buffers) with one connection first.
w = socket.create_connection(("127.0.0.1", port)); w.sendall(b"GET /json HTTP/1.1\r\nHost: b\r\n\r\n"); w.recv(4096); w.close()
time.sleep(0.3)
before = rss()
req = b"GET /json HTTP/1.1\r\nHost: b\r\n\r\n"
socks = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(req)
    socks.append(s)
    if len(socks) % 500 == 0:
        for t in socks[-500:]: t.recv(4096)
for t in socks[len(socks) - len(socks) % 500:]: t.recv(4096)
time.sleep(1.0)
after = rss()
print(f"IDLE connections={n} server_fds={fds()} rss_before={before} rss_after={after} per_connection_bytes={(after - before) // n}")
for s in socks: s.close()
time.sleep(1.0)
print(f"IDLE after-close server_fds={fds()} rss={rss()}")
EOF
kill -TERM "$pid"; wait "$pid" || say "engine exit status $?"

say "# summary"
python3 - "$LOG" "$OUT/report.md" <<'EOF'
import re, statistics, sys, datetime
log, out = sys.argv[1], sys.argv[2]
text = open(log).read()
results, noise, loads = {}, {}, {}
current = None
for line in text.splitlines():
    m = re.match(r"## (\S+)\s+loadavg: (.*)", line)
    if m: current = m.group(1); loads[current] = m.group(2)
    if line.startswith("RESULT "):
        kv = dict(p.split("=", 1) for p in line.split()[1:])
        results[kv["workload"]] = kv
    if line.startswith("NOISE ") and current:
        noise[current] = dict(p.split("=", 1) for p in line.split()[1:])
idle = [l for l in text.splitlines() if l.startswith("IDLE")]
def rounds(prefix):
    return [(k, v) for k, v in sorted(results.items()) if re.fullmatch(prefix + r"-r\d+", k)]
def med(prefix, key):
    vals = [float(v[key]) for _, v in rounds(prefix)]
    return statistics.median(vals) if vals else float("nan")
rows = []
for k, v in sorted(results.items()):
    n = noise.get(k, {})
    rows.append(f"| {k} | {float(v['req_s']):,.0f} | {float(v['p50_ms']):.2f} | {float(v['p99_ms']):.2f} | {v['non2xx']} | {v['sock_errors']} | {n.get('server_cores','?')} | {n.get('other_cores','?')} | {loads.get(k,'?')} |")
pairs = [("I/O model: SO_REUSEPORT listener per loop vs one acceptor handing off (GET /json)", "engine-get-json", "engine-single-acceptor-get-json"),
         ("GET small JSON: engine GET /json vs Hummingbird GET /sessions/{id}/state (like-for-like)", "engine-get-json", "hb-get-state"),
         ("POST: engine POST /echo vs Hummingbird POST /sessions/{id}/actions (not like-for-like: the peer also applies an action)", "engine-post-echo", "hb-post-action")]
summary = []
for title, a, b in pairs:
    ra, rb = med(a, "req_s"), med(b, "req_s")
    pa, pb = med(a, "p99_ms"), med(b, "p99_ms")
    summary.append(f"| {title} | {ra:,.0f} | {rb:,.0f} | **{ra/rb:.2f}×** | {pa:.2f} | {pb:.2f} |")
now = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
doc = f"""# HTTP engine benchmark

Measured {now} by `scripts/bench-http.sh` (log: `{log.split('/')[-1]}` under `.build-http/bench/`):
wrk 4.1, `-t2 -c64 -d10s --latency` after a 2 s warm-up, 127.0.0.1, one 2-core shared machine
(server and wrk on the same cores). Release builds. Engine: `storehouse-bench http-server` (2 I/O threads).
Peer: `../shared/peers/hummingbird/hb-counter` (Hummingbird 2.28.1 on SwiftNIO).

The peer serves a different route set, so the closest like-for-like pair is our small-JSON
`GET /json` (105-byte fixed JSON document) against the peer's `GET /sessions/{{id}}/state` (about the same
JSON from memory, plus a path parameter, a Bearer check, a Mutex and `JSONEncoder`). Our engine's
route does no JSON encoding, so the ratio measures the HTTP layer plus the peer's per-request work.
The POST pair is shown for completeness only.

## Medians over the rounds

| comparison | engine req/s | Hummingbird (or 2nd) req/s | ratio | engine p99 ms | Hummingbird (or 2nd) p99 ms |
|---|---|---|---|---|---|
{chr(10).join(summary)}

## Every run

`server_cores` / `other_cores` come from `cpu-account.py` (NOISE line): the server's CPU and everything
else on the machine during the run; compare runs only at similar `other_cores`.

| run | req/s | p50 ms | p99 ms | non-2xx | socket errors | server cores | other cores | loadavg at start |
|---|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

## Idle connections (RSS)

```
{chr(10).join(idle)}
```
"""
open(out, "w").write(doc)
print(doc)
EOF
