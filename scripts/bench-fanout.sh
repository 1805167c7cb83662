#!/usr/bin/env bash
# bench-fanout.sh [SUBSCRIBERS...] — SSE fan-out of one session (default: 1000 10000 subscribers).
#
# For each count and client: starts storehouse --in-memory (release), reads its RSS, runs the client
# (ACTIONS actions at RATE/s, default 200 at 20/s) under ../shared/bench/cpu-account.py while sampling
# the server's RSS every 100 ms, and prints the fan-out figures with the RSS per subscriber (peak RSS
# during the run minus the baseline, over the subscriber count). Then the Hummingbird peer at the
# first count with the Python client, for comparison (PEER=0 skips it).
#
# Clients (CLIENT=auto|python|swift|both, default auto):
#   python  ../shared/bench/sse-fanout.py, the shared tool (one asyncio loop: it cannot parse the
#           200,000 events/s of 10,000 subscribers at 20 actions/s, so its figure there is its own)
#   swift   storehouse-bench sse-fanout, the same measurement and RESULT keys with the subscribers
#           read by THREADS epoll threads (default 2)
#   auto    python below 10,000 subscribers, swift from 10,000 on
# Quiet wait: after taking the lock, each measurement waits (up to QUIET_WAIT s, default 120; 0 = off)
# until the machine's busy cores over 2 s fall below QUIET_BUSY (default 0.3): builds and tests that
# do not take the lock still share the two cores. other_cores in the NOISE line says how quiet it was.
# SERVER=path/to/storehouse measures that binary instead of this tree's build (e.g. an older commit's,
# for a before/after with the same client); the Hummingbird peer is PEER=1 (default) at the first count.
# Knobs: ACTIONS RATE RUNS (runs per count and client, default 1) THREADS SWIFT_ARGS (more flags for
# the Swift client, e.g. --sched-normal) SCRATCH (build dir, default
# .build) BENCH_LOCK (default /tmp/bench.lock: each measurement holds it, so benchmarks sharing the
# machine never overlap; do not wrap this script in flock on the same file).
# NETNS=1 runs everything in a fresh network namespace, loopback only (scripts/netns.sh says why).
# --max-connections 20000: 10,000 subscribers plus the posting connections exceed the default 10,000.
# Output: stdout and bench-results/fanout-<time>.log.
set -euo pipefail
COUNTS=("$@")
[ $# -eq 0 ] && COUNTS=(1000 10000)
CLIENT="${CLIENT:-auto}"
ACTIONS="${ACTIONS:-200}"
RATE="${RATE:-20}"
RUNS="${RUNS:-1}"
THREADS="${THREADS:-2}"
SWIFT_ARGS="${SWIFT_ARGS:-}"
PEER_RUN="${PEER:-1}"
QUIET_WAIT="${QUIET_WAIT:-120}"
QUIET_BUSY="${QUIET_BUSY:-0.3}"
BENCH_LOCK="${BENCH_LOCK-/tmp/bench.lock}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRATCH="${SCRATCH:-$ROOT/.build}"
BENCH="$ROOT/../shared/bench"
[ -d "$BENCH" ] || BENCH=/work/shared/bench
# The shared folder is read-only, so the peer is built in a copy (as scripts/bench-http.sh does).
PEER="${HB_DIR:-/tmp/hbpeer/hb-counter}"
mkdir -p "$ROOT/bench-results"
LOG="$ROOT/bench-results/fanout-$(date -u +%Y%m%dT%H%M%SZ).log"
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }
ulimit -n "$(ulimit -Hn)"

(cd "$ROOT" && swift build -c release --scratch-path "$SCRATCH" --product storehouse && \
  swift build -c release --scratch-path "$SCRATCH" --product storehouse-bench) >&2
if [ "$PEER_RUN" = 1 ]; then
  [ -d "$PEER" ] || { mkdir -p "$(dirname "$PEER")"; cp -r "$BENCH/../peers/hummingbird/hb-counter" "$PEER"; chmod -R u+w "$PEER"; }
  [ -x "$PEER/.build/release/HBCounter" ] || (cd "$PEER" && swift build -c release) >&2
fi
. "$ROOT/scripts/netns.sh" "$@"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
SPID=""
stop() { if [ -n "$SPID" ] && kill -0 "$SPID" 2>/dev/null; then kill "$SPID"; wait "$SPID" 2>/dev/null || true; fi; SPID=""; }
trap stop EXIT

client_cmd() { # client count port
  case $1 in
    python) echo python3 "$BENCH/sse-fanout.py" "http://127.0.0.1:$3" -n "$2" -m "$ACTIONS" -r "$RATE" ;;
    swift) echo "$SCRATCH/release/storehouse-bench" sse-fanout "http://127.0.0.1:$3" -n "$2" -m "$ACTIONS" -r "$RATE" --threads "$THREADS" $SWIFT_ARGS ;;
  esac
}

busy_cores() { # CPU busy over 2 s, in cores (everything on the machine)
  python3 -c '
import time
def busy():
    v = list(map(int, open("/proc/stat").readline().split()[1:9]))
    return sum(v) - v[3] - v[4], sum(v)
b0, t0 = busy(); time.sleep(2); b1, t1 = busy()
import os; print(round((b1 - b0) / (t1 - t0) * os.cpu_count(), 2))'
}

wait_quiet() {
  [ "$QUIET_WAIT" -gt 0 ] || return 0
  local deadline=$((SECONDS + QUIET_WAIT)) busy
  while :; do
    busy=$(busy_cores)
    awk "BEGIN { exit !($busy < $QUIET_BUSY) }" && return 0
    [ $SECONDS -ge "$deadline" ] && { echo "# still $busy busy cores after ${QUIET_WAIT}s; measuring anyway"; return 0; }
  done
}

measure() { # label count client server-command...
  local label=$1 count=$2 client=$3; shift 3
  if [ -n "$BENCH_LOCK" ]; then exec 9>"$BENCH_LOCK"; flock 9; fi
  wait_quiet
  "$@" >/dev/null 2>&1 & SPID=$!
  local port=$PORT
  for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.05; done
  local base; base=$(rss_kib "$SPID"); local peak=$base
  # shellcheck disable=SC2046
  python3 "$BENCH/cpu-account.py" --pid "$SPID" -- $(client_cmd "$client" "$count" "$port") > "$LOG.tmp" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    local now; now=$(rss_kib "$SPID" || echo 0); [ "${now:-0}" -gt "$peak" ] && peak=$now
    sleep 0.1
  done
  wait "$pid" || true
  stop
  if [ -n "$BENCH_LOCK" ]; then flock -u 9; exec 9>&-; fi
  grep -vE '^\s*$' "$LOG.tmp" | tail -n 13 | sed "s/^/$label /"
  echo "$label RESULT rss_base_kib=$base rss_peak_kib=$peak rss_per_subscriber_kib=$(python3 -c "print(round(($peak-$base)/$count, 2))")"
}

clients_for() { # count
  case $CLIENT in
    auto) if [ "$1" -ge 10000 ]; then echo swift; else echo python; fi ;;
    both) echo python swift ;;
    *) echo "$CLIENT" ;;
  esac
}

{
  trap stop EXIT
  echo "# bench-fanout $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg) actions=$ACTIONS rate=$RATE runs=$RUNS netns=${BENCH_IN_NETNS:-0} server=${SERVER:-$SCRATCH/release/storehouse} $(git -C "$ROOT" rev-parse --short HEAD)"
  for n in "${COUNTS[@]}"; do
    for client in $(clients_for "$n"); do
      for r in $(seq "$RUNS"); do
        PORT=$(free_port); measure "storehouse-n$n-$client-r$r" "$n" "$client" \
          "${SERVER:-$SCRATCH/release/storehouse}" --in-memory --port "$PORT" --access-log false --max-connections 20000
      done
    done
  done
  if [ "$PEER_RUN" = 1 ]; then
    PORT=$(free_port); export PORT; measure "hummingbird-n${COUNTS[0]}-python" "${COUNTS[0]}" python "$PEER/.build/release/HBCounter"
  fi
} 2>&1 | tee "$LOG"
rm -f "$LOG.tmp"
