//! The agents added after the first nine: their readers on the project's own samples
//! (`corpus/<format>/`, each written field for field after the agent's own source or
//! docs, named in the sample's test), one snapshot of the normalized session per sample,
//! and the agents that share another agent's file shape named by their own folders.
//! The real samples found for these agents are read by `tests/real_agents.rs`.

mod common;

use std::path::Path;

use common::{call_counts, corpus, resumes_reproduce_the_full_parse, uncovered_lines};
use debrief::formats;
use debrief::model::{Origin, Role, Session};

/// Parse a corpus sample, which must read clean (no bad record, no drift), with the
/// given format; the snapshot of its session is `name`.
fn sample(rel: &str, format: &str, name: &str) -> Session {
    let path = corpus(rel);
    let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
    assert_eq!(parsed.format.id(), format, "{rel}");
    assert!(parsed.bad.is_empty(), "{rel}: {:?}", parsed.bad);
    assert!(parsed.unknown.is_empty(), "{rel}: {:?}", parsed.unknown);
    assert_eq!(parsed.sessions.len(), 1, "{rel}");
    let mut s = parsed.sessions.into_iter().next().unwrap();
    let mut snap = s.clone();
    snap.meta.source = Path::new(rel).file_name().unwrap().into();
    snap.meta.host = None;
    insta::assert_yaml_snapshot!(name, snap);
    s.meta.host = None;
    s
}

fn roles(s: &Session) -> Vec<(Role, Origin)> {
    s.messages.iter().map(|m| (m.role, m.origin)).collect()
}

const QWEN: &str = "qwen-code/-home-dev-shop/chats/7c2f4a10-5b3e-4d8a-9f61-2e0b7d4c9a13.jsonl";

/// Written after Qwen Code's `ChatRecord` (`packages/core/src/services/
/// chatRecordingService.ts`): user / assistant / tool_result / system records with a
/// Gemini `Content` in `message`, `toolCallResult` beside the `functionResponse`, and the
/// shell tool's output as Gemini CLI's `run_shell_command` formats it (which Qwen kept).
#[test]
fn qwen_code_records() {
    let s = sample(QWEN, "qwen-code", "qwen-code");
    assert_eq!(s.meta.agent, "Qwen Code");
    assert_eq!(s.meta.id, "7c2f4a10-5b3e-4d8a-9f61-2e0b7d4c9a13");
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/dev/shop"));
    assert_eq!(s.meta.model.as_deref(), Some("qwen3-coder-plus"));
    assert_eq!(s.meta.title.as_deref(), Some("Round cart totals to cents"));
    assert_eq!(s.meta.agent_version.as_deref(), Some("0.15.6"));
    use Origin::*;
    use Role::*;
    assert_eq!(
        roles(&s),
        vec![
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (System, CompactSummary),
            (System, Injected),
            (User, Typed),
            (Assistant, Typed),
        ]
    );
    let first = s.message(2).unwrap();
    assert_eq!(first.thinking, "Run the tests first to see the failing assertion.");
    let run = &first.calls[0];
    assert_eq!(run.command.as_deref(), Some("npm test -- cart"));
    let r = run.result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error, r.line), (Some(1), true, Some(4)));
    // A failed edit: the tool's error, no exit code.
    let edit = s.message(3).unwrap().calls[0].result.as_ref().unwrap();
    assert!(edit.is_error && edit.exit_code.is_none() && edit.output.starts_with("Failed to edit"));
    // Two calls in one response, results in two records.
    let both = s.message(5).unwrap();
    assert_eq!(both.calls.len(), 2);
    assert_eq!(both.calls[1].result.as_ref().unwrap().exit_code, Some(0));
    assert_eq!((both.line, both.end_line), (Some(9), Some(11)));
    assert!(s.message(10).unwrap().calls[0].result.as_ref().unwrap().interrupted);
    assert_eq!(call_counts(&s), (6, 3, 2, 0));
    // Telemetry and the title are the only records that make no message.
    let left = uncovered_lines(&corpus(QWEN), std::slice::from_ref(&s), |l| {
        l.contains("\"subtype\":\"ui_telemetry\"") || l.contains("\"subtype\":\"custom_title\"")
    });
    assert!(left.is_empty(), "{left:?}");
    assert!(resumes_reproduce_the_full_parse(&corpus(QWEN), formats::by_id("qwen-code").unwrap(), 8) > 2);
}

/// Claude Code's reader does not claim Qwen Code's records (same envelope, Gemini
/// content), and Qwen Code's reader does not claim Claude Code's.
#[test]
fn qwen_and_claude_records_are_told_apart() {
    let qwen = r#"{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-05-05T11:08:38.572Z","type":"user","cwd":"/w","version":"0.15.6","message":{"role":"user","parts":[{"text":"hi"}]}}"#;
    let claude = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s","version":"2.1.9","type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-05-05T11:08:38.572Z"}"#;
    let id = |t: &str| formats::detect(Path::new("s.jsonl"), t.as_bytes()).map(|f| f.id());
    assert_eq!(id(qwen), Some("qwen-code"));
    assert_eq!(id(claude), Some("claude-code"));
}

/// A Qwen Code subagent run (`tests/data/qwen-subagent/`, written after Qwen Code's
/// `agents/agent-transcript.ts`: its own `subagents/<parent-id>/agent-<agentId>.jsonl`
/// with the parent's `sessionId`, beside an `agent-<agentId>.meta.json` naming the
/// spawning call) is its own session linked to the parent's `agent` call, found through
/// the sidecar or, without one, through the call's prompt.
#[test]
fn qwen_code_subagents_are_sessions_linked_to_their_call() {
    let dir = common::root().join("tests/data/qwen-subagent/-home-dev-shop");
    let parent_id = "3b9e1c20-4f7a-4e2d-8c15-6a0d2f9e7b41";
    let read = |path: &Path| {
        let parsed = formats::parse_file(path, None).unwrap();
        assert_eq!(parsed.format.id(), "qwen-code");
        assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{:?} {:?}", parsed.bad, parsed.unknown);
        assert_eq!(parsed.sessions.len(), 1);
        parsed.sessions.into_iter().next().unwrap()
    };
    let main = read(&dir.join(format!("chats/{parent_id}.jsonl")));
    assert_eq!(main.meta.id, parent_id);
    assert_eq!(main.meta.parent_session, None);
    assert!(main.messages.iter().all(|m| !m.sidechain));
    let spawn = &main.messages[1].calls[0];
    assert_eq!((spawn.id.as_str(), spawn.name.as_str()), ("call_agent_1", "agent"));

    let sub_rel = format!("subagents/{parent_id}/agent-explore-7f3c.jsonl");
    let sub = read(&dir.join(&sub_rel));
    assert_eq!(sub.meta.id, "agent-explore-7f3c");
    assert_eq!(sub.meta.parent_session.as_deref(), Some(parent_id));
    assert_eq!(sub.meta.parent_call.as_deref(), Some("call_agent_1"));
    assert!(sub.messages.iter().all(|m| m.sidechain));
    assert_eq!(sub.messages.iter().filter(|m| m.is_typed_user()).count(), 1);
    let grep = &sub.messages[1].calls[0];
    assert_eq!(grep.command.as_deref(), Some("grep -n await test/checkout.test.js"));
    assert_eq!(grep.result.as_ref().unwrap().exit_code, Some(0));
    // The subagent's work is not in the main timeline.
    assert!(main.messages.iter().flat_map(|m| &m.calls).all(|c| c.id != "call_sub_1"));

    // Without the sidecar, the parent's call whose prompt started the subagent.
    let tmp = tempfile::tempdir().unwrap();
    for rel in [format!("chats/{parent_id}.jsonl"), sub_rel.clone()] {
        let to = tmp.path().join(&rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(dir.join(&rel), &to).unwrap();
    }
    let bare = read(&tmp.path().join(&sub_rel));
    assert_eq!(bare.meta.parent_call.as_deref(), Some("call_agent_1"));
    // Without either, the subagent is still its own session of that parent.
    std::fs::remove_file(tmp.path().join(format!("chats/{parent_id}.jsonl"))).unwrap();
    let alone = read(&tmp.path().join(&sub_rel));
    assert_eq!((alone.meta.id.as_str(), alone.meta.parent_call.as_deref()), ("agent-explore-7f3c", None));
    assert_eq!(alone.meta.parent_session.as_deref(), Some(parent_id));
}

const IFLOW: &str = "iflow/-home-dev-retagger/session-3b9e1c42-8d0f-4a6b-b2e5-71f4c0a9d856.jsonl";

/// Written after the shape of a real iFlow CLI session (the one `tests/real_agents.rs`
/// reads): Claude Code's record envelope, `sessionId` = the file name, a reply streamed as
/// a burst of records that each repeat the calls of the one before, Gemini CLI's tool
/// names. The shell output's "Exit Code" lines follow Gemini CLI's `run_shell_command`.
#[test]
fn iflow_bursts_are_one_reply_and_repeated_calls_one_call() {
    let s = sample(IFLOW, "iflow", "iflow");
    assert_eq!(s.meta.agent, "iFlow CLI");
    assert_eq!(s.meta.id, "session-3b9e1c42-8d0f-4a6b-b2e5-71f4c0a9d856");
    assert_eq!(s.meta.parent_session, None);
    assert_eq!(s.meta.model.as_deref(), Some("glm-4.7"));
    use Origin::*;
    use Role::*;
    assert_eq!(
        roles(&s),
        vec![
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed)
        ]
    );
    // Three records, two calls: the windows repeat `call_c1` and `call_c2`.
    let burst = s.message(2).unwrap();
    assert_eq!(burst.calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["call_c1", "call_c2"]);
    assert_eq!((burst.line, burst.end_line), (Some(2), Some(6)));
    let test = burst.calls[0].result.as_ref().unwrap();
    assert_eq!((test.exit_code, test.is_error), (Some(101), true));
    assert!(s.message(3).unwrap().calls[0].result.as_ref().unwrap().is_error);
    assert_eq!(s.message(6).unwrap().calls[0].result.as_ref().unwrap().exit_code, Some(0));
    assert_eq!(call_counts(&s), (5, 2, 2, 0));
    assert!(uncovered_lines(&corpus(IFLOW), std::slice::from_ref(&s), |_| false).is_empty());
    // The same records in Claude Code's files are Claude Code's.
    let claude =
        std::fs::read_to_string(corpus(IFLOW)).unwrap().replace("\"sessionId\":\"session-", "\"sessionId\":\"");
    assert_eq!(formats::detect(Path::new("x.jsonl"), claude.as_bytes()).map(|f| f.id()), Some("claude-code"));
}

/// A file of another agent's shape in the folder of an agent that writes that shape is
/// that agent's: the format says how it is read, the session who wrote it.
#[test]
fn shared_shapes_are_named_by_their_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = |from: &str, to: &str| {
        let dest = tmp.path().join(to);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(corpus(from), &dest).unwrap();
        dest
    };
    let codex = walkdir::WalkDir::new(corpus("codex"))
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with("rollout-"))
        .unwrap()
        .into_path();
    let codex_rel = codex.strip_prefix(corpus("")).unwrap().to_string_lossy().into_owned();
    let checkpoint = walkdir::WalkDir::new(corpus("gemini-checkpoint"))
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_type().is_file())
        .unwrap()
        .into_path();
    let checkpoint_rel = checkpoint.strip_prefix(corpus("")).unwrap().to_string_lossy().into_owned();
    for (from, to, format, agent) in [
        (codex_rel.as_str(), ".trae/cli/sessions/2026/08/01/rollout-x.jsonl", "codex", "TRAE CLI"),
        (codex_rel.as_str(), ".codex/sessions/2026/08/01/rollout-x.jsonl", "codex", "Codex CLI"),
        (checkpoint_rel.as_str(), ".qwen/tmp/9f3e/checkpoint-fix.json", "gemini-checkpoint", "Qwen Code"),
    ] {
        let path = copy(from, to);
        let parsed = formats::parse_file(&path, None).unwrap();
        assert_eq!(parsed.format.id(), format, "{to}");
        assert_eq!(parsed.sessions[0].meta.agent, agent, "{to}");
    }
}

const COPILOT_CLI: &str = "copilot-cli/session-state/5d1e7a3c-2b94-4f0e-8c61-a7d3f2e9b048/events.jsonl";

/// Written after the session events the Copilot SDK publishes (`nodejs/src/generated/
/// session-events.ts` of `github/copilot-sdk`): the envelope, `session.start` with its
/// context, `user.message`, `assistant.reasoning`, `assistant.message` with
/// `toolRequests`, `tool.execution_complete` with `result.contents` (the `terminal` item's
/// `exitCode`) or `error`, `abort`, `session.compaction_complete`. The result texts are
/// illustrative; the `<exited with exit code N>` ending is the one the shell tool's text
/// carries in real sessions.
#[test]
fn copilot_cli_events() {
    let s = sample(COPILOT_CLI, "copilot-cli", "copilot-cli");
    assert_eq!(s.meta.agent, "GitHub Copilot CLI");
    assert_eq!(s.meta.id, "5d1e7a3c-2b94-4f0e-8c61-a7d3f2e9b048");
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/dev/api"));
    assert_eq!(s.meta.git_branch.as_deref(), Some("fix-timeouts"));
    assert_eq!(s.meta.model.as_deref(), Some("gpt-5.4"));
    assert_eq!(s.meta.agent_version.as_deref(), Some("1.0.63"));
    use Origin::*;
    use Role::*;
    assert_eq!(
        roles(&s),
        vec![
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (User, Typed),
            (User, Interrupt),
            (Assistant, Typed),
            (System, CompactSummary),
            (Assistant, Typed),
        ]
    );
    // The person's words, not the harness's `transformedContent`.
    assert_eq!(s.message(1).unwrap().text, "the integration tests time out, find out why");
    let first = s.message(2).unwrap();
    assert_eq!(first.thinking, "Run the integration suite to see which test hangs.");
    let r = first.calls[0].result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error, r.line), (Some(1), true, Some(8)));
    // Reading an async shell continues the call that started it.
    let start = &s.message(3).unwrap().calls[0];
    let read = &s.message(4).unwrap().calls[0];
    assert_eq!(read.continues.as_deref(), Some(start.id.as_str()));
    assert_eq!(read.command, None);
    assert!(s.message(5).unwrap().calls[0].result.as_ref().unwrap().is_error);
    let rerun = s.message(8).unwrap().calls[0].result.as_ref().unwrap();
    assert_eq!((rerun.exit_code, rerun.is_error), (Some(0), false));
    assert_eq!(call_counts(&s), (6, 3, 2, 0));
    // Session start, model change, turn markers, the tool start and shutdown are bookkeeping.
    let left = uncovered_lines(&corpus(COPILOT_CLI), std::slice::from_ref(&s), |l| {
        ["session.start", "session.model_change", "assistant.turn_", "tool.execution_start", "session.shutdown"]
            .iter()
            .any(|k| l.contains(&format!("\"type\":\"{k}")))
    });
    assert!(left.is_empty(), "{left:?}");
}

const COPILOT_CHAT: &str = "copilot-chat/workspaceStorage/7f3a9c21e4b8d05f6a1c2e3d4b5a6978/chatSessions/b6e0c4d2-3a19-4f57-8e21-9c7d5a0b3f64.json";

/// Written after VS Code's `ISerializableChatData` (`src/vs/workbench/contrib/chat/common/
/// chatModel.ts`) and the terminal tool's `toolSpecificData` (`commandLine.original`,
/// `terminalCommandOutput.text`, `terminalCommandState.exitCode`) as real Copilot agent
/// sessions exported by SpecStory show them (`../shared/corpus-real-new/specstory`).
#[test]
fn copilot_chat_requests_and_tool_invocations() {
    let s = sample(COPILOT_CHAT, "copilot-chat", "copilot-chat");
    assert_eq!(s.meta.agent, "VS Code Copilot Chat");
    assert_eq!(s.meta.id, "b6e0c4d2-3a19-4f57-8e21-9c7d5a0b3f64");
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/dev/widget app"));
    assert_eq!(s.meta.title.as_deref(), Some("Fix WidgetTest week range"));
    assert_eq!(s.meta.model.as_deref(), Some("copilot/gpt-5.1-codex"));
    use Origin::*;
    use Role::*;
    assert_eq!(
        roles(&s),
        vec![
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (User, Typed),
            (Assistant, Typed),
            (User, Interrupt)
        ]
    );
    let first = s.message(2).unwrap();
    assert_eq!(first.thinking, "Run the failing test first.");
    let run = &first.calls[0];
    assert_eq!(run.command.as_deref(), Some("./gradlew test --tests WidgetTest"));
    let r = run.result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error), (Some(1), true));
    assert!(r.output.contains("expected:<7> but was:<6>"));
    assert_eq!(first.calls[1].input["filePath"], "/home/dev/widget app/src/Widget.kt");
    // Text after the calls is the model's next round.
    assert_eq!(s.message(3).unwrap().text, "The range drops the last day; it must be `0 until 7`.");
    assert_eq!(s.message(3).unwrap().calls[1].result.as_ref().unwrap().exit_code, Some(0));
    assert!(s.message(6).unwrap().calls[0].result.as_ref().unwrap().interrupted);
    assert_eq!(call_counts(&s), (5, 3, 1, 0));
}

/// The operation log newer VS Code writes (`chatSessions/<id>.jsonl`) reads as the
/// document it rebuilds: the first line is the session, later lines set, push and
/// delete values at key paths.
#[test]
fn copilot_chat_operation_log_is_replayed() {
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(corpus(COPILOT_CHAT)).unwrap()).unwrap();
    let mut first = doc.clone();
    let requests = first["requests"].as_array_mut().unwrap().drain(..).collect::<Vec<_>>();
    first["customTitle"] = "draft".into();
    let ops = [
        serde_json::json!({"kind": 0, "v": first}),
        serde_json::json!({"kind": 2, "k": ["requests"], "v": [requests[0]]}),
        serde_json::json!({"kind": 1, "k": ["customTitle"], "v": "Fix WidgetTest week range"}),
        serde_json::json!({"kind": 2, "k": ["requests"], "v": [requests[1]]}),
        serde_json::json!({"kind": 3, "k": ["requests", 1, "result", "metadata"]}),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("b6e0c4d2-3a19-4f57-8e21-9c7d5a0b3f64.jsonl");
    let text: String = ops.iter().map(|o| format!("{o}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "copilot-chat");
    let from_log = &parsed.sessions[0];
    let from_doc = formats::parse_file(&corpus(COPILOT_CHAT), None).unwrap().sessions.remove(0);
    assert_eq!(from_log.messages, from_doc.messages);
    assert_eq!(from_log.meta.title.as_deref(), Some("Fix WidgetTest week range"));
}

const CURSOR: &str = "cursor/home-dev-shop/agent-transcripts/3f1c9a2e-6b7d-4e58-9a0c-1d2e3f4a5b6c/3f1c9a2e-6b7d-4e58-9a0c-1d2e3f4a5b6c.jsonl";
const CURSOR_SUB: &str = "cursor/home-dev-shop/agent-transcripts/3f1c9a2e-6b7d-4e58-9a0c-1d2e3f4a5b6c/subagents/8e2d4c6a-1f3b-4a5c-9d7e-0b1c2d3e4f5a.jsonl";

/// Written line for line after the sanitized real transcript Confab keeps
/// (`backend/internal/analytics/testdata/cursor/` of `ConfabulousDev/confab-web`, read by
/// `tests/real_agents.rs`): `{role, message: {content}}` rows with `<user_query>`
/// prompts, `tool_use` blocks without ids or results, `turn_ended` markers, and a
/// subagent's transcript in `subagents/`.
#[test]
fn cursor_agent_transcripts() {
    let s = sample(CURSOR, "cursor", "cursor");
    assert_eq!(s.meta.agent, "Cursor");
    assert_eq!(s.meta.id, "3f1c9a2e-6b7d-4e58-9a0c-1d2e3f4a5b6c");
    use Origin::*;
    use Role::*;
    assert_eq!(
        roles(&s),
        vec![
            (System, Injected),
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (User, Interrupt),
            (User, Typed),
            (Assistant, Typed),
            (System, Injected),
        ]
    );
    // The rules around the prompt are the harness's; the prompt is the person's.
    assert!(s.message(1).unwrap().text.starts_with("<rules>"));
    assert_eq!(s.message(2).unwrap().text, "The cart total is off by a cent on some orders. Find out why and fix it.");
    // Cursor's placeholder is not the agent's words.
    assert_eq!(s.message(4).unwrap().text, "Rounding happens per line. Let me check every caller before changing it.");
    let shell = s.message(7).unwrap();
    assert_eq!(shell.text, "");
    assert_eq!(shell.calls[0].command.as_deref(), Some("python -m pytest tests/test_cart.py -q"));
    assert!(shell.calls[0].result.is_none(), "Cursor records no results");
    assert_eq!(s.message(11).unwrap().text, "You've hit your usage limit. Upgrade your plan for more agent usage.");
    let (n, _, _, _) = call_counts(&s);
    assert_eq!(n, 6);
    // Search reads a message back from its line: of the two line 1 gives, the one asked for.
    let f = formats::by_id("cursor").unwrap();
    let back = |role| formats::read_message(&corpus(CURSOR), f, 0, 1, 1, 2, role).unwrap().unwrap();
    assert_eq!(back(Some(Role::User)).text, s.message(2).unwrap().text);
    assert_eq!(back(Some(Role::System)).text, s.message(1).unwrap().text);

    // The subagent is its own session, linked to the Task call that ran it.
    let sub = formats::parse_file(&corpus(CURSOR_SUB), None).unwrap();
    assert_eq!(sub.format.id(), "cursor");
    let sub = &sub.sessions[0];
    assert_eq!(sub.meta.parent_session.as_deref(), Some("3f1c9a2e-6b7d-4e58-9a0c-1d2e3f4a5b6c"));
    let task = s.messages.iter().flat_map(|m| &m.calls).find(|c| c.name == "Task").unwrap();
    assert_eq!(sub.meta.parent_call.as_deref(), Some(task.id.as_str()));
    assert!(sub.messages.iter().all(|m| m.sidechain));
    assert_eq!(sub.messages.iter().filter(|m| m.is_typed_user()).count(), 1);
}

const GOOSE: &str = "goose/sessions/20250513_142208.jsonl";

/// Written after goose's `Message` and `MessageContent` (`crates/goose/src/conversation/
/// message.rs` of `aaif-goose/goose`) as its JSONL session files held them: a metadata
/// line, then messages with `toolRequest`/`toolResponse` items (the response's `value` a
/// bare content list, as those versions wrote it), `thinking`, a summary the person never
/// saw and a notice the model never saw.
#[test]
fn goose_jsonl_sessions() {
    let s = sample(GOOSE, "goose", "goose");
    assert_eq!(s.meta.agent, "Goose");
    assert_eq!(s.meta.id, "20250513_142208");
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/dev/worker"));
    assert_eq!(s.meta.title.as_deref(), Some("Memory leak in the worker"));
    use Origin::*;
    use Role::*;
    assert_eq!(
        roles(&s),
        vec![
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (System, Injected),
            (System, Injected)
        ]
    );
    let first = s.message(2).unwrap();
    assert_eq!(first.thinking, "Check the process first, then the queue consumer.");
    let ps = &first.calls[0];
    assert_eq!(ps.command.as_deref(), Some("ps aux | grep worker"));
    assert!(ps.result.as_ref().unwrap().output.contains("node worker.js"));
    let view = s.message(3).unwrap().calls[0].result.as_ref().unwrap();
    assert!(view.is_error && view.output.starts_with("File not found"));
    let (n, _, errors, open) = call_counts(&s);
    assert_eq!((n, errors, open), (2, 1, 0));
}

/// Goose's session database, made here from `corpus/goose-db/goose/sessions/sessions.sql`
/// with the tables goose creates (`crates/goose/src/session/session_manager.rs`: `sessions`
/// and `messages` with `content_json`/`metadata_json`), two sessions, the second a subagent
/// of the first, linked to the `delegate` call whose result names it (`_meta.subagent_session_id`,
/// as `crates/goose/src/agents/state_machine/ops_subagent.rs` reads it).
#[test]
fn goose_session_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("goose").join("sessions").join("sessions.db");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(&std::fs::read_to_string(corpus("goose-db/goose/sessions/sessions.sql")).unwrap()).unwrap();
    drop(db);
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "goose-db");
    assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{:?} {:?}", parsed.bad, parsed.unknown);
    assert_eq!(parsed.sessions.len(), 2);
    let main = &parsed.sessions[0];
    assert_eq!(main.meta.id, "20260715_1");
    assert_eq!(main.meta.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(main.meta.cwd.as_deref(), Some("/home/dev/app"));
    assert_eq!(main.messages.len(), 3);
    let run = &main.messages[1].calls[0];
    assert_eq!(run.command.as_deref(), Some("cargo test test_x"));
    assert!(run.result.as_ref().unwrap().output.contains("1 failed"));
    let sub = &parsed.sessions[1];
    assert_eq!(sub.meta.parent_session.as_deref(), Some("20260715_1"));
    // The parent's `delegate` call, whose result names the subagent's session.
    assert_eq!(main.messages[2].calls[0].id, "toolu_02");
    assert_eq!(sub.meta.parent_call.as_deref(), Some("toolu_02"));
    assert_eq!(main.meta.parent_call, None);
    assert!(main.messages.iter().all(|m| !m.text.contains("temp dir between threads")));
    assert_eq!(sub.messages.iter().filter(|m| m.is_typed_user()).count(), 1);
    // A database of another program with a `messages` table is not goose's.
    let other = dir.path().join("chat.db");
    let db = rusqlite::Connection::open(&other).unwrap();
    db.execute_batch("CREATE TABLE messages (id INTEGER PRIMARY KEY, body TEXT, created_at TEXT);").unwrap();
    drop(db);
    assert!(formats::detect(&other, &formats::read_head(&other).unwrap()).is_none());
}

const ANTIGRAVITY: &str =
    "antigravity/brain/134d1ba9-b2ee-401e-8db2-5a57448111dd/.system_generated/logs/transcript.jsonl";

/// Steps of a real Antigravity trajectory (the MIT-licensed transcript `tests/real_agents.rs`
/// reads, `anaysharma1717-svg/Adaptive-EGARCH`), 20 of its lines kept with their text cut
/// short, then a `CHECKPOINT` step written after the real ones' shape and a response with
/// its result written out of order, as real files at times have them: prompts in
/// `<USER_REQUEST>`, calls whose results are the next steps, background commands that finish
/// in a later `SYSTEM_MESSAGE`, a tool-call error, a step that failed.
#[test]
fn antigravity_steps() {
    let s = sample(ANTIGRAVITY, "antigravity", "antigravity");
    assert_eq!(s.meta.agent, "Google Antigravity");
    assert_eq!(s.meta.id, "134d1ba9-b2ee-401e-8db2-5a57448111dd");
    assert_eq!(s.meta.model.as_deref(), Some("Claude Sonnet 4.6 (Thinking)"));
    assert_eq!(s.meta.cwd.as_deref(), Some(r"C:\Users\anays\.gemini\antigravity-ide\scratch"));
    use Origin::*;
    use Role::*;
    let mut want = vec![(System, Injected), (User, Typed)];
    want.extend([(Assistant, Typed); 7]);
    want.extend([(System, Injected), (User, Typed), (Assistant, Typed), (System, CompactSummary), (Assistant, Typed)]);
    assert_eq!(roles(&s), want);
    assert!(s.message(2).unwrap().text.starts_with("build a EGARCH (Exponential GARCH)"));
    assert!(s.message(1).unwrap().text.starts_with("<ADDITIONAL_METADATA>"));
    // A command run in the background: its result is the task's, told in a later step.
    let pip = &s.message(5).unwrap().calls[0];
    assert!(pip.command.as_deref().unwrap().starts_with("py.exe -m pip install"));
    let r = pip.result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error, r.running, r.interrupted), (Some(1), true, false, false));
    assert_eq!((s.message(5).unwrap().line, s.message(5).unwrap().end_line), (Some(7), Some(13)));
    // The timer it set was cancelled: settled, interrupted, no exit code.
    let timer = s.message(6).unwrap().calls[0].result.as_ref().unwrap();
    assert!(!timer.running && timer.exit_code.is_none() && timer.output.contains("timer was cancelled"));
    assert!(timer.interrupted && !timer.is_error, "{timer:?}");
    // A failed `pip` (exit 1), a tool-call error, a step in error.
    assert_eq!(s.message(4).unwrap().calls[0].result.as_ref().unwrap().exit_code, Some(1));
    assert!(s.message(8).unwrap().calls[0].result.as_ref().unwrap().is_error);
    assert!(s.message(12).unwrap().calls[0].result.as_ref().unwrap().is_error);
    // The result written above its response still joins it, and the message starts there.
    let last = s.message(14).unwrap();
    assert_eq!((last.line, last.end_line), (Some(22), Some(23)));
    assert_eq!(last.calls[0].result.as_ref().unwrap().exit_code, Some(0));
    assert!(!last.calls[0].result.as_ref().unwrap().output.starts_with("Created At"));
    assert_eq!(call_counts(&s), (8, 5, 4, 0));
    assert!(
        uncovered_lines(&corpus(ANTIGRAVITY), std::slice::from_ref(&s), |l| l.contains("KNOWLEDGE_ARTIFACTS"))
            .is_empty()
    );
    // Search reads a message back from its lines.
    let f = formats::by_id("antigravity").unwrap();
    let m = s.message(5).unwrap();
    let back = formats::read_message(&corpus(ANTIGRAVITY), f, m.offset.unwrap(), 7, 13, 5, None).unwrap().unwrap();
    assert_eq!(back.calls, m.calls);
    // No other reader claims the steps, and this one claims no other agent's lines.
    let head = formats::read_head(&corpus(ANTIGRAVITY)).unwrap();
    let others = formats::all().iter().filter(|o| o.id() != "antigravity");
    assert!(others.into_iter().all(|o| o.sniff(Path::new("transcript.jsonl"), &head) == 0));
    for rel in [QWEN, IFLOW, CURSOR, GOOSE, "gemini-stream/ci-red.jsonl"] {
        assert_eq!(f.sniff(&corpus(rel), &formats::read_head(&corpus(rel)).unwrap()), 0, "{rel}");
    }
}

/// The CLI's `transcript_full.jsonl` steps (after the real one `tests/real_agents.rs` reads,
/// `alexsaab/anarchy-database-client`): "The command exited with code N." and an
/// `exit_code` field give the exit code; a background task's "output has stabilized" note
/// leaves it running, and the later "was canceled" ends it interrupted, without an exit code
/// (while a task that finished is not interrupted).
#[test]
fn antigravity_cli_exit_codes_and_cancelled_tasks() {
    let steps = [
        r#"{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","created_at":"2026-08-04T08:49:05Z","content":"<USER_REQUEST>\npackage it\n</USER_REQUEST>"}"#,
        r#"{"step_index":1,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-08-04T08:49:06Z","tool_calls":[{"name":"run_command","args":{"CommandLine":"\"ls nope\"","Cwd":"\"/w\""}}]}"#,
        r#"{"step_index":2,"source":"MODEL","type":"RUN_COMMAND","status":"DONE","exit_code":2,"created_at":"2026-08-04T08:49:07Z","content":"Created At: x\nCompleted At: y\n\n\t\t\t\tThe command exited with code 2.\n\t\t\t\tOutput:\n\t\t\t\tls: nope: No such file\n"}"#,
        r#"{"step_index":3,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-08-04T08:49:08Z","tool_calls":[{"name":"run_command","args":{"CommandLine":"\"vsce package\"","Cwd":"\"/w\""}}]}"#,
        r#"{"step_index":4,"source":"MODEL","type":"RUN_COMMAND","status":"RUNNING","created_at":"2026-08-04T08:49:09Z","content":"Created At: x\nTool is running as a background task with task id: c1/task-4\nTask Description: vsce package"}"#,
        r#"{"step_index":5,"source":"SYSTEM","type":"SYSTEM_MESSAGE","status":"DONE","created_at":"2026-08-04T08:49:15Z","content":"<SYSTEM_MESSAGE>\n[Message] timestamp=t sender=c1/task-4 priority=MESSAGE_PRIORITY_HIGH content=The command output has stabilized for 5s. The output delta since last check is: Executing prepublish script\n</SYSTEM_MESSAGE>"}"#,
        r#"{"step_index":6,"source":"SYSTEM","type":"SYSTEM_MESSAGE","status":"DONE","created_at":"2026-08-04T08:49:20Z","content":"<SYSTEM_MESSAGE>\n[Message] timestamp=t sender=c1/task-4 priority=MESSAGE_PRIORITY_LOW content=Task id \"c1/task-4\" was canceled with result: Step was canceled: context canceled\n</SYSTEM_MESSAGE>"}"#,
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c1/.system_generated/logs/transcript_full.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, steps.join("\n") + "\n").unwrap();
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "antigravity");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "c1");
    let calls: Vec<_> = s.messages.iter().flat_map(|m| &m.calls).collect();
    let failed = calls[0].result.as_ref().unwrap();
    assert_eq!((failed.exit_code, failed.is_error), (Some(2), true));
    let cancelled = calls[1].result.as_ref().unwrap();
    assert!(!cancelled.running && cancelled.exit_code.is_none() && cancelled.interrupted, "{cancelled:?}");
    assert!(!failed.interrupted);
    assert!(cancelled.output.contains("Step was canceled"), "{cancelled:?}");
    // The note came while the task ran: a system message, not the task's end.
    assert!(s.messages.iter().any(|m| m.role == Role::System && m.text.contains("output has stabilized")));
}
