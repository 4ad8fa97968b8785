//! The `{"loglines": [...]}` export of a Claude Code session: one JSON document, so
//! messages have no line numbers; the records map as in the JSONL.

mod common;

use common::{broken, call_counts, real};
use debrief::formats;
use debrief::model::{Origin, Role};

#[test]
fn loglines_export_maps_like_the_jsonl() {
    let parsed = formats::parse_file(&broken("claude-code-web/sync-dry-run.json"), None).unwrap();
    assert_eq!(parsed.format.id(), "claude-code-web");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "sync-dry-run");
    let kinds: Vec<(Role, Origin)> = s.messages.iter().map(|m| (m.role, m.origin)).collect();
    assert_eq!(
        kinds,
        vec![
            (Role::User, Origin::Typed),
            (Role::Assistant, Origin::Typed),
            (Role::Assistant, Origin::Typed),
            (Role::System, Origin::CompactSummary),
            (Role::Assistant, Origin::Typed),
        ]
    );
    assert!(s.messages.iter().all(|m| m.line.is_none() && m.end_line.is_none()));
    let bash = &s.message(3).unwrap().calls[0];
    let r = bash.result.as_ref().unwrap();
    assert_eq!(
        (bash.command.as_deref(), r.exit_code, r.is_error, r.line),
        (Some("python sync.py --dry-run"), Some(2), true, None)
    );
    assert_eq!(s.message(2).unwrap().thinking, "Need to see the argument parser first.");
    // The stray `42` is reported by its position in the list.
    assert_eq!(parsed.bad.len(), 1);
    assert_eq!(parsed.bad[0].line, None);
    assert!(parsed.bad[0].reason.starts_with("logline 6:"), "{}", parsed.bad[0].reason);
}

#[test]
fn real_loglines_export() {
    let Some(path) = real("claude_code/simonw_claude-code-transcripts/sample_session.json") else { return };
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "claude-code-web");
    let s = &parsed.sessions[0];
    assert_eq!(s.messages.len(), 21);
    assert_eq!(call_counts(s), (12, 5, 1, 0));
    assert_eq!(s.messages.iter().filter(|m| m.origin == Origin::CompactSummary).count(), 1);
    assert!(parsed.bad.is_empty());
}
