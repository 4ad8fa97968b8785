//! OpenAI-style message lists: `[{role, content, tool_calls?, tool_call_id?}, …]` or
//! `{"messages": […], "info": {…}}`, the trajectories mini-swe-agent saves
//! (`*.traj.json`, `~/.config/mini-swe-agent/last_mini_run.traj.json`) and what many
//! tools dump. One JSON document, read whole: messages carry no line numbers.
//!
//! How messages map:
//! - `system` → system message (injected); `user` → user message; `assistant` →
//!   assistant message, `tool_calls` becoming [`Call`]s (`command` from a `command`
//!   argument); `tool` messages are joined to their call by `tool_call_id` (a result
//!   whose call is unknown stays a tool message).
//! - mini-swe-agent (recognised by `<returncode>` observations, `mini_version` or
//!   `trajectory_format`): the bash command of a text-based step is the one
//!   ```bash (or ```mswea_bash_command) block in the assistant's text, and the next
//!   user message is its observation: `<returncode>N</returncode>` gives the exit code
//!   and `<output>…</output>` (or `<output_head>`/`<output_tail>`) the output; v2's
//!   `extra.returncode`/`extra.raw_output` are used when present. The user messages
//!   mini-swe-agent writes itself (format errors, timeouts, later observations) are
//!   injected system messages; only the task is typed. The final submission output
//!   (no `<returncode>`) is the result of the submit command. `exit` messages and
//!   `info.exit_status` end the session with a system message naming the exit status.

use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::markdown::{fenced_blocks, is_shell_language};
use super::{Assembler, At, Format, Input, NoRestart, Sink, json_reason, orphan_result_message};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct OpenAiChat;

impl Format for OpenAiChat {
    fn id(&self) -> &'static str {
        "openai-chat"
    }

    fn agent(&self) -> &'static str {
        "OpenAI-style messages (mini-swe-agent, …)"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.json"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // mini-swe-agent saves its last run in its config folder (platformdirs).
        let config = places.config.as_ref().map(|c| c.join("mini-swe-agent"));
        places.moved(self.id(), "MSWEA_GLOBAL_CONFIG_DIR", config, &[])
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start();
        // The list itself, or the `messages` list of a wrapping object.
        let first = if t.starts_with('[') {
            super::first_item_fields(t, 0)
        } else {
            let top = super::object_fields(t, 0).unwrap_or_default();
            // SWE-agent trajectories also hold role lists; they have their own format.
            if super::field(&top, "trajectory").is_some() || super::field(&top, "history").is_some() {
                return 0;
            }
            // claude-conversation-extractor's JSON export: Claude Code's, read as its own.
            if super::field(&top, "session_id").is_some() && super::field(&top, "message_count").is_some() {
                return 0;
            }
            super::field(&top, "messages").and_then(|m| super::first_item_fields(m, 0))
        };
        if !first.as_deref().is_some_and(is_chat_message) {
            return 0;
        }
        let mini = text.contains("<returncode>")
            || text.contains("mini-swe-agent")
            || text.contains("mswea_bash_command")
            || text.contains("\"mini_version\"");
        let named = path.to_string_lossy().ends_with(".traj.json");
        match (mini, named) {
            (true, _) => 85,
            (false, true) => 70,
            (false, false) => 55,
        }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        // One JSON document: no line numbers, no restart points (re-read whole).
        let mut sink = NoRestart::whole_document(sink);
        let sink: &mut dyn Sink = &mut sink;
        let bytes = input.read_all()?;
        let doc: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                sink.bad(BadRecord { line: Some(e.line() as u32), reason: json_reason(&e) });
                return Ok(Vec::new());
            }
        };
        let (messages, info) = match &doc {
            Value::Array(list) => (list.as_slice(), None),
            Value::Object(o) => match o.get("messages") {
                Some(Value::Array(list)) => (list.as_slice(), o.get("info")),
                _ => {
                    sink.bad(BadRecord { line: None, reason: "no \"messages\" list".into() });
                    return Ok(Vec::new());
                }
            },
            _ => {
                sink.bad(BadRecord { line: None, reason: "not a list of messages".into() });
                return Ok(Vec::new());
            }
        };
        let mini = is_mini(&doc, messages);
        let mut meta = SessionMeta {
            agent: if mini { "mini-swe-agent".into() } else { "OpenAI chat".into() },
            source: input.path().to_path_buf(),
            id: stem(input.path()),
            ..SessionMeta::default()
        };
        if let Some(info) = info {
            meta.agent_version = str_at(info, &["mini_version"]);
            meta.model = str_at(info, &["config", "model", "model_name"]);
        }
        let mut asm = Assembler::new(0, 1);
        let mut conv = Conversation { mini, pending_action: None, typed_users: 0, n: 0, exited: false };
        for (i, m) in messages.iter().enumerate() {
            conv.message(&mut asm, m, i, sink)?;
        }
        // v2 ends with an `exit` message; v1 records the exit only in `info`.
        if !conv.exited
            && let Some(status) = info.and_then(|i| str_at(i, &["exit_status"])).filter(|s| !s.is_empty())
        {
            let submission = info.and_then(|i| str_at(i, &["submission"])).unwrap_or_default();
            asm.push(exit_message(&status, &submission), None, At::default(), sink)?;
        }
        asm.finish(sink)?;
        Ok(vec![meta])
    }
}

/// Whether an item's fields are those of an OpenAI chat message: a `role` OpenAI
/// defines and a `content` (or, for a call-only reply, `tool_calls`). Lists of other
/// agents' items (`{role, text}`, `{ts, type, say}`) are not this format.
/// A chat message: a known `role` with `content` or `tool_calls`. An Amp thread's messages
/// (`{v, id: "T-…", env, messages: [{role, messageId, content: [text | thinking | tool_use
/// | tool_result]}]}`) look alike but carry a `messageId`, which no chat message has: read
/// as a chat they would lose every call and result, so they are not claimed.
fn is_chat_message(fields: &[(String, &str)]) -> bool {
    let role = super::field(fields, "role").and_then(|r| serde_json::from_str::<String>(r).ok());
    let known =
        role.is_some_and(|r| matches!(r.as_str(), "system" | "developer" | "user" | "assistant" | "tool" | "function"));
    known
        && (super::field(fields, "content").is_some() || super::field(fields, "tool_calls").is_some())
        && super::field(fields, "messageId").is_none()
}

pub(crate) fn stem(path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("session");
    let name = name.strip_suffix(".json").unwrap_or(name);
    let name = name.strip_suffix(".traj").unwrap_or(name);
    name.to_string()
}

/// A string found by following `keys` through nested objects.
pub(crate) fn str_at(v: &Value, keys: &[&str]) -> Option<String> {
    let mut cur = v;
    for k in keys {
        cur = cur.get(k)?;
    }
    cur.as_str().map(str::to_string)
}

/// The system message that ends a trajectory: its exit status and submission.
pub(crate) fn exit_message(status: &str, submission: &str) -> Message {
    let mut text = format!("exit status: {status}");
    if !submission.trim().is_empty() {
        text.push_str("\n\n");
        text.push_str(submission.trim());
    }
    Message { role: Role::System, origin: Origin::Injected, text, ..Message::default() }
}

fn is_mini(doc: &Value, messages: &[Value]) -> bool {
    if doc.get("trajectory_format").and_then(Value::as_str).is_some_and(|f| f.starts_with("mini-swe-agent"))
        || doc.get("info").and_then(|i| i.get("mini_version")).is_some()
    {
        return true;
    }
    messages.iter().any(|m| {
        m.get("role").and_then(Value::as_str) == Some("user")
            && content_text(m.get("content")).trim_start().starts_with("<returncode>")
    })
}

/// The text of an OpenAI `content`: a string, or a list of parts whose text parts are
/// joined (images are noted as `[image]`).
pub(crate) fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            let mut out = String::new();
            for p in parts {
                let piece = match p {
                    Value::String(s) => s.clone(),
                    Value::Object(o) => match o.get("type").and_then(Value::as_str) {
                        Some("image_url" | "image" | "input_image") => "[image]".to_string(),
                        _ => o.get("text").and_then(Value::as_str).unwrap_or("").to_string(),
                    },
                    _ => String::new(),
                };
                if piece.is_empty() {
                    continue;
                }
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&piece);
            }
            out
        }
        _ => String::new(),
    }
}

/// OpenAI `tool_calls`: `[{id, type, function: {name, arguments}}]` (arguments a JSON
/// string). The shell command is the `command` argument, or `cmd` for shell tools.
pub(crate) fn tool_calls(v: Option<&Value>, n: &mut u32) -> Vec<Call> {
    let Some(Value::Array(list)) = v else { return Vec::new() };
    let mut out = Vec::new();
    for tc in list {
        let f = tc.get("function").unwrap_or(tc);
        let name = f.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let input = match f.get("arguments") {
            Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
            Some(v) => v.clone(),
            None => Value::Null,
        };
        *n += 1;
        let id = tc.get("id").and_then(Value::as_str).map_or_else(|| format!("call-{n}"), str::to_string);
        let command = input
            .get("command")
            .and_then(Value::as_str)
            .or_else(|| input.get("cmd").and_then(Value::as_str))
            .map(str::to_string)
            .or_else(|| super::claude::shell_command(&name, &input));
        out.push(Call { id, name, input, command, result: None, continues: None });
    }
    out
}

/// The text between `<tag>` and `</tag>`.
fn tag<'a>(s: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = s.find(&open)? + open.len();
    let end = s[start..].find(&close)? + start;
    Some(s[start..end].trim_matches('\n'))
}

/// A mini-swe-agent observation: `<returncode>`, then `<output>` or the head and tail
/// of a long output, or `<exception>`.
pub(crate) fn observation(text: &str) -> CallResult {
    let exit_code = tag(text, "returncode").and_then(|c| c.trim().parse().ok());
    let output = if let Some(o) = tag(text, "output") {
        o.to_string()
    } else if let (Some(h), Some(t)) = (tag(text, "output_head"), tag(text, "output_tail")) {
        let elided = tag(text, "elided_chars").map(str::trim).unwrap_or("?");
        format!("{h}\n[… {elided} …]\n{t}")
    } else {
        text.to_string()
    };
    let exception = tag(text, "exception").is_some();
    CallResult { is_error: exception || exit_code.is_some_and(|c| c != 0), exit_code, output, ..CallResult::default() }
}

/// The one bash block of a text-based mini-swe-agent step.
fn text_action(text: &str) -> Option<String> {
    let blocks: Vec<String> = fenced_blocks(text)
        .into_iter()
        .filter(|b| is_shell_language(&b.info) || b.info == "mswea_bash_command")
        .map(|b| b.content.trim().to_string())
        .collect();
    match blocks.as_slice() {
        [one] if !one.is_empty() => Some(one.clone()),
        _ => None,
    }
}

/// Walks the messages; knows which call a mini-swe-agent observation answers.
struct Conversation {
    mini: bool,
    /// The text-action call waiting for its observation.
    pending_action: Option<String>,
    typed_users: usize,
    n: u32,
    /// An `exit` message was met (mini-swe-agent v2).
    exited: bool,
}

impl Conversation {
    fn message(&mut self, asm: &mut Assembler, m: &Value, i: usize, sink: &mut dyn Sink) -> Result<()> {
        let Some(obj) = m.as_object() else {
            sink.bad(BadRecord { line: None, reason: format!("message {} is not an object", i + 1) });
            return Ok(());
        };
        let role = obj.get("role").and_then(Value::as_str).unwrap_or("");
        let text = content_text(obj.get("content"));
        let extra = obj.get("extra");
        match role {
            "system" | "developer" => {
                let msg = Message { role: Role::System, origin: Origin::Injected, text, ..Message::default() };
                asm.push(msg, None, At::default(), sink)?;
            }
            "user" | "human" => {
                if let Some(id) = self.pending_action.take() {
                    let result = self.result_of(&text, extra);
                    if let Some(r) = asm.attach(&id, result) {
                        asm.push(orphan_result_message(&id, r), None, At::default(), sink)?;
                    }
                    return Ok(());
                }
                self.typed_users += 1;
                // mini-swe-agent writes every user message after the task itself.
                let (role, origin) = if self.mini && self.typed_users > 1 && is_harness_text(&text, extra) {
                    (Role::System, Origin::Injected)
                } else {
                    (Role::User, Origin::Typed)
                };
                asm.push(Message { role, origin, text, ..Message::default() }, None, At::default(), sink)?;
            }
            "assistant" | "ai" | "model" => {
                let mut calls = tool_calls(obj.get("tool_calls"), &mut self.n);
                let thinking = obj
                    .get("reasoning_content")
                    .or_else(|| obj.get("thinking"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if calls.is_empty() && self.mini {
                    let action = extra
                        .and_then(|e| e.get("actions"))
                        .and_then(Value::as_array)
                        .and_then(|a| a.first())
                        .and_then(|a| a.get("command"))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .or_else(|| text_action(&text));
                    if let Some(command) = action {
                        self.n += 1;
                        let id = format!("mini-step-{}", self.n);
                        self.pending_action = Some(id.clone());
                        calls.push(Call {
                            id,
                            name: "bash".into(),
                            input: serde_json::json!({ "command": command }),
                            command: Some(command),
                            result: None,
                            continues: None,
                        });
                    }
                }
                let msg = Message {
                    role: Role::Assistant,
                    origin: Origin::Typed,
                    text,
                    thinking,
                    calls,
                    ..Message::default()
                };
                asm.push(msg, None, At::default(), sink)?;
            }
            "tool" | "function" => {
                let id = obj.get("tool_call_id").and_then(Value::as_str).unwrap_or("").to_string();
                let result = self.result_of(&text, extra);
                if let Some(r) = asm.attach(&id, result) {
                    asm.push(orphan_result_message(&id, r), None, At::default(), sink)?;
                }
            }
            "exit" => {
                self.exited = true;
                let status = extra.and_then(|e| str_at(e, &["exit_status"])).unwrap_or(text);
                let submission = extra.and_then(|e| str_at(e, &["submission"])).unwrap_or_default();
                asm.push(exit_message(&status, &submission), None, At::default(), sink)?;
            }
            other => {
                sink.unknown(&format!("role:{other}"));
                if !text.is_empty() {
                    let msg = Message { role: Role::System, origin: Origin::Injected, text, ..Message::default() };
                    asm.push(msg, None, At::default(), sink)?;
                }
            }
        }
        Ok(())
    }

    fn result_of(&self, text: &str, extra: Option<&Value>) -> CallResult {
        let tagged = text.contains("<returncode>") || text.contains("<output>");
        let mut r = if tagged || !self.mini {
            observation(text)
        } else {
            CallResult { output: text.to_string(), ..CallResult::default() }
        };
        if let Some(e) = extra {
            if let Some(raw) = e.get("raw_output").and_then(Value::as_str) {
                r.output = raw.to_string();
            }
            if let Some(code) = e.get("returncode").and_then(Value::as_i64) {
                r.exit_code = i32::try_from(code).ok();
                r.is_error = code != 0;
            }
            if e.get("exception_info").and_then(Value::as_str).is_some_and(|s| !s.is_empty()) {
                r.is_error = true;
            }
        }
        if text.contains("timed out and has been killed") {
            r.interrupted = true;
            r.is_error = true;
        }
        r
    }
}

/// User-role text mini-swe-agent itself writes (observations, format errors, limits).
fn is_harness_text(text: &str, extra: Option<&Value>) -> bool {
    if extra.is_some_and(|e| e.get("interrupt_type").is_some() || e.get("returncode").is_some()) {
        return true;
    }
    let t = text.trim_start();
    t.starts_with('<')
        || t.contains("EXACTLY ONE")
        || t.contains("timed out and has been killed")
        || t.contains("Please always provide")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations() {
        let r = observation("<returncode>1</returncode>\n<output>\nboom\n</output>");
        assert_eq!((r.exit_code, r.output.as_str(), r.is_error), (Some(1), "boom", true));
        let r = observation(
            "<returncode>0</returncode>\n<output_head>\na\n</output_head>\n<elided_chars>\n12\n</elided_chars>\n<output_tail>\nz\n</output_tail>",
        );
        assert_eq!(r.output, "a\n[… 12 …]\nz");
        assert_eq!(text_action("THOUGHT\n```bash\nls -la\n```"), Some("ls -la".into()));
        assert_eq!(text_action("```bash\nls\n```\n```bash\npwd\n```"), None);
    }
}
