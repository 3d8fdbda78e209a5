//! One Cedar decision (the `cedar::guard` hook, dispatched alone through a
//! tool handle) with 10 and 1,000 policies: a refund a permit allows, and
//! one no permit allows. Run with `cargo bench -p hooks-benches --bench cedar`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hooks_benches::ready;
use hooks_core::ToolFacts;
use hooks_core::prelude::*;
use hooks_std::cedar::{Cedar, CedarGuard};

hooks_core::link!(hooks_std);

/// `count` policies: the refund rule, and permits for other groups' tools.
fn policy_set(count: usize) -> (PathBuf, Vec<ToolFacts>) {
    let dir =
        std::env::temp_dir().join(format!("hooks-bench-cedar-{}-{count}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::from(
        "@id(\"refunds-support\")\npermit (principal in Group::\"support\", action == Action::\"call_tool\", resource == Tool::\"refund\")\nwhen { context.args has amount && context.args.amount > 0 && context.args.amount <= 100 };\n",
    );
    let schema = json!({"type": "object", "properties": {"amount": {"type": "integer"}}});
    let mut tools = vec![ToolFacts::new("refund").schema(schema.clone())];
    for n in 1..count {
        let _ = writeln!(
            text,
            "permit (principal in Group::\"g{n}\", action == Action::\"call_tool\", resource == Tool::\"tool{n}\")\nwhen {{ context.args has amount && context.args.amount <= {n} }};"
        );
        tools.push(ToolFacts::new(format!("tool{n}")).schema(schema.clone()));
    }
    std::fs::write(dir.join("policies.cedar"), text).unwrap();
    std::fs::write(
        dir.join("entities.json"),
        r#"[{"uid": {"type": "User", "id": "ann"}, "attrs": {}, "parents": [{"type": "Group", "id": "support"}]},
            {"uid": {"type": "Group", "id": "support"}, "attrs": {}, "parents": []}]"#,
    )
    .unwrap();
    (dir, tools)
}

fn decisions(c: &mut Criterion) {
    let mut group = c.benchmark_group("cedar, one decision");
    let session = Session::new("bench").with_user("ann");
    for count in [10, 1000] {
        let (dir, tools) = policy_set(count);
        let config = Cedar {
            entities: Some(dir.join("entities.json")),
            ..Cedar::new(dir.join("policies.cedar"))
        };
        let hooks = Hooks::builder()
            .only(["hooks_std::cedar::guard"])
            .tools(tools)
            .state(CedarGuard::new(config).unwrap())
            .build()
            .unwrap();
        hooks
            .state::<CedarGuard>()
            .unwrap()
            .validate(hooks.catalog())
            .unwrap();
        let handle = hooks.tool("refund");
        let mut allowed =
            PreToolUse::new(&session, "refund", json!({"amount": 40, "order": "A-7"}));
        group.bench_with_input(BenchmarkId::new("allowed", count), &count, |b, _| {
            b.iter(|| assert!(ready(handle.dispatch(black_box(&mut allowed))).is_continue()));
        });
        let mut denied =
            PreToolUse::new(&session, "refund", json!({"amount": 5000, "order": "A-7"}));
        group.bench_with_input(BenchmarkId::new("denied", count), &count, |b, _| {
            b.iter(|| assert!(ready(handle.dispatch(black_box(&mut denied))).is_denied()));
        });
        let _ = std::fs::remove_dir_all(&dir);
    }
    group.finish();
}

criterion_group!(benches, decisions);
criterion_main!(benches);
