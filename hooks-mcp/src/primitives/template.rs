//! Whether a URI is one a resource template (RFC 6570) expands to, to route
//! a read to the upstream that declared the template.

/// Whether `uri` is an expansion of `template`: its literal parts in order,
/// each `{expression}` standing for any run of characters (a simple
/// `{name}` for one without `/`, `?` or `#`, as its expansion would
/// percent-encode them; a reserved `{+name}` or fragment `{#name}` for any).
pub(crate) fn matches(template: &str, uri: &str) -> bool {
    let Some(parts) = parse(template) else {
        return false;
    };
    fits(&parts, uri)
}

enum Part<'a> {
    Literal(&'a str),
    /// An expression; `true` if its value may hold `/`, `?` and `#`.
    Expression(bool),
}

fn parse(template: &str) -> Option<Vec<Part<'_>>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        match rest.find('{') {
            Some(0) => {
                let end = rest.find('}')?;
                let reserved = matches!(rest.as_bytes().get(1), Some(b'+' | b'#' | b'/' | b'.'));
                parts.push(Part::Expression(reserved));
                rest = &rest[end + 1..];
            }
            Some(start) => {
                parts.push(Part::Literal(&rest[..start]));
                rest = &rest[start..];
            }
            None => {
                parts.push(Part::Literal(rest));
                rest = "";
            }
        }
    }
    Some(parts)
}

fn fits(parts: &[Part<'_>], uri: &str) -> bool {
    match parts.split_first() {
        None => uri.is_empty(),
        Some((Part::Literal(literal), rest)) => {
            uri.strip_prefix(literal).is_some_and(|uri| fits(rest, uri))
        }
        Some((Part::Expression(reserved), rest)) => {
            // Every split of what follows, shortest first.
            for (end, _) in uri.char_indices().chain([(uri.len(), ' ')]) {
                let value = &uri[..end];
                if !reserved && value.contains(['/', '?', '#']) {
                    return false;
                }
                if fits(rest, &uri[end..]) {
                    return true;
                }
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn uris_match_the_templates_they_expand() {
        let text = "demo://resource/dynamic/text/{index}";
        assert!(matches(text, "demo://resource/dynamic/text/3"));
        assert!(!matches(text, "demo://resource/dynamic/blob/3"));
        assert!(!matches(text, "demo://resource/dynamic/text/3/more"));
        assert!(matches("file:///{+path}", "file:///etc/hosts"));
        assert!(!matches("file:///{path}", "file:///etc/hosts"));
        assert!(matches("db://{table}/rows/{id}", "db://users/rows/7"));
        assert!(!matches("db://{table}/rows/{id}", "db://users/cols/7"));
        assert!(!matches("broken://{open", "broken://x"));
    }
}
