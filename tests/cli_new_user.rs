//! What a new user runs into in the first hour: queries with nothing to search for,
//! wrong values that must be usage errors (exit 2), session ids that carry from
//! `sessions`/`search` into `show`/`report`/`detect`, ranges outside a session, empty
//! files, and the filters `sessions --help` offers. Every answer is one line that says
//! what happened, with the contract's exit code.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{corpus, debrief};
use serde_json::Value;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn run(ix: &Path, args: &[&str]) -> Output {
    debrief(ix).args(args).output().expect("run debrief")
}

/// An index of a few of the project's samples (three Claude Code sessions, one Codex).
fn indexed(tmp: &Path) -> (PathBuf, PathBuf) {
    let d = tmp.join("archive");
    std::fs::create_dir_all(&d).expect("mkdir");
    for (from, to) in [
        ("claude-code/ledger-timezone-fix.jsonl", "ledger.jsonl"),
        ("claude-code/headless-error.jsonl", "headless.jsonl"),
        ("detectors/confounded-change/pos-claude-nccl-and-fusion.jsonl", "nccl.jsonl"),
        ("codex/2026/03/04/rollout-2026-03-04T15-00-00-019cb2e4-7a10-7c3e-9d21-5e8f0a4b6c17.jsonl", "rollout.jsonl"),
    ] {
        std::fs::copy(corpus(from), d.join(to)).expect("copy");
    }
    let ix = tmp.join("ix");
    let out = run(&ix, &["index", d.to_str().expect("path")]);
    assert!(out.status.success(), "{}", stderr(&out));
    (ix, d)
}

fn sessions(ix: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["sessions", "--json", "--no-redact"];
    args.extend(extra);
    let out = run(ix, &args);
    assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
    stdout(&out).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect()
}

/// The session (id, source, messages) whose file name ends with `tail`.
fn session_of(ix: &Path, tail: &str) -> (String, String, u64) {
    let s = sessions(ix, &[]);
    let v = s.iter().find(|v| v["source"].as_str().is_some_and(|p| p.ends_with(tail))).expect("indexed");
    (
        v["session"].as_str().unwrap().to_string(),
        v["source"].as_str().unwrap().to_string(),
        v["messages"].as_u64().unwrap(),
    )
}

#[test]
fn a_query_of_punctuation_only_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (ix, _) = indexed(tmp.path());
    for q in ["!!!", "...", "*", "\"", "-", "()", "::", ". -"] {
        let out = run(&ix, &["search", q]);
        assert_eq!(out.status.code(), Some(2), "{q}: {}{}", stdout(&out), stderr(&out));
        assert!(stdout(&out).is_empty(), "{q}: no hits");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{q}: one line: {err}");
        assert!(err.contains("no word to search for"), "{q}: {err}");
    }
    // Also with a filter: the query still says nothing.
    let out = run(&ix, &["search", "!!!", "--agent", "claude"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // A word with punctuation around it is a word.
    let out = run(&ix, &["search", "(timezone)"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn limit_zero_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (ix, _) = indexed(tmp.path());
    for args in
        [&["search", "timezone", "--limit", "0"][..], &["search", "timezone", "-n", "0"], &["sessions", "-n", "0"]]
    {
        let out = run(&ix, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stdout(&out));
        assert!(stdout(&out).is_empty(), "{args:?}");
        assert!(stderr(&out).contains("at least 1"), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn wrong_values_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let (ix, d) = indexed(tmp.path());
    let ledger = d.join("ledger.jsonl");
    let l = ledger.to_str().unwrap();
    for (args, says) in [
        (vec!["search", "timezone", "--detector", "nope"], "unknown detector `nope`"),
        (vec!["search", "--detector", "nope"], "unknown detector `nope`"),
        (vec!["sessions", "--detector", "nope"], "unknown detector `nope`"),
        (vec!["search", "timezone", "--agent", "nope"], "unknown agent `nope`"),
        (vec!["report", l, "--format", "pdf"], "unknown report format `pdf`"),
        (vec!["report", l, "--episode", "999999"], "has no message [msg 999999]"),
        (vec!["report", l, "--arc", "900..999"], "has no messages in 900..999"),
        // An output format given where the transcript format is meant says so.
        (vec!["index", l, "--format", "json"], "`json` is an output format"),
        (vec!["show", l, "--format", "html"], "`html` is an output format"),
        (vec!["index", l, "--format", "nope"], "unknown format `nope`"),
        (vec!["detect", l, "--input-format", "md"], "`md` is an output format"),
    ] {
        let out = run(&ix, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// Issue 14 item 10: the transcript format is `--input-format` on every command that reads
/// transcripts (report's `--format` is its output); `--format` still works where it did.
#[test]
fn input_format_names_the_transcript_format_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let (ix, d) = indexed(tmp.path());
    let ledger = d.join("ledger.jsonl");
    let l = ledger.to_str().unwrap();
    for cmd in ["show", "detect"] {
        let new = run(&ix, &[cmd, l, "--json", "--input-format", "claude-code"]);
        let old = run(&ix, &[cmd, l, "--json", "--format", "claude-code"]);
        let sniffed = run(&ix, &[cmd, l, "--json"]);
        assert!(new.status.success(), "{cmd}: {}", stderr(&new));
        assert_eq!(stdout(&new), stdout(&old), "{cmd}: --format is --input-format");
        assert_eq!(stdout(&new), stdout(&sniffed), "{cmd}: forcing the sniffed format changes nothing");
        // Forcing another format is obeyed: the ledger is no Codex rollout.
        let forced = run(&ix, &[cmd, l, "--json", "--input-format", "codex"]);
        assert_eq!(forced.status.code(), Some(1), "{cmd}: {}", stderr(&forced));
        assert!(stderr(&forced).contains("format codex"), "{cmd}: {}", stderr(&forced));
    }
    let report = run(&ix, &["report", l, "--input-format", "claude-code", "--format", "json"]);
    assert!(report.status.success(), "{}", stderr(&report));
    let index = run(&ix, &["index", l, "--input-format", "claude-code"]);
    assert!(index.status.success(), "{}", stderr(&index));
    for cmd in ["index", "show", "detect", "report"] {
        let help = stdout(&run(&ix, &[cmd, "--help"]));
        assert!(help.contains("--input-format <FORMAT>"), "{cmd} --help: {help}");
    }
}

#[test]
fn session_ids_from_sessions_work_in_show_report_and_detect() {
    let tmp = tempfile::tempdir().unwrap();
    let (ix, _) = indexed(tmp.path());
    let (id, source, messages) = session_of(&ix, "nccl.jsonl");
    // The id as `sessions` and `search` print it: the first 8 characters.
    let short: String = id.chars().take(8).collect();
    let by_path = run(&ix, &["show", &source, "--json"]);
    let by_id = run(&ix, &["show", &short, "--json"]);
    assert!(by_id.status.success(), "{}", stderr(&by_id));
    assert_eq!(stdout(&by_id), stdout(&by_path), "show ID is show PATH");
    assert_eq!(stdout(&by_id).lines().count() as u64, messages);
    let report = run(&ix, &["report", &short]);
    assert!(report.status.success(), "{}", stderr(&report));
    assert_eq!(stdout(&report), stdout(&run(&ix, &["report", &source])));
    let detect = run(&ix, &["detect", &short, "--json"]);
    assert!(detect.status.success(), "{}", stderr(&detect));
    assert_eq!(stdout(&detect), stdout(&run(&ix, &["detect", &source, "--json"])));
    assert!(stdout(&detect).contains("confounded-change"), "{}", stdout(&detect));
    // The whole id works too.
    assert!(run(&ix, &["show", &id]).status.success());
}

#[test]
fn an_ambiguous_or_unknown_id_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (ix, d) = indexed(tmp.path());
    let (id, _, _) = session_of(&ix, "ledger.jsonl");
    // The same session copied (a backup beside the original): its id is in two files.
    std::fs::copy(d.join("ledger.jsonl"), d.join("ledger-copy.jsonl")).unwrap();
    assert!(run(&ix, &["index", d.to_str().unwrap()]).status.success());
    let prefix = &id[..4];
    let out = run(&ix, &["show", prefix]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&format!("`{prefix}` is the start of 2 session ids")), "{err}");
    assert!(err.contains("ledger.jsonl)") && err.contains("ledger-copy.jsonl)"), "both are listed: {err}");
    let out = run(&ix, &["show", "zzzzzzzz"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("zzzzzzzz: no such file or folder, and no indexed session id starts with it"), "{err}");
}

#[test]
fn detect_with_no_path_reads_the_indexed_archive() {
    let tmp = tempfile::tempdir().unwrap();
    let (ix, d) = indexed(tmp.path());
    let all = run(&ix, &["detect", "--json"]);
    assert!(all.status.success(), "{}", stderr(&all));
    let by_folder = run(&ix, &["detect", "--json", d.to_str().unwrap()]);
    assert_eq!(stdout(&all), stdout(&by_folder));
    assert!(!stdout(&all).is_empty());
    // With no index, it says what to do.
    let none = run(&tmp.path().join("no-index"), &["detect"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(stderr(&none).contains("run `debrief index` first"), "{}", stderr(&none));
}

#[test]
fn a_range_outside_the_session_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let (ix, d) = indexed(tmp.path());
    let (id, _, messages) = session_of(&ix, "ledger.jsonl");
    let l = d.join("ledger.jsonl");
    let l = l.to_str().unwrap();
    let out = run(&ix, &["show", l, "--range", "100..200"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{}{err}", stdout(&out));
    assert!(stdout(&out).is_empty(), "no header alone: {}", stdout(&out));
    assert!(err.contains(&format!("no message in 100..200: {id} has {messages} messages")), "{err}");
    // An arc that reaches past the end is cut, and says where.
    let out = run(&ix, &["report", l, "--arc", &format!("2..{}", messages + 30)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&format!("has messages 1..{messages}: the arc covers 2..{messages}")), "{err}");
    // An arc inside the session says nothing.
    let out = run(&ix, &["report", l, "--arc", "2..3"]);
    assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn an_empty_file_is_called_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let empty = tmp.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let e = empty.to_str().unwrap();
    for args in [vec!["show", e], vec!["detect", e], vec!["report", e], vec!["show", e, "--format", "claude-code"]] {
        let out = run(&ix, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(&format!("{e}: empty file, nothing to read")), "{args:?}: {err}");
        assert!(!err.contains("try --format"), "{args:?}: --format cannot help: {err}");
    }
}

#[test]
fn sessions_filters_on_messages_filter() {
    let tmp = tempfile::tempdir().unwrap();
    let (ix, _) = indexed(tmp.path());
    let all = sessions(&ix, &[]).len();
    assert_eq!(all, 4);
    let sources = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = sessions(&ix, extra)
            .iter()
            .map(|s| Path::new(s["source"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    // Each filter keeps the sessions with a message that search finds with it.
    for filter in [
        vec!["--errors"],
        vec!["--program", "python"],
        vec!["--tool", "Bash"],
        vec!["--tool", "exec_command"],
        vec!["--role", "tool"],
        vec!["--role", "user"],
        vec!["--file", "ledger.py"],
    ] {
        let mut args = vec!["search", "--json", "--no-redact", "-n", "1000"];
        args.extend(&filter);
        let out = run(&ix, &args);
        assert!(out.status.success(), "{filter:?}: {}", stderr(&out));
        let mut expected: Vec<String> = stdout(&out)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                Path::new(v["source"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned()
            })
            .collect();
        expected.sort();
        expected.dedup();
        assert_eq!(sources(&filter), expected, "{filter:?}");
        eprintln!("{filter:?}: {} of {all} sessions", expected.len());
    }
    assert!(sources(&["--errors"]).len() < all, "--errors filters");
    assert!(sources(&["--tool", "exec_command"]) == ["rollout.jsonl"], "only the Codex session ran exec_command");
}

#[test]
fn completions_and_the_man_page_come_from_the_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    for (shell, says) in
        [("bash", "complete -F _debrief"), ("zsh", "#compdef debrief"), ("fish", "complete -c debrief")]
    {
        let out = run(&ix, &["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains(says), "{shell}: {says}");
        // The flags of the subcommands are there.
        assert!(text.contains("redact-patterns") && text.contains("episode"), "{shell}");
    }
    let out = run(&ix, &["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let man = run(&ix, &["man"]);
    assert!(man.status.success(), "{}", stderr(&man));
    let text = stdout(&man);
    assert!(text.starts_with(".ie") || text.contains(".TH debrief"), "{}", &text[..text.len().min(300)]);
    assert!(text.contains("completions") && text.contains("report"), "the subcommands are listed");
}

#[test]
fn a_folder_without_transcripts_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let d = tmp.path().join("notes");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("todo.txt"), "buy milk\n").unwrap();
    let p = d.to_str().unwrap();
    // Nothing in the folder is a transcript: not an empty success but one line naming the
    // folder, and exit 1, from every command that reads transcripts.
    for args in [vec!["show", p], vec!["detect", p], vec!["detect", p, "--json"], vec!["report", p]] {
        let out = run(&ix, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(stdout(&out).is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(&format!("debrief: {p}: no transcript found in this folder")), "{args:?}: {err}");
    }
}
