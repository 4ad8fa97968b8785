//! `debrief index` / `search` / `sessions` / `show` end to end, as a user runs them:
//! incremental runs, appends, half-written lines, bad input, locking, exit codes.

mod common;

use std::fs;
use std::io::Write;
use std::path::Path;

use common::{corpus, debrief, json_lines, real, search_json as search, stderr_of};
use predicates::prelude::*;
use serde_json::Value;

fn index(ix: &Path, path: &Path) -> String {
    let out = debrief(ix).arg("index").arg(path).output().unwrap();
    assert!(out.status.success(), "index failed: {}", stderr_of(&out));
    stderr_of(&out)
}

/// Index the two foundation samples (the Claude ledger session and the 2026 Codex
/// rollout); the corpus holds more formats' samples, which have tests of their own.
fn index_samples(ix: &Path) -> String {
    let out = debrief(ix)
        .arg("index")
        .arg(corpus("claude-code/ledger-timezone-fix.jsonl"))
        .arg(corpus("codex/2026/03"))
        .output()
        .unwrap();
    assert!(out.status.success(), "index failed: {}", stderr_of(&out));
    stderr_of(&out)
}

#[test]
fn indexing_the_corpus_then_searching_cites_message_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let summary = index_samples(&ix);
    assert!(summary.contains("2 sessions"), "{summary}");
    let hits = search(&ix, &["America/New_York"]);
    assert!(!hits.is_empty());
    // The user's remark is [msg 8] on line 15 of the Claude sample.
    let user = hits.iter().find(|h| h["role"] == "user").expect("the user's message is found");
    assert_eq!(user["idx"], 8);
    assert_eq!(user["line"], 15);
    assert_eq!(user["session"], "7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93");
    assert!(user["snippet"].as_str().unwrap().contains("America/New_York"));
    for key in ["source", "session", "idx", "line", "role", "score", "snippet", "detectors"] {
        assert!(user.get(key).is_some(), "search --json has {key}");
    }
}

#[test]
fn code_and_log_text_is_searchable_as_typed() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index_samples(&ix);
    // identifier, path, scope-like and snake_case queries, and a phrase.
    for (q, idx) in [
        ("test_balance_rollover", 3),
        ("tests/test_balance.py", 4),
        ("retry_after", 5),
        ("\"job delivered 14 times\"", 7),
        ("next_delay", 5),
    ] {
        let hits = search(&ix, &[q]);
        assert!(hits.iter().any(|h| h["idx"] == idx), "query {q} should find msg {idx}: {hits:?}");
    }
    // Parts of identifiers match too, and exclusion works.
    assert!(!search(&ix, &["rollover"]).is_empty());
    let with = search(&ix, &["pytest"]).len();
    let without = search(&ix, &["pytest -TZ"]).len();
    assert!(without < with);
}

#[test]
fn filters_narrow_results() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index_samples(&ix);
    let all = search(&ix, &["test"]);
    let codex = search(&ix, &["test", "--agent", "codex"]);
    assert!(!codex.is_empty() && codex.len() < all.len());
    assert!(codex.iter().all(|h| h["agent"] == "codex"));
    let users = search(&ix, &["test", "--role", "user"]);
    assert!(users.iter().all(|h| h["role"] == "user"));
    let bash = search(&ix, &["pytest", "--tool", "bash"]);
    assert!(!bash.is_empty() && bash.iter().all(|h| h["agent"] == "claude-code"));
    let failed = search(&ix, &["--errors"]);
    assert_eq!(failed.len(), 2, "one failed call per sample: {failed:?}");
    assert!(
        search(&ix, &["test", "--project", "ledger"])
            .iter()
            .all(|h| h["session"] == "7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93")
    );
    assert!(search(&ix, &["test", "--session", "019cb2e4"]).iter().all(|h| h["agent"] == "codex"));
    assert!(search(&ix, &["test", "--since", "2026-03-03"]).iter().all(|h| h["agent"] == "codex"));
    assert!(search(&ix, &["test", "--until", "2026-03-03"]).iter().all(|h| h["agent"] == "claude-code"));
    assert!(search(&ix, &["test", "--file", "core.py"]).iter().all(|h| h["agent"] == "claude-code"));
}

#[test]
fn unchanged_files_are_not_read_again_and_appends_show_up() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = tmp.path().join("sessions");
    fs::create_dir(&dir).unwrap();
    let file = dir.join("s.jsonl");
    fs::copy(corpus("claude-code/ledger-timezone-fix.jsonl"), &file).unwrap();
    let first = index(&ix, &dir);
    assert!(first.contains("1 read"), "{first}");
    let second = index(&ix, &dir);
    assert!(second.contains("0 read, 0 appended, 1 unchanged"), "{second}");
    assert!(second.contains("0 messages"), "{second}");

    let line = r#"{"parentUuid":null,"isSidechain":false,"cwd":"/home/dana/src/ledger","sessionId":"7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93","version":"2.1.30","type":"user","message":{"role":"user","content":"please also add a regression test for quokkas"},"uuid":"u-new","timestamp":"2026-03-02T09:05:00.000Z"}"#;
    fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(format!("{line}\n").as_bytes()).unwrap();
    let third = index(&ix, &dir);
    assert!(third.contains("1 appended"), "{third}");
    let hits = search(&ix, &["quokkas"]);
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["idx"], 13);
    assert_eq!(hits[0]["line"], 26);
    // Nothing was doubled: the earlier messages are found once.
    assert_eq!(search(&ix, &["America/New_York", "--role", "user"]).len(), 1);
    let sessions = debrief(&ix).args(["sessions", "--json"]).output().unwrap();
    let s = json_lines(&sessions);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0]["messages"], 13);
}

#[test]
fn appending_gives_the_same_index_as_reading_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(src) = real("claude_code/sniffly/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl") else { return };
    let text = fs::read_to_string(&src).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Whole file at once.
    let whole_dir = tmp.path().join("whole");
    fs::create_dir(&whole_dir).unwrap();
    fs::write(whole_dir.join("s.jsonl"), &text).unwrap();
    let ix_whole = tmp.path().join("ix-whole");
    index(&ix_whole, &whole_dir);
    // In three steps.
    let parts_dir = tmp.path().join("parts");
    fs::create_dir(&parts_dir).unwrap();
    let f = parts_dir.join("s.jsonl");
    let ix_parts = tmp.path().join("ix-parts");
    for cut in [40, 90, lines.len()] {
        fs::write(&f, lines[..cut].join("\n") + "\n").unwrap();
        index(&ix_parts, &parts_dir);
    }
    for q in ["torch", "music", "error", "python", "notebook", "conda"] {
        let a: Vec<(Value, Value)> =
            search(&ix_whole, &[q, "-n", "200"]).iter().map(|h| (h["idx"].clone(), h["line"].clone())).collect();
        let mut b: Vec<(Value, Value)> =
            search(&ix_parts, &[q, "-n", "200"]).iter().map(|h| (h["idx"].clone(), h["line"].clone())).collect();
        let mut a = a;
        a.sort_by_key(|x| x.0.as_u64());
        b.sort_by_key(|x| x.0.as_u64());
        assert_eq!(a, b, "query {q}");
    }
}

#[test]
fn a_half_written_last_line_is_retried_not_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = tmp.path().join("live");
    fs::create_dir(&dir).unwrap();
    let file = dir.join("live.jsonl");
    let full = fs::read_to_string(corpus("claude-code/ledger-timezone-fix.jsonl")).unwrap();
    let last = r#"{"parentUuid":null,"cwd":"/x","sessionId":"7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93","type":"user","message":{"role":"user","content":"where are the wombats"},"uuid":"u-w","timestamp":"2026-03-02T09:06:00.000Z"}"#;
    let (head, tail) = last.split_at(60);
    fs::write(&file, format!("{full}{head}")).unwrap();
    let first = index(&ix, &dir);
    assert!(first.contains("half-written last line"), "{first}");
    assert!(!first.contains("bad record"), "{first}");
    assert!(search(&ix, &["wombats"]).is_empty());
    fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(format!("{tail}\n").as_bytes()).unwrap();
    index(&ix, &dir);
    let hits = search(&ix, &["wombats"]);
    assert_eq!(hits.len(), 1, "the completed line is indexed once");
    assert_eq!(hits[0]["line"], 26);
}

#[test]
fn bad_records_are_reported_once_with_file_and_line_and_the_rest_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = tmp.path().join("bad");
    fs::create_dir(&dir).unwrap();
    let good = fs::read_to_string(corpus("claude-code/ledger-timezone-fix.jsonl")).unwrap();
    let mut lines: Vec<Vec<u8>> = good.lines().map(|l| l.as_bytes().to_vec()).collect();
    lines.insert(3, b"this is not json".to_vec());
    lines.insert(5, br#"{"type":"user","message":{"role":"user","content":42}}"#.to_vec());
    let mut bad_utf8 =
        br#"{"parentUuid":null,"sessionId":"x","type":"user","message":{"role":"user","content":"caf"#.to_vec();
    bad_utf8.extend_from_slice(&[0xff, 0xfe]);
    bad_utf8.extend_from_slice(br#" lemurs"},"uuid":"u-8","timestamp":"2026-03-02T09:00:06.000Z"}"#);
    lines.insert(7, bad_utf8);
    let mut bytes = Vec::new();
    for l in &lines {
        bytes.extend_from_slice(l);
        bytes.push(b'\n');
    }
    let file = dir.join("bad.jsonl");
    fs::write(&file, bytes).unwrap();
    fs::write(dir.join("empty.jsonl"), "").unwrap();
    let out = debrief(&ix).arg("index").arg(&dir).output().unwrap();
    assert!(out.status.success());
    let err = stderr_of(&out);
    let name = file.display().to_string();
    assert!(err.contains(&format!("{name}:4: not a JSON object")), "{err}");
    assert!(err.contains(&format!("{name}:6: ")), "{err}");
    assert!(err.contains(&format!("{name}:8: invalid UTF-8 replaced")), "{err}");
    assert!(err.contains("empty.jsonl: empty file"), "{err}");
    assert_eq!(err.matches(&format!("{name}:4:")).count(), 1, "reported once");
    assert!(err.contains("last-run.log"), "{err}");
    let log = fs::read_to_string(ix.join("last-run.log")).unwrap();
    assert!(log.contains(&format!("{name}:4: not a JSON object")));
    // Every good record is still there, and the repaired line too.
    assert_eq!(search(&ix, &["America/New_York", "--role", "user"]).len(), 1);
    assert_eq!(search(&ix, &["lemurs"]).len(), 1);
}

/// Files of no known format in a folder are skipped, and the summary's count of them
/// points at `last-run.log`, which names each one. Diagnostics on stderr name files as
/// `show` and `detect` do (relative to the current folder when inside it).
#[test]
fn skipped_files_are_listed_in_the_run_log() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = tmp.path().join("mixed");
    fs::create_dir(&dir).unwrap();
    fs::copy(corpus("claude-code/ledger-timezone-fix.jsonl"), dir.join("ledger.jsonl")).unwrap();
    fs::write(dir.join("notes.json"), "{\"todo\": [\"buy milk\"]}\n").unwrap();
    fs::write(dir.join("settings.json"), "{\"theme\": \"dark\"}\n").unwrap();
    let out = debrief(&ix).arg("index").arg(&dir).output().unwrap();
    assert!(out.status.success());
    let err = stderr_of(&out);
    assert!(err.contains("2 files of no known format skipped (listed in "), "{err}");
    let log = fs::read_to_string(ix.join("last-run.log")).unwrap();
    for name in ["notes.json", "settings.json"] {
        let line = format!("{}: skipped: not a transcript format debrief knows", dir.join(name).display());
        assert!(log.lines().any(|l| l == line), "{line} in:\n{log}");
    }
    assert!(!log.contains("ledger.jsonl"), "{log}");
    // A broken record under the current folder is named relative to it, on stderr.
    let mut text = fs::read_to_string(corpus("claude-code/ledger-timezone-fix.jsonl")).unwrap();
    text.push_str("{\"type\": \"user\", \"message\": \n{}\n");
    fs::write(dir.join("ledger.jsonl"), text).unwrap();
    let out = debrief(&ix).current_dir(tmp.path()).arg("index").arg(&dir).output().unwrap();
    let err = stderr_of(&out);
    assert!(err.contains("debrief: mixed/ledger.jsonl:"), "{err}");
}

/// A subagent's `agent-<id>.meta.json` beside its `agent-<id>.jsonl` (Claude Code, Qwen
/// Code) is read with that transcript: no file of unknown format. Beside nothing, it is one.
#[test]
fn subagent_sidecars_are_not_unknown_files() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = tmp.path().join("subagents");
    fs::create_dir(&dir).unwrap();
    let from =
        common::root().join("tests/data/qwen-subagent/-home-dev-shop/subagents/3b9e1c20-4f7a-4e2d-8c15-6a0d2f9e7b41");
    for name in ["agent-explore-7f3c.jsonl", "agent-explore-7f3c.meta.json"] {
        fs::copy(from.join(name), dir.join(name)).unwrap();
    }
    fs::copy(from.join("agent-explore-7f3c.meta.json"), dir.join("agent-lost.meta.json")).unwrap();
    let out = debrief(&ix).arg("index").arg(&dir).output().unwrap();
    assert!(out.status.success());
    let err = stderr_of(&out);
    assert!(err.contains("1 file of no known format skipped"), "{err}");
    let log = fs::read_to_string(ix.join("last-run.log")).unwrap();
    assert!(log.contains("agent-lost.meta.json") && !log.contains("agent-explore-7f3c.meta.json"), "{log}");
}

#[test]
fn a_huge_single_line_is_skipped_with_a_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("huge");
    fs::create_dir(&dir).unwrap();
    let good = fs::read_to_string(corpus("claude-code/ledger-timezone-fix.jsonl")).unwrap();
    let huge =
        format!("{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}", "x".repeat(70 << 20));
    fs::write(dir.join("h.jsonl"), format!("{huge}\n{good}")).unwrap();
    let parsed = debrief::formats::parse_file(&dir.join("h.jsonl"), None).unwrap();
    assert_eq!(parsed.bad.len(), 1);
    assert_eq!(parsed.bad[0].line, Some(1));
    assert!(parsed.bad[0].reason.contains("longer than"), "{}", parsed.bad[0].reason);
    assert_eq!(parsed.sessions[0].messages.len(), 12);
}

#[test]
fn deleted_files_leave_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = tmp.path().join("d");
    fs::create_dir(&dir).unwrap();
    fs::copy(corpus("claude-code/ledger-timezone-fix.jsonl"), dir.join("a.jsonl")).unwrap();
    index(&ix, &dir);
    assert_eq!(search(&ix, &["America/New_York", "--role", "user"]).len(), 1);
    fs::remove_file(dir.join("a.jsonl")).unwrap();
    let out = index(&ix, &dir);
    assert!(out.contains("1 removed"), "{out}");
    assert!(search(&ix, &["America/New_York"]).is_empty());
}

#[test]
fn a_second_index_run_is_told_the_index_is_busy() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index(&ix, &corpus("claude-code"));
    let lock = fs::OpenOptions::new().read(true).write(true).open(ix.join("debrief.lock")).unwrap();
    lock.try_lock().unwrap();
    debrief(&ix).arg("index").arg(corpus("claude-code")).assert().code(1).stderr(
        predicate::str::contains("another `debrief index` is writing to").and(predicate::str::contains("--wait")),
    );
    // Searching while the lock is held works.
    assert!(!search(&ix, &["ledger"]).is_empty());
    drop(lock);
}

#[test]
fn an_index_of_another_schema_version_asks_for_a_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index(&ix, &corpus("claude-code"));
    fs::write(ix.join("debrief.json"), r#"{"schema":0}"#).unwrap();
    debrief(&ix)
        .args(["search", "ledger"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("debrief index --rebuild"));
    debrief(&ix).arg("index").arg("--rebuild").arg(corpus("claude-code")).assert().success();
    assert!(!search(&ix, &["ledger"]).is_empty());
}

#[test]
fn exit_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    debrief(&ix).arg("--no-such-flag").assert().code(2);
    debrief(&ix)
        .args(["show", "/no/such/file.jsonl"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("/no/such/file.jsonl"));
    debrief(&ix).args(["search", "x"]).assert().code(1).stderr(predicate::str::contains("run `debrief index` first"));
    debrief(&ix).args(["detect", "--json"]).arg(corpus("")).assert().code(0);
}

#[test]
fn show_json_follows_the_contract() {
    let tmp = tempfile::tempdir().unwrap();
    let out = debrief(&tmp.path().join("ix"))
        .args(["show", "--json", "--range", "4..5"])
        .arg(corpus("claude-code/ledger-timezone-fix.jsonl"))
        .output()
        .unwrap();
    let msgs = json_lines(&out);
    assert_eq!(msgs.len(), 2);
    let m = &msgs[0];
    for key in ["source", "session", "format", "idx", "line", "end_line", "role", "timestamp", "text", "calls"] {
        assert!(m.get(key).is_some(), "show --json has {key}");
    }
    assert_eq!(m["idx"], 4);
    assert_eq!(m["format"], "claude-code");
    let call = &m["calls"][0];
    for key in ["id", "name", "command", "output", "exit_code", "is_error"] {
        assert!(call.get(key).is_some(), "call has {key}");
    }
    assert_eq!(call["exit_code"], 1);
    assert_eq!(call["is_error"], true);
}

#[test]
fn search_filters_by_program_and_by_file_from_parsed_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index_samples(&ix);
    // `rg -n "backoff|retry_after" worker/` and `sed -n '40,75p' worker/deliver.py`.
    let rg = search(&ix, &["--program", "rg"]);
    assert_eq!(rg.len(), 1);
    assert_eq!(rg[0]["idx"], 5);
    let sed = search(&ix, &["--program", "sed", "--file", "deliver.py"]);
    assert_eq!(sed.len(), 1);
    assert_eq!(sed[0]["idx"], 6);
    // `... python -m pytest ... 2>&1 | tail -20` ran python and tail.
    assert!(search(&ix, &["--program", "tail", "--agent", "claude"]).iter().any(|h| h["idx"] == 4));
}

/// A wrong argument is a usage error (exit 2, one line naming it), whether clap or the
/// command finds it; a failure of the work is 1.
#[test]
fn wrong_arguments_exit_2_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index_samples(&ix);
    let seed = corpus("seed-replay");
    let seed = seed.to_str().unwrap();
    for args in [
        vec!["search"],
        vec!["search", "x", "--since", "yesterdayish"],
        vec!["search", "x", "--role", "robot"],
        vec!["detect", "--select", "nope", seed],
        vec!["show", seed, "--range", "9..3"],
        vec!["report", seed, "--arc", "x..y"],
        vec!["show", seed, "--no-redact", "--redact-patterns", "p.txt"],
        vec!["report", seed, "--session", "no-such-session"],
    ] {
        let out = debrief(&ix).args(&args).output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.lines().next().is_some_and(|l| l.contains("debrief") || l.starts_with("error:")),
            "{args:?}: {err}"
        );
    }
    let out = debrief(&ix).args(["detect", "/nonexistent/x.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// When no message has every word of the query, keyword search ranks the messages with
/// any of them (stop words dropped) and says so: in one stderr line for people, in each
/// hit's `found_by` in `--json`. A query that some message matches whole is answered as
/// before.
#[test]
fn a_query_no_message_matches_whole_falls_back_to_any_word() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index_samples(&ix);
    // No message has all of "why", "does", "rollover", "break", "timezone": the user's
    // question (msg 3, "test_balance_rollover fails on CI") has `rollover`.
    let q = "why does rollover break with the timezone";
    let out = debrief(&ix).args(["search", q, "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let hits = json_lines(&out);
    assert!(!hits.is_empty(), "any-word matching finds messages");
    assert!(hits.iter().all(|h| h["found_by"] == serde_json::json!(["any-word"])), "{hits:?}");
    assert!(hits.iter().any(|h| h["idx"] == 3 && h["agent"] == "claude-code"), "{hits:?}");
    assert!(stderr_of(&out).contains("no message has every word"), "{}", stderr_of(&out));
    let text = debrief(&ix).args(["search", q]).output().unwrap();
    let err = stderr_of(&text);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("no message has every word of the query"), "{err}");
    assert!(String::from_utf8_lossy(&text.stdout).contains("[msg 3]"));
    // Filters still hold in the fallback.
    let codex = search(&ix, &[q, "--agent", "codex"]);
    assert!(codex.iter().all(|h| h["agent"] == "codex"), "{codex:?}");

    // Near miss: every word of this query is in msg 3, so it is no fallback.
    let out = debrief(&ix).args(["search", "rollover fails on CI", "--json"]).output().unwrap();
    let hits = json_lines(&out);
    assert!(hits.iter().any(|h| h["idx"] == 3), "{hits:?}");
    assert!(hits.iter().all(|h| h["found_by"] == serde_json::json!(["keyword"])), "{hits:?}");
    assert!(!stderr_of(&out).contains("every word"), "{}", stderr_of(&out));
    // Stop words alone find nothing and say so as before.
    let out = debrief(&ix).args(["search", "why did it not"]).output().unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert_eq!(stderr_of(&out).trim(), "no matches");
}

/// `--in text|command|output` keeps the hits whose words are in that part of the message,
/// and the snippet comes from that part. In the Codex sample `backoff` is in the user's
/// request (msg 4), in the `rg` command and its output (msg 5) and in a pytest command
/// (msg 7).
#[test]
fn search_in_one_part_of_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index_samples(&ix);
    let idx = |hits: &[Value]| {
        let mut v: Vec<u64> = hits.iter().map(|h| h["idx"].as_u64().unwrap()).collect();
        v.sort();
        v
    };
    assert_eq!(idx(&search(&ix, &["backoff"])), [4, 5, 7]);
    assert_eq!(idx(&search(&ix, &["backoff", "--in", "text"])), [4]);
    assert_eq!(idx(&search(&ix, &["backoff", "--in", "command"])), [5, 7]);
    let out = search(&ix, &["backoff", "--in", "output"]);
    assert_eq!(idx(&out), [5]);
    assert!(out[0]["snippet"].as_str().unwrap().contains("from .backoff import"), "{}", out[0]);
    let cmd = search(&ix, &["backoff", "--in", "command", "--session", "019cb2e4"]);
    let rg = cmd.iter().find(|h| h["idx"] == 5).unwrap();
    assert!(rg["snippet"].as_str().unwrap().starts_with("$ rg -n"), "{rg}");
    // A phrase must be in one part, in order: the user typed `America/New_York`, and the
    // command line has it too, but no output does.
    assert_eq!(idx(&search(&ix, &["America/New_York", "--in", "output"])), Vec::<u64>::new());
    assert_eq!(idx(&search(&ix, &["America/New_York", "--in", "command"])), [10]);
    // --in is about words: with --semantic or a team store it is a usage error.
    for extra in [&["--semantic"][..], &["--from", "postgres://localhost/x"][..]] {
        let out = debrief(&ix).args(["search", "backoff", "--in", "output"]).args(extra).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr_of(&out));
        assert!(stderr_of(&out).contains("--in"), "{}", stderr_of(&out));
    }
    let out = debrief(&ix).args(["search", "backoff", "--in", "stdout"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Without colour, matches are marked with « » — not brackets, which transcripts are
/// full of (`[INFO]`, `[USER]`, arrays): `[msg 5]` and a match must not look alike.
#[test]
fn plain_highlights_are_not_brackets() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index_samples(&ix);
    let out = debrief(&ix).args(["search", "backoff", "--in", "command"]).env("NO_COLOR", "1").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("$ rg -n \"«backoff»|retry_after\" worker/"), "{text}");
    assert!(!text.contains("[backoff]"), "{text}");
}
