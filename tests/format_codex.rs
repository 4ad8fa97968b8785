//! Codex rollout JSONL: the project's sample and the real envelope-only file.

mod common;

use common::{broken, call_counts, corpus, parse, real};
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
fn envelope_without_conversation_is_an_empty_session_not_an_error() {
    let Some(path) = real("codex/ryoppippi_ccusage/session-alpha.jsonl") else { return };
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "codex");
    assert!(parsed.bad.is_empty());
    assert_eq!(parsed.sessions[0].messages.len(), 0);
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
            (4, Role::Assistant, Origin::Typed, Some(7)),
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
