//! Codex CLI rollout JSONL (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`).
//!
//! Each line is `{"timestamp", "type", "payload"}`. How records become messages:
//! - `session_meta` gives the session id, cwd, CLI version and provenance; `turn_context`
//!   the model and cwd of the turn. Neither makes a message.
//! - `response_item` is the conversation as the model saw it and is canonical:
//!   `message` (role user/assistant; `developer`/`system` and the harness's
//!   `<environment_context>`/`<user_instructions>`/AGENTS.md turns become injected
//!   system messages), `reasoning` (summary text goes to the next assistant message's
//!   `thinking`), `function_call` / `custom_tool_call` / `local_shell_call` (calls; the
//!   shell command line is recovered from `arguments`, a JSON *string*, for `shell`,
//!   `shell_command`, `exec_command` and `container.exec`), and `function_call_output` /
//!   `custom_tool_call_output` (joined to the call by `call_id`; exit code taken from the
//!   JSON `metadata` or the "Exit code: N" / "Process exited with code N" header).
//! - Consecutive assistant output (text, reasoning, calls) between two user turns that
//!   has no text in between is grouped: each assistant text starts a message, and the
//!   calls that follow it belong to it, as a person reading the session would group them.
//! - `event_msg` mostly duplicates response items (`user_message`, `agent_message`,
//!   `agent_reasoning`) and is ignored once response items are seen, so the conversation
//!   is not doubled; in event-only files (old versions) they are the conversation.
//!   `turn_aborted` marks the pending calls as interrupted.
//! - `compacted` becomes a compaction-summary system message.
//!
//! Older shapes, normalised into the same vocabulary:
//! - The bare JSONL of 2025-05 to 2025-09 (same id, `codex`): line 1 is the session
//!   `{id, timestamp, instructions, git}`, `{"record_type":"state"}` lines are skipped,
//!   every other line is a response item without the envelope (no per-item time); the
//!   cwd comes from the first `<environment_context>` turn.
//! - The single-file `rollout-*.json` of the TypeScript CLI ([`CodexJson`], id
//!   `codex-json`): `{session, items}`, a whole document (no line numbers).

use std::borrow::Cow;
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Assembler, At, Format, Input, Sink, json_reason, orphan_result_message, parse_json_line, parse_time};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct Codex;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    payload: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Payload<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<Cow<'a, str>>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    action: Option<&'a RawValue>,
    #[serde(borrow)]
    message: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cli_version: Option<Cow<'a, str>>,
    #[serde(borrow)]
    originator: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    git: Option<&'a RawValue>,
    #[serde(borrow)]
    reason: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thread_name: Option<Cow<'a, str>>,
}

/// Carried across a resume: whether the file's conversation comes from response items.
#[derive(Default, serde::Serialize, Deserialize)]
struct Carry {
    response_items: bool,
}

struct State {
    meta: SessionMeta,
    carry: Carry,
    /// Reasoning seen since the last assistant text, waiting for the message it precedes.
    thinking: String,
    /// idx of the assistant message that calls made now belong to.
    current_assistant: Option<u32>,
}

/// Join an argv array into one command line; `bash -lc SCRIPT` gives just the script.
pub fn argv_to_command(parts: &[Value]) -> Option<String> {
    let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
    if words.is_empty() {
        return None;
    }
    if words.len() == 3
        && matches!(words[0].rsplit('/').next(), Some("bash" | "sh" | "zsh"))
        && words[1].starts_with('-')
        && words[1].contains('c')
    {
        return Some(words[2].to_string());
    }
    Some(words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" "))
}

fn shell_quote(w: &str) -> Cow<'_, str> {
    if !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b)) {
        Cow::Borrowed(w)
    } else {
        Cow::Owned(format!("'{}'", w.replace('\'', "'\\''")))
    }
}

/// The shell command line a Codex tool call ran, from its parsed arguments.
fn command_of(name: &str, args: &Value) -> Option<String> {
    match name {
        "exec_command" => args.get("cmd").and_then(Value::as_str).map(str::to_string),
        "write_stdin" => None,
        _ => match args.get("command") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Array(parts)) => argv_to_command(parts),
            _ => None,
        },
    }
}

/// Text of a message's content items (`input_text`, `output_text`, `text`).
fn content_text(raw: Option<&RawValue>) -> String {
    #[derive(Deserialize)]
    struct Item<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow)]
        text: Option<Cow<'a, str>>,
    }
    let Some(raw) = raw else { return String::new() };
    let s = raw.get();
    if s.starts_with('"') {
        return serde_json::from_str::<String>(s).unwrap_or_default();
    }
    let items: Vec<Item> = serde_json::from_str(s).unwrap_or_default();
    let mut out = String::new();
    for it in items {
        let piece = match it.kind.as_deref() {
            Some("input_image") => "[image]",
            _ => it.text.as_deref().unwrap_or(""),
        };
        if piece.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(piece);
    }
    out
}

/// Harness-written user-role turns: environment and instruction blocks.
fn is_injected_user_text(t: &str) -> bool {
    let t = t.trim_start();
    [
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md instructions",
        "<INSTRUCTIONS>",
        "<turn_aborted>",
        "<skill>",
        "<subagent_notification>",
        "<hook_prompt",
        "<user_shell_command>",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// A function-call output in any of its shapes: a JSON string holding
/// `{"output", "metadata": {"exit_code"}}`, plain text with an exit-code header, an
/// object with `content`/`success`, or a list of content items.
fn parse_output(raw: Option<&RawValue>) -> CallResult {
    let Some(raw) = raw else { return CallResult::default() };
    let value: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
    let mut result = CallResult::default();
    match value {
        Value::String(s) => {
            let inner = if s.starts_with('{') { serde_json::from_str::<Value>(&s).ok() } else { None };
            match inner {
                Some(v) if v.get("output").is_some() => {
                    result.output = v.get("output").and_then(Value::as_str).unwrap_or("").to_string();
                    result.exit_code = v
                        .pointer("/metadata/exit_code")
                        .or_else(|| v.get("exit_code"))
                        .and_then(Value::as_i64)
                        .map(|c| c as i32);
                }
                _ => {
                    result.exit_code = exit_code_header(&s);
                    result.output = s;
                }
            }
        }
        Value::Object(ref map) => {
            let content = map.get("content").or_else(|| map.get("output"));
            result.output = match content {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(items)) => {
                    items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
                }
                _ => String::new(),
            };
            if map.get("success") == Some(&Value::Bool(false)) {
                result.is_error = true;
            }
            result.exit_code = exit_code_header(&result.output);
        }
        Value::Array(items) => {
            result.output =
                items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n");
        }
        _ => {}
    }
    if result.exit_code.is_some_and(|c| c != 0) {
        result.is_error = true;
    }
    if result.output.contains("aborted by user") || result.output.starts_with("aborted") {
        result.interrupted = true;
    }
    result
}

/// "Exit code: N" (shell_command) or "Process exited with code N" (unified exec).
fn exit_code_header(s: &str) -> Option<i32> {
    for line in s.lines().take(6) {
        let rest = line.strip_prefix("Exit code: ").or_else(|| line.strip_prefix("Process exited with code "));
        if let Some(rest) = rest {
            return rest.trim().parse().ok();
        }
    }
    None
}

impl Format for Codex {
    fn id(&self) -> &'static str {
        "codex"
    }

    fn agent(&self) -> &'static str {
        "Codex CLI"
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let mut score = 0u8;
        for l in text.lines().take(20) {
            let l = l.trim_start();
            if !l.starts_with('{') {
                continue;
            }
            let envelope = l.contains("\"payload\"");
            let kinds = ["\"session_meta\"", "\"response_item\"", "\"turn_context\"", "\"event_msg\""];
            if envelope && kinds.iter().any(|k| l.contains(k)) {
                score = 90;
                break;
            }
            // The bare JSONL of mid-2025: state snapshots and un-enveloped response items.
            let bare_item = ["\"type\":\"message\"", "\"type\":\"function_call\"", "\"type\":\"reasoning\""]
                .iter()
                .any(|k| l.contains(k))
                && !l.contains("\"payload\"")
                && (l.contains("\"input_text\"") || l.contains("\"output_text\"") || l.contains("\"call_id\""));
            if l.starts_with("{\"record_type\":\"state\"") || bare_item {
                score = score.max(85);
            }
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if score > 0 && name.starts_with("rollout-") {
            score += 5;
        }
        score
    }

    fn parse(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let mut st = State {
            meta: SessionMeta::default(),
            carry: Carry::default(),
            thinking: String::new(),
            current_assistant: None,
        };
        if let Some(r) = input.resume() {
            st.meta = r.session.clone();
            st.carry = serde_json::from_value(r.checkpoint.state.clone()).unwrap_or_default();
        }
        let mut asm = Assembler::from_resume(input.resume());
        let mut sink = CarrySink { inner: sink, response_items: st.carry.response_items };
        let mut repaired = None;
        loop {
            let Some(line) = input.next_line()? else { break };
            let at = At::of(&line);
            if line.bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let unterminated = line.unterminated;
            let (rec, note) = match parse_json_line::<Line>(line.bytes, &mut repaired) {
                Ok(v) => v,
                Err(e) => {
                    if unterminated && e.is_eof() {
                        input.keep_pending(at.line, at.offset);
                        break;
                    }
                    let reason = if line.bytes.trim_ascii_start().starts_with(b"{") {
                        json_reason(&e)
                    } else {
                        "not a JSON object".to_string()
                    };
                    sink.bad(BadRecord { line: Some(at.line), reason });
                    continue;
                }
            };
            if let Some(note) = note {
                sink.bad(BadRecord { line: Some(at.line), reason: note.into() });
            }
            if let Err(reason) = record(&mut st, &mut asm, rec, line.bytes, at, &mut sink) {
                sink.bad(BadRecord { line: Some(at.line), reason });
            }
            sink.response_items = st.carry.response_items;
        }
        asm.finish(&mut sink)?;
        let mut meta = st.meta;
        meta.format = "codex".into();
        meta.agent = "Codex CLI".into();
        meta.source = input.path().to_path_buf();
        if meta.id.is_empty() {
            meta.id = input.path().file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
        }
        Ok(vec![meta])
    }
}

/// Stamps the parser's carried state onto every checkpoint.
struct CarrySink<'s> {
    inner: &'s mut dyn Sink,
    response_items: bool,
}

impl Sink for CarrySink<'_> {
    fn message(&mut self, session: usize, msg: Message) -> Result<()> {
        self.inner.message(session, msg)
    }
    fn bad(&mut self, bad: BadRecord) {
        self.inner.bad(bad)
    }
    fn unknown(&mut self, kind: &str) {
        self.inner.unknown(kind)
    }
    fn checkpoint(&mut self, mut cp: super::Checkpoint) {
        cp.state = serde_json::to_value(Carry { response_items: self.response_items }).unwrap_or(Value::Null);
        self.inner.checkpoint(cp)
    }
}

fn record(
    st: &mut State,
    asm: &mut Assembler,
    rec: Line,
    bytes: &[u8],
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    if rec.payload.is_none() {
        return bare_record(st, asm, &rec, bytes, at, sink);
    }
    let kind = rec.kind.as_deref().ok_or("record has no \"type\"")?;
    let timestamp = rec.timestamp.as_deref().and_then(parse_time);
    if let Some(t) = timestamp {
        st.meta.saw_time(t);
    }
    let raw = rec.payload.ok_or("record has no \"payload\"")?;
    let p: Payload = serde_json::from_str(raw.get()).map_err(|e| format!("bad payload: {}", json_reason(&e)))?;
    match kind {
        "session_meta" => {
            if let Some(id) = p.id.as_deref()
                && st.meta.id.is_empty()
            {
                st.meta.id = id.to_string();
            }
            if let Some(cwd) = p.cwd.as_deref() {
                st.meta.saw_cwd(cwd);
            }
            if let Some(v) = p.cli_version.as_deref() {
                st.meta.agent_version = Some(v.to_string());
            }
            if let Some(t) = p.timestamp.as_deref().and_then(parse_time) {
                st.meta.saw_time(t);
            }
            if let Some(git) = p.git
                && let Ok(v) = serde_json::from_str::<Value>(git.get())
                && let Some(b) = v.get("branch").and_then(Value::as_str)
            {
                st.meta.git_branch = Some(b.to_string());
            }
            let _ = p.originator;
            Ok(())
        }
        "turn_context" => {
            if let Some(m) = p.model.as_deref() {
                st.meta.model = Some(m.to_string());
            }
            if let Some(cwd) = p.cwd.as_deref() {
                st.meta.saw_cwd(cwd);
            }
            Ok(())
        }
        "response_item" => response_item(st, asm, &p, timestamp, at, sink),
        "event_msg" => event_msg(st, asm, &p, timestamp, at, sink),
        "compacted" => {
            let text = p.message.as_deref().unwrap_or("").to_string();
            let m =
                Message { role: Role::System, origin: Origin::CompactSummary, timestamp, text, ..Message::default() };
            st.current_assistant = None;
            asm.push(m, None, at, sink).map_err(|e| e.to_string())?;
            Ok(())
        }
        other => {
            sink.unknown(other);
            Ok(())
        }
    }
}

/// Push a message; an assistant message takes the reasoning that preceded it and
/// becomes the one later calls of the same model response attach to.
fn push_message(
    st: &mut State,
    asm: &mut Assembler,
    mut m: Message,
    at: At,
    sink: &mut dyn Sink,
) -> Result<u32, String> {
    let is_assistant = m.role == Role::Assistant;
    let idx = asm.next_idx();
    let key = if is_assistant {
        m.thinking = std::mem::take(&mut st.thinking);
        Some(format!("assistant-{idx}"))
    } else {
        None
    };
    asm.push(m, key, at, sink).map_err(|e| e.to_string())?;
    st.current_assistant = is_assistant.then_some(idx);
    Ok(idx)
}

fn add_call(
    st: &mut State,
    asm: &mut Assembler,
    call: Call,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    // Calls belong to the assistant message they follow; with none pending, they make
    // an assistant message of their own.
    if let Some(idx) = st.current_assistant
        && let Some(last) = asm.last_mut(&format!("assistant-{idx}"))
    {
        if !st.thinking.is_empty() {
            let t = std::mem::take(&mut st.thinking);
            if !last.thinking.is_empty() {
                last.thinking.push_str("\n\n");
            }
            last.thinking.push_str(&t);
        }
        last.calls.push(call);
        Assembler::extend_end_line(last, at.line);
        asm.register_calls_of_last();
        return Ok(());
    }
    let m = Message {
        role: Role::Assistant,
        timestamp,
        calls: vec![call],
        thinking: std::mem::take(&mut st.thinking),
        ..Message::default()
    };
    let idx = asm.next_idx();
    asm.push(m, Some(format!("assistant-{idx}")), at, sink).map_err(|e| e.to_string())?;
    st.current_assistant = Some(idx);
    Ok(())
}

/// A line of the bare rollout JSONL that Codex wrote from 2025-05 to 2025-09: the first
/// line is the session (`{id, timestamp, instructions, git}`), `{"record_type":"state"}`
/// lines are snapshots of nothing we need, and every other line is a response item
/// without the `{timestamp, type, payload}` envelope (so with no time of its own).
fn bare_record(
    st: &mut State,
    asm: &mut Assembler,
    rec: &Line,
    bytes: &[u8],
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    #[derive(Deserialize)]
    struct Bare<'a> {
        #[serde(borrow)]
        record_type: Option<Cow<'a, str>>,
        #[serde(borrow)]
        id: Option<Cow<'a, str>>,
        #[serde(borrow)]
        git: Option<&'a RawValue>,
    }
    let b: Bare = serde_json::from_slice(bytes).map_err(|e| json_reason(&e))?;
    if b.record_type.is_some() {
        return Ok(());
    }
    if rec.kind.is_some() {
        let p: Payload = serde_json::from_slice(bytes).map_err(|e| format!("bad item: {}", json_reason(&e)))?;
        return response_item(st, asm, &p, None, at, sink);
    }
    let (Some(id), Some(t)) = (b.id.as_deref(), rec.timestamp.as_deref()) else {
        return Err("record has no \"type\"".into());
    };
    if st.meta.id.is_empty() {
        st.meta.id = id.to_string();
    }
    if let Some(t) = parse_time(t) {
        st.meta.saw_time(t);
    }
    if let Some(git) = b.git
        && let Ok(v) = serde_json::from_str::<Value>(git.get())
        && let Some(branch) = v.get("branch").and_then(Value::as_str)
    {
        st.meta.git_branch = Some(branch.to_string());
    }
    Ok(())
}

/// The working directory named in an `<environment_context>` turn (the bare and
/// single-file rollouts have no other record of it).
fn env_cwd(text: &str) -> Option<&str> {
    let t = text.trim_start().strip_prefix("<environment_context>")?;
    let start = t.find("<cwd>")? + "<cwd>".len();
    let end = t[start..].find("</cwd>")? + start;
    Some(t[start..end].trim())
}

/// The single-file rollout of the TypeScript Codex CLI (April to August 2025):
/// `~/.codex/sessions/rollout-<date>-<id>.json`, one JSON document
/// `{"session": {timestamp, id, instructions}, "items": [response items…]}`, rewritten
/// whole on every save. Items map exactly as the JSONL's `response_item`s; there are no
/// per-item times and no line numbers.
pub struct CodexJson;

impl Format for CodexJson {
    fn id(&self) -> &'static str {
        "codex-json"
    }

    fn agent(&self) -> &'static str {
        "Codex CLI"
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start();
        let Some(rest) = t.strip_prefix('{') else { return 0 };
        if !rest.trim_start().starts_with("\"session\"") || !t.contains("\"items\"") {
            return 0;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("rollout-") { 90 } else { 80 }
    }

    fn parse(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        #[derive(Deserialize)]
        struct Session<'a> {
            #[serde(borrow)]
            id: Option<Cow<'a, str>>,
            #[serde(borrow)]
            timestamp: Option<Cow<'a, str>>,
        }
        #[derive(Deserialize)]
        struct Doc<'a> {
            #[serde(borrow)]
            session: Option<Session<'a>>,
            #[serde(borrow, default)]
            items: Vec<&'a RawValue>,
        }
        let all = input.read_all()?;
        let mut sink = super::NoRestart::whole_document(sink);
        let mut st = State {
            meta: SessionMeta::default(),
            carry: Carry::default(),
            thinking: String::new(),
            current_assistant: None,
        };
        let mut asm = Assembler::new(0, 1);
        match serde_json::from_slice::<Doc>(&all) {
            Ok(doc) => {
                if let Some(s) = doc.session {
                    st.meta.id = s.id.as_deref().unwrap_or("").to_string();
                    if let Some(t) = s.timestamp.as_deref().and_then(parse_time) {
                        st.meta.saw_time(t);
                    }
                }
                for (i, raw) in doc.items.into_iter().enumerate() {
                    let outcome = serde_json::from_str::<Payload>(raw.get())
                        .map_err(|e| json_reason(&e))
                        .and_then(|p| response_item(&mut st, &mut asm, &p, None, At::default(), &mut sink));
                    if let Err(reason) = outcome {
                        sink.bad(BadRecord { line: None, reason: format!("item {}: {reason}", i + 1) });
                    }
                }
            }
            Err(e) => {
                sink.bad(BadRecord { line: None, reason: format!("not a Codex session document: {}", json_reason(&e)) })
            }
        }
        asm.finish(&mut sink)?;
        let mut meta = st.meta;
        meta.format = "codex-json".into();
        meta.agent = "Codex CLI".into();
        meta.source = input.path().to_path_buf();
        if meta.id.is_empty() {
            meta.id = input.path().file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
        }
        Ok(vec![meta])
    }
}

fn response_item(
    st: &mut State,
    asm: &mut Assembler,
    p: &Payload,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let kind = p.kind.as_deref().unwrap_or("");
    match kind {
        "message" => {
            st.carry.response_items = true;
            let text = content_text(p.content);
            if let Some(cwd) = env_cwd(&text) {
                st.meta.saw_cwd(cwd);
            }
            let (role, origin) = match p.role.as_deref() {
                Some("assistant") => (Role::Assistant, Origin::Typed),
                Some("user") if is_injected_user_text(&text) => (Role::System, Origin::Injected),
                Some("user") => (Role::User, Origin::Typed),
                _ => (Role::System, Origin::Injected),
            };
            let m = Message { role, origin, timestamp, text, ..Message::default() };
            push_message(st, asm, m, at, sink)?;
            Ok(())
        }
        "reasoning" => {
            let text = reasoning_text(p);
            if !text.is_empty() {
                if !st.thinking.is_empty() {
                    st.thinking.push_str("\n\n");
                }
                st.thinking.push_str(&text);
            }
            Ok(())
        }
        "function_call" => {
            let name = p.name.as_deref().unwrap_or("").to_string();
            let arguments = p.arguments.as_deref().unwrap_or("");
            let input: Value = serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()));
            let command = command_of(&name, &input);
            let id = p.call_id.as_deref().or(p.id.as_deref()).unwrap_or("").to_string();
            add_call(st, asm, Call { id, name, input, command, result: None, continues: None }, timestamp, at, sink)
        }
        "custom_tool_call" => {
            let name = p.name.as_deref().unwrap_or("").to_string();
            let input = match p.input {
                Some(raw) => serde_json::from_str::<Value>(raw.get()).unwrap_or(Value::Null),
                None => Value::Null,
            };
            let id = p.call_id.as_deref().or(p.id.as_deref()).unwrap_or("").to_string();
            add_call(
                st,
                asm,
                Call { id, name, input, command: None, result: None, continues: None },
                timestamp,
                at,
                sink,
            )
        }
        "local_shell_call" => {
            let action: Value = p.action.and_then(|a| serde_json::from_str(a.get()).ok()).unwrap_or(Value::Null);
            let command = action.get("command").and_then(Value::as_array).and_then(|a| argv_to_command(a));
            let id = p.call_id.as_deref().or(p.id.as_deref()).unwrap_or("").to_string();
            add_call(
                st,
                asm,
                Call { id, name: "local_shell".into(), input: action, command, result: None, continues: None },
                timestamp,
                at,
                sink,
            )
        }
        "web_search_call" => {
            let action: Value = p.action.and_then(|a| serde_json::from_str(a.get()).ok()).unwrap_or(Value::Null);
            let id = p.id.as_deref().unwrap_or("").to_string();
            let result = CallResult { timestamp, line: Some(at.line), ..CallResult::default() };
            add_call(
                st,
                asm,
                Call {
                    id,
                    name: "web_search".into(),
                    input: action,
                    command: None,
                    result: Some(result),
                    continues: None,
                },
                timestamp,
                at,
                sink,
            )
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            let call_id = p.call_id.as_deref().unwrap_or("").to_string();
            let mut result = parse_output(p.output);
            result.timestamp = timestamp;
            result.line = Some(at.line);
            if let Some(orphan) = asm.attach(&call_id, result) {
                let m = orphan_result_message(&call_id, orphan);
                asm.push(m, None, at, sink).map_err(|e| e.to_string())?;
            }
            // The model answers an output in a new response: later calls start a new message.
            st.current_assistant = None;
            Ok(())
        }
        "ghost_snapshot" => Ok(()),
        // Server-side compaction: the summary is encrypted, only the fact is known.
        "compaction" | "compaction_summary" => {
            let m = Message {
                role: Role::System,
                origin: Origin::CompactSummary,
                timestamp,
                text: "[context compacted on the server]".into(),
                ..Message::default()
            };
            st.current_assistant = None;
            asm.push(m, None, at, sink).map_err(|e| e.to_string())?;
            Ok(())
        }
        other => {
            sink.unknown(&format!("response_item/{other}"));
            Ok(())
        }
    }
}

fn reasoning_text(p: &Payload) -> String {
    #[derive(Deserialize)]
    struct Part {
        text: Option<String>,
    }
    let mut out = String::new();
    for raw in [p.summary, p.content].into_iter().flatten() {
        let parts: Vec<Part> = serde_json::from_str(raw.get()).unwrap_or_default();
        for part in parts {
            if let Some(t) = part.text.filter(|t| !t.is_empty()) {
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                out.push_str(&t);
            }
        }
        if !out.is_empty() {
            break;
        }
    }
    out
}

fn event_msg(
    st: &mut State,
    asm: &mut Assembler,
    p: &Payload,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let kind = p.kind.as_deref().unwrap_or("");
    match kind {
        "user_message" | "agent_message" if !st.carry.response_items => {
            let text = p.message.as_deref().unwrap_or("").to_string();
            let role = if kind == "user_message" { Role::User } else { Role::Assistant };
            let origin =
                if role == Role::User && is_injected_user_text(&text) { Origin::Injected } else { Origin::Typed };
            let role = if origin == Origin::Injected { Role::System } else { role };
            let m = Message { role, origin, timestamp, text, ..Message::default() };
            push_message(st, asm, m, at, sink)?;
            Ok(())
        }
        "agent_reasoning" if !st.carry.response_items => {
            if let Some(t) = p.text.as_deref() {
                if !st.thinking.is_empty() {
                    st.thinking.push_str("\n\n");
                }
                st.thinking.push_str(t);
            }
            Ok(())
        }
        "thread_name_updated" => {
            if let Some(name) = p.thread_name.as_deref() {
                st.meta.title = Some(name.to_string());
            }
            Ok(())
        }
        "turn_aborted" => {
            asm.interrupt_open(timestamp, at.line);
            let reason = p.reason.as_deref().unwrap_or("interrupted").to_string();
            let m = Message {
                role: Role::User,
                origin: Origin::Interrupt,
                timestamp,
                text: format!("[turn aborted: {reason}]"),
                ..Message::default()
            };
            push_message(st, asm, m, at, sink)?;
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv_forms() {
        let v: Vec<Value> = serde_json::from_str(r#"["bash","-lc","ls -la | head"]"#).unwrap();
        assert_eq!(argv_to_command(&v).as_deref(), Some("ls -la | head"));
        let v: Vec<Value> = serde_json::from_str(r#"["rg","-n","foo bar","src"]"#).unwrap();
        assert_eq!(argv_to_command(&v).as_deref(), Some("rg -n 'foo bar' src"));
    }

    #[test]
    fn output_shapes() {
        let raw = RawValue::from_string(
            r#""{\"output\":\"hi\\n\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.1}}""#.into(),
        )
        .unwrap();
        let r = parse_output(Some(&raw));
        assert_eq!(r.output, "hi\n");
        assert_eq!(r.exit_code, Some(2));
        assert!(r.is_error);
        let raw = RawValue::from_string(r#""Exit code: 0\nWall time: 0.2 seconds\nOutput:\nok""#.into()).unwrap();
        let r = parse_output(Some(&raw));
        assert_eq!(r.exit_code, Some(0));
        assert!(!r.is_error);
    }
}
