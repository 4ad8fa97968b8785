//! OpenHands: counts on every real V0 event list, observations joined to their
//! actions (exit codes, the hung server), per-event folders read as one conversation,
//! V1 SDK events, and that every event is a message, a result or known bookkeeping.

mod common;

use common::{call_counts, corpus, debrief, parse, real, real_files, rel};
use debrief::formats;
use debrief::model::{Origin, Role, Session};
use serde_json::Value;

/// (file, messages, calls, shell commands, failed calls, calls without result)
const REAL: &[(&str, usize, usize, usize, usize, usize)] = &[
    ("openhands/All-Hands-AI_OpenHands/basic.json", 3, 1, 0, 0, 0),
    ("openhands/All-Hands-AI_OpenHands/basic_gui_mode.json", 6, 4, 2, 1, 0),
    ("openhands/All-Hands-AI_OpenHands/basic_interactions.json", 6, 0, 0, 0, 0),
    ("openhands/All-Hands-AI_OpenHands/wrong_initial_state.json", 5, 3, 1, 0, 0),
];

/// Every V0 event is bookkeeping, a message or the result of a call.
fn events_are_all_there(name: &str, events: &[Value], s: &Session) {
    let bookkeeping = ["agent_state_changed", "change_agent_state", "null"];
    let calls: Vec<_> = s.messages.iter().flat_map(|m| &m.calls).collect();
    for e in events {
        let kind = e.get("action").or_else(|| e.get("observation")).and_then(Value::as_str).unwrap_or("");
        if bookkeeping.contains(&kind) {
            continue;
        }
        let id = e["id"].as_i64().unwrap();
        let found = if e.get("action").is_some() {
            let content = e["args"]["content"].as_str().or(e["message"].as_str()).unwrap_or("");
            s.messages.iter().any(|m| m.text == content)
                || calls.iter().any(|c| c.id == e["tool_call_metadata"]["tool_call_id"].as_str().unwrap_or("-"))
        } else {
            let content = e["content"].as_str().unwrap_or("");
            calls.iter().any(|c| c.result.as_ref().is_some_and(|r| r.output.contains(content)))
        };
        assert!(found, "{name}: event {id} ({kind}) is nowhere");
    }
}

#[test]
fn every_real_event_list_parses_with_known_counts() {
    let Some(files) = real_files("openhands") else { return };
    assert_eq!(files.len(), REAL.len(), "a new real OpenHands file needs a row here: {files:?}");
    for path in files {
        let name = rel(&path);
        let row = REAL.iter().find(|r| r.0 == name).unwrap_or_else(|| panic!("{name} has no row"));
        let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert_eq!(parsed.format.id(), "openhands", "{name}");
        assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{name}: {:?}", parsed.unknown);
        let s = &parsed.sessions[0];
        assert_eq!(s.messages.len(), row.1, "{name}: messages");
        assert_eq!(call_counts(s), (row.2, row.3, row.4, row.5), "{name}: calls/commands/failed/open");
        assert!(s.messages.iter().all(|m| m.line.is_none() && m.timestamp.is_some()), "{name}");
        let events: Vec<Value> = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        events_are_all_there(&name, &events, s);
    }
}

#[test]
fn the_hung_http_server() {
    let Some(path) = real("openhands/All-Hands-AI_OpenHands/basic_gui_mode.json") else { return };
    let s = &parse(&path)[0];
    assert_eq!(s.meta.model.as_deref(), Some("claude-3-5-sonnet-20241022"));
    assert_eq!(s.meta.started.map(|t| t.to_rfc3339()).as_deref(), Some("2025-01-20T20:29:13.519638+00:00"));
    let m = &s.messages[4];
    assert_eq!(m.text, "Let's serve this application using a simple Python HTTP server:");
    let c = &m.calls[0];
    assert_eq!((c.id.as_str(), c.name.as_str()), ("toolu_01DwihWr4ooPZS1CGTLAWrFP", "execute_bash"));
    assert_eq!(c.command.as_deref(), Some("cd /workspace/todo-app && python3 -m http.server 8000"));
    let r = c.result.as_ref().unwrap();
    assert_eq!(r.exit_code, Some(-1));
    assert!(r.is_error, "OpenHands marked it unsuccessful");
    assert!(r.output.starts_with("Serving HTTP on 0.0.0.0 port 8000"));
    assert!(r.output.contains("[The command has no new output after 30 seconds."));
    // The first command exited 0; file edits are calls without a command.
    let first = s.messages[1].calls[0].result.as_ref().unwrap();
    assert_eq!((first.exit_code, first.is_error), (Some(0), false));
    assert_eq!(s.messages[2].calls[0].name, "str_replace_editor");
    assert_eq!(s.messages[2].calls[0].command, None);
    assert!(s.messages[5].text.starts_with("I've created a complete Vue.js todo application"));
}

#[test]
fn sample_v0_trajectory() {
    let parsed = formats::parse_file(&corpus("openhands/restock-crash.json"), None).unwrap();
    assert_eq!(parsed.unknown.get("observation:gpu_stats"), Some(&1), "a new observation type is format drift");
    let s = &parsed.sessions[0];
    let shape: Vec<(Role, Origin, usize)> = s.messages.iter().map(|m| (m.role, m.origin, m.calls.len())).collect();
    use Origin::*;
    use Role::*;
    assert_eq!(
        shape,
        [
            (User, Typed, 0),
            (System, Injected, 0), // the recalled workspace context
            (Assistant, Typed, 1),
            (Assistant, Typed, 2), // two calls of one LLM response
            (Assistant, Typed, 1),
            (Assistant, Typed, 1),
            (Assistant, Typed, 1),
            (Tool, ToolOutput, 0), // the unknown observation, kept
            (Assistant, Typed, 0),
        ]
    );
    let r = |m: usize, c: usize| s.messages[m].calls[c].result.clone().unwrap();
    assert_eq!((r(2, 0).exit_code, r(2, 0).is_error), (Some(1), true));
    assert!(r(2, 0).output.ends_with("'restock.toml'\n[The command completed with exit code 1.]"));
    assert_eq!(r(3, 1).exit_code, Some(2));
    assert_eq!(r(4, 0).exit_code, Some(-1));
    assert!(r(5, 0).interrupted, "rejected by the user");
    assert!(r(6, 0).is_error && r(6, 0).output.starts_with("BrowserUnavailableError"));
    assert!(s.messages[8].text.starts_with("The job crashes because `restock.toml` does not exist"));
}

#[test]
fn per_event_folders_are_one_conversation() {
    // V0: sessions/<id>/events/<n>.json — any of its files reads the whole folder.
    let dir = corpus("openhands/sessions/5b0e9c1d2f3a4b6c8d7e9f0a1b2c3d4e");
    let s = &parse(&dir.join("events/2.json"))[0];
    assert_eq!(s.meta.id, "5b0e9c1d2f3a4b6c8d7e9f0a1b2c3d4e");
    assert_eq!(s.messages.len(), 3);
    assert_eq!(s.messages[1].calls[0].command.as_deref(), Some("make sync-suppliers"));
    assert_eq!(s.messages[1].calls[0].result.as_ref().unwrap().output, "synced 14 suppliers");

    // V1: conversations/<id>/events/event-<n>-<uuid>.json.
    let conv = corpus("openhands/conversations/c7a1d2e3f4b5c6d7e8f9a0b1c2d3e4f5/events");
    let first = std::fs::read_dir(&conv).unwrap().filter_map(Result::ok).map(|e| e.path()).min().unwrap();
    let parsed = formats::parse_file(&first, None).unwrap();
    assert_eq!(parsed.unknown.get("BrowserScreenshotEvent"), Some(&1));
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "c7a1d2e3f4b5c6d7e8f9a0b1c2d3e4f5");
    let shape: Vec<(Role, usize)> = s.messages.iter().map(|m| (m.role, m.calls.len())).collect();
    assert_eq!(
        shape,
        [
            (Role::System, 0),
            (Role::User, 0),
            (Role::Assistant, 1),
            (Role::Assistant, 2),
            (Role::Assistant, 1),
            (Role::System, 0),
            (Role::Assistant, 0)
        ]
    );
    let run = &s.messages[2];
    assert_eq!(run.thinking, "Start with the failing target.");
    let r = run.calls[0].result.as_ref().unwrap();
    assert_eq!(
        (run.calls[0].command.as_deref(), r.exit_code, r.is_error),
        (Some("make test ONLY=orders"), Some(2), true)
    );
    assert!(r.output.starts_with("FAILED tests/test_orders.py::test_place_order"));
    let grep = &s.messages[3].calls[1];
    assert_eq!(grep.result.as_ref().unwrap().output, "Terminal session was reset while the command was running");
    let rejected = s.messages[4].calls[0].result.as_ref().unwrap();
    assert!(rejected.interrupted && rejected.output.starts_with("Don't change suppliers.py"));
}

#[test]
fn indexing_a_folder_reads_each_event_folder_once() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let out = debrief(&ix).arg("index").arg(corpus("openhands")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // The trajectory, the V0 folder and the V1 folder: three conversations. The event
    // cache pages and the side files are not sessions of their own.
    assert!(err.contains("3 sessions"), "{err}");
    let out = debrief(&ix).args(["search", "synced 14 suppliers", "--json"]).output().unwrap();
    let hits: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["session"], "5b0e9c1d2f3a4b6c8d7e9f0a1b2c3d4e");
}

/// A V1 conversation saved to a folder of its own (not the SDK's `events/`), with an
/// action whose reasoning is only in `thinking_blocks` (Anthropic models): written after
/// the software-agent-sdk event shapes (`kind`, `tool_call_id`, `observation.exit_code`).
#[test]
fn a_saved_v1_folder_is_one_conversation_with_thinking_blocks() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("saved-run");
    std::fs::create_dir(&dir).unwrap();
    let events = [
        serde_json::json!({"id": "e0", "timestamp": "2026-02-18T19:10:19.390505", "source": "user", "kind": "MessageEvent",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": "why does make fail?"}]}}),
        serde_json::json!({"id": "e1", "timestamp": "2026-02-18T19:10:25.100000", "source": "agent", "kind": "ActionEvent",
            "thought": [{"type": "text", "text": "Running make."}],
            "thinking_blocks": [{"type": "thinking", "thinking": "Reproduce the failure first.", "signature": "c2ln"}],
            "action": {"command": "make", "is_input": false, "kind": "TerminalAction"},
            "tool_name": "terminal", "tool_call_id": "toolu_01", "llm_response_id": "r1"}),
        serde_json::json!({"id": "e2", "timestamp": "2026-02-18T19:10:27.400000", "source": "environment", "kind": "ObservationEvent",
            "tool_name": "terminal", "tool_call_id": "toolu_01", "action_id": "e1",
            "observation": {"content": [{"type": "text", "text": "make: *** [all] Error 2"}], "exit_code": 2, "is_error": false, "kind": "TerminalObservation"}}),
    ];
    for (i, e) in events.iter().enumerate() {
        let name = format!("event-{i:05}-{}.json", ["12bead78-a27c", "b19b86a5-1b66", "9a788fe8-1a9d"][i]);
        std::fs::write(dir.join(name), serde_json::to_vec(e).unwrap()).unwrap();
    }
    let out = debrief(&tmp.path().join("ix")).args(["show", "--json"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let msgs: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(msgs.iter().all(|m| m["session"] == "saved-run"));
    assert_eq!(msgs[1]["thinking"], "Reproduce the failure first.");
    let call = &msgs[1]["calls"][0];
    assert_eq!((call["command"].as_str(), call["exit_code"].as_i64()), (Some("make"), Some(2)));
    assert_eq!(call["is_error"], true);
}

/// The real V1 conversation in ../shared/corpus-real-new: 14 event files in a folder
/// named after the test case. Before, each file was a session of its own (results apart
/// from their calls) — or, given the folder, the system prompt event was not recognised.
#[test]
fn the_real_v1_conversation_folder_reads_as_one_session() {
    let Some(dir) = common::real_new("openhands/OpenHands_OpenHands-CLI/cli447_hi_followup_iterative_case_a") else {
        return;
    };
    let first = dir.join("event-00000-12bead78-a27c-4319-a401-d358f4b8de7d.json");
    let s = &parse(&first)[0];
    assert_eq!(s.meta.id, "cli447_hi_followup_iterative_case_a");
    let users = s.messages.iter().filter(|m| m.role == Role::User).count();
    let assistants = s.messages.iter().filter(|m| m.role == Role::Assistant).count();
    assert_eq!((s.messages.len(), users, assistants), (11, 1, 6));
    // 7 MessageEvents with source user or agent; of the 4 from "user", only "hi" is the
    // person's: the critic's 3 follow-ups are the SDK's, injected.
    let followups: Vec<_> = s.messages.iter().filter(|m| m.text.starts_with("The task appears incomplete")).collect();
    assert_eq!(followups.len(), 3);
    assert!(followups.iter().all(|m| (m.role, m.origin) == (Role::System, Origin::Injected)));
    assert_eq!(s.messages.iter().find(|m| m.is_typed_user()).unwrap().text, "hi");
    // 3 actions (file_editor view, terminal `ls -la`, finish), each with its observation.
    assert_eq!(call_counts(s), (3, 1, 0, 0));
    let ls = s.messages.iter().flat_map(|m| &m.calls).find(|c| c.name == "terminal").unwrap();
    assert_eq!(ls.result.as_ref().unwrap().exit_code, Some(0));
    // The actions' reasoning, from `thinking_blocks` and `reasoning_content`.
    assert!(s.messages.iter().filter(|m| !m.calls.is_empty() && !m.thinking.is_empty()).count() >= 2);
    // Named one by one (a shell glob), the files are still one conversation.
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    let tmp = tempfile::tempdir().unwrap();
    let out = debrief(&tmp.path().join("ix")).arg("show").arg("--json").args(&files).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 11);
}
