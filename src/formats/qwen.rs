//! Qwen Code's chat records: `~/.qwen/projects/<project>/chats/<session-id>.jsonl`
//! (`packages/core/src/services/chatRecordingService.ts`, the `ChatRecord` type).
//!
//! Qwen Code began as a fork of Gemini CLI; its first versions wrote Gemini CLI's
//! files under `~/.qwen/tmp/` (read by the Gemini readers and named Qwen Code by that
//! folder, see `kin`). Later versions write this JSONL: one record per line, appended
//! as the session goes, each `{uuid, parentUuid, sessionId, timestamp, type, cwd,
//! version, gitBranch?, …}` — the envelope of Claude Code's records — carrying a Gemini
//! API `Content` (`message: {role, parts}`) instead of Anthropic content blocks.
//! Line-oriented and streamed, with restart points. The records form a tree by
//! `parentUuid` (a rewind or `/branch` starts again from an earlier record); they are
//! read in file order, every branch included.
//!
//! | `type` | becomes |
//! |---|---|
//! | `user` | a user message of the `text` parts (harness text such as `<system-reminder>` blocks is injected, as in Claude Code) |
//! | `assistant` (`role: model`) | an assistant message: `text` parts → text, `thought: true` parts → thinking, `functionCall {id, name, args}` → calls (`command` for `run_shell_command`); `model` → the session's model |
//! | `tool_result` | no message: each `functionResponse {id, response: {output \| error}}` is joined to its call; `toolCallResult.status` `error` → failed, `cancelled` → interrupted; "Exit Code: N" in a shell output → `exit_code` |
//! | `system` | by `subtype`: `chat_compression` → compaction summary; `slash_command` (invocation), `notification`, `background_task_completed`, `cron` → injected system message; `mid_turn_user_message` → a typed user turn (written while the agent worked); `custom_title` → title; `parent_session` → parent session; telemetry and state snapshots are bookkeeping; other subtypes count as drift |
//!
//! **Subagents** (`packages/core/src/agents/agent-transcript.ts`): each subagent run
//! writes its own `<project>/subagents/<parent-session-id>/agent-<agentId>.jsonl`, the same
//! records with `isSidechain: true`, `agentId` and the *parent's* `sessionId`, beside an
//! `agent-<agentId>.meta.json` sidecar whose `toolUseId` is the parent's `agent` call. Such
//! a file is its own session, `agent-<agentId>`, with `parent_session` (the `sessionId`)
//! and `parent_call` (the sidecar's `toolUseId`, else the parent's call in
//! `<project>/chats/<parent-session-id>.jsonl` whose `prompt` is the subagent's first
//! prompt); its messages are marked sidechain.

use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::gemini::{command_of, exit_code_line, parts_text, response_output};
use super::{Assembler, At, Format, Input, Sink, next_json_record, orphan_result_message, parse_time, str_of};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct QwenCode;

/// `system` subtypes that carry no conversation.
const BOOKKEEPING: &[&str] = &[
    "session_notes",
    "ui_telemetry",
    "at_command",
    "attribution_snapshot",
    "session_source",
    "session_execution_engine",
    "omni_recall",
    "session_approval_mode",
    "rewind",
    "agent_bootstrap",
    "agent_launch_prompt",
    "agent_retry",
    "agent_session_ready",
    "file_history_snapshot",
    "user_text_elements",
    "session_artifact_event",
    "session_artifact_snapshot",
    "session_sources_snapshot",
    "branch_checkpoint",
    "goal_state",
    "goal_runtime",
    "goal_turn_end",
    "realtime_message",
    "turn_result",
    "managed_session_header_v1",
    "managed_session_event_v1",
    "managed_session_commit_v1",
];

/// The record types of the format.
const TYPES: &[&str] = &["user", "assistant", "tool_result", "system"];

/// Whether one JSON line is a Qwen Code chat record: the envelope, and a Gemini
/// `Content` (`parts`), a tool result or a system payload — what Claude Code never writes.
fn is_record(v: &Value) -> bool {
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    let envelope = TYPES.contains(&kind)
        && v.get("uuid").is_some_and(Value::is_string)
        && v.get("sessionId").is_some_and(Value::is_string)
        && v.get("timestamp").is_some_and(Value::is_string);
    envelope
        && (v.pointer("/message/parts").is_some_and(Value::is_array)
            || v.get("systemPayload").is_some()
            || v.get("toolCallResult").is_some())
}

impl Format for QwenCode {
    fn id(&self) -> &'static str {
        "qwen-code"
    }

    fn agent(&self) -> &'static str {
        "Qwen Code"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.jsonl"]
    }

    /// A subagent's `agent-<id>.meta.json`, read with its `agent-<id>.jsonl`.
    fn read_through_another(&self, path: &Path) -> bool {
        super::subagent_sidecar(path)
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // Its own records, and the Gemini CLI shape its first versions wrote (`formats::kin`).
        let mut out = places.in_home(self.id(), &[".qwen", "projects"]);
        out.extend(places.in_home(self.id(), &[".qwen", "tmp"]));
        out
    }

    fn sniff(&self, _path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let lines = text.lines().map(str::trim).filter(|l| !l.is_empty()).take(20);
        let records = lines.filter_map(|l| serde_json::from_str::<Value>(l).ok()).filter(is_record).count();
        // Above Claude Code's 95: the envelope is the same, the content is not.
        if records > 0 { 97 } else { 0 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let mut meta = input.resume().map(|r| r.session.clone()).unwrap_or_default();
        let mut asm = Assembler::from_resume(input.resume());
        let mut first_prompt = None;
        while let Some((at, rec)) = next_json_record(input, sink)? {
            if first_prompt.is_none() && str_of(&rec, "type") == Some("user") {
                first_prompt = Some(parts_text(rec.pointer("/message/parts").unwrap_or(&Value::Null)));
            }
            record(&rec, at, &mut asm, &mut meta, sink)?;
        }
        asm.finish(sink)?;
        if meta.parent_call.is_none()
            && let Some(parent) = meta.parent_session.clone()
            && let Some(agent) = meta.id.strip_prefix("agent-")
        {
            meta.parent_call = spawning_call(input.path(), &parent, agent, first_prompt.as_deref());
        }
        meta.source = input.path().to_path_buf();
        if meta.id.is_empty() {
            meta.id = input.path().file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
        }
        Ok(vec![meta])
    }
}

fn record(rec: &Value, at: At, asm: &mut Assembler, meta: &mut SessionMeta, sink: &mut dyn Sink) -> Result<()> {
    let timestamp = str_of(rec, "timestamp").and_then(parse_time);
    if let Some(t) = timestamp {
        meta.saw_time(t);
    }
    let sidechain = rec.get("isSidechain").and_then(Value::as_bool).unwrap_or(false);
    if meta.id.is_empty()
        && let Some(id) = str_of(rec, "sessionId")
    {
        match str_of(rec, "agentId").filter(|a| sidechain && !a.is_empty()) {
            // A subagent's transcript carries its parent's session id.
            Some(agent) => {
                meta.id = format!("agent-{agent}");
                meta.parent_session = Some(id.to_string());
            }
            None => meta.id = id.to_string(),
        }
    }
    if let Some(cwd) = str_of(rec, "cwd") {
        meta.saw_cwd(cwd);
    }
    if let Some(v) = str_of(rec, "version").filter(|v| !v.is_empty()) {
        meta.agent_version = Some(v.to_string());
    }
    if let Some(b) = str_of(rec, "gitBranch").filter(|b| !b.is_empty()) {
        meta.git_branch = Some(b.to_string());
    }
    let parts = rec.pointer("/message/parts").cloned().unwrap_or(Value::Null);
    let push = |asm: &mut Assembler, sink: &mut dyn Sink, m: Message| -> Result<()> {
        asm.push(Message { timestamp, sidechain, ..m }, None, at, sink).map(|_| ())
    };
    match str_of(rec, "type").unwrap_or("") {
        "user" => {
            let text = parts_text(&parts);
            let origin = super::claude::classify_user_text(&text);
            let role = if origin == Origin::Typed || origin == Origin::Interrupt { Role::User } else { Role::System };
            push(asm, sink, Message { role, origin, text, ..Message::default() })?;
        }
        "assistant" => {
            if let Some(m) = str_of(rec, "model").filter(|m| !m.is_empty()) {
                meta.model = Some(m.to_string());
            }
            let mut text = Vec::new();
            let mut thinking = Vec::new();
            let mut calls = Vec::new();
            for (i, p) in parts.as_array().map(Vec::as_slice).unwrap_or(&[]).iter().enumerate() {
                if let Some(fc) = p.get("functionCall") {
                    let name = str_of(fc, "name").unwrap_or("").to_string();
                    let input = fc.get("args").cloned().unwrap_or(Value::Null);
                    let command = command_of(&name, &input);
                    let id = str_of(fc, "id").map_or_else(|| format!("qwen-L{}-{i}", at.line), str::to_string);
                    calls.push(Call { id, name, input, command, result: None, continues: None });
                } else if let Some(t) = str_of(p, "text").filter(|t| !t.trim().is_empty()) {
                    if p.get("thought").and_then(Value::as_bool) == Some(true) {
                        thinking.push(t);
                    } else {
                        text.push(t);
                    }
                }
            }
            if !(text.is_empty() && thinking.is_empty() && calls.is_empty()) {
                let m = Message {
                    role: Role::Assistant,
                    text: text.join("\n"),
                    thinking: thinking.join("\n\n"),
                    calls,
                    ..Message::default()
                };
                push(asm, sink, m)?;
            }
        }
        "tool_result" => tool_result(rec, &parts, timestamp, at, asm, sink)?,
        "system" => system(rec, &parts, asm, meta, sink, &push)?,
        other => sink.unknown(if other.is_empty() { "(no type)" } else { other }),
    }
    Ok(())
}

/// The parent's call that ran subagent `agent` of session `parent`: the `toolUseId` of
/// the `agent-<id>.meta.json` sidecar beside the transcript, else the call in the parent's
/// `chats/<parent>.jsonl` (two folders up, `subagents/<parent>/` → `chats/`) whose
/// `prompt` argument is the subagent's first prompt.
fn spawning_call(path: &Path, parent: &str, agent: &str, first_prompt: Option<&str>) -> Option<String> {
    let sidecar = path.with_file_name(format!("agent-{agent}.meta.json"));
    if let Some(id) = std::fs::read(&sidecar)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|m| str_of(&m, "toolUseId").filter(|id| !id.is_empty()).map(str::to_string))
    {
        return Some(id);
    }
    let prompt = first_prompt.map(str::trim).filter(|p| !p.is_empty())?;
    let chats = path.parent()?.parent()?.parent()?.join("chats").join(format!("{parent}.jsonl"));
    let text = std::fs::read_to_string(chats).ok()?;
    text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find_map(|rec| {
        let parts = rec.pointer("/message/parts")?.as_array()?;
        parts.iter().filter_map(|p| p.get("functionCall")).find_map(|fc| {
            let asked = fc.pointer("/args/prompt").and_then(Value::as_str)?;
            (asked.trim() == prompt).then(|| str_of(fc, "id").map(str::to_string)).flatten()
        })
    })
}

/// A `tool_result` record: its `functionResponse` parts, joined to their calls.
fn tool_result(
    rec: &Value,
    parts: &Value,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    asm: &mut Assembler,
    sink: &mut dyn Sink,
) -> Result<()> {
    let info = rec.get("toolCallResult").unwrap_or(&Value::Null);
    let status = str_of(info, "status").unwrap_or("");
    let responses: Vec<&Value> =
        parts.as_array().map(|ps| ps.iter().filter_map(|p| p.get("functionResponse")).collect()).unwrap_or_default();
    if responses.is_empty() {
        // A result recorded without the model-facing part: what the UI showed.
        let Some(id) = str_of(info, "callId") else {
            sink.bad(BadRecord { line: Some(at.line), reason: "tool_result without a functionResponse".into() });
            return Ok(());
        };
        return join(id, String::new(), false, info, status, timestamp, at, asm, sink);
    }
    for fr in responses {
        let id = str_of(fr, "id").or_else(|| str_of(info, "callId")).unwrap_or("");
        let (output, err) = response_output(fr);
        join(id, output, err, info, status, timestamp, at, asm, sink)?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn join(
    id: &str,
    mut output: String,
    err: bool,
    info: &Value,
    status: &str,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    asm: &mut Assembler,
    sink: &mut dyn Sink,
) -> Result<()> {
    let error_text = info.pointer("/error/message").and_then(Value::as_str);
    if output.is_empty() {
        output = match info.get("resultDisplay") {
            Some(Value::String(s)) => s.clone(),
            _ => error_text.unwrap_or("").to_string(),
        };
    }
    let exit_code = exit_code_line(&output);
    let result = CallResult {
        is_error: err || status == "error" || error_text.is_some() || exit_code.is_some_and(|c| c != 0),
        exit_code,
        interrupted: status == "cancelled",
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

/// A `system` record, by subtype.
fn system(
    rec: &Value,
    parts: &Value,
    asm: &mut Assembler,
    meta: &mut SessionMeta,
    sink: &mut dyn Sink,
    push: &dyn Fn(&mut Assembler, &mut dyn Sink, Message) -> Result<()>,
) -> Result<()> {
    let payload = rec.get("systemPayload").unwrap_or(&Value::Null);
    let display = || str_of(payload, "displayText").map(str::to_string).unwrap_or_else(|| parts_text(parts));
    let injected = |text: String| Message { role: Role::System, origin: Origin::Injected, text, ..Message::default() };
    match str_of(rec, "subtype").unwrap_or("") {
        "chat_compression" => {
            // The summary is the first text of the history the model sees afterwards.
            let history = payload.get("compressedHistory").and_then(Value::as_array).map(Vec::as_slice);
            let summary = history
                .unwrap_or(&[])
                .iter()
                .map(|c| parts_text(c.get("parts").unwrap_or(&Value::Null)))
                .find(|t| !t.trim().is_empty())
                .unwrap_or_else(|| "Conversation compressed".to_string());
            let m = Message { role: Role::System, origin: Origin::CompactSummary, text: summary, ..Message::default() };
            push(asm, sink, m)?;
        }
        "slash_command" => {
            if str_of(payload, "phase") != Some("result") {
                push(asm, sink, injected(str_of(payload, "rawCommand").unwrap_or("").to_string()))?;
            }
        }
        "notification" | "background_task_completed" | "cron" => push(asm, sink, injected(display()))?,
        "mid_turn_user_message" => {
            push(asm, sink, Message { role: Role::User, origin: Origin::Typed, text: display(), ..Message::default() })?
        }
        "custom_title" => {
            if let Some(t) = str_of(payload, "customTitle").filter(|t| !t.is_empty()) {
                meta.title = Some(t.to_string());
            }
        }
        "parent_session" => {
            if let Some(p) = str_of(payload, "parentSessionId") {
                meta.parent_session = Some(p.to_string());
            }
        }
        "session_model" => {
            if let Some(m) = str_of(payload, "modelId").filter(|m| !m.is_empty()) {
                meta.model = Some(m.to_string());
            }
        }
        s if BOOKKEEPING.contains(&s) => {}
        other => sink.unknown(&format!("system/{other}")),
    }
    Ok(())
}
