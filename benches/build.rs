//! Generates the non-matching hooks the benchmarks register: real
//! `#[pre_tool_use]` functions, as a large codebase would have, in groups
//! that add up to the workload sizes (2 + 8 = 10, + 90 = 100, + 900 = 1,000).

use std::fmt::Write as _;
use std::path::PathBuf;

const GROUPS: [(&str, usize); 4] = [
    ("noise2", 2),
    ("noise8", 8),
    ("noise90", 90),
    ("noise900", 900),
];

fn main() {
    let mut code = String::new();
    let mut n = 0;
    for (group, count) in GROUPS {
        for _ in 0..count {
            let _ = writeln!(
                code,
                "#[::hooks_core::pre_tool_use(group = \"{group}\", matches = \"other_tool_{n:04}\", name = \"noise_{n:04}\")]\n\
                 fn noise_{n:04}(_ctx: &mut ::hooks_core::PreToolUse) -> ::hooks_core::Decision {{\n\
                 \x20   ::hooks_core::Decision::deny(\"a non-matching hook ran\")\n}}\n"
            );
            n += 1;
        }
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("noise.rs"), code).expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
}
