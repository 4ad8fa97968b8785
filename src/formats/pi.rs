//! The pi coding agent (`pi-mono`'s `coding-agent`):
//! `~/.pi/agent/sessions/--<cwd with / as ->--/<time>_<uuid>.jsonl`
//! (`$PI_CODING_AGENT_DIR/sessions` when that is set). Session format v3; v1 and v2
//! files are read the same way (the fields debrief uses did not change). A v1 file has
//! no `version` and no entry ids: its header names `provider`, `modelId` and
//! `thinkingLevel` (and `branchedFrom`, the file it was forked from), and its entries are
//! a plain list in time order.
//!
//! The header's `parentSession` (v1: `branchedFrom`) names the session this one carries
//! on — pi writes it when the person forks a session or starts a new one from it — and
//! becomes `started_from`, not `parent_session`: it is no subagent.
//!
//! The file is JSONL, appended as the session goes: a `session` header
//! (`{type, version, id, timestamp, cwd, parentSession?}`), then entries with
//! `id`/`parentId` that form a tree (a branch starts again from an earlier entry). The
//! entries are read in file order, every branch included: each is something that
//! happened. Line-oriented and streamed, with restart points.
//!
//! How entries map:
//! - `message` entries hold an agent message (`message.role`):
//!   - `user` → typed user message (`content`: a string or text/image blocks);
//!   - `assistant` → assistant message: `text` blocks are text, `thinking` blocks
//!     thinking, `toolCall` blocks (`{id, name, arguments}`) calls (`command` from the
//!     `bash` tool's `command`); `model` gives the session's model; a reply that ended
//!     with `stopReason` `error`/`aborted` and an `errorMessage` is followed by a system
//!     message holding it;
//!   - `toolResult` (`{toolCallId, toolName, content, isError}`) joins its call by id
//!     and makes no message. The bash tool ends a failed run's output with "Command
//!     exited with code N" (→ `exit_code`); a bash result without error exited 0;
//!     "Command timed out after N seconds" marks the call timed out;
//!   - `bashExecution` (the person's own `!command`) → a user message holding one
//!     call with `command`, `output`, `exitCode` (`cancelled` → interrupted);
//!   - `custom` (extension messages in the context) → injected system message;
//!     `branchSummary` / `compactionSummary` → compaction summary.
//! - `compaction` and `branch_summary` entries → compaction summary (system);
//!   `custom_message` → injected system message.
//! - `model_change` sets the model, `session_info` the title; `thinking_level_change`,
//!   `label` and `custom` (extension state) are bookkeeping. Anything else is counted
//!   as format drift.

use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::{Assembler, At, Format, Input, Sink, next_json_record, orphan_result_message, parse_time};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct Pi;

/// Entry types that carry no conversation.
const BOOKKEEPING: &[&str] = &["thinking_level_change", "label", "custom"];

impl Format for Pi {
    fn id(&self) -> &'static str {
        "pi"
    }

    fn agent(&self) -> &'static str {
        "pi"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.jsonl"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // `<agent dir>/sessions/--<cwd>--/*.jsonl`; `$PI_CODING_AGENT_DIR` moves the agent dir.
        places.moved_home(self.id(), "PI_CODING_AGENT_DIR", &[".pi", "agent"], &["sessions"])
    }

    fn sniff(&self, _path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else { return 0 };
        let Ok(v) = serde_json::from_str::<Value>(first) else { return 0 };
        // The header: `{type: "session", version, id, timestamp, cwd}`.
        let header = v.get("type").and_then(Value::as_str) == Some("session")
            && v.get("id").is_some_and(Value::is_string)
            && v.get("timestamp").is_some_and(Value::is_string)
            && v.get("cwd").is_some_and(Value::is_string);
        if !header {
            return 0;
        }
        // v2/v3: a `version`, and entries `{type, id, parentId, timestamp, …}` after it.
        // v1: no version, a header naming `provider`/`modelId`, and a plain list of
        // `{type: "message", timestamp, message: {role, …}}` entries.
        let entries: Vec<Value> =
            text.lines().skip(1).take(20).filter_map(|l| serde_json::from_str::<Value>(l).ok()).collect();
        let tree = entries.iter().any(|e| e.get("parentId").is_some() && e.get("id").is_some());
        let v1 = v.get("modelId").is_some_and(Value::is_string)
            && entries.iter().any(|e| {
                e.get("type").and_then(Value::as_str) == Some("message")
                    && e.get("message").and_then(|m| m.get("role")).is_some_and(Value::is_string)
            });
        if tree || v1 || v.get("version").is_some() { 90 } else { 0 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let mut meta = input.resume().map(|r| r.session.clone()).unwrap_or_default();
        let mut asm = Assembler::from_resume(input.resume());
        while let Some((at, rec)) = next_json_record(input, sink)? {
            let timestamp = rec.get("timestamp").and_then(Value::as_str).and_then(parse_time);
            if let Some(t) = timestamp {
                meta.saw_time(t);
            }
            let kind = rec.get("type").and_then(Value::as_str).unwrap_or("");
            match kind {
                "session" => {
                    if let Some(id) = rec.get("id").and_then(Value::as_str) {
                        meta.id = id.to_string();
                    }
                    if let Some(cwd) = rec.get("cwd").and_then(Value::as_str) {
                        meta.saw_cwd(cwd);
                    }
                    // v1 names the model in the header; a later change or reply says otherwise.
                    if meta.model.is_none()
                        && let Some(m) = rec.get("modelId").and_then(Value::as_str)
                    {
                        meta.model = Some(m.to_string());
                    }
                    // The session this one carries on (a fork, a new session after a
                    // handoff): its file `<time>_<session id>.jsonl`, or its id.
                    if let Some(from) =
                        rec.get("parentSession").or_else(|| rec.get("branchedFrom")).and_then(Value::as_str)
                    {
                        let stem = Path::new(from).file_stem().and_then(|s| s.to_str()).unwrap_or(from);
                        meta.started_from = Some(stem.rsplit('_').next().unwrap_or(stem).to_string());
                    }
                }
                "message" => match rec.get("message") {
                    Some(m) => message(m, timestamp, at, &mut asm, &mut meta, sink)?,
                    None => {
                        sink.bad(BadRecord { line: Some(at.line), reason: "message entry without a message".into() })
                    }
                },
                "compaction" | "branch_summary" => {
                    let text = rec.get("summary").and_then(Value::as_str).unwrap_or("").to_string();
                    let m = Message {
                        role: Role::System,
                        origin: Origin::CompactSummary,
                        timestamp,
                        text,
                        ..Message::default()
                    };
                    asm.push(m, None, at, sink)?;
                }
                "custom_message" => {
                    let text = blocks_text(rec.get("content"));
                    let m =
                        Message { role: Role::System, origin: Origin::Injected, timestamp, text, ..Message::default() };
                    asm.push(m, None, at, sink)?;
                }
                "model_change" => {
                    if let Some(m) = rec.get("modelId").and_then(Value::as_str) {
                        meta.model = Some(m.to_string());
                    }
                }
                "session_info" => {
                    if let Some(n) = rec.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()) {
                        meta.title = Some(n.to_string());
                    }
                }
                k if BOOKKEEPING.contains(&k) => {}
                other => sink.unknown(other),
            }
        }
        asm.finish(sink)?;
        meta.source = input.path().to_path_buf();
        if meta.id.is_empty() {
            meta.id = input.path().file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
        }
        Ok(vec![meta])
    }
}

/// The text of a `string | (TextContent | ImageContent)[]` content.
fn blocks_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let parts: Vec<&str> = blocks
                .iter()
                .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("text") => b.get("text").and_then(Value::as_str),
                    Some("image") => Some("[image]"),
                    _ => None,
                })
                .collect();
            parts.join("\n")
        }
        _ => String::new(),
    }
}

/// "Command exited with code N", the last line the bash tool writes for a failed run.
fn exit_code_of(output: &str) -> Option<i32> {
    output.lines().rev().find_map(|l| l.trim().strip_prefix("Command exited with code ")?.trim().parse().ok())
}

fn message(
    m: &Value,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    asm: &mut Assembler,
    meta: &mut SessionMeta,
    sink: &mut dyn Sink,
) -> Result<()> {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    match role {
        "user" => {
            let text = blocks_text(m.get("content"));
            asm.push(
                Message { role: Role::User, origin: Origin::Typed, timestamp, text, ..Message::default() },
                None,
                at,
                sink,
            )?;
        }
        "assistant" => {
            if let Some(model) = m.get("model").and_then(Value::as_str) {
                meta.model = Some(model.to_string());
            }
            let mut text = Vec::new();
            let mut thinking = Vec::new();
            let mut calls = Vec::new();
            for b in m.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => text.extend(b.get("text").and_then(Value::as_str)),
                    Some("thinking") => thinking.extend(b.get("thinking").and_then(Value::as_str)),
                    Some("toolCall") => {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("").to_string();
                        let input = b.get("arguments").cloned().unwrap_or(Value::Null);
                        let command = super::claude::shell_command(&name, &input);
                        let id = b.get("id").and_then(Value::as_str).unwrap_or("").to_string();
                        calls.push(Call { id, name, input, command, result: None, continues: None });
                    }
                    Some(other) => sink.unknown(&format!("assistant/{other}")),
                    None => {}
                }
            }
            let text = text.into_iter().filter(|t| !t.trim().is_empty()).collect::<Vec<_>>().join("\n\n");
            let thinking = thinking.into_iter().filter(|t| !t.trim().is_empty()).collect::<Vec<_>>().join("\n\n");
            if !(text.is_empty() && thinking.is_empty() && calls.is_empty()) {
                let msg = Message {
                    role: Role::Assistant,
                    origin: Origin::Typed,
                    timestamp,
                    text,
                    thinking,
                    calls,
                    ..Message::default()
                };
                asm.push(msg, None, at, sink)?;
            }
            let stop = m.get("stopReason").and_then(Value::as_str).unwrap_or("");
            if let Some(err) = m.get("errorMessage").and_then(Value::as_str).filter(|e| !e.is_empty())
                && matches!(stop, "error" | "aborted")
            {
                let msg = Message {
                    role: Role::System,
                    origin: Origin::Injected,
                    timestamp,
                    text: err.to_string(),
                    ..Message::default()
                };
                asm.push(msg, None, at, sink)?;
            }
        }
        "toolResult" => {
            let id = m.get("toolCallId").and_then(Value::as_str).unwrap_or("").to_string();
            let bash = m.get("toolName").and_then(Value::as_str) == Some("bash");
            let output = blocks_text(m.get("content"));
            let is_error = m.get("isError").and_then(Value::as_bool).unwrap_or(false);
            let timed_out = bash && output.lines().any(|l| l.trim_start().starts_with("Command timed out after "));
            let exit_code = match exit_code_of(&output) {
                Some(c) => Some(c),
                None if bash && !is_error => Some(0),
                None => None,
            };
            let result = CallResult {
                is_error: is_error || exit_code.is_some_and(|c| c != 0),
                exit_code: if timed_out { None } else { exit_code },
                timed_out,
                timestamp,
                line: Some(at.line),
                output,
                ..CallResult::default()
            };
            if let Some(orphan) = asm.attach(&id, result) {
                asm.push(orphan_result_message(&id, orphan), None, at, sink)?;
            }
        }
        "bashExecution" => {
            let command = m.get("command").and_then(Value::as_str).unwrap_or("").to_string();
            let exit_code = m.get("exitCode").and_then(Value::as_i64).and_then(|c| i32::try_from(c).ok());
            let cancelled = m.get("cancelled").and_then(Value::as_bool).unwrap_or(false);
            let result = CallResult {
                output: m.get("output").and_then(Value::as_str).unwrap_or("").to_string(),
                exit_code,
                is_error: exit_code.is_some_and(|c| c != 0),
                interrupted: cancelled,
                timestamp,
                line: Some(at.line),
                ..CallResult::default()
            };
            let call = Call {
                id: format!("pi-bash-L{}", at.line),
                name: "bash".into(),
                input: serde_json::json!({ "command": command }),
                command: Some(command.clone()),
                result: Some(result),
                continues: None,
            };
            let msg = Message {
                role: Role::User,
                origin: Origin::Typed,
                timestamp,
                text: format!("!{command}"),
                calls: vec![call],
                ..Message::default()
            };
            asm.push(msg, None, at, sink)?;
        }
        "custom" => {
            let text = blocks_text(m.get("content"));
            asm.push(
                Message { role: Role::System, origin: Origin::Injected, timestamp, text, ..Message::default() },
                None,
                at,
                sink,
            )?;
        }
        "branchSummary" | "compactionSummary" => {
            let text = m.get("summary").and_then(Value::as_str).unwrap_or("").to_string();
            asm.push(
                Message { role: Role::System, origin: Origin::CompactSummary, timestamp, text, ..Message::default() },
                None,
                at,
                sink,
            )?;
        }
        other => {
            sink.unknown(&format!("message/{other}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_exit_codes() {
        assert_eq!(exit_code_of("boom\n\nCommand exited with code 2"), Some(2));
        assert_eq!(exit_code_of("all good"), None);
    }

    #[test]
    fn a_session_started_from_another_names_it_and_is_no_subagent() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("2026-01-05T10-00-00-000Z_0b2c.jsonl");
        std::fs::write(
            &file,
            concat!(
                r#"{"type":"session","version":3,"id":"0b2c","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/w","parentSession":"/h/.pi/agent/sessions/--w--/2026-01-05T09-00-00-000Z_9a1f.jsonl"}"#,
                "\n",
                r#"{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-05T10:00:01.000Z","message":{"role":"user","content":"go on"}}"#,
                "\n"
            ),
        )
        .unwrap();
        let parsed = crate::formats::parse_file(&file, None).unwrap();
        let meta = &parsed.sessions[0].meta;
        assert_eq!((meta.started_from.as_deref(), meta.parent_session.as_deref()), (Some("9a1f"), None));
    }

    #[test]
    fn sniff_knows_v1_v3_and_refuses_a_bare_header() {
        let header = r#"{"type":"session","id":"d703a1a9","timestamp":"2025-11-20T23:33:50.805Z","cwd":"/w""#;
        // v1: the header names the model; entries are a plain list of messages.
        let v1 = format!(
            "{header},\"provider\":\"anthropic\",\"modelId\":\"claude-sonnet-4-5\",\"thinkingLevel\":\"off\"}}\n\
             {{\"type\":\"message\",\"timestamp\":\"2025-11-20T23:33:51Z\",\"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n"
        );
        assert_eq!(Pi.sniff(Path::new("a.jsonl"), v1.as_bytes()), 90);
        // v3: a version.
        assert_eq!(Pi.sniff(Path::new("a.jsonl"), format!("{header},\"version\":3}}\n").as_bytes()), 90);
        // A header naming a model but followed by no pi message is not enough.
        let bare = format!("{header},\"modelId\":\"m\"}}\n{{\"type\":\"event\",\"payload\":{{}}}}\n");
        assert_eq!(Pi.sniff(Path::new("a.jsonl"), bare.as_bytes()), 0);
    }
}
