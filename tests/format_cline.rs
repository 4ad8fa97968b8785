//! Cline task folders: XML tool calls in assistant text, results in user text blocks.

mod common;

use common::{broken, call_counts};
use debrief::formats;
use debrief::model::{Origin, Role};

const TASK: &str = "cline/saoudrizwan.claude-dev/tasks/1733040842117/api_conversation_history.json";

#[test]
fn xml_tool_calls_join_their_text_results() {
    let parsed = formats::parse_file(&broken(TASK), None).unwrap();
    assert_eq!(parsed.format.id(), "cline");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "1733040842117");
    assert_eq!(s.meta.agent, "Cline");
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/lin/webapp"), "from the environment details");
    assert_eq!(s.meta.started.map(|t| t.timestamp_millis()), Some(1733040842117), "from ui_messages.json");
    let kinds: Vec<(Role, Origin)> = s.messages.iter().map(|m| (m.role, m.origin)).collect();
    use Origin::*;
    use Role::*;
    assert_eq!(
        kinds,
        vec![
            (User, Typed),
            (System, Injected),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (User, Typed),
        ]
    );
    assert_eq!(s.message(1).unwrap().text, "The dev server crashes on start, fix it", "<task> unwrapped");
    assert!(s.messages.iter().all(|m| m.line.is_none()));
    // Tool results are not messages; the environment details after each are not either.
    assert_eq!(call_counts(s), (5, 3, 1, 0));
    let m3 = s.message(3).unwrap();
    assert_eq!(m3.thinking, "Start the server to see the error.");
    let dev = &m3.calls[0];
    assert_eq!((dev.name.as_str(), dev.command.as_deref()), ("execute_command", Some("npm run dev")));
    assert_eq!(dev.input["requires_approval"], "false");
    assert!(dev.result.as_ref().unwrap().output.contains("Cannot find module 'dotenv'"));
    // `<read_file>` named in prose is prose; the tag on its own line is the call.
    let m4 = s.message(4).unwrap();
    assert!(m4.text.contains("the <read_file> tool shows it"), "{}", m4.text);
    assert_eq!(m4.calls.len(), 1);
    assert_eq!(m4.calls[0].input["path"], "package.json");
    // A denied call, and the person's feedback as their own turn.
    let denied = s.message(5).unwrap().calls[0].result.as_ref().unwrap();
    assert!(denied.is_error && denied.interrupted);
    assert_eq!(s.message(6).unwrap().text, "use pnpm, the repo has a pnpm lockfile");
    assert_eq!(s.message(9).unwrap().text, "thanks, it works");
    assert_eq!(parsed.bad.len(), 1);
    assert!(parsed.bad[0].reason.contains("unknown role"), "{}", parsed.bad[0].reason);
}

/// Result shapes of other Cline builds, written after Cline's `formatResponse` /
/// `[${block.name} for '…'] Result:` texts: the output on the header's own line, the
/// "Exit Code: N (…)" line of builds that report exit codes, and a `partial: true`
/// streaming placeholder left in the history.
#[test]
fn results_on_the_header_line_and_exit_codes_join_their_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let task = tmp.path().join("saoudrizwan.claude-dev/tasks/1741000000000");
    std::fs::create_dir_all(&task).unwrap();
    let env = "<environment_details>\n# Current Working Directory (/home/dev/api) Files\nsrc/\n</environment_details>";
    let history = serde_json::json!([
        {"role": "user", "content": [{"type": "text", "text": "<task>\nthe health check test fails\n</task>"}, {"type": "text", "text": env}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Running it.\n\n<execute_command>\n<command>npm test -- health</command>\n<requires_approval>false</requires_approval>\n</execute_command>"}]},
        {"role": "user", "content": [
            {"type": "text", "text": "[execute_command for 'npm test -- health'] Result: Command executed.\nOutput:\n1 failing\nExit Code: 1 (Error - command failed)"},
            {"type": "text", "text": env}
        ]},
        {"role": "assistant", "content": [{"type": "text", "text": "<thinking>the route", "partial": true}]},
        {"role": "assistant", "partial": true, "content": [{"type": "text", "text": "Fixing"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<execute_command>\n<command>npm test -- health</command>\n</execute_command>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[execute_command for 'npm test -- health'] Result: Command executed.\nOutput:\n1 passing\nExit Code: 0 (Success)"}, {"type": "text", "text": env}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<attempt_completion>\n<result>\nFixed.\n</result>\n</attempt_completion>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[attempt_completion] Result: The user has provided feedback on the results.\n<feedback>\nalso run lint\n</feedback>"}, {"type": "text", "text": env}]}
    ]);
    let path = task.join("api_conversation_history.json");
    std::fs::write(&path, serde_json::to_vec(&history).unwrap()).unwrap();
    let parsed = formats::parse_file(&path, None).unwrap();
    let s = &parsed.sessions[0];
    let kinds: Vec<(Role, Origin)> = s.messages.iter().map(|m| (m.role, m.origin)).collect();
    use Origin::*;
    use Role::*;
    assert_eq!(
        kinds,
        vec![
            (User, Typed),
            (System, Injected),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (User, Typed)
        ],
        "{:#?}",
        s.messages
    );
    let first = s.message(3).unwrap().calls[0].result.as_ref().expect("the result joined");
    assert_eq!((first.exit_code, first.is_error), (Some(1), true));
    assert!(first.output.starts_with("Command executed.\nOutput:\n1 failing"), "{}", first.output);
    let second = s.message(4).unwrap().calls[0].result.as_ref().unwrap();
    assert_eq!((second.exit_code, second.is_error), (Some(0), false));
    assert_eq!(s.message(6).unwrap().text, "also run lint");
    assert_eq!(call_counts(s), (3, 2, 1, 0));
}
