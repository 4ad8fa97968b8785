//! Glue between cargo-fuzz and the fuzzer of the test suite (`tests/fuzzing/mod.rs`):
//! the same execution (every sniffer, the parser, a resumed parse, detectors, indexer
//! text, redaction) on inputs libFuzzer chooses, and the same structure-aware mutations
//! (JSON fields of the wrong type, line surgery, format tokens) beside libFuzzer's own.

#[path = "../tests/fuzzing/mod.rs"]
pub mod fuzzing;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use libfuzzer_sys;

struct State {
    _dir: tempfile::TempDir,
    seeds: fuzzing::Seeds,
}

fn state() -> &'static State {
    static STATE: OnceLock<State> = OnceLock::new();
    STATE.get_or_init(|| {
        let dir = tempfile::Builder::new().prefix("debrief-fuzz").tempdir_in(scratch()).expect("temp dir");
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let seeds = fuzzing::load_seeds(&repo, dir.path(), usize::MAX);
        State { _dir: dir, seeds }
    })
}

/// Inputs are written to a file for every execution: keep them in memory when we can.
fn scratch() -> PathBuf {
    let shm = PathBuf::from("/dev/shm");
    if shm.is_dir() { shm } else { std::env::temp_dir() }
}

/// One execution: the input takes the place of the format's first seed (so a parser
/// that reads sibling files finds them) and everything that reads transcripts runs.
pub fn run(format_id: &str, data: &[u8]) {
    let st = state();
    let format = debrief::formats::by_id(format_id).expect("known format");
    let seed = &st.seeds.by_format[format_id][0];
    let path = st.seeds.root.join(&seed.rel);
    fuzzing::write_input(format_id, &path, data);
    fuzzing::exercise(&path, format);
}

/// Half of the mutations are libFuzzer's (byte-level, guided by coverage), half ours.
pub fn mutate(data: &mut [u8], size: usize, max_size: usize, seed: u32) -> usize {
    if seed % 2 == 0 {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    }
    let st = state();
    let others: Vec<&[u8]> = st.seeds.by_format.values().flatten().map(|s| s.bytes.as_slice()).collect();
    let mut rng = fuzzing::Rng::new(u64::from(seed));
    let mut v = data[..size].to_vec();
    fuzzing::mutate(&mut rng, &mut v, &others);
    let n = v.len().min(max_size);
    data[..n].copy_from_slice(&v[..n]);
    n
}

/// A fuzz target for one format: `debrief_fuzz::target!("claude-code");`
#[macro_export]
macro_rules! target {
    ($id:literal) => {
        $crate::libfuzzer_sys::fuzz_target!(|data: &[u8]| $crate::run($id, data));
        $crate::libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
            $crate::mutate(data, size, max_size, seed)
        });
    };
}

/// One execution of the redaction target: the input as text (lossy UTF-8) must pass the
/// differential property of `fuzzing::redaction::check`.
pub fn run_redaction(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = fuzzing::redaction::check(&text, &[]) {
        panic!("{e}");
    }
}

/// Half libFuzzer's mutations, half a new input of `fuzzing::redaction::case` (seed
/// text, secrets, the characters rules turn on) spliced into the current one.
pub fn mutate_redaction(data: &mut [u8], size: usize, max_size: usize, seed: u32) -> usize {
    if seed % 2 == 0 {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    }
    let st = state();
    let texts: Vec<&[u8]> = st.seeds.by_format.values().flatten().map(|s| s.bytes.as_slice()).collect();
    let mut rng = fuzzing::Rng::new(u64::from(seed));
    let (piece, _) = fuzzing::redaction::case(&mut rng, &texts);
    let mut v = data[..size].to_vec();
    let at = rng.below(v.len() + 1);
    v.splice(at..at, piece.into_bytes());
    let n = v.len().min(max_size);
    data[..n].copy_from_slice(&v[..n]);
    n
}
