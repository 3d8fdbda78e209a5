#!/usr/bin/env python3
"""What the MCP gateway costs in CPU per tool call, beside a byte relay:
the time the gateway's process spends (user and system, from
/proc/<pid>/stat) over calls made one after the other — the part of its
added latency that is work rather than waiting, and far steadier than
latency on a shared machine.

    cargo test -p hooks-mcp --test gateway        # builds target/tmp/mcp-venv once
    cargo build --release -p hooks-mcp --bin hooks-mcp --examples
    python3 benches/gateway_cpu.py [CALLS]

Speaks MCP over the process's stdin and stdout (initialize, then CALLS
calls of mcp-server-time's get_current_time, default 2000, after 100 to
warm up), each path in turn, twice: the relay example (a process copying
bytes, the floor of any gateway in a process of its own) and hooks-mcp with
no configuration. Also prints the upstream server's own CPU per call, which
neither path should change.
"""

import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(ROOT, "target", "tmp", "mcp-venv", "bin", "mcp-server-time")
RELEASE = os.path.join(ROOT, "target", "release")
PATHS = [
    ("byte relay (the floor)", [os.path.join(RELEASE, "examples", "relay"), SERVER]),
    ("hooks-mcp, no configuration", [os.path.join(RELEASE, "hooks-mcp"), "--", SERVER]),
]
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid):
    """User and system clock ticks of `pid` so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])


def children(pid):
    with open(f"/proc/{pid}/task/{pid}/children") as listed:
        return [int(child) for child in listed.read().split()]


def measure(command, calls):
    """(user, system, upstream) CPU µs per call, and wall µs per call."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(message):
        process.stdin.write((json.dumps(message) + "\n").encode())
        process.stdin.flush()

    def answer():
        while True:
            line = process.stdout.readline()
            if not line:
                sys.exit(f"{command[0]} closed its stdout")
            message = json.loads(line)
            if "id" in message:
                return message

    def call(number):
        send({"jsonrpc": "2.0", "id": number, "method": "tools/call",
              "params": {"name": "get_current_time", "arguments": {"timezone": "UTC"}}})
        reply = answer()
        if "result" not in reply or reply["result"].get("isError"):
            sys.exit(f"the call failed: {reply}")

    def sample():
        user, system = cpu_ticks(process.pid)
        upstream = sum(sum(cpu_ticks(child)) for child in children(process.pid))
        return user, system, upstream, time.perf_counter()

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "gateway_cpu", "version": "1"}}})
    answer()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for number in range(1, 101):
        call(number)
    before = sample()
    for number in range(101, 101 + calls):
        call(number)
    after = sample()
    process.stdin.close()
    process.wait()
    per_call = [(a - b) / TICKS / calls * 1e6 for a, b in zip(after[:3], before[:3])]
    return per_call, (after[3] - before[3]) / calls * 1e6


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for _, command in PATHS:
        if not os.path.exists(command[0]):
            sys.exit(f"build it first: cargo build --release -p hooks-mcp --bin hooks-mcp --examples ({command[0]})")
    if not os.path.exists(SERVER):
        sys.exit(f"install the server first: cargo test -p hooks-mcp --test gateway ({SERVER})")
    print(f"{calls} calls one after the other, each path twice in turn; CPU per call")
    print("| path | run | CPU (user + system) | upstream's CPU | wall |")
    print("|---|---|---|---|---|")
    for run in (1, 2):
        for label, command in PATHS:
            (user, system, upstream), wall = measure(command, calls)
            print(f"| {label} | {run} | {user + system:.0f} µs ({user:.0f} + {system:.0f}) "
                  f"| {upstream:.0f} µs | {wall:.0f} µs |")


if __name__ == "__main__":
    main()
