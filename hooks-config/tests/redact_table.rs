//! `[redact]`: the secrets a configuration file names — environment
//! variables and files — reach neither the audit log, nor a denial reason,
//! nor the model; and a variable that is not set or a file that cannot be
//! read stops the file from applying, naming its line, never silently.

use std::path::PathBuf;

use hooks_core::HooksBuilder;
use hooks_core::prelude::*;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hooks-config-redact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn apply(text: &str, builder: HooksBuilder) -> Result<HooksBuilder, hooks_config::LoadError> {
    hooks_config::parse("std.toml", text, false)
        .unwrap()
        .apply(builder)
}

#[tokio::test]
async fn named_secrets_are_redacted_everywhere_they_go() {
    // Any variable that is set will do; PATH always is where tests run.
    let path = std::env::var("PATH").unwrap();
    let key_file = temp("stripe_key");
    std::fs::write(&key_file, "sk-from-a-file-7731\n").unwrap();
    let audit = temp("audit.jsonl");
    let text = format!(
        "[redact]\nsecret_env = [\"PATH\"]\nsecret_files = [\"{}\"]\n\n\
         [audit_log]\npath = \"{}\"\n",
        key_file.display(),
        audit.display()
    );
    let builder = Hooks::builder()
        .only([
            "hooks_std::audit::denied",
            "hooks_std::audit::completed",
            "hooks_std::redact::scrub",
            "guard",
        ])
        .hook(
            Hook::new("guard", |ctx: &mut PreToolUse| -> Result<(), String> {
                match ctx.args()["fail"].as_str() {
                    Some(text) => Err(format!("cannot check {text}")),
                    None => Ok(()),
                }
            })
            .matches("deploy"),
        );
    let hooks = apply(&text, builder).unwrap().build().unwrap();
    let session = Session::new("s");

    let denied = hooks
        .tool("deploy")
        .run(&session, json!({"fail": path}), async |_: &Value| {
            Ok::<_, String>(json!("never"))
        })
        .await;
    let reason = denied.denial().unwrap().reason();
    assert!(
        !reason.contains(&path) && reason.contains("[redacted]"),
        "{reason}"
    );

    let ran = hooks
        .tool("deploy")
        .run(&session, json!({"note": "x"}), async |_: &Value| {
            Ok::<_, String>(json!({"key": "sk-from-a-file-7731", "path": path}))
        })
        .await;
    assert_eq!(
        ran.result().unwrap(),
        &json!({"key": "[redacted]", "path": "[redacted]"})
    );
    let log = std::fs::read_to_string(&audit).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(
        !log.contains(&path) && !log.contains("sk-from-a-file"),
        "{log}"
    );
}

#[test]
fn a_missing_variable_an_unreadable_file_or_a_short_secret_stops_the_file() {
    let short = temp("short");
    std::fs::write(&short, "abc\n").unwrap();
    let text = format!(
        "[redact]\nsecret_env = [\n  \"PATH\",\n  \"HOOKS_CONFIG_SURELY_UNSET\",\n]\n\
         secret_files = [\"{}\", \"{}\"]\n",
        temp("missing").display(),
        short.display()
    );
    let Err(error) = apply(&text, Hooks::builder()) else {
        panic!("applied");
    };
    let problems = error.problems();
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(
        problems[0].starts_with(
            "std.toml:4: [redact]: the environment variable `HOOKS_CONFIG_SURELY_UNSET` is not set"
        ),
        "{problems:#?}"
    );
    assert!(
        problems[1].starts_with("std.toml:6: [redact]: cannot read the secret file"),
        "{problems:#?}"
    );
    assert!(problems[2].contains("is 3 bytes long"), "{problems:#?}");
    assert!(
        !problems[2].contains("abc"),
        "never the value: {problems:#?}"
    );

    let error = hooks_config::parse("std.toml", "[redact]\nsecret_envs = [\"PATH\"]\n", false)
        .err()
        .unwrap();
    assert!(
        error.problems()[0].contains("unknown field `secret_envs`"),
        "{error}"
    );
}

#[test]
fn keys_and_prefixes_configure_the_shape_rules() {
    let hooks = apply(
        "[redact]\nkeys = [\"pin\"]\nprefixes = [\"acme_\"]\n",
        Hooks::builder().without_linked(),
    )
    .unwrap()
    .build()
    .unwrap();
    let redactor = hooks.state::<hooks_std::redact::Redactor>().unwrap();
    assert_eq!(
        redactor.redacted("pin=1234 acme_0123456789ab password=x"),
        "pin=[redacted] [redacted] password=x"
    );
}
