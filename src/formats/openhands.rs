//! OpenHands event logs: V0 trajectories (a JSON list of events, as saved with
//! `save_trajectory_path` or exported from the UI), V0 per-event folders
//! (`~/.openhands/sessions/<id>/events/<n>.json`) and V1 agent-SDK conversations
//! (`~/.openhands/conversations/<id>/events/event-<n>-<uuid>.json`, `kind`-tagged
//! `ActionEvent`/`ObservationEvent`/`MessageEvent`…). Read whole (no line numbers); an
//! event file is read together with the other event files of its folder (the
//! conversation's: V1 names in any folder, V0 `<n>.json` in `events/`), in order, as one
//! session named after the conversation (the folder is one candidate, see `walk`).
//!
//! V0 events (`{id, source, action|observation, args|extras, content, cause}`):
//! - `message` actions: from the user → typed user message; from the agent →
//!   assistant message; `system` → system message. `finish` → assistant message.
//! - Every other agent action (`run`, `run_ipython`, `read`, `write`, `edit`, `browse`,
//!   `think`, `delegate`, MCP calls…) is a [`Call`] on an assistant message whose text
//!   is the action's `thought`; actions answering one LLM response (same
//!   `tool_call_metadata.model_response.id`) share the message. `run` carries the
//!   `command`.
//! - An observation joins its action through `cause`: output is `content` framed by
//!   `metadata.prefix`/`suffix` (e.g. "[The command has no new output after 30
//!   seconds…]"), `exit_code` comes from `metadata.exit_code` (older: `extras.exit_code`)
//!   and `is_error` from `success: false` or an `error` observation.
//!   `user_rejected` marks the call interrupted.
//! - `agent_state_changed`, `change_agent_state`, `null` observations and `recall`
//!   actions are bookkeeping; a `recall` observation's content is a system message.
//!
//! V1 events (`kind`): `MessageEvent` (user/agent message; `llm_message.content` parts;
//! the critic's "The task appears incomplete (iteration …" follow-ups and the SDK's
//! no-function-call nudge come with `source: user` but are injected system messages),
//! `SystemPromptEvent`, `ActionEvent` (call `tool_name`/`tool_call_id`, text from
//! `thought`, thinking from `reasoning_content` and `thinking_blocks`, command from `action.command`),
//! `ObservationEvent` / `AgentErrorEvent` / `UserRejectObservation` (joined by
//! `tool_call_id`; `observation.exit_code`/`is_error`), `CondensationSummaryEvent`
//! (compaction summary). State updates and other internal events are bookkeeping.
//! Anything else is counted as format drift and kept as a system message when it has
//! text.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::Value;

use super::openai_chat::content_text;
use super::{Assembler, At, Format, Input, NoRestart, Sink, json_reason, orphan_result_message, parse_time};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct OpenHands;

/// Turns the agent SDK sends itself with `source: user`: the critic's iterative-refinement
/// follow-up (`CriticBase.get_followup_prompt`, the CLI's `iteration n/max` variant) and
/// the nudge after a response with neither a tool call nor a message. Not the person's.
const SDK_USER_TURNS: &[&str] =
    &["The task appears incomplete (iteration ", "Your last response did not include a function call or a message"];

/// V0 action types that are not calls.
const V0_BOOKKEEPING_ACTIONS: &[&str] = &["change_agent_state", "recall", "null"];
/// V0 observation types that carry nothing to show.
const V0_BOOKKEEPING_OBSERVATIONS: &[&str] = &["agent_state_changed", "null"];
/// V0 observations that answer an action.
const V0_RESULTS: &[&str] = &[
    "run",
    "run_ipython",
    "read",
    "write",
    "edit",
    "browse",
    "error",
    "success",
    "user_rejected",
    "think",
    "delegate",
    "mcp",
    "download",
    "task_tracking",
    "loop_detection",
];
/// V1 event kinds that are internal state, not conversation.
const V1_BOOKKEEPING: &[&str] = &[
    "ConversationStateUpdateEvent",
    "PauseEvent",
    "CondensationRequest",
    "TokenEvent",
    "LLMCompletionLogEvent",
    "StreamingDeltaEvent",
    "ConversationErrorEvent",
    "HookExecutionEvent",
];

impl Format for OpenHands {
    fn id(&self) -> &'static str {
        "openhands"
    }

    fn agent(&self) -> &'static str {
        "OpenHands"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.json"]
    }

    /// `event_cache/` pages repeat the conversation's `events/` folder beside them.
    fn folder_read_through_another(&self, dir: &Path) -> bool {
        dir.file_name().is_some_and(|n| n == "event_cache") && dir.parent().is_some_and(|c| c.join("events").is_dir())
    }

    fn folder_member(&self, path: &Path) -> Option<u64> {
        event_folder_index(path)
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        // The agent SDK / CLI keeps `~/.openhands/conversations/<id>/events/`, the V0 server
        // its file store's `sessions/<id>/events/` (`FILE_STORE_PATH`).
        let mut out = places.in_home(self.id(), &[".openhands", "conversations"]);
        out.extend(places.moved_home(self.id(), "FILE_STORE_PATH", &[".openhands"], &["sessions"]));
        out
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start();
        if !t.starts_with('[') && !t.starts_with('{') {
            return 0;
        }
        let compact: String = text.chars().take(8192).filter(|c| !c.is_whitespace()).collect();
        let v0 = (compact.contains("\"action\":") || compact.contains("\"observation\":"))
            && compact.contains("\"source\":")
            && (compact.contains("\"id\":") || compact.contains("\"timestamp\":"));
        // V1: the event's (or the list's first event's) top-level `kind`, which the SDK
        // writes last, after a system prompt that can be tens of KB long.
        let fields = if t.starts_with('[') { super::first_item_fields(t, 0) } else { super::object_fields(t, 0) };
        let kind = fields
            .as_deref()
            .and_then(|f| super::field(f, "kind"))
            .and_then(|k| serde_json::from_str::<String>(k).ok())
            .unwrap_or_default();
        let v1 = [
            "ActionEvent",
            "ObservationEvent",
            "MessageEvent",
            "SystemPromptEvent",
            "ConversationStateUpdateEvent",
            "AgentErrorEvent",
            "UserRejectObservation",
        ]
        .contains(&kind.as_str());
        if !v0 && !v1 {
            // An event of a kind not known yet, inside a conversation's events folder.
            return if event_folder_index(path).is_some() && !kind.is_empty() { 60 } else { 0 };
        }
        if event_folder_index(path).is_some() { 90 } else { 80 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        // One JSON document: no line numbers, no restart points (re-read whole).
        let mut sink = NoRestart::whole_document(sink);
        let sink: &mut dyn Sink = &mut sink;
        let path = input.path().to_path_buf();
        let bytes = input.read_all()?;
        let mut meta =
            SessionMeta { source: path.clone(), id: super::openai_chat::stem(&path), ..SessionMeta::default() };
        let events: Vec<Value> = match event_folder_index(&path) {
            Some(_) => {
                if let Some(name) = conversation_name(&path) {
                    meta.id = name.to_string();
                }
                read_folder(&path, sink)
            }
            None => match serde_json::from_slice::<Value>(&bytes) {
                Ok(Value::Array(list)) => list,
                Ok(obj @ Value::Object(_)) => vec![obj],
                Ok(_) => {
                    sink.bad(BadRecord { line: None, reason: "not an OpenHands event list".into() });
                    return Ok(Vec::new());
                }
                Err(e) => {
                    sink.bad(BadRecord { line: Some(e.line() as u32), reason: json_reason(&e) });
                    return Ok(Vec::new());
                }
            },
        };
        let mut conv = Conversation::default();
        let mut asm = Assembler::new(0, 1);
        for (i, e) in events.iter().enumerate() {
            let Some(obj) = e.as_object() else {
                sink.bad(BadRecord { line: None, reason: format!("event {} is not an object", i + 1) });
                continue;
            };
            if let Some(t) = obj.get("timestamp").and_then(Value::as_str).and_then(parse_time) {
                meta.saw_time(t);
            }
            if let Some(kind) = obj.get("kind").and_then(Value::as_str) {
                conv.v1_event(&mut asm, obj, kind, sink)?;
            } else {
                conv.v0_event(&mut asm, obj, &mut meta, sink)?;
            }
        }
        conv.flush(&mut asm, sink)?;
        asm.finish(sink)?;
        Ok(vec![meta])
    }
}

/// The position of an event file in a conversation's folder of events: V1's
/// `event-<n>-<uuid>.json` in whatever folder holds them (the SDK's
/// `conversations/<id>/events/`, or a folder a conversation was saved to), V0's bare
/// `<n>.json` only in an `events/` folder.
pub fn event_folder_index(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".json")?;
    if let Some(rest) = stem.strip_prefix("event-") {
        let (n, id) = rest.split_once('-')?;
        if n.len() >= 5 && id.len() >= 8 && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            return n.parse().ok();
        }
        return None;
    }
    if path.parent()?.file_name()? != "events" {
        return None;
    }
    stem.parse().ok()
}

/// The conversation an event file belongs to: the folder holding its events, or the
/// folder above when that one is the SDK's `events/`.
fn conversation_name(path: &Path) -> Option<&str> {
    let dir = path.parent()?;
    let conv = if dir.file_name()? == "events" { dir.parent()? } else { dir };
    conv.file_name()?.to_str()
}

/// The event files of a folder, in order.
pub fn folder_events(dir: &Path) -> Vec<(u64, PathBuf)> {
    let mut out: Vec<(u64, PathBuf)> = match std::fs::read_dir(dir) {
        Ok(rd) => {
            rd.filter_map(|e| e.ok()).map(|e| e.path()).filter_map(|p| event_folder_index(&p).map(|n| (n, p))).collect()
        }
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

fn read_folder(path: &Path, sink: &mut dyn Sink) -> Vec<Value> {
    let Some(dir) = path.parent() else { return Vec::new() };
    let mut events = Vec::new();
    for (_, p) in folder_events(dir) {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match std::fs::read(&p) {
            Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) => events.push(v),
                Err(e) => sink.bad(BadRecord { line: None, reason: format!("{name}: {}", json_reason(&e)) }),
            },
            Err(e) => sink.bad(BadRecord { line: None, reason: format!("{name}: {e}") }),
        }
    }
    events
}

/// What an action says besides its call: the model's words and which LLM response
/// it belongs to.
struct Step {
    thought: String,
    thinking: String,
    response: Option<String>,
    timestamp: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Default)]
struct Conversation {
    /// The assistant message being built: calls of one LLM response join it.
    reply: Option<Message>,
    reply_response: Option<String>,
    /// V0 action id → call id.
    causes: HashMap<i64, String>,
    n: u32,
}

fn num(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// The model's reasoning: `reasoning_content`, and the `thinking_blocks`
/// (`[{type: "thinking", thinking}]`, Anthropic models) it does not already hold.
fn thinking_of(reasoning: Option<&Value>, blocks: Option<&Value>) -> String {
    let mut out = reasoning.and_then(Value::as_str).unwrap_or("").trim().to_string();
    for b in blocks.and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
        let t = b.get("thinking").and_then(Value::as_str).unwrap_or("").trim();
        if t.is_empty() || out.contains(t) {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(t);
    }
    out
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        other => content_text(other),
    }
}

impl Conversation {
    fn flush(&mut self, asm: &mut Assembler, sink: &mut dyn Sink) -> Result<()> {
        self.reply_response = None;
        if let Some(msg) = self.reply.take() {
            asm.push(msg, None, At::default(), sink)?;
        }
        Ok(())
    }

    fn push(&mut self, asm: &mut Assembler, msg: Message, sink: &mut dyn Sink) -> Result<()> {
        self.flush(asm, sink)?;
        asm.push(msg, None, At::default(), sink)?;
        Ok(())
    }

    /// Add a call to the assistant message of its LLM response, starting one if needed.
    fn add_call(&mut self, asm: &mut Assembler, call: Call, step: Step, sink: &mut dyn Sink) -> Result<()> {
        let same = step.response.is_some() && step.response == self.reply_response && self.reply.is_some();
        let new_thought = !step.thought.trim().is_empty() && self.reply.as_ref().is_some_and(|r| !r.text.is_empty());
        if !same || new_thought {
            self.flush(asm, sink)?;
            self.reply = Some(Message {
                role: Role::Assistant,
                origin: Origin::Typed,
                timestamp: step.timestamp,
                text: step.thought,
                thinking: step.thinking,
                ..Message::default()
            });
            self.reply_response = step.response;
        }
        if let Some(r) = self.reply.as_mut() {
            r.calls.push(call);
        }
        Ok(())
    }

    /// Join a result: to the message being built, else to a pushed message.
    fn result(&mut self, asm: &mut Assembler, call_id: &str, result: CallResult, sink: &mut dyn Sink) -> Result<()> {
        if let Some(r) = self.reply.as_mut()
            && let Some(c) = r.calls.iter_mut().find(|c| c.id == call_id && c.result.is_none())
        {
            c.result = Some(result);
            return Ok(());
        }
        self.flush(asm, sink)?;
        if let Some(r) = asm.attach(call_id, result) {
            asm.push(orphan_result_message(call_id, r), None, At::default(), sink)?;
        }
        Ok(())
    }

    fn v0_event(
        &mut self,
        asm: &mut Assembler,
        e: &serde_json::Map<String, Value>,
        meta: &mut SessionMeta,
        sink: &mut dyn Sink,
    ) -> Result<()> {
        let source = e.get("source").and_then(Value::as_str).unwrap_or("");
        let timestamp = e.get("timestamp").and_then(Value::as_str).and_then(parse_time);
        let args = e.get("args");
        let message = e.get("message").and_then(Value::as_str).unwrap_or("").to_string();
        let tcm = e.get("tool_call_metadata");
        if let Some(model) =
            tcm.and_then(|t| t.get("model_response")).and_then(|r| r.get("model")).and_then(Value::as_str)
            && meta.model.is_none()
        {
            meta.model = Some(model.to_string());
        }
        if let Some(action) = e.get("action").and_then(Value::as_str) {
            let arg = |k: &str| args.and_then(|a| a.get(k)).and_then(Value::as_str).unwrap_or("").to_string();
            match action {
                "message" => {
                    let text = if arg("content").is_empty() { message } else { arg("content") };
                    let (role, origin) = match source {
                        "user" => (Role::User, Origin::Typed),
                        "agent" => (Role::Assistant, Origin::Typed),
                        _ => (Role::System, Origin::Injected),
                    };
                    self.push(asm, Message { role, origin, timestamp, text, ..Message::default() }, sink)?;
                }
                "system" => {
                    let text = if arg("content").is_empty() { message } else { arg("content") };
                    self.push(
                        asm,
                        Message { role: Role::System, origin: Origin::Injected, timestamp, text, ..Message::default() },
                        sink,
                    )?;
                }
                "finish" => {
                    let mut text = arg("final_thought");
                    if text.is_empty() {
                        text = if message.is_empty() { arg("thought") } else { message };
                    }
                    self.push(
                        asm,
                        Message { role: Role::Assistant, origin: Origin::Typed, timestamp, text, ..Message::default() },
                        sink,
                    )?;
                }
                "condensation" => {
                    let text = arg("summary");
                    if !text.is_empty() {
                        self.push(
                            asm,
                            Message {
                                role: Role::System,
                                origin: Origin::CompactSummary,
                                timestamp,
                                text,
                                ..Message::default()
                            },
                            sink,
                        )?;
                    }
                }
                a if V0_BOOKKEEPING_ACTIONS.contains(&a) => {}
                a => {
                    let id = num(e.get("id"));
                    self.n += 1;
                    let call_id = tcm
                        .and_then(|t| t.get("tool_call_id"))
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("oh-{}", id.unwrap_or(i64::from(self.n))), str::to_string);
                    let name =
                        tcm.and_then(|t| t.get("function_name")).and_then(Value::as_str).unwrap_or(a).to_string();
                    let command = match a {
                        "run" => Some(arg("command")).filter(|c| !c.is_empty()),
                        _ => None,
                    };
                    let mut input = args.cloned().unwrap_or(Value::Null);
                    if let Value::Object(o) = &mut input {
                        o.remove("thought");
                    }
                    if let Some(id) = id {
                        self.causes.insert(id, call_id.clone());
                    }
                    let response = tcm
                        .and_then(|t| t.get("model_response"))
                        .and_then(|r| r.get("id"))
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let call = Call { id: call_id, name, input, command, result: None, continues: None };
                    let step = Step { thought: arg("thought"), thinking: String::new(), response, timestamp };
                    self.add_call(asm, call, step, sink)?;
                }
            }
            return Ok(());
        }
        let Some(observation) = e.get("observation").and_then(Value::as_str) else {
            sink.unknown("event without action or observation");
            return Ok(());
        };
        if V0_BOOKKEEPING_OBSERVATIONS.contains(&observation) {
            return Ok(());
        }
        let extras = e.get("extras");
        let content = e.get("content").and_then(Value::as_str).unwrap_or("").to_string();
        let cause = num(e.get("cause")).and_then(|c| self.causes.get(&c).cloned());
        match observation {
            "recall" => {
                if !content.trim().is_empty() {
                    self.push(
                        asm,
                        Message {
                            role: Role::System,
                            origin: Origin::Injected,
                            timestamp,
                            text: content,
                            ..Message::default()
                        },
                        sink,
                    )?;
                }
                return Ok(());
            }
            "condensation" | "message" if cause.is_none() => {
                let text = if content.is_empty() { message } else { content };
                self.push(
                    asm,
                    Message { role: Role::System, origin: Origin::Injected, timestamp, text, ..Message::default() },
                    sink,
                )?;
                return Ok(());
            }
            _ => {}
        }
        let metadata = extras.and_then(|x| x.get("metadata"));
        let field = |k: &str| metadata.and_then(|m| m.get(k)).and_then(Value::as_str).unwrap_or("");
        let mut output = content.clone();
        if observation == "run" {
            output = format!("{}{}{}", field("prefix"), content, field("suffix"));
        } else if output.is_empty() {
            output = message.clone();
        }
        let exit_code = num(metadata.and_then(|m| m.get("exit_code")))
            .or_else(|| num(extras.and_then(|x| x.get("exit_code"))))
            .and_then(|c| i32::try_from(c).ok());
        let success = e.get("success").and_then(Value::as_bool);
        let result = CallResult {
            output,
            exit_code,
            is_error: observation == "error" || success == Some(false) || exit_code.is_some_and(|c| c > 0),
            interrupted: observation == "user_rejected",
            timestamp,
            line: None,
            ..CallResult::default()
        };
        if !V0_RESULTS.contains(&observation) {
            sink.unknown(&format!("observation:{observation}"));
        }
        match cause {
            Some(call_id) => self.result(asm, &call_id, result, sink),
            None => {
                let (role, origin) = if observation == "error" {
                    (Role::System, Origin::Injected)
                } else {
                    (Role::Tool, Origin::ToolOutput)
                };
                let text = result.output;
                self.push(asm, Message { role, origin, timestamp, text, ..Message::default() }, sink)
            }
        }
    }

    fn v1_event(
        &mut self,
        asm: &mut Assembler,
        e: &serde_json::Map<String, Value>,
        kind: &str,
        sink: &mut dyn Sink,
    ) -> Result<()> {
        let timestamp = e.get("timestamp").and_then(Value::as_str).and_then(parse_time);
        let source = e.get("source").and_then(Value::as_str).unwrap_or("");
        match kind {
            "MessageEvent" => {
                let m = e.get("llm_message");
                let text = content_text(m.and_then(|m| m.get("content")));
                let thinking =
                    thinking_of(m.and_then(|m| m.get("reasoning_content")), m.and_then(|m| m.get("thinking_blocks")));
                let role = m.and_then(|m| m.get("role")).and_then(Value::as_str).unwrap_or(source);
                let nudge = SDK_USER_TURNS.iter().any(|p| text.trim_start().starts_with(p));
                let (role, origin) = match role {
                    "user" if source == "user" && !nudge => (Role::User, Origin::Typed),
                    "assistant" | "agent" => (Role::Assistant, Origin::Typed),
                    _ => (Role::System, Origin::Injected),
                };
                self.push(asm, Message { role, origin, timestamp, text, thinking, ..Message::default() }, sink)
            }
            "SystemPromptEvent" => {
                let text = text_of(e.get("system_prompt").and_then(|p| p.get("text")));
                self.push(
                    asm,
                    Message { role: Role::System, origin: Origin::Injected, timestamp, text, ..Message::default() },
                    sink,
                )
            }
            "ActionEvent" => {
                let action = e.get("action").cloned().unwrap_or(Value::Null);
                let name = e.get("tool_name").and_then(Value::as_str).unwrap_or("").to_string();
                self.n += 1;
                let id = e
                    .get("tool_call_id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("oh-{}", self.n), str::to_string);
                let command = action.get("command").and_then(Value::as_str).map(str::to_string).filter(|_| {
                    let k = action.get("kind").and_then(Value::as_str).unwrap_or("");
                    k.contains("Terminal") || k.contains("Bash") || name == "terminal" || name.contains("bash")
                });
                let thought = content_text(e.get("thought"));
                let thinking = thinking_of(e.get("reasoning_content"), e.get("thinking_blocks"));
                let response = e.get("llm_response_id").and_then(Value::as_str).map(str::to_string);
                let call = Call { id, name, input: action, command, result: None, continues: None };
                self.add_call(asm, call, Step { thought, thinking, response, timestamp }, sink)
            }
            "ObservationEvent" => {
                let id = e.get("tool_call_id").and_then(Value::as_str).unwrap_or("").to_string();
                let obs = e.get("observation");
                let meta = obs.and_then(|o| o.get("metadata"));
                let field = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str).unwrap_or("");
                let body = content_text(obs.and_then(|o| o.get("content")));
                let output = format!("{}{}{}", field("prefix"), body, field("suffix"));
                let exit_code = num(obs.and_then(|o| o.get("exit_code")))
                    .or_else(|| num(meta.and_then(|m| m.get("exit_code"))))
                    .and_then(|c| i32::try_from(c).ok());
                let is_error = obs.and_then(|o| o.get("is_error")).and_then(Value::as_bool).unwrap_or(false)
                    || exit_code.is_some_and(|c| c > 0);
                let interrupted = obs.and_then(|o| o.get("timeout")).and_then(Value::as_bool).unwrap_or(false);
                let r = CallResult {
                    output,
                    exit_code,
                    is_error,
                    interrupted,
                    timestamp,
                    line: None,
                    ..CallResult::default()
                };
                self.result(asm, &id, r, sink)
            }
            "AgentErrorEvent" | "UserRejectObservation" => {
                let id = e.get("tool_call_id").and_then(Value::as_str).unwrap_or("").to_string();
                let text = e
                    .get("error")
                    .or_else(|| e.get("rejection_reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let r = CallResult {
                    output: text,
                    is_error: true,
                    interrupted: kind == "UserRejectObservation",
                    timestamp,
                    ..CallResult::default()
                };
                self.result(asm, &id, r, sink)
            }
            "CondensationSummaryEvent" | "Condensation" => {
                let text = e.get("summary").and_then(Value::as_str).unwrap_or("").to_string();
                if text.is_empty() {
                    return Ok(());
                }
                self.push(
                    asm,
                    Message {
                        role: Role::System,
                        origin: Origin::CompactSummary,
                        timestamp,
                        text,
                        ..Message::default()
                    },
                    sink,
                )
            }
            k if V1_BOOKKEEPING.contains(&k) => Ok(()),
            other => {
                sink.unknown(other);
                let text = e.get("message").or_else(|| e.get("content")).map(|v| text_of(Some(v))).unwrap_or_default();
                if text.trim().is_empty() {
                    return Ok(());
                }
                self.push(
                    asm,
                    Message { role: Role::System, origin: Origin::Injected, timestamp, text, ..Message::default() },
                    sink,
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_file_names() {
        assert_eq!(event_folder_index(Path::new("/x/sess/events/12.json")), Some(12));
        assert_eq!(
            event_folder_index(Path::new("/x/c/events/event-00003-4f0c1a2b-aaaa-bbbb-cccc-1234567890ab.json")),
            Some(3)
        );
        assert_eq!(event_folder_index(Path::new("/x/c/other/12.json")), None);
        // V1 event files in a folder of their own (a saved conversation).
        let saved = Path::new("/x/saved-run/event-00007-5fa1e1c4-c5fd-4792-8522-23180aa00e35.json");
        assert_eq!(event_folder_index(saved), Some(7));
        assert_eq!(conversation_name(saved), Some("saved-run"));
        assert_eq!(conversation_name(Path::new("/x/conv1/events/event-00000-12bead78-a27c.json")), Some("conv1"));
        assert_eq!(event_folder_index(Path::new("/x/c/events/notes.json")), None);
    }
}
