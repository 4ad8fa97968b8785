//! `retry-loop`: the same failing command run again and again with nothing changed.
//!
//! How it reads a session:
//! - Every shell call is reduced to a normalized form with the shell parser: programs
//!   (without `.exe`, through `bash -c`, `cmd /c`, `powershell -Command`), arguments, env
//!   prefixes and the heredocs fed to them, without redirections, `sleep`s, trivial flags
//!   (`-v`, `--color=…`) and output-trimming pipeline tails (`| tail -20`, `| head`).
//!   `cargo test 2>&1 | tail -30` and `cargo test  | tail -50` are the same command.
//!   Another tool's call that failed is known by its name and exact input (a `Write` of
//!   the same content); a result whose call the transcript lost, by its words.
//! - Commands that only look (reading, searching, probing endpoints and processes,
//!   `git status`…) are left out: asking again whether something changed is polling,
//!   not retrying (see `polling-timeout`). A look the harness refused ("This command
//!   requires approval", "Command rejected") never ran: it counts like any other run.
//! - A failed run (non-zero exit code, or an error result) starts a chain. A later run of
//!   the same command extends it when it fails the same way (same exit code and the same
//!   last error line once times, durations and addresses are masked), follows within
//!   [`MAX_GAP`] messages, and nothing happened in between but looking or refused calls:
//!   no edit, no other command that may change state, no words from the person (see
//!   [`end_chains`] for the calls of the run's own batch and chains of refused runs). A
//!   run piped into a trimmer that exits 0 failed when its output says so.
//! - A chain of [`MIN_RUNS`] or more runs is a finding, keyed on the first run, with
//!   every run as evidence. A look that ran after that ends it: retrying after
//!   stopping to look is a new episode.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::{Details, Detector, Finding, LOOKAHEAD, SessionView, Telling};
use crate::analysis::calls::{edits, failed, is_edit_tool, only_looks, output_says_it_failed};
use crate::analysis::text::quote;
use crate::model::{Call, CallResult, Message, Origin, Role};
use crate::shell::{self, SimpleCommand};

pub struct RetryLoop;

/// Runs that make a loop.
pub const MIN_RUNS: usize = 3;
/// At most this many messages between two runs of one loop.
pub const MAX_GAP: usize = 12;

const DOC: &str = r###"## What it finds

The same command run three or more times within a few messages, failing the same way
each time, with nothing changed in between: no file edited, no other command that
could change state, no new setting, no word from the person. Commands are compared
after normalising whitespace, redirections, `sleep`s, trivial flags (`-v`, `--color`),
output-trimming tails (`| tail -20`), `.exe` and the Windows shells that hand a command
on (`cmd /c "…"`, `powershell -Command "…"`); outcomes by exit code and the last error
line with times, durations and addresses masked.

It also finds a command the harness refuses each time ("This command requires
approval", "Command rejected because it could not be parsed safely") — a refused
command never ran, so even a `git status` sent again is a retry, and refused commands
in between change nothing, nor does any other command that edits no file — and another
tool's call sent again unchanged after it failed (the same `Write`, denied each time).

A run piped into an output trimmer (`brew install bfg 2>&1 | tail -10`) exits with the
trimmer's 0: it failed when its output says so. A call sent in the same message after a
failed run (a batch, sent before any result was seen) is no response to that failure and
does not end its chain, unless it edits a file.

## Why it matters

Running an unchanged command again rarely changes its result. A retry loop is time
spent hoping; it usually ends when the agent finally reads the error, so the first
run is where the write-up should point.

## Example

```text
[msg 40] $ cargo build --release 2>&1 | tail -20     → error[E0432]: unresolved import `crate::cfg`
[msg 42] $ cargo build --release 2>&1 | tail -30     → error[E0432]: unresolved import `crate::cfg`
[msg 44] $ cargo build --release                     → error[E0432]: unresolved import `crate::cfg`
```

`[msg 40]` is the finding; 42 and 44 are its evidence.

## Not an instance

- A fix-and-rerun cycle: an edit (or `pip install`, `git stash`, a changed env var)
  between the runs.
- The same command failing differently each time (the agent is making progress).
- Polling: `curl localhost:8000/health`, `tail log`, `grep ready log` repeated while a
  server starts (see `polling-timeout`).
- Two failures, or three spread far apart.
- Different commands refused one after another (`git status`, `dir`, `whoami`), or
  the same tool call with a different input each time (a new patch is a new attempt).
"###;

impl Detector for RetryLoop {
    fn id(&self) -> &'static str {
        "retry-loop"
    }

    fn summary(&self) -> &'static str {
        "The same command run 3+ times in a short span, failing the same way, with nothing changed in between"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        let mut open: HashMap<String, Chain> = HashMap::new();
        let mut done: Vec<Chain> = Vec::new();
        for (pos, m) in view.messages.iter().enumerate() {
            let words_from_the_person = m.is_typed_user() && m.calls.is_empty() && !m.text.trim().is_empty();
            if words_from_the_person || edits_in_text(m) {
                // The person said something (whatever they did or asked, the next run is
                // not a blind retry), or an edit was made that no call records.
                done.extend(open.drain().map(|(_, c)| c));
                continue;
            }
            if let Some(run) = orphan_run(m) {
                // A result whose call the transcript lost: the same failure, word for
                // word, is the same call failing again.
                extend(&mut open, &mut done, pos, m.idx, run, None);
                continue;
            }
            // Runs are the agent's calls, and the person's own (aider's `/run`).
            if !matches!(m.role, Role::Assistant | Role::User) {
                continue;
            }
            for call in &m.calls {
                if call.result.as_ref().is_some_and(|r| r.interrupted) {
                    continue;
                }
                let refused = refused(call);
                let looks = only_looks(call) && !refused;
                let Some(norm) = identity(call) else {
                    if looks {
                        end_loops_found(&mut open, &mut done);
                    } else if !refused {
                        end_chains(&mut open, &mut done, pos, call);
                    }
                    continue;
                };
                if looks {
                    end_loops_found(&mut open, &mut done);
                    continue;
                }
                let run = Run {
                    norm,
                    outcome: run_outcome(call),
                    refused,
                    shown: shown(call),
                    command: call.command.clone(),
                    folder: working_folder(call).map(str::to_string),
                };
                // A refused call never ran: it changed nothing for the other chains.
                extend(&mut open, &mut done, pos, m.idx, run, (!refused).then_some(call));
            }
        }
        done.extend(open.into_values());
        for c in done {
            if c.runs.len() < MIN_RUNS {
                continue;
            }
            out.push(finding(self.id(), view.messages, &c));
        }
    }
    fn telling(&self) -> Telling {
        Telling { rank: 4, beats: &["failure", "test"], threads: true, ..Telling::DEFAULT }
    }
}

/// One run of a command (or of a tool call) as the chains see it.
struct Run {
    /// What makes two runs the same command.
    norm: String,
    /// How it failed (None: it did not).
    outcome: Option<(String, String)>,
    /// The harness refused it (see [`refused`]).
    refused: bool,
    /// The command as the summary shows it (empty for a result whose call was lost).
    shown: String,
    command: Option<String>,
    /// The working folder it asked for.
    folder: Option<String>,
}

/// Add a run to its chain. A run that may have changed something (`changes`: its call)
/// ends the other open chains (see [`end_chains`]); a success ends its own.
fn extend(
    open: &mut HashMap<String, Chain>,
    done: &mut Vec<Chain>,
    pos: usize,
    idx: u32,
    run: Run,
    changes: Option<&Call>,
) {
    let prior = open.remove(&run.norm);
    if let Some(call) = changes {
        end_chains(open, done, pos, call);
    }
    let Some((outcome, error)) = run.outcome else {
        done.extend(prior);
        return;
    };
    match prior {
        Some(mut c) if same_outcome(&c.outcome, &outcome) && pos - c.last_pos <= MAX_GAP => {
            c.last_pos = pos;
            if pos - c.first_pos <= LOOKAHEAD {
                c.runs.push(idx);
                c.folder_changed |= c.folder != run.folder;
                c.refused &= run.refused;
            }
            open.insert(run.norm, c);
        }
        prior => {
            done.extend(prior);
            let c = Chain {
                first_pos: pos,
                last_pos: pos,
                runs: vec![idx],
                outcome,
                error,
                shown: run.shown,
                command: run.command,
                folder: run.folder,
                folder_changed: false,
                refused: run.refused,
            };
            open.insert(run.norm, c);
        }
    }
}

/// A call that may have changed something ends the open chains: the next run of their
/// command is no blind retry. Except, when the call edits no file:
/// - the chains whose last run was sent in the same message before it: a batch of calls
///   is sent before any of their results is seen, so its other calls are no response to
///   that run's failure (`brew install a` failing beside `brew install b`);
/// - the chains of refused runs: the harness refuses a command for its words, and no
///   command run in between (a subagent, an install) changes that.
fn end_chains(open: &mut HashMap<String, Chain>, done: &mut Vec<Chain>, pos: usize, call: &Call) {
    let edits = is_edit_tool(call) || !edits(call).is_empty();
    let ended: Vec<String> =
        open.iter().filter(|(_, c)| edits || !(c.last_pos == pos || c.refused)).map(|(k, _)| k.clone()).collect();
    for k in ended {
        done.extend(open.remove(&k));
    }
}

/// How a run failed, or `None` when it did not. A command whose output goes through a
/// trimmer (`brew install x 2>&1 | tail -10`) exits with the trimmer's status: when that
/// is 0, its output says whether it failed, and its exit code is unknown ([`PIPED`]).
fn run_outcome(call: &Call) -> Option<(String, String)> {
    let r = call.result.as_ref();
    let masked = r.is_some_and(|r| r.exit_code == Some(0)) && call.command.as_deref().is_some_and(exit_masked);
    if !masked {
        return failed(call).then(|| outcome(r));
    }
    if !r.is_some_and(|r| output_says_it_failed(&r.output)) {
        return None;
    }
    let (o, e) = outcome(r);
    let line = o.split_once('\u{1f}').map_or("", |(_, l)| l);
    Some((format!("{PIPED}\u{1f}{line}"), e))
}

/// The exit code of a run whose status a trimmer hid.
const PIPED: &str = "piped";

/// The command's last program is an output trimmer at the end of a pipeline (and no
/// `pipefail` hands the first program's failure on).
fn exit_masked(command: &str) -> bool {
    let script = shell::parse(command);
    !command.contains("pipefail")
        && script
            .commands
            .last()
            .is_some_and(|c| c.piped_from && matches!(c.name(), "head" | "tail" | "cat" | "less" | "more"))
}

/// Two runs failed the same way: the same error line, and the same exit code where
/// both are known.
fn same_outcome(a: &str, b: &str) -> bool {
    let (ca, la) = a.split_once('\u{1f}').unwrap_or((a, ""));
    let (cb, lb) = b.split_once('\u{1f}').unwrap_or((b, ""));
    la == lb && (ca == cb || ca == PIPED || cb == PIPED)
}

/// The agent stopped to look at something (a read, a search, a listing that ran): a
/// loop already found ends there, and retrying after it is a new episode. Chains not
/// yet long enough go on (a look between two runs does not change what they run).
fn end_loops_found(open: &mut HashMap<String, Chain>, done: &mut Vec<Chain>) {
    let found: Vec<String> = open.iter().filter(|(_, c)| c.runs.len() >= MIN_RUNS).map(|(k, _)| k.clone()).collect();
    for k in found {
        done.extend(open.remove(&k));
    }
}

/// The call never ran: the harness refused it or could not start it (an error result
/// with no exit code that is not a timeout: "This command requires approval", "Command
/// rejected because it could not be parsed safely", a permission prompt left unanswered).
fn refused(call: &Call) -> bool {
    call.result.as_ref().is_some_and(|r| {
        r.is_error && r.exit_code.is_none() && !r.timed_out && !r.interrupted && !r.running && !r.output.is_empty()
    })
}

/// What makes two calls the same: the normalised command line of a shell call; for
/// another tool, its name and exact input, when it failed (a failed edit or write
/// changed nothing, and sending it again unchanged is a retry).
fn identity(call: &Call) -> Option<String> {
    if let Some(cmd) = call.command.as_deref() {
        // The same line run in another working folder is another attempt, not a retry —
        // unless it was refused before it ran, where the folder could not matter.
        return normalize(cmd).map(|n| match working_folder(call) {
            Some(d) if !refused(call) => format!("{n}\u{1f}{d}"),
            _ => n,
        });
    }
    let r = call.result.as_ref()?;
    (r.is_error && !call.input.is_null()).then(|| format!("{}\u{1f}{}", call.name, call.input))
}

/// The folder a shell call asked to run in (Gemini CLI's `dir_path`, Codex's `workdir`).
fn working_folder(call: &Call) -> Option<&str> {
    ["dir_path", "directory", "workdir", "cwd"].iter().find_map(|k| call.input.get(*k)?.as_str())
}

/// A call as the summary names it: its command line, or the tool and the file it works on.
fn shown(call: &Call) -> String {
    if let Some(cmd) = &call.command {
        return quote(cmd.lines().find(|l| !l.trim().is_empty()).unwrap_or(""), 80);
    }
    let file = ["file_path", "path", "notebook_path", "absolute_path"]
        .iter()
        .find_map(|k| call.input.get(*k).and_then(|v| v.as_str()));
    match file {
        Some(f) => format!("{} {}", call.name, quote(f, 70)),
        None => call.name.clone(),
    }
}

/// A harness's refusal, in the words of a result.
static REFUSAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bhaven't granted\b|\brequires approval\b|\bcommand rejected\b|\bpermission denied\b|\bnot (?:allowed|permitted)\b|\bwas blocked\b",
    )
    .expect("a valid regex")
});

/// A tool result kept without its call (the line holding the call was unreadable) that
/// says the call failed: a run of an unknown call, known by its words.
fn orphan_run(m: &Message) -> Option<Run> {
    if m.role != Role::Tool || m.origin != Origin::ToolOutput || !m.calls.is_empty() {
        return None;
    }
    let text = m.text.trim();
    if text.is_empty() || text.len() > 2_000 || !(output_says_it_failed(text) || REFUSAL.is_match(text)) {
        return None;
    }
    let r = CallResult { output: text.to_string(), is_error: true, ..CallResult::default() };
    let (outcome, error) = outcome(Some(&r));
    Some(Run {
        norm: format!("output\u{1f}{outcome}"),
        outcome: Some((outcome, error)),
        refused: false,
        shown: String::new(),
        command: None,
        folder: None,
    })
}

/// Consecutive failing runs of one command.
struct Chain {
    first_pos: usize,
    last_pos: usize,
    runs: Vec<u32>,
    outcome: String,
    /// The error line of the first run, unmasked, for the summary.
    error: String,
    shown: String,
    command: Option<String>,
    /// The first run's working folder, and whether a later run asked for another.
    folder: Option<String>,
    folder_changed: bool,
    /// Every run was refused by the harness.
    refused: bool,
}

fn finding(id: &str, messages: &[Message], c: &Chain) -> Finding {
    let span = messages[c.last_pos].idx - messages[c.first_pos].idx + 1;
    let how = if c.error.is_empty() { String::from("the same way") } else { format!("with `{}`", quote(&c.error, 70)) };
    // A result whose call was lost is known by its words alone.
    let what =
        if c.shown.is_empty() { String::from("A call whose record is unreadable") } else { format!("`{}`", c.shown) };
    // Only a refused call keeps its chain across folders (see `identity`).
    let between = if c.folder_changed { "with only its working folder changed" } else { "with nothing changed" };
    let summary =
        format!("{what} failed {} times in {span} messages, each time {how}, {between} in between", c.runs.len());
    Finding {
        detector: id.into(),
        key: c.runs[0],
        evidence: c.runs.clone(),
        summary,
        command: c.command.clone(),
        details: Some(Details::Runs { runs: c.runs.clone(), error: c.error.clone(), folder_changed: c.folder_changed }),
    }
}

/// Edits that live in a message's text rather than in a call: search/replace blocks
/// and aider's "Applied edit to FILE" notices, in formats whose edits are not calls.
fn edits_in_text(m: &Message) -> bool {
    m.text.contains("<<<<<<< SEARCH")
        || m.text.contains(">>>>>>> REPLACE")
        || m.text.lines().any(|l| l.trim_start().starts_with("Applied edit to "))
}

/// Flags that do not change what a command does.
const TRIVIAL_FLAGS: &[&str] =
    &["-v", "-vv", "--verbose", "-q", "--quiet", "--no-color", "--color", "--colour", "--no-pager"];

/// The command as compared: programs (without `.exe`), env prefixes and arguments of its
/// simple commands, and the heredocs it feeds them (whitespace runs as one space),
/// without redirections, sleeps, trivial flags and trailing output trimmers. `None` when
/// nothing is left.
pub fn normalize(command: &str) -> Option<String> {
    let script = shell::parse(command);
    let mut cmds: Vec<&SimpleCommand> = script.commands.iter().filter(|c| c.name() != "sleep").collect();
    // `… | tail -20`, `… | head -n 50`, `… | cat`: the same run, shown differently.
    while cmds.len() > 1
        && cmds.last().is_some_and(|c| c.piped_from && matches!(c.name(), "head" | "tail" | "cat" | "less" | "more"))
    {
        cmds.pop();
    }
    let parts: Vec<String> = cmds
        .iter()
        .map(|c| {
            let mut words: Vec<String> = c.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            // `git.exe status` is `git status` (Windows shells name programs either way).
            let name = c.name();
            let bare = name
                .len()
                .checked_sub(4)
                .filter(|&i| name.is_char_boundary(i) && name[i..].eq_ignore_ascii_case(".exe"));
            words.push(bare.map_or(name, |i| &name[..i]).to_string());
            words.extend(
                c.args.iter().filter(|a| !TRIVIAL_FLAGS.contains(&a.as_str()) && !a.starts_with("--color=")).cloned(),
            );
            if let Some(h) = &c.remote_host {
                words.insert(0, format!("@{h}"));
            }
            words.join(" ")
        })
        .collect();
    let mut joined = parts.join(" ; ");
    // What a heredoc feeds the command is part of it: two `apply_patch <<EOF` with
    // different patches are different commands.
    for doc in &script.heredocs {
        joined.push_str(" <<");
        joined.push_str(&doc.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    (!joined.is_empty()).then_some(joined)
}

static MASKS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?", "<time>"),
        (r"\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b", "<time>"),
        (r"\b0x[0-9a-fA-F]+\b", "<addr>"),
        (r"\b[0-9a-f]{12,}\b", "<id>"),
        (r"\b\d+(\.\d+)?\s?(ms|s|sec|secs|seconds|minutes|min)\b", "<dur>"),
        (r"(?i)\b(pid|process)[ =:]+\d+", "<pid>"),
        (r"/tmp/[^\s:'\x22]+", "<tmp>"),
    ]
    .into_iter()
    .filter_map(|(p, r)| Regex::new(p).ok().map(|re| (re, r)))
    .collect()
});

/// Words that mark the line of an output that says what went wrong.
const ERROR_WORDS: &[&str] = &[
    "error",
    "failed",
    "failure",
    "fatal",
    "exception",
    "traceback",
    "not found",
    "denied",
    "refused",
    "cannot",
    "can't",
    "unable",
    "no such",
    "timed out",
    "timeout",
    "panicked",
    "abort",
];

/// How a failed call failed: its exit code and the last line of its output that names
/// an error (else its last line), with times, durations, addresses and temp paths
/// masked; and that line as printed.
pub(super) fn outcome(result: Option<&CallResult>) -> (String, String) {
    let Some(r) = result else { return (String::from("?"), String::new()) };
    let code = r.exit_code.map_or_else(|| "error".to_string(), |c| c.to_string());
    // Without the banners test runners draw around their summary lines.
    let lines: Vec<&str> =
        r.output.lines().map(|l| l.trim().trim_matches(['=', '-', '_', ' '])).filter(|l| !l.is_empty()).collect();
    // The line that says what went wrong: an error with its message ("FAILED t - KeyError:
    // x", "error[E0433]: …", "fatal: …") beats a bare count ("1 failed, 8 passed"); the
    // first such line is the cause, later ones are consequences ("could not compile").
    let rank = |l: &str| {
        let low = l.to_lowercase();
        if low.starts_with("failed ") || low.contains("error:") || low.contains("error[") || low.starts_with("fatal:") {
            2
        } else if ERROR_WORDS.iter().any(|w| low.contains(w)) {
            1
        } else {
            0
        }
    };
    let best = lines.iter().map(|l| rank(l)).max().unwrap_or(0);
    let line = lines.iter().find(|l| rank(l) == best).copied().unwrap_or("");
    let mut masked = line.chars().take(300).collect::<String>();
    for (re, with) in MASKS.iter() {
        masked = re.replace_all(&masked, *with).into_owned();
    }
    (format!("{code}\u{1f}{masked}"), line.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::detect_session;

    use crate::detect::fixture::{self, said as text};

    fn run_msg(idx: u32, cmd: &str, exit: i32, output: &str) -> Message {
        fixture::bash_exit(idx, cmd, output, Some(exit))
    }

    fn edit(idx: u32) -> Message {
        fixture::edit(idx, "src/cfg.rs")
    }

    fn run(messages: &[Message]) -> Vec<Finding> {
        detect_session(&[&RetryLoop], messages)
    }

    const E: &str = "   Compiling app v0.1.0\nerror[E0432]: unresolved import `crate::cfg`\n  --> src/main.rs:3:5\nerror: could not compile `app` in 1.52s";

    #[test]
    fn three_identical_failures_are_a_loop_keyed_on_the_first() {
        let messages = vec![
            run_msg(1, "cargo build --release 2>&1 | tail -20", 101, E),
            text(2, Role::Assistant, "Let me try again."),
            run_msg(3, "cargo build  --release 2>&1 | tail -30", 101, &E.replace("1.52s", "0.98s")),
            run_msg(4, "cat src/main.rs", 0, "mod cfg;"),
            run_msg(5, "cargo build --release", 101, E),
            run_msg(6, "cargo build --release -v", 101, E),
        ];
        let f = run(&messages);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].key, 1);
        assert_eq!(f[0].evidence, [1, 3, 5, 6]);
        assert_eq!(
            f[0].summary,
            "`cargo build --release 2>&1 | tail -20` failed 4 times in 6 messages, each time with `error[E0432]: unresolved import `crate::cfg``, with nothing changed in between"
        );
        assert_eq!(f[0].command.as_deref(), Some("cargo build --release 2>&1 | tail -20"));
    }

    #[test]
    fn an_edit_a_different_error_a_success_or_the_person_breaks_the_chain() {
        let base = |i| run_msg(i, "make test", 2, "FAILED tests/test_a.py::test_x - assert 1 == 2");
        assert!(run(&[base(1), base(2), edit(3), base(4)]).is_empty());
        assert!(
            run(&[base(1), base(2), run_msg(3, "make test", 2, "ImportError: no module named x"), base(4)]).is_empty()
        );
        assert!(run(&[base(1), base(2), run_msg(3, "make test", 0, "ok"), base(4)]).is_empty());
        assert!(run(&[base(1), base(2), text(3, Role::User, "I restarted the db"), base(4)]).is_empty());
        assert!(run(&[base(1), base(2), run_msg(3, "pip install -e .", 0, ""), base(4)]).is_empty());
        assert_eq!(run(&[base(1), base(2), text(3, Role::User, ""), base(4)]).len(), 1);
        assert_eq!(run(&[base(1), base(2), base(3)]).len(), 1);
    }

    #[test]
    fn the_same_line_in_another_working_folder_is_another_attempt() {
        // Gemini CLI's run_shell_command takes the folder as `dir_path`.
        let in_dir = |i, d: Option<&str>, refused: bool| {
            let mut m = if refused {
                // Refused before it ran: an error with no exit code.
                let mut m =
                    fixture::bash_exit(i, "make", "Command rejected because it could not be parsed safely", None);
                m.calls[0].result.as_mut().expect("a result").is_error = true;
                m
            } else {
                run_msg(i, "make", 2, "make: *** No targets specified and no makefile found.  Stop.")
            };
            if let Some(d) = d {
                m.calls[0].input = serde_json::json!({ "command": "make", "dir_path": d });
            }
            m
        };
        let ran = |d: [Option<&str>; 3]| run(&[in_dir(1, d[0], false), in_dir(2, d[1], false), in_dir(3, d[2], false)]);
        assert!(ran([Some("a"), Some("b"), Some("c")]).is_empty());
        assert_eq!(ran([Some("a"), Some("a"), Some("a")]).len(), 1);
        assert_eq!(ran([None, None, None]).len(), 1);
        // A refusal does not depend on the folder: a retry, told as such.
        let f = run(&[in_dir(1, Some("a"), true), in_dir(2, Some("b"), true), in_dir(3, Some("c"), true)]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].summary.ends_with("with only its working folder changed in between"), "{}", f[0].summary);
        let f = run(&[in_dir(1, Some("a"), true), in_dir(2, Some("a"), true), in_dir(3, Some("a"), true)]);
        assert!(f[0].summary.ends_with("with nothing changed in between"), "{}", f[0].summary);
    }

    #[test]
    fn a_failure_behind_an_output_trimmer_and_a_batch_sibling_still_retry() {
        const LOCK: &str = "==> Fetching bfg\nError: A `brew install bfg` process has already locked /c/x.incomplete.\nPlease wait for it to finish.";
        // The first run fails beside another install sent in the same batch; the next two
        // pipe through `tail`, which exits 0, and say the same error.
        let mut first = run_msg(1, "brew install bfg", 1, LOCK);
        first.calls.extend(run_msg(1, "brew install git-filter-repo", 0, "Pouring git-filter-repo").calls);
        let messages = vec![
            first.clone(),
            run_msg(2, "sleep 5 && brew install bfg 2>&1 | tail -10", 0, LOCK),
            run_msg(3, "ps aux | grep brew", 0, "m 1867 curl"),
            run_msg(4, "sleep 30 && brew install bfg 2>&1 | tail -5", 0, LOCK),
        ];
        let f = run(&messages);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, [1, 2, 4]);
        // Near misses: the other install sent after the failure was seen (a response to
        // it); a trimmed run whose output says it worked; a `pipefail` run that exits 0.
        let install = run_msg(2, "brew install git-filter-repo", 0, "Pouring git-filter-repo");
        let mut alone = messages.clone();
        alone[0] = run_msg(1, "brew install bfg", 1, LOCK);
        alone.insert(1, install);
        assert!(run(&alone).is_empty(), "{:?}", run(&alone));
        let mut worked = messages.clone();
        worked[3] = run_msg(4, "brew install bfg 2>&1 | tail -5", 0, "🍺  /opt/homebrew/Cellar/bfg/1.15.0");
        assert!(run(&worked).is_empty());
        assert!(!exit_masked("set -o pipefail; brew install bfg | tail -5") && exit_masked("make 2>&1 | tail -3"));
    }

    #[test]
    fn refused_runs_stay_a_retry_across_commands_that_cannot_change_a_refusal() {
        let refused = |i, cmd: &str| {
            let mut m = fixture::bash_exit(i, cmd, "Command rejected because it could not be parsed safely", None);
            m.calls[0].result.as_mut().expect("a result").is_error = true;
            m
        };
        let subagent = Message {
            idx: 2,
            role: Role::Assistant,
            calls: vec![Call {
                name: "delegate_to_agent".into(),
                input: serde_json::json!({ "objective": "pull the latest changes" }),
                result: Some(CallResult { output: "Subagent finished.".into(), ..CallResult::default() }),
                ..Call::default()
            }],
            ..Message::default()
        };
        let messages = vec![
            refused(1, "git status"),
            subagent,
            refused(3, "powershell -Command \"git status\""),
            refused(4, "git.exe status"),
        ];
        let f = run(&messages);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, [1, 3, 4]);
        // An edit in between may have changed the settings that refuse it.
        let mut edited = messages.clone();
        edited[1] = fixture::edit(2, ".gemini/settings.json");
        assert!(run(&edited).is_empty());
        // Runs that ran and failed are ended by the subagent: it may have changed things.
        let failing = |i| run_msg(i, "git pull", 1, "error: cannot pull with rebase: You have unstaged changes.");
        let mut ran = messages.clone();
        ran[0] = failing(1);
        ran[2] = failing(3);
        ran[3] = failing(4);
        assert!(run(&ran).is_empty(), "{:?}", run(&ran));
    }

    #[test]
    fn polls_and_far_apart_runs_are_not_loops() {
        let poll = |i| run_msg(i, "sleep 30; curl -sf localhost:30000/health", 7, "curl: (7) Failed to connect");
        assert!(run(&[poll(1), poll(2), poll(3), poll(4)]).is_empty());
        let grep = |i| run_msg(i, "grep -c ready /data/srv.log", 1, "0");
        assert!(run(&[grep(1), grep(2), grep(3)]).is_empty());
        let mut v = vec![run_msg(1, "make", 2, "error: x")];
        v.extend((2..=15).map(|i| text(i, Role::Assistant, "thinking")));
        v.push(run_msg(16, "make", 2, "error: x"));
        v.push(run_msg(17, "make", 2, "error: x"));
        assert!(run(&v).is_empty());
    }

    #[test]
    fn the_person_s_own_runs_count_and_text_edits_break_the_chain() {
        // aider: `/run pytest` is the person's turn holding a call with no exit code.
        let user_run = |i| {
            let mut m =
                run_msg(i, "pytest tests/test_io.py", 0, "E   KeyError: 'model'\n1 failed, 30 deselected in 0.81s");
            m.role = Role::User;
            m.text = "/run pytest tests/test_io.py".into();
            if let Some(r) = m.calls[0].result.as_mut() {
                r.exit_code = None;
                r.is_error = false;
            }
            m
        };
        let f = run(&[user_run(1), user_run(2), text(3, Role::System, "Add the output to the chat? n"), user_run(4)]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, [1, 2, 4]);
        let applied = text(3, Role::System, "Tokens: 9,938 sent\nApplied edit to aider/main.py");
        assert!(run(&[user_run(1), user_run(2), applied, user_run(4)]).is_empty());
    }

    #[test]
    fn normalizing() {
        assert_eq!(normalize("cd /r && pytest -q tests/ 2>&1 | tail -5").as_deref(), Some("cd /r ; pytest tests/"));
        assert_eq!(normalize("sleep 5; git push origin main").as_deref(), Some("git push origin main"));
        assert_eq!(normalize("ssh gpu 'nvidia-smi'").as_deref(), Some("@gpu nvidia-smi"));
        assert_ne!(normalize("A=1 make"), normalize("A=2 make"));
        // Windows: the command a shell wrapper runs, and programs with or without `.exe`.
        let status = normalize("git status");
        assert_eq!(normalize("powershell -Command \"git status\""), status);
        assert_eq!(normalize("git.exe status"), status);
        assert_eq!(normalize("cmd /c \"python --version\""), normalize("python --version"));
        // What a heredoc feeds is part of the command.
        let patch =
            |body: &str| normalize(&format!("apply_patch <<'PATCH'\n*** Begin Patch\n{body}\n*** End Patch\nPATCH"));
        assert_eq!(patch("*** Add File: a.md\n+x"), patch("*** Add File: a.md\n+x  "));
        assert_ne!(patch("*** Add File: a.md\n+x"), patch("*** Add File: a.md\n+y"));
    }

    /// A call the harness refused: an error with no exit code.
    fn refused_run(idx: u32, cmd: &str, said: &str) -> Message {
        let mut m = fixture::bash(idx, cmd, said);
        if let Some(r) = m.calls[0].result.as_mut() {
            r.is_error = true;
        }
        m
    }

    const REJECTED: &str = "Command rejected because it could not be parsed safely";

    #[test]
    fn refused_commands_are_retried_even_when_they_only_look() {
        // Gemini CLI on Windows: every shell command rejected by the harness's parser.
        let messages = vec![
            refused_run(7, "whoami", REJECTED),
            refused_run(8, "hostname", REJECTED),
            refused_run(9, "powershell -Command \"whoami\"", REJECTED),
            fixture::bash_exit(10, "cat README.md", "# app", Some(0)),
            refused_run(11, "whoami.exe", REJECTED),
        ];
        let f = run(&messages);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, [7, 9, 11], "a refused command never ran: it changed nothing");
        assert_eq!(
            f[0].summary,
            "`whoami` failed 3 times in 5 messages, each time with `Command rejected because it could not be parsed safely`, with nothing changed in between"
        );
        // Looks that ran are polling, however often they repeat; three different refused
        // commands are not one command retried.
        let ok = |i| fixture::bash_exit(i, "whoami", "ann", Some(0));
        assert!(run(&[ok(1), ok(2), ok(3)]).is_empty());
        let diff =
            [refused_run(1, "whoami", REJECTED), refused_run(2, "hostname", REJECTED), refused_run(3, "dir", REJECTED)];
        assert!(run(&diff).is_empty());
        // A timeout is no refusal: the look ran (and is polling).
        let mut slow = refused_run(1, "git status", "Command timed out after 2m");
        slow.calls[0].result.as_mut().unwrap().timed_out = true;
        let slow = |i| {
            let mut m = slow.clone();
            m.idx = i;
            m
        };
        assert!(run(&[slow(1), slow(2), slow(3)]).is_empty());
    }

    /// A write the harness did not allow.
    fn denied_write(idx: u32, content: &str) -> Message {
        let mut m = fixture::edit(idx, "/r/Sources/Geometry.swift");
        m.calls[0].name = "Write".into();
        m.calls[0].input["content"] = content.into();
        m.calls[0].result = Some(CallResult {
            output:
                "Claude requested permissions to write to /r/Sources/Geometry.swift, but you haven't granted it yet."
                    .into(),
            is_error: true,
            ..CallResult::default()
        });
        m
    }

    #[test]
    fn the_same_failing_tool_call_sent_again() {
        let w = |i| denied_write(i, "enum Split { case h, v }");
        let f = run(&[w(38), w(39), w(40), w(41)]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, [38, 39, 40, 41]);
        assert!(f[0].summary.starts_with("`Write /r/Sources/Geometry.swift` failed 4 times"), "{}", f[0].summary);
        // A different content each time is a new attempt; an edit that went through in
        // between changes what the next one meets.
        assert!(run(&[w(1), denied_write(2, "enum Split { case a }"), denied_write(3, "enum S {}")]).is_empty());
        assert!(run(&[w(1), w(2), edit(3), w(4)]).is_empty());
    }

    #[test]
    fn results_whose_calls_were_lost_are_known_by_their_words() {
        // Claude Code lines broken by a redaction script: only the results are left.
        let lost = |i, t: &str| fixture::said(i, Role::Tool, t);
        let denied = "Claude requested permissions to write to /r/Package.swift, but you haven't granted it yet.";
        let mut msgs: Vec<Message> = (18..=21).map(|i| lost(i, denied)).collect();
        for m in &mut msgs {
            m.origin = crate::model::Origin::ToolOutput;
        }
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, [18, 19, 20, 21]);
        assert!(f[0].summary.starts_with("A call whose record is unreadable failed 4 times"), "{}", f[0].summary);
        // Results that do not say anything failed are not runs.
        for m in &mut msgs {
            m.text = "File created successfully at: /r/Package.swift".into();
        }
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn a_look_after_a_loop_ends_it_and_a_new_loop_may_follow() {
        let build = |i| refused_run(i, "swift build", "This command requires approval");
        let mut msgs: Vec<Message> = (54..=57).map(build).collect();
        msgs.push(fixture::bash_exit(58, "find Sources -name '*.swift' | wc -l", "28", Some(0)));
        msgs.extend((59..=61).map(build));
        let f = run(&msgs);
        assert_eq!(f.iter().map(|f| f.evidence.clone()).collect::<Vec<_>>(), [vec![54, 55, 56, 57], vec![59, 60, 61]]);
    }
}
