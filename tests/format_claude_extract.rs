//! Claude Code sessions exported by `claude-conversation-extractor` (`claude-extract`).
//! The samples are that tool's own output (1.1.2 from PyPI, `--detailed`, markdown and
//! `--format json`, and plain markdown) over a Claude Code session written for the test
//! (`tests/data/claude-extract/source-*.jsonl`), so the export is checked against what
//! the Claude Code reader makes of the session it came from.

mod common;

use common::{call_counts, corpus, root};
use debrief::formats;
use debrief::model::{Message, Origin, Role, Session};

const ID: &str = "4d2f8a61-93be-4c07-b5e1-7a0c9d3e2f18";

fn read(path: &std::path::Path) -> (&'static str, Session) {
    let parsed = formats::parse_file(path, None).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
    assert!(parsed.bad.is_empty() && parsed.unknown.is_empty(), "{:?} {:?}", parsed.bad, parsed.unknown);
    assert_eq!(parsed.sessions.len(), 1);
    (parsed.format.id(), parsed.sessions.into_iter().next().unwrap())
}

fn source() -> Session {
    let (format, s) = read(&root().join(format!("tests/data/claude-extract/source-{ID}.jsonl")));
    assert_eq!(format, "claude-code");
    s
}

fn typed(s: &Session) -> Vec<&str> {
    s.messages.iter().filter(|m| m.is_typed_user()).map(|m| m.text.as_str()).collect()
}

fn calls(s: &Session) -> Vec<(&str, Option<&str>)> {
    s.messages.iter().flat_map(|m| &m.calls).map(|c| (c.name.as_str(), c.command.as_deref())).collect()
}

fn kinds(s: &Session) -> Vec<(Role, Origin, usize)> {
    s.messages.iter().map(|m: &Message| (m.role, m.origin, m.calls.len())).collect()
}

#[test]
fn detailed_markdown_reads_as_its_sections() {
    let (format, s) = read(&corpus(&format!("claude-extract/claude-conversation-2026-02-11-{}.md", &ID[..8])));
    assert_eq!(format, "claude-extract");
    assert_eq!(s.meta.id, ID);
    assert_eq!(s.meta.agent, "Claude Code (claude-conversation-extractor)");
    assert_eq!(s.meta.started.map(|t| t.to_rfc3339()).as_deref(), Some("2026-02-11T09:14:02+00:00"));
    use Origin::*;
    use Role::*;
    assert_eq!(
        kinds(&s),
        vec![
            (System, Injected, 0),
            (User, Typed, 0),
            (Assistant, Typed, 0),
            (Assistant, Typed, 1),
            (Assistant, Typed, 1),
            (Assistant, Typed, 1),
            (User, Interrupt, 0),
            (User, Typed, 0),
            (Assistant, Typed, 1),
            (Assistant, Typed, 0),
        ]
    );
    // The export writes no result: every call is open, none failed.
    assert_eq!(call_counts(&s), (4, 2, 0, 4));
    // A `---` inside a reply is the reply's, not a section's end.
    let m9 = s.message(9).unwrap();
    assert!(m9.text.contains("I'll return the error.\n\n---\n\nThe fix makes"), "{}", m9.text);
    assert_eq!(m9.calls[0].input["command"], "cargo test export");
    // Line numbers: the section's header to its last line.
    let m2 = s.message(2).unwrap();
    assert_eq!((m2.line, m2.end_line), (Some(16), Some(18)));
    // Reading one message back (search snippets) gives the same message.
    let m5 = s.message(5).unwrap();
    let back = formats::read_message(
        &s.meta.source,
        formats::by_id(format).unwrap(),
        m5.offset.unwrap(),
        m5.line.unwrap(),
        m5.end_line.unwrap(),
        5,
        None,
    )
    .unwrap()
    .unwrap();
    assert_eq!((back.text.as_str(), back.calls.len()), (m5.text.as_str(), 1));
}

/// What the export keeps of the session agrees with the Claude Code reader's reading of
/// the session itself: the same typed prompts, the same calls and commands in order.
#[test]
fn exports_agree_with_the_session_they_came_from() {
    let src = source();
    let md = read(&corpus(&format!("claude-extract/claude-conversation-2026-02-11-{}.md", &ID[..8]))).1;
    let json = read(&corpus(&format!("claude-extract/claude-conversation-2026-02-11-{}.json", &ID[..8])));
    assert_eq!(json.0, "claude-extract", "not an OpenAI chat list");
    let json = json.1;
    let plain =
        read(&root().join(format!("tests/data/claude-extract/plain-claude-conversation-2026-02-11-{}.md", &ID[..8]))).1;
    for s in [&md, &json, &plain] {
        assert_eq!(typed(s), typed(&src));
        let interrupts = |s: &Session| s.messages.iter().filter(|m| m.origin == Origin::Interrupt).count();
        assert_eq!(interrupts(s), interrupts(&src));
    }
    assert_eq!(calls(&md), calls(&src));
    assert_eq!(calls(&json), calls(&src));
    assert!(calls(&plain).is_empty(), "plain exports write no calls");
    assert_eq!(kinds(&json), kinds(&md));
    // The JSON export keeps each record's time.
    let times: Vec<String> = json.messages.iter().map(|m| m.timestamp.unwrap().to_rfc3339()).collect();
    assert_eq!(times.first().map(String::as_str), Some("2026-02-11T09:14:02.120+00:00"));
    assert_eq!(times.last().map(String::as_str), Some("2026-02-11T09:15:31+00:00"));
}

/// A file that starts like an export but is broken is said in one line, naming it.
#[test]
fn a_broken_json_export_names_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("claude-conversation-2026-02-11-4d2f8a61.json");
    let text =
        std::fs::read_to_string(corpus(&format!("claude-extract/claude-conversation-2026-02-11-{}.json", &ID[..8])))
            .unwrap();
    std::fs::write(&file, &text[..text.len() / 2]).unwrap();
    let out = common::debrief(&tmp.path().join("ix")).args(["show", file.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    let named = format!("debrief: {}:", file.display());
    let at_line = lines[0].strip_prefix(&named).and_then(|r| r.split(':').next()).and_then(|n| n.parse::<u32>().ok());
    assert!(at_line.is_some_and(|n| n > 1), "{err}");
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[1].ends_with("(format claude-extract), but no message was found in it"), "{err}");
}
