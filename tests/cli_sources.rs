//! `debrief sources`: the agents' folders as found on disk, what the index has read of
//! them, and format drift — a record type a new agent version added shows up, with
//! its agent version, instead of disappearing.

mod common;

use std::fs;
use std::io::Write;
use std::path::Path;

use common::{corpus, debrief};
use serde_json::Value;

/// A home folder with a Claude Code project and a Codex rollout that each hold a record
/// type debrief does not know.
fn home_with_drift(home: &Path) {
    let claude = home.join(".claude/projects/-home-dana-src-ledger");
    fs::create_dir_all(&claude).unwrap();
    fs::copy(corpus("claude-code/ledger-timezone-fix.jsonl"), claude.join("7f3c2a10.jsonl")).unwrap();
    let codex = home.join(".codex/sessions/2026/03/04");
    fs::create_dir_all(&codex).unwrap();
    let sample = fs::read_dir(corpus("codex/2026/03/04")).unwrap().next().unwrap().unwrap().path();
    let mut text = fs::read_to_string(sample).unwrap();
    text.push_str(
        "{\"timestamp\":\"2026-03-04T14:09:00.000Z\",\"type\":\"turn_diff\",\"payload\":{\"unified_diff\":\"\"}}\n",
    );
    fs::write(codex.join("rollout-2026-03-04T14-00-00-019cb2e4.jsonl"), text).unwrap();
}

fn run(ix: &Path, home: &Path, args: &[&str]) -> std::process::Output {
    debrief(ix)
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env_remove("FILE_STORE_PATH")
        .env_remove("MSWEA_GLOBAL_CONFIG_DIR")
        .output()
        .unwrap()
}

fn sources_json(ix: &Path, home: &Path) -> Value {
    let out = run(ix, home, &["sources", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

fn source<'a>(doc: &'a Value, agent: &str) -> &'a Value {
    doc["sources"].as_array().unwrap().iter().find(|s| s["agent"] == agent).unwrap()
}

#[test]
fn sources_show_folders_what_is_indexed_and_format_drift() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, ix) = (tmp.path().join("home"), tmp.path().join("ix"));
    home_with_drift(&home);

    // Before any index: the folders, and no drift to report.
    let doc = sources_json(&ix, &home);
    let claude = source(&doc, "claude-code");
    assert_eq!((claude["exists"].as_bool(), claude["files"].as_u64()), (Some(true), Some(1)));
    assert!(claude["indexed"].is_null());
    assert!(!source(&doc, "openhands")["exists"].as_bool().unwrap());
    let elsewhere: Vec<&str> =
        doc["elsewhere"].as_array().unwrap().iter().map(|e| e["agent"].as_str().unwrap()).collect();
    assert!(elsewhere.contains(&"aider") && elsewhere.contains(&"specstory"));

    // `debrief index` reads the default folders and names the drift in its summary.
    let out = run(&ix, &home, &["index"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("format drift: 1 codex 0.98.0 record(s) of unknown type `turn_diff`"), "{err}");
    assert!(err.contains("format drift: 1 claude-code 2.1.30 record(s) of unknown type `agent-color`"), "{err}");

    // …and the index remembers it, per format and agent version.
    let doc = sources_json(&ix, &home);
    assert_eq!(source(&doc, "claude-code")["indexed"], 1);
    assert_eq!(source(&doc, "codex")["indexed"], 1);
    assert!(source(&doc, "codex")["bytes"].as_u64().unwrap() > 0);
    let drift: Vec<(String, String, String, u64, u64)> = doc["drift"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["format"].as_str().unwrap().into(),
                d["agent_version"].as_str().unwrap_or("").into(),
                d["kind"].as_str().unwrap().into(),
                d["records"].as_u64().unwrap(),
                d["files"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        drift,
        [
            ("claude-code".into(), "2.1.30".into(), "agent-color".into(), 1, 1),
            ("codex".into(), "0.98.0".into(), "turn_diff".into(), 1, 1),
        ]
    );

    // The same, for people.
    let out = run(&ix, &home, &["sources"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("codex 0.98.0: 1 record of type `turn_diff` in 1 file"), "{text}");
    assert!(text.contains("aider") && text.contains(".aider.chat.history.md"), "{text}");
    assert!(text.contains("1 file, ") && text.contains("1 indexed"), "{text}");
}

#[test]
fn appends_count_only_the_new_unknown_records() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, ix) = (tmp.path().join("home"), tmp.path().join("ix"));
    home_with_drift(&home);
    let file = home.join(".claude/projects/-home-dana-src-ledger/7f3c2a10.jsonl");
    assert!(run(&ix, &home, &["index"]).status.success());
    // The session goes on: a new turn, and another record of the unknown type.
    let mut f = fs::OpenOptions::new().append(true).open(&file).unwrap();
    writeln!(f, r#"{{"type":"user","sessionId":"7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93","uuid":"u-new","timestamp":"2026-02-27T11:40:00.000Z","cwd":"/home/dana/src/ledger","version":"2.1.30","message":{{"role":"user","content":"also check the DST edge"}}}}"#).unwrap();
    writeln!(f, r#"{{"type":"agent-color","sessionId":"7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93","color":"plum"}}"#)
        .unwrap();
    drop(f);
    let out = run(&ix, &home, &["index"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("1 appended"), "{err}");
    let doc = sources_json(&ix, &home);
    let color = doc["drift"].as_array().unwrap().iter().find(|d| d["kind"] == "agent-color").unwrap();
    assert_eq!(color["records"], 2, "the old record is not counted again: {color}");
}
