//! A format claims a file only when the fields it reads are there: lists of other
//! agents' items that merely look alike (a `role` key, a `history` list) are not read
//! as OpenAI chats, SWE-agent trajectories or Cline histories with empty messages.

mod common;

use std::path::Path;

use common::{corpus, real_part};
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
