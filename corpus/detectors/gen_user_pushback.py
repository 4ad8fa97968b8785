#!/usr/bin/env python3
"""Write the fixtures of user-pushback.

Each scenario is a small session rendered as a Claude Code project log
(`-claude.jsonl`) and a Codex CLI rollout (`-codex.jsonl`) with the writers of
gen_detect_a.py. `pos-*` sessions must make user-pushback fire, `neg-*` sessions
are near misses it must ignore.

Run from the repository root: python3 corpus/detectors/gen_user_pushback.py
The outputs are committed; rerunning must reproduce them byte for byte.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_detect_a import A, U, sh, tool, write  # noqa: E402

D = "user-pushback"

TRACE = """Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "/home/dana/src/opk/opk/ui/main_window.py", line 5, in <module>
    from PySide6.QtWidgets import QAction, QApplication
ImportError: cannot import name 'QAction' from 'PySide6.QtWidgets'"""


def positives():
    write(D, "pos-still-failing-after-fix", [
        U("The CI badge on the README is red. Can you fix it?"),
        A("", sh("git push origin main", "To github.com:dana/opk.git\n   3f2a1c4..9b8d7e6  main -> main")),
        A("Pinned Python 3.12 in ci.yml and set QT_QPA_PLATFORM=offscreen for the test job. This should address the failing badge."),
        U("Nope, the CI badge is still failing. Please check the workflow logs yourself."),
        A("", sh("gh run view --log-failed | tail -20", "FAILED tests/test_ui.py::test_import_main_window - ImportError")),
    ])
    write(D, "pos-traceback-after-done", [
        U("Add a preview dialog for the generated G-code."),
        A("", sh("PYTHONPATH=. pytest -q", "17 passed in 0.41s")),
        A("Done - added the preview dialog under Tools → G-code Preview. All 17 tests pass."),
        U(TRACE),
    ])
    write(D, "pos-refusal-and-no", [
        U("Create a Start Menu shortcut for the Gemini CLI."),
        A("I can't execute shell commands in this environment. Please run this in PowerShell: .\\create_shortcut.ps1"),
        U("you have permission to run the necessary shell commands"),
        A("", sh("powershell -File create_shortcut.ps1", "Shortcut written")),
        A("I have created the shortcut with the working directory set to Documents\\M-Claude."),
        U("no, set the working dir to Documents\\M-Gemini"),
    ])
    write(D, "pos-other-languages", [
        U("Ajoute le serveur MCP linear dans config.toml."),
        A("J'ai ajouté la section [mcp_servers.linear] dans config.toml ; le serveur est maintenant configuré."),
        U("le serveur linear n'apparaît toujours pas dans /mcp"),
        A("Die Sektion ist jetzt korrigiert: der Befehl zeigt auf npx mcp-remote."),
        U("es funktioniert immer noch nicht"),
    ])
    write(D, "pos-fix-paste-after-done", [
        U("Set up ssh to the build box through the tunnel."),
        A("", sh("which cloudflared", "/opt/homebrew/bin/cloudflared")),
        A("Done. Your SSH config is now set up. You can now SSH into the build box with ssh dana@build.example.org."),
        U("fix:\ndana@book ~ % ssh dana@build.example.org\nThe authenticity of host 'build.example.org' can't be established.\nAre you sure you want to continue connecting (yes/no/[fingerprint])? yes\nWarning: Permanently added 'build.example.org' (ED25519) to the list of known hosts.\ndana@book ~ %"),
    ])

    # A change handed back to be tried, answered by the next error alone (held-out cx21
    # [msg 93], cx43); a problem that "keeps" coming back (held-out cx44 [msg 53]).
    write(D, "pos-lone-error-after-handback", [
        U("The docker build fails on the COPY step."),
        A("", sh("sed -n '1,20p' Dockerfile", "FROM rust:1.80 as builder\nCOPY app /src/app")),
        A("I updated the Dockerfile to copy the build context.\n\nRebuild with:\n- `docker build -t app:local app/`"),
        U("error: package ID specification `app-cli` did not match any packages"),
        A("The package is named app; I switched the build to `--bin app`. The search tool now gets the API key from .env."),
        U("the build works but the search tool keeps saying no API key"),
        A("I set the search key lookup to read .env first. Rebuild with:\n- `cargo build --release --bin app`"),
        U("app % cargo build --release --bin app/cli\nerror: no bin target named `app/cli` in default-run packages\nhelp: available bin targets:\n    app"),
    ])

    # Output asked for only "if it still fails": the paste reports that it did (held-out
    # cx43 [msg 24, 27, 31]).
    write(D, "pos-paste-asked-if-it-fails", [
        U("The docker build fails in app-core."),
        A("", sh("sed -n '1,5p' app/rust-toolchain.toml", "[toolchain]\nchannel = \"1.89.0\"")),
        A("I moved the builder image to rust:1.89 to match rust-toolchain.toml.\n\nRun `docker build -t app:local app/` again. If it still errors, please paste the first error block from cargo (not just the summary)."),
        U("error: could not compile `app-core` (lib) due to 2 previous errors\nwarning: build failed, waiting for other jobs to finish..."),
        A("I added the OpenSSL build dependencies to the builder stage.\n\nBuild again with `docker build -t app:local app/`. If it still fails, please share the first cargo error block from the build logs."),
        U("app! /usr/local/bin/app: /lib/aarch64-linux-gnu/libc.so.6: version `GLIBC_2.39' not found (required by /usr/local/bin/app)\n[runner] {\"data\":{\"status\":1,\"success\":false},\"event\":\"task_complete\"}"),
    ])

    # A program's error quoted inside the person's question (held-out cx43 [msg 12]), and
    # the reply of the program the assistant set up, pasted as prose: it declines what it
    # was set up to do (held-out cx44 [msg 50]).
    write(D, "pos-error-in-a-question", [
        U("The docker build fails on the COPY step."),
        A("", sh("sed -n '1,20p' Dockerfile", "FROM rust:1.80 as builder\nCOPY app /src/app")),
        A("I updated the Dockerfile to build with `-p app-cli`.\n\nBuild again with:\n- `docker build -t app:local app/`"),
        U("package ID specification `app-cli` did not match any packages is it fine to just run cargo build --bin app ?"),
    ])
    write(D, "pos-pasted-refusal", [
        U("Give the agent a web search through the Google API keys in .env."),
        A("", sh("grep -n GOOGLE .env", "1:GOOGLE_API_KEY=...\n2:GOOGLE_CSE_ID=...")),
        A("The environment context now carries a curl template for the Google search.\n\nUse with the agent\n- Enable network: `cargo run --bin app -- -c network_access=true`\n- Then prompt the agent to run a Google search."),
        U("I’m unable to reach the internet from this environment, so I can’t pull the latest data straight from Google. If you’d like, I can help craft a request or a script you can run locally when you have network access. Let me know what you’d like to do next."),
    ])

    # What the claimed change was to remove, observed still there, with no failure word
    # ("I still see ellpsis" after "ellipses are gone", L8 nw11 [msg 76, 81]); a defect
    # of the display right after a claimed install (L8 nw10 [msg 61, 75]).
    write(D, "pos-persists-after-claim", [
        U("The event titles end in ellipses. Can you get rid of them?"),
        A("", sh("./gradlew installDebug", "BUILD SUCCESSFUL in 4s")),
        A("Removed ellipsizing from the event layout; the ellipses are gone and text now wraps until the column clips it."),
        U("I still see ellpsis.  Is there a way to get rid of them?"),
        A("", sh("./gradlew installDebug", "BUILD SUCCESSFUL in 3s")),
        A("Moved the header baseline up 8px. The application was installed successfully."),
        U("The display changed drastically and is all scrunched up.  What happened?"),
    ])
    # A contradiction the assistant concedes at once (L8 nw13 [msg 16], nw21 [msg 116]).
    write(D, "pos-conceded-contradiction", [
        U("Set up jest for the Nuxt 2 project."),
        A("The native deasync build fails on Node.js 23. Switch to Node.js 18 LTS for better compatibility with the native modules."),
        U("It is current June 2025, and Node 18 is no longer supported. How about 22 LTS?"),
        A("You're absolutely right! In June 2025, Node.js 18 would be past its end-of-life. Let's use Node.js 22 LTS."),
    ])


def negatives():
    write(D, "neg-requests-and-approvals", [
        U("Add a Build menu with Validate and Run Rules."),
        A("Done. I added the Build menu; all 36 tests pass. Want me to add keyboard shortcuts too?"),
        U("No, let's add a status bar instead."),
        A("Added the status bar with issue counts."),
        U("yes to all, and add error handling for failing uploads"),
        A("", sh("nohup opk-gui > gui.log 2>&1 &", "")),
        A("The GUI is starting in the background."),
        U("is it still running?"),
        A("Yes, it is up. Shall I continue with the docs?"),
        U("continue"),
    ])
    # Output asked for whatever happens ("run it and paste the traceback"): a report. The
    # same ask made only "if it still fails" is pos-paste-asked-if-it-fails.
    write(D, "neg-asked-for-output", [
        U("The GUI does not start."),
        A("I changed the QAction import to PySide6.QtGui. Run it again and paste the traceback."),
        U(TRACE),
        A("Let me look at how the entry point loads the window."),
        U("here is the log from the other machine:\n2026-02-27 11:05:12 ERROR qt.qpa.xcb: could not connect to display\n2026-02-27 11:05:12 ERROR Aborted (core dumped)"),
    ])
    write(D, "neg-clarifications", [
        U("Open the M-Gemini repo."),
        A("I couldn't find M-Gemini. Could you provide the full path to the repository?"),
        U("the repo is located at C:\\Users\\dana\\Documents\\M-Gemini"),
        A("Which option would you like?\n1. Update the gitleaks config\n2. Commit as is"),
        U("2"),
    ])
    write(D, "neg-fix-title-after-claim", [
        U("Create a Start Menu shortcut for the Gemini CLI."),
        A("I've created the script create_shortcut.ps1 in your home folder; it sets the icon and the working directory."),
        U("fix this : dana/opk - CodeQL Advanced #5\nCodeQL found 3 alerts on main"),
    ])
    write(D, "neg-lone-error-not-handed-back", [
        U("Why does the docker build fail?"),
        A("The Dockerfile copies `app/` but the build context is already `app/`, so the path does not exist."),
        U("error: failed to compute cache key: \"/app\": not found"),
        A("I changed the base image. Run the build again and paste the first error block."),
        U("error: could not compile `app-core` (lib) due to 2 previous errors"),
        A("Added the retry flag."),
        U("make sure it keeps running after a restart"),
    ])
    # Near misses: a name in quotes asked about, not a program's message; the person's own
    # inability to try it (no assistant's offer); a refusal of something else.
    write(D, "neg-quoted-name-and-own-inability", [
        U("The docker build fails on the COPY step."),
        A("I updated the Dockerfile to build with `-p app-cli`.\n\nBuild again with:\n- `docker build -t app:local app/`"),
        U("is `app-cli` the right package to build, or should it be app?"),
        A("The package is app-cli in app/cli/Cargo.toml. Then prompt the agent to run a Google search."),
        U("I can't reach the internet from the train, so I'll try the Google search tonight."),
        A("Sure. The search template is in the environment context."),
        U("I’m unable to open the spreadsheet here. If you’d like, I can help draft the summary instead."),
    ])
    # Near misses of "it persists": an observation with no change claimed before it, a
    # question, an opinion ("I still see the point"), a hedge, and a request that names a
    # defect to handle.
    write(D, "neg-persists-near-miss", [
        U("The event titles end in ellipses. Can you get rid of them?"),
        A("The ellipses come from the event titles themselves: the calendar stores them with a trailing '…'."),
        U("I still see ellipsis in the week view too."),
        A("Removed ellipsizing from the event layout and installed the build."),
        U("Is the ellipsis still showing on the month view?"),
        A("The month view has its own layout; I updated it too and the build is installed."),
        U("I still see the point of keeping them on past events, so leave those."),
        A("Done: past events keep their ellipses."),
        U("If I still see ellipses tomorrow I'll send a screenshot."),
        A("Added the smaller header; the build is installed."),
        U("Add a tooltip for truncated titles."),
    ])
    # A fact added that the assistant agrees with (L7 nw18 [msg 280]), and a request it
    # praises: a concession after them takes nothing back.
    write(D, "neg-conceded-addition", [
        U("Write the risk rules for the contract review."),
        A("I've written the risk rules for penalty clauses and termination rights."),
        U("The contracts come in Traditional Chinese, Simplified Chinese and English."),
        A("You're right! The rules should match all three. Let me update them."),
        U("Also add a rule for confidentiality clauses."),
        A("You're absolutely right, that one matters. Adding it now."),
    ])
    write(D, "neg-fix-paste-first-turn", [
        U("fix this:\n      0 [main] bash 62 dofork: child -1 - forked process 16976 died unexpectedly, retry 0\n1070493 [main] bash 62 dofork: child -1 - forked process 32460 died unexpectedly, retry 0"),
        A("", sh("uname -a", "MINGW64_NT-10.0-26200 legion 3.6.5 x86_64 Msys")),
        A("This is a Cygwin fork failure; rebasing the DLLs usually fixes it."),
    ])


REPO = "/home/dana/src/hearth"


def ide(text, fmt):
    """The person's words as the IDE sends them: the Codex extension's context above
    "## My request for Codex:", Claude Code's <ide_opened_file> tag."""
    if fmt == "codex":
        return U("# Context from my IDE setup:\n\n## Active file: src/bridges/alden.ts\n\n## Open tabs:\n"
                 "- alden.ts: src/bridges/alden.ts\n- README.md: README.md\n\n## My request for Codex:\n" + text)
    return U("<ide_opened_file>The user opened the file src/bridges/alden.ts in the IDE.</ide_opened_file>" + text)


def change(fmt, path, old, new):
    """An edit of `path`: Claude Code's Edit tool, Codex's apply_patch."""
    if fmt == "codex":
        body = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch"
        return sh(f"apply_patch <<'PATCH'\n{body}\nPATCH", f"Success. Updated the following files:\nM {path}")
    return tool("Edit", {"file_path": f"{REPO}/{path}", "old_string": old, "new_string": new},
                f"The file {REPO}/{path} has been updated.")


def handed_back():
    """A change handed back whatever words close the turn, "NO, don't do that" and
    "Don't edit the README.md" after a change to it, and the person's words inside the
    IDE's context (held-out cx51, cx53, cx56);
    near misses: the same words after an offer or a review that changed nothing, and
    "you have access" with nothing refused (cx57 [msg 12])."""
    for fmt in ("claude", "codex"):
        pos = [
            U("The chat panel fails when the backend is down."),
            A("", change(fmt, "src/bridges/alden.ts", "throw err;", "return { success: true, data: [] };")),
            A("Rebuilt the history path so the panel degrades to an empty list, and the send path returns a canned reply."),
            ide("NO, don't do that. A fake fallback message is stupid.", fmt),
            A("", change(fmt, "src/bridges/alden.ts", "return { success: true, data: [] };", "throw err;")),
            A("Agreed, and enforced. The bridge surfaces backend errors again."),
            ide("[alden_chat_history_get] Command alden_chat_history_get not found", fmt),
            A("", change(fmt, "src-tauri/src/main.rs", "fn main() {", "fn main() { register(alden_chat_history_get);")),
            A("Registered alden_chat_history_get in main.rs."),
            ide("no, commands belong in the invoke handler list, not in main.rs", fmt),
            A("", change(fmt, "README.md", "## Agent", "")),
            A("Removed the agent section from README.md. Tell me where to put it instead."),
            ide("Don't edit the README.md... It's a README file, not an EDITME file.", fmt),
        ]
        neg = [
            U("Review how the chat panel handles a backend outage."),
            A("", sh("rg -n 'catch' src/bridges/alden.ts", "42:    } catch (err) {")),
            A("The bridge throws on every backend failure; the panel shows the raw error. Want me to add a fallback reply?"),
            ide("NO, don't do that. Just note it in the review.", fmt),
            A("Noted in the review: errors reach the panel unchanged."),
            ide("[alden_chat_history_get] Command alden_chat_history_get not found", fmt),
            A("Found a strong match: docs/HELP.md defines the help article standard. Want me to open the full file?"),
            ide("No, just you have access is great. Apply this help format to every help page.", fmt),
            A("", change(fmt, "docs/HELP.md", "# Help", "# Help (v2)")),
            A("Applied the help format to docs/HELP.md."),
            ide("Don't edit the CHANGELOG.md, I keep it by hand.", fmt),
        ]
        write(D, "pos-change-handed-back", pos, formats=(fmt,), codex_steps=pos if fmt == "codex" else None)
        write(D, "neg-nothing-changed-or-offered", neg, formats=(fmt,), codex_steps=neg if fmt == "codex" else None)


def undone_and_prescribed():
    """An error naming an operand of the command the assistant gave to run, and an order
    to take out of a file what the turn just put in it (held-out cx43 [msg 18], cx51
    [msg 41]); near misses: the same error when the output was asked for, and a removal
    that tidies up what the person had asked to be put in that file."""
    gave = "`--target` takes a triple, not a folder.\n\nUse: `cargo build --release --manifest-path tools/gen/Cargo.toml --target x86_64-unknown-linux-gnu`"
    error = "error: manifest path `tools/gen/Cargo.toml` does not exist"
    for fmt in ("claude", "codex"):
        persona = "## Usage\n\n## Reviewer Persona\nYou review every change for missing tests."
        pos = [
            U("cargo build --target linux says the target is invalid"),
            A(gave),
            U(error),
            A("You ran it from inside tools/, so the path was prefixed twice."),
            U("Give this repo a reviewer persona; the guide only describes the code."),
            A("", change(fmt, "docs/GUIDE.md", "## Usage", persona)),
            A("Added a Reviewer Persona section to docs/GUIDE.md with the full persona text."),
            ide("good grief, remove the persona from the GUIDE", fmt),
        ]
        neg = [
            U("cargo build --target linux says the target is invalid"),
            A("Run `cargo build --release --manifest-path tools/gen/Cargo.toml` and paste the output here."),
            U(error),
            A("You ran it from inside tools/, so the path was prefixed twice."),
            U("add a reviewer persona section to the GUIDE so I can try it"),
            A("", change(fmt, "docs/GUIDE.md", "## Usage", persona)),
            A("Added a Reviewer Persona section to docs/GUIDE.md."),
            ide("ok, now remove the persona from the GUIDE", fmt),
        ]
        write(D, "pos-undone-and-prescribed", pos, formats=(fmt,), codex_steps=pos if fmt == "codex" else None)
        write(D, "neg-tidy-up-and-asked-output", neg, formats=(fmt,), codex_steps=neg if fmt == "codex" else None)


if __name__ == "__main__":
    positives()
    negatives()
    handed_back()
    undone_and_prescribed()
