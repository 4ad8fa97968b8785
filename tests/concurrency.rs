//! Concurrency: two `index` runs at once (the second is told, or waits with `--wait`),
//! `search` and `detect` while `index` writes, and a session file written to while it
//! is being indexed — the new lines arrive on the next run, and no half-written line is
//! ever indexed as a message.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::synth::Transcript;
use debrief::index::search::{self, Filters};
use debrief::model::Role;

fn debrief(ix: &Path) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("debrief"));
    c.env("DEBRIEF_INDEX", ix).env("NO_COLOR", "1").env_remove("DEBRIEF_CRASH_AT");
    c
}

/// Every message in the index as (source, idx, line), in order, with doubles kept.
fn messages(ix: &Path) -> Vec<(PathBuf, u32, Option<u32>)> {
    let dir = debrief::index::IndexDir::open(ix).expect("index opens");
    let mut out = Vec::new();
    for role in [Role::User, Role::Assistant, Role::Tool, Role::System] {
        let f = Filters { role: Some(role), ..Filters::default() };
        for h in search::search(&dir, "", &f, 1_000_000, None).expect("search") {
            out.push((h.source, h.idx, h.line));
        }
    }
    out.sort();
    out
}

fn assert_no_doubles(m: &[(PathBuf, u32, Option<u32>)], what: &str) {
    let set: BTreeSet<_> = m.iter().map(|(s, i, _)| (s, i)).collect();
    assert_eq!(set.len(), m.len(), "{what}: a message is indexed twice");
}

/// A corpus big enough that an index run lasts a while in a debug build.
fn big_corpus(dir: &Path) -> PathBuf {
    let src = common::corpus("seed-replay/kimi-k25-eagle3-campaign.jsonl");
    let d = dir.join("corpus");
    std::fs::create_dir_all(&d).expect("mkdir");
    for i in 0..3 {
        std::fs::copy(&src, d.join(format!("campaign-{i}.jsonl"))).expect("copy");
    }
    d
}

fn lock_is_held(ix: &Path) -> bool {
    let Ok(f) = std::fs::OpenOptions::new().read(true).write(true).open(ix.join("debrief.lock")) else { return false };
    f.try_lock().is_err()
}

fn wait_for_lock(ix: &Path, child: &mut Child) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30) {
        if lock_is_held(ix) {
            return true;
        }
        if child.try_wait().expect("wait").is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

#[test]
fn a_second_index_is_told_or_waits_and_readers_keep_working() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let corpus = big_corpus(tmp.path());
    let ix = tmp.path().join("ix");
    let mut first = debrief(&ix).args(["index", "--quiet"]).arg(&corpus).stderr(Stdio::piped()).spawn().expect("spawn");
    assert!(wait_for_lock(&ix, &mut first), "the first run takes the lock");

    // A second run without --wait exits at once with the clear message.
    let second = debrief(&ix).args(["index"]).arg(&corpus).output().expect("run");
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(err.contains("another `debrief index` is writing to") && err.contains("--wait"), "{err}");
    // One with --wait runs after the first.
    let waiting = debrief(&ix).args(["index", "--wait"]).arg(&corpus).stderr(Stdio::piped()).spawn().expect("spawn");

    // Meanwhile searches, listings and detection work, and never see a message twice.
    let file = corpus.join("campaign-0.jsonl");
    let mut reads = 0;
    while first.try_wait().expect("wait").is_none() {
        if ix.join("tantivy/meta.json").exists() {
            for args in [
                vec!["search", "--json", "ServerArgs"],
                vec!["search", "--role", "user", "-n", "100000", "--json"],
                vec!["sessions", "--json"],
            ] {
                let out = debrief(&ix).args(&args).output().expect("run");
                assert!(out.status.success(), "{args:?} while indexing: {}", String::from_utf8_lossy(&out.stderr));
                let lines: Vec<&str> = std::str::from_utf8(&out.stdout).expect("UTF-8").lines().collect();
                let keys: BTreeSet<String> = lines
                    .iter()
                    .map(|l| {
                        let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
                        format!("{} {} {}", v["source"], v["session"], v["idx"])
                    })
                    .collect();
                assert_eq!(keys.len(), lines.len(), "{args:?}: a hit twice while indexing");
                reads += 1;
            }
        }
        let out = debrief(&ix).args(["detect", "--json"]).arg(&file).output().expect("run");
        assert!(out.status.success(), "detect while indexing");
        reads += 1;
    }
    assert!(first.wait_with_output().expect("wait").status.success());
    let out = waiting.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "--wait run: {err}");
    assert!(err.contains("(0 read, 0 appended, 3 unchanged"), "the waiting run found the work done: {err}");
    assert!(reads > 0, "readers ran while the first run wrote");
    let m = messages(&ix);
    assert_no_doubles(&m, "after both runs");
    let expected: usize = (0..3)
        .map(|i| {
            common::parse(&corpus.join(format!("campaign-{i}.jsonl"))).iter().map(|s| s.messages.len()).sum::<usize>()
        })
        .sum();
    assert_eq!(m.len(), expected, "every message once");
}

/// A Claude Code session of `n` exchanges, as one string.
fn session_text(n: usize) -> String {
    let mut t = Transcript::new();
    for i in 0..n {
        t = t
            .user(&format!("step {i}: run the suite again and tell me what broke {}", "detail ".repeat(i % 40)))
            .bash(&format!("pytest -x tests/test_{i}.py"), &format!("{} passed, {} failed", i * 3, i % 4), i % 4 != 0)
            .assistant(&format!("Step {i} is done; {}", "and more words ".repeat(i % 25)));
    }
    t.text()
}

#[test]
fn a_session_written_while_indexed_arrives_whole_and_never_half() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("projects");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let path = dir.join("live.jsonl");
    let full = session_text(120);
    std::fs::write(&path, "").expect("create");
    let ix = tmp.path().join("ix");
    // The finished file, parsed on its own: what every index state must be a part of.
    let finished = tmp.path().join("finished.jsonl");
    std::fs::write(&finished, &full).expect("write");
    let whole = common::parse(&finished).remove(0).messages;

    // The agent writes in pieces that end anywhere, mid-line included. It holds back
    // its last piece until three index runs have read the file mid-write, so the test
    // does not depend on how fast this machine indexes.
    let started = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writer = {
        let path = path.clone();
        let bytes = full.clone().into_bytes();
        let started = started.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().append(true).open(&path).expect("open");
            let mut at = 0;
            let mut step = 1usize;
            while at < bytes.len() {
                step = (step * 7919 + 13) % 3000 + 1;
                let end = (at + step).min(bytes.len());
                if end == bytes.len() {
                    while started.load(std::sync::atomic::Ordering::SeqCst) < 3 {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                }
                f.write_all(&bytes[at..end]).expect("append");
                f.flush().expect("flush");
                at = end;
                std::thread::sleep(Duration::from_millis(12));
            }
        })
    };
    let mut runs = 0;
    let mut seen_partial_tail = false;
    while !writer.is_finished() || runs == 0 {
        started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let out = debrief(&ix).args(["index"]).arg(&dir).output().expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "index while the file grows: {err}");
        assert!(!err.contains("bad record"), "a half-written line was reported as bad: {err}");
        seen_partial_tail |= err.contains("half-written last line");
        runs += 1;
        // What is indexed so far is a prefix of the whole session: no message that the
        // finished file does not have at that number and line.
        let now = messages(&ix);
        assert_no_doubles(&now, "while the file grows");
        for (_, idx, line) in &now {
            let m = whole.iter().find(|m| m.idx == *idx);
            assert!(m.is_some_and(|m| m.line == *line), "msg {idx} at line {line:?} is not in the finished file");
        }
    }
    writer.join().expect("writer");
    let out = debrief(&ix).args(["index"]).arg(&dir).output().expect("run");
    assert!(out.status.success());
    let got: Vec<(u32, Option<u32>)> = messages(&ix).into_iter().map(|(_, i, l)| (i, l)).collect();
    let want: Vec<(u32, Option<u32>)> = whole.iter().map(|m| (m.idx, m.line)).collect();
    assert_eq!(got, want, "after the writer finished, the index holds the whole session once");
    eprintln!("{runs} index runs while the file grew (a half-written last line seen: {seen_partial_tail})");
    assert!(runs >= 3, "index ran while the file was being written");
}
