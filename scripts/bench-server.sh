#!/usr/bin/env bash
# bench-server.sh [ROUNDS] — the session API under load, beside the Hummingbird peer, in one run.
#
# Builds storehouse and ../shared/peers/hummingbird in release, then for each round (default 2):
#   storehouse --in-memory, then the peer: ../shared/bench/http-bench.sh (POST counter/incrTapped and
#   GET state, 64 connections, 10 s) under cpu-account.py;
#   storehouse --fsync always | batch | never on a fresh data dir: POST only.
# Then ../shared/bench/redis-anchor.sh once, with its AOF on the same filesystem as the journal.
# Installs wrk, redis-server and curl if missing. Output: stdout and bench-results/server-<time>.log.
set -euo pipefail
ROUNDS="${1:-2}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/../shared/bench"
# The shared folder is read-only, so the peer is built in a copy (as scripts/bench-http.sh does).
PEER="${HB_DIR:-/tmp/hbpeer/hb-counter}"
[ -d "$PEER" ] || { mkdir -p "$(dirname "$PEER")"; cp -r "$ROOT/../shared/peers/hummingbird/hb-counter" "$PEER"; chmod -R u+w "$PEER"; }
mkdir -p "$ROOT/bench-results"
LOG="$ROOT/bench-results/server-$(date -u +%Y%m%dT%H%M%SZ).log"

need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need wrk wrk; need redis-server redis-server; need curl curl

(cd "$ROOT" && swift build -c release --product storehouse) >&2
[ -x "$PEER/.build/release/HBCounter" ] || (cd "$PEER" && swift build -c release) >&2
SERVER="$ROOT/.build/release/storehouse"
HB="$PEER/.build/release/HBCounter"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
SPID=""
stop() { if [ -n "$SPID" ] && kill -0 "$SPID" 2>/dev/null; then kill "$SPID"; wait "$SPID" 2>/dev/null || true; fi; SPID=""; }
trap stop EXIT
wait_up() { for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$1/healthz" && return 0; sleep 0.05; done; echo "server on $1 did not start" >&2; return 1; }
run() { # label port workloads
  echo "### $1 loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
  WORKLOADS="$3" python3 "$BENCH/cpu-account.py" --pid "$SPID" -- "$BENCH/http-bench.sh" "http://127.0.0.1:$2" | grep -E '^(RESULT|NOISE)' | sed "s/^/$1 /"
}

{
  echo "# bench-server $(date -u +%FT%TZ) $(nproc) cores, $(uname -r)"
  for round in $(seq "$ROUNDS"); do
    port=$(free_port); "$SERVER" --in-memory --port "$port" --access-log false 2>/dev/null & SPID=$!; wait_up "$port"
    run "storehouse-memory-r$round" "$port" "post get"; stop
    port=$(free_port); PORT="$port" "$HB" >/dev/null 2>&1 & SPID=$!; wait_up "$port"
    run "hummingbird-r$round" "$port" "post get"; stop
    for mode in always batch never; do
      dir=$(mktemp -d "$ROOT/bench-results/data.XXXXXX")
      port=$(free_port); "$SERVER" --data-dir "$dir" --fsync "$mode" --port "$port" --access-log false 2>/dev/null & SPID=$!; wait_up "$port"
      run "storehouse-fsync-$mode-r$round" "$port" "post"; stop
      echo "storehouse-fsync-$mode-r$round disk_bytes=$(du -sb "$dir" | cut -f1)"
      rm -rf "$dir"
    done
  done
  DATA_DIR="$(mktemp -d "$ROOT/bench-results/redis.XXXXXX")" "$BENCH/redis-anchor.sh" 2>&1 | tail -n 20
} 2>&1 | tee "$LOG"
