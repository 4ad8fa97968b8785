//! The benchmark generator (`examples/debrief-gen.rs`): the same seed gives the same
//! bytes, and debrief reads everything it writes as the real formats.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use debrief_synth::{self as synth, Spec};

fn files_of(root: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().strip_prefix(root).unwrap().display().to_string(), fs::read(e.path()).unwrap()))
        .collect()
}

#[test]
fn the_same_seed_gives_byte_identical_archives() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = Spec { codex_share: 0.3, ..Spec::new(3 << 20, 7) };
    synth::generate(&spec, &tmp.path().join("a"), 2).unwrap();
    synth::generate(&spec, &tmp.path().join("b"), 1).unwrap();
    let (a, b) = (files_of(&tmp.path().join("a")), files_of(&tmp.path().join("b")));
    assert!(a.len() > 2);
    assert!(a == b, "two runs differ");
    let other = Spec { seed: 8, ..spec };
    synth::generate(&other, &tmp.path().join("c"), 2).unwrap();
    assert!(files_of(&tmp.path().join("c")) != a, "another seed gives another archive");
}

#[test]
fn generated_sessions_read_cleanly_in_both_formats() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = Spec { codex_share: 0.4, ..Spec::new(4 << 20, 3) };
    let bytes = synth::generate(&spec, tmp.path(), 2).unwrap();
    assert!(bytes >= 4 << 20, "wrote {bytes}");
    let mut formats = BTreeMap::new();
    let mut outputs = 0usize;
    for (rel, content) in files_of(tmp.path()) {
        let path = tmp.path().join(&rel);
        let parsed = debrief::formats::parse_file(&path, None).unwrap();
        assert!(parsed.bad.is_empty(), "{rel}: {:?}", parsed.bad);
        assert!(parsed.unknown.is_empty(), "{rel}: {:?}", parsed.unknown);
        *formats.entry(parsed.format.id()).or_insert(0) += 1;
        let s = &parsed.sessions[0];
        assert!(!s.messages.is_empty());
        let joined = s.messages.iter().flat_map(|m| &m.calls).filter(|c| c.result.is_some()).count();
        let calls = s.messages.iter().flat_map(|m| &m.calls).count();
        assert_eq!(joined, calls, "{rel}: every call has its result");
        outputs += s
            .messages
            .iter()
            .flat_map(|m| &m.calls)
            .filter_map(|c| c.result.as_ref())
            .map(|r| r.output.len())
            .sum::<usize>();
        if parsed.format.id() == "claude-code" {
            // Outputs are written twice, as Claude Code does.
            assert!(content.windows(15).any(|w| w == b"\"toolUseResult\""), "{rel}");
        }
    }
    assert!(formats.contains_key("claude-code") && formats.contains_key("codex"), "{formats:?}");
    // Tool outputs, written at least twice each, are most of the bytes.
    assert!(outputs as u64 * 2 > bytes / 2, "outputs {outputs} of {bytes}");
}
