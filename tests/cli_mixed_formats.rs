//! A folder holding every format at once — all the real transcripts and the project's
//! own samples — indexes in one run, and search finds messages of each format.

mod common;

use std::fs;
use std::path::Path;

use common::{corpus, debrief, real_dir};
use debrief::formats;
use serde_json::Value;

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).into_iter().filter_map(Result::ok) {
        let rel = entry.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            fs::create_dir_all(&dest).unwrap();
        } else if entry.file_type().is_file() {
            fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn search(ix: &Path, args: &[&str]) -> Vec<Value> {
    let out = debrief(ix).arg("search").args(args).args(["--json", "--limit", "50"]).output().unwrap();
    assert!(out.status.success(), "search {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn every_format_in_one_folder_indexes_in_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    let mixed = tmp.path().join("mixed");
    let Some(real) = real_dir() else { return };
    copy_tree(&real, &mixed.join("real"));
    copy_tree(&corpus(""), &mixed.join("samples"));
    // OpenCode's database sample is kept as SQL; the agent writes a SQLite file.
    let db = rusqlite::Connection::open(mixed.join("samples/opencode-db/opencode.db")).unwrap();
    db.execute_batch(&fs::read_to_string(corpus("opencode-db/opencode.sql")).unwrap()).unwrap();
    drop(db);
    // So is Goose's.
    let db = rusqlite::Connection::open(mixed.join("samples/goose-db/goose/sessions/sessions.db")).unwrap();
    db.execute_batch(&fs::read_to_string(corpus("goose-db/goose/sessions/sessions.sql")).unwrap()).unwrap();
    drop(db);
    let ix = tmp.path().join("ix");

    let out = debrief(&ix).arg("index").arg(&mixed).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // A Codex rollout without a message (the real corpus has a hand-made one) is named as
    // read as nothing; nothing is unreadable, and the run succeeds.
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("unreadable"), "{err}");
    assert!(
        err.contains("session-alpha.jsonl: read as Codex CLI (format codex), but no message was found in it"),
        "{err}"
    );

    // Every format has sessions in the index, and search reaches its messages.
    let out = debrief(&ix).args(["sessions", "--json", "--limit", "100000"]).output().unwrap();
    let sessions: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for f in formats::all() {
        assert!(sessions.iter().any(|s| s["agent"] == f.id()), "no {} session indexed", f.id());
        let hits = search(&ix, &["--agent", f.id()]);
        assert!(!hits.is_empty(), "search finds no {} message", f.id());
    }

    // Words from a message of each format find that message, cited by session and line.
    let cases: &[(&str, &str, &str)] = &[
        ("aider", "\"name 'GitRepo' is not defined\"", "2024-08-06T08:47:10"),
        ("aider", "WIDGET-12", "2024-10-03T16:45:50"),
        ("specstory", "\"Session 'task#008' not found\"", "2025-04-29_20-13-session-start-error-for-task-008"),
        ("specstory", "getUTCDay", "1b7e44c0-51c2-4f8e-a0b3-9d2e6c1f0a77"),
        ("swe-agent", "\"Your proposed edit has introduced new syntax error\"", ""),
        ("openai-chat", "ZeroDivisionError", "github_issue"),
        ("openhands", "\"no new output after 30 seconds\"", "basic_gui_mode"),
        ("openhands", "\"synced 14 suppliers\"", "5b0e9c1d2f3a4b6c8d7e9f0a1b2c3d4e"),
        ("claude-code", "America/New_York", "7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93"),
        ("codex", "retry_after", "019cb2e4-7a10-7c3e-9d21-5e8f0a4b6c17"),
    ];
    for (agent, query, session) in cases {
        let hits = search(&ix, &[query, "--agent", agent]);
        assert!(!hits.is_empty(), "{agent}: {query} finds nothing");
        if !session.is_empty() {
            assert!(hits.iter().any(|h| h["session"] == *session), "{agent}: {query} not in {session}: {hits:?}");
        }
        let markdown = matches!(*agent, "aider" | "specstory" | "claude-code" | "codex");
        for h in &hits {
            assert_eq!(h["line"].is_u64(), markdown, "{agent}: line numbers only for line-oriented files: {h}");
        }
    }
}
