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
# Each run prints its RESULT line (shared/bench/lua/report.lua) and /proc/loadavg; the end prints
# the median of every figure over the rounds and the ratios to `direct` and to `nginx-1x3`.
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

run() {  # LABEL URL SESSIONS METHOD ROUND
  local label="$1-$(echo "$4" | tr 'A-Z' 'a-z')"
  SESSIONS=$3 METHOD=$4 WORKLOAD=$label wrk -t"$THREADS" -c"$CONNECTIONS" -d1s -s "$LUA" "$2" >/dev/null
  local load; load=$(cut -d' ' -f1-3 /proc/loadavg)
  SESSIONS=$3 METHOD=$4 WORKLOAD=$label wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$LUA" "$2" \
    | grep '^RESULT' | sed "s/\$/ round=$5 load=${load// /\/}/" | tee -a "$RESULTS"
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
print("\n| workload | rounds | req/s (median) | p50 ms | p99 ms | non-2xx | vs direct | vs nginx-1x3 |")
print("|---|---|---|---|---|---|---|---|")
for method in ("post", "get"):
    for label in ("direct", "nginx-1", "nginx-1x3", "nginx-3x3"):
        w = "%s-%s" % (label, method)
        if w not in rows:
            continue
        rps = median(w, "req_s")
        print("| %s | %d | %.0f | %.2f | %.2f | %d | %.2f | %.2f |" % (
            w, len(rows[w]), rps, median(w, "p50_ms"), median(w, "p99_ms"),
            sum(int(r["non2xx"]) + int(r["sock_errors"]) for r in rows[w]),
            rps / median("direct-" + method, "req_s"), rps / median("nginx-1x3-" + method, "req_s")))
print("\nloads (1/5/15 min) during the runs: " + ", ".join(sorted({r["load"] for rs in rows.values() for r in rs})[:6]) + " …")
EOF
