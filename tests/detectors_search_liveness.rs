//! Fixtures of grep-tail-pivot, noisy-search, false-crash-alarm, self-correction and
//! polling-timeout (`corpus/detectors/<id>/`, written by `gen_detect_a.py` there):
//! every `pos-*` file yields at least one finding of its folder's detector, every
//! `neg-*` file none, each detector has positives in at least two formats, and what
//! these five detectors report on every fixture is pinned by a snapshot.

mod common;

use std::fmt::Write;
use std::path::{Path, PathBuf};

use debrief::detect::{self, Finding};

const OURS: &[&str] = &["grep-tail-pivot", "noisy-search", "false-crash-alarm", "self-correction", "polling-timeout"];

fn fixtures(id: &str) -> Vec<PathBuf> {
    let dir = common::corpus(&format!("detectors/{id}"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a readable folder entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("pos-") || name.starts_with("neg-")
        })
        .collect();
    files.sort();
    files
}

fn findings(path: &Path) -> Vec<Finding> {
    let ours: Vec<String> = OURS.iter().map(|s| s.to_string()).collect();
    let detectors = detect::selection(&ours, &[]).expect("our detectors are registered");
    common::parse(path).iter().flat_map(|s| detect::detect_session(&detectors, &s.messages)).collect()
}

fn name(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

#[test]
fn positives_fire_and_near_misses_stay_quiet() {
    for id in OURS {
        let mut pos_formats = std::collections::BTreeSet::new();
        let (mut pos, mut neg) = (0, 0);
        for path in fixtures(id) {
            let n = name(&path);
            let hits = findings(&path).iter().filter(|f| f.detector == *id).count();
            if n.starts_with("pos-") {
                assert!(hits >= 1, "{id}: {n} should fire");
                pos += 1;
                pos_formats.insert(common::parse(&path)[0].meta.format.clone());
            } else {
                assert_eq!(hits, 0, "{id}: {n} is a near miss and should not fire");
                neg += 1;
            }
        }
        assert!(pos >= 2 && neg >= 2, "{id}: {pos} positives, {neg} near misses");
        assert!(pos_formats.len() >= 2, "{id}: positives only in {pos_formats:?}");
    }
}

#[test]
fn findings_on_fixtures() {
    for id in OURS {
        let mut text = String::new();
        for path in fixtures(id) {
            writeln!(text, "{}", name(&path)).expect("writing to a String");
            for f in findings(&path) {
                writeln!(text, "  {} [msg {}] evidence {:?}", f.detector, f.key, f.evidence).expect("write");
                writeln!(text, "    {}", f.summary).expect("write");
                if let Some(c) = &f.command {
                    writeln!(text, "    $ {}", c.lines().next().unwrap_or("")).expect("write");
                }
            }
        }
        insta::assert_snapshot!(format!("fixtures-{id}"), text);
    }
}
