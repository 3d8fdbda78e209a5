//! Generates the non-matching hooks the scaling benchmarks register: a
//! thousand real `#[pre_tool_use]` functions, as a large codebase would have.

use std::fmt::Write as _;
use std::path::PathBuf;

/// How many non-matching hooks the `thousand` group holds.
const NOISE: usize = 998;

fn main() {
    let mut code = String::new();
    for i in 0..NOISE {
        // Eight of them also go in the `ten` group: 8 non-matching + 2 matching = 10.
        let group = if i < 8 { "ten_noise" } else { "thousand_noise" };
        let _ = writeln!(
            code,
            "#[::hooks_core::pre_tool_use(group = \"{group}\", matches = \"other_tool_{i:04}\", name = \"noise_{i:04}\")]\n\
             fn noise_{i:04}(_ctx: &mut ::hooks_core::PreToolUse) -> ::hooks_core::Decision {{\n\
             \x20   ::hooks_core::Decision::deny(\"a non-matching hook ran\")\n}}\n"
        );
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("noise.rs"), code).expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
}
