//! The Cedar guard, against the example policy set (examples/policies/):
//! each rule, and the arguments a model would use to walk around it.

use std::path::{Path, PathBuf};

use hooks_core::prelude::*;
use hooks_core::{DenialCause, ToolFacts};
use hooks_std::cedar::{Cedar, CedarGuard, DefaultDecision, SchemaCheck};

hooks_core::link!(hooks_std);

/// A fresh copy of the example policy set (tests change their copies).
fn policies(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-std-cedar-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/policies");
    for entry in std::fs::read_dir(examples).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    dir
}

fn tools() -> Vec<ToolFacts> {
    vec![
        ToolFacts::new("refund").writes().schema(json!({
            "type": "object",
            "properties": {"amount": {"type": "integer"}, "order": {"type": "string"}}
        })),
        ToolFacts::new("search_orders")
            .only_reads()
            .schema(json!({"type": "object", "properties": {"query": {"type": "string"}}})),
        ToolFacts::new("acme_crm")
            .only_reads()
            .schema(json!({"type": "object", "properties": {"query": {"type": "string"}}})),
        ToolFacts::new("delete_account").destroys(),
    ]
}

fn config(dir: &Path) -> Cedar {
    Cedar {
        entities: Some(dir.join("entities.json")),
        ..Cedar::new(dir)
    }
}

fn hooks_with(config: Cedar) -> Hooks {
    let hooks = Hooks::builder()
        .only(["hooks_std::cedar::guard", "hooks_std::cedar::offer"])
        .tools(tools())
        .state(CedarGuard::new(config).unwrap())
        .build()
        .unwrap();
    hooks
        .state::<CedarGuard>()
        .unwrap()
        .validate(hooks.catalog())
        .unwrap();
    hooks
}

fn hooks(test: &str) -> Hooks {
    hooks_with(config(&policies(test)))
}

async fn call(hooks: &Hooks, user: &str, tool: &str, args: Value) -> Outcome {
    let session = Session::new("s").with_user(user);
    let mut ctx = PreToolUse::new(&session, tool.to_owned(), args);
    hooks.dispatch(&mut ctx).await
}

/// The policies a denial names, and its kind.
fn decided_by(outcome: &Outcome) -> (String, Vec<String>) {
    let denial = outcome.denial().expect("denied");
    match denial.cause() {
        DenialCause::Refused { kind, data } => (
            kind.to_string(),
            data["policies"]
                .as_array()
                .unwrap()
                .iter()
                .map(|id| id.as_str().unwrap().to_owned())
                .collect(),
        ),
        other => panic!("not a policy's refusal: {other:?}"),
    }
}

#[tokio::test]
async fn refunds_are_limited_per_role() {
    let hooks = hooks("refunds");
    assert!(
        call(&hooks, "ann", "refund", json!({"amount": 100}))
            .await
            .is_continue()
    );
    let over = call(&hooks, "ann", "refund", json!({"amount": 101})).await;
    assert_eq!(decided_by(&over), ("policy_denied".into(), vec![]));
    assert!(
        over.denial()
            .unwrap()
            .reason()
            .contains("no Cedar policy permits User::\"ann\" to call `refund`"),
        "{}",
        over.denial().unwrap().reason()
    );
    assert!(
        call(&hooks, "fay", "refund", json!({"amount": 5000}))
            .await
            .is_continue()
    );
    assert!(
        call(&hooks, "fay", "refund", json!({"amount": 10001}))
            .await
            .is_denied()
    );
}

#[tokio::test]
async fn refund_arguments_a_model_would_try_are_denied() {
    let hooks = hooks("refund-attacks");
    for args in [
        json!({"amount": "50000"}), // a string: no number comparison
        json!({"amount": "50"}),    // even a small one: a string is no amount
        json!({"amount": -50000}),  // a negative refund is a charge
        json!({"amount": 0}),
        json!({}),               // no amount at all
        json!({"amount": null}), // null is no amount
        json!({"amount": 99.5}), // a fraction Cedar cannot hold
        json!({"amount": 1e30}), // beyond 64 bits
        json!({"amount": 18_446_744_073_709_551_615_u64}),
        json!({"amount": [50]}),
        json!({"amount": {"value": 50}}),
        json!("amount=50"), // arguments that are no object
    ] {
        let outcome = call(&hooks, "ann", "refund", args.clone()).await;
        assert!(outcome.is_denied(), "{args} was allowed");
    }
    // A whole number written as a float is that number.
    assert!(
        call(&hooks, "ann", "refund", json!({"amount": 50.0}))
            .await
            .is_continue()
    );
    assert!(
        call(&hooks, "ann", "refund", json!({"amount": 5000.0}))
            .await
            .is_denied()
    );
}

#[tokio::test]
async fn a_string_where_a_number_is_compared_fails_closed_naming_the_policy() {
    let hooks = hooks("type-confusion");
    let outcome = call(&hooks, "ann", "refund", json!({"amount": "50000"})).await;
    let (kind, policies) = decided_by(&outcome);
    assert_eq!(kind, "policy_error");
    assert!(
        policies.contains(&"refunds-support".to_owned()),
        "{policies:?}"
    );
}

#[tokio::test]
async fn tool_name_variants_do_not_walk_around_a_rule() {
    // Default allow: only forbids deny, so a variant of a forbidden tool's
    // name must not slip past the forbid.
    let dir = policies("names");
    std::fs::write(
        dir.join("no-delete.cedar"),
        "@id(\"no-delete\")\nforbid (principal, action, resource == Tool::\"delete_account\");\n",
    )
    .unwrap();
    let hooks = hooks_with(Cedar {
        default: DefaultDecision::Allow,
        ..config(&dir)
    });
    let denied = call(&hooks, "ann", "delete_account", json!({})).await;
    assert_eq!(decided_by(&denied).1, vec!["no-delete".to_owned()]);
    for variant in [
        "Delete_Account",
        "DELETE_ACCOUNT",
        "admin__delete_account",
        "mcp__x__delete_account",
    ] {
        let outcome = call(&hooks, "ann", variant, json!({})).await;
        assert!(outcome.is_denied(), "{variant} was allowed");
        assert!(outcome.denial().unwrap().reason().contains("exact names"));
    }
    // Allowed by default: a tool nothing forbids.
    assert!(
        call(&hooks, "ann", "search_orders", json!({}))
            .await
            .is_continue()
    );
}

#[tokio::test]
async fn a_principal_claiming_a_group_it_is_not_in_gets_nothing() {
    let hooks = hooks("groups");
    // Ann is in support (100), not finance (10,000): what the session claims is no fact.
    let session = Session::new("s")
        .with_user("ann")
        .with_metadata("groups", json!(["finance"]))
        .with_metadata("role", "finance");
    let mut ctx = PreToolUse::new(&session, "refund", json!({"amount": 5000}));
    assert!(hooks.dispatch(&mut ctx).await.is_denied());
    // A user the entities file does not know is in no group.
    assert!(
        call(&hooks, "mallory", "refund", json!({"amount": 5}))
            .await
            .is_denied()
    );
    // A user named like a group is a user.
    assert!(
        call(&hooks, "finance", "refund", json!({"amount": 5}))
            .await
            .is_denied()
    );
    // No user: the agent is the principal, and in no group.
    let agent = Session::new("s").with_agent("finance");
    let mut ctx = PreToolUse::new(&agent, "refund", json!({"amount": 5}));
    assert!(hooks.dispatch(&mut ctx).await.is_denied());
}

#[tokio::test]
async fn guests_call_only_tools_declared_to_only_read() {
    let hooks = hooks("guests");
    assert!(
        call(&hooks, "gus", "search_orders", json!({"query": "late"}))
            .await
            .is_continue()
    );
    assert!(
        call(&hooks, "gus", "refund", json!({"amount": 1}))
            .await
            .is_denied()
    );
    assert!(
        call(&hooks, "gus", "delete_account", json!({}))
            .await
            .is_denied()
    );
}

#[tokio::test]
async fn a_tenants_tools_are_for_that_tenant_only_and_forbid_wins() {
    let hooks = hooks("tenants");
    assert!(
        call(&hooks, "ann", "acme_crm", json!({"query": "x"}))
            .await
            .is_continue()
    );
    // Bob is staff, and acme_crm only reads (staff-read-only permits it):
    // the tenant's forbid wins, and names itself.
    let outcome = call(&hooks, "bob", "acme_crm", json!({"query": "x"})).await;
    assert_eq!(
        decided_by(&outcome),
        ("policy_denied".into(), vec!["tenant-isolation".to_owned()])
    );
    assert!(
        outcome
            .denial()
            .unwrap()
            .reason()
            .contains("`tenant-isolation` (")
    );
    // A tenant the session claims is no tenant of the principal.
    let session = Session::new("s")
        .with_user("bob")
        .with_metadata("tenant", "acme");
    let mut ctx = PreToolUse::new(&session, "acme_crm", json!({}));
    assert!(hooks.dispatch(&mut ctx).await.is_denied());
}

#[tokio::test]
async fn the_kill_switch_stops_every_call_when_engaged() {
    let dir = policies("kill");
    let hooks = hooks_with(config(&dir));
    assert!(
        call(&hooks, "fay", "refund", json!({"amount": 5}))
            .await
            .is_continue()
    );
    let entities = std::fs::read_to_string(dir.join("entities.json")).unwrap();
    std::fs::write(
        dir.join("entities.json"),
        entities.replace("\"engaged\": false", "\"engaged\": true"),
    )
    .unwrap();
    let guard = hooks.state::<CedarGuard>().unwrap();
    guard.reload(hooks.catalog()).unwrap();
    let outcome = call(&hooks, "fay", "refund", json!({"amount": 5})).await;
    assert_eq!(decided_by(&outcome).1, vec!["kill-switch".to_owned()]);
    assert!(
        call(&hooks, "gus", "search_orders", json!({}))
            .await
            .is_denied()
    );
}

async fn offered(hooks: &Hooks, user: &str) -> Vec<String> {
    let session = Session::new("s").with_user(user);
    let names = ["refund", "search_orders", "acme_crm", "delete_account"];
    let mut request = PreModelRequest::new(&session, names, json!({}));
    let _ = hooks.dispatch(&mut request).await;
    request.tools().map(str::to_owned).collect()
}

#[tokio::test]
async fn tools_no_policy_could_permit_are_not_offered() {
    let hooks = hooks("offer");
    assert_eq!(offered(&hooks, "gus").await, ["search_orders"]);
    assert_eq!(
        offered(&hooks, "ann").await,
        ["refund", "search_orders", "acme_crm"]
    );
    // Bob: acme_crm is another tenant's (a forbid without arguments in it).
    assert_eq!(offered(&hooks, "bob").await, ["refund", "search_orders"]);
    assert_eq!(offered(&hooks, "mallory").await, Vec::<String>::new());
}

#[tokio::test]
async fn a_policy_naming_what_does_not_exist_is_refused_with_its_file_and_line() {
    let cases = [
        (
            "permit (principal, action == Action::\"call_tool\", resource == Tool::\"refnud\");",
            "names the tool `refnud`, which is not in the tool catalog (did you mean `refund`?)",
            3,
        ),
        (
            "permit (principal, action == Action::\"call_tool\", resource)\nwhen { context.args has amout && context.args.amout > 1 };",
            "can never apply: it tests for an argument or attribute the schema does not have",
            3,
        ),
        (
            "permit (principal, action == Action::\"call_tool\", resource)\nwhen { resource.read_olny };",
            "attribute `read_olny` on entity type `Tool` not found",
            4,
        ),
        (
            "permit (principal, action == Action::\"cal_tool\", resource);",
            "cal_tool",
            3,
        ),
    ];
    for (policy, expected, line) in cases {
        let dir = policies("validate");
        std::fs::write(
            dir.join("zz-wrong.cedar"),
            format!("// a wrong one\n\n{policy}\n"),
        )
        .unwrap();
        let guard = CedarGuard::new(config(&dir)).unwrap();
        let hooks = Hooks::builder()
            .without_linked()
            .tools(tools())
            .build()
            .unwrap();
        let error = match guard.validate(hooks.catalog()) {
            Err(error) => error.to_string(),
            Ok(()) => panic!("{policy} validated"),
        };
        let file = dir.join("zz-wrong.cedar").display().to_string();
        assert!(
            error.contains(&format!("{file}:{line}:")),
            "{policy}: {error}"
        );
        assert!(error.contains(expected), "{policy}: {error}");
        assert!(error.contains("zz-wrong.cedar#1"), "{policy}: {error}");
    }
}

#[tokio::test]
async fn a_policy_that_does_not_parse_is_refused_with_its_file_and_line() {
    let dir = policies("parse");
    std::fs::write(
        dir.join("bad.cedar"),
        "// first\npermit (principal, action, resource)\nwhen { context.args.x < };\n",
    )
    .unwrap();
    let error = CedarGuard::new(config(&dir)).err().unwrap().to_string();
    let file = dir.join("bad.cedar").display().to_string();
    assert!(error.contains(&format!("{file}:3")), "{error}");
}

#[tokio::test]
async fn policies_that_do_not_validate_at_first_call_deny_every_call() {
    let dir = policies("first-call");
    std::fs::write(
        dir.join("wrong.cedar"),
        "permit (principal, action, resource == Tool::\"nope\");\n",
    )
    .unwrap();
    let hooks = Hooks::builder()
        .only(["hooks_std::cedar::guard"])
        .tools(tools())
        .state(CedarGuard::new(config(&dir)).unwrap())
        .build()
        .unwrap();
    let outcome = call(&hooks, "fay", "refund", json!({"amount": 5})).await;
    assert_eq!(decided_by(&outcome).0, "policy_error");
    assert!(outcome.denial().unwrap().reason().contains("nope"));
}

#[tokio::test]
async fn schema_off_parses_only_and_a_wrong_name_denies_when_evaluated() {
    let dir = policies("schema-off");
    std::fs::write(
        dir.join("loose.cedar"),
        "@id(\"loose\")\nforbid (principal, action, resource) when { resource.no_such_attribute };\n",
    )
    .unwrap();
    let hooks = hooks_with(Cedar {
        schema: SchemaCheck::Off,
        ..config(&dir)
    });
    let outcome = call(&hooks, "fay", "refund", json!({"amount": 5})).await;
    assert_eq!(
        decided_by(&outcome),
        ("policy_error".into(), vec!["loose".to_owned()])
    );
}

#[tokio::test]
async fn a_file_that_does_not_validate_keeps_the_policies_in_force_until_fixed() {
    let dir = policies("reload");
    let hooks = hooks_with(Cedar {
        reload_ms: 1,
        ..config(&dir)
    });
    let guard = hooks.state::<CedarGuard>().unwrap();
    assert!(
        call(&hooks, "ann", "refund", json!({"amount": 100}))
            .await
            .is_continue()
    );

    // A typo: the old policies stay, and the problem is told.
    let refunds = std::fs::read_to_string(dir.join("refunds.cedar")).unwrap();
    std::fs::write(
        dir.join("refunds.cedar"),
        refunds.replace("<= 100", "<= 10 &&& true"),
    )
    .unwrap();
    past_reload_interval();
    assert!(
        call(&hooks, "ann", "refund", json!({"amount": 100}))
            .await
            .is_continue()
    );
    let problem = guard.problem().expect("the bad file is reported");
    assert!(problem.contains("refunds.cedar:"), "{problem}");

    // An unknown argument does not validate either.
    std::fs::write(
        dir.join("refunds.cedar"),
        refunds.replace("amount <= 100", "amout <= 100"),
    )
    .unwrap();
    past_reload_interval();
    assert!(
        call(&hooks, "ann", "refund", json!({"amount": 100}))
            .await
            .is_continue()
    );
    assert!(guard.problem().unwrap().contains("amout"));

    // Fixed: the new limit is in force, and the problem gone.
    std::fs::write(
        dir.join("refunds.cedar"),
        refunds.replace("<= 100", "<= 50"),
    )
    .unwrap();
    past_reload_interval();
    assert!(
        call(&hooks, "ann", "refund", json!({"amount": 100}))
            .await
            .is_denied()
    );
    assert!(
        call(&hooks, "ann", "refund", json!({"amount": 50}))
            .await
            .is_continue()
    );
    assert_eq!(guard.problem(), None);
}

/// Waits until the 1 ms reload interval has surely passed since the last
/// look, by the monotonic clock (a condition, not a guess).
fn past_reload_interval() {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_millis(2) {
        std::hint::spin_loop();
    }
}
