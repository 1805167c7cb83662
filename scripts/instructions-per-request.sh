#!/usr/bin/env bash
# instructions-per-request.sh [WORKLOAD...] — the server's CPU instructions per request, counted by
# callgrind: the same for the same binary and inputs whatever else the machine is doing, so a change
# to the request path can be compared on this shared machine where req/s moves ±20% between runs.
#
# WORKLOAD: post (POST counter/incrTapped, the default), post-tasks (POST tasks/toggleDone with a
# payload, to a tasks session of one task), get (GET state), post-never (POST under
# --fsync never on a fresh data directory), post-always-c64 (POST under --fsync always from wrk's 64
# connections, so the journal's groups, its writer thread and the loops' hand-offs are counted as
# they run under load: two wrk runs of SHORT and LONG seconds, default 4 and 12, differenced). For each, runs the release build under
# `valgrind --tool=callgrind` twice, with FEW (default 2000) and MANY (default 12000) requests sent one
# after another on one keep-alive connection, and prints (Ir(MANY) - Ir(FEW)) / (MANY - FEW): start-up,
# session creation and shutdown cancel out. SERVER=path measures another binary (e.g. an older
# commit's build, for a before/after). Kernel work (syscalls, TCP) is not counted: this measures the
# server's own code and the Swift runtime and libc under it. KEEP=dir keeps the callgrind.out files
# there, to see where the instructions go: `callgrind_annotate --inclusive=yes dir/callgrind.post.12000`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FEW="${FEW:-2000}"
MANY="${MANY:-12000}"
WORKLOADS=("$@")
[ $# -eq 0 ] && WORKLOADS=(post)
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl >/dev/null; }
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
SHORT="${SHORT:-4}"
LONG="${LONG:-12}"
if [ -z "${SERVER:-}" ]; then
  (cd "$ROOT" && swift build -c release --product storehouse) >&2
  SERVER="$ROOT/.build/release/storehouse"
fi
WORK="$(mktemp -d)"
PID=""
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$WORK"/callgrind.* "$KEEP"/ 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# instructions WORKLOAD COUNT: total Ir of one server run that answered COUNT requests of WORKLOAD.
instructions() {
  local workload=$1 count=$2 port out flags=(--in-memory)
  port=$(free_port); out="$WORK/callgrind.$workload.$count"
  [ "$workload" = post-never ] && flags=(--data-dir "$WORK/data.$count" --fsync never)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$SERVER" "${flags[@]}" --port "$port" --access-log false \
    >/dev/null 2>"$WORK/valgrind.log" & PID=$!
  for _ in $(seq 600); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
  python3 - "$port" "$workload" "$count" <<'EOF'
import http.client, json, sys
port, workload, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
kind = b"tasks" if workload == "post-tasks" else b"counter"
c.request("POST", "/sessions", body=b'{"kind":"' + kind + b'"}', headers={"Content-Type": "application/json"})
created = json.loads(c.getresponse().read())
auth = {"Authorization": "Bearer " + created["token"], "Content-Type": "application/json"}
path = "/sessions/%s/" % created["id"]
if workload == "post-tasks":
    c.request("POST", path + "actions", body=b'{"type":"tasks/add","payload":{"title":"a task"}}', headers=auth)
    c.getresponse().read()
for _ in range(count):
    if workload == "get":
        c.request("GET", path + "state", headers=auth)
    elif workload == "post-tasks":
        c.request("POST", path + "actions", body=b'{"type":"tasks/toggleDone","payload":{"id":1}}', headers=auth)
    else:
        c.request("POST", path + "actions", body=b'{"type":"counter/incrTapped"}', headers=auth)
    r = c.getresponse(); r.read()
    if r.status != 200: sys.exit("unexpected status %d" % r.status)
EOF
  kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  awk '/^(summary|totals):/ {print $2; exit}' "$out"
}

echo "# instructions-per-request $(date -u +%FT%TZ) $("$SERVER" --version 2>/dev/null || echo storehouse) $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) FEW=$FEW MANY=$MANY"
# under_wrk SECONDS: "Ir requests" of one --fsync always server run under wrk -t2 -c64 for SECONDS.
under_wrk() {
  local seconds=$1 port out created n
  port=$(free_port); out="$WORK/callgrind.wrk.$seconds"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$SERVER" --data-dir "$WORK/data.wrk.$seconds" --fsync always \
    --port "$port" --access-log false >/dev/null 2>"$WORK/valgrind.log" & PID=$!
  for _ in $(seq 600); do curl -sf -o /dev/null "http://127.0.0.1:$port/readyz" && break; sleep 0.1; done
  created=$(curl -s -X POST -d '{"kind":"counter"}' "http://127.0.0.1:$port/sessions")
  n=$(SESSION_ID=$(echo "$created" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') \
      TOKEN=$(echo "$created" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])') \
      BENCH_LUA_DIR="$ROOT/../shared/bench/lua" \
      wrk -t2 -c64 -d"${seconds}s" -s "$ROOT/../shared/bench/lua/action.lua" "http://127.0.0.1:$port" | awk '/requests in/ {print $1}')
  kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  echo "$(awk '/^(summary|totals):/ {print $2; exit}' "$out") $n"
}

for w in "${WORKLOADS[@]}"; do
  if [ "$w" = post-always-c64 ]; then
    read -r ir1 n1 < <(under_wrk "$SHORT"); read -r ir2 n2 < <(under_wrk "$LONG")
    echo "RESULT workload=$w instructions_per_request=$(( (ir2 - ir1) / (n2 - n1) )) requests=$n1/$n2"
    continue
  fi
  few=$(instructions "$w" "$FEW"); many=$(instructions "$w" "$MANY")
  python3 -c "import sys; f,m,a,b=map(int,sys.argv[1:5]); print('RESULT workload=%s instructions_per_request=%d' % (sys.argv[5], (m-f)/(b-a)))" \
    "$few" "$many" "$FEW" "$MANY" "$w"
done
