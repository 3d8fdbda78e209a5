use hooks_core::prelude::*;

struct Guards;

impl Guards {
    #[pre_tool_use]
    fn guard(&mut self) {}
}

fn main() {}
