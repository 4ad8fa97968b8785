//! Where the index keeps the state of the files it read: a file per commit, named by
//! the commit, kept out of tantivy's `meta.json` (which every search reads).

mod common;

use std::fs;
use std::io::Write;

use common::{corpus, debrief};

fn index(ix: &std::path::Path, path: &std::path::Path) -> String {
    let out = debrief(ix).arg("index").arg(path).output().unwrap();
    assert!(out.status.success(), "index failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn state_files(ix: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(ix.join("state")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    v.sort();
    v
}

#[test]
fn the_file_state_is_kept_beside_the_commit_not_in_it() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = tmp.path().join("s");
    fs::create_dir(&dir).unwrap();
    let file = dir.join("s.jsonl");
    fs::copy(corpus("claude-code/ledger-timezone-fix.jsonl"), &file).unwrap();
    index(&ix, &dir);
    let meta = fs::read_to_string(ix.join("tantivy/meta.json")).unwrap();
    assert!(!meta.contains("s.jsonl"), "meta.json names no source file: {meta}");
    assert_eq!(state_files(&ix).len(), 1);

    // A state file left by a run killed before its commit is not the index's state.
    let first = state_files(&ix)[0].clone();
    fs::write(ix.join("state").join("99999999999999999999.json"), "{not json").unwrap();
    let again = index(&ix, &dir);
    assert!(again.contains("1 unchanged"), "{again}");

    // Each commit writes a new state file; the one before it is kept, older ones go.
    for i in 0..3 {
        let line = format!(
            r#"{{"parentUuid":null,"isSidechain":false,"cwd":"/home/dana/src/ledger","sessionId":"7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93","type":"user","message":{{"role":"user","content":"note {i} about quokkas"}},"uuid":"u-n{i}","timestamp":"2026-03-02T09:0{i}:00.000Z"}}"#
        );
        fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(format!("{line}\n").as_bytes()).unwrap();
        let out = index(&ix, &dir);
        assert!(out.contains("1 appended"), "{out}");
    }
    let files = state_files(&ix);
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(!files.contains(&first) && !files.iter().any(|f| f.starts_with("9999")), "{files:?}");
    let hits = debrief(&ix).args(["search", "quokkas", "--json"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&hits.stdout).lines().count(), 3);
}

#[test]
fn a_missing_state_file_asks_for_a_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index(&ix, &corpus("claude-code"));
    fs::remove_dir_all(ix.join("state")).unwrap();
    let out = debrief(&ix).arg("index").arg(corpus("claude-code")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("debrief index --rebuild"));
    let out = debrief(&ix).args(["index", "--rebuild"]).arg(corpus("claude-code")).output().unwrap();
    assert!(out.status.success());
}
