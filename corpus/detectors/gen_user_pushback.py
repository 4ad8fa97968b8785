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
from gen_detect_a import A, U, sh, write  # noqa: E402

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
    write(D, "neg-asked-for-output", [
        U("The GUI does not start."),
        A("I changed the QAction import to PySide6.QtGui. Run it again and paste the traceback if it still fails."),
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


if __name__ == "__main__":
    positives()
    negatives()
