//! Claude Code session JSONL (`~/.claude/projects/<escaped-cwd>/<session-uuid>.jsonl`).
//!
//! One JSON record per line. How records become messages:
//! - `assistant` lines: one API message is streamed over several lines that share
//!   `message.id` (one content block each); consecutive lines with the same id merge
//!   into one message. `text` blocks join with a blank line, `thinking` goes to
//!   `thinking`, `tool_use` becomes a [`Call`]. A `<synthetic>` model line (an API
//!   error the harness wrote) is a system message.
//! - `user` lines: `tool_result` blocks are joined to their call by `tool_use_id` and
//!   make no message; the "Exit code N" text Bash puts first gives `exit_code`, and the
//!   string form of `toolUseResult` stands in for an empty result. Text becomes a user
//!   message, classified as typed, injected (`isMeta`, `<system-reminder>`-only text,
//!   `<command-name>`, `<local-command-stdout>`, hook feedback, the local-command
//!   caveat) or an interrupt marker. `isCompactSummary` turns are compaction summaries.
//! - `system` lines become system messages (compaction boundaries, hook output, API
//!   errors), except pure telemetry subtypes.
//! - `summary` and `custom-title` lines give the session title; `file-history-snapshot`,
//!   `queue-operation`, `progress` and similar bookkeeping lines make no message.
//!   Any other type is counted as unknown (format drift), never fatal.
//! - Compaction: a `system` `compact_boundary` line and the `isCompactSummary` turn after
//!   it merge into one compaction-summary message.
//! - Subagents: `agent-<id>.jsonl` (beside the parent, or in `<session>/subagents/`) get
//!   `parent_session` (their `sessionId`) and `parent_call` (the parent's Task/Agent call,
//!   found through `toolUseResult.agentId`, else the matching prompt).
//! - The headless `claude -p --output-format stream-json` envelope is the same records
//!   plus `system/init` (session facts), `stream_event` (skipped) and `result` (a message
//!   only when it failed).
//!
//! **Rewinds.** Records form a tree through `uuid`/`parentUuid`; when the user rewinds or
//! edits an earlier prompt, the new prompt hangs off an earlier record and what was
//! written since is an abandoned branch. The conversation is the branch that leads to the
//! last record. Streaming cannot know a branch is abandoned until the rewinding prompt
//! arrives, so `prescan` first reads only uuids and parents (cheap, a few dozen bytes
//! per record) and finds every prompt whose parent lies before the previous prompt; the
//! main pass then skips the lines between that parent and the prompt. Parallel tool
//! results (parented to the call's own line) and compaction boundaries (null parent,
//! `logicalParentUuid`) are not rewinds. Checkpoints carry the last prompt's line and
//! the uuids written since, so appended bytes are checked the same way; a rewind reaching back
//! before a checkpoint an earlier run indexed is reported (a rebuild drops that branch).
//!
//! [`ClaudeCodeWeb`] reads the `{"loglines": [...]}` export: the same records in one
//! JSON document (no line numbers).

use std::borrow::Cow;
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{
    Assembler, At, CarrySink, Format, Input, JsonLine, Sink, json_reason, orphan_result_message, parse_time, push_para,
};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct ClaudeCode;

/// Line types that carry no conversation and are known, so not format drift.
const BOOKKEEPING: &[&str] = &[
    "file-history-snapshot",
    "queue-operation",
    "progress",
    "last-prompt",
    "agent-name",
    "pr-link",
    "tag",
    // stream-json with --include-partial-messages: token deltas of messages that follow whole.
    "stream_event",
];

/// Merge key of a compaction boundary, which the summary turn after it joins.
const COMPACT_KEY: &str = "compact-boundary";

/// `system` subtypes that are telemetry, not something anyone said.
const SYSTEM_TELEMETRY: &[&str] = &["turn_duration", "stop_hook_summary"];

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    subtype: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow)]
    version: Option<Cow<'a, str>>,
    #[serde(rename = "gitBranch", borrow)]
    git_branch: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Option<bool>,
    #[serde(rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: Option<bool>,
    #[serde(rename = "agentId", borrow)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(rename = "toolUseResult", borrow)]
    tool_use_result: Option<&'a RawValue>,
    #[serde(borrow)]
    summary: Option<Cow<'a, str>>,
    #[serde(rename = "customTitle", borrow)]
    custom_title: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    uuid: Option<Cow<'a, str>>,
    /// `claude -p --output-format stream-json` spells the session id in snake case.
    #[serde(rename = "session_id", borrow)]
    session_id_snake: Option<Cow<'a, str>>,
    /// stream-json: set on the events of a subagent that a Task call runs inline.
    #[serde(borrow)]
    parent_tool_use_id: Option<Cow<'a, str>>,
    /// Newer versions name the spawning call on a subagent's records in camel case.
    #[serde(rename = "parentToolUseId", borrow)]
    parent_tool_use_id_camel: Option<Cow<'a, str>>,
    #[serde(rename = "parentUuid", borrow)]
    parent_uuid: Option<Cow<'a, str>>,
    /// `attachment` records: what the harness handed the model between turns.
    #[serde(borrow)]
    attachment: Option<&'a RawValue>,
    /// stream-json `system/init`: the model and the CLI version.
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    claude_code_version: Option<Cow<'a, str>>,
    /// stream-json `result`.
    is_error: Option<bool>,
    #[serde(borrow)]
    result: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ApiMessage<'a> {
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    is_error: Option<bool>,
}

/// Text of a `content` value that is either a string or a list of blocks.
fn content_text(raw: &RawValue) -> Result<String, serde_json::Error> {
    let s = raw.get().trim_start();
    if s.starts_with('"') {
        return serde_json::from_str::<String>(s);
    }
    if s.starts_with('[') {
        let blocks: Vec<Block> = serde_json::from_str(s)?;
        let mut out = String::new();
        for b in blocks {
            match b.kind.as_deref() {
                Some("text") => push_para(&mut out, b.text.as_deref().unwrap_or("")),
                Some("image") => push_para(&mut out, "[image]"),
                Some("tool_reference") => push_para(&mut out, b.name.as_deref().unwrap_or("")),
                _ => {}
            }
        }
        return Ok(out);
    }
    Ok(String::new())
}

/// How a piece of user-role text came to be.
pub fn classify_user_text(text: &str) -> Origin {
    let t = text.trim_start();
    if t.starts_with("[Request interrupted by user") {
        return Origin::Interrupt;
    }
    const INJECTED_PREFIXES: &[&str] = &[
        "<command-name>",
        "<command-message>",
        "<command-args>",
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<bash-stdout>",
        "<bash-stderr>",
        "<user-prompt-submit-hook>",
        "<bash-input>",
        "<task-notification>",
        "<bash-notification>",
        "<local-command-caveat>",
        "Caveat: The messages below were generated by the user while running local commands",
        "Stop hook feedback:",
    ];
    if t.starts_with("This session is being continued from a previous conversation") {
        return Origin::CompactSummary;
    }
    if INJECTED_PREFIXES.iter().any(|p| t.starts_with(p)) {
        return Origin::Injected;
    }
    if is_only_system_reminders(t) {
        return Origin::Injected;
    }
    Origin::Typed
}

/// True when the text is nothing but `<system-reminder>…</system-reminder>` blocks.
fn is_only_system_reminders(t: &str) -> bool {
    let mut rest = t.trim();
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let Some(after) = rest.strip_prefix("<system-reminder>") else {
            return false;
        };
        let Some(end) = after.find("</system-reminder>") else {
            return false;
        };
        rest = after[end + "</system-reminder>".len()..].trim_start();
    }
    true
}

/// The shell command line of a tool call, when it ran one.
pub fn shell_command(name: &str, input: &serde_json::Value) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let shellish = ["bash", "shell", "exec", "terminal", "run_command", "command"].iter().any(|k| lower.contains(k));
    if !shellish {
        return None;
    }
    match input.get("command") {
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(serde_json::Value::Array(parts)) => super::codex::argv_to_command(parts),
        _ => None,
    }
}

/// Parse the "Exit code N" header that Claude Code puts first in a failed Bash result.
fn exit_code_prefix(output: &str) -> Option<i32> {
    let rest = output.strip_prefix("Exit code ")?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    digits.parse().ok()
}

/// Carried across a resume (stamped on every checkpoint): what the rewind detection
/// needs to know about the lines before the checkpoint.
#[derive(Debug, Default, Clone, serde::Serialize, Deserialize)]
struct Carry {
    /// uuid of the last main-chain record before the checkpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tip: Option<String>,
    /// Line of the last prompt (a user record that is not a tool result).
    #[serde(default)]
    last_prompt: u32,
    /// uuids of the records since the last prompt (the latest [`RECENT`]): a prompt whose
    /// parent is one of them continues the conversation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    recent: Vec<String>,
    /// Whether the file is a subagent's own transcript (its first conversation record is
    /// a sidechain one), decided at the first user or assistant record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subagent_file: Option<bool>,
    /// A session besides the main one has begun: no later checkpoint (see `restartable`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    sealed: bool,
}

/// How many uuids since the last prompt a checkpoint remembers.
const RECENT: usize = 32;

#[derive(Default)]
struct State {
    meta: SessionMeta,
    sidechain_lines: u32,
    main_lines: u32,
    carry: Carry,
    /// Line ranges (inclusive) of abandoned branches, from the pre-scan, and whether a
    /// tool was called on each (a branch where nothing ran was a retry of the prompt).
    abandoned: Vec<Branch>,
    /// Text of the first prompt, to find the Task call that spawned a subagent file.
    first_prompt: Option<String>,
    /// `agentId` of subagent records.
    agent_id: Option<String>,
    /// Sessions besides the main one that this file holds, numbered from 1: subagents
    /// whose records older versions wrote into the main file, and abandoned branches.
    convs: Vec<Conv>,
    /// Sidechain record uuid → session (records chain to their subagent's earlier ones).
    side_by_uuid: std::collections::HashMap<String, usize>,
    /// Spawning call id → session, for records that name it.
    side_by_call: std::collections::HashMap<String, usize>,
    /// Abandoned branch → its fork session.
    fork_of_branch: std::collections::HashMap<usize, usize>,
    /// Task/Agent calls met so far, to link the subagent sessions they spawned.
    tasks: Vec<TaskCall>,
    /// Background task id → the Bash call that started it.
    background: std::collections::HashMap<String, String>,
}

/// An abandoned branch: its lines (inclusive) and whether a tool ran on it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Branch {
    from: u32,
    to: u32,
    ran: bool,
}

/// A session of the file other than the main one.
struct Conv {
    asm: Assembler,
    meta: SessionMeta,
    first_prompt: Option<String>,
    kind: ConvKind,
    /// The session this one came from (0, the main one, unless a subagent ran a subagent
    /// or a fork spawned it).
    parent: usize,
    /// Its finished messages, handed on after the main session's: sessions reach the
    /// sink one after the other.
    held: Vec<Message>,
}

/// Keeps a side session's messages until the main session is done.
struct Held<'s> {
    inner: &'s mut dyn Sink,
    held: &'s mut Vec<Message>,
}

impl Sink for Held<'_> {
    fn message(&mut self, _session: usize, msg: Message) -> Result<()> {
        self.held.push(msg);
        Ok(())
    }
    fn bad(&mut self, bad: BadRecord) {
        self.inner.bad(bad)
    }
    fn unknown(&mut self, kind: &str) {
        self.inner.unknown(kind)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum ConvKind {
    Subagent,
    Fork,
}

struct TaskCall {
    session: usize,
    id: String,
    prompt: String,
    linked: bool,
}

/// The session a record belongs to, with what the record handlers update.
struct Here<'a> {
    session: usize,
    asm: &'a mut Assembler,
    meta: &'a mut SessionMeta,
    first_prompt: &'a mut Option<String>,
    tasks: &'a mut Vec<TaskCall>,
    background: &'a mut std::collections::HashMap<String, String>,
}

impl State {
    fn branch_at(&self, line: u32) -> Option<usize> {
        self.abandoned.iter().position(|b| b.from <= line && line <= b.to)
    }

    /// The session's parts, and where its messages wait when it is not the main one.
    fn here<'a>(&'a mut self, main: &'a mut Assembler, session: usize) -> (Here<'a>, Option<&'a mut Vec<Message>>) {
        let (asm, meta, first_prompt, held) = match session {
            0 => (main, &mut self.meta, &mut self.first_prompt, None),
            n => {
                let c = &mut self.convs[n - 1];
                (&mut c.asm, &mut c.meta, &mut c.first_prompt, Some(&mut c.held))
            }
        };
        (Here { session, asm, meta, first_prompt, tasks: &mut self.tasks, background: &mut self.background }, held)
    }

    /// Open a new session of the file; returns its number.
    fn open(&mut self, kind: ConvKind, id: String) -> usize {
        let session = self.convs.len() + 1;
        let meta = SessionMeta {
            id,
            cwd: self.meta.cwd.clone(),
            project: self.meta.project.clone(),
            user: self.meta.user.clone(),
            agent_version: self.meta.agent_version.clone(),
            git_branch: self.meta.git_branch.clone(),
            model: self.meta.model.clone(),
            ..SessionMeta::default()
        };
        self.convs.push(Conv {
            asm: Assembler::new(session, 1),
            meta,
            first_prompt: None,
            kind,
            parent: 0,
            held: Vec::new(),
        });
        self.carry.sealed = true;
        session
    }

    /// Which session a conversation record belongs to; `None` when it belongs to none
    /// (a branch abandoned before anything ran on it).
    fn route(&mut self, rec: &Record, kind: &str, line: u32, main_next: u32) -> Option<usize> {
        if !matches!(kind, "user" | "assistant" | "system" | "attachment") {
            return Some(0);
        }
        let spawner = rec.parent_tool_use_id.as_deref().or(rec.parent_tool_use_id_camel.as_deref());
        let sidechain = rec.is_sidechain.unwrap_or(false) || spawner.is_some();
        if self.carry.subagent_file.is_none() && matches!(kind, "user" | "assistant") {
            self.carry.subagent_file = Some(sidechain);
        }
        if sidechain && self.carry.subagent_file == Some(false) {
            return Some(self.subagent_session(rec, spawner));
        }
        let Some(b) = self.branch_at(line) else { return Some(0) };
        if !self.abandoned[b].ran {
            return None;
        }
        if let Some(&s) = self.fork_of_branch.get(&b) {
            return Some(s);
        }
        let id = format!("fork-{}", rec.uuid.as_deref().unwrap_or(&self.abandoned[b].from.to_string()));
        let s = self.open(ConvKind::Fork, id);
        self.convs[s - 1].meta.forked_after = Some(main_next.saturating_sub(1));
        self.fork_of_branch.insert(b, s);
        Some(s)
    }

    /// The subagent session of a sidechain record in a main file: the one its spawning
    /// call or its parent record belongs to, else a new one.
    fn subagent_session(&mut self, rec: &Record, spawner: Option<&str>) -> usize {
        let known = spawner
            .and_then(|c| self.side_by_call.get(c))
            .or_else(|| rec.parent_uuid.as_deref().and_then(|p| self.side_by_uuid.get(p)))
            .copied();
        let s = match known {
            Some(s) => s,
            None => {
                let name = rec.agent_id.as_deref().or(spawner).or(rec.uuid.as_deref()).unwrap_or("");
                let name = if name.is_empty() { (self.convs.len() + 1).to_string() } else { name.to_string() };
                let s = self.open(ConvKind::Subagent, format!("agent-{name}"));
                let prompt = rec.message.and_then(|m| {
                    serde_json::from_str::<ApiMessage>(m.get()).ok()?.content.and_then(|c| content_text(c).ok())
                });
                let call = match spawner {
                    Some(c) => self.tasks.iter_mut().find(|t| t.id == c),
                    None => {
                        let prompt = prompt.as_deref().map(str::trim).unwrap_or("");
                        let by_prompt = self.tasks.iter().position(|t| !t.linked && t.prompt.trim() == prompt);
                        let first_open = self.tasks.iter().position(|t| !t.linked);
                        by_prompt.or(first_open).map(|i| &mut self.tasks[i])
                    }
                };
                let conv = &mut self.convs[s - 1];
                match call {
                    Some(t) => {
                        t.linked = true;
                        conv.meta.parent_call = Some(t.id.clone());
                        conv.parent = t.session;
                    }
                    None => conv.meta.parent_call = spawner.map(str::to_string),
                }
                if let Some(c) = spawner {
                    self.side_by_call.insert(c.to_string(), s);
                }
                s
            }
        };
        if let Some(u) = rec.uuid.as_deref() {
            self.side_by_uuid.insert(u.to_string(), s);
        }
        s
    }
}

impl Format for ClaudeCode {
    fn id(&self) -> &'static str {
        "claude-code"
    }

    fn agent(&self) -> &'static str {
        "Claude Code"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.jsonl"]
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        places.moved_home(self.id(), "CLAUDE_CONFIG_DIR", &[".claude"], &["projects"])
    }

    /// A subagent's `agent-<id>.meta.json`, read with its `agent-<id>.jsonl`.
    fn read_through_another(&self, path: &Path) -> bool {
        super::subagent_sidecar(path)
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        if !first.starts_with('{') || first.starts_with("{\"loglines\"") {
            return 0;
        }
        let mut score = 0u8;
        for l in text.lines().take(50) {
            let claude_type = [
                "\"type\":\"user\"",
                "\"type\": \"user\"",
                "\"type\":\"assistant\"",
                "\"type\": \"assistant\"",
                "\"type\":\"summary\"",
                "\"type\": \"summary\"",
                "\"type\":\"queue-operation\"",
                "\"type\":\"file-history-snapshot\"",
            ]
            .iter()
            .any(|k| l.contains(k));
            let claude_field =
                ["\"sessionId\"", "\"parentUuid\"", "\"leafUuid\"", "\"isSidechain\""].iter().any(|k| l.contains(k));
            if claude_type && claude_field {
                score = 90;
                break;
            }
            // `claude -p --output-format stream-json` opens with its init event.
            if l.contains("\"type\":\"system\"")
                && l.contains("\"subtype\":\"init\"")
                && l.contains("\"session_id\"")
                && (l.contains("\"claude_code_version\"") || l.contains("\"permissionMode\""))
            {
                score = 90;
                break;
            }
            if claude_type && l.contains("\"message\"") && l.contains("\"parent_tool_use_id\"") {
                score = score.max(85);
            }
            if claude_type && l.contains("\"message\"") {
                score = score.max(60);
            }
        }
        if score > 0 && path.extension().is_some_and(|e| e == "jsonl") {
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
        // Reading one message back (search snippets) needs no branch analysis: the
        // message was on the conversation when it was indexed.
        if input.stop_line().is_none() {
            let (from, line) = input.resume().map_or((0, 1), |r| (r.checkpoint.offset, r.checkpoint.line));
            let scan = prescan(input.path(), from, line, &st.carry)?;
            st.abandoned = scan.abandoned;
            for b in scan.bad {
                sink.bad(b);
            }
        }
        let mut asm = Assembler::from_resume(input.resume());
        let mut sink = CarrySink { inner: sink, carry: st.carry.clone() };
        while let Some(line) = input.next_line()? {
            let Some(JsonLine { at, bytes, value: rec }) = line.json::<Record>(&mut sink) else { continue };
            let links = Links::of(&rec, bytes);
            if let Err(reason) = record(&mut st, &mut asm, rec, at, &mut sink) {
                sink.bad(BadRecord { line: Some(at.line), reason });
            }
            // After the record: a checkpoint emitted for the next record sees this one.
            links.advance(&mut st.carry, at.line);
            if sink.keeps_checkpoints() {
                sink.carry.clone_from(&st.carry);
            }
        }
        finish_file(st, asm, &mut sink, input.path())
    }
}

/// Hand on what is still pending, the main session first, then the others in order,
/// and return their metadata.
fn finish_file(st: State, mut asm: Assembler, sink: &mut dyn Sink, path: &Path) -> Result<Vec<SessionMeta>> {
    asm.finish(sink)?;
    let mut meta = st.meta;
    let sub = Subagent {
        sidechain: st.sidechain_lines,
        main: st.main_lines,
        agent_id: st.agent_id,
        first_prompt: st.first_prompt,
    };
    finish_meta(&mut meta, path, &sub);
    let mut metas = vec![meta];
    for (i, mut c) in st.convs.into_iter().enumerate() {
        c.asm.finish(&mut Held { inner: sink, held: &mut c.held })?;
        for m in c.held {
            sink.message(i + 1, m)?;
        }
        let mut m = c.meta;
        m.format.clone_from(&metas[0].format);
        m.agent.clone_from(&metas[0].agent);
        m.source.clone_from(&metas[0].source);
        m.parent_session = Some(metas[c.parent].id.clone());
        if c.kind == ConvKind::Fork && m.title.is_none() {
            m.title = metas[0].title.as_ref().map(|t| format!("{t} (abandoned branch)"));
        }
        metas.push(m);
    }
    Ok(metas)
}

/// The rewind-detection state, handed on in checkpoints: only in the main session's,
/// and only before the file's first other session begins: a resumed read
/// cannot rebuild subagents or branches already under way, so from then on the file is
/// read again from there (a rare case: older versions, rewinds).
impl super::Carried for Carry {
    fn restartable(&self, cp: &super::Checkpoint) -> bool {
        cp.session == 0 && !self.sealed
    }
}

/// What the branch analysis needs from one record.
#[derive(Deserialize, Default)]
struct LinkRecord<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uuid: Option<Cow<'a, str>>,
    #[serde(rename = "parentUuid", borrow)]
    parent_uuid: Option<Cow<'a, str>>,
    #[serde(rename = "logicalParentUuid", borrow)]
    logical_parent_uuid: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Option<bool>,
}

/// The chain facts of one record, owned.
struct Links {
    uuid: Option<String>,
    parent: Option<String>,
    prompt: bool,
}

impl Links {
    fn of(rec: &Record, bytes: &[u8]) -> Links {
        Links::from_parts(rec.kind.as_deref(), rec.uuid.as_deref(), rec.is_sidechain.unwrap_or(false), bytes)
    }

    fn from_parts(kind: Option<&str>, uuid: Option<&str>, sidechain: bool, bytes: &[u8]) -> Links {
        // Every main-chain record with a uuid may be a parent (progress and attachment
        // records are links of the chain too); only user records can be prompts.
        if sidechain || kind.is_none() {
            return Links { uuid: None, parent: None, prompt: false };
        }
        Links { uuid: uuid.map(str::to_string), parent: None, prompt: kind == Some("user") && !is_tool_result(bytes) }
    }

    fn advance(self, carry: &mut Carry, line: u32) {
        if self.prompt {
            carry.last_prompt = line;
            carry.recent.clear();
        }
        if let Some(u) = self.uuid {
            if carry.recent.len() >= RECENT {
                carry.recent.remove(0);
            }
            carry.recent.push(u.clone());
            carry.tip = Some(u);
        }
    }
}

/// A user record carrying tool results (a literal `"type":"tool_result"` can only be
/// JSON structure: inside a string the quotes would be escaped).
fn is_tool_result(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, b"\"type\":\"tool_result\"").is_some()
        || memchr::memmem::find(bytes, b"\"type\": \"tool_result\"").is_some()
}

struct Prescan {
    abandoned: Vec<Branch>,
    bad: Vec<BadRecord>,
}

/// First pass: find rewinds. A prompt whose `parentUuid` names a record that lies before
/// the previous prompt was written after the user rewound (or edited) the conversation
/// to that point; the records between that parent and the new prompt are the abandoned
/// branch. Only uuids and parents are kept (a few dozen bytes per record).
fn prescan(path: &Path, offset: u64, first_line: u32, carry: &Carry) -> Result<Prescan> {
    let mut out = Prescan { abandoned: Vec::new(), bad: Vec::new() };
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    // Lines of main-chain records that call a tool: a branch holding one is kept.
    let mut tool_lines: Vec<u32> = Vec::new();
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut tip = carry.tip.clone();
    let mut last_prompt = carry.last_prompt;
    let mut lines = Input::lines_from(path, offset, first_line)?;
    // Over-long lines, lines that do not parse and an unfinished last line are the main
    // pass's to report.
    while let Some(line) = lines.next_line()? {
        let (number, buf) = (line.number, line.bytes);
        let Ok(rec) = serde_json::from_slice::<LinkRecord>(buf) else { continue };
        let mut links =
            Links::from_parts(rec.kind.as_deref(), rec.uuid.as_deref(), rec.is_sidechain.unwrap_or(false), buf);
        if rec.kind.as_deref() == Some("assistant")
            && !rec.is_sidechain.unwrap_or(false)
            && (memchr::memmem::find(buf, b"\"type\":\"tool_use\"").is_some()
                || memchr::memmem::find(buf, b"\"type\": \"tool_use\"").is_some())
        {
            tool_lines.push(number);
        }
        links.parent = rec.parent_uuid.as_deref().or(rec.logical_parent_uuid.as_deref()).map(str::to_string);
        if links.uuid.is_none() && !links.prompt {
            continue;
        }
        if links.prompt
            && let Some(parent) = links.parent.as_deref()
            && tip.as_deref() != Some(parent)
        {
            match seen.get(parent) {
                Some(&pline) if pline < last_prompt => ranges.push((pline + 1, number - 1)),
                Some(_) => {}
                // Until a prompt is read here, the records since the carried last prompt continue it.
                None if last_prompt == carry.last_prompt && carry.recent.iter().any(|r| r == parent) => {}
                None if offset > 0 && last_prompt > 0 => {
                    // The parent lies before the part being read: a rewind into what an
                    // earlier run already indexed. Drop what we can; the rest needs a rebuild.
                    ranges.push((first_line, number - 1));
                    out.bad.push(BadRecord {
                        line: Some(number),
                        reason: "conversation rewound to before the last indexed point; messages of the abandoned \
                                 branch stay in the index until `debrief index --rebuild`"
                            .into(),
                    });
                }
                None => {}
            }
        }
        if let Some(u) = links.uuid.as_deref() {
            seen.insert(u.to_string(), number);
        }
        if let Some(u) = links.uuid {
            tip = Some(u);
        }
        if links.prompt {
            last_prompt = number;
        }
    }
    ranges.retain(|(a, b)| a <= b);
    out.abandoned = ranges
        .into_iter()
        .map(|(from, to)| Branch { from, to, ran: tool_lines.iter().any(|&l| from <= l && l <= to) })
        .collect();
    Ok(out)
}

/// What the end of a file tells about it being a subagent's transcript.
struct Subagent {
    sidechain: u32,
    main: u32,
    agent_id: Option<String>,
    first_prompt: Option<String>,
}

fn finish_meta(meta: &mut SessionMeta, path: &Path, sub: &Subagent) {
    meta.source = path.to_path_buf();
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string();
    // Subagent transcripts (`agent-<id>.jsonl`) carry their parent's sessionId.
    let agent_id = stem.strip_prefix("agent-").map(str::to_string).or_else(|| sub.agent_id.clone());
    if sub.sidechain > 0 && sub.main == 0 && agent_id.is_some() && meta.parent_session.is_none() && !meta.id.is_empty()
    {
        meta.parent_session = Some(std::mem::take(&mut meta.id));
        meta.id = stem.clone();
    }
    if meta.id.is_empty() {
        meta.id = stem;
    }
    if let Some(parent) = meta.parent_session.clone()
        && meta.parent_call.is_none()
        && let Some(agent_id) = agent_id
    {
        meta.parent_call = subagent::find_parent_call(path, &parent, &agent_id, sub.first_prompt.as_deref());
    }
}

/// Handle one record. `Err` is a reason to report for this line; the rest goes on.
fn record(st: &mut State, asm: &mut Assembler, rec: Record, at: At, sink: &mut dyn Sink) -> Result<(), String> {
    let Some(kind) = rec.kind.as_deref() else {
        return Err("record has no \"type\"".into());
    };
    if let Some(id) = rec.session_id.as_deref().or(rec.session_id_snake.as_deref())
        && st.meta.id.is_empty()
    {
        st.meta.id = id.to_string();
    }
    if let Some(cwd) = rec.cwd.as_deref() {
        st.meta.saw_cwd(cwd);
    }
    if let Some(v) = rec.version.as_deref() {
        st.meta.agent_version = Some(v.to_string());
    }
    if let Some(b) = rec.git_branch.as_deref()
        && st.meta.git_branch.is_none()
        && !b.is_empty()
    {
        st.meta.git_branch = Some(b.to_string());
    }
    let timestamp = rec.timestamp.as_deref().and_then(parse_time);
    let sidechain =
        rec.is_sidechain.unwrap_or(false) || rec.parent_tool_use_id.is_some() || rec.parent_tool_use_id_camel.is_some();
    if sidechain
        && st.agent_id.is_none()
        && let Some(a) = rec.agent_id.as_deref()
    {
        st.agent_id = Some(a.to_string());
    }
    if matches!(kind, "user" | "assistant") {
        if sidechain {
            st.sidechain_lines += 1;
        } else {
            st.main_lines += 1;
        }
    }
    // A branch the user rewound away from on which nothing ran belongs to no session.
    let Some(session) = st.route(&rec, kind, at.line, asm.next_idx()) else { return Ok(()) };
    let (mut here, held) = st.here(asm, session);
    if let Some(t) = timestamp {
        here.meta.saw_time(t);
    }
    let here = &mut here;
    let mut buffer;
    let sink: &mut dyn Sink = match held {
        Some(held) => {
            buffer = Held { inner: sink, held };
            &mut buffer
        }
        None => sink,
    };
    match kind {
        "user" => user_record(here, &rec, timestamp, sidechain, at, sink),
        "assistant" => assistant_record(here, &rec, timestamp, sidechain, at, sink),
        "attachment" => attachment_record(here, &rec, timestamp, sidechain, at, sink),
        "system" => {
            let subtype = rec.subtype.as_deref().unwrap_or("");
            if SYSTEM_TELEMETRY.contains(&subtype) {
                return Ok(());
            }
            if subtype == "init" {
                // stream-json: the session's facts, not something anyone said.
                if let Some(m) = rec.model.as_deref() {
                    here.meta.model = Some(m.to_string());
                }
                if let Some(v) = rec.claude_code_version.as_deref() {
                    here.meta.agent_version = Some(v.to_string());
                }
                return Ok(());
            }
            if subtype == "compact_boundary" {
                // The summary turn that follows merges into this message.
                let text = match rec.content {
                    Some(c) => content_text(c).map_err(|e| json_reason(&e))?,
                    None => String::new(),
                };
                let text = if text.is_empty() { "Conversation compacted".to_string() } else { text };
                let msg = Message {
                    role: Role::System,
                    origin: Origin::CompactSummary,
                    timestamp,
                    text,
                    sidechain,
                    ..Message::default()
                };
                here.asm.push(msg, Some(COMPACT_KEY.into()), at, sink).map_err(|e| e.to_string())?;
                return Ok(());
            }
            let mut text = match rec.content {
                Some(c) => content_text(c).map_err(|e| json_reason(&e))?,
                None => String::new(),
            };
            if text.is_empty() {
                if subtype.is_empty() {
                    return Ok(());
                }
                text = format!("[{subtype}]");
            }
            let msg = Message {
                role: Role::System,
                origin: Origin::Injected,
                timestamp,
                text,
                sidechain,
                ..Message::default()
            };
            here.asm.push(msg, None, at, sink).map_err(|e| e.to_string())?;
            Ok(())
        }
        "summary" => {
            if let Some(s) = rec.summary.as_deref()
                && here.meta.title.is_none()
            {
                here.meta.title = Some(s.to_string());
            }
            Ok(())
        }
        "custom-title" => {
            if let Some(s) = rec.custom_title.as_deref() {
                here.meta.title = Some(s.to_string());
            }
            Ok(())
        }
        "result" => {
            // stream-json's closing event repeats the last answer; only a failure is news.
            if rec.is_error == Some(true) {
                let text = rec.result.as_deref().unwrap_or("").to_string();
                let text =
                    if text.is_empty() { format!("[{}]", rec.subtype.as_deref().unwrap_or("error")) } else { text };
                let msg =
                    Message { role: Role::System, origin: Origin::Injected, timestamp, text, ..Message::default() };
                here.asm.push(msg, None, at, sink).map_err(|e| e.to_string())?;
            }
            Ok(())
        }
        k if BOOKKEEPING.contains(&k) => Ok(()),
        other => {
            sink.unknown(other);
            Ok(())
        }
    }
}

fn api_message<'a>(rec: &Record<'a>) -> Result<ApiMessage<'a>, String> {
    let raw = rec.message.ok_or("record has no \"message\"")?;
    if !raw.get().trim_start().starts_with('{') {
        return Err("\"message\" is not an object".into());
    }
    serde_json::from_str(raw.get()).map_err(|e| format!("bad \"message\": {}", json_reason(&e)))
}

fn blocks_of<'a>(content: Option<&'a RawValue>) -> Result<Blocks<'a>, String> {
    let Some(raw) = content else {
        return Err("message has no \"content\"".into());
    };
    let s = raw.get().trim_start();
    if s.starts_with('"') {
        let text: String = serde_json::from_str(s).map_err(|e| json_reason(&e))?;
        return Ok(Blocks::Text(text));
    }
    if s.starts_with('[') {
        // Lists may hold stray non-object items; keep the good blocks.
        let items: Vec<&RawValue> = serde_json::from_str(s).map_err(|e| json_reason(&e))?;
        let mut blocks = Vec::with_capacity(items.len());
        let mut skipped = 0;
        for item in items {
            match serde_json::from_str::<Block>(item.get()) {
                Ok(b) => blocks.push(b),
                Err(_) => skipped += 1,
            }
        }
        return Ok(Blocks::List(blocks, skipped));
    }
    Err("\"content\" is neither text nor a list of blocks".into())
}

enum Blocks<'a> {
    Text(String),
    List(Vec<Block<'a>>, usize),
}

fn user_record(
    here: &mut Here,
    rec: &Record,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    sidechain: bool,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let msg = api_message(rec)?;
    let (texts, skipped) = match blocks_of(msg.content)? {
        Blocks::Text(t) => (vec![t], 0),
        Blocks::List(blocks, skipped) => {
            let mut texts = Vec::new();
            for b in blocks {
                match b.kind.as_deref() {
                    Some("tool_result") => {
                        tool_result(here, rec, &b, timestamp, at, sink)?;
                    }
                    Some("text") => texts.push(b.text.map(Cow::into_owned).unwrap_or_default()),
                    Some("image") => texts.push("[image]".to_string()),
                    Some("document") => texts.push("[document]".to_string()),
                    _ => {}
                }
            }
            (texts, skipped)
        }
    };
    if skipped > 0 {
        sink.bad(BadRecord {
            line: Some(at.line),
            reason: format!("{skipped} content item(s) are not blocks; skipped"),
        });
    }
    if texts.is_empty() {
        return Ok(());
    }
    if rec.is_compact_summary == Some(true) {
        return push_user(here, Origin::CompactSummary, texts.join("\n\n"), timestamp, sidechain, at, sink);
    }
    if rec.is_meta == Some(true) {
        return push_user(here, Origin::Injected, texts.join("\n\n"), timestamp, sidechain, at, sink);
    }
    // What the person typed, apart from what the harness wrapped around it in the same
    // record (reminders, IDE context, task notifications): one message of each, in the
    // order they first appear.
    let mut parts: Vec<(Origin, Vec<&str>)> = Vec::new();
    for t in &texts {
        // Whole records the harness writes (a task notification and the hint it appends,
        // a slash command's echo) are its text throughout.
        let (before, typed, after) = match classify_user_text(t) {
            Origin::Injected => (vec![t.as_str()], "", Vec::new()),
            _ => split_harness(t),
        };
        let bare = before.is_empty() && after.is_empty();
        let mut pieces: Vec<(Origin, &str)> = before.into_iter().map(|b| (Origin::Injected, b)).collect();
        if !typed.is_empty() || bare {
            pieces.push((classify_user_text(typed), typed));
        }
        pieces.extend(after.into_iter().map(|a| (Origin::Injected, a)));
        for (origin, piece) in pieces {
            match parts.iter_mut().find(|(o, _)| *o == origin) {
                Some((_, all)) => all.push(piece),
                None => parts.push((origin, vec![piece])),
            }
        }
    }
    for (origin, pieces) in parts {
        push_user(here, origin, pieces.join("\n\n"), timestamp, sidechain, at, sink)?;
    }
    Ok(())
}

/// One user-role message: typed words, an interrupt marker, or harness text (as system).
fn push_user(
    here: &mut Here,
    origin: Origin,
    text: String,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    sidechain: bool,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let role = match origin {
        Origin::Injected | Origin::CompactSummary => Role::System,
        _ => Role::User,
    };
    if origin == Origin::CompactSummary
        && let Some(last) = here.asm.last_mut(COMPACT_KEY)
    {
        // boundary + summary = one compaction message.
        last.text = text;
        Assembler::extend_end_line(last, at.line);
        return Ok(());
    }
    if origin == Origin::Typed && here.first_prompt.is_none() {
        *here.first_prompt = Some(text.clone());
    }
    let m = Message { role, origin, timestamp, text, sidechain, ..Message::default() };
    here.asm.push(m, None, at, sink).map_err(|e| e.to_string())?;
    Ok(())
}

/// Tags in which the harness wraps text it adds to a user record, before or after what
/// the person typed.
const HARNESS_TAGS: &[&str] = &[
    "system-reminder",
    "task-notification",
    "bash-notification",
    "ide_opened_file",
    "ide_selection",
    "ide_diagnostics",
    "local-command-caveat",
    "user-prompt-submit-hook",
    "session-start-hook",
];

/// Split a user text into the harness blocks before it, the typed words, and the harness
/// blocks after it.
fn split_harness(text: &str) -> (Vec<&str>, &str, Vec<&str>) {
    let mut before = Vec::new();
    let mut after = Vec::new();
    let mut rest = text.trim();
    'lead: loop {
        for tag in HARNESS_TAGS {
            let open = format!("<{tag}>");
            let close = format!("</{tag}>");
            if rest.starts_with(&open)
                && let Some(end) = rest.find(&close)
            {
                let end = end + close.len();
                before.push(&rest[..end]);
                rest = rest[end..].trim_start();
                continue 'lead;
            }
        }
        break;
    }
    'trail: loop {
        for tag in HARNESS_TAGS {
            let open = format!("<{tag}>");
            let close = format!("</{tag}>");
            if rest.ends_with(&close)
                && let Some(start) = rest.rfind(&open)
            {
                after.insert(0, &rest[start..]);
                rest = rest[..start].trim_end();
                continue 'trail;
            }
        }
        break;
    }
    (before, rest, after)
}

/// An `attachment` record. A `queued_command` is a prompt the person typed while the
/// agent was working, handed to the model between turns: their turn, in order (or, when
/// the harness queued it — a task notification — system text). Other attachments are
/// context the harness adds (tool and skill rosters, file listings): no message.
fn attachment_record(
    here: &mut Here,
    rec: &Record,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    sidechain: bool,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    #[derive(Deserialize)]
    struct Attachment<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow)]
        prompt: Option<&'a RawValue>,
        #[serde(rename = "commandMode", borrow)]
        command_mode: Option<Cow<'a, str>>,
        origin: Option<QueuedOrigin>,
    }
    #[derive(Deserialize)]
    struct QueuedOrigin {
        kind: Option<String>,
    }
    let Some(raw) = rec.attachment else { return Ok(()) };
    let a: Attachment =
        serde_json::from_str(raw.get()).map_err(|e| format!("bad \"attachment\": {}", json_reason(&e)))?;
    if a.kind.as_deref() != Some("queued_command") {
        return Ok(());
    }
    let text = match a.prompt {
        Some(p) => content_text(p).map_err(|e| format!("bad queued prompt: {}", json_reason(&e)))?,
        None => String::new(),
    };
    if text.trim().is_empty() {
        return Ok(());
    }
    let by_person = a.command_mode.as_deref().is_none_or(|m| m == "prompt")
        && a.origin.and_then(|o| o.kind).is_none_or(|k| k == "human");
    let origin = if by_person { classify_user_text(&text) } else { Origin::Injected };
    push_user(here, origin, text, timestamp, sidechain, at, sink)
}

fn tool_result(
    here: &mut Here,
    rec: &Record,
    b: &Block,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let call_id = b.tool_use_id.as_deref().unwrap_or("").to_string();
    let mut output = match b.content {
        Some(c) => content_text(c).map_err(|e| format!("bad tool_result content: {}", json_reason(&e)))?,
        None => String::new(),
    };
    let mut is_error = b.is_error.unwrap_or(false);
    let mut interrupted = false;
    if let Some(raw) = rec.tool_use_result {
        let s = raw.get();
        if s.starts_with('"') {
            // The string form: "Error: …" on failure; a stand-in when content is empty.
            if let Ok(text) = serde_json::from_str::<String>(s) {
                if text.starts_with("Error") {
                    is_error = true;
                }
                if output.is_empty() {
                    output = text;
                }
            }
        } else if memchr::memmem::find(s.as_bytes(), b"\"interrupted\":true").is_some() {
            interrupted = true;
        }
    }
    // The person stopped the call (Esc; "Exit code 137" may come first) or refused it at
    // the permission prompt: it did not fail, it was stopped.
    if output.lines().any(|l| l.starts_with("[Request interrupted by user"))
        || output.starts_with("The user doesn't want to proceed with this tool use")
        || output.starts_with("The user doesn't want to take this action right now")
    {
        interrupted = true;
    }
    let exit_code = exit_code_prefix(&output);
    let result = CallResult {
        exit_code,
        is_error,
        interrupted,
        timestamp,
        line: Some(at.line),
        output,
        ..CallResult::default()
    };
    let mut started = None;
    let complete = |call: &Call, r: &mut CallResult| {
        if call.name == "Bash" {
            if r.output.trim_start().starts_with("Command timed out") {
                r.timed_out = true;
            }
            // Run in the background on request, or moved there by Claude Code when it ran
            // past its time limit or by the person (the result then says so first).
            let out = r.output.trim_start();
            let background = call.input.get("run_in_background").and_then(serde_json::Value::as_bool) == Some(true)
                || out.starts_with("Command running in background with ID: ")
                || out.starts_with("Command was manually backgrounded by user with ID: ");
            if background && let Some(id) = background_id(&r.output) {
                r.running = true;
                started = Some(id);
            } else if r.exit_code.is_none() && !r.is_error && !r.interrupted && !r.timed_out {
                // Bash results that are not errors exited 0: Claude Code reports any other code.
                r.exit_code = Some(0);
            }
        }
        if call.continues.is_some() || matches!(call.name.as_str(), "BashOutput" | "TaskOutput") {
            task_status(r);
        }
    };
    let result = here.asm.attach_with(&call_id, result, complete);
    if let Some(task) = started {
        here.background.insert(task, call_id.clone());
    }
    let Some(result) = result else { return Ok(()) };
    let msg = orphan_result_message(&call_id, result);
    here.asm.push(msg, None, at, sink).map_err(|e| e.to_string())?;
    Ok(())
}

/// The task id in "Command running in background with ID: b7x2k9. Output is …" (or
/// "Command was manually backgrounded by user with ID: …").
fn background_id(output: &str) -> Option<String> {
    let at = |marker: &str| output.find(marker).map(|i| i + marker.len());
    let i = at("running in background with ID: ").or_else(|| at("backgrounded by user with ID: "))?;
    let id: String = output[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
    (!id.is_empty()).then_some(id)
}

/// What a read of a background task says of it: `BashOutput` (`<status>`, `<exit_code>`,
/// `<stdout>`) and `TaskOutput` (`<retrieval_status>timeout</retrieval_status>` when the
/// blocking read gave up, then `<status>`, `<exit_code>`, `<output>`).
fn task_status(r: &mut CallResult) {
    let tag = |name: &str| -> Option<&str> {
        let open = format!("<{name}>");
        let i = r.output.find(&open)? + open.len();
        let j = r.output[i..].find(&format!("</{name}>"))?;
        Some(r.output[i..i + j].trim())
    };
    let timed_out = tag("retrieval_status") == Some("timeout");
    let running = tag("status") == Some("running");
    let exit = tag("exit_code").and_then(|c| c.parse::<i32>().ok());
    r.timed_out |= timed_out;
    r.running |= running;
    if exit.is_some() {
        r.exit_code = exit;
    }
}

fn assistant_record(
    here: &mut Here,
    rec: &Record,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
    sidechain: bool,
    at: At,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let msg = api_message(rec)?;
    let synthetic = msg.model.as_deref() == Some("<synthetic>");
    if let Some(model) = msg.model.as_deref()
        && !synthetic
    {
        here.meta.model = Some(model.to_string());
    }
    let blocks = match blocks_of(msg.content)? {
        Blocks::Text(t) => vec![Block {
            kind: Some(Cow::Borrowed("text")),
            text: Some(Cow::Owned(t)),
            thinking: None,
            id: None,
            name: None,
            input: None,
            tool_use_id: None,
            content: None,
            is_error: None,
        }],
        Blocks::List(b, _) => b,
    };
    let mut text = String::new();
    let mut thinking = String::new();
    let mut calls = Vec::new();
    for b in blocks {
        match b.kind.as_deref() {
            Some("text") => push_para(&mut text, b.text.as_deref().unwrap_or("")),
            Some("thinking") => push_para(&mut thinking, b.thinking.as_deref().unwrap_or("")),
            Some("redacted_thinking") => push_para(&mut thinking, "[redacted thinking]"),
            Some("tool_use") | Some("server_tool_use") => {
                let name = b.name.as_deref().unwrap_or("").to_string();
                let input: serde_json::Value = match b.input {
                    Some(raw) => serde_json::from_str(raw.get()).unwrap_or(serde_json::Value::Null),
                    None => serde_json::Value::Null,
                };
                let command = shell_command(&name, &input);
                let id = b.id.as_deref().unwrap_or("").to_string();
                let str_field = |k: &str| input.get(k).and_then(serde_json::Value::as_str);
                if matches!(name.as_str(), "Task" | "Agent") {
                    let prompt = str_field("prompt").unwrap_or("").to_string();
                    here.tasks.push(TaskCall { session: here.session, id: id.clone(), prompt, linked: false });
                }
                // A read of a background command's output continues that command.
                let continues = match name.as_str() {
                    "BashOutput" | "TaskOutput" | "KillShell" | "KillBash" | "TaskStop" => {
                        str_field("bash_id").or(str_field("task_id")).or(str_field("shell_id"))
                    }
                    _ => None,
                }
                .and_then(|task| here.background.get(task).cloned());
                calls.push(Call { id, name, input, command, result: None, continues });
            }
            _ => {}
        }
    }
    let merge_key = msg.id.as_deref().map(str::to_string);
    if let Some(key) = merge_key.as_deref()
        && let Some(last) = here.asm.last_mut(key)
    {
        push_para(&mut last.text, &text);
        push_para(&mut last.thinking, &thinking);
        last.calls.extend(calls);
        Assembler::extend_end_line(last, at.line);
        here.asm.register_calls_of_last();
        return Ok(());
    }
    let (role, origin) = if synthetic { (Role::System, Origin::Injected) } else { (Role::Assistant, Origin::Typed) };
    let m = Message { role, origin, timestamp, text, thinking, calls, sidechain, ..Message::default() };
    here.asm.push(m, merge_key, at, sink).map_err(|e| e.to_string())?;
    Ok(())
}

/// The `{"loglines": [...]}` document that the claude.ai web export (and
/// claude-code-transcripts) writes: the same records as the JSONL, in one JSON document.
pub struct ClaudeCodeWeb;

impl Format for ClaudeCodeWeb {
    fn id(&self) -> &'static str {
        "claude-code-web"
    }

    fn agent(&self) -> &'static str {
        "Claude Code"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.json"]
    }

    fn sniff(&self, _path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start();
        let Some(rest) = t.strip_prefix('{') else { return 0 };
        if rest.trim_start().starts_with("\"loglines\"") && t.contains("\"type\"") { 90 } else { 0 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        #[derive(Deserialize)]
        struct Doc<'a> {
            #[serde(borrow)]
            loglines: Vec<&'a RawValue>,
        }
        let all = input.read_all()?;
        let mut sink = super::NoRestart::whole_document(sink);
        let mut st = State::default();
        let mut asm = Assembler::new(0, 1);
        match serde_json::from_slice::<Doc>(&all) {
            Ok(doc) => {
                for (i, raw) in doc.loglines.into_iter().enumerate() {
                    let at = At::default();
                    match serde_json::from_str::<Record>(raw.get()) {
                        Ok(rec) => {
                            if let Err(reason) = record(&mut st, &mut asm, rec, at, &mut sink) {
                                sink.bad(BadRecord { line: None, reason: format!("logline {}: {reason}", i + 1) });
                            }
                        }
                        Err(e) => sink
                            .bad(BadRecord { line: None, reason: format!("logline {}: {}", i + 1, json_reason(&e)) }),
                    }
                }
            }
            Err(e) => {
                sink.bad(BadRecord { line: None, reason: format!("not a loglines document: {}", json_reason(&e)) })
            }
        }
        st.sidechain_lines = 0;
        st.main_lines = 0;
        finish_file(st, asm, &mut sink, input.path())
    }
}

/// Linking a subagent transcript to the call that spawned it.
mod subagent {
    use std::collections::HashMap;
    use std::io::{BufRead, BufReader};
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex, OnceLock};

    use serde_json::Value;

    /// Where the parent session's file is: beside the subagent file (older versions:
    /// `<project>/agent-<id>.jsonl`) or two levels up (`<project>/<session>/subagents/`).
    fn parent_files(path: &Path, parent: &str) -> Vec<PathBuf> {
        let name = format!("{parent}.jsonl");
        let mut out = Vec::new();
        if let Some(dir) = path.parent() {
            out.push(dir.join(&name));
            if dir.file_name().is_some_and(|n| n == "subagents")
                && let Some(project) = dir.parent().and_then(Path::parent)
            {
                out.push(project.join(&name));
            }
        }
        out.retain(|p| p.is_file());
        out
    }

    /// What a parent session file says about the subagents it ran: agentId → call id,
    /// and Task/Agent prompt → call id (versions that wrote no agentId).
    #[derive(Default)]
    struct ParentIndex {
        stamp: Option<(u64, std::time::SystemTime)>,
        by_agent: HashMap<String, String>,
        by_prompt: HashMap<String, String>,
    }

    /// One scan per parent file and process: a session with many subagents (and each
    /// re-index of them) must not read a large parent again for every one.
    fn parent_index(file: &Path) -> Option<Arc<ParentIndex>> {
        static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<ParentIndex>>>> = OnceLock::new();
        let md = std::fs::metadata(file).ok()?;
        let stamp = Some((md.len(), md.modified().ok()?));
        let cache = CACHE.get_or_init(Default::default);
        if let Ok(c) = cache.lock()
            && let Some(ix) = c.get(file)
            && ix.stamp == stamp
        {
            return Some(ix.clone());
        }
        let f = std::fs::File::open(file).ok()?;
        let mut ix = ParentIndex { stamp, ..ParentIndex::default() };
        for line in BufReader::new(f).split(b'\n').map_while(Result::ok) {
            let has = |needle: &[u8]| memchr::memmem::find(&line, needle).is_some();
            if has(b"agentId") && has(b"tool_result") {
                let v: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
                let agent = v.pointer("/toolUseResult/agentId").and_then(Value::as_str).map(str::to_string);
                let blocks = match v.pointer("/message/content") {
                    Some(Value::Array(items)) => items.clone(),
                    _ => Vec::new(),
                };
                for b in blocks.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")) {
                    let Some(id) = b.get("tool_use_id").and_then(Value::as_str) else { continue };
                    let named = agent.clone().or_else(|| agent_in_text(b));
                    if let Some(a) = named {
                        ix.by_agent.entry(a).or_insert_with(|| id.to_string());
                    }
                }
            } else if has(b"\"name\":\"Task\"") || has(b"\"name\":\"Agent\"") {
                for b in blocks(&line) {
                    if b.get("type").and_then(Value::as_str) == Some("tool_use")
                        && matches!(b.get("name").and_then(Value::as_str), Some("Task" | "Agent"))
                        && let (Some(p), Some(id)) =
                            (b.pointer("/input/prompt").and_then(Value::as_str), b.get("id").and_then(Value::as_str))
                    {
                        ix.by_prompt.entry(p.trim().to_string()).or_insert_with(|| id.to_string());
                    }
                }
            }
        }
        let ix = Arc::new(ix);
        if let Ok(mut c) = cache.lock() {
            c.insert(file.to_path_buf(), ix.clone());
        }
        Some(ix)
    }

    /// "agentId: <id> (use SendMessage …)" in a Task result's text.
    fn agent_in_text(block: &Value) -> Option<String> {
        let text = match block.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(items)) => {
                items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
            }
            _ => return None,
        };
        let i = text.find("agentId: ")? + "agentId: ".len();
        let id: String =
            text[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
        (!id.is_empty()).then_some(id)
    }

    /// The id of the Task/Agent call in the parent session that ran subagent `agent_id`:
    /// the tool result whose `toolUseResult.agentId` (or "agentId: …" text) names it, else
    /// the call whose `prompt` is the subagent's first prompt (versions before agentId).
    pub fn find_parent_call(path: &Path, parent: &str, agent_id: &str, first_prompt: Option<&str>) -> Option<String> {
        for file in parent_files(path, parent) {
            let Some(ix) = parent_index(&file) else { continue };
            if let Some(id) = ix.by_agent.get(agent_id) {
                return Some(id.clone());
            }
            if let Some(id) = first_prompt.and_then(|p| ix.by_prompt.get(p.trim())) {
                return Some(id.clone());
            }
        }
        None
    }

    fn blocks(line: &[u8]) -> Vec<Value> {
        let v: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
        match v.pointer("/message/content") {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_text_classification() {
        assert_eq!(classify_user_text("fix the bug"), Origin::Typed);
        assert_eq!(classify_user_text(""), Origin::Typed);
        assert_eq!(classify_user_text("[Request interrupted by user for tool use]"), Origin::Interrupt);
        assert_eq!(classify_user_text("<command-name>/clear</command-name>"), Origin::Injected);
        assert_eq!(
            classify_user_text("<system-reminder>x</system-reminder>\n<system-reminder>y</system-reminder>"),
            Origin::Injected
        );
        assert_eq!(classify_user_text("<system-reminder>x</system-reminder> and my question"), Origin::Typed);
        // Claude Code 2.0.x tells of a background command's end in a user record of this
        // shape (later versions say `<task-notification>`).
        assert_eq!(
            classify_user_text(
                "<bash-notification>\n<shell-id>b18a41f</shell-id>\n<status>failed</status>\n<summary>Background \
                 command \"Start the server\" failed with exit code 137.</summary>\n</bash-notification>"
            ),
            Origin::Injected
        );
    }

    #[test]
    fn exit_code_header() {
        assert_eq!(exit_code_prefix("Exit code 137\nKilled"), Some(137));
        assert_eq!(exit_code_prefix("ok"), None);
    }

    fn chain_file(lines: &[&str]) -> tempfile::NamedTempFile {
        use std::io::Write;
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
        f
    }

    #[test]
    fn prompts_parented_off_the_tip_are_not_always_rewinds() {
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"go"}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"u1","message":{"role":"assistant","content":[]}}"#,
            r#"{"type":"progress","uuid":"p3","parentUuid":"a2"}"#,
            r#"{"type":"user","uuid":"u4","parentUuid":"a2","message":{"role":"user","content":"next"}}"#,
        ];
        let f = chain_file(&lines);
        let whole = prescan(f.path(), 0, 1, &Carry::default()).unwrap();
        assert!(whole.abandoned.is_empty() && whole.bad.is_empty());
        // Resumed at line 4 with the chain as the checkpoint carried it.
        let offset = lines[..3].iter().map(|l| l.len() as u64 + 1).sum();
        let carry = Carry {
            tip: Some("p3".into()),
            last_prompt: 1,
            recent: vec!["u1".into(), "a2".into(), "p3".into()],
            ..Default::default()
        };
        let resumed = prescan(f.path(), offset, 4, &carry).unwrap();
        assert!(resumed.abandoned.is_empty() && resumed.bad.is_empty(), "{:?}", resumed.bad);
        // A parent before the checkpoint that is not among them is a rewind into indexed lines.
        let carry = Carry { tip: Some("p3".into()), last_prompt: 1, recent: vec!["p3".into()], ..Default::default() };
        let resumed = prescan(f.path(), offset, 4, &carry).unwrap();
        assert_eq!(resumed.bad.len(), 1);
    }
}
