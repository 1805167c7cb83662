#!/usr/bin/env python3
"""cluster-check.py - the checks of scripts/cluster-test.sh against nodes behind nginx (stdlib only).

    cluster-check.py spread PROXY_URL NODES_JSON
        Sessions created through the proxy land on every node; each is served through the
        proxy, and 421 misdirected-request (naming its node) by every other node directly; an id
        naming a node the proxy does not know reaches some node, which answers 421 naming it;
        SSE streams through the proxy see every change of every node's sessions, in order.

    cluster-check.py failover PROXY_URL NODES_JSON VICTIM
        Load on sessions of every node through the proxy; SIGKILL node VICTIM (its pid in
        NODES_JSON): its sessions answer 503 problem+json node-unavailable with Retry-After,
        the other nodes' sessions keep answering 200, new sessions are still created (on the
        live nodes). Restart it with the same command line (new pid written to its pid file):
        its sessions are back with every acknowledged action, and EventSource-style clients
        (reconnecting with Last-Event-ID after `retry:` or Retry-After) see every version
        exactly once.

NODES_JSON: {"node-1": {"url": "http://127.0.0.1:P", "pid": N, "argv": [...], "pidfile": "...",
"log": "..."}, ...}. Prints one line per check; exit 0 = all passed, 1 = a check failed.
"""
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

FAILURES = []
DEADLINE_S = 30  # every wait below is for an event; this bounds how long it may take


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)
    return ok


def wait_for(predicate, what, timeout=DEADLINE_S):
    """Polls `predicate` until it holds (the event it names has happened) or `timeout` passes."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return check(False, "timed out waiting for " + what)


class Client:
    """One keep-alive HTTP/1.1 connection, reopened after any connection error."""

    def __init__(self, base):
        u = urllib.parse.urlsplit(base)
        self.host, self.port = u.hostname, u.port
        self.conn = None

    def request(self, method, path, body=None, token=None, headers=None, retry=True):
        h = dict(headers or {})
        if token:
            h["Authorization"] = "Bearer " + token
        data = None if body is None else json.dumps(body).encode()
        for attempt in range(2 if retry else 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
            try:
                self.conn.request(method, path, body=data, headers=h)
                r = self.conn.getresponse()
                raw = r.read()
                if r.getheader("Connection", "").lower() == "close":
                    self.close()
                try:
                    parsed = json.loads(raw) if raw else None
                except ValueError:
                    parsed = None
                return r.status, {k.lower(): v for k, v in r.getheaders()}, parsed, raw
            except (http.client.HTTPException, OSError):
                # A kept-alive connection the far end closed between requests: once more on a
                # fresh one. A second failure is the answer.
                self.close()
                if attempt == 1 or not retry:
                    raise

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def create_session(client):
    status, _, body, raw = client.request("POST", "/sessions", {"kind": "counter"})
    if status != 201 or not isinstance(body, dict):
        raise RuntimeError("POST /sessions answered %s %r" % (status, raw[:200]))
    return body["id"], body["token"]


def node_of(session_id):
    return session_id.split(".", 1)[0] if "." in session_id else None


def is_node_unavailable(status, headers, body, node):
    """nginx's 503 for a node that does not answer."""
    return (status == 503 and headers.get("content-type") == "application/problem+json"
            and headers.get("retry-after", "").isdigit() and isinstance(body, dict)
            and body.get("type") == "/problems/node-unavailable" and body.get("node") == node)


def is_recovering(status, headers, body):
    """The node's own 503 while it rebuilds its sessions at start, passed through by nginx."""
    return (status == 503 and headers.get("content-type") == "application/problem+json"
            and headers.get("retry-after", "").isdigit() and isinstance(body, dict)
            and body.get("type") == "/problems/not-ready")


class EventSource(threading.Thread):
    """What a browser's EventSource does, plus reconnecting after a 503 (which the HTML spec's
    EventSource gives up on): reads `id:`/`event:`/`data:`/`retry:`, and after the stream ends
    reconnects with Last-Event-ID once `retry` ms (or a 503's Retry-After) have passed."""

    def __init__(self, base, session_id, token):
        super().__init__(daemon=True)
        u = urllib.parse.urlsplit(base)
        self.host, self.port = u.hostname, u.port
        self.path = "/sessions/%s/events" % session_id
        self.token = token
        self.last_id = None
        self.retry_ms = 3000
        self.snapshots = []    # versions of `snapshot` events
        self.changes = []      # versions of `change` events, in arrival order
        self.connects = 0      # 200 answers
        self.refusals = []     # (status, problem type) of answers other than 200
        self.stopping = False
        self.conn = None

    @property
    def latest(self):
        versions = self.snapshots[-1:] + self.changes[-1:]
        return max(versions) if versions else -1

    def stop(self):
        self.stopping = True
        if self.conn is not None and self.conn.sock is not None:
            try:
                self.conn.sock.shutdown(2)
            except OSError:
                pass

    def run(self):
        while not self.stopping:
            delay = self.retry_ms / 1000
            try:
                delay = self.stream() or delay
            except (http.client.HTTPException, OSError, ValueError):
                pass
            end = time.monotonic() + delay
            while not self.stopping and time.monotonic() < end:
                time.sleep(0.02)

    def stream(self):
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        headers = {"Authorization": "Bearer " + self.token, "Accept": "text/event-stream"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        self.conn.request("GET", self.path, headers=headers)
        r = self.conn.getresponse()
        if r.status != 200:
            body = r.read()
            try:
                kind = json.loads(body).get("type")
            except ValueError:
                kind = body[:80]
            self.refusals.append((r.status, kind))
            retry_after = r.getheader("Retry-After")
            self.conn.close()
            return float(retry_after) if retry_after and retry_after.isdigit() else None
        self.connects += 1
        event, data, event_id = "message", [], None
        while not self.stopping:
            line = r.readline()
            if not line:
                break  # the stream ended: reconnect
            line = line.decode().rstrip("\r\n")
            if line == "":
                if event_id is not None:
                    self.last_id = event_id
                if data:
                    version = json.loads("\n".join(data))["version"]
                    if event == "snapshot":
                        self.snapshots.append(version)
                    elif event == "change":
                        self.changes.append(version)
                event, data, event_id = "message", [], None
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)
            elif field == "id":
                event_id = value
            elif field == "retry" and value.isdigit():
                self.retry_ms = int(value)
        self.conn.close()
        return None

    def exactly_once(self, final):
        """Every version after the first snapshot up to `final`, each once and in order."""
        if not self.snapshots:
            return False, "no snapshot"
        start = self.snapshots[0]
        expected = list(range(start + 1, final + 1))
        if self.changes != expected:
            dups = len(self.changes) - len(set(self.changes))
            missing = sorted(set(expected) - set(self.changes))
            return False, "snapshot %d, %d changes, %d duplicates, missing %s" % (
                start, len(self.changes), dups, missing[:10])
        if len(self.snapshots) != 1:
            return False, "%d snapshots (a resume sent a snapshot instead of the changes)" % len(self.snapshots)
        return True, "snapshot %d then versions %d..%d" % (start, start + 1, final)


def spread(proxy, nodes):
    client = Client(proxy)
    sessions = [create_session(client) for _ in range(3 * len(nodes))]
    by_node = {}
    for sid, token in sessions:
        by_node.setdefault(node_of(sid), []).append((sid, token))
    check(set(by_node) == set(nodes), "sessions created through the proxy landed on every node: %s"
          % {n: len(v) for n, v in sorted(by_node.items(), key=lambda kv: str(kv[0]))})

    direct = {name: Client(info["url"]) for name, info in nodes.items()}
    routed = misdirected = 0
    for sid, token in sessions:
        status, _, body, _ = client.request("GET", "/sessions/%s" % sid, token=token)
        routed += status == 200 and body.get("id") == sid
        for name, node in direct.items():
            if name == node_of(sid):
                continue
            status, _, body, _ = node.request("GET", "/sessions/%s" % sid, token=token)
            misdirected += status == 421 and body.get("node") == node_of(sid)
    check(routed == len(sessions), "every session served through the proxy (%d/%d)" % (routed, len(sessions)))
    check(misdirected == len(sessions) * (len(nodes) - 1),
          "every other node answers 421 misdirected-request naming the session's node (%d/%d)"
          % (misdirected, len(sessions) * (len(nodes) - 1)))
    status, _, body, _ = client.request("GET", "/sessions/node-x.3q2-7wBqT0uX2mYw9bZ1Qg/state", token="t")
    check(status == 421 and (body or {}).get("node") == "node-x",
          "an id naming a node the proxy does not know reaches a node, which answers 421 naming it (%s)" % status)

    one_per_node = [by_node[name][0] for name in sorted(nodes)]
    streams = [EventSource(proxy, sid, token) for sid, token in one_per_node]
    for s in streams:
        s.start()
    wait_for(lambda: all(s.snapshots for s in streams), "a snapshot on every stream")
    for sid, token in one_per_node:
        for _ in range(5):
            client.request("POST", "/sessions/%s/actions" % sid, {"type": "counter/incrTapped"}, token)
    wait_for(lambda: all(s.latest >= 5 for s in streams), "every change on every stream")
    for s, (sid, _) in zip(streams, one_per_node):
        ok, why = s.exactly_once(5)
        check(ok, "SSE through the proxy from %s sees every change: %s" % (node_of(sid), why))
        s.stop()


class Poster(threading.Thread):
    """Posts counter/incrTapped to one session through the proxy, as fast as it is answered."""

    def __init__(self, proxy, sid, token):
        super().__init__(daemon=True)
        self.client = Client(proxy)
        self.sid, self.token, self.node = sid, token, node_of(sid)
        self.acked = []         # (monotonic time, version) of every 200
        self.unavailable = []   # monotonic times of 503 node-unavailable answers
        self.errors = []        # anything else
        self.stopping = False

    def run(self):
        while not self.stopping:
            try:
                status, headers, body, raw = self.client.request(
                    "POST", "/sessions/%s/actions" % self.sid, {"type": "counter/incrTapped"}, self.token, retry=False)
            except (http.client.HTTPException, OSError) as e:
                self.errors.append(repr(e))
                continue
            if status == 200:
                self.acked.append((time.monotonic(), body["version"]))
            elif is_node_unavailable(status, headers, body, self.node) or is_recovering(status, headers, body):
                self.unavailable.append(time.monotonic())
                time.sleep(0.05)  # a client would wait Retry-After; the test keeps probing
            else:
                self.errors.append("%s %s" % (status, raw[:160]))

    def acked_since(self, t):
        return sum(1 for at, _ in self.acked if at > t)


def failover(proxy, nodes, victim):
    client = Client(proxy)
    sessions = {}
    while any(len(sessions.get(n, [])) < 2 for n in nodes):
        sid, token = create_session(client)
        sessions.setdefault(node_of(sid), []).append((sid, token))
    pairs = [p for n in sorted(nodes) for p in sessions[n][:2]]
    posters = [Poster(proxy, sid, token) for sid, token in pairs]
    streams = {sid: EventSource(proxy, sid, token) for sid, token in pairs}
    for s in streams.values():
        s.start()
    wait_for(lambda: all(s.snapshots for s in streams.values()), "a snapshot on every stream")
    for p in posters:
        p.start()
    wait_for(lambda: all(len(p.acked) >= 20 for p in posters), "20 acknowledged actions per session")

    info = nodes[victim]
    os.kill(info["pid"], signal.SIGKILL)
    killed_at = time.monotonic()
    print("      SIGKILL %s (pid %d) under load" % (victim, info["pid"]), flush=True)
    theirs = [p for p in posters if p.node == victim]
    others = [p for p in posters if p.node != victim]
    wait_for(lambda: all(len([t for t in p.unavailable if t > killed_at]) >= 5 for p in theirs)
             and all(p.acked_since(killed_at) >= 20 for p in others),
             "503s from %s's sessions and answers from the others" % victim)
    status, headers, body, _ = client.request("GET", "/sessions/%s/state" % theirs[0].sid, token=theirs[0].token)
    check(is_node_unavailable(status, headers, body, victim),
          "GET on %s's session while it is down: 503 problem+json node-unavailable with Retry-After (%s %s)"
          % (victim, status, body))
    created = [create_session(client) for _ in range(2 * len(nodes))]
    check(all(node_of(sid) != victim for sid, _ in created),
          "POST /sessions while %s is down: %d created, all on live nodes" % (victim, len(created)))
    # Its streams ended with the node; each EventSource comes back after `retry:` and is refused.
    wait_for(lambda: all(any(r[1] == "/problems/node-unavailable" for r in streams[p.sid].refusals) for p in theirs),
             "%s's EventSources to be refused 503 node-unavailable on reconnecting" % victim)

    with open(info["log"], "ab") as log:
        process = subprocess.Popen(info["argv"], stdout=log, stderr=log, start_new_session=True)
    with open(info["pidfile"], "w") as f:
        f.write(str(process.pid))
    restarted_at = time.monotonic()
    direct = Client(info["url"])

    def ready():
        try:
            return direct.request("GET", "/readyz")[0] == 200
        except OSError:
            return False
    wait_for(ready, "%s ready again" % victim)
    print("      %s restarted (pid %d); down %.1f s" % (victim, process.pid, time.monotonic() - killed_at), flush=True)
    wait_for(lambda: all(p.acked_since(restarted_at) >= 10 for p in theirs), "%s's sessions answering again" % victim)
    for p in posters:
        p.stopping = True
    for p in posters:
        p.join()

    for p in posters:
        check(not p.errors, "%s's session %s: no answer but 200%s (%d acknowledged; %s)" % (
            p.node, p.sid[:14], " or 503 (node-unavailable, then not-ready while it recovers)" if p.node == victim else "",
            len(p.acked), p.errors[:3]))
        status, _, body, _ = client.request("GET", "/sessions/%s/state" % p.sid, token=p.token)
        version = body["version"] if status == 200 else -1
        acked = max(v for _, v in p.acked)
        # The one POST in flight when the node died may have reached its journal unacknowledged.
        in_flight = 1 if p.node == victim else 0
        check(acked <= version <= acked + in_flight and body["state"]["count"] == version,
              "%s's session %s: version %d, count %s, highest acknowledged %d" % (
                  p.node, p.sid[:14], version, body["state"]["count"] if status == 200 else "-", acked))
        s = streams[p.sid]
        wait_for(lambda: s.latest >= version, "the stream of %s to reach version %d" % (p.sid[:14], version))
        s.stop()
        ok, why = s.exactly_once(version)
        resumed = " after %d reconnections with Last-Event-ID (%d refused: %s)" % (
            s.connects - 1, len(s.refusals), sorted(set(s.refusals))) if p.node == victim else ""
        check(ok and (p.node != victim or s.connects >= 2),
              "%s's stream sees every version exactly once%s: %s" % (p.node, resumed, why))
    print("      during the outage: %s's sessions %d x 503 node-unavailable; others %d x 200" % (
        victim, sum(len(p.unavailable) for p in theirs), sum(p.acked_since(killed_at) for p in others)
        - sum(p.acked_since(restarted_at) for p in others)), flush=True)


def main(argv):
    if len(argv) < 3 or argv[0] not in ("spread", "failover"):
        print(__doc__, file=sys.stderr)
        return 2
    command, proxy, nodes = argv[0], argv[1].rstrip("/"), json.load(open(argv[2]))
    if command == "spread":
        spread(proxy, nodes)
    else:
        failover(proxy, nodes, argv[3])
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
