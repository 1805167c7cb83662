#!/usr/bin/env bash
# bench-fanout-durable.sh ROUNDS SERVER... — a large fan-out under --fsync always, beside other clients.
#
# Per round, for each SERVER binary in turn (builds alternated): starts it with a fresh data
# directory and `--fsync always` (the default), runs `storehouse-bench sse-fanout` (SUBSCRIBERS,
# default 10000, on one session; ACTIONS, default 120, at RATE, default 5/s) and, 6 s in, wrk on
# another session for 10 s (`../shared/bench/http-bench.sh`, CONNECTIONS default 16, POST
# counter/incrTapped). Prints per run: the other session's req/s, p50 and p99, and the fan-out's
# delivery p99 and its own POSTs' p50 (how long the client posting to the big session waits for
# its answer). Holds BENCH_LOCK (default /tmp/bench.lock) per run.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 ROUNDS SERVER..." >&2; exit 2; }
ROUNDS=$1; shift
SUBSCRIBERS="${SUBSCRIBERS:-10000}"
ACTIONS="${ACTIONS:-120}"
RATE="${RATE:-5}"
CONNECTIONS="${CONNECTIONS:-16}"
BENCH_LOCK="${BENCH_LOCK:-/tmp/bench.lock}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/../shared/bench"
[ -d "$BENCH" ] || BENCH=/work/shared/bench
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
(cd "$ROOT" && swift build -c release --product storehouse-bench) >&2
CLIENT="$ROOT/.build/release/storehouse-bench"
ulimit -n "$(ulimit -Hn)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
OUT=$(mktemp)
DATA=""
trap 'rm -f "$OUT"; [ -n "$DATA" ] && rm -rf "$DATA"' EXIT
for _ in $(seq "$ROUNDS"); do
  for server in "$@"; do
    exec 9>"$BENCH_LOCK"; flock 9
    port=$(free_port); DATA=$(mktemp -d)
    "$server" --data-dir "$DATA" --fsync always --port "$port" --access-log false --max-connections $((SUBSCRIBERS * 2)) >/dev/null 2>&1 & spid=$!
    for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.05; done
    "$CLIENT" sse-fanout "http://127.0.0.1:$port" -n "$SUBSCRIBERS" -m "$ACTIONS" -r "$RATE" > "$OUT" 2>&1 & cpid=$!
    sleep 6
    other=$(CONNECTIONS=$CONNECTIONS DURATION=10s WARMUP=1s WORKLOADS=post bash "$BENCH/http-bench.sh" "http://127.0.0.1:$port" 2>/dev/null \
      | grep RESULT | grep -oE 'req_s=[0-9]+|p50_ms=[0-9.]+|p99_ms=[0-9.]+' | tr '\n' ' ')
    wait "$cpid" || true
    kill "$spid"; wait "$spid" 2>/dev/null || true
    rm -rf "$DATA"; DATA=""
    flock -u 9; exec 9>&-
    fanout=$(grep RESULT "$OUT" | grep -oE ' p99_ms=[0-9.]+| missed=[0-9]+| post_p50_ms=[0-9.]+' | tr -d '\n')
    echo "$server  other session: ${other}| fan-out:$fanout"
  done
done
