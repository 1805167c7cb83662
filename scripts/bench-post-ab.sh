#!/usr/bin/env bash
# bench-post-ab.sh [ROUNDS] BIN_A BIN_B... — POST throughput of several builds, interleaved, so
# that a before/after comparison on a shared machine is made seconds apart in the same run.
#
#   bash scripts/bench-post-ab.sh 5 /tmp/before/storehouse .build/release/storehouse
#
# Per round and binary, in turn: a fresh `BIN --in-memory` on a free port, one counter session,
# then ../shared/bench/http-bench.sh with WORKLOADS=post (POST counter/incrTapped, CONNECTIONS
# default 64, DURATION default 5s after a 1 s warm-up). Prints each run's req/s and p99, then per
# binary the median req/s and its ratio to the first binary's, with the load average beside them.
# Holds BENCH_LOCK (default /tmp/bench.lock) so that benchmarks sharing it do not overlap.
# Installs wrk and curl if missing.
set -euo pipefail
ROUNDS="${1:-5}"; shift || true
[ $# -ge 1 ] || { echo "usage: ${0##*/} [ROUNDS] BIN_A [BIN_B...]" >&2; exit 2; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/../shared/bench"
BENCH_LOCK="${BENCH_LOCK-/tmp/bench.lock}"
need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need wrk wrk; need curl curl
if [ -n "$BENCH_LOCK" ] && [ -z "${BENCH_POST_AB_LOCKED:-}" ]; then
  exec env BENCH_POST_AB_LOCKED=1 flock "$BENCH_LOCK" "$0" "$ROUNDS" "$@"
fi
BINS=("$@")
SPID=""
stop() { if [ -n "$SPID" ] && kill -0 "$SPID" 2>/dev/null; then kill "$SPID"; wait "$SPID" 2>/dev/null || true; fi; SPID=""; }
trap stop EXIT
RESULTS="$(mktemp)"
for round in $(seq "$ROUNDS"); do
  for index in "${!BINS[@]}"; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
    "${BINS[$index]}" --in-memory --port "$port" --access-log false >/dev/null 2>&1 &
    SPID=$!
    for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$port/readyz" && break; sleep 0.05; done
    line=$(WORKLOADS=post WARMUP="${WARMUP:-1s}" DURATION="${DURATION:-5s}" bash "$BENCH/http-bench.sh" "http://127.0.0.1:$port" | grep '^RESULT')
    stop
    rps=$(sed -E 's/.*req_s=([0-9.]+).*/\1/' <<<"$line"); p99=$(sed -E 's/.*p99_ms=([0-9.]+).*/\1/' <<<"$line")
    echo "round $round  bin $index  ${rps} req/s  p99 ${p99} ms  load $(cut -d' ' -f1 /proc/loadavg)  ${BINS[$index]}"
    echo "$index $rps" >>"$RESULTS"
  done
done
python3 - "$RESULTS" "${BINS[@]}" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
bins = sys.argv[2:]
medians = [statistics.median(float(r) for i, r in rows if int(i) == index) for index in range(len(bins))]
for index, (binary, median) in enumerate(zip(bins, medians)):
    print(f"median bin {index}: {median:,.0f} req/s  ({median / medians[0]:.3f} x bin 0)  {binary}")
PY
rm -f "$RESULTS"
