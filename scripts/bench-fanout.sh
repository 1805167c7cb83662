#!/usr/bin/env bash
# bench-fanout.sh [SUBSCRIBERS...] — SSE fan-out of one session (default: 1000 10000 subscribers).
#
# For each count: starts storehouse --in-memory (release), reads its RSS, runs
# ../shared/bench/sse-fanout.py (200 actions at 20/s) while sampling the server's RSS every 100 ms,
# and prints the fan-out figures with the RSS per subscriber (peak RSS during the run minus the
# baseline, over the subscriber count). Then the Hummingbird peer at the first count, for comparison.
# --max-connections 20000: 10,000 subscribers plus the posting connections exceed the default 10,000.
# Output: stdout and bench-results/fanout-<time>.log.
set -euo pipefail
COUNTS=("${@:-1000 10000}")
[ $# -eq 0 ] && COUNTS=(1000 10000)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/../shared/bench"
# The shared folder is read-only, so the peer is built in a copy (as scripts/bench-http.sh does).
PEER="${HB_DIR:-/tmp/hbpeer/hb-counter}"
[ -d "$PEER" ] || { mkdir -p "$(dirname "$PEER")"; cp -r "$ROOT/../shared/peers/hummingbird/hb-counter" "$PEER"; chmod -R u+w "$PEER"; }
mkdir -p "$ROOT/bench-results"
LOG="$ROOT/bench-results/fanout-$(date -u +%Y%m%dT%H%M%SZ).log"
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }
ulimit -n "$(ulimit -Hn)"

(cd "$ROOT" && swift build -c release --product storehouse) >&2
[ -x "$PEER/.build/release/HBCounter" ] || (cd "$PEER" && swift build -c release) >&2
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
SPID=""
stop() { if [ -n "$SPID" ] && kill -0 "$SPID" 2>/dev/null; then kill "$SPID"; wait "$SPID" 2>/dev/null || true; fi; SPID=""; }
trap stop EXIT

measure() { # label count command...
  local label=$1 count=$2; shift 2
  "$@" >/dev/null 2>&1 & SPID=$!
  local port=$PORT
  for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.05; done
  local base; base=$(rss_kib "$SPID"); local peak=$base
  python3 "$BENCH/cpu-account.py" --pid "$SPID" -- python3 "$BENCH/sse-fanout.py" "http://127.0.0.1:$port" -n "$count" -m 200 -r 20 > "$LOG.tmp" 2>&1 &
  local client=$!
  while kill -0 "$client" 2>/dev/null; do
    local now; now=$(rss_kib "$SPID" || echo 0); [ "${now:-0}" -gt "$peak" ] && peak=$now
    sleep 0.1
  done
  wait "$client" || true
  grep -vE '^\s*$' "$LOG.tmp" | tail -n 12 | sed "s/^/$label /"
  echo "$label RESULT rss_base_kib=$base rss_peak_kib=$peak rss_per_subscriber_kib=$(python3 -c "print(round(($peak-$base)/$count, 2))")"
  stop
}

{
  echo "# bench-fanout $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
  for n in "${COUNTS[@]}"; do
    PORT=$(free_port); measure "storehouse-n$n" "$n" "$ROOT/.build/release/storehouse" --in-memory --port "$PORT" --access-log false --max-connections 20000
  done
  PORT=$(free_port); export PORT; measure "hummingbird-n${COUNTS[0]}" "${COUNTS[0]}" "$PEER/.build/release/HBCounter"
} 2>&1 | tee "$LOG"
rm -f "$LOG.tmp"
