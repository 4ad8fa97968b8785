//! `retry-loop`: the same failing command run again and again with nothing changed.
//!
//! How it reads a session:
//! - Every shell call is reduced to a normalized form with the shell parser: programs,
//!   arguments and env prefixes, without redirections, `sleep`s, trivial flags
//!   (`-v`, `--color=…`) and output-trimming pipeline tails (`| tail -20`, `| head`).
//!   `cargo test 2>&1 | tail -30` and `cargo test  | tail -50` are the same command.
//! - Commands that only look (reading, searching, probing endpoints and processes,
//!   `git status`…) are left out: asking again whether something changed is polling,
//!   not retrying (see `polling-timeout`).
//! - A failed run (non-zero exit code, or an error result) starts a chain. A later run of
//!   the same command extends it when it fails the same way (same exit code and the same
//!   last error line once times, durations and addresses are masked), follows within
//!   [`MAX_GAP`] messages, and nothing happened in between but looking: no edit, no
//!   other command that may change state, no words from the person.
//! - A chain of [`MIN_RUNS`] or more runs is a finding, keyed on the first run, with
//!   every run as evidence.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::calls::{failed, only_looks};
use super::prose::clip;
use super::{Detector, Finding, LOOKAHEAD, SessionView};
use crate::model::{Call, Message, Role};
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
after normalising whitespace, redirections, `sleep`s, trivial flags (`-v`, `--color`)
and output-trimming tails (`| tail -20`); outcomes by exit code and the last error
line with times, durations and addresses masked.

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
            // Runs are the agent's calls, and the person's own (aider's `/run`).
            if !matches!(m.role, Role::Assistant | Role::User) {
                continue;
            }
            for call in &m.calls {
                if call.result.as_ref().is_some_and(|r| r.interrupted) {
                    continue;
                }
                let Some(norm) = call.command.as_deref().and_then(normalize) else {
                    if !only_looks(call) {
                        done.extend(open.drain().map(|(_, c)| c));
                    }
                    continue;
                };
                if only_looks(call) {
                    continue;
                }
                let outcome = failed(call).then(|| outcome(call));
                let prior = open.remove(&norm);
                // Any other command that may change state ends every open chain.
                done.extend(open.drain().map(|(_, c)| c));
                let Some(outcome) = outcome else {
                    done.extend(prior);
                    continue;
                };
                match prior {
                    Some(mut c) if c.outcome == outcome.0 && pos - c.last_pos <= MAX_GAP => {
                        c.last_pos = pos;
                        if pos - c.first_pos <= LOOKAHEAD {
                            c.runs.push(m.idx);
                        }
                        open.insert(norm, c);
                    }
                    prior => {
                        done.extend(prior);
                        let (outcome, error) = outcome;
                        let c = Chain { first_pos: pos, last_pos: pos, runs: vec![m.idx], outcome, error, call };
                        open.insert(norm, c);
                    }
                }
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
}

/// Consecutive failing runs of one command.
struct Chain<'a> {
    first_pos: usize,
    last_pos: usize,
    runs: Vec<u32>,
    outcome: String,
    /// The error line of the first run, unmasked, for the summary.
    error: String,
    call: &'a Call,
}

fn finding(id: &str, messages: &[Message], c: &Chain) -> Finding {
    let cmd = c.call.command.clone().unwrap_or_default();
    let shown = clip(cmd.lines().find(|l| !l.trim().is_empty()).unwrap_or(""), 80);
    let span = messages[c.last_pos].idx - messages[c.first_pos].idx + 1;
    let how = if c.error.is_empty() { String::from("the same way") } else { format!("with `{}`", clip(&c.error, 70)) };
    let summary = format!(
        "`{shown}` failed {} times in {span} messages, each time {how}, with nothing changed in between",
        c.runs.len()
    );
    Finding { detector: id.into(), key: c.runs[0], evidence: c.runs.clone(), summary, command: Some(cmd) }
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

/// The command as compared: programs, env prefixes and arguments of its simple commands,
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
            words.push(c.name().to_string());
            words.extend(
                c.args.iter().filter(|a| !TRIVIAL_FLAGS.contains(&a.as_str()) && !a.starts_with("--color=")).cloned(),
            );
            if let Some(h) = &c.remote_host {
                words.insert(0, format!("@{h}"));
            }
            words.join(" ")
        })
        .collect();
    let joined = parts.join(" ; ");
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
fn outcome(call: &Call) -> (String, String) {
    let Some(r) = &call.result else { return (String::from("?"), String::new()) };
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
    }
}
