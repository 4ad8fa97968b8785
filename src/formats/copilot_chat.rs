//! VS Code's chat (GitHub Copilot Chat and the agent mode):
//! `<editor config>/User/workspaceStorage/<hash>/chatSessions/<session-id>.json` (and
//! `globalStorage/emptyWindowChatSessions/` for chats without a folder), and the file
//! the "Chat: Export Chat…" command writes.
//!
//! The session is VS Code's `ISerializableChatData` (`src/vs/workbench/contrib/chat/
//! common/chatModel.ts`): `{version, sessionId, creationDate, customTitle?,
//! requesterUsername, responderUsername, requests: [{requestId, message: {text, parts},
//! response: [part…], result, isCanceled, timestamp, modelId}]}`. Newer versions write
//! `<session-id>.jsonl` instead: an operation log whose first line is the whole session
//! (`{"kind": 0, "v": …}`) and whose later lines set (`kind` 1), push or splice (`kind`
//! 2, at index `i`) and delete (`kind` 3) the value at the key path `k`. It is replayed,
//! then read as the document. The workspace's folder (`workspace.json` beside
//! `chatSessions/`) is the cwd. One document: no line numbers.
//!
//! Each request is a typed user message (`message.text`) and the assistant's response:
//!
//! | response part | becomes |
//! |---|---|
//! | markdown (`{value}` or `kind: markdownContent`) | assistant text; text after a tool call starts a new assistant message (the model's next round) |
//! | `kind: thinking` | thinking |
//! | `kind: toolInvocationSerialized` | a call (`toolId`, `toolCallId`); `input` from `resultDetails.input` (else `toolSpecificData`); a terminal tool's `toolSpecificData.commandLine.original` is its `command`, `terminalCommandOutput.text` its output, `terminalCommandState.exitCode` its exit code; other tools' output is `resultDetails.output` (else the past-tense message); `resultDetails.isError` → failed; not `isComplete` → interrupted when the request was cancelled |
//! | inline references, code block URIs, edit groups, undo stops, progress and confirmation parts | bookkeeping |
//!
//! `isCanceled` adds an interrupt marker after the response; `result.errorDetails.message`
//! an injected system message.

use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::{Assembler, At, Format, Input, NoRestart, Sink, json_reason, object_fields, str_of};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct CopilotChat;

/// Response part kinds that say nothing a reader of the conversation needs.
const BOOKKEEPING: &[&str] = &[
    "inlineReference",
    "codeblockUri",
    "textEditGroup",
    "notebookEditGroup",
    "undoStop",
    "prepareToolInvocation",
    "progressMessage",
    "progressTaskSerialized",
    "confirmation",
    "command",
    "mcpServersStarting",
    "references",
    "codeCitation",
    "extensions",
    "pullRequest",
    "elicitationSerialized",
    "multiDiffData",
    "toolInvocation",
];

/// A markdown string as VS Code serializes it: a string or `{value}`.
fn markdown(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(o) => str_of(o, "value").unwrap_or("").to_string(),
        None => String::new(),
    }
}

impl Format for CopilotChat {
    fn id(&self) -> &'static str {
        "copilot-chat"
    }

    fn agent(&self) -> &'static str {
        "VS Code Copilot Chat"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.json", "*.jsonl"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // A chatSessions/ folder per workspace.
        places.editors(self.id(), &["workspaceStorage"], true, &[])
    }

    fn sniff(&self, _path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start();
        let start = text.len() - t.len();
        let Some(fields) = object_fields(&text, start) else { return 0 };
        let has = |k: &str| fields.iter().any(|(f, _)| f == k);
        // The document: its requests, with the chat's own fields beside them.
        let chat = has("requests") && (has("responderUsername") || has("requesterUsername") || has("initialLocation"));
        // The operation log: the whole session as its first operation.
        let log = super::field(&fields, "kind").is_some_and(|k| k.trim() == "0")
            && super::field(&fields, "v").is_some_and(|v| {
                let v = v.trim_start();
                v.starts_with('{')
                    && object_fields(v, 0).is_some_and(|f| {
                        // The head may end inside the session: any of its own fields will do.
                        let own = ["requests", "requesterUsername", "responderUsername", "initialLocation"];
                        f.iter().any(|(k, _)| own.contains(&k.as_str()))
                    })
            });
        if chat || log { 90 } else { 0 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let path = input.path().to_path_buf();
        let all = input.read_all()?;
        let mut sink = NoRestart::whole_document(sink);
        let mut meta = SessionMeta { source: path.clone(), ..SessionMeta::default() };
        let mut broken = Vec::new();
        let doc = match replay(&all, &mut broken) {
            Ok(v) => v,
            Err(reason) => {
                sink.bad(BadRecord { line: None, reason });
                Value::Null
            }
        };
        for reason in broken {
            sink.bad(BadRecord { line: None, reason });
        }
        if let Some(id) = str_of(&doc, "sessionId") {
            meta.id = id.to_string();
        }
        meta.title = str_of(&doc, "customTitle").filter(|t| !t.is_empty()).map(str::to_string);
        for k in ["creationDate", "lastMessageDate"] {
            if let Some(t) = doc.get(k).and_then(Value::as_i64).and_then(chrono::DateTime::from_timestamp_millis) {
                meta.saw_time(t);
            }
        }
        if let Some(cwd) = workspace_folder(&path) {
            meta.saw_cwd(&cwd);
        }
        let mut asm = Assembler::new(0, 1);
        for (i, req) in
            doc.get("requests").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]).iter().enumerate()
        {
            request(req, i, &mut asm, &mut meta, &mut sink)?;
        }
        asm.finish(&mut sink)?;
        if meta.id.is_empty() {
            meta.id = path.file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
        }
        Ok(vec![meta])
    }
}

/// The session a file holds: the document, or the operation log replayed (an operation
/// that is not JSON is skipped and said in `broken`).
fn replay(all: &[u8], broken: &mut Vec<String>) -> Result<Value, String> {
    let text = String::from_utf8_lossy(all);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("");
    let head: Value = match serde_json::from_str(first) {
        Ok(v) => v,
        // Not one line: the pretty-printed document.
        Err(_) => return serde_json::from_str(&text).map_err(|e| format!("not a chat session: {}", json_reason(&e))),
    };
    if head.get("requests").is_some() {
        return Ok(head);
    }
    if head.get("kind").and_then(Value::as_i64) != Some(0) {
        return Err("not a chat session: neither its document nor its operation log".into());
    }
    let mut state = head.get("v").cloned().unwrap_or(Value::Null);
    for (n, line) in lines.enumerate() {
        let op: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                broken.push(format!("operation {}: {}", n + 2, json_reason(&e)));
                continue;
            }
        };
        let keys: Vec<Value> = op.get("k").and_then(Value::as_array).cloned().unwrap_or_default();
        let value = op.get("v").cloned().unwrap_or(Value::Null);
        match op.get("kind").and_then(Value::as_i64) {
            Some(0) => state = value,
            Some(1) => {
                if let Some(slot) = slot(&mut state, &keys) {
                    *slot = value;
                }
            }
            Some(2) => {
                if let (Some(Value::Array(items)), Value::Array(add)) = (slot(&mut state, &keys), value) {
                    let at = op.get("i").and_then(Value::as_u64).map_or(items.len(), |i| (i as usize).min(items.len()));
                    items.truncate(at);
                    items.extend(add);
                }
            }
            Some(3) => {
                if let Some((last, parent)) = keys.split_last()
                    && let Some(p) = slot(&mut state, parent)
                {
                    match (p, last) {
                        (Value::Object(o), Value::String(k)) => {
                            o.remove(k);
                        }
                        (Value::Array(a), Value::Number(i)) => {
                            if let Some(i) = i.as_u64().map(|i| i as usize).filter(|i| *i < a.len()) {
                                a.remove(i);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok(state)
}

/// The value at a key path (object keys and array indexes), created as objects where
/// the path is new.
fn slot<'a>(state: &'a mut Value, keys: &[Value]) -> Option<&'a mut Value> {
    let mut cur = state;
    for k in keys {
        cur = match (cur, k) {
            (Value::Object(o), Value::String(s)) => o.entry(s.clone()).or_insert(Value::Null),
            (Value::Array(a), Value::Number(n)) => a.get_mut(n.as_u64()? as usize)?,
            (v @ Value::Null, Value::String(s)) => {
                *v = Value::Object(serde_json::Map::new());
                v.as_object_mut()?.entry(s.clone()).or_insert(Value::Null)
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// The folder of the workspace a chat session belongs to: `workspace.json` two levels
/// up (`workspaceStorage/<hash>/workspace.json`), `{"folder": "file:///…"}`.
fn workspace_folder(path: &Path) -> Option<String> {
    let dir = path.parent()?;
    if dir.file_name()? != "chatSessions" {
        return None;
    }
    let text = std::fs::read_to_string(dir.parent()?.join("workspace.json")).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let uri = str_of(&v, "folder")?;
    let path = uri.strip_prefix("file://")?;
    Some(percent_decode(path))
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(h) = s.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(h);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One request: the user's message, then the response's messages.
fn request(req: &Value, i: usize, asm: &mut Assembler, meta: &mut SessionMeta, sink: &mut dyn Sink) -> Result<()> {
    let at = At::default();
    let timestamp = req.get("timestamp").and_then(Value::as_i64).and_then(chrono::DateTime::from_timestamp_millis);
    if let Some(t) = timestamp {
        meta.saw_time(t);
    }
    if let Some(m) = str_of(req, "modelId").filter(|m| !m.is_empty()) {
        meta.model = Some(m.to_string());
    }
    let text = req.pointer("/message/text").and_then(Value::as_str).unwrap_or("").to_string();
    asm.push(Message { role: Role::User, timestamp, text, ..Message::default() }, None, at, sink)?;
    let cancelled = req.get("isCanceled").and_then(Value::as_bool).unwrap_or(false);
    let mut cur = Message { role: Role::Assistant, timestamp, ..Message::default() };
    for (j, part) in req.get("response").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]).iter().enumerate()
    {
        let kind = str_of(part, "kind").unwrap_or("");
        match kind {
            "" | "markdownContent" | "markdownVuln" => {
                let t = if kind.is_empty() { markdown(Some(part)) } else { markdown(part.get("content")) };
                if t.is_empty() {
                    continue;
                }
                // Text after a call is the model's next round.
                if !cur.calls.is_empty() {
                    let next = Message { role: Role::Assistant, timestamp, ..Message::default() };
                    flush(std::mem::replace(&mut cur, next), asm, sink)?;
                }
                cur.text.push_str(&t);
            }
            "thinking" => {
                let t = markdown(part.get("value"));
                if !t.trim().is_empty() {
                    if !cur.thinking.is_empty() {
                        cur.thinking.push_str("\n\n");
                    }
                    cur.thinking.push_str(&t);
                }
            }
            "toolInvocationSerialized" => cur.calls.push(tool_call(part, i, j, cancelled, timestamp)),
            "warning" => {
                let t = markdown(part.get("content"));
                flush(std::mem::take(&mut cur), asm, sink)?;
                cur = Message { role: Role::Assistant, timestamp, ..Message::default() };
                let m =
                    Message { role: Role::System, origin: Origin::Injected, timestamp, text: t, ..Message::default() };
                asm.push(m, None, at, sink)?;
            }
            k if BOOKKEEPING.contains(&k) => {}
            other => sink.unknown(&format!("response/{other}")),
        }
    }
    flush(cur, asm, sink)?;
    // A cancelled request's error only says so; the interrupt marker below does too.
    if let Some(e) = req.pointer("/result/errorDetails/message").and_then(Value::as_str).filter(|_| !cancelled) {
        let m = Message {
            role: Role::System,
            origin: Origin::Injected,
            timestamp,
            text: e.to_string(),
            ..Message::default()
        };
        asm.push(m, None, at, sink)?;
    }
    if cancelled {
        let m = Message {
            role: Role::User,
            origin: Origin::Interrupt,
            timestamp,
            text: "[request cancelled]".into(),
            ..Message::default()
        };
        asm.push(m, None, at, sink)?;
    }
    Ok(())
}

fn flush(m: Message, asm: &mut Assembler, sink: &mut dyn Sink) -> Result<()> {
    if m.role == Role::Assistant && m.text.trim().is_empty() && m.thinking.is_empty() && m.calls.is_empty() {
        return Ok(());
    }
    asm.push(m, None, At::default(), sink)?;
    // Results are inline: nothing is joined later.
    asm.close_calls_of_last();
    Ok(())
}

/// A `toolInvocationSerialized` part, its result included.
fn tool_call(
    part: &Value,
    i: usize,
    j: usize,
    cancelled: bool,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
) -> Call {
    let name = str_of(part, "toolId").unwrap_or("").to_string();
    let id = str_of(part, "toolCallId").map_or_else(|| format!("copilot-chat-{i}-{j}"), str::to_string);
    let data = part.get("toolSpecificData").unwrap_or(&Value::Null);
    let details = part.get("resultDetails").unwrap_or(&Value::Null);
    let terminal = str_of(data, "kind") == Some("terminal");
    let command = terminal
        .then(|| data.pointer("/commandLine/original").or_else(|| data.get("command")).and_then(Value::as_str))
        .flatten()
        .map(str::to_string);
    let input = match details.get("input") {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
        Some(v) => v.clone(),
        None => data.clone(),
    };
    let complete = part.get("isComplete").and_then(Value::as_bool).unwrap_or(true);
    let output = match data.pointer("/terminalCommandOutput/text").and_then(Value::as_str) {
        Some(t) => t.to_string(),
        None => {
            let items = details.get("output").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let texts: Vec<&str> = items.iter().filter_map(|o| str_of(o, "value")).collect();
            if texts.is_empty() { markdown(part.get("pastTenseMessage")) } else { texts.join("\n") }
        }
    };
    let exit_code =
        data.pointer("/terminalCommandState/exitCode").and_then(Value::as_i64).and_then(|c| i32::try_from(c).ok());
    let result = CallResult {
        is_error: details.get("isError").and_then(Value::as_bool).unwrap_or(false) || exit_code.is_some_and(|c| c != 0),
        exit_code,
        interrupted: !complete && cancelled,
        timestamp,
        output,
        ..CallResult::default()
    };
    Call { id, name, input, command, result: Some(result), continues: None }
}
