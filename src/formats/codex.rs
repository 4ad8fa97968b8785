//! Codex CLI rollout JSONL (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`).
//!
//! Each line is `{"timestamp", "type", "payload"}`. How records become messages:
//! - `session_meta` gives the session id, cwd, CLI version and provenance; `turn_context`
//!   the model and cwd of the turn. Neither makes a message.
//! - `response_item` is the conversation as the model saw it and is canonical:
//!   `message` (role user/assistant; `developer`/`system` and the harness's
//!   `<environment_context>`/`<user_instructions>`/AGENTS.md turns become injected
//!   system messages; older writers leave `type` off), `reasoning` (summary text goes to
//!   the next assistant message's `thinking`, and that message starts at it),
//!   `function_call` / `custom_tool_call` / `local_shell_call` (calls; the shell command
//!   line is recovered from `arguments` — a JSON string, or the object itself — for
//!   `shell`, `shell_command`, `exec_command` and `container.exec`), and
//!   `function_call_output` / `custom_tool_call_output` (joined to the call by `call_id`;
//!   exit code from the JSON `metadata` or the unified-exec header, which is dropped
//!   from the output; the plain-text answers of a sandbox denial, a failed spawn or a
//!   refusal are errors).
//! - A command left running ("Process running with session ID N") is completed by the
//!   `write_stdin` polls of that session: its result gets their output and the exit code
//!   it ended with (see [`Assembler::attach_partial`]); the polls keep their own output.
//! - Code mode: an `exec` custom call runs JavaScript that calls `tools.*`
//!   ([`code_mode`]). The cell is one call whose `command` lists the literal shell
//!   commands it runs; its result is what the script printed, and `wait` calls on a cell
//!   that yielded complete it.
//! - Consecutive assistant output (text, reasoning, calls) between two user turns that
//!   has no text in between is grouped: each assistant text starts a message, and the
//!   calls that follow it belong to it, as a person reading the session would group them.
//! - `event_msg` mostly duplicates response items (`user_message`, `agent_message`) and
//!   is ignored once response items are seen, so the conversation is not doubled; in
//!   event-only files (old versions) they are the conversation. `agent_reasoning` is
//!   always thinking, kept once when the reasoning item beside it has the same text.
//!   `turn_aborted` marks the pending calls as interrupted.
//! - `compacted` becomes a compaction-summary system message.
//! - A file that yields no message is an error naming the file and what it held.
//!
//! Older shapes, normalised into the same vocabulary:
//! - The bare JSONL of 2025-05 to 2025-09 (same id, `codex`): line 1 is the session
//!   `{id, timestamp, instructions, git}`, `{"record_type":"state"}` lines are skipped,
//!   every other line is a response item without the envelope (no per-item time); the
//!   cwd comes from the first `<environment_context>` turn.
//! - The single-file `rollout-*.json` of the TypeScript CLI ([`CodexJson`], id
//!   `codex-json`): `{session, items}`, a whole document (no line numbers).

mod code_mode;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Assembler, At, CarrySink, Format, Input, JsonLine, Sink, json_reason, orphan_result_message, parse_time};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};
use code_mode::{CellStatus, ExecResult, Nested};

pub struct Codex;

/// One record (line) of a rollout, its strings borrowed from the line where they need no unescaping.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    payload: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Payload<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    /// A JSON string holding the arguments object; some writers put the object itself.
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    action: Option<&'a RawValue>,
    #[serde(borrow)]
    message: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cli_version: Option<Cow<'a, str>>,
    #[serde(borrow)]
    originator: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    git: Option<&'a RawValue>,
    #[serde(borrow)]
    reason: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thread_name: Option<Cow<'a, str>>,
}

/// Carried across a resume: whether the file's conversation comes from response items.
#[derive(Default, serde::Serialize, Deserialize)]
struct Carry {
    response_items: bool,
}

#[derive(Default)]
struct State {
    meta: SessionMeta,
    carry: Carry,
    /// Reasoning seen since the last assistant text, waiting for the message it precedes.
    thinking: String,
    /// Where that reasoning starts: the message it joins starts there too, so the
    /// message's lines (and a resume at its start) include it.
    thinking_at: Option<At>,
    /// The reasoning texts taken since the last other item: `event_msg` `agent_reasoning`
    /// mirrors the `reasoning` item next to it, and each text is kept once.
    reasoning_seen: Vec<String>,
    /// idx of the assistant message that calls made now belong to.
    current_assistant: Option<u32>,
    /// Calls whose output needs more than the generic reading, by call id.
    tracked: HashMap<String, Tracked>,
    /// Processes still running (unified exec session id) → the call that started them.
    sessions: HashMap<String, String>,
    /// Code-mode cells still running (cell id) → their `exec` call and output so far.
    cells: HashMap<String, Cell>,
}

/// What a call's output is read for.
enum Tracked {
    /// `exec_command`: may leave a process running.
    Command,
    /// `write_stdin` to a running process: its output belongs to that command too.
    Poll { session: Option<String> },
    /// A code-mode `exec` cell and the nested calls its script makes.
    Cell { nested: Vec<Nested> },
    /// A code-mode `wait` on a cell.
    Wait { cell: String },
}

/// A code-mode cell that yielded, waiting for `wait` to bring the rest.
struct Cell {
    call_id: String,
    nested: Vec<Nested>,
    items: Vec<String>,
    /// Items already read for nested processes and polls.
    read: usize,
}

/// The patches a code-mode script applies through `tools.apply_patch(…)` with a literal
/// argument: the files an `exec` cell edits, for the detectors that ask what changed.
pub fn code_mode_patches(script: &str) -> Vec<String> {
    code_mode::nested_calls(script)
        .into_iter()
        .filter(|n| n.tool == "apply_patch")
        .filter_map(|n| match n.arg? {
            Value::String(p) => Some(p),
            v => v.get("input").or_else(|| v.get("patch")).and_then(Value::as_str).map(str::to_string),
        })
        .collect()
}

/// Join an argv array into one command line; `bash -lc SCRIPT` gives just the script.
pub fn argv_to_command(parts: &[Value]) -> Option<String> {
    let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
    if words.is_empty() {
        return None;
    }
    if words.len() == 3
        && matches!(words[0].rsplit('/').next(), Some("bash" | "sh" | "zsh"))
        && words[1].starts_with('-')
        && words[1].contains('c')
    {
        return Some(words[2].to_string());
    }
    Some(words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" "))
}

fn shell_quote(w: &str) -> Cow<'_, str> {
    if !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b)) {
        Cow::Borrowed(w)
    } else {
        Cow::Owned(format!("'{}'", w.replace('\'', "'\\''")))
    }
}

/// The shell command line a Codex tool call ran, from its parsed arguments.
fn command_of(name: &str, args: &Value) -> Option<String> {
    match name {
        "exec_command" => args.get("cmd").and_then(Value::as_str).map(str::to_string),
        "write_stdin" => None,
        _ => match args.get("command") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Array(parts)) => argv_to_command(parts),
            _ => None,
        },
    }
}

/// Text of a message's content items (`input_text`, `output_text`, `text`).
fn content_text(raw: Option<&RawValue>) -> String {
    #[derive(Deserialize)]
    struct Item<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow)]
        text: Option<Cow<'a, str>>,
    }
    let Some(raw) = raw else { return String::new() };
    let s = raw.get();
    if s.starts_with('"') {
        return serde_json::from_str::<String>(s).unwrap_or_default();
    }
    let items: Vec<Item> = serde_json::from_str(s).unwrap_or_default();
    let mut out = String::new();
    for it in items {
        let piece = match it.kind.as_deref() {
            Some("input_image") => "[image]",
            _ => it.text.as_deref().unwrap_or(""),
        };
        if piece.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(piece);
    }
    out
}

/// Harness-written user-role turns: environment and instruction blocks.
fn is_injected_user_text(t: &str) -> bool {
    let t = t.trim_start();
    [
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md instructions",
        "<INSTRUCTIONS>",
        "<turn_aborted>",
        "<skill>",
        "<subagent_notification>",
        "<hook_prompt",
        "<user_shell_command>",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// A function-call output in any of its shapes: a JSON string holding
/// `{"output", "metadata": {"exit_code"}}`, plain text with an exit-code header, an
/// object with `content`/`success`, or a list of content items. Also returns the
/// session id when unified exec says the process is still running.
fn parse_output(value: &Value) -> (CallResult, Option<String>) {
    let mut result = CallResult::default();
    let mut running = None;
    let text = match value {
        Value::String(s) => {
            let inner = if s.starts_with('{') { serde_json::from_str::<Value>(s).ok() } else { None };
            match inner {
                Some(v) if v.get("output").is_some() => {
                    result.output = v.get("output").and_then(Value::as_str).unwrap_or("").to_string();
                    result.exit_code = v
                        .pointer("/metadata/exit_code")
                        .or_else(|| v.get("exit_code"))
                        .and_then(Value::as_i64)
                        .map(|c| c as i32);
                    None
                }
                _ => Some(s.clone()),
            }
        }
        Value::Object(map) => {
            if map.get("success") == Some(&Value::Bool(false)) {
                result.is_error = true;
            }
            match map.get("content").or_else(|| map.get("output")) {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Array(items)) => Some(item_texts(items)),
                _ => None,
            }
        }
        Value::Array(items) => Some(item_texts(items)),
        _ => None,
    };
    if let Some(text) = text {
        match exec_header(&text) {
            Some(h) => {
                result.exit_code = h.exit_code;
                running = h.running;
                result.output = text[h.body_at..].to_string();
            }
            None => {
                result.exit_code = exit_code_line(&text).or_else(|| denied_exit_code(&text));
                result.is_error |= harness_failure(&text);
                result.output = text;
            }
        }
    }
    if result.exit_code.is_some_and(|c| c != 0) {
        result.is_error = true;
    }
    if result.output.contains("aborted by user") || result.output.starts_with("aborted") {
        result.interrupted = true;
    }
    (result, running)
}

/// How long a shell call ran, as its output says: `"metadata": {"duration_seconds"}`, or
/// a "Wall time: N seconds" header line.
fn wall_time(value: &Value) -> Option<f64> {
    let s = value.as_str()?;
    if s.starts_with('{') {
        let v: Value = serde_json::from_str(s).ok()?;
        return v.pointer("/metadata/duration_seconds").and_then(Value::as_f64).filter(|d| *d > 0.0);
    }
    s.lines()
        .take(8)
        .find_map(|l| l.strip_prefix("Wall time: ")?.strip_suffix(" seconds")?.trim().parse::<f64>().ok())
        .filter(|d| *d > 0.0)
}

fn item_texts(items: &[Value]) -> String {
    items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
}

/// The metadata lines unified exec (`exec_command`, `write_stdin`) and `shell_command`
/// put before the command's output: `Command: …`, `Chunk ID: …`, `Wall time: …`,
/// `Process exited with code N` or `Process running with session ID N`, `Original token
/// count: …`, `Exit code: N`, then `Output:`.
struct ExecHeader {
    exit_code: Option<i32>,
    running: Option<String>,
    /// Where the output starts.
    body_at: usize,
}

fn exec_header(s: &str) -> Option<ExecHeader> {
    let mut h = ExecHeader { exit_code: None, running: None, body_at: 0 };
    for line in s.split_inclusive('\n').take(8) {
        let t = line.trim_end();
        h.body_at += line.len();
        if t == "Output:" {
            return (h.body_at > line.len()).then_some(h);
        }
        if let Some(rest) = t.strip_prefix("Exit code: ").or_else(|| t.strip_prefix("Process exited with code ")) {
            h.exit_code = rest.trim().parse().ok();
        } else if let Some(rest) = t.strip_prefix("Process running with session ID ") {
            h.running = Some(rest.trim().to_string());
        } else if !["Command: ", "Chunk ID: ", "Wall time: ", "Original token count: "].iter().any(|k| t.starts_with(k))
        {
            return None;
        }
    }
    None
}

/// "Exit code: N" (shell_command) or "Process exited with code N" (unified exec) in the
/// first lines of an output that has no full header.
fn exit_code_line(s: &str) -> Option<i32> {
    for line in s.lines().take(6) {
        let rest = line.strip_prefix("Exit code: ").or_else(|| line.strip_prefix("Process exited with code "));
        if let Some(rest) = rest {
            return rest.trim().parse().ok();
        }
    }
    None
}

/// The messages Codex answers with instead of a command's output when the command
/// could not run or failed on the way (0.2x–0.8x): a sandbox denial, a failed spawn, the
/// user's refusal, a patch that does not apply.
fn harness_failure(text: &str) -> bool {
    [
        "failed in sandbox",
        "sandbox error:",
        "execution error:",
        "exec command rejected by user",
        "apply_patch verification failed",
        "error: Failed to find expected lines",
        "error: invalid hunk",
    ]
    .iter()
    .any(|p| text.starts_with(p))
}

/// The exit code inside a sandbox denial, as Codex 0.3x–0.4x printed it: "failed in
/// sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 2,
/// stdout: …" or "… Denied { output: ExecToolCallOutput { exit_code: 1, …".
fn denied_exit_code(text: &str) -> Option<i32> {
    if !text.starts_with("failed in sandbox") {
        return None;
    }
    let head = text.get(..text.len().min(400)).unwrap_or(text);
    let at = ["exit code: ", "exit_code: "].iter().filter_map(|k| head.find(k).map(|i| i + k.len())).min()?;
    let digits = &head[at..];
    digits[..digits.find(|c: char| !c.is_ascii_digit() && c != '-').unwrap_or(digits.len())].parse().ok()
}

/// Nested tools that run a shell command.
fn is_shell_tool(name: &str) -> bool {
    matches!(name, "exec_command" | "shell_command" | "shell" | "local_shell")
}

/// The shell commands a code-mode script runs with literal arguments, one per line, in
/// source order (a command the script computes cannot be read).
fn cell_command(nested: &[Nested]) -> Option<String> {
    let lines: Vec<String> = nested
        .iter()
        .filter(|n| is_shell_tool(&n.tool))
        .filter_map(|n| match &n.arg {
            Some(Value::String(s)) => Some(s.clone()),
            Some(arg) => command_of(&n.tool, arg),
            None => None,
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// A session or cell id, written as a number or a string.
fn id_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A code-mode cell's output read for its `exec` call.
struct CellRead {
    result: CallResult,
    /// Nested processes left running: (item index, session id).
    running: Vec<(usize, String)>,
    /// Nested `write_stdin` polls and what they returned: (item index, session id, result).
    polls: Vec<(usize, String, ExecResult)>,
}

/// Read a cell's items (all of them so far): the output is the `text(…)` items, a
/// printed nested result standing for its `output`; the exit code is the first non-zero
/// one of the nested commands' printed results, else 0 when they printed any. When the
/// script printed one result per nested `exec_command`/`write_stdin` call, results pair
/// with those calls in order, so a poll's result goes to the process it polled; when
/// not, a cell that polls tells nothing about exit codes (whose would they be?).
fn read_cell(nested: &[Nested], items: &[String], status: Option<CellStatus>) -> CellRead {
    let runs: Vec<&Nested> = nested.iter().filter(|n| is_shell_tool(&n.tool) || n.tool == "write_stdin").collect();
    let mut results: Vec<Option<ExecResult>> = items.iter().map(|i| code_mode::exec_result(i)).collect();
    let paired = results.iter().flatten().count() == runs.len();
    if !paired && runs.iter().any(|n| n.tool == "write_stdin") {
        results
            .iter_mut()
            .for_each(|r| *r = r.take().map(|r| ExecResult { output: r.output, ..ExecResult::default() }));
    }
    let mut read = CellRead { result: CallResult::default(), running: Vec::new(), polls: Vec::new() };
    let mut codes = Vec::new();
    let mut k = 0;
    for (i, (item, res)) in items.iter().zip(&results).enumerate() {
        let text = res.as_ref().map_or(item.as_str(), |r| r.output.as_str());
        let out = &mut read.result.output;
        if !out.is_empty() && !out.ends_with('\n') && !text.is_empty() {
            out.push('\n');
        }
        out.push_str(text);
        let Some(r) = res else { continue };
        let run = if paired { runs.get(k).copied() } else { None };
        k += 1;
        let polled =
            run.filter(|n| n.tool == "write_stdin").and_then(|n| n.arg.as_ref()?.get("session_id").and_then(id_string));
        match (polled, r.exit_code, &r.session_id) {
            (Some(session), _, _) => read.polls.push((i, session, r.clone())),
            (None, Some(c), _) => codes.push(c),
            (None, None, Some(session)) => read.running.push((i, session.clone())),
            (None, None, None) => {}
        }
    }
    read.result.exit_code = codes.iter().copied().find(|&c| c != 0).or_else(|| (!codes.is_empty()).then_some(0));
    read.result.is_error = status == Some(CellStatus::Failed) || read.result.exit_code.is_some_and(|c| c != 0);
    read.result.interrupted = status == Some(CellStatus::Terminated);
    read
}

/// TRAE CLI writes Codex's rollouts under `~/.trae/cli/sessions/`.
const KIN: &[super::kin::Kin] = &[super::kin::Kin { agent: "TRAE CLI", folders: &[&[".trae", "cli"]] }];

impl Format for Codex {
    fn id(&self) -> &'static str {
        "codex"
    }

    fn kin(&self) -> &'static [super::kin::Kin] {
        KIN
    }

    fn agent(&self) -> &'static str {
        "Codex CLI"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.jsonl"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // TRAE CLI writes Codex's rollouts in a folder of its own (`formats::kin`).
        let mut out = places.moved_home(self.id(), "CODEX_HOME", &[".codex"], &["sessions"]);
        out.extend(places.in_home("trae-cli", &[".trae", "cli", "sessions"]));
        out
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let mut score = 0u8;
        for l in text.lines().take(20) {
            let l = l.trim_start();
            if !l.starts_with('{') {
                continue;
            }
            let envelope = l.contains("\"payload\"");
            let kinds = ["\"session_meta\"", "\"response_item\"", "\"turn_context\"", "\"event_msg\""];
            if envelope && kinds.iter().any(|k| l.contains(k)) {
                score = 90;
                break;
            }
            // The bare JSONL of mid-2025: state snapshots and un-enveloped response items.
            let bare_item = ["\"type\":\"message\"", "\"type\":\"function_call\"", "\"type\":\"reasoning\""]
                .iter()
                .any(|k| l.contains(k))
                && !l.contains("\"payload\"")
                && (l.contains("\"input_text\"") || l.contains("\"output_text\"") || l.contains("\"call_id\""));
            if l.starts_with("{\"record_type\":\"state\"") || bare_item {
                score = score.max(85);
            }
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if score > 0 && name.starts_with("rollout-") {
            score += 5;
        }
        score
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let mut st = State::default();
        if let Some(r) = input.resume() {
            st.meta = r.session.clone();
            st.carry = serde_json::from_value(r.checkpoint.state.clone()).unwrap_or_default();
        }
        let mut asm = Assembler::from_resume(input.resume());
        let mut sink = CarrySink { inner: sink, carry: Carry { response_items: st.carry.response_items } };
        while let Some(line) = input.next_line()? {
            let Some(JsonLine { at, bytes, value: rec }) = line.json::<Record>(&mut sink) else { continue };
            if let Err(reason) = record(&mut st, &mut asm, rec, bytes, at, &mut sink) {
                sink.bad(BadRecord { line: Some(at.line), reason });
            }
            sink.carry.response_items = st.carry.response_items;
        }
        // A rollout with no message (opened and left before the first prompt) is said
        // by the shared rule for files read as nothing (`formats::Unread`).
        asm.finish(&mut sink)?;
        let mut meta = st.meta;
        meta.source = input.path().to_path_buf();
        if meta.id.is_empty() {
            meta.id = input.path().file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
        }
        Ok(vec![meta])
    }
}

/// Handed on in every checkpoint; a Codex rollout can be resumed at any of them.
impl super::Carried for Carry {}

fn record(
    st: &mut State,
    asm: &mut Assembler,
    rec: Record,
    bytes: &[u8],
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    if rec.payload.is_none() {
        return bare_record(st, asm, &rec, bytes, at, sink);
    }
    let kind = rec.kind.as_deref().ok_or("record has no \"type\"")?;
    let timestamp = rec.timestamp.as_deref().and_then(parse_time);
    if let Some(t) = timestamp {
        st.meta.saw_time(t);
    }
    let raw = rec.payload.ok_or("record has no \"payload\"")?;
    let p: Payload = serde_json::from_str(raw.get()).map_err(|e| format!("bad payload: {}", json_reason(&e)))?;
    match kind {
        "session_meta" => {
            if let Some(id) = p.id.as_deref()
                && st.meta.id.is_empty()
            {
                st.meta.id = id.to_string();
            }
            if let Some(cwd) = p.cwd.as_deref() {
                st.meta.saw_cwd(cwd);
            }
            if let Some(v) = p.cli_version.as_deref() {
                st.meta.agent_version = Some(v.to_string());
            }
            if let Some(t) = p.timestamp.as_deref().and_then(parse_time) {
                st.meta.saw_time(t);
            }
            if let Some(git) = p.git
                && let Ok(v) = serde_json::from_str::<Value>(git.get())
                && let Some(b) = v.get("branch").and_then(Value::as_str)
            {
                st.meta.git_branch = Some(b.to_string());
            }
            let _ = p.originator;
            Ok(())
        }
        "turn_context" => {
            if let Some(m) = p.model.as_deref() {
                st.meta.model = Some(m.to_string());
            }
            if let Some(cwd) = p.cwd.as_deref() {
                st.meta.saw_cwd(cwd);
            }
            Ok(())
        }
        "response_item" => response_item(st, asm, &p, timestamp, at, sink),
        "event_msg" => event_msg(st, asm, &p, timestamp, at, sink),
        "compacted" => {
            let text = p.message.as_deref().unwrap_or("").to_string();
            let m =
                Message { role: Role::System, origin: Origin::CompactSummary, timestamp, text, ..Message::default() };
            st.current_assistant = None;
            asm.push(m, None, at, sink).map_err(|e| e.to_string())?;
            Ok(())
        }
        other => {
            sink.unknown(other);
            Ok(())
        }
    }
}

/// Push a message; an assistant message takes the reasoning that preceded it and
/// becomes the one later calls of the same model response attach to.
fn push_message(
    st: &mut State,
    asm: &mut Assembler,
    mut m: Message,
    at: At,
    sink: &mut dyn Sink,
) -> Result<u32, String> {
    let is_assistant = m.role == Role::Assistant;
    st.reasoning_seen.clear();
    let idx = asm.next_idx();
    let mut start = at;
    let key = if is_assistant {
        start = take_thinking(st, &mut m, at);
        Some(format!("assistant-{idx}"))
    } else {
        None
    };
    asm.push(m, key, start, sink).map_err(|e| e.to_string())?;
    st.current_assistant = is_assistant.then_some(idx);
    Ok(idx)
}

fn add_call(
    st: &mut State,
    asm: &mut Assembler,
    call: Call,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    // Calls belong to the assistant message they follow; with none pending, they make
    // an assistant message of their own.
    if let Some(idx) = st.current_assistant
        && let Some(last) = asm.last_mut(&format!("assistant-{idx}"))
    {
        if !st.thinking.is_empty() {
            let t = std::mem::take(&mut st.thinking);
            st.thinking_at = None;
            if !last.thinking.is_empty() {
                last.thinking.push_str("\n\n");
            }
            last.thinking.push_str(&t);
        }
        last.calls.push(call);
        Assembler::extend_end_line(last, at.line);
        asm.register_calls_of_last();
        return Ok(());
    }
    let mut m = Message { role: Role::Assistant, timestamp, calls: vec![call], ..Message::default() };
    let start = take_thinking(st, &mut m, at);
    let idx = asm.next_idx();
    asm.push(m, Some(format!("assistant-{idx}")), start, sink).map_err(|e| e.to_string())?;
    st.current_assistant = Some(idx);
    Ok(())
}

/// Give a new assistant message (made by the record at `at`) the reasoning waiting for
/// it; returns where the message starts: at that reasoning, when there is some.
fn take_thinking(st: &mut State, m: &mut Message, at: At) -> At {
    m.thinking = std::mem::take(&mut st.thinking);
    match st.thinking_at.take() {
        Some(from) if from.line < at.line => {
            m.end_line = Some(at.line);
            from
        }
        _ => at,
    }
}

/// A line of the bare rollout JSONL that Codex wrote from 2025-05 to 2025-09: the first
/// line is the session (`{id, timestamp, instructions, git}`), `{"record_type":"state"}`
/// lines are snapshots of nothing we need, and every other line is a response item
/// without the `{timestamp, type, payload}` envelope (so with no time of its own).
fn bare_record(
    st: &mut State,
    asm: &mut Assembler,
    rec: &Record,
    bytes: &[u8],
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    #[derive(Deserialize)]
    struct Bare<'a> {
        #[serde(borrow)]
        record_type: Option<Cow<'a, str>>,
        #[serde(borrow)]
        id: Option<Cow<'a, str>>,
        #[serde(borrow)]
        git: Option<&'a RawValue>,
        #[serde(borrow)]
        role: Option<Cow<'a, str>>,
    }
    let b: Bare = serde_json::from_slice(bytes).map_err(|e| json_reason(&e))?;
    if b.record_type.is_some() {
        return Ok(());
    }
    // A message without `type` (older writers) is still a message.
    if rec.kind.is_some() || b.role.is_some() {
        let p: Payload = serde_json::from_slice(bytes).map_err(|e| format!("bad item: {}", json_reason(&e)))?;
        return response_item(st, asm, &p, None, at, sink);
    }
    let (Some(id), Some(t)) = (b.id.as_deref(), rec.timestamp.as_deref()) else {
        return Err("record has no \"type\"".into());
    };
    if st.meta.id.is_empty() {
        st.meta.id = id.to_string();
    }
    if let Some(t) = parse_time(t) {
        st.meta.saw_time(t);
    }
    if let Some(git) = b.git
        && let Ok(v) = serde_json::from_str::<Value>(git.get())
        && let Some(branch) = v.get("branch").and_then(Value::as_str)
    {
        st.meta.git_branch = Some(branch.to_string());
    }
    Ok(())
}

/// The working directory named in an `<environment_context>` turn (the bare and
/// single-file rollouts have no other record of it).
fn env_cwd(text: &str) -> Option<&str> {
    let t = text.trim_start().strip_prefix("<environment_context>")?;
    let start = t.find("<cwd>")? + "<cwd>".len();
    let end = t[start..].find("</cwd>")? + start;
    Some(t[start..end].trim())
}

/// The single-file rollout of the TypeScript Codex CLI (April to August 2025):
/// `~/.codex/sessions/rollout-<date>-<id>.json`, one JSON document
/// `{"session": {timestamp, id, instructions}, "items": [response items…]}`, rewritten
/// whole on every save. Items map exactly as the JSONL's `response_item`s; there are no
/// per-item times and no line numbers.
pub struct CodexJson;

impl Format for CodexJson {
    fn id(&self) -> &'static str {
        "codex-json"
    }

    fn agent(&self) -> &'static str {
        "Codex CLI"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.json"]
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start();
        let Some(rest) = t.strip_prefix('{') else { return 0 };
        if !rest.trim_start().starts_with("\"session\"") || !t.contains("\"items\"") {
            return 0;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("rollout-") { 90 } else { 80 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        #[derive(Deserialize)]
        struct Session<'a> {
            #[serde(borrow)]
            id: Option<Cow<'a, str>>,
            #[serde(borrow)]
            timestamp: Option<Cow<'a, str>>,
        }
        #[derive(Deserialize)]
        struct Doc<'a> {
            #[serde(borrow)]
            session: Option<Session<'a>>,
            #[serde(borrow, default)]
            items: Vec<&'a RawValue>,
        }
        let all = input.read_all()?;
        let mut sink = super::NoRestart::whole_document(sink);
        let mut st = State::default();
        let mut asm = Assembler::new(0, 1);
        let items = match serde_json::from_slice::<Doc>(&all) {
            Ok(doc) => {
                if let Some(s) = doc.session {
                    st.meta.id = s.id.as_deref().unwrap_or("").to_string();
                    if let Some(t) = s.timestamp.as_deref().and_then(parse_time) {
                        st.meta.saw_time(t);
                    }
                }
                let n = doc.items.len();
                for (i, raw) in doc.items.into_iter().enumerate() {
                    let outcome = serde_json::from_str::<Payload>(raw.get())
                        .map_err(|e| json_reason(&e))
                        .and_then(|p| response_item(&mut st, &mut asm, &p, None, At::default(), &mut sink));
                    if let Err(reason) = outcome {
                        sink.bad(BadRecord { line: None, reason: format!("item {}: {reason}", i + 1) });
                    }
                }
                n
            }
            Err(e) => {
                anyhow::bail!("{}: not a Codex session document: {}", input.path().display(), json_reason(&e))
            }
        };
        asm.finish(&mut sink)?;
        if asm.next_idx() == 1 {
            anyhow::bail!(
                "{}: no message in this Codex session document ({items} item{})",
                input.path().display(),
                if items == 1 { "" } else { "s" }
            );
        }
        let mut meta = st.meta;
        meta.source = input.path().to_path_buf();
        if meta.id.is_empty() {
            meta.id = input.path().file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
        }
        Ok(vec![meta])
    }
}

fn response_item(
    st: &mut State,
    asm: &mut Assembler,
    p: &Payload,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    // Older writers left `type` off messages: `{"role", "content"}`.
    let kind = p.kind.as_deref().unwrap_or(if p.role.is_some() { "message" } else { "" });
    if kind != "reasoning" {
        st.reasoning_seen.clear();
    }
    match kind {
        "message" => {
            st.carry.response_items = true;
            let text = content_text(p.content);
            if let Some(cwd) = env_cwd(&text) {
                st.meta.saw_cwd(cwd);
            }
            let (role, origin) = match p.role.as_deref() {
                Some("assistant") => (Role::Assistant, Origin::Typed),
                Some("user") if is_injected_user_text(&text) => (Role::System, Origin::Injected),
                Some("user") => (Role::User, Origin::Typed),
                _ => (Role::System, Origin::Injected),
            };
            let m = Message { role, origin, timestamp, text, ..Message::default() };
            push_message(st, asm, m, at, sink)?;
            Ok(())
        }
        "reasoning" => {
            for part in reasoning_parts(p) {
                add_reasoning(st, &part, at);
            }
            Ok(())
        }
        "function_call" => {
            let name = p.name.as_deref().unwrap_or("").to_string();
            let input = arguments_value(p.arguments);
            let command = command_of(&name, &input);
            let id = p.call_id.as_deref().or(p.id.as_deref()).unwrap_or("").to_string();
            let tracked = match name.as_str() {
                "exec_command" => Some(Tracked::Command),
                "write_stdin" => Some(Tracked::Poll { session: input.get("session_id").and_then(id_string) }),
                // Code mode's `wait` names a cell (the collaboration tool's `wait` does not).
                "wait" => input.get("cell_id").and_then(id_string).map(|cell| Tracked::Wait { cell }),
                _ => None,
            };
            // A poll of a running process continues the call that started it.
            let continues = match &tracked {
                Some(Tracked::Poll { session: Some(s) }) => st.sessions.get(s).cloned(),
                Some(Tracked::Wait { cell }) => st.cells.get(cell).map(|c| c.call_id.clone()),
                _ => None,
            };
            if let Some(t) = tracked {
                st.tracked.insert(id.clone(), t);
            }
            add_call(st, asm, Call { id, name, input, command, result: None, continues }, timestamp, at, sink)
        }
        "custom_tool_call" => {
            let name = p.name.as_deref().unwrap_or("").to_string();
            let input = match p.input {
                Some(raw) => serde_json::from_str::<Value>(raw.get()).unwrap_or(Value::Null),
                None => Value::Null,
            };
            let id = p.call_id.as_deref().or(p.id.as_deref()).unwrap_or("").to_string();
            // Code mode: the `exec` tool's input is JavaScript calling the other tools.
            let mut command = None;
            if name == "exec"
                && let Some(src) = input.as_str()
            {
                let nested = code_mode::nested_calls(src);
                command = cell_command(&nested);
                st.tracked.insert(id.clone(), Tracked::Cell { nested });
            }
            add_call(st, asm, Call { id, name, input, command, result: None, continues: None }, timestamp, at, sink)
        }
        "local_shell_call" => {
            let action: Value = p.action.and_then(|a| serde_json::from_str(a.get()).ok()).unwrap_or(Value::Null);
            let command = action.get("command").and_then(Value::as_array).and_then(|a| argv_to_command(a));
            let id = p.call_id.as_deref().or(p.id.as_deref()).unwrap_or("").to_string();
            add_call(
                st,
                asm,
                Call { id, name: "local_shell".into(), input: action, command, result: None, continues: None },
                timestamp,
                at,
                sink,
            )
        }
        "web_search_call" => {
            let action: Value = p.action.and_then(|a| serde_json::from_str(a.get()).ok()).unwrap_or(Value::Null);
            let id = p.id.as_deref().unwrap_or("").to_string();
            let result = CallResult { timestamp, line: Some(at.line), ..CallResult::default() };
            add_call(
                st,
                asm,
                Call {
                    id,
                    name: "web_search".into(),
                    input: action,
                    command: None,
                    result: Some(result),
                    continues: None,
                },
                timestamp,
                at,
                sink,
            )
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            let call_id = p.call_id.as_deref().unwrap_or("").to_string();
            let value: Value = p.output.and_then(|o| serde_json::from_str(o.get()).ok()).unwrap_or(Value::Null);
            let (mut result, partial) = tool_result(st, asm, &call_id, &value, Rec { line: at.line, time: timestamp });
            result.timestamp = timestamp;
            // Codex 0.4x–0.6x write a call and its output together (within a millisecond),
            // when it has finished: the call started its own wall time before that. Only
            // ever earlier: a call written before its output started no later than that.
            if let (Some(t), Some(secs)) = (timestamp, wall_time(&value))
                && let Some(m) = asm.message_of_call_mut(&call_id)
                && let Some(written) = m.timestamp.filter(|s| (t - *s).num_milliseconds().abs() < 1000)
            {
                let started = t - chrono::Duration::milliseconds((secs * 1000.0) as i64);
                m.timestamp = Some(started.min(written));
            }
            result.line = Some(at.line);
            let orphan = if partial { asm.attach_partial(&call_id, result) } else { asm.attach(&call_id, result) };
            if let Some(orphan) = orphan {
                let m = orphan_result_message(&call_id, orphan);
                asm.push(m, None, at, sink).map_err(|e| e.to_string())?;
            }
            // The model answers an output in a new response: later calls start a new message.
            st.current_assistant = None;
            Ok(())
        }
        "ghost_snapshot" => Ok(()),
        // Server-side compaction: the summary is encrypted, only the fact is known.
        "compaction" | "compaction_summary" => {
            let m = Message {
                role: Role::System,
                origin: Origin::CompactSummary,
                timestamp,
                text: "[context compacted on the server]".into(),
                ..Message::default()
            };
            st.current_assistant = None;
            asm.push(m, None, at, sink).map_err(|e| e.to_string())?;
            Ok(())
        }
        other => {
            sink.unknown(&format!("response_item/{other}"));
            Ok(())
        }
    }
}

/// The texts of a reasoning item: its summary parts, else its raw content parts.
fn reasoning_parts(p: &Payload) -> Vec<String> {
    #[derive(Deserialize)]
    struct Part {
        text: Option<String>,
    }
    for raw in [p.summary, p.content].into_iter().flatten() {
        let parts: Vec<Part> = serde_json::from_str(raw.get()).unwrap_or_default();
        let texts: Vec<String> = parts.into_iter().filter_map(|p| p.text).filter(|t| !t.is_empty()).collect();
        if !texts.is_empty() {
            return texts;
        }
    }
    Vec::new()
}

/// Add a reasoning text to the thinking of the next assistant message, unless the
/// item or event next to it already gave the same text.
fn add_reasoning(st: &mut State, text: &str, at: At) {
    let t = text.trim();
    if t.is_empty() || st.reasoning_seen.iter().any(|s| s == t) {
        return;
    }
    st.reasoning_seen.push(t.to_string());
    st.thinking_at.get_or_insert(at);
    if !st.thinking.is_empty() {
        st.thinking.push_str("\n\n");
    }
    st.thinking.push_str(text);
}

/// `function_call` arguments: a JSON string holding the object (as the API sends them),
/// or the object itself.
fn arguments_value(raw: Option<&RawValue>) -> Value {
    match raw.map(|r| serde_json::from_str::<Value>(r.get())) {
        Some(Ok(Value::String(s))) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        Some(Ok(v)) => v,
        Some(Err(_)) | None => Value::Null,
    }
}

/// Read a tool output for its call, following the calls that need more than the generic
/// reading (see [`Tracked`]). Returns the result and whether the call is still going
/// (a process or cell left running), to be completed by later polls.
/// The record an output came from: completing a result moves its time there.
#[derive(Clone, Copy)]
struct Rec {
    line: u32,
    time: Option<chrono::DateTime<chrono::Utc>>,
}

fn tool_result(st: &mut State, asm: &mut Assembler, call_id: &str, value: &Value, rec: Rec) -> (CallResult, bool) {
    match st.tracked.remove(call_id) {
        Some(Tracked::Cell { nested }) => {
            let Some(cell) = code_mode::cell_output(value) else { return (parse_output(value).0, false) };
            let read = read_cell(&nested, &cell.items, cell.status);
            for (_, session, r) in &read.polls {
                poll_session(st, asm, session, &r.output, r.exit_code, r.exit_code.is_none(), rec);
            }
            let mut partial = false;
            for (_, session) in &read.running {
                st.sessions.insert(session.clone(), call_id.to_string());
                partial = true;
            }
            if let (Some(CellStatus::Running), Some(id)) = (cell.status, cell.cell_id) {
                let read_items = cell.items.len();
                st.cells.insert(id, Cell { call_id: call_id.to_string(), nested, items: cell.items, read: read_items });
                partial = true;
            }
            (read.result, partial)
        }
        Some(Tracked::Wait { cell }) => match code_mode::cell_output(value) {
            Some(out) if st.cells.contains_key(&cell) => {
                let waited = wait_on(st, asm, &cell, out, rec);
                (waited, false)
            }
            _ => (parse_output(value).0, false),
        },
        Some(Tracked::Command) => {
            let (mut result, running) = parse_output(value);
            match running {
                Some(session) => {
                    st.sessions.insert(session, call_id.to_string());
                    result.running = true;
                    (result, true)
                }
                None => (result, false),
            }
        }
        Some(Tracked::Poll { session: Some(session) }) => {
            let (mut result, running) = parse_output(value);
            // The process was still going when this poll returned.
            result.running = running.is_some();
            let reported = result.exit_code.is_some() || running.is_some();
            if reported && poll_session(st, asm, &session, &result.output, result.exit_code, running.is_some(), rec) {
                // How the command ended is told by the command's own result.
                result.exit_code = None;
                result.is_error = false;
            }
            (result, false)
        }
        Some(Tracked::Poll { session: None }) | None => (parse_output(value).0, false),
    }
}

/// Give a running process's later output (and exit code, once it ended) to the call
/// that started it. False when that call is no longer waiting.
fn poll_session(
    st: &mut State,
    asm: &mut Assembler,
    session: &str,
    output: &str,
    exit_code: Option<i32>,
    still_running: bool,
    rec: Rec,
) -> bool {
    let Some(origin) = st.sessions.get(session).cloned() else { return false };
    if !still_running {
        st.sessions.remove(session);
    }
    let done = !st.sessions.values().any(|c| *c == origin) && !st.cells.values().any(|c| c.call_id == origin);
    let amended = asm.amend(&origin, Some(rec.line), done, |r| {
        if done {
            r.timestamp = rec.time.or(r.timestamp);
            r.running = false;
        }
        if !output.is_empty() && !r.output.is_empty() && !r.output.ends_with('\n') {
            r.output.push('\n');
        }
        r.output.push_str(output);
        if let Some(code) = exit_code {
            if r.exit_code.is_none_or(|c| c == 0) {
                r.exit_code = Some(code);
            }
            r.is_error |= code != 0;
        }
    });
    if !amended {
        st.sessions.retain(|_, c| *c != origin);
        st.cells.retain(|_, c| c.call_id != origin);
    }
    amended
}

/// A `wait` on a running cell: the new items join the cell's, and its `exec` call's
/// result is read again from all of them. The wait's own result keeps its output only.
fn wait_on(st: &mut State, asm: &mut Assembler, cell_id: &str, out: code_mode::CellOutput, rec: Rec) -> CallResult {
    let own_items = out.items.clone();
    let own = read_cell(&[], &own_items, None).result.output;
    let Some(cell) = st.cells.get_mut(cell_id) else { return CallResult { output: own, ..CallResult::default() } };
    cell.items.extend(out.items);
    let read = read_cell(&cell.nested, &cell.items, out.status);
    let from = cell.read;
    cell.read = cell.items.len();
    let origin = cell.call_id.clone();
    let running = out.status == Some(CellStatus::Running);
    if !running {
        st.cells.remove(cell_id);
    }
    for (_, session, r) in read.polls.iter().filter(|(i, _, _)| *i >= from) {
        poll_session(st, asm, session, &r.output, r.exit_code, r.exit_code.is_none(), rec);
    }
    for (_, session) in read.running.iter().filter(|(i, _)| *i >= from) {
        st.sessions.insert(session.clone(), origin.clone());
    }
    let done = !running && !st.sessions.values().any(|c| *c == origin);
    let amended = asm.amend(&origin, Some(rec.line), done, |r| {
        if done {
            r.timestamp = rec.time.or(r.timestamp);
        }
        r.output = read.result.output.clone();
        r.exit_code = read.result.exit_code;
        r.is_error = read.result.is_error;
        r.interrupted |= read.result.interrupted;
    });
    if amended {
        CallResult { output: own, ..CallResult::default() }
    } else {
        st.sessions.retain(|_, c| *c != origin);
        st.cells.retain(|_, c| c.call_id != origin);
        // Nothing to complete any more: the wait tells what it saw itself.
        read_cell(&[], &own_items, out.status).result
    }
}

fn event_msg(
    st: &mut State,
    asm: &mut Assembler,
    p: &Payload,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let kind = p.kind.as_deref().unwrap_or("");
    match kind {
        "user_message" | "agent_message" if !st.carry.response_items => {
            let text = p.message.as_deref().unwrap_or("").to_string();
            let role = if kind == "user_message" { Role::User } else { Role::Assistant };
            let origin =
                if role == Role::User && is_injected_user_text(&text) { Origin::Injected } else { Origin::Typed };
            let role = if origin == Origin::Injected { Role::System } else { role };
            let m = Message { role, origin, timestamp, text, ..Message::default() };
            push_message(st, asm, m, at, sink)?;
            Ok(())
        }
        // Usually the mirror of the `reasoning` item beside it (kept once), but some
        // writers record reasoning only as this event.
        "agent_reasoning" => {
            if let Some(t) = p.text.as_deref() {
                add_reasoning(st, t, at);
            }
            Ok(())
        }
        "thread_name_updated" => {
            if let Some(name) = p.thread_name.as_deref() {
                st.meta.title = Some(name.to_string());
            }
            Ok(())
        }
        "turn_aborted" => {
            asm.interrupt_open(timestamp, at.line);
            let reason = p.reason.as_deref().unwrap_or("interrupted").to_string();
            let m = Message {
                role: Role::User,
                origin: Origin::Interrupt,
                timestamp,
                text: format!("[turn aborted: {reason}]"),
                ..Message::default()
            };
            push_message(st, asm, m, at, sink)?;
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn argv_forms() {
        let v: Vec<Value> = serde_json::from_str(r#"["bash","-lc","ls -la | head"]"#).unwrap();
        assert_eq!(argv_to_command(&v).as_deref(), Some("ls -la | head"));
        let v: Vec<Value> = serde_json::from_str(r#"["rg","-n","foo bar","src"]"#).unwrap();
        assert_eq!(argv_to_command(&v).as_deref(), Some("rg -n 'foo bar' src"));
    }

    #[test]
    fn output_shapes() {
        let v = json!("{\"output\":\"hi\\n\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.1}}");
        let (r, running) = parse_output(&v);
        assert_eq!((r.output.as_str(), r.exit_code, r.is_error, running), ("hi\n", Some(2), true, None));
        let (r, _) = parse_output(&json!("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nok"));
        assert_eq!((r.output.as_str(), r.exit_code, r.is_error), ("ok", Some(0), false));
        // Unified exec, 0.1xx: the header goes, the command's output stays.
        let (r, running) = parse_output(&json!(
            "Command: /bin/bash -lc 'cargo test'\nChunk ID: 4e1f\nWall time: 0.0000 seconds\nProcess exited with code 101\nOriginal token count: 3\nOutput:\nerror[E0425]\n"
        ));
        assert_eq!((r.output.as_str(), r.exit_code, r.is_error, running), ("error[E0425]\n", Some(101), true, None));
        let (r, running) = parse_output(&json!(
            "Chunk ID: 9a0c\nWall time: 1.0011 seconds\nProcess running with session ID 84037\nOriginal token count: 5\nOutput:\nCompiling\n"
        ));
        assert_eq!((r.output.as_str(), r.exit_code, running.as_deref()), ("Compiling\n", None, Some("84037")));
        // Output that only looks like a header keeps everything.
        let (r, _) = parse_output(&json!("Output:\nplain"));
        assert_eq!(r.output, "Output:\nplain");
    }
}
