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
