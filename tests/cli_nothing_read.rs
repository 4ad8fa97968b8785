//! A file that gives no transcript is never a silent empty success: one line of error
//! naming it (and the format tried, when one claimed it), exit 1 for `show`, `detect`
//! and `report`; `index` lists and counts it, and `debrief sources` names it.

mod common;

use std::fs;
use std::path::Path;

use common::debrief;

/// A chat export with one record per content block (`{timestamp, role, content: {type,
/// …}}` per line): its `tool_use` blocks carry `tool_name`/`tool_id` like Gemini CLI's
/// stream-json records, but none of its records is one (no top-level `type`).
const BLOCK_EXPORT: &str = r#"{"timestamp":"2025-06-01T10:00:00Z","role":"user","content":{"type":"text","text":"fix the failing test"}}
{"timestamp":"2025-06-01T10:00:06Z","role":"assistant","content":{"type":"tool_use","tool_id":"t1","tool_name":"run_shell_command","parameters":{"command":"npm test"}}}
{"timestamp":"2025-06-01T10:00:09Z","role":"user","content":{"type":"tool_result","tool_id":"t1","output":"1 failing"}}
"#;

fn stderr_lines(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr).lines().map(str::to_string).collect()
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_block_export_is_no_format_of_ours() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(tmp.path(), "export.jsonl", BLOCK_EXPORT);
    for cmd in ["show", "detect", "report"] {
        let out = debrief(&tmp.path().join("ix")).arg(cmd).arg(&f).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        let lines = stderr_lines(&out);
        assert_eq!(lines.len(), 1, "{cmd}: one line: {lines:?}");
        assert!(lines[0].contains("export.jsonl: not a transcript format debrief knows"), "{cmd}: {lines:?}");
        assert!(out.stdout.is_empty(), "{cmd}");
    }
}

#[test]
fn a_forced_format_that_reads_nothing_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(tmp.path(), "export.jsonl", BLOCK_EXPORT);
    for cmd in ["show", "detect"] {
        let out =
            debrief(&tmp.path().join("ix")).arg(cmd).arg(&f).args(["--format", "gemini-stream"]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        let lines = stderr_lines(&out);
        assert_eq!(lines.len(), 1, "{cmd}: {lines:?}");
        assert!(
            lines[0]
                .contains("export.jsonl: read as Gemini CLI (format gemini-stream), but no message was found in it"),
            "{cmd}: {lines:?}"
        );
    }
}

/// A file read with the wrong `--format` has a bad record on every line: ten of them are
/// printed, then one line counts the rest, and the last line still says what happened.
#[test]
fn a_forced_format_caps_the_bad_record_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let text: String = (1..=30).map(|i| format!("{{\"x\":{i}}}\n")).collect();
    let f = write(tmp.path(), "other.jsonl", &text);
    for cmd in ["show", "detect"] {
        let out = debrief(&tmp.path().join("ix")).arg(cmd).arg(&f).args(["--format", "codex"]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        let lines = stderr_lines(&out);
        assert_eq!(lines.len(), 12, "{cmd}: {lines:?}");
        assert!(lines[0].contains("other.jsonl:1: "), "{cmd}: {lines:?}");
        assert!(lines[9].contains("other.jsonl:10: "), "{cmd}: {lines:?}");
        assert!(lines[10].ends_with("other.jsonl: … and 20 more bad records"), "{cmd}: {lines:?}");
        assert!(
            lines[11].contains("read as Codex CLI (format codex), but no message was found in it"),
            "{cmd}: {lines:?}"
        );
    }
}

#[test]
fn index_and_sources_name_a_file_read_as_no_message() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logs");
    fs::create_dir(&dir).unwrap();
    let f = write(&dir, "export.jsonl", BLOCK_EXPORT);
    let ix = tmp.path().join("ix");
    let out = debrief(&ix).arg("index").arg(&f).args(["--format", "gemini-stream"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("export.jsonl: read as Gemini CLI (format gemini-stream), but no message"), "{err}");
    assert!(err.contains("1 file read as no message"), "{err}");
    let out = debrief(&ix).arg("sources").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Read as no message"), "{text}");
    assert!(text.contains("export.jsonl"), "{text}");
    let out = debrief(&ix).args(["sources", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["nothing_read"][0]["format"], "gemini-stream", "{doc}");
}

#[test]
fn folders_that_give_nothing_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    // A Cline task folder whose conversation file is missing: only the chat panel's log
    // (`ui_messages.json`, Cline 3.x: `{ts, type, say|ask, text}` records).
    let task = tmp.path().join("tasks").join("1733912345678");
    fs::create_dir_all(&task).unwrap();
    write(
        &task,
        "ui_messages.json",
        r#"[{"ts":1733912345678,"type":"say","say":"task","text":"add a --dry-run flag"},{"ts":1733912349001,"type":"say","say":"api_req_started","text":"{\"request\":\"<task>\"}"}]"#,
    );
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    for (dir, says) in [(&task, "without api_conversation_history.json"), (&empty, "empty folder")] {
        for cmd in ["show", "detect", "report"] {
            let out = debrief(&tmp.path().join("ix")).arg(cmd).arg(dir).output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{cmd} {}", dir.display());
            let lines = stderr_lines(&out);
            assert_eq!(lines.len(), 1, "{cmd}: {lines:?}");
            assert!(lines[0].contains(&dir.display().to_string()) && lines[0].contains(says), "{cmd}: {lines:?}");
        }
    }
}
