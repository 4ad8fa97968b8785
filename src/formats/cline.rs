//! Cline and Roo Code task folders: `…/globalStorage/<extension>/tasks/<task-id>/`.
//!
//! The conversation is `api_conversation_history.json`: the Anthropic `MessageParam[]`
//! the extension sends to the model (Roo Code adds `ts` and `isSummary` to each message).
//! `ui_messages.json` beside it is the chat panel's log; it only gives the task's start
//! and end time here. The file is one JSON document: no line numbers, no checkpoints.
//!
//! Two format ids share this module: `cline` and `roo-code` (the folder name —
//! `saoudrizwan.claude-dev`, `rooveterinaryinc.roo-cline` — decides; Kilo Code writes
//! the same as Roo Code).
//!
//! How messages map:
//! - assistant messages: `text` blocks are text, except `<thinking>…</thinking>` (thinking)
//!   and **XML tool calls** — `<execute_command><command>npm test</command></execute_command>`,
//!   `<read_file><path>…</path></read_file>`, and every other tool the extensions define —
//!   which become calls (`input` holds the parameters; `execute_command` gives the shell
//!   command). Native `tool_use` blocks (newer versions) are calls too.
//! - user messages carry the tool results back: a text block "[execute_command for
//!   'npm test'] Result:" followed by the output (in the same block or the next ones, up
//!   to the next result or the `<environment_details>` block). It is joined to the
//!   oldest open XML call of that tool; native `tool_result` blocks join by id. Results
//!   make no message. "Exit code: N" (Roo Code) gives `exit_code`; `<error>` output,
//!   "Command execution was not successful" or a non-zero exit code set `is_error`; "The
//!   user denied this operation" sets `interrupted`.
//! - the rest of a user message is what the person typed (`<task>`, `<feedback>`,
//!   `<answer>` and `<user_message>` wrappers are removed) unless it is harness text
//!   (`[TASK RESUMPTION]`, `[ERROR] You did not use a tool…`), which is an injected system
//!   message. `<environment_details>` is injected text too, but the copy the extension
//!   appends to every tool result is not made a message (it would sit between every two
//!   assistant turns); it is kept only beside typed text. `<feedback>` given with a denied
//!   call or a completion attempt, and the `<answer>` to `ask_followup_question`, are also
//!   the person's turn: a typed user message after the result. Roo Code's `isSummary` messages (context condensing) are compaction
//!   summaries.

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::{Assembler, At, Format, Input, NoRestart, Sink, json_reason, orphan_result_message, push_para};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct Cline;
pub struct RooCode;

/// Tools the extensions call with XML tags (Cline's and Roo Code's tool sets).
const XML_TOOLS: &[&str] = &[
    "execute_command",
    "read_file",
    "write_to_file",
    "replace_in_file",
    "apply_diff",
    "insert_content",
    "search_and_replace",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "codebase_search",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "ask_followup_question",
    "attempt_completion",
    "plan_mode_respond",
    "act_mode_respond",
    "new_task",
    "switch_mode",
    "fetch_instructions",
    "load_mcp_documentation",
    "web_fetch",
    "update_todo_list",
    "run_slash_command",
    "generate_image",
    "condense",
    "summarize_task",
    "report_bug",
    "new_rule",
];

/// Wrappers around what the person typed.
const TYPED_WRAPPERS: &[&str] = &["task", "feedback", "answer", "user_message"];

fn which(path: &Path) -> (&'static str, &'static str) {
    let p = path.to_string_lossy().to_ascii_lowercase();
    if p.contains("roo-cline") || p.contains("roo-code") || p.contains("kilo-code") || p.contains("kilocode") {
        ("roo-code", "Roo Code")
    } else {
        ("cline", "Cline")
    }
}

fn sniff_content(path: &Path, head: &[u8]) -> u8 {
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start();
    // The Anthropic `MessageParam[]`: `{role: user|assistant, content}` items. The chat
    // panel's `ui_messages.json` beside it (`{ts, type, say|ask, text}`) is not it.
    let Some(first) = super::first_item_fields(t, 0) else { return 0 };
    let role = super::field(&first, "role").and_then(|r| serde_json::from_str::<String>(r).ok());
    if !(role.is_some_and(|r| r == "user" || r == "assistant") && super::field(&first, "content").is_some()) {
        return 0;
    }
    let named = path.file_name().is_some_and(|n| n == "api_conversation_history.json");
    let marked = t.contains("<environment_details>") || t.contains("<task>") || t.contains("] Result:");
    match (named, marked) {
        (true, _) => 90,
        (false, true) => 80,
        _ => 0,
    }
}

/// A task folder whose conversation (`api_conversation_history.json`) is missing: the
/// UI's messages or the task's metadata alone are not read.
fn task_folder_without_history(dir: &Path) -> Option<&'static str> {
    let has = |name: &str| dir.join(name).is_file();
    (!has("api_conversation_history.json") && (has("ui_messages.json") || has("task_metadata.json"))).then_some(
        "a Cline / Roo Code task folder without api_conversation_history.json (the conversation); nothing to read",
    )
}

/// Kilo Code's VS Code extension writes Roo Code's task folders under its own extension id.
const KIN: &[super::kin::Kin] = &[super::kin::Kin { agent: "Kilo Code", folders: &[&["kilocode.kilo-code"]] }];

impl Format for Cline {
    fn id(&self) -> &'static str {
        "cline"
    }

    fn empty_folder_reason(&self, dir: &Path) -> Option<&'static str> {
        task_folder_without_history(dir)
    }

    fn kin(&self) -> &'static [super::kin::Kin] {
        KIN
    }
    fn agent(&self) -> &'static str {
        "Cline"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.json"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        let mut out = places.editors(self.id(), &["globalStorage", "saoudrizwan.claude-dev"], true, &["tasks"]);
        // The Cline CLI, when it has run here.
        out.extend(places.in_home(self.id(), &[".cline", "data", "tasks"]).into_iter().filter(|s| s.path.is_dir()));
        out
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let s = sniff_content(path, head);
        if s > 0 && which(path).0 == "cline" { s + 2 } else { s }
    }
    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        parse(input, sink)
    }
}

impl Format for RooCode {
    fn id(&self) -> &'static str {
        "roo-code"
    }

    fn empty_folder_reason(&self, dir: &Path) -> Option<&'static str> {
        task_folder_without_history(dir)
    }

    fn kin(&self) -> &'static [super::kin::Kin] {
        KIN
    }
    fn agent(&self) -> &'static str {
        "Roo Code"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.json"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // Kilo Code writes Roo Code's task folders under its own extension id (`formats::kin`).
        let mut out = places.editors(self.id(), &["globalStorage", "rooveterinaryinc.roo-cline"], true, &["tasks"]);
        out.extend(places.editors("kilo-code", &["globalStorage", "kilocode.kilo-code"], false, &["tasks"]));
        out
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let s = sniff_content(path, head);
        if s > 0 && which(path).0 == "roo-code" { s + 2 } else { s }
    }
    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        parse(input, sink)
    }
}

/// An XML tool call found in assistant text.
struct XmlCall {
    name: String,
    params: serde_json::Map<String, Value>,
}

/// Split assistant text into prose, `<thinking>` and XML tool calls.
fn split_assistant_text(text: &str) -> (String, String, Vec<XmlCall>) {
    let mut prose = String::new();
    let mut thinking = String::new();
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        let is_tool = XML_TOOLS.contains(&name.as_str());
        let is_thinking = name == "thinking";
        // Tool tags stand on a line of their own; `<read_file>` mentioned in prose is prose.
        let line_start = rest[..open].rsplit('\n').next().is_none_or(|l| l.trim().is_empty());
        if (is_tool || is_thinking) && line_start && after[name.len()..].starts_with('>') {
            let close = format!("</{name}>");
            let body_start = open + 1 + name.len() + 1;
            // A call cut off by the end of the message (streaming stopped) runs to the end.
            let (body, next) = match rest[body_start..].find(&close) {
                Some(end) => (&rest[body_start..body_start + end], body_start + end + close.len()),
                None => (&rest[body_start..], rest.len()),
            };
            prose.push_str(&rest[..open]);
            if is_thinking {
                push_para(&mut thinking, body.trim());
            } else {
                calls.push(XmlCall { name, params: xml_params(body) });
            }
            rest = &rest[next..];
        } else {
            prose.push_str(&rest[..open + 1]);
            rest = after;
        }
    }
    prose.push_str(rest);
    (prose.trim().to_string(), thinking, calls)
}

/// `<param>value</param>` children of a tool call.
fn xml_params(body: &str) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if name.is_empty() || !after[name.len()..].starts_with('>') {
            rest = after;
            continue;
        }
        let close = format!("</{name}>");
        let start = open + 1 + name.len() + 1;
        match rest[start..].find(&close) {
            Some(end) => {
                let v = rest[start..start + end].trim_matches('\n');
                out.insert(name, Value::String(v.to_string()));
                rest = &rest[start + end + close.len()..];
            }
            None => {
                out.insert(name, Value::String(rest[start..].trim_matches('\n').to_string()));
                break;
            }
        }
    }
    out
}

/// "[execute_command for 'npm test'] Result:" → ("execute_command", rest of the block).
/// The output may start on the header's own line ("[attempt_completion] Result: Done").
fn result_header(text: &str) -> Option<(&str, &str)> {
    let t = text.trim_start().strip_prefix('[')?;
    let first_len = t.find('\n').unwrap_or(t.len());
    let first = &t[..first_len];
    // The header's end: the last "] Result:" / "] Error:" of the first line (a command in
    // the header may itself hold "] Result:").
    let (end, mark) = ["] Result:", "] Error:"]
        .iter()
        .filter_map(|m| first.rfind(m).map(|i| (i, m.len())))
        .max_by_key(|(i, _)| *i)?;
    let name_end = first.find([' ', ']'])?;
    let name = &first[..name_end];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let same_line = first[end + mark..].trim();
    let rest = if same_line.is_empty() {
        t.get(first_len + 1..).unwrap_or("")
    } else {
        // Output on the header's line, and the lines after it.
        t[end + mark..].trim_start_matches(' ')
    };
    Some((name, rest))
}

fn unwrap_typed(text: &str) -> String {
    let mut t = text.trim().to_string();
    for w in TYPED_WRAPPERS {
        let open = format!("<{w}>");
        let close = format!("</{w}>");
        if let Some(inner) = t.strip_prefix(&open).and_then(|r| r.trim_end().strip_suffix(&close)) {
            t = inner.trim().to_string();
        }
    }
    t
}

fn is_harness_text(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("[TASK RESUMPTION]") || t.starts_with("[ERROR]")
}

/// What a person wrote inside a result: `<feedback>` with a denial or after a completion
/// attempt, `<answer>` to a follow-up question.
fn feedback_of(output: &str) -> Option<String> {
    ["feedback", "answer"].iter().find_map(|tag| {
        let open = format!("<{tag}>");
        let close = format!("</{tag}>");
        let start = output.find(&open)? + open.len();
        let end = output[start..].find(&close)? + start;
        let text = output[start..end].trim();
        (!text.is_empty()).then(|| text.to_string())
    })
}

/// "# Current Working Directory (/path) Files" in the environment details.
fn env_cwd(text: &str) -> Option<&str> {
    let i = text.find("# Current Working Directory (")? + "# Current Working Directory (".len();
    let end = text[i..].find(')')? + i;
    Some(&text[i..end])
}

/// "Exit code: N" (Roo Code: "… within working directory '/x'. Exit code: 2"; Cline
/// builds that track exit codes: "Exit Code: 1 (Error - command failed)").
fn exit_code_of(output: &str) -> Option<i32> {
    output.lines().find_map(|l| {
        let i = l.to_ascii_lowercase().find("exit code: ")?;
        let n = l[i + "exit code: ".len()..].split(|c: char| !(c.is_ascii_digit() || c == '-')).next()?;
        n.parse().ok()
    })
}

fn finish_result(mut r: CallResult) -> CallResult {
    let out = r.output.trim();
    r.exit_code = exit_code_of(out);
    if out.starts_with("<error>")
        || out.starts_with("The tool execution failed")
        || out.contains("Command execution was not successful")
        || r.exit_code.is_some_and(|c| c != 0)
    {
        r.is_error = true;
    }
    if out.starts_with("The user denied this operation") {
        r.is_error = true;
        r.interrupted = true;
    }
    r
}

/// XML calls waiting for a result, by tool name, oldest first.
#[derive(Default)]
struct Open {
    by_name: HashMap<String, VecDeque<String>>,
}

fn parse(input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
    let path = input.path().to_path_buf();
    let all = input.read_all()?;
    let mut sink = NoRestart::whole_document(sink);
    let mut meta = SessionMeta {
        source: path.clone(),
        id: path.parent().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or("task").to_string(),
        ..SessionMeta::default()
    };
    ui_times(&path, &mut meta);
    let messages: Vec<Value> = match serde_json::from_slice::<Value>(&all) {
        Ok(Value::Array(items)) => items,
        Ok(_) => {
            sink.bad(BadRecord { line: None, reason: "not a list of messages".into() });
            Vec::new()
        }
        Err(e) => {
            sink.bad(BadRecord { line: None, reason: json_reason(&e) });
            Vec::new()
        }
    };
    let mut asm = Assembler::new(0, 1);
    let mut open = Open::default();
    let mut synthetic = 0u32;
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        let timestamp = m.get("ts").and_then(Value::as_i64).and_then(chrono::DateTime::from_timestamp_millis);
        if let Some(t) = timestamp {
            meta.saw_time(t);
        }
        let blocks: Vec<Value> = match m.get("content") {
            Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
            Some(Value::Array(b)) => b.clone(),
            _ => {
                sink.bad(BadRecord { line: None, reason: format!("message {}: no content", i + 1) });
                continue;
            }
        };
        // A streaming placeholder (`partial: true`) is no one's turn: the finished
        // message or block follows it.
        let placeholder = |v: &Value| v.get("partial").and_then(Value::as_bool) == Some(true);
        if placeholder(m) {
            continue;
        }
        let blocks: Vec<Value> = blocks.into_iter().filter(|b| !placeholder(b)).collect();
        let summary = m.get("isSummary").and_then(Value::as_bool) == Some(true);
        match role {
            "assistant" => {
                let mut text = String::new();
                let mut thinking = String::new();
                let mut calls = Vec::new();
                for b in &blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            let (prose, th, xml) =
                                split_assistant_text(b.get("text").and_then(Value::as_str).unwrap_or(""));
                            push_para(&mut text, &prose);
                            push_para(&mut thinking, &th);
                            for c in xml {
                                synthetic += 1;
                                let id = format!("xml-{synthetic}");
                                open.by_name.entry(c.name.clone()).or_default().push_back(id.clone());
                                let command = (c.name == "execute_command")
                                    .then(|| c.params.get("command").and_then(Value::as_str).map(str::to_string))
                                    .flatten();
                                calls.push(Call {
                                    id,
                                    name: c.name,
                                    input: Value::Object(c.params),
                                    command,
                                    result: None,
                                    continues: None,
                                });
                            }
                        }
                        Some("thinking") | Some("reasoning") => {
                            let t = b.get("thinking").or_else(|| b.get("text")).and_then(Value::as_str).unwrap_or("");
                            push_para(&mut thinking, t);
                        }
                        Some("tool_use") => {
                            let name = b.get("name").and_then(Value::as_str).unwrap_or("").to_string();
                            let input = b.get("input").cloned().unwrap_or(Value::Null);
                            let command = super::claude::shell_command(&name, &input);
                            let id = b.get("id").and_then(Value::as_str).unwrap_or("").to_string();
                            calls.push(Call { id, name, input, command, result: None, continues: None });
                        }
                        Some(other) => sink.unknown(&format!("assistant/{other}")),
                        None => {}
                    }
                }
                if summary {
                    let msg = Message {
                        role: Role::System,
                        origin: Origin::CompactSummary,
                        timestamp,
                        text,
                        ..Message::default()
                    };
                    asm.push(msg, None, At::default(), &mut sink)?;
                    continue;
                }
                if text.is_empty() && thinking.is_empty() && calls.is_empty() {
                    continue;
                }
                let msg = Message { role: Role::Assistant, timestamp, text, thinking, calls, ..Message::default() };
                asm.push(msg, None, At::default(), &mut sink)?;
            }
            "user" => {
                let mut typed = String::new();
                let mut injected = String::new();
                let mut environment = String::new();
                let mut had_result = false;
                // The result being collected: (call id or tool name, output so far).
                let mut current: Option<(Option<String>, String, CallResult)> = None;
                let flush = |cur: &mut Option<(Option<String>, String, CallResult)>,
                             asm: &mut Assembler,
                             sink: &mut dyn Sink|
                 -> Result<()> {
                    if let Some((id, name, r)) = cur.take() {
                        let r = finish_result(CallResult { timestamp, ..r });
                        let feedback = feedback_of(&r.output);
                        let orphan = match id {
                            Some(id) => asm.attach(&id, r).map(|r| (id, r)),
                            None => Some((name, r)),
                        };
                        if let Some((id, r)) = orphan {
                            asm.push(orphan_result_message(&id, r), None, At::default(), sink)?;
                        }
                        // What the person wrote when denying or answering a call is their turn.
                        if let Some(text) = feedback {
                            let msg = Message {
                                role: Role::User,
                                origin: Origin::Typed,
                                timestamp,
                                text,
                                ..Message::default()
                            };
                            asm.push(msg, None, At::default(), sink)?;
                        }
                    }
                    Ok(())
                };
                for b in &blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            let t = b.get("text").and_then(Value::as_str).unwrap_or("");
                            if let Some(cwd) = env_cwd(t) {
                                meta.saw_cwd(cwd);
                            }
                            if let Some((name, rest)) = result_header(t) {
                                flush(&mut current, &mut asm, &mut sink)?;
                                had_result = true;
                                let id = open.by_name.get_mut(name).and_then(|q| {
                                    while let Some(id) = q.pop_front() {
                                        if asm.is_open(&id) {
                                            return Some(id);
                                        }
                                    }
                                    None
                                });
                                let r = CallResult { output: rest.to_string(), ..CallResult::default() };
                                current = Some((id, name.to_string(), r));
                            } else if t.trim_start().starts_with("<environment_details>") {
                                flush(&mut current, &mut asm, &mut sink)?;
                                push_para(&mut environment, t.trim());
                            } else if is_harness_text(t) {
                                flush(&mut current, &mut asm, &mut sink)?;
                                push_para(&mut injected, t.trim());
                            } else if let Some((_, _, r)) = current.as_mut() {
                                if !r.output.is_empty() {
                                    r.output.push('\n');
                                }
                                r.output.push_str(t);
                            } else {
                                push_para(&mut typed, &unwrap_typed(t));
                            }
                        }
                        Some("image") => match current.as_mut() {
                            Some((_, _, r)) => r.output.push_str("\n[image]"),
                            None => push_para(&mut typed, "[image]"),
                        },
                        Some("tool_result") => {
                            flush(&mut current, &mut asm, &mut sink)?;
                            had_result = true;
                            let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("").to_string();
                            let output = match b.get("content") {
                                Some(Value::String(s)) => s.clone(),
                                Some(Value::Array(items)) => items
                                    .iter()
                                    .map(|it| it.get("text").and_then(Value::as_str).unwrap_or("[image]"))
                                    .collect::<Vec<_>>()
                                    .join("\n"),
                                _ => String::new(),
                            };
                            let is_error = b.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                            current =
                                Some((Some(id.clone()), id, CallResult { output, is_error, ..CallResult::default() }));
                            flush(&mut current, &mut asm, &mut sink)?;
                        }
                        Some(other) => sink.unknown(&format!("user/{other}")),
                        None => {}
                    }
                }
                flush(&mut current, &mut asm, &mut sink)?;
                if summary {
                    let text = if typed.is_empty() { injected } else { typed };
                    let msg = Message {
                        role: Role::System,
                        origin: Origin::CompactSummary,
                        timestamp,
                        text,
                        ..Message::default()
                    };
                    asm.push(msg, None, At::default(), &mut sink)?;
                    continue;
                }
                if !had_result || !typed.is_empty() {
                    push_para(&mut injected, &environment);
                }
                if !typed.is_empty() {
                    let msg = Message {
                        role: Role::User,
                        origin: Origin::Typed,
                        timestamp,
                        text: typed,
                        ..Message::default()
                    };
                    asm.push(msg, None, At::default(), &mut sink)?;
                }
                // The environment details repeated after every tool result are context the
                // harness re-sends each turn, not a turn: kept only beside a typed message.
                if !injected.is_empty() {
                    let msg = Message {
                        role: Role::System,
                        origin: Origin::Injected,
                        timestamp,
                        text: injected,
                        ..Message::default()
                    };
                    asm.push(msg, None, At::default(), &mut sink)?;
                }
            }
            other => {
                sink.bad(BadRecord { line: None, reason: format!("message {}: unknown role {other:?}", i + 1) });
            }
        }
    }
    asm.finish(&mut sink)?;
    Ok(vec![meta])
}

/// Start and end of the task from `ui_messages.json` beside the history (Cline writes
/// no times into the history itself).
fn ui_times(path: &Path, meta: &mut SessionMeta) {
    #[derive(serde::Deserialize)]
    struct Ts {
        ts: Option<i64>,
    }
    let Some(dir) = path.parent() else { return };
    let Ok(bytes) = std::fs::read(dir.join("ui_messages.json")) else { return };
    let Ok(items) = serde_json::from_slice::<Vec<Ts>>(&bytes) else { return };
    for t in items.iter().filter_map(|i| i.ts).filter_map(chrono::DateTime::from_timestamp_millis) {
        meta.saw_time(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_calls_thinking_and_prose_separate() {
        let (prose, thinking, calls) = split_assistant_text(
            "<thinking>\nlook first\n</thinking>\nRunning it.\n<execute_command>\n<command>ls -la</command>\n</execute_command>",
        );
        assert_eq!((prose.as_str(), thinking.as_str()), ("Running it.", "look first"));
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].params.get("command").and_then(Value::as_str), Some("ls -la"));
        // Cut off mid-call (the stream stopped): the call runs to the end.
        let (_, _, calls) = split_assistant_text("<write_to_file>\n<path>a.txt</path>\n<content>\nhalf");
        assert_eq!(calls[0].params.get("content").and_then(Value::as_str), Some("half"));
        // A tag inside a sentence is prose.
        let (prose, _, calls) = split_assistant_text("I will use <read_file> next.");
        assert!(calls.is_empty());
        assert_eq!(prose, "I will use <read_file> next.");
    }

    #[test]
    fn result_headers() {
        assert_eq!(result_header("[execute_command for 'a] b'] Result:\nout"), Some(("execute_command", "out")));
        assert_eq!(result_header("[attempt_completion] Result:"), Some(("attempt_completion", "")));
        assert_eq!(result_header("[TASK RESUMPTION] This task was interrupted"), None);
        // Output on the header's own line.
        assert_eq!(result_header("[attempt_completion] Result: Done"), Some(("attempt_completion", "Done")));
        assert_eq!(
            result_header("[execute_command for 'ls'] Result: Command executed.\nOutput:\na.txt"),
            Some(("execute_command", "Command executed.\nOutput:\na.txt"))
        );
        assert_eq!(exit_code_of("Output:\nboom\nExit Code: 1 (Error - command failed)"), Some(1));
        // A block that starts with a line break before the header.
        assert_eq!(result_header("\n[execute_command for 'ls'] Result:\nout"), Some(("execute_command", "out")));
        assert_eq!(feedback_of("<answer>\nyes, port 8080\n</answer>").as_deref(), Some("yes, port 8080"));
        assert_eq!(
            exit_code_of("Command executed in terminal within working directory '/x'. Exit code: 2\nOutput:"),
            Some(2)
        );
    }
}
