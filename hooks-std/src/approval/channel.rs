//! Channels: how a request reaches a person and how their answer comes back.
//! The gate owns the state machine (store, timeout, exactly-once); a channel
//! only delivers and listens.

use std::future::pending;
use std::io::IsTerminal as _;

use hooks_core::BoxFuture;
use tokio::io::{AsyncBufReadExt, BufReader};

use super::store::{Request, Scope};
use hooks_core::printable;

/// A person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// Yes or no.
    pub approved: bool,
    /// How far a yes reaches.
    pub scope: Scope,
    /// Who answered.
    pub by: Option<String>,
    /// Why, for a no.
    pub reason: Option<String>,
}

impl Answer {
    /// Yes, for this call.
    pub fn allow_once(by: impl Into<String>) -> Self {
        Answer {
            approved: true,
            scope: Scope::Once,
            by: Some(by.into()),
            reason: None,
        }
    }

    /// Yes, for every call of this tool for the rest of the session.
    pub fn allow_for_session(by: impl Into<String>) -> Self {
        Answer {
            approved: true,
            scope: Scope::Session,
            by: Some(by.into()),
            reason: None,
        }
    }

    /// No, with a reason the model will read.
    pub fn deny(by: impl Into<String>, reason: impl Into<String>) -> Self {
        Answer {
            approved: false,
            scope: Scope::Once,
            by: Some(by.into()),
            reason: Some(reason.into()),
        }
    }
}

/// Delivers a pending request to a person.
pub trait Channel: Send + Sync + 'static {
    /// Shows `request` to a person and resolves with their answer; `None` if
    /// this channel does not answer itself and the answer will arrive through
    /// the store (the `hooks-approve` CLI).
    fn deliver<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Option<Answer>>;
}

/// Answered from another terminal or process with the `hooks-approve` CLI:
/// this channel only says where to answer, then waits on the store.
#[derive(Debug, Default, Clone, Copy)]
pub struct CliChannel;

impl Channel for CliChannel {
    fn deliver<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Option<Answer>> {
        tracing::warn!(
            target: "hooks_std::approval",
            id = request.id,
            tool = request.tool,
            "approval #{id} pending: `hooks-approve approve {id}` or `hooks-approve deny {id} --reason ...`",
            id = request.id
        );
        Box::pin(pending())
    }
}

/// Asks on this process's terminal: `y` (once), `a` (always, this session),
/// `n [reason]`. Without a terminal it does not answer, and the request
/// waits for the CLI instead.
#[derive(Debug, Clone)]
pub struct TerminalChannel {
    who: String,
}

impl TerminalChannel {
    /// A channel recording answers as given by `who` (e.g. the login name).
    pub fn new(who: impl Into<String>) -> Self {
        TerminalChannel { who: who.into() }
    }
}

impl Channel for TerminalChannel {
    fn deliver<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Option<Answer>> {
        Box::pin(async move {
            if !std::io::stdin().is_terminal() {
                return CliChannel.deliver(request).await;
            }
            eprintln!(
                "\napproval #{}: {}\n  [y] allow once   [a] allow for this session   [n reason] deny",
                request.id,
                printable(&request.prompt, true)
            );
            let mut line = String::new();
            let mut stdin = BufReader::new(tokio::io::stdin());
            loop {
                line.clear();
                if stdin.read_line(&mut line).await.ok()? == 0 {
                    return None;
                }
                if let Some(answer) = parse_answer(&line, &self.who) {
                    return Some(answer);
                }
                eprintln!("  answer y, a, or n followed by a reason");
            }
        })
    }
}

/// Reads `y`, `a` or `n [reason]`.
fn parse_answer(line: &str, who: &str) -> Option<Answer> {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    match word.to_ascii_lowercase().as_str() {
        "y" | "yes" => Some(Answer::allow_once(who)),
        "a" | "always" => Some(Answer::allow_for_session(who)),
        "n" | "no" => Some(Answer::deny(
            who,
            if rest.trim().is_empty() {
                "refused at the terminal"
            } else {
                rest.trim()
            },
        )),
        _ => None,
    }
}

/// Answers with a function: for tests, scripted demos and policy engines.
pub struct ScriptedChannel<F>(pub F);

impl<F> Channel for ScriptedChannel<F>
where
    F: Fn(&Request) -> Option<Answer> + Send + Sync + 'static,
{
    fn deliver<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Option<Answer>> {
        let answer = (self.0)(request);
        Box::pin(async move {
            match answer {
                Some(answer) => Some(answer),
                None => pending().await,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_answers_parse() {
        assert_eq!(parse_answer("y\n", "ana"), Some(Answer::allow_once("ana")));
        assert_eq!(
            parse_answer(" A ", "ana"),
            Some(Answer::allow_for_session("ana"))
        );
        assert_eq!(
            parse_answer("n too much money", "ana"),
            Some(Answer::deny("ana", "too much money"))
        );
        assert_eq!(
            parse_answer("no", "ana").unwrap().reason.as_deref(),
            Some("refused at the terminal")
        );
        assert_eq!(parse_answer("maybe", "ana"), None);
    }
}
