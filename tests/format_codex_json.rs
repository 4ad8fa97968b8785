//! The single-file `rollout-*.json` of the TypeScript Codex CLI (2025-04 to 2025-08).

mod common;

use common::{broken, call_counts};
use debrief::formats;
use debrief::model::Role;

#[test]
fn single_file_rollout_is_one_document() {
    let path = broken("codex-json/rollout-2025-05-02-3f2c9a1e0b7d4c5e8f6a1b2c3d4e5f60.json");
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "codex-json");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "3f2c9a1e0b7d4c5e8f6a1b2c3d4e5f60");
    assert_eq!(s.meta.started.map(|t| t.to_rfc3339()), Some("2025-05-02T18:02:11.123+00:00".into()));
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, vec![Role::User, Role::Assistant, Role::Assistant, Role::Assistant]);
    assert!(s.messages.iter().all(|m| m.line.is_none() && m.end_line.is_none()));
    assert_eq!(call_counts(s), (2, 2, 2, 0));
    let lint = &s.message(2).unwrap().calls[0];
    let r = lint.result.as_ref().unwrap();
    assert_eq!((lint.command.as_deref(), r.exit_code, r.line), (Some("npm run lint"), Some(1), None));
    // The synthetic "aborted" output after a cancel.
    assert!(s.message(3).unwrap().calls[0].result.as_ref().unwrap().interrupted);
    assert_eq!(parsed.bad.len(), 1);
    assert!(parsed.bad[0].reason.starts_with("item 7:"), "{}", parsed.bad[0].reason);
}
