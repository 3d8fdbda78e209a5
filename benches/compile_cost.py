#!/usr/bin/env python3
"""Measures what `#[pre_tool_use]` costs the compiler.

Generates two crates in target/compile-cost/: `hooked`, with N hooks written
with `#[pre_tool_use]`, and `plain`, with the same N functions (same
signatures, same bodies) and no attribute. Builds their dependencies once,
then times rebuilding each crate alone (after touching its source), in debug
and in release, and prints the medians and the ratio hooked / plain.

    python3 benches/compile_cost.py            # 1,000 hooks, 5 runs each
    python3 benches/compile_cost.py 200 3      # 200 hooks, 3 runs each
"""

import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "compile-cost"

BODY = """\
    match ctx.args()["query"].as_str() {{
        Some(q) if q.starts_with("DROP {n}") => ::hooks_core::Decision::deny("not allowed"),
        _ => ::hooks_core::Decision::Continue,
    }}
"""


def hooked(count: int) -> str:
    return "".join(
        f'#[::hooks_core::pre_tool_use(priority = {n % 7}, matches = "sql_*")]\n'
        f"fn hook_{n}(ctx: &mut ::hooks_core::PreToolUse) -> ::hooks_core::Decision {{\n"
        + BODY.format(n=n)
        + "}\n\n"
        for n in range(count)
    )


def plain(count: int) -> str:
    return "".join(
        f"pub fn hook_{n}(ctx: &mut ::hooks_core::PreToolUse) -> ::hooks_core::Decision {{\n"
        + BODY.format(n=n)
        + "}\n\n"
        for n in range(count)
    )


def write(count: int) -> None:
    if WORK.exists():
        shutil.rmtree(WORK)
    core = ROOT / "hooks-core"
    (WORK).mkdir(parents=True)
    (WORK / "Cargo.toml").write_text(
        '[workspace]\nresolver = "3"\nmembers = ["hooked", "plain"]\n'
        "[profile.dev]\ndebug = \"line-tables-only\"\n"
        "[profile.dev.package.\"*\"]\ndebug = false\n"
    )
    shutil.copy(ROOT / "Cargo.lock", WORK / "Cargo.lock")
    for name, source in (("hooked", hooked(count)), ("plain", plain(count))):
        crate = WORK / name
        (crate / "src").mkdir(parents=True)
        (crate / "Cargo.toml").write_text(
            f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
            f'[dependencies]\nhooks-core = {{ path = "{core}" }}\n'
        )
        allow = "#![allow(dead_code)]\n" if name == "hooked" else ""
        (crate / "src" / "lib.rs").write_text(allow + source)


def cargo(*args: str) -> None:
    subprocess.run(
        ["cargo", *args, "--quiet", "--offline"],
        cwd=WORK,
        check=True,
        env={**os.environ, "CARGO_TARGET_DIR": str(WORK / "target"), "CARGO_INCREMENTAL": "0"},
    )


def timed(crate: str, release: bool, runs: int) -> float:
    profile = ["--release"] if release else []
    samples = []
    for _ in range(runs):
        (WORK / crate / "src" / "lib.rs").touch()
        started = time.perf_counter()
        cargo("build", "-p", crate, *profile)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    write(count)
    for release in (False, True):
        # Dependencies first, so only the crate itself is timed.
        cargo("build", *(["--release"] if release else []))
    print(f"{count} functions, median of {runs} rebuilds of the crate alone")
    print("| profile | plain functions | #[pre_tool_use] hooks | ratio |")
    print("|---|---|---|---|")
    for release in (False, True):
        base = timed("plain", release, runs)
        hooks = timed("hooked", release, runs)
        name = "release" if release else "debug"
        print(f"| {name} | {base:.2f} s | {hooks:.2f} s | {hooks / base:.2f}x |")


if __name__ == "__main__":
    main()
