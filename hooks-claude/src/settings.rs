//! The settings snippet that installs the binary: Claude Code's
//! `settings.json` `hooks` block, or Codex's `hooks.json`. Both have the
//! same shape — event, matcher group, handlers — and list the binary once
//! per event it has a counterpart for; no matcher, so every tool.

use std::time::Duration;

use hooks_core::{Value, json};
use serde_json::Map;

use crate::host::Host;
use crate::version::HostVersion;

/// Seconds the host waits beyond the binary's own deadline, so the binary
/// always answers (and blocks) first: a host that times a hook out lets
/// the call through.
const HOST_GRACE: u64 = 5;

/// The snippet installing `command` for every event `host` has here (of
/// `version`, if given: see [`left_out`]), with the host's timeout just
/// above the binary's `deadline`.
pub fn settings(
    host: Host,
    version: Option<HostVersion>,
    command: &str,
    deadline: Duration,
) -> Value {
    let timeout = deadline.as_secs().saturating_add(HOST_GRACE);
    let skipped = left_out(host, version);
    let mut events = Map::new();
    for event in host.events() {
        if skipped.iter().any(|(name, _)| name == event) {
            continue;
        }
        events.insert(
            (*event).to_owned(),
            json!([{"hooks": [{"type": "command", "command": command, "timeout": timeout}]}]),
        );
    }
    json!({ "hooks": events })
}

/// The events [`settings`] leaves out for `version`, with the version that
/// first sends each (`None`: not known). Claude Code before 2.1.101 ignores
/// a whole settings file naming an event it does not know — every hook in
/// it off, guards too — so for those versions the settings name only the
/// events the version is known to send. Codex and later Claude Code
/// versions skip what they do not know: nothing is left out.
pub fn left_out(
    host: Host,
    version: Option<HostVersion>,
) -> Vec<(&'static str, Option<HostVersion>)> {
    let Some(version) = version else {
        return Vec::new();
    };
    if host != Host::Claude || version >= crate::version::UNKNOWN_EVENTS_TOLERATED {
        return Vec::new();
    }
    host.events()
        .iter()
        .map(|event| (*event, crate::version::claude_event_since(event)))
        .filter(|(_, since)| since.is_none_or(|since| since > version))
        .collect()
}

/// `words` as one `sh -c` command line: each word quoted when it needs to be.
pub fn command_line<'w>(words: impl IntoIterator<Item = &'w str>) -> String {
    words.into_iter().map(quote).collect::<Vec<_>>().join(" ")
}

fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_for_the_shell() {
        assert_eq!(
            command_line(["/usr/bin/hooks", "--config", "/a b/it's.toml"]),
            r"/usr/bin/hooks --config '/a b/it'\''s.toml'"
        );
        assert_eq!(command_line(["a$(x)"]), "'a$(x)'");
    }

    #[test]
    fn every_event_gets_the_command_with_a_longer_timeout() {
        let snippet = settings(
            Host::Codex,
            None,
            "hooks-claude --host codex",
            Duration::from_secs(55),
        );
        let hooks = snippet["hooks"].as_object().unwrap();
        assert_eq!(hooks.len(), Host::Codex.events().len());
        assert_eq!(hooks["PreToolUse"][0]["hooks"][0]["timeout"], json!(60));
    }
}
