//! Claude Code JSONL: message and call counts on every real file, and the record
//! mappings a user would notice (merged chunks, joined results, origins, bad lines).

mod common;

use common::{broken, call_counts, corpus, parse, real_dir};
use debrief::formats;
use debrief::model::{Message, Origin, Role};

/// (file, messages, calls, shell commands, failed calls, calls without result)
const REAL: &[(&str, usize, usize, usize, usize, usize)] = &[
    ("claude_code/DRMacIver_claude-reliability/coverage-test-fix.transcript.jsonl", 17, 13, 5, 1, 0),
    ("claude_code/DRMacIver_claude-reliability/hello-world-script.transcript.jsonl", 6, 2, 1, 0, 0),
    ("claude_code/DRMacIver_claude-reliability/python-to-rust-port.transcript.jsonl", 41, 39, 16, 0, 0),
    ("claude_code/DRMacIver_claude-reliability/stop-hook-fast-path-clean.transcript.jsonl", 3, 1, 0, 0, 0),
    ("claude_code/DRMacIver_claude-reliability/stop-hook-reflection-first-stop.transcript.jsonl", 8, 4, 2, 0, 0),
    ("claude_code/DRMacIver_claude-reliability/stop-hook-reflection-second-stop.transcript.jsonl", 2, 0, 0, 0, 0),
    ("claude_code/DRMacIver_claude-reliability/stop-hook-uncommitted-changes.transcript.jsonl", 6, 2, 0, 0, 0),
    ("claude_code/daaain_claude-code-log_v0.2/edge_cases.jsonl", 10, 3, 0, 1, 2),
    ("claude_code/daaain_claude-code-log_v0.2/representative_messages.jsonl", 9, 2, 1, 0, 0),
    ("claude_code/daaain_claude-code-log_v0.2/session_b.jsonl", 3, 0, 0, 0, 0),
    ("claude_code/daaain_claude-code-log_v0.2/todowrite_examples.jsonl", 8, 3, 0, 0, 0),
    ("claude_code/simonw_claude-code-transcripts/sample_session.jsonl", 5, 2, 1, 0, 0),
    ("claude_code/sniffly/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl", 30, 30, 6, 0, 0),
    ("claude_code/sniffly/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl", 67, 59, 12, 4, 1),
    ("claude_code/sniffly/fed8ce56-bc79-401f-a83e-af084253362f.jsonl", 7, 7, 7, 2, 0),
    ("claude_code/sniffly/ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl", 0, 0, 0, 0, 0),
];

#[test]
fn every_real_claude_file_parses_with_known_counts() {
    let Some(dir) = real_dir() else { return };
    for (rel, msgs, calls, cmds, failed, open) in REAL {
        let path = dir.join(rel);
        let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
        assert_eq!(parsed.format.id(), "claude-code", "{rel}");
        assert_eq!(parsed.sessions.len(), 1, "{rel}");
        let s = &parsed.sessions[0];
        assert_eq!(s.messages.len(), *msgs, "{rel}: messages");
        assert_eq!(call_counts(s), (*calls, *cmds, *failed, *open), "{rel}: calls/commands/failed/open");
        // Numbering is 1..=n with no gaps, and line ranges are ordered.
        for (i, m) in s.messages.iter().enumerate() {
            assert_eq!(m.idx as usize, i + 1, "{rel}");
            assert!(m.line.is_some() && m.line <= m.end_line, "{rel} msg {}", m.idx);
        }
    }
}

#[test]
fn real_files_report_only_the_broken_lines() {
    let Some(dir) = real_dir() else { return };
    let parsed =
        formats::parse_file(&dir.join("claude_code/daaain_claude-code-log_v0.2/edge_cases.jsonl"), None).unwrap();
    let lines: Vec<u32> = parsed.bad.iter().filter_map(|b| b.line).collect();
    // 10: "contenst" typo, 11: message is a string, 13/15/16: not objects, 14: no type,
    // 18: a content list holding a bare string.
    assert_eq!(lines, vec![10, 11, 13, 14, 15, 16, 18]);
    let clean =
        formats::parse_file(&dir.join("claude_code/sniffly/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl"), None).unwrap();
    assert!(clean.bad.is_empty(), "{:?}", clean.bad);
}

#[test]
fn streamed_chunks_merge_and_results_join_their_calls() {
    let s = &parse(&corpus("claude-code/ledger-timezone-fix.jsonl"))[0];
    assert_eq!(s.meta.id, "7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93");
    assert_eq!(s.meta.project.as_deref(), Some("ledger"));
    assert_eq!(s.meta.user.as_deref(), Some("dana"));
    assert_eq!(s.meta.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert_eq!(s.meta.agent_version.as_deref(), Some("2.1.30"));
    assert_eq!(s.meta.title.as_deref(), Some("Fix timezone bug in Ledger.post"));
    // Thinking, text and tool_use streamed on lines 5-7 plus the result on line 8.
    let m = s.message(4).unwrap();
    assert_eq!(m.role, Role::Assistant);
    assert_eq!((m.line, m.end_line), (Some(5), Some(8)));
    assert_eq!(m.thinking, "Start by running the failing test to see the assertion.");
    assert_eq!(m.text, "Let me run the failing test first.");
    let r = m.calls[0].result.as_ref().unwrap();
    assert_eq!(r.exit_code, Some(1));
    assert!(r.is_error);
    assert!(r.output.contains("AssertionError"));
    assert_eq!(r.line, Some(8));
    // A Bash call without error exited 0.
    let ok = s.messages.iter().flat_map(|m| &m.calls).filter(|c| c.name == "Bash").nth(1).unwrap();
    assert_eq!(ok.result.as_ref().unwrap().exit_code, Some(0));
}

#[test]
fn harness_text_is_not_user_typing() {
    let s = &parse(&corpus("claude-code/ledger-timezone-fix.jsonl"))[0];
    let kinds: Vec<(u32, Role, Origin)> = s.messages.iter().map(|m| (m.idx, m.role, m.origin)).collect();
    assert_eq!(kinds[0], (1, Role::System, Origin::Injected), "<command-name> echo");
    assert_eq!(kinds[1], (2, Role::System, Origin::Injected), "isMeta caveat");
    assert_eq!(kinds[2], (3, Role::User, Origin::Typed));
    assert_eq!(kinds[6], (7, Role::User, Origin::Interrupt));
    let reminder = s.messages.iter().find(|m| m.text.contains("TodoWrite tool")).unwrap();
    assert_eq!((reminder.role, reminder.origin), (Role::System, Origin::Injected));
    assert_eq!(s.messages.iter().filter(|m| m.is_typed_user()).count(), 2);
}

#[test]
fn unknown_line_types_are_counted_not_fatal() {
    let parsed = formats::parse_file(&corpus("claude-code/ledger-timezone-fix.jsonl"), None).unwrap();
    assert_eq!(parsed.unknown.get("agent-color"), Some(&1));
    assert!(parsed.bad.is_empty());
}

#[test]
fn a_rewind_drops_the_abandoned_branch() {
    let parsed = formats::parse_file(&broken("claude-code/rewind-compact.jsonl"), None).unwrap();
    let s = &parsed.sessions[0];
    // Lines 5-8 (a prompt, a failing `rm … && pytest`, its result, a reply) were
    // abandoned when the user edited the prompt: line 9 hangs off line 4.
    assert_eq!(s.messages.len(), 10);
    assert!(s.messages.iter().all(|m| !(5..=8).contains(&m.line.unwrap())));
    assert!(s.messages.iter().flat_map(|m| m.commands()).all(|c| !c.contains("rm tests")));
    let m4 = s.message(4).unwrap();
    assert_eq!((m4.role, m4.origin, m4.line), (Role::User, Origin::Typed, Some(9)));
    assert_eq!(m4.text, "Fix it, but keep the existing tests.");
    assert_eq!(s.messages.iter().filter(|m| m.is_typed_user()).count(), 3);
    // Joined results keep their lines; the broken line 20 is reported, not fatal.
    let bash = &s.message(6).unwrap().calls[0];
    assert_eq!(bash.command.as_deref(), Some("pytest -q tests/test_export.py"));
    let r = bash.result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error, r.line), (Some(0), false, Some(13)));
    assert_eq!(parsed.bad.iter().map(|b| b.line).collect::<Vec<_>>(), vec![Some(20)]);
    assert_eq!(s.meta.title.as_deref(), Some("CSV export off-by-one"));
    // A command ran on the abandoned branch: it is kept as a fork of the conversation,
    // linked to the message after which it left it.
    assert_eq!(parsed.sessions.len(), 2);
    let fork = &parsed.sessions[1];
    assert!(fork.meta.id.starts_with("fork-"), "{}", fork.meta.id);
    assert_eq!(fork.meta.parent_session.as_deref(), Some(s.meta.id.as_str()));
    assert_eq!(fork.meta.forked_after, Some(3));
    assert_eq!(fork.messages.iter().map(|m| m.line.unwrap()).collect::<Vec<_>>(), vec![5, 6, 8]);
    assert_eq!(fork.messages[0].text, "Fix it and rewrite the tests to match.");
    assert!(fork.messages[1].commands().any(|c| c.contains("rm tests")));
}

#[test]
fn an_abandoned_branch_where_nothing_ran_is_a_retry_and_kept_nowhere() {
    // The same rewind, but the abandoned reply called no tool: the prompt was re-asked.
    let text = std::fs::read_to_string(corpus("claude-code/rewind-compact.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("s.jsonl");
    let kept: Vec<&str> = lines.iter().enumerate().filter(|(i, _)| ![5, 6].contains(i)).map(|(_, l)| *l).collect();
    std::fs::write(&file, kept.join("\n") + "\n").unwrap();
    let parsed = formats::parse_file(&file, None).unwrap();
    assert_eq!(parsed.sessions.len(), 1);
    assert!(parsed.sessions[0].messages.iter().all(|m| !m.text.contains("rewrite the tests")));
}

#[test]
fn compaction_boundary_and_summary_are_one_message() {
    let s = &parse(&broken("claude-code/rewind-compact.jsonl"))[0];
    let m = s.message(7).unwrap();
    assert_eq!((m.role, m.origin), (Role::System, Origin::CompactSummary));
    assert_eq!((m.line, m.end_line), (Some(14), Some(15)));
    assert!(m.text.starts_with("This session is being continued"), "{}", m.text);
    assert_eq!(s.messages.iter().filter(|m| m.origin == Origin::CompactSummary).count(), 1);
    // The conversation goes on after it.
    assert_eq!(s.message(8).unwrap().text, "Now commit it.");
}

#[test]
fn resumed_reads_see_rewinds_in_appended_lines() {
    use debrief::formats::{Checkpoint, Collect, Input, Resume};
    let path = broken("claude-code/rewind-compact.jsonl");
    let whole = formats::parse_file(&path, None).unwrap();
    // Read lines 1-6 first, then resume from the last checkpoint at or before line 5.
    let fmt = formats::by_id("claude-code").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let part = tmp.path().join("s.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let head: Vec<&str> = text.lines().take(6).collect();
    std::fs::write(&part, head.join("\n") + "\n").unwrap();
    let mut input = Input::open(&part, None).unwrap();
    let mut first = Collect::default();
    let metas = fmt.parse(&mut input, &mut first).unwrap();
    let cp: Checkpoint = first.checkpoints.iter().rev().find(|c| c.line <= 5).cloned().unwrap();
    assert!(cp.state.get("last_prompt").is_some(), "checkpoints carry the chain: {:?}", cp.state);
    std::fs::write(&part, &text).unwrap();
    let resume = Resume { checkpoint: cp.clone(), session: metas[0].clone() };
    let mut input = Input::open(&part, Some(resume)).unwrap();
    let mut rest = Collect::default();
    fmt.parse(&mut input, &mut rest).unwrap();
    let tail: Vec<(u32, Option<u32>)> = rest.messages[0].iter().map(|m| (m.idx, m.line)).collect();
    let expect: Vec<(u32, Option<u32>)> =
        whole.sessions[0].messages.iter().filter(|m| m.idx >= cp.next_idx).map(|m| (m.idx, m.line)).collect();
    assert_eq!(tail, expect);
}

#[test]
fn subagent_files_link_to_the_task_call_that_ran_them() {
    // Newer layout: <session>/subagents/agent-<id>.jsonl, linked by toolUseResult.agentId.
    let sub = &parse(&corpus(
        "claude-code/subagents-new/5e1f0c2a-9d4b-4f6e-8a71-3c2b1d0e9f45/subagents/agent-a4f09c21e7b3d5a68.jsonl",
    ))[0];
    assert_eq!(sub.meta.id, "agent-a4f09c21e7b3d5a68");
    assert_eq!(sub.meta.parent_session.as_deref(), Some("5e1f0c2a-9d4b-4f6e-8a71-3c2b1d0e9f45"));
    assert_eq!(sub.meta.parent_call.as_deref(), Some("toolu_T1"));
    assert_eq!(sub.messages.len(), 3);
    assert!(sub.messages.iter().all(|m| m.sidechain));
    assert_eq!(sub.message(2).unwrap().calls[0].name, "Grep");
    // The parent's Task call holds the subagent's answer as its result.
    let parent = &parse(&corpus("claude-code/subagents-new/5e1f0c2a-9d4b-4f6e-8a71-3c2b1d0e9f45.jsonl"))[0];
    assert_eq!(parent.meta.parent_session, None);
    let task = &parent.message(2).unwrap().calls[0];
    assert_eq!((task.id.as_str(), task.name.as_str()), ("toolu_T1", "Task"));
    assert!(task.result.as_ref().unwrap().output.contains("fetcher/http.py:12"));
    // Older layout: agent-<id>.jsonl beside the parent, no agentId: matched by the prompt.
    let old = &parse(&corpus("claude-code/subagents-old/agent-1f7e9a3c.jsonl"))[0];
    assert_eq!(old.meta.parent_session.as_deref(), Some("c81e2d94-0b3f-4a57-9e6c-5d4f3a2b1c08"));
    assert_eq!(old.meta.parent_call.as_deref(), Some("toolu_T9"));
    // The sidecar .meta.json is no transcript.
    let meta = corpus(
        "claude-code/subagents-new/5e1f0c2a-9d4b-4f6e-8a71-3c2b1d0e9f45/subagents/agent-a4f09c21e7b3d5a68.meta.json",
    );
    assert!(formats::detect(&meta, &std::fs::read(&meta).unwrap()).is_none());
}

#[test]
fn headless_stream_json_is_read_by_the_claude_module() {
    let parsed = formats::parse_file(&corpus("claude-code/headless-stream.jsonl"), None).unwrap();
    assert_eq!(parsed.format.id(), "claude-code");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "9c0d4e7f-2a1b-4c3d-8e5f-6a7b8c9d0e1f");
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/ravi/work/api"));
    assert_eq!(s.meta.agent_version.as_deref(), Some("2.0.31"));
    assert_eq!(s.meta.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    // init, stream_event and result make no message; text + tool_use chunks merge.
    assert_eq!(s.messages.len(), 2);
    let m = s.message(1).unwrap();
    assert_eq!((m.line, m.end_line), (Some(3), Some(5)));
    let r = m.calls[0].result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error), (Some(1), true));
    assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{:?} {:?}", parsed.bad, parsed.unknown);
    // A failed headless run says so.
    let err = &parse(&corpus("claude-code/headless-error.jsonl"))[0];
    assert_eq!(err.messages.len(), 1);
    assert_eq!((err.messages[0].role, err.messages[0].text.as_str()), (Role::System, "[error_max_turns]"));
}

#[test]
fn a_rewind_after_an_index_run_drops_the_branch_on_the_next_run() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let dir = tmp.path().join("p");
    std::fs::create_dir(&dir).unwrap();
    let file = dir.join("s.jsonl");
    let text = std::fs::read_to_string(broken("claude-code/rewind-compact.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // First run sees the branch that is later abandoned (lines 1-8) as the conversation.
    std::fs::write(&file, lines[..8].join("\n") + "\n").unwrap();
    let run = |args: &[&str]| common::debrief(&ix).args(args).output().unwrap();
    assert!(run(&["index", dir.to_str().unwrap()]).status.success());
    let hits = |q: &str| String::from_utf8_lossy(&run(&["search", q, "--json"]).stdout).lines().count();
    assert_eq!(hits("\"rewrite the tests\""), 1);
    // The user rewinds; the rest of the file is appended.
    let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all((lines[8..].join("\n") + "\n").as_bytes()).unwrap();
    drop(f);
    assert!(run(&["index", dir.to_str().unwrap()]).status.success());
    // The abandoned branch left the main session and is its own fork session now.
    let out = String::from_utf8_lossy(&run(&["search", "\"rewrite the tests\"", "--json"]).stdout).to_string();
    let hit: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(out.lines().count(), 1);
    assert!(hit["session"].as_str().unwrap().starts_with("fork-"), "{hit}");
    assert_eq!(hits("\"keep the existing tests\""), 1);
    let sessions = String::from_utf8_lossy(&run(&["sessions", "--json"]).stdout).to_string();
    let all: Vec<serde_json::Value> = sessions.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let main = all.iter().find(|s| !s["session"].as_str().unwrap().starts_with("fork-")).unwrap();
    assert_eq!(main["messages"], 10);
    assert_eq!(all.len(), 2);
}

#[test]
fn subagent_records_in_the_main_file_are_sessions_of_their_own() {
    // Claude Code 1.0.x wrote a Task's subagent records into the main file
    // (`isSidechain: true`, the main `sessionId`, no `agentId`); two run in parallel here.
    let parsed = formats::parse_file(&corpus("claude-code/sidechains-inline.jsonl"), None).unwrap();
    assert_eq!(parsed.sessions.len(), 3);
    let main = &parsed.sessions[0];
    assert_eq!(main.meta.id, "7a4c2e10-5b3d-4f9a-8c21-0e6d9b1f2a37");
    assert!(main.messages.iter().all(|m| !m.sidechain));
    assert_eq!(main.messages.iter().filter(|m| m.is_typed_user()).count(), 1, "subagent prompts are not the user's");
    let tasks = &main.message(2).unwrap().calls;
    assert!(tasks[1].result.as_ref().unwrap().output.contains("timeout=0"));
    for (sub, call, first, tool) in [
        (&parsed.sessions[1], "toolu_TA", "Find every place the worker reconnects", "Bash"),
        (&parsed.sessions[2], "toolu_TB", "Find every BRPOP/BLPOP call", "Grep"),
    ] {
        assert_eq!(sub.meta.parent_session.as_deref(), Some(main.meta.id.as_str()));
        assert_eq!(sub.meta.parent_call.as_deref(), Some(call));
        assert_eq!(sub.messages.len(), 3, "{}", sub.meta.id);
        assert!(sub.messages.iter().all(|m| m.sidechain));
        assert!(sub.messages[0].text.starts_with(first));
        assert_eq!(sub.messages[1].calls[0].name, tool);
        assert!(sub.messages[1].calls[0].result.is_some(), "the interleaved result is joined in its own session");
    }
}

#[test]
fn harness_text_queued_prompts_and_background_reads() {
    let parsed = formats::parse_file(&corpus("claude-code/background-queued.jsonl"), None).unwrap();
    assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{:?} {:?}", parsed.bad, parsed.unknown);
    let s = &parsed.sessions[0];
    let typed: Vec<&str> = s.messages.iter().filter(|m| m.is_typed_user()).map(|m| m.text.as_str()).collect();
    // Every prompt the person typed, in order, and nothing else: the IDE note, the task
    // notification and the reminder are system text; the prompt queued mid-turn is kept.
    assert_eq!(
        typed,
        vec![
            "start the dev server and check that /health answers",
            "it uses port 5174 now, not 5173",
            "still not answering — did you start it again after the port change?",
        ]
    );
    let system: Vec<&Message> = s.messages.iter().filter(|m| m.role == Role::System).collect();
    assert_eq!(system.len(), 3);
    assert!(system[0].text.starts_with("<ide_opened_file>"));
    assert!(system[1].text.starts_with("<task-notification>"));
    assert!(system[2].text.starts_with("<system-reminder>") && !system[2].text.contains("still not answering"));
    // The background command, and the reads that carry its output and how it ended.
    let dev = &s.message(3).unwrap().calls[0];
    let r = dev.result.as_ref().unwrap();
    assert_eq!((r.running, r.exit_code), (true, None));
    let first_read = &s.message(4).unwrap().calls[0];
    assert_eq!(first_read.continues.as_deref(), Some(dev.id.as_str()));
    assert_eq!(first_read.command, None, "a read is not a second run of the command");
    let r = first_read.result.as_ref().unwrap();
    assert_eq!((r.timed_out, r.running, r.exit_code), (true, true, None));
    let last_read = &s.message(6).unwrap().calls[0];
    assert_eq!(last_read.continues.as_deref(), Some(dev.id.as_str()));
    let r = last_read.result.as_ref().unwrap();
    assert_eq!((r.timed_out, r.running, r.exit_code), (false, false, Some(1)));
    // A foreground command the Bash tool gave up on.
    let probe = s.message(8).unwrap().calls[0].result.as_ref().unwrap();
    assert_eq!((probe.timed_out, probe.is_error, probe.exit_code), (true, true, None));
}

/// Claude Code moves a long foreground Bash call to the background on its own (or the
/// person does, with Ctrl-B), and the result says so instead of giving output: that
/// call is running, and a later `TaskOutput` of its task continues it.
#[test]
fn a_command_moved_to_the_background_is_continued_by_its_reads() {
    let path = corpus("detectors/polling-timeout/pos-background-wait-ran-out-claude.jsonl");
    let s = &parse(&path)[0];
    let commit = &s.message(2).unwrap().calls[0];
    assert_eq!(commit.input.get("run_in_background"), None, "not asked for");
    let r = commit.result.as_ref().unwrap();
    assert_eq!((r.running, r.exit_code), (true, None));
    let read = &s.message(3).unwrap().calls[0];
    assert_eq!(read.continues.as_deref(), Some(commit.id.as_str()));
    let r = read.result.as_ref().unwrap();
    assert_eq!((r.timed_out, r.running), (true, true));
    // The person's Ctrl-B reads the same way.
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "Command running in background with ID: b4k2x9p.",
        "Command was manually backgrounded by user with ID: b4k2x9p.",
    );
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("s.jsonl");
    std::fs::write(&file, text).unwrap();
    let s = &formats::parse_file(&file, None).unwrap().sessions[0];
    let commit = &s.message(2).unwrap().calls[0];
    assert!(commit.result.as_ref().unwrap().running);
    assert_eq!(s.message(3).unwrap().calls[0].continues.as_deref(), Some(commit.id.as_str()));
}

/// Claude Code 2.0.x says a background command ended in a user record wrapped in
/// `<bash-notification>` (the shape of a real 2.0.71 session: shell id, output file,
/// status, summary with the exit code, a hint to read the file). It is the harness
/// speaking, never a typed turn (the whole record, as with `<task-notification>`).
#[test]
fn a_bash_notification_is_harness_text() {
    let note = "<bash-notification>\n<shell-id>b18a41f</shell-id>\n<output-file>/tmp/claude/tasks/b18a41f.output</output-file>\n<status>failed</status>\n<summary>Background command \"Start observability server and dashboard\" failed with exit code 137.</summary>\nRead the output file to retrieve the output.\n</bash-notification>";
    let rec = |uuid: &str, parent: &str, content: serde_json::Value| {
        serde_json::json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
            "sessionId": "dab5506f", "version": "2.0.71", "type": "user", "uuid": uuid,
            "timestamp": "2025-12-17T02:09:03.839Z", "message": {"role": "user", "content": content}})
        .to_string()
    };
    let lines = [
        rec("u1", "", serde_json::json!("start the observability server in the background")),
        serde_json::json!({"parentUuid": "u1", "isSidechain": false, "sessionId": "dab5506f", "version": "2.0.71",
            "type": "assistant", "uuid": "a2", "timestamp": "2025-12-17T02:09:01.000Z",
            "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-4-5", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                 "input": {"command": "./start.sh", "run_in_background": true}}]}})
        .to_string(),
        rec(
            "u3",
            "a2",
            serde_json::json!([{"type": "tool_result", "tool_use_id": "toolu_1",
            "content": "Command running in background with ID: b18a41f"}]),
        ),
        rec("u4", "u3", serde_json::json!(note)),
        rec("u5", "u4", serde_json::json!("why did it die?")),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("dab5506f.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let parsed = formats::parse_file(&file, None).unwrap();
    assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{:?} {:?}", parsed.bad, parsed.unknown);
    let s = &parsed.sessions[0];
    let typed: Vec<&str> = s.messages.iter().filter(|m| m.is_typed_user()).map(|m| m.text.as_str()).collect();
    assert_eq!(typed, vec!["start the observability server in the background", "why did it die?"]);
    let notes: Vec<&Message> = s.messages.iter().filter(|m| m.text.starts_with("<bash-notification>")).collect();
    assert_eq!(notes.len(), 1);
    assert!(notes.iter().all(|m| (m.role, m.origin) == (Role::System, Origin::Injected)));
}
