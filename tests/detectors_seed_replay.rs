//! The seeds' story as a test: on the replay session (`corpus/seed-replay/`, 5,000+
//! messages with the story at the seeds' ids), the search and liveness detectors
//! report exactly the moments the seeds describe — the swamped greps (5082, 5083), the
//! pivot to `tail` (5084), the false CRASHED alarm (5081), the retraction (5085) and
//! the corrected wait loop that timed out (5085) — and nothing anywhere else.

mod common;

use std::collections::BTreeSet;

const REPLAY: &str = "corpus/seed-replay/kimi-k25-eagle3-campaign.jsonl";
const OURS: &str = "grep-tail-pivot,noisy-search,false-crash-alarm,self-correction,polling-timeout";

fn detect_json() -> String {
    let index = tempfile::tempdir().expect("a temporary index folder");
    let out = common::debrief(index.path())
        .current_dir(common::root())
        .args(["detect", "--json", "--select", OURS, REPLAY])
        .output()
        .expect("debrief runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("JSON lines are UTF-8")
}

#[test]
fn the_replay_yields_the_seeds_findings_and_nothing_else() {
    let json = detect_json();
    let found: BTreeSet<(String, u64)> = json
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("one JSON object per line");
            (v["detector"].as_str().unwrap_or("").to_string(), v["key"]["idx"].as_u64().unwrap_or(0))
        })
        .collect();
    let expected: BTreeSet<(String, u64)> = [
        ("false-crash-alarm", 5081),
        ("noisy-search", 5082),
        ("noisy-search", 5083),
        ("grep-tail-pivot", 5084),
        ("self-correction", 5085),
        ("polling-timeout", 5085),
    ]
    .into_iter()
    .map(|(d, k)| (d.to_string(), k))
    .collect();
    assert_eq!(found, expected);
    insta::assert_snapshot!("seed-replay-detect-json", json);
}

/// Wherever the story falls relative to the engine's windows (decided in one window,
/// or its alarm in one and its retraction in the next), the findings are the same.
#[test]
fn the_story_is_found_wherever_the_windows_fall() {
    let session = common::parse(&common::root().join(REPLAY)).remove(0);
    let ours: Vec<String> = OURS.split(',').map(str::to_string).collect();
    let detectors = debrief::detect::selection(&ours, &[]).expect("our detectors are registered");
    let key = |found: &[debrief::detect::Finding], shift: i64| -> BTreeSet<(String, i64)> {
        found.iter().map(|f| (f.detector.clone(), f.key as i64 + shift)).collect()
    };
    let whole = key(&debrief::detect::detect_session(&detectors, &session.messages), 0);
    // The first window decides keys up to LOOKBACK + CHUNK = 1120; place [msg 5081] around it.
    for at in [1100i64, 1118, 1120, 1121, 1122] {
        let start = (5081 - at) as usize; // messages before the new first one are dropped
        let mut msgs: Vec<_> = session.messages[start..].to_vec();
        for (i, m) in msgs.iter_mut().enumerate() {
            m.idx = i as u32 + 1;
        }
        let found = key(&debrief::detect::detect_session(&detectors, &msgs), 5081 - at);
        assert_eq!(found, whole, "story at {at}");
    }
}
