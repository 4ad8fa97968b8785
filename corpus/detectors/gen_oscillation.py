#!/usr/bin/env python3
"""Write the fixtures of oscillation.

Each scenario is a small session rendered as a Claude Code project log
(`-claude.jsonl`) and a Codex CLI rollout (`-codex.jsonl`) with the writers of
gen_detect_a.py. Claude Code edits with its Edit tool; Codex with `apply_patch`
through its shell, as Codex CLI does. `pos-*` sessions must make oscillation fire,
`neg-*` sessions are near misses it must ignore.

Run from the repository root: python3 corpus/detectors/gen_oscillation.py
The outputs are committed; rerunning must reproduce them byte for byte.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_detect_a import A, U, sh, tool, write  # noqa: E402

D = "oscillation"
REPO = "/home/dana/src/inference"
CI = ".github/workflows/ci.yml"


def claude_edit(path, old, new):
    return tool("Edit", {"file_path": f"{REPO}/{path}", "old_string": old, "new_string": new},
                f"The file {REPO}/{path} has been updated.")


def codex_patch(path, old, new):
    body = "\n".join(["*** Begin Patch", f"*** Update File: {path}", "@@"]
                     + [f"-{l}" for l in old.split("\n")] + [f"+{l}" for l in new.split("\n")] + ["*** End Patch"])
    return sh(f"apply_patch <<'PATCH'\n{body}\nPATCH", f"Success. Updated the following files:\nM {path}")


def edit_scenario(name, steps):
    """`steps` use ("edit", path, old, new) tuples where an assistant edits a file."""
    def render(edit):
        out = []
        for s in steps:
            if isinstance(s, tuple):
                _, text, path, old, new = s
                out.append(A(text, edit(path, old, new)))
            else:
                out.append(s)
        return out
    write(D, name, render(claude_edit), codex_steps=render(codex_patch))


def E(text, path, old, new):
    return ("edit", text, path, old, new)


THREE = '      python-version: ["3.11", "3.12", "3.13"]'
TWO = '      # PySide6 wheels are not published for 3.13 yet\n      python-version: ["3.11", "3.12"]'
FAILING = "FAILED tests/test_ui.py::test_main_window - ImportError: libEGL.so.1: cannot open shared object file"

BLOCKY = """upstreams:
  groups:
    default:
      - 127.0.0.1:5053
ports:
  dns: 53
  http: 4000
log:
  level: info
"""
QUERYLOG = "queryLog:\n  type: console\n  logRetentionDays: 1\n"


def write_config(text, with_log):
    body = BLOCKY + (QUERYLOG if with_log else "")
    return A(text, sh(f"ssh root@192.168.8.1 'cat > /etc/blocky/config.yml <<\"EOF\"\n{body}EOF\n/etc/init.d/blocky restart'", ""))


DIG_TIMEOUT = ";; communications error to 192.168.8.1#53: timed out\n;; no servers could be reached"
DIG_OK = "93.184.215.14"


def positives():
    # The CI matrix: 3.13 dropped, put back, dropped again, with only the user's word between.
    edit_scenario("pos-ci-matrix-toggled", [
        U("The CI badge says failing. Can you figure this out?"),
        E("PySide6 has no 3.13 wheels; dropping 3.13 from the matrix.", CI, THREE, TWO),
        A("", sh("git commit -am 'ci: drop 3.13' && git push", "[main 4c570bb] ci: drop 3.13")),
        U("yes, but I want 3.13 covered somehow. Try again."),
        E("Reintroducing 3.13.", CI, TWO, THREE),
        A("", sh("git commit -am 'ci: reintroduce 3.13' && git push", "[main 4d71015] ci: reintroduce 3.13")),
        U("CI seems to still fail..."),
        E("Dropping 3.13 again for now.", CI, THREE, TWO),
        A("", sh("git commit -am 'ci: drop 3.13 for now' && git push", "[main 96d6e8a] ci: drop 3.13 for now")),
    ])

    # A service's config rewritten whole, a block toggled across restarts.
    steps = [
        U("Can I see which DNS queries blocky answers?"),
        write_config("Writing the current config back as it is, then restarting.", False),
        A("", sh("dig @192.168.8.1 example.com +short", DIG_OK)),
        write_config("Enabling query logging to the console.", True),
        A("", sh("dig @192.168.8.1 example.com +short", DIG_TIMEOUT, exit=9)),
        write_config("DNS stopped answering; removing queryLog to restore it.", False),
        A("", sh("dig @192.168.8.1 example.com +short", DIG_OK)),
        write_config("Let me add queryLog again, with the same settings.", True),
        A("", sh("dig @192.168.8.1 example.com +short", DIG_TIMEOUT, exit=9)),
    ]
    write(D, "pos-config-block-toggled", steps)

    # A server flag toggled across relaunches.
    def launch(text, backend):
        cmd = (f"nohup python -m sglang.launch_server --model-path /models/qwen3-8b --tp 2 "
               f"--attention-backend {backend} > /tmp/srv_{backend}.log 2>&1 &")
        return A(text, sh(cmd, ""))

    def probe(out, code=0):
        return A("", sh("curl -s localhost:30000/health", out, exit=code))

    steps = [
        U("Bring the server up with the fastest attention backend."),
        launch("Starting with flashinfer.", "flashinfer"),
        probe("", 7),
        launch("It did not come up; trying triton.", "triton"),
        probe("", 7),
        launch("Not up either; back to flashinfer.", "flashinfer"),
        probe("", 7),
        launch("Switching to triton once more.", "triton"),
        probe("", 7),
    ]
    write(D, "pos-flag-toggled-across-relaunches", steps)

    # Two commands by turns, each failing as before, nothing changed between.
    err_build = "vite v5.4.2 building for production...\nerror during build:\n[vite]: Rollup failed to resolve import \"@/lib/api\" from \"src/App.tsx\"."
    err_dev = "npm error Missing script: \"build:prod\""
    steps = [
        U("The production build fails, fix it."),
        A("", sh("npm run build", err_build, exit=1)),
        A("Maybe the prod script resolves aliases.", sh("npm run build:prod", err_dev, exit=1)),
        A("", sh("npm run build", err_build, exit=1)),
        A("", sh("npm run build:prod", err_dev, exit=1)),
    ]
    write(D, "pos-two-commands-by-turns", steps)


def negatives():
    # One revert: tried and taken back.
    edit_scenario("neg-one-revert", [
        U("The CI badge says failing. Can you figure this out?"),
        E("", CI, THREE, TWO),
        A("", sh("git commit -am 'ci: drop 3.13' && git push", "[main 4c570bb] ci: drop 3.13")),
        U("No, keep 3.13."),
        E("Putting 3.13 back.", CI, TWO, THREE),
        A("", sh("git commit -am 'ci: restore 3.13' && git push", "[main 4d71015] ci: restore 3.13")),
    ])

    # A deliberate A/B: the revert is stated as a check.
    old = "    return torch.compile(model, mode=\"max-autotune\")"
    new = "    return model  # eager: compile disabled"
    edit_scenario("neg-stated-bisect", [
        U("Inference got slower since yesterday. Find out why."),
        E("Disabling torch.compile.", "serve/model.py", old, new),
        A("", sh("python bench.py --n 200", "p50 41.2 ms")),
        E("Reverting to confirm the slowdown comes from compile: an A/B with the same bench.", "serve/model.py", new, old),
        A("", sh("python bench.py --n 200", "p50 63.9 ms")),
        E("Confirmed; disabling it again.", "serve/model.py", old, new),
        A("", sh("python bench.py --n 200", "p50 41.0 ms")),
    ])

    # A rewrite in two goes (the old block out, the new one in) after the file was made.
    main_v1 = 'package main\n\nimport "net/http"\n\nfunc main() {\n\thttp.ListenAndServe(":8080", nil)\n}'
    main_v2 = ('package main\n\nimport (\n\t"log"\n\t"net/http"\n)\n\nfunc main() {\n\tmux := http.NewServeMux()\n'
               '\tlog.Fatal(http.ListenAndServe(":8080", mux))\n}')
    claude = [
        U("Set up the API server."),
        A("", tool("Write", {"file_path": f"{REPO}/cmd/api/main.go", "content": main_v1}, f"File created successfully at: {REPO}/cmd/api/main.go")),
        A("", sh("go build ./...", "")),
        A("Restructuring main.", claude_edit("cmd/api/main.go", main_v1, "")),
        A("", claude_edit("cmd/api/main.go", "", main_v2)),
        A("", sh("go build ./...", "")),
    ]
    codex = [
        U("Set up the API server."),
        A("", sh("apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: cmd/api/main.go\n"
                 + "\n".join("+" + l for l in main_v1.split("\n")) + "\n*** End Patch\nPATCH",
                 "Success. Updated the following files:\nA cmd/api/main.go")),
        A("", sh("go build ./...", "")),
        A("Restructuring main.", sh("apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: cmd/api/main.go\n@@\n"
                                    + "\n".join("-" + l for l in main_v1.split("\n")) + "\n*** End Patch\nPATCH",
                                    "Success. Updated the following files:\nM cmd/api/main.go")),
        A("", sh("apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: cmd/api/main.go\n@@\n"
                 + "\n".join("+" + l for l in main_v2.split("\n")) + "\n*** End Patch\nPATCH",
                 "Success. Updated the following files:\nM cmd/api/main.go")),
        A("", sh("go build ./...", "")),
    ]
    write(D, "neg-rewrite-in-two-goes", claude, codex_steps=codex)

    # Lines a test file holds many times, taken out in one test and put in in another.
    t = "tests/documents.test.ts"
    case = "  it('{}', async () => {{\n    const response = await request(app).patch('/api/documents/1')\n    expect(response.status).toBe(200)\n  }})"
    edit_scenario("neg-repeated-lines", [
        U("Raise the coverage of the documents route."),
        E("", t, "describe('documents', () => {", "describe('documents', () => {\n" + "\n".join(case.format(f"case {i}") for i in range(3))),
        A("", sh("pnpm vitest run tests/documents.test.ts", "Tests  3 passed (3)")),
        E("", t, case.format("case 1"), "  it('case 1', async () => {\n    expect(true).toBe(true)\n  })"),
        A("", sh("pnpm vitest run tests/documents.test.ts", "Tests  3 passed (3)")),
        E("", t, "describe('documents', () => {", "describe('documents', () => {\n" + case.format("case 9")),
        A("", sh("pnpm vitest run tests/documents.test.ts", "Tests  4 passed (4)")),
    ])

    # Two commands by turns with a fix between each: the outcome changes, so does the code.
    steps = [
        U("Make the build and the type check pass."),
        A("", sh("npm run build", "error TS2304: Cannot find name 'Props'.", exit=1)),
        A("", sh("npm run typecheck", "src/App.tsx(4,20): error TS2304: Cannot find name 'Props'.", exit=1)),
        A("", sh("sed -i 's/: Props/: AppProps/' src/App.tsx", "")),
        A("", sh("npm run build", "built in 1.2s")),
        A("", sh("npm run typecheck", "")),
    ]
    write(D, "neg-commands-by-turns-with-fixes", steps)


if __name__ == "__main__":
    positives()
    negatives()
