//! Roo Code task folders: native tool_use/tool_result blocks, XML calls, condensing.

mod common;

use common::{call_counts, corpus};
use debrief::formats;
use debrief::model::{Origin, Role};

const TASK: &str =
    "roo-code/rooveterinaryinc.roo-cline/tasks/4f1d2c3b-5a6e-4f70-8b91-a2b3c4d5e6f7/api_conversation_history.json";

#[test]
fn native_and_xml_calls_with_exit_codes() {
    let parsed = formats::parse_file(&corpus(TASK), None).unwrap();
    assert_eq!(parsed.format.id(), "roo-code");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.agent, "Roo Code");
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/lin/svc"));
    assert!(s.meta.started.is_some() && s.meta.ended > s.meta.started, "per-message ts");
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
            (System, CompactSummary),
            (System, Injected),
            (Assistant, Typed),
            (Assistant, Typed),
            (Tool, ToolOutput),
        ]
    );
    assert_eq!(call_counts(s), (4, 2, 1, 0));
    let tsc = &s.message(4).unwrap().calls[0];
    let r = tsc.result.as_ref().unwrap();
    assert_eq!((tsc.id.as_str(), tsc.command.as_deref()), ("toolu_01Roo2", Some("npx tsc --noEmit")));
    assert_eq!((r.exit_code, r.is_error), (Some(2), true));
    let again = s.message(8).unwrap().calls[0].result.as_ref().unwrap();
    assert_eq!((again.exit_code, again.is_error), (Some(0), false));
    let diff = &s.message(7).unwrap().calls[0];
    assert_eq!(diff.name, "apply_diff");
    assert!(diff.input["diff"].as_str().unwrap().contains("fetchUser"));
    assert!(diff.result.as_ref().unwrap().output.contains("successfully applied"));
    // A result for a call that is not there is kept as tool output.
    assert_eq!(s.message(9).unwrap().text, "late output");
    assert!(parsed.bad.is_empty(), "{:?}", parsed.bad);
}
