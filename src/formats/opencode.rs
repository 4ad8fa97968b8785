//! OpenCode: the JSON storage folder of older versions and the SQLite `opencode.db` of
//! newer ones. Both hold the same objects (`Session.Info`, `MessageV2.Info`,
//! `MessageV2.Part`), so one mapping serves both.
//!
//! How the walker meets them:
//! - `opencode` — the storage folder `~/.local/share/opencode/storage/` keeps one file per
//!   object: `session/<project>/<session-id>.json`, `message/<session-id>/<msg-id>.json`,
//!   `part/<msg-id>/<part-id>.json`. The format claims the **session** file; parsing it
//!   reads that session's message and part files (ids sort by creation time, so file names
//!   give the order). `walk.rs` does not hand out the `message/` and `part/` files at all,
//!   and dates a session file by the newest of itself and its message folder, so a session
//!   that grew is read again. The pre-2025-07 layout (`session/info/<id>.json`,
//!   `session/message/<sid>/<mid>.json`, `session/part/<sid>/<mid>/<pid>.json`) is read too.
//! - `opencode-db` — `~/.local/share/opencode/opencode.db`: tables `session` (columns),
//!   `message` and `part` (a `data` JSON column each, ids in columns), read with SQLite
//!   (read-only; the WAL is honoured). One file holds every session, in creation order.
//!
//! Both are whole-document formats: no line numbers, no checkpoints.
//!
//! Record mapping (one OpenCode message = one message):
//! - user messages: `text` parts (not `synthetic`) are what the person typed; a message
//!   of only synthetic text is injected system text; `file` parts read `[file: name]`,
//!   `subtask` parts `[subtask: description]`; a `compaction` part marks a compaction request.
//! - assistant messages: `text` parts → text, `reasoning` → thinking, `tool` parts → calls
//!   with their result inline: `state.status` completed → `output` (exit code from
//!   `state.metadata.exit` for `bash`; non-zero is an error), error → `error` text with
//!   `is_error` ("aborted" → interrupted), pending/running → no result. `summary: true`
//!   assistant messages are compaction summaries. A failed turn with no content becomes
//!   a system message with the error. `step-start`, `step-finish`, `snapshot`, `patch`,
//!   `retry`, `agent` parts are bookkeeping; other part types count as unknown.
//! - Child sessions (subagents run by the `task` tool) get `parent_session`, and
//!   `parent_call` is the parent's task call whose `metadata.sessionId` names the child.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

use super::{Assembler, At, Format, Input, NoRestart, Sink, push_para};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct OpenCode;
pub struct OpenCodeDb;

fn millis(v: Option<&Value>) -> Option<chrono::DateTime<chrono::Utc>> {
    v.and_then(Value::as_i64).and_then(chrono::DateTime::from_timestamp_millis)
}

/// Session facts from a `Session.Info` object (storage) or the row as JSON (database).
fn session_meta(info: &Value, source: &Path) -> SessionMeta {
    let mut meta = SessionMeta {
        id: info.get("id").and_then(Value::as_str).unwrap_or("").to_string(),
        source: source.to_path_buf(),
        title: info.get("title").and_then(Value::as_str).filter(|t| !t.is_empty()).map(str::to_string),
        agent_version: info.get("version").and_then(Value::as_str).map(str::to_string),
        parent_session: info
            .get("parentID")
            .or_else(|| info.get("parent_id"))
            .and_then(Value::as_str)
            .map(str::to_string),
        ..SessionMeta::default()
    };
    if let Some(dir) = info.get("directory").and_then(Value::as_str) {
        meta.saw_cwd(dir);
    }
    for t in [
        info.pointer("/time/created"),
        info.pointer("/time/updated"),
        info.get("time_created"),
        info.get("time_updated"),
    ] {
        if let Some(t) = millis(t) {
            meta.saw_time(t);
        }
    }
    meta
}

/// The result a tool part's state holds, if it finished.
fn tool_result(state: &Value) -> Option<CallResult> {
    let status = state.get("status").and_then(Value::as_str).unwrap_or("");
    let timestamp = millis(state.pointer("/time/end"));
    match status {
        "completed" => {
            let output = state.get("output").and_then(Value::as_str).unwrap_or("").to_string();
            let exit_code = state.pointer("/metadata/exit").and_then(Value::as_i64).map(|c| c as i32);
            Some(CallResult {
                is_error: exit_code.is_some_and(|c| c != 0),
                exit_code,
                output,
                timestamp,
                ..CallResult::default()
            })
        }
        "error" => {
            let output = state.get("error").and_then(Value::as_str).unwrap_or("").to_string();
            let interrupted = output.to_ascii_lowercase().contains("aborted");
            let exit_code = state.pointer("/metadata/exit").and_then(Value::as_i64).map(|c| c as i32);
            Some(CallResult {
                is_error: true,
                interrupted,
                exit_code,
                output,
                timestamp,
                line: None,
                ..CallResult::default()
            })
        }
        _ => None,
    }
}

/// One OpenCode message and its parts → a message (None when it says nothing).
fn message(info: &Value, parts: &[Value], sink: &mut dyn Sink, meta: &mut SessionMeta) -> Option<Message> {
    let role = info.get("role").and_then(Value::as_str).unwrap_or("");
    let timestamp = millis(info.pointer("/time/created"));
    if let Some(t) = timestamp {
        meta.saw_time(t);
    }
    if let Some(cwd) = info.pointer("/path/cwd").and_then(Value::as_str) {
        meta.saw_cwd(cwd);
    }
    if role == "assistant"
        && let Some(m) = info.get("modelID").and_then(Value::as_str)
    {
        meta.model = Some(m.to_string());
    }
    let mut text = String::new();
    let mut typed = false;
    let mut thinking = String::new();
    let mut calls = Vec::new();
    let mut compaction = false;
    for p in parts {
        let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "text" => {
                if p.get("ignored").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                typed |= p.get("synthetic").and_then(Value::as_bool) != Some(true);
                push_para(&mut text, p.get("text").and_then(Value::as_str).unwrap_or(""));
            }
            "reasoning" => push_para(&mut thinking, p.get("text").and_then(Value::as_str).unwrap_or("")),
            "file" => {
                let name = p.get("filename").or_else(|| p.get("url")).and_then(Value::as_str).unwrap_or("");
                push_para(&mut text, &format!("[file: {name}]"));
            }
            "subtask" => {
                let d = p.get("description").and_then(Value::as_str).unwrap_or("");
                push_para(&mut text, &format!("[subtask: {d}]"));
            }
            "compaction" => compaction = true,
            "tool" => {
                let name = p.get("tool").and_then(Value::as_str).unwrap_or("").to_string();
                let state = p.get("state").cloned().unwrap_or(Value::Null);
                let input = state.get("input").cloned().unwrap_or(Value::Null);
                let command = if name == "bash" {
                    input.get("command").and_then(Value::as_str).map(str::to_string)
                } else {
                    super::claude::shell_command(&name, &input)
                };
                let result = tool_result(&state);
                let id = p.get("callID").and_then(Value::as_str).unwrap_or("").to_string();
                calls.push(Call { id, name, input, command, result, continues: None });
            }
            "step-start" | "step-finish" | "snapshot" | "patch" | "retry" | "agent" => {}
            other => sink.unknown(&format!("part/{other}")),
        }
    }
    match role {
        "user" => {
            if text.is_empty() && compaction {
                text = "[compaction requested]".into();
            }
            if text.is_empty() {
                return None;
            }
            let (role, origin) =
                if typed && !compaction { (Role::User, Origin::Typed) } else { (Role::System, Origin::Injected) };
            Some(Message { role, origin, timestamp, text, ..Message::default() })
        }
        "assistant" => {
            if info.get("summary").and_then(Value::as_bool) == Some(true) {
                return Some(Message {
                    role: Role::System,
                    origin: Origin::CompactSummary,
                    timestamp,
                    text,
                    ..Message::default()
                });
            }
            if text.is_empty() && thinking.is_empty() && calls.is_empty() {
                let err = info.get("error")?;
                let msg = err.pointer("/data/message").and_then(Value::as_str).unwrap_or("");
                let name = err.get("name").and_then(Value::as_str).unwrap_or("error");
                let text = if msg.is_empty() { format!("[{name}]") } else { format!("[{name}] {msg}") };
                return Some(Message {
                    role: Role::System,
                    origin: Origin::Injected,
                    timestamp,
                    text,
                    ..Message::default()
                });
            }
            Some(Message {
                role: Role::Assistant,
                origin: Origin::Typed,
                timestamp,
                text,
                thinking,
                calls,
                ..Message::default()
            })
        }
        other => {
            sink.unknown(&format!("message/{other}"));
            None
        }
    }
}

/// The task call in `parts` whose child session is `child`.
fn spawning_call<'a>(parts: impl Iterator<Item = &'a Value>, child: &str) -> Option<String> {
    parts
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("tool"))
        .find(|p| p.pointer("/state/metadata/sessionId").and_then(Value::as_str) == Some(child))
        .and_then(|p| p.get("callID").and_then(Value::as_str))
        .map(str::to_string)
}

// ---------------------------------------------------------------------------
// The storage folder.

/// JSON files of a folder, sorted by name (ids sort by creation).
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "json")).collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Where a session's messages and their parts are, for a session file at `path`.
struct Layout {
    messages: PathBuf,
    /// Folder holding one sub-folder of part files per message id.
    parts: PathBuf,
}

/// Both layouts: `storage/session/<project>/<id>.json` with `storage/message/<id>/` and
/// `storage/part/<msg>/`, and the older `storage/session/info/<id>.json` with
/// `storage/session/message/<id>/` and `storage/session/part/<id>/<msg>/`.
fn layout(path: &Path, id: &str) -> Option<Layout> {
    let session_dir = path.parent()?.parent()?;
    if path.parent()?.file_name().is_some_and(|n| n == "info") {
        return Some(Layout {
            messages: session_dir.join("message").join(id),
            parts: session_dir.join("part").join(id),
        });
    }
    let storage = session_dir.parent()?;
    Some(Layout { messages: storage.join("message").join(id), parts: storage.join("part") })
}

/// A session file of the storage folder: `Session.Info` with an `ses_` id.
pub fn is_storage_session(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    text.trim_start().starts_with('{')
        && text.contains("\"id\"")
        && text.contains("\"ses_")
        && (text.contains("\"projectID\"") || text.contains("\"directory\""))
        && text.contains("\"time\"")
}

/// OpenCode's `storage/message/` and `storage/part/` (and `storage/session/{message,part}/`
/// of the older layout): their files belong to the session file that names them.
fn is_message_or_part_folder(dir: &Path) -> bool {
    let Some(name) = dir.file_name() else { return false };
    if name != "message" && name != "part" {
        return false;
    }
    let parent = dir.parent();
    let parent_name = parent.and_then(Path::file_name);
    match parent_name {
        Some(p) if p == "storage" => parent.is_some_and(|s| s.join("session").is_dir()),
        Some(p) if p == "session" => {
            parent.and_then(Path::parent).and_then(Path::file_name).is_some_and(|g| g == "storage")
        }
        _ => false,
    }
}

/// The newest modification time among a storage session's files, for the walker.
fn storage_mtime(path: &Path) -> Option<std::time::SystemTime> {
    let id = path.file_stem()?.to_str()?;
    let l = layout(path, id)?;
    std::fs::metadata(&l.messages).and_then(|m| m.modified()).ok()
}

/// A storage file named from the storage folder on (`message/ses_…/msg_….json`).
fn storage_name(path: &Path) -> String {
    let parts: Vec<_> = path.components().collect();
    let start = parts.iter().rposition(|c| c.as_os_str() == "storage").map_or(0, |i| i + 1);
    parts[start..].iter().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

fn read_json(path: &Path, sink: &mut dyn Sink) -> Option<Value> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            sink.bad(BadRecord { line: None, reason: format!("{}: {e}", storage_name(path)) });
            return None;
        }
    };
    match serde_json::from_slice(&bytes) {
        Ok(v) => Some(v),
        Err(e) => {
            sink.bad(BadRecord { line: None, reason: format!("{}: {}", storage_name(path), super::json_reason(&e)) });
            None
        }
    }
}

/// Kilo (an OpenCode core) writes OpenCode's storage and database under its own name.
const KIN: &[super::kin::Kin] =
    &[super::kin::Kin { agent: "Kilo", folders: &[&["share", "kilo"], &["kilo", "storage"], &["kilo", "kilo.db"]] }];

impl Format for OpenCode {
    fn id(&self) -> &'static str {
        "opencode"
    }

    fn kin(&self) -> &'static [super::kin::Kin] {
        KIN
    }

    fn agent(&self) -> &'static str {
        "OpenCode"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.json"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // OpenCode keeps its data under the XDG data folder on every platform (xdg-basedir),
        // and Kilo (an OpenCode core) the same layout under its own name (`formats::kin`).
        let mut out = places.data(self.id(), "opencode", &[&["storage", "session"], &["opencode.db"]]);
        out.extend(places.data("kilo", "kilo", &[&["storage", "session"], &["kilo.db"]]));
        out
    }

    fn folder_read_through_another(&self, dir: &Path) -> bool {
        is_message_or_part_folder(dir)
    }

    fn read_beside(&self, path: &Path) -> Option<super::Beside> {
        let name = path.file_name()?.to_str()?;
        if !(name.starts_with("ses_") && name.ends_with(".json")) {
            return None;
        }
        Some(super::Beside { bytes: 0, modified: Some(storage_mtime(path)?) })
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        if !is_storage_session(head) {
            return 0;
        }
        let in_storage = path.ancestors().any(|a| a.file_name().is_some_and(|n| n == "storage"));
        if in_storage { 95 } else { 80 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let path = input.path().to_path_buf();
        let all = input.read_all()?;
        let mut sink = NoRestart::whole_document(sink);
        let info: Value = match serde_json::from_slice(&all) {
            Ok(v) => v,
            Err(e) => {
                sink.bad(BadRecord { line: None, reason: format!("not a session: {}", super::json_reason(&e)) });
                Value::Null
            }
        };
        let mut meta = session_meta(&info, &path);
        if meta.id.is_empty() {
            meta.id = path.file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
        }
        let mut asm = Assembler::new(0, 1);
        if let Some(l) = layout(&path, &meta.id) {
            for mfile in json_files(&l.messages) {
                let Some(minfo) = read_json(&mfile, &mut sink) else { continue };
                let mid = minfo
                    .get("id")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or_else(|| mfile.file_stem().and_then(|s| s.to_str()).map(str::to_string))
                    .unwrap_or_default();
                let parts: Vec<Value> =
                    json_files(&l.parts.join(&mid)).iter().filter_map(|p| read_json(p, &mut sink)).collect();
                if let Some(m) = message(&minfo, &parts, &mut sink, &mut meta) {
                    asm.push(m, None, At::default(), &mut sink)?;
                }
            }
            if let Some(parent) = meta.parent_session.clone()
                && let Some(pl) = layout(&path, &parent)
            {
                meta.parent_call = json_files(&pl.messages).iter().find_map(|mf| {
                    let mid = mf.file_stem()?.to_str()?;
                    let parts: Vec<Value> = json_files(&pl.parts.join(mid))
                        .iter()
                        .filter_map(|p| std::fs::read(p).ok().and_then(|b| serde_json::from_slice(&b).ok()))
                        .collect();
                    spawning_call(parts.iter(), &meta.id)
                });
            }
        }
        asm.finish(&mut sink)?;
        Ok(vec![meta])
    }
}

// ---------------------------------------------------------------------------
// The SQLite database.

const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

impl Format for OpenCodeDb {
    fn id(&self) -> &'static str {
        "opencode-db"
    }

    fn kin(&self) -> &'static [super::kin::Kin] {
        KIN
    }

    fn agent(&self) -> &'static str {
        "OpenCode"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["opencode.db", "kilo.db"]
    }

    fn read_beside(&self, path: &Path) -> Option<super::Beside> {
        super::sqlite_wal(path)
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        if !head.starts_with(SQLITE_MAGIC) {
            return 0;
        }
        let has = |needle: &[u8]| memchr::memmem::find(head, needle).is_some();
        let tables = (has(b"CREATE TABLE `part`") || has(b"CREATE TABLE \"part\""))
            && (has(b"CREATE TABLE `message`") || has(b"CREATE TABLE \"message\""));
        let named = path.file_name().is_some_and(|n| n == "opencode.db");
        match (tables, named) {
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
        let columns = table_columns(&db, "session")?;
        let wanted = ["id", "parent_id", "directory", "title", "version", "time_created", "time_updated"];
        let select: Vec<&str> = wanted.iter().copied().filter(|c| columns.iter().any(|k| k == c)).collect();
        if !select.contains(&"id") {
            anyhow::bail!("{}: no `session` table with an `id` column", path.display());
        }
        let order = if select.contains(&"time_created") { "time_created, id" } else { "id" };
        let sql = format!("SELECT {} FROM session ORDER BY {order}", select.join(", "));
        let mut rows: Vec<Value> = Vec::new();
        {
            let mut stmt = db.prepare(&sql)?;
            let mut q = stmt.query([])?;
            while let Some(row) = q.next()? {
                let mut obj = serde_json::Map::new();
                for (i, c) in select.iter().enumerate() {
                    let v: rusqlite::types::Value = row.get(i)?;
                    let v = match v {
                        rusqlite::types::Value::Integer(n) => Value::from(n),
                        rusqlite::types::Value::Text(s) => Value::from(s),
                        rusqlite::types::Value::Real(f) => Value::from(f),
                        _ => Value::Null,
                    };
                    obj.insert((*c).to_string(), v);
                }
                rows.push(Value::Object(obj));
            }
        }
        let mut msg_stmt =
            db.prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id")?;
        let mut part_stmt = db.prepare("SELECT data FROM part WHERE message_id = ?1 ORDER BY id")?;
        let mut metas = Vec::new();
        let mut asm = Assembler::new(0, 1);
        for (n, row) in rows.iter().enumerate() {
            if n > 0 {
                asm.next_session(&mut sink)?;
            }
            let mut meta = session_meta(row, &path);
            let msgs: Vec<(String, String)> = msg_stmt
                .query_map([&meta.id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
                .collect::<Result<_, _>>()?;
            for (mid, data) in msgs {
                let info: Value = match serde_json::from_str(&data) {
                    Ok(v) => v,
                    Err(e) => {
                        sink.bad(BadRecord {
                            line: None,
                            reason: format!("message {mid}: {}", super::json_reason(&e)),
                        });
                        continue;
                    }
                };
                let mut parts = Vec::new();
                for data in part_stmt.query_map([&mid], |r| r.get::<_, String>(0))? {
                    match serde_json::from_str::<Value>(&data?) {
                        Ok(v) => parts.push(v),
                        Err(e) => sink.bad(BadRecord {
                            line: None,
                            reason: format!("a part of message {mid}: {}", super::json_reason(&e)),
                        }),
                    }
                }
                if let Some(m) = message(&info, &parts, &mut sink, &mut meta) {
                    asm.push(m, None, At::default(), &mut sink)?;
                }
            }
            if let Some(parent) = meta.parent_session.clone() {
                let like = format!("%{}%", meta.id);
                let mut stmt = db.prepare("SELECT data FROM part WHERE session_id = ?1 AND data LIKE ?2")?;
                let parts: Vec<Value> = stmt
                    .query_map([&parent, &like], |r| r.get::<_, String>(0))?
                    .filter_map(|d| d.ok().and_then(|d| serde_json::from_str(&d).ok()))
                    .collect();
                meta.parent_call = spawning_call(parts.iter(), &meta.id);
            }
            metas.push(meta);
        }
        asm.finish(&mut sink)?;
        Ok(metas)
    }
}

fn table_columns(db: &rusqlite::Connection, table: &str) -> Result<Vec<String>> {
    let mut stmt = db.prepare(&format!("PRAGMA table_info({table})"))?;
    let cols = stmt.query_map([], |r| r.get::<_, String>(1))?.collect::<Result<Vec<_>, _>>()?;
    Ok(cols)
}
