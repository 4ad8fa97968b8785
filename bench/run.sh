#!/usr/bin/env bash
# The performance harness (see docs/performance.md). One command:
#
#   bench/run.sh                 # 1 GB synthetic Claude Code archive, 5 runs per figure
#   bench/run.sh --size 100M     # other sizes (100M … 10G) for the growth table
#   bench/run.sh --big           # also a single 600 MB session file (bounded memory)
#
# It builds debrief in release mode, generates a deterministic archive with
# examples/debrief-gen.rs (reused when it already exists), and measures side by side:
# `cat` of the archive (the read limit), `rg` over it, a full `debrief index`, a
# no-change re-index, a re-index after appending 1 MB to one session, `detect` over
# everything, a fixed set of searches as whole processes (and `rg -c -i` for the same
# words), and `report` on a 5,000-message session. Every figure is the median of several
# runs; peak memory is the largest maximum resident set size /usr/bin/time saw.
# Results go to stdout and to $OUT/results-<size>.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=1G
SEED=1
RUNS=5
SEARCH_RUNS=15
OUT=target/bench
BIG=0
FILES=10000
CLEAN=0
usage() {
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    echo "options: --size SIZE --seed N --runs N --search-runs N --out DIR --big --clean (delete the archive after)"
}
while [ $# -gt 0 ]; do
    case "$1" in
        --size) SIZE=$2; shift 2 ;;
        --seed) SEED=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --search-runs) SEARCH_RUNS=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --big) BIG=1; shift ;;
        --clean) CLEAN=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done

# --- tools -------------------------------------------------------------------------
apt_install() {
    local pkg=$1
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    echo "bench: installing $pkg from Debian" >&2
    $sudo apt-get install -y "$pkg" >/dev/null 2>&1 || { $sudo apt-get update >/dev/null && $sudo apt-get install -y "$pkg" >/dev/null; }
}
command -v rg >/dev/null || apt_install ripgrep
[ -x /usr/bin/time ] || apt_install time

echo "bench: building (release)" >&2
cargo build --release --locked --quiet --bin debrief --example debrief-gen
BIN=$PWD/target/release/debrief
GEN=$PWD/target/release/examples/debrief-gen
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# --- helpers -------------------------------------------------------------------------
# Generate an archive once; the generator is deterministic, so a complete one is reused.
generate() {
    local dir=$1; shift
    local args="$*"
    if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$args" ]; then
        return
    fi
    rm -rf "$dir"
    echo "bench: generating $dir ($args)" >&2
    $GEN "$@" "$dir" >&2
    echo "$args" > "$dir/.complete"
}

# Bytes of the transcripts in a folder (not counting the marker).
archive_bytes() { find "$1" -type f -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s}'; }

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
percentile() { sort -g | awk -v p="$1" '{a[NR]=$1} END {i=int((NR*p/100)+0.999); if (i<1) i=1; print a[i]}'; }

# measure NAME SETUP CMD...: run CMD $RUNS times (SETUP before each, untimed); records
# median wall seconds, median CPU seconds and the largest peak RSS (MB) in $RES.
declare -A WALL CPU RSS
measure() {
    local name=$1 setup=$2; shift 2
    local walls="" cpus="" rss=0 t start end
    for _ in $(seq "$RUNS"); do
        eval "$setup"
        t=$(mktemp)
        start=$EPOCHREALTIME
        /usr/bin/time -f "%U %S %M" -o "$t" "$@" >/dev/null 2>>"$OUT/bench.log" || { echo "bench: $name failed (see $OUT/bench.log)" >&2; cat "$t" >&2; }
        end=$EPOCHREALTIME
        read -r u s m < <(tail -1 "$t")
        rm -f "$t"
        walls+="$(awk -v a="$start" -v b="$end" 'BEGIN {print b-a}')"$'\n'
        cpus+="$(awk -v u="$u" -v s="$s" 'BEGIN {print u+s}')"$'\n'
        [ "$m" -gt "$rss" ] && rss=$m
    done
    WALL[$name]=$(printf '%s' "$walls" | median)
    CPU[$name]=$(printf '%s' "$cpus" | median)
    RSS[$name]=$((rss / 1024))
    printf 'bench: %-22s %8.3f s wall  %8.3f s cpu  %5d MB peak\n' "$name" "${WALL[$name]}" "${CPU[$name]}" "${RSS[$name]}" >&2
}

# Wall time of one command in milliseconds (bash's clock: no process around it).
ms_of() {
    local s=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 || true
    local e=$EPOCHREALTIME
    awk -v s="$s" -v e="$e" 'BEGIN {printf "%.2f\n", (e-s)*1000}'
}

# --- the archive ---------------------------------------------------------------------
CORPUS=$OUT/corpus-$SIZE-s$SEED
generate "$CORPUS" --size "$SIZE" --seed "$SEED"
BYTES=$(archive_bytes "$CORPUS")
NFILES=$(find "$CORPUS" -type f -name '*.jsonl' | wc -l)
MB=$(awk -v b="$BYTES" 'BEGIN {printf "%.0f", b/1e6}')
IX=$OUT/index-$SIZE
: > "$OUT/bench.log"

echo "bench: $NFILES files, $MB MB; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# Warm the page cache: every figure is for an archive that was read recently.
find "$CORPUS" -type f -name '*.jsonl' -print0 | xargs -0 cat >/dev/null

# --- reading limits ------------------------------------------------------------------
# (into a pipe: GNU cat skips the copy when writing to /dev/null)
measure cat ":" sh -c "find '$CORPUS' -type f -name '*.jsonl' -print0 | xargs -0 cat | wc -c"
measure rg-scan ":" sh -c "rg -c -i --no-messages zqxjkv '$CORPUS'; true"

# --- indexing ------------------------------------------------------------------------
measure index "rm -rf '$IX'" "$BIN" --index "$IX" index "$CORPUS"
grep '^indexed' "$OUT/bench.log" | tail -1 > "$OUT/index-summary.txt"
INDEX_BYTES=$(du -sb "$IX" | cut -f1)
MESSAGES=$("$BIN" --index "$IX" sessions --json -n 1000000 | awk -F'"messages":' '{split($2,a,/[,}]/); s+=a[1]} END {print s}')
measure reindex-unchanged ":" "$BIN" --index "$IX" index --quiet "$CORPUS"

# Append 1 MB to the largest Claude Code session: cut its last MB off, index, put it
# back, and time that run.
BIGGEST=$(find "$CORPUS/claude" -type f -name '*.jsonl' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
BIGSIZE=$(stat -c %s "$BIGGEST")
# Cut at the first line that starts in the last MB.
CUT=$(( BIGSIZE - 1048576 + $(tail -c +$((BIGSIZE - 1048576 + 1)) "$BIGGEST" | head -n 1 | wc -c || true) ))
cp "$BIGGEST" "$OUT/append-original.jsonl"
tail -c +$((CUT + 1)) "$OUT/append-original.jsonl" > "$OUT/append-tail.jsonl"
APPEND_BYTES=$(stat -c %s "$OUT/append-tail.jsonl")
restore_cut() { truncate -s "$CUT" "$BIGGEST" && "$BIN" --index "$IX" index --quiet "$CORPUS" && cat "$OUT/append-tail.jsonl" >> "$BIGGEST"; }
measure reindex-append "restore_cut" "$BIN" --index "$IX" index --quiet "$CORPUS"
# How many bytes of that file the run read (strace of every read from it).
APPEND_READ=nan
if command -v strace >/dev/null || apt_install strace; then
    restore_cut
    strace -f -e trace=openat,read,pread64,close -o "$OUT/append.strace" "$BIN" --index "$IX" index --quiet "$CORPUS" >/dev/null 2>&1 || true
    APPEND_READ=$(awk -v f="\"$BIGGEST\"" '
        /openat\(/ && index($0, f) { fd[$NF] = 1; next }
        /close\(/ { x = $0; sub(/.*close\(/, "", x); sub(/\).*/, "", x); delete fd[x]; next }
        /(read|pread64)\(/ { x = $0; sub(/.*read(64)?\(/, "", x); split(x, a, ","); if (a[1] in fd && $NF ~ /^[0-9]+$/) s += $NF }
        END { print s + 0 }' "$OUT/append.strace")
fi
cmp -s "$BIGGEST" "$OUT/append-original.jsonl" || { echo "bench: the appended session differs from the original" >&2; exit 1; }

# --- detect ----------------------------------------------------------------------------
measure detect ":" "$BIN" detect "$CORPUS"

# --- searches --------------------------------------------------------------------------
# query | extra flags | the ripgrep pattern for the same words (rg -c -i over the archive)
QUERIES=(
    "error||error"
    "test||test"
    "the file||the.*file"
    "timeout retry||timeout.*retry"
    "python||python"
    "quokka||quokka"
    "axolotl_fixture||axolotl_fixture"
    "ECONNRESET||ECONNRESET"
    "NCCL_MAX_NCHANNELS||NCCL_MAX_NCHANNELS"
    "nchannels||nchannels"
    "ServerArgs||ServerArgs"
    "E0382||E0382"
    "logs/train_42.log||logs/train_42\\.log"
    "\"connection refused\"||connection refused"
    "\"out of memory\"||out of memory"
    "\"borrow of moved value\"||borrow of moved value"
    "\"assert 3 == 4\"||assert 3 == 4"
    "pytest -flaky||pytest"
    "error|--role user|error"
    "traceback|--tool bash|traceback"
    "|--errors --since 2026-02-01|Exit code"
    "quokka|--agent claude|quokka"
)
SEARCH_MS=""
SEARCH_RSS=0
RG_TOTAL=0
DB_TOTAL=0
: > "$OUT/searches.tsv"
for entry in "${QUERIES[@]}"; do
    IFS='|' read -r q flags pat <<< "$entry"
    args=(search)
    [ -n "$q" ] && args+=("$q")
    # shellcheck disable=SC2206
    [ -n "$flags" ] && args+=($flags)
    label="${args[*]:1}"
    "$BIN" --index "$IX" "${args[@]}" >/dev/null 2>&1 || true
    times=""
    for _ in $(seq "$SEARCH_RUNS"); do
        t=$(ms_of "$BIN" --index "$IX" "${args[@]}")
        times+="$t"$'\n'
        SEARCH_MS+="$t"$'\n'
    done
    med=$(printf '%s' "$times" | median)
    tf=$(mktemp)
    /usr/bin/time -f "%M" -o "$tf" "$BIN" --index "$IX" "${args[@]}" >/dev/null 2>&1 || true
    m=$(tail -1 "$tf"); rm -f "$tf"
    [ "$m" -gt "$SEARCH_RSS" ] && SEARCH_RSS=$m
    hits=$("$BIN" --index "$IX" "${args[@]}" --json 2>/dev/null | wc -l)
    rgt=""
    for _ in 1 2 3; do rgt+="$(ms_of rg -c -i --no-messages -e "$pat" "$CORPUS")"$'\n'; done
    rgmed=$(printf '%s' "$rgt" | median)
    RG_TOTAL=$(awk -v a="$RG_TOTAL" -v b="$rgmed" 'BEGIN {print a+b}')
    DB_TOTAL=$(awk -v a="$DB_TOTAL" -v b="$med" 'BEGIN {print a+b}')
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$med" "$rgmed" "$hits" "$((m / 1024))" >> "$OUT/searches.tsv"
    printf 'bench: search %-36s %7.2f ms  rg %8.1f ms  %3d hits\n' "$label" "$med" "$rgmed" "$hits" >&2
done
P50=$(printf '%s' "$SEARCH_MS" | percentile 50)
P95=$(printf '%s' "$SEARCH_MS" | percentile 95)

# --- report on a 5,000-message session ------------------------------------------------
REPORT_DIR=$OUT/report-session
generate "$REPORT_DIR" --size 40M --files 1 --seed 3
REPORT_FILE=$(find "$REPORT_DIR" -type f -name '*.jsonl' | head -1)
REPORT_MSGS=$("$BIN" show --json "$REPORT_FILE" 2>/dev/null | wc -l)
if "$BIN" report --help >/dev/null 2>&1; then
    measure report ":" "$BIN" report "$REPORT_FILE" -o /dev/null
else
    WALL[report]=nan; CPU[report]=nan; RSS[report]=0
fi

# --- many files ------------------------------------------------------------------------
MANY=$OUT/corpus-files$FILES
generate "$MANY" --size 200M --files "$FILES" --seed 2
MANY_IX=$OUT/index-files$FILES
if [ ! -d "$MANY_IX" ] || ! "$BIN" --index "$MANY_IX" index --quiet "$MANY" 2>/dev/null; then
    rm -rf "$MANY_IX"; "$BIN" --index "$MANY_IX" index --quiet "$MANY"
fi
measure reindex-unchanged-10k ":" "$BIN" --index "$MANY_IX" index --quiet "$MANY"
MANY_FILES=$(find "$MANY" -type f -name '*.jsonl' | wc -l)

# --- one huge session --------------------------------------------------------------------
if [ "$BIG" = 1 ]; then
    HUGE=$OUT/corpus-huge
    generate "$HUGE" --size 600M --files 1 --seed 4
    HUGE_BYTES=$(archive_bytes "$HUGE")
    R=$RUNS; RUNS=1
    measure index-600MB-session "rm -rf '$OUT/index-huge'" "$BIN" --index "$OUT/index-huge" index --quiet "$HUGE"
    measure detect-600MB-session ":" "$BIN" detect "$HUGE"
    RUNS=$R
    rm -rf "$OUT/index-huge"
fi

# --- results -------------------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b+0 == 0) print "–"; else printf "%.1f×", a/b}'; }
mbps() { awk -v b="$1" -v s="$2" 'BEGIN {if (s+0 == 0) print "–"; else printf "%.0f MB/s", b/1e6/s}'; }
{
    echo "## $MB MB archive ($NFILES files, $MESSAGES messages), seed $SEED"
    echo
    echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo) RAM, load before the run $(cut -d' ' -f1-3 /proc/loadavg); debrief $(git rev-parse --short HEAD 2>/dev/null || echo '?'); medians of $RUNS runs ($SEARCH_RUNS per search)."
    echo
    echo "| what | wall | CPU | peak memory | throughput / ratio |"
    echo "|---|---:|---:|---:|---|"
    printf '| `cat` of the archive (read limit) | %.2f s | %.2f s | %d MB | %s |\n' "${WALL[cat]}" "${CPU[cat]}" "${RSS[cat]}" "$(mbps "$BYTES" "${WALL[cat]}")"
    printf '| `rg -c -i` over the archive (a word that is not there) | %.2f s | %.2f s | %d MB | %s |\n' "${WALL[rg-scan]}" "${CPU[rg-scan]}" "${RSS[rg-scan]}" "$(mbps "$BYTES" "${WALL[rg-scan]}")"
    printf '| full `debrief index` (with detection) | %.2f s | %.2f s | %d MB | %s; %s of cat, %s of rg |\n' "${WALL[index]}" "${CPU[index]}" "${RSS[index]}" "$(mbps "$BYTES" "${WALL[index]}")" "$(ratio "${WALL[index]}" "${WALL[cat]}")" "$(ratio "${WALL[index]}" "${WALL[rg-scan]}")"
    printf '| re-index, nothing changed (%d files) | %.0f ms | %.0f ms | %d MB | |\n' "$NFILES" "$(awk -v w="${WALL[reindex-unchanged]}" 'BEGIN {print w*1000}')" "$(awk -v w="${CPU[reindex-unchanged]}" 'BEGIN {print w*1000}')" "${RSS[reindex-unchanged]}"
    printf '| re-index, nothing changed (%d files) | %.0f ms | %.0f ms | %d MB | |\n' "$MANY_FILES" "$(awk -v w="${WALL[reindex-unchanged-10k]}" 'BEGIN {print w*1000}')" "$(awk -v w="${CPU[reindex-unchanged-10k]}" 'BEGIN {print w*1000}')" "${RSS[reindex-unchanged-10k]}"
    printf '| re-index after appending %.1f MB to a %.0f MB session | %.0f ms | %.0f ms | %d MB | read %.1f MB of that file |\n' "$(awk -v b="$APPEND_BYTES" 'BEGIN {print b/1048576}')" "$(awk -v b="$BIGSIZE" 'BEGIN {print b/1e6}')" "$(awk -v w="${WALL[reindex-append]}" 'BEGIN {print w*1000}')" "$(awk -v w="${CPU[reindex-append]}" 'BEGIN {print w*1000}')" "${RSS[reindex-append]}" "$(awk -v b="$APPEND_READ" 'BEGIN {print b/1048576}')"
    printf '| `debrief detect` over the archive | %.2f s | %.2f s | %d MB | %s |\n' "${WALL[detect]}" "${CPU[detect]}" "${RSS[detect]}" "$(mbps "$BYTES" "${WALL[detect]}")"
    printf '| search, whole process, %d queries × %d runs | p50 %.1f ms, p95 %.1f ms | | %d MB | %s faster than `rg -c -i` (sum of medians) |\n' "${#QUERIES[@]}" "$SEARCH_RUNS" "$P50" "$P95" "$((SEARCH_RSS / 1024))" "$(ratio "$RG_TOTAL" "$DB_TOTAL")"
    printf '| `debrief report` of a %d-message session | %.0f ms | %.0f ms | %d MB | |\n' "$REPORT_MSGS" "$(awk -v w="${WALL[report]}" 'BEGIN {print w*1000}')" "$(awk -v w="${CPU[report]}" 'BEGIN {print w*1000}')" "${RSS[report]}"
    printf '| index size | %.0f MB | | | %.2f× the archive |\n' "$(awk -v b="$INDEX_BYTES" 'BEGIN {print b/1e6}')" "$(awk -v a="$INDEX_BYTES" -v b="$BYTES" 'BEGIN {print a/b}')"
    if [ "$BIG" = 1 ]; then
        printf '| index one %.0f MB session | %.2f s | %.2f s | %d MB | %s |\n' "$(awk -v b="$HUGE_BYTES" 'BEGIN {print b/1e6}')" "${WALL[index-600MB-session]}" "${CPU[index-600MB-session]}" "${RSS[index-600MB-session]}" "$(mbps "$HUGE_BYTES" "${WALL[index-600MB-session]}")"
        printf '| detect one %.0f MB session | %.2f s | %.2f s | %d MB | |\n' "$(awk -v b="$HUGE_BYTES" 'BEGIN {print b/1e6}')" "${WALL[detect-600MB-session]}" "${CPU[detect-600MB-session]}" "${RSS[detect-600MB-session]}"
    fi
    echo
    echo "Searches (median ms of $SEARCH_RUNS whole-process runs; \`rg -c -i\` median of 3):"
    echo
    echo "| query | debrief | rg | ratio | hits (≤ 20) | peak MB |"
    echo "|---|---:|---:|---:|---:|---:|"
    while IFS=$'\t' read -r q d r h m; do
        printf '| `%s` | %.1f | %.0f | %s | %s | %s |\n' "$q" "$d" "$r" "$(ratio "$r" "$d")" "$h" "$m"
    done < "$OUT/searches.tsv"
    echo
    echo "Summary of the last full index: $(tail -1 "$OUT/index-summary.txt")"
} | tee "$OUT/results-$SIZE.md"

if [ "$CLEAN" = 1 ]; then
    rm -rf "$CORPUS" "$IX"
fi
