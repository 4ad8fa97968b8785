//! GitHub Copilot CLI: `~/.copilot/session-state/<session-id>/events.jsonl` (earlier
//! versions: `~/.copilot/session-state/<session-id>.jsonl`).
//!
//! One event per line, `{type, data, id, timestamp, parentId, agentId?}`, appended as
//! the session goes. The event types and their `data` are the ones the Copilot SDK
//! publishes (`nodejs/src/generated/session-events.ts` of `github/copilot-sdk`):
//!
//! | event | becomes |
//! |---|---|
//! | `session.start` | session id (`sessionId`), cwd and branch (`context`), CLI version (`copilotVersion`), model (`selectedModel`); no message |
//! | `session.model_change`, `session.title_changed` | the model (`newModel`), the title |
//! | `user.message` | a typed user message of `content` (what the person wrote; `transformedContent` is it with the harness's additions); a skill's own prompt (`source: skill-…`, `<skill-context`) is injected |
//! | `assistant.message` | an assistant message: `content` → text, `reasoningText` (else the `assistant.reasoning` before it) → thinking, `toolRequests[] {toolCallId, name, arguments}` → calls (`command` for `bash`/`powershell`) |
//! | `tool.execution_complete` | the result of call `toolCallId`: `result.content` (else `detailedContent`), `error.message`; `success: false` → failed; the exit code from the `terminal`/`shell_exit` item of `result.contents` (else a trailing `<exited with exit code N>`) |
//! | `abort` | every call still waiting is interrupted, and an interrupt marker (role user) records it |
//! | `session.compaction_complete` | a compaction summary (`summaryContent`) |
//! | `session.error`, `session.warning`, `system.notification` | an injected system message |
//! | `system.message` | the system prompt, as a system message |
//! | streaming deltas, turn and hook markers, permissions, usage, MCP, … | bookkeeping |
//!
//! Events of a subagent run inline, their `data.parentToolCallId` naming the `task`
//! call that spawned it: they are marked sidechain. `read_bash`/`write_bash`/`stop_bash`
//! name an async `bash` call by its `sessionId`: they `continue` it. Read whole each time
//! (the reasoning before a message and the async shells span records), with line numbers.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::{
    Assembler, At, Format, Input, NoRestart, Sink, next_json_record, orphan_result_message, parse_time, str_of,
};
use crate::model::{Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct CopilotCli;

/// Event types that carry no conversation, by prefix.
const BOOKKEEPING: &[&str] = &[
    "session.",
    "assistant.turn_",
    "assistant.intent",
    "assistant.idle",
    "assistant.usage",
    "assistant.message_start",
    "assistant.server_tool_progress",
    "tool.execution_start",
    "tool.execution_partial_result",
    "tool.execution_progress",
    "tool.user_requested",
    "tool_search.",
    "pending_messages.",
    "subagent.",
    "hook.",
    "permission.",
    "user_input.",
    "elicitation.",
    "sampling.",
    "mcp",
    "ui.",
    "external_tool.",
    "command.",
    "commands.",
    "capabilities.",
    "auto_mode_switch.",
    "session_limits_exhausted.",
    "exit_plan_mode.",
    "factory.",
    "skill.",
    "model.call_failure",
];

/// One line of an events file: the envelope with a known conversation event.
fn is_event(v: &Value) -> bool {
    let kind = str_of(v, "type").unwrap_or("");
    let envelope = v.get("data").is_some_and(Value::is_object)
        && v.get("id").is_some_and(Value::is_string)
        && v.get("timestamp").is_some_and(Value::is_string);
    envelope
        && (kind == "session.start" && v.pointer("/data/producer").is_some()
            || matches!(kind, "user.message" | "assistant.message" | "tool.execution_complete"))
}

impl Format for CopilotCli {
    fn id(&self) -> &'static str {
        "copilot-cli"
    }

    fn agent(&self) -> &'static str {
        "GitHub Copilot CLI"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.jsonl"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        places.in_home(self.id(), &[".copilot", "session-state"])
    }

    fn sniff(&self, _path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let lines = text.lines().map(str::trim).filter(|l| !l.is_empty()).take(20);
        if lines.filter_map(|l| serde_json::from_str::<Value>(l).ok()).any(|v| is_event(&v)) { 90 } else { 0 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let mut sink = NoRestart::lines(sink);
        let mut st = State::default();
        let mut asm = Assembler::new(0, 1);
        while let Some((at, ev)) = next_json_record(input, &mut sink)? {
            st.event(&ev, at, &mut asm, &mut sink)?;
        }
        asm.finish(&mut sink)?;
        let mut meta = st.meta;
        meta.source = input.path().to_path_buf();
        if meta.id.is_empty() {
            // `<session-id>/events.jsonl`, or `<session-id>.jsonl`.
            let path = input.path();
            let named = if path.file_name().is_some_and(|n| n == "events.jsonl") {
                path.parent().and_then(Path::file_name)
            } else {
                path.file_stem()
            };
            meta.id = named.and_then(|s| s.to_str()).unwrap_or("session").to_string();
        }
        Ok(vec![meta])
    }
}

#[derive(Default)]
struct State {
    meta: SessionMeta,
    /// `assistant.reasoning` text waiting for its message, and where the first was.
    reasoning: Vec<String>,
    reasoning_at: Option<At>,
    /// Async shell id → the `bash` call that started it.
    shells: HashMap<String, String>,
}

/// The exit code of a shell result: the `terminal` or `shell_exit` item, else the
/// marker the shell tool ends its text with.
fn exit_code(result: &Value) -> Option<i32> {
    let items = result.get("contents").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    let item = items.iter().find_map(|c| match str_of(c, "type") {
        Some("terminal" | "shell_exit") => c.get("exitCode").and_then(Value::as_i64),
        _ => None,
    });
    if let Some(c) = item {
        return i32::try_from(c).ok();
    }
    let text = str_of(result, "content").unwrap_or("");
    let marker = text.trim_end().rsplit_once("<exited with exit code ")?.1;
    marker.strip_suffix('>')?.trim().parse().ok()
}

impl State {
    fn event(&mut self, ev: &Value, at: At, asm: &mut Assembler, sink: &mut dyn Sink) -> Result<()> {
        let timestamp = str_of(ev, "timestamp").and_then(parse_time);
        if let Some(t) = timestamp {
            self.meta.saw_time(t);
        }
        let data = ev.get("data").unwrap_or(&Value::Null);
        let sidechain = str_of(data, "parentToolCallId").is_some();
        let system = |origin: Origin, text: String| Message {
            role: Role::System,
            origin,
            timestamp,
            text,
            sidechain,
            ..Message::default()
        };
        let kind = str_of(ev, "type").unwrap_or("");
        match kind {
            "session.start" | "session.resume" => {
                if let Some(id) = str_of(data, "sessionId").filter(|_| self.meta.id.is_empty()) {
                    self.meta.id = id.to_string();
                }
                if let Some(cwd) = data.pointer("/context/cwd").and_then(Value::as_str) {
                    self.meta.saw_cwd(cwd);
                }
                if let Some(b) = data.pointer("/context/branch").and_then(Value::as_str) {
                    self.meta.git_branch = Some(b.to_string());
                }
                if let Some(v) = str_of(data, "copilotVersion") {
                    self.meta.agent_version = Some(v.to_string());
                }
                if let Some(m) = str_of(data, "selectedModel").filter(|m| !m.is_empty()) {
                    self.meta.model = Some(m.to_string());
                }
            }
            "session.model_change" => {
                if let Some(m) = str_of(data, "newModel").filter(|m| !m.is_empty()) {
                    self.meta.model = Some(m.to_string());
                }
            }
            "session.title_changed" => {
                if let Some(t) = str_of(data, "title").filter(|t| !t.is_empty()) {
                    self.meta.title = Some(t.to_string());
                }
            }
            "user.message" => {
                let text = str_of(data, "content").unwrap_or("").to_string();
                let skill = str_of(data, "source").is_some_and(|s| s.starts_with("skill-"))
                    || text.trim_start().starts_with("<skill-context");
                let m = if skill {
                    system(Origin::Injected, text)
                } else {
                    Message { role: Role::User, timestamp, text, sidechain, ..Message::default() }
                };
                asm.push(m, None, at, sink)?;
            }
            "assistant.reasoning" => {
                if let Some(t) = str_of(data, "content").filter(|t| !t.trim().is_empty()) {
                    self.reasoning.push(t.to_string());
                    self.reasoning_at.get_or_insert(at);
                }
            }
            "assistant.message" => {
                if let Some(m) = str_of(data, "model").filter(|m| !m.is_empty()) {
                    self.meta.model = Some(m.to_string());
                }
                let reasoning = std::mem::take(&mut self.reasoning);
                // The message starts where its reasoning was written.
                let start = self.reasoning_at.take().unwrap_or(at);
                let thinking = match str_of(data, "reasoningText").filter(|t| !t.trim().is_empty()) {
                    Some(t) => t.to_string(),
                    None => reasoning.join("\n\n"),
                };
                let mut calls = Vec::new();
                for req in data.get("toolRequests").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
                    calls.push(self.call(req));
                }
                let text = str_of(data, "content").unwrap_or("").to_string();
                if !(text.trim().is_empty() && thinking.is_empty() && calls.is_empty()) {
                    let m = Message {
                        role: Role::Assistant,
                        timestamp,
                        text,
                        thinking,
                        calls,
                        sidechain,
                        end_line: Some(at.line),
                        ..Message::default()
                    };
                    asm.push(m, None, start, sink)?;
                }
            }
            "tool.execution_complete" => {
                let id = str_of(data, "toolCallId").unwrap_or("");
                let result = data.get("result").unwrap_or(&Value::Null);
                let mut output = str_of(result, "content").unwrap_or("").to_string();
                if output.is_empty() {
                    output = str_of(result, "detailedContent").unwrap_or("").to_string();
                }
                let error = data.pointer("/error/message").and_then(Value::as_str);
                if let Some(e) = error.filter(|_| output.is_empty()) {
                    output = e.to_string();
                }
                let exit_code = exit_code(result);
                let failed = data.get("success").and_then(Value::as_bool) == Some(false);
                let r = CallResult {
                    is_error: failed || error.is_some() || exit_code.is_some_and(|c| c != 0),
                    exit_code,
                    timestamp,
                    line: Some(at.line),
                    output,
                    ..CallResult::default()
                };
                if let Some(orphan) = asm.attach(id, r) {
                    asm.push(orphan_result_message(id, orphan), None, at, sink)?;
                }
            }
            "abort" => {
                asm.interrupt_open(timestamp, at.line);
                let reason = str_of(data, "reason").unwrap_or("aborted");
                let m = Message {
                    role: Role::User,
                    origin: Origin::Interrupt,
                    timestamp,
                    text: format!("[aborted: {reason}]"),
                    sidechain,
                    ..Message::default()
                };
                asm.push(m, None, at, sink)?;
            }
            "session.compaction_complete" => {
                if data.get("success").and_then(Value::as_bool) != Some(false) {
                    let text = str_of(data, "summaryContent").unwrap_or("Conversation compacted").to_string();
                    asm.push(system(Origin::CompactSummary, text), None, at, sink)?;
                }
            }
            "session.error" | "session.warning" | "system.notification" => {
                let text = str_of(data, "message").or_else(|| str_of(data, "content")).unwrap_or(kind).to_string();
                asm.push(system(Origin::Injected, text), None, at, sink)?;
            }
            "system.message" => {
                let text = str_of(data, "content").unwrap_or("").to_string();
                asm.push(system(Origin::Injected, text), None, at, sink)?;
            }
            k if k.ends_with("_delta") || BOOKKEEPING.iter().any(|p| k.starts_with(p)) => {}
            other => sink.unknown(if other.is_empty() { "(no type)" } else { other }),
        }
        Ok(())
    }

    /// A `toolRequests` item as a call; an async shell is remembered for the reads of it.
    fn call(&mut self, req: &Value) -> Call {
        let id = str_of(req, "toolCallId").unwrap_or("").to_string();
        let name = str_of(req, "name").unwrap_or("").to_string();
        let input = match req.get("arguments") {
            Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
            Some(v) => v.clone(),
            None => Value::Null,
        };
        let shell = input.get("sessionId").or_else(|| input.get("shellId")).and_then(Value::as_str);
        let mut continues = None;
        match name.as_str() {
            "bash" | "powershell" => {
                if let Some(s) = shell {
                    self.shells.insert(s.to_string(), id.clone());
                }
            }
            "read_bash" | "write_bash" | "stop_bash" | "read_powershell" | "write_powershell" | "stop_powershell" => {
                continues = shell.and_then(|s| self.shells.get(s)).cloned();
            }
            _ => {}
        }
        let command = if continues.is_some() { None } else { super::claude::shell_command(&name, &input) };
        Call { id, name, input, command, result: None, continues }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_from_items_or_marker() {
        let r: Value =
            serde_json::json!({"content": "x", "contents": [{"type": "terminal", "text": "x", "exitCode": 2}]});
        assert_eq!(exit_code(&r), Some(2));
        let r: Value = serde_json::json!({"content": "ok\n<exited with exit code 0>"});
        assert_eq!(exit_code(&r), Some(0));
        assert_eq!(exit_code(&serde_json::json!({"content": "file text"})), None);
    }
}
