//! The detector registry as a whole: every detector has a unique kebab-case id, a
//! one-line summary, documentation with the required sections, and fixtures under
//! `corpus/detectors/<id>/` — firing (`pos-*`) and quiet (`neg-*`) cases in at least two
//! input formats. Each `pos-*` file must yield a finding of its detector and each
//! `neg-*` file none; the findings are pinned by insta snapshots.
//!
//! The test iterates `registry()`, so a detector added without docs or fixtures fails here.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use common::corpus;
use debrief::detect::{self, Detector, Finding};
use debrief::formats;
use serde::Serialize;

const SECTIONS: &[&str] = &["## What it finds", "## Why it matters", "## Example", "## Not an instance"];

fn is_kebab(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && !id.ends_with('-')
        && !id.contains("--")
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[test]
fn every_detector_has_a_unique_kebab_id_a_summary_and_documented_sections() {
    assert!(!detect::registry().is_empty());
    let mut seen = HashSet::new();
    for d in detect::registry() {
        let id = d.id();
        assert!(is_kebab(id), "`{id}` is not kebab-case");
        assert!(seen.insert(id), "`{id}` is registered twice");
        let summary = d.summary();
        assert!(!summary.trim().is_empty() && !summary.contains('\n'), "{id}: summary must be one line");
        assert!(summary.len() <= 120, "{id}: summary longer than 120 characters");
        let doc = d.doc();
        let mut at = 0;
        for s in SECTIONS {
            let pos = doc.find(s).unwrap_or_else(|| panic!("{id}: doc has no `{s}` section"));
            assert!(pos >= at, "{id}: `{s}` is out of order");
            at = pos;
        }
        assert!(detect::by_id(id).is_some());
    }
}

/// `pos-*` and `neg-*` files of a detector's fixture folder, sorted.
fn fixtures(id: &str) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let dir = corpus(&format!("detectors/{id}"));
    let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{id}: no fixture folder {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect();
    files.sort();
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let pos = files.iter().filter(|p| name(p).starts_with("pos-")).cloned().collect();
    let neg = files.iter().filter(|p| name(p).starts_with("neg-")).cloned().collect();
    (pos, neg)
}

/// Findings of one detector in a file (every session), and the file's format id.
fn findings_in(d: &'static dyn Detector, path: &Path) -> (Vec<Finding>, &'static str) {
    let parsed = formats::parse_file(path, None).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
    assert!(parsed.bad.is_empty(), "{}: bad records {:?}", path.display(), parsed.bad);
    let mut out = Vec::new();
    for s in &parsed.sessions {
        out.extend(detect::detect_session(&[d], &s.messages));
    }
    (out, parsed.format.id())
}

#[derive(Serialize)]
struct Snap {
    key: u32,
    evidence: Vec<u32>,
    summary: String,
    command: Option<String>,
}

#[test]
fn every_detector_fires_on_its_positives_and_stays_quiet_on_its_negatives() {
    for d in detect::registry() {
        let id = d.id();
        let (pos, neg) = fixtures(id);
        assert!(!pos.is_empty(), "{id}: needs at least one pos-* fixture");
        assert!(!neg.is_empty(), "{id}: needs at least one neg-* fixture");
        let mut formats_seen = BTreeSet::new();
        let mut snap: BTreeMap<String, Vec<Snap>> = BTreeMap::new();
        for (path, positive) in pos.iter().map(|p| (p, true)).chain(neg.iter().map(|p| (p, false))) {
            let (found, format) = findings_in(*d, path);
            formats_seen.insert(format);
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if positive {
                assert!(!found.is_empty(), "{id}: {name} should fire");
            } else {
                assert!(found.is_empty(), "{id}: {name} should not fire, got {found:#?}");
            }
            for f in &found {
                assert_eq!(f.detector, id);
                assert!(f.evidence.contains(&f.key), "{id}: {name}: evidence must include the key");
                assert!(!f.summary.is_empty() && !f.summary.contains('\n'), "{id}: {name}: one-line summary");
            }
            let rows = found
                .into_iter()
                .map(|f| Snap { key: f.key, evidence: f.evidence, summary: f.summary, command: f.command })
                .collect();
            snap.insert(name, rows);
        }
        assert!(formats_seen.len() >= 2, "{id}: fixtures in at least two formats, have {formats_seen:?}");
        insta::assert_yaml_snapshot!(id, snap);
    }
}

/// The seeds' story replayed (`corpus/seed-replay/`): each detector's findings there, by
/// key message. The story's moments must be found, and nothing in the ~5,000 messages
/// of ordinary work before them. Detectors not listed here are not checked by this test.
const SEED_REPLAY: &[(&str, &[u32])] = &[
    // [msg 5081]: the poll loop whose grep matched "Exception" in import warnings → CRASHED.
    ("false-crash-alarm", &[5081]),
    // [msg 5082], [msg 5083]: the two greps swamped by the ServerArgs dump.
    ("noisy-search", &[5082, 5083]),
    // [msg 5084]: tail -50 of the log the greps could not read.
    ("grep-tail-pivot", &[5084]),
    // [msg 5085]: "It's still loading! It didn't crash — …", and the corrected wait loop
    // that ran out after 23 attempts.
    ("self-correction", &[5085]),
    ("polling-timeout", &[5085]),
    // [msg 5080]: fewer NCCL channels + smaller buffer + the FlashInfer fusion patch in one launch.
    ("confounded-change", &[5080]),
    // [msg 5086]: the empty user message.
    ("empty-user-turn", &[5086]),
    // [msg 5087]: the long recap that answers it.
    ("context-dump", &[5087]),
    ("retry-loop", &[]),
    // The replay's user turns are nudges ("continue", "what's the throughput now?").
    ("user-pushback", &[]),
];

#[test]
fn seed_replay_findings_are_the_story_and_nothing_else() {
    let path = corpus("seed-replay/kimi-k25-eagle3-campaign.jsonl");
    let parsed = formats::parse_file(&path, None).unwrap();
    let s = &parsed.sessions[0];
    // The windowed engine, as `detect` and `index` run it (5,087 messages: several windows).
    let found = detect::detect_session(detect::registry(), &s.messages);
    for (id, keys) in SEED_REPLAY {
        let got: Vec<u32> = found.iter().filter(|f| f.detector == *id).map(|f| f.key).collect();
        assert_eq!(got, *keys, "{id}: {:#?}", found.iter().filter(|f| f.detector == *id).collect::<Vec<_>>());
    }
    let cc = found.iter().find(|f| f.detector == "confounded-change").unwrap();
    assert!(cc.evidence.contains(&5068) && cc.evidence.contains(&5076) && cc.evidence.contains(&5078), "{cc:?}");
    for needle in
        ["NCCL_BUFFSIZE (unset→131072)", "NCCL_MIN_NCHANNELS/NCCL_MAX_NCHANNELS (unset→1/2)", "communicator.py"]
    {
        assert!(cc.summary.contains(needle), "{}", cc.summary);
    }
    let dump = found.iter().find(|f| f.detector == "context-dump").unwrap();
    assert_eq!(dump.evidence, [5086, 5087]);
}

/// The windowed engine finds what one pass over the whole session finds, for detectors
/// whose decisions do not depend on session statistics (which the engine accumulates as
/// it goes): findings near window boundaries are neither lost nor doubled.
#[test]
fn windows_agree_with_one_pass_on_a_long_session() {
    let mut messages = Vec::new();
    for _ in 0..40 {
        for id in ["confounded-change", "retry-loop", "empty-user-turn"] {
            let (pos, _) = fixtures(id);
            for path in pos {
                for s in formats::parse_file(&path, None).unwrap().sessions {
                    for mut m in s.messages {
                        m.idx = messages.len() as u32 + 1;
                        messages.push(m);
                    }
                }
            }
        }
    }
    assert!(messages.len() > 2 * (detect::LOOKBACK + detect::CHUNK + detect::LOOKAHEAD), "{}", messages.len());
    for id in ["confounded-change", "retry-loop", "empty-user-turn"] {
        let d = detect::by_id(id).unwrap();
        let mut one_pass = Vec::new();
        d.check(&detect::SessionView { messages: &messages, stats: &detect::SessionStats::default() }, &mut one_pass);
        one_pass.sort_by_key(|f| f.key);
        let windowed = detect::detect_session(&[d], &messages);
        assert!(windowed.len() >= 40, "{id}: {}", windowed.len());
        let keys = |v: &[Finding]| v.iter().map(|f| (f.key, f.evidence.clone())).collect::<Vec<_>>();
        assert_eq!(keys(&windowed), keys(&one_pass), "{id}");
    }
}
