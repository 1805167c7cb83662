#!/usr/bin/env bash
# cluster-test.sh - three Storehouse nodes behind nginx on loopback, with the shipped routing
# (deploy/nginx/storehouse.conf, verbatim), and a node killed under load (API.md "Cluster").
#
#   bash scripts/cluster-test.sh            # after `swift build` (CI: after `swift test`)
#
# 1. Installs nginx from the distribution (apt-get) when it is missing. Starts three nodes on
#    free loopback ports (node-1..3: each its own data directory, --node-id, --fsync always) and
#    nginx in the foreground with its own prefix in a temporary directory: storehouse.conf as
#    shipped but for its listen port, and a nodes file made from deploy/nginx/nodes.conf with
#    the nodes' loopback addresses for the Compose names (and without `resolve`, which the
#    distribution's nginx may predate and loopback addresses do not need).
# 2. Through nginx: the README walkthrough (scripts/readme-walkthrough.sh); sessions created on
#    every node, each served through nginx and 421 from the other nodes directly; SSE through
#    nginx seeing every change (scripts/cluster-check.py spread).
# 3. SIGKILL node-2 under load, then restart it (scripts/cluster-check.py failover): its
#    sessions answer 503 problem+json while it is down, the others 200 throughout; afterwards
#    every acknowledged action is there and resumed streams saw every version exactly once.
# Every process it starts is stopped on exit. Exit: 0 = all passed, 1 = a check failed,
# 2 = setup error. Env: KEEP=1 keeps the temporary directory (logs, data) for inspection.
set -uo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BIN=${STOREHOUSE_BIN:-"$(swift build --show-bin-path 2>/dev/null)/storehouse"}
[ -x "$BIN" ] || swift build --product storehouse >&2 || { echo "$PROG: swift build failed" >&2; exit 2; }
[ -x "$BIN" ] || { echo "$PROG: no storehouse binary at $BIN" >&2; exit 2; }

install_package() {  # apt-get, waiting out another apt that holds the lock
  for _ in $(seq 30); do
    if apt-get install -y -qq "$@" >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "$@" >/dev/null 2>&1; }; then
      return 0
    fi
    sleep 2
  done
  return 1
}
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || install_package nginx || { echo "$PROG: cannot install nginx" >&2; exit 2; }
command -v curl >/dev/null || install_package curl || { echo "$PROG: cannot install curl" >&2; exit 2; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cluster-test.XXXXXX")
chmod 755 "$WORK"   # nginx's workers (nobody, when started as root) read their temp dirs here
mkdir -p "$WORK/pids"
cleanup() {
  for f in "$WORK"/pids/*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null && for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null
  done
  if [ "${KEEP:-0}" = 1 ]; then echo "$PROG: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_ready() {  # URL PATH: until it answers 200 (30 s at most)
  for _ in $(seq 600); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1$2")" = 200 ] && return 0
    sleep 0.05
  done
  echo "$PROG: $1$2 never answered 200" >&2; return 1
}

# ---- three nodes -----------------------------------------------------------------------------
NODES_JSON="$WORK/nodes.json"
echo "{" > "$NODES_JSON"
declare -A PORT
for n in 1 2 3; do
  name=node-$n
  PORT[$n]=$(free_port)
  argv=("$BIN" --port "${PORT[$n]}" --data-dir "$WORK/$name" --node-id "$name" --fsync always --access-log false)
  "${argv[@]}" >>"$WORK/$name.log" 2>&1 &
  echo $! > "$WORK/pids/$name.pid"
  disown   # the test SIGKILLs one: no "Killed" report from this shell
  argv_json=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "${argv[@]}")
  [ "$n" = 1 ] || echo "," >> "$NODES_JSON"
  printf '"%s": {"url": "http://127.0.0.1:%s", "pid": %s, "argv": %s, "pidfile": "%s", "log": "%s"}\n' \
    "$name" "${PORT[$n]}" "$(cat "$WORK/pids/$name.pid")" "$argv_json" "$WORK/pids/$name.pid" "$WORK/$name.log" >> "$NODES_JSON"
done
echo "}" >> "$NODES_JSON"
for n in 1 2 3; do wait_ready "http://127.0.0.1:${PORT[$n]}" /readyz || exit 2; done

# ---- nginx, with the shipped routing -----------------------------------------------------------
NGINX_PORT=$(free_port)
PREFIX="$WORK/nginx"
mkdir -p "$PREFIX/conf" "$PREFIX/logs"
# storehouse.conf verbatim but for its one listen line.
sed "s/^    listen 8080;$/    listen 127.0.0.1:$NGINX_PORT;/" deploy/nginx/storehouse.conf > "$PREFIX/conf/storehouse.conf"
[ "$(diff deploy/nginx/storehouse.conf "$PREFIX/conf/storehouse.conf" | grep -c '^>')" = 1 ] \
  || { echo "$PROG: deploy/nginx/storehouse.conf has no single 'listen 8080;' line to point at the test's port" >&2; exit 2; }
sed -e "s/node-1:8080/127.0.0.1:${PORT[1]}/; s/node-2:8080/127.0.0.1:${PORT[2]}/; s/node-3:8080/127.0.0.1:${PORT[3]}/" \
    -e 's/ resolve\([ ;]\)/\1/' deploy/nginx/nodes.conf > "$PREFIX/conf/nodes.conf"
! grep -Eq 'node-[0-9]:8080|[0-9] resolve' "$PREFIX/conf/nodes.conf" \
  || { echo "$PROG: deploy/nginx/nodes.conf names servers this script does not map" >&2; exit 2; }
cat > "$PREFIX/conf/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $PREFIX/nginx.pid;
error_log $PREFIX/logs/error.log warn;
events { worker_connections 4096; }
http {
    client_body_temp_path $PREFIX/client_body;
    proxy_temp_path $PREFIX/proxy;
    fastcgi_temp_path $PREFIX/fastcgi;
    uwsgi_temp_path $PREFIX/uwsgi;
    scgi_temp_path $PREFIX/scgi;
    include storehouse.conf;
    include nodes.conf;
}
EOF
"$NGINX" -t -q -p "$PREFIX" -c conf/nginx.conf || { echo "$PROG: nginx rejects the configuration" >&2; exit 2; }
"$NGINX" -p "$PREFIX" -c conf/nginx.conf >"$PREFIX/logs/access.log" 2>&1 &
echo $! > "$WORK/pids/nginx.pid"
PROXY="http://127.0.0.1:$NGINX_PORT"
wait_ready "$PROXY" /proxy-healthz || exit 2
echo "$PROG: nginx $("$NGINX" -v 2>&1 | sed 's/.*\///') on $PROXY in front of node-1..3 on ports ${PORT[1]} ${PORT[2]} ${PORT[3]}"

FAILED=0
echo "== README walkthrough through nginx"
bash scripts/readme-walkthrough.sh README.md "$PROXY" || FAILED=1
echo "== sessions on every node, routing, SSE through nginx"
python3 scripts/cluster-check.py spread "$PROXY" "$NODES_JSON" || FAILED=1
echo "== SIGKILL node-2 under load, restart it"
python3 scripts/cluster-check.py failover "$PROXY" "$NODES_JSON" node-2 || FAILED=1

if [ "$FAILED" = 0 ]; then
  echo "$PROG: passed"
else
  echo "$PROG: FAILED (nginx error log follows)"; tail -20 "$PREFIX/logs/error.log"
fi
exit "$FAILED"
