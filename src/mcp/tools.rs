//! The tools of `debrief mcp`: their argument types (the JSON schemas clients see come
//! from these), their definitions, and what each does, over the CLI's own functions.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use anyhow::{Context as _, Result};
use rmcp::handler::server::common::schema_for_type;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use rmcp::schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::cli::FilterArgs;
use crate::commands::{self, Redaction, Style};
use crate::detect;
use crate::formats;
use crate::index::IndexDir;
use crate::index::search::{self, Filters, Hit, Order};
use crate::model::Session;
use crate::redact::Redactor;
use crate::report::{self, templates::Templates};

/// The filters of `debrief search` (and `sessions`), by the same names.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct FilterParams {
    /// Only this agent: a format id or the start of one (claude, codex, gemini, …).
    pub agent: Option<String>,
    /// Only this project (the last folder of the session's working directory).
    pub project: Option<String>,
    /// Only this session: its id or the start of it.
    pub session: Option<String>,
    /// Only messages from `user`, `assistant`, `tool` or `system`.
    pub role: Option<String>,
    /// Only messages that called this tool (Bash, Read, exec_command, …).
    pub tool: Option<String>,
    /// Only messages whose shell commands ran this program (grep, tail, python, …).
    pub program: Option<String>,
    /// Only messages whose calls named this file (a path or a file name).
    pub file: Option<String>,
    /// Only messages that are the key of a finding of this detector.
    pub detector: Option<String>,
    /// From this time on: 2026-02-27, 2026-02-27T11:00, or a span ago (3d, 12h, 2w).
    pub since: Option<String>,
    /// Before this time (same forms as `since`).
    pub until: Option<String>,
    /// Only messages with a failed tool call.
    pub errors: Option<bool>,
}

impl FilterParams {
    /// The CLI's filters, read and checked as the CLI reads its flags.
    fn filters(&self) -> Result<Filters> {
        commands::filters(&FilterArgs {
            agent: self.agent.clone(),
            project: self.project.clone(),
            session: self.session.clone(),
            role: self.role.clone(),
            tool: self.tool.clone(),
            program: self.program.clone(),
            file: self.file.clone(),
            detector: self.detector.clone(),
            since: self.since.clone(),
            until: self.until.clone(),
            errors: self.errors.unwrap_or(false),
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct SearchParams {
    /// Words to look for: words are ANDed, "a phrase" matches in order, -word excludes.
    /// Identifiers and paths match as typed (NCCL_MAX_NCHANNELS, foo::bar, logs/x.log) and
    /// by part (`nchannels`). May be empty when a filter is given.
    pub query: Option<String>,
    /// How hits are ranked: "keyword" (the default: by words, BM25; when no message has
    /// every word, by any of them, and the answer's `note` says so), "semantic" (by
    /// meaning, for a question or a description in other words than the transcript's) or
    /// "hybrid" (both, fused). Each hit's `found_by` names the rankings that found it.
    pub mode: Option<String>,
    /// Only where the words are in this part of a message: "text" (what the user or the
    /// assistant wrote, and reasoning), "command" (tool calls' commands and inputs) or
    /// "output" (what tools printed). Keyword mode only.
    #[serde(rename = "in")]
    pub part: Option<String>,
    #[serde(flatten)]
    pub filters: FilterParams,
    /// Hits per page (1 to 50, default 10).
    pub limit: Option<usize>,
    /// `next_cursor` of the previous page, for the next one.
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct ListSessionsParams {
    #[serde(flatten)]
    pub filters: FilterParams,
    /// Sessions per page (1 to 100, default 20).
    pub limit: Option<usize>,
    /// `next_cursor` of the previous page, for the next one.
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct ReadMessagesParams {
    /// The session: its id or the start of it (as `search` and `list_sessions` give it).
    pub session: String,
    /// First message to read, N of [msg N] (default 1).
    pub from: Option<u32>,
    /// Last message to read (default: the session's last).
    pub to: Option<u32>,
    /// Messages per page (1 to 100, default 20).
    pub limit: Option<usize>,
    /// Longest text, thinking, command output or input shown in full, in characters (100
    /// to 100000, default 2000); a longer one keeps its start and end and says how much
    /// was cut. Read one message again with a larger value to see more.
    pub max_chars: Option<usize>,
    /// `next_cursor` of the previous page, for the next one.
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct FindingsParams {
    #[serde(flatten)]
    pub filters: FilterParams,
    /// Findings per page (1 to 100, default 20).
    pub limit: Option<usize>,
    /// `next_cursor` of the previous page, for the next one.
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct WriteupParams {
    /// The session: its id or the start of it.
    pub session: String,
    /// Write up the episode around the finding keyed on [msg N] (or message N on its own).
    pub episode: Option<u32>,
    /// Write up the arc over messages A..B (inclusive), e.g. "5083..5087".
    pub arc: Option<String>,
    /// Characters per page of Markdown (1000 to 200000, default 20000).
    pub max_chars: Option<usize>,
    /// `next_cursor` of the previous page, for the next one.
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct SeenBeforeParams {
    /// An error line as printed (a traceback's last line, a compiler error, a log line).
    /// Give this or `command`.
    pub error: Option<String>,
    /// A shell command line. Give this or `error`.
    pub command: Option<String>,
    /// Leave out this session (id or start of it): the one you are in.
    pub exclude_session: Option<String>,
    /// Only this agent (claude, codex, …).
    pub agent: Option<String>,
    /// Only this project.
    pub project: Option<String>,
    /// From this time on: 2026-02-27, or a span ago (30d).
    pub since: Option<String>,
    /// Before this time.
    pub until: Option<String>,
    /// Sessions per page (1 to 20, default 5).
    pub limit: Option<usize>,
    /// Commands and edits listed after each occurrence (1 to 15, default 5).
    pub followups: Option<usize>,
    /// `next_cursor` of the previous page, for the next one.
    pub cursor: Option<String>,
}

/// The tools' shared state: where the index is, how to redact, and the transcripts and
/// write-ups read last (an agent reads a session page by page).
pub struct Context {
    index: PathBuf,
    pub redaction: Redaction,
    sessions: Mutex<Vec<Loaded>>,
    writeups: Mutex<Vec<(WriteupKey, Arc<String>)>>,
    opened: Mutex<Option<Opened>>,
}

/// The index as opened last, with its reader, and what its version file (rewritten by a
/// rebuild) and the commit its reader reads (tantivy's `meta.json`, a few KB, names it)
/// were like then.
struct Opened {
    version: Option<Stamp>,
    commit: Option<Vec<u8>>,
    ix: Arc<IndexDir>,
}

/// A transcript's session as parsed, with what its file was like then.
struct Loaded {
    source: PathBuf,
    id: String,
    stamp: Stamp,
    session: Arc<Session>,
}

/// A file's size and time of change.
type Stamp = (u64, Option<SystemTime>);

type WriteupKey = (PathBuf, String, Stamp, String);

/// Sessions and write-ups kept parsed.
const KEPT: usize = 4;

fn stamp(path: &std::path::Path) -> Result<Stamp> {
    let m = std::fs::metadata(path).with_context(|| format!("{}", path.display()))?;
    Ok((m.len(), m.modified().ok()))
}

impl Context {
    pub fn new(index: PathBuf, redaction: Redaction) -> Context {
        Context {
            index,
            redaction,
            sessions: Mutex::new(Vec::new()),
            writeups: Mutex::new(Vec::new()),
            opened: Mutex::new(None),
        }
    }

    /// The write-up `selector` of an indexed session in `format` ("md" or "html"), with
    /// `dress` applied to what the report renders (it is given the session, its findings and
    /// the rendered text): made once per version of the transcript's file (size and time)
    /// and kept, so that reading a long write-up page by page, or opening it again, does not
    /// run the report over the whole session again.
    pub fn writeup(
        &self,
        rec: &crate::index::schema::SessionRecord,
        selector: report::Selector,
        format: &str,
        dress: impl FnOnce(&Session, &[detect::Finding], String) -> String,
    ) -> Result<Arc<String>> {
        let key: WriteupKey = (
            rec.meta.source.clone(),
            rec.meta.id.clone(),
            stamp(&rec.meta.source)?,
            format!("{format} {selector:?} {:?}", self.redaction.extra()),
        );
        if let Some(t) =
            self.writeups.lock().ok().and_then(|w| w.iter().find(|(k, _)| *k == key).map(|(_, t)| Arc::clone(t)))
        {
            return Ok(t);
        }
        let session = self.session(&rec.meta.source, &rec.meta.format, &rec.meta.id)?;
        let found = detect::detect_session(detect::registry(), &session.messages);
        let rendered = report::render_with(
            &session,
            found.clone(),
            selector,
            format,
            &Templates::embedded(),
            self.redaction.extra(),
        )?;
        let text = Arc::new(dress(&session, &found, rendered));
        if let Ok(mut w) = self.writeups.lock() {
            w.retain(|(k, _)| !(k.0 == key.0 && k.1 == key.1 && k.2 != key.2));
            if w.len() >= KEPT {
                w.remove(0);
            }
            w.push((key, Arc::clone(&text)));
        }
        Ok(text)
    }

    /// The index, opened once and kept with one reader for every call: the reader reads
    /// the last commit again when tantivy's `meta.json` changed since (a `debrief index`
    /// in between, or `serve --watch`), and the index is opened again when its version
    /// file changed (a rebuild). A stat and a read of a small file per call, so that every
    /// call sees the last commit, as when each call opened the index.
    pub fn index(&self) -> Result<Arc<IndexDir>> {
        let version = stamp(&self.index.join("debrief.json")).ok();
        let commit = std::fs::read(self.index.join("tantivy").join("meta.json")).ok();
        let mut opened = self.opened.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(o) = opened.as_mut()
            && o.version == version
        {
            if o.commit != commit {
                o.ix.reload()?;
                o.commit = commit;
            }
            return Ok(Arc::clone(&o.ix));
        }
        *opened = None;
        let ix = Arc::new(IndexDir::open(&self.index)?.keep_reader()?);
        *opened = Some(Opened { version, commit, ix: Arc::clone(&ix) });
        Ok(ix)
    }

    /// Session `id` of the transcript `source` (format id `format`), parsed from the file,
    /// or as parsed last time if the file has not changed since.
    pub fn session(&self, source: &std::path::Path, format: &str, id: &str) -> Result<Arc<Session>> {
        let now = stamp(source)?;
        if let Ok(kept) = self.sessions.lock()
            && let Some(l) = kept.iter().find(|l| l.source == source && l.id == id && l.stamp == now)
        {
            return Ok(Arc::clone(&l.session));
        }
        let parsed = formats::parse_file(source, formats::by_id(format))?;
        let session = parsed.sessions.into_iter().find(|s| s.meta.id == id).ok_or_else(|| {
            anyhow::anyhow!("{}: session {id} is no longer in this file (run `debrief index`)", source.display())
        })?;
        let session = Arc::new(session);
        if let Ok(mut kept) = self.sessions.lock() {
            kept.retain(|l| !(l.source == source && l.id == id));
            if kept.len() >= KEPT {
                kept.remove(0);
            }
            kept.push(Loaded {
                source: source.to_path_buf(),
                id: id.to_string(),
                stamp: now,
                session: session.clone(),
            });
        }
        Ok(session)
    }

    /// The indexed session an id (or the start of one) names, parsed.
    pub fn session_by_id(&self, ix: &IndexDir, id: &str) -> Result<Arc<Session>> {
        let rec = commands::session_by_id(ix, id)?;
        self.session(&rec.meta.source, &rec.meta.format, &rec.meta.id)
    }

    /// The redactor for a session's text, `None` when redaction is off.
    pub fn redactor(&self, meta: &crate::model::SessionMeta) -> Result<Option<Redactor>> {
        self.redaction.for_meta(meta)
    }
}

/// Every tool: name, title, what it is for (the description an agent decides by), and
/// the schema of its arguments.
pub fn definitions() -> Vec<Tool> {
    vec![
        tool::<SearchParams>(
            "search",
            "Search past sessions",
            "Search the messages of past agent sessions (text, commands, tool outputs) by words and filters, \
             best match first; mode \"semantic\" or \"hybrid\" ranks by meaning too. Each hit cites the session id, [msg N], the source file and line, a snippet with \
             the matched words between « and », and the findings keyed on that message. Filters are the CLI's: \
             agent, project, session, role, tool, program, file, detector, since, until, errors. A search may \
             be filters only, e.g. {\"errors\": true, \"since\": \"1d\"}. Follow up with read_messages \
             (session, from) or writeup (session, episode).",
        ),
        tool::<ListSessionsParams>(
            "list_sessions",
            "List sessions",
            "List indexed sessions, newest first: id, agent, project, working folder, start and end, message \
             count, model, title, source file, and findings per detector. The filters pick sessions (agent, \
             project, session id start, since, until) or the sessions with a message that matches them \
             (role, tool, program, file, detector, errors).",
        ),
        tool::<ReadMessagesParams>(
            "read_messages",
            "Read messages of a session",
            "Read a session's normalized messages from..to, in order: role, time, source line, text, thinking, \
             and each tool call with its command, output, exit code and error flag (the shape of `debrief show \
             --json`). Long texts and outputs are cut in the middle to max_chars, with the number of characters \
             cut; read a single message (from = to = N) with a larger max_chars to see more.",
        ),
        tool::<FindingsParams>(
            "findings",
            "Findings of the detectors",
            "The debugging-pattern findings the detectors made (a grep swamped by a config dump, a false crash \
             alarm, two settings changed in one relaunch, a retry loop, …): for one session (session), or across \
             the index per detector and time range (detector, since, until), newest first. Each cites its key \
             [msg N], its supporting messages and a one-line summary; writeup with episode = the key message \
             tells the whole episode.",
        ),
        tool::<WriteupParams>(
            "writeup",
            "Write up an episode, an arc or a session",
            "A narrative write-up in Markdown, assembled from the transcript with every [msg N] next to a quote \
             of it: the episode around a finding or message (episode = N), the findings over a range of \
             messages (arc = \"A..B\"), or the whole session (neither): what was tried, each launch and its \
             outcome, the edits, what the findings mean and what followed. Long write-ups come in pages.",
        ),
        tool::<SeenBeforeParams>(
            "seen_before",
            "Was this error or command seen before?",
            "Ask before debugging: given an error line (error) or a shell command (command), the past sessions \
             where it occurred, most recent first, and for each occurrence what followed (the next commands \
             with their exit codes, and the files edited) and whether the error stopped (the command that printed \
             it ran again without it, or later commands never printed it again). Numbers, hashes and addresses \
             in the line may differ between occurrences. Pass exclude_session to leave out the current session.",
        ),
    ]
}

/// A read-only tool whose arguments are `T`: no field outside its schema is accepted,
/// and a `detector` field lists the detectors.
fn tool<T: JsonSchema + 'static>(name: &'static str, title: &str, description: &'static str) -> Tool {
    let mut schema: JsonObject = (*schema_for_type::<T>()).clone();
    schema.insert("additionalProperties".into(), Value::Bool(false));
    if let Some(Value::Object(props)) = schema.get_mut("properties")
        && let Some(Value::Object(d)) = props.get_mut("detector")
    {
        let ids: Vec<Value> = detect::registry().iter().map(|d| Value::from(d.id())).collect();
        d.insert("enum".into(), Value::Array(ids));
        d.insert("type".into(), json!(["string", "null"]));
    }
    Tool::new(name, description, Arc::new(schema)).with_title(title).with_annotations(
        ToolAnnotations::with_title(title).read_only(true).destructive(false).idempotent(true).open_world(false),
    )
}

/// What a tool gives back.
pub(super) enum Output {
    /// A JSON document (also sent as its text).
    Json(Value),
    /// Text for the agent to read as it is (Markdown).
    Text(String),
}

/// A page size: `given`, else `default`; outside 1..=`max` is a usage error.
pub fn page_size(given: Option<usize>, default: usize, max: usize, what: &str) -> Result<usize> {
    match given {
        None => Ok(default),
        Some(n) if (1..=max).contains(&n) => Ok(n),
        Some(n) => crate::usage!("{what} must be 1 to {max}, not {n}"),
    }
}

/// A cursor of `tool` (`next_cursor` of an earlier page): where the page starts.
pub fn cursor(given: &Option<String>, tool: &str) -> Result<usize> {
    let Some(c) = given else { return Ok(0) };
    match c.split_once(':') {
        Some((t, n)) if t == tool => match n.parse() {
            Ok(n) => Ok(n),
            Err(_) => crate::usage!("cursor `{c}` is not one this server gave"),
        },
        _ => crate::usage!("cursor `{c}` is not a cursor of {tool} (pass back the next_cursor it gave)"),
    }
}

pub fn next_cursor(tool: &str, at: usize, more: bool) -> Value {
    if more { Value::from(format!("{tool}:{at}")) } else { Value::Null }
}

/// `s` cut in the middle to `max` characters, with a note of how many were cut (and
/// that number). The start and the end are kept: an output's verdict is at its end. A
/// redaction label (`[REDACTED:kind]`) is kept whole or cut whole, never shown in part.
pub fn cut(s: &str, max: usize) -> (String, usize) {
    let n = s.chars().count();
    if n <= max {
        return (s.to_string(), 0);
    }
    let head = max * 2 / 3;
    let tail = max - head;
    let byte_of = |c: usize| s.char_indices().nth(c).map_or(s.len(), |(b, _)| b);
    let mut from = byte_of(head);
    let mut to = byte_of(n - tail);
    // The label a boundary falls inside, as (start, end) byte offsets — also when it falls
    // inside the word `[REDACTED` itself, which a search of `s[..at]` would not see.
    let label_around = |at: usize| {
        let start = s.match_indices("[REDACTED").map(|(b, _)| b).take_while(|&b| b < at).last()?;
        let end = start + s[start..].find(']')? + 1;
        (end > at).then_some((start, end))
    };
    if let Some((start, _)) = label_around(from) {
        from = start;
    }
    if let Some((_, end)) = label_around(to) {
        to = end.max(from);
    }
    let cut = s[from..to].chars().count();
    (format!("{}\n… [{cut} characters cut] …\n{}", &s[..from], &s[to..]), cut)
}

/// Cut every string in `v` to `max` characters (see [`cut`]); the characters cut.
fn cut_strings(v: &mut Value, max: usize) -> usize {
    match v {
        Value::String(s) => {
            let (t, n) = cut(s, max);
            if n > 0 {
                *s = t;
            }
            n
        }
        Value::Array(a) => a.iter_mut().map(|x| cut_strings(x, max)).sum(),
        Value::Object(o) => {
            o.iter_mut().filter(|(k, _)| k.as_str() != "source").map(|(_, x)| cut_strings(x, max)).sum()
        }
        _ => 0,
    }
}

pub(super) fn search(cx: &Context, p: SearchParams) -> Result<Output> {
    let mut f = p.filters.filters()?;
    f.part = match p.part.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(name) => Some(
            <search::Part as clap::ValueEnum>::from_str(name, true)
                .map_err(|_| crate::UsageError(format!("in `{name}` is none of text, command, output")))?,
        ),
    };
    let query = p.query.unwrap_or_default();
    commands::search::check_query(&query, &f)?;
    let limit = page_size(p.limit, 10, 50, "limit")?;
    let offset = cursor(&p.cursor, "search")?;
    let mode = match p.mode.as_deref().map(str::trim) {
        None | Some("") | Some("keyword") => search::Mode::Keyword,
        Some("semantic") => search::Mode::Semantic,
        Some("hybrid") => search::Mode::Hybrid,
        Some(m) => crate::usage!("mode `{m}` is none of keyword, semantic, hybrid"),
    };
    let ix = cx.index()?;
    let mut hits = search::search_mode(&ix, &query, &f, mode, offset, limit + 1, cx.redaction.extra())?;
    let more = hits.len() > limit;
    hits.truncate(limit);
    let mut out = json!({
        "hits": hits.iter().map(hit_json).collect::<Vec<_>>(),
        "next_cursor": next_cursor("search", offset + limit, more),
    });
    if let Some(note) = commands::search::fallback_note(hits.iter()) {
        out["note"] = Value::from(note);
    }
    Ok(Output::Json(out))
}

/// A search hit as an agent cites it.
fn hit_json(h: &Hit) -> Value {
    let line = h.snippet.line.or(h.line);
    json!({
        "session": h.session,
        "msg": h.idx,
        "cite": format!("[msg {}]", h.idx),
        "source": h.source,
        "line": line,
        "at": format!("{}{}", h.source.display(), line.map(|l| format!(":{l}")).unwrap_or_default()),
        "role": h.role,
        "agent": h.agent,
        "project": h.project,
        "timestamp": h.timestamp,
        "snippet": commands::search::render_snippet(&h.snippet, Style { color: false }),
        "findings": h.findings.iter().map(|f| json!({
            "detector": f.detector,
            "summary": f.summary,
            "evidence": f.evidence,
        })).collect::<Vec<_>>(),
        "found_by": h.found_by,
    })
}

pub(super) fn list_sessions(cx: &Context, p: ListSessionsParams) -> Result<Output> {
    let f = p.filters.filters()?;
    let limit = page_size(p.limit, 20, 100, "limit")?;
    let offset = cursor(&p.cursor, "list_sessions")?;
    let ix = cx.index()?;
    let mut records = crate::index::search::sessions(&ix, &f, offset + limit + 1)?;
    let more = records.len() > offset + limit;
    let mut page: Vec<Value> = Vec::new();
    for r in records.iter_mut().skip(offset).take(limit) {
        if let Some(red) = cx.redactor(&r.meta)? {
            red.apply(r);
        }
        page.push(commands::sessions::session_json(r));
    }
    Ok(Output::Json(json!({"sessions": page, "next_cursor": next_cursor("list_sessions", offset + limit, more)})))
}

/// Characters of message JSON in one page of `read_messages`, past which the page ends
/// early (it always holds one message).
const PAGE_CHARS: usize = 60_000;

pub(super) fn read_messages(cx: &Context, p: ReadMessagesParams) -> Result<Output> {
    let limit = page_size(p.limit, 20, 100, "limit")?;
    let max = match p.max_chars {
        None => 2000,
        Some(n) if (100..=100_000).contains(&n) => n,
        Some(n) => crate::usage!("max_chars must be 100 to 100000, not {n}"),
    };
    let ix = cx.index()?;
    let session = cx.session_by_id(&ix, &p.session)?;
    let from = match &p.cursor {
        Some(_) => cursor(&p.cursor, "read_messages")? as u32,
        None => p.from.unwrap_or(1),
    };
    let to = p.to.unwrap_or(u32::MAX);
    if from > to {
        crate::usage!("from {from} is after to {to}");
    }
    let last = session.messages.last().map_or(0, |m| m.idx);
    if !session.messages.iter().any(|m| (from..=to).contains(&m.idx)) {
        crate::usage!("session {} has messages 1..{last}: none in {from}..{}", session.meta.id, to.min(last.max(from)));
    }
    let redactor = cx.redactor(&session.meta)?;
    let mut out = Vec::new();
    let mut chars = 0;
    let mut next = None;
    for m in session.messages.iter().filter(|m| (from..=to).contains(&m.idx)) {
        if out.len() >= limit || (chars > PAGE_CHARS && !out.is_empty()) {
            next = Some(m.idx);
            break;
        }
        let mut m = m.clone();
        if let Some(r) = &redactor {
            r.apply(&mut m);
        }
        let mut v = commands::show::message_json(&session, &m, None);
        let n = cut_strings(&mut v, max);
        if let Value::Object(o) = &mut v {
            // The session's own fields are said once, above the messages.
            for k in ["source", "session", "format"] {
                o.remove(k);
            }
            if n > 0 {
                o.insert("chars_cut".into(), n.into());
            }
        }
        chars += v.to_string().len();
        out.push(v);
    }
    let mut meta = session.meta.clone();
    if let Some(r) = &redactor {
        r.apply(&mut meta);
    }
    Ok(Output::Json(json!({
        "session": {
            "id": meta.id,
            "agent": meta.format,
            "project": meta.project,
            "title": meta.title,
            "started": meta.started,
            "source": meta.source,
            "messages": session.messages.len(),
        },
        "messages": out,
        "next_cursor": next.map_or(Value::Null, |n| next_cursor("read_messages", n as usize, true)),
    })))
}

pub(super) fn findings(cx: &Context, p: FindingsParams) -> Result<Output> {
    let mut f = p.filters.filters()?;
    f.findings = true;
    let limit = page_size(p.limit, 20, 100, "limit")?;
    let offset = cursor(&p.cursor, "findings")?;
    let ix = cx.index()?;
    // In one session, in the order of its messages; across sessions, newest first.
    let order = if f.session.is_some() { Order::Relevance } else { Order::Newest };
    let mut hits = search::search_page(&ix, "", &f, order, offset, limit + 1, cx.redaction.extra())?;
    let more = hits.len() > limit;
    hits.truncate(limit);
    let mut out = Vec::new();
    for h in &hits {
        for x in h.findings.iter().filter(|x| f.detector.as_ref().is_none_or(|d| *d == x.detector)) {
            out.push(json!({
                "detector": x.detector,
                "summary": x.summary,
                "command": x.command,
                "session": h.session,
                "msg": x.key,
                "cite": format!("[msg {}]", x.key),
                "evidence": x.evidence.iter().map(|i| format!("[msg {i}]")).collect::<Vec<_>>(),
                "source": h.source,
                "line": h.line,
                "timestamp": h.timestamp,
                "agent": h.agent,
                "project": h.project,
            }));
        }
    }
    Ok(Output::Json(json!({"findings": out, "next_cursor": next_cursor("findings", offset + limit, more)})))
}

pub(super) fn writeup(cx: &Context, p: WriteupParams) -> Result<Output> {
    let selector = commands::report::selector(p.episode, p.arc.as_deref())?;
    let max = match p.max_chars {
        None => 20_000,
        Some(n) if (1000..=200_000).contains(&n) => n,
        Some(n) => crate::usage!("max_chars must be 1000 to 200000, not {n}"),
    };
    let at = cursor(&p.cursor, "writeup")?;
    let ix = cx.index()?;
    let rec = commands::session_by_id(&ix, &p.session)?;
    let text = cx.writeup(&rec, selector, "md", |session, found, md| {
        let mut text = String::new();
        for n in commands::report::notes(session, found, selector) {
            text.push_str(&format!("> debrief: {n}\n\n"));
        }
        text.push_str(&md);
        text
    })?;
    if at > text.len() || !text.is_char_boundary(at) {
        crate::usage!("cursor `writeup:{at}` is not one this server gave for this write-up");
    }
    let rest = &text[at..];
    let (page, more) = page_of(rest, max);
    let mut out = page.to_string();
    if more {
        let next = at + page.len();
        out.push_str(&format!(
            "\n\n[… the write-up goes on for {} more characters: call writeup again with the same arguments and cursor \"writeup:{next}\"]",
            text[next..].chars().count()
        ));
    }
    Ok(Output::Text(out))
}

/// The start of `text` up to `max` characters, ending at a line's end when one is in
/// its second half; whether text is left after it.
fn page_of(text: &str, max: usize) -> (&str, bool) {
    let Some((end, _)) = text.char_indices().nth(max) else { return (text, false) };
    let cut = match text[..end].rfind('\n') {
        Some(nl) if text[..nl].chars().count() >= max / 2 => nl + 1,
        _ => end,
    };
    (&text[..cut], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_both_ends() {
        let s = format!("{}{}", "a".repeat(100), "z".repeat(100));
        let (t, n) = cut(&s, 30);
        assert_eq!(n, 170);
        assert!(t.starts_with(&"a".repeat(20)) && t.ends_with(&"z".repeat(10)), "{t}");
        assert!(t.contains("[170 characters cut]"));
        assert_eq!(cut("short", 30), ("short".to_string(), 0));
    }

    #[test]
    fn cut_falling_anywhere_in_a_label_shows_it_whole_or_not_at_all() {
        // Seen on the planted-secret test: the end kept began inside the word `[REDACTED`
        // ("CTED:aws-amazon-bedrock-api-key-short-lived]]"), which showed the rule's name.
        let label = "[REDACTED:aws-amazon-bedrock-api-key-short-lived]";
        for m in 0..label.len() + 12 {
            for s in [
                format!("{}{label}{}", "a".repeat(100), "z".repeat(m)),
                format!("{}{label}{}", "a".repeat(m), "z".repeat(100)),
            ] {
                let (t, _) = cut(&s, 30);
                assert!(t.contains(label) || !t.contains("bedrock") && !t.contains("CTED"), "{m}: {t}");
            }
        }
    }

    #[test]
    fn cut_never_shows_part_of_a_redaction_label() {
        let label = "[REDACTED:aws-bedrock-api-key-long-lived]";
        // The end kept would start inside the label: the label is cut whole.
        let s = format!("{}{label}{}", "a".repeat(100), "z".repeat(5));
        let (t, n) = cut(&s, 30);
        assert!(t.ends_with(&"z".repeat(5)) && !t.contains("long-lived") && !t.contains("REDACTED"), "{t}");
        assert_eq!(n, s.chars().count() - 20 - 5);
        // The start kept would end inside the label: the label is cut whole.
        let s = format!("{}{label}{}", "a".repeat(10), "z".repeat(100));
        let (t, _) = cut(&s, 30);
        assert!(t.starts_with(&format!("{}\n…", "a".repeat(10))) && !t.contains("REDACTED"), "{t}");
        // A label away from the cut stays whole.
        let s = format!("{label}{}{}", "a".repeat(100), "z".repeat(100));
        let (t, _) = cut(&s, 90);
        assert!(t.starts_with(label), "{t}");
    }

    #[test]
    fn pages_end_at_lines() {
        let text = "line one\nline two\nline three\n";
        let (p, more) = page_of(text, 15);
        assert_eq!((p, more), ("line one\n", true));
        assert_eq!(page_of(text, 100), (text, false));
        // No line end in the second half: cut at the limit.
        let (p, _) = page_of("abcdefghij\nk", 6);
        assert_eq!(p, "abcdef");
    }

    #[test]
    fn cursors_belong_to_their_tool() {
        assert_eq!(cursor(&Some("search:20".into()), "search").unwrap(), 20);
        assert!(cursor(&Some("findings:20".into()), "search").is_err());
        assert!(cursor(&Some("search:x".into()), "search").is_err());
        assert_eq!(cursor(&None, "search").unwrap(), 0);
    }

    #[test]
    fn every_tool_has_a_closed_schema() {
        for t in definitions() {
            assert_eq!(t.input_schema.get("additionalProperties"), Some(&Value::Bool(false)), "{}", t.name);
            assert!(t.input_schema.get("properties").is_some_and(Value::is_object), "{}", t.name);
            assert!(t.description.as_deref().is_some_and(|d| d.len() > 80), "{}", t.name);
        }
    }
}
