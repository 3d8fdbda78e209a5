//! Prompt hooks ask a model through a trait the program implements; here, a
//! test model that judges by what it is shown.

use std::sync::{Arc, Mutex};

use hooks_config::Model;
use hooks_core::BoxFuture;
use hooks_core::prelude::*;

mod common;
use common::{apply_error, denial, dispatcher};

/// Refuses anything mentioning production; remembers what it was asked.
struct Cautious(Arc<Mutex<Vec<String>>>);

impl Model for Cautious {
    fn complete<'a>(&'a self, prompt: &'a str) -> BoxFuture<'a, Result<String, String>> {
        self.0.lock().unwrap().push(prompt.to_owned());
        let answer = if prompt.contains("\"prod\"") {
            "```json\n{\"decision\": \"block\", \"reason\": \"production changes need a change ticket\"}\n```"
        } else if prompt.contains("unreachable") {
            return Box::pin(async { Err("the model endpoint is down".to_owned()) });
        } else {
            "{}"
        };
        Box::pin(async move { Ok(answer.to_owned()) })
    }
}

const CONFIG: &str = r#"
[[hooks]]
event = "pre_tool_use"
name = "judge"
matches = "deploy"
prompt = { text = "Refuse deployments to production without a change ticket." }
"#;

#[tokio::test]
async fn a_model_judges_the_call() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let config = hooks_config::parse("prompt.toml", CONFIG, false)
        .unwrap()
        .model("default", Cautious(Arc::clone(&asked)));
    let hooks = dispatcher(config);
    assert_eq!(
        denial(&hooks, "deploy", json!({"env": "prod"}))
            .await
            .as_deref(),
        Some("production changes need a change ticket")
    );
    assert_eq!(
        denial(&hooks, "deploy", json!({"env": "staging"})).await,
        None
    );
    assert!(
        denial(&hooks, "deploy", json!({"env": "unreachable"}))
            .await
            .unwrap()
            .contains("the model could not answer: the model endpoint is down")
    );
    let first = &asked.lock().unwrap()[0];
    assert!(first.starts_with("Refuse deployments to production without a change ticket."));
    assert!(first.contains("\"tool_name\":\"deploy\""));
}

#[test]
fn a_prompt_hook_without_its_model_is_an_error_naming_it() {
    let config = hooks_config::parse("prompt.toml", CONFIG, false).unwrap();
    assert_eq!(
        apply_error(config, "a missing model is an error").problems(),
        [
            "prompt.toml:2: hook `judge`: uses model `default`, which the program did not provide (Config::model)"
        ]
    );
}

#[test]
fn every_missing_model_is_reported_at_once() {
    let text = format!(
        "{CONFIG}\n[[hooks]]\nevent = \"stop\"\nname = \"critic\"\nprompt = {{ model = \"strict\", text = \"Is the work done?\" }}\n"
    );
    let config = hooks_config::parse("prompt.toml", &text, false).unwrap();
    assert_eq!(
        apply_error(config, "missing models are an error").problems(),
        [
            "prompt.toml:2: hook `judge`: uses model `default`, which the program did not provide (Config::model)",
            "prompt.toml:8: hook `critic`: uses model `strict`, which the program did not provide (Config::model)",
        ]
    );
}
