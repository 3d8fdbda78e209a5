//! How far apart two names are, for "did you mean" suggestions: a tool name
//! in a pattern against the agent's tools, an argument of the macros
//! against the ones they take.

/// The Levenshtein distance between `a` and `b`, by characters.
///
/// ```
/// assert_eq!(hooks_events::pattern::edit_distance("sql_qurey", "sql_query"), 2);
/// assert_eq!(hooks_events::pattern::edit_distance("priority", "priority"), 0);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}
