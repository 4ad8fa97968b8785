//! OpenCode's JSON storage folder: a session file read together with its message and
//! part files.

mod common;

use common::{broken, call_counts, corpus, debrief, parse};
use debrief::formats;
use debrief::model::{Origin, Role};

const SESSIONS: &str = "opencode/storage/session/4b0ea68d7af9a6031a7ffda7ad66e0cb83315750";

#[test]
fn storage_session_reads_its_messages_and_parts() {
    let path = broken(&format!("{SESSIONS}/ses_6a1f0c2e8ffeQk3TzR9wLm2Xv5.json"));
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "opencode");
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "ses_6a1f0c2e8ffeQk3TzR9wLm2Xv5");
    assert_eq!(s.meta.title.as_deref(), Some("Fix nested list export"));
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/jo/src/notes"));
    assert_eq!(s.meta.user.as_deref(), Some("jo"));
    assert_eq!(s.meta.agent_version.as_deref(), Some("1.0.134"));
    assert_eq!(s.meta.model.as_deref(), Some("claude-sonnet-4-5"));
    let kinds: Vec<(Role, Origin)> = s.messages.iter().map(|m| (m.role, m.origin)).collect();
    use Origin::*;
    use Role::*;
    assert_eq!(
        kinds,
        vec![
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (User, Typed),
            (System, Injected),
            (System, Injected),
            (System, CompactSummary)
        ]
    );
    assert!(s.messages.iter().all(|m| m.line.is_none()));
    // bash, task, edit (failed), edit, bash: all with results inline.
    assert_eq!(call_counts(s), (5, 2, 2, 0));
    let m2 = s.message(2).unwrap();
    assert_eq!(m2.thinking, "Reproduce with the export test first.");
    let bash = &m2.calls[0];
    let r = bash.result.as_ref().unwrap();
    assert_eq!((bash.id.as_str(), bash.command.as_deref()), ("toolu_01Bash1", Some("bun test export")));
    assert_eq!((r.exit_code, r.is_error), (Some(1), true));
    let rerun = s.message(3).unwrap().calls[3].result.as_ref().unwrap();
    assert_eq!((rerun.exit_code, rerun.is_error), (Some(0), false));
    let missing = s.message(3).unwrap().calls[1].result.as_ref().unwrap();
    assert!(missing.is_error && missing.output.contains("not found"));
    // Typed text with a file; the synthetic Read note is not the person's words.
    let m4 = s.message(4).unwrap();
    assert!(m4.text.contains("[file: ordered.png]") && m4.text.contains("Called the Read tool"));
    assert_eq!(s.message(5).unwrap().text, "[MessageAbortedError] The operation was aborted.");
    // One unreadable message file is reported by name; an unknown part type is counted.
    assert_eq!(parsed.bad.len(), 1);
    assert!(parsed.bad[0].reason.contains("msg_a1f0c2ee0006xx.json"), "{}", parsed.bad[0].reason);
    assert_eq!(parsed.unknown.get("part/hologram"), Some(&1));
}

#[test]
fn child_sessions_link_to_the_task_call() {
    let s = &parse(&corpus(&format!("{SESSIONS}/ses_6a1f0c41affeHn8YpD4sKc7Ub1.json")))[0];
    assert_eq!(s.meta.parent_session.as_deref(), Some("ses_6a1f0c2e8ffeQk3TzR9wLm2Xv5"));
    assert_eq!(s.meta.parent_call.as_deref(), Some("toolu_01Task1"));
    assert_eq!(s.messages.len(), 2);
}

#[test]
fn the_walker_hands_out_session_files_only() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix");
    let out = debrief(&ix).args(["index"]).arg(corpus("opencode")).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Two sessions, 9 messages; message and part files are not sniffed on their own.
    let sessions = debrief(&ix).args(["sessions", "--json"]).output().unwrap();
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&sessions.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(!stderr.contains("no known format"), "{stderr}");
}
