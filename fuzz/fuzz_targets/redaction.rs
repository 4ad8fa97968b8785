#![no_main]
//! Fuzz the redactor on its own: what it wrote, redacted again, must stay as it is
//! (tests/fuzzing/redaction.rs).
debrief_fuzz::libfuzzer_sys::fuzz_target!(|data: &[u8]| debrief_fuzz::run_redaction(data));
debrief_fuzz::libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    debrief_fuzz::mutate_redaction(data, size, max_size, seed)
});
