#!/usr/bin/env python3
"""probe-keepalive.py [BINARY] — one keep-alive connection sending a request every INTERVAL for DURATION.

Starts BINARY (default .build/release/storehouse) --in-memory on a free port, creates a counter
session, then on ONE connection sends, every INTERVAL seconds (default 0.05) for DURATION seconds
(default 300, five times the 60 s idle timeout), in turn `GET /healthz`, `GET /kinds` and the
session's `GET /state`. Prints a RESULT line: requests sent, answered 200, and what happened to the
first one that was not (the connection closed, reset, or another status).
"""
import http.client, json, os, socket, subprocess, sys, time

binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".build", "release", "storehouse")
interval = float(os.environ.get("INTERVAL", 0.05))
duration = float(os.environ.get("DURATION", 300))
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
server = subprocess.Popen([binary, "--in-memory", "--port", str(port), "--access-log", "false"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(200):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/readyz"); conn.getresponse().read(); break
        except OSError:
            time.sleep(0.05)
    conn.request("POST", "/sessions", body='{"kind":"counter"}'); session = json.loads(conn.getresponse().read())
    auth = {"Authorization": "Bearer " + session["token"]}
    targets = ["/healthz", "/kinds", f"/sessions/{session['id']}/state"]
    sent = answered = 0
    failure = None
    started = time.time()
    while time.time() - started < duration:
        target = targets[sent % len(targets)]
        sent += 1
        try:
            # http.client reconnects silently after a close; auto_open=0 makes a closed connection an error.
            conn.auto_open = 0
            conn.request("GET", target, headers=auth)
            answer = conn.getresponse(); answer.read()
            if answer.status != 200:
                failure = f"request {sent} ({target}) after {time.time() - started:.1f} s: HTTP {answer.status}"; break
            answered += 1
        except (OSError, http.client.HTTPException) as error:
            failure = f"request {sent} ({target}) after {time.time() - started:.1f} s: {type(error).__name__} {error}"; break
        time.sleep(interval)
    print(f"RESULT keepalive interval_s={interval} duration_s={time.time() - started:.0f} sent={sent} answered={answered} "
          f"failure={failure or 'none'} load={os.getloadavg()[0]:.2f}")
finally:
    server.terminate(); server.wait()
