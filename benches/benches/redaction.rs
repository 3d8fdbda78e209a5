//! What redaction costs per KiB of text: the shape rules alone (what the
//! audit log and the approval store apply to every string), with known
//! secrets added, a JSON arguments object walked, and the result scrubber
//! (known secrets only) on a tool result.
//! Run with `cargo bench -p hooks-benches --bench redaction`.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use hooks_benches::ready;
use hooks_core::prelude::*;
use hooks_std::redact::Redactor;

hooks_core::link!(hooks_std);

/// `unit` repeated to exactly 1 KiB.
fn kib(unit: &str) -> String {
    unit.repeat(1024 / unit.len() + 1)[..1024].to_owned()
}

/// Eight known secrets, as a deployment might name them.
fn knowing() -> Redactor {
    [
        "pg-prod-Zq8xLw31vN",
        "sk-live-4f9a0c2e7b1d",
        "ghp_7Hc2Kd9Lm4Np6Qr8",
        "AKIAZ7Q3M9X2W5V8T1R4",
        "xoxb-1-2-3-AbCdEfGhIj",
        "redis-Pw-77a1b2c3d4e5",
        "jwt-signing-key-8s7d6f5g",
        "smtp-relay-9Kq2Lm5Np8",
    ]
    .into_iter()
    .fold(Redactor::default(), |redactor, secret| {
        redactor.with_secret(secret).unwrap()
    })
}

fn text(c: &mut Criterion) {
    let mut group = c.benchmark_group("redact 1 KiB of text");
    group.throughput(Throughput::Bytes(1024));
    let prose =
        kib("The deploy finished on host web-3 after 42 seconds; see the log for details. ");
    let commands =
        kib("cd /srv/app && git pull --rebase && cargo build --release 2>&1 | tail -n 20; ");
    let shapes = Redactor::default();
    let known = knowing();
    group.bench_function("shape rules, prose, nothing found", |b| {
        b.iter(|| shapes.redact_text(black_box(&prose)));
    });
    group.bench_function("shape rules, shell commands, nothing found", |b| {
        b.iter(|| shapes.redact_text(black_box(&commands)));
    });
    group.bench_function("shape rules + 8 known secrets, prose, nothing found", |b| {
        b.iter(|| known.redact_text(black_box(&prose)));
    });
    // `user:pg-prod-Zq8xLw31vN` in base64, in the middle of the text.
    let with_secret = format!(
        "{}Authorization: Basic dXNlcjpwZy1wcm9kLVpxOHhMdzMxdk4={}",
        &prose[..480],
        &prose[..490]
    );
    group.bench_function("shape rules + 8 known secrets, one found in base64", |b| {
        b.iter(|| known.redact_text(black_box(&with_secret)));
    });
    let encoded = kib("q=deploy%20status&page=2&filter=env%3Dprod%26team%3Dweb&");
    group.bench_function("shape rules + 8 known secrets, percent-encoded text", |b| {
        b.iter(|| known.redact_text(black_box(&encoded)));
    });
    group.finish();
}

fn json(c: &mut Criterion) {
    let mut group = c.benchmark_group("redact 1 KiB of JSON");
    group.throughput(Throughput::Bytes(1024));
    let args = json!({
        "command": kib("ls -la /srv/app && ")[..600].to_owned(),
        "env": [{"name": "PORT", "value": "8080"}, {"name": "LOG_LEVEL", "value": "info"}],
        "argv": ["deploy", "--to", "prod", "--dry-run"],
        "notes": kib("Everything as planned. ")[..300].to_owned(),
    });
    let known = knowing();
    group.bench_function("arguments walked (audit record, approval store)", |b| {
        b.iter(|| known.redact(black_box(&args)));
    });
    let scrub = Hooks::builder()
        .only(["hooks_std::redact::scrub"])
        .redactor(known.clone())
        .build()
        .unwrap()
        .tool("read_file");
    let session = Session::new("bench");
    let result = json!({"rows": [kib("id,name,created_at\n7,web-3,2026-01-01\n")]});
    group.bench_function(
        "tool result scrubbed of known secrets, nothing found",
        |b| {
            b.iter_batched_ref(
                || PostToolUse::new(&session, "read_file", json!({}), Ok(result.clone())),
                |ctx| ready(scrub.dispatch(ctx)).is_continue(),
                BatchSize::SmallInput,
            );
        },
    );
    group.finish();
}

criterion_group!(benches, text, json);
criterion_main!(benches);
