//! Secrets in URLs: a URL's password (`postgres://user:pass@host`) or a
//! long userinfo that is all token (`https://TOKEN@host`), and the paths of
//! incoming webhooks, whose secret is the path itself: Slack
//! (`hooks.slack.com/services/…`), Telegram (`api.telegram.org/bot<token>/…`),
//! Discord, Feishu and Lark, Microsoft Teams.

use std::ops::Range;

/// Webhook hosts (or the end of their name) and the path their secret follows.
const WEBHOOKS: [(&str, &str); 10] = [
    ("hooks.slack.com", "/services/"),
    ("hooks.slack.com", "/workflows/"),
    ("hooks.slack.com", "/triggers/"),
    ("api.telegram.org", "/bot"),
    ("api.telegram.org", "/file/bot"),
    ("discord.com", "/api/webhooks/"),
    ("discordapp.com", "/api/webhooks/"),
    ("open.feishu.cn", "/open-apis/bot/v2/hook/"),
    ("open.larksuite.com", "/open-apis/bot/v2/hook/"),
    ("webhook.office.com", "/webhookb2/"),
];

/// `scheme://user:password@host` — the password; `scheme://TOKEN@host`
/// with a long userinfo and no colon — the whole userinfo.
pub(crate) fn userinfo(text: &str, spans: &mut Vec<Range<usize>>) {
    for (at, _) in text.match_indices("://") {
        let start = at + 3;
        let rest = &text[start..];
        let end = rest
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '/' | '?' | '#' | '"' | '\'' | '`' | '<' | '>')
            })
            .unwrap_or(rest.len());
        let authority = &rest[..end];
        let Some(at_sign) = authority.rfind('@') else {
            continue;
        };
        let userinfo = &authority[..at_sign];
        match userinfo.find(':') {
            Some(colon) if colon + 1 < userinfo.len() => {
                spans.push(start + colon + 1..start + at_sign);
            }
            None if userinfo.len() >= 16 => spans.push(start..start + at_sign),
            _ => {}
        }
    }
}

/// The secret part of an incoming webhook's URL: the path after its
/// prefix (to the query), or for Telegram the bot token (one segment).
pub(crate) fn webhooks(text: &str, spans: &mut Vec<Range<usize>>) {
    for (at, _) in text.match_indices("://") {
        let start = at + 3;
        let rest = &text[start..];
        let end = start
            + rest
                .find(|c: char| {
                    c.is_whitespace() || matches!(c, '?' | '#' | '"' | '\'' | '`' | '<' | '>')
                })
                .unwrap_or(rest.len());
        let url = &text[start..end];
        let (authority, path) = url.split_at(url.find('/').unwrap_or(url.len()));
        let host = authority.rsplit('@').next().unwrap_or(authority);
        let host = host.split(':').next().unwrap_or(host).to_ascii_lowercase();
        for (suffix, prefix) in WEBHOOKS {
            let ours = host == suffix || host.ends_with(&format!(".{suffix}"));
            if let Some(secret) = path.strip_prefix(prefix).filter(|_| ours) {
                let secret_start = end - secret.len();
                let secret_end = if prefix.ends_with("bot") {
                    secret_start + secret.find('/').unwrap_or(secret.len())
                } else {
                    end
                };
                spans.push(secret_start..secret_end);
            }
        }
    }
}
