//! Truncation through a real dispatcher: huge, empty, exact-size, multibyte
//! and JSON results, errors, per-tool limits, and bad limits.

use hooks_core::prelude::*;
use hooks_std::truncate::{ToolLimit, Truncate, Truncator};

hooks_core::link!(hooks_std);

/// A dispatcher running only the truncation hook, with these limits.
fn hooks(truncator: Truncator) -> Hooks {
    Hooks::builder()
        .only(["hooks_std::truncate::cut", "hooks_std::truncate::cut_error"])
        .state(truncator)
        .build()
        .unwrap()
}

/// With the default limits.
fn after(tool: &'static str, result: Result<Value, String>) -> PostToolUse {
    after_by(&hooks(Truncator::default()), tool, result)
}

fn after_by(hooks: &Hooks, tool: &'static str, result: Result<Value, String>) -> PostToolUse {
    let mut ctx = PostToolUse::new(&Session::new("s"), tool, json!({}), result);
    dispatch_blocking(hooks.dispatch(&mut ctx));
    ctx
}

fn dispatch_blocking(future: impl std::future::Future<Output = Outcome>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    assert!(runtime.block_on(future).is_continue());
}

#[test]
fn a_huge_result_keeps_head_and_tail_and_says_what_was_cut() {
    let text = format!("HEAD{}TAIL", "x".repeat(10_000_000));
    let ctx = after("read_file", Ok(json!(text)));
    let cut = ctx.result().unwrap().as_str().unwrap();
    assert!(cut.chars().count() <= 8_000);
    assert!(cut.starts_with("HEADxxx"));
    assert!(cut.ends_with("xxxTAIL"));
    assert!(
        cut.contains("of 10000008 characters cut"),
        "{}",
        &cut[5_000..5_400]
    );
    assert_eq!(ctx.rewrites()[0].hook, "hooks_std::truncate::cut");
}

#[test]
fn small_empty_and_exact_results_are_untouched() {
    for result in [
        json!(""),
        json!(null),
        json!([]),
        json!("x".repeat(8_000)),
        json!({"a": 1}),
    ] {
        let ctx = after("read_file", Ok(result.clone()));
        assert_eq!(ctx.result(), Ok(&result));
        assert!(ctx.rewrites().is_empty(), "nothing cut, nothing recorded");
    }
    let ctx = after("read_file", Ok(json!("x".repeat(8_001))));
    assert!(ctx.result().unwrap().as_str().unwrap().chars().count() <= 8_000);
}

#[test]
fn multibyte_text_is_cut_on_character_boundaries() {
    let text = "日本語のテキスト🙂".repeat(5_000);
    let ctx = after("read_file", Ok(json!(text)));
    let cut = ctx.result().unwrap().as_str().unwrap();
    assert!(cut.chars().count() <= 8_000);
    assert!(cut.starts_with("日本語"));
    assert!(cut.ends_with("🙂"));
}

/// Clusters of several characters: a family (man ZWJ woman ZWJ girl ZWJ
/// boy), a flag (two regional indicators), a letter with two combining
/// accents, a skin-toned thumbs-up, a Hangul syllable in jamo.
const CLUSTERS: [&str; 5] = [
    "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}\u{200d}\u{1f466}",
    "\u{1f1fa}\u{1f1e6}",
    "e\u{301}\u{323}",
    "\u{1f44d}\u{1f3fd}",
    "\u{1100}\u{1161}\u{11a8}",
];

#[test]
fn cuts_fall_between_grapheme_clusters_never_inside_one() {
    for cluster in CLUSTERS {
        // Every offset of the cut against the cluster's length.
        for pad in 0..cluster.chars().count() {
            let text = format!("{}{}", "x".repeat(pad), cluster.repeat(5_000));
            let ctx = after("read_file", Ok(json!(text)));
            let cut = ctx.result().unwrap().as_str().unwrap();
            assert!(cut.chars().count() <= 8_000);
            let (head, rest) = cut.split_once("\n[... ").unwrap();
            let tail = rest.split_once(" ...]\n").unwrap().1;
            // What is kept is whole clusters: removing them leaves nothing
            // of the cluster's characters.
            let head_left = head.trim_start_matches('x').replace(cluster, "");
            assert_eq!(
                head_left, "",
                "a cluster was split at the head's end (pad {pad})"
            );
            assert_eq!(
                tail.replace(cluster, ""),
                "",
                "a cluster was split at the tail's start (pad {pad})"
            );
            // And the marker counts what was really cut.
            let kept = head.chars().count() + tail.chars().count();
            let total = text.chars().count();
            assert!(
                cut.contains(&format!(
                    "[... {} of {total} characters cut ...]",
                    total - kept
                )),
                "{}",
                &cut[head.len()..head.len() + 60]
            );
        }
    }
}

#[test]
fn json_results_stay_valid_json_of_the_same_shape() {
    let rows: Vec<Value> = (0..20_000)
        .map(|i| json!({"id": i, "email": format!("user{i}@example.com")}))
        .collect();
    let ctx = after("sql_query", Ok(json!({"rows": rows, "count": 20_000})));
    let result = ctx.result().unwrap();
    let text = serde_json_text(result);
    assert!(text.chars().count() <= 8_000, "{}", text.len());
    assert_eq!(result["count"], 20_000);
    assert_eq!(result["rows"][0]["id"], 0);
    assert_eq!(
        result["rows"].as_array().unwrap().last().unwrap()["id"],
        19_999
    );
}

fn serde_json_text(value: &Value) -> String {
    // The facade's `Value` displays as compact JSON: parse it back to prove validity.
    let text = value.to_string();
    let reparsed: Value = text.parse().expect("valid JSON");
    assert_eq!(&reparsed, value);
    text
}

#[test]
fn tool_errors_are_cut_too() {
    let ctx = after("Bash", Err("E".repeat(50_000)));
    let message = ctx.result().unwrap_err();
    assert!(message.chars().count() <= 8_000);
    assert!(message.contains("of 50000 characters cut"));
}

#[test]
fn a_failed_tools_huge_error_is_cut_before_the_model_sees_it() {
    let hooks = hooks(Truncator::default());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let run = runtime.block_on(hooks.tool("Bash").run(
        &Session::new("s"),
        json!({"command": "make"}),
        async |_: &Value| Err::<Value, _>(format!("trace: {}", "frame\n".repeat(10_000))),
    ));
    let failure = run.failure().expect("the tool failed");
    let message = failure.error().message();
    assert!(message.chars().count() <= 8_000, "{}", message.len());
    assert!(message.starts_with("trace: frame"));
    assert!(
        message.contains("of 60007 characters cut"),
        "{message:.200}"
    );
    assert_eq!(failure.rewrites()[0].field, "error");
}

#[test]
fn per_tool_limits_and_bad_limits() {
    let hooks = hooks(
        Truncator::new(Truncate {
            max_chars: 1_000,
            per_tool: vec![ToolLimit {
                tools: "read_*".into(),
                max_chars: 20_000,
            }],
        })
        .unwrap(),
    );
    let read = after_by(&hooks, "read_file", Ok(json!("r".repeat(15_000))));
    let search = after_by(&hooks, "search", Ok(json!("s".repeat(15_000))));
    assert_eq!(read.result().unwrap().as_str().unwrap().len(), 15_000);
    assert!(search.result().unwrap().as_str().unwrap().chars().count() <= 1_000);

    let refused = Truncator::new(Truncate {
        max_chars: 50,
        per_tool: Vec::new(),
    });
    assert_eq!(
        refused.err().unwrap().to_string(),
        "truncate configuration: `max_chars` is 50 characters; the smallest limit is 200"
    );
}

/// An MCP tool result as hooks-mcp hands it to hooks: content blocks, and
/// structured content the text block repeats (as the spec asks tools to do).
fn mcp_result(text: &str, structured: &Value) -> Value {
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
    })
}

#[test]
fn an_mcp_result_gives_the_model_the_whole_limit_not_a_share_of_two_copies() {
    let rows: Vec<Value> = (0..2_000)
        .map(|i| json!({"id": i, "name": format!("row {i}")}))
        .collect();
    let structured = json!({ "rows": rows });
    let text = serde_json::to_string(&structured).unwrap();
    let ctx = after("list_rows", Ok(mcp_result(&text, &structured)));
    let result = ctx.result().unwrap();
    // What the model reads is the text block: up to the limit, and most of it.
    let shown = result["content"][0]["text"].as_str().unwrap();
    let chars = shown.chars().count();
    assert!(chars <= 8_000, "{chars}");
    assert!(chars > 7_000, "the text got {chars} of 8,000 characters");
    assert!(shown.contains("characters cut"), "{}", &shown[..200]);
    assert_eq!(result["content"][0]["type"], "text");
    // The structured copy is cut to the limit on its own, keeping its shape.
    let structured = &result["structuredContent"];
    assert!(structured["rows"].is_array(), "{structured}");
    let structured_chars = serde_json_text(structured).chars().count();
    assert!(
        (6_000..=8_000).contains(&structured_chars),
        "{structured_chars}"
    );
}

#[test]
fn an_image_is_never_cut_inside_its_data_but_replaced_by_a_notice() {
    let big = "iVBORw0KGgo".repeat(2_000); // 22,000 base64 characters
    let small = "iVBORw0KGgo".repeat(50);
    let result = json!({"content": [
        {"type": "text", "text": "two charts"},
        {"type": "image", "data": big, "mimeType": "image/png"},
        {"type": "image", "data": small, "mimeType": "image/png"},
    ]});
    let ctx = after("charts", Ok(result));
    let blocks = ctx.result().unwrap()["content"].as_array().unwrap().clone();
    assert_eq!(blocks.len(), 3, "{blocks:?}");
    assert_eq!(blocks[0], json!({"type": "text", "text": "two charts"}));
    // The big image is gone whole, with a notice saying what and why.
    assert_eq!(blocks[1]["type"], "text", "{}", blocks[1]);
    let notice = blocks[1]["text"].as_str().unwrap();
    assert!(
        notice.contains("image/png") && notice.contains("16500 bytes") && notice.contains("8000"),
        "{notice}"
    );
    // The small one is untouched, its data whole.
    assert_eq!(
        blocks[2],
        json!({"type": "image", "data": small, "mimeType": "image/png"})
    );
}

#[test]
fn an_mcp_result_within_the_limit_is_untouched() {
    let result = json!({
        "content": [
            {"type": "text", "text": "x".repeat(7_000)},
            {"type": "image", "data": "iVBORw0KGgo".repeat(500), "mimeType": "image/png"},
        ],
        "structuredContent": {"note": "y".repeat(7_000)},
    });
    let ctx = after("mixed", Ok(result.clone()));
    assert_eq!(ctx.result().unwrap(), &result);
    assert!(ctx.rewrites().is_empty());
}

/// Every string of `value` that is a base64 blob or image data, whole: the
/// ones given, or a notice in their place.
fn assert_no_cut_binary(value: &Value, whole: &[&str]) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields {
                if key == "blob" || key == "data" {
                    let data = field.as_str().unwrap();
                    assert!(whole.contains(&data), "a cut {key}: {} chars", data.len());
                }
                assert_no_cut_binary(field, whole);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| assert_no_cut_binary(item, whole)),
        _ => {}
    }
}

#[test]
fn a_resource_reads_blob_is_never_cut_and_its_texts_share_the_limit() {
    // What the gateway hands hooks for `resources/read`.
    let big = "iVBORw0KGgo".repeat(2_000);
    let small = "iVBORw0KGgo".repeat(50);
    let result = json!({"contents": [
        {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "a".repeat(12_000)},
        {"uri": "file:///chart.png", "mimeType": "image/png", "blob": big},
        {"uri": "file:///icon.png", "mimeType": "image/png", "blob": small},
        {"uri": "file:///b.txt", "mimeType": "text/plain", "text": "b".repeat(12_000)},
    ]});
    let ctx = after("resources:read", Ok(result));
    let cut = ctx.result().unwrap();
    assert_no_cut_binary(cut, &[&small]);
    let contents = cut["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 4, "{cut}");
    // Still resource contents, each with its URI.
    for (item, uri) in contents
        .iter()
        .zip(["a.txt", "chart.png", "icon.png", "b.txt"])
    {
        assert!(item["uri"].as_str().unwrap().ends_with(uri), "{item}");
    }
    let notice = contents[1]["text"].as_str().unwrap();
    assert!(
        notice.contains("image/png") && notice.contains("16500 bytes"),
        "{notice}"
    );
    assert_eq!(contents[2]["blob"], small.as_str());
    let text: usize = [0, 1, 3]
        .iter()
        .map(|&i| contents[i]["text"].as_str().unwrap().chars().count())
        .sum();
    assert!(text <= 8_000 + 400, "the texts share the limit: {text}");
    assert!(contents[0]["text"].as_str().unwrap().starts_with("aaa"));
    assert!(contents[3]["text"].as_str().unwrap().ends_with("bbb"));
}

#[test]
fn a_prompts_image_is_never_cut_and_its_messages_stay_messages() {
    let big = "iVBORw0KGgo".repeat(2_000);
    let result = json!({"description": "review", "messages": [
        {"role": "user", "content": {"type": "text", "text": "c".repeat(20_000)}},
        {"role": "user", "content": {"type": "image", "data": big, "mimeType": "image/png"}},
        {"role": "assistant", "content": {"type": "resource", "resource":
            {"uri": "file:///x", "mimeType": "application/pdf", "blob": big}}},
    ]});
    let ctx = after("prompts:get:review", Ok(result));
    let cut = ctx.result().unwrap();
    assert_no_cut_binary(cut, &[]);
    assert_eq!(cut["description"], "review");
    let messages = cut["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{cut}");
    assert_eq!(messages[1]["role"], "user");
    assert_eq!(messages[2]["role"], "assistant");
    for message in messages {
        assert_eq!(message["content"]["type"], "text", "{message}");
    }
    assert!(
        messages[0]["content"]["text"]
            .as_str()
            .unwrap()
            .chars()
            .count()
            <= 8_000 + 200
    );
    let notice = messages[2]["content"]["text"].as_str().unwrap();
    assert!(notice.contains("application/pdf"), "{notice}");
}
