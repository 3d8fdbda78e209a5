//! What the compile errors under `ui/fail` tell the user to write, written:
//! each suggestion compiles, and the dispatcher built from it works.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hooks_core::prelude::*;

// two_states_of_the_same_type: "give each its own type (a newtype such as
// `struct High(Limit);`)".
struct Limit(u64);
struct High(Limit);

#[pre_tool_use(group = "fixes")]
fn between(ctx: &mut PreToolUse, low: &Limit, high: &High) -> Decision {
    match ctx.args()["n"].as_u64() {
        Some(n) if n >= low.0 && n <= high.0.0 => Decision::Continue,
        _ => Decision::deny("out of range"),
    }
}

// state_trait_object: "give the builder a `Box<dyn Policy + Send + Sync>`
// and take `&Box<dyn Policy + Send + Sync>`".
trait Policy {
    fn allows(&self, tool: &str) -> bool;
}

struct NoShell;

impl Policy for NoShell {
    fn allows(&self, tool: &str) -> bool {
        tool != "Bash"
    }
}

#[pre_tool_use(group = "fixes")]
fn check(ctx: &mut PreToolUse, policy: &Box<dyn Policy + Send + Sync>) -> Decision {
    if policy.allows(ctx.tool()) { Decision::Continue } else { Decision::deny("policy") }
}

// state_str: "give the builder a `String` and take `&String`".
#[pre_tool_use(group = "fixes")]
fn prefix(ctx: &mut PreToolUse, allowed_prefix: &String) -> Decision {
    if ctx.tool().starts_with(allowed_prefix.as_str()) || ctx.tool() == "Bash" {
        Decision::Continue
    } else {
        Decision::deny("prefix")
    }
}

// optional_state: "give the builder an `Option<Limits>` and take `&Option<Limits>`".
struct Limits {
    max: u64,
}

#[pre_tool_use(group = "fixes")]
fn cap(ctx: &mut PreToolUse, limits: &Option<Limits>) -> Decision {
    match (limits, ctx.args()["amount"].as_u64()) {
        (Some(limits), Some(amount)) if amount > limits.max => Decision::deny("too much"),
        _ => Decision::Continue,
    }
}

// state_before_context: "`fn cap(ctx: &mut PreToolUse, limits: &Limits)`".
#[pre_tool_use(group = "fixes_order")]
fn ordered(ctx: &mut PreToolUse, limits: &Limits) -> Decision {
    match ctx.args()["amount"].as_u64() {
        Some(amount) if amount <= limits.max => Decision::Continue,
        _ => Decision::deny("too much"),
    }
}

// state_rc: "use `Arc` rather than `Rc`".
#[pre_tool_use(group = "fixes")]
fn shared(_ctx: &mut PreToolUse, calls: &Arc<AtomicUsize>) {
    calls.fetch_add(1, Ordering::Relaxed);
}

// deferred_lifetime_elided: "`Deferred<'static, Decision>` when it borrows
// nothing, or `'s` from the state it reads".
#[pre_tool_use(group = "fixes")]
fn later(ctx: &mut PreToolUse) -> Deferred<'static, Decision> {
    let slow = ctx.tool().ends_with("_slow");
    Deferred::Later(Box::pin(async move {
        if slow { Decision::deny("too slow") } else { Decision::Continue }
    }))
}

#[pre_tool_use(group = "fixes")]
fn later_with_state<'s>(_ctx: &mut PreToolUse, calls: &'s Arc<AtomicUsize>) -> Deferred<'s, Decision> {
    Deferred::Later(Box::pin(async move {
        calls.fetch_add(1, Ordering::Relaxed);
        Decision::Continue
    }))
}

// default_state_not_a_result: "return `Ok(value)`, or implement `Default`
// and write `default_state!(T)`".
struct Quota(u32);

fn quota() -> Result<Quota, std::convert::Infallible> {
    Ok(Quota(3))
}

hooks_core::default_state!(Quota, quota);

#[derive(Default)]
struct Seen(AtomicUsize);

hooks_core::default_state!(Seen);

#[post_tool_use(group = "fixes_defaults", observe)]
fn seen(_ctx: &PostToolUse, quota: &Quota, seen: &Seen) {
    seen.0.fetch_add(quota.0 as usize, Ordering::Relaxed);
}

fn call(tool: &'static str, args: Value) -> PreToolUse {
    PreToolUse::new(&Session::new("s"), tool, args)
}

fn main() {
    let calls = Arc::new(AtomicUsize::new(0));
    let hooks = Hooks::builder()
        .groups(["fixes"])
        .state(Limit(1))
        .state(High(Limit(10)))
        .state(Box::new(NoShell) as Box<dyn Policy + Send + Sync>)
        .state(String::from("sql_"))
        .state(None::<Limits>)
        .state(Arc::clone(&calls))
        .build()
        .unwrap();
    let run = |tool: &'static str, args: Value| hooks_tests::block_on(hooks.dispatch(&mut call(tool, args)));
    let denied = |tool: &'static str, args: Value| run(tool, args).denial().map(|d| d.reason().to_owned());
    assert!(run("sql_query", json!({"n": 5})).is_continue());
    // `later_with_state` and `shared` each counted the call.
    assert_eq!(calls.load(Ordering::Relaxed), 2);
    assert_eq!(denied("sql_query", json!({"n": 50})).as_deref(), Some("out of range"));
    assert_eq!(denied("Bash", json!({"n": 5})).as_deref(), Some("policy"));
    assert_eq!(denied("sql_slow", json!({"n": 5})).as_deref(), Some("too slow"));
    assert_eq!(denied("http_get", json!({"n": 5})).as_deref(), Some("prefix"));
    assert_eq!(denied("sql_pay", json!({"n": 5, "amount": 1_000})), None);

    let ordered = Hooks::builder()
        .groups(["fixes_order"])
        .state(Limits { max: 10 })
        .build()
        .unwrap();
    let outcome = hooks_tests::block_on(ordered.dispatch(&mut call("pay", json!({"amount": 50}))));
    assert_eq!(outcome.denial().unwrap().reason(), "too much");

    // The closure fixes: one struct for the state, `Hook::observer` to look.
    struct Range {
        low: u64,
        high: u64,
    }
    let looked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&looked);
    let closures = Hooks::builder()
        .without_linked()
        .state(Range { low: 1, high: 10 })
        .hook(Hook::new("range", |ctx: &mut PreToolUse, range: &Range| {
            match ctx.args()["n"].as_u64() {
                Some(n) if n >= range.low && n <= range.high => Decision::Continue,
                _ => Decision::deny("out of range"),
            }
        }))
        .hook(Hook::observer("look", move |_ctx: &PreToolUse| {
            counter.fetch_add(1, Ordering::Relaxed);
        }))
        .build()
        .unwrap();
    let outcome = hooks_tests::block_on(closures.dispatch(&mut call("t", json!({"n": 50}))));
    assert_eq!(outcome.denial().unwrap().reason(), "out of range");
    assert_eq!(looked.load(Ordering::Relaxed), 1);

    let defaults = Hooks::builder().groups(["fixes_defaults"]).build().unwrap();
    assert_eq!(defaults.state::<Quota>().unwrap().0, 3);
}
