//! `debrief detect`, `detectors`, and the findings the index stores, as a user runs
//! them over the detector fixtures: the `detect --json` contract, `--stats`, and that
//! `search --detector` and `sessions` agree with `detect` for every registered detector.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::{corpus, debrief};
use debrief::detect;
use serde_json::Value;

fn json_lines(out: &std::process::Output) -> Vec<Value> {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect()
}

fn detect_json(ix: &Path, args: &[&str]) -> Vec<Value> {
    json_lines(&debrief(ix).arg("detect").args(args).arg("--json").output().unwrap())
}

#[test]
fn detect_json_follows_the_contract() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let path = corpus("detectors/confounded-change/pos-claude-nccl-and-fusion.jsonl");
    let found = detect_json(&ix, &[path.to_str().unwrap(), "--select", "confounded-change"]);
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    for key in ["detector", "source", "session", "key", "messages", "summary"] {
        assert!(f.get(key).is_some(), "detect --json has {key}");
    }
    assert_eq!(f["detector"], "confounded-change");
    assert_eq!(f["key"]["idx"], 11);
    assert!(f["key"]["line"].as_u64().is_some());
    let idxs: Vec<u64> = f["messages"].as_array().unwrap().iter().map(|m| m["idx"].as_u64().unwrap()).collect();
    assert_eq!(idxs, [6, 9, 11], "the previous launch, the edit and the relaunch");
    for m in f["messages"].as_array().unwrap() {
        for key in ["idx", "line", "end_line", "role"] {
            assert!(m.get(key).is_some(), "evidence has {key}");
        }
    }
    assert!(f["summary"].as_str().unwrap().starts_with("relaunch of sglang.launch_server changed "));
}

#[test]
fn detect_json_is_sorted_by_source_then_key() {
    let tmp = tempfile::tempdir().unwrap();
    let found = detect_json(&tmp.path().join("ix"), &[corpus("detectors").to_str().unwrap()]);
    let order: Vec<(String, u64)> =
        found.iter().map(|f| (f["source"].as_str().unwrap().to_string(), f["key"]["idx"].as_u64().unwrap())).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
}

#[test]
fn stats_count_each_detector_on_its_own_fixtures() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    for d in detect::registry() {
        let dir = corpus(&format!("detectors/{}", d.id()));
        let positives = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("pos-"))
            .count();
        let rows = json_lines(
            &debrief(&ix).args(["detect", "--stats", "--json", "--select", d.id()]).arg(&dir).output().unwrap(),
        );
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!(rows[0]["detector"], d.id());
        // Every positive file fires, no negative file does.
        assert_eq!(rows[0]["files"].as_u64(), Some(positives as u64), "{}: {rows:?}", d.id());
        assert!(rows[0]["findings"].as_u64().unwrap() >= positives as u64);
    }
    // The table for people names every detector, on stdout.
    let out = debrief(&ix).args(["detect", "--stats", "--verbose"]).arg(corpus("detectors")).output().unwrap();
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    for d in detect::registry() {
        assert!(table.lines().any(|l| l.starts_with(d.id())), "{} missing from\n{table}", d.id());
    }
    assert!(String::from_utf8_lossy(&out.stderr).contains("sessions"));
}

#[test]
fn stats_verbose_needs_stats() {
    let tmp = tempfile::tempdir().unwrap();
    let out = debrief(&tmp.path().join("ix")).args(["detect", "--verbose"]).arg(corpus("detectors")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_index_stores_what_detect_finds() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = corpus("detectors");
    let out = debrief(&ix).arg("index").arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let found = detect_json(&ix, &[dir.to_str().unwrap()]);
    assert!(!found.is_empty());
    // Per detector: `search --detector` returns exactly the key messages.
    for d in detect::registry() {
        let want: BTreeSet<(String, u64)> = found
            .iter()
            .filter(|f| f["detector"] == d.id())
            .map(|f| (f["source"].as_str().unwrap().to_string(), f["key"]["idx"].as_u64().unwrap()))
            .collect();
        let hits = json_lines(
            &debrief(&ix).args(["search", "--detector", d.id(), "--limit", "1000", "--json"]).output().unwrap(),
        );
        let got: BTreeSet<(String, u64)> =
            hits.iter().map(|h| (h["source"].as_str().unwrap().to_string(), h["idx"].as_u64().unwrap())).collect();
        assert_eq!(got, want, "{}", d.id());
        for h in &hits {
            assert!(h["detectors"].as_array().unwrap().iter().any(|x| x == d.id()));
        }
    }
    // `sessions` counts the same findings per detector.
    let sessions = json_lines(&debrief(&ix).args(["sessions", "--limit", "1000", "--json"]).output().unwrap());
    let mut counted: BTreeMap<String, u64> = BTreeMap::new();
    for s in &sessions {
        for (d, n) in s["detectors"].as_object().unwrap() {
            *counted.entry(d.clone()).or_default() += n.as_u64().unwrap();
        }
    }
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for f in &found {
        *expected.entry(f["detector"].as_str().unwrap().to_string()).or_default() += 1;
    }
    assert_eq!(counted, expected);
    // And `sessions --detector` keeps only sessions with such a finding.
    let with = json_lines(
        &debrief(&ix).args(["sessions", "--detector", "retry-loop", "--limit", "1000", "--json"]).output().unwrap(),
    );
    assert!(!with.is_empty());
    assert!(with.iter().all(|s| s["detectors"]["retry-loop"].as_u64().unwrap_or(0) > 0));
}

#[test]
fn detectors_lists_the_registry_and_prints_each_doc() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let out = debrief(&ix).arg("detectors").output().unwrap();
    assert!(out.status.success());
    let list = String::from_utf8_lossy(&out.stdout);
    for d in detect::registry() {
        assert!(list.contains(d.id()) && list.contains(d.summary()), "{list}");
        let out = debrief(&ix).args(["detectors", d.id()]).output().unwrap();
        assert!(out.status.success());
        let doc = String::from_utf8_lossy(&out.stdout);
        assert!(doc.contains("What it finds") && doc.contains("Not an instance"), "{doc}");
    }
    // --json: one object per detector, with the documentation.
    let all = json_lines(&debrief(&ix).args(["detectors", "--json"]).output().unwrap());
    let ids: Vec<&str> = all.iter().map(|d| d["id"].as_str().unwrap()).collect();
    let want: Vec<&str> = detect::registry().iter().map(|d| d.id()).collect();
    assert_eq!(ids, want);
    assert!(all.iter().all(|d| d["doc"].as_str().unwrap().starts_with("## What it finds")));
    let one = json_lines(&debrief(&ix).args(["detectors", "retry-loop", "--json"]).output().unwrap());
    assert_eq!(one.len(), 1);
    assert_eq!(one[0]["id"], "retry-loop");
    let out = debrief(&ix).args(["detectors", "no-such-thing"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown detector `no-such-thing`"));
}

#[test]
fn detect_over_a_folder_gives_the_same_findings_each_run() {
    // The files are read on several threads; the findings must not depend on which
    // thread finished first (a helper once saw two runs differ).
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = corpus("detectors");
    let run = || {
        let out = debrief(&ix).arg("detect").arg(&dir).arg("--json").output().unwrap();
        assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let first = run();
    let found = json_lines(&debrief(&ix).arg("detect").arg(&dir).arg("--json").output().unwrap());
    let sources: BTreeSet<&str> = found.iter().filter_map(|f| f["source"].as_str()).collect();
    assert!(sources.len() >= 10, "a folder of many sessions: {} sources", sources.len());
    for _ in 0..3 {
        assert!(run() == first, "two runs of detect over the same folder differ");
    }
}
