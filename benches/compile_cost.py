#!/usr/bin/env python3
"""Measures what `#[pre_tool_use]` costs the compiler.

Generates two crates in target/compile-cost/: `hooked`, with N hooks written
with `#[pre_tool_use]`, and `plain`, with the same N functions (same
signatures, same bodies) and no attribute. Builds their dependencies once,
then times rebuilding each crate alone (after touching its source), in debug
and in release, a plain rebuild then a hooked one in each pair, and prints
the medians of wall and CPU time and of the pairs' ratios hooked / plain.

    python3 benches/compile_cost.py            # 1,000 hooks, 5 runs each
    python3 benches/compile_cost.py 200 3      # 200 hooks, 3 runs each
"""

import os
import pathlib
import resource
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


def rebuild(crate: str, release: bool) -> tuple[float, float]:
    """Rebuilds `crate` alone; its wall time and CPU time (user + sys of
    cargo and rustc), which load from other builds disturbs less."""
    (WORK / crate / "src" / "lib.rs").touch()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    cargo("build", "-p", crate, *(["--release"] if release else []))
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    write(count)
    for release in (False, True):
        # Dependencies first, so only the crate itself is timed.
        cargo("build", *(["--release"] if release else []))
    print(f"{count} functions, median of {runs} rebuilds of the crate alone, each hooked")
    print("rebuild paired with a plain one (the ratio is the median of the pairs')")
    print("| profile | | plain functions | #[pre_tool_use] hooks | ratio |")
    print("|---|---|---|---|---|")
    median = statistics.median
    for release in (False, True):
        pairs = [(rebuild("plain", release), rebuild("hooked", release)) for _ in range(runs)]
        name = "release" if release else "debug"
        for column, label in ((0, "wall"), (1, "CPU")):
            base = median(plain[column] for plain, _ in pairs)
            hooks = median(hooked[column] for _, hooked in pairs)
            ratio = median(hooked[column] / plain[column] for plain, hooked in pairs)
            print(f"| {name} | {label} | {base:.2f} s | {hooks:.2f} s | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
