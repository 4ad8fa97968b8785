//! Aider chat history: counts on every real history file, the record mappings a user
//! would notice (turns, notes, /run and /test calls and their output, empty turns),
//! real line numbers that cover every line, and resuming from checkpoints.

mod common;

use common::{call_counts, corpus, real, real_files, rel, resumes_reproduce_the_full_parse, uncovered_lines};
use debrief::formats::{self, aider::Aider};
use debrief::model::{Origin, Role, Session};

/// (file, sessions, messages, calls, shell commands, failed calls, calls without result)
const REAL: &[(&str, usize, usize, usize, usize, usize, usize)] = &[
    ("aider/Aider-AI_aider/tests_fixtures_chat-history.md", 1134, 5182, 39, 39, 11, 1),
    ("aider/Aider-AI_aider/website_examples_add-test.md", 1, 13, 2, 2, 0, 0),
    ("aider/Aider-AI_aider/website_examples_census.md", 1, 32, 1, 1, 0, 0),
    ("aider/Aider-AI_aider/website_examples_complex-change.md", 1, 36, 0, 0, 0, 0),
    ("aider/Aider-AI_aider/website_examples_no-color.md", 1, 12, 1, 1, 0, 0),
    ("aider/BeehiveInnovations_zen-mcp-server/.aider.chat.history.md", 4, 20, 0, 0, 0, 0),
];

fn totals(sessions: &[Session]) -> (usize, usize, usize, usize, usize) {
    let mut t = (0, 0, 0, 0, 0);
    for s in sessions {
        let (calls, cmds, failed, open) = call_counts(s);
        t = (t.0 + s.messages.len(), t.1 + calls, t.2 + cmds, t.3 + failed, t.4 + open);
    }
    t
}

fn find(sessions: &[Session], line: u32) -> &debrief::model::Message {
    sessions.iter().flat_map(|s| &s.messages).find(|m| m.line == Some(line)).expect("a message starts there")
}

#[test]
fn every_real_aider_history_parses_with_known_counts() {
    let Some(files) = real_files("aider") else { return };
    assert_eq!(files.len(), REAL.len(), "a new real aider file needs a row here: {files:?}");
    for path in files {
        let name = rel(&path);
        let row = REAL.iter().find(|r| r.0 == name).unwrap_or_else(|| panic!("{name} has no row"));
        let parsed = formats::parse_file(&path, None).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert_eq!(parsed.format.id(), "aider", "{name}");
        assert!(parsed.bad.is_empty(), "{name}: {:?}", parsed.bad);
        assert!(parsed.unknown.is_empty(), "{name}: {:?}", parsed.unknown);
        assert_eq!(parsed.sessions.len(), row.1, "{name}: sessions");
        assert_eq!(totals(&parsed.sessions), (row.2, row.3, row.4, row.5, row.6), "{name}: messages/calls");
        for s in &parsed.sessions {
            for (i, m) in s.messages.iter().enumerate() {
                assert_eq!(m.idx as usize, i + 1, "{name} {}", s.meta.id);
            }
        }
        // Nothing is dropped: every line but the session headers belongs to a message.
        let lost = uncovered_lines(&path, &parsed.sessions, |l| l.starts_with("# aider chat started at "));
        assert!(lost.is_empty(), "{name}: lines in no message: {:?}", &lost[..lost.len().min(5)]);
    }
}

#[test]
fn fixture_sessions_turns_and_notes() {
    let Some(path) = real("aider/Aider-AI_aider/tests_fixtures_chat-history.md") else { return };
    let parsed = formats::parse_file(&path, None).unwrap();
    let s = &parsed.sessions;
    // The file starts mid-session: that tail is a session of its own, named after the file.
    assert_eq!(s[0].meta.id, "tests_fixtures_chat-history");
    assert_eq!(s[0].meta.started, None);
    // `# aider chat started at 2024-08-05 19:33:02`, with aider's start-up notes.
    assert_eq!(s[1].meta.id, "2024-08-05T19:33:02");
    assert_eq!(s[1].meta.started.map(|t| t.to_rfc3339()).as_deref(), Some("2024-08-05T19:33:02+00:00"));
    assert_eq!(s[1].meta.agent_version.as_deref(), Some("0.47.2-dev"));
    assert_eq!(s[1].meta.model.as_deref(), Some("claude-3-5-sonnet-20240620"));
    let notes = &s[1].messages[0];
    assert_eq!(
        (notes.role, notes.origin, notes.line, notes.end_line),
        (Role::System, Origin::Injected, Some(96), Some(101))
    );
    assert!(
        notes.text.starts_with("/Users/gauthier/Projects/aider/.venv/bin/aider --lint --commit\nAider v0.47.2-dev")
    );
    // A person's turn, and the reply after it.
    let ask = find(s, 113);
    assert_eq!(
        (ask.role, ask.origin, ask.text.as_str()),
        (Role::User, Origin::Typed, "Use the Spinner instead of the inlined custom spinner")
    );
    let reply = find(s, 115);
    assert_eq!((reply.role, reply.end_line), (Role::Assistant, Some(207)));
    assert!(
        reply.text.contains("<<<<<<< SEARCH")
            && reply.text.ends_with("consistent spinner behavior across the application.")
    );
    // The lint reflection aider submitted itself is not the person's turn.
    let lint = find(s, 48);
    assert_eq!((lint.role, lint.origin), (Role::System, Origin::Injected));
    assert!(lint.text.starts_with("# Fix any errors below, if possible."));
    // `#### <blank>`: empty turns the person sent.
    let empty: Vec<u32> = s
        .iter()
        .flat_map(|s| &s.messages)
        .filter(|m| m.is_typed_user() && m.text.is_empty())
        .filter_map(|m| m.line)
        .collect();
    assert_eq!(empty.len(), 11, "{empty:?}");
    let help = find(s, 34005);
    assert_eq!((help.role, help.origin), (Role::System, Origin::Injected), "the help coder's # Question:");
}

#[test]
fn fixture_run_and_test_calls_carry_their_output() {
    let Some(path) = real("aider/Aider-AI_aider/tests_fixtures_chat-history.md") else { return };
    let parsed = formats::parse_file(&path, None).unwrap();
    let s = &parsed.sessions;
    // /test whose multi-line output has `> ` on its first line only, then the copy aider
    // logs line by line when it adds a failing test's output to the chat.
    let t = find(s, 2144);
    assert_eq!((t.role, t.origin, t.end_line), (Role::User, Origin::Typed, Some(2187)));
    let call = &t.calls[0];
    assert_eq!((call.name.as_str(), call.command.as_deref()), ("test", Some("pytest tests/basic/test_repomap.py")));
    let r = call.result.as_ref().unwrap();
    assert!(r.is_error, "/test output is added to the chat because the tests failed");
    assert_eq!(r.exit_code, None, "aider logs no exit code");
    assert_eq!(r.output.lines().count(), 43);
    assert!(r.output.starts_with("============================= test session starts =============================="));
    assert!(
        r.output.contains(">           repo = GitRepo(io, None, temp_dir, subtree_only=True)\nE           NameError")
    );
    assert!(r.output.ends_with("========================= 1 failed, 6 passed in 3.28s =========================="));
    let copy = find(s, 2188);
    assert_eq!((copy.role, copy.end_line), (Role::System, Some(2230)));
    // A /run whose 468-line output holds blank and whitespace-only lines.
    let pip = find(s, 17746).calls[0].result.as_ref().unwrap();
    assert_eq!(pip.output.lines().count(), 468);
    assert!(pip.output.contains("aiohttp==3.10.2\n    # via litellm"));
    assert!(!pip.is_error, "/run output is added by choice, not because it failed");
    let asked = find(s, 18215);
    assert_eq!(asked.text.lines().take(2).collect::<Vec<_>>(), ["Add the output to the chat?", "(y/n/instructions) y"]);
    // The same /run three times in a row: what a retry-loop detector looks at.
    let loop_cmd = "pytest tests/basic/test_main.py -s -k test_yaml_config_file_loading";
    for line in [66834, 66986, 67123] {
        assert_eq!(find(s, line).calls[0].command.as_deref(), Some(loop_cmd));
    }
    // `!ls` is /run; `/run aider …` started a nested aider whose output went to a new session.
    assert_eq!(find(s, 9576).calls[0].command.as_deref(), Some("ls"));
    assert!(find(s, 10218).calls[0].result.is_none());
    // A /run inside a pasted document is text, not a command.
    assert!(s.iter().flat_map(|s| &s.messages).all(|m| m.line != Some(34243)));
}

#[test]
fn zen_history_sessions() {
    let Some(path) = real("aider/BeehiveInnovations_zen-mcp-server/.aider.chat.history.md") else { return };
    let parsed = formats::parse_file(&path, None).unwrap();
    let ids: Vec<&str> = parsed.sessions.iter().map(|s| s.meta.id.as_str()).collect();
    assert_eq!(ids, ["2025-10-20T21:49:17", "2025-10-20T21:49:22", "2025-10-22T09:29:12", "2025-10-23T17:04:56"]);
    let last = &parsed.sessions[3];
    assert_eq!(last.meta.agent_version.as_deref(), Some("0.86.1"));
    assert_eq!(last.meta.model.as_deref(), Some("gemini/gemini-2.5-pro-preview-06-05"));
    // The history file lives in the project root.
    assert_eq!(last.meta.project.as_deref(), Some("BeehiveInnovations_zen-mcp-server"));
    let add = &last.messages[1];
    assert_eq!((add.role, add.line, add.end_line), (Role::User, Some(54), Some(61)));
    assert!(add.text.starts_with("/add /home/dragonfsky/git/github/zen-mcp-server/utils/file_utils.py\n  /home/"));
}

#[test]
fn sample_history_every_shape_of_run_output() {
    let path = corpus("aider/.aider.chat.history.md");
    let parsed = formats::parse_file(&path, None).unwrap();
    assert!(parsed.bad.is_empty());
    let s = &parsed.sessions;
    let ids: Vec<&str> = s.iter().map(|s| s.meta.id.as_str()).collect();
    assert_eq!(ids, ["2024-08-12T10:02:11", "2024-10-03T16:45:50", "2025-06-30T09:14:03", "2025-06-30T09:14:03#2"]);
    assert_eq!(s[0].meta.project.as_deref(), Some("aider"), "the folder holding the history");
    assert_eq!(s[1].meta.model.as_deref(), Some("claude-3-5-sonnet-20241022"));

    // Aider 0.49: raw output, then the question, then the line-by-line copy.
    let kinds: Vec<(Role, Origin, usize)> = s[0].messages.iter().map(|m| (m.role, m.origin, m.calls.len())).collect();
    use Origin::*;
    use Role::*;
    assert_eq!(
        kinds,
        [
            (System, Injected, 0), // start-up notes
            (User, Typed, 0),      // /add
            (System, Injected, 0), // "Added … to the chat"
            (User, Typed, 0),      // the request
            (Assistant, Typed, 0), // the reply, with a `####` heading and a `>` quote in it
            (System, Injected, 0), // tokens, applied edit, commit
            (User, Typed, 1),      // /run
            (System, Injected, 0), // the question and aider's copy of the output
            (Assistant, Typed, 0), //
            (System, Injected, 0), //
            (User, Typed, 1),      // /run again
            (System, Injected, 0), // question, answered no
            (User, Typed, 1),      // /test
            (System, Injected, 0), // the copy: the test failed
            (User, Typed, 0),      // `#### <blank>`
            (User, Typed, 0),      // an empty turn as older aider wrote it
            (User, Typed, 1),      // !ls
            (System, Injected, 0), // question, ^C
        ]
    );
    let reply = &s[0].messages[4];
    assert!(reply.text.contains("#### Fix\n") && reply.text.ends_with("which is what the test expects."));
    let run = s[0].messages[6].calls[0].result.as_ref().unwrap();
    assert!(
        run.output.contains("    \n>       assert s.restock(needed=13) == 24"),
        "whitespace-only lines stay in the output"
    );
    assert!(run.output.ends_with("1 failed, 5 passed in 0.12s =========================="));
    assert!(!run.is_error);
    assert!(s[0].messages[12].calls[0].result.as_ref().unwrap().is_error, "/test added to the chat: it failed");
    assert_eq!(s[0].messages[14].text, "");
    assert_eq!(s[0].messages[15].text, "");
    assert_eq!(s[0].messages[16].calls[0].result.as_ref().unwrap().output, "__init__.py\nstock.py\nsuppliers.py");

    // Aider 0.60: the output was logged after "Add the output to the chat?" was answered.
    let m = s[1].messages.iter().find(|m| !m.calls.is_empty()).unwrap();
    let r = m.calls[0].result.as_ref().unwrap();
    assert_eq!(r.output, "Would order 24 x WIDGET-12 from acme\nWould order 6 x BOLT-M4 from boltco");
    assert_eq!((m.line, m.end_line), (Some(233), Some(237)));
    let lint = &s[1].messages[4];
    assert_eq!((lint.role, lint.origin), (System, Injected));

    // Aider 0.86 logs no output: /run has no result, /test a failed one.
    let run = &s[2].messages[1].calls[0];
    assert_eq!((run.command.as_deref(), run.result.is_none()), (Some("make test"), true));
    let test = s[2].messages[3].calls[0].result.as_ref().unwrap();
    assert!(test.is_error && test.output.is_empty());

    let lost = uncovered_lines(&path, s, |l| l.starts_with("# aider chat started at "));
    assert!(lost.is_empty(), "{lost:?}");
}

#[test]
fn resuming_at_a_checkpoint_reproduces_the_rest() {
    let n = resumes_reproduce_the_full_parse(&corpus("aider/.aider.chat.history.md"), &Aider, 100);
    assert!(n > 20, "{n} checkpoints");
    let Some(path) = real("aider/Aider-AI_aider/tests_fixtures_chat-history.md") else { return };
    let n = resumes_reproduce_the_full_parse(&path, &Aider, 25);
    assert!(n >= 20, "{n} checkpoints");
}

#[test]
fn sniffing_tells_aider_from_other_markdown() {
    let head = |p: &std::path::Path| formats::read_head(p).unwrap();
    let aider = corpus("aider/.aider.chat.history.md");
    assert_eq!(formats::detect(&aider, &head(&aider)).map(|f| f.id()), Some("aider"));
    let readme = common::root().join("README.md");
    assert!(formats::detect(&readme, &head(&readme)).is_none());
    let design = common::root().join("docs/design.md");
    assert!(formats::detect(&design, &head(&design)).is_none());
}

/// Architect mode and confirmations, written after aider's `io.py`/`architect_coder.py`:
/// `user_input` logs each line as `#### line` with a two-space break; the architect's
/// reply is logged again that way when it is handed to the editor model; a confirmation
/// that a group's earlier "all" answers is logged as a turn (`#### question…: all`); a
/// Markdown heading in a reply has no line break.
#[test]
fn architect_echoes_headings_and_confirmations_are_not_requests() {
    let history = [
        "",
        "# aider chat started at 2026-02-10 14:02:11",
        "",
        "> Aider v0.86.1  ",
        "> Main model: o3 with architect edit format  ",
        "",
        "#### make the retry delay configurable  ",
        "",
        "#### 1. Design choices",
        "",
        "Read the delay from `RETRY_DELAY`, default 2 seconds.",
        "",
        "#### 2. Changes",
        "",
        "- `client.py`: use the setting in `fetch`.",
        "",
        "> Edit the files? (Y)es/(N)o [Yes]: y  ",
        "",
        "#### #### 1. Design choices  ",
        "####   ",
        "#### Read the delay from `RETRY_DELAY`, default 2 seconds.  ",
        "####   ",
        "#### #### 2. Changes  ",
        "####   ",
        "#### - `client.py`: use the setting in `fetch`.  ",
        "",
        "client.py",
        "```python",
        "DELAY = float(os.environ.get(\"RETRY_DELAY\", \"2\"))",
        "```",
        "",
        "#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all  ",
        "",
        "> Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: a  ",
        "",
        "#### thanks, now add a test  ",
        "",
    ]
    .join("\n");
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(".aider.chat.history.md");
    std::fs::write(&path, history).unwrap();
    let parsed = formats::parse_file(&path, None).unwrap();
    let s = &parsed.sessions[0];
    let seen: Vec<(Role, Origin, Option<u32>)> = s.messages.iter().map(|m| (m.role, m.origin, m.line)).collect();
    use Origin::*;
    use Role::*;
    assert_eq!(
        seen,
        vec![
            (System, Injected, Some(4)),
            (User, Typed, Some(7)),
            (Assistant, Typed, Some(9)),
            (System, Injected, Some(17)),
            (System, Injected, Some(19)),
            (Assistant, Typed, Some(27)),
            (System, Injected, Some(32)),
            (System, Injected, Some(34)),
            (User, Typed, Some(36)),
        ],
        "{:#?}",
        s.messages
    );
    assert!(s.message(3).unwrap().text.starts_with("#### 1. Design choices\n\nRead the delay"));
    assert!(s.message(3).unwrap().text.contains("#### 2. Changes"), "the reply's headings stay in it");
    let typed: Vec<&str> = s.messages.iter().filter(|m| m.role == User).map(|m| m.text.as_str()).collect();
    assert_eq!(typed, ["make the retry delay configurable", "thanks, now add a test"]);
}

/// The real history in ../shared/corpus-real-new (aider 0.86, 34 sessions, the same
/// prompt re-sent while the model backend kept failing): every `#### ` line is a typed
/// turn, and no line is lost.
#[test]
fn the_real_opencoder_history_reads_every_turn() {
    let Some(path) = common::real_new("aider/Asphyksia_OpenCoder/.aider.chat.history.md") else { return };
    let parsed = formats::parse_file(&path, None).unwrap();
    assert!(parsed.bad.is_empty() && parsed.unknown.is_empty());
    assert_eq!(parsed.sessions.len(), 34);
    let typed = parsed.sessions.iter().flat_map(|s| &s.messages).filter(|m| m.role == Role::User).count();
    assert_eq!(typed, 32);
    let same = parsed
        .sessions
        .iter()
        .flat_map(|s| &s.messages)
        .filter(|m| m.role == Role::User && m.text == "Crea una función hello world en un archivo nuevo")
        .count();
    assert_eq!(same, 11);
    let lost = uncovered_lines(&path, &parsed.sessions, |l| l.starts_with("# aider chat started at "));
    assert!(lost.is_empty(), "{:?}", &lost[..lost.len().min(5)]);
}
