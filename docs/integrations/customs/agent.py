#!/usr/bin/env python3
"""A customs host agent for Arbiter: reports this host, obeys the answer.

Every interval it sends PUT /v1/hosts/<name> with the host's load, free swap,
imported jobs and idle time, then delivers the signals Arbiter's answer asks
for to the imported jobs (the eviction protocol of docs/api.md, "The agent
protocol"). Python 3.8+, standard library only; Linux (/proc).

  ARBITER_URL          Arbiter's base URL (default http://127.0.0.1:8787)
  ARBITER_AGENT_TOKEN  a token of Arbiter's AGENT_TOKENS (optional)
  HOST_NAME            this host's name in the pool (default: the host name)
  HOST_ADDRESS         this host's address (required)
  HOST_NET             the pool's network number (default 0)
  PERMITS_DIR          where the job runner writes <permit id>.pid for each
                       imported job it starts (default /run/arbiter-permits)

  agent.py            report for ever, at the interval Arbiter answers
  agent.py --once     report once, print Arbiter's answer as JSON, and exit
"""
import json
import os
import signal
import socket
import sys
import time
import urllib.request
from datetime import datetime

ARBITER = os.environ.get("ARBITER_URL", "http://127.0.0.1:8787").rstrip("/")
TOKEN = os.environ.get("ARBITER_AGENT_TOKEN")
NAME = os.environ.get("HOST_NAME", socket.gethostname())
PERMITS = os.environ.get("PERMITS_DIR", "/run/arbiter-permits")


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def swap_free_pct():
    info = {}
    with open("/proc/meminfo") as f:
        for line in f:
            key, value = line.split(":", 1)
            info[key] = int(value.split()[0])
    total = info.get("SwapTotal", 0)
    return 100.0 if total == 0 else 100.0 * info.get("SwapFree", 0) / total


def imported_jobs():
    try:
        return [p for p in os.listdir(PERMITS) if p.endswith(".pid")]
    except FileNotFoundError:
        return []


def idle_seconds():
    """Seconds since a terminal was last used (the newest tty's access time); a host nobody logs in to is idle since boot."""
    newest = 0.0
    for tty in os.listdir("/dev/pts") if os.path.isdir("/dev/pts") else []:
        try:
            newest = max(newest, os.stat(os.path.join("/dev/pts", tty)).st_atime)
        except OSError:
            pass
    if newest == 0.0:
        with open("/proc/uptime") as f:
            return int(float(f.read().split()[0]))
    return int(max(0, time.time() - newest))


def report():
    body = {
        "address": os.environ["HOST_ADDRESS"],
        "net": int(os.environ.get("HOST_NET", "0")),
        "load": load_average(),
        "swapFreePct": swap_free_pct(),
        "jobs": len(imported_jobs()),
        "idleSeconds": idle_seconds(),
    }
    headers = {"content-type": "application/json"}
    if TOKEN:
        headers["authorization"] = "Bearer " + TOKEN
    request = urllib.request.Request(f"{ARBITER}/v1/hosts/{NAME}", data=json.dumps(body).encode(), headers=headers, method="PUT")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


delivered = set()


def deliver(instructions):
    """Signals imported jobs as Arbiter instructs, once per (permit, signal); a cancelled one is forgotten."""
    now = time.time()
    for i in instructions:
        key = (i["permit"], i["signal"])
        if i.get("cancel"):
            delivered.discard(key)
            continue
        at = datetime.fromisoformat(i["at"].replace("Z", "+00:00")).timestamp()
        if key in delivered or at > now:
            continue
        try:
            with open(os.path.join(PERMITS, f"{i['permit']}.pid")) as f:
                os.kill(int(f.read().strip()), getattr(signal, i["signal"]))
            delivered.add(key)
        except (FileNotFoundError, ProcessLookupError, ValueError):
            delivered.add(key)  # the job is gone already


def main():
    if "--once" in sys.argv[1:]:
        print(json.dumps(report()))
        return
    while True:
        try:
            answer = report()
            deliver(answer["instructions"])
            interval = answer["interval"]
        except OSError as e:
            print(f"report failed: {e}", file=sys.stderr)
            interval = 10
        time.sleep(min(interval, 5))  # signals fall due between reports too


if __name__ == "__main__":
    main()
