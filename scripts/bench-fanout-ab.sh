#!/usr/bin/env bash
# bench-fanout-ab.sh ROUNDS SERVER... — the CPU one change costs at 10,000 subscribers, builds alternated.
#
# For a before/after of the fan-out path, where the p99 alone follows this shared machine's noise.
# Per round, for each SERVER binary in turn: starts it in memory, runs `storehouse-bench sse-fanout`
# (SUBSCRIBERS, default 10000; ACTIONS, default 100, at RATE, default 5/s: the changes must go on past
# 16 s) and, over the 10 s from 6 s into the run, reads the server's CPU from /proc/PID/stat and the whole machine's from /proc/stat.
# Prints one line per run: the delivery p50 / p99, then per change (milliseconds of CPU): the server,
# the whole machine's busy time, and of that softirq, user, system and steal (time the hypervisor
# gave to other guests: the p99 follows it). Holds BENCH_LOCK (default /tmp/bench.lock) per run.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 ROUNDS SERVER..." >&2; exit 2; }
ROUNDS=$1; shift
SUBSCRIBERS="${SUBSCRIBERS:-10000}"
ACTIONS="${ACTIONS:-100}"
RATE="${RATE:-5}"
BENCH_LOCK="${BENCH_LOCK:-/tmp/bench.lock}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }
(cd "$ROOT" && swift build -c release --product storehouse-bench) >&2
CLIENT="$ROOT/.build/release/storehouse-bench"
ulimit -n "$(ulimit -Hn)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
for _ in $(seq "$ROUNDS"); do
  for server in "$@"; do
    exec 9>"$BENCH_LOCK"; flock 9
    port=$(free_port)
    "$server" --in-memory --port "$port" --access-log false --max-connections $((SUBSCRIBERS * 2)) >/dev/null 2>&1 & spid=$!
    for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.05; done
    "$CLIENT" sse-fanout "http://127.0.0.1:$port" -n "$SUBSCRIBERS" -m "$ACTIONS" -r "$RATE" > "$OUT" 2>&1 & cpid=$!
    # Subscribers connect and get their snapshots first; the window sits among the changes.
    sleep 6
    a=$(awk '{print $14 + $15}' "/proc/$spid/stat"); sa=$(head -1 /proc/stat)
    sleep 10
    b=$(awk '{print $14 + $15}' "/proc/$spid/stat"); sb=$(head -1 /proc/stat)
    wait "$cpid" || true
    kill "$spid"; wait "$spid" 2>/dev/null || true
    flock -u 9; exec 9>&-
    result=$(grep RESULT "$OUT" | grep -oE ' p50_ms=[0-9.]+| p99_ms=[0-9.]+| missed=[0-9]+' | tr -d '\n')
    python3 - "$a" "$b" "$sa" "$sb" "$server" "$result" "$RATE" <<'PY'
import os, sys
a, b = float(sys.argv[1]), float(sys.argv[2])
sa = list(map(int, sys.argv[3].split()[1:9])); sb = list(map(int, sys.argv[4].split()[1:9]))
d = [y - x for x, y in zip(sa, sb)]
hz = os.sysconf("SC_CLK_TCK")
changes = 10 * float(sys.argv[7])
ms = lambda ticks: ticks * 1000 / hz / changes
print(f"{sys.argv[5]}{sys.argv[6]}  per change: server {ms(b - a):.0f} ms, machine busy {ms(sum(d) - d[3] - d[4]):.0f}"
      f" (softirq {ms(d[6]):.0f}, user {ms(d[0]):.0f}, system {ms(d[2]):.0f}), steal {ms(d[7]):.0f}")
PY
  done
done
