//! SWE-agent trajectories (`*.traj`): one JSON document, read whole (no line numbers).
//!
//! Both shapes are read. `history` (0.x and 1.x) is the conversation the model saw and
//! is canonical when present; `trajectory` (steps of `{action, observation, response,
//! thought, state, …}`) is used when there is no history.
//! - History: `system` → system message; the `is_demo` user message (a demonstration
//!   trajectory pasted into the prompt) → system message; the first user message (the
//!   task) → typed user message. An assistant message's text is its `thought` (else its
//!   `content`); its `action` is the shell command SWE-agent ran (its tools are shell
//!   commands), one [`Call`] named after the tool (`tool_calls[].function.name` in 1.x,
//!   the action's first word for SWE-agent's own commands in 0.x, else `bash`). The
//!   observation is the next `user` message (0.x) or the `tool` message whose
//!   `tool_call_ids` names the call (1.x).
//! - Trajectory only: each step is an assistant message (`thought`, else `response`)
//!   whose call ran `action` and got `observation`.
//! - `state.working_dir` gives the session's cwd, `replay_config.agent.model.name` its
//!   model, and `info.exit_status` (with the submitted patch) ends the session as a
//!   system message. SWE-agent records no exit codes.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::openai_chat::{content_text, exit_message, stem, str_at, tool_calls};
use super::{Assembler, At, Format, Input, NoRestart, Sink, json_reason, orphan_result_message};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct SweAgent;

/// SWE-agent's own commands (0.x default and its tool bundles).
const SWE_COMMANDS: &[&str] = &[
    "open",
    "goto",
    "scroll_up",
    "scroll_down",
    "create",
    "edit",
    "insert",
    "append",
    "search_dir",
    "search_file",
    "find_file",
    "submit",
    "str_replace_editor",
    "filemap",
    "debug_start",
    "debug_stop",
    "debug_step",
    "debug_continue",
    "decompile",
    "disassemble",
    "connect_start",
    "connect_sendline",
    "connect_stop",
    "exit_forfeit",
];

impl Format for SweAgent {
    fn id(&self) -> &'static str {
        "swe-agent"
    }

    fn agent(&self) -> &'static str {
        "SWE-agent"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &["*.traj"]
    }

    fn kept_with_project(&self) -> Option<&'static str> {
        Some("*.traj under trajectories/ where SWE-agent ran")
    }

    fn sniff(&self, path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let t = text.trim_start();
        let Some(top) = super::object_fields(t, 0) else { return 0 };
        // Steps hold `action`/`observation`/`response`; the history is chat messages
        // with the roles SWE-agent writes. Other `{history: […]}` documents (a chat
        // app's `{role: "human"}` turns) are not trajectories.
        let step = super::field(&top, "trajectory")
            .and_then(|v| super::first_item_fields(v, 0))
            .is_some_and(|f| ["action", "observation", "response"].iter().any(|k| super::field(&f, k).is_some()));
        let history = super::field(&top, "history").and_then(|v| super::first_item_fields(v, 0)).is_some_and(|f| {
            let role = super::field(&f, "role").and_then(|r| serde_json::from_str::<String>(r).ok());
            role.is_some_and(|r| matches!(r.as_str(), "system" | "user" | "assistant" | "tool"))
                && super::field(&f, "content").is_some()
        });
        if !step && !history {
            return 0;
        }
        let named = path.extension().is_some_and(|e| e == "traj");
        let swe = step || text.contains("SWE-agent") || text.contains("\"agent\"") || text.contains("\"message_type\"");
        match (named, swe) {
            (true, _) => 90,
            (false, true) => 75,
            (false, false) => 40,
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
        if !doc.is_object() {
            sink.bad(BadRecord { line: None, reason: "not a SWE-agent trajectory object".into() });
            return Ok(Vec::new());
        }
        let mut meta =
            SessionMeta { source: input.path().to_path_buf(), id: stem(input.path()), ..SessionMeta::default() };
        meta.model = replay_model(&doc);
        let steps = doc.get("trajectory").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        if let Some(dir) = steps.iter().find_map(|s| working_dir(s.get("state"))) {
            meta.saw_cwd(&dir);
        }
        let mut asm = Assembler::new(0, 1);
        let history = doc.get("history").and_then(Value::as_array).filter(|h| !h.is_empty());
        let messages = match history {
            Some(h) => read_history(h, steps, sink),
            None => read_steps(steps, sink),
        };
        for m in messages {
            asm.push(m, None, At::default(), sink)?;
            // Results are joined already; a call still without one has none recorded.
            asm.close_calls_of_last();
        }
        let info = doc.get("info");
        if let Some(status) = info.and_then(|i| str_at(i, &["exit_status"])).filter(|s| !s.is_empty()) {
            let submission = info.and_then(|i| str_at(i, &["submission"])).unwrap_or_default();
            asm.push(exit_message(&status, &submission), None, At::default(), sink)?;
        }
        asm.finish(sink)?;
        Ok(vec![meta])
    }
}

/// `replay_config` is a JSON string (1.x) or object naming the model.
fn replay_model(doc: &Value) -> Option<String> {
    let rc = doc.get("replay_config")?;
    let parsed;
    let rc = match rc {
        Value::String(s) => {
            parsed = serde_json::from_str::<Value>(s).ok()?;
            &parsed
        }
        other => other,
    };
    str_at(rc, &["agent", "model", "name"]).filter(|m| m != "replay")
}

/// `state` is an object, a JSON string, or a Python dict repr.
fn working_dir(state: Option<&Value>) -> Option<String> {
    match state? {
        Value::Object(o) => o.get("working_dir").and_then(Value::as_str).map(str::to_string),
        Value::String(s) => {
            let i = s.find("working_dir")? + "working_dir".len();
            let rest = s[i..].trim_start_matches(['"', '\'', ':', ' ']);
            let end = rest.find(['"', '\''])?;
            Some(rest[..end].to_string()).filter(|d| !d.is_empty())
        }
        _ => None,
    }
}

/// The tool a 0.x action ran: SWE-agent's own command, else the shell.
fn action_tool(action: &str) -> String {
    let first = action.split_whitespace().next().unwrap_or("");
    if SWE_COMMANDS.contains(&first) { first.to_string() } else { "bash".to_string() }
}

/// `tool_call_ids` is a list, or (in saved 1.x files) the string of a Python list.
fn call_ids(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        Some(Value::String(s)) => s
            .trim_matches(['[', ']'])
            .split(',')
            .map(|p| p.trim().trim_matches(['\'', '"']).to_string())
            .filter(|p| !p.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

/// SWE-agent's own failure notices in an observation.
fn failed(observation: &str) -> bool {
    let t = observation.trim_start();
    ["Your proposed edit has introduced new syntax error", "EXECUTION TIMED OUT", "Usage: ", "Error: "]
        .iter()
        .any(|p| t.starts_with(p))
}

fn observed(output: String) -> CallResult {
    let timed_out = output.trim_start().starts_with("EXECUTION TIMED OUT");
    CallResult { is_error: failed(&output), interrupted: timed_out, output, ..CallResult::default() }
}

/// Put a result on its call, or keep it as a tool message when the call is unknown
/// or already answered.
fn join(msgs: &mut Vec<Message>, calls_at: &HashMap<String, (usize, usize)>, id: &str, r: CallResult) {
    match calls_at.get(id) {
        Some(&(m, c)) if msgs[m].calls[c].result.is_none() => msgs[m].calls[c].result = Some(r),
        _ => msgs.push(orphan_result_message(id, r)),
    }
}

/// Messages of the history, results joined in place. Calls the history leaves
/// unanswered (the last `submit`) get the observation of their trajectory step.
fn read_history(history: &[Value], steps: &[Value], sink: &mut dyn Sink) -> Vec<Message> {
    let mut msgs: Vec<Message> = Vec::new();
    // call id → (message, call) position.
    let mut calls_at: HashMap<String, (usize, usize)> = HashMap::new();
    // Calls that ran an `action`, in order, to be matched with the trajectory's steps.
    let mut action_calls: Vec<(usize, usize)> = Vec::new();
    let mut n = 0u32;
    // The call of the last 0.x action, whose observation is the next user message.
    let mut pending: Option<String> = None;
    let mut users = 0usize;
    for (i, h) in history.iter().enumerate() {
        let Some(obj) = h.as_object() else {
            sink.bad(BadRecord { line: None, reason: format!("history entry {} is not an object", i + 1) });
            continue;
        };
        let role = obj.get("role").and_then(Value::as_str).unwrap_or("");
        let text = content_text(obj.get("content"));
        let demo = obj.get("is_demo").is_some_and(|d| d.as_bool() == Some(true) || d.as_str() == Some("True"));
        match role {
            "system" => msgs.push(injected(text)),
            "user" if demo => msgs.push(injected(text)),
            "user" => {
                if let Some(id) = pending.take() {
                    join(&mut msgs, &calls_at, &id, observed(text));
                    continue;
                }
                users += 1;
                // After the task, user-role text is SWE-agent's own (format-error notices).
                msgs.push(if users == 1 {
                    Message { role: Role::User, origin: Origin::Typed, text, ..Message::default() }
                } else {
                    injected(text)
                });
            }
            "assistant" => {
                let thought = obj.get("thought").and_then(Value::as_str).map(str::to_string);
                let action = obj.get("action").and_then(Value::as_str).map(|a| a.trim_end().to_string());
                let mut calls = tool_calls(obj.get("tool_calls"), &mut n);
                let mi = msgs.len();
                match (&action, calls.len()) {
                    (Some(a), 1) if !a.is_empty() => {
                        calls[0].command = Some(a.clone());
                        action_calls.push((mi, 0));
                    }
                    (Some(a), 0) if !a.is_empty() => {
                        n += 1;
                        let id = format!("swe-step-{n}");
                        pending = Some(id.clone());
                        action_calls.push((mi, 0));
                        calls.push(Call {
                            id,
                            name: action_tool(a),
                            input: serde_json::json!({ "command": a }),
                            command: Some(a.clone()),
                            result: None,
                            continues: None,
                        });
                    }
                    _ => {}
                }
                for (ci, c) in calls.iter().enumerate() {
                    calls_at.insert(c.id.clone(), (mi, ci));
                }
                let text = thought.filter(|t| !t.trim().is_empty()).unwrap_or(text);
                msgs.push(Message { role: Role::Assistant, origin: Origin::Typed, text, calls, ..Message::default() });
            }
            "tool" => {
                let ids = call_ids(obj.get("tool_call_ids").or_else(|| obj.get("tool_call_id")));
                let id = ids.first().cloned().unwrap_or_default();
                join(&mut msgs, &calls_at, &id, observed(text));
            }
            other => {
                sink.unknown(&format!("role:{other}"));
                if !text.is_empty() {
                    msgs.push(injected(text));
                }
            }
        }
    }
    // Steps and history actions mostly correspond one to one, but a history may hold
    // an action with no step: match on the action text, moving forward.
    let mut next_step = 0;
    for &(m, c) in &action_calls {
        let call = &mut msgs[m].calls[c];
        let Some(k) = (next_step..steps.len())
            .find(|&k| steps[k].get("action").and_then(Value::as_str).map(str::trim_end) == call.command.as_deref())
        else {
            continue;
        };
        next_step = k + 1;
        if call.result.is_none()
            && let Some(o) = steps[k].get("observation").and_then(Value::as_str)
        {
            call.result = Some(observed(o.to_string()));
        }
    }
    msgs
}

fn read_steps(steps: &[Value], sink: &mut dyn Sink) -> Vec<Message> {
    let mut msgs = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let Some(obj) = s.as_object() else {
            sink.bad(BadRecord { line: None, reason: format!("trajectory step {} is not an object", i + 1) });
            continue;
        };
        let get = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let thought = get("thought");
        let text = if thought.trim().is_empty() { get("response") } else { thought };
        let action = get("action").trim_end().to_string();
        let mut calls = Vec::new();
        if !action.is_empty() {
            let result = obj.get("observation").and_then(Value::as_str).map(|o| observed(o.to_string()));
            calls.push(Call {
                id: format!("swe-step-{}", i + 1),
                name: action_tool(&action),
                input: serde_json::json!({ "command": action }),
                command: Some(action),
                result,
                continues: None,
            });
        }
        msgs.push(Message { role: Role::Assistant, origin: Origin::Typed, text, calls, ..Message::default() });
    }
    msgs
}

fn injected(text: String) -> Message {
    Message { role: Role::System, origin: Origin::Injected, text, ..Message::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_and_ids() {
        let s = Value::String("{'open_file': 'n/a', 'working_dir': '/repo'}".into());
        assert_eq!(working_dir(Some(&s)).as_deref(), Some("/repo"));
        let s = Value::String("{\"open_file\": \"n/a\", \"working_dir\": \"/testbed\"}\n".into());
        assert_eq!(working_dir(Some(&s)).as_deref(), Some("/testbed"));
        assert_eq!(call_ids(Some(&Value::String("['call_a']".into()))), vec!["call_a"]);
        assert_eq!(action_tool("find_file x.py"), "find_file");
        assert_eq!(action_tool("python reproduce.py"), "bash");
    }
}
