#!/usr/bin/env bash
# Crash safety, the long run: `debrief index` killed after every document, before and
# after each of 60 commits, and by SIGKILL every 25 ms over its first second — on a
# fresh index and while appending — and each time the next run must end with exactly
# the documents of a clean run (tests/crash_safety.rs; the suite tries a spread of
# these points). Prints the number of kill points survived.
set -euo pipefail
cd "$(dirname "$0")/.."
DEBRIEF_CRASH_ALL=1 cargo test --release --test crash_safety -- --nocapture 2>&1 | grep -E "kill points|test result|panicked|differ|doubled" 
