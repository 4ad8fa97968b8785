//! A format claims a file only when the fields it reads are there: lists of other
//! agents' items that merely look alike (a `role` key, a `history` list) are not read
//! as OpenAI chats, SWE-agent trajectories or Cline histories with empty messages.

mod common;

use std::path::Path;

use common::{corpus, debrief, real_part};
use debrief::formats;

fn claimed(name: &str, text: &str) -> Option<&'static str> {
    formats::detect(Path::new(name), text.as_bytes()).map(|f| f.id())
}

/// An Amp thread's messages as a list of `{role, text}` items (no `content`).
const AMP_ITEMS: &str = r#"[
  {"role": "user", "text": "why does the build fail on CI only?"},
  {"role": "assistant", "text": "CI runs Node 18; `Array.prototype.findLast` needs 20."}
]"#;

/// A Copilot chat history: `{history: [{role: "human" | "assistant", text}]}`.
const COPILOT_HISTORY: &str = r#"{
  "version": 1,
  "history": [
    {"role": "human", "text": "add retries to the fetch wrapper", "timestamp": 1733912345678},
    {"role": "assistant", "text": "Wrapping `fetchJson` in a retry loop with backoff.", "timestamp": 1733912349001}
  ]
}"#;

/// Cline's chat panel log (`ui_messages.json`, Cline 3.x ClineMessage: `{ts, type,
/// say|ask, text, partial?}`), which sits beside `api_conversation_history.json`.
const CLINE_UI: &str = r#"[{"ts":1733912345678,"type":"say","say":"task","text":"add a --dry-run flag"},{"ts":1733912349001,"type":"say","say":"api_req_started","text":"{\"request\":\"<task>\\nadd a --dry-run flag\\n</task>\"}"},{"ts":1733912350100,"type":"say","say":"text","text":"I'll look at the CLI parser first.","partial":false}]"#;

#[test]
fn look_alike_lists_are_not_claimed() {
    assert_eq!(claimed("T-5f2a.json", AMP_ITEMS), None, "Amp {{role, text}} items are not an OpenAI chat");
    assert_eq!(claimed("chat.json", COPILOT_HISTORY), None, "a Copilot history is not a SWE-agent trajectory");
    assert_eq!(claimed("ui_messages.json", CLINE_UI), None, "Cline's ui_messages.json is not a conversation");
    // An OpenAI chat with a `parts` key somewhere later is not a Gemini history: Gemini's
    // first `Content` has the `parts`.
    let chat =
        r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok", "metadata": {"parts": [1]}}]"#;
    assert_eq!(claimed("chat.json", chat), Some("openai-chat"));
    assert_eq!(claimed("chat.json", &format!(r#"{{"history": {AMP_ITEMS}}}"#)), None);
    let gemini = r#"{"authType": "oauth-personal", "history": [{"role": "user", "parts": [{"text": "hi"}]}]}"#;
    assert_eq!(claimed("checkpoint-x.json", gemini), Some("gemini-checkpoint"));
    // Wrapped in `{messages: […]}` the Amp items are still not chat messages.
    assert_eq!(claimed("thread.json", &format!(r#"{{"id": "T-5f2a", "messages": {AMP_ITEMS}}}"#)), None);
}

#[test]
fn the_real_shapes_are_still_claimed() {
    let head = |p: &Path| formats::read_head(p).unwrap();
    let cline = corpus("cline/saoudrizwan.claude-dev/tasks");
    let history = walkdir::WalkDir::new(&cline)
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name() == "api_conversation_history.json")
        .expect("a Cline sample")
        .into_path();
    assert_eq!(formats::detect(&history, &head(&history)).map(|f| f.id()), Some("cline"));
    // Messages whose `role` comes after a long `content`, and a call-only reply.
    let chat = r#"[{"content": "You are a helpful assistant.", "role": "system"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]}]"#;
    assert_eq!(claimed("chat.json", chat), Some("openai-chat"));
    let swe = r#"{"history": [{"role": "system", "content": "SETTING: You are an autonomous programmer", "agent": "primary"}], "info": {}}"#;
    assert_eq!(claimed("run.traj", swe), Some("swe-agent"));
    for (rel, id) in [
        ("openai_chat_messages/SWE-agent_mini-swe-agent/local.traj.json", "openai-chat"),
        ("swe_agent/SWE-agent_SWE-agent/trajectories_demonstrations_function_calling_simple.traj", "swe-agent"),
    ] {
        let Some(p) = real_part(rel, "the real samples") else { break };
        assert_eq!(formats::detect(&p, &head(&p)).map(|f| f.id()), Some(id), "{rel}");
    }
}

/// Shapes debrief does not read yet, each written after what its makers or peers say of
/// it (docs/formats.md, "Not read yet", says where each was searched for and not found):
/// (where the agent keeps it, the file).
const UNREAD: &[(&str, &str)] = &[
    // An Amp thread (`~/.local/share/amp/threads/T-*.json`), as agentsview and
    // cross_agent_session_resumer read them.
    ("amp/threads/T-019b9d03-62e3-772f-9780-3e637f90eaec.json", AMP_THREAD),
    // An early Cursor plain-text transcript (agentsview's `internal/parser/cursor.go`).
    ("cursor/agent-transcripts/3f2a.txt", CURSOR_TXT),
    // Claude Code's `/export` to a file: the welcome box, `> ` prompts, `⏺` replies.
    ("claude-export.txt", CLAUDE_EXPORT),
    // `claude-prompts --full`, as committed in public repositories.
    ("claude-session-4d7c2e10.md", CLAUDE_PROMPTS_FULL),
    // Copilot CLI's older `~/.copilot/history-session-state/<id>.json`.
    ("copilot/history-session-state/5c1e6d0a-1b2c-4d3e-8f90-a1b2c3d4e5f6.json", COPILOT_HISTORY_STATE),
];

const AMP_THREAD: &str = r#"{"v": 12, "id": "T-019b9d03-62e3-772f-9780-3e637f90eaec", "created": 1767865803494, "title": "Fix the flaky test",
 "agentMode": "smart",
 "env": {"initial": {"trees": [{"displayName": "app", "uri": "file:///home/u/app"}], "platform": {"os": "linux", "client": "CLI"}}},
 "messages": [
  {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "why does npm test fail?"}]},
  {"role": "assistant", "messageId": 1, "content": [{"type": "thinking", "thinking": "Run the tests."}, {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"cmd": "npm test"}}], "state": {"type": "complete", "stopReason": "tool_use"}},
  {"role": "user", "messageId": 2, "content": [{"type": "tool_result", "toolUseID": "toolu_01", "run": {"status": "done", "result": {"output": "1 failing", "exitCode": 1}}}]},
  {"role": "assistant", "messageId": 3, "content": [{"type": "text", "text": "One test fails: the clock is not mocked."}], "state": {"type": "complete", "stopReason": "end_turn"}}
 ]}"#;

const CURSOR_TXT: &str = "user:
<user_query>
why does npm test fail?
</user_query>

assistant:
[Thinking] Run the tests first.
[Tool call] Shell
  command: npm test

assistant:
One test fails: the clock is not mocked.
";

const CLAUDE_EXPORT: &str = "╭───────────────────────────────────────────────────╮
│ ✻ Welcome to Claude Code!                         │
│                                                   │
│   /help for help, /status for your current setup  │
│                                                   │
│   cwd: /home/u/app                                │
╰───────────────────────────────────────────────────╯

> why does npm test fail?

⏺ Bash(npm test)
  ⎿  Error: 1 failing

⏺ One test fails: the clock is not mocked.
";

const CLAUDE_PROMPTS_FULL: &str = r#"# Claude Session Export

## Session Information

- **Session ID**: `4d7c2e10-5a6b-4c3d-9e8f-0a1b2c3d4e5f`
- **Export Mode**: Full Conversation
- **Total Messages**: 3 (1 user, 2 assistant)
- **First Message**: 2/20/2026, 10:15:34 AM
- **Last Message**: 2/20/2026, 10:15:51 AM
- **Project Path**: `/home/u/app`

---

## Conversation

### User
> 2/20/2026, 10:15:34 AM

why does npm test fail?

---

### Assistant
> 2/20/2026, 10:15:39 AM

[
  {
    "type": "tool_use",
    "id": "toolu_01",
    "name": "Bash",
    "input": {"command": "npm test"}
  }
]

---

### Assistant
> 2/20/2026, 10:15:51 AM

One test fails: the clock is not mocked.
"#;

const COPILOT_HISTORY_STATE: &str = r#"{
  "sessionId": "5c1e6d0a-1b2c-4d3e-8f90-a1b2c3d4e5f6",
  "startTime": "2025-10-01T09:00:00.000Z",
  "chatMessages": [
    {"role": "user", "content": "why does npm test fail?"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"npm test\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "1 failing"},
    {"role": "assistant", "content": "One test fails: the clock is not mocked."}
  ],
  "timeline": [
    {"id": "t1", "type": "user", "text": "why does npm test fail?", "timestamp": "2025-10-01T09:00:00.000Z"},
    {"id": "t2", "type": "tool_call_completed", "toolTitle": "bash", "callId": "call_1", "result": {"type": "success", "log": "1 failing"}, "timestamp": "2025-10-01T09:00:03.000Z"}
  ]
}"#;

/// A shape debrief does not read fails in one line naming the file, exit 1: never an empty
/// success, never a misread as another agent's format (an Amp thread once read as an
/// OpenAI chat with its calls and results gone).
#[test]
fn unread_shapes_fail_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for (rel, text) in UNREAD {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        files.push(path);
    }
    // Cursor's editor store: `cursorDiskKV` rows `composerData:<id>` and `bubbleId:<id>:<b>`.
    let vscdb = dir.path().join("Cursor/User/globalStorage/state.vscdb");
    std::fs::create_dir_all(vscdb.parent().unwrap()).unwrap();
    let db = rusqlite::Connection::open(&vscdb).unwrap();
    db.execute_batch(
        "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
         CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
         INSERT INTO cursorDiskKV VALUES ('composerData:c1', '{\"composerId\":\"c1\",\"fullConversationHeadersOnly\":[{\"bubbleId\":\"b1\",\"type\":1}]}');
         INSERT INTO cursorDiskKV VALUES ('bubbleId:c1:b1', '{\"type\":1,\"text\":\"why does npm test fail?\"}');",
    )
    .unwrap();
    drop(db);
    files.push(vscdb);
    let index = tempfile::tempdir().unwrap();
    for path in &files {
        let head = formats::read_head(path).unwrap();
        assert_eq!(formats::detect(path, &head).map(|f| f.id()), None, "{} is claimed", path.display());
        let out = debrief(index.path()).arg("show").arg(path).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", path.display());
        assert!(out.stdout.is_empty(), "{}: printed a session", path.display());
        assert_eq!(err.lines().count(), 1, "{}: {err}", path.display());
        assert!(
            err.contains(&path.display().to_string()) && err.contains("not a transcript format debrief knows"),
            "{err}"
        );
    }
}
