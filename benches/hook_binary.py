#!/usr/bin/env python3
"""What one invocation of the hook binary costs, as Claude Code pays it: a new
process per event, its stdin the event, its answer on stdout.

    cargo build --release -p hooks-claude --bin hooks-claude
    python3 benches/hook_binary.py [RUNS]

Spawns each command RUNS times (default 300) with `posix_spawn`, stdin from a
file, stdout and stderr to /dev/null, and prints the median and 90th
percentile wall time. `/bin/true` is the floor: what spawning any process
costs from here (this script's own overhead included). The binary runs the
documented `PreToolUse` payload with a small config (read-only guard and
result truncation) and a state directory, as in `hooks-claude/tests`; the
read-only guard refuses its `git push` (exit 2), and any other exit fails
the measurement.
"""

import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, "target", "release", "hooks-claude")
PAYLOAD = os.path.join(ROOT, "hooks-claude", "tests", "payloads", "claude", "PreToolUse.json")
CONFIG = "[read_only]\nenabled = true\n\n[truncate]\nmax_chars = 4000\n"


def timed(argv, stdin_path, runs, allowed=(0,)):
    """Wall times of `runs` spawns of `argv`, in milliseconds; each must
    exit with one of `allowed`."""
    times = []
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for _ in range(runs):
            stdin = os.open(stdin_path, os.O_RDONLY)
            actions = [
                (os.POSIX_SPAWN_DUP2, stdin, 0),
                (os.POSIX_SPAWN_DUP2, null, 1),
                (os.POSIX_SPAWN_DUP2, null, 2),
            ]
            started = time.perf_counter()
            pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
            _, status = os.waitpid(pid, 0)
            times.append((time.perf_counter() - started) * 1000)
            os.close(stdin)
            code = os.waitstatus_to_exitcode(status)
            if code not in allowed:
                sys.exit(f"{' '.join(argv)} exited {code}: a failing run would time nothing")
    finally:
        os.close(null)
    return times


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    if not os.path.exists(BINARY):
        sys.exit(f"build it first: cargo build --release -p hooks-claude --bin hooks-claude ({BINARY})")
    with tempfile.TemporaryDirectory() as state:
        config = os.path.join(state, "hooks.toml")
        with open(config, "w") as file:
            file.write(CONFIG)
        # The payload's `git push` is refused by the read-only guard: exit 2,
        # the reason on stderr, Claude Code's "block". A whole run: the
        # event parsed, the config read, the hooks dispatched, the answer.
        cases = [
            ("/bin/true (the floor)", ["/bin/true"], (0,)),
            ("hooks-claude --help", [BINARY, "--help"], (0,)),
            (
                "hooks-claude, PreToolUse refused by read-only (config: read-only + truncate)",
                [BINARY, "--config", config, "--state-dir", state],
                (2,),
            ),
        ]
        print(f"{runs} runs each; wall time per invocation")
        print("| command | median | p90 |")
        print("|---|---|---|")
        for label, argv, allowed in cases:
            times = sorted(timed(argv, PAYLOAD, runs, allowed))
            print(f"| {label} | {statistics.median(times):.2f} ms | {times[len(times) * 9 // 10]:.2f} ms |")


if __name__ == "__main__":
    main()
