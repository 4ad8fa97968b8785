//! Cursor's agent transcripts (the Cursor editor's agent and the `cursor-agent` CLI):
//! `~/.cursor/projects/<workspace slug>/agent-transcripts/<id>/<id>.jsonl` (older builds:
//! `agent-transcripts/<id>.jsonl`), the subagents a `Task` call ran in
//! `agent-transcripts/<id>/subagents/<sub-id>.jsonl`.
//!
//! One JSON object per line, with no timestamps, ids or tool results (Cursor keeps those
//! in its editor database, not here):
//!
//! | line | becomes |
//! |---|---|
//! | `{"role":"user","message":{"content":[{"type":"text","text":…}]}}` | the text inside `<user_query>…</user_query>` is the typed prompt; the harness's context around it (`<manually_attached_skills>`, rules, attached files) an injected system message before it; a text with no `<user_query>` is typed whole |
//! | `{"role":"assistant","message":{"content":[…]}}` | an assistant message: `text` blocks → text (the bare `[REDACTED]` placeholder Cursor writes where its reasoning was is dropped), `tool_use` blocks `{name, input}` → calls (`command` for `Shell`), with ids made from the line and block (`L<line>.<block>`) and no result |
//! | `{"type":"turn_ended","status":"error","error":…}` | an injected system message with the error; `"aborted"` an interrupt marker; `"success"` nothing |
//! | `{"type":"metadata","metadata":{"overview":…}}` | the session's title |
//!
//! A subagent file's session has `parent_session` (the folder's session id) and
//! `parent_call` (the parent's `Task` call whose `prompt` is the subagent's first prompt).
//! Cursor rewrites a transcript whole at times (pruning it), so the file is read whole
//! each time, with line numbers.
//!
//! Sources: the files' shape as Cursor writes them, documented with a sanitized real
//! transcript by Confab (`backend/docs/cursor-integration-architecture.md`,
//! `backend/internal/analytics/testdata/cursor/` of `ConfabulousDev/confab-web`), and read
//! the same way by agentsview (`internal/parser/cursor.go`).

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use super::{Assembler, At, Format, Input, NoRestart, Sink, next_json_record};
use crate::model::{Call, Message, Origin, Role, SessionMeta};

pub struct Cursor;

/// What kind of transcript line `v` is, if it is one of Cursor's.
enum Line<'a> {
    Message { role: &'a str, content: &'a [Value] },
    TurnEnded { status: &'a str, error: Option<&'a str> },
    Metadata(&'a Value),
}

fn line_of(v: &Value) -> Option<Line<'_>> {
    let obj = v.as_object()?;
    if let Some(role) = obj.get("role").and_then(Value::as_str) {
        // Cursor's conversation rows carry only `role` and `message`: a line with a
        // `type`, `uuid` or `timestamp` beside them is another agent's (Claude Code's
        // records look alike).
        let foreign = ["type", "uuid", "timestamp", "sessionId"].iter().any(|k| obj.contains_key(*k));
        let content = v.pointer("/message/content").and_then(Value::as_array)?;
        return (!foreign && matches!(role, "user" | "assistant"))
            .then_some(Line::Message { role, content: content.as_slice() });
    }
    match obj.get("type").and_then(Value::as_str)? {
        "turn_ended" => Some(Line::TurnEnded {
            status: obj.get("status").and_then(Value::as_str)?,
            error: obj.get("error").and_then(Value::as_str),
        }),
        "metadata" => obj.get("metadata").filter(|m| m.is_object()).map(Line::Metadata),
        _ => None,
    }
}

/// The joined `text` blocks of a content list.
fn texts(content: &[Value]) -> String {
    let parts: Vec<&str> = content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    parts.join("\n")
}

/// A user text split into what the person typed (the `<tag>` blocks: Cursor's
/// `user_query`, Antigravity's `USER_REQUEST`) and the harness's context around it. With
/// no well-formed `<tag>` block, all of it is typed.
pub(super) fn split_prompt(text: &str, tag: &str) -> (String, String) {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut typed = Vec::new();
    let mut context = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start + open.len()..];
        let Some(end) = after.find(&close) else { break };
        context.push_str(&rest[..start]);
        typed.push(after[..end].trim());
        rest = &after[end + close.len()..];
    }
    if typed.is_empty() {
        return (text.trim().to_string(), String::new());
    }
    context.push_str(rest);
    (typed.join("\n").trim().to_string(), context.trim().to_string())
}

/// Assistant text without the bare `[REDACTED]` placeholder Cursor ends most replies with.
fn reply_text(content: &[Value]) -> String {
    let text = texts(content);
    let t = text.trim_end();
    t.strip_suffix("[REDACTED]").unwrap_or(t).trim_end().to_string()
}

/// The id a call gets: Cursor's `tool_use` blocks have none.
fn call_id(line: u32, block: usize) -> String {
    format!("L{line}.{block}")
}

fn calls(content: &[Value], line: u32) -> Vec<Call> {
    content
        .iter()
        .enumerate()
        .filter(|(_, b)| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .map(|(k, b)| {
            let name = b.get("name").and_then(Value::as_str).unwrap_or("").to_string();
            let input = b.get("input").cloned().unwrap_or(Value::Null);
            let command = super::claude::shell_command(&name, &input);
            Call { id: call_id(line, k), name, input, command, result: None, continues: None }
        })
        .collect()
}

/// Whether the head of a file is Cursor's transcript: its first records are all Cursor
/// lines, at least one a conversation row.
fn is_transcript(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let mut rows = 0;
    let mut seen = 0;
    for l in text.lines().map(str::trim).filter(|l| !l.is_empty()).take(20) {
        let Ok(v) = serde_json::from_str::<Value>(l) else {
            // The head may end inside a line.
            break;
        };
        match line_of(&v) {
            Some(Line::Message { .. }) => rows += 1,
            Some(_) => {}
            None => return false,
        }
        seen += 1;
    }
    seen > 0 && rows > 0
}

impl Format for Cursor {
    fn id(&self) -> &'static str {
        "cursor"
    }

    fn agent(&self) -> &'static str {
        "Cursor"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.jsonl"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // One folder per workspace (`<slug>/agent-transcripts/`).
        places.in_home(self.id(), &[".cursor", "projects"])
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        if !is_transcript(head) {
            return 0;
        }
        let in_folder = path.ancestors().any(|a| a.file_name().is_some_and(|n| n == "agent-transcripts"));
        if in_folder { 95 } else { 85 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let path = input.path().to_path_buf();
        let mut sink = NoRestart::lines(sink);
        let parent = subagent_parent(&path);
        let sidechain = parent.is_some();
        let mut meta = SessionMeta {
            id: path.file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string(),
            source: path.clone(),
            ..SessionMeta::default()
        };
        let mut first_prompt: Option<String> = None;
        let mut asm = Assembler::new(0, 1);
        while let Some((at, v)) = next_json_record(input, &mut sink)? {
            match line_of(&v) {
                Some(Line::Message { role: "user", content }) => {
                    let (typed, context) = split_prompt(&texts(content), "user_query");
                    if !context.is_empty() {
                        let m = system(Origin::Injected, context, sidechain);
                        asm.push(m, None, at, &mut sink)?;
                    }
                    if !typed.is_empty() {
                        first_prompt.get_or_insert_with(|| typed.clone());
                        let m = Message { role: Role::User, text: typed, sidechain, ..Message::default() };
                        asm.push(m, None, at, &mut sink)?;
                    }
                }
                Some(Line::Message { content, .. }) => {
                    let m = Message {
                        role: Role::Assistant,
                        text: reply_text(content),
                        calls: calls(content, at.line),
                        sidechain,
                        ..Message::default()
                    };
                    if !(m.text.is_empty() && m.calls.is_empty()) {
                        asm.push(m, None, at, &mut sink)?;
                        // Cursor records no results: nothing will be joined to these calls.
                        asm.close_calls_of_last();
                    }
                }
                Some(Line::TurnEnded { status, error }) => {
                    turn_ended(status, error, sidechain, at, &mut asm, &mut sink)?
                }
                Some(Line::Metadata(m)) => {
                    if let Some(t) = m.get("overview").and_then(Value::as_str).filter(|t| !t.trim().is_empty()) {
                        meta.title = Some(t.trim().to_string());
                    }
                }
                None => sink.unknown(v.get("type").and_then(Value::as_str).unwrap_or("(no role or type)")),
            }
        }
        asm.finish(&mut sink)?;
        if let Some((parent_id, parent_file)) = parent {
            meta.parent_call = first_prompt.as_deref().and_then(|p| spawning_call(&parent_file, p));
            meta.parent_session = Some(parent_id);
        }
        Ok(vec![meta])
    }
}

fn system(origin: Origin, text: String, sidechain: bool) -> Message {
    Message { role: Role::System, origin, text, sidechain, ..Message::default() }
}

fn turn_ended(
    status: &str,
    error: Option<&str>,
    sidechain: bool,
    at: At,
    asm: &mut Assembler,
    sink: &mut dyn Sink,
) -> Result<()> {
    match status {
        "error" => {
            let text = error.filter(|e| !e.trim().is_empty()).unwrap_or("the turn ended with an error");
            asm.push(system(Origin::Injected, text.to_string(), sidechain), None, at, sink)?;
        }
        "aborted" | "cancelled" => {
            let m = Message {
                role: Role::User,
                origin: Origin::Interrupt,
                text: "[aborted]".into(),
                sidechain,
                ..Message::default()
            };
            asm.push(m, None, at, sink)?;
        }
        _ => {}
    }
    Ok(())
}

/// For a subagent transcript (`<id>/subagents/<sub>.jsonl`): the parent's session id and
/// its transcript file.
fn subagent_parent(path: &Path) -> Option<(String, PathBuf)> {
    let dir = path.parent()?;
    if dir.file_name()? != "subagents" {
        return None;
    }
    let session_dir = dir.parent()?;
    let id = session_dir.file_name()?.to_str()?.to_string();
    let file = session_dir.join(format!("{id}.jsonl"));
    Some((id, file))
}

/// The parent's `Task` call whose prompt is the subagent's first prompt.
fn spawning_call(parent_file: &Path, prompt: &str) -> Option<String> {
    let text = std::fs::read_to_string(parent_file).ok()?;
    for (i, l) in text.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<Value>(l) else { continue };
        let Some(Line::Message { role: "assistant", content }) = line_of(&v) else { continue };
        for (k, b) in content.iter().enumerate() {
            let task = b.get("type").and_then(Value::as_str) == Some("tool_use")
                && b.get("name").and_then(Value::as_str) == Some("Task");
            if task && b.pointer("/input/prompt").and_then(Value::as_str).is_some_and(|p| p.trim() == prompt) {
                return Some(call_id(i as u32 + 1, k));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typed_prompt_is_told_from_the_context_around_it() {
        const Q: &str = "user_query";
        let (typed, context) = split_prompt("<rules>\nbe brief\n</rules>\n<user_query>\nfix it\n</user_query>", Q);
        assert_eq!((typed.as_str(), context.as_str()), ("fix it", "<rules>\nbe brief\n</rules>"));
        assert_eq!(split_prompt("plain words", Q), ("plain words".to_string(), String::new()));
        // An unclosed tag is no envelope: everything is kept as typed.
        assert_eq!(split_prompt("<user_query> half", Q).0, "<user_query> half");
    }

    #[test]
    fn claude_code_records_are_not_cursor_lines() {
        let claude = serde_json::json!({"type": "user", "uuid": "u1", "message": {"role": "user", "content": []}, "role": "user"});
        assert!(line_of(&claude).is_none());
        let cursor = serde_json::json!({"role": "user", "message": {"content": [{"type": "text", "text": "hi"}]}});
        assert!(matches!(line_of(&cursor), Some(Line::Message { role: "user", .. })));
        assert!(!is_transcript(br#"{"type":"turn_ended","status":"success"}"#));
    }
}
