//! What a walk of a folder hands out, by the rules the formats give it: folders read
//! through another file are not entered, files read with something beside them are
//! dated and sized by it, a folder of event files is one session.

use std::fs;
use std::path::{Path, PathBuf};

use debrief::walk;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn found(root: &Path) -> Vec<walk::Candidate> {
    let mut problems = Vec::new();
    let out = walk::discover(&[root.to_path_buf()], false, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    out
}

fn relative(root: &Path, c: &[walk::Candidate]) -> Vec<PathBuf> {
    c.iter().map(|c| c.path.strip_prefix(root).unwrap().to_path_buf()).collect()
}

#[test]
fn opencode_message_and_part_folders_are_read_through_their_session() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(&root.join("storage/session/proj/ses_a1.json"), r#"{"id":"ses_a1"}"#);
    write(&root.join("storage/message/ses_a1/msg_1.json"), r#"{"id":"msg_1"}"#);
    write(&root.join("storage/part/msg_1/prt_1.json"), r#"{"id":"prt_1"}"#);
    // The older layout keeps them under session/.
    write(&root.join("old/storage/session/message/ses_b2/msg_2.json"), r#"{"id":"msg_2"}"#);
    write(&root.join("old/storage/session/part/msg_2/prt_2.json"), r#"{"id":"prt_2"}"#);
    // A folder called message elsewhere is walked like any other.
    write(&root.join("notes/message/chat.json"), "[]");
    let c = found(root);
    assert_eq!(
        relative(root, &c),
        [PathBuf::from("notes/message/chat.json"), PathBuf::from("storage/session/proj/ses_a1.json")]
    );
    // The session file is dated by its message folder.
    let folder = fs::metadata(root.join("storage/message/ses_a1")).unwrap().modified().unwrap();
    let folder = folder.duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as i128;
    assert!(c[1].mtime >= folder);
}

#[test]
fn openhands_event_cache_is_skipped_and_events_are_one_session() {
    let tmp = tempfile::tempdir().unwrap();
    let conv = tmp.path().join("conv");
    let a = r#"{"kind":"MessageEvent"}"#;
    let b = r#"{"kind":"ActionEvent","x":1}"#;
    write(&conv.join("events/event-00000-0b3f2a1c-0000-4000-8000-000000000001.json"), a);
    write(&conv.join("events/event-00001-0b3f2a1c-0000-4000-8000-000000000002.json"), b);
    write(&conv.join("event_cache/0-25.json"), "[]");
    let c = found(tmp.path());
    assert_eq!(
        relative(tmp.path(), &c),
        [PathBuf::from("conv/events/event-00000-0b3f2a1c-0000-4000-8000-000000000001.json")]
    );
    assert_eq!(c[0].size, (a.len() + b.len()) as u64);
    // Without an events folder beside it, event_cache is an ordinary folder.
    fs::remove_dir_all(conv.join("events")).unwrap();
    assert_eq!(relative(tmp.path(), &found(tmp.path())), [PathBuf::from("conv/event_cache/0-25.json")]);
}

#[test]
fn an_sqlite_database_is_sized_with_its_write_ahead_log() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("opencode.db");
    write(&db, "0123456789");
    assert_eq!(found(tmp.path())[0].size, 10);
    write(&tmp.path().join("opencode.db-wal"), "abcd");
    let c = found(tmp.path());
    assert_eq!(relative(tmp.path(), &c), [PathBuf::from("opencode.db")]);
    assert_eq!(c[0].size, 14);
}

#[test]
fn a_cline_task_folder_without_its_conversation_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("ui_messages.json"), "[]");
    assert!(walk::empty_folder_reason(tmp.path()).starts_with("a Cline / Roo Code task folder without"));
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(walk::empty_folder_reason(empty.path()), "empty folder; no transcript to read");
}
