//! Fixtures of grep-tail-pivot, noisy-search, false-crash-alarm, self-correction and
//! polling-timeout (`corpus/detectors/<id>/`, written by `gen_detect_a.py` there): what
//! all five report on every fixture of the five folders, pinned by one snapshot per
//! folder. The registry-wide test (`tests/detectors.rs`) checks each detector on its own
//! folder; this one also pins where they fire together (a swamped grep is a noisy-search
//! in a grep-tail-pivot fixture, a retraction a self-correction in a crash fixture).

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
