#!/usr/bin/env python3
"""Write the report-truth fixtures: small sessions with the shapes of real ones that the
write-ups got wrong (issue 17), one file per shape, in the formats the real ones were in.
Run from this folder: python3 gen.py (the files are committed; this is how they were made).
"""
import json

SESSION = "5e55a1c0-7a11-4000-8000-0000000017aa"


class Claude:
    """Claude Code records (2.1.x): one line per content block, as the CLI streams them."""

    def __init__(self, cwd="/home/ann/src/app"):
        self.lines, self.n, self.parent, self.cwd = [], 0, None, cwd

    def _push(self, kind, message, ts, **extra):
        self.n += 1
        uuid = f"00000000-0000-4000-8000-{self.n:012d}"
        rec = {"parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": self.cwd,
               "sessionId": SESSION, "version": "2.1.30", "gitBranch": "main", "type": kind,
               "message": message, "uuid": uuid, "timestamp": ts}
        rec.update(extra)
        self.parent = uuid
        self.lines.append(json.dumps(rec, ensure_ascii=False))

    def user(self, text, ts):
        self._push("user", {"role": "user", "content": text}, ts)

    def _block(self, mid, block, ts):
        self._push("assistant", {"model": "claude-sonnet-4-5", "id": mid, "type": "message",
                                 "role": "assistant", "content": [block]}, ts)

    def text(self, mid, text, ts):
        self._block(mid, {"type": "text", "text": text}, ts)

    def thinking(self, mid, text, ts):
        self._block(mid, {"type": "thinking", "thinking": text, "signature": "sig"}, ts)

    def tool(self, mid, tid, name, inp, ts):
        self._block(mid, {"type": "tool_use", "id": tid, "name": name, "input": inp}, ts)

    def result(self, tid, content, ts, is_error=False):
        self._push("user", {"role": "user", "content": [
            {"tool_use_id": tid, "type": "tool_result", "content": content, "is_error": is_error}]},
            ts, toolUseResult=content)

    def write(self, path):
        with open(path, "w") as f:
            f.write("\n".join(self.lines) + "\n")


def user_correction():
    """A person corrects a wrong belief; the episode on that turn, and on the last message."""
    c = Claude()
    c.user("push my notes repository", "2026-03-05T10:00:00.000Z")
    c.text("msg_a1", "Let me find the repository first.", "2026-03-05T10:00:04.000Z")
    c.tool("msg_a1", "toolu_a1", "Bash", {"command": "cd ~/notes && git status"}, "2026-03-05T10:00:05.000Z")
    c.result("toolu_a1", "Exit code 1\n(eval):cd:1: no such file or directory: /home/ann/notes",
             "2026-03-05T10:00:06.000Z", is_error=True)
    c.thinking("msg_a2", "It is not in the home folder. Maybe it has to be cloned from GitHub.",
               "2026-03-05T10:00:09.000Z")
    c.text("msg_a2", "The notes repository does not exist on this machine. Shall I clone it?",
           "2026-03-05T10:00:10.000Z")
    c.user("no, it is in ~/Documents/notes", "2026-03-05T10:00:30.000Z")
    c.tool("msg_a3", "toolu_a3", "Bash", {"command": "cd ~/Documents/notes && git push"},
           "2026-03-05T10:00:33.000Z")
    c.result("toolu_a3", "Everything up-to-date", "2026-03-05T10:00:35.000Z")
    c.text("msg_a4", "Pushed: the branch was already up to date with origin.", "2026-03-05T10:00:38.000Z")
    c.write("claude-code-user-correction.jsonl")


def claude_stories():
    """The session's problems as stories: a build that fails twice with the same error,
    read by the assistant, commented on by the user and fixed by an edit; near misses —
    a failed `ls` probe (a question answered, no story), a remark about something else
    right after a failure (not its reading), a `--version` that runs (no resolution), and
    a Write the harness refuses until the file is read."""
    c = Claude()
    t = lambda s: f"2026-04-02T09:{s}.000Z"
    c.user("make the build pass", t("00:00"))
    c.tool("msg_s1", "toolu_s1", "Bash", {"command": "ls Dockerfile* 2>/dev/null"}, t("00:05"))
    c.result("toolu_s1", "Exit code 1\nNow using node v22.20.0 (npm v10.9.3)", t("00:06"), is_error=True)
    c.tool("msg_s2", "toolu_s2", "Bash", {"command": "cargo build --release"}, t("01:00"))
    c.result("toolu_s2", "Exit code 101\n   Compiling app v0.1.0\nerror[E0425]: cannot find value `cfg` in this scope\n"
             " --> src/main.rs:12:5\nerror: could not compile `app` (bin \"app\") due to 1 previous error",
             t("01:40"), is_error=True)
    c.text("msg_s3", "The value `cfg` is used in src/main.rs before it is declared.", t("01:45"))
    c.tool("msg_s3", "toolu_s3", "Bash", {"command": "cargo build --release"}, t("02:00"))
    c.result("toolu_s3", "Exit code 101\nerror[E0425]: cannot find value `cfg` in this scope\n --> src/main.rs:12:5",
             t("02:30"), is_error=True)
    c.user("cfg comes from config.rs, import it", t("03:00"))
    c.tool("msg_s4", "toolu_s4", "Bash", {"command": "cargo --version"}, t("03:10"))
    c.result("toolu_s4", "cargo 1.90.0", t("03:11"))
    c.tool("msg_s5", "toolu_s5", "Edit", {"file_path": "/home/ann/src/app/src/main.rs", "old_string": "fn main() {",
                                          "new_string": "use crate::config::cfg;\nfn main() {"}, t("03:20"))
    c.result("toolu_s5", "The file /home/ann/src/app/src/main.rs has been updated successfully.", t("03:21"))
    c.tool("msg_s6", "toolu_s6", "Bash", {"command": "cargo build --release"}, t("04:00"))
    c.result("toolu_s6", "   Compiling app v0.1.0\n    Finished `release` profile [optimized] target(s) in 41.2s", t("04:45"))
    c.text("msg_s7", "The release build passes now that main.rs imports cfg.", t("04:50"))
    c.tool("msg_s8", "toolu_s8", "Write", {"file_path": "/home/ann/src/app/NOTES.md", "content": "build fixed"}, t("05:00"))
    c.result("toolu_s8", "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
             t("05:01"), is_error=True)
    c.text("msg_s9", "Phase 4 completed.", t("05:05"))
    c.tool("msg_s10", "toolu_s10", "Read", {"file_path": "/home/ann/src/app/NOTES.md"}, t("05:10"))
    c.result("toolu_s10", "     1\told notes", t("05:11"))
    c.tool("msg_s11", "toolu_s11", "Write", {"file_path": "/home/ann/src/app/NOTES.md", "content": "build fixed"}, t("05:20"))
    c.result("toolu_s11", "The file /home/ann/src/app/NOTES.md has been updated successfully.", t("05:21"))
    c.write("claude-code-stories.jsonl")


def claude_root_cause():
    """One root cause worded three ways: rustup cannot write under ~/.rustup, so `cargo fmt`
    fails on its temp file, and the `touch` and `chmod` tried on ~/.rustup are refused the
    same way (one story); near miss — `git fetch` refused "Operation not permitted" on
    `.git/FETCH_HEAD`, another place, is another story."""
    c = Claude()
    t = lambda s: f"2026-04-03T10:{s}.000Z"
    c.user("format and check the crate", t("00:00"))
    c.tool("msg_r1", "toolu_r1", "Bash", {"command": "git fetch --all --prune"}, t("00:10"))
    c.result("toolu_r1", "Exit code 1\nerror: cannot open '.git/FETCH_HEAD': Operation not permitted", t("00:12"),
             is_error=True)
    c.tool("msg_r2", "toolu_r2", "Bash", {"command": "git fetch --all --prune"}, t("00:30"))
    c.result("toolu_r2", "From github.com:ann/app\n * branch main -> FETCH_HEAD", t("00:33"))
    c.tool("msg_r3", "toolu_r3", "Bash", {"command": "cargo fmt"}, t("01:00"))
    c.result("toolu_r3", "Exit code 1\ninfo: syncing channel updates for 'stable'\nerror: could not create temp file "
             "/home/ann/.rustup/tmp/x1k2_file: Operation not permitted (os error 1)", t("01:02"), is_error=True)
    c.text("msg_r4", "Rustup cannot create its temp file under ~/.rustup, so cargo fmt cannot run.", t("01:05"))
    c.tool("msg_r4", "toolu_r4", "Bash", {"command": "touch /home/ann/.rustup/test && rm /home/ann/.rustup/test"}, t("01:10"))
    c.result("toolu_r4", "Exit code 1\ntouch: /home/ann/.rustup/test: Operation not permitted", t("01:11"), is_error=True)
    c.tool("msg_r5", "toolu_r5", "Bash", {"command": "chmod -R u+rwx /home/ann/.rustup"}, t("01:20"))
    c.result("toolu_r5", "Exit code 1\nchmod: Unable to change file mode on /home/ann/.rustup/settings.toml: "
             "Operation not permitted", t("01:25"), is_error=True)
    c.user("fix the rustup permissions", t("02:00"))
    c.tool("msg_r6", "toolu_r6", "Bash", {"command": "cargo fmt"}, t("03:00"))
    c.result("toolu_r6", "Exit code 1\nerror: could not create temp file /home/ann/.rustup/tmp/q9z8_file: "
             "Operation not permitted (os error 1)", t("03:02"), is_error=True)
    c.text("msg_r7", "Rustup still cannot write to ~/.rustup/tmp.", t("03:05"))
    c.write("claude-code-root-cause.jsonl")


def claude_changed():
    """A problem that ends by changing: `pytest` is killed three times, then `python3 -m
    pytest` is not killed but fails on a conftest import (another problem); a dev server
    that ran again without failing while its output still holds a panic; near miss — a
    `--version` probe the program answers "Unknown option" is no retry and no problem."""
    c = Claude()
    t = lambda s: f"2026-04-04T11:{s}.000Z"
    c.user("run the tests and the dev server", t("00:00"))
    for i, cmd in enumerate(["pytest tests/unit", "pytest tests/unit -x", "pytest tests/unit/test_a.py"]):
        c.tool(f"msg_c{i}", f"toolu_c{i}", "Bash", {"command": cmd}, t(f"0{i}:00"))
        c.result(f"toolu_c{i}", "Exit code 1\nsandbox error: command was killed by a signal", t(f"0{i}:05"),
                 is_error=True)
    c.tool("msg_c3", "toolu_c3", "Bash", {"command": "python3 -m pytest tests/unit"}, t("04:00"))
    c.result("toolu_c3", "Exit code 4\nImportError while loading conftest '/home/ann/src/app/tests/conftest.py'.\n"
             "tests/conftest.py:3: in <module>\n    from app.risk import Params\n"
             "E   TypeError: unsupported operand type(s) for |: 'types.GenericAlias' and 'NoneType'", t("04:06"),
             is_error=True)
    c.text("msg_c4", "The conftest import fails on Python 3.9: the union syntax needs 3.10.", t("04:10"))
    c.tool("msg_c5", "toolu_c5", "Bash", {"command": "python3 -m pytest tests/unit -q"}, t("05:00"))
    c.result("toolu_c5", "Exit code 4\nE   TypeError: unsupported operand type(s) for |: 'types.GenericAlias' and "
             "'NoneType'", t("05:06"), is_error=True)
    panic = ("thread 'tokio-runtime-worker' panicked at /home/ann/.cargo/registry/src/index.crates.io-6f17d22bba15001f/"
             "tauri-1.8.3/src/state.rs:51:7:\nstate not managed for field `state` on command `{}`. You must call "
             "`.manage()` before using this command")
    c.tool("msg_c6", "toolu_c6", "Bash", {"command": "npm run dev"}, t("06:00"))
    c.result("toolu_c6", "Exit code 101\n> app@0.1.0 dev\n" + panic.format("login"), t("06:30"), is_error=True)
    c.text("msg_c7", "The login command's state is not managed; main.rs must call manage() for it.", t("06:40"))
    c.tool("msg_c7", "toolu_c7", "Edit", {"file_path": "/home/ann/src/app/src/main.rs", "old_string": ".run(",
                                          "new_string": ".manage(State::default()).run("}, t("07:00"))
    c.result("toolu_c7", "The file /home/ann/src/app/src/main.rs has been updated successfully.", t("07:01"))
    c.tool("msg_c8", "toolu_c8", "Bash", {"command": "npm run dev"}, t("08:00"))
    c.result("toolu_c8", "> app@0.1.0 dev\nready in 310 ms\n" + panic.format("tasks_list"), t("08:40"))
    c.tool("msg_c9", "toolu_c9", "Bash", {"command": "ralph --help 2>&1 | head -20"}, t("09:00"))
    c.result("toolu_c9", "Exit code 127\n(eval):1: command not found: head", t("09:01"), is_error=True)
    c.tool("msg_c10", "toolu_c10", "Bash", {"command": "ralph --version"}, t("09:10"))
    c.result("toolu_c10", "Exit code 1\nUnknown option: --version\nUsage: ralph [OPTIONS]", t("09:11"), is_error=True)
    c.text("msg_c11", "Both tools are installed.", t("09:20"))
    c.write("claude-code-changed.jsonl")


def user_stops():
    """The person stops one call at the device-login prompt and refuses another at the
    permission prompt; a third call really fails."""
    c = Claude()
    c.user("log in to GitHub", "2026-03-05T11:00:00.000Z")
    c.tool("msg_b1", "toolu_b1", "Bash", {"command": "gh auth login"}, "2026-03-05T11:00:03.000Z")
    c.result("toolu_b1", "Exit code 137\n[Request interrupted by user for tool use]\n! First copy your one-time code: AB12-CD34\n"
             "Open this URL to continue in your web browser: https://github.com/login/device",
             "2026-03-05T11:00:40.000Z", is_error=True)
    c.user("[Request interrupted by user for tool use]", "2026-03-05T11:00:40.500Z")
    c.user("try again", "2026-03-05T11:00:50.000Z")
    c.tool("msg_b2", "toolu_b2", "Bash", {"command": "gh repo clone ann/notes ~/notes"}, "2026-03-05T11:00:53.000Z")
    c.result("toolu_b2", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
             "a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user "
             "to tell you how to proceed.", "2026-03-05T11:01:20.000Z", is_error=True)
    c.user("[Request interrupted by user for tool use]", "2026-03-05T11:01:20.500Z")
    c.user("just check the status", "2026-03-05T11:01:30.000Z")
    c.tool("msg_b3", "toolu_b3", "Bash", {"command": "gh auth status"}, "2026-03-05T11:01:33.000Z")
    c.result("toolu_b3", "Exit code 1\nYou are not logged into any GitHub hosts. To log in, run: gh auth login",
             "2026-03-05T11:01:34.000Z", is_error=True)
    c.text("msg_b4", "You are not logged in; run `gh auth login` in your terminal.", "2026-03-05T11:01:37.000Z")
    c.write("claude-code-user-stops.jsonl")


def claude_batch():
    """Calls composed in one message: the todo list and a long file written first, a shell
    command last; nothing runs until the whole message is written. Then a question to the
    person, answered minutes later."""
    c = Claude()
    c.user("write a pre-commit hook that runs the linter, and install it", "2026-03-05T12:00:00.000Z")
    c.text("msg_c1", "I'll track this and write the hook.", "2026-03-05T12:00:05.000Z")
    c.tool("msg_c1", "toolu_c1", "TodoWrite", {"todos": [{"content": "Write the hook", "status": "in_progress",
                                                           "activeForm": "Writing the hook"}]}, "2026-03-05T12:00:06.000Z")
    hook = "#!/bin/sh\n# Runs the linter on staged files.\n" + "ruff check $(git diff --cached --name-only -- '*.py')\n"
    c.tool("msg_c1", "toolu_c2", "Write", {"file_path": "/home/ann/src/app/.git/hooks/pre-commit", "content": hook},
           "2026-03-05T12:01:50.000Z")
    c.tool("msg_c1", "toolu_c3", "Bash", {"command": "chmod +x .git/hooks/pre-commit && .git/hooks/pre-commit"},
           "2026-03-05T12:01:51.000Z")
    c.result("toolu_c1", "Todos have been modified successfully.", "2026-03-05T12:01:51.200Z")
    c.result("toolu_c2", "File created successfully at: /home/ann/src/app/.git/hooks/pre-commit", "2026-03-05T12:01:51.400Z")
    c.result("toolu_c3", "All checks passed!", "2026-03-05T12:01:54.000Z")
    c.tool("msg_c2", "toolu_c4", "AskUserQuestion", {"questions": [{"question": "Also run the tests in the hook?",
                                                                    "header": "Tests", "multiSelect": False,
                                                                    "options": [{"label": "Yes"}, {"label": "No"}]}]},
           "2026-03-05T12:02:00.000Z")
    c.result("toolu_c4", 'User has answered your questions: "Also run the tests in the hook?"="No"',
             "2026-03-05T12:05:30.000Z")
    c.text("msg_c3", "The hook is installed and runs ruff on staged Python files.", "2026-03-05T12:05:35.000Z")
    c.write("claude-code-batch.jsonl")


def gemini(path, messages, start, updated):
    """A Gemini CLI chat recording (session-*.json)."""
    with open(path, "w") as f:
        json.dump({"sessionId": "9d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6", "projectHash": "ab" * 32,
                   "startTime": start, "lastUpdated": updated, "messages": messages}, f, indent=2, ensure_ascii=False)
        f.write("\n")


def gemini_shell(call_id, command, output, exit_code, ts, status="success"):
    body = (f"Command: {command}\nDirectory: (root)\nOutput: {output}\nError: (none)\nExit Code: {exit_code}\n"
            "Signal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242")
    return {"id": call_id, "name": "run_shell_command", "args": {"command": command}, "status": status,
            "timestamp": ts, "result": [{"functionResponse": {"id": call_id, "name": "run_shell_command",
                                                              "response": {"output": body}}}]}


def gemini_left_open():
    """Two minutes of work in a file whose "lastUpdated" is 45 minutes later (the window
    was left open); the shell's own footer ("Error: (none)", "Process Group PGID") on
    every output."""
    gemini("gemini-left-open.json", [
        {"id": "g1", "timestamp": "2026-01-02T09:00:00.000Z", "type": "user",
         "content": "rename refind_x64.efi to grubx64.efi in E:\\EFI\\refind"},
        {"id": "g2", "timestamp": "2026-01-02T09:00:10.000Z", "type": "gemini",
         "content": "I will rename the rEFInd binary.",
         "toolCalls": [gemini_shell("run_shell_command-1767344410000-1", "ren E:\\EFI\\refind\\refind_x64.efi grubx64.efi",
                                    "(empty)", 0, "2026-01-02T09:00:40.000Z")]},
        {"id": "g3", "timestamp": "2026-01-02T09:00:45.000Z", "type": "gemini",
         "content": "I will check that the file is there.",
         "toolCalls": [gemini_shell("run_shell_command-1767344445000-1", "dir E:\\EFI\\refind",
                                    "grubx64.efi\nrefind.conf", 0, "2026-01-02T09:00:47.000Z")]},
        {"id": "g4", "timestamp": "2026-01-02T09:02:00.000Z", "type": "gemini",
         "content": "The binary is renamed to grubx64.efi."},
    ], "2026-01-02T09:00:00.000Z", "2026-01-02T09:45:00.000Z")


class Codex:
    """A Codex CLI rollout as 0.4x–0.6x write it: a call and its output are written
    together when the call has finished."""

    def __init__(self, cwd="/home/ann/src/web"):
        self.lines, self.cwd = [], cwd
        self.rec("session_meta", {"id": "019ac61c-0000-7000-8000-0000000017cc", "timestamp": "2025-11-27T16:00:00.000Z",
                                  "cwd": cwd, "originator": "codex_vscode", "cli_version": "0.61.1-alpha.1",
                                  "source": "vscode", "model_provider": "openai"}, "2025-11-27T16:00:00.000Z")

    def rec(self, kind, payload, ts):
        self.lines.append(json.dumps({"timestamp": ts, "type": kind, "payload": payload}, ensure_ascii=False))

    def user(self, text, ts):
        self.rec("turn_context", {"cwd": self.cwd, "approval_policy": "never",
                                  "sandbox_policy": {"type": "danger-full-access"}, "model": "gpt-5.1-codex-max"}, ts)
        self.rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}, ts)
        self.rec("event_msg", {"type": "user_message", "message": text, "images": []}, ts)

    def shell(self, call_id, command, output, exit_code, wall, ts, timeout_ms=120000):
        args = json.dumps({"command": command, "timeout_ms": timeout_ms})
        self.rec("response_item", {"type": "function_call", "name": "shell_command", "arguments": args, "call_id": call_id}, ts)
        self.rec("response_item", {"type": "function_call_output", "call_id": call_id,
                                   "output": f"Exit code: {exit_code}\nWall time: {wall} seconds\nOutput:\n{output}"}, ts)

    def say(self, text, ts):
        self.rec("response_item", {"type": "message", "role": "assistant",
                                   "content": [{"type": "output_text", "text": text}]}, ts)

    def write(self, path):
        with open(path, "w") as f:
            f.write("\n".join(self.lines) + "\n")


def codex_written_late():
    """Launches whose records carry the time they ended; the request under the IDE
    extension's heading."""
    c = Codex()
    c.user("# Context from my IDE setup:\n\n## Active file: src/App.tsx\n\n## My request for Codex:\nstart the dev server",
           "2025-11-27T16:00:05.000Z")
    c.shell("call_d1", "npm run dev", "> web@1.0.0 dev\n> vite\n\nerror when starting dev server:\n"
            "Error: Port 5173 is already in use", 1, "4.2", "2025-11-27T16:00:15.000Z")
    c.shell("call_d2", "npx kill-port 5173", "Process on port 5173 killed", 0, "2.1", "2025-11-27T16:00:25.000Z")
    c.shell("call_d3", "npm run dev -- --port 5173", "> web@1.0.0 dev\n> vite --port 5173\n\n  VITE v5.4.0  ready in 300 ms\n"
            "  ➜  Local:   http://localhost:5173/", 124, "120.3", "2025-11-27T16:02:30.000Z")
    c.say("The dev server is up on http://localhost:5173/.", "2025-11-27T16:02:35.000Z")
    c.write("codex-written-late.jsonl")


def claude_beliefs():
    """Beliefs taken back: a verdict a poll loop printed (never the assistant's words) and
    its near miss, a crash the assistant stated itself; a report whose finding is a
    heading under a field-line header, and its near miss, a prose sentence saying the
    same as a heading."""
    c = Claude()
    c.user("start the api server and tell me when it is up", "2026-03-06T09:00:00.000Z")
    c.text("msg_d1", "Polling until the server answers; if the log shows an exception it has crashed.",
           "2026-03-06T09:00:04.000Z")
    c.tool("msg_d1", "toolu_d1", "Bash", {"command": "for i in 1 2 3; do if curl -sf localhost:8000/health; then echo READY; "
                                                     "break; fi; if grep -q Exception api.log; then echo CRASHED; break; fi; "
                                                     "sleep 5; done"}, "2026-03-06T09:00:05.000Z")
    c.result("toolu_d1", "CRASHED", "2026-03-06T09:00:20.000Z")
    c.text("msg_d2", "It's still loading! It did not crash: my grep matched a warning about a deprecated option.",
           "2026-03-06T09:01:00.000Z")
    c.tool("msg_d3", "toolu_d3", "Bash", {"command": "tail -3 api.log"}, "2026-03-06T09:01:05.000Z")
    c.result("toolu_d3", "loading model weights 40%", "2026-03-06T09:01:06.000Z")
    c.text("msg_d4", "The server crashed during model loading.", "2026-03-06T09:01:10.000Z")
    c.text("msg_d5", "It's still loading! It did not crash, the log is only slow.", "2026-03-06T09:02:00.000Z")
    c.user("audit the admin account of this machine", "2026-03-06T09:10:00.000Z")
    c.text("msg_d6", "# Security audit\n\n**System:** Linux 6.1  \n**User:** ann (admin)\n\n"
                     "### 1. **No Password Required for Admin Account**\n- **Status:** PasswordRequired: FALSE\n\n"
                     "### 2. **Firewall Disabled**\n- Consider a password manager for the admin account.",
           "2026-03-06T09:10:30.000Z")
    c.user("I sign in with a FIDO2 key, doublecheck", "2026-03-06T09:12:00.000Z")
    c.text("msg_d7", 'You were right - I was wrong about "no password"! The account signs in with a security key.',
           "2026-03-06T09:12:30.000Z")
    c.user("and the firewall?", "2026-03-06T09:13:00.000Z")
    c.text("msg_d8", "The firewall is disabled on every interface.\n\n### Firewall Disabled On Every Interface",
           "2026-03-06T09:13:20.000Z")
    c.user("it is on, look again", "2026-03-06T09:14:00.000Z")
    c.text("msg_d9", "I was wrong: the firewall is enabled on every interface.", "2026-03-06T09:14:30.000Z")
    c.write("claude-code-beliefs.jsonl")


if __name__ == "__main__":
    codex_written_late()
    claude_batch()
    gemini_left_open()
    user_correction()
    user_stops()
    claude_stories()
    claude_root_cause()
    claude_changed()
    claude_beliefs()
