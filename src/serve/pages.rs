//! The pages of `debrief serve`, each over the functions the CLI uses: `sessions`,
//! `show`, `search`, the findings the index holds, `report --format html`, `sources`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::Result;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use sha2::Digest as _;

use super::App;
use super::html::{esc, href, msg_href, page, push_esc, seg, when};
use crate::analysis::text::{display_path, human_bytes, plural};
use crate::cli::FilterArgs;
use crate::commands::{self, sources};
use crate::detect::{self, Finding};
use crate::index::search::{self, Filters, Hit, Order};
use crate::index::state;
use crate::mcp::tools::cut;
use crate::model::{Call, Message};
use crate::redact::{Redact, Redactor};
use crate::walk;

/// What a page handler answers.
pub enum Reply {
    /// A page of the UI.
    Page(StatusCode, String),
    /// A write-up as `report --format html` writes it, with the policy that lets its
    /// own stylesheet (and nothing else) apply.
    Report(String),
    /// A piece of a page that the page's script puts in place (new messages of an open
    /// session, search results as they are typed), with the last message it holds.
    Fragment(StatusCode, String, Option<u32>),
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        match self {
            Reply::Page(status, body) => (status, axum::response::Html(body)).into_response(),
            Reply::Fragment(status, body, last) => {
                let mut r = (status, axum::response::Html(body)).into_response();
                if let Some(last) = last {
                    r.headers_mut().insert(LAST_HEADER, HeaderValue::from(last));
                }
                r
            }
            Reply::Report(body) => {
                let csp = report_csp(&body);
                let mut r = axum::response::Html(body).into_response();
                if let Ok(v) = HeaderValue::from_str(&csp) {
                    r.headers_mut().insert(header::CONTENT_SECURITY_POLICY, v);
                }
                r
            }
        }
    }
}

/// The policy of a write-up: its one inline stylesheet by hash, no script, nothing from
/// outside.
fn report_csp(body: &str) -> String {
    let styles: Vec<String> = body
        .match_indices("<style>")
        .filter_map(|(at, _)| {
            let css = &body[at + "<style>".len()..];
            let end = css.find("</style>")?;
            let digest = sha2::Sha256::digest(&css.as_bytes()[..end]);
            Some(format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(digest)))
        })
        .collect();
    format!(
        "default-src 'none'; style-src {}; img-src data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
        if styles.is_empty() { "'none'".to_string() } else { styles.join(" ") }
    )
}

type Query = [(String, String)];

/// The header of a [`Reply::Fragment`] of messages: the last message the session has.
pub const LAST_HEADER: &str = "x-debrief-last";

/// Query parameter `name`, trimmed, when given and not empty.
fn param<'a>(q: &'a Query, name: &str) -> Option<&'a str> {
    q.iter().find(|(k, _)| k == name).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
}

fn param_string(q: &Query, name: &str) -> Option<String> {
    param(q, name).map(str::to_string)
}

/// A number parameter; anything but a number is a usage error (a 400 page).
fn param_num(q: &Query, name: &str) -> Result<Option<u32>> {
    match param(q, name) {
        None => Ok(None),
        Some(v) => match v.parse() {
            Ok(n) => Ok(Some(n)),
            Err(_) => crate::usage!("{name} must be a number, not `{v}`"),
        },
    }
}

/// The CLI's filters, from the query parameters of the same names.
fn filter_args(q: &Query) -> FilterArgs {
    FilterArgs {
        agent: param_string(q, "agent"),
        project: param_string(q, "project"),
        session: param_string(q, "session"),
        role: param_string(q, "role"),
        tool: param_string(q, "tool"),
        program: param_string(q, "program"),
        file: param_string(q, "file"),
        detector: param_string(q, "detector"),
        since: param_string(q, "since"),
        until: param_string(q, "until"),
        errors: param(q, "errors").is_some_and(|v| v != "0" && v != "false"),
    }
}

/// The filter parameters given, to carry into the links of the next page.
fn kept<'a>(q: &'a Query, names: &[&str]) -> Vec<(&'a str, &'a str)> {
    q.iter()
        .filter(|(k, v)| names.contains(&k.as_str()) && !v.trim().is_empty())
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// One field of a filter form.
enum Field {
    Text(&'static str, &'static str, &'static str),
    Select(&'static str, &'static str, Vec<(String, String)>),
    Check(&'static str, &'static str),
}

const FILTERS: &[&str] =
    &["agent", "project", "session", "role", "tool", "program", "file", "detector", "since", "until", "errors"];

fn detector_options() -> Vec<(String, String)> {
    let mut v = vec![(String::new(), "any".to_string())];
    v.extend(detect::registry().iter().map(|d| (d.id().to_string(), d.id().to_string())));
    v
}

fn role_options() -> Vec<(String, String)> {
    ["", "user", "assistant", "tool", "system"]
        .iter()
        .map(|r| (r.to_string(), if r.is_empty() { "any" } else { r }.to_string()))
        .collect()
}

/// The CLI's filters as form fields (those `names` lists).
fn filter_fields(names: &[&str]) -> Vec<Field> {
    let mut out = Vec::new();
    for n in names {
        out.push(match *n {
            "agent" => Field::Text("agent", "agent", "claude, codex…"),
            "project" => Field::Text("project", "project", ""),
            "session" => Field::Text("session", "session id", "start of an id"),
            "role" => Field::Select("role", "role", role_options()),
            "tool" => Field::Text("tool", "tool", "Bash, Read…"),
            "program" => Field::Text("program", "program", "grep, pytest…"),
            "file" => Field::Text("file", "file", "path or name"),
            "detector" => Field::Select("detector", "detector", detector_options()),
            "since" => Field::Text("since", "since", "7d, 2026-02-27"),
            "until" => Field::Text("until", "until", ""),
            "errors" => Field::Check("errors", "failed calls only"),
            _ => continue,
        });
    }
    out
}

fn form(out: &mut String, action: &str, q: &Query, fields: &[Field], button: &str) {
    let _ = write!(out, "<form class=\"filters\" method=\"get\" action=\"{action}\">");
    for f in fields {
        match f {
            Field::Text(name, label, hint) => {
                let v = param(q, name).unwrap_or_default();
                let (kind, extra) = if *name == "q" { ("search", " autofocus") } else { ("text", "") };
                let _ = write!(
                    out,
                    "<label>{label}<input type=\"{kind}\" name=\"{name}\" value=\"{}\" placeholder=\"{}\"{extra}></label>",
                    esc(v),
                    esc(hint)
                );
            }
            Field::Select(name, label, options) => {
                let v = param(q, name).unwrap_or_default();
                let _ = write!(out, "<label>{label}<select name=\"{name}\">");
                for (value, text) in options {
                    let sel = if value == v { " selected" } else { "" };
                    let _ = write!(out, "<option value=\"{}\"{sel}>{}</option>", esc(value), esc(text));
                }
                out.push_str("</select></label>");
            }
            Field::Check(name, label) => {
                let on = param(q, name).is_some_and(|v| v != "0" && v != "false");
                let _ = write!(
                    out,
                    "<label class=\"check\"><input type=\"checkbox\" name=\"{name}\" value=\"1\"{}>{label}</label>",
                    if on { " checked" } else { "" }
                );
            }
        }
    }
    let _ = write!(out, "<button type=\"submit\">{button}</button></form>");
}

/// Previous/next links of a paged list.
fn pager(out: &mut String, path: &str, keep: &[(&str, &str)], page: usize, more: bool) {
    if page <= 1 && !more {
        return;
    }
    out.push_str("<div class=\"pager\">");
    let link = |n: usize| {
        let mut pairs = keep.to_vec();
        let n = n.to_string();
        pairs.push(("page", &n));
        href(path, &pairs)
    };
    if page > 1 {
        let _ = write!(out, "<a rel=\"prev\" href=\"{}\">← previous</a>", link(page - 1));
    }
    let _ = write!(out, "<span class=\"muted\">page {page}</span>");
    if more {
        let _ = write!(out, "<a rel=\"next\" href=\"{}\">next →</a>", link(page + 1));
    }
    out.push_str("</div>");
}

fn page_number(q: &Query) -> Result<usize> {
    Ok(param_num(q, "page")?.unwrap_or(1).max(1) as usize)
}

fn short(id: &str) -> String {
    id.chars().take(8).collect()
}

/// Findings per detector, as tags linking to the detector's findings.
fn finding_tags(out: &mut String, counts: &BTreeMap<String, usize>, session: Option<&str>) {
    for (d, n) in counts {
        let link = match session {
            Some(s) => format!("/session/{}#findings", seg(s)),
            None => format!("/findings?detector={}", seg(d)),
        };
        let _ = write!(out, "<a class=\"tag\" href=\"{}\">{}×{n}</a>", esc(&link), esc(d));
    }
}

const SESSIONS_PAGE: usize = 100;

/// `/`: the indexed sessions, filtered and sorted, with their findings.
pub fn sessions(app: &App, q: &Query) -> Result<Reply> {
    let f = commands::filters(&filter_args(q))?;
    let ix = app.cx.index()?;
    let mut records = crate::index::search::sessions(&ix, &f, usize::MAX)?;
    let sort = param(q, "sort").unwrap_or("newest");
    match sort {
        "newest" => {}
        "oldest" => records.reverse(),
        "messages" => records.sort_by_key(|r| std::cmp::Reverse(r.meta.messages)),
        "findings" => records.sort_by_key(|r| std::cmp::Reverse(r.findings.len())),
        other => crate::usage!("sort must be newest, oldest, messages or findings, not `{other}`"),
    }
    let page_no = page_number(q)?;
    let total = records.len();
    let start = (page_no - 1) * SESSIONS_PAGE;
    let mut body = String::new();
    let _ = write!(
        body,
        "<h1>Sessions</h1><p class=\"meta\">{total} session{} indexed{}</p>",
        plural(total as u64),
        if FILTERS.iter().any(|n| param(q, n).is_some()) { " that match the filters" } else { "" }
    );
    let mut fields =
        filter_fields(&["agent", "project", "session", "detector", "since", "until", "program", "file", "errors"]);
    fields.push(Field::Select(
        "sort",
        "sort by",
        ["newest", "oldest", "messages", "findings"].iter().map(|s| (s.to_string(), s.to_string())).collect(),
    ));
    form(&mut body, "/", q, &fields, "Filter");
    if total == 0 {
        body.push_str("<p>No session here. Run <code>debrief index</code> to read the agents' folders.</p>");
    } else {
        body.push_str(
            "<table class=\"sessions\"><thead><tr><th>session</th><th>started</th><th>agent</th><th>project</th>\
             <th class=\"num\">messages</th><th>findings</th></tr></thead><tbody>",
        );
        for r in records.iter_mut().skip(start).take(SESSIONS_PAGE) {
            if let Some(red) = app.cx.redactor(&r.meta)? {
                r.meta.redact_with(&red);
            }
            let m = &r.meta;
            let _ =
                write!(body, "<tr><td><a class=\"mono\" href=\"/session/{}\">{}</a>", seg(&m.id), esc(&short(&m.id)));
            if let Some(t) = &m.title {
                let (t, _) = cut(t, 120);
                let _ = write!(body, "<div class=\"muted\">{}</div>", esc(&t));
            }
            let _ = write!(
                body,
                "</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>",
                when(m.started),
                esc(&m.format),
                esc(m.project.as_deref().unwrap_or("–")),
                m.messages
            );
            finding_tags(&mut body, &commands::sessions::detector_counts(r), Some(&m.id));
            body.push_str("</td></tr>");
        }
        body.push_str("</tbody></table>");
    }
    let mut keep = kept(q, FILTERS);
    keep.extend(kept(q, &["sort"]));
    pager(&mut body, "/", &keep, page_no, start + SESSIONS_PAGE < total);
    Ok(Reply::Page(StatusCode::OK, page(app, "Sessions", &body)))
}

/// Messages on one session page: a longer session has pages of this many, and a link to
/// a message names the page it is on (`?at=N`).
const WINDOW: usize = 1000;
/// Characters of a message's text, thinking or a call's output shown; a longer one keeps
/// its start and end.
const TEXT_MAX: usize = 20_000;
const OUTPUT_MAX: usize = 8_000;
const INPUT_MAX: usize = 4_000;

/// `/session/{id}`: the messages of a session, its calls with their outputs folded, its
/// findings marked at their key messages with links to the next one.
pub fn session(app: &App, id: &str, q: &Query) -> Result<Reply> {
    let (s, red, findings) = opened(app, id)?;
    let mut meta = s.meta.clone();
    if let Some(r) = &red {
        meta.redact_with(r);
    }
    let sid = seg(&s.meta.id);
    // The window of messages this page shows.
    let at = param_num(q, "at")?.unwrap_or(1);
    let pos = s.messages.iter().position(|m| m.idx >= at).unwrap_or(0);
    let start = pos / WINDOW * WINDOW;
    let window = &s.messages[start..(start + WINDOW).min(s.messages.len())];
    let shown = |idx: u32| window.first().is_some_and(|a| a.idx <= idx) && window.last().is_some_and(|z| idx <= z.idx);
    let links = Links { session: &s.meta.id, findings: &findings, on_page: &shown };

    let mut body = String::with_capacity(64 * 1024);
    let title = meta.title.clone().unwrap_or_else(|| format!("Session {}", short(&meta.id)));
    let (title, _) = cut(&title, 200);
    let _ = write!(body, "<h1>{}</h1><dl class=\"meta\">", esc(&title));
    let mut row = |k: &str, v: String| {
        let _ = write!(body, "<dt>{k}</dt><dd>{v}</dd>");
    };
    row("session", format!("<code>{}</code>", esc(&meta.id)));
    row(
        "agent",
        format!(
            "{}{}",
            esc(&meta.agent),
            meta.agent_version.as_deref().map(|v| format!(" {}", esc(v))).unwrap_or_default()
        ),
    );
    if let Some(p) = &meta.project {
        row("project", esc(p));
    }
    if let Some(c) = &meta.cwd {
        row("folder", format!("<code>{}</code>", esc(c)));
    }
    if let Some(m) = &meta.model {
        row("model", esc(m));
    }
    row("time", format!("{} – {}", when(meta.started), when(meta.ended)));
    row("messages", s.messages.len().to_string());
    row("source", format!("<code>{}</code>", esc(&display_path(&s.meta.source))));
    if let Some(parent) = &meta.parent_session {
        row("parent", format!("<a href=\"/session/{}\">{}</a>", seg(parent), esc(parent)));
    }
    if let Some(from) = &meta.started_from {
        row("started from", format!("<a href=\"/session/{}\">{}</a>", seg(from), esc(from)));
    }
    body.push_str("</dl>");
    let _ = write!(
        body,
        "<p><a href=\"/writeup/{sid}\">Session write-up</a> · <a href=\"{}\">Search this session</a></p>",
        href("/search", &[("session", &s.meta.id)])
    );
    body.push_str("<h2 id=\"findings\">Findings</h2>");
    if findings.is_empty() {
        body.push_str("<p class=\"muted\">No finding in this session.</p>");
    } else {
        body.push_str("<ul class=\"findings\">");
        for (n, f) in findings.iter().enumerate() {
            let (summary, _) = cut(&f.summary, 300);
            let _ = write!(
                body,
                "<li><a href=\"{}\">[msg {}]</a> <span class=\"tag\">{}</span> {} · <a href=\"/writeup/{sid}?episode={}\">write-up</a></li>",
                esc(&links.finding(n)),
                f.key,
                esc(&f.detector),
                esc(&summary),
                f.key
            );
        }
        body.push_str("</ul>");
    }
    if s.messages.len() > WINDOW {
        body.push_str("<div class=\"pager\"><span class=\"muted\">messages</span>");
        for chunk in s.messages.chunks(WINDOW) {
            let (a, z) = (chunk[0].idx, chunk[chunk.len() - 1].idx);
            if shown(a) {
                let _ = write!(body, "<strong>{a}–{z}</strong>");
            } else {
                let _ = write!(body, "<a href=\"/session/{sid}?at={a}\">{a}–{z}</a>");
            }
        }
        body.push_str("</div>");
    }
    body.push_str("<h2>Messages</h2>");
    // The last window of messages grows as the agent writes: the page's script asks for
    // the messages after the last one shown (`/api/session/{id}?after=N`) and adds them.
    let last_window = start + WINDOW >= s.messages.len();
    match window.last() {
        Some(last) if last_window => {
            let _ = write!(body, "<div id=\"messages\" data-live=\"/api/session/{sid}\" data-after=\"{}\">", last.idx);
        }
        _ => body.push_str("<div id=\"messages\">"),
    }
    articles(&mut body, window, red.as_ref(), &links);
    body.push_str("</div>");
    if last_window {
        body.push_str("<p class=\"muted\" id=\"live-status\"></p>");
    }
    Ok(Reply::Page(StatusCode::OK, page(app, &title, &body)))
}

/// `/api/session/{id}?after=N`: the messages of a session after message N, as the session
/// page shows them (the transcript is read again when its file changed), for the page's
/// script to add; the header `x-debrief-last` names the last message the session has.
pub fn session_after(app: &App, id: &str, q: &Query) -> Result<Reply> {
    let after = param_num(q, "after")?
        .ok_or_else(|| crate::UsageError("`after` (the last message the page shows) is needed".into()))?;
    let (s, red, findings) = opened(app, id)?;
    let new: Vec<Message> = s.messages.iter().filter(|m| m.idx > after).cloned().collect();
    // What the page holds after these are added: links to them stay on the page.
    let on_page = |idx: u32| idx > after;
    let links = Links { session: &s.meta.id, findings: &findings, on_page: &on_page };
    let mut body = String::new();
    articles(&mut body, &new, red.as_ref(), &links);
    let last = s.messages.last().map_or(after, |m| m.idx.max(after));
    Ok(Reply::Fragment(StatusCode::OK, body, Some(last)))
}

/// The messages `msgs` of a session, each an `<article id="msg-N">` with the findings
/// keyed on it and marks on the ones it is evidence of (redacted with `red`).
fn articles(body: &mut String, msgs: &[Message], red: Option<&Redactor>, links: &Links) {
    let findings = links.findings;
    // Findings keyed on, and supported by, each message.
    let mut keyed: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut supports: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (n, f) in findings.iter().enumerate() {
        keyed.entry(f.key).or_default().push(n);
        for &e in f.evidence.iter().filter(|&&e| e != f.key) {
            supports.entry(e).or_default().push(n);
        }
    }
    for m in msgs {
        let mut m = m.clone();
        if let Some(r) = red {
            m.redact_with(r);
        }
        let evidence = supports.contains_key(&m.idx) || keyed.contains_key(&m.idx);
        let _ = write!(
            body,
            "<article class=\"msg {}{}\" id=\"msg-{}\"><div class=\"head\"><a href=\"#msg-{}\">[msg {}]</a><span class=\"role\">{}</span>",
            m.role.as_str(),
            if evidence { " evidence" } else { "" },
            m.idx,
            m.idx,
            m.idx,
            m.role.as_str()
        );
        if m.timestamp.is_some() {
            let _ = write!(body, "<span>{}</span>", when(m.timestamp));
        }
        if let Some(l) = m.line {
            let _ = write!(body, "<span>line {l}</span>");
        }
        if m.sidechain {
            body.push_str("<span>subagent</span>");
        }
        for &n in supports.get(&m.idx).into_iter().flatten() {
            let _ = write!(
                body,
                "<a class=\"tag\" href=\"{}\">evidence of {} [msg {}]</a>",
                esc(&links.finding(n)),
                esc(&findings[n].detector),
                findings[n].key
            );
        }
        body.push_str("</div>");
        for &n in keyed.get(&m.idx).into_iter().flatten() {
            finding_aside(body, n, links);
        }
        message_body(body, &m);
        body.push_str("</article>\n");
    }
}

/// An indexed session (by id or its start) as its file is now, its redactor, and its
/// findings (of the last index run) redacted and in the order the pages number them.
fn opened(app: &App, id: &str) -> Result<(std::sync::Arc<crate::model::Session>, Option<Redactor>, Vec<Finding>)> {
    let ix = app.cx.index()?;
    let rec = commands::session_by_id(&ix, id)?;
    let s = app.cx.session(&rec.meta.source, &rec.meta.format, &rec.meta.id)?;
    let red = app.cx.redactor(&s.meta)?;
    let mut findings: Vec<Finding> = rec.findings;
    if let Some(r) = &red {
        findings.iter_mut().for_each(|f| f.redact_with(r));
    }
    findings.sort_by_key(|f| (f.key, f.detector.clone()));
    Ok((s, red, findings))
}

/// The links of a session's messages and findings, from a page that shows the messages
/// `on_page` says it does: an anchor there, a link to the right window elsewhere.
struct Links<'a> {
    session: &'a str,
    findings: &'a [Finding],
    on_page: &'a dyn Fn(u32) -> bool,
}

impl Links<'_> {
    /// Finding `n` (of [`Links::findings`]).
    fn finding(&self, n: usize) -> String {
        let f = &self.findings[n];
        if (self.on_page)(f.key) {
            format!("#finding-{}", n + 1)
        } else {
            format!("/session/{}?at={}#finding-{}", seg(self.session), f.key, n + 1)
        }
    }

    fn message(&self, idx: u32) -> String {
        if (self.on_page)(idx) { format!("#msg-{idx}") } else { msg_href(self.session, idx) }
    }
}

fn finding_aside(out: &mut String, n: usize, links: &Links) {
    let findings = links.findings;
    let sid = seg(links.session);
    let f = &findings[n];
    let _ = write!(
        out,
        "<aside class=\"finding\" id=\"finding-{}\"><div><a class=\"det\" href=\"/findings?detector={}\">{}</a> — ",
        n + 1,
        seg(&f.detector),
        esc(&f.detector)
    );
    push_esc(out, &f.summary);
    out.push_str("</div>");
    if let Some(c) = &f.command {
        let (c, _) = cut(c, INPUT_MAX);
        let _ = write!(out, "<pre>{}</pre>", esc(&c));
    }
    let _ = write!(out, "<nav><a href=\"/writeup/{sid}?episode={}\">episode write-up</a>", f.key);
    let others: Vec<u32> = f.evidence.iter().copied().filter(|&e| e != f.key).collect();
    if !others.is_empty() {
        out.push_str("<span>evidence:");
        for e in others {
            let _ = write!(out, " <a href=\"{}\">[msg {e}]</a>", esc(&links.message(e)));
        }
        out.push_str("</span>");
    }
    if n > 0 {
        let _ = write!(out, "<a class=\"prev-finding\" href=\"{}\">← previous finding</a>", esc(&links.finding(n - 1)));
    }
    if n + 1 < findings.len() {
        let _ = write!(out, "<a class=\"next-finding\" href=\"{}\">next finding →</a>", esc(&links.finding(n + 1)));
    }
    out.push_str("</nav></aside>");
}

/// A message's text, thinking and calls (already redacted).
fn message_body(out: &mut String, m: &Message) {
    if !m.text.is_empty() {
        let (t, _) = cut(&m.text, TEXT_MAX);
        out.push_str("<div class=\"text\">");
        push_esc(out, &t);
        out.push_str("</div>");
    }
    if !m.thinking.is_empty() {
        let (t, _) = cut(&m.thinking, TEXT_MAX);
        let _ = write!(
            out,
            "<details class=\"thinking\"><summary>thinking ({} characters)</summary><pre>",
            m.thinking.chars().count()
        );
        push_esc(out, &t);
        out.push_str("</pre></details>");
    }
    for c in &m.calls {
        call(out, c);
    }
}

fn call(out: &mut String, c: &Call) {
    let r = c.result.as_ref();
    let failed = r.is_some_and(|r| r.is_error || r.exit_code.is_some_and(|e| e != 0));
    let _ = write!(out, "<div class=\"call{}\"><div class=\"name\">", if failed { " failed" } else { "" });
    push_esc(out, &c.name);
    if let Some(r) = r {
        if let Some(e) = r.exit_code {
            let _ = write!(out, " · exit {e}");
        }
        for (on, what) in [
            (r.is_error, "error"),
            (r.interrupted, "interrupted"),
            (r.timed_out, "timed out"),
            (r.running, "still running"),
        ] {
            if on {
                let _ = write!(out, " · {what}");
            }
        }
    }
    if let Some(k) = &c.continues {
        out.push_str(" · reads the output of call ");
        push_esc(out, k);
    }
    out.push_str("</div>");
    let input = match &c.command {
        Some(cmd) => cmd.clone(),
        None if c.input.is_null() => String::new(),
        None => serde_json::to_string_pretty(&c.input).unwrap_or_default(),
    };
    if !input.is_empty() {
        let (t, _) = cut(&input, INPUT_MAX);
        out.push_str("<pre class=\"cmd\">");
        push_esc(out, &t);
        out.push_str("</pre>");
    }
    match r {
        Some(r) if !r.output.is_empty() => {
            let lines = r.output.lines().count();
            let (t, n) = cut(&r.output, OUTPUT_MAX);
            let _ = write!(
                out,
                "<details class=\"output\"{}><summary>output · {lines} line{}{}</summary><pre>",
                if failed && lines <= 40 { " open" } else { "" },
                plural(lines as u64),
                if n > 0 { format!(" · {n} characters cut") } else { String::new() }
            );
            push_esc(out, &t);
            out.push_str("</pre></details>");
        }
        Some(_) => out.push_str("<div class=\"muted\">no output</div>"),
        None => out.push_str("<div class=\"muted\">no result recorded</div>"),
    }
    out.push_str("</div>");
}

const HITS_PAGE: usize = 30;

/// `/search`: the CLI's search, with its filters.
pub fn search(app: &App, q: &Query) -> Result<Reply> {
    let mut body = String::from("<h1>Search</h1>");
    let mut fields = vec![Field::Text("q", "words", "\"a phrase\" word -excluded")];
    fields.push(Field::Select(
        "mode",
        "rank by",
        [("keyword", "words"), ("semantic", "meaning"), ("hybrid", "both")]
            .iter()
            .map(|(v, l)| (v.to_string(), l.to_string()))
            .collect(),
    ));
    fields.push(Field::Select(
        "in",
        "in",
        [("", "any part"), ("text", "text"), ("command", "commands"), ("output", "outputs")]
            .iter()
            .map(|(v, l)| (v.to_string(), l.to_string()))
            .collect(),
    ));
    fields.extend(filter_fields(FILTERS));
    form(&mut body, "/search", q, &fields, "Search");
    // Results as the words are typed: the page's script asks `/api/search` with the
    // form's fields and puts its answer in place of these results.
    if let Some(at) = body.rfind("<form class=\"filters\"") {
        body.insert_str(at + "<form".len(), " data-live=\"/api/search\"");
    }
    let (status, title, results) = search_results(app, q)?;
    let _ = write!(body, "<div id=\"results\">{results}</div>");
    Ok(Reply::Page(status, page(app, &title, &body)))
}

/// `/api/search`: the results part of the search page for the same fields, for the page's
/// script to show as the words are typed.
pub fn search_fragment(app: &App, q: &Query) -> Result<Reply> {
    let (status, _, results) = search_results(app, q)?;
    Ok(Reply::Fragment(status, results, None))
}

/// The search page's results for the fields `q`: its status, its title and the results'
/// HTML (hits and pager; or the hint, when nothing is asked; or why the query is wrong).
fn search_results(app: &App, q: &Query) -> Result<(StatusCode, String, String)> {
    let query = param(q, "q").unwrap_or_default().to_string();
    let mut body = String::new();
    let f = commands::filters(&filter_args(q)).and_then(|mut f| {
        f.part = match param(q, "in") {
            None | Some("") => None,
            Some(name) => Some(
                <search::Part as clap::ValueEnum>::from_str(name, true)
                    .map_err(|_| crate::UsageError(format!("in `{name}` is none of text, command, output")))?,
            ),
        };
        Ok(f)
    });
    let asked = !query.is_empty() || FILTERS.iter().any(|n| param(q, n).is_some());
    let f = match f.and_then(|f| commands::search::check_query(&query, &f).map(|_| f)) {
        Ok(f) => f,
        Err(e) if asked && e.downcast_ref::<crate::UsageError>().is_some() => {
            let _ = write!(body, "<p class=\"error\">{}</p>", esc(&format!("{e:#}")));
            return Ok((StatusCode::BAD_REQUEST, "Search".into(), body));
        }
        Err(_) if !asked => {
            body.push_str(
                "<p class=\"muted\">Words are ANDed, \"quoted phrases\" match in order, -word excludes. Identifiers and \
                 paths match as typed (NCCL_MAX_NCHANNELS, foo::bar, logs/x.log). A search may be filters alone.</p>",
            );
            return Ok((StatusCode::OK, "Search".into(), body));
        }
        Err(e) => return Err(e),
    };
    let page_no = page_number(q)?;
    let ix = app.cx.index()?;
    let offset = (page_no - 1) * HITS_PAGE;
    let mode = match param(q, "mode") {
        Some("semantic") => search::Mode::Semantic,
        Some("hybrid") => search::Mode::Hybrid,
        _ => search::Mode::Keyword,
    };
    let mut hits = match search::search_mode(&ix, &query, &f, mode, offset, HITS_PAGE + 1, app.cx.redaction.extra()) {
        Ok(h) => h,
        Err(e)
            if e.downcast_ref::<search::IndexNoEmbeddings>().is_some()
                || e.downcast_ref::<crate::UsageError>().is_some() =>
        {
            let _ = write!(body, "<p class=\"error\">{}</p>", esc(&format!("{e:#}")));
            return Ok((StatusCode::BAD_REQUEST, "Search".into(), body));
        }
        Err(e) => return Err(e),
    };
    let more = hits.len() > HITS_PAGE;
    hits.truncate(HITS_PAGE);
    if hits.is_empty() {
        body.push_str("<p>No message matches.</p>");
    }
    if let Some(note) = commands::search::fallback_note(hits.iter()) {
        let _ = write!(body, "<p class=\"muted\">{}.</p>", esc(note));
    }
    for h in &hits {
        hit(&mut body, h);
    }
    let mut keep = kept(q, FILTERS);
    keep.extend(kept(q, &["q", "mode", "in"]));
    pager(&mut body, "/search", &keep, page_no, more);
    let title = if query.is_empty() { "Search".to_string() } else { format!("{query} – search") };
    Ok((StatusCode::OK, title, body))
}

fn hit(out: &mut String, h: &Hit) {
    let _ = write!(
        out,
        "<div class=\"hit\"><div><a class=\"msg-link\" href=\"{}\">[msg {}]</a> · <a class=\"mono\" href=\"/session/{}\">{}</a> · {} · {} · {}{}",
        esc(&msg_href(&h.session, h.idx)),
        h.idx,
        seg(&h.session),
        esc(&short(&h.session)),
        esc(&h.role),
        esc(&h.agent),
        esc(h.project.as_deref().unwrap_or("–")),
        if h.timestamp.is_some() { format!(" · {}", when(h.timestamp)) } else { String::new() }
    );
    for f in &h.findings {
        let _ = write!(
            out,
            " <a class=\"tag\" href=\"/session/{}?at={}#msg-{}\" title=\"{}\">{}</a>",
            seg(&h.session),
            f.key,
            f.key,
            esc(&f.summary),
            esc(&f.detector)
        );
    }
    out.push_str("</div><div class=\"snippet\">");
    snippet(out, &h.snippet);
    out.push_str("</div></div>");
}

/// A snippet with its matched words marked.
fn snippet(out: &mut String, s: &search::Snippet) {
    let mut at = 0;
    for &(a, b) in &s.highlights {
        if a < at || b > s.text.len() || a > b || !s.text.is_char_boundary(a) || !s.text.is_char_boundary(b) {
            continue;
        }
        push_esc(out, &s.text[at..a]);
        out.push_str("<mark>");
        push_esc(out, &s.text[a..b]);
        out.push_str("</mark>");
        at = b;
    }
    push_esc(out, &s.text[at..]);
}

const FINDINGS_PAGE: usize = 50;

/// `/findings`: how often each detector fired across the archive, and the findings,
/// newest first, of one detector or of all.
pub fn findings(app: &App, q: &Query) -> Result<Reply> {
    let names = ["detector", "agent", "project", "since", "until"];
    let mut f = commands::filters(&filter_args(
        &q.iter().filter(|(k, _)| names.contains(&k.as_str())).cloned().collect::<Vec<_>>(),
    ))?;
    let ix = app.cx.index()?;
    // The counts over the sessions the other filters pick.
    let all = crate::index::search::sessions(&ix, &Filters { detector: None, ..f.clone() }, usize::MAX)?;
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for r in &all {
        for (d, n) in commands::sessions::detector_counts(r) {
            let e = counts.entry(detect::by_id(&d).map_or("?", |x| x.id())).or_default();
            e.0 += n;
            e.1 += 1;
        }
    }
    let mut body = String::from("<h1>Findings</h1>");
    form(&mut body, "/findings", q, &filter_fields(&names), "Show");
    body.push_str(
        "<table class=\"detectors\"><thead><tr><th>detector</th><th>what it finds</th><th class=\"num\">findings</th>\
         <th class=\"num\">sessions</th></tr></thead><tbody>",
    );
    let keep_other = kept(q, &["agent", "project", "since", "until"]);
    for d in detect::registry() {
        let (n, sessions) = counts.get(d.id()).copied().unwrap_or_default();
        let mut pairs = keep_other.clone();
        pairs.push(("detector", d.id()));
        let _ = write!(
            body,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td class=\"num\">{n}</td><td class=\"num\">{sessions}</td></tr>",
            href("/findings", &pairs),
            esc(d.id()),
            esc(d.summary())
        );
    }
    body.push_str("</tbody></table>");
    let page_no = page_number(q)?;
    let offset = (page_no - 1) * FINDINGS_PAGE;
    f.findings = true;
    let mut hits =
        search::search_page(&ix, "", &f, Order::Newest, offset, FINDINGS_PAGE + 1, app.cx.redaction.extra())?;
    let more = hits.len() > FINDINGS_PAGE;
    hits.truncate(FINDINGS_PAGE);
    let _ = write!(
        body,
        "<h2>{}</h2>",
        esc(&match &f.detector {
            Some(d) => format!("Findings of {d}, newest first"),
            None => "All findings, newest first".to_string(),
        })
    );
    if hits.is_empty() {
        body.push_str("<p class=\"muted\">None.</p>");
    }
    body.push_str("<ul class=\"findings\">");
    for h in &hits {
        for x in h.findings.iter().filter(|x| f.detector.as_ref().is_none_or(|d| *d == x.detector)) {
            let sid = seg(&h.session);
            let (summary, _) = cut(&x.summary, 300);
            let _ = write!(
                body,
                "<li><span class=\"tag\">{}</span> {} <div class=\"meta\"><a class=\"mono\" href=\"/session/{sid}\">{}</a> \
                 <a href=\"{}\">[msg {}]</a> · {} · {} · {} · <a href=\"/writeup/{sid}?episode={}\">write-up</a></div></li>",
                esc(&x.detector),
                esc(&summary),
                esc(&short(&h.session)),
                esc(&msg_href(&h.session, x.key)),
                x.key,
                esc(&h.agent),
                esc(h.project.as_deref().unwrap_or("–")),
                when(h.timestamp),
                x.key
            );
        }
    }
    body.push_str("</ul>");
    pager(&mut body, "/findings", &kept(q, &names), page_no, more);
    Ok(Reply::Page(StatusCode::OK, page(app, "Findings", &body)))
}

/// `/writeup/{id}`: the session, episode (`?episode=N`) or arc (`?arc=A..B`) write-up,
/// the HTML `debrief report --format html` writes, with a way back.
pub fn writeup(app: &App, id: &str, q: &Query) -> Result<Reply> {
    let selector = commands::report::selector(param_num(q, "episode")?, param(q, "arc"))?;
    let ix = app.cx.index()?;
    let rec = commands::session_by_id(&ix, id)?;
    let html = app.cx.writeup(&rec, selector, "html", |s, found, html| {
        let mut nav = format!(
            "<nav><a href=\"/session/{}\">← session {}</a> · <a href=\"/\">sessions</a> · <a href=\"/findings\">findings</a></nav>",
            seg(&s.meta.id),
            esc(&short(&s.meta.id))
        );
        for n in commands::report::notes(s, found, selector) {
            let _ = write!(nav, "<p class=\"meta\">debrief: {}</p>", esc(&n));
        }
        match html.find("<body>") {
            Some(at) => format!("{}{nav}{}", &html[..at + "<body>".len()], &html[at + "<body>".len()..]),
            None => html,
        }
    })?;
    Ok(Reply::Report(html.to_string()))
}

/// `/sources`: each agent's folder, what of it is indexed, and the format drift.
pub fn sources(app: &App) -> Result<Reply> {
    let ix = app.cx.index();
    let st = ix.as_ref().ok().map(|ix| ix.load_state()).transpose();
    let (st, note) = match (ix, st) {
        (Ok(_), Ok(s)) => (s, None),
        (Ok(_), Err(e)) | (Err(e), _) => (None, Some(format!("{e:#}"))),
    };
    let folders: Vec<sources::Folder> =
        walk::default_sources().into_iter().map(|s| sources::folder(s, st.as_ref())).collect();
    let mut body = String::from(
        "<h1>Sources</h1><h2>Agent folders</h2><table><thead><tr><th>agent</th><th>folder</th><th class=\"num\">files</th>\
         <th class=\"num\">size</th><th class=\"num\">indexed</th></tr></thead><tbody>",
    );
    for f in &folders {
        let _ = write!(
            body,
            "<tr><td>{}</td><td><code>{}</code>{}</td>",
            esc(f.agent),
            esc(&display_path(&f.path)),
            f.from_env.map(|e| format!(" <span class=\"muted\">(from ${})</span>", esc(e))).unwrap_or_default()
        );
        if f.exists {
            let _ = write!(
                body,
                "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                f.files,
                human_bytes(f.bytes),
                f.indexed.map_or("–".to_string(), |n| n.to_string())
            );
        } else {
            body.push_str("<td colspan=\"3\" class=\"muted\">not found</td></tr>");
        }
    }
    body.push_str("</tbody></table><h2>Kept with each project</h2><p class=\"muted\">Index them by path: <code>debrief index PROJECT</code></p><ul>");
    for (agent, where_) in walk::without_default_folder() {
        let _ = write!(body, "<li>{}: {}</li>", esc(agent), esc(where_));
    }
    body.push_str("</ul><h2>Index</h2>");
    let Some(st) = st else {
        let _ = write!(body, "<p class=\"error\">{}</p>", esc(note.as_deref().unwrap_or("no index")));
        return Ok(Reply::Page(StatusCode::OK, page(app, "Sources", &body)));
    };
    let total = sources::indexed(&st, None);
    let _ = write!(body, "<p>{total} file{} indexed.</p>", plural(total as u64));
    // By format: an archive indexed by path lies in none of the agents' folders above.
    let formats = sources::by_format(&st);
    if !formats.is_empty() {
        body.push_str(
            "<table class=\"formats\"><thead><tr><th>format</th><th class=\"num\">files</th>\
             <th class=\"num\">sessions</th><th class=\"num\">size</th></tr></thead><tbody>",
        );
        for (format, (files, sessions, bytes)) in &formats {
            let _ = write!(
                body,
                "<tr><td>{}</td><td class=\"num\">{files}</td><td class=\"num\">{sessions}</td><td class=\"num\">{}</td></tr>",
                esc(format),
                human_bytes(*bytes)
            );
        }
        body.push_str("</tbody></table>");
    }
    let empty = sources::nothing_read(&st);
    if !empty.is_empty() {
        body.push_str("<h2>Read as no message</h2><p class=\"muted\">A format claimed these files; nothing came out of them.</p><ul>");
        for (path, format) in &empty {
            let _ = write!(body, "<li>{}: <code>{}</code></li>", esc(format), esc(&display_path(path)));
        }
        body.push_str("</ul>");
    }
    body.push_str(
        "<h2>Format drift</h2><p class=\"muted\">Record types the parsers did not know, in indexed files.</p>",
    );
    let drift = state::drift(&st);
    if drift.is_empty() {
        body.push_str("<p>None seen.</p>");
    } else {
        body.push_str(
            "<table><thead><tr><th>format</th><th>agent version</th><th>record type</th><th class=\"num\">records</th>\
             <th class=\"num\">files</th></tr></thead><tbody>",
        );
        for ((format, version, kind), (records, files)) in &drift {
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td class=\"num\">{records}</td><td class=\"num\">{files}</td></tr>",
                esc(format),
                esc(if version.is_empty() { "–" } else { version }),
                esc(&crate::redact::redact(kind))
            );
        }
        body.push_str("</tbody></table>");
    }
    Ok(Reply::Page(StatusCode::OK, page(app, "Sources", &body)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_mark_matches_and_escape_the_rest() {
        let s = search::Snippet { text: "<b>NCCL</b> error".into(), highlights: vec![(3, 7)], line: None };
        let mut out = String::new();
        snippet(&mut out, &s);
        assert_eq!(out, "&lt;b&gt;<mark>NCCL</mark>&lt;/b&gt; error");
    }

    #[test]
    fn report_policy_hashes_its_style() {
        let csp = report_csp("<html><head><style>body{}</style></head></html>");
        let want = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(b"body{}"));
        assert!(csp.contains(&format!("style-src 'sha256-{want}';")), "{csp}");
        assert!(csp.starts_with("default-src 'none'"), "{csp}");
        assert!(report_csp("<p>no style</p>").contains("style-src 'none'"));
    }
}
