//! Goose (`aaif-goose/goose`, formerly `block/goose`): the session database
//! `~/.local/share/goose/sessions/sessions.db` (`$XDG_DATA_HOME/goose`; Windows
//! `%APPDATA%\Block\goose\data\sessions\sessions.db`) of current versions, and the
//! `sessions/<id>.jsonl` files of earlier ones.
//!
//! Both hold goose's `Message` (`crates/goose/src/conversation/message.rs`):
//! `{role, created, content: [MessageContent], metadata: {userVisible, agentVisible}}`,
//! `MessageContent` tagged by `type`:
//!
//! | content | becomes |
//! |---|---|
//! | `text` | the message's text: typed by the person in a user message, the agent's words in an assistant one |
//! | `thinking` (and the older `reasoning`) | thinking; `redactedThinking` is left out |
//! | `toolRequest` / `frontendToolRequest` `{id, toolCall: {status: "success", value: {name, arguments}} \| {status: "error", error}}` | a call (`command` for the shell tools, `developer__shell`, `shell`) |
//! | `toolResponse` `{id, toolResult: {status: "success", value: {content: [Content], isError}} \| {status: "error", error}}` | the result of call `id` (the text items of `content`, or of `value` when it is a bare list, as earlier versions wrote it) |
//! | `systemNotification` `{notificationType, msg}` | an injected system message |
//! | `image` | `[image]` in the text |
//! | `toolConfirmationRequest`, `actionRequired` | bookkeeping (the tool call itself is recorded) |
//!
//! A message the person never saw (`metadata.userVisible: false`, e.g. the summary a
//! compaction hands the model) is injected system text, one the model never saw
//! (`agentVisible: false`) a notice; a user message holding only tool responses is no turn.
//!
//! The database (`crates/goose/src/session/session_manager.rs`): `sessions` (`id`, `name`
//! — `description` before schema 5 —, `working_dir`, `created_at`, `updated_at`,
//! `model_config_json`, `parent_session_id`, …) and `messages` (`session_id`, `role`,
//! `content_json`, `created_timestamp`, `metadata_json`), one session per row, messages in
//! insertion order. A subagent's session (`parent_session_id`) gets `parent_call` from the
//! parent's `toolResponse` whose result carries `_meta.subagent_session_id` = its id (the
//! `delegate` tool's result, `crates/goose/src/agents/state_machine/ops_subagent.rs`); the
//! JSONL reader links none. A JSONL file's first line is the session's metadata (`working_dir`,
//! `description`), every other line a message. Both are read whole each time.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

use super::{Assembler, At, Format, Input, NoRestart, Sink, next_json_record, orphan_result_message, str_of};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct Goose;
pub struct GooseDb;

/// Seconds (goose's `created`) or milliseconds, as the writers used both.
fn epoch(n: i64) -> Option<chrono::DateTime<chrono::Utc>> {
    if n > 10_000_000_000 { chrono::DateTime::from_timestamp_millis(n) } else { chrono::DateTime::from_timestamp(n, 0) }
}

/// Whether a content list is goose's: every item has a `type` goose writes.
fn is_goose_content(content: &Value) -> bool {
    const TYPES: &[&str] = &[
        "text",
        "image",
        "toolRequest",
        "toolResponse",
        "toolConfirmationRequest",
        "actionRequired",
        "frontendToolRequest",
        "thinking",
        "redactedThinking",
        "systemNotification",
        "reasoning",
        "conversationCompacted",
        "summarizationRequested",
        "contextLengthExceeded",
    ];
    content.as_array().is_some_and(|items| {
        !items.is_empty() && items.iter().all(|i| str_of(i, "type").is_some_and(|t| TYPES.contains(&t)))
    })
}

/// The text items of an MCP `Content` list.
fn content_text(items: &Value) -> String {
    let parts: Vec<String> = items
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .filter_map(|c| match str_of(c, "type") {
            Some("text") => str_of(c, "text").map(str::to_string),
            Some("resource") => c.pointer("/resource/text").and_then(Value::as_str).map(str::to_string),
            Some("image") => Some("[image]".to_string()),
            _ => None,
        })
        .collect();
    parts.join("\n")
}

/// Reads goose messages into the normalized ones, joining tool responses to their calls.
struct Reader<'a> {
    asm: Assembler,
    sink: &'a mut dyn Sink,
    /// `(session, subagent session, call)`: a tool response of `session` that started the
    /// subagent (its result's `_meta.subagent_session_id`), answering `call`.
    spawned: Vec<(String, String, String)>,
}

impl Reader<'_> {
    fn message(&mut self, msg: &Value, at: At, meta: &mut SessionMeta) -> Result<()> {
        let timestamp = msg.get("created").and_then(Value::as_i64).and_then(epoch);
        if let Some(t) = timestamp {
            meta.saw_time(t);
        }
        let role = str_of(msg, "role").unwrap_or("");
        let user_visible = msg.pointer("/metadata/userVisible").and_then(Value::as_bool) != Some(false);
        let agent_visible = msg.pointer("/metadata/agentVisible").and_then(Value::as_bool) != Some(false);
        let mut text = Vec::new();
        let mut thinking = Vec::new();
        let mut calls = Vec::new();
        let mut notices = Vec::new();
        for item in msg.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
            match str_of(item, "type").unwrap_or("") {
                "text" => text.push(str_of(item, "text").unwrap_or("").to_string()),
                "image" => text.push("[image]".to_string()),
                "thinking" => thinking.push(str_of(item, "thinking").unwrap_or("").to_string()),
                "reasoning" => thinking.push(str_of(item, "text").unwrap_or("").to_string()),
                "toolRequest" | "frontendToolRequest" => calls.push(call(item)),
                "toolResponse" => {
                    let id = str_of(item, "id").unwrap_or("");
                    let started = item.pointer("/toolResult/value/_meta/subagent_session_id").and_then(Value::as_str);
                    if let Some(sub) = started.filter(|s| !s.is_empty() && !id.is_empty()) {
                        self.spawned.push((meta.id.clone(), sub.to_string(), id.to_string()));
                    }
                    let r = response(item, timestamp);
                    if let Some(orphan) = self.asm.attach(id, r) {
                        self.asm.push(orphan_result_message(id, orphan), None, at, self.sink)?;
                    }
                }
                "systemNotification" => notices.push(str_of(item, "msg").unwrap_or("").to_string()),
                "redactedThinking"
                | "toolConfirmationRequest"
                | "actionRequired"
                | "conversationCompacted"
                | "summarizationRequested"
                | "contextLengthExceeded" => {}
                other => self.sink.unknown(if other.is_empty() { "(content with no type)" } else { other }),
            }
        }
        for n in notices.into_iter().filter(|n| !n.trim().is_empty()) {
            let m = Message { role: Role::System, origin: Origin::Injected, timestamp, text: n, ..Message::default() };
            self.asm.push(m, None, at, self.sink)?;
        }
        let text = text.join("\n");
        let thinking = thinking.join("\n\n");
        if text.trim().is_empty() && thinking.trim().is_empty() && calls.is_empty() {
            return Ok(());
        }
        let (role, origin) = match role {
            _ if !user_visible || !agent_visible => (Role::System, Origin::Injected),
            "assistant" => (Role::Assistant, Origin::Typed),
            "user" => (Role::User, Origin::Typed),
            _ => (Role::System, Origin::Injected),
        };
        let m = Message { role, origin, timestamp, text, thinking, calls, ..Message::default() };
        self.asm.push(m, None, at, self.sink)?;
        Ok(())
    }
}

fn call(item: &Value) -> Call {
    let id = str_of(item, "id").unwrap_or("").to_string();
    let tc = item.get("toolCall").unwrap_or(&Value::Null);
    let value = tc.get("value").unwrap_or(&Value::Null);
    let name = str_of(value, "name").unwrap_or("").to_string();
    let mut input = value.get("arguments").cloned().unwrap_or(Value::Null);
    if str_of(tc, "status") == Some("error") {
        // The model's call could not be read: keep why.
        input = serde_json::json!({ "error": str_of(tc, "error").unwrap_or("") });
    }
    let command = super::claude::shell_command(&name, &input);
    Call { id, name, input, command, result: None, continues: None }
}

fn response(item: &Value, timestamp: Option<chrono::DateTime<chrono::Utc>>) -> CallResult {
    let tr = item.get("toolResult").unwrap_or(&Value::Null);
    let (output, is_error) = match str_of(tr, "status") {
        Some("error") => (str_of(tr, "error").unwrap_or("").to_string(), true),
        _ => {
            let value = tr.get("value").unwrap_or(&Value::Null);
            if value.is_array() {
                (content_text(value), false)
            } else {
                let failed = value.get("isError").and_then(Value::as_bool) == Some(true);
                (content_text(value.get("content").unwrap_or(&Value::Null)), failed)
            }
        }
    };
    CallResult { output, is_error, timestamp, ..CallResult::default() }
}

fn new_meta(source: &Path) -> SessionMeta {
    SessionMeta { source: source.to_path_buf(), ..SessionMeta::default() }
}

/// A line of a goose JSONL session: the metadata line or a message.
fn is_metadata_line(v: &Value) -> bool {
    v.get("working_dir").is_some_and(Value::is_string) && v.get("role").is_none()
}

fn is_message_line(v: &Value) -> bool {
    matches!(str_of(v, "role"), Some("user" | "assistant"))
        && v.get("created").is_some_and(Value::is_i64)
        && v.get("content").is_some_and(is_goose_content)
}

impl Format for Goose {
    fn id(&self) -> &'static str {
        "goose"
    }

    fn agent(&self) -> &'static str {
        "Goose"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.jsonl"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // `sessions/sessions.db` (earlier `sessions/*.jsonl`) in Goose's XDG data folder.
        places.data(self.id(), "goose", &[&["sessions"]])
    }

    fn sniff(&self, _path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let Some(first) = lines.next().and_then(|l| serde_json::from_str::<Value>(l).ok()) else { return 0 };
        let second = lines.next().and_then(|l| serde_json::from_str::<Value>(l).ok());
        let messages = if is_metadata_line(&first) { second.is_none_or(|v| is_message_line(&v)) } else { false };
        if messages || is_message_line(&first) { 90 } else { 0 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let path = input.path().to_path_buf();
        let mut sink = NoRestart::lines(sink);
        let mut meta = new_meta(&path);
        meta.id = path.file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
        let mut r = Reader { asm: Assembler::new(0, 1), sink: &mut sink, spawned: Vec::new() };
        while let Some((at, v)) = next_json_record(input, r.sink)? {
            if is_metadata_line(&v) {
                meta.saw_cwd(str_of(&v, "working_dir").unwrap_or(""));
                if let Some(d) = str_of(&v, "description").or_else(|| str_of(&v, "name")).filter(|d| !d.is_empty()) {
                    meta.title = Some(d.to_string());
                }
            } else if v.get("role").is_some() {
                r.message(&v, at, &mut meta)?;
            } else {
                r.sink.unknown("(no role)");
            }
        }
        r.asm.finish(r.sink)?;
        Ok(vec![meta])
    }
}

const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

impl Format for GooseDb {
    fn id(&self) -> &'static str {
        "goose-db"
    }

    fn agent(&self) -> &'static str {
        "Goose"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["goose/*/sessions.db"]
    }

    fn read_beside(&self, path: &Path) -> Option<super::Beside> {
        super::sqlite_wal(path)
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        if !head.starts_with(SQLITE_MAGIC) {
            return 0;
        }
        let has = |needle: &[u8]| memchr::memmem::find(head, needle).is_some();
        let schema = has(b"CREATE TABLE messages") && has(b"content_json") && has(b"created_timestamp");
        let sessions = has(b"working_dir");
        let named = path.file_name().is_some_and(|n| n == "sessions.db")
            && path.parent().and_then(Path::parent).and_then(Path::file_name).is_some_and(|n| n == "goose");
        match (schema && sessions, named) {
            (true, _) => 95,
            (false, true) => 70,
            _ => 0,
        }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        use rusqlite::{Connection, OpenFlags};
        let path = input.path().to_path_buf();
        let mut sink = NoRestart::whole_document(sink);
        let db = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
            .with_context(|| format!("opening {} with SQLite", path.display()))?;
        let cols = columns(&db, "sessions")?;
        let has = |c: &str| cols.iter().any(|k| k == c);
        if !has("id") || !has("working_dir") {
            anyhow::bail!("{}: no goose `sessions` table (with `id` and `working_dir`)", path.display());
        }
        let pick = |c: &'static str| if has(c) { c } else { "NULL" };
        let name = if has("name") { "name" } else { pick("description") };
        let sql = format!(
            "SELECT id, working_dir, {name}, {}, {}, {} FROM sessions ORDER BY {}, id",
            pick("created_at"),
            pick("model_config_json"),
            pick("parent_session_id"),
            pick("created_at"),
        );
        type Row = (String, Option<String>, Option<String>, Option<String>, Option<String>, Option<String>);
        let rows: Vec<Row> = db
            .prepare(&sql)?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
            .collect::<Result<_, _>>()?;
        let meta_col =
            if columns(&db, "messages")?.iter().any(|c| c == "metadata_json") { "metadata_json" } else { "NULL" };
        let mut stmt = db.prepare(&format!(
            "SELECT id, role, content_json, created_timestamp, {meta_col} FROM messages WHERE session_id = ?1 ORDER BY id"
        ))?;
        let mut metas = Vec::new();
        let mut r = Reader { asm: Assembler::new(0, 1), sink: &mut sink, spawned: Vec::new() };
        for (n, (id, cwd, title, created, model, parent)) in rows.into_iter().enumerate() {
            if n > 0 {
                r.asm.next_session(r.sink)?;
            }
            let mut meta = new_meta(&path);
            meta.id = id;
            meta.saw_cwd(cwd.as_deref().unwrap_or(""));
            meta.title = title.filter(|t| !t.trim().is_empty());
            meta.parent_session = parent.filter(|p| !p.is_empty());
            if let Some(t) = created.as_deref().and_then(super::parse_time).or_else(|| {
                created
                    .as_deref()
                    .and_then(|c| chrono::NaiveDateTime::parse_from_str(c, "%Y-%m-%d %H:%M:%S").ok())
                    .map(|n| n.and_utc())
            }) {
                meta.saw_time(t);
            }
            meta.model = model
                .and_then(|m| serde_json::from_str::<Value>(&m).ok())
                .and_then(|m| str_of(&m, "model_name").map(str::to_string));
            type Msg = (i64, String, String, Option<i64>, Option<String>);
            let msgs: Vec<Msg> = stmt
                .query_map([&meta.id], |q| Ok((q.get(0)?, q.get(1)?, q.get(2)?, q.get(3)?, q.get(4)?)))?
                .collect::<Result<_, _>>()?;
            for (mid, role, content, created, metadata) in msgs {
                let content: Value = match serde_json::from_str(&content) {
                    Ok(v) => v,
                    Err(e) => {
                        r.sink.bad(BadRecord {
                            line: None,
                            reason: format!("message {mid}: {}", super::json_reason(&e)),
                        });
                        continue;
                    }
                };
                let metadata = metadata.and_then(|m| serde_json::from_str::<Value>(&m).ok()).unwrap_or(Value::Null);
                let msg =
                    serde_json::json!({"role": role, "created": created, "content": content, "metadata": metadata});
                r.message(&msg, At::default(), &mut meta)?;
            }
            metas.push(meta);
        }
        r.asm.finish(r.sink)?;
        // A subagent's spawning call: the parent's tool response that names its session.
        for m in &mut metas {
            let Some(parent) = m.parent_session.as_deref() else { continue };
            m.parent_call = r.spawned.iter().find(|(s, sub, _)| s == parent && *sub == m.id).map(|(_, _, c)| c.clone());
        }
        Ok(metas)
    }
}

fn columns(db: &rusqlite::Connection, table: &str) -> Result<Vec<String>> {
    let mut stmt = db.prepare(&format!("PRAGMA table_info({table})"))?;
    let cols = stmt.query_map([], |r| r.get::<_, String>(1))?.collect::<Result<Vec<_>, _>>()?;
    Ok(cols)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_of_both_writers() {
        let now = serde_json::json!({"id": "t1", "toolResult": {"status": "success", "value": {"content": [{"type": "text", "text": "ok"}], "isError": true}}});
        let r = response(&now, None);
        assert_eq!((r.output.as_str(), r.is_error), ("ok", true));
        let before = serde_json::json!({"id": "t1", "toolResult": {"status": "success", "value": [{"type": "text", "text": "done"}]}});
        assert_eq!(response(&before, None).output, "done");
        let failed = serde_json::json!({"id": "t1", "toolResult": {"status": "error", "error": "Execution failed"}});
        assert!(response(&failed, None).is_error);
    }

    #[test]
    fn other_role_lists_are_not_goose_messages() {
        let claude =
            serde_json::json!({"role": "user", "created": 1, "content": [{"type": "tool_result", "tool_use_id": "x"}]});
        assert!(!is_message_line(&claude));
        let goose =
            serde_json::json!({"role": "user", "created": 1747178328, "content": [{"type": "text", "text": "hi"}]});
        assert!(is_message_line(&goose));
    }
}
