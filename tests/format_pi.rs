//! The pi coding agent's session files (JSONL, session format v3): the project's own
//! sample (written after the real v3 shape: header, model_change, message entries with
//! user/assistant/toolResult/bashExecution, session_info, compaction) and the real
//! session in ../shared/corpus-real-new.

mod common;

use common::{call_counts, corpus, real_new, uncovered_lines};
use debrief::formats;
use debrief::model::{Origin, Role};

const SAMPLE: &str = "pi/--home-dev-invoices--/2026-03-02T09-14-07-221Z_0195f3a2-7c41-7d2e-9b10-4e6a8c2d1f05.jsonl";

#[test]
fn sample_session_reads_calls_results_and_exit_codes() {
    let parsed = formats::parse_file(&corpus(SAMPLE), None).unwrap();
    assert_eq!(parsed.format.id(), "pi");
    assert!(parsed.bad.is_empty(), "{:?}", parsed.bad.iter().map(|b| &b.reason).collect::<Vec<_>>());
    assert!(parsed.unknown.is_empty(), "{:?}", parsed.unknown);
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "0195f3a2-7c41-7d2e-9b10-4e6a8c2d1f05");
    assert_eq!(s.meta.cwd.as_deref(), Some("/home/dev/invoices"));
    assert_eq!(s.meta.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(s.meta.title.as_deref(), Some("Half-up rounding for invoice totals"));
    let roles: Vec<(Role, Origin)> = s.messages.iter().map(|m| (m.role, m.origin)).collect();
    use Origin::*;
    use Role::*;
    assert_eq!(
        roles,
        vec![
            (User, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (Assistant, Typed),
            (User, Typed),
            (System, CompactSummary),
            (User, Typed),
            (Assistant, Typed),
        ]
    );
    let first = s.message(2).unwrap();
    assert_eq!(first.thinking, "Run the failing test first to see the assertion.");
    let run = &first.calls[0];
    assert_eq!(run.command.as_deref(), Some("python -m pytest tests/test_totals.py -x -q"));
    let r = run.result.as_ref().unwrap();
    assert_eq!((r.exit_code, r.is_error, r.line), (Some(1), true, Some(6)));
    assert_eq!((first.line, first.end_line), (Some(5), Some(6)));
    let rerun = s.message(4).unwrap().calls[0].result.as_ref().unwrap();
    assert_eq!((rerun.exit_code, rerun.is_error), (Some(0), false));
    // The person's own `!git diff --stat`.
    let own = &s.message(6).unwrap().calls[0];
    assert_eq!(own.command.as_deref(), Some("git diff --stat"));
    assert_eq!(own.result.as_ref().unwrap().exit_code, Some(0));
    // A bash call that ran into its timeout.
    let slow = s.message(9).unwrap().calls[0].result.as_ref().unwrap();
    assert!(slow.timed_out && slow.is_error && slow.exit_code.is_none());
    // Every record is a message or a result joined into one, bookkeeping aside.
    let path = corpus(SAMPLE);
    let left = uncovered_lines(&path, &parsed.sessions, |l| {
        ["\"session\"", "\"model_change\"", "\"thinking_level_change\"", "\"session_info\""]
            .iter()
            .any(|k| l.starts_with(&format!("{{\"type\":{k}")))
    });
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_resumed_read_gives_the_same_messages() {
    let path = corpus(SAMPLE);
    let whole = formats::parse_file(&path, None).unwrap();
    let mut input = formats::Input::open(&path, None).unwrap();
    let mut sink = formats::Collect::default();
    formats::by_id("pi").unwrap().parse(&mut input, &mut sink).unwrap();
    let cp = sink.checkpoints.iter().find(|c| c.next_idx == 6).expect("a restart point before msg 6").clone();
    let resume = formats::Resume { checkpoint: cp, session: whole.sessions[0].meta.clone() };
    let mut input = formats::Input::open(&path, Some(resume)).unwrap();
    let mut tail = formats::Collect::default();
    formats::by_id("pi").unwrap().parse(&mut input, &mut tail).unwrap();
    let again: Vec<_> = tail.messages.concat();
    assert_eq!(again, whole.sessions[0].messages[5..].to_vec());
}

#[test]
fn the_real_session_reads_every_call_with_its_result() {
    let Some(path) = real_new("pi_agent/rycerzes_trl/session.jsonl") else { return };
    let parsed = formats::parse_file(&path, None).unwrap();
    assert_eq!(parsed.format.id(), "pi");
    assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{:?} {:?}", parsed.bad.len(), parsed.unknown);
    let s = &parsed.sessions[0];
    assert_eq!(s.meta.id, "019e68d1-e031-7fc4-aae5-4d20a4e36675");
    // 5 user and 76 assistant message records; 78 tool calls, 67 of them bash, every one
    // answered; 10 results are errors (8 "Command exited with code 1", 2 timeouts).
    let users = s.messages.iter().filter(|m| m.role == Role::User).count();
    let assistants = s.messages.iter().filter(|m| m.role == Role::Assistant).count();
    assert_eq!((users, assistants, s.messages.len()), (5, 76, 81));
    assert_eq!(call_counts(s), (78, 67, 10, 0));
    let exit1 = s.messages.iter().flat_map(|m| &m.calls).filter(|c| c.result.as_ref().unwrap().exit_code == Some(1));
    assert_eq!(exit1.count(), 8);
    let timeouts = s.messages.iter().flat_map(|m| &m.calls).filter(|c| c.result.as_ref().unwrap().timed_out);
    assert_eq!(timeouts.count(), 2);
}

/// pi's session format v1 (no `version`, no entry ids; the header names `provider`,
/// `modelId`, `thinkingLevel`): two real sessions of pi's author, kept as test fixtures in
/// f5-sales-demo/xcsh (MIT), rows pi01/pi02 of eval/real/manifest.tsv. They were refused
/// as "not a transcript format debrief knows" until the sniff knew v1's header.
#[test]
fn real_v1_sessions_are_read() {
    let dir = std::env::var_os("DEBRIEF_EVAL_REAL")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| common::root().join("../shared/corpus-real/eval-real"));
    if !dir.is_dir() {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "format_pi: {} not found (scripts/fetch-real-set makes it): the real v1 sessions are skipped",
            dir.display()
        );
        return;
    }
    let fixtures = dir.join("pi_agent/f5-sales-demo_xcsh/packages/coding-agent/test/fixtures");
    // (file, model, typed user turns, assistant messages, calls, bash calls, calls without
    // result). The second file's typed turns are 55 prompts and 3 of the person's own
    // `!command` runs (`bashExecution`, each one bash call). Assistant records: 453 and 484, of which 14 and 13 are empty replies that
    // were aborted (their "Request was aborted" becomes a system message instead).
    for (file, model, users, assistants, calls, bash, open) in [
        ("large-session.jsonl", "claude-sonnet-4-5", 88, 439, 391, 192, 18),
        ("before-compaction.jsonl", "claude-opus-4-5", 58, 471, 457, 209, 6),
    ] {
        let parsed = formats::parse_file(&fixtures.join(file), None).unwrap();
        assert_eq!(parsed.format.id(), "pi", "{file}");
        assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{file}: {:?} {:?}", parsed.bad, parsed.unknown);
        let s = &parsed.sessions[0];
        let typed = s.messages.iter().filter(|m| m.is_typed_user()).count();
        let said = s.messages.iter().filter(|m| m.role == Role::Assistant).count();
        assert_eq!((typed, said), (users, assistants), "{file}");
        let (n, shell, _failed, without) = call_counts(s);
        assert_eq!((n, shell, without), (calls, bash, open), "{file}");
        assert_eq!(s.meta.model.as_deref(), Some(model), "{file}");
        assert_eq!(s.meta.parent_session, None, "{file}: a fork is no subagent");
    }
    // The second was forked from another session (`branchedFrom`, its file's path).
    let forked = formats::parse_file(&fixtures.join("before-compaction.jsonl"), None).unwrap();
    assert_eq!(forked.sessions[0].meta.started_from.as_deref(), Some("d97339c6-6c10-4827-846b-9ff1d9c3dc37"));
}
