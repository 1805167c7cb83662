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
# Every process it starts is stopped on exit (scripts/cluster-lib.sh). Exit: 0 = all passed, 1 = a check failed,
# 2 = setup error. Env: KEEP=1 keeps the temporary directory (logs, data) for inspection.
set -uo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BIN=${STOREHOUSE_BIN:-"$(swift build --show-bin-path 2>/dev/null)/storehouse"}
[ -x "$BIN" ] || swift build --product storehouse >&2 || { echo "$PROG: swift build failed" >&2; exit 2; }
[ -x "$BIN" ] || { echo "$PROG: no storehouse binary at $BIN" >&2; exit 2; }

. scripts/cluster-lib.sh
cluster_init
for n in 1 2 3; do cluster_start_node "$n" "$BIN" --fsync always || exit 2; done
cluster_start_nginx 1 || exit 2
NODES_JSON="$WORK/nodes.json"
echo "$PROG: nginx $("$NGINX" -v 2>&1 | sed 's/.*\///') on $PROXY in front of node-1..3 on ports $PORT_1 $PORT_2 $PORT_3"

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
  echo "$PROG: FAILED (nginx error log follows)"; tail -20 "$NGINX_ERROR_LOG"
fi
exit "$FAILED"
