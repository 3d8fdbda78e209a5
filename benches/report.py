#!/usr/bin/env python3
"""Prints the comparison table of BENCHMARKS.md from criterion's results.

Run after `cargo bench -p hooks-benches --bench compare`:
    python3 benches/report.py
It reads target/criterion/*/*/new/estimates.json (the median of each benchmark).
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"
WORKLOADS = [
    "10 registered, 2 matching",
    "10 registered, 8 matching",
    "100 registered, 2 matching",
    "1000 registered, 2 matching",
    "rewrite chained through 3 hooks",
]
EXTRA = [
    ("fixed cost", "ours, by handle, no hook matching"),
    ("fixed cost", "ours, by handle, now, no hook matching"),
]
COLUMNS = [
    "direct calls",
    "ours, by handle",
    "ours, by handle, now",
    "ours, by name",
    "ours, async hooks, by handle",
    "dynamic registry",
    "command hooks",
]


def medians():
    found = {}
    for benchmark in ROOT.glob("*/*/new/benchmark.json"):
        meta = json.loads(benchmark.read_text())
        estimates = json.loads((benchmark.parent / "estimates.json").read_text())
        found[(meta["group_id"], meta["function_id"])] = estimates["median"]["point_estimate"]
    return found


def show(nanoseconds):
    if nanoseconds is None:
        return "—"
    if nanoseconds >= 1e6:
        return f"{nanoseconds / 1e6:.2f} ms"
    if nanoseconds >= 1e3:
        return f"{nanoseconds / 1e3:.2f} µs"
    return f"{nanoseconds:.1f} ns"


def ratio(numerator, denominator):
    if numerator is None or denominator is None:
        return "—"
    return f"{numerator / denominator:.2f}×"


def main():
    found = medians()
    if not found:
        sys.exit("no criterion results: run `cargo bench -p hooks-benches --bench compare` first")
    header = ["workload", *COLUMNS, "ours ÷ direct", "now ÷ direct", "dynamic ÷ ours"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for workload in WORKLOADS:
        row = [found.get((workload, column)) for column in COLUMNS]
        direct, handle, now, dynamic = row[0], row[1], row[2], row[5]
        cells = [
            workload,
            *map(show, row),
            ratio(handle, direct),
            ratio(now, direct),
            ratio(dynamic, handle),
        ]
        print("| " + " | ".join(cells) + " |")
    for group, function in EXTRA:
        print(f"\n{group} ({function}): {show(found.get((group, function)))}")


if __name__ == "__main__":
    main()
