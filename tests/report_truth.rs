//! Write-ups that tell the truth (issue 17): each test renders a small session with the
//! shape of a real one that a report got wrong (`corpus/report-truth/`, written by its
//! `gen.py`), checks the sentence that was wrong and a near miss that must stay, and
//! snapshots the whole report.

mod common;

use debrief::model::Session;
use debrief::report::templates::Templates;
use debrief::report::{self, Selector};

fn session(name: &str) -> Session {
    common::parse(&common::corpus(&format!("report-truth/{name}"))).remove(0)
}

fn render(s: &Session, sel: Selector) -> String {
    let mut t = Templates::embedded();
    t.strict = true;
    let doc = report::render(s, sel, "md", &t, Some(&[])).unwrap_or_else(|e| panic!("{sel:?}: {e:#}"));
    // The source line names this machine's checkout.
    doc.lines().filter(|l| !l.starts_with("<sub>Written by debrief")).collect::<Vec<_>>().join("\n")
}

/// The report, snapshotted under the fixture's name.
fn snap(name: &str, sel: Selector) -> String {
    let doc = render(&session(name), sel);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let tag = match sel {
        Selector::Session => "session".to_string(),
        Selector::Episode(n) => format!("episode-{n}"),
        Selector::Arc(a, z) => format!("arc-{a}-{z}"),
    };
    insta::assert_snapshot!(format!("{stem}.{tag}"), doc.clone());
    doc
}

/// The section of a Markdown report under `heading`, up to the next heading.
fn section<'a>(doc: &'a str, heading: &str) -> Option<&'a str> {
    let start = doc.find(&format!("## {heading}\n"))?;
    let body = &doc[start + heading.len() + 4..];
    Some(body.split("\n## ").next().unwrap_or(body).split("\n---\n").next().unwrap_or(body))
}

#[test]
fn a_persons_turn_is_not_told_as_an_assistant_step() {
    let doc = snap("claude-code-user-correction.jsonl", Selector::Episode(4));
    // The user's correction has no thinking, output or assumptions debrief can read:
    // those sections are left out instead of filled with wording that asserts.
    for absent in [
        "## The thinking process",
        "## What the output reveals",
        "takes nothing for granted",
        "states no reasoning",
        "changes state rather than revealing",
        "No special technology",
    ] {
        assert!(!doc.contains(absent), "{absent:?} in:\n{doc}");
    }
    // What the assistant had said is still there, and what came after.
    assert!(doc.contains("In [msg 3] the assistant wrote “The notes repository does not exist"), "{doc}");
    let followed = section(&doc, "What followed").expect("what followed");
    assert!(followed.contains("[msg 6]") && !followed.contains("session ends here"), "{followed}");
}

#[test]
fn the_session_ends_here_only_where_it_ends() {
    let last = snap("claude-code-user-correction.jsonl", Selector::Episode(6));
    assert!(section(&last, "What followed").is_some_and(|s| s.contains("Nothing: the session ends here.")), "{last}");
    // A text-only answer is not "all action".
    assert!(!last.contains("it is all action"), "{last}");
}

#[test]
fn a_message_that_thinks_is_not_said_to_state_no_reasoning() {
    let doc = snap("claude-code-user-correction.jsonl", Selector::Episode(3));
    assert!(doc.contains("it thought: “It is not in the home folder."), "{doc}");
    assert!(!doc.contains("states no reasoning"), "{doc}");
    // The belief the user corrects two messages later is not "nothing taken for granted".
    assert!(!doc.contains("takes nothing for granted"), "{doc}");
}

#[test]
fn a_call_the_user_stopped_or_refused_is_not_a_failure() {
    let doc = snap("claude-code-user-stops.jsonl", Selector::Session);
    assert!(doc.contains("three shell commands (one failed)"), "{doc}");
    let failed = section(&doc, "Commands that failed most").expect("failures");
    assert!(failed.contains("`gh auth status` failed once"), "{failed}");
    assert!(!failed.contains("`gh auth login`") && !failed.contains("`gh repo clone"), "{failed}");
    // Refused at the permission prompt; the near miss, a real failure, keeps its title.
    let refused = snap("claude-code-user-stops.jsonl", Selector::Episode(5));
    assert!(refused.starts_with("# When the user stopped `gh`"), "{refused}");
    assert!(snap("claude-code-user-stops.jsonl", Selector::Episode(8)).starts_with("# When `gh` failed"));
}

#[test]
fn time_goes_to_what_took_it() {
    let doc = snap("claude-code-batch.jsonl", Selector::Session);
    let time = section(&doc, "Where the time went").expect("time");
    // The 1 min 45 s before the first result went to writing the calls out: the todo
    // list and the file write take no time, the shell command its own 3 s.
    assert!(time.contains("tool calls took 3 s"), "{time}");
    assert!(!time.contains("`TodoWrite`") && !time.contains("`Write`"), "{time}");
    // The question waited on the person.
    assert!(time.contains("Calls waiting on the user") && time.contains("took 3 min 30 s"), "{time}");
    // A file left open for 45 minutes after two minutes of work spans two minutes.
    let gm = snap("gemini-left-open.json", Selector::Session);
    assert!(gm.contains("and 2 min long") && gm.contains("spans 2 min of wall-clock time"), "{gm}");
}

#[test]
fn a_call_written_when_it_ended_is_dated_when_it_started() {
    // Codex 0.4x–0.6x date a call by its output: the relaunch of [msg 4] ran 120 s and
    // was written at 16:02:30; it started at 16:00:29.
    let s = session("codex-written-late.jsonl");
    let t = |i: u32| s.message(i).and_then(|m| m.timestamp).map(|t| t.format("%H:%M:%S").to_string());
    assert_eq!(t(2).as_deref(), Some("16:00:10"));
    assert_eq!(t(4).as_deref(), Some("16:00:29"));
    // The user's turn and the answer keep their own times.
    assert_eq!(t(1).as_deref(), Some("16:00:05"));
    assert_eq!(t(5).as_deref(), Some("16:02:35"));
    let doc = snap("codex-written-late.jsonl", Selector::Session);
    assert!(doc.contains("| 16:00:29 | `npm run dev -- --port 5173` [msg 4]"), "{doc}");
    assert!(doc.contains("`npm run dev -- --port 5173` [msg 4] (2 min)"), "{doc}");
}

#[test]
fn what_failed_is_quoted_as_the_error_and_nothing_else_is() {
    // The assistant's words come before its command, not after "failed —".
    let doc = snap("claude-code-user-correction.jsonl", Selector::Episode(3));
    assert!(
        doc.contains("In [msg 2] the assistant wrote “Let me find the repository first.” and ran `cd ~/notes && git status`; it printed 2 lines and failed."),
        "{doc}"
    );
    // Gemini CLI's "Error: (none)" and its PGID footer are no error and no ending.
    let gm = snap("gemini-left-open.json", Selector::Episode(2));
    assert!(!gm.contains("Error: (none)") && !gm.contains("PGID"), "{gm}");
}

#[test]
fn a_command_line_failing_twice_is_that_line_twice() {
    // `npm run dev` and `npm run dev -- --port 5173` are two command lines: the first
    // failed once, not "npm run dev" twice; the second was still serving when its time
    // limit stopped it (exit code 124), which is no failure.
    let doc = snap("codex-written-late.jsonl", Selector::Session);
    let failed = section(&doc, "Commands that failed most").expect("failures");
    assert!(failed.contains("1. `npm run dev` failed once, at [msg 2]"), "{failed}");
    assert!(!failed.contains("--port 5173"), "{failed}");
    assert!(!failed.contains("two times"), "{failed}");
}

#[test]
fn a_sessions_problems_are_told_as_stories_from_its_evidence() {
    let doc = snap("claude-code-stories.jsonl", Selector::Session);
    let stories = section(&doc, "What went wrong, and what came of it").unwrap_or_else(|| panic!("no stories:\n{doc}"));
    // The build: its error, the assistant's reading, the retry, the user's words, and the
    // same command passing.
    for part in [
        "`cargo build --release` failed [msg 3] with “error[E0425]: cannot find value `cfg` in this scope”",
        "The assistant's reading: “The value `cfg` is used in src/main.rs before it is declared.” [msg 4]",
        "Meanwhile the user wrote: “cfg comes from config.rs, import it” [msg 5]",
        "It failed again at [msg 4] with “error[E0425]: cannot find value `cfg` in this scope”",
        "`cargo build --release` ran again, this time without an error [msg 8], 3 min after the first failure",
    ] {
        assert!(stories.contains(part), "{part:?} not in:\n{stories}");
    }
    // A tool the harness refused says why, without the harness's tags.
    assert!(stories.contains("`Write NOTES.md` failed [msg 10] with “File has not been read yet."), "{stories}");
    // Near misses: a failed `ls` is a question answered, not a problem; a remark about
    // something else is not the failure's reading; `cargo --version` resolves nothing;
    // a shell's greeting is not the error.
    for absent in ["`ls", "Phase 4 completed", "[msg 6]", "Now using node"] {
        assert!(!stories.contains(absent), "{absent:?} in:\n{stories}");
    }
}

#[test]
fn one_root_cause_worded_differently_is_one_story() {
    // rustup refused its temp file under ~/.rustup; `touch` and `chmod` on ~/.rustup were
    // refused the same way: attempts at one problem, not three problems.
    let doc = snap("claude-code-root-cause.jsonl", Selector::Session);
    let stories = section(&doc, "What went wrong, and what came of it").unwrap_or_else(|| panic!("no stories:\n{doc}"));
    assert!(stories.contains("`cargo fmt` failed [msg 4]"), "{stories}");
    assert!(stories.contains("It failed again three times: [msg 5] (`touch"), "{stories}");
    assert!(!stories.contains("`touch /home/[USER]/.rustup/test && rm /home/[USER]/.rustup/test` failed"), "{stories}");
    assert!(!stories.contains("`chmod -R u+rwx /home/[USER]/.rustup` failed"), "{stories}");
    // Near misses: the same reason about another place is another problem, and what the
    // assistant said about the next failure is not said of this one.
    assert!(stories.contains("`git fetch --all --prune` failed [msg 2]"), "{stories}");
    assert!(!stories.contains("The assistant then: “Rustup cannot"), "{stories}");
}

#[test]
fn a_problem_that_changes_hands_over_and_a_clean_exit_with_a_panic_is_told_so() {
    let doc = snap("claude-code-changed.jsonl", Selector::Session);
    let stories = section(&doc, "What went wrong, and what came of it").unwrap_or_else(|| panic!("no stories:\n{doc}"));
    // Killed three times, then not killed but failing on the conftest: two problems.
    assert!(
        stories.contains(
            "At [msg 5] `python3 -m pytest tests/unit` no longer failed that way; how it failed then is told below."
        ),
        "{stories}"
    );
    assert!(stories.contains("`python3 -m pytest tests/unit` failed [msg 5] with “E TypeError"), "{stories}");
    // A panic deep in the registry is quoted with its message, and a run that exited
    // cleanly but still panicked is not "without an error".
    assert!(stories.contains("panicked at …state.rs:51:7: state not managed"), "{stories}");
    assert!(stories.contains("`npm run dev` ran again and did not fail, though its output still holds"), "{stories}");
    assert!(!stories.contains("`npm run dev` ran again, this time without an error"), "{stories}");
    // Near miss: `--version` answered "Unknown option" shows the program runs: no retry,
    // no problem.
    assert!(!stories.contains("Unknown option"), "{stories}");
}

/// A belief section rendered with hand-made findings, so that what it pins is the
/// report's telling, not what a detector finds.
fn belief_section(name: &str, claim: (u32, &str), undone: (u32, &str)) -> String {
    use debrief::detect::{Cited, Details, Finding, Undoing};
    let f = Finding {
        detector: "self-correction".into(),
        key: undone.0,
        evidence: vec![claim.0, undone.0],
        summary: "retracts an earlier claim".into(),
        command: None,
        details: Some(Details::Belief {
            claim: Some(Cited { idx: claim.0, text: claim.1.into() }),
            undone: Some(Undoing { idx: undone.0, how: "retraction".into(), text: undone.1.into() }),
        }),
    };
    let mut t = Templates::embedded();
    t.strict = true;
    let s = session(name);
    let doc = report::render_with(&s, vec![f], Selector::Episode(undone.0), "md", &t, Some(&[])).expect("render");
    section(&doc, "What was believed, and what undid it")
        .unwrap_or_else(|| panic!("no belief section: {doc}"))
        .to_string()
}

#[test]
fn what_a_command_printed_is_not_what_the_assistant_said() {
    let name = "claude-code-beliefs.jsonl";
    // The poll loop printed CRASHED; the assistant's words say nothing of the kind.
    let printed = belief_section(name, (2, "CRASHED"), (3, "It's still loading!"));
    assert!(printed.contains("In [msg 2] the output of a command read “CRASHED”."), "{printed}");
    assert!(printed.contains("The command that printed it: the assistant ran `for i in 1 2 3;"), "{printed}");
    assert!(!printed.contains("the assistant said"), "{printed}");
    // Near miss: a crash the assistant stated in its own words is said.
    let said = belief_section(name, (5, "The server crashed during model loading."), (6, "It's still loading!"));
    assert!(said.contains("In [msg 5] the assistant said “The server crashed during model loading.”"), "{said}");
}

#[test]
fn a_finding_put_as_a_heading_is_what_was_believed() {
    let name = "claude-code-beliefs.jsonl";
    // The detector's pick is the report's field-line header; the heading is what was taken back.
    let header = "**System:** Linux 6.1 **User:** ann (admin)";
    let doc = belief_section(name, (8, header), (10, "You were right - I was wrong about \"no password\"!"));
    assert!(doc.contains("the assistant said “No Password Required for Admin Account”"), "{doc}");
    assert!(!doc.contains("**System:**") && !doc.contains("password manager"), "{doc}");
    // Near miss: a prose sentence saying as much as a heading is told, not the heading.
    let prose = "The firewall is disabled on every interface.";
    let doc = belief_section(name, (12, prose), (14, "I was wrong: the firewall is enabled on every interface."));
    assert!(doc.contains("the assistant said “The firewall is disabled on every interface.”"), "{doc}");
}
