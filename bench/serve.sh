#!/usr/bin/env bash
# Page timings of `debrief serve` on the seed replay (corpus/seed-replay: one real-shaped
# 5,087-message Claude Code session, 10 MB): the session page (the first 1,000 messages,
# and the page around the finding at [msg 5084]), the live page's poll of a quiet session,
# the search page, the sessions list, the findings page and an episode write-up. Each page
# is asked once cold (the server has not parsed the transcript yet) and then $RUNS times;
# the median is printed, and the server's CPU time (from /proc: on a shared machine the
# time a page takes varies with the other work, its CPU time much less). Numbers go to
# docs/performance.md, never into tests.
#
#   bench/serve.sh [--runs N] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=15
OUT=target/bench
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        *) echo "usage: bench/serve.sh [--runs N] [--out DIR]" >&2; exit 2 ;;
    esac
done
command -v curl >/dev/null || { echo "bench: curl is needed (apt-get install curl)" >&2; exit 1; }
cargo build --release --locked --quiet --bin debrief
BIN=$PWD/target/release/debrief
mkdir -p "$OUT"
IX=$OUT/serve-index
rm -rf "$IX"
"$BIN" --index "$IX" index --quiet corpus/seed-replay
SESSION=$("$BIN" --index "$IX" sessions --json | head -1 | sed 's/.*"session":"\([^"]*\)".*/\1/')
LAST=$("$BIN" --index "$IX" sessions --json | head -1 | sed 's/.*"messages":\([0-9]*\).*/\1/')
"$BIN" --index "$IX" serve > "$OUT/serve.url" 2>/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$OUT/serve.url" ] && break; sleep 0.1; done
URL=$(head -1 "$OUT/serve.url")
BASE=${URL%%/?token=*}
PORT=${BASE##*:}
COOKIE="debrief-$PORT=${URL##*token=}"
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
ms() { curl -sf -o /dev/null -w '%{time_total}\n' -H "Cookie: $COOKIE" "$BASE$1" | awk '{printf "%.1f\n", $1*1000}'; }
size() { curl -sf -o /dev/null -w '%{size_download}\n' -H "Cookie: $COOKIE" "$BASE$1" | awk '{printf "%.0f KB\n", $1/1024}'; }
# The server's CPU time so far, in ms (user + system, in clock ticks of /proc/PID/stat).
TICK=$(getconf CLK_TCK 2>/dev/null || echo 100)
cpu() { if [ -r "/proc/$PID/stat" ]; then awk -v t="$TICK" '{print ($14+$15)*1000/t}' "/proc/$PID/stat"; else echo 0; fi; }
echo "| page | cold | cold CPU | warm (median of $RUNS) | warm CPU (mean) | size |"
echo "|---|---:|---:|---:|---:|---:|"
for p in "/session/$SESSION" "/session/$SESSION?at=5084" "/api/session/$SESSION?after=$LAST" "/search?q=NCCL+error" "/search?q=ServerArgs&program=grep" "/" "/findings" "/writeup/$SESSION?episode=5084"; do
    a=$(cpu)
    cold=$(ms "$p")
    b=$(cpu)
    warm=$(for _ in $(seq "$RUNS"); do ms "$p"; done | median)
    c=$(cpu)
    printf '| `%s` | %s ms | %.0f ms | %s ms | %.1f ms | %s |\n' "${p//$SESSION/ID}" "$cold" "$(awk -v a="$a" -v b="$b" 'BEGIN {print b - a}')" \
        "$warm" "$(awk -v b="$b" -v c="$c" -v n="$RUNS" 'BEGIN {print (c - b) / n}')" "$(size "$p")"
done
