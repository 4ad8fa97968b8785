//! Codex rollout JSONL: the project's sample and the real envelope-only file.

mod common;

use common::{broken, call_counts, corpus, parse};
use debrief::formats;
use debrief::model::{Origin, Role};

fn sample() -> debrief::model::Session {
    let dir = corpus("codex/2026/03/04");
    let file = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap().path();
    parse(&file).remove(0)
}

#[test]
fn rollout_maps_to_one_conversation_without_duplicates() {
    let s = sample();
    assert_eq!(s.meta.format, "codex");
    assert_eq!(s.meta.id, "019cb2e4-7a10-7c3e-9d21-5e8f0a4b6c17");
    assert_eq!(s.meta.model.as_deref(), Some("gpt-5.1-codex"));
    assert_eq!(s.meta.agent_version.as_deref(), Some("0.98.0"));
    assert_eq!(s.meta.git_branch.as_deref(), Some("fix/retry-storm"));
    assert_eq!(s.messages.len(), 15);
    // event_msg user_message/agent_message mirror response items: each text once.
    let typed: Vec<&str> = s.messages.iter().filter(|m| m.is_typed_user()).map(|m| m.text.as_str()).collect();
    assert_eq!(typed.len(), 3);
    let fixed = s.messages.iter().filter(|m| m.text.starts_with("Fixed: the worker")).count();
    assert_eq!(fixed, 1);
    // developer, AGENTS.md and environment_context turns are injected context.
    for i in 1..=3 {
        let m = s.message(i).unwrap();
        assert_eq!((m.role, m.origin), (Role::System, Origin::Injected), "msg {i}");
    }
}

#[test]
fn calls_carry_commands_outputs_and_exit_codes_in_every_shape() {
    let s = sample();
    assert_eq!(call_counts(&s), (6, 5, 1, 0));
    let calls: Vec<_> = s.messages.iter().flat_map(|m| &m.calls).collect();
    // shell with argv ["bash","-lc",X] gives X; JSON output with metadata.exit_code.
    assert_eq!(calls[0].command.as_deref(), Some("rg -n \"backoff|retry_after\" worker/"));
    assert_eq!(calls[0].result.as_ref().unwrap().exit_code, Some(0));
    // shell_command: "Exit code: N" text.
    assert_eq!(calls[1].command.as_deref(), Some("sed -n '40,75p' worker/deliver.py"));
    assert_eq!(calls[1].result.as_ref().unwrap().exit_code, Some(0));
    // exec_command: "Process exited with code N".
    let r = calls[2].result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error), (Some(1), true));
    // apply_patch custom tool, local_shell argv.
    assert_eq!(calls[3].name, "apply_patch");
    assert!(calls[3].input.as_str().unwrap().starts_with("*** Begin Patch"));
    assert_eq!(calls[4].command.as_deref(), Some("make test"));
    // The aborted turn interrupts the pending load test.
    let r = calls[5].result.as_ref().unwrap();
    assert!(r.interrupted);
    // Reasoning becomes the thinking of the message it precedes.
    assert_eq!(s.message(5).unwrap().thinking, "**Locating the retry logic**");
    // After an output the model answers in a new message: one call per message here.
    assert_eq!(s.message(6).unwrap().calls.len(), 1);
}

#[test]
fn rollout_without_a_message_is_said_to_be_read_as_nothing() {
    // A session opened and left before the first prompt, as CLI 0.1xx writes it:
    // session_meta, turn_context and a token count, no conversation. Saying so beats an
    // empty success.
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("rollout-2026-05-25T14-04-56-019e5f73-0000-7000-8000-000000000001.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"timestamp":"2026-05-25T14:04:56.203Z","type":"session_meta","payload":{"id":"019e5f73-0000-7000-8000-000000000001","timestamp":"2026-05-25T14:04:56.084Z","cwd":"/home/ana/app","originator":"codex_cli_rs","cli_version":"0.133.0","source":"cli"}}"#,
            "\n",
            r#"{"timestamp":"2026-05-25T14:04:57.001Z","type":"turn_context","payload":{"cwd":"/home/ana/app","approval_policy":"on-request","model":"gpt-5.5"}}"#,
            "\n",
            r#"{"timestamp":"2026-05-25T14:04:57.002Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":null}}"#,
            "\n",
            "{not json\n",
        ),
    )
    .unwrap();
    // Read, with no message; the command line says so once, naming the file and the
    // format, and fails (the shared rule for files read as nothing).
    let parsed = formats::parse_file(&path, None).expect("read");
    assert_eq!(parsed.sessions.iter().map(|s| s.messages.len()).sum::<usize>(), 0);
    let out = assert_cmd::Command::cargo_bin("debrief")
        .unwrap()
        .arg("show")
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "debrief: {}: read as Codex CLI (format codex), but no message was found in it",
            path.display()
        )),
        "{stderr}"
    );
}

#[test]
fn bare_jsonl_of_mid_2025_maps_like_the_envelope() {
    let path = broken("codex/2025/07/28/rollout-2025-07-28T09-14-03-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl");
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "codex");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "5973b6c0-94b8-487b-a530-2aeb6098ae0e");
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/ana/app"), "from <environment_context>");
    assert_eq!(s.meta.user.as_deref(), Some("ana"));
    assert_eq!(s.meta.git_branch.as_deref(), Some("main"));
    assert!(s.meta.started.is_some());
    let kinds: Vec<(u32, Role, Origin, Option<u32>)> =
        s.messages.iter().map(|m| (m.idx, m.role, m.origin, m.line)).collect();
    assert_eq!(
        kinds,
        vec![
            (1, Role::System, Origin::Injected, Some(3)),
            (2, Role::System, Origin::Injected, Some(4)),
            (3, Role::User, Origin::Typed, Some(5)),
            // Starts at the reasoning that became its thinking.
            (4, Role::Assistant, Origin::Typed, Some(6)),
            (5, Role::Assistant, Origin::Typed, Some(10)),
            (6, Role::Tool, Origin::ToolOutput, Some(14)),
            (7, Role::Assistant, Origin::Typed, Some(15)),
        ]
    );
    let m4 = s.message(4).unwrap();
    assert_eq!(m4.thinking, "**Inspecting test failure**");
    assert_eq!(m4.end_line, Some(8));
    let r = m4.calls[0].result.as_ref().unwrap();
    assert_eq!((m4.calls[0].command.as_deref(), r.exit_code, r.is_error), (Some("cargo test"), Some(101), true));
    let rg = &s.message(5).unwrap().calls[0];
    assert_eq!(rg.command.as_deref(), Some("rg -n crate::cfg src"));
    assert_eq!(rg.result.as_ref().unwrap().exit_code, Some(0));
    assert_eq!(parsed.bad.iter().map(|b| b.line).collect::<Vec<_>>(), vec![Some(13)]);
    assert!(parsed.unknown.is_empty(), "{:?}", parsed.unknown);
}

const UNIFIED_EXEC: &str = "codex/2026/05/25/rollout-2026-05-25T16-04-56-019e5f73-f77a-7de3-a25a-c960ff4758aa.jsonl";
const CODE_MODE: &str = "codex/2026/09/14/rollout-2026-09-14T17-35-36-01a0a0fd-18f5-77d0-8cc9-cb71c58074aa.jsonl";
const OLDER_WRITERS: &str = "codex/2025/10/21/rollout-2025-10-21T22-02-50-019a085e-04c1-7f81-a09e-9555f6a1fbaa.jsonl";

/// Unified exec as CLI 0.133 writes it (field for field after a Codex Desktop
/// 0.133.0-alpha.1 rollout): `exec_command` answers "Process running with session ID
/// 79999", and two `write_stdin` polls bring the rest, the second "Process exited with
/// code 1". The command's result holds all its output and how it ended; the polls stay
/// visible with their own output.
#[test]
fn a_running_command_ends_in_its_own_result() {
    let parsed = formats::parse_file(&corpus(UNIFIED_EXEC), None).unwrap();
    assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{:?} {:?}", parsed.bad, parsed.unknown);
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.agent_version.as_deref(), Some("0.133.0"));
    // 8 messages; 5 calls, all answered: 3 commands (one still running), 2 polls; 1 failure.
    assert_eq!(s.messages.len(), 8);
    assert_eq!(call_counts(s), (5, 3, 1, 0));
    let m3 = s.message(3).unwrap();
    let lookup = &m3.calls[0];
    assert_eq!(lookup.command.as_deref(), Some("npx ctx7@latest library Better Auth \"organization roles\""));
    let r = lookup.result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error, r.line), (Some(1), true, Some(11)));
    // Its time is when it ended (the last poll), its line where its output starts.
    assert_eq!(r.timestamp.map(|t| t.to_rfc3339()), Some("2026-05-25T14:10:03.635+00:00".into()));
    assert_eq!(
        r.output,
        "npm warn Unknown project config \"strict-peer-dependencies\".\nerror: too many arguments for 'library'. Expected 2 arguments but got 3.\n"
    );
    // The message spans the polls that completed its result, so reading it back from
    // its lines (search snippets) gives the same result.
    assert_eq!((m3.line, m3.end_line), (Some(9), Some(16)));
    let reread =
        formats::read_message(&corpus(UNIFIED_EXEC), parsed.format, m3.offset.unwrap(), 9, 16, 3, None).unwrap();
    assert_eq!(reread.as_ref().map(|m| &m.calls), Some(&m3.calls));
    // The first poll found it still running, the second saw it end; the command is no
    // longer running once a poll said how it ended.
    assert!(!r.running);
    for (idx, output, running) in
        [(4, "", true), (5, "error: too many arguments for 'library'. Expected 2 arguments but got 3.\n", false)]
    {
        let poll = &s.message(idx).unwrap().calls[0];
        let r = poll.result.as_ref().unwrap();
        assert_eq!((poll.name.as_str(), poll.command.as_deref()), ("write_stdin", None));
        assert_eq!(
            (r.output.as_str(), r.exit_code, r.is_error, r.running),
            (output, None, false, running),
            "msg {idx}"
        );
    }
    // The header goes, the output stays.
    let ok = s.message(6).unwrap().calls[0].result.as_ref().unwrap();
    assert_eq!((ok.exit_code, ok.output.starts_with("1. Title: Better Auth\n")), (Some(0), true));
    // A server left running: its output so far, no exit code.
    let server = s.message(7).unwrap().calls[0].result.as_ref().unwrap();
    assert_eq!((server.output.as_str(), server.exit_code), ("> docs:dev\nready on http://localhost:3100\n", None));
    assert!(server.running);
    assert!(common::resumes_reproduce_the_full_parse(&corpus(UNIFIED_EXEC), parsed.format, 20) > 1);
}

/// Code mode as CLI 0.154 writes it (the shape of openai/codex `tools/code_mode`: an
/// `exec` custom tool call whose input is JavaScript calling `tools.*`, results as a
/// status header item "Script completed|failed|running with cell ID N\nWall time …
/// seconds\nOutput:\n" then one item per `text(…)`, and a `wait` function call on a
/// yielded cell). One call per cell: `command` holds the shell commands its script runs.
#[test]
fn code_mode_cells_are_calls_with_their_shell_commands() {
    let parsed = formats::parse_file(&corpus(CODE_MODE), None).unwrap();
    assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{:?} {:?}", parsed.bad, parsed.unknown);
    let s = &parsed.sessions[0];
    assert_eq!(s.messages.len(), 12);
    // 9 calls: 7 exec cells (6 run shell commands), 2 waits; failures: the test run, the
    // server stopped by ^C (130), the script that threw.
    assert_eq!(call_counts(s), (9, 6, 3, 0));
    let cell = |idx: u32| &s.message(idx).unwrap().calls[0];
    let result = |idx: u32| cell(idx).result.as_ref().unwrap();
    // `text(r)` printed the nested result: its output and exit code.
    assert_eq!(cell(3).name, "exec");
    assert!(cell(3).input.as_str().unwrap().starts_with("const r = await tools.exec_command("));
    assert_eq!(cell(3).command.as_deref(), Some("cargo test -p sync --test roundtrip"));
    assert_eq!((result(3).exit_code, result(3).is_error), (Some(101), true));
    assert!(result(3).output.starts_with("running 3 tests\n"), "{}", result(3).output);
    assert_eq!(s.message(3).unwrap().thinking, "**Reproducing the failure**", "event and item give it once");
    // Two commands in one cell, one per line; only their outputs were printed.
    assert_eq!(
        cell(4).command.as_deref(),
        Some("git log --oneline -3 -- src/queue.rs\ngit diff HEAD~1 -- src/queue.rs")
    );
    assert_eq!(result(4).exit_code, None);
    assert!(result(4).output.starts_with("a1b2c3d queue: batch writes with sort_unstable\ndiff --git"));
    // A cell without shell commands.
    let patch = &s.message(5).unwrap().calls[0];
    assert_eq!((patch.command.as_deref(), result(5).output.as_str()), (None, "patched"));
    // A cell that yielded: the waits bring the rest to the cell's own result.
    assert_eq!(cell(6).command.as_deref(), Some("cargo test -p sync"));
    assert_eq!((result(6).exit_code, result(6).output.as_str()), (Some(0), "test result: ok. 14 passed; 0 failed\n"));
    assert_eq!(s.message(6).unwrap().end_line, Some(23));
    for idx in [7, 8] {
        assert_eq!((cell(idx).name.as_str(), result(idx).exit_code, result(idx).is_error), ("wait", None, false));
    }
    // A server left running in one cell and stopped from the next: the stop's exit code
    // is the server's.
    assert_eq!(cell(9).command.as_deref(), Some("cargo run -p sync -- serve --port 7070"));
    assert_eq!(
        (result(9).exit_code, result(9).output.as_str()),
        (Some(130), "listening on 127.0.0.1:7070\n^C shutting down\n")
    );
    assert_eq!((cell(10).command.as_deref(), result(10).exit_code), (Some("curl -s localhost:7070/health"), Some(0)));
    // The script threw: an error with the script's message, no exit code.
    assert_eq!((result(11).exit_code, result(11).is_error), (None, true));
    assert!(result(11).output.contains("Error: fmt: Diff in src/queue.rs at line 88"));
    assert!(common::resumes_reproduce_the_full_parse(&corpus(CODE_MODE), parsed.format, 20) > 1);
}

/// Writers older or other than the CLI's own, after a CLI 0.47 rollout: messages with no
/// `type` (`{"role","content"}`), `function_call` arguments given as a JSON object, and
/// reasoning written only as `event_msg` `agent_reasoning` (beside one that a reasoning
/// item mirrors, kept once). Then the plain-text answers CLI 0.34–0.47 gave instead of a
/// `shell` result (after CLI 0.44 rollouts): "failed in sandbox: …", and the sandbox
/// denial that prints the exit code inside `ExecToolCallOutput { exit_code: N, … }`.
#[test]
fn untyped_messages_object_arguments_and_event_only_reasoning_are_read() {
    let parsed = formats::parse_file(&corpus(OLDER_WRITERS), None).unwrap();
    assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{:?} {:?}", parsed.bad, parsed.unknown);
    let s = &parsed.sessions[0];
    let kinds: Vec<(Role, Origin)> = s.messages.iter().map(|m| (m.role, m.origin)).collect();
    assert_eq!(
        kinds,
        vec![
            (Role::System, Origin::Injected),
            (Role::User, Origin::Typed),
            (Role::Assistant, Origin::Typed),
            (Role::Assistant, Origin::Typed),
            (Role::Assistant, Origin::Typed),
            (Role::User, Origin::Typed),
            (Role::Assistant, Origin::Typed),
            (Role::Assistant, Origin::Typed),
            (Role::Assistant, Origin::Typed),
        ]
    );
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/ana/pomodoro"));
    assert_eq!(s.message(2).unwrap().text, "add a pause button to the timer");
    let rg = &s.message(3).unwrap().calls[0];
    assert_eq!(rg.command.as_deref(), Some("rg -n \"function start\" app.js"));
    assert_eq!(rg.input["workdir"], "/home/ana/pomodoro");
    assert_eq!(rg.result.as_ref().unwrap().exit_code, Some(0));
    assert_eq!(s.message(3).unwrap().thinking, "**Finding the timer controls**");
    assert_eq!(s.message(4).unwrap().thinking, "**Checking the markup**\n\n**Adding the pause button**");
    assert_eq!(s.message(5).unwrap().text, "Added a pause button: `start()` now clears the paused flag.");
    let blocked = s.message(7).unwrap().calls[0].result.as_ref().unwrap();
    assert_eq!((blocked.exit_code, blocked.is_error), (None, true));
    assert!(blocked.output.starts_with("failed in sandbox: npm error code EAI_AGAIN"));
    let denied = s.message(8).unwrap().calls[0].result.as_ref().unwrap();
    assert_eq!((denied.exit_code, denied.is_error), (Some(2), true));
}

/// One fixture → one snapshot of the normalized session (every field the parser sets),
/// so any change in how these records map shows up in review.
#[test]
fn samples_match_snapshots() {
    for (name, rel) in
        [("unified-exec-polls", UNIFIED_EXEC), ("code-mode", CODE_MODE), ("older-writers", OLDER_WRITERS)]
    {
        let mut s = parse(&corpus(rel)).remove(0);
        s.meta.source = rel.into();
        s.meta.host = None;
        insta::assert_yaml_snapshot!(name, s);
    }
}
