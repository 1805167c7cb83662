#!/usr/bin/env bash
# bench-mixed.sh [ROUNDS] BIN... — reads and writes on one session at once, under --fsync always:
# what a GET of the state costs when it waits for the journal (a read of a head still on its way
# to the journal is answered once that version is durable).
#
# Per round and binary (interleaved, so each comparison is seconds apart on this shared machine):
# a fresh data directory, `BIN --fsync always`, one counter session, then two wrk runs at once for
# DURATION (default 5s): POST counter/incrTapped on WRITERS connections (default 32) and GET state on
# READERS connections (default 32), each -t1, with the shared lua scripts. Prints req/s, p50 and p99
# of both. BINs default to this tree's release build. Holds BENCH_LOCK (default /tmp/bench.lock).
# Installs wrk and curl if missing.
set -euo pipefail
ROUNDS="${1:-3}"; shift || true
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/../shared/bench"
DURATION="${DURATION:-5s}"; WRITERS="${WRITERS:-32}"; READERS="${READERS:-32}"
BENCH_LOCK="${BENCH_LOCK-/tmp/bench.lock}"
BINS=("$@")
if [ ${#BINS[@]} -eq 0 ]; then
  (cd "$ROOT" && swift build -c release --product storehouse) >&2
  BINS=("$ROOT/.build/release/storehouse")
fi
need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need wrk wrk; need curl curl
if [ -n "$BENCH_LOCK" ] && [ -z "${BENCH_MIXED_LOCKED:-}" ]; then
  exec env BENCH_MIXED_LOCKED=1 flock "$BENCH_LOCK" "$0" "$ROUNDS" "${BINS[@]}"
fi
export BENCH_LUA_DIR="$BENCH/lua"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
summary() { awk '/Requests\/sec/ {r=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {printf "%s req/s p50 %s p99 %s", r, p50, p99}'; }
echo "# bench-mixed $(date -u +%FT%TZ) $(nproc) cores, loadavg $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS rounds, $WRITERS writers + $READERS readers, $DURATION"
for round in $(seq "$ROUNDS"); do
  for bin in "${BINS[@]}"; do
    dir=$(mktemp -d); "$bin" --data-dir "$dir" --fsync always --port "$port" --access-log false 2>/dev/null & pid=$!
    for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.05; done
    read -r SESSION_ID TOKEN < <(curl -s -X POST -d '{"kind":"counter"}' "http://127.0.0.1:$port/sessions" |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["id"], d["token"])')
    export SESSION_ID TOKEN
    WORKLOAD=post wrk -t1 -c"$WRITERS" -d"$DURATION" --latency -s "$BENCH/lua/action.lua" "http://127.0.0.1:$port" > "$dir/post.txt" & writer=$!
    WORKLOAD=get wrk -t1 -c"$READERS" -d"$DURATION" --latency -s "$BENCH/lua/state.lua" "http://127.0.0.1:$port" > "$dir/get.txt"
    wait "$writer"
    echo "r$round $bin  POST $(summary < "$dir/post.txt")  GET $(summary < "$dir/get.txt")"
    kill "$pid"; wait "$pid" 2>/dev/null || true; rm -rf "$dir"
  done
done
