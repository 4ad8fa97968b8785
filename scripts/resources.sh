#!/usr/bin/env bash
# Bounded resources: peak memory (RSS, from GNU time -v) of `debrief index` on one
# Claude Code session of 60, 300 and 600 MB, and on a folder of 50,000 small sessions.
# Memory must not grow with the size of a file: it levels off once the index writer's
# buffer (its memory budget) is full, whatever the file's size. Files are generated in $DEBRIEF_SCRATCH (default /dev/shm when it exists,
# so that disk space is no concern; tmpfs pages are not counted in a process's RSS).
#
#   scripts/resources.sh            # release build, prints one line per run
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/bin/time >/dev/null || { apt-get install -y time >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y time >/dev/null; }; }
scratch=${DEBRIEF_SCRATCH:-$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")}
work=$(mktemp -d "$scratch/debrief-resources.XXXXXX")
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-target}/release/debrief

# A Claude Code session of about $2 MB in file $1: exchanges with commands and outputs.
gen_session() {
  python3 - "$1" "$2" <<'PY'
import json, sys
path, mb = sys.argv[1], int(sys.argv[2])
target = mb << 20
out = open(path, "w")
n = size = 0
parent = None
def line(kind, message, extra=None):
    global n, parent, size
    n += 1
    uuid = f"00000000-0000-4000-8000-{n:012d}"
    v = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/ann/src/app",
         "sessionId": "5e55a1c0-0000-4000-8000-00000000beef", "version": "2.1.30", "type": kind,
         "message": message, "uuid": uuid, "timestamp": f"2026-03-05T10:{(n // 60) % 60:02d}:{n % 60:02d}.000Z"}
    if extra:
        v.update(extra)
    parent = uuid
    s = json.dumps(v) + "\n"
    size += len(s)
    out.write(s)
i = 0
while size < target:
    i += 1
    line("user", {"role": "user", "content": f"step {i}: the server crashed again, check the log " + "detail " * (i % 50)})
    tool = f"toolu_{i}"
    line("assistant", {"model": "claude-sonnet-4-5", "id": f"msg_{i}", "type": "message", "role": "assistant",
                       "content": [{"type": "text", "text": "Looking at the log. " * (i % 30)},
                                   {"type": "tool_use", "id": tool, "name": "Bash",
                                    "input": {"command": f"grep -n 'ERROR\\|Traceback' logs/run_{i}.log | tail -50"}}]})
    output = "\n".join(f"{k}: [2026-03-05 10:00:{k % 60:02d}] INFO worker {k} step {i} loss 0.{k:04d}" for k in range(40 + i % 80))
    line("user", {"role": "user", "content": [{"tool_use_id": tool, "type": "tool_result", "content": output, "is_error": i % 7 == 0}]},
         {"toolUseResult": {"stdout": output, "stderr": "", "interrupted": False}})
out.close()
PY
}

measure() { # label, args...
  local label=$1; shift
  rm -rf "$work/ix"
  /usr/bin/time -v "$bin" --index "$work/ix" index "$@" 2>"$work/time.txt" || { cat "$work/time.txt"; exit 1; }
  local rss secs
  rss=$(grep -o 'Maximum resident set size (kbytes): [0-9]*' "$work/time.txt" | grep -o '[0-9]*$')
  secs=$(grep -o 'Elapsed (wall clock) time (h:mm:ss or m:ss): .*' "$work/time.txt" | sed 's/.*: //')
  printf '%-24s peak RSS %5d MB, %8s wall; %s\n' "$label" $((rss / 1024)) "$secs" \
    "$(grep -o '^indexed [0-9]* files\?[^:]*: [0-9]* sessions\?, [0-9]* messages' "$work/time.txt")"
}

for mb in 60 300 600; do
  mkdir -p "$work/s$mb"
  gen_session "$work/s$mb/session.jsonl" $mb
  measure "one $mb MB session" "$work/s$mb"
  rm -rf "$work/s$mb"
done
mkdir -p "$work/many"
python3 - "$work/many" <<'PY'
import json, os, sys
root = sys.argv[1]
for d in range(50):
    os.makedirs(f"{root}/-home-ann-p{d}", exist_ok=True)
    for f in range(1000):
        sid = f"{d:08d}-0000-4000-8000-{f:012d}"
        with open(f"{root}/-home-ann-p{d}/{sid}.jsonl", "w") as out:
            for k, (kind, text) in enumerate([("user", f"fix bug {f} in module {d}"), ("assistant", f"Fixed bug {f}.")]):
                out.write(json.dumps({"type": kind, "sessionId": sid, "uuid": f"{sid[:-4]}{k:04d}",
                    "timestamp": "2026-03-05T10:00:00Z", "cwd": f"/home/ann/p{d}",
                    "message": {"role": kind, "content": text}}) + "\n")
PY
measure "50,000 small sessions" "$work/many"
