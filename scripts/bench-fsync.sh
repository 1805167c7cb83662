#!/usr/bin/env bash
# bench-fsync.sh [ROUNDS] — POST throughput with `--fsync always` beside Redis `appendfsync always`,
# interleaved, so each ratio compares two measurements taken seconds apart on this shared machine.
#
# Each round (default 5): storehouse --fsync always on a fresh data directory, then
# ../shared/bench/http-bench.sh (POST counter/incrTapped, 64 connections, DURATION, default 5s, after a
# 1 s warm-up) under cpu-account.py; then a fresh redis-server with appendonly yes + appendfsync always,
# its AOF in the same file system, and `redis-benchmark -t incr -c 64 -n REQUESTS` (default 300000,
# the invocation of ../shared/bench/redis-anchor.sh) under cpu-account.py. Prints every run with its
# NOISE line, each round's ratio, and the medians. Holds BENCH_LOCK (default /tmp/bench.lock) for the
# whole run. MODES="always batch never" adds the other policies to every round. Beside each run,
# scripts/cpu-split.py samples the server's user and system CPU, printed per request at the end.
# NETNS=1 runs everything in a fresh network namespace, loopback only (scripts/netns.sh says why).
# BASELINE=path/to/storehouse runs that binary too, beside this tree's in every round and mode (as
# `baseline-<mode>`, the two taking turns going first), so a change's before and after (req/s, user
# CPU per request, and each round's ratio of the two) come from one run: e.g.
# BASELINE=/work/wt/notes/storehouse-ba9ea38, a release build of the commit to compare with.
# Installs wrk, redis-server and curl if missing. Output: stdout and bench-results/fsync-<time>.log.
set -euo pipefail
ROUNDS="${1:-5}"
DURATION="${DURATION:-5s}"
REQUESTS="${REQUESTS:-300000}"
MODES="${MODES:-always}"
SCRATCH="${SCRATCH:-.build}"
BENCH_LOCK="${BENCH_LOCK-/tmp/bench.lock}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/../shared/bench"
mkdir -p "$ROOT/bench-results"
LOG="$ROOT/bench-results/fsync-$(date -u +%Y%m%dT%H%M%SZ).log"

need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need wrk wrk; need redis-server redis-server; need curl curl

(cd "$ROOT" && swift build -c release --scratch-path "$SCRATCH" --product storehouse) >&2
SERVER="$ROOT/$SCRATCH/release/storehouse"
BASELINE="${BASELINE:-}"
if [ -n "$BASELINE" ] && [ ! -x "$BASELINE" ]; then echo "BASELINE=$BASELINE is not an executable" >&2; exit 2; fi

if [ -n "$BENCH_LOCK" ] && [ -z "${BENCH_FSYNC_LOCKED:-}" ]; then
  exec env BENCH_FSYNC_LOCKED=1 flock "$BENCH_LOCK" "$0" "$@"
fi

. "$ROOT/scripts/netns.sh" "$@"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
PID=""
stop() { if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill "$PID"; wait "$PID" 2>/dev/null || true; fi; PID=""; }
trap stop EXIT
wait_http() { for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$1/healthz" && return 0; sleep 0.05; done; echo "server on $1 did not start" >&2; return 1; }
wait_redis() { for _ in $(seq 200); do redis-cli -p "$1" ping >/dev/null 2>&1 && return 0; sleep 0.05; done; echo "redis on $1 did not start" >&2; return 1; }

storehouse_run() { # mode round [name binary]
  local dir port name="${3:-storehouse}" server="${4:-$SERVER}"
  dir=$(mktemp -d "$ROOT/bench-results/data.XXXXXX"); port=$(free_port)
  "$server" --data-dir "$dir" --fsync "$1" --port "$port" --access-log false 2>/dev/null & PID=$!
  wait_http "$port"
  # The split is sampled inside the timed run: after the set-up and the 1 s warm-up, 1.5 s before its end.
  python3 "$ROOT/scripts/cpu-split.py" "$PID" 2 "$(python3 -c "print(max(1.0, float('${DURATION%s}') - 1.5))")" > "$dir.cpu" &
  local split=$!
  DURATION="$DURATION" WARMUP=1s WORKLOADS=post python3 "$BENCH/cpu-account.py" --pid "$PID" -- \
    "$BENCH/http-bench.sh" "http://127.0.0.1:$port" | grep -E '^(RESULT|NOISE)' | sed "s/^/$name-$1-r$2 /"
  wait "$split"; sed "s/^/$name-$1-r$2 /" "$dir.cpu"
  stop; rm -rf "$dir" "$dir.cpu"
}

redis_run() { # round
  local dir port
  dir=$(mktemp -d "$ROOT/bench-results/redis.XXXXXX"); port=$(free_port)
  redis-server --bind 127.0.0.1 --port "$port" --save '' --dir "$dir" --daemonize no --appendonly yes \
    --appendfsync always --appendfilename anchor.aof --logfile "$dir/redis.log" & PID=$!
  wait_redis "$port"
  python3 "$ROOT/scripts/cpu-split.py" "$PID" 0.5 2 > "$dir.cpu" &
  local split=$!
  python3 "$BENCH/cpu-account.py" --pid "$PID" -- sh -c \
    "redis-benchmark -h 127.0.0.1 -p $port -t incr -c 64 -n $REQUESTS -q --csv | grep '^\"INCR\"' | tr -d '\"' |
     awk -F, '{print \"RESULT workload=redis-incr-aof-always req_s=\" \$2 \" p50_ms=\" \$5 \" p99_ms=\" \$7}'" | sed "s/^/redis-always-r$1 /"
  wait "$split"; sed "s/^/redis-always-r$1 /" "$dir.cpu"
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; wait "$PID" 2>/dev/null || true; PID=""
  rm -rf "$dir" "$dir.cpu"
}

{
  echo "# bench-fsync $(date -u +%FT%TZ) netns=${BENCH_IN_NETNS:-0} $(nproc) cores, $(uname -r), data on $(df -T "$ROOT/bench-results" | awk 'NR==2{print $2}'), $ROUNDS rounds${BASELINE:+, baseline $BASELINE}"
  echo "# load: $(uptime)"
  for round in $(seq "$ROUNDS"); do
    for mode in $MODES; do
      # With a baseline the two take turns going first, so neither always runs on a warmer machine.
      if [ -n "$BASELINE" ] && [ $((round % 2)) -eq 0 ]; then storehouse_run "$mode" "$round" baseline "$BASELINE"; fi
      storehouse_run "$mode" "$round"
      if [ -n "$BASELINE" ] && [ $((round % 2)) -eq 1 ]; then storehouse_run "$mode" "$round" baseline "$BASELINE"; fi
    done
    redis_run "$round"
  done
} 2>&1 | tee "$LOG"

python3 - "$LOG" "$MODES" <<'EOF' | tee -a "$LOG"
import re, statistics, sys
log, modes = sys.argv[1], sys.argv[2].split()
rates, split = {}, {}
for line in open(log):
    m = re.match(r'(\S+)-r(\d+) RESULT .*req_s=([\d.]+)', line)
    if m: rates.setdefault(m.group(1), {})[int(m.group(2))] = float(m.group(3))
    m = re.match(r'(\S+)-r(\d+) CPU user_cores=([\d.]+) sys_cores=([\d.]+)', line)
    if m: split.setdefault(m.group(1), {})[int(m.group(2))] = (float(m.group(3)), float(m.group(4)))
redis = rates.get('redis-always', {})
print("== medians (req/s) and per-round ratios to Redis appendfsync always")
for name, runs in sorted(rates.items()):
    line = f"{name}: median {statistics.median(runs.values()):.0f} over {len(runs)} runs"
    if name != 'redis-always':
        ratios = [runs[r] / redis[r] for r in sorted(runs) if r in redis and redis[r] > 0]
        if ratios:
            line += f"; ratio per round {', '.join(f'{x:.2f}' for x in ratios)}; median ratio {statistics.median(ratios):.2f}"
    print(line)
for name, runs in sorted(rates.items()):
    base = rates.get(name.replace('storehouse-', 'baseline-', 1), {}) if name.startswith('storehouse-') else {}
    ratios = [runs[r] / base[r] for r in sorted(runs) if base.get(r)]
    if ratios:
        print(f"{name} over its baseline: ratio per round {', '.join(f'{x:.2f}' for x in ratios)}; median ratio {statistics.median(ratios):.2f}")
print("== the server's CPU per request (µs, median over rounds; its cores in the timed run / req/s)")
for name, runs in sorted(split.items()):
    per = [(u / rates[name][r] * 1e6, k / rates[name][r] * 1e6) for r, (u, k) in runs.items() if rates.get(name, {}).get(r)]
    if per:
        user, kernel = statistics.median(p[0] for p in per), statistics.median(p[1] for p in per)
        print(f"{name}: user {user:.2f}, system {kernel:.2f}, total {statistics.median(p[0] + p[1] for p in per):.2f}")
EOF
