#!/usr/bin/env python3
"""cpu-split.py PID DELAY SECONDS — one process's user and system CPU, all threads, in cores.

Sleeps DELAY seconds (past a load generator's warm-up), reads /proc/PID/stat, sleeps SECONDS,
reads it again, and prints `CPU user_cores=... sys_cores=...`. Divided by the same window's
requests per second, it says where a request's CPU goes: the server's own code (user) or the
kernel's sockets, TCP and file system (sys). bench-fsync.sh runs it beside both servers.
"""
import os
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    fields = s[s.rindex(")") + 2:].split()
    return int(fields[11]), int(fields[12])  # utime, stime


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    pid, delay, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    time.sleep(delay)
    try:
        u0, s0 = ticks(pid)
        t0 = time.monotonic()
        time.sleep(seconds)
        u1, s1 = ticks(pid)
        wall = time.monotonic() - t0
    except OSError:
        sys.exit(0)  # the server ended first: no figure rather than a wrong one
    print(f"CPU user_cores={(u1 - u0) / TICK / wall:.3f} sys_cores={(s1 - s0) / TICK / wall:.3f}", flush=True)


if __name__ == "__main__":
    main()
