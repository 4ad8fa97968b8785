#!/usr/bin/env python3
"""Write the fixtures of grep-tail-pivot, noisy-search, false-crash-alarm,
self-correction and polling-timeout.

Each scenario is a small, realistic session written once as a list of steps and
rendered in two on-disk formats: a Claude Code project log (`-claude.jsonl`) and a
Codex CLI rollout (`-codex.jsonl`). `pos-*` sessions must make their directory's
detector fire, `neg-*` sessions are near misses it must ignore.

Run from the repository root: python3 corpus/detectors/gen_detect_a.py
The outputs are committed; rerunning must reproduce them byte for byte.
"""

import json
import os
import uuid

ROOT = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------------------- content


def server_args_dump(ts="2026-02-27 11:05:12"):
    """One SGLang-style log line holding the whole ServerArgs repr (~14 KB)."""
    keys = [
        "model_path='/models/kimi-k2.5'", "tokenizer_path='/models/kimi-k2.5'", "tp_size=8", "dp_size=1",
        "enable_flashinfer_allreduce_fusion=True", "disable_cuda_graph=False", "mem_fraction_static=0.88",
        "speculative_algorithm='EAGLE3'", "speculative_num_steps=3", "log_level='info'",
        "attention_backend='flashinfer'", "allow_auto_truncate=False", "on_failed_request='abort'",
        "watchdog_timeout=300", "error_on_unknown_args=False",
    ]
    filler = [f"option_{i}={'None' if i % 3 else 'False'}" for i in range(520)]
    return f"[{ts}] server_args=ServerArgs(" + ", ".join(keys + filler) + ")"


def minified_bundle_line():
    body = ";".join(f"var a{i}=function(e){{return e.k{i}||window.cfg.apiBaseUrl+'/v{i}'}}" for i in range(300))
    return "dist/assets/index-4f9c2a.js:1:" + body


def log_lines(prefix, n, fmt):
    return "\n".join(f"{prefix}{fmt(i)}" for i in range(n))


LOG = "/data/runs/logs/exp_1b_fewchan.log"
HOST = "root@10.20.0.7"

# --------------------------------------------------------------------------- writers

T0 = 1_772_190_000  # 2026-02-27T11:00:00Z


def iso(t):
    import datetime

    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def stable_uuid(*parts):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "/".join(str(p) for p in parts)))


def claude_session(name, steps, cwd="/home/dana/src/inference"):
    sid = stable_uuid("claude", name)
    lines = []
    parent = None
    t = T0
    n = 0

    def rec(kind, message, **extra):
        nonlocal parent, t, n
        n += 1
        t += 7
        u = stable_uuid(name, n)
        r = {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": cwd,
            "sessionId": sid,
            "version": "2.1.30",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": u,
            "timestamp": iso(t),
        }
        r.update(extra)
        parent = u
        lines.append(r)

    for si, step in enumerate(steps):
        if step["role"] == "user":
            rec("user", {"role": "user", "content": step["text"]})
            continue
        mid = f"msg_{stable_uuid(name, 'm', si).replace('-', '')[:24]}"
        blocks = []
        if step.get("text"):
            blocks.append({"type": "text", "text": step["text"]})
        calls = step.get("calls", [])
        for ci, c in enumerate(calls):
            tid = f"toolu_{stable_uuid(name, si, ci).replace('-', '')[:24]}"
            c["_id"] = tid
            if "cmd" in c:
                inp = {"command": c["cmd"], "description": c.get("desc", "Run command")}
                if c.get("timeout_ms"):
                    inp["timeout"] = c["timeout_ms"]
                blocks.append({"type": "tool_use", "id": tid, "name": "Bash", "input": inp})
            else:
                blocks.append({"type": "tool_use", "id": tid, "name": c["tool"], "input": c["input"]})
        for b in blocks:
            rec(
                "assistant",
                {
                    "model": "claude-opus-4-5-20251101",
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "content": [b],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 40},
                },
                requestId=f"req_{mid[4:20]}",
            )
        for c in calls:
            out = c.get("out", "")
            exit_code = c.get("exit", 0)
            if c.get("timeout"):
                content = f"{out}\nCommand timed out after {c['timeout']}" if out else f"Command timed out after {c['timeout']}"
                content = f"Exit code 143\n{content}"
                block = {"type": "tool_result", "tool_use_id": c["_id"], "content": content, "is_error": True}
                tur = f"Error: {content}"
            elif "cmd" in c and exit_code:
                content = f"Exit code {exit_code}\n{out}"
                block = {"type": "tool_result", "tool_use_id": c["_id"], "content": content, "is_error": True}
                tur = f"Error: {content}"
            else:
                block = {"type": "tool_result", "tool_use_id": c["_id"], "content": out}
                tur = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False} if "cmd" in c else {"type": "text"}
            rec("user", {"role": "user", "content": [block]}, toolUseResult=tur)
    return lines


def codex_session(name, steps, cwd="/home/dana/src/inference"):
    sid = stable_uuid("codex", name)
    lines = []
    t = T0

    def env(kind, payload):
        nonlocal t
        t += 3
        lines.append({"timestamp": iso(t), "type": kind, "payload": payload})

    env(
        "session_meta",
        {
            "id": sid,
            "timestamp": iso(T0),
            "cwd": cwd,
            "originator": "codex_cli_rs",
            "cli_version": "0.98.0",
            "source": "cli",
            "model_provider": "openai",
        },
    )
    env("turn_context", {"cwd": cwd, "approval_policy": "on-request", "model": "gpt-5.1-codex", "effort": "medium"})
    n = 0
    for step in steps:
        if step["role"] == "user":
            env("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": step["text"]}]})
            env("event_msg", {"type": "user_message", "message": step["text"], "images": []})
            continue
        if step.get("text"):
            env(
                "response_item",
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": step["text"]}]},
            )
        calls = step.get("calls", [])
        for c in calls:
            n += 1
            cid = f"call_{stable_uuid(name, 'c', n).replace('-', '')[:20]}"
            c["_cid"] = cid
            if "poll" in c:
                # `write_stdin` to a process an earlier `exec_command` left running.
                args = {"session_id": c["poll"], "chars": c.get("chars", ""), "yield_time_ms": c["yield_ms"], "max_output_tokens": 4000}
                env("response_item", {"type": "function_call", "name": "write_stdin", "arguments": json.dumps(args), "call_id": cid})
                continue
            if "cmd" not in c:
                raise ValueError(f"{name}: Codex has no {c['tool']} tool; give the scenario a codex_calls override")
            if c.get("exec"):
                args = {"cmd": c["cmd"], "workdir": cwd, "yield_time_ms": 10000}
                env("response_item", {"type": "function_call", "name": "exec_command", "arguments": json.dumps(args), "call_id": cid})
            else:
                args = {"command": ["bash", "-lc", c["cmd"]], "workdir": cwd, "timeout_ms": c.get("timeout_ms", 120000)}
                env("response_item", {"type": "function_call", "name": "shell", "arguments": json.dumps(args), "call_id": cid})
        for c in calls:
            out = c.get("out", "")
            code = c.get("exit", 0)
            if c.get("timeout"):
                code = 124
                out = f"command timed out after {c.get('timeout_ms', 600000)} milliseconds\n{out}"
            if "poll" in c or c.get("running"):
                # Unified exec: still running after the wait, or how the process ended.
                session = c.get("poll", c.get("running"))
                wall = c.get("yield_ms", 10000) / 1000
                state = f"Process exited with code {c['exit']}" if c.get("exit") is not None and "poll" in c else f"Process running with session ID {session}"
                text = f"Chunk ID: {c['_cid'][5:9]}\nWall time: {wall:.4f} seconds\n{state}\nOriginal token count: {len(out) // 4}\nOutput:\n{out}"
                env("response_item", {"type": "function_call_output", "call_id": c["_cid"], "output": text})
            elif c.get("exec"):
                text = f"Chunk ID: {c['_cid'][5:9]}\nWall time: 1.2 seconds\nProcess exited with code {code}\nOriginal token count: {len(out) // 4}\nOutput:\n{out}"
                env("response_item", {"type": "function_call_output", "call_id": c["_cid"], "output": text})
            else:
                body = json.dumps({"output": out, "metadata": {"exit_code": code, "duration_seconds": 1.5}})
                env("response_item", {"type": "function_call_output", "call_id": c["_cid"], "output": body})
    return lines


def write(detector, name, steps, formats=("claude", "codex"), codex_steps=None):
    d = os.path.join(ROOT, detector)
    os.makedirs(d, exist_ok=True)
    for fmt in formats:
        import copy

        s = copy.deepcopy(codex_steps if (fmt == "codex" and codex_steps is not None) else steps)
        lines = claude_session(f"{detector}/{name}", s) if fmt == "claude" else codex_session(f"{detector}/{name}", s)
        with open(os.path.join(d, f"{name}-{fmt}.jsonl"), "w") as f:
            for line in lines:
                f.write(json.dumps(line, ensure_ascii=False) + "\n")


def U(text):
    return {"role": "user", "text": text}


def A(text="", *calls):
    return {"role": "assistant", "text": text, "calls": list(calls)}


def sh(cmd, out="", exit=0, **kw):
    c = {"cmd": cmd, "out": out, "exit": exit}
    c.update(kw)
    return c


def tool(name, inp, out=""):
    return {"tool": name, "input": inp, "out": out}


# --------------------------------------------------------------------------- scenarios

LOADING_TAIL = "\n".join(
    [f"[2026-02-27 11:17:29 TP{i}] Using CompressedTensorsWNA16MarlinMoEMethod" for i in (7, 6, 4)]
    + ["Loading safetensors checkpoint shards:   0% Completed | 0/64 [00:00<?, ?it/s]"]
    + ["Loading safetensors checkpoint shards:   2% Completed | 1/64 [00:00<00:36, 1.75it/s]"]
    + ["Loading safetensors checkpoint shards:   3% Completed | 2/64 [00:01<00:33, 1.83it/s]"]
)
IMPORT_WARNINGS = "\n".join(
    [
        "[2026-02-27 11:06:40 TP3] Exception ignored in import of flashinfer.comm.trtllm_ar: ImportError('libnvshmem.so.3')",
        "[2026-02-27 11:06:40 TP5] Exception ignored in import of flashinfer.comm.trtllm_ar: ImportError('libnvshmem.so.3')",
    ]
)
WAIT_LOOP_CRASH_CHECK = (
    "for i in $(seq 1 60); do\n"
    "  if curl -s localhost:30000/health >/dev/null 2>&1; then echo \"READY after $i\"; break; fi\n"
    f"  if ssh {HOST} 'grep -q \"Exception\\|Error\" {LOG}'; then echo CRASHED; ssh {HOST} 'grep \"Exception\" {LOG} | tail -5'; break; fi\n"
    "  sleep 20\n"
    "done"
)
CORRECTED_WAIT = (
    "for i in $(seq 1 60); do\n"
    "  if curl -s localhost:30000/health >/dev/null 2>&1; then echo \"READY after $i\"; exit 0; fi\n"
    "  echo \"waiting ($i/60)\"\n"
    "  sleep 25\n"
    "done\n"
    "echo \"Timed out after $i attempts\""
)


def grep_tail_pivot():
    dump = server_args_dump()
    steps = [
        U("The fewchan+fusion server never came up. What happened?"),
        A(
            "Let me look for errors in the server log.",
            sh(f"ssh {HOST} 'grep -i \"exception\\|error\\|failed\\|allreduce\" {LOG} | head -20'", dump + "\n" + IMPORT_WARNINGS),
        ),
        A(
            "The output is too long — that's just the ServerArgs dump. Let me read the end of the log instead.",
            sh(f"ssh {HOST} 'tail -50 {LOG}' 2>&1", LOADING_TAIL),
        ),
        A("The log ends in checkpoint loading: it is still loading the 64 shards."),
    ]
    write("grep-tail-pivot", "pos-swamped-log", steps)

    # A search the tool truncated, then a read of the same log by position.
    many = log_lines("", 2600, lambda i: f"{i + 1}:2026-03-04T10:{i % 60:02d}:00Z WARN worker-3 retry scheduled (attempt {i % 7})")
    truncated_claude = "\n".join(many.split("\n")[:150]) + "\n\n... [2300 lines truncated] ..."
    truncated_codex = "\n".join(many.split("\n")[:128]) + "\n[... omitted 2344 of 2600 lines ...]\n\n" + "\n".join(many.split("\n")[-128:])
    claude = [
        U("Why did the deploy worker stop processing around 10:40?"),
        A("", sh("grep -n 'retry\\|ERROR' logs/worker.log", truncated_claude)),
        A(
            "Too much noise from retry warnings. The end of the file shows where it stopped.",
            tool("Read", {"file_path": "/home/dana/src/inference/logs/worker.log", "offset": 2560, "limit": 60},
                 "  2560→2026-03-04T10:40:02Z INFO worker-3 draining queue\n  2561→2026-03-04T10:40:03Z INFO worker-3 stopped"),
        ),
    ]
    codex = [
        U("Why did the api service stop answering around 10:40?"),
        A("", sh("journalctl -u api --no-pager | grep -i 'retry\\|error'", truncated_codex, exec=True)),
        A("", sh("journalctl -u api --no-pager -n 60", "Mar 04 10:40:02 gpu1 api[811]: draining queue\nMar 04 10:40:03 gpu1 api[811]: stopped", exec=True)),
    ]
    write("grep-tail-pivot", "pos-truncated-then-offset", claude, formats=("claude",))
    write("grep-tail-pivot", "pos-truncated-journal", codex, formats=("codex",), codex_steps=codex)

    # Near misses.
    steps = [
        U("Where is the date parsing done?"),
        A("", sh("grep -n 'def parse_date' src/ledger/dates.py", "48:def parse_date(value: str, tz: str = 'UTC') -> date:")),
        A("", sh("sed -n '40,80p' src/ledger/dates.py", "def parse_date(value: str, tz: str = 'UTC') -> date:\n    ...")),
        A("Now the test log.", sh("tail -20 logs/test.log", "collected 26 items\n26 passed in 6.02s")),
    ]
    write("grep-tail-pivot", "neg-grep-answered", steps)
    steps = [
        U("Did the nightly job finish?"),
        A("", sh("grep -c ERROR logs/nightly.log", "0", exit=0)),
        A("No errors. Let me look at the end.", sh("tail -30 logs/nightly.log", "2026-03-04 03:12:10 done: 1200 rows")),
    ]
    write("grep-tail-pivot", "neg-short-answer", steps)
    steps = [
        U("Is the server log clean?"),
        A("", sh(f"grep -i traceback {LOG}", "", exit=1)),
        A("No tracebacks. Let me see where it is.", sh(f"tail -50 {LOG}", LOADING_TAIL)),
    ]
    write("grep-tail-pivot", "neg-empty-grep", steps)
    steps = [
        U("Check the startup log."),
        A("This is a long log; let me read its end.", sh(f"tail -50 {LOG}", LOADING_TAIL)),
        A("", sh(f"grep -i 'error' {LOG} | head -20", dump)),
        A("The grep output is too long — just the ServerArgs dump. Let me check the other node's log.", sh("tail -50 /data/runs/logs/node2.log", "ok")),
    ]
    write("grep-tail-pivot", "neg-tail-first-and-other-file", steps)
    big = log_lines("", 300, lambda i: f"{1000 + 9 * i}:    def handler_{i}(self, request):")
    steps = [
        U("Find the payment handler."),
        A("", sh("grep -n 'def handler_' src/api/handlers.py", big)),
        A("", sh("sed -n '2035,2075p' src/api/handlers.py", "    def handler_115(self, request):\n        ...")),
    ]
    write("grep-tail-pivot", "neg-long-grep-read-at-match", steps)
    listing = log_lines("", 260, lambda i: f"src/worker/mod{i % 12}.py:{10 + i}:        delay = backoff(attempt, base={i})")
    steps = [
        U("Where is the backoff applied?"),
        A("", sh("grep -rn 'backoff(' src/worker/", listing)),
        A("mod3.py calls it most; let me read its top.", sh("head -60 src/worker/mod3.py", "import time\nfrom .backoff import backoff")),
    ]
    write("grep-tail-pivot", "neg-folder-search-then-head", steps)

    # A search that matched nothing because of how it searched, then a look at the file.
    HK = "/home/dana/audit/hardening_20260101.log"
    claude = [
        U("Check the hardening log for any issues."),
        A("", tool("Grep", {"pattern": "Fail", "path": HK, "output_mode": "content"}, "No matches found")),
        A(
            "\"Fail\" is a dead end. I will read the first 50 lines of the log to understand its format.",
            tool("Read", {"file_path": HK, "limit": 50}, "[*] 1/1/2026 6:28:59 PM - Starting HardeningKitty\n[*] Hostname: legion"),
        ),
    ]
    codex = [
        U("Check the hardening log for any issues."),
        A("", sh(f"rg -n Fail {HK}", "", exit=1)),
        A(
            "Nothing matched \"Fail\"; the log must use different wording. Reading its first lines to see how it reports results.",
            sh(f"head -n 50 {HK}", "[*] 1/1/2026 6:28:59 PM - Starting HardeningKitty\n[*] Hostname: legion"),
        ),
    ]
    write("grep-tail-pivot", "pos-search-missed-then-head", claude, codex_steps=codex)

    # A file listing filtered by name, then a read of one of the files it listed.
    readmes = "\n".join(f"./tools/pkg{i}/README.md" for i in range(40))
    claude = [
        U("Plan a README section on how skills are discovered."),
        A("", sh("rg --files . | rg '(^|/)(README|AGENTS)\\.md$'", readmes + "\n\n... [412 lines truncated] ...")),
        A("", sh("sed -n '1,240p' tools/pkg3/README.md", "# pkg3\nSkills are folders of instructions.")),
    ]
    codex = [
        U("Plan a README section on how skills are discovered."),
        A("", sh("rg --files . | rg '(^|/)(README|AGENTS)\\.md$'", "Total output lines: 452\n\n" + readmes[:900] + "…2461 tokens truncated…" + readmes[-300:])),
        A("", sh("sed -n '1,240p' tools/pkg3/README.md", "# pkg3\nSkills are folders of instructions.")),
    ]
    write("grep-tail-pivot", "neg-listing-then-read", claude, codex_steps=codex)

    # A folder search the tool cut, a narrower search that named the file, then its head.
    wide = log_lines("", 120, lambda i: f"src/bridge/{['chat', 'tasks', 'memory'][i % 3]}.rs:{20 + i}:    alden_call(&state, {i})?;")
    narrow = "src/bridge/chat.rs:293:pub async fn alden_chat_send(\nsrc/bridge/chat.rs:331:pub async fn alden_chat_history("
    claude = [
        U("Make the chat bridge callable from the UI."),
        A("", sh("grep -rn 'alden_' src/bridge", wide + "\n\n... [860 lines truncated] ...")),
        A("", sh("grep -rn 'alden_chat' src/bridge", narrow)),
        A("", sh("head -200 src/bridge/chat.rs", "use chrono::Utc;\nuse serde::{Deserialize, Serialize};")),
    ]
    codex = [
        U("Make the chat bridge callable from the UI."),
        A("", sh("rg -n 'alden_' src/bridge", "Total output lines: 980\n\n" + wide + "\n…9200 tokens truncated…\n")),
        A("", sh("rg -n 'alden_chat' src/bridge", narrow)),
        A("", sh("head -200 src/bridge/chat.rs", "use chrono::Utc;\nuse serde::{Deserialize, Serialize};")),
    ]
    write("grep-tail-pivot", "neg-narrower-search-answered", claude, codex_steps=codex)

    # One swamped folder search, two reads after it: only the first is the pivot.
    rec = "{\"ts\":1759527477,\"text\":\"" + "créer une initiative avec plusieurs projets " * 60 + "\"}"
    swamped = f"history.jsonl:19:{rec}\nlog/tui.log:132:{rec}\nlog/tui.log:151:{rec}"
    steps = [
        U("The MCP tools still don't show up."),
        A("", sh("rg arnaud -n", swamped)),
        A("", sh("head -n 40 history.jsonl", '{"ts":1758907676,"text":"où est le dossier .codex ?"}')),
        A("", sh("tail -n 50 log/tui.log", "INFO aggregated 24 tools from 2 servers")),
    ]
    write("grep-tail-pivot", "pos-one-search-one-pivot", steps)

    # A swamped folder search whose matches are in other files that only mention the file
    # read next: the read is the first look at that file (held-out cx48 [msg 8]).
    spliced = "docs/design.md:40:" + "vault entry " * 1500
    mentions = (
        "docs/review.md:26:Evidence: _load_all reads the whole file (`src/vault/vault.py:80`).\n"
        "docs/gaps.md:37:The Vault (`src/vault/vault.py`) is a generic key-value store.\n" + spliced
    )
    steps = [
        U("Assess the vault's memory features."),
        A("", sh("rg -n 'vault' docs src", mentions)),
        A("", sh("head -n 260 src/vault/vault.py", "import os\nimport json")),
    ]
    write("grep-tail-pivot", "neg-folder-search-mentions-the-file", steps)


def noisy_search():
    dump = server_args_dump()
    steps = [
        U("The server crashed during load, find the error."),
        A(
            "",
            sh(f"ssh {HOST} 'grep -A5 \"Traceback\\|Exception\\|NCCL error\\|RuntimeError\" {LOG} | tail -30'", dump + "\n" + IMPORT_WARNINGS),
        ),
        A("That only matched the config line and import warnings."),
    ]
    write("noisy-search", "pos-serverargs-dump", steps)
    steps = [
        U("Where does the frontend get the API base URL from?"),
        A("", sh("grep -rn 'apiBaseUrl' dist/ src/", minified_bundle_line() + "\nsrc/config.ts:4:export const apiBaseUrl = import.meta.env.VITE_API;")),
        A("The match in src/config.ts is the source; the dist bundle is minified."),
    ]
    write("noisy-search", "pos-minified-bundle", steps)
    todo = log_lines("src/", 200, lambda i: f"mod{i % 40}.py:{i + 3}: # TODO handle timeout {i}")
    claude = [U("How many TODOs are left?"), A("", sh("grep -rn TODO src", todo + "\n\n... [3120 lines truncated] ..."))]
    codex = [U("How many TODOs are left?"), A("", sh("rg -n TODO src", todo[:5000] + "\n[... omitted 3200 of 3320 lines ...]\n\n" + todo[-2000:]))]
    write("noisy-search", "pos-truncated", claude, codex_steps=codex)
    claude = [
        U("Is the version pinned in the notebook?"),
        A("", tool("Grep", {"pattern": "image/png", "path": "/home/dana/src/inference/notebooks/eval.ipynb", "output_mode": "content"},
                  '      "image/png": "' + "iVBORw0KGgoAAAANSUhEUgAAA" * 200 + '",')),
    ]
    write("noisy-search", "pos-base64-grep-tool", claude, formats=("claude",))

    # Near misses.
    many = log_lines("", 220, lambda i: f"{i + 10}:2026-03-04 10:{i % 60:02d}:01 ERROR upstream timeout (pool=default)")
    write("noisy-search", "neg-long-but-readable", [U("How often does the upstream time out?"), A("", sh("grep -n 'ERROR' logs/app.log", many))])
    procs = "\n".join(
        f"root {4000 + i} 98.0 2.1 python -m sglang.launch_server " + " ".join(f"--opt-{k} {k}" for k in range(300))
        for i in range(2)
    )
    write("noisy-search", "neg-ps-grep", [U("Is the server process still there?"), A("", sh("ps aux | grep sglang", procs))])
    cut = log_lines("", 20, lambda i: f"[2026-02-27 11:05:12] server_args=ServerArgs(model_path='/models/kimi-k2.5', tokenizer_path='/mo")
    write("noisy-search", "neg-cut-long-lines", [U("Find the args line."), A("", sh(f"grep ServerArgs {LOG} | cut -c1-120", cut))])
    # Recorded session records in the tree: many 1–2 KB lines, none huge, bury the match.
    rec = "{" + ",".join(f'"field_{k}":"npx vitest run step {k}"' for k in range(45)) + "}"
    records = "\n".join(f"examples/codex.jsonl:{40 + i}:{rec}" for i in range(14)) + "\npackage.json:12:    \"test\": \"vitest run\""
    steps = [U("Do we still use vitest anywhere?"), A("", sh("rg \"vitest\" -n || echo 'no-vitest-refs'", records))]
    write("noisy-search", "pos-session-records", steps)

    # Near misses: a listing the tool cut, and a cut that kept most of the match lines.
    names = "\n".join(f"desktop/src/components/c{i}.tsx" for i in range(600))
    claude = [U("What is in desktop/?"), A("", sh("rg --files -g 'desktop/**'", names + "\n\n... [40057 lines truncated] ..."))]
    codex = [
        U("What is in desktop/?"),
        A("", sh("rg --files -g 'desktop/**'", "Total output lines: 40657\n\n" + names[:9000] + "…705009 tokens truncated…" + names[-9000:])),
    ]
    write("noisy-search", "neg-file-listing", claude, codex_steps=codex)
    hits = [f"opk/ui/pdl_editor.py:{200 + i}:        self.pr_fan_{i} = QSpinBox(); self.pr_fan_{i}.setRange(0, 100)" for i in range(178)]
    claude = [
        U("Wire the fan and camera options into the editor."),
        A("", sh("grep -rn 'pr_fan_\\|pr_camera_\\|opt_' opk", "\n".join(hits[:120]) + "\n\n... [58 lines truncated] ...")),
    ]
    codex = [
        U("Wire the fan and camera options into the editor."),
        A("", sh("rg -n 'pr_fan_|pr_camera_|opt_' opk -S", "\n".join(hits[:50]) + "\n[... omitted 0 of 178 lines ...]\n\n" + "\n".join(hits[-51:]))),
    ]
    write("noisy-search", "neg-cut-kept-most", claude, codex_steps=codex)
    # Codex CLI before its envelope format (August 2025) kept the head and said only
    # "[Output truncated after N lines: too many lines or bytes.]": how much was cut is
    # unknown, so the matches past the cut are lost. A listing cut the same way is not.
    shell_hits = log_lines("", 116, lambda i: f"core/src/exec{i % 9}.rs:{40 + i}:    // run the shell command in the sandbox ({i})")
    cut_mark = "\n\n[Output truncated after 116 lines: too many lines or bytes.]"
    write("noisy-search", "pos-head-cut", [U("Where does the shell tool get its sandbox policy?"), A("", sh("rg -n 'shell' core exec tui", shell_hits + cut_mark))])
    listing = "\n".join(f"codex-rs/core/src/m{i}.rs" for i in range(256))
    write("noisy-search", "neg-listing-head-cut", [U("What is in codex-rs?"), A("", sh("rg --files codex-rs", listing + "\n\n[Output truncated after 256 lines: too many lines or bytes.]"))])
    # A search that is one part of a list: the other parts that print are searches too,
    # or it printed last and the tool kept only the head. Not: the search printed first
    # and the cut fell on a listing after it.
    record = "{" + ",".join(f'"bin_{k}":"ocodex-size-{k}"' for k in range(240)) + "}"
    hits = "ocodex/codex-rs/cli/src/main.rs:34:    bin_name = \"ocodex\"\nocodex/codex-rs/cli/Cargo.toml:6:[[bin]]\n"
    both = hits + f"ocodex/codex-rs/tui/tests/fixtures/binary-size-log.jsonl:1:{record}\nocodex/codex-rs/cli/Cargo.toml:1:[package]"
    steps = [
        U("Which crate builds the ocodex binary?"),
        A("", sh("rg -n 'name = \"ocodex\"|\\[\\[bin\\]\\]' ocodex -S && rg -n '\\[package\\]' ocodex -S | head -n 50", both)),
    ]
    write("noisy-search", "pos-searches-in-a-list", steps)
    tree = "total 72\n" + "\n".join(f"ocodex/codex-rs/core/src/m{i}.rs" for i in range(255))
    head_cut = tree + "\n\n[Output truncated after 256 lines: too many lines or bytes.]"
    steps = [
        U("The docker build cannot find /ocodex. Where is the Dockerfile?"),
        A("", sh("ls -la && echo '---' && rg --files && echo '---' && rg -n 'FROM .* as builder|COPY .* /src' -S --glob '**/Dockerfile'", head_cut)),
    ]
    write("noisy-search", "pos-search-after-listing-head-cut", steps)
    steps = [
        U("The docker build cannot find /ocodex. Where is the Dockerfile?"),
        A("", sh("rg -n 'COPY .* /src' -S --glob '**/Dockerfile' && rg --files", "ocodex/Dockerfile:6:COPY ocodex /src/ocodex\n" + head_cut)),
    ]
    write("noisy-search", "neg-search-before-listing-head-cut", steps)
    # A cut of hundreds of match lines buries the few sought, however much it kept; a
    # short list the cut mostly kept is neg-cut-kept-most above.
    flood = [f"web/src/panels/p{i % 30}.tsx:{10 + i}:  const tab = useTab('panel-{i}');" for i in range(460)]
    claude = [
        U("Where is the settings tab registered?"),
        A("", sh("grep -rn 'tab\\|panel' web/src", "\n".join(flood[:420]) + "\n\n... [40 lines truncated] ...")),
    ]
    codex = [
        U("Where is the settings tab registered?"),
        A("", sh("rg -n 'tab|panel' web/src", "Total output lines: 460\n\n" + "\n".join(flood[:210]) + "…640 tokens truncated…" + "\n".join(flood[-200:]))),
    ]
    write("noisy-search", "pos-cut-of-hundreds", claude, codex_steps=codex)
    # Long match lines are the search's whatever else the call printed; a long line that
    # is no match line may be the other command's.
    bundle = "site/build/app-3f2a.js:7:" + "var q=function(){return 1};" * 330
    out = "docs/deploy.md:4:deploy with surge\n" + bundle + "\nsite/index.html:9:<form data-surge>\nno surge.json"
    cmd = "rg -n 'surge' -S .; if [ -f surge.json ]; then cat surge.json; else echo 'no surge.json'; fi"
    write("noisy-search", "pos-match-lines-beside-a-branch", [U("How is the site deployed?"), A("", sh(cmd, out))])
    dumped = "docs/deploy.md:4:deploy with surge\n" + '{"surge":1,"x":2}' * 600
    write("noisy-search", "neg-long-line-beside-a-branch", [U("How is the site deployed?"), A("", sh(cmd, dumped))])
    write(
        "noisy-search",
        "neg-loop-probe",
        [U("Wait for it."), A("", sh(f"for i in 1 2 3; do grep -c 'fired up' {LOG}; sleep 10; done", dump))],
    )


def false_crash_alarm():
    steps = [
        U("Launch the fewchan+fusion experiment and tell me when it is up."),
        A(
            "Launching with NCCL_MIN_NCHANNELS=1 and the fusion patch.",
            sh(f"ssh {HOST} 'cd /data/runs && NCCL_MIN_NCHANNELS=1 nohup python -m sglang.launch_server --tp 8 > {LOG} 2>&1 &'", ""),
        ),
        A("Waiting for the server.", sh(WAIT_LOOP_CRASH_CHECK, "CRASHED\n" + IMPORT_WARNINGS)),
        A("The server crashed during model loading. Let me look for the error.", sh(f"ssh {HOST} 'grep -i error {LOG} | head -20'", server_args_dump())),
        A("That's just the ServerArgs dump.", sh(f"ssh {HOST} 'tail -50 {LOG}'", LOADING_TAIL)),
        A("It's still loading! It didn't crash — my crash check matched 'Exception' in the import warnings, not an actual error."),
    ]
    write("false-crash-alarm", "pos-crash-grep-still-loading", steps)
    steps = [
        U("Start the api stack and run the smoke test."),
        A("", sh("docker compose up -d api", " Container api  Started")),
        A("", sh("curl -s localhost:8080/health", "curl: (7) Failed to connect to localhost port 8080: Connection refused", exit=7)),
        A("The API server crashed on startup. Let me see its logs.", sh("docker logs api --tail 5", "Running migrations 40/120\nRunning migrations 41/120")),
        A("", sh("docker logs api --tail 2", "Running migrations 119/120\nRunning migrations 120/120")),
    ]
    write("false-crash-alarm", "pos-stated-crash-then-progress", steps)
    steps = [
        U("Restart the indexer and check it."),
        A("", sh("systemctl restart indexer", "")),
        A("", sh("systemctl is-active indexer || echo 'indexer DIED'", "activating\nindexer DIED", exit=0)),
        A("", sh("sleep 30; systemctl is-active indexer; journalctl -u indexer -n 3 --no-pager", "active\nMar 04 10:01:09 gpu1 indexer[9911]: Listening on 0.0.0.0:7700")),
    ]
    write("false-crash-alarm", "pos-check-alarm-then-ready", steps)

    # Near misses.
    steps = [
        U("Launch the run."),
        A("", sh(f"nohup python train.py --batch 64 > logs/train.log 2>&1 &", "")),
        A("", sh("for i in $(seq 1 30); do grep -q 'step 1/' logs/train.log && echo READY && break; grep -q Traceback logs/train.log && echo CRASHED && break; sleep 10; done", "CRASHED")),
        A("It crashed. Let me see why.", sh("tail -8 logs/train.log", "Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")),
        A("It crashed with CUDA OOM at batch 64. Relaunching with batch 32.", sh("nohup python train.py --batch 32 > logs/train.log 2>&1 &", "")),
        A("", sh("sleep 60; grep -m1 'step 1/' logs/train.log", "step 1/5000 loss=2.31")),
        A("The server is up now and training."),
    ]
    write("false-crash-alarm", "neg-confirmed-crash", steps)
    steps = [
        U("Bring the server up."),
        A("", sh("nohup ./serve.sh > serve.log 2>&1 &", "")),
        A("", sh("for i in $(seq 1 10); do curl -sf localhost:9000/health && echo ' READY' && break || echo FAIL; sleep 5; done", "FAIL\nFAIL\nFAIL\nFAIL\n{\"status\":\"ok\"} READY")),
    ]
    write("false-crash-alarm", "neg-per-attempt-status", steps)
    steps = [
        U("Is the server alive?"),
        A("Let me check whether the server crashed.", sh("curl -s localhost:30000/health", "{\"status\": \"ok\"}")),
        A("It is up."),
    ]
    write("false-crash-alarm", "neg-hedged-question", steps)
    claude = [
        U("Start the app."),
        A("", sh("nohup uvicorn app:main --port 8000 > app.log 2>&1 &", "")),
        A("The server crashed on startup: ModuleNotFoundError for `orjson`.", sh("tail -3 app.log", "ModuleNotFoundError: No module named 'orjson'")),
        A("Adding the dependency.", tool("Edit", {"file_path": "/home/dana/src/inference/requirements.txt", "old_string": "fastapi", "new_string": "fastapi\norjson"}, "ok")),
        A("", sh("pip install orjson && timeout 15 uvicorn app:main --port 8000", "Successfully installed orjson-3.10.7\nINFO:     Uvicorn running on http://127.0.0.1:8000")),
        A("The server is up now."),
    ]
    codex = [
        U("Start the app."),
        A("", sh("nohup uvicorn app:main --port 8000 > app.log 2>&1 &", "")),
        A("The server crashed on startup: ModuleNotFoundError for `orjson`.", sh("tail -3 app.log", "ModuleNotFoundError: No module named 'orjson'")),
        A("Adding the dependency.", sh("echo orjson >> requirements.txt && pip install orjson", "Successfully installed orjson-3.10.7")),
        A("", sh("timeout 15 uvicorn app:main --port 8000", "INFO:     Uvicorn running on http://127.0.0.1:8000")),
        A("The server is up now."),
    ]
    write("false-crash-alarm", "neg-up-after-a-fix", claude, codex_steps=codex)

    # An alarm without the word crash: "not on port 53", refuted by the socket listening
    # after only waiting; and the same alarm settled by a restart with a new config.
    NETSTAT_NONE = "udp        0      0 0.0.0.0:5353            0.0.0.0:*                           13481/avahi-daemon"
    NETSTAT_53 = "tcp        0      0 :::53                   :::*                    LISTEN      18428/blocky\n" + NETSTAT_NONE
    steps = [
        U("Move DNS from dnsmasq to blocky on port 53."),
        A("", sh("ssh root@192.168.8.1 '/etc/init.d/dnsmasq restart && service blocky restart && sleep 3 && netstat -tlnup | grep :53'", NETSTAT_NONE)),
        A("Blocky isn't on port 53. Let me check its log.", sh("ssh root@192.168.8.1 'logread | grep -i blocky | tail -3'", "INFO list_cache: downloading denylist ads (1 of 1)")),
        A("", sh("ssh root@192.168.8.1 'sleep 20; netstat -tlnup | grep :53'", NETSTAT_53)),
    ]
    write("false-crash-alarm", "pos-not-on-port-then-listening", steps)
    steps = [
        U("Move DNS from dnsmasq to blocky on port 53."),
        A("", sh("ssh root@192.168.8.1 '/etc/init.d/dnsmasq restart && service blocky restart && sleep 3 && netstat -tlnup | grep :53'", NETSTAT_NONE)),
        A("Blocky isn't on port 53. The config still says 5335; fixing it.", sh("ssh root@192.168.8.1 \"sed -i 's/dns: 5335/dns: 53/' /etc/blocky/config.yml && service blocky restart\"", "")),
        A("", sh("ssh root@192.168.8.1 'sleep 5; netstat -tlnup | grep :53'", NETSTAT_53)),
        A("Blocky is on port 53 now."),
    ]
    write("false-crash-alarm", "neg-not-on-port-until-fixed", steps)


def self_correction():
    steps = [
        U("Launch it and wait."),
        A("", sh(WAIT_LOOP_CRASH_CHECK, "CRASHED\n" + IMPORT_WARNINGS)),
        A("The server crashed. Let me find the traceback.", sh(f"ssh {HOST} 'tail -50 {LOG}'", LOADING_TAIL)),
        A("It's still loading! It didn't crash — my 'crash detection' grep matched 'Exception' in the import error lines, not in an actual error. Let me wait for it properly."),
        A("To sum up: the crash detection was a false positive; the server is loading checkpoint shards."),
    ]
    write("self-correction", "pos-crash-retraction", steps)
    steps = [
        U("Why does test_balance_rollover fail on CI only?"),
        A("The conversion to local time happens in `parse()`, so CI's UTC clock shifts the date."),
        U("parse() doesn't touch timezones, look again."),
        A("You're right, I was wrong: `parse()` keeps UTC; the shift happens in `serialize()`, which uses the machine's local zone.", sh("grep -n 'astimezone' src/ledger/serialize.py", "31:    return value.astimezone().isoformat()")),
    ]
    write("self-correction", "pos-admission", steps)
    steps = [
        U("The webhook retries too fast, find out why."),
        A("The retry storm comes from `deliver()` ignoring `retry_after`."),
        A("", sh("sed -n '40,75p' worker/deliver.py", "    def run(self):\n        attempt = 0")),
        A("I misread the code earlier: `deliver()` honours `retry_after`; the bug is that `run()` resets `attempt` to 0 for every job."),
    ]
    write("self-correction", "pos-misread", steps)

    # Near misses.
    steps = [
        U("Add the rollover fix."),
        A("Done. Actually, let's also add a regression test for the month boundary."),
        U("The config is in the repo root, right?"),
        A("Actually, the config is loaded from ~/.config/ledger, not from the repo root as you said."),
    ]
    write("self-correction", "neg-actually-and-user-correction", steps)
    steps = [
        U("Launch and wait."),
        A("", sh("nohup ./serve.sh > serve.log 2>&1 &", "")),
        A("The server is still loading, let me wait.", sh("sleep 60; tail -2 serve.log", "Loading weights 40%")),
    ]
    write("self-correction", "neg-still-loading-no-claim", steps)
    steps = [
        U("Run it again with the fix."),
        A("", sh("for i in $(seq 1 20); do grep -q Traceback run.log && echo CRASHED && break; sleep 5; done", "CRASHED")),
        A("It crashed with the same NCCL error. Applying the fix and relaunching.", sh("nohup python run.py > run.log 2>&1 &", "")),
        A("", sh("sleep 120; tail -3 run.log", "step 200/1000")),
        A("It didn't crash this time — the fix works."),
    ]
    write("self-correction", "neg-didnt-crash-this-time", steps)
    steps = [
        U("Write a postmortem template."),
        A("Here is the template:\n\n```markdown\n## What I was wrong about\nI was wrong about ...\n```\n\n> I was mistaken when ... (example line)"),
        A("If I was wrong about the port, the next curl will fail.", sh("curl -s localhost:8000/health", "ok")),
    ]
    write("self-correction", "neg-quoted-and-hedged", steps)
    steps = [
        U("Rename the helper."),
        A("Here is the change:\n\nsrc/util.py\n```python\n<<<<<<< SEARCH\ndef helper():\n=======\ndef normalize():\n=======\n```"),
        U("^^^ Expected `>>>>>>> REPLACE` not `=======`"),
        A("I apologize for the mistake in my previous response. Let me provide the correct SEARCH/REPLACE block:\n\n```python\n<<<<<<< SEARCH\ndef helper():\n=======\ndef normalize():\n>>>>>>> REPLACE\n```"),
    ]
    write("self-correction", "neg-apology-for-edit-format", steps)
    # A contradiction without a stock phrase: "has no keys" taken back by "has the keys"
    # after a look that changed nothing; the near miss adds the key in between.
    steps = [
        U("ssh to the build box still asks for a password."),
        A("The SSH agent still has no keys loaded. You need to enable the key in your password manager.", sh("ssh-add -L", "The agent has no identities.", exit=1)),
        A("Let me see which agent your ssh config uses.", sh("cat ~/.ssh/config", "Host build\n  IdentityAgent ~/.pm/agent.sock")),
        A("Your config points at the password manager's own socket; let me list that one.", sh("SSH_AUTH_SOCK=~/.pm/agent.sock ssh-add -l", "256 SHA256:Qm9vdA id_build (ED25519)")),
        A("The password manager's agent has the keys. The default agent is the one that was empty."),
    ]
    write("self-correction", "pos-has-the-keys", steps)
    steps = [
        U("ssh to the build box still asks for a password."),
        A("The SSH agent has no keys loaded."),
        A("", sh("ssh-add ~/.ssh/id_build", "Identity added: /home/dana/.ssh/id_build")),
        A("The SSH agent has the keys now; try the login again."),
    ]
    write("self-correction", "neg-has-the-keys-after-adding", steps)
    # "You're right to start now" grants a request: the next sentence is the plan, even
    # with "no longer" in it.
    steps = [
        A("The dashboard reads its figures from the local cache."),
        U("We will move the figures to the metrics service soon; prepare for it."),
        A("You're right to begin now. I'm going to add a provider seam so the dashboard no longer reads the cache directly."),
    ]
    write("self-correction", "neg-concession-then-plan", steps)
    # A suspect the assistant named itself, cleared by a later look with no cue word
    # (a real router session: "Root cause found! … dnsmasq" → "The config looks correct:
    # dnsmasq → blocky:5335").
    steps = [
        U("DNS on the laptop times out, the router runs blocky. Find out why."),
        A("", sh("ssh root@router 'netstat -tlnup | grep :53'", "tcp  0  0 0.0.0.0:53  0.0.0.0:*  LISTEN  4101/dnsmasq\ntcp  0  0 :::5335  :::*  LISTEN  19615/blocky")),
        A("**Root cause found!** Port 53 is bound to **dnsmasq**, not blocky. Blocky listens on 5335. Let's check whether dnsmasq forwards to blocky."),
        A("", sh("ssh root@router 'cat /etc/config/dhcp'", "config dnsmasq\n\toption port '53'\n\tlist server '127.0.0.1#5335'")),
        A("The config looks correct: dnsmasq forwards to blocky on 5335. Let me query both from the router.", sh("ssh root@router 'dig google.com @127.0.0.1 -p 53 +short'", "142.250.74.46")),
    ]
    write("self-correction", "pos-suspect-cleared", steps)
    # Near miss: the same words after the assistant changed the config: a result of its
    # fix, not a retraction.
    steps = [
        U("DNS on the laptop times out, the router runs blocky. Find out why."),
        A("**Root cause found!** dnsmasq forwards to the wrong blocky port (5353 instead of 5335)."),
        A("", sh("ssh root@router \"sed -i 's/#5353/#5335/' /etc/config/dhcp\"", "")),
        A("The config looks correct: dnsmasq forwards to blocky on 5335."),
    ]
    write("self-correction", "neg-suspect-cleared-after-fix", steps)
    # Its own change owned up to after the person reports the damage, with no "I was
    # wrong" (a real session: "我的正則替換破壞了檔案編碼").
    steps = [
        A("Pushed: the clauses table now has updated_at, and saving a clause works again."),
        U("now the app shows garbled Chinese everywhere"),
        A("Oops: my regex replacement corrupted the file encoding, so the Chinese strings were mangled. Let me restore the file from git.", sh("git checkout HEAD~1 -- src/schema.ts", "")),
    ]
    write("self-correction", "pos-own-change-broke-it", steps)
    # Near miss: the same kind of words with no person's report to answer: a step told.
    steps = [
        U("Clean up the debug output before the release."),
        A("I removed the debug logs from the handlers; the release build is clean.", sh("npm run build", "built in 2.1s")),
    ]
    write("self-correction", "neg-own-change-told", steps)


def polling_timeout():
    progress = "\n".join(f"waiting ({i}/60)" for i in range(1, 24))
    claude = [
        U("Wait for the server."),
        A("It's still loading. Let me wait for it properly.", sh(CORRECTED_WAIT, progress, timeout="10m 0.0s", timeout_ms=600000)),
    ]
    write("polling-timeout", "pos-tool-time-limit", claude)
    steps = [
        U("Wait for the server."),
        A("", sh(CORRECTED_WAIT.replace("seq 1 60", "seq 1 23"), "\n".join(f"waiting ({i}/60)" for i in range(1, 24)) + "\nTimed out after 23 attempts")),
    ]
    write("polling-timeout", "pos-gave-up-message", steps)
    steps = [
        U("Roll out the new api image."),
        A("", sh("kubectl rollout restart deploy/api", "deployment.apps/api restarted")),
        A("", sh("kubectl wait --for=condition=ready pod -l app=api --timeout=120s", "error: timed out waiting for the condition on pods/api-7d9f6c5b8-x2xkq", exit=1)),
    ]
    write("polling-timeout", "pos-kubectl-wait", steps)
    steps = [
        U("Wait until the port is open."),
        A("", sh("for i in 1 2 3 4 5 6 7 8 9 10; do nc -z localhost 5432 && echo UP && break; sleep 3; done", "")),
    ]
    write("polling-timeout", "pos-counted-loop-no-success", steps)

    # Near misses.
    steps = [
        U("Wait for the server."),
        A("", sh(CORRECTED_WAIT, "\n".join(f"waiting ({i}/60)" for i in range(1, 12)) + "\nREADY after 12")),
    ]
    write("polling-timeout", "neg-poll-succeeded", steps)
    steps = [U("Wait for the server."), A("", sh(WAIT_LOOP_CRASH_CHECK, "CRASHED\n" + IMPORT_WARNINGS))]
    write("polling-timeout", "neg-stopped-on-alarm", steps)
    steps = [
        U("Benchmark it three times."),
        A("", sh("for i in 1 2 3; do python bench.py --batch 32; sleep 5; done", "run 1: 812 tok/s\nrun 2: 809 tok/s", timeout="2m 0.0s", timeout_ms=120000)),
        A("", sh("cargo build --release", "   Compiling tantivy v0.27.0", timeout="2m 0.0s", timeout_ms=120000)),
    ]
    write("polling-timeout", "neg-no-probe", steps)
    steps = [
        U("Wait for the db."),
        A("", sh("until pg_isready -h localhost; do echo 'not ready yet, waiting'; sleep 2; done; echo 'db is up'", "not ready yet, waiting\nnot ready yet, waiting\ndb is up")),
    ]
    write("polling-timeout", "neg-status-each-attempt", steps)
    steps = [
        U("Keep an eye on GPU use while the benchmark runs."),
        A("", sh("while true; do nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader; sleep 5; done", "97 %\n98 %\n96 %", timeout="2m 0.0s", timeout_ms=120000)),
    ]
    write("polling-timeout", "neg-monitor-loop", steps)
    # Two sleep-then-tail waits on a trainer's log that saw the same lines: nothing moved
    # in the whole wait (a real GRPO trainer hung on its weight handshake).
    stuck = "Loading weights: 100% 398/398\n[RANK 0] Initializing NCCL weight transfer\nwarning: kernel 4.4.0 may hang"
    steps = [
        U("Run the smoke test of the trainer."),
        A("The trainer is running. Let me wait for training to start.", sh("sleep 60 && tail -50 /tmp/trainer.log", stuck)),
        A("Model loaded, it's initializing. Let me wait more for the handshake.", sh("sleep 90 && tail -60 /tmp/trainer.log", stuck)),
        A("Seems stuck. Let me check the process.", sh("ps aux | grep trainer | grep -v grep", "root 11329 334 0.2 python trainer.py")),
    ]
    write("polling-timeout", "pos-wait-saw-nothing-change", steps)
    # Near miss: the log moved between the two waits (progress), or had its ready line.
    steps = [
        U("Run the smoke test of the trainer."),
        A("", sh("sleep 60 && tail -5 /tmp/trainer.log", stuck)),
        A("", sh("sleep 90 && tail -5 /tmp/trainer.log", stuck + "\nstep 1/200 loss 2.31")),
        A("", sh("sleep 30 && tail -2 /tmp/server.log", "Loaded model\nServer ready on :8000")),
        A("", sh("sleep 30 && tail -2 /tmp/server.log", "Loaded model\nServer ready on :8000")),
    ]
    write("polling-timeout", "neg-wait-saw-progress", steps)

    # The agent's own waiting tool: a blocking read of a command that went on in the
    # background (Claude Code moved the commit there when it ran long), or Codex waiting
    # on a process its `exec_command` left running.
    bg = "Command running in background with ID: {0}. Output is being written to: /tmp/claude-1000/-home-dana-src-inference/tasks/{0}.output"

    def task(task_id, status, timeout_ms, output, exit=None):
        head = "<retrieval_status>timeout</retrieval_status>" if status == "running" else "<retrieval_status>success</retrieval_status>"
        code = f"\n\n<exit_code>{exit}</exit_code>" if exit is not None else ""
        out = f"{head}\n\n<task_id>{task_id}</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>{status}</status>{code}\n\n<output>\n{output}</output>"
        return tool("TaskOutput", {"block": True, "task_id": task_id, "timeout": timeout_ms}, out)

    def poll(session, yield_ms, out="", exit=None):
        return {"poll": session, "yield_ms": yield_ms, "out": out, "exit": exit}

    build = "dotnet build App.sln --configuration Release --no-restore"
    claude = [
        U("Commit the release notes."),
        A("", sh("git commit -F notes/commit-msg.txt", bg.format("b4k2x9p"))),
        A("The commit hooks are still running. Let me wait for them.", task("b4k2x9p", "running", 30000, "[pre-commit] syncing transcripts...\n")),
        A("Still running after 30 s; the hook seems stuck. Let me look at what it does.", sh("cat .git/hooks/pre-commit", "#!/bin/sh\npython scripts/sync.py")),
    ]
    codex = [
        U("Check that the release build still works."),
        A("", sh(build, "  Determining projects to restore...\n", exec=True, running=41)),
        A("", poll(41, 120000)),
        A("", poll(41, 120000)),
        A("The build gives no sign of progress; I'll check the project files instead.", sh("rg -n TargetFramework src/App/App.csproj", "4:    <TargetFramework>net10.0</TargetFramework>", exec=True)),
    ]
    write("polling-timeout", "pos-background-wait-ran-out", claude, formats=("claude",))
    write("polling-timeout", "pos-background-wait-ran-out", claude, formats=("codex",), codex_steps=codex)
    claude = [
        U("Commit the release notes."),
        A("", sh("git commit -F notes/commit-msg.txt", bg.format("b7m3q1z"))),
        A("Let me wait for the commit hooks.", task("b7m3q1z", "completed", 60000, "[pre-commit] syncing transcripts...\n[main 4e1c2d0] Release notes\n", exit=0)),
    ]
    codex = [
        U("Check that the release build still works."),
        A("", sh(build, "  Determining projects to restore...\n", exec=True, running=57)),
        A("", poll(57, 120000)),
        A("", poll(57, 120000, "Build succeeded.\n    0 Warning(s)\n    0 Error(s)\n", exit=0)),
    ]
    write("polling-timeout", "neg-background-wait-completed", claude, formats=("claude",))
    write("polling-timeout", "neg-background-wait-completed", claude, formats=("codex",), codex_steps=codex)
    claude = [
        U("Start the dev server."),
        A("", sh("npm run dev -- --port 5173", bg.format("b2d8w5r"))),
        A("", task("b2d8w5r", "running", 15000, "> webapp@0.4.0 dev\n> vite --port 5173\n\n  VITE v6.4.1  ready in 412 ms\n")),
        A("The dev server is up on port 5173."),
    ]
    codex = [
        U("Start the dev server."),
        A("", sh("npm run dev -- --port 5173", "> webapp@0.4.0 dev\n> vite --port 5173\n", exec=True, running=63)),
        A("", poll(63, 30000)),
        A("The dev server is up on port 5173."),
    ]
    write("polling-timeout", "neg-background-server-wait", claude, formats=("claude",))
    write("polling-timeout", "neg-background-server-wait", claude, formats=("codex",), codex_steps=codex)


# --------------------------------------------------------------------------- aider

AIDER_HEAD = """
# aider chat started at 2024-09-03 14:20:07

> /home/mei/.local/bin/aider --model gpt-4o  
> Aider v0.55.0  
> Main model: gpt-4o with diff edit format, weak model gpt-4o-mini  
> Git repo: .git with 57 files  
> Repo-map: using 1024 tokens  

"""


def write_aider(detector, name, body):
    d = os.path.join(ROOT, detector)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{name}-aider.md"), "w") as f:
        f.write(AIDER_HEAD + body)


def aider_fixtures():
    write_aider(
        "self-correction",
        "pos-admission",
        """#### Why does the report show 0 orders for March?  

The month filter compares `created_at` with a naive `datetime`, so every order created
after midnight UTC falls into the next month.

> Tokens: 3,104 sent, 61 received. Cost: $0.0090 message, $0.0090 session.  

#### created_at is a date, not a datetime. Look at models.py again.  

You're right, I was wrong about the type: `created_at` is a `date`. The real cause is
that `month_range()` returns an exclusive end of the 1st, so March is compared with
`< 2024-03-01`.

> Tokens: 3,390 sent, 64 received. Cost: $0.0098 message, $0.0188 session.  
""",
    )
    write_aider(
        "self-correction",
        "neg-apology-for-edit-format",
        """#### rename helper() to normalize()  

src/util.py
```python
<<<<<<< SEARCH
def helper(value):
=======
def normalize(value):
=======
```

> Tokens: 1,020 sent, 40 received. Cost: $0.0030 message, $0.0030 session.  
> The LLM did not conform to the edit format.  
> ^^^ Expected `>>>>>>> REPLACE` not `=======`  

I apologize for the mistake in my previous response. Let me provide the correct *SEARCH/REPLACE block*:

src/util.py
```python
<<<<<<< SEARCH
def helper(value):
=======
def normalize(value):
>>>>>>> REPLACE
```

> Tokens: 1,210 sent, 45 received. Cost: $0.0035 message, $0.0065 session.  
> Applied edit to src/util.py  
""",
    )
    bundle = minified_bundle_line()
    write_aider(
        "noisy-search",
        "pos-run-grep-minified",
        f"""#### /run grep -rn apiBaseUrl dist/  
> {bundle}  
> Add the output to the chat?
(Y)es/(n)o [Yes]: n  

#### where is apiBaseUrl defined in the source, not the bundle?  

In `src/config.ts`; the `dist/` bundle is minified, so grep returns the whole file as one line.

> Tokens: 2,011 sent, 30 received. Cost: $0.0060 message, $0.0060 session.  
""",
    )
    rows = "\n".join(f"> app.log:{100 + i}:2024-09-03 14:{i % 60:02d}:11 ERROR upstream timeout (pool=default)  " for i in range(40))
    write_aider(
        "noisy-search",
        "neg-run-grep-readable",
        f"""#### /run grep -n ERROR app.log  
{rows}
> Add the output to the chat?
(Y)es/(n)o [Yes]: y  

#### why so many upstream timeouts?  

The pool is capped at 4 connections; raise `pool_size`.

> Tokens: 3,011 sent, 20 received. Cost: $0.0090 message, $0.0090 session.  
""",
    )


if __name__ == "__main__":
    grep_tail_pivot()
    noisy_search()
    false_crash_alarm()
    self_correction()
    polling_timeout()
    aider_fixtures()
