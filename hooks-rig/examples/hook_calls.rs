//! The bench's guard (`benches/adapter.rs`) as a native rig hook or through
//! `HooksHook`, in real agent runs, for instruction counts: criterion's
//! harness would blur a profile. `hook_calls native|adapter [RUNS]`.
//!
//! Every tool-call `on_dispatch` / `on_outcome` goes through one
//! out-of-line function each (`counted_dispatch`, `counted_outcome`) that
//! makes the hook's future and boxes it, as rig does for every hook it
//! calls (`Box::pin`, so the future's size is paid per call), polls it once
//! (the guard never waits) and drops it, so callgrind can count exactly that:
//!
//! ```sh
//! cargo build --release -p hooks-rig --example hook_calls
//! valgrind --tool=callgrind --toggle-collect='*counted_*' \
//!     target/release/examples/hook_calls adapter 200
//! ```
//!
//! The count for 2n runs less the count for n, over 8n, is one call's
//! (each run makes 8 tool calls, half of them refused).

use std::future::Future;
use std::pin::pin;
use std::sync::Once;
use std::task::{Context, Poll, Waker};

use rig_agent::agent::{
    AgentBuilder, AgentHook, DispatchAction, DispatchEvent, HookContext, OutcomeAction,
    OutcomeEvent,
};
use rig_core::providers::openai::OpenAIConfig;

#[allow(dead_code, unreachable_pub)]
#[path = "../tests/support/mod.rs"]
mod support;

#[allow(dead_code, unreachable_pub)]
#[path = "../benches/support/guard.rs"]
mod guard;

use guard::{NativeGuard, adapter, turn};
use support::ReadFile;
use support::server::{ScriptedModel, text};

/// Polls a future that must be ready at once.
fn now<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the guard waited"),
    }
}

static DISPATCH: Once = Once::new();
static OUTCOME: Once = Once::new();

/// Says once how large the future rig boxes per call is.
fn once(done: &Once, what: &str, size: usize) {
    done.call_once(|| eprintln!("{what} future: {size} bytes"));
}

#[inline(never)]
fn counted_dispatch<H: AgentHook>(
    hook: &H,
    ctx: &HookContext,
    event: DispatchEvent<'_>,
) -> DispatchAction {
    let future = Box::pin(hook.on_dispatch(ctx, event));
    once(&DISPATCH, "on_dispatch", size_of_val(&*future));
    now(future)
}

#[inline(never)]
fn counted_outcome<H: AgentHook>(
    hook: &H,
    ctx: &HookContext,
    event: OutcomeEvent<'_>,
) -> OutcomeAction {
    let future = Box::pin(hook.on_outcome(ctx, event));
    once(&OUTCOME, "on_outcome", size_of_val(&*future));
    now(future)
}

/// Sends tool calls through the counted functions.
struct Counted<H>(H);

impl<H: AgentHook> AgentHook for Counted<H> {
    async fn on_dispatch(&self, ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        if event.tool_name().is_none() {
            return self.0.on_dispatch(ctx, event).await;
        }
        counted_dispatch(&self.0, ctx, event)
    }

    async fn on_outcome(&self, ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        if event.tool_name().is_none() {
            return self.0.on_outcome(ctx, event).await;
        }
        counted_outcome(&self.0, ctx, event)
    }
}

async fn run<H: AgentHook + 'static>(hook: H, runs: u64) {
    let (model, base_url) = ScriptedModel::start([]).await;
    let client = OpenAIConfig::new("calls").with_base_url(base_url).client();
    let agent = AgentBuilder::new(client.chat("scripted"))
        .tool(ReadFile::default())
        .default_max_turns(4)
        .add_hook(Counted(hook))
        .build();
    for _ in 0..runs {
        model.script([turn(), text("done")]);
        agent.prompt("read").await.expect("the run completes");
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let case = args.next().unwrap_or_else(|| "adapter".to_owned());
    let runs: u64 = args.next().map_or(100, |n| n.parse().expect("a count"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    match case.as_str() {
        "native" => runtime.block_on(run(NativeGuard, runs)),
        "adapter" => runtime.block_on(run(adapter(), runs)),
        other => panic!("unknown case {other}: native or adapter"),
    }
}
