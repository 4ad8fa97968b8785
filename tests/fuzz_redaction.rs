//! The redactor fuzzed on its own (issue 18): a short, deterministic run of the
//! differential property of `tests/fuzzing/redaction.rs` — what the redactor wrote,
//! redacted again, is left as it is, as text and as a JSON tool input, and secrets
//! planted whole are gone — on inputs made of the seeds' transcript text, secrets of
//! many shapes and the characters rules turn on. `scripts/fuzz.sh 60 redaction` runs
//! the same check under libFuzzer.
//!
//! `DEBRIEF_FUZZ_ITERS` sets the executions (default 3000), `DEBRIEF_FUZZ_FIRST` the
//! first one: execution `i` always makes the same input.

mod fuzzing;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn redacting_the_redactors_output_changes_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let seeds = fuzzing::load_seeds(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), tmp.path(), 96 * 1024);
    let texts: Vec<&[u8]> = seeds.by_format.values().flatten().map(|s| s.bytes.as_slice()).collect();
    let iters = env_u64("DEBRIEF_FUZZ_ITERS", 3000);
    let first = env_u64("DEBRIEF_FUZZ_FIRST", 0);
    let started = std::time::Instant::now();
    let mut failures = Vec::new();
    let mut planted = 0;
    // Inputs by the passes of the rules that changed them (0: nothing to redact).
    let mut by_passes = std::collections::BTreeMap::new();
    for i in first..first + iters {
        let mut rng = fuzzing::Rng::new(i ^ 0x00de_b1ef_0018);
        let (input, secrets) = fuzzing::redaction::case(&mut rng, &texts);
        planted += secrets.len();
        match fuzzing::redaction::check(&input, &secrets) {
            Ok(passes) => *by_passes.entry(passes).or_insert(0) += 1,
            Err(e) => failures.push(format!("execution {i}: {e}")),
        }
    }
    eprintln!(
        "{iters} executions ({planted} secrets planted whole), inputs by passes that changed them {by_passes:?}, \
         {} failures, {:.1}s",
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}
