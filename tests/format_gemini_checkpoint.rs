//! Gemini CLI `/chat save` checkpoints: the model's history as Content parts.

mod common;

use common::broken;
use debrief::formats;
use debrief::model::{Origin, Role};

#[test]
fn checkpoint_history_joins_function_responses() {
    let parsed = formats::parse_file(&broken("gemini-checkpoint/checkpoint-queue-drain.json"), None).unwrap();
    assert_eq!(parsed.format.id(), "gemini-checkpoint");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.title.as_deref(), Some("queue-drain"));
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/sam/src/jobs"), "from the context preamble");
    let kinds: Vec<(Role, Origin)> = s.messages.iter().map(|m| (m.role, m.origin)).collect();
    assert_eq!(kinds[0], (Role::System, Origin::Injected));
    assert_eq!(kinds[2], (Role::User, Origin::Typed));
    assert_eq!(s.messages.len(), 7);
    // A call without id is joined by name; one with id by id; responses make no message.
    let npm = &s.message(4).unwrap().calls[0];
    let r = npm.result.as_ref().unwrap();
    assert_eq!((npm.command.as_deref(), r.exit_code, r.is_error), (Some("npm test -- queue"), Some(1), true));
    let m5 = s.message(5).unwrap();
    assert_eq!(m5.thinking, "The drain test fails; reading the queue.");
    assert_eq!(m5.text, "One test fails. Let me read the queue.");
    assert!(m5.calls[0].result.as_ref().unwrap().output.contains("Promise.all"));
    // A response with no call is kept as tool output.
    assert_eq!((s.message(6).unwrap().role, s.message(6).unwrap().origin), (Role::Tool, Origin::ToolOutput));
    assert!(s.messages.iter().all(|m| m.line.is_none()));
    assert_eq!(parsed.bad.len(), 1, "content 9 has no parts: {:?}", parsed.bad);
    assert_eq!(parsed.unknown.get("part/executableCode"), Some(&1));
}

/// The real Gemini CLI history in ../shared/corpus-real-new: a Gemini API `Content[]`
/// array that opens with a `<session_context>` preamble and a `<state_snapshot>`
/// compression summary.
#[test]
fn the_real_content_array_reads_with_its_preamble_and_summary() {
    let Some(path) = common::real_new("gemini_cli/google-gemini_gemini-cli/trajectory.json") else { return };
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "gemini-checkpoint");
    let s = &parsed.sessions[0];
    let first = &s.messages[0];
    assert_eq!((first.role, first.origin), (Role::System, Origin::Injected), "the preamble");
    assert_eq!(s.meta.cwd.as_deref(), Some("/Users/ntaylormullen/GitHub/gemini-cli2"));
    let second = &s.messages[1];
    assert_eq!((second.role, second.origin), (Role::System, Origin::CompactSummary));
    // 6 typed user turns; 45 functionCall parts, each answered; one functionResponse
    // whose call the history no longer holds stays a tool message.
    let typed = s.messages.iter().filter(|m| m.role == Role::User).count();
    assert_eq!(typed, 6);
    let calls: Vec<_> = s.messages.iter().flat_map(|m| &m.calls).collect();
    assert_eq!((calls.len(), calls.iter().filter(|c| c.result.is_none()).count()), (45, 0));
    assert_eq!(s.messages.iter().filter(|m| m.role == Role::Tool).count(), 1);
    let builds = calls.iter().filter(|c| c.command.as_deref().is_some_and(|c| c.contains("npm run build"))).count();
    assert!(builds >= 8, "{builds}");
}
