# netns.sh — sourced by a benchmark script (`. scripts/netns.sh "$@"`) once its installs and builds
# are done. With NETNS=1 it runs the script again in a fresh network namespace where only loopback
# is up (unshare(1), as root or with unprivileged user namespaces), then continues there.
#
# Why: a namespace with no netfilter rules has no connection tracking. On a host where podman has
# run (netavark installs a `nat` table, e.g. scripts/container-smoke.sh), every loopback packet goes
# through conntrack: `storehouse-bench loopback-floor` measured a send at 7.7–7.9 µs on such a host
# and 5.9–6.3 µs in a fresh namespace. A server in its container gets a namespace of its own too.
# Everything inside (server, client, peers, Redis) shares the one namespace, so comparisons stay fair.
if [ "${NETNS:-0}" = 1 ] && [ -z "${BENCH_IN_NETNS:-}" ]; then
  command -v unshare >/dev/null && command -v ip >/dev/null ||
    { apt-get update -qq && apt-get install -y -qq util-linux iproute2 >/dev/null; }
  if [ "$(id -u)" = 0 ]; then
    exec unshare --net env BENCH_IN_NETNS=1 bash "$0" "$@"
  else
    exec unshare --map-root-user --net env BENCH_IN_NETNS=1 bash "$0" "$@"
  fi
fi
if [ -n "${BENCH_IN_NETNS:-}" ]; then
  ip link set lo up
  echo "# in a fresh network namespace (NETNS=1): loopback only, no netfilter rules" >&2
fi
