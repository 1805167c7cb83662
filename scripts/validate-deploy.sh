#!/usr/bin/env bash
# validate-deploy.sh - check deploy/ without a cluster or a Docker engine:
#   1. deploy/kubernetes/*.yaml against the Kubernetes API schemas (kubernetes-validate --strict,
#      from pip: unknown fields are errors too);
#   2. deploy/compose.yaml against the Compose Specification's schema (check-jsonschema's
#      vendored vendor.compose-spec, from pip);
#   3. what no schema says (deploy-consistency below): the router's ConfigMap holds
#      deploy/nginx/storehouse.conf verbatim; the StatefulSet takes its node id from the pod's
#      name, mounts one volume claim per pod, probes with the image's health check, and gives a
#      termination grace longer than the drain; the Compose nodes each have their own node id
#      and volume, and nginx/nodes.conf routes each of them;
#   4. nginx -t on both nodes files with storehouse.conf (names pointed at loopback, and
#      without `resolve`, which the distribution's nginx may predate).
# Installs what it needs (pip; nginx from apt when missing). Exit 0 = all valid, 1 = not.
set -uo pipefail
PROG=${0##*/}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

python3 -m pip install --quiet --disable-pip-version-check "kubernetes-validate==1.37.0" "check-jsonschema==0.39.0" >&2 \
  || { echo "$PROG: pip install failed" >&2; exit 2; }
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  apt-get install -y -qq nginx >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; } \
    || { echo "$PROG: cannot install nginx" >&2; exit 2; }
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
FAILED=0

echo "== Kubernetes manifests (kubernetes-validate --strict)"
python3 -m kubernetes_validate --strict --no-warn deploy/kubernetes/*.yaml || FAILED=1
echo "== Compose file (check-jsonschema, vendor.compose-spec)"
python3 -m check_jsonschema --builtin-schema vendor.compose-spec deploy/compose.yaml || FAILED=1

echo "== deploy-consistency"
python3 - <<'EOF' || FAILED=1
import re, sys, yaml
failures = []
def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    ok or failures.append(what)

conf = open("deploy/nginx/storehouse.conf").read()
docs = [d for f in ["00-namespace.yaml", "10-nodes.yaml", "20-router.yaml"]
        for d in yaml.safe_load_all(open("deploy/kubernetes/" + f)) if d]
by_kind = {(d["kind"], d["metadata"]["name"]): d for d in docs}
cm = by_kind[("ConfigMap", "storehouse-router")]
check(cm["data"]["storehouse.conf"] == conf, "the router's ConfigMap holds deploy/nginx/storehouse.conf verbatim")
check("$storehouse_upstream" in cm["data"]["nodes.conf"], "the ConfigMap's nodes.conf defines $storehouse_upstream")

sts = by_kind[("StatefulSet", "storehouse")]
pod = sts["spec"]["template"]["spec"]
node = pod["containers"][0]
env = {e["name"]: e for e in node.get("env", [])}
check(env.get("STOREHOUSE_NODE_ID", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.name",
      "the StatefulSet's node id is the pod's name (downward API)")
claims = [c["metadata"]["name"] for c in sts["spec"].get("volumeClaimTemplates", [])]
check(any(m["name"] in claims and m["mountPath"] == "/data" for m in node.get("volumeMounts", [])),
      "each pod mounts its own volume claim at /data")
check(node.get("livenessProbe", {}).get("exec", {}).get("command") == ["storehouse", "healthcheck"],
      "liveness is the image's health check (storehouse healthcheck)")
check(node.get("readinessProbe", {}).get("httpGet", {}).get("path") == "/readyz", "readiness is /readyz")
drain = int(env.get("STOREHOUSE_SHUTDOWN_GRACE_S", {}).get("value", "10"))
check(pod.get("terminationGracePeriodSeconds", 30) > drain,
      "termination grace %s s > the drain (--shutdown-grace-s %d s)" % (pod.get("terminationGracePeriodSeconds", 30), drain))
headless = by_kind[("Service", sts["spec"]["serviceName"])]
check(headless["spec"].get("clusterIP") == "None", "the StatefulSet's Service is headless")
check("storehouse-nodes.storehouse.svc" in cm["data"]["nodes.conf"], "the router reaches pods under the headless Service")

compose = yaml.safe_load(open("deploy/compose.yaml"))
nodes_conf = open("deploy/nginx/nodes.conf").read()
services = {k: v for k, v in compose["services"].items() if k != "router"}
ids = {k: v.get("environment", {}).get("STOREHOUSE_NODE_ID") for k, v in services.items()}
volumes = {k: tuple(v.get("volumes", [])) for k, v in services.items()}
check(len(services) == 3 and all(ids[k] == k for k in services), "three Compose nodes, each with its service name as node id: %s" % ids)
check(len(set(volumes.values())) == len(services) and all(volumes.values()), "each Compose node has its own volume")
check(all(v.get("build", {}).get("context") == ".." for v in services.values()), "the nodes build from the project's Dockerfile")
for k in services:
    check(re.search(r"upstream %s \{[^}]*server %s:8080" % (k, k), nodes_conf) and re.search(r"\n\s+%s\s+%s;" % (k, k), nodes_conf),
          "nginx/nodes.conf routes %s" % k)
grace = compose["services"]["node-1"].get("stop_grace_period", "10s")
check(int(grace.rstrip("s")) > 10, "Compose stop_grace_period %s > the drain (10 s)" % grace)
sys.exit(1 if failures else 0)
EOF

echo "== nginx -t (storehouse.conf with each nodes file)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/validate-deploy.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
python3 - "$WORK" <<'EOF'
import sys, yaml
work = sys.argv[1]
cm = [d for d in yaml.safe_load_all(open("deploy/kubernetes/20-router.yaml")) if d and d["kind"] == "ConfigMap"][0]
files = {"compose": open("deploy/nginx/nodes.conf").read(), "kubernetes": cm["data"]["nodes.conf"]}
for name, text in files.items():
    for host in ["kube-dns.kube-system.svc.cluster.local", "storehouse.storehouse.svc.cluster.local",
                 "node-1", "node-2", "node-3"]:
        text = text.replace(host + ":", "127.0.0.1:").replace("resolver " + host, "resolver 127.0.0.1")
    text = text.replace(" resolve;", ";").replace(" resolve ", " ")
    open("%s/%s.conf" % (work, name), "w").write(text)
EOF
for nodes in compose kubernetes; do
  mkdir -p "$WORK/$nodes/conf"
  cp deploy/nginx/storehouse.conf "$WORK/$nodes/conf/storehouse.conf"
  cp "$WORK/$nodes.conf" "$WORK/$nodes/conf/nodes.conf"
  printf 'pid %s/nginx.pid;\nerror_log stderr;\nevents {}\nhttp { include storehouse.conf; include nodes.conf; }\n' "$WORK/$nodes" > "$WORK/$nodes/conf/nginx.conf"
  if "$NGINX" -t -q -p "$WORK/$nodes" -c conf/nginx.conf; then echo "ok    nginx -t: storehouse.conf with the $nodes nodes file"; else echo "FAIL  nginx -t with the $nodes nodes file"; FAILED=1; fi
done

[ "$FAILED" = 0 ] && echo "$PROG: deploy/ is valid" || echo "$PROG: FAILED"
exit "$FAILED"
