//! Messages for the detectors' unit tests, built the way the parsers build them.

use serde_json::json;

use super::{Detector, Finding, SessionStats, SessionView};
use crate::model::{Call, CallResult, Message, Role};

/// An assistant message that runs `cmd` in the shell and gets `output` back.
pub fn bash(idx: u32, cmd: &str, output: &str) -> Message {
    Message {
        idx,
        role: Role::Assistant,
        calls: vec![Call {
            name: "Bash".into(),
            command: Some(cmd.into()),
            input: json!({ "command": cmd }),
            result: Some(CallResult { output: output.into(), ..CallResult::default() }),
            ..Call::default()
        }],
        ..Message::default()
    }
}

/// [`bash`] with the command's exit code (non-zero is an error, as the parsers mark it).
pub fn bash_exit(idx: u32, cmd: &str, output: &str, exit: Option<i32>) -> Message {
    let mut m = bash(idx, cmd, output);
    if let Some(r) = m.calls[0].result.as_mut() {
        r.exit_code = exit;
        r.is_error = exit.is_some_and(|c| c != 0);
    }
    m
}

/// A message of words only.
pub fn said(idx: u32, role: Role, text: &str) -> Message {
    Message { idx, role, text: text.into(), ..Message::default() }
}

/// An assistant message saying `text` and, when `cmd` is given, running its command and
/// getting its output back.
pub fn step(idx: u32, text: &str, cmd: Option<(&str, &str)>) -> Message {
    let m = match cmd {
        Some((c, o)) => bash(idx, c, o),
        None => said(idx, Role::Assistant, ""),
    };
    Message { text: text.into(), ..m }
}

/// An assistant message that edits `file` with the Edit tool.
pub fn edit(idx: u32, file: &str) -> Message {
    Message {
        idx,
        role: Role::Assistant,
        calls: vec![Call { name: "Edit".into(), input: json!({ "file_path": file }), ..Call::default() }],
        ..Message::default()
    }
}

/// What one detector finds in `messages`, checked as a whole session.
pub fn check(d: &dyn Detector, messages: &[Message]) -> Vec<Finding> {
    let mut out = Vec::new();
    d.check(&SessionView { messages, stats: &SessionStats::default() }, &mut out);
    out
}
