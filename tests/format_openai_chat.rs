//! OpenAI-style message lists (mini-swe-agent trajectories and plain chat logs):
//! counts on every real file, a text step's bash block joined to its observation with
//! the exit code, tool calls joined by id, and that no message is lost.

mod common;

use common::{call_counts, corpus, parse, real, real_files, rel};
use debrief::formats;
use debrief::model::{Origin, Role, Session};
use serde_json::Value;

/// (file, messages, calls, shell commands, failed calls, calls without result)
const REAL: &[(&str, usize, usize, usize, usize, usize)] = &[
    ("openai_chat_messages/SWE-agent_mini-swe-agent/github_issue.traj.json", 12, 10, 10, 2, 0),
    ("openai_chat_messages/SWE-agent_mini-swe-agent/local.traj.json", 4, 2, 2, 0, 0),
];

fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// Every input message is a message, or the observation a call's output came from.
fn messages_are_all_there(name: &str, list: &[Value], s: &Session) {
    for (i, m) in list.iter().enumerate() {
        let text = text_of(m.get("content"));
        let found = s.messages.iter().any(|p| p.text == text)
            || s.messages
                .iter()
                .flat_map(|p| &p.calls)
                .any(|c| c.result.as_ref().is_some_and(|r| text.contains(r.output.trim())));
        assert!(found, "{name}: message {i} ({}) is nowhere", m["role"]);
    }
}

#[test]
fn every_real_message_list_parses_with_known_counts() {
    let Some(files) = real_files("openai_chat_messages") else { return };
    assert_eq!(files.len(), REAL.len(), "a new real file needs a row here: {files:?}");
    for path in files {
        let name = rel(&path);
        let row = REAL.iter().find(|r| r.0 == name).unwrap_or_else(|| panic!("{name} has no row"));
        let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert_eq!(parsed.format.id(), "openai-chat", "{name}");
        assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{name}");
        let s = &parsed.sessions[0];
        assert_eq!(s.meta.agent, "mini-swe-agent", "{name}");
        assert_eq!(s.messages.len(), row.1, "{name}: messages");
        assert_eq!(call_counts(s), (row.2, row.3, row.4, row.5), "{name}: calls/commands/failed/open");
        assert!(s.messages.iter().all(|m| m.line.is_none()), "{name}: a JSON document has no lines");
        let list: Vec<Value> = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        messages_are_all_there(&name, &list, s);
    }
}

#[test]
fn mini_steps_join_their_observations() {
    let Some(path) = real("openai_chat_messages/SWE-agent_mini-swe-agent/github_issue.traj.json") else { return };
    let s = &parse(&path)[0];
    assert_eq!(s.meta.id, "github_issue");
    let kinds: Vec<(Role, Origin)> = s.messages.iter().take(3).map(|m| (m.role, m.origin)).collect();
    assert_eq!(
        kinds,
        [(Role::System, Origin::Injected), (Role::User, Origin::Typed), (Role::Assistant, Origin::Typed)]
    );
    // The command is the one ```mswea_bash_command block; the next user message is its
    // observation, with the exit code.
    let first = &s.messages[2].calls[0];
    assert_eq!(
        first.command.as_deref(),
        Some("cat /Users/fuchur/Documents/24/git_sync/swe-agent-test-repo/tests/./missing_colon.py")
    );
    let r = first.result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error), (Some(1), true));
    assert!(r.output.starts_with("cat: /Users/fuchur/") && r.output.ends_with("No such file or directory"));
    let codes: Vec<Option<i32>> =
        s.messages.iter().flat_map(|m| &m.calls).map(|c| c.result.as_ref().unwrap().exit_code).collect();
    assert_eq!(codes, [Some(1), Some(0), Some(0), Some(0), Some(0), Some(0), Some(0), Some(1), Some(0), None]);
    // The submission (no <returncode>) is the output of the submit command.
    let submit = s.messages.last().unwrap().calls.last().unwrap();
    assert!(submit.command.as_deref().unwrap().starts_with("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"));
    assert!(submit.result.as_ref().unwrap().output.starts_with("diff --git a/tests/missing_colon.py"));
}

#[test]
fn sample_mini_v2_with_format_error_and_exit() {
    let s = &parse(&corpus("openai-chat/restock.traj.json"))[0];
    assert_eq!(s.meta.agent, "mini-swe-agent");
    assert_eq!(s.meta.agent_version.as_deref(), Some("2.1.0"));
    assert_eq!(s.meta.model.as_deref(), Some("anthropic/claude-sonnet-4-5-20250929"));
    assert_eq!(s.meta.id, "restock");
    // v2 keeps the raw output and return code beside the rendered observation.
    let tests = &s.messages[3].calls[0];
    assert_eq!(tests.command.as_deref(), Some("python -m pytest tests -q"));
    let r = tests.result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error), (Some(1), true));
    assert_eq!(
        r.output,
        "FAILED tests/test_stock.py::test_restock_rounds - assert 24.0 == 24\n1 failed, 5 passed in 0.11s\n"
    );
    // Two bash blocks: mini-swe-agent ran nothing and answered with a format error.
    assert!(s.messages[4].calls.is_empty());
    assert_eq!((s.messages[5].role, s.messages[5].origin), (Role::System, Origin::Injected));
    assert!(s.messages[5].text.starts_with("Format error:"));
    // The exit message, once (info repeats it).
    let exits = s.messages.iter().filter(|m| m.text.starts_with("exit status: Submitted")).count();
    assert_eq!(exits, 1);
    assert_eq!(s.messages.len(), 9);
}

#[test]
fn sample_mini_v1_long_output_and_timeout() {
    let s = &parse(&corpus("openai-chat/export-hang.traj.json"))[0];
    let calls: Vec<_> = s.messages.iter().flat_map(|m| &m.calls).collect();
    let head_tail = calls[0].result.as_ref().unwrap();
    assert_eq!(
        head_tail.output,
        "2025-07-01 00:00:01 export started\n[… 18211 characters elided …]\n2025-07-01 00:14:59 waiting for lock /var/lock/export"
    );
    let timeout = calls[1].result.as_ref().unwrap();
    assert!(timeout.interrupted && timeout.is_error);
    assert_eq!(timeout.output, "waiting for lock /var/lock/export");
    assert_eq!(calls[2].result.as_ref().unwrap().output, "", "the empty submission");
}

#[test]
fn sample_plain_chat_with_tool_calls() {
    let s = &parse(&corpus("openai-chat/chat-tools.json"))[0];
    assert_eq!(s.meta.agent, "OpenAI chat");
    let du = &s.messages[2].calls[0];
    assert_eq!((du.id.as_str(), du.command.as_deref()), ("call_du", Some("du -sh ~/.cache/depot")));
    assert_eq!(du.result.as_ref().unwrap().output, "1.4G\t/home/mei/.cache/depot");
    let two = &s.messages[3];
    assert_eq!(two.calls.len(), 2);
    assert_eq!(two.calls[0].result.as_ref().unwrap().output, "311");
    assert!(two.calls[1].result.is_none(), "no tool message answered it");
    assert_eq!(two.calls[1].input["path"], "/etc/fstab");
    // A tool message for a call that is not in the log is kept.
    assert_eq!((s.messages[4].role, s.messages[4].origin), (Role::Tool, Origin::ToolOutput));
    assert_eq!(s.messages[5].text, "yes please\n[image]");
    assert!(s.messages[5].is_typed_user());
}

#[test]
fn sniffing_keeps_message_lists_apart_from_trajectories() {
    let detect = |p: std::path::PathBuf| formats::detect(&p, &formats::read_head(&p).unwrap()).map(|f| f.id());
    assert_eq!(detect(corpus("openai-chat/chat-tools.json")), Some("openai-chat"));
    assert_eq!(detect(corpus("swe-agent/depot__depot-17.traj")), Some("swe-agent"));
    assert_eq!(detect(corpus("openhands/restock-crash.json")), Some("openhands"));
}
