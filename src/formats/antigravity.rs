//! Google Antigravity's step trajectories: `~/.gemini/antigravity/brain/<conversation
//! id>/.system_generated/logs/transcript.jsonl` (the IDE's newer builds keep
//! `~/.gemini/antigravity-ide/brain/…`, the CLI `~/.gemini/antigravity-cli/brain/…`),
//! and `transcript_full.jsonl` beside it: the same steps with no output or argument cut
//! short, read instead of `transcript.jsonl` when it is there (`read_through_another`).
//!
//! One JSON object per step of the agent's trajectory, appended as it goes:
//! `{step_index, source, type, status, created_at, content?, thinking?, tool_calls?,
//! error?, truncated_fields?}`, where `source` is `USER_EXPLICIT`, `MODEL` or `SYSTEM`.
//! Steps can land slightly out of order in the file; they are read in `step_index`
//! order within a window of [`WINDOW`] steps.
//!
//! | step | becomes |
//! |---|---|
//! | `USER_INPUT` from `USER_EXPLICIT` | the text inside `<USER_REQUEST>…</USER_REQUEST>` is the typed prompt; the harness's blocks around it (`<ADDITIONAL_METADATA>`, `<USER_SETTINGS_CHANGE>`) an injected system message before it; a `Model Selection` change names the session's model |
//! | `PLANNER_RESPONSE` | an assistant message: `content` text, `thinking`, `tool_calls` `[{name, args}]` calls whose argument values are JSON written as strings (decoded; `run_command`'s `CommandLine` is the command, its `Cwd` the session's folder) |
//! | any other `MODEL` step (`RUN_COMMAND`, `VIEW_FILE`, `CODE_ACTION`, `GENERIC`, …) and `ERROR_MESSAGE` | the result of the oldest call still waiting, from an earlier step (the steps have no call ids: the agent runs its calls in order, each result a step of its own); "The command failed with exit code: N" / "completed successfully" / "exited with code N" (or the step's `exit_code`) give the exit code; an `ERROR_MESSAGE`, an `error` field or `status: ERROR` is a failed call |
//! | other `USER_EXPLICIT` steps ("The USER performed the following action: …") | an injected system message: what the person did in the editor, not words to the agent |
//! | a step with `status: RUNNING` ("Tool is running as a background task with task id: T") | the call's first part, still running; the `SYSTEM_MESSAGE` from `sender=T` ("Task id "T" finished with result: …") completes it and makes no message of its own; "was canceled with result: …" completes it interrupted |
//! | `CHECKPOINT` | the compaction summary |
//! | other `SYSTEM` steps (`SYSTEM_MESSAGE`, `CONVERSATION_HISTORY`, `EPHEMERAL_MESSAGE`, `KNOWLEDGE_ARTIFACTS`) | an injected system message when they hold text |
//!
//! A call whose result never came (the agent's next response is written first) is
//! settled without one. The session id is the conversation folder's name. Read whole
//! each time (the reordering spans lines), with line numbers.
//!
//! Sources: real transcripts committed with people's projects (the sample
//! `tests/real_agents.rs` reads), and the same file read by peers (agentsview,
//! superbased-observer's `antigravity` adapter, `antigravity_to_coach.py`).

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::{
    Assembler, At, Format, Input, NoRestart, Sink, next_json_record, orphan_result_message, parse_time, str_of,
};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, SessionMeta};

pub struct Antigravity;

/// How many steps are held to put slightly misordered lines back in `step_index` order.
const WINDOW: usize = 32;

/// `SYSTEM` step types that carry context for the model, not a conversation turn.
const SYSTEM_CONTEXT: &[&str] = &["SYSTEM_MESSAGE", "CONVERSATION_HISTORY", "EPHEMERAL_MESSAGE", "KNOWLEDGE_ARTIFACTS"];

/// A step of a trajectory: `{step_index, source, type, …}`.
fn is_step(v: &Value) -> bool {
    v.get("step_index").is_some_and(Value::is_u64)
        && matches!(str_of(v, "source"), Some("USER_EXPLICIT" | "MODEL" | "SYSTEM"))
        && str_of(v, "type").is_some()
}

impl Format for Antigravity {
    fn id(&self) -> &'static str {
        "antigravity"
    }

    fn agent(&self) -> &'static str {
        "Google Antigravity"
    }

    fn file_names(&self) -> &'static [&'static str] {
        &[".system_generated/logs/transcript.jsonl", ".system_generated/logs/transcript_full.jsonl"]
    }

    /// `transcript.jsonl` when `transcript_full.jsonl` is beside it: both are the same
    /// conversation, the first with long outputs and arguments cut short, so only the full
    /// one is read (as peers that read both do).
    fn read_through_another(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == "transcript.jsonl")
            && path.parent().and_then(Path::file_name).is_some_and(|n| n == "logs")
            && path.with_file_name("transcript_full.jsonl").is_file()
    }

    fn folders(&self, places: &super::Places) -> Vec<super::Source> {
        ["antigravity", "antigravity-ide", "antigravity-cli"]
            .iter()
            .flat_map(|app| places.in_home(self.id(), &[".gemini", app, "brain"]))
            .collect()
    }

    fn sniff(&self, _path: &Path, head: &[u8]) -> u8 {
        let text = String::from_utf8_lossy(head);
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let first = lines.next().and_then(|l| serde_json::from_str::<Value>(l).ok());
        if first.as_ref().is_some_and(is_step) { 95 } else { 0 }
    }

    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let path = input.path().to_path_buf();
        let mut sink = NoRestart::lines(sink);
        let mut meta = SessionMeta { id: conversation_id(&path), source: path, ..SessionMeta::default() };
        let mut reader = Reader::new();
        // Steps held back to be read in `step_index` order: (step index, position, step).
        let mut held: Vec<(u64, At, Value)> = Vec::new();
        let mut last_index = 0;
        while let Some((at, v)) = next_json_record(input, &mut sink)? {
            if !is_step(&v) {
                sink.unknown(str_of(&v, "type").unwrap_or("(not a step)"));
                continue;
            }
            last_index = v.get("step_index").and_then(Value::as_u64).unwrap_or(last_index);
            let k = held.partition_point(|(i, ..)| *i <= last_index);
            held.insert(k, (last_index, at, v));
            if held.len() > WINDOW {
                let (_, at, v) = held.remove(0);
                reader.step(&v, at, &mut meta, &mut sink)?;
            }
        }
        for (_, at, v) in std::mem::take(&mut held) {
            reader.step(&v, at, &mut meta, &mut sink)?;
        }
        reader.asm.finish(&mut sink)?;
        Ok(vec![meta])
    }
}

/// The conversation folder's name (`brain/<id>/.system_generated/logs/transcript.jsonl`),
/// else the file's.
fn conversation_id(path: &Path) -> String {
    let mut up = path.ancestors().skip(1);
    let (logs, generated, conv) = (up.next(), up.next(), up.next());
    let layout = logs.and_then(Path::file_name).is_some_and(|n| n == "logs")
        && generated.and_then(Path::file_name).is_some_and(|n| n == ".system_generated");
    let named = |p: Option<&Path>| p.and_then(Path::file_name).and_then(|n| n.to_str()).map(str::to_string);
    match (layout, named(conv)) {
        (true, Some(id)) => id,
        _ => path.file_stem().and_then(|s| s.to_str()).unwrap_or("session").to_string(),
    }
}

struct Reader {
    asm: Assembler,
    /// Calls waiting for their result, oldest first: (call id, step index of the response).
    waiting: VecDeque<(String, u64)>,
    /// Background tasks still running → the call that started them.
    tasks: HashMap<String, String>,
}

impl Reader {
    fn new() -> Reader {
        Reader { asm: Assembler::new(0, 1), waiting: VecDeque::new(), tasks: HashMap::new() }
    }

    fn step(&mut self, v: &Value, at: At, meta: &mut SessionMeta, sink: &mut dyn Sink) -> Result<()> {
        let timestamp = str_of(v, "created_at").and_then(parse_time);
        if let Some(t) = timestamp {
            meta.saw_time(t);
        }
        let index = v.get("step_index").and_then(Value::as_u64).unwrap_or(0);
        let content = str_of(v, "content").unwrap_or("");
        let system = |origin, text: &str| Message {
            role: Role::System,
            origin,
            timestamp,
            text: text.trim().to_string(),
            ..Message::default()
        };
        match (str_of(v, "source").unwrap_or(""), str_of(v, "type").unwrap_or("")) {
            (source, "USER_INPUT") => {
                self.settle_waiting();
                let (typed, context) = super::cursor::split_prompt(content, "USER_REQUEST");
                if let Some(model) = model_selection(&context) {
                    meta.model = Some(model);
                }
                if source != "USER_EXPLICIT" {
                    return self.push(system(Origin::Injected, content), at, sink);
                }
                if !context.is_empty() {
                    self.push(system(Origin::Injected, &context), at, sink)?;
                }
                let m = Message { role: Role::User, timestamp, text: typed, ..Message::default() };
                self.push(m, at, sink)?;
            }
            ("MODEL", "PLANNER_RESPONSE") => {
                self.settle_waiting();
                let calls: Vec<Call> = v
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                    .map(|(k, c)| call(c, index, k))
                    .collect();
                for c in &calls {
                    if c.name == "run_command"
                        && let Some(cwd) = c.input.get("Cwd").and_then(Value::as_str)
                    {
                        meta.saw_cwd(cwd);
                    }
                }
                self.waiting.extend(calls.iter().map(|c| (c.id.clone(), index)));
                let m = Message {
                    role: Role::Assistant,
                    timestamp,
                    text: content.trim().to_string(),
                    thinking: str_of(v, "thinking").unwrap_or("").trim().to_string(),
                    calls,
                    ..Message::default()
                };
                if !(m.text.is_empty() && m.thinking.is_empty() && m.calls.is_empty()) {
                    self.push(m, at, sink)?;
                }
            }
            ("SYSTEM", "CHECKPOINT") => self.push(system(Origin::CompactSummary, content), at, sink)?,
            ("SYSTEM", "SYSTEM_MESSAGE") if self.task_finished(content, at) => {}
            ("SYSTEM", kind) if SYSTEM_CONTEXT.contains(&kind) => {
                if !content.trim().is_empty() {
                    self.push(system(Origin::Injected, content), at, sink)?;
                }
            }
            ("MODEL", _) | ("SYSTEM", "ERROR_MESSAGE") => self.result(v, index, timestamp, at, sink)?,
            // What the person did in the editor ("The USER performed the following action").
            ("USER_EXPLICIT", _) => self.push(system(Origin::Injected, content), at, sink)?,
            (_, kind) => {
                sink.unknown(kind);
                if !content.trim().is_empty() {
                    self.push(system(Origin::Injected, content), at, sink)?;
                }
            }
        }
        Ok(())
    }

    fn push(&mut self, m: Message, at: At, sink: &mut dyn Sink) -> Result<()> {
        self.asm.push(m, None, at, sink).map(|_| ())
    }

    /// The agent went on: the calls still waiting will get no result.
    fn settle_waiting(&mut self) {
        for (id, _) in std::mem::take(&mut self.waiting) {
            self.asm.close_call(&id);
        }
    }

    /// A step that is a call's result, joined to the oldest call waiting from an earlier step.
    fn result(
        &mut self,
        v: &Value,
        index: u64,
        timestamp: Option<chrono::DateTime<chrono::Utc>>,
        at: At,
        sink: &mut dyn Sink,
    ) -> Result<()> {
        let error = str_of(v, "error").filter(|e| !e.trim().is_empty());
        let content = str_of(v, "content").unwrap_or("");
        let output = without_stamps(if content.is_empty() { error.unwrap_or("") } else { content });
        let running = str_of(v, "status") == Some("RUNNING");
        // `transcript_full.jsonl` also gives a finished command's code as a field.
        let field = v.get("exit_code").and_then(Value::as_i64).and_then(|c| i32::try_from(c).ok());
        let exit_code = field.or_else(|| exit_code_of(&output));
        let result = CallResult {
            is_error: error.is_some()
                || str_of(v, "type") == Some("ERROR_MESSAGE")
                || str_of(v, "status") == Some("ERROR")
                || exit_code.is_some_and(|c| c != 0),
            exit_code,
            running,
            timestamp,
            line: Some(at.line),
            output: output.clone(),
            ..CallResult::default()
        };
        let Some(k) = self.waiting.iter().position(|(_, from)| *from < index) else {
            let id = format!("step-{index}");
            return self.push(orphan_result_message(&id, result), at, sink);
        };
        let (id, _) = self.waiting.remove(k).unwrap_or_default();
        // A result written above its response: the message starts at the result's line.
        if let Some(m) = self.asm.message_of_call_mut(&id)
            && m.line.is_some_and(|l| at.line < l)
        {
            (m.line, m.offset) = (Some(at.line), Some(at.offset));
        }
        let task = running.then(|| background_task(&output)).flatten();
        let left = match task {
            Some(task) => {
                self.tasks.insert(task, id.clone());
                self.asm.attach_partial(&id, result)
            }
            None => self.asm.attach(&id, result),
        };
        if left.is_some() {
            sink.bad(BadRecord { line: Some(at.line), reason: format!("result of call {id}, which is not open") });
        }
        Ok(())
    }

    /// A `SYSTEM_MESSAGE` telling that a background task ended ("finished with result:",
    /// "was canceled with result:", a timer that "was cancelled"): its result completes
    /// the call that started it (a cancelled one is interrupted, without exit code). False when it is no such
    /// message; a note on a task still running ("The command output has stabilized …")
    /// leaves it running.
    fn task_finished(&mut self, content: &str, at: At) -> bool {
        let Some(sender) = field_after(content, "sender=") else { return false };
        let finished = content.split_once(" finished with result:").map(|(_, r)| r);
        let cancelled = [" was canceled", " was cancelled"].iter().any(|k| content.contains(k));
        if finished.is_none() && !cancelled {
            return false;
        }
        let Some(id) = self.tasks.remove(sender) else { return false };
        let told =
            finished.or_else(|| content.split_once(" was canceled with result:").map(|(_, r)| r)).unwrap_or(content);
        let told = told.split("</SYSTEM_MESSAGE>").next().unwrap_or(told);
        let output = told.rsplit_once("\nLog: ").map_or(told, |(o, _)| o).trim().to_string();
        let exit_code = exit_code_of(&output);
        // Stopped before it ended (by `manage_task`, the person, a timer): interrupted, as a
        // call the user stopped is in every format.
        let interrupted = finished.is_none();
        self.asm.amend(&id, Some(at.line), true, |r| {
            r.running = false;
            r.interrupted |= interrupted;
            r.exit_code = exit_code;
            r.is_error = r.is_error || exit_code.is_some_and(|c| c != 0);
            r.output = output;
        })
    }
}

/// A call of a response: `{name, args}`, each argument value JSON written as a string.
fn call(c: &Value, step: u64, k: usize) -> Call {
    let name = str_of(c, "name").unwrap_or("").to_string();
    let input = match c.get("args") {
        Some(Value::Object(args)) => Value::Object(
            args.iter()
                .map(|(key, val)| {
                    let decoded = val.as_str().and_then(|s| serde_json::from_str::<Value>(s).ok());
                    (key.clone(), decoded.unwrap_or_else(|| val.clone()))
                })
                .collect(),
        ),
        Some(other) => other.clone(),
        None => Value::Null,
    };
    let command = match input.get("CommandLine").and_then(Value::as_str) {
        Some(line) if name == "run_command" => Some(line.to_string()),
        _ => super::claude::shell_command(&name, &input),
    };
    Call { id: format!("step-{step}.{k}"), name, input, command, result: None, continues: None }
}

/// The exit code a command's result states: "The command failed with exit code: N" /
/// "The command completed successfully" (transcript.jsonl of the IDE), "The command
/// exited with code N." (as the CLI writes its `transcript_full.jsonl`).
fn exit_code_of(output: &str) -> Option<i32> {
    output.lines().map(str::trim).find_map(|l| {
        if l.starts_with("The command completed successfully") {
            return Some(0);
        }
        let code = l
            .strip_prefix("The command failed with exit code:")
            .or_else(|| l.strip_prefix("The command exited with code"));
        code?.trim().trim_end_matches('.').parse().ok()
    })
}

/// A result without the "Created At:" / "Completed At:" lines the agent starts it with.
fn without_stamps(output: &str) -> String {
    let mut rest = output;
    while let Some((first, after)) = rest.split_once('\n') {
        if !(first.starts_with("Created At: ") || first.starts_with("Completed At: ")) {
            break;
        }
        rest = after;
    }
    rest.to_string()
}

/// "Tool is running as a background task with task id: T".
fn background_task(output: &str) -> Option<String> {
    field_after(output, "background task with task id: ").map(str::to_string)
}

/// The word after `key` in `text`.
fn field_after<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let (_, rest) = text.split_once(key)?;
    rest.split_whitespace().next().map(|w| w.trim_matches('"')).filter(|w| !w.is_empty())
}

/// "The user changed setting `Model Selection` from A to B." → B.
fn model_selection(context: &str) -> Option<String> {
    let (_, rest) = context.split_once("setting `Model Selection` from ")?;
    let (_, to) = rest.split_once(" to ")?;
    let model = to.split(". ").next()?.trim().trim_end_matches('.');
    (!model.is_empty()).then(|| model.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_and_background_tasks() {
        let failed = "\n\t\t\t\tThe command failed with exit code: 1\n\t\t\t\tOutput:\n\t\t\t\tboom";
        assert_eq!(exit_code_of(failed), Some(1));
        assert_eq!(exit_code_of("\t\tThe command completed successfully.\n\t\tOutput:\n"), Some(0));
        assert_eq!(exit_code_of("Created file x.md"), None);
        assert_eq!(exit_code_of("\n\t\t\t\tThe command exited with code 127.\n\t\t\t\tOutput:\n"), Some(127));
        assert_eq!(exit_code_of("The command exited with code 0.\n\t\tStdout:\n"), Some(0));
        let started = "Tool is running as a background task with task id: 134d/task-32\nTask Description: pip";
        assert_eq!(background_task(started).as_deref(), Some("134d/task-32"));
        assert_eq!(without_stamps("Created At: a\nCompleted At: b\nout\nmore"), "out\nmore");
    }

    #[test]
    fn the_model_a_setting_change_names() {
        let c = "<USER_SETTINGS_CHANGE>\nThe user changed setting `Model Selection` from None to Claude Sonnet 4.6 (Thinking). No need to comment.\n</USER_SETTINGS_CHANGE>";
        assert_eq!(model_selection(c).as_deref(), Some("Claude Sonnet 4.6 (Thinking)"));
        assert_eq!(model_selection("nothing"), None);
    }

    #[test]
    fn the_conversation_folder_names_the_session() {
        let p = Path::new("/h/.gemini/antigravity/brain/4c4a3c29/.system_generated/logs/transcript.jsonl");
        assert_eq!(conversation_id(p), "4c4a3c29");
        assert_eq!(conversation_id(Path::new("/tmp/transcript.jsonl")), "transcript");
    }
}
