#!/usr/bin/env python3
"""bench-memory.py [BINARY] — RSS of one in-memory session as large actions or answers pile up.

Starts BINARY (default .build/release/storehouse; build it first with
`swift build -c release --product storehouse`) with --in-memory on a free port, then (MODE):
  history  (default) a counter session; ACTIONS (default 3000) `counter/incrTapped` actions whose
           `meta` is SIZE bytes (default 100,000). The history keeps at most 64 MiB of actions.
  answers  a tasks session holding 5 tasks with SIZE-byte titles, then ACTIONS `tasks/toggleDone`
           each with its own Idempotency-Key, so every first answer (the whole state, ~5 x SIZE)
           is kept for replay: at most 8 MiB of them per session.
Prints the server's RSS every 1,000 actions (RESULT lines).
"""
import http.client, json, os, socket, subprocess, sys, time

binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".build", "release", "storehouse")
actions, size = int(os.environ.get("ACTIONS", 3000)), int(os.environ.get("SIZE", 100_000))
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
server = subprocess.Popen([binary, "--in-memory", "--port", str(port), "--access-log", "false"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(200):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port); conn.request("GET", "/healthz"); conn.getresponse().read(); break
        except OSError:
            time.sleep(0.05)
    def rss_mib():
        with open(f"/proc/{server.pid}/status") as f:
            return int(next(l for l in f if l.startswith("VmRSS")).split()[1]) // 1024
    mode = os.environ.get("MODE", "history")
    def post(body, headers={}):
        conn.request("POST", f"/sessions/{session['id']}/actions", body=body,
                     headers={"Authorization": "Bearer " + session["token"], **headers})
        answer = conn.getresponse(); answer.read()
        return answer
    if mode == "answers":
        conn.request("POST", "/sessions", body='{"kind":"tasks"}'); session = json.loads(conn.getresponse().read())
        for _ in range(5): post('{"type":"tasks/add","payload":{"title":"' + "x" * size + '"}}')
        body = '{"type":"tasks/toggleDone","payload":{"id":1}}'
    else:
        conn.request("POST", "/sessions", body='{"kind":"counter"}'); session = json.loads(conn.getresponse().read())
        body = '{"type":"counter/incrTapped","meta":"' + "x" * size + '"}'
    print(f"# bench-memory {os.path.basename(binary)} MODE={mode}: {actions} actions, SIZE={size}, RSS at start {rss_mib()} MiB")
    for i in range(1, actions + 1):
        answer = post(body, {"Idempotency-Key": f"k{i}"} if mode == "answers" else {})
        if answer.status != 200: sys.exit(f"action {i}: HTTP {answer.status}")
        if i % 1000 == 0: print(f"RESULT actions={i} rss_mib={rss_mib()}")
finally:
    server.terminate(); server.wait()
