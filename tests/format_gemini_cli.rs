//! Gemini CLI sessions (`chats/session-*.json` and the newer `.jsonl`).

mod common;

use common::{broken, call_counts, corpus};
use debrief::formats;
use debrief::model::{Origin, Role};

const CHATS: &str = "gemini-cli/tmp/7f4e1c9d2b3a5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7/chats";

#[test]
fn json_session_maps_messages_and_inline_results() {
    let parsed =
        formats::parse_file(&corpus(&format!("{CHATS}/session-2025-09-14T10-02-5b1c7e2a.json")), None).unwrap();
    assert_eq!(parsed.format.id(), "gemini-cli");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "5b1c7e2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d");
    assert_eq!(s.meta.model.as_deref(), Some("gemini-2.5-flash"));
    assert_eq!(s.meta.project, None, "a hashed folder name is no project name");
    let kinds: Vec<(Role, Origin)> = s.messages.iter().map(|m| (m.role, m.origin)).collect();
    use Origin::*;
    use Role::*;
    assert_eq!(
        kinds,
        vec![
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (System, Injected),
            (User, Typed),
            (Assistant, Typed),
            (System, Injected),
            (Assistant, Typed)
        ]
    );
    assert!(s.messages.iter().all(|m| m.line.is_none()));
    assert_eq!(call_counts(s), (3, 1, 1, 0));
    let m2 = s.message(2).unwrap();
    assert_eq!(m2.thinking, "Reproducing the failure: Run the target and read the error.");
    let make = &m2.calls[0];
    let r = make.result.as_ref().unwrap();
    assert_eq!((make.command.as_deref(), r.exit_code, r.is_error), (Some("make dist"), Some(2), true));
    assert!(r.output.contains("Cannot stat"));
    let cancelled = s.message(6).unwrap().calls[0].result.as_ref().unwrap();
    assert!(cancelled.interrupted);
    assert_eq!(s.message(7).unwrap().text, "[API Error: 429 Resource exhausted]");
}

#[test]
fn jsonl_session_last_version_wins_and_rewinds_drop_messages() {
    let parsed =
        formats::parse_file(&broken(&format!("{CHATS}/session-2026-02-03T08-15-9a8b7c6d.jsonl")), None).unwrap();
    assert_eq!(parsed.format.id(), "gemini-cli");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "9a8b7c6d-1e2f-4a3b-9c4d-5e6f7a8b9c0d");
    assert_eq!(s.meta.title.as_deref(), Some("Fix flaky queue drain test"), "from a $set record");
    // u2/g2 were rewound away; g1 was written three times and its last version wins,
    // keeping its first place and citing the line of the version used.
    let seen: Vec<(u32, Role, Option<u32>)> = s.messages.iter().map(|m| (m.idx, m.role, m.line)).collect();
    assert_eq!(
        seen,
        vec![
            (1, Role::User, Some(2)),
            (2, Role::Assistant, Some(6)),
            (3, Role::User, Some(10)),
            (4, Role::Assistant, Some(12)),
            (5, Role::System, Some(13)),
        ]
    );
    assert!(s.messages.iter().all(|m| !m.text.contains("retry: 3")));
    let vitest = &s.message(2).unwrap().calls[0];
    let r = vitest.result.as_ref().unwrap();
    assert_eq!(
        (vitest.command.as_deref(), r.exit_code, r.is_error),
        (Some("npx vitest run src/queue.test.ts --repeat 20"), Some(1), true)
    );
    let edit = s.message(4).unwrap().calls[0].result.as_ref().unwrap();
    assert!(edit.is_error && edit.output.starts_with("Failed to edit"));
    assert_eq!(parsed.bad.iter().map(|b| b.line).collect::<Vec<_>>(), vec![Some(11)]);
    // Reading one message back (search snippets) gives the same message.
    let m =
        formats::read_message(&s.meta.source, parsed.format, s.message(4).unwrap().offset.unwrap(), 12, 12, 4, None)
            .unwrap()
            .unwrap();
    assert_eq!(m.text, s.message(4).unwrap().text);
}

#[test]
fn subagent_sessions_name_their_parent() {
    let path =
        corpus(&format!("{CHATS}/9a8b7c6d-1e2f-4a3b-9c4d-5e6f7a8b9c0d/c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f.jsonl"));
    let s = &common::parse(&path)[0];
    assert_eq!(s.meta.parent_session.as_deref(), Some("9a8b7c6d-1e2f-4a3b-9c4d-5e6f7a8b9c0d"));
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/sam/src/jobs"));
    assert_eq!(s.messages.len(), 2);
}

#[test]
fn a_growing_jsonl_is_read_again_without_doubling() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = tmp.path().join("chats");
    std::fs::create_dir(&dir).unwrap();
    let file = dir.join("session-2026-02-03T08-15-9a8b7c6d.jsonl");
    let text = std::fs::read_to_string(broken(&format!("{CHATS}/session-2026-02-03T08-15-9a8b7c6d.jsonl"))).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&file, lines[..8].join("\n") + "\n").unwrap();
    let run = |args: &[&str]| common::debrief(&ix).args(args).output().unwrap();
    assert!(run(&["index", dir.to_str().unwrap()]).status.success());
    let hits = |q: &str| String::from_utf8_lossy(&run(&["search", q, "--json"]).stdout).lines().count();
    assert_eq!(hits("\"retry: 3\""), 1, "g2 before the rewind");
    let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all((lines[8..].join("\n") + "\n").as_bytes()).unwrap();
    drop(f);
    assert!(run(&["index", dir.to_str().unwrap()]).status.success());
    assert_eq!(hits("\"retry: 3\""), 0, "rewound away");
    assert_eq!(hits("\"find out why\""), 1, "nothing doubled");
    let sessions = String::from_utf8_lossy(&run(&["sessions", "--json"]).stdout).to_string();
    let s: serde_json::Value = serde_json::from_str(sessions.lines().next().unwrap()).unwrap();
    assert_eq!(s["messages"], 5);
}

/// A `toolCalls` record that carries its result but no `status` (other writers of the
/// session format leave it out) still has its result.
#[test]
fn a_tool_call_without_status_keeps_its_result() {
    let doc = serde_json::json!({
        "sessionId": "7d6c5b4a-3f2e-4d1c-9b0a-8f7e6d5c4b3a",
        "projectHash": "c0ffee",
        "startTime": "2026-03-01T09:00:00.000Z",
        "lastUpdated": "2026-03-01T09:01:00.000Z",
        "messages": [
            {"id": "m1", "timestamp": "2026-03-01T09:00:00.000Z", "type": "user", "content": "build it"},
            {"id": "m2", "timestamp": "2026-03-01T09:00:05.000Z", "type": "gemini", "content": "Building.",
             "toolCalls": [{"id": "run_shell_command-1", "name": "run_shell_command", "args": {"command": "make"},
                "result": [{"functionResponse": {"id": "run_shell_command-1", "name": "run_shell_command",
                    "response": {"output": "make: *** No rule to make target 'all'.\nExit Code: 2"}}}]}]}
        ]
    });
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("session-2026-03-01T09-00-7d6c5b4a.json");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    let parsed = formats::parse_file(&path, None).unwrap();
    let call = &parsed.sessions[0].messages[1].calls[0];
    let r = call.result.as_ref().expect("the result is kept");
    assert_eq!((r.exit_code, r.is_error), (Some(2), true));
    assert!(r.output.starts_with("make: ***"));
}

/// The session JSONL of the fixture with its first line replaced by `first`, in a folder
/// of its own.
fn with_first_line(tmp: &std::path::Path, first: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(broken(&format!("{CHATS}/session-2026-02-03T08-15-9a8b7c6d.jsonl"))).unwrap();
    let file = tmp.join("session-2026-02-03T08-15-9a8b7c6d.jsonl");
    let rest: Vec<&str> = text.lines().skip(1).collect();
    std::fs::write(&file, format!("{first}\n{}\n", rest.join("\n"))).unwrap();
    file
}

fn gemini_cli() -> &'static dyn formats::Format {
    formats::by_id("gemini-cli").unwrap()
}

/// A broken line is one line of error naming the file and the line, worded the way every
/// JSONL format words it, and the lines after it are read.
#[test]
fn a_broken_line_names_file_and_line_and_the_rest_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let file = with_first_line(tmp.path(), "not json at all");
    let parsed = formats::parse_file(&file, Some(gemini_cli())).unwrap();
    let bad: Vec<(Option<u32>, &str)> = parsed.bad.iter().map(|b| (b.line, b.reason.as_str())).collect();
    assert_eq!(bad, vec![(Some(1), "not a JSON object"), (Some(11), "EOF while parsing a string (column 48)")]);
    let s = &parsed.sessions[0];
    assert_eq!(s.messages.len(), 5, "the messages after the broken first line");
    assert_eq!(s.meta.title.as_deref(), Some("Fix flaky queue drain test"));
    let out = common::debrief(&tmp.path().join("ix"))
        .args(["show", "--input-format", "gemini-cli", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        vec![
            format!("debrief: {}:1: not a JSON object", file.display()),
            format!("debrief: {}:11: EOF while parsing a string (column 48)", file.display()),
        ]
    );
}

/// A first line cut short (the metadata record half written) is a broken line of the
/// JSONL, not the start of the older single document: the file is read as lines.
#[test]
fn a_first_line_cut_short_is_read_as_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let file = with_first_line(tmp.path(), r#"{"sessionId":"9a8b7c6d-1e2f-4a3b-9c4d-5e6f7a8b9c0d","projectHa"#);
    let parsed = formats::parse_file(&file, Some(gemini_cli())).unwrap();
    assert_eq!(parsed.bad.iter().map(|b| b.line).collect::<Vec<_>>(), vec![Some(1), Some(11)]);
    assert!(parsed.bad[0].reason.starts_with("EOF while parsing a string"), "{}", parsed.bad[0].reason);
    assert_eq!(parsed.sessions[0].messages.len(), 5);
}

/// The older single document, cut short: its first line opens a document, so it is read
/// whole; as it does not parse, the reader restarts and reads it as lines, which names
/// its broken lines and finds no message, so `show` says so and exits 1.
#[test]
fn a_broken_document_falls_back_to_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = std::fs::read(corpus(&format!("{CHATS}/session-2025-09-14T10-02-5b1c7e2a.json"))).unwrap();
    let file = tmp.path().join("session-2025-09-14T10-02-5b1c7e2a.json");
    std::fs::write(&file, &doc[..1500]).unwrap();
    let parsed = formats::parse_file(&file, Some(gemini_cli())).unwrap();
    assert_eq!(parsed.bad[0].line, Some(1));
    assert_eq!(parsed.bad[0].reason, "EOF while parsing an object (column 1)");
    assert_eq!((parsed.bad[1].line, parsed.bad[1].reason.as_str()), (Some(2), "not a JSON object"));
    assert!(parsed.sessions.iter().all(|s| s.messages.is_empty()));
    let out = common::debrief(&tmp.path().join("ix")).args(["show", file.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(&format!("debrief: {}:1: EOF while parsing an object (column 1)\n", file.display())),
        "{err}"
    );
    let last = err.lines().last().unwrap();
    assert_eq!(
        last,
        format!("debrief: {}: read as Gemini CLI (format gemini-cli), but no message was found in it", file.display())
    );
    // The whole document reads as before.
    let whole = tmp.path().join("whole").join("session-2025-09-14T10-02-5b1c7e2a.json");
    std::fs::create_dir(whole.parent().unwrap()).unwrap();
    std::fs::write(&whole, &doc).unwrap();
    let parsed = formats::parse_file(&whole, Some(gemini_cli())).unwrap();
    assert!(parsed.bad.is_empty());
    assert_eq!(parsed.sessions[0].messages.len(), 8);
}
