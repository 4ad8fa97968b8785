//! The session's problems, told as stories: something failed, what the assistant made of
//! it, what it tried next, and how it ended — the way the seeds tell one, from the
//! transcript's own evidence only.
//!
//! A story starts at a failed call. Its *subject* is what failed: a program with its
//! subcommand (`brew install`, `cargo test`, `git push`), a script (`python train.py`),
//! or a tool and its file (`Edit` of `app.py`). Later calls of the same subject are its
//! attempts; the first one that succeeds resolves it. A call right after the failure that
//! succeeds on the same path or name (`open "…/LuLu Installer.app"` failed, `cp -R
//! "…/LuLu.app"` ran) resolves it too, "by another command". What the user typed while
//! it was open, and the findings of debrief's detectors inside it, belong to it.
//!
//! Nothing here says *why* something worked: the report quotes what the assistant said
//! and what ran, and leaves the cause to the reader, since the transcript rarely proves it.
//! The stories kept are the ones with the most at stake (failures, attempts, the user's
//! words, findings), at most [`MAX`], told in the order they began.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::context::{Context, Quote, request_text};
use crate::analysis::call_facts::{CallFacts, Grain, command_subject};
use crate::analysis::calls;
use crate::analysis::claims::{self, Kind};
use crate::analysis::text::{clip, clock, content_words, duration, one_line, secs_between};
use crate::model::{Message, Role};

/// The harness's tags around a tool's error (`<tool_use_error>…</tool_use_error>`).
static TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"</?(?:tool_use_error|error|stdout|stderr)>").expect("static regex"));

/// Stories a session report tells at most.
const MAX: usize = 4;
/// How far (in messages) a story looks for its next attempt.
const SPAN: usize = 120;
const QUOTE: usize = 240;

/// One call of a story's subject.
#[derive(Debug, Clone, Serialize)]
pub struct Attempt {
    pub idx: u32,
    pub time: Option<String>,
    /// The command line (clipped), or the tool.
    pub command: String,
    pub failed: bool,
    /// For a failed attempt, the line that says how: an error line of its output, never
    /// just its last line (a shell's greeting, a progress line); else its exit code.
    pub error: Option<String>,
    pub exit: Option<i32>,
    /// For a call that did not fail, a line of its output that still names an error the
    /// way programs print one (a panic, `TypeError: …`): it ran, but not cleanly.
    pub still: Option<String>,
}

/// A problem and what became of it.
#[derive(Debug, Clone, Serialize)]
pub struct Story {
    pub idx: u32,
    pub seed: u32,
    pub detector: &'static str,
    pub situations: Vec<&'static str>,
    /// What failed, as a reader names it (`brew install`, `Edit app.py`).
    pub subject: String,
    /// The first failure.
    pub first: Attempt,
    /// The assistant's words right after it: what it made of the failure.
    pub reading: Option<Quote>,
    /// Later failed calls of the subject, before the one that resolved it: at most
    /// three, and how many more.
    pub attempts: Vec<Attempt>,
    pub more_attempts: usize,
    /// Failed calls of the subject in all, the first included.
    pub failures: usize,
    /// What the user typed while it was open.
    pub user: Vec<Quote>,
    /// The call that succeeded, and whether it was the subject itself (`same`) or
    /// another command right after the failure on the same path (`other`).
    pub resolved: Option<Attempt>,
    pub resolved_by: Option<&'static str>,
    /// The subject's next failure when it no longer failed the way it had, on another
    /// command line (`python3 -m pytest` no longer killed, failing on an ImportError):
    /// the problem told here is over, that one is the next story's.
    pub changed: Option<Attempt>,
    /// The resolving call's command line is the first failure's, character for character.
    pub same_command: bool,
    /// The assistant's words after the resolving call.
    pub after: Option<Quote>,
    /// From the first failure to the resolution.
    pub took: Option<String>,
    /// Findings inside the story: detector and key message.
    pub findings: Vec<(String, u32)>,
    /// The last failed call of the subject.
    pub last_failure: u32,
    /// Unresolved: the subject never ran again in the whole session.
    pub never_again: bool,
}

impl Story {
    pub fn cites(&self) -> Vec<u32> {
        let mut v = vec![self.first.idx];
        v.extend(self.reading.iter().map(|q| q.idx));
        v.extend(self.attempts.iter().map(|a| a.idx));
        v.extend(self.user.iter().map(|q| q.idx));
        v.extend(self.resolved.iter().map(|a| a.idx));
        v.extend(self.changed.iter().map(|a| a.idx));
        v.extend(self.after.iter().map(|q| q.idx));
        v.extend(self.findings.iter().map(|f| f.1));
        v
    }

    fn weight(&self) -> usize {
        2 * self.failures
            + self.attempts.len()
            + self.more_attempts
            + 2 * self.user.len()
            + 3 * self.findings.len()
            + usize::from(self.resolved.is_some())
            + usize::from(self.reading.is_some())
    }
}

/// A program's answer to an option it does not know.
static UNKNOWN_OPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:unknown|unrecognized|unrecognised|invalid|unexpected) (?:option|flag|argument)")
        .expect("static regex")
});

/// A call that only asks a program for its version or usage: it says the program is
/// there, not that what failed works now.
fn asks_version(f: &CallFacts) -> bool {
    f.command.as_deref().is_some_and(|c| {
        crate::shell::parse(c)
            .commands
            .iter()
            .any(|c| c.args.iter().any(|a| matches!(a.as_str(), "--version" | "-V" | "--help")))
    })
}

/// A failed call's error with what varies between runs masked (paths, numbers, temp
/// names): two calls with the same shape failed the same way.
fn error_shape(error: Option<&str>) -> Option<String> {
    let e = error?;
    let masked: Vec<&str> = e
        .split_whitespace()
        .map(|w| {
            if w.contains(['/', '\\']) {
                "<path>"
            } else if w.chars().any(|c| c.is_ascii_digit()) {
                "#"
            } else {
                w
            }
        })
        .collect();
    (masked.len() >= 3).then(|| masked.join(" ").to_lowercase())
}

/// The reason an error line gives, when it ends with a short one the way the system
/// words it (`…: Operation not permitted (os error 1)`, `…: Permission denied`): its
/// last `: ` part, lower case, without a parenthesised code.
fn reason_of(error: &str) -> Option<String> {
    let (_, tail) = error.trim().rsplit_once(": ")?;
    let tail = tail.split(" (").next().unwrap_or(tail).trim().trim_end_matches('.');
    let words = tail.split_whitespace().count();
    ((2..=5).contains(&words) && !tail.contains(['/', '\\', '\'', '"', '`'])).then(|| tail.to_lowercase())
}

/// The places a failure is about: the paths its error line names and those its command
/// line works on.
fn places(error: &str, command: Option<&str>) -> Vec<String> {
    let mut v: Vec<String> = error
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, '\'' | '"' | '`' | ':' | ',' | '(' | ')')))
        .filter(|w| w.contains(['/', '\\']) && w.len() >= 6 && !w.starts_with("http"))
        .map(str::to_string)
        .collect();
    v.extend(command.map(things).unwrap_or_default());
    v
}

/// A folder deep enough to be one thing (`~/.rustup`, not the home folder or the root):
/// at least three parts, a drive letter not counted.
fn deep_folder(p: &str) -> bool {
    let drive = |c: &str| c.len() == 2 && c.ends_with(':');
    p.split(['/', '\\']).filter(|c| !c.is_empty() && !drive(c)).count() >= 3
}

/// One path is, holds, or sits beside the other in a folder that is one thing
/// (`~/.rustup/test` beside `~/.rustup/tmp/x_file`; `~/.rustup` holding it).
fn same_place(x: &str, y: &str) -> bool {
    let under = |p: &str, d: &str| p == d || (p.starts_with(d) && p[d.len()..].starts_with(['/', '\\']));
    let dir = |p: &str| p.rsplit_once(['/', '\\']).map(|(d, _)| d.to_string()).filter(|d| deep_folder(d));
    x == y
        || (deep_folder(y) && under(x, y))
        || (deep_folder(x) && under(y, x))
        || dir(x).is_some_and(|d| under(y, &d))
        || dir(y).is_some_and(|d| under(x, &d))
}

/// Tools that look at the web, not at files: an error of theirs is a failure to look.
const WEB_TOOLS: &[&str] = &["webfetch", "web_fetch", "websearch", "web_search", "google_web_search"];

/// A tool's answer that is the harness refusing to run it, not what it found.
fn harness_refused(output: &str) -> bool {
    let t = output.trim_start().trim_start_matches("<tool_use_error>").trim_start();
    t.starts_with("Permission to use ")
        && t.lines().next().is_some_and(|l| l.contains(" has been denied") || l.contains(" has been auto-denied"))
}

/// Two failures with one root cause though worded differently: the same short reason
/// (`Operation not permitted`) about the same place (`cargo fmt` refused a temp file under
/// `~/.rustup`; `touch ~/.rustup/test` and `chmod -R u+rwx ~/.rustup` then refused too).
/// Errors naming a carriage return (`/usr/bin/env: ‘bash\r’: No such file or directory`,
/// `line 2: $'\r': command not found`) are one cause too, the script's Windows line
/// endings, when the two command lines name the same script.
fn same_root(a: (Option<&str>, Option<&str>), b: (Option<&str>, Option<&str>)) -> bool {
    let ((Some(ea), ca), (Some(eb), cb)) = (a, b) else { return false };
    let carriage = |e: &str| e.contains("\\r'") || e.contains("\\r’");
    // The script may be the program run (`./x.sh`) or its argument (`bash x.sh`).
    let scripts = |c: &str| -> Vec<String> {
        c.split_whitespace()
            .filter(|w| w.len() >= 6 && w.contains('/'))
            .map(|w| w.trim_matches(['"', '\'']).to_string())
            .collect()
    };
    let same_script = |x: &str, y: &str| scripts(x).iter().any(|p| scripts(y).contains(p));
    if carriage(ea) && carriage(eb) && ca.zip(cb).is_some_and(|(x, y)| same_script(x, y)) {
        return true;
    }
    match (reason_of(ea), reason_of(eb)) {
        (Some(ra), Some(rb)) if ra == rb => {
            let (pa, pb) = (places(ea, ca), places(eb, cb));
            pa.iter().any(|x| pb.iter().any(|y| same_place(x, y)))
        }
        _ => false,
    }
}

/// Every subject a call works on: its own, and that of each command of its command line
/// (`ruff check x && pytest` is a `ruff check` too).
fn subjects(f: &CallFacts) -> Vec<String> {
    let mut v = vec![f.subject(Grain::Program)];
    if let Some(cmd) = f.command.as_deref() {
        v.extend(crate::shell::parse(cmd).commands.iter().filter(|c| !c.in_substitution).map(command_subject));
    }
    v
}

/// Paths and long names a command line works on, for "the same thing by another command".
fn things(cmd: &str) -> Vec<String> {
    let script = crate::shell::parse(cmd);
    let mut out = Vec::new();
    for c in &script.commands {
        for a in c.positionals() {
            let a = a.trim_end_matches('/');
            if a.len() >= 6 && (a.contains('/') || a.contains('.')) && !a.starts_with("http") {
                out.push(a.to_string());
            }
        }
    }
    out
}

/// Two command lines work on the same thing: a path of one is, or contains the folder
/// of, a path of the other.
fn same_thing(a: &str, b: &str) -> bool {
    let (ta, tb) = (things(a), things(b));
    ta.iter().any(|x| {
        tb.iter().any(|y| {
            x == y || {
                let dir = |p: &str| p.rsplit_once('/').map(|(d, _)| d.to_string()).filter(|d| d.len() >= 6);
                dir(x).is_some_and(|d| y.starts_with(&d)) || dir(y).is_some_and(|d| x.starts_with(&d))
            }
        })
    })
}

impl Context<'_> {
    fn attempt(&self, m: &Message, f: &CallFacts) -> Attempt {
        Attempt {
            idx: m.idx,
            time: clock(m.timestamp),
            command: f
                .continues
                .clone()
                .or_else(|| f.command_short.clone())
                .unwrap_or_else(|| f.subject(Grain::Program)),
            failed: f.failed(),
            // A tool's refusal, or the harness's for a command that never ran, is its
            // whole output ("File has not been read yet.", "Command rejected because it
            // could not be parsed safely"); the last line of a command that ran and
            // exited may be anything.
            error: f
                .failed()
                .then(|| {
                    f.output.as_ref().and_then(|o| match (&f.command, o.exit_code) {
                        (Some(_), Some(_)) => o.error_line.clone(),
                        _ => o.failure_line(),
                    })
                })
                .flatten()
                .map(|l| TAG.replace_all(&l, "").trim().to_string())
                .filter(|l| !l.is_empty()),
            exit: f.failed().then(|| f.output.as_ref().and_then(|o| o.exit_code)).flatten().filter(|c| *c != 0),
            still: (!f.failed())
                .then(|| f.output.as_ref().filter(|o| o.error_head.is_some()).and_then(|o| o.error_line.clone()))
                .flatten(),
        }
    }

    /// The assistant's first words about what just happened, after position `pos` and
    /// no later than `until` (the next call of the story: words after it are about that):
    /// its first statement in the next assistant message with text that shares a word
    /// with `topic` (the command and its error), so that "Phase 4 completed." is not
    /// told as its reading of a failed `cargo fmt`.
    fn reading_after(&self, pos: usize, until: usize, topic: &str) -> Option<Quote> {
        let topic = content_words(topic);
        let m = self
            .session
            .messages
            .iter()
            .enumerate()
            .skip(pos + 1)
            .take(3)
            .take_while(|(p, _)| *p <= until)
            .map(|(_, m)| m)
            .find(|m| m.role == Role::Assistant && !m.text.trim().is_empty())?;
        // Its first statement that is not a plan or a question ("Let me…" says what it
        // will do, not what it made of it), and says something (not "Great!").
        let text = claims::statements(&m.text, QUOTE)
            .into_iter()
            .find(|s| {
                !matches!(s.kind, Kind::Plan | Kind::Question)
                    && s.text.split_whitespace().count() >= 4
                    && !s.text.trim_end().ends_with(':')
                    && !content_words(&s.text).is_disjoint(&topic)
            })?
            .text;
        Some(Quote { idx: m.idx, text })
    }

    /// The session's main problems, told as stories (see the module's documentation).
    pub(super) fn stories(&self) -> Vec<Story> {
        let s = self.session;
        let mut out: Vec<Story> = Vec::new();
        // Stories already told: subject, error shape, the position up to which the story
        // reaches, and its first failure (error and command line).
        type Told = (String, Option<String>, usize, Option<String>, Option<String>);
        let mut told: Vec<Told> = Vec::new();
        for (pos, m) in s.messages.iter().enumerate() {
            for (f, c) in self.facts_of(m).iter().zip(&m.calls) {
                // A search that finds nothing is no failure; a call the user stopped is
                // theirs; a look that ran and failed (`ls Dockerfile*`, a `cat` of a
                // missing file) is a question answered, not a problem — but a look the
                // harness refused before it ran (no exit code: "Command rejected because
                // it could not be parsed safely") answered nothing.
                let ran = f.output.as_ref().is_some_and(|o| o.exit_code.is_some())
                    || c.result.as_ref().is_some_and(|r| r.timed_out)
                    || f.action == "wait"
                    // A tool with no command line that looks at files (`Read`, `Glob`) ran
                    // whenever it answered: "File does not exist." is what it found — unless
                    // the answer is the harness refusing it ("Permission to use … has been
                    // auto-denied"). A fetch from the web that errs failed to look at all.
                    || (c.command.is_none()
                        && !WEB_TOOLS.contains(&c.name.to_lowercase().as_str())
                        && c.result.as_ref().is_some_and(|r| !harness_refused(&r.output)));
                // A version or usage probe the program answered with "Unknown option:
                // --version" shows the program runs: a question answered too.
                let answered = asks_version(f)
                    && ran
                    && f.output
                        .as_ref()
                        .and_then(|o| o.error_line.as_deref())
                        .is_some_and(|l| UNKNOWN_OPTION.is_match(l));
                if !f.failed()
                    || f.action == "search"
                    || f.output.as_ref().is_some_and(|o| o.interrupted)
                    || (calls::only_looks(c) && ran)
                    || answered
                {
                    continue;
                }
                let subj = f.subject(Grain::Program);
                let error = self.attempt(m, f).error;
                let shape = error_shape(error.as_deref());
                if told.iter().any(|(t, sh, end, e, cmd)| {
                    *end >= pos
                        && (subjects(f).contains(t)
                            || (sh.is_some() && *sh == shape)
                            || same_root((e.as_deref(), cmd.as_deref()), (error.as_deref(), f.command.as_deref())))
                }) {
                    continue;
                }
                let story = self.story_from(pos, m, f, subj.clone());
                let end = story.resolved.as_ref().or(story.attempts.last()).map_or(pos, |a| self.pos_of(a.idx));
                told.push((subj, shape, end.max(self.pos_of(story.last_failure)), error, f.command.clone()));
                out.push(story);
            }
        }
        // The weightiest, told in the order they began.
        out.retain(|st| st.weight() >= 3);
        out.sort_by(|a, b| b.weight().cmp(&a.weight()).then(a.idx.cmp(&b.idx)));
        out.truncate(MAX);
        out.sort_by_key(|st| st.idx);
        // A story whose subject then failed another way hands over to the story told of
        // that failure, if there is one.
        let firsts: Vec<u32> = out.iter().map(|st| st.first.idx).collect();
        for st in &mut out {
            if st.changed.as_ref().is_some_and(|c| firsts.contains(&c.idx)) {
                st.situations.push("changed-told");
            }
        }
        // A remark told in one story is not told again in the next (one reading after
        // two failures belongs to the first).
        let mut said: Vec<(u32, String)> = Vec::new();
        let told = |said: &[(u32, String)], q: &Quote| said.iter().any(|(i, t)| *i == q.idx && *t == q.text);
        for st in &mut out {
            for q in [&mut st.reading, &mut st.after] {
                if q.as_ref().is_some_and(|q| told(&said, q)) {
                    *q = None;
                }
            }
            st.user.retain(|q| !told(&said, q));
            said.extend(st.reading.iter().chain(&st.after).chain(&st.user).map(|q| (q.idx, q.text.clone())));
        }
        out
    }

    /// The story of the failing call `f` in message `m` (at position `pos`) on subject
    /// `subj`: its attempts until it was resolved or changed, what was read of it, what
    /// the user said, and the findings within it.
    fn story_from(&self, pos: usize, m: &Message, f: &CallFacts, subj: String) -> Story {
        let mut st = self.first_failure(m, f, subj);
        let topic = format!(
            "{} {} {}",
            f.command.as_deref().unwrap_or(&f.tool),
            f.file.as_deref().unwrap_or(""),
            st.first.error.as_deref().unwrap_or("")
        );
        let end = (pos + SPAN).min(self.session.messages.len());
        let stop = self.follow_attempts(pos, end, m, f, &topic, &mut st);
        // Words after the subject's next call, told or not (a `--version` probe), are
        // about that call.
        let next_call = self
            .session
            .messages
            .iter()
            .enumerate()
            .skip(pos + 1)
            .find(|(_, n)| self.facts_of(n).iter().any(|g| subjects(g).contains(&st.subject)))
            .map_or(usize::MAX, |(p, _)| p);
        let next = st.attempts.first().or(st.resolved.as_ref()).map_or(usize::MAX, |a| self.pos_of(a.idx));
        st.reading = self.reading_after(pos, next.min(next_call), &topic);
        let last = self.user_words(pos, end, stop, f, &topic, &mut st);
        self.close(pos, last, &mut st);
        st
    }

    /// A story with its first failure and nothing after it yet.
    fn first_failure(&self, m: &Message, f: &CallFacts, subj: String) -> Story {
        let first = self.attempt(m, f);
        Story {
            idx: m.idx,
            seed: m.idx,
            detector: "_story",
            situations: Vec::new(),
            subject: subj,
            reading: None,
            first,
            attempts: Vec::new(),
            more_attempts: 0,
            failures: 1,
            user: Vec::new(),
            resolved: None,
            resolved_by: None,
            changed: None,
            same_command: false,
            after: None,
            took: None,
            findings: Vec::new(),
            last_failure: m.idx,
            never_again: false,
        }
    }

    /// The calls after the first failure that try the same thing again, until one
    /// succeeds (the story is resolved) or fails in another way (the problem changed);
    /// returns the position of the last one.
    fn follow_attempts(
        &self,
        pos: usize,
        end: usize,
        m: &Message,
        f: &CallFacts,
        topic: &str,
        st: &mut Story,
    ) -> usize {
        // Later calls of the same message count too (parallel calls after the failing one).
        let own = self.facts_of(m).iter().position(|x| std::ptr::eq(x, f)).unwrap_or(0);
        let mut stop = pos;
        for (p, n) in self.session.messages.iter().enumerate().take(end).skip(pos) {
            if p > pos
                && let Some(q) = self.user_remark(n, topic)
            {
                st.user.push(q);
            }
            for (i, g) in self.facts_of(n).iter().enumerate() {
                if p == pos && i <= own {
                    continue;
                }
                let Some(same) = self.goes_on(f, g, n, p, pos, st) else { continue };
                let a = self.attempt(n, g);
                if self.problem_changed(f, g, &a, st) {
                    st.changed = Some(a);
                    return stop;
                }
                stop = p;
                if a.failed {
                    Self::failed_again(n, a, st);
                    continue;
                }
                self.resolve(m, f, (p, n), g, same, a, topic, st);
                return stop;
            }
        }
        stop
    }

    /// What the user typed about the story in message `n`, if it is a typed turn about it:
    /// a remark, or words shared with the command or its error ("fix the temp file
    /// permissions"), not the name of the next task ("Phase 5", "T026-T030").
    fn user_remark(&self, n: &Message, topic: &str) -> Option<Quote> {
        let about = n.is_typed_user()
            && !n.text.trim().is_empty()
            && (request_text(&n.text).split_whitespace().count() >= 4
                || !content_words(&request_text(&n.text)).is_disjoint(&content_words(topic)));
        about.then(|| Quote { idx: n.idx, text: clip(&one_line(&request_text(&n.text)), QUOTE) })
    }

    /// Whether attempt `a` (call `g`) ends the story as changed. After failing the same way more than once, a failure of another shape on another
    /// command line means the problem told here is over: that one is the next story's. So
    /// does any failure without the root cause the attempts so far shared, on whatever
    /// command line (the script whose line endings were fixed now says "Not on a feature
    /// branch").
    fn problem_changed(&self, f: &CallFacts, g: &CallFacts, a: &Attempt, st: &Story) -> bool {
        let first_shape = error_shape(st.first.error.as_deref());
        let first_root = (st.first.error.as_deref(), f.command.as_deref());
        let rooted = |x: &Attempt| same_root(first_root, (x.error.as_deref(), Some(x.command.as_str())));
        let same_way = |x: &Attempt| error_shape(x.error.as_deref()) == first_shape || rooted(x);
        let by_root = !st.attempts.is_empty() && st.attempts.iter().all(rooted);
        a.failed
            && st.failures >= 2
            && subjects(g).contains(&st.subject)
            && error_shape(a.error.as_deref()) != first_shape
            && !same_root(first_root, (a.error.as_deref(), g.command.as_deref()))
            && (g.command != f.command || by_root)
            && st.attempts.iter().all(same_way)
    }

    /// One more failed attempt of message `n`: counted, and kept among the first three.
    fn failed_again(n: &Message, a: Attempt, st: &mut Story) {
        st.failures += 1;
        st.last_failure = n.idx;
        if st.attempts.len() < 3 {
            st.attempts.push(a);
        } else {
            st.more_attempts += 1;
        }
    }

    /// The story resolved by attempt `a` (call `g` of message `n` at position `p`), the
    /// subject itself (`same`) or another command: how long it took since the first
    /// failure (in `m`), and the assistant's words after it, up to the next failure of
    /// whatever (words after that are about that one).
    #[allow(clippy::too_many_arguments)]
    fn resolve(
        &self,
        m: &Message,
        f: &CallFacts,
        (p, n): (usize, &Message),
        g: &CallFacts,
        same: bool,
        a: Attempt,
        topic: &str,
        st: &mut Story,
    ) {
        st.resolved_by = Some(if same { "same" } else { "other" });
        st.same_command = f.command.is_some() && g.command == f.command;
        st.took = secs_between(m.timestamp, n.timestamp).filter(|t| *t >= 60).map(duration);
        st.resolved = Some(a);
        let next_failure = self
            .session
            .messages
            .iter()
            .enumerate()
            .skip(p + 1)
            .find(|(_, n)| self.facts_of(n).iter().any(|h| h.failed()))
            .map_or(usize::MAX, |(q, _)| q.saturating_sub(1));
        st.after =
            self.reading_after(p, next_failure, topic).filter(|q| q.idx != st.reading.as_ref().map_or(0, |r| r.idx));
    }

    /// Whether call `g` (of message `n`, at position `p`) tries the story's thing again:
    /// `Some(true)` for the same subject or the same error, `Some(false)` for another
    /// command doing the same thing right after, `None` for a call that says nothing of it.
    fn goes_on(&self, f: &CallFacts, g: &CallFacts, n: &Message, p: usize, pos: usize, st: &Story) -> Option<bool> {
        let first_shape = error_shape(st.first.error.as_deref());
        let g_error = self.attempt(n, g).error;
        let g_shape = error_shape(g_error.as_deref());
        // The same subject, or another command failing with the same error
        // (`cargo fmt` and `cargo check` both refused a temp file by rustup).
        let same = subjects(g).contains(&st.subject)
            || (g.failed() && first_shape.is_some() && g_shape == first_shape)
            || (g.failed()
                && same_root(
                    (st.first.error.as_deref(), f.command.as_deref()),
                    (g_error.as_deref(), g.command.as_deref()),
                ));
        let other = !same
            && p <= pos + 2
            && st.attempts.is_empty()
            && !g.failed()
            && g.output.is_some()
            && f.command.as_deref().zip(g.command.as_deref()).is_some_and(|(a, b)| same_thing(a, b));
        if !same && !other {
            return None;
        }
        // A call whose result never came says nothing either way; nor does asking
        // the program for its version and getting it (a failed one is a failure
        // like any other); a read of a
        // background command's output is that run again, not another attempt.
        // A probe the program answered with another error than the story's
        // ("Unknown option: --version" after `ralph --help | head` found no
        // `head`) asked something else of it: no retry either.
        if g.output.as_ref().is_none_or(|o| o.interrupted)
            || (asks_version(g) && !asks_version(f) && !g.failed())
            || (asks_version(g) && g.failed() && g_shape != first_shape)
            || g.continues.is_some()
        {
            return None;
        }
        Some(same)
    }

    /// What the user said of it, told once: at most two remarks within the story, or,
    /// unresolved and never retried, a turn soon after or one naming what failed.
    /// Returns the last message the story reaches.
    fn user_words(&self, pos: usize, end: usize, stop: usize, f: &CallFacts, topic: &str, st: &mut Story) -> u32 {
        // What the user typed after the story's last call is another story's.
        let mut last = st.resolved.as_ref().map(|a| a.idx).unwrap_or_else(|| self.session.messages[stop].idx);
        if st.resolved.is_some() || !st.attempts.is_empty() {
            st.user.retain(|q| q.idx < last);
            // Two at most: the ones about it (sharing a word with the command or its
            // error: "fix the temp file permissions") before other remarks.
            let about = |q: &Quote| !content_words(&q.text).is_disjoint(&content_words(topic));
            let mut keep: Vec<Quote> = st.user.iter().filter(|q| about(q)).take(2).cloned().collect();
            keep.extend(st.user.iter().filter(|q| !about(q)).take(2 - keep.len()).cloned());
            keep.sort_by_key(|q| q.idx);
            st.user = keep;
        } else {
            // Unresolved and never retried: a user turn soon after counts, or one that
            // names what failed (the user ran it themselves, or pasted its output).
            let named = |n: &Message| {
                f.program.len() >= 5
                    && n.text.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-').any(|w| w == f.program)
            };
            st.user.clear();
            let typed = self
                .session
                .messages
                .iter()
                .enumerate()
                .take(end)
                .skip(pos + 1)
                .filter(|(_, n)| n.is_typed_user() && !n.text.trim().is_empty());
            if let Some((p, n)) =
                typed.clone().find(|(_, n)| named(n)).or_else(|| typed.clone().next().filter(|(p, _)| *p <= pos + 6))
            {
                st.user.push(Quote { idx: n.idx, text: clip(&one_line(&request_text(&n.text)), QUOTE) });
                if named(n) {
                    st.situations.push("user-named-it");
                    st.after = self.reading_after(p, usize::MAX, topic);
                    last = st.after.as_ref().map_or(n.idx, |q| q.idx);
                }
            }
        }
        last
    }

    /// Whether the subject was never tried again, the findings the story spans, and the
    /// situation it ends in.
    fn close(&self, pos: usize, last: u32, st: &mut Story) {
        if st.resolved.is_none() {
            let lp = self.pos_of(st.last_failure);
            st.never_again = !self
                .session
                .messages
                .iter()
                .skip(lp + 1)
                .any(|n| self.facts_of(n).iter().any(|g| subjects(g).contains(&st.subject)));
        }
        let reach = self.pos_of(last).max(pos);
        for fd in self.findings {
            let kp = self.pos_of(fd.key);
            if kp >= pos && kp <= reach && !st.findings.iter().any(|(d, k)| *d == fd.detector && *k == fd.key) {
                st.findings.push((fd.detector.clone(), fd.key));
            }
        }
        st.situations.push(match st.resolved_by {
            Some("same") => "resolved",
            Some(_) => "resolved-other",
            _ if !st.attempts.is_empty() => "unresolved-retried",
            _ => "unresolved",
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{harness_refused, same_root};

    #[test]
    fn a_refusal_by_the_harness_is_not_an_answer() {
        assert!(harness_refused("Permission to use WebFetch has been auto-denied in dontAsk mode."));
        assert!(harness_refused("<tool_use_error>Permission to use Bash has been denied.</tool_use_error>"));
        // Near miss: what a look found, however it is worded.
        assert!(!harness_refused("<tool_use_error>File does not exist.</tool_use_error>"));
        assert!(!harness_refused("Permission to use the camera is set in Info.plist"));
    }

    #[test]
    fn windows_line_endings_are_one_root_cause() {
        let (run, via_bash) =
            (".specify/scripts/bash/setup-plan.sh --json", "bash .specify/scripts/bash/setup-plan.sh --json");
        let env = "/usr/bin/env: ‘bash\\r’: No such file or directory";
        let bash = ".specify/scripts/bash/setup-plan.sh: line 2: $'\\r': command not found";
        assert!(same_root((Some(env), Some(run)), (Some(bash), Some(via_bash))));
        // Near miss: the same carriage return in another script is another story.
        assert!(!same_root((Some(env), Some(run)), (Some(bash), Some("bash tools/other.sh"))));
    }
}
