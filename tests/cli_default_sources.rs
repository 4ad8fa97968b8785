//! `debrief index` with no paths finds the default folders of Gemini CLI, OpenCode,
//! Cline, Roo Code, Cursor, Goose and Google Antigravity, honouring their own environment
//! overrides.

mod common;

use std::fs;
use std::path::Path;

use common::{corpus, debrief};

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            fs::create_dir_all(&dest).unwrap();
        } else {
            fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

#[test]
fn index_without_paths_reads_every_agents_default_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let gemini_home = tmp.path().join("gemini-home");
    let data = tmp.path().join("data");
    let config = tmp.path().join("config");
    // Gemini CLI under $GEMINI_CLI_HOME/.gemini/tmp.
    copy_tree(&corpus("gemini-cli/tmp"), &gemini_home.join(".gemini/tmp"));
    // OpenCode's storage folder and database under $XDG_DATA_HOME/opencode.
    copy_tree(&corpus("opencode/storage"), &data.join("opencode/storage"));
    let db = rusqlite::Connection::open(data.join("opencode/opencode.db")).unwrap();
    db.execute_batch(&fs::read_to_string(corpus("opencode-db/opencode.sql")).unwrap()).unwrap();
    drop(db);
    // Goose's database under $XDG_DATA_HOME/goose/sessions.
    fs::create_dir_all(data.join("goose/sessions")).unwrap();
    let db = rusqlite::Connection::open(data.join("goose/sessions/sessions.db")).unwrap();
    db.execute_batch(&fs::read_to_string(corpus("goose-db/goose/sessions/sessions.sql")).unwrap()).unwrap();
    drop(db);
    // Cursor's agent transcripts under ~/.cursor/projects.
    copy_tree(&corpus("cursor"), &home.join(".cursor/projects"));
    // Antigravity's trajectories under ~/.gemini/antigravity-ide/brain.
    copy_tree(&corpus("antigravity/brain"), &home.join(".gemini/antigravity-ide/brain"));
    // Beside a trajectory, its `transcript_full.jsonl` (the same steps, nothing cut short)
    // is read instead of it: one session, not two.
    let logs = home.join(".gemini/antigravity-ide/brain/134d1ba9-b2ee-401e-8db2-5a57448111dd/.system_generated/logs");
    fs::copy(logs.join("transcript.jsonl"), logs.join("transcript_full.jsonl")).unwrap();
    // Cline in VS Code, Roo Code in Cursor.
    copy_tree(&corpus("cline/saoudrizwan.claude-dev"), &config.join("Code/User/globalStorage/saoudrizwan.claude-dev"));
    copy_tree(
        &corpus("roo-code/rooveterinaryinc.roo-cline"),
        &config.join("Cursor/User/globalStorage/rooveterinaryinc.roo-cline"),
    );
    let ix = tmp.path().join("ix");
    let run = |args: &[&str]| {
        debrief(&ix)
            .args(args)
            .env("HOME", &home)
            .env("GEMINI_CLI_HOME", &gemini_home)
            .env("XDG_DATA_HOME", &data)
            .env("XDG_CONFIG_HOME", &config)
            .output()
            .unwrap()
    };
    let out = run(&["index"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let sessions = run(&["sessions", "--json"]);
    let mut formats: Vec<String> = String::from_utf8_lossy(&sessions.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["agent"].as_str().unwrap().to_string())
        .collect();
    formats.sort();
    let full = String::from_utf8_lossy(&sessions.stdout).lines().any(|l| l.contains("transcript_full.jsonl"));
    assert!(full, "the Antigravity session is read from transcript_full.jsonl");
    assert_eq!(
        formats,
        vec![
            "antigravity",
            "cline",
            "cursor",
            "cursor",
            "gemini-cli",
            "gemini-cli",
            "gemini-cli",
            "goose-db",
            "goose-db",
            "opencode",
            "opencode",
            "opencode-db",
            "opencode-db",
            "roo-code"
        ]
    );
}
