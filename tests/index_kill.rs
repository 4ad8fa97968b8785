//! An `index` run killed at any moment leaves an index that the next run completes
//! with nothing doubled and nothing lost: documents and the record of what was read are
//! committed together.

mod common;

use std::time::Duration;

use common::debrief;
use debrief::synth::{self, Spec};
use serde_json::Value;

fn counts(ix: &std::path::Path) -> (u64, Vec<usize>) {
    let out = debrief(ix).args(["sessions", "--json", "-n", "1000"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let messages = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["messages"].as_u64().unwrap())
        .sum();
    let hits = ["error", "pytest", "traceback", "\"connection refused\""]
        .iter()
        .map(|q| {
            let out = debrief(ix).args(["search", q, "--json", "-n", "100000"]).output().unwrap();
            String::from_utf8_lossy(&out.stdout).lines().count()
        })
        .collect();
    (messages, hits)
}

#[test]
fn a_killed_index_run_is_completed_by_the_next_with_nothing_doubled() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    synth::generate(&Spec { codex_share: 0.2, files: Some(40), ..Spec::new(8 << 20, 5) }, &corpus, 2).unwrap();

    let whole = tmp.path().join("whole");
    let out = debrief(&whole).arg("index").arg(&corpus).output().unwrap();
    assert!(out.status.success());
    let expected = counts(&whole);
    assert!(expected.0 > 0 && expected.1.iter().all(|&n| n > 0), "{expected:?}");

    // Kill runs that commit every megabyte at different moments, then finish.
    let ix = tmp.path().join("killed");
    for delay_ms in [150, 400, 800] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_debrief"))
            .env("DEBRIEF_INDEX", &ix)
            .env("DEBRIEF_INDEX_THREADS", "1")
            .env("DEBRIEF_COMMIT_MB", "1")
            .args(["index", "--quiet", "--wait"])
            .arg(&corpus)
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
    }
    let out = debrief(&ix).arg("index").arg(&corpus).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Whether a kill landed mid-run depends on the machine's speed; say what happened.
    eprintln!("after the kills: {}", String::from_utf8_lossy(&out.stderr).trim());
    assert_eq!(counts(&ix), expected);
}
