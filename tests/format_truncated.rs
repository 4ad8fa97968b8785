//! Bad input never panics: every sample of the Aider, SpecStory, SWE-agent,
//! OpenAI-chat and OpenHands formats, cut off at many points (as a file being written,
//! or damaged, would be), parses with its format forced and reports instead of failing.

mod common;

use std::path::PathBuf;

use common::corpus;
use debrief::formats;

fn samples() -> Vec<(PathBuf, &'static str)> {
    let mut out = Vec::new();
    for (dir, id) in [
        ("aider", "aider"),
        ("specstory", "specstory"),
        ("swe-agent", "swe-agent"),
        ("openai-chat", "openai-chat"),
        ("openhands", "openhands"),
    ] {
        for e in walkdir::WalkDir::new(corpus(dir)).into_iter().filter_map(Result::ok) {
            let p = e.path();
            let name = p.to_string_lossy();
            // Side files of OpenHands conversations are no transcripts.
            if e.file_type().is_file() && !name.ends_with("metadata.json") && !name.ends_with("base_state.json") {
                out.push((p.to_path_buf(), id));
            }
        }
    }
    out
}

#[test]
fn cut_off_files_parse_without_panicking() {
    let tmp = tempfile::tempdir().unwrap();
    let samples = samples();
    assert!(samples.len() > 10);
    for (path, id) in samples {
        let format = formats::by_id(id).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        // Keep the folder layout: an OpenHands event file reads its siblings.
        let dir = tmp.path().join(path.parent().unwrap().strip_prefix(corpus("")).unwrap());
        std::fs::create_dir_all(&dir).unwrap();
        let cut = dir.join(path.file_name().unwrap());
        let step = (bytes.len() / 23).max(1);
        for end in (0..bytes.len()).step_by(step).chain([bytes.len().saturating_sub(1)]) {
            std::fs::write(&cut, &bytes[..end]).unwrap();
            let parsed = formats::parse_file(&cut, Some(format));
            assert!(parsed.is_ok(), "{} cut at {end}: {:?}", path.display(), parsed.err());
        }
        // Bytes that are not text at all.
        let mut garbage = bytes.clone();
        for (i, b) in garbage.iter_mut().enumerate() {
            if i % 7 == 3 {
                *b = 0xff;
            }
        }
        std::fs::write(&cut, &garbage).unwrap();
        assert!(formats::parse_file(&cut, Some(format)).is_ok(), "{} with invalid UTF-8", path.display());
        std::fs::write(&cut, &bytes).unwrap();
    }
}
