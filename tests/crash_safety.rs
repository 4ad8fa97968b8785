//! Crash safety: `debrief index` killed at many points — after the k-th document, just
//! before and just after the k-th commit (the hidden `DEBRIEF_CRASH_AT` hook aborts on
//! the spot, as SIGKILL would), and by a real SIGKILL after t milliseconds — leaves an
//! index that opens and searches, holds no message twice, and that the next run brings
//! to exactly the documents of a clean run: none lost, none doubled. Half the kills
//! happen while files that grew since the last run are being appended.
//!
//! The suite tries a spread of points; `scripts/crash.sh` (DEBRIEF_CRASH_ALL=1) tries
//! every document and every commit.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use debrief::index::search::{self, Filters};
use debrief::model::Role;

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("debrief")
}

fn debrief(ix: &Path) -> Command {
    let mut c = Command::new(bin());
    c.env("DEBRIEF_INDEX", ix).env("NO_COLOR", "1").env_remove("DEBRIEF_CRASH_AT");
    // Many commits on a small corpus, so that there are many places between them.
    c.env("DEBRIEF_COMMIT_EVERY", "16384");
    c
}

fn ok(out: Output, what: &str) {
    assert!(out.status.success(), "{what}: {:?}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
}

/// Files whose first half is indexed first and the rest appended later.
const GROWING: &[&str] = &[
    "claude-code/ledger-timezone-fix.jsonl",
    "codex/2026/03/04/rollout-2026-03-04T15-00-00-019cb2e4-7a10-7c3e-9d21-5e8f0a4b6c17.jsonl",
    "aider/.aider.chat.history.md",
    "DRMacIver_claude-reliability/python-to-rust-port.transcript.jsonl",
];

/// A copy of our samples of every format (and a real Claude Code folder), with the
/// growing files cut in half (at a line end) when `cut` is set.
fn lay_out(dir: &Path, cut: bool) {
    let root = common::root();
    let mut sources: Vec<(PathBuf, PathBuf)> = Vec::new();
    for e in std::fs::read_dir(root.join("corpus")).expect("corpus").filter_map(Result::ok) {
        let name = e.file_name();
        if name == "seed-replay" || name == "detectors" {
            continue;
        }
        sources.push((e.path(), dir.join(&name)));
    }
    if let Some(real) = common::real_part("claude_code/DRMacIver_claude-reliability", "the real sessions") {
        sources.push((real, dir.join("DRMacIver_claude-reliability")));
    }
    for (from, to) in sources {
        for e in walkdir::WalkDir::new(&from).into_iter().filter_map(Result::ok) {
            let dest = to.join(e.path().strip_prefix(&from).expect("under"));
            if e.file_type().is_dir() {
                std::fs::create_dir_all(&dest).expect("mkdir");
            } else if e.file_type().is_file() {
                std::fs::copy(e.path(), &dest).expect("copy");
            }
        }
    }
    if cut {
        for rel in GROWING {
            let p = dir.join(rel);
            let Ok(bytes) = std::fs::read(&p) else { continue };
            let half = bytes[..bytes.len() / 2].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            std::fs::write(&p, &bytes[..half]).expect("cut");
        }
    }
}

/// What the index holds, in a form two indexes can be compared by: every session
/// (source, id, message count, findings per detector) and every message (source,
/// session, idx, line, role), read through debrief's own search with filters over all
/// roles — in process, as `sessions --json` and `search --json` would list them.
fn fingerprint(ix: &Path) -> Print {
    let dir = debrief::index::IndexDir::open(ix).expect("the index opens");
    let mut sessions: Vec<String> = debrief::index::search::sessions(&dir, &Filters::default(), usize::MAX)
        .expect("sessions")
        .iter()
        .map(|r| {
            let found = debrief::commands::sessions::detector_counts(r);
            format!("{} {} {} {:?}", r.meta.source.display(), r.meta.id, r.meta.messages, found)
        })
        .collect();
    sessions.sort();
    let mut messages = Vec::new();
    for role in [Role::User, Role::Assistant, Role::Tool, Role::System] {
        let filters = Filters { role: Some(role), ..Filters::default() };
        for h in search::search(&dir, "", &filters, 1_000_000, None).expect("search") {
            let line = u64::from(h.line.unwrap_or(0));
            messages.push((h.source.to_string_lossy().into_owned(), h.session, u64::from(h.idx), line, h.role));
        }
    }
    messages.sort();
    (sessions, messages)
}

fn no_duplicates(messages: &[(String, String, u64, u64, String)], what: &str) {
    let mut seen = BTreeSet::new();
    for m in messages {
        assert!(seen.insert((&m.0, &m.1, m.2)), "{what}: message doubled: {m:?}");
    }
}

/// How a run is stopped.
#[derive(Debug, Clone)]
enum Kill {
    At(String),
    AfterMs(u64),
}

struct Scenario {
    _tmp: tempfile::TempDir,
    corpus: PathBuf,
    reference: Print,
}

/// The clean run's result, for a corpus laid out once and reused.
fn scenario() -> Scenario {
    let tmp = tempfile::tempdir().expect("tempdir");
    let corpus = tmp.path().join("corpus");
    lay_out(&corpus, false);
    let ix = tmp.path().join("reference");
    ok(debrief(&ix).args(["index", "--quiet"]).arg(&corpus).output().expect("run"), "reference index");
    let reference = fingerprint(&ix);
    assert!(reference.1.len() > 200, "the corpus is indexed: {} messages", reference.1.len());
    no_duplicates(&reference.1, "reference");
    Scenario { _tmp: tmp, corpus, reference }
}

/// Kill an index run at `kill` (on a fresh index, or on an index of the cut corpus
/// whose files have since grown), then check the index and that a rerun restores it.
fn survive(sc: &Scenario, kill: &Kill, appending: bool, n: usize) -> bool {
    let base = sc._tmp.path().join(format!("run-{n}"));
    let corpus = base.join("corpus");
    let ix = base.join("ix");
    if appending {
        lay_out(&corpus, true);
        ok(debrief(&ix).args(["index", "--quiet"]).arg(&corpus).output().expect("run"), "first half");
        for rel in GROWING {
            let (from, to) = (sc.corpus.join(rel), corpus.join(rel));
            if from.exists() {
                std::fs::copy(from, to).expect("grow");
            }
        }
    } else {
        lay_out(&corpus, false);
    }
    let mut cmd = debrief(&ix);
    cmd.args(["index", "--quiet"]).arg(&corpus);
    let killed = match kill {
        Kill::At(point) => {
            let out = cmd.env("DEBRIEF_CRASH_AT", point).output().expect("run");
            !out.status.success()
        }
        Kill::AfterMs(ms) => {
            let mut child = cmd.spawn().expect("spawn");
            std::thread::sleep(Duration::from_millis(*ms));
            let done = child.try_wait().expect("wait").is_some();
            let _ = child.kill();
            let _ = child.wait();
            !done
        }
    };
    let what = format!("{kill:?} appending={appending}");
    // The index opens and searches, and holds nothing twice.
    let partial = fingerprint(&ix);
    no_duplicates(&partial.1, &format!("{what}, after the kill"));
    // The next run completes it, to exactly the clean run's documents.
    ok(debrief(&ix).args(["index", "--quiet"]).arg(&corpus).output().expect("run"), &format!("{what}: rerun"));
    // The corpus lies elsewhere than the reference's: compare with paths rewritten.
    let after = rewrite(fingerprint(&ix), &corpus, &sc.corpus);
    assert_eq!(after.0, sc.reference.0, "{what}: sessions differ from a clean run");
    if after.1 != sc.reference.1 {
        let got: BTreeSet<_> = after.1.iter().collect();
        let want: BTreeSet<_> = sc.reference.1.iter().collect();
        let lost: Vec<_> = want.difference(&got).take(5).collect();
        let extra: Vec<_> = got.difference(&want).take(5).collect();
        panic!("{what}: messages differ from a clean run; lost {lost:?}, extra {extra:?}");
    }
    // And a run after that has nothing to do.
    let out = debrief(&ix).args(["index"]).arg(&corpus).output().expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(0 read, 0 appended"), "{what}: third run read files again: {err}");
    let _ = std::fs::remove_dir_all(&base);
    killed
}

type Print = (Vec<String>, Vec<(String, String, u64, u64, String)>);

fn rewrite(p: Print, from: &Path, to: &Path) -> Print {
    let (f, t) = (from.to_string_lossy().into_owned(), to.to_string_lossy().into_owned());
    let mut sessions: Vec<String> = p.0.iter().map(|s| s.replace(&f, &t)).collect();
    sessions.sort();
    let mut messages: Vec<_> = p.1.into_iter().map(|(s, a, b, c, d)| (s.replace(&f, &t), a, b, c, d)).collect();
    messages.sort();
    (sessions, messages)
}

fn spread(max: u64, count: usize) -> Vec<u64> {
    let mut v: Vec<u64> = (0..count).map(|i| 1 + (max - 1) * i as u64 / (count.max(2) - 1) as u64).collect();
    v.dedup();
    v
}

#[test]
fn index_killed_anywhere_loses_nothing_and_doubles_nothing() {
    let sc = scenario();
    let all = std::env::var_os("DEBRIEF_CRASH_ALL").is_some();
    let docs = (sc.reference.0.len() + sc.reference.1.len()) as u64;
    let mut kills: Vec<(Kill, bool)> = Vec::new();
    let doc_points = if all { (1..=docs + 5).collect() } else { spread(docs + 5, 8) };
    for (i, k) in doc_points.into_iter().enumerate() {
        kills.push((Kill::At(format!("doc:{k}")), i % 2 == 1));
    }
    let commits = if all { 60 } else { 3 };
    for k in 1..=commits {
        // An append's commit writes delete files: the case tantivy tripped over
        // ("file already exists") before interrupted runs' files were collected.
        kills.push((Kill::At(format!("commit:{k}")), k == 1 || k % 2 == 0));
        kills.push((Kill::At(format!("committed:{k}")), k % 2 == 1));
    }
    let timed: Vec<u64> = if all { (0..40).map(|i| 5 + i * 25).collect() } else { vec![20, 150, 400] };
    for (i, ms) in timed.into_iter().enumerate() {
        kills.push((Kill::AfterMs(ms), i % 2 == 0));
    }
    let mut killed = 0;
    for (n, (kill, appending)) in kills.iter().enumerate() {
        if survive(&sc, kill, *appending, n) {
            killed += 1;
        }
    }
    eprintln!(
        "{} kill points tried, {killed} of them stopped the run before it ended; every index recovered to the clean run's {} sessions and {} messages",
        kills.len(),
        sc.reference.0.len(),
        sc.reference.1.len()
    );
    assert!(killed * 2 > kills.len(), "most kill points must fall inside the run ({killed} of {})", kills.len());
}

/// The one window the hook cannot reach is inside tantivy's commit: segment and delete
/// files written, `meta.json` (which names them, with our file state) not yet. This
/// builds that state exactly — the files of a finished append run laid over the index
/// of the run before it — and the next run must clear them and finish. (Before it did,
/// tantivy refused: a delete file is named by segment and opstamp, and the rerun's
/// commit chose the same name: "FileAlreadyExists(….del)".)
#[test]
fn files_of_a_commit_that_never_finished_are_cleared_by_the_next_run() {
    let sc = scenario();
    let tmp = tempfile::tempdir().expect("tempdir");
    let corpus = tmp.path().join("corpus");
    lay_out(&corpus, true);
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    ok(debrief(&a).args(["index", "--quiet"]).arg(&corpus).output().expect("run"), "first half");
    copy_dir(&a, &b);
    for rel in GROWING {
        // The real sample is there only with ../shared beside the checkout.
        let from = sc.corpus.join(rel);
        if from.exists() {
            std::fs::copy(from, corpus.join(rel)).expect("grow");
        }
    }
    // One commit each, so that the rerun's commit is the very one b made.
    let one_commit = |ix: &Path| {
        let mut c = debrief(ix);
        c.env("DEBRIEF_COMMIT_EVERY", "1000000000").args(["index", "--quiet"]).arg(&corpus);
        c
    };
    ok(one_commit(&b).output().expect("run"), "append in b");
    // a = the last commit + what the append wrote before its meta.json, listed as
    // tantivy's own files (as they are the moment they are opened for writing).
    let (ta, tb) = (a.join("tantivy"), b.join("tantivy"));
    let mut orphans = 0;
    for e in std::fs::read_dir(&tb).expect("read b").filter_map(Result::ok) {
        let name = e.file_name();
        if !ta.join(&name).exists() {
            std::fs::copy(e.path(), ta.join(&name)).expect("copy orphan");
            orphans += 1;
        }
    }
    std::fs::copy(tb.join(".managed.json"), ta.join(".managed.json")).expect("managed list");
    assert!(orphans > 0, "the append wrote new files");
    ok(one_commit(&a).output().expect("run"), "rerun over the orphans");
    let after = rewrite(fingerprint(&a), &corpus, &sc.corpus);
    assert_eq!(after, sc.reference, "the rerun ends with the clean run's documents");
}

fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).into_iter().filter_map(Result::ok) {
        let dest = to.join(e.path().strip_prefix(from).expect("under"));
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
        } else {
            std::fs::copy(e.path(), &dest).expect("copy");
        }
    }
}
