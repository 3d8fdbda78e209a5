//! The console's page, login form, script and style. The page holds no
//! request data: the script fills it from the event stream, writing every
//! stored text as text (`textContent`), never as markup.

/// The page: its CSRF token in a `<meta>` the script copies into every form.
pub(super) fn index(csrf: &str, name: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Approvals</title>
<meta name="csrf" content="{csrf}">
<link rel="stylesheet" href="console.css"><script src="console.js" defer></script></head>
<body><header><h1>Pending approvals</h1><span id="who">{name}</span> <span id="status">connecting…</span></header>
<table><colgroup><col class="id"><col class="tool"><col class="request"><col class="asked"><col class="age"><col class="answer"></colgroup>
<thead><tr><th>#</th><th>Tool</th><th>Question and arguments (redacted)</th><th>Asked by</th><th>Age</th><th>Answer</th></tr></thead>
<tbody id="requests"></tbody></table>
<p id="empty">Nothing is waiting.</p>
</body></html>"#,
        csrf = escape(csrf),
        name = escape(name)
    )
}

/// The login form; `error` says why the last try failed.
pub(super) fn login(error: Option<&str>) -> String {
    let error = error.map_or_else(String::new, |error| {
        format!(r#"<p id="error">{}</p>"#, escape(error))
    });
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Approvals: sign in</title>
<link rel="stylesheet" href="console.css"></head>
<body><h1>Approvals</h1>{error}
<form method="post" action="login">
<label>Token <input type="password" name="token" required autocomplete="off"></label>
<button type="submit">Sign in</button>
</form></body></html>"#
    )
}

/// Text for HTML: the few characters that could start markup or end an attribute.
pub(super) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// The layout no text can break: columns of fixed widths, every text
/// wrapped anywhere and clipped to its column, long texts in boxes of their
/// own height that scroll, the buttons at the top of their row.
pub(super) const STYLE: &str = "[hidden]{display:none !important}
body{font-family:system-ui,sans-serif;margin:1.5rem;overflow-wrap:anywhere}
header{display:flex;gap:1rem;align-items:baseline;min-width:0}
header>*{min-width:0}
table{border-collapse:collapse;width:100%;table-layout:fixed}
col.id{width:3.5rem}col.tool{width:12%}col.asked{width:13%}col.age{width:5rem}col.answer{width:16rem}
th,td{border-bottom:1px solid #ccc;padding:.4rem;text-align:left;vertical-align:top;overflow:hidden;overflow-wrap:anywhere}
.box{max-height:6rem;overflow:auto}
.question{font-weight:600;margin:0 0 .4rem;white-space:pre-wrap}
.arguments{margin:0;padding:0;list-style:none}
.arguments li{margin:.15rem 0;font-family:ui-monospace,monospace;font-size:.9rem}
.key{font-weight:700}
.key::after{content:\": \";font-weight:400}
.value{white-space:pre-wrap}
.size{color:#a40;font-family:system-ui,sans-serif}
details{margin:.1rem 0 .3rem}
pre.whole{margin:0;max-height:16rem;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:.3rem}
#status{color:#666}#error{color:#b00}
.answer form{display:block;margin:0 0 .4rem}
.answer button,.answer input{display:block;width:100%;box-sizing:border-box;margin:.15rem 0}
.count{margin:0 0 .3rem;color:#555}.count.many{color:#a40;font-weight:700}
.confirm-session{border:1px solid #a40;padding:.3rem}
.confirm-session p{margin:0 0 .3rem;max-height:6rem;overflow:auto}
label{display:block;margin:.5rem 0}
";

/// Keeps the table in step with the `pending` events: rows are added and
/// removed by id, so a reason being typed survives an update of other rows.
pub(super) const SCRIPT: &str = r##""use strict";
const csrf = document.querySelector('meta[name="csrf"]').content;
const table = document.getElementById("requests");
const empty = document.getElementById("empty");
const status = document.getElementById("status");
// More arguments than a window shows at once, one a line.
const MANY = 12;
let received = Date.now();

function element(tag, properties, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, properties);
  for (const child of children) node.append(child);
  return node;
}

function hidden(name, value) {
  return element("input", { type: "hidden", name, value });
}

function answerForms(request) {
  const action = "requests/" + request.id + "/answer";
  const approve = element("form", { method: "post", action, className: "approve" },
    hidden("csrf", csrf),
    element("button", { type: "submit", name: "action", value: "once", textContent: "Approve once" }));
  // For the session: a second step, which the console requires (`confirm=yes`).
  const confirm = element("form", { method: "post", action, className: "confirm-session", hidden: true },
    hidden("csrf", csrf),
    hidden("action", "session"),
    hidden("confirm", "yes"),
    element("p", { textContent: "Every later " + named(request.names.tool) + " call in session " + named(request.names.session) + " will run without asking." }),
    element("button", { type: "submit", className: "confirm", textContent: "Yes, approve for the session" }),
    element("button", { type: "button", className: "cancel", textContent: "Cancel" }));
  const session = element("button", { type: "button", className: "session", textContent: "Approve for the session…" });
  session.addEventListener("click", () => { confirm.hidden = false; session.hidden = true; });
  confirm.querySelector("button.cancel").addEventListener("click", () => { confirm.hidden = true; session.hidden = false; });
  approve.append(session);
  const deny = element("form", { method: "post", action, className: "deny" },
    hidden("csrf", csrf),
    hidden("action", "deny"),
    element("input", { type: "text", name: "reason", required: true, placeholder: "reason (the model reads it)" }),
    element("button", { type: "submit", textContent: "Deny" }));
  return [approve, confirm, deny];
}

function age(seconds) {
  if (seconds < 60) return seconds + " s";
  if (seconds < 3600) return Math.floor(seconds / 60) + " min";
  return Math.floor(seconds / 3600) + " h " + Math.floor((seconds % 3600) / 60) + " min";
}

/// A text cut by the console: its preview, its size when cut, and the whole behind a click.
function cutText(cut, className) {
  const parts = [element("span", { className, textContent: cut.preview })];
  if (cut.truncated) parts.push(element("span", { className: "size", textContent: " … " + cut.size }));
  if (cut.whole !== null) {
    parts.push(element("details", {},
      element("summary", { textContent: "whole (" + cut.size + ")" }),
      element("pre", { className: "whole", textContent: cut.whole })));
  }
  return parts;
}

/// A name in a sentence: its preview, and its size if cut.
function named(cut) {
  return cut.truncated ? cut.preview + "… (" + cut.size + ")" : cut.preview;
}

/// How many arguments the call has, next to the buttons: a list too long
/// for the window is said to be one.
function argumentCount(request) {
  const count = request.arguments.length;
  const many = count > MANY;
  return element("p", {
    className: many ? "count many" : "count",
    textContent: count === 1 ? "1 argument" : count + " arguments" + (many ? ": scroll to read every one before answering" : ""),
  });
}

function argumentList(request) {
  const list = element("ul", { className: "arguments" });
  for (const argument of request.arguments) {
    const item = element("li", { className: "argument" });
    if (argument.key !== null) item.append(...cutText(argument.key, "key"));
    item.append(...cutText(argument.value, "value"));
    list.append(item);
  }
  return list;
}

function row(request) {
  const names = request.names;
  const asked = element("div", { className: "box" }, ...cutText(names.agent, "agent"));
  if (names.user) asked.append(" for ", ...cutText(names.user, "user"));
  asked.append(" in ", ...cutText(names.session, "session"));
  const ageCell = element("td", { className: "age" });
  ageCell.dataset.age = request.age_seconds;
  const tr = element("tr", { id: "request-" + request.id, className: "request" },
    element("td", { textContent: "#" + request.id }),
    element("td", { className: "tool" }, element("div", { className: "box" }, ...cutText(names.tool, "tool-name"))),
    element("td", { className: "request-text" },
      element("p", { className: "question box", textContent: request.prompt }),
      argumentList(request)),
    element("td", { className: "asked" }, asked),
    ageCell,
    element("td", { className: "answer" }, argumentCount(request), ...answerForms(request)));
  return tr;
}

function ages() {
  const elapsed = Math.floor((Date.now() - received) / 1000);
  for (const cell of table.querySelectorAll("td.age")) {
    cell.textContent = age(Number(cell.dataset.age) + elapsed);
  }
}

function show(requests) {
  received = Date.now();
  const wanted = new Set(requests.map((request) => "request-" + request.id));
  for (const tr of [...table.children]) {
    if (!wanted.has(tr.id)) tr.remove();
  }
  for (const request of requests) {
    const existing = document.getElementById("request-" + request.id);
    if (existing) {
      existing.querySelector("td.age").dataset.age = request.age_seconds;
    } else {
      table.append(row(request));
    }
  }
  empty.hidden = requests.length > 0;
  ages();
}

const events = new EventSource("events");
events.addEventListener("pending", (event) => {
  status.textContent = "live";
  show(JSON.parse(event.data));
});
events.addEventListener("store-error", (event) => {
  status.textContent = "store error: " + event.data;
});
events.onerror = () => { status.textContent = "disconnected, retrying…"; };
setInterval(ages, 1000);
"##;
