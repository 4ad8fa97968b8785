//! What a new user runs into in the first hour: queries with nothing to search for,
//! wrong values that must be usage errors (exit 2), session ids that carry from
//! `sessions`/`search` into `show`/`report`/`detect`, ranges outside a session, empty
//! files, and the filters `sessions --help` offers. Every answer is one line that says
//! what happened, with the contract's exit code.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{corpus, debrief};

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
    ] {
        let out = run(&ix, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
