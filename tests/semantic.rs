//! Search by meaning: the model compiled into debrief (its checksum, loading from the
//! binary's bytes, stable vectors, paraphrases ranked above unrelated text), the index
//! with and without embeddings, and `search --semantic` / `--hybrid` end to end.

mod common;

use std::fs;
use std::io::Write;
use std::path::Path;

use common::{corpus, debrief, root, search_json as search, stderr_of};
use debrief::index::embed;
use serde_json::json;
use sha2::{Digest, Sha256};

fn index(ix: &Path, args: &[&str]) {
    let out = debrief(ix)
        .arg("index")
        .args(args)
        .arg(corpus("claude-code/ledger-timezone-fix.jsonl"))
        .arg(corpus("codex/2026/03"))
        .output()
        .unwrap();
    assert!(out.status.success(), "index failed: {}", stderr_of(&out));
}

/// The committed model files are the ones `scripts/distill-model` recorded.
#[test]
fn the_model_files_match_their_checksums() {
    let dir = root().join("model");
    let sums = fs::read_to_string(dir.join("SHA256SUMS")).unwrap();
    let mut n = 0;
    for line in sums.lines() {
        let (sum, name) = line.split_once("  ").expect("sha256sum format");
        let bytes = fs::read(dir.join("minilm-l6-m2v-256").join(name)).unwrap();
        let got: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(got, sum, "{name}");
        n += 1;
    }
    assert_eq!(n, 3);
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The model loads from the bytes compiled in, gives the same unit vectors every time,
/// and puts a paraphrase closer to what it paraphrases than unrelated text.
#[test]
fn the_model_in_the_binary_embeds_by_meaning() {
    let start = std::time::Instant::now();
    assert_eq!(embed::dim().unwrap(), 256);
    // Printed for docs/search.md (`-- --nocapture`); not asserted: the machine is shared.
    eprintln!("the model loaded in {:.1} ms", start.elapsed().as_secs_f64() * 1000.0);
    let a = embed::embed("Error: listen EADDRINUSE: address already in use :::5173").unwrap();
    let again = embed::embed("Error: listen EADDRINUSE: address already in use :::5173").unwrap();
    assert_eq!(a, again, "same vector every run");
    assert!((cos(&a, &a) - 1.0).abs() < 1e-4, "unit vectors");
    // Recorded from the committed model: a change of model or of pooling shows here.
    let fingerprint: Vec<i32> = a.iter().take(4).map(|x| (x * 1000.0).round() as i32).collect();
    assert_eq!(fingerprint, FINGERPRINT, "{fingerprint:?}");
    for (query, meant, unrelated) in [
        (
            "the port is already taken",
            "Error: listen EADDRINUSE: address already in use :::5173",
            "Updated the README with the installation steps for Windows",
        ),
        (
            "ran out of GPU memory",
            "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
            "Renamed the helper function and fixed the import order",
        ),
        (
            "the program crashed with a segfault",
            "Process exited with signal SIGSEGV (Segmentation fault), core dumped",
            "The unit tests for the billing module all pass now",
        ),
    ] {
        let q = embed::embed(query).unwrap();
        let m = cos(&q, &embed::embed(meant).unwrap());
        let u = cos(&q, &embed::embed(unrelated).unwrap());
        assert!(m > u, "{query:?}: {m} vs unrelated {u}");
    }
}

const FINGERPRINT: [i32; 4] = [24, -299, 347, -289];

/// By default the index has embeddings: `--semantic` and `--hybrid` answer, say which
/// ranking found each hit, and keep the filters.
#[test]
fn semantic_and_hybrid_search_with_filters() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index(&ix, &[]);
    // The user's remark about New York time (msg 8), asked in other words.
    let q = "the clock zone of the east coast";
    let hits = search(&ix, &[q, "--semantic", "-n", "5"]);
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["found_by"] == json!(["semantic"])), "{hits:?}");
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {scores:?}");
    let codex = search(&ix, &[q, "--semantic", "--agent", "codex"]);
    assert!(!codex.is_empty() && codex.iter().all(|h| h["agent"] == "codex"), "{codex:?}");
    let users = search(&ix, &[q, "--semantic", "--role", "user"]);
    assert!(users.iter().all(|h| h["role"] == "user"), "{users:?}");
    // Hybrid: a hit both rankings found says so; the keyword match is kept on top.
    let hybrid = search(&ix, &["test_balance_rollover", "--hybrid", "-n", "10"]);
    let top = &hybrid[0];
    assert_eq!(top["idx"], 3, "{hybrid:?}");
    assert!(top["found_by"].as_array().unwrap().contains(&json!("keyword")), "{top}");
    assert!(hybrid.iter().any(|h| h["found_by"] == json!(["semantic"])), "semantic-only hits too: {hybrid:?}");
    // Text output works the same way.
    let out = debrief(&ix).args(["search", q, "--hybrid"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[msg "));
    // A mode needs a query.
    let out = debrief(&ix).args(["search", "--semantic", "--agent", "codex"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    // A team store has no vectors: refused before any connection is tried.
    let out =
        debrief(&ix).args(["search", q, "--hybrid", "--from", "postgres://nobody@127.0.0.1:9/none"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("a team store has no embeddings"), "{}", stderr_of(&out));
}

/// `--no-embeddings`: keyword search as before, a clear error for a semantic one, and
/// the choice is kept until a rebuild.
#[test]
fn an_index_without_embeddings() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    index(&ix, &["--no-embeddings"]);
    assert!(!search(&ix, &["test_balance_rollover"]).is_empty());
    for mode in ["--semantic", "--hybrid"] {
        let out = debrief(&ix).args(["search", "timezone", mode]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{mode}");
        let err = stderr_of(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("has no embeddings") && err.contains("debrief index --rebuild"), "{err}");
    }
    // A later plain run keeps the index as it is.
    index(&ix, &[]);
    let out = debrief(&ix).args(["search", "timezone", "--semantic"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    // An index with embeddings refuses to drop them without a rebuild.
    let with = tmp.path().join("with");
    index(&with, &[]);
    let out = debrief(&with).arg("index").arg("--no-embeddings").arg(corpus("codex/2026/03")).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("--rebuild --no-embeddings"), "{}", stderr_of(&out));
    index(&with, &["--rebuild", "--no-embeddings"]);
    let out = debrief(&with).args(["search", "timezone", "--semantic"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// An appended message is embedded with the append, and what was there is not doubled.
#[test]
fn appended_messages_are_found_by_meaning() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = tmp.path().join("sessions");
    fs::create_dir(&dir).unwrap();
    let file = dir.join("s.jsonl");
    fs::copy(corpus("claude-code/ledger-timezone-fix.jsonl"), &file).unwrap();
    let run = || {
        let out = debrief(&ix).arg("index").arg(&dir).output().unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        stderr_of(&out)
    };
    run();
    let before = search(&ix, &["the clock zone of the east coast", "--semantic", "-n", "50"]);
    let line = r#"{"parentUuid":null,"isSidechain":false,"cwd":"/home/dana/src/ledger","sessionId":"7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93","version":"2.1.30","type":"user","message":{"role":"user","content":"the dev server will not start: the port is taken by another process"},"uuid":"u-new","timestamp":"2026-03-02T09:05:00.000Z"}"#;
    fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(format!("{line}\n").as_bytes()).unwrap();
    assert!(run().contains("1 appended"));
    let hits = search(&ix, &["the development server cannot start because its port is busy", "--semantic", "-n", "3"]);
    assert_eq!(hits[0]["idx"], 13, "{hits:?}");
    let after = search(&ix, &["the clock zone of the east coast", "--semantic", "-n", "50"]);
    assert_eq!(after.len(), before.len() + 1, "one message more, none doubled");
}
