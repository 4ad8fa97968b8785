//! Claude Code sessions exported by `claude-conversation-extractor` (PyPI, MIT;
//! `claude-extract`, `extract_claude_logs.py`), which reads `~/.claude/projects/**/*.jsonl`
//! and writes each session as `claude-conversation-<date>-<id8>.md` (or `.json` with
//! `--format json`) into `~/Desktop/Claude logs` and the like.
//!
//! Markdown (`save_as_markdown`):
//!
//! ```text
//! # Claude Conversation Log
//!
//! Session ID: <the JSONL file's stem>
//! Date: YYYY-MM-DD HH:MM:SS          (the first message's time, UTC)
//!
//! ---
//!
//! ## 👤 User
//!
//! <text>
//!
//! ---
//!
//! ## 🤖 Claude
//! …
//! ```
//!
//! One section per JSONL record that had text: a user record's text (string content, or
//! its `text` blocks; tool results have none and are left out), an assistant record's
//! `text` blocks (thinking is left out). With `--detailed` an assistant section also
//! holds its `tool_use` blocks, each as a line `🔧 Using tool: NAME` and `Input: ` with the
//! input as indented JSON. No tool result, id or exit code is written. `### 🔧 Tool Use`,
//! `### 📤 Tool Result` and `### ℹ️ System` sections are written for record types Claude
//! Code does not write; they are read all the same.
//!
//! JSON (`save_as_json`): `{session_id, date, message_count, messages: [{role, content,
//! timestamp}]}`, the same sections with their record's timestamp.
//!
//! Mapping: a user section is a user message classified as Claude Code's own user text
//! is (harness echoes and notices injected, "[Request interrupted…" an interrupt); a
//! Claude section is one assistant message with its calls (no result: the export has
//! none). Line numbers are kept for the markdown; the file is read whole each time.

use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::{Assembler, At, Format, Input, NoRestart, Sink};
use crate::model::{BadRecord, Call, Message, Origin, Role, SessionMeta};

pub struct ClaudeExtract;

const TITLE: &str = "# Claude Conversation Log";

/// The section headers the extractor writes, and the role each stands for.
const HEADERS: &[(&str, &str)] = &[
    ("## 👤 User", "user"),
    ("## 🤖 Claude", "assistant"),
    ("### 🔧 Tool Use", "tool_use"),
    ("### 📤 Tool Result", "tool_result"),
    ("### ℹ️ System", "system"),
];

/// The JSON export's top-level fields.
fn is_json_export(top: &[(String, &str)]) -> bool {
    ["session_id", "date", "message_count", "messages"].iter().all(|k| super::field(top, k).is_some())
}

impl Format for ClaudeExtract {
    fn id(&self) -> &'static str {
        "claude-extract"
    }

    fn agent(&self) -> &'static str {
        "Claude Code (claude-conversation-extractor)"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.md", "*.json"]
    }

    fn sniff(&self, _path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start_matches('\u{feff}');
        let mut lines = t.lines();
        if lines.next() == Some(TITLE) {
            let rest: Vec<&str> = lines.take(4).collect();
            return if rest.iter().any(|l| l.starts_with("Session ID: ")) { 90 } else { 0 };
        }
        if t.trim_start().starts_with('{')
            && is_json_export(&super::object_fields(t.trim_start(), 0).unwrap_or_default())
        {
            return 90;
        }
        0
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let path = input.path().to_path_buf();
        let mut meta = SessionMeta {
            id: path.file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string(),
            source: path.clone(),
            ..SessionMeta::default()
        };
        let mut lines: Vec<(At, String)> = Vec::new();
        while let Some(line) = input.next_line()? {
            lines.push((At::of(&line), String::from_utf8_lossy(line.bytes).into_owned()));
        }
        let first = lines.iter().map(|(_, l)| l.trim()).find(|l| !l.is_empty()).unwrap_or("");
        if first.starts_with('{') {
            let mut sink = NoRestart::whole_document(sink);
            let text: String = lines.iter().map(|(_, l)| format!("{l}\n")).collect();
            read_json(&text, &mut meta, &mut sink)?;
        } else {
            let mut sink = NoRestart::lines(sink);
            read_markdown(&lines, &mut meta, &mut sink)?;
        }
        Ok(vec![meta])
    }
}

/// The role a header line names.
fn header(line: &str) -> Option<&'static str> {
    let t = line.trim_end();
    HEADERS.iter().find(|(h, _)| *h == t).map(|(_, r)| *r)
}

fn read_markdown(lines: &[(At, String)], meta: &mut SessionMeta, sink: &mut dyn Sink) -> Result<()> {
    let text = |i: usize| lines.get(i).map_or("", |(_, l)| l.as_str());
    // A header is a section's: `---`, a blank line, the header, a blank line (or the first
    // line read, when a message is read back from its own line).
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| header(text(i)).is_some())
        .filter(|&i| i == 0 || (i >= 2 && text(i - 1).trim().is_empty() && text(i - 2).trim() == "---"))
        .collect();
    for (_, l) in lines.iter().take(starts.first().copied().unwrap_or(lines.len())) {
        if let Some(id) = l.strip_prefix("Session ID: ").map(str::trim).filter(|s| !s.is_empty()) {
            meta.id = id.to_string();
        } else if let Some(d) = l.strip_prefix("Date: ") {
            let d = d.trim();
            // `YYYY-MM-DD HH:MM:SS`; a date whose tenth byte is inside a letter is no date.
            let stamp = match (d.get(..10), d.get(10..)) {
                (Some(day), Some(time)) if !time.is_empty() => format!("{day}T{}Z", time.trim()),
                _ => format!("{d}T00:00:00Z"),
            };
            if let Some(t) = super::parse_time(&stamp) {
                meta.saw_time(t);
            }
        }
    }
    let mut asm = Assembler::new(0, 1);
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(lines.len(), |&next| next - 2);
        // The body: after the header's blank line, up to the `---` that closes it.
        let mut body: Vec<usize> = (start + 1..end).collect();
        while body.last().is_some_and(|&i| text(i).trim().is_empty()) {
            body.pop();
        }
        if body.last().is_some_and(|&i| text(i).trim() == "---") {
            body.pop();
        }
        while body.last().is_some_and(|&i| text(i).trim().is_empty()) {
            body.pop();
        }
        while body.first().is_some_and(|&i| text(i).trim().is_empty()) {
            body.remove(0);
        }
        let content: Vec<&str> = body.iter().map(|&i| text(i)).collect();
        let at = lines[start].0;
        let role = header(text(start)).unwrap_or("user");
        let mut m = section(role, &content.join("\n"), at.line, sink);
        m.end_line = Some(body.last().map_or(at.line, |&i| lines[i].0.line));
        push(&mut asm, m, at, sink)?;
    }
    asm.finish(sink)?;
    Ok(())
}

fn read_json(text: &str, meta: &mut SessionMeta, sink: &mut dyn Sink) -> Result<()> {
    let doc: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            sink.bad(BadRecord { line: Some(e.line() as u32), reason: super::json_reason(&e) });
            return Ok(());
        }
    };
    if let Some(id) = doc.get("session_id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        meta.id = id.to_string();
    }
    let mut asm = Assembler::new(0, 1);
    for (i, rec) in doc.get("messages").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let (Some(role), Some(content)) =
            (rec.get("role").and_then(Value::as_str), rec.get("content").and_then(Value::as_str))
        else {
            sink.bad(BadRecord { line: None, reason: format!("message {}: no role or content", i + 1) });
            continue;
        };
        let mut m = section(role, content, i as u32 + 1, sink);
        m.timestamp = rec.get("timestamp").and_then(Value::as_str).and_then(super::parse_time);
        if let Some(t) = m.timestamp {
            meta.saw_time(t);
        }
        push(&mut asm, m, At::default(), sink)?;
    }
    asm.finish(sink)?;
    Ok(())
}

fn push(asm: &mut Assembler, m: Message, at: At, sink: &mut dyn Sink) -> Result<()> {
    let calls = !m.calls.is_empty();
    asm.push(m, None, at, sink)?;
    if calls {
        // The export writes no results: nothing will be joined to these calls.
        asm.close_calls_of_last();
    }
    Ok(())
}

/// One section (or JSON message) as a message. `n` numbers the calls' ids.
fn section(role: &str, content: &str, n: u32, sink: &mut dyn Sink) -> Message {
    match role {
        "user" => {
            // The export drops `isMeta`, so the body of a skill Claude Code loaded (an
            // `isMeta` turn in the session) is told by its opening line.
            let origin = match super::claude::classify_user_text(content) {
                Origin::Typed if content.starts_with("Base directory for this skill: ") => Origin::Injected,
                o => o,
            };
            let role = match origin {
                Origin::Typed | Origin::Interrupt => Role::User,
                _ => Role::System,
            };
            Message { role, origin, text: content.trim().to_string(), ..Message::default() }
        }
        "assistant" | "tool_use" => {
            let (text, calls) = split_calls(content, n);
            Message { role: Role::Assistant, text, calls, ..Message::default() }
        }
        "tool_result" => {
            let out = content.strip_prefix("📤 Result:").unwrap_or(content).trim_start_matches('\n');
            Message { role: Role::Tool, origin: Origin::ToolOutput, text: out.to_string(), ..Message::default() }
        }
        "system" => {
            let text = content.strip_prefix("ℹ️ System:").unwrap_or(content).trim();
            Message { role: Role::System, origin: Origin::Injected, text: text.to_string(), ..Message::default() }
        }
        other => {
            sink.unknown(other);
            Message {
                role: Role::System,
                origin: Origin::Injected,
                text: content.trim().to_string(),
                ..Message::default()
            }
        }
    }
}

/// An assistant section's words and its calls: each `🔧 Using tool: NAME` (`🔧 Tool: NAME`
/// in a Tool Use section) line followed by `Input: ` and the input as JSON.
fn split_calls(content: &str, n: u32) -> (String, Vec<Call>) {
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut rest = content;
    loop {
        let found = ["🔧 Using tool: ", "🔧 Tool: "]
            .iter()
            .filter_map(|m| rest.find(m).map(|i| (i, m.len())))
            .filter(|&(i, _)| i == 0 || rest[..i].ends_with('\n'))
            .min();
        let Some((at, len)) = found else { break };
        let after = &rest[at + len..];
        let (name, tail) = after.split_once('\n').unwrap_or((after, ""));
        let Some(json) = tail.strip_prefix("Input: ") else {
            text.push_str(&rest[..at + len]);
            rest = after;
            continue;
        };
        let mut values = serde_json::Deserializer::from_str(json).into_iter::<Value>();
        let input = match values.next() {
            Some(Ok(v)) => v,
            _ => {
                text.push_str(&rest[..at + len]);
                rest = after;
                continue;
            }
        };
        let used = values.byte_offset();
        text.push_str(&rest[..at]);
        let name = name.trim().to_string();
        let command = super::claude::shell_command(&name, &input);
        calls.push(Call {
            id: format!("E{n}.{}", calls.len() + 1),
            name,
            input,
            command,
            result: None,
            continues: None,
        });
        rest = &json[used..];
    }
    text.push_str(rest);
    (text.trim().to_string(), calls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_text_in_user_sections_is_not_typed() {
        let mut sink = crate::formats::Collect::default();
        let skill = section("user", "Base directory for this skill: /h/.claude/skills/x\n\n# X", 1, &mut sink);
        assert_eq!((skill.role, skill.origin), (Role::System, Origin::Injected));
        let echo = section("user", "<command-name>/clear</command-name>", 2, &mut sink);
        assert_eq!((echo.role, echo.origin), (Role::System, Origin::Injected));
        let typed = section("user", "why does the skill fail?", 3, &mut sink);
        assert!(typed.is_typed_user());
    }

    #[test]
    fn calls_are_cut_out_of_the_words() {
        let content = "Let me look.\n\n🔧 Using tool: Bash\nInput: {\n  \"command\": \"ls -la\"\n}\n\n\n🔧 Using tool: Read\nInput: {\n  \"file_path\": \"/a\"\n}\n";
        let (text, calls) = split_calls(content, 7);
        assert_eq!(text, "Let me look.");
        let seen: Vec<(&str, &str, Option<&str>)> =
            calls.iter().map(|c| (c.id.as_str(), c.name.as_str(), c.command.as_deref())).collect();
        assert_eq!(seen, vec![("E7.1", "Bash", Some("ls -la")), ("E7.2", "Read", None)]);
        // A line that names a tool without its input stays words.
        let (text, calls) = split_calls("🔧 Using tool: is what I wrote", 1);
        assert_eq!((text.as_str(), calls.len()), ("🔧 Using tool: is what I wrote", 0));
    }
}
