//! The same guard as a native rig hook and through the adapter, measured as
//! rig's own hook calls inside real agent runs (rig's OpenAI-compatible client against
//! the scripted model on 127.0.0.1): only the time spent in `on_dispatch`
//! and `on_outcome` is counted (with boxing the hook's future, which rig
//! does per call for every hook), so HTTP and the agent loop do not blur it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use rig_agent::agent::{
    AgentBuilder, AgentHook, DispatchAction, DispatchEvent, HookContext, OutcomeAction,
    OutcomeEvent,
};
use rig_core::providers::openai::OpenAIConfig;

// The bench uses the tests' scripted model and tools; not every helper.
#[allow(dead_code, unreachable_pub)]
#[path = "../tests/support/mod.rs"]
mod support;

#[allow(dead_code, unreachable_pub)]
#[path = "support/guard.rs"]
mod guard;

use guard::{NativeGuard, adapter, turn};
use support::ReadFile;
use support::server::{ScriptedModel, text};

/// Times the hook it wraps: only tool-call dispatches and outcomes count.
struct Timed<H> {
    inner: H,
    nanos: Arc<AtomicU64>,
}

impl<H: AgentHook> Timed<H> {
    fn add(&self, started: Instant) {
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
    }
}

impl<H: AgentHook> AgentHook for Timed<H> {
    async fn on_dispatch(&self, ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        if event.tool_name().is_none() {
            return self.inner.on_dispatch(ctx, event).await;
        }
        let started = Instant::now();
        // Boxed as rig boxes every hook's future per call (rig boxes this
        // wrapper's instead): that cost is the hook's, and is counted.
        let action = Box::pin(self.inner.on_dispatch(ctx, event)).await;
        self.add(started);
        action
    }

    async fn on_outcome(&self, ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        if event.tool_name().is_none() {
            return self.inner.on_outcome(ctx, event).await;
        }
        let started = Instant::now();
        let action = Box::pin(self.inner.on_outcome(ctx, event)).await;
        self.add(started);
        action
    }
}

/// Total time in the hook over `iters` agent runs.
fn measure<H: AgentHook + 'static>(
    runtime: &tokio::runtime::Runtime,
    hook: H,
    iters: u64,
) -> Duration {
    runtime.block_on(async {
        let (model, base_url) = ScriptedModel::start([]).await;
        let client = OpenAIConfig::new("bench").with_base_url(base_url).client();
        let nanos = Arc::new(AtomicU64::new(0));
        let agent = AgentBuilder::new(client.chat("scripted"))
            .tool(ReadFile::default())
            .default_max_turns(4)
            .add_hook(Timed {
                inner: hook,
                nanos: Arc::clone(&nanos),
            })
            .build();
        for _ in 0..iters {
            model.script([turn(), text("done")]);
            agent.prompt("read").await.expect("the run completes");
        }
        Duration::from_nanos(nanos.load(Ordering::Relaxed))
    })
}

fn guard(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("rig_hook_call_8_tool_calls");
    group.bench_function("native_rig_hook", |b| {
        b.iter_custom(|iters| measure(&runtime, NativeGuard, iters));
    });
    group.bench_function("hooks_rig_adapter", |b| {
        b.iter_custom(|iters| measure(&runtime, adapter(), iters));
    });
    group.finish();
}

criterion_group!(benches, guard);
criterion_main!(benches);
