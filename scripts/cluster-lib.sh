# cluster-lib.sh - sourced by cluster-test.sh and bench-cluster.sh: Storehouse nodes and nginx
# (deploy/nginx/storehouse.conf as shipped) on free loopback ports, stopped on exit.
#
#   . scripts/cluster-lib.sh
#   cluster_init                     # $WORK, the EXIT trap, nginx installed
#   cluster_start_node 1 "$BIN" --fsync always     # node-1 on $PORT_1, data in $WORK/node-1
#   cluster_start_nginx              # $PROXY; nodes file from deploy/nginx/nodes.conf
#
# Every process started is recorded in $WORK/pids/NAME.pid and stopped by the trap (TERM, then
# KILL after 5 s). KEEP=1 keeps $WORK (logs, data).

CLUSTER_PROG=${CLUSTER_PROG:-${0##*/}}

cluster_install() {  # apt-get PACKAGE..., waiting out another apt that holds the lock
  local _
  for _ in $(seq 30); do
    if apt-get install -y -qq "$@" >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "$@" >/dev/null 2>&1; }; then
      return 0
    fi
    sleep 2
  done
  echo "$CLUSTER_PROG: cannot install $*" >&2
  return 1
}

cluster_cleanup() {
  # Under the caller's `set -e` a kill of a process that is already gone would end this trap
  # early and leave the rest running: every step here may fail.
  set +e
  local f pid _
  # Every process first, then the waits: the nodes drain at once rather than in turn.
  for f in "$WORK"/pids/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
  for f in "$WORK"/pids/*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null
  done
  if [ "${KEEP:-0}" = 1 ]; then echo "$CLUSTER_PROG: kept $WORK" >&2; else rm -rf "$WORK"; fi
}

cluster_init() {
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || cluster_install nginx || exit 2
  command -v curl >/dev/null || cluster_install curl || exit 2
  NGINX=$(command -v nginx || echo /usr/sbin/nginx)
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/cluster.XXXXXX")
  chmod 755 "$WORK"   # nginx's workers (nobody, when started as root) use temp dirs here
  mkdir -p "$WORK/pids"
  trap cluster_cleanup EXIT
  trap 'exit 1' INT TERM
}

cluster_free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

cluster_wait_ready() {  # URL: until it answers 200 (30 s at most)
  local _
  for _ in $(seq 600); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1")" = 200 ] && return 0
    sleep 0.05
  done
  echo "$CLUSTER_PROG: $1 never answered 200" >&2
  return 1
}

# cluster_start_node N BIN [FLAGS...]: node-N on a free port ($PORT_N), its own data directory
# and node id; returns once /readyz answers. Appends its entry to $WORK/nodes.json (for
# scripts/cluster-check.py: url, pid, the command line to restart it with, pid file, log).
cluster_start_node() {
  local n=$1 bin=$2 name=node-$1 port argv argv_json
  shift 2
  port=$(cluster_free_port)
  argv=("$bin" --port "$port" --data-dir "$WORK/$name" --node-id "$name" --access-log false "$@")
  "${argv[@]}" >>"$WORK/$name.log" 2>&1 &
  echo $! > "$WORK/pids/$name.pid"
  disown   # a test may SIGKILL it: no "Killed" report from this shell
  printf -v "PORT_$n" '%s' "$port"
  argv_json=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "${argv[@]}")
  python3 - "$WORK/nodes.json" "$name" "$port" "$(cat "$WORK/pids/$name.pid")" "$argv_json" "$WORK/pids/$name.pid" "$WORK/$name.log" <<'EOF'
import json, os, sys
path, name, port, pid, argv, pidfile, log = sys.argv[1:]
nodes = json.load(open(path)) if os.path.exists(path) else {}
nodes[name] = {"url": "http://127.0.0.1:" + port, "pid": int(pid), "argv": json.loads(argv), "pidfile": pidfile, "log": log}
json.dump(nodes, open(path, "w"), indent=1)
EOF
  cluster_wait_ready "http://127.0.0.1:$port/readyz"
}

# cluster_start_nginx [WORKERS]: nginx in the foreground with its own prefix, running
# deploy/nginx/storehouse.conf verbatim but for its listen line, and a nodes file made from
# deploy/nginx/nodes.conf with node-1..3's loopback ports for their Compose names (without
# `resolve`: the distribution's nginx may predate it, and addresses need no lookup).
cluster_start_nginx() {
  local workers=${1:-1} port prefix
  port=$(cluster_free_port)
  prefix="$WORK/nginx"
  mkdir -p "$prefix/conf" "$prefix/logs"
  sed "s/^    listen 8080;$/    listen 127.0.0.1:$port;/" "$ROOT/deploy/nginx/storehouse.conf" > "$prefix/conf/storehouse.conf"
  if [ "$(diff "$ROOT/deploy/nginx/storehouse.conf" "$prefix/conf/storehouse.conf" | grep -c '^>')" != 1 ]; then
    echo "$CLUSTER_PROG: deploy/nginx/storehouse.conf has no single 'listen 8080;' line to point at a free port" >&2
    return 2
  fi
  sed -e "s/node-1:8080/127.0.0.1:${PORT_1}/; s/node-2:8080/127.0.0.1:${PORT_2}/; s/node-3:8080/127.0.0.1:${PORT_3}/" \
      -e 's/ resolve\([ ;]\)/\1/' "$ROOT/deploy/nginx/nodes.conf" > "$prefix/conf/nodes.conf"
  if grep -Eq 'node-[0-9]:8080|[0-9] resolve' "$prefix/conf/nodes.conf"; then
    echo "$CLUSTER_PROG: deploy/nginx/nodes.conf names servers this script does not map" >&2
    return 2
  fi
  cat > "$prefix/conf/nginx.conf" <<EOF
daemon off;
worker_processes $workers;
pid $prefix/nginx.pid;
error_log $prefix/logs/error.log warn;
events { worker_connections 4096; }
http {
    client_body_temp_path $prefix/client_body;
    proxy_temp_path $prefix/proxy;
    fastcgi_temp_path $prefix/fastcgi;
    uwsgi_temp_path $prefix/uwsgi;
    scgi_temp_path $prefix/scgi;
    include storehouse.conf;
    include nodes.conf;
}
EOF
  "$NGINX" -t -q -p "$prefix" -c conf/nginx.conf || { echo "$CLUSTER_PROG: nginx rejects the configuration" >&2; return 2; }
  "$NGINX" -p "$prefix" -c conf/nginx.conf >"${NGINX_ACCESS_LOG:-$prefix/logs/access.log}" 2>&1 &
  echo $! > "$WORK/pids/nginx.pid"
  NGINX_ERROR_LOG="$prefix/logs/error.log"
  PROXY="http://127.0.0.1:$port"
  cluster_wait_ready "$PROXY/proxy-healthz"
}
