#!/usr/bin/env bash
# Coverage-guided fuzzing of every transcript parser with cargo-fuzz (libFuzzer).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     # default: 60 s, every target
#
# Targets are fuzz/fuzz_targets/<format>.rs; each runs the same execution as the test
# suite's fuzzer (tests/fuzzing/mod.rs): all sniffers, the parser, a resumed parse,
# detectors, indexer text, show --json, redaction. The target `redaction` fuzzes the
# redactor on its own (tests/fuzzing/redaction.rs: what it wrote, redacted again, stays
# as it is), as tests/fuzz_redaction.rs does in the suite. Seeds: corpus/ and
# ../shared/corpus-real/, written to $DEBRIEF_FUZZ_CORPUS/<target>/ (default
# fuzz/corpus, which git ignores; libFuzzer adds the inputs that reach new code there,
# hundreds of MB in a long run, so point it at a roomy or in-memory folder).
# Inputs are capped at $DEBRIEF_FUZZ_MAX_LEN bytes (default 256 KB).
# cargo-fuzz wants nightly rustc flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain
# accept them. A crash leaves its input in fuzz/artifacts/<target>/ and stops the run.
# The last line per target is libFuzzer's "Done N runs in S second(s)".
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
export RUSTC_BOOTSTRAP=1
if [ $# -gt 0 ]; then targets=("$@"); else
  mapfile -t targets < <(ls fuzz/fuzz_targets | sed 's/\.rs$//')
fi
corpus=${DEBRIEF_FUZZ_CORPUS:-$PWD/fuzz/corpus}
DEBRIEF_FUZZ_SEED_DIR="$corpus" cargo test --quiet --test fuzz_formats write_seed_corpus -- --ignored >/dev/null
cargo fuzz build --sanitizer none -O   # every target now, so timings below are fuzzing only
mkdir -p target/fuzz-logs
total=0
for t in "${targets[@]}"; do
  log="target/fuzz-logs/$t.log"
  cargo fuzz run --sanitizer none -O "$t" "$corpus/$t" -- -max_total_time="$secs" -timeout=20 \
    -rss_limit_mb=4096 -max_len="${DEBRIEF_FUZZ_MAX_LEN:-262144}" >"$log" 2>&1 || {
    echo "$t: FAILED, see $log and fuzz/artifacts/$t/"; tail -30 "$log"; exit 1; }
  runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*' || echo 0)
  total=$((total + runs))
  printf '%-18s %10s executions clean in %ss (%s)\n' "$t" "$runs" "$secs" "$(grep -o 'cov: [0-9]*' "$log" | tail -1)"
done
echo "total: $total executions, no crash"
