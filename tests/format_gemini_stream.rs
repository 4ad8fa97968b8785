//! `gemini -p … -o stream-json` output.

mod common;

use common::broken;
use debrief::formats;
use debrief::model::Role;

#[test]
fn stream_events_become_messages_with_joined_results() {
    let parsed = formats::parse_file(&broken("gemini-stream/ci-red.jsonl"), None).unwrap();
    assert_eq!(parsed.format.id(), "gemini-stream");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b");
    assert_eq!(s.meta.model.as_deref(), Some("gemini-2.5-pro"));
    let seen: Vec<(Role, Option<u32>, Option<u32>)> = s.messages.iter().map(|m| (m.role, m.line, m.end_line)).collect();
    // A tool result ends the model's response: what follows is a new message.
    assert_eq!(
        seen,
        vec![
            (Role::User, Some(2), Some(2)),
            (Role::Assistant, Some(3), Some(6)),
            (Role::Assistant, Some(7), Some(8)),
            (Role::Assistant, Some(9), Some(9))
        ]
    );
    let m2 = s.message(2).unwrap();
    assert_eq!(m2.text, "Let me check the last run.", "deltas concatenate");
    let gh = &m2.calls[0];
    assert_eq!(gh.command.as_deref(), Some("gh run view --log-failed"));
    assert!(!gh.result.as_ref().unwrap().is_error);
    let missing = s.message(3).unwrap().calls[0].result.as_ref().unwrap();
    assert!(missing.is_error && missing.output.contains("File not found"));
    assert_eq!(missing.line, Some(8));
    assert_eq!(parsed.bad.iter().map(|b| b.line).collect::<Vec<_>>(), vec![Some(11)]);
}

/// `gemini -o stream-json` as a wrapper records it: a line its hook printed and a record
/// of its own before `init`, and tool `parameters` written as a string — JSON, or a
/// Python literal (single quotes, `True`, `None`). Records after gemini-cli's
/// `JsonStreamEvent` types (init, message, tool_use, tool_result, result).
#[test]
fn a_recorded_stream_with_foreign_records_and_string_parameters() {
    let stream = [
        "Created execution plan for SessionEnd: 1 hook(s) to execute",
        r#"{"type":"run_started","runner":"ci-bot","job":42}"#,
        r#"{"type":"init","timestamp":"2026-03-01T10:00:00.000Z","session_id":"9f1c2b3a-4d5e-4f60-8a7b-1c2d3e4f5a6b","model":"gemini-2.5-flash"}"#,
        r#"{"type":"message","timestamp":"2026-03-01T10:00:00.100Z","role":"user","content":"run the tests"}"#,
        r#"{"type":"tool_use","timestamp":"2026-03-01T10:00:02.000Z","tool_name":"run_shell_command","tool_id":"s1","parameters":"{\"command\": \"npm test\"}"}"#,
        r#"{"type":"tool_result","timestamp":"2026-03-01T10:00:09.000Z","tool_id":"s1","status":"error","output":"1 failing\nExit Code: 1"}"#,
        r#"{"type":"tool_use","timestamp":"2026-03-01T10:00:10.000Z","tool_name":"run_shell_command","tool_id":"s2","parameters":"{'command': 'npm test -- --bail', 'is_background': False, 'dir': None}"}"#,
        r#"{"type":"tool_result","timestamp":"2026-03-01T10:00:15.000Z","tool_id":"s2","status":"success","output":"Exit Code: 0"}"#,
        r#"{"type":"result","timestamp":"2026-03-01T10:00:16.000Z","status":"success","stats":{"total_tokens":900}}"#,
    ]
    .join("\n");
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("ci-run.jsonl");
    std::fs::write(&path, stream + "\n").unwrap();
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "gemini-stream", "sniffing looks past the foreign records");
    assert!(parsed.bad.is_empty(), "{:?}", parsed.bad.iter().map(|b| &b.reason).collect::<Vec<_>>());
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "9f1c2b3a-4d5e-4f60-8a7b-1c2d3e4f5a6b");
    let calls: Vec<_> = s.messages.iter().flat_map(|m| &m.calls).collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].command.as_deref(), Some("npm test"));
    assert_eq!(calls[1].command.as_deref(), Some("npm test -- --bail"));
    assert_eq!(calls[1].input["is_background"], false);
    assert!(calls[1].input["dir"].is_null());
    let codes: Vec<_> = calls.iter().map(|c| c.result.as_ref().unwrap().exit_code).collect();
    assert_eq!(codes, [Some(1), Some(0)]);
}
