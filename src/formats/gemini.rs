//! Gemini CLI: saved sessions, `/chat save` checkpoints and headless stream-json.
//!
//! Three formats live here:
//! - `gemini-cli` — `~/.gemini/tmp/<project>/chats/session-<time>-<id>.json` (older: one
//!   JSON document `{sessionId, projectHash, startTime, lastUpdated, messages[]}`) and
//!   `session-….jsonl` (newer: a metadata line, then message records appended as they
//!   change). In the JSONL a message id may be written many times (tool calls and token
//!   counts are added to the last `gemini` message) and the **last** version wins but keeps
//!   the place of the first; `{"$set": {...}}` updates metadata and, when it carries
//!   `messages`, replaces the whole list; `{"$rewindTo": id}` drops that message and
//!   everything after it (all of them when the id is unknown). Because a later line can
//!   change or remove any earlier message, the file is read whole and emitted at the end
//!   (no checkpoints: a grown file is re-read). A message's `line` is the line of its
//!   winning version; messages that only a `$set` list holds have no line.
//!   Record mapping: `user` → user (typed); `gemini` → assistant, `thoughts` →
//!   `thinking` ("subject: description"), `toolCalls[]` → calls whose result is already
//!   inline (`result[].functionResponse.response.output|error`, else `resultDisplay`;
//!   `status` error → `is_error`, cancelled → `interrupted`; "Exit Code: N" in the output
//!   → `exit_code`); `info`/`warning`/`error` → system messages (injected). A `subagent`
//!   session (stored under `chats/<parent-session-id>/`) gets `parent_session`.
//! - `gemini-checkpoint` — `checkpoint-<tag>.json` written by `/chat save`: the model's
//!   history, a list of `Content {role: user|model, parts[]}` (or `{history, authType}`).
//!   `text` parts become text (`thought: true` parts thinking), `functionCall` parts calls,
//!   and user `functionResponse` parts join their call by id, else by name in order, and
//!   make no message (a response "[Operation Cancelled] …", a call the person denied, is
//!   `interrupted`). The context preamble the CLI sends first is injected system text.
//! - `gemini-stream` — `gemini -p … -o stream-json`: `init` (session id, model),
//!   `message` (user/assistant; `delta` chunks of one reply merge; text after tool
//!   results starts a new assistant message), `tool_use` (a call on the current
//!   assistant message), `tool_result` (joined by `tool_id`;
//!   `status: error` → `is_error`), `error` (system message), `result` (no message unless
//!   it failed). Line-oriented and streamed.
//!
//! Unknown record or part types are counted (`sink.unknown`), bad records reported.

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::{
    Assembler, At, Format, Input, JsonLine, NoRestart, Sink, json_reason, next_json_record, orphan_result_message,
    parse_time,
};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

/// `~/.gemini/tmp/<project>/chats/session-*.json[l]`.
pub struct GeminiCli;
/// `~/.gemini/tmp/<project>/checkpoint-<tag>.json`.
pub struct GeminiCheckpoint;
/// `gemini -o stream-json` output.
pub struct GeminiStream;

/// Text of a `PartListUnion`: a string, one part, or a list of parts.
pub(super) fn parts_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let mut out = String::new();
            for it in items {
                let t = parts_text(it);
                if !t.is_empty() {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(&t);
                }
            }
            out
        }
        Value::Object(o) => {
            if o.get("thought").and_then(Value::as_bool) == Some(true) {
                return String::new();
            }
            if let Some(t) = o.get("text").and_then(Value::as_str) {
                return t.to_string();
            }
            if o.contains_key("inlineData") || o.contains_key("fileData") {
                return "[file]".to_string();
            }
            if let Some(fr) = o.get("functionResponse") {
                return response_output(fr).0;
            }
            String::new()
        }
        _ => String::new(),
    }
}

/// Output text and error flag of a `functionResponse` part.
pub(super) fn response_output(fr: &Value) -> (String, bool) {
    let resp = fr.get("response").unwrap_or(&Value::Null);
    if let Some(e) = resp.get("error") {
        let text = e.as_str().map(str::to_string).unwrap_or_else(|| e.to_string());
        return (text, true);
    }
    match resp.get("output").or_else(|| resp.get("content")) {
        Some(Value::String(s)) => (s.clone(), false),
        Some(other) => (parts_text(other), false),
        None if resp.is_null() => (String::new(), false),
        None => (resp.to_string(), false),
    }
}

/// A stream-json tool call's `parameters`: an object, or (as some wrappers record it)
/// that object written as a string — JSON, or a Python literal (`{'command': 'ls',
/// 'force': True}`).
fn parameters(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(|v| v.is_object() || v.is_array())
            .or_else(|| python_literal(s))
            .unwrap_or_else(|| Value::String(s.clone())),
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

/// A Python literal of dicts, lists, tuples, strings, numbers, `True`/`False`/`None`,
/// as JSON.
fn python_literal(s: &str) -> Option<Value> {
    let mut json = String::with_capacity(s.len() + 16);
    let mut chars = s.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                let mut text = String::new();
                loop {
                    match chars.next()? {
                        '\\' => match chars.next()? {
                            'n' => text.push('\n'),
                            't' => text.push('\t'),
                            'r' => text.push('\r'),
                            '0' => text.push('\0'),
                            other => text.push(other),
                        },
                        q if q == c => break,
                        other => text.push(other),
                    }
                }
                json.push_str(&serde_json::to_string(&text).ok()?);
            }
            '(' => json.push('['),
            ')' => json.push(']'),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut word = String::from(c);
                while let Some(&n) = chars.peek().filter(|n| n.is_ascii_alphanumeric() || **n == '_') {
                    word.push(n);
                    chars.next();
                }
                json.push_str(match word.as_str() {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    _ => return None,
                });
            }
            c => json.push(c),
        }
    }
    serde_json::from_str::<Value>(&json).ok().filter(|v| v.is_object() || v.is_array())
}

/// "Exit Code: N" as the shell tool reports it.
pub(super) fn exit_code_line(s: &str) -> Option<i32> {
    s.lines().find_map(|l| l.trim().strip_prefix("Exit Code:").and_then(|r| r.trim().parse().ok()))
}

fn timestamp_of(v: &Value) -> Option<chrono::DateTime<chrono::Utc>> {
    v.get("timestamp").and_then(Value::as_str).and_then(parse_time)
}

/// The shell command line of a Gemini tool call.
pub(super) fn command_of(name: &str, args: &Value) -> Option<String> {
    if name == "run_shell_command" || name == "shell" {
        return args.get("command").and_then(Value::as_str).map(str::to_string);
    }
    super::claude::shell_command(name, args)
}

/// One `ToolCallRecord` of a session file, result included.
fn tool_call(tc: &Value) -> Call {
    let name = tc.get("name").and_then(Value::as_str).unwrap_or("").to_string();
    let input = tc.get("args").cloned().unwrap_or(Value::Null);
    let command = command_of(&name, &input);
    let id = tc.get("id").and_then(Value::as_str).unwrap_or("").to_string();
    let status = tc.get("status").and_then(Value::as_str).unwrap_or("");
    let mut output = String::new();
    let mut is_error = status == "error";
    if let Some(Value::Array(parts)) = tc.get("result") {
        for p in parts {
            if let Some(fr) = p.get("functionResponse") {
                let (t, err) = response_output(fr);
                is_error |= err;
                if !t.is_empty() {
                    if !output.is_empty() {
                        output.push('\n');
                    }
                    output.push_str(&t);
                }
            } else if let Some(t) = p.get("text").and_then(Value::as_str) {
                output.push_str(t);
            }
        }
    } else if let Some(r) = tc.get("result").filter(|r| !r.is_null()) {
        output = parts_text(r);
    }
    if output.is_empty()
        && let Some(Value::String(d)) = tc.get("resultDisplay")
    {
        output = d.clone();
    }
    // A record without `status` (written by other versions and tools) has a result when
    // it carries one.
    let carries =
        tc.get("result").is_some_and(|r| !r.is_null()) || tc.get("resultDisplay").is_some_and(|r| !r.is_null());
    let has_result = match status {
        "" => carries,
        s => !matches!(s, "scheduled" | "validating" | "executing" | "awaiting_approval"),
    };
    let result = has_result.then(|| CallResult {
        exit_code: exit_code_line(&output),
        is_error: is_error || exit_code_line(&output).is_some_and(|c| c != 0),
        interrupted: status == "cancelled",
        timestamp: timestamp_of(tc),
        line: None,
        output,
        ..CallResult::default()
    });
    Call { id, name, input, command, result, continues: None }
}

/// A session-file message record → a message (None for records that say nothing).
fn session_message(rec: &Value, sink: &mut dyn Sink, meta: &mut SessionMeta) -> Option<Message> {
    let kind = rec.get("type").and_then(Value::as_str).unwrap_or("");
    let timestamp = timestamp_of(rec);
    if let Some(t) = timestamp {
        meta.saw_time(t);
    }
    let text = rec.get("content").map(parts_text).unwrap_or_default();
    match kind {
        "user" => Some(Message { role: Role::User, origin: Origin::Typed, timestamp, text, ..Message::default() }),
        "gemini" => {
            if let Some(m) = rec.get("model").and_then(Value::as_str) {
                meta.model = Some(m.to_string());
            }
            let mut thinking = String::new();
            if let Some(Value::Array(ts)) = rec.get("thoughts") {
                for t in ts {
                    let subject = t.get("subject").and_then(Value::as_str).unwrap_or("");
                    let desc = t.get("description").and_then(Value::as_str).unwrap_or("");
                    let line = match (subject.is_empty(), desc.is_empty()) {
                        (false, false) => format!("{subject}: {desc}"),
                        (false, true) => subject.to_string(),
                        _ => desc.to_string(),
                    };
                    if !line.is_empty() {
                        if !thinking.is_empty() {
                            thinking.push_str("\n\n");
                        }
                        thinking.push_str(&line);
                    }
                }
            }
            let calls = match rec.get("toolCalls") {
                Some(Value::Array(tcs)) => tcs.iter().map(tool_call).collect(),
                _ => Vec::new(),
            };
            if text.is_empty() && thinking.is_empty() && calls.is_empty() {
                return None;
            }
            Some(Message {
                role: Role::Assistant,
                origin: Origin::Typed,
                timestamp,
                text,
                thinking,
                calls,
                ..Message::default()
            })
        }
        "info" | "warning" | "error" => {
            let text = if text.is_empty() { format!("[{kind}]") } else { text };
            Some(Message { role: Role::System, origin: Origin::Injected, timestamp, text, ..Message::default() })
        }
        other => {
            sink.unknown(&format!("message/{other}"));
            None
        }
    }
}

/// Session metadata fields shared by the JSON document, the JSONL metadata line and `$set`.
fn saw_meta(meta: &mut SessionMeta, v: &Value, path: &Path) {
    if let Some(id) = v.get("sessionId").and_then(Value::as_str) {
        meta.id = id.to_string();
    }
    for key in ["startTime", "lastUpdated"] {
        if let Some(t) = v.get(key).and_then(Value::as_str).and_then(parse_time) {
            meta.saw_time(t);
        }
    }
    if let Some(s) = v.get("summary").and_then(Value::as_str) {
        meta.title = Some(s.to_string());
    }
    if let Some(Value::Array(dirs)) = v.get("directories")
        && let Some(d) = dirs.first().and_then(Value::as_str)
    {
        meta.saw_cwd(d);
    }
    if v.get("kind").and_then(Value::as_str) == Some("subagent") && meta.parent_session.is_none() {
        // Subagent sessions are stored under chats/<parent session id>/.
        meta.parent_session = path.parent().and_then(Path::file_name).and_then(|n| n.to_str()).map(str::to_string);
    }
    if meta.project.is_none()
        && let Some(p) = v.get("projectHash").and_then(Value::as_str)
    {
        // The tmp folder is named by a hash of the project root (or, newer, by its name).
        let folder = path.ancestors().find(|a| a.file_name().is_some_and(|n| n == "chats")).and_then(Path::parent);
        let name = folder.and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or(p);
        if !(name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit())) {
            meta.project = Some(name.to_string());
        }
    }
}

fn finish(mut meta: SessionMeta, path: &Path) -> SessionMeta {
    meta.source = path.to_path_buf();
    if meta.id.is_empty() {
        meta.id = path.file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
    }
    meta
}

/// One message record of the JSONL, kept until the file is read to the end.
struct Kept {
    rec: Value,
    at: Option<At>,
}

/// Qwen Code's first versions wrote Gemini CLI's checkpoints, chats and streams under `~/.qwen/tmp/`.
const KIN: &[super::kin::Kin] = &[super::kin::Kin { agent: "Qwen Code", folders: &[&[".qwen"]] }];

impl Format for GeminiCli {
    fn id(&self) -> &'static str {
        "gemini-cli"
    }

    fn kin(&self) -> &'static [super::kin::Kin] {
        KIN
    }

    fn agent(&self) -> &'static str {
        "Gemini CLI"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.json", "*.jsonl"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // `$GEMINI_CLI_HOME` stands in for the home folder (packages/core/src/utils/paths.ts).
        places.moved_home(self.id(), "GEMINI_CLI_HOME", &[], &[".gemini", "tmp"])
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        if !text.trim_start().starts_with('{') {
            return 0;
        }
        let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        let named = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("session-"));
        let jsonl = first.ends_with('}') && first.contains("\"sessionId\"") && first.contains("\"projectHash\"");
        let json = text.contains("\"sessionId\"") && text.contains("\"projectHash\"") && text.contains("\"messages\"");
        match (jsonl || json, named) {
            (true, true) => 95,
            (true, false) => 85,
            _ => 0,
        }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let next_idx = input.resume().map_or(1, |r| r.checkpoint.next_idx);
        let path = input.path().to_path_buf();
        let mut records = Records {
            meta: input.resume().map(|r| r.session.clone()).unwrap_or_default(),
            order: Vec::new(),
            kept: HashMap::new(),
        };
        let from_start = input.resume().is_none_or(|r| r.checkpoint.offset == 0);
        // The first record: a line of JSON on its own is the JSONL's metadata; a line that
        // opens a document is the older single document, read whole (if it does not parse as
        // one, the file is read as lines); any other line is a broken first line of the JSONL,
        // and the file is read as lines without loading it whole.
        let mut first = None;
        if from_start {
            let mut head = Vec::new();
            while let Some(line) = input.next_line()? {
                head.extend_from_slice(line.bytes);
                head.push(b'\n');
                if line.bytes.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let at = At::of(&line);
                match serde_json::from_slice::<Value>(line.bytes) {
                    Ok(v) if v.is_object() && !v.get("messages").is_some_and(Value::is_array) => first = Some((at, v)),
                    _ => {
                        if let Some(doc) = whole_document(input, head)?
                            && let Some(Value::Array(msgs)) = doc.get("messages")
                        {
                            return read_document(&doc, msgs, records.meta, &path, sink);
                        }
                        input.restart()?;
                    }
                }
                break;
            }
        }
        // JSONL: last version of each id wins, in the order of first appearance.
        let mut sink = NoRestart::lines(sink);
        if let Some((at, rec)) = first {
            records.take(rec, at, &path, &mut sink);
        }
        while let Some((at, rec)) = next_json_record(input, &mut sink)? {
            records.take(rec, at, &path, &mut sink);
        }
        let Records { mut meta, order, kept } = records;
        let mut asm = Assembler::new(0, next_idx);
        for id in &order {
            let Some(k) = kept.get(id) else { continue };
            let Some(mut m) = session_message(&k.rec, &mut sink, &mut meta) else { continue };
            if let Some(at) = k.at {
                m.line = Some(at.line);
                m.offset = Some(at.offset);
            }
            asm.push(m, None, k.at.unwrap_or_default(), &mut sink)?;
        }
        asm.finish(&mut sink)?;
        Ok(vec![finish(meta, &path)])
    }
}

/// How much past its first line a file is read to tell the older single document from a
/// JSONL whose first line is broken.
const DOCUMENT_PREFIX: u64 = 64 * 1024;

/// The file as one JSON document, when it is one; `head` is what has been read of it (its
/// first line). A bounded prefix decides first: a JSONL whose first line is broken shows a
/// syntax error within its next lines (a line of its own is no continuation of a document),
/// so only a prefix that is a document, or the valid start of one, makes the file be read
/// whole. The caller restarts the input when this gives `None`.
fn whole_document(input: &mut Input, mut head: Vec<u8>) -> Result<Option<Value>> {
    head.extend(input.read_up_to(DOCUMENT_PREFIX)?);
    match serde_json::from_slice::<Value>(&head) {
        Ok(doc) => return Ok(Some(doc)),
        Err(e) if !e.is_eof() => return Ok(None),
        Err(_) => {}
    }
    head.extend(input.read_all()?);
    Ok(serde_json::from_slice::<Value>(&head).ok())
}

/// The older single document `{sessionId, projectHash, startTime, lastUpdated, messages[]}`.
fn read_document(
    doc: &Value,
    msgs: &[Value],
    mut meta: SessionMeta,
    path: &Path,
    sink: &mut dyn Sink,
) -> Result<Vec<SessionMeta>> {
    let mut sink = NoRestart::whole_document(sink);
    saw_meta(&mut meta, doc, path);
    let mut asm = Assembler::new(0, 1);
    for rec in msgs {
        if let Some(m) = session_message(rec, &mut sink, &mut meta) {
            asm.push(m, None, At::default(), &mut sink)?;
        }
    }
    asm.finish(&mut sink)?;
    Ok(vec![finish(meta, path)])
}

/// The records of a session JSONL read so far: the metadata, and each message id's last
/// version in the order ids first appeared.
struct Records {
    meta: SessionMeta,
    order: Vec<String>,
    kept: HashMap<String, Kept>,
}

impl Records {
    /// One line's record: a message (a new version of its id), `$set` (metadata, and the
    /// whole list when it carries `messages`), `$rewindTo` (that message and all after it
    /// dropped; all of them when the id is unknown), or the session's metadata.
    fn take(&mut self, rec: Value, at: At, path: &Path, sink: &mut dyn Sink) {
        if let Some(id) = rec.get("$rewindTo").and_then(Value::as_str) {
            match self.order.iter().position(|o| o == id) {
                Some(p) => {
                    for gone in self.order.drain(p..) {
                        self.kept.remove(&gone);
                    }
                }
                None => {
                    self.order.clear();
                    self.kept.clear();
                }
            }
        } else if let Some(set) = rec.get("$set") {
            saw_meta(&mut self.meta, set, path);
            if let Some(Value::Array(msgs)) = set.get("messages") {
                self.order.clear();
                self.kept.clear();
                for m in msgs {
                    if let Some(id) = m.get("id").and_then(Value::as_str) {
                        if !self.kept.contains_key(id) {
                            self.order.push(id.to_string());
                        }
                        self.kept.insert(id.to_string(), Kept { rec: m.clone(), at: None });
                    }
                }
            }
        } else if let Some(id) = rec.get("id").and_then(Value::as_str) {
            let id = id.to_string();
            if !self.kept.contains_key(&id) {
                self.order.push(id.clone());
            }
            self.kept.insert(id, Kept { rec, at: Some(at) });
        } else if rec.get("sessionId").is_some() {
            saw_meta(&mut self.meta, &rec, path);
        } else if let Some(op) = rec.as_object().and_then(|o| o.keys().find(|k| k.starts_with('$'))) {
            // An update operation this reader does not know yet.
            sink.unknown(op);
        } else {
            sink.bad(BadRecord { line: Some(at.line), reason: "record is neither metadata nor a message".into() });
        }
    }
}

/// Calls waiting for their response, by id and (for calls without one) by name.
#[derive(Default)]
struct OpenCalls {
    by_name: HashMap<String, VecDeque<String>>,
    synthetic: u32,
}

impl OpenCalls {
    /// The id a call is joined by: its own, or a made-up one remembered under its name.
    fn id_for(&mut self, id: Option<&str>, name: &str) -> String {
        let id = match id.filter(|i| !i.is_empty()) {
            Some(i) => i.to_string(),
            None => {
                self.synthetic += 1;
                format!("{name}#{}", self.synthetic)
            }
        };
        self.by_name.entry(name.to_string()).or_default().push_back(id.clone());
        id
    }

    /// The open call a response answers.
    fn take(&mut self, asm: &Assembler, id: Option<&str>, name: &str) -> Option<String> {
        let queue = self.by_name.entry(name.to_string()).or_default();
        if let Some(id) = id.filter(|i| asm.is_open(i)) {
            queue.retain(|q| q != id);
            return Some(id.to_string());
        }
        while let Some(q) = queue.pop_front() {
            if asm.is_open(&q) {
                return Some(q);
            }
        }
        None
    }
}

/// The context preamble Gemini CLI puts first in the history (newer versions wrap it in
/// `<session_context>`).
fn is_context_preamble(text: &str) -> bool {
    let t = text.strip_prefix("<session_context>").unwrap_or(text).trim_start();
    t.starts_with("This is the Gemini CLI. We are setting up the context for our chat.")
}

/// The working folder the preamble names: "I'm currently working in the directory: …"
/// (older) or the first of its "**Workspace Directories:**".
fn preamble_cwd(text: &str) -> Option<&str> {
    if let Some(dir) = text.lines().find_map(|l| l.strip_prefix("I'm currently working in the directory: ")) {
        return Some(dir.trim());
    }
    let mut lines = text.lines().skip_while(|l| !l.contains("**Workspace Directories:**"));
    lines.next()?;
    lines.next()?.trim().strip_prefix("- ").map(str::trim)
}

/// The summary Gemini CLI puts in the history when it compresses the chat.
fn is_compression_summary(text: &str) -> bool {
    text.trim_start().starts_with("<state_snapshot>")
}

impl Format for GeminiCheckpoint {
    fn id(&self) -> &'static str {
        "gemini-checkpoint"
    }

    fn kin(&self) -> &'static [super::kin::Kin] {
        KIN
    }

    fn agent(&self) -> &'static str {
        "Gemini CLI"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.json"]
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start();
        // The first `Content` of the list (or of `{history: […]}`): `parts`, and a Gemini
        // role when it names one.
        let first = if t.starts_with('[') {
            super::first_item_fields(t, 0)
        } else {
            super::object_fields(t, 0)
                .and_then(|top| super::field(&top, "history").and_then(|h| super::first_item_fields(h, 0)))
        };
        let Some(first) = first else { return 0 };
        let parts = super::field(&first, "parts").is_some_and(|p| p.starts_with('['));
        let role = super::field(&first, "role").map(|r| serde_json::from_str::<String>(r).unwrap_or_default());
        if !parts || role.is_some_and(|r| r != "user" && r != "model") {
            return 0;
        }
        let named = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("checkpoint-"));
        if named { 90 } else { 75 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let path = input.path().to_path_buf();
        let all = input.read_all()?;
        let mut sink = NoRestart::whole_document(sink);
        let mut meta = SessionMeta::default();
        let doc: Value = match serde_json::from_slice(&all) {
            Ok(v) => v,
            Err(e) => {
                sink.bad(BadRecord { line: None, reason: format!("not a checkpoint: {}", json_reason(&e)) });
                Value::Null
            }
        };
        let history = match doc.get("history").unwrap_or(&doc) {
            Value::Array(items) => items.as_slice(),
            _ => &[],
        };
        let mut asm = Assembler::new(0, 1);
        let mut open = OpenCalls::default();
        for (i, content) in history.iter().enumerate() {
            let role = content.get("role").and_then(Value::as_str).unwrap_or("");
            let Some(Value::Array(parts)) = content.get("parts") else {
                sink.bad(BadRecord { line: None, reason: format!("content {}: no \"parts\" list", i + 1) });
                continue;
            };
            let mut text = String::new();
            let mut thinking = String::new();
            let mut calls = Vec::new();
            for part in parts {
                if let Some(fc) = part.get("functionCall") {
                    let name = fc.get("name").and_then(Value::as_str).unwrap_or("").to_string();
                    let input = fc.get("args").cloned().unwrap_or(Value::Null);
                    let id = open.id_for(fc.get("id").and_then(Value::as_str), &name);
                    let command = command_of(&name, &input);
                    calls.push(Call { id, name, input, command, result: None, continues: None });
                } else if let Some(fr) = part.get("functionResponse") {
                    let name = fr.get("name").and_then(Value::as_str).unwrap_or("");
                    let (output, is_error) = response_output(fr);
                    let exit_code = exit_code_line(&output);
                    // A call the person denied carries only the CLI's note of it: the
                    // checkpoint keeps no `status`, so the note says it was cancelled.
                    let result = CallResult {
                        is_error: is_error || exit_code.is_some_and(|c| c != 0),
                        exit_code,
                        interrupted: output.starts_with("[Operation Cancelled]"),
                        output,
                        ..CallResult::default()
                    };
                    let target = open.take(&asm, fr.get("id").and_then(Value::as_str), name);
                    let orphan = match target {
                        Some(id) => asm.attach(&id, result).map(|r| (id, r)),
                        None => Some((name.to_string(), result)),
                    };
                    if let Some((id, r)) = orphan {
                        asm.push(orphan_result_message(&id, r), None, At::default(), &mut sink)?;
                    }
                } else if let Some(t) = part.get("text").and_then(Value::as_str) {
                    let target = if part.get("thought").and_then(Value::as_bool) == Some(true) {
                        &mut thinking
                    } else {
                        &mut text
                    };
                    if !target.is_empty() {
                        target.push_str("\n\n");
                    }
                    target.push_str(t);
                } else if part.get("inlineData").is_some() || part.get("fileData").is_some() {
                    text.push_str(if text.is_empty() { "[file]" } else { "\n\n[file]" });
                } else if let Some(k) = part.as_object().and_then(|o| o.keys().next()) {
                    sink.unknown(&format!("part/{k}"));
                }
            }
            if text.is_empty() && thinking.is_empty() && calls.is_empty() {
                continue;
            }
            let (role, origin) = match role {
                "model" => (Role::Assistant, Origin::Typed),
                _ if is_context_preamble(&text) => {
                    if let Some(dir) = preamble_cwd(&text) {
                        meta.saw_cwd(dir);
                    }
                    (Role::System, Origin::Injected)
                }
                _ if is_compression_summary(&text) => (Role::System, Origin::CompactSummary),
                _ => (Role::User, Origin::Typed),
            };
            let m = Message { role, origin, text, thinking, calls, ..Message::default() };
            asm.push(m, None, At::default(), &mut sink)?;
        }
        asm.finish(&mut sink)?;
        let mut meta = finish(meta, &path);
        if let Some(tag) = meta.id.strip_prefix("checkpoint-") {
            meta.title = Some(tag.to_string());
        }
        Ok(vec![meta])
    }
}

impl Format for GeminiStream {
    fn id(&self) -> &'static str {
        "gemini-stream"
    }

    fn kin(&self) -> &'static [super::kin::Kin] {
        KIN
    }

    fn agent(&self) -> &'static str {
        "Gemini CLI"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.jsonl"]
    }

    fn sniff(&self, _path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let mut score = 0;
        // Wrappers that record the stream may write records of their own first: look at
        // the first lines, judging each by its own top-level fields.
        for l in text.lines().take(20) {
            let l = l.trim();
            if !l.starts_with('{') {
                continue;
            }
            let Ok(ev) = serde_json::from_str::<Value>(l) else { continue };
            let has = |k: &str| ev.get(k).is_some_and(|v| !v.is_null());
            match ev.get("type").and_then(Value::as_str) {
                Some("init") if has("session_id") && has("model") => return 90,
                Some("tool_use") if has("tool_name") && has("tool_id") => score = 80,
                _ => {}
            }
        }
        score
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let mut meta = input.resume().map(|r| r.session.clone()).unwrap_or_default();
        let mut asm = Assembler::from_resume(input.resume());
        let mut turn = 0u32;
        while let Some(line) = input.next_line()? {
            let text = line.bytes.trim_ascii_start();
            if !text.is_empty() && !text.starts_with(b"{") {
                // What a wrapper or a hook printed into the recorded stream.
                sink.unknown("non-JSON line");
                continue;
            }
            let Some(JsonLine { at, value: ev, .. }) = line.json::<Value>(sink) else { continue };
            let timestamp = timestamp_of(&ev);
            if let Some(t) = timestamp {
                meta.saw_time(t);
            }
            let kind = ev.get("type").and_then(Value::as_str).unwrap_or("");
            match kind {
                "init" => {
                    if let Some(id) = ev.get("session_id").and_then(Value::as_str) {
                        meta.id = id.to_string();
                    }
                    if let Some(m) = ev.get("model").and_then(Value::as_str) {
                        meta.model = Some(m.to_string());
                    }
                }
                "message" => {
                    let role = ev.get("role").and_then(Value::as_str).unwrap_or("");
                    let content = ev.get("content").and_then(Value::as_str).unwrap_or("").to_string();
                    if role == "assistant" {
                        let key = format!("gemini-reply-{turn}");
                        if let Some(last) = asm.last_mut(&key) {
                            // Deltas concatenate; a whole message after tool calls starts a paragraph.
                            if ev.get("delta").and_then(Value::as_bool) != Some(true) && !last.text.is_empty() {
                                last.text.push_str("\n\n");
                            }
                            last.text.push_str(&content);
                            Assembler::extend_end_line(last, at.line);
                        } else {
                            let m = Message { role: Role::Assistant, timestamp, text: content, ..Message::default() };
                            asm.push(m, Some(key), at, sink)?;
                        }
                    } else {
                        turn += 1;
                        let m = Message {
                            role: Role::User,
                            origin: Origin::Typed,
                            timestamp,
                            text: content,
                            ..Message::default()
                        };
                        asm.push(m, None, at, sink)?;
                    }
                }
                "tool_use" => {
                    let name = ev.get("tool_name").and_then(Value::as_str).unwrap_or("").to_string();
                    let input = parameters(ev.get("parameters"));
                    let id = ev.get("tool_id").and_then(Value::as_str).unwrap_or("").to_string();
                    let command = command_of(&name, &input);
                    let call = Call { id, name, input, command, result: None, continues: None };
                    let key = format!("gemini-reply-{turn}");
                    if let Some(last) = asm.last_mut(&key) {
                        last.calls.push(call);
                        Assembler::extend_end_line(last, at.line);
                        asm.register_calls_of_last();
                    } else {
                        let m = Message { role: Role::Assistant, timestamp, calls: vec![call], ..Message::default() };
                        asm.push(m, Some(key), at, sink)?;
                    }
                }
                "tool_result" => {
                    let id = ev.get("tool_id").and_then(Value::as_str).unwrap_or("").to_string();
                    let failed = ev.get("status").and_then(Value::as_str) == Some("error");
                    let mut output = ev.get("output").and_then(Value::as_str).unwrap_or("").to_string();
                    if let Some(msg) = ev.pointer("/error/message").and_then(Value::as_str) {
                        if !output.is_empty() {
                            output.push('\n');
                        }
                        output.push_str(msg);
                    }
                    let exit_code = exit_code_line(&output);
                    let result = CallResult {
                        is_error: failed || exit_code.is_some_and(|c| c != 0),
                        exit_code,
                        timestamp,
                        line: Some(at.line),
                        output,
                        ..CallResult::default()
                    };
                    if let Some(orphan) = asm.attach(&id, result) {
                        asm.push(orphan_result_message(&id, orphan), None, at, sink)?;
                    }
                    // The model answers tool output in a new response: a new message.
                    turn += 1;
                }
                "error" | "result" => {
                    let failed = kind == "error" || ev.get("status").and_then(Value::as_str) == Some("error");
                    if failed {
                        let text = ev
                            .get("message")
                            .or_else(|| ev.pointer("/error/message"))
                            .and_then(Value::as_str)
                            .unwrap_or("[error]")
                            .to_string();
                        let m = Message {
                            role: Role::System,
                            origin: Origin::Injected,
                            timestamp,
                            text,
                            ..Message::default()
                        };
                        asm.push(m, None, at, sink)?;
                    }
                }
                other => sink.unknown(other),
            }
        }
        asm.finish(sink)?;
        Ok(vec![finish(meta, input.path())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_line(input: &mut Input) -> Vec<u8> {
        let mut head = input.next_line().unwrap().unwrap().bytes.to_vec();
        head.push(b'\n');
        head
    }

    /// A JSONL whose first line is broken is told from the older document by a bounded
    /// prefix, not by reading it whole; a document longer than the prefix is read whole.
    #[test]
    fn a_broken_first_line_is_judged_by_a_bounded_prefix() {
        let tmp = tempfile::tempdir().unwrap();
        let jsonl = tmp.path().join("session-broken.jsonl");
        let mut text = String::from("{\"sessionId\":\"9a8b7c6d\",\"projectHa\n");
        for i in 0..20_000 {
            text.push_str(&format!("{{\"id\":\"u{i}\",\"type\":\"user\",\"content\":\"line {i}\"}}\n"));
        }
        std::fs::write(&jsonl, &text).unwrap();
        let mut input = Input::open(&jsonl, None).unwrap();
        let head = first_line(&mut input);
        assert!(whole_document(&mut input, head).unwrap().is_none());
        assert!(input.consumed() <= 36 + DOCUMENT_PREFIX, "read {} of {} bytes", input.consumed(), text.len());

        let doc = tmp.path().join("session-long.json");
        let msgs: Vec<Value> = (0..5_000)
            .map(|i| serde_json::json!({"id": format!("u{i}"), "type": "user", "content": format!("line {i}")}))
            .collect();
        let value = serde_json::json!({"sessionId": "s", "projectHash": "p", "messages": msgs});
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        assert!(pretty.len() as u64 > 4 * DOCUMENT_PREFIX);
        std::fs::write(&doc, &pretty).unwrap();
        let mut input = Input::open(&doc, None).unwrap();
        let head = first_line(&mut input);
        assert_eq!(whole_document(&mut input, head).unwrap(), Some(value));
    }
}
