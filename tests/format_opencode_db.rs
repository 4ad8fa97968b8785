//! OpenCode's SQLite database, built from the project's SQL sample.

mod common;

use common::{call_counts, corpus};
use debrief::formats;
use debrief::model::{Origin, Role};

fn build_db(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("opencode.db");
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
    db.execute_batch(&std::fs::read_to_string(corpus("opencode-db/opencode.sql")).unwrap()).unwrap();
    drop(db);
    path
}

#[test]
fn database_sessions_in_creation_order() {
    let tmp = tempfile::tempdir().unwrap();
    let path = build_db(tmp.path());
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "opencode-db");
    assert_eq!(parsed.sessions.len(), 2);
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "ses_4b2e91c07ffeTq8ZxW3nLp0Rd6");
    assert_eq!(s.meta.title.as_deref(), Some("Invoice rounding off by a cent"));
    assert_eq!(s.meta.project.as_deref(), Some("billing"));
    assert_eq!(s.meta.user.as_deref(), Some("ada"));
    let roles: Vec<(Role, Origin)> = s.messages.iter().map(|m| (m.role, m.origin)).collect();
    assert_eq!(roles, vec![(Role::User, Origin::Typed), (Role::Assistant, Origin::Typed), (Role::User, Origin::Typed)]);
    assert!(s.messages.iter().all(|m| m.line.is_none()));
    // task, bash (exit 1), bash still running: no result.
    assert_eq!(call_counts(s), (3, 2, 1, 1));
    let bash = &s.message(2).unwrap().calls[1];
    let r = bash.result.as_ref().unwrap();
    assert_eq!((bash.command.as_deref(), r.exit_code, r.is_error), (Some("npm test -- invoice"), Some(1), true));
    assert_eq!(s.message(2).unwrap().thinking, "Likely float rounding per line instead of on the total.");
    // The child session names its parent and the task call.
    let child = &parsed.sessions[1];
    assert_eq!(child.meta.parent_session.as_deref(), Some("ses_4b2e91c07ffeTq8ZxW3nLp0Rd6"));
    assert_eq!(child.meta.parent_call.as_deref(), Some("call_t1"));
    assert_eq!(child.messages.len(), 2);
    // A broken message row and a broken part row are reported, the rest read.
    assert_eq!(parsed.bad.len(), 2, "{:?}", parsed.bad);
    assert!(parsed.bad.iter().all(|b| b.line.is_none()));
}

#[test]
fn sniffing_knows_the_database_by_its_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let path = build_db(tmp.path());
    let renamed = tmp.path().join("backup.sqlite");
    std::fs::copy(&path, &renamed).unwrap();
    let head = formats::read_head(&renamed).unwrap();
    assert_eq!(formats::detect(&renamed, &head).map(|f| f.id()), Some("opencode-db"));
}
