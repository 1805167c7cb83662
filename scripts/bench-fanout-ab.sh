#!/usr/bin/env bash
# bench-fanout-ab.sh ROUNDS SERVER... — builds alternated at one large fan-out, where the p99 alone
# follows this shared machine's noise.
#
# Per round, for each SERVER binary in turn: starts it, runs `storehouse-bench sse-fanout`
# (SUBSCRIBERS, default 10000, on one session; ACTIONS at RATE, default 5/s) and, from 6 s in:
#   default      in memory; over 10 s reads the server's CPU from /proc/PID/stat and the whole
#                machine's from /proc/stat. Prints the delivery p50 / p99, then per change (ms of
#                CPU): the server, the machine's busy time, and of that softirq, user, system and
#                steal (time the hypervisor gave to other guests: the p99 follows it).
#                ACTIONS default 100 (the changes must go on past 16 s).
#   DURABLE=1    a fresh data directory and `--fsync always` (the default); wrk on another session
#                for 10 s (`../shared/bench/http-bench.sh`, CONNECTIONS default 16, POST
#                counter/incrTapped). Prints that session's req/s, p50 and p99, then the fan-out's
#                delivery p99 and its own POSTs' p50 (how long a client posting to the big session
#                waits for its answer). ACTIONS default 120.
# Holds BENCH_LOCK (default /tmp/bench.lock) per run.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: [DURABLE=1] $0 ROUNDS SERVER..." >&2; exit 2; }
ROUNDS=$1; shift
DURABLE="${DURABLE:-0}"
SUBSCRIBERS="${SUBSCRIBERS:-10000}"
ACTIONS="${ACTIONS:-$([ "$DURABLE" = 1 ] && echo 120 || echo 100)}"
RATE="${RATE:-5}"
CONNECTIONS="${CONNECTIONS:-16}"
BENCH_LOCK="${BENCH_LOCK:-/tmp/bench.lock}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/../shared/bench"
[ -d "$BENCH" ] || BENCH=/work/shared/bench
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }
if [ "$DURABLE" = 1 ]; then command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }; fi
(cd "$ROOT" && swift build -c release --product storehouse-bench) >&2
CLIENT="$ROOT/.build/release/storehouse-bench"
ulimit -n "$(ulimit -Hn)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
OUT=$(mktemp)
DATA=""
trap 'rm -f "$OUT"; [ -n "$DATA" ] && rm -rf "$DATA"' EXIT

cpu_per_change() { # server a b stat-a stat-b result
  python3 - "$@" "$RATE" <<'PY'
import os, sys
server, a, b, sa, sb, result, rate = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], float(sys.argv[7])
d = [y - x for x, y in zip(map(int, sa.split()[1:9]), map(int, sb.split()[1:9]))]
ms = lambda ticks: ticks * 1000 / os.sysconf("SC_CLK_TCK") / (10 * rate)
print(f"{server}{result}  per change: server {ms(b - a):.0f} ms, machine busy {ms(sum(d) - d[3] - d[4]):.0f}"
      f" (softirq {ms(d[6]):.0f}, user {ms(d[0]):.0f}, system {ms(d[2]):.0f}), steal {ms(d[7]):.0f}")
PY
}

for _ in $(seq "$ROUNDS"); do
  for server in "$@"; do
    exec 9>"$BENCH_LOCK"; flock 9
    port=$(free_port)
    if [ "$DURABLE" = 1 ]; then DATA=$(mktemp -d); storage=(--data-dir "$DATA" --fsync always); else storage=(--in-memory); fi
    "$server" "${storage[@]}" --port "$port" --access-log false --max-connections $((SUBSCRIBERS * 2)) >/dev/null 2>&1 & spid=$!
    for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.05; done
    "$CLIENT" sse-fanout "http://127.0.0.1:$port" -n "$SUBSCRIBERS" -m "$ACTIONS" -r "$RATE" > "$OUT" 2>&1 & cpid=$!
    # Subscribers connect and get their snapshots first; the window sits among the changes.
    sleep 6
    if [ "$DURABLE" = 1 ]; then
      other=$(CONNECTIONS=$CONNECTIONS DURATION=10s WARMUP=1s WORKLOADS=post bash "$BENCH/http-bench.sh" "http://127.0.0.1:$port" 2>/dev/null \
        | grep RESULT | grep -oE 'req_s=[0-9]+|p50_ms=[0-9.]+|p99_ms=[0-9.]+' | tr '\n' ' ')
    else
      a=$(awk '{print $14 + $15}' "/proc/$spid/stat"); sa=$(head -1 /proc/stat)
      sleep 10
      b=$(awk '{print $14 + $15}' "/proc/$spid/stat"); sb=$(head -1 /proc/stat)
    fi
    wait "$cpid" || true
    kill "$spid"; wait "$spid" 2>/dev/null || true
    [ -n "$DATA" ] && { rm -rf "$DATA"; DATA=""; }
    flock -u 9; exec 9>&-
    if [ "$DURABLE" = 1 ]; then
      echo "$server  other session: ${other}| fan-out:$(grep RESULT "$OUT" | grep -oE ' p99_ms=[0-9.]+| missed=[0-9]+| post_p50_ms=[0-9.]+' | tr -d '\n')"
    else
      cpu_per_change "$server" "$a" "$b" "$sa" "$sb" "$(grep RESULT "$OUT" | grep -oE ' p50_ms=[0-9.]+| p99_ms=[0-9.]+| missed=[0-9]+' | tr -d '\n')"
    fi
  done
done
