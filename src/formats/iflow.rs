//! iFlow CLI: `~/.iflow/projects/<project>/session-<uuid>.jsonl`.
//!
//! iFlow writes Claude Code's record shape — `{uuid, parentUuid, sessionId, timestamp,
//! type: user|assistant, message: {role, content}, cwd, version, gitBranch}` with
//! Anthropic content blocks — but not its meaning, so it has a reader of its own (the
//! session's agent is iFlow, and the Claude Code reader would misread it):
//!
//! - An assistant reply is streamed as a burst of records written milliseconds apart,
//!   each a sliding window of the calls in flight: a record repeats the `tool_use`
//!   blocks of the one before and adds the next. Adjacent assistant records less than a
//!   second apart are **one** assistant message, and a `tool_use` id already read is
//!   not a new call.
//! - `parentUuid` of every assistant record names the turn's prompt, not the record
//!   before: it is no tree of rewinds, and records are read in file order.
//! - `sessionId` is the file name (`session-<uuid>`); it names another file for a
//!   subagent's session (its parent). Tools are Gemini CLI's (`run_shell_command`,
//!   `read_file`, `replace`): a shell output's "Exit Code: N" is the exit code.
//!
//! User records: text (a string or `text` blocks) is the typed prompt (harness tags are
//! injected, as in Claude Code); `tool_result` blocks join their call by `tool_use_id`
//! (`is_error`, text content) and make no message. Read whole each time (a burst can
//! span the end of a previous read), with line numbers.

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::gemini::{command_of, exit_code_line};
use super::{
    Assembler, At, Format, Input, NoRestart, Sink, next_json_record, orphan_result_message, parse_time, str_of,
};
use crate::model::{Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct Iflow;

/// Records of one streamed reply are written within this many milliseconds.
const BURST_MS: i64 = 1000;

const BURST: &str = "iflow-burst";

/// A Claude-shaped user or assistant record that iFlow wrote: its `sessionId` is its
/// file's name (`session-<uuid>`), where Claude Code writes a bare UUID.
fn is_record(v: &Value) -> bool {
    matches!(str_of(v, "type"), Some("user" | "assistant"))
        && v.get("uuid").is_some_and(Value::is_string)
        && str_of(v, "sessionId").is_some_and(|s| s.starts_with("session-"))
        && v.pointer("/message/role").is_some_and(Value::is_string)
        && v.pointer("/message/content").is_some()
}

impl Format for Iflow {
    fn id(&self) -> &'static str {
        "iflow"
    }

    fn agent(&self) -> &'static str {
        "iFlow CLI"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.jsonl"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        places.in_home(self.id(), &[".iflow", "projects"])
    }

    fn sniff(&self, _path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let lines = text.lines().map(str::trim).filter(|l| !l.is_empty()).take(20);
        // Above Claude Code's 95: the same envelope, written by another agent.
        if lines.filter_map(|l| serde_json::from_str::<Value>(l).ok()).any(|v| is_record(&v)) { 97 } else { 0 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let mut sink = NoRestart::lines(sink);
        let mut st = State::default();
        let mut asm = Assembler::new(0, 1);
        while let Some((at, rec)) = next_json_record(input, &mut sink)? {
            st.record(&rec, at, &mut asm, &mut sink)?;
        }
        asm.finish(&mut sink)?;
        let mut meta = st.meta;
        meta.source = input.path().to_path_buf();
        let stem = input.path().file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
        // A subagent's file (`session-<its uuid>.jsonl`) carries the sessionId of the
        // session that spawned it.
        meta.id = match st.session_id {
            Some(sid) if stem.starts_with("session-") && sid != stem => {
                meta.parent_session = Some(sid);
                stem
            }
            Some(sid) => sid,
            None => stem,
        };
        Ok(vec![meta])
    }
}

#[derive(Default)]
struct State {
    meta: SessionMeta,
    session_id: Option<String>,
    /// `tool_use` ids already read: a later window repeats them.
    seen: HashSet<String>,
    /// The time of the last assistant record, while its burst may go on.
    burst: Option<chrono::DateTime<chrono::Utc>>,
}

impl State {
    fn record(&mut self, rec: &Value, at: At, asm: &mut Assembler, sink: &mut dyn Sink) -> Result<()> {
        let timestamp = str_of(rec, "timestamp").and_then(parse_time);
        if let Some(t) = timestamp {
            self.meta.saw_time(t);
        }
        if let Some(cwd) = str_of(rec, "cwd") {
            self.meta.saw_cwd(cwd);
        }
        if let Some(v) = str_of(rec, "version").filter(|v| !v.is_empty()) {
            self.meta.agent_version = Some(v.to_string());
        }
        if let Some(b) = str_of(rec, "gitBranch").filter(|b| !b.is_empty()) {
            self.meta.git_branch = Some(b.to_string());
        }
        if self.session_id.is_none() {
            self.session_id = str_of(rec, "sessionId").map(str::to_string);
        }
        let sidechain = rec.get("isSidechain").and_then(Value::as_bool).unwrap_or(false);
        let content = rec.pointer("/message/content").unwrap_or(&Value::Null);
        match str_of(rec, "type").unwrap_or("") {
            "user" => {
                self.burst = None;
                let mut text = Vec::new();
                match content {
                    Value::String(s) => text.push(s.as_str()),
                    Value::Array(blocks) => {
                        for b in blocks {
                            match str_of(b, "type") {
                                Some("text") => text.extend(str_of(b, "text")),
                                Some("tool_result") => tool_result(b, timestamp, at, asm, sink)?,
                                Some("image") => text.push("[image]"),
                                Some(other) => sink.unknown(&format!("user/{other}")),
                                None => {}
                            }
                        }
                    }
                    _ => {}
                }
                if !text.is_empty() {
                    let text = text.join("\n");
                    let origin = super::claude::classify_user_text(&text);
                    let role =
                        if matches!(origin, Origin::Typed | Origin::Interrupt) { Role::User } else { Role::System };
                    let m = Message { role, origin, timestamp, text, sidechain, ..Message::default() };
                    asm.push(m, None, at, sink)?;
                }
            }
            "assistant" => {
                if let Some(m) = rec.pointer("/message/model").and_then(Value::as_str).filter(|m| !m.is_empty()) {
                    self.meta.model = Some(m.to_string());
                }
                let mut text = Vec::new();
                let mut thinking = Vec::new();
                let mut calls = Vec::new();
                for b in content.as_array().map(Vec::as_slice).unwrap_or(&[]) {
                    match str_of(b, "type") {
                        Some("text") => text.extend(str_of(b, "text").filter(|t| !t.trim().is_empty())),
                        Some("thinking") => thinking.extend(str_of(b, "thinking").filter(|t| !t.trim().is_empty())),
                        Some("tool_use") => {
                            let id = str_of(b, "id").unwrap_or("").to_string();
                            if !self.seen.insert(id.clone()) {
                                continue;
                            }
                            let name = str_of(b, "name").unwrap_or("").to_string();
                            let input = b.get("input").cloned().unwrap_or(Value::Null);
                            let command = command_of(&name, &input);
                            calls.push(Call { id, name, input, command, result: None, continues: None });
                        }
                        Some(other) => sink.unknown(&format!("assistant/{other}")),
                        None => {}
                    }
                }
                let same_burst = match (self.burst, timestamp) {
                    (Some(a), Some(b)) => (b - a).num_milliseconds() < BURST_MS,
                    _ => false,
                };
                self.burst = timestamp;
                if text.is_empty() && thinking.is_empty() && calls.is_empty() {
                    // A window that only repeats calls already read; the burst goes on.
                    if let Some(last) = asm.last_mut(BURST).filter(|_| same_burst) {
                        Assembler::extend_end_line(last, at.line);
                    }
                    return Ok(());
                }
                if same_burst && let Some(last) = asm.last_mut(BURST) {
                    for (part, add) in
                        [(&mut last.text, text.join("\n\n")), (&mut last.thinking, thinking.join("\n\n"))]
                    {
                        if !add.is_empty() {
                            if !part.is_empty() {
                                part.push_str("\n\n");
                            }
                            part.push_str(&add);
                        }
                    }
                    last.calls.extend(calls);
                    Assembler::extend_end_line(last, at.line);
                    asm.register_calls_of_last();
                    return Ok(());
                }
                let m = Message {
                    role: Role::Assistant,
                    timestamp,
                    text: text.join("\n\n"),
                    thinking: thinking.join("\n\n"),
                    calls,
                    sidechain,
                    ..Message::default()
                };
                asm.push(m, Some(BURST.to_string()), at, sink)?;
            }
            other => sink.unknown(if other.is_empty() { "(no type)" } else { other }),
        }
        Ok(())
    }
}

/// A `tool_result` block, joined to its call.
fn tool_result(
    b: &Value,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    asm: &mut Assembler,
    sink: &mut dyn Sink,
) -> Result<()> {
    let id = str_of(b, "tool_use_id").unwrap_or("");
    let output = match b.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| str_of(p, "text")).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    };
    let exit_code = exit_code_line(&output);
    let result = CallResult {
        is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false) || exit_code.is_some_and(|c| c != 0),
        exit_code,
        timestamp,
        line: Some(at.line),
        output,
        ..CallResult::default()
    };
    if let Some(orphan) = asm.attach(id, result) {
        asm.push(orphan_result_message(id, orphan), None, at, sink)?;
    }
    Ok(())
}
