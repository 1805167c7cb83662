#!/usr/bin/env bash
# bench-cluster.sh [ROUNDS] - what nginx in front of Storehouse costs, and one node against three
# behind it, on this machine (README "Scaling out", BENCHMARKS.md "Cluster").
#
#   bash scripts/bench-cluster.sh 3                 # 3 interleaved rounds, nodes --in-memory
#   MODE="--fsync always" bash scripts/bench-cluster.sh 3
#
# Three release nodes (node-1..3) and nginx with deploy/nginx/storehouse.conf as shipped
# (scripts/cluster-lib.sh; NGINX_WORKERS, default 2, one per core). Every round runs, in this
# order, wrk -t2 -c64 (DURATION, default 5 s, after a 1 s warm-up) for POST /sessions/{id}/actions
# and GET /sessions/{id}/state:
#   direct      one session on node-1, straight to node-1
#   nginx-1     the same session through nginx (the proxy's cost)
#   nginx-1x3   three sessions, all on node-1, through nginx (requests rotate over them)
#   nginx-3x3   one session on each node through nginx (three nodes behind one proxy)
# Each run prints its RESULT line (shared/bench/lua/report.lua), /proc/loadavg, and the CPU time
# nginx's workers and the nodes took per request (user + system, from /proc/PID/stat: unlike
# req/s, it barely moves with what else the machine runs); the end prints the median of every
# figure over the rounds and the ratios to `direct` and to `nginx-1x3`.
# The machine is shared: read the figures beside the load they were taken under.
set -euo pipefail
PROG=${0##*/}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
ROUNDS=${1:-3}
DURATION=${DURATION:-5s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
MODE=${MODE:---in-memory}
SHARED=${SHARED:-$ROOT/../shared}
[ -d "$SHARED/bench/lua" ] || SHARED=/work/shared

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
swift build -c release --product storehouse 2>&1 | tail -1
BIN="$(swift build -c release --show-bin-path)/storehouse"

. scripts/cluster-lib.sh
cluster_init
# shellcheck disable=SC2086 # MODE is flags
for n in 1 2 3; do cluster_start_node "$n" "$BIN" $MODE; done
NGINX_ACCESS_LOG=/dev/null cluster_start_nginx "${NGINX_WORKERS:-2}"
RESULTS="$WORK/results.txt"
: > "$RESULTS"

# new_session URL: "<id>:<token>" of a counter session created at URL.
new_session() {
  curl -sS -X POST "$1/sessions" -d '{"kind":"counter"}' | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["id"] + ":" + d["token"])'
}
DIRECT_1="http://127.0.0.1:$PORT_1"
ONE=$(new_session "$DIRECT_1")
ONE_NODE="$ONE,$(new_session "$DIRECT_1"),$(new_session "$DIRECT_1")"
THREE_NODES="$ONE,$(new_session "http://127.0.0.1:$PORT_2"),$(new_session "http://127.0.0.1:$PORT_3")"

# One wrk script for both workloads: each request goes to the next of $SESSIONS ("id:token,...").
LUA="$WORK/rotate.lua"
cat > "$LUA" <<'EOF'
local sessions = {}
for id, token in string.gmatch(os.getenv("SESSIONS"), "([^:,]+):([^,]+)") do
  sessions[#sessions + 1] = { id = id, auth = "Bearer " .. token }
end
local post = os.getenv("METHOD") == "POST"
local next_index = 0
request = function()
  next_index = next_index % #sessions + 1
  local s = sessions[next_index]
  if post then
    return wrk.format("POST", "/sessions/" .. s.id .. "/actions",
      { ["Authorization"] = s.auth, ["Content-Type"] = "application/json" }, '{"type":"counter/incrTapped"}')
  end
  return wrk.format("GET", "/sessions/" .. s.id .. "/state", { ["Authorization"] = s.auth })
end
EOF
echo "dofile(\"$SHARED/bench/lua/report.lua\")" >> "$LUA"

# cpu_ticks PID...: user + system clock ticks the processes have used, all threads.
cpu_ticks() {
  local total=0 pid fields
  for pid in "$@"; do
    fields=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || continue
    set -- $fields
    total=$((total + ${12} + ${13}))
  done
  echo "$total"
}
NGINX_WORKERS_PIDS=$(pgrep -P "$(cat "$WORK/pids/nginx.pid")" | tr '\n' ' ')
NODE_PIDS=$(cat "$WORK"/pids/node-*.pid | tr '\n' ' ')
TICK=$(getconf CLK_TCK)

run() {  # LABEL URL SESSIONS METHOD ROUND
  local label="$1-$(echo "$4" | tr 'A-Z' 'a-z')" load result nginx0 node0 nginx1 node1 requests
  SESSIONS=$3 METHOD=$4 WORKLOAD=$label wrk -t"$THREADS" -c"$CONNECTIONS" -d1s -s "$LUA" "$2" >/dev/null
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  # shellcheck disable=SC2086 # lists of pids
  nginx0=$(cpu_ticks $NGINX_WORKERS_PIDS); node0=$(cpu_ticks $NODE_PIDS)
  result=$(SESSIONS=$3 METHOD=$4 WORKLOAD=$label wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$LUA" "$2" | grep "^RESULT")
  # shellcheck disable=SC2086
  nginx1=$(cpu_ticks $NGINX_WORKERS_PIDS); node1=$(cpu_ticks $NODE_PIDS)
  requests=$(echo "$result" | sed 's/.* requests=\([0-9]*\).*/\1/')
  # CPU per request, in µs: what nginx's workers and what the nodes spent on this run.
  echo "$result round=$5 load=${load// /,} nginx_us=$(( (nginx1 - nginx0) * 1000000 / TICK / requests )) node_us=$(( (node1 - node0) * 1000000 / TICK / requests ))" \
    | tee -a "$RESULTS"
}

echo "# $PROG: nodes $MODE, nginx $("$NGINX" -v 2>&1 | sed 's/.*\///') with ${NGINX_WORKERS:-2} workers, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $ROUNDS rounds, $(nproc) cores"
echo "# uptime: $(uptime)"
for round in $(seq "$ROUNDS"); do
  for method in POST GET; do
    run direct "$DIRECT_1" "$ONE" "$method" "$round"
    run nginx-1 "$PROXY" "$ONE" "$method" "$round"
    run nginx-1x3 "$PROXY" "$ONE_NODE" "$method" "$round"
    run nginx-3x3 "$PROXY" "$THREE_NODES" "$method" "$round"
  done
done
echo "# uptime: $(uptime)"

python3 - "$RESULTS" <<'EOF'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    fields = dict(re.findall(r"(\w+)=(\S+)", line))
    rows.setdefault(fields["workload"], []).append(fields)
def median(workload, key):
    return statistics.median(float(r[key]) for r in rows[workload])
print("\n| workload | rounds | req/s (median) | p50 ms | p99 ms | non-2xx | vs direct | vs nginx-1x3 | nginx CPU µs/req | nodes CPU µs/req |")
print("|---|---|---|---|---|---|---|---|---|---|")
for method in ("post", "get"):
    for label in ("direct", "nginx-1", "nginx-1x3", "nginx-3x3"):
        w = "%s-%s" % (label, method)
        if w not in rows:
            continue
        rps = median(w, "req_s")
        print("| %s | %d | %.0f | %.2f | %.2f | %d | %.2f | %.2f | %.1f | %.1f |" % (
            w, len(rows[w]), rps, median(w, "p50_ms"), median(w, "p99_ms"),
            sum(int(r["non2xx"]) + int(r["sock_errors"]) for r in rows[w]),
            rps / median("direct-" + method, "req_s"), rps / median("nginx-1x3-" + method, "req_s"),
            median(w, "nginx_us"), median(w, "node_us")))
loads = sorted(float(r["load"].split(",")[0]) for rs in rows.values() for r in rs)
print("\n1-minute load average during the runs: %.1f to %.1f (median %.1f)" % (loads[0], loads[-1], statistics.median(loads)))
EOF
