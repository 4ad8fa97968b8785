//! The story around a moment: which earlier (or later) events matter and how they group
//! — the campaign's milestones (requests, results with numbers, plans written down), an
//! experiment (a launch, the wait on it, the error it ended in, the assistant's verdict),
//! edits with the purpose the assistant gave, failures with their error line,
//! conclusions and retractions — and each finding's own facts ("moments"), ready to be
//! woven into those beats. Facts only, each with the message it came from; the wording
//! is in `templates/phrases.toml` (`beat.<kind>`, `moment`).

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::context::{Change, Context, QUOTE, Quote};
use crate::analysis::call_facts::CallFacts;
use crate::analysis::calls::is_note;
use crate::analysis::claims::{self, Kind, is_nudge};
use crate::analysis::liveness;
use crate::analysis::text::human_bytes;
use crate::analysis::text::{clip, clock, duration, one_line, secs_between, sentences, split_sentences};
use crate::detect::{self, Cited, Details, Finding, Undoing};
use crate::model::{Message, Origin, Role};

/// Messages back from a moment that its "recent" story may reach.
const RECENT_SPAN: usize = 60;
/// Beats kept in the recent part of a story and among the earlier milestones.
const RECENT_BEATS: usize = 9;
const MILESTONES: usize = 7;
/// Exit codes of a process stopped on purpose (Ctrl-C, SIGTERM), not a failure.
const STOPPED: [i32; 2] = [130, 143];
/// The exit code of `timeout` (and of Codex's and Gemini CLI's time limits) when it stopped the command.
const TIME_LIMIT: i32 = 124;
/// Messages after a launch searched for its wait, error and verdict.
const EXPERIMENT_SPAN: usize = 10;

/// One edit, with the purpose its message states.
#[derive(Debug, Clone, Serialize)]
pub struct EditFacts {
    pub idx: u32,
    /// The file's last path component, for prose.
    pub file: String,
    pub path: String,
    pub purpose: Option<String>,
}

/// A wait on a process and how it ended.
#[derive(Debug, Clone, Serialize)]
pub struct WaitFacts {
    pub idx: u32,
    pub command: Option<String>,
    pub probe: Option<String>,
    pub attempts: Option<u64>,
    pub interval: Option<String>,
    /// How long the call ran, and the attempts' sleeps added up.
    pub elapsed: Option<String>,
    pub elapsed_secs: Option<i64>,
    pub budget: Option<String>,
    /// The line that says how it ended.
    pub line: Option<String>,
    /// ready, alarm, timeout, ended
    pub outcome: &'static str,
    /// The message's own words about the wait.
    pub purpose: Option<String>,
}

/// A launch and what became of it.
#[derive(Debug, Clone, Serialize)]
pub struct Experiment {
    pub idx: u32,
    pub time: Option<String>,
    /// The entry point (`sglang.launch_server`, `train.py`).
    pub label: String,
    pub command: Option<String>,
    pub core: Option<String>,
    /// The launch message's own words.
    pub purpose: Option<String>,
    /// The previous launch of the same program and what changed since.
    pub previous: Option<Quote>,
    pub changes: Vec<Change>,
    /// Changed settings that do not change what runs (a port, a host, a log path):
    /// shown in the launch table, not counted as changes.
    /// (Left out when empty: phrase variants are chosen by a hash of the facts.)
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inert_changes: Vec<Change>,
    /// Code edited between the two launches (from the finding when there is one).
    pub edits: Vec<EditFacts>,
    /// Settings and code, counted as the `confounded-change` detector counts them.
    pub change_count: usize,
    pub wait: Option<WaitFacts>,
    /// The error line the process ended with.
    pub error: Option<Quote>,
    /// The exit code the launch's command line ended with, when not 0: its own result,
    /// or (started in the background) what a later read of its output reported.
    pub exit_code: Option<Quote>,
    /// The assistant's conclusion about it, and what it said it would do next.
    pub verdict: Option<Quote>,
    pub next: Option<Quote>,
    /// How the launch's own command line ended, when it did: `time-limit` (the tool's
    /// time limit stopped it while it still ran, exit code 124), `stopped` (by the
    /// person), `exited` (exit code 0) — and after how long.
    /// (Left out when unknown: phrase variants are chosen by a hash of the facts.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran_for: Option<String>,
    /// ready, failed, alarm, timeout, time-limit, unknown
    pub outcome: &'static str,
}

/// A search and what it returned.
#[derive(Debug, Clone, Serialize)]
pub struct SearchFacts {
    pub idx: u32,
    /// The command line, for a shell search; else the tool that searched.
    pub command: Option<String>,
    pub tool: String,
    pub program: String,
    pub pattern: Option<String>,
    pub file: Option<String>,
    pub lines: usize,
    pub chars: usize,
    pub share: u32,
    pub dump: Option<String>,
    pub dump_size: Option<String>,
    pub dump_words: Vec<String>,
    pub truncated: Option<String>,
    /// What the message said it was looking for.
    pub purpose: Option<String>,
}

/// A long structured message: a recap.
#[derive(Debug, Clone, Serialize)]
pub struct Recap {
    pub idx: u32,
    pub chars: usize,
    /// How many times the session's median assistant text it is.
    pub times: Option<usize>,
    pub headings: Vec<String>,
    pub opening: String,
    /// The first items under a "next steps" heading, as written.
    pub next_steps: Vec<String>,
}

/// The first list items under a heading that names next steps.
fn next_steps(text: &str) -> Vec<String> {
    let mut under = false;
    let mut out = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        if t.starts_with('#') || (t.starts_with("**") && t.ends_with("**")) {
            let h = t.trim_start_matches('#').trim_matches('*').trim().to_lowercase();
            under = ["next", "todo", "to do", "remaining", "pending", "what to do"].iter().any(|w| h.contains(w));
            continue;
        }
        if !under {
            continue;
        }
        let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
        let item = if let Some(r) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
            Some(r)
        } else if digits > 0 && t[digits..].starts_with(". ") {
            Some(&t[digits + 2..])
        } else {
            None
        };
        if let Some(i) = item {
            out.push(clip(&one_line(i), 200));
            if out.len() >= 2 {
                break;
            }
        }
    }
    out
}

/// A finding's own facts, for weaving into prose.
#[derive(Debug, Clone, Serialize)]
pub struct Moment {
    /// Phrase table: the detector id.
    pub detector: String,
    pub situations: Vec<&'static str>,
    pub seed: u32,
    pub key: u32,
    pub time: Option<String>,
    /// The finding's one-line summary (redacted), for wording that needs no more.
    pub summary: String,
    pub evidence: Vec<u32>,
    /// confounded-change: the relaunch with its changes.
    pub experiment: Option<Experiment>,
    /// false-crash-alarm: the verdict as printed or said; what the check looked for;
    /// output lines that set it off.
    pub alarm: Option<Quote>,
    pub probe: Option<String>,
    pub triggers: Vec<String>,
    /// What later showed the alarm or claim wrong, and of what kind (retraction,
    /// progress, ready).
    pub disproof: Option<Quote>,
    pub disproof_kind: Option<&'static str>,
    /// self-correction: what was claimed and how it was taken back (user-pushback:
    /// what the assistant said and the person's pushback).
    pub claim: Option<Quote>,
    pub retraction: Option<Quote>,
    /// Messages and time between the claim or alarm and its disproof.
    pub distance: Option<u32>,
    pub elapsed: Option<String>,
    /// noisy-search, grep-tail-pivot: the searches; the positional read.
    pub searches: Vec<SearchFacts>,
    pub read: Option<CallFacts>,
    pub dismissal: Option<String>,
    /// polling-timeout (and a crash alarm's wait).
    pub wait: Option<WaitFacts>,
    /// retry-loop: each run and the line it failed with (oscillation: each flip and
    /// the command or file that made it).
    pub runs: Vec<Quote>,
    pub command: Option<String>,
    /// oscillation: what went back and forth (a file, a program, two commands) and its
    /// two states, the first one first; `runs` are then the switches, each with the
    /// state it switched to.
    pub flipped: Option<String>,
    pub states: Vec<String>,
    /// context-dump.
    pub recap: Option<Recap>,
    /// empty-user-turn: the pause before it, what came just before, the reply.
    pub gap: Option<String>,
    pub before: Option<Quote>,
    pub reply: Option<Quote>,
    pub reply_chars: usize,
}

/// One thing that happened, told as one or two sentences.
#[derive(Debug, Clone, Serialize)]
pub struct Beat {
    /// goal, request, empty-turn, interrupt, compacted, milestone, plan-file, experiment,
    /// edits, failure, test, wait, search, read, conclusion, retraction, recap, finding
    pub kind: &'static str,
    pub idx: u32,
    pub time: Option<String>,
    /// `first`, `after-<kind>` (the beat before it), and kind-specific ones
    /// (`confounded`, `failed`, `alarm`, `numbers`, …): phrase keys `beat.<kind>.<situation>`.
    pub situations: Vec<&'static str>,
    pub seed: u32,
    /// Sentences of message `idx`.
    pub quotes: Vec<String>,
    /// What the message said it would do next.
    pub next: Vec<String>,
    pub command: Option<String>,
    pub detail: Option<String>,
    pub elapsed: Option<String>,
    pub file: Option<String>,
    pub items: Vec<String>,
    pub item_count: usize,
    pub edits: Vec<EditFacts>,
    /// Runs of the same kind folded into this beat (tests that all passed alike).
    pub runs: Vec<Quote>,
    /// The edits by file, in order of first edit; at most a few, `more_edits` counts
    /// the rest.
    pub groups: Vec<EditGroup>,
    pub more_edits: usize,
    pub experiment: Option<Experiment>,
    pub wait: Option<WaitFacts>,
    pub recap: Option<Recap>,
    /// The question the message ends with, when it is not already quoted: the assistant
    /// handing the session back to the user.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Findings keyed on this beat's messages, oldest first.
    pub moments: Vec<Moment>,
}

/// Edits of one file.
#[derive(Debug, Clone, Serialize)]
pub struct EditGroup {
    pub file: String,
    pub edits: Vec<EditFacts>,
}

/// Files and edits per file an edits beat names; the rest are counted.
const EDIT_FILES: usize = 3;
const EDITS_PER_FILE: usize = 3;

fn group_edits(edits: &[EditFacts]) -> (Vec<EditGroup>, usize) {
    let mut groups: Vec<EditGroup> = Vec::new();
    let mut more = 0;
    // Two files of one name in different folders (`examples/loadtest/README.md`,
    // `docs/README.md`) are two files: named by their folder too, grouped by path.
    let name = |e: &EditFacts| {
        if edits.iter().any(|o| o.file == e.file && o.path != e.path) {
            let parts: Vec<&str> = e.path.rsplit(['/', '\\']).take(2).collect();
            parts.into_iter().rev().collect::<Vec<_>>().join("/")
        } else {
            e.file.clone()
        }
    };
    let mut paths: Vec<String> = Vec::new();
    for e in edits {
        let n = groups.len();
        match paths.iter().position(|p| *p == e.path) {
            Some(i) if groups[i].edits.len() < EDITS_PER_FILE => groups[i].edits.push(e.clone()),
            Some(_) => more += 1,
            None if n < EDIT_FILES => {
                paths.push(e.path.clone());
                groups.push(EditGroup { file: name(e), edits: vec![e.clone()] });
            }
            None => more += 1,
        }
    }
    (groups, more)
}

/// Beats that read as one paragraph.
#[derive(Debug, Clone, Serialize)]
pub struct Paragraph {
    pub beats: Vec<Beat>,
}

impl Beat {
    fn new(kind: &'static str, m: &Message) -> Beat {
        Beat {
            kind,
            idx: m.idx,
            time: clock(m.timestamp),
            situations: Vec::new(),
            seed: m.idx,
            quotes: Vec::new(),
            next: Vec::new(),
            command: None,
            detail: None,
            elapsed: None,
            file: None,
            items: Vec::new(),
            item_count: 0,
            edits: Vec::new(),
            runs: Vec::new(),
            groups: Vec::new(),
            more_edits: 0,
            experiment: None,
            wait: None,
            recap: None,
            question: None,
            moments: Vec::new(),
        }
    }

    /// A message told by its own words.
    pub fn said(m: &Message, quote: String) -> Beat {
        let mut b = Beat::new("said", m);
        b.quotes.push(quote);
        b
    }

    /// Every message the beat cites.
    pub fn cites(&self) -> Vec<u32> {
        let mut v = vec![self.idx];
        v.extend(self.edits.iter().map(|e| e.idx));
        v.extend(self.runs.iter().map(|r| r.idx));
        if let Some(x) = &self.experiment {
            v.extend(x.cites());
        }
        if let Some(w) = &self.wait {
            v.push(w.idx);
        }
        for m in &self.moments {
            v.extend(m.cites());
        }
        v
    }

    /// How much the beat matters when a story has to be cut.
    fn weight(&self) -> u8 {
        if !self.moments.is_empty() {
            return 9;
        }
        match self.kind {
            "experiment" | "goal" => 8,
            "request" | "retraction" | "failure" | "stopped" | "empty-turn" | "interrupt" | "compacted" => 7,
            "plan-file" | "test" | "recap" | "wait" => 6,
            "conclusion" => 5,
            "edits" => 4,
            _ => 3,
        }
    }
}

impl Experiment {
    pub fn cites(&self) -> Vec<u32> {
        let mut v = vec![self.idx];
        v.extend(self.previous.iter().map(|q| q.idx));
        v.extend(self.edits.iter().map(|e| e.idx));
        v.extend(self.wait.iter().map(|w| w.idx));
        v.extend(self.error.iter().map(|q| q.idx));
        v.extend(self.verdict.iter().map(|q| q.idx));
        v.extend(self.next.iter().map(|q| q.idx));
        v
    }
}

impl Moment {
    /// A finding's moment before its details are told: what every finding has.
    fn of(f: &Finding, time: Option<String>) -> Moment {
        Moment {
            detector: f.detector.clone(),
            situations: Vec::new(),
            seed: f.key,
            key: f.key,
            time,
            summary: f.summary.clone(),
            evidence: f.evidence.clone(),
            experiment: None,
            alarm: None,
            probe: None,
            triggers: Vec::new(),
            disproof: None,
            disproof_kind: None,
            claim: None,
            retraction: None,
            distance: None,
            elapsed: None,
            searches: Vec::new(),
            read: None,
            dismissal: None,
            wait: None,
            runs: Vec::new(),
            command: f.command.as_deref().map(|c| clip(&one_line(c), 140)),
            flipped: None,
            states: Vec::new(),
            recap: None,
            gap: None,
            before: None,
            reply: None,
            reply_chars: 0,
        }
    }

    pub fn cites(&self) -> Vec<u32> {
        let mut v = vec![self.key];
        if let Some(x) = &self.experiment {
            v.extend(x.cites());
        }
        for q in [&self.alarm, &self.disproof, &self.claim, &self.retraction, &self.before, &self.reply]
            .into_iter()
            .flatten()
        {
            v.push(q.idx);
        }
        v.extend(self.searches.iter().map(|s| s.idx));
        v.extend(self.runs.iter().map(|q| q.idx));
        v.extend(self.wait.iter().map(|w| w.idx));
        v.extend(self.recap.iter().map(|r| r.idx));
        v
    }
}

fn basename(p: &str) -> String {
    p.rsplit('/').next().unwrap_or(p).to_string()
}

/// The first statement of `kinds` in `text`.
fn first_of(text: &str, kinds: &[Kind]) -> Option<String> {
    claims::first_of(text, kinds, QUOTE)
}

/// A file that holds a plan: named like one, or written by a message that calls it one.
fn plan_items(m: &Message, call: &crate::model::Call) -> Option<(String, Vec<String>)> {
    let path = ["file_path", "path"].iter().find_map(|k| call.input.get(*k).and_then(|v| v.as_str()))?;
    let content = call.input.get("content").and_then(|v| v.as_str())?;
    let named = {
        let b = basename(path).to_lowercase();
        ["plan", "roadmap", "todo", "priorit", "strategy", "design"].iter().any(|w| b.contains(w))
    };
    let called = {
        let t = m.text.to_lowercase();
        ["plan", "roadmap", "priorit", "strategy"].iter().any(|w| t.contains(w))
    };
    let items: Vec<String> = content
        .lines()
        .map(str::trim)
        .filter(|l| {
            let digits = l.chars().take_while(|c| c.is_ascii_alphanumeric()).count();
            l.starts_with("- ")
                || l.starts_with("* ")
                || (digits > 0
                    && digits <= 3
                    && l[digits..].starts_with(". ")
                    && l.chars().next().is_some_and(|c| c.is_ascii_digit()))
        })
        .map(|l| clip(&one_line(l), 90))
        .collect();
    ((named || called) && items.len() >= 3).then(|| (path.to_string(), items))
}

/// The story of a session over its context: beats and moments, told around a message.
#[derive(Clone, Copy)]
pub struct Story<'a> {
    cx: &'a Context<'a>,
}

impl<'a> Story<'a> {
    pub fn new(cx: &'a Context<'a>) -> Story<'a> {
        Story { cx }
    }

    /// The wait call of message `m`, described.
    pub(super) fn wait_of(&self, m: &Message) -> Option<WaitFacts> {
        let c = self.cx.facts_of(m).iter().find(|c| c.action == "wait")?;
        let o = c.output.as_ref();
        let pick = |k: &str| o.and_then(|o| o.revealing.iter().find(|r| r.kind == k).map(|r| r.line.clone()));
        let timeout = pick("alarm").filter(|l| {
            let l = l.to_lowercase();
            l.contains("timed out") || l.contains("timeout") || l.contains("gave up") || l.contains("giving up")
        });
        let ready = o.and_then(|o| o.last_line.clone()).filter(|l| {
            let l = l.to_lowercase();
            l.contains("ready") && !l.contains("not ready")
        });
        let (outcome, line) = if let Some(t) = timeout {
            ("timeout", Some(t))
        } else if let Some(a) = pick("alarm") {
            ("alarm", Some(a))
        } else if let Some(r) = ready {
            ("ready", Some(r))
        } else {
            ("ended", o.and_then(|o| o.last_line.clone()))
        };
        let budget = match (c.attempts, c.interval_secs) {
            (Some(n), Some(s)) if n > 0 && s > 0 => Some(duration((n * s) as i64)),
            _ => None,
        };
        Some(WaitFacts {
            idx: m.idx,
            command: c.command_short.clone(),
            probe: c.probe.clone(),
            attempts: c.attempts,
            interval: c.interval_secs.map(|s| duration(s as i64)),
            elapsed: c.seconds.map(duration),
            elapsed_secs: c.seconds,
            budget,
            line,
            outcome,
            purpose: first_of(&m.text, &[Kind::Plan, Kind::Reason, Kind::Other]),
        })
    }

    /// Settings changed between the launch in `m` and the previous launch of the same
    /// entry point: the previous launch, the changes (a `MIN_`/`MAX_` pair counts as one
    /// setting), and apart from them the inert ones (ports, hosts, log paths).
    fn launch_changes(&self, m: &Message) -> (Option<Quote>, Vec<Change>, Vec<Change>) {
        let (changes, prev) = self.cx.changes_since_previous_launch(m);
        let Some(prev) = prev else { return (None, vec![], vec![]) };
        let (inert, changes): (Vec<Change>, Vec<Change>) = changes.into_iter().partition(|c| inert_setting(&c.setting));
        let mut merged: Vec<Change> = Vec::new();
        for c in changes {
            let pair = c.setting.replace("_MIN_", "_MAX_").replace("MIN_", "MAX_");
            if let Some(m) = merged
                .iter_mut()
                .find(|m| m.setting != c.setting && m.setting.replace("_MIN_", "_MAX_").replace("MIN_", "MAX_") == pair)
            {
                // MIN before MAX, as people write the pair.
                let (lo, hi) = if c.setting.contains("MIN") { (c.clone(), m.clone()) } else { (m.clone(), c) };
                let join = |a: &Option<String>, b: &Option<String>| match (a, b) {
                    (None, None) => None,
                    _ => Some(format!("{}/{}", a.as_deref().unwrap_or("unset"), b.as_deref().unwrap_or("unset"))),
                };
                m.setting = format!("{}/{}", lo.setting, hi.setting);
                m.before = join(&lo.before, &hi.before);
                m.after = join(&lo.after, &hi.after);
                continue;
            }
            merged.push(c);
        }
        (Some(Quote { idx: prev.idx, text: prev.command.clone().unwrap_or_default() }), merged, inert)
    }

    /// Edits (files) made in messages strictly between positions `a` and `b`.
    fn edits_between(&self, a: usize, b: usize) -> Vec<EditFacts> {
        let mut out = Vec::new();
        for m in &self.cx.session.messages[a.min(b)..b] {
            out.extend(self.code_edits_of(m));
        }
        out
    }

    /// The files message `m` changes — with editing tools, or from the shell (`sed -i`,
    /// redirections, `tee`) — with the purpose its text states.
    fn edits_of(&self, m: &Message) -> Vec<EditFacts> {
        let mut files: Vec<String> = Vec::new();
        for (c, f) in m.calls.iter().zip(self.cx.facts_of(m)) {
            // An edit the tool refused or that failed ("Expected 2 occurrences but found
            // 1") changed nothing.
            if f.failed() {
                continue;
            }
            let mut these = crate::analysis::calls::edited_files(c);
            if these.is_empty() && matches!(f.action, "edit" | "write") {
                these.extend(f.file.clone());
            }
            // An edit whose file the transcript does not name counts, unnamed.
            for p in these {
                let p = if p.starts_with('(') { String::new() } else { p };
                if !files.contains(&p) {
                    files.push(p);
                }
            }
        }
        if files.is_empty() {
            return Vec::new();
        }
        let purpose = first_of(&m.text, &[Kind::Plan, Kind::Reason, Kind::Conclusion, Kind::Other]);
        files
            .into_iter()
            .map(|path| EditFacts { idx: m.idx, file: basename(&path), path, purpose: purpose.clone() })
            .collect()
    }

    /// Edits that change what a launch runs: code and configuration, not notes.
    fn code_edits_of(&self, m: &Message) -> Vec<EditFacts> {
        self.edits_of(m).into_iter().filter(|e| !is_note(&e.path)).collect()
    }

    /// The launch in message `m` and what became of it, looking no further than
    /// position `limit`.
    pub(super) fn experiment(&self, m: &Message, limit: usize) -> Option<(Experiment, Vec<u32>)> {
        let launch = self.cx.facts_of(m).iter().find(|c| c.action == "launch")?;
        let pos = self.cx.pos_of(m.idx);
        let mut x = self.launched(m, launch, pos);
        let end = limit.min(pos + 1 + EXPERIMENT_SPAN).min(self.cx.session.messages.len());
        self.how_it_ended(m, pos, end, &mut x);
        let absorbed = self.what_followed(pos, end, &mut x);
        x.outcome = outcome_of(&x);
        Some((x, absorbed))
    }

    /// The experiment as launched: its command, purpose and what changed since the
    /// previous launch; what became of it is filled in by the steps after.
    fn launched(&self, m: &Message, launch: &CallFacts, pos: usize) -> Experiment {
        let (previous, changes, inert_changes) = self.launch_changes(m);
        // Edits count as a change of the launch only when the previous launch is close:
        // across hundreds of messages they are the session's work, not this launch's.
        let edits = match &previous {
            Some(p) if pos - self.cx.pos_of(p.idx) <= crate::detect::LOOKBACK => {
                self.edits_between(self.cx.pos_of(p.idx) + 1, pos)
            }
            _ => Vec::new(),
        };
        Experiment {
            idx: m.idx,
            time: clock(m.timestamp),
            label: launch.label.clone(),
            command: launch.command_short.clone(),
            core: launch.core.clone(),
            purpose: first_of(&m.text, &[Kind::Plan, Kind::Reason, Kind::Conclusion, Kind::Other]),
            change_count: changes.len() + usize::from(!edits.is_empty()),
            previous,
            changes,
            inert_changes,
            edits,
            wait: None,
            error: None,
            exit_code: None,
            ended: None,
            ran_for: None,
            verdict: None,
            next: None,
            outcome: "unknown",
        }
    }

    /// How the launch's own command line ended: its result, or, for a command left
    /// running in the background, the last read of its output that saw it end.
    fn how_it_ended(&self, m: &Message, pos: usize, end: usize, x: &mut Experiment) {
        let li = self.cx.facts_of(m).iter().position(|c| c.action == "launch").unwrap_or(0);
        if let Some(call) = m.calls.get(li) {
            let mut ended = call.result.as_ref().filter(|r| !r.running).map(|r| (m.idx, r, &self.cx.facts_of(m)[li]));
            for n in self.cx.session.messages.iter().take(end).skip(pos + 1) {
                // What the user said next comes after the launch's story, not inside it.
                if n.is_typed_user() && !is_nudge(&n.text) {
                    break;
                }
                for (c, f) in n.calls.iter().zip(self.cx.facts_of(n)) {
                    if c.continues.as_deref() == Some(call.id.as_str())
                        && !call.id.is_empty()
                        && let Some(r) = c.result.as_ref().filter(|r| r.exit_code.is_some() && !r.timed_out)
                    {
                        ended = Some((n.idx, r, f));
                    }
                }
            }
            // A launch sent to the background returns at once: its command line's end is
            // not the process's, unless a later read of its output saw it end.
            let detached = call.input.get("run_in_background").and_then(|v| v.as_bool()) == Some(true)
                || call.command.as_deref().is_some_and(|c| {
                    crate::shell::parse(c)
                        .commands
                        .iter()
                        .any(|s| s.background || s.via.iter().any(|v| v == "nohup" || v == "setsid"))
                });
            if let Some((idx, r, f)) = ended {
                // `timeout` exits 124: a server still running when the tool's time limit
                // came, not one that failed (whatever it printed meanwhile).
                x.ended = if detached && idx == m.idx {
                    None
                } else if r.timed_out || r.exit_code == Some(TIME_LIMIT) {
                    Some("time-limit")
                } else if r.interrupted {
                    Some("stopped")
                } else if r.exit_code == Some(0) {
                    Some("exited")
                } else {
                    None
                };
                x.ran_for = f.seconds.filter(|s| *s > 0 && x.ended.is_some()).map(duration);
                if let Some(code) = r.exit_code.filter(|c| *c != 0) {
                    x.exit_code = Some(Quote { idx, text: code.to_string() });
                    // 130 and 143 are Ctrl-C and SIGTERM: the server was stopped, it did not fail.
                    if !STOPPED.contains(&code) && x.ended.is_none() {
                        x.error = f.output.as_ref().and_then(|o| o.failure_line()).map(|text| Quote { idx, text });
                    }
                }
            }
        }
    }

    /// What followed the launch until the user spoke, the next launch or a finding of its
    /// own: the wait on it, the error read from its log, the assistant's verdict on it.
    /// Returns the messages its story takes in.
    fn what_followed(&self, pos: usize, end: usize, x: &mut Experiment) -> Vec<u32> {
        let mut absorbed = Vec::new();
        let mut wait_pos = None;
        for (j, n) in self.cx.session.messages.iter().enumerate().take(end).skip(pos) {
            if j > pos && (n.is_typed_user() && !is_nudge(&n.text)) {
                break;
            }
            let facts = self.cx.facts_of(n);
            if j > pos && facts.iter().any(|c| c.action == "launch") {
                break;
            }
            if x.wait.is_none()
                && let Some(w) = self.wait_of(n)
            {
                if j > pos {
                    absorbed.push(n.idx);
                }
                wait_pos = Some(j);
                x.wait = Some(w);
                continue;
            }
            // A later error is the process's when it came from reading its log or output
            // (not from another command), and only while the process may still be running.
            if x.error.is_none()
                && x.exit_code.is_none()
                && j > pos
                && let Some(line) = facts.iter().filter_map(|c| c.output.as_ref()).find_map(|o| o.error_head.clone())
                && facts.iter().all(|c| matches!(c.action, "read" | "search" | "wait"))
            {
                x.error = Some(Quote { idx: n.idx, text: line });
                absorbed.push(n.idx);
                continue;
            }
            let after_outcome = wait_pos.is_some_and(|w| j > w) || x.error.is_some();
            // A message with a finding of its own is a beat of its own.
            if after_outcome && self.cx.findings.iter().any(|f| f.key == n.idx) {
                break;
            }
            if after_outcome && n.role == Role::Assistant && !n.text.trim().is_empty() {
                if let Some((verdict, next)) = verdict_of(n, facts) {
                    x.verdict = Some(verdict);
                    x.next = next;
                    absorbed.push(n.idx);
                }
                break;
            }
        }
        absorbed
    }

    /// A relaunch the report's own launch reading does not recognise (the finding
    /// does: `python train.py …`): its changes against the previous run in `prev`.
    fn relaunch_of(&self, m: &Message, prev: Option<&Message>) -> Option<(Experiment, Vec<u32>)> {
        let prev = prev?;
        let now = self.cx.facts_of(m).iter().find(|c| c.command.is_some())?;
        let then = prev.calls.iter().filter_map(|c| c.command.as_deref()).next()?;
        let cmd = now.command.as_deref()?;
        let (inert_changes, changes): (Vec<Change>, Vec<Change>) =
            super::context::settings_changed(then, cmd, &now.program)
                .into_iter()
                .partition(|c| inert_setting(&c.setting));
        let edits = self.edits_between(self.cx.pos_of(prev.idx) + 1, self.cx.pos_of(m.idx));
        let x = Experiment {
            idx: m.idx,
            time: clock(m.timestamp),
            label: crate::analysis::call_facts::entry_of_command(cmd, &now.program)
                .unwrap_or_else(|| now.program.clone()),
            command: now.command_short.clone(),
            core: now.core.clone(),
            purpose: first_of(&m.text, &[Kind::Plan, Kind::Reason, Kind::Conclusion, Kind::Other]),
            previous: Some(Quote { idx: prev.idx, text: clip(&one_line(then), 140) }),
            change_count: changes.len() + usize::from(!edits.is_empty()),
            changes,
            inert_changes,
            edits,
            wait: None,
            error: None,
            exit_code: None,
            ended: None,
            ran_for: None,
            verdict: None,
            next: None,
            outcome: "unknown",
        };
        Some((x, vec![]))
    }

    /// A long structured message, as a recap.
    fn recap_of(&self, m: &Message) -> Option<Recap> {
        let headings = section_headings(&m.text);
        if m.role != Role::Assistant || m.char_len() < 1500 || headings.len() < 3 {
            return None;
        }
        let median = self.cx.median_text_chars();
        Some(Recap {
            idx: m.idx,
            chars: m.char_len(),
            // As the detector counts it (whole times), so the two never disagree.
            times: (median > 0).then(|| m.text.chars().count() / median),
            headings,
            opening: sentences(&m.text, 1, QUOTE),
            next_steps: next_steps(&m.text),
        })
    }

    /// The search call of `m`, described.
    pub(super) fn search_of(&self, m: &Message) -> Option<SearchFacts> {
        let c = self.cx.facts_of(m).iter().find(|c| c.action == "search")?;
        let o = c.output.as_ref();
        Some(SearchFacts {
            idx: m.idx,
            command: c.command_short.clone(),
            tool: c.tool.clone(),
            program: c.program.clone(),
            pattern: c.pattern.clone(),
            file: c.file.as_deref().map(basename),
            lines: o.map_or(0, |o| o.lines),
            chars: o.map_or(0, |o| o.chars),
            share: o.map_or(0, |o| o.longest_share),
            dump: o.and_then(|o| o.dump.clone()),
            dump_size: o.filter(|o| o.dump.is_some()).map(|o| human_bytes(o.dump_chars as u64)),
            dump_words: o.map(|o| o.dump_words.clone()).unwrap_or_default(),
            truncated: o.and_then(|o| o.truncated.clone()),
            purpose: first_of(&m.text, &[Kind::Plan, Kind::Reason]),
        })
    }

    /// The facts of one finding, for weaving into prose: told by the kind of facts the
    /// finding carries, not by which detector found it, so a new detector that fills in
    /// a kind of details that exists is told as it is.
    pub(super) fn moment(&self, f: &Finding) -> Moment {
        let s = self.cx.session;
        let key_msg = s.message(f.key);
        let mut mo = Moment::of(f, key_msg.and_then(|m| clock(m.timestamp)));
        let Some(key_msg) = key_msg else { return mo };
        let earlier: Vec<&Message> = f.evidence.iter().filter(|i| **i < f.key).filter_map(|i| s.message(*i)).collect();
        let Some(details) = &f.details else { return mo };
        match details {
            Details::Relaunch { .. } => self.relaunch_moment(&mut mo, key_msg, &earlier),
            // The person's pushback: the assistant's words they answered, and their own.
            Details::Belief { claim, undone } if undone.as_ref().is_some_and(|u| u.how == "pushback") => {
                if let Some(c) = claim {
                    mo.claim = Some(quote_of(c));
                    mo.distance = Some(f.key.saturating_sub(c.idx));
                }
                mo.retraction = undone.as_ref().map(|u| Quote { idx: u.idx, text: u.text.clone() });
            }
            Details::Belief { claim, undone } => {
                self.belief_moment(&mut mo, key_msg, &earlier, claim.as_ref(), undone.as_ref())
            }
            Details::Search { searches, read, .. } => self.search_moment(&mut mo, searches, read.as_ref()),
            Details::Wait { waits, .. } => {
                let first = waits.first().and_then(|i| s.message(*i)).unwrap_or(key_msg);
                mo.wait = self.wait_of(first).or_else(|| self.time_limit_of(first));
            }
            Details::Runs { runs, folder_changed, .. } => {
                if *folder_changed {
                    mo.situations.push("folder-changed");
                }
                for m in runs.iter().filter_map(|i| s.message(*i)) {
                    let line =
                        self.cx.facts_of(m).iter().filter_map(|c| c.output.as_ref()).find_map(|o| o.failure_line());
                    if let Some(l) = line {
                        mo.runs.push(Quote { idx: m.idx, text: l });
                    }
                }
                if mo.command.is_none() {
                    mo.command = self.cx.facts_of(key_msg).iter().find_map(|c| c.command_short.clone());
                }
            }
            Details::Flips { of, subject, states, switches } => {
                // The two states and each switch, as the detector found them.
                mo.situations.push(match of.as_str() {
                    "setting" => "setting",
                    "commands" => "commands",
                    _ => "lines",
                });
                mo.flipped = Some(subject.clone());
                mo.states = states.to_vec();
                mo.runs = switches.iter().map(quote_of).collect();
            }
            Details::Recap { after, .. } => self.recap_moment(&mut mo, key_msg, after.as_ref()),
            Details::Pause { before, reply, .. } => self.pause_moment(&mut mo, key_msg, *before, *reply),
        }
        mo
    }

    /// A relaunch: the launch with its changes since the previous one.
    fn relaunch_moment(&self, mo: &mut Moment, key_msg: &Message, earlier: &[&Message]) {
        let pos = self.cx.pos_of(key_msg.idx);
        let found = self.experiment(key_msg, pos + 1).or_else(|| self.relaunch_of(key_msg, earlier.first().copied()));
        if let Some((mut x, _)) = found {
            // The finding names the editing messages; trust it over our own scan.
            let ev_edits: Vec<EditFacts> = earlier.iter().flat_map(|m| self.code_edits_of(m)).collect();
            if !ev_edits.is_empty() {
                x.edits = ev_edits;
                x.change_count = x.changes.len() + 1;
            }
            mo.situations.push(if x.edits.is_empty() { "settings-only" } else { "with-code" });
            mo.experiment = Some(x);
        }
    }

    /// A belief keyed on itself (an alarm, later refuted), or on what undid it (a
    /// retraction of an earlier claim): the alarm as printed or said, what was claimed,
    /// what undid it, and how far apart they are.
    fn belief_moment(
        &self,
        mo: &mut Moment,
        key_msg: &Message,
        earlier: &[&Message],
        claim: Option<&Cited>,
        undone: Option<&Undoing>,
    ) {
        let s = self.cx.session;
        let keyed_on_undoing = undone.is_some_and(|u| u.idx == mo.key);
        let alarm_msg = if keyed_on_undoing { earlier.first().copied() } else { Some(key_msg) };
        if let Some(a) = alarm_msg {
            self.alarm_moment(mo, a);
        }
        // What was believed and what undid it, as the detector found them.
        if keyed_on_undoing {
            mo.claim = mo.alarm.clone();
            if mo.claim.is_none() {
                // An admission: the claim is the statement the detector found.
                mo.claim = claim.map(quote_of);
                mo.situations.push("admission");
            }
        }
        if let Some(u) = undone {
            let kind = match u.how.as_str() {
                "retraction" => "retraction",
                "progress" => "progress",
                _ => "ready",
            };
            mo.disproof = Some(Quote { idx: u.idx, text: u.text.clone() });
            mo.disproof_kind = Some(kind);
        }
        let (a, b) = if keyed_on_undoing {
            mo.retraction = mo.disproof.clone().filter(|_| mo.disproof_kind == Some("retraction"));
            (mo.claim.as_ref().map(|c| c.idx), Some(mo.key))
        } else {
            (Some(mo.key), mo.disproof.as_ref().map(|d| d.idx))
        };
        if let (Some(a), Some(b)) = (a.and_then(|i| s.message(i)), b.and_then(|i| s.message(i))) {
            mo.distance = Some(b.idx - a.idx.min(b.idx));
            mo.elapsed = secs_between(a.timestamp, b.timestamp).map(duration);
        }
        if let Some(k) = mo.disproof_kind {
            mo.situations.push(k);
        }
    }

    /// The alarm of message `a`: the line its calls printed, with what the check looked
    /// for and the lines that set it off — or the crash it stated.
    fn alarm_moment(&self, mo: &mut Moment, a: &Message) {
        let printed = self
            .cx
            .facts_of(a)
            .iter()
            .filter_map(|c| c.output.as_ref())
            .find_map(|o| o.revealing.iter().find(|r| r.kind == "alarm").map(|r| r.line.clone()));
        if let Some(line) = printed {
            mo.alarm = Some(Quote { idx: a.idx, text: line });
            mo.situations.push("printed");
            let wait = self.wait_of(a);
            let probe_pattern = a.calls.iter().filter_map(|c| c.command.as_deref()).find_map(alarm_probe);
            if let Some(p) = &probe_pattern {
                for c in &a.calls {
                    if let Some(r) = &c.result {
                        for l in r.output.lines() {
                            if l.contains(p.as_str()) && mo.triggers.len() < 2 && l.len() < 2000 {
                                mo.triggers.push(clip(&one_line(l), 160));
                            }
                        }
                    }
                }
            }
            mo.probe = probe_pattern;
            mo.wait = wait;
        } else if let Some(st) = liveness::crash_statement(&a.text) {
            mo.alarm = Some(Quote { idx: a.idx, text: clip(&one_line(&st), QUOTE) });
            mo.situations.push("stated");
        }
    }

    /// Searches that did not answer: each measured, the read by position that came
    /// instead, and what the assistant said of the searches.
    fn search_moment(&self, mo: &mut Moment, searches: &[Cited], read: Option<&Cited>) {
        let s = self.cx.session;
        mo.searches = searches.iter().filter_map(|c| s.message(c.idx)).filter_map(|m| self.search_of(m)).collect();
        if mo.searches.iter().any(|x| x.truncated.is_some()) {
            mo.situations.push("truncated");
        } else if mo.searches.iter().any(|x| x.dump.is_some()) {
            mo.situations.push("dump");
        }
        if let Some(r) = read.and_then(|r| s.message(r.idx)) {
            mo.read = self.cx.facts_of(r).iter().find(|c| c.action == "read").cloned();
            mo.dismissal = first_of(&r.text, &[Kind::Reason, Kind::Conclusion, Kind::Other]);
            if let Some(first) = searches.first().and_then(|c| s.message(c.idx)) {
                mo.elapsed = secs_between(first.timestamp, r.timestamp).map(duration);
            }
        }
    }

    /// A wait with no loop to describe (`kubectl wait`, a tool's time limit): the
    /// command that ran out of time, and the line it ended with.
    fn time_limit_of(&self, m: &Message) -> Option<WaitFacts> {
        let c = self.cx.facts_of(m).iter().find(|c| c.command.is_some())?;
        Some(WaitFacts {
            idx: m.idx,
            command: c.command_short.clone(),
            probe: None,
            attempts: None,
            interval: None,
            elapsed: c.seconds.map(duration),
            elapsed_secs: c.seconds,
            budget: None,
            line: c.output.as_ref().and_then(|o| {
                o.revealing
                    .iter()
                    .find(|r| r.kind == "alarm" || r.kind == "error")
                    .map(|r| r.line.clone())
                    .or(o.last_line.clone())
            }),
            outcome: "timeout",
            purpose: None,
        })
    }

    /// A reply that recaps the work: the recap, and what it came after.
    fn recap_moment(&self, mo: &mut Moment, key_msg: &Message, after: Option<&Cited>) {
        mo.recap = self.recap_of(key_msg).or_else(|| {
            Some(Recap {
                idx: key_msg.idx,
                chars: key_msg.char_len(),
                times: None,
                headings: section_headings(&key_msg.text),
                opening: sentences(&key_msg.text, 1, QUOTE),
                next_steps: next_steps(&key_msg.text),
            })
        });
        if let Some(trigger) = after.and_then(|a| self.cx.session.message(a.idx)) {
            mo.situations.push(match (trigger.role, trigger.origin) {
                (Role::User, _) if trigger.text.trim().is_empty() => "after-empty-turn",
                (Role::System, Origin::CompactSummary) => "after-compaction",
                (Role::System, _) => "after-compaction",
                _ => "after-turn",
            });
        }
    }

    /// An empty turn: the pause before it, what came just before, and the reply.
    fn pause_moment(&self, mo: &mut Moment, key_msg: &Message, before: Option<u32>, reply: Option<u32>) {
        let s = self.cx.session;
        let pos = self.cx.pos_of(key_msg.idx);
        if let Some(prev) = s.messages[..pos].iter().rev().find(|m| m.role != Role::System) {
            // The pause runs from the last thing that happened: a call's result
            // comes back after the message that made it.
            let last = prev.calls.iter().filter_map(|c| c.result.as_ref()?.timestamp).max().or(prev.timestamp);
            mo.gap = secs_between(last, key_msg.timestamp).map(duration);
        }
        if let Some(prev) = before.and_then(|i| s.message(i)).filter(|p| p.role == Role::Assistant) {
            let q = if prev.text.trim().is_empty() {
                self.cx.facts_of(prev).iter().find_map(|c| c.command_short.clone().or(c.file.clone()))
            } else {
                Some(sentences(&prev.text, 1, QUOTE))
            };
            mo.before = q.map(|t| Quote { idx: prev.idx, text: t });
        }
        if let Some(reply) = reply.and_then(|i| s.message(i)) {
            mo.reply_chars = reply.char_len();
            let q = if reply.text.trim().is_empty() {
                self.cx.facts_of(reply).iter().find_map(|c| c.command_short.clone())
            } else {
                Some(sentences(&reply.text, 1, QUOTE))
            };
            mo.reply = q.filter(|t| !t.is_empty()).map(|t| Quote { idx: reply.idx, text: t });
            if self.recap_of(reply).is_some() {
                mo.situations.push("recap-reply");
            }
        }
    }

    /// The goal: the user's first request, as [`super::context::Context::goal_message`]
    /// chooses it.
    fn goal_message(&self) -> Option<&'a Message> {
        self.cx.goal_message()
    }

    /// The story before message `before`: the campaign's milestones, then the recent
    /// events that lead up to it, findings other than `skip` woven in.
    pub fn story_before(&self, before: u32, skip: &[u32]) -> Vec<Paragraph> {
        let s = self.cx.session;
        let pos = self.cx.pos_of(before);
        let start = self.recent_start(pos);
        let mut paras = Vec::new();
        let milestones = self.milestones(start);
        if !milestones.is_empty() {
            paras.push(Paragraph { beats: milestones });
        }
        let goal_pos = self.goal_message().map(|g| self.cx.pos_of(g.idx));
        let mut beats = self.beats_in(start, pos, pos, skip);
        if paras.is_empty()
            && let (Some(g), Some(gp)) = (self.goal_message(), goal_pos)
            && gp < pos
        {
            // Short sessions: the goal opens the recent story.
            // An opener before the goal ("shell") set nothing going: it is not told.
            beats.retain(|b| b.idx != g.idx && !(b.kind == "request" && b.idx < g.idx));
            let mut goal = Beat::new("goal", g);
            goal.quotes.push(super::context::asked(&g.text, 2, 300));
            beats.insert(0, goal);
        }
        trim_beats(&mut beats, RECENT_BEATS);
        // A new paragraph at each experiment after the first beat.
        let mut cur: Vec<Beat> = Vec::new();
        for b in beats {
            if b.kind == "experiment" && cur.len() >= 2 {
                paras.push(Paragraph { beats: std::mem::take(&mut cur) });
            }
            cur.push(b);
        }
        if !cur.is_empty() {
            paras.push(Paragraph { beats: cur });
        }
        // Only the story's first paragraph starts it; later ones go on.
        for (n, p) in paras.iter_mut().enumerate() {
            situate(&mut p.beats, if n == 0 { "first" } else { "next" });
        }
        let _ = s;
        paras
    }

    /// The story after message `after`, up to `n` messages (stopping at the next real
    /// request), findings other than `skip` woven in.
    pub fn story_after(&self, after: u32, n: usize, skip: &[u32]) -> Vec<Beat> {
        let s = self.cx.session;
        let from = self.cx.pos_of(after + 1);
        let mut to = (from + n).min(s.messages.len());
        if let Some(r) = s.messages[from..to].iter().position(|m| m.is_typed_user() && !is_nudge(&m.text)) {
            to = from + r + 1;
        }
        let mut beats = self.beats_in(from, to, s.messages.len(), skip);
        trim_beats(&mut beats, RECENT_BEATS);
        situate(&mut beats, "next");
        beats
    }

    /// Where the recent part of a story starts: at the launch before the last launch
    /// when both are close (the experiment before this one), else a few messages back;
    /// never past a real request of the user's close by.
    fn recent_start(&self, pos: usize) -> usize {
        let s = self.cx.session;
        let lo = pos.saturating_sub(RECENT_SPAN);
        let launches: Vec<usize> =
            (lo..pos).filter(|&j| self.cx.facts_of(&s.messages[j]).iter().any(|c| c.action == "launch")).collect();
        let mut start = match launches.as_slice() {
            [.., a, _] => *a,
            [a] => (*a).min(pos.saturating_sub(8)),
            [] => pos.saturating_sub(12),
        };
        if let Some(r) = (pos.saturating_sub(30)..start).rev().find(|&j| {
            let m = &s.messages[j];
            m.is_typed_user() && !is_nudge(&m.text)
        }) {
            start = r;
        }
        start
    }

    /// The campaign before position `end`: the goal, the user's later requests, the
    /// results with numbers that answered them, and the last plan written to a file.
    fn milestones(&self, end: usize) -> Vec<Beat> {
        let s = self.cx.session;
        if end == 0 {
            return vec![];
        }
        let msgs = &s.messages[..end];
        let mut beats: Vec<Beat> = Vec::new();
        let Some(goal) = self.goal_message().map(|g| self.cx.pos_of(g.idx)).filter(|&p| p < end) else {
            return vec![];
        };
        let mut g = Beat::new("goal", &msgs[goal]);
        g.quotes.push(super::context::asked(&msgs[goal].text, 2, 300));
        beats.push(g);
        let requests: Vec<usize> =
            (goal + 1..end).filter(|&j| msgs[j].is_typed_user() && !is_nudge(&msgs[j].text)).collect();
        let kept: Vec<usize> = requests.iter().rev().take(3).rev().copied().collect();
        // Segments: from each kept request (or the goal) to the next, or to the end.
        let mut bounds = vec![kept.first().map_or(goal, |_| goal)];
        bounds.extend(kept.iter().copied());
        bounds.push(end);
        for w in bounds.windows(2) {
            let (a, b) = (w[0], w[1]);
            if a != goal {
                let mut r = Beat::new("request", &msgs[a]);
                r.quotes.push(super::context::asked(&msgs[a].text, 2, QUOTE));
                beats.push(r);
            }
            // The last result with numbers in the segment.
            let found = msgs[a + 1..b].iter().rev().filter(|m| m.role == Role::Assistant).find_map(|m| {
                let st = claims::statements(&m.text, QUOTE);
                let q: Vec<String> = st
                    .iter()
                    .filter(|x| x.kind == Kind::Conclusion && x.quantified)
                    .map(|x| x.text.clone())
                    .take(1)
                    .collect();
                (!q.is_empty()).then_some((m, q))
            });
            if let Some((m, q)) = found {
                let mut c = Beat::new("milestone", m);
                c.quotes = q;
                beats.push(c);
            }
        }
        // The last plan written to a file.
        if let Some((m, path, items)) = msgs
            .iter()
            .rev()
            .find_map(|m| m.calls.iter().find_map(|c| plan_items(m, c)).map(|(p, items)| (m, p, items)))
        {
            let mut p = Beat::new("plan-file", m);
            p.item_count = items.len();
            p.items = items.into_iter().take(8).collect();
            p.file = Some(path);
            p.quotes.extend(first_of(&m.text, &[Kind::Conclusion, Kind::Reason, Kind::Other]));
            // A milestone of the same message says the same: the plan tells it.
            beats.retain(|b| b.idx != m.idx || b.kind == "goal");
            beats.push(p);
        }
        beats.sort_by_key(|b| (b.idx, b.kind != "milestone"));
        beats.dedup_by(|a, b| a.kind == b.kind && a.quotes == b.quotes);
        if beats.len() > MILESTONES {
            let keep_from = beats.len() - (MILESTONES - 1);
            let mut v = vec![beats[0].clone()];
            v.extend(beats.drain(keep_from..));
            beats = v;
        }
        beats
    }

    /// The beats of positions `from..to`; experiments may look ahead to `limit`.
    fn beats_in(&self, from: usize, to: usize, limit: usize, skip: &[u32]) -> Vec<Beat> {
        let s = self.cx.session;
        let findings = self.findings_in(from, to, skip);
        let keyed: HashSet<u32> = findings.iter().map(|f| f.key).collect();
        let mut beats: Vec<Beat> = Vec::new();
        let mut absorbed: BTreeMap<u32, usize> = BTreeMap::new(); // idx → beat index
        for m in &s.messages[from..to] {
            if absorbed.contains_key(&m.idx) {
                continue;
            }
            match (m.role, m.origin) {
                (Role::User, Origin::Interrupt) => {
                    let mut b = Beat::new("interrupt", m);
                    b.quotes.push(clip(&one_line(&m.text), 80));
                    beats.push(b);
                }
                (Role::User, Origin::Typed) if m.text.trim().is_empty() => beats.push(Beat::new("empty-turn", m)),
                (Role::User, Origin::Typed) if is_nudge(&m.text) => {}
                (Role::User, Origin::Typed) => {
                    let mut b = Beat::new("request", m);
                    b.quotes.push(super::context::asked(&m.text, 2, QUOTE));
                    beats.push(b);
                }
                (Role::System, Origin::CompactSummary) => {
                    let mut b = Beat::new("compacted", m);
                    b.quotes.push(sentences(&m.text, 1, 160));
                    beats.push(b);
                }
                (Role::Assistant, _) => {
                    let look = limit.min(to.max(from)).max(self.cx.pos_of(m.idx) + 1);
                    if !self.told_whole(m, look, &mut beats, &mut absorbed) {
                        self.told_in_steps(m, keyed.contains(&m.idx), &mut beats);
                    }
                }
                _ => {}
            }
        }
        let mut beats = fold_tests(beats);
        self.weave(findings, &mut beats, &absorbed);
        beats
    }

    /// The findings keyed in positions `from..to`, but for those on `skip`: one per
    /// message and detector.
    fn findings_in(&self, from: usize, to: usize, skip: &[u32]) -> Vec<&'a Finding> {
        let s = self.cx.session;
        let range_idx = |j: usize| s.messages.get(j).map(|m| m.idx);
        let (Some(lo), Some(hi)) = (range_idx(from), to.checked_sub(1).and_then(range_idx)) else {
            return Vec::new();
        };
        let mut seen = HashSet::new();
        self.cx
            .findings
            .iter()
            .filter(|f| (lo..=hi).contains(&f.key) && !skip.contains(&f.key))
            .filter(|f| seen.insert((f.key, f.detector.clone())))
            .collect()
    }

    /// An assistant message told by one beat of the whole — an experiment (absorbing
    /// the messages its story takes, up to position `look`), a recap, a plan written to
    /// a file, edits (joining a run of edits) — when it is one.
    fn told_whole(&self, m: &Message, look: usize, beats: &mut Vec<Beat>, absorbed: &mut BTreeMap<u32, usize>) -> bool {
        if let Some((x, took)) = self.experiment(m, look) {
            let mut b = Beat::new("experiment", m);
            for i in took {
                absorbed.insert(i, beats.len());
            }
            b.situations.push(x.outcome);
            b.experiment = Some(x);
            beats.push(b);
            return true;
        }
        if let Some(r) = self.recap_of(m) {
            let mut b = Beat::new("recap", m);
            b.recap = Some(r);
            beats.push(b);
            return true;
        }
        if let Some((path, items)) = m.calls.iter().find_map(|c| plan_items(m, c)) {
            let mut b = Beat::new("plan-file", m);
            b.item_count = items.len();
            b.items = items.into_iter().take(8).collect();
            b.file = Some(path);
            b.quotes.extend(first_of(&m.text, &[Kind::Conclusion, Kind::Reason, Kind::Other]));
            beats.push(b);
            return true;
        }
        let edits = self.edits_of(m);
        if !edits.is_empty() {
            // One beat for a run of edits (reads and searches in between).
            match beats.last_mut() {
                Some(b) if b.kind == "edits" && b.moments.is_empty() => b.edits.extend(edits),
                _ => {
                    let mut b = Beat::new("edits", m);
                    b.edits = edits;
                    beats.push(b);
                }
            }
            return true;
        }
        false
    }

    /// An assistant message told by what it said and ran: a retraction, a call stopped,
    /// failed or tested, a wait, a search or read (when a finding is `keyed` on it), a
    /// conclusion.
    fn told_in_steps(&self, m: &Message, keyed: bool, beats: &mut Vec<Beat>) {
        let at = beats.len();
        let facts = self.cx.facts_of(m);
        let st = claims::statements(&m.text, QUOTE);
        if let Some(r) = st.iter().find(|x| x.kind == Kind::Retraction) {
            let mut b = Beat::new("retraction", m);
            b.quotes.push(r.text.clone());
            beats.push(b);
        }
        if let Some(c) = facts.iter().find(|c| c.output.as_ref().is_some_and(|o| o.interrupted)) {
            // Stopped or refused by the person: neither a failure nor a run.
            let mut b = Beat::new("stopped", m);
            b.command = c.command_short.clone().or_else(|| Some(c.tool.clone()));
            beats.push(b);
        } else if let Some(c) = facts.iter().find(|c| c.failed() && c.action != "wait") {
            let mut b = Beat::new(if c.action == "test" { "test" } else { "failure" }, m);
            b.situations.push("failed");
            b.command = c.command_short.clone().or_else(|| Some(c.tool.clone()));
            b.detail = c.output.as_ref().and_then(|o| o.failure_line());
            beats.push(b);
        } else if let Some(c) = facts.iter().find(|c| c.action == "test") {
            let mut b = Beat::new("test", m);
            b.situations.push("passed");
            b.command = c.command_short.clone();
            b.detail = c.output.as_ref().and_then(|o| {
                o.revealing.iter().find(|r| r.kind == "result").map(|r| r.line.clone()).or(o.last_line.clone())
            });
            beats.push(b);
        }
        if let Some(w) = self.wait_of(m).filter(|w| w.outcome != "ended" || keyed) {
            let mut b = Beat::new("wait", m);
            b.situations.push(w.outcome);
            b.wait = Some(w);
            beats.push(b);
        }
        if keyed && beats.len() == at {
            if let Some(sf) = self.search_of(m) {
                let mut b = Beat::new("search", m);
                b.command = sf.command.clone();
                b.quotes.extend(sf.purpose.clone());
                // What it concluded before searching ("The server crashed.").
                if let Some(c) = st.iter().find(|x| x.kind == Kind::Conclusion) {
                    // A crash taken as settled, or any other conclusion.
                    b.situations.push(if liveness::crash_statement(&c.text).is_some() {
                        "concluded-crash"
                    } else {
                        "concluded"
                    });
                    b.next = vec![c.text.clone()];
                }
                beats.push(b);
            } else if let Some(c) = facts.iter().find(|c| c.action == "read") {
                let mut b = Beat::new("read", m);
                b.command = c.command_short.clone().or(c.file.clone());
                beats.push(b);
            }
        }
        // A statement ending in a colon leads into what follows (a code block,
        // a list): no conclusion of its own.
        if !st.iter().any(|x| x.kind == Kind::Retraction)
            && let Some(c) = st.iter().find(|x| x.kind == Kind::Conclusion && !x.text.trim_end().ends_with(':'))
            && (beats.len() == at || m.calls.is_empty())
        {
            let mut b = Beat::new("conclusion", m);
            b.quotes.push(c.text.clone());
            if c.quantified {
                b.situations.push("numbers");
            }
            b.next.extend(st.iter().find(|x| x.kind == Kind::Plan).map(|x| x.text.clone()));
            beats.push(b);
        }
    }

    /// Weave the findings into the beats of their key messages (or the beat that
    /// absorbed it), or into a beat of their own.
    fn weave(&self, findings: Vec<&Finding>, beats: &mut Vec<Beat>, absorbed: &BTreeMap<u32, usize>) {
        let s = self.cx.session;
        for f in findings {
            let mo = self.moment(f);
            let telling = detect::telling(&f.detector);
            let target = absorbed.get(&f.key).copied().or_else(|| {
                let prefer = telling.beats;
                let of_key = |b: &Beat| {
                    b.idx == f.key
                        || b.experiment.as_ref().is_some_and(|x| x.wait.as_ref().is_some_and(|w| w.idx == f.key))
                };
                prefer
                    .iter()
                    .find_map(|k| beats.iter().position(|b| b.kind == *k && of_key(b)))
                    .or_else(|| beats.iter().position(|b| b.idx == f.key))
            });
            match target {
                Some(t) => {
                    let b = &mut beats[t];
                    let mut mo = mo;
                    // Where the beat's own wording tells the finding, the moment only
                    // adds what the beat does not say.
                    if telling.told_by.contains(&b.kind) {
                        mo.situations.insert(0, "told");
                        b.situations.insert(0, telling.with_tag);
                        if mo.gap.is_some() {
                            b.elapsed = mo.gap.clone();
                        }
                    }
                    if let Some((kind, situation)) = telling.marks
                        && b.kind == kind
                    {
                        b.situations.insert(0, situation);
                        if telling.folds {
                            if let (Some(x), Some(mx)) = (&mut b.experiment, &mo.experiment) {
                                x.edits = mx.edits.clone();
                                x.change_count = mx.change_count;
                            }
                            continue;
                        }
                    }
                    b.moments.push(mo);
                }
                None => {
                    let Some(m) = s.message(f.key) else { continue };
                    let mut b = Beat::new("finding", m);
                    b.moments.push(mo);
                    let at = beats.partition_point(|x| x.idx <= f.key);
                    beats.insert(at, b);
                }
            }
        }
    }

    /// The last message of a story, told: its beat, or its first sentence.
    pub(super) fn ending_of(&self, m: &Message) -> Option<Beat> {
        let before = self.cx.session.messages.iter().rev().find(|x| x.idx < m.idx).map_or(0, |x| x.idx);
        self.story_after(before, 1, &[])
            .into_iter()
            .find(|b| b.idx == m.idx)
            .or_else(|| (!m.text.trim().is_empty()).then(|| Beat::said(m, last_word(&m.text))))
            .map(|mut b| {
                // An assistant that ends by asking the user hands the session back: that
                // question is how it ends, whatever was said before it.
                if m.role == Role::Assistant {
                    b.question = closing_question(&m.text).filter(|q| !b.quotes.contains(q));
                }
                b
            })
    }
}

/// The question a message ends with: the last sentence of its last paragraph of prose,
/// when that asks something (“do you still want me to update those shortcuts?”).
fn closing_question(text: &str) -> Option<String> {
    let last = crate::analysis::fences::lines(text)
        .filter(|(p, l)| *p == crate::analysis::fences::Place::Text && !l.trim().is_empty())
        .map(|(_, l)| l)
        .last()?;
    let sentence = split_sentences(&one_line(last.trim_start_matches(['#', '-', '*', ' ', '>']))).pop()?;
    let sentence = sentence.trim_matches(['*', '_', ' ']).to_string();
    sentence.ends_with('?').then(|| clip(&sentence, 300))
}

/// What a message ends a story with: its first prose sentence that is no lead-in
/// (“Ah, found the issue:” introduces the table after it), else its first sentence.
fn last_word(text: &str) -> String {
    let said: Vec<String> = claims::statements(text, QUOTE).into_iter().map(|st| st.text).collect();
    let Some(at) = said.iter().position(|t| !t.trim_end().ends_with(':')) else { return sentences(text, 1, QUOTE) };
    // A bare “Yes.” answers a question the reader has not seen: the sentence after it
    // says what the answer is.
    match said.get(at + 1) {
        Some(next) if said[at].split_whitespace().count() < 3 && !next.trim_end().ends_with(':') => {
            format!("{} {}", said[at], next)
        }
        _ => said[at].clone(),
    }
}

/// Consecutive test runs that ended alike read as one beat.
fn fold_tests(beats: Vec<Beat>) -> Vec<Beat> {
    let mut folded: Vec<Beat> = Vec::with_capacity(beats.len());
    for b in beats {
        if let Some(prev) = folded.last_mut()
            && prev.kind == "test"
            && b.kind == "test"
            && prev.situations == b.situations
            && prev.detail == b.detail
            && b.moments.is_empty()
        {
            if prev.runs.is_empty() {
                prev.runs.push(Quote { idx: prev.idx, text: prev.command.clone().unwrap_or_default() });
            }
            prev.runs.push(Quote { idx: b.idx, text: b.command.clone().unwrap_or_default() });
            continue;
        }
        folded.push(b);
    }
    folded
}

/// The section headings of a structured message, without a title heading that opens it.
fn section_headings(text: &str) -> Vec<String> {
    let mut h = super::context::headings(text);
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.trim_start().starts_with('#') && !h.is_empty() {
        h.remove(0);
    }
    h
}

/// The probe pattern of a crash check: `grep -q Exception log` → `Exception`.
fn alarm_probe(cmd: &str) -> Option<String> {
    let script = crate::shell::parse(cmd);
    script
        .commands
        .iter()
        .filter(|c| matches!(c.name(), "grep" | "egrep" | "rg"))
        .find_map(|c| c.flag_value(Some('e'), Some("regexp")).or_else(|| c.positionals().into_iter().next()))
        .filter(|p| p.len() >= 3 && p.chars().all(|ch| ch.is_alphanumeric() || matches!(ch, ' ' | '_' | '-' | ':')))
        .map(str::to_string)
}

/// A finding's quote as a report quotes it.
fn quote_of(c: &Cited) -> Quote {
    Quote { idx: c.idx, text: c.text.clone() }
}

/// Settings that do not change what runs.
fn inert_setting(name: &str) -> bool {
    let n = name.trim_start_matches('-').to_ascii_lowercase();
    matches!(n.as_str(), "port" | "host" | "nccl_debug" | "log-level" | "log_level" | "verbose" | "v" | "quiet")
        || n.contains("log-file")
        || n.contains("log_dir")
        || n.contains("output")
        || n.ends_with("-dir")
}

/// Keep at most `n` beats: drop the lightest from the oldest end.
fn trim_beats(beats: &mut Vec<Beat>, n: usize) {
    while beats.len() > n {
        let min = beats.iter().map(Beat::weight).min().unwrap_or(0);
        match beats.iter().position(|b| b.weight() == min) {
            Some(i) => {
                beats.remove(i);
            }
            None => break,
        }
    }
}

/// Mark each beat's place: `first`, or `after-<kind>` of the beat before it; group
/// edits by file.
fn situate(beats: &mut [Beat], first: &'static str) {
    let mut prev: Option<&'static str> = None;
    for b in beats.iter_mut() {
        let tag = match prev {
            None => first,
            Some(k) => after_tag(k),
        };
        b.situations.push(tag);
        if !b.edits.is_empty() {
            (b.groups, b.more_edits) = group_edits(&b.edits);
            if b.groups.iter().map(|g| g.edits.len()).sum::<usize>() > 1 {
                b.situations.push("several");
            }
        }
        prev = Some(b.kind);
    }
}

fn after_tag(kind: &str) -> &'static str {
    match kind {
        "goal" => "after-goal",
        "request" => "after-request",
        "milestone" => "after-milestone",
        "plan-file" => "after-plan-file",
        "experiment" => "after-experiment",
        "edits" => "after-edits",
        "failure" => "after-failure",
        "test" => "after-test",
        "wait" => "after-wait",
        "conclusion" => "after-conclusion",
        "retraction" => "after-retraction",
        "empty-turn" => "after-empty-turn",
        "recap" => "after-recap",
        _ => "after-other",
    }
}

/// The assistant's verdict on a launch in message `n` (one conclusion, or two standing
/// side by side) and what it plans next, unless the message acts again.
fn verdict_of(n: &Message, facts: &[CallFacts]) -> Option<(Quote, Option<Quote>)> {
    let st = claims::statements(&n.text, QUOTE);
    let concl: Vec<&str> = st
        .iter()
        .filter(|s| matches!(s.kind, Kind::Conclusion | Kind::Retraction))
        .map(|s| s.text.as_str())
        .take(2)
        .collect();
    if concl.is_empty() || facts.iter().any(|c| matches!(c.action, "launch" | "edit" | "write" | "test")) {
        return None;
    }
    // Two sentences are quoted together only when they stand side by side.
    let text = if concl.len() == 2 && one_line(&n.text).contains(&format!("{} {}", concl[0], concl[1])) {
        format!("{} {}", concl[0], concl[1])
    } else {
        concl[0].to_string()
    };
    let plans: Vec<&str> =
        st.iter().filter(|s| matches!(s.kind, Kind::Plan | Kind::Reason)).map(|s| s.text.as_str()).take(2).collect();
    let next = plans.first().map(|p| {
        let both = plans.get(1).map(|q| format!("{p} {q}"));
        let text = match both {
            Some(b) if one_line(&n.text).contains(&b) => b,
            _ => p.to_string(),
        };
        Quote { idx: n.idx, text }
    });
    Some((Quote { idx: n.idx, text }, next))
}

/// The experiment's outcome, from what its steps found.
fn outcome_of(x: &Experiment) -> &'static str {
    match (&x.error, x.wait.as_ref().map(|w| w.outcome)) {
        _ if x.ended == Some("time-limit") => "time-limit",
        (Some(_), _) => "failed",
        _ if x.exit_code.as_ref().is_some_and(|q| !STOPPED.iter().any(|c| c.to_string() == q.text)) => "failed",
        (None, Some("alarm")) => "alarm",
        (None, Some("timeout")) => "timeout",
        (None, Some("ready")) => "ready",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lead_in_is_not_the_last_word() {
        // cc11's last message: a lead-in, a table, then what it found.
        let text = "Ah, found the issue:\n\n| TTY | `not a tty` |\n\nEven with `!tty_tickets`, sudo still needs a session context. \
                    My process spawns without a TTY.";
        assert_eq!(last_word(text), "Even with `!tty_tickets`, sudo still needs a session context.");
        // cx29: a bare yes is told with what it answers.
        assert_eq!(
            last_word("Yes. I ran them repeatedly during implementation and again at the end.\n\nResult:\n- `OK`"),
            "Yes. I ran them repeatedly during implementation and again at the end."
        );
        // Near miss: a first sentence that ends a thought is the last word.
        assert_eq!(
            last_word("Found the issue: sudo needs a TTY. Two paths forward:"),
            "Found the issue: sudo needs a TTY."
        );
    }

    #[test]
    fn a_message_that_ends_asking_hands_the_session_back() {
        // cc14's last message: a summary, then a question back to the first request.
        let text = "Done! Here's what was synced:\n\n- **17 sessions**\n\n```\nok?\n```\n\n---\n\n\
                    Now, back to your earlier request - do you still want me to update those shortcuts?\n";
        assert_eq!(
            closing_question(text).as_deref(),
            Some("Now, back to your earlier request - do you still want me to update those shortcuts?")
        );
        // Near misses: a question earlier in the message, or only in code, ends nothing.
        assert_eq!(closing_question("Why did it fail? The port was taken. Fixed it."), None);
        assert_eq!(closing_question("Run this:\n```\nare you sure?\n```"), None);
    }

    #[test]
    fn next_steps_are_the_items_under_their_heading() {
        let text =
            "## Status\n- a\n\n### Next steps\n1. Look at the log: `tail` it.\n2. Split the experiment.\n3. More.\n";
        assert_eq!(next_steps(text), vec!["Look at the log: `tail` it.", "Split the experiment."]);
        assert!(next_steps("## Status\n- a\n").is_empty());
    }

    #[test]
    fn edits_group_by_file_and_count_the_rest() {
        let e = |idx, file: &str| EditFacts { idx, file: file.into(), path: file.into(), purpose: None };
        let edits = [e(1, "a.py"), e(2, "b.py"), e(3, "a.py"), e(4, "c.py"), e(5, "d.py"), e(6, "a.py"), e(7, "a.py")];
        let (groups, more) = group_edits(&edits);
        let files: Vec<&str> = groups.iter().map(|g| g.file.as_str()).collect();
        assert_eq!(files, vec!["a.py", "b.py", "c.py"]);
        assert_eq!(groups[0].edits.iter().map(|e| e.idx).collect::<Vec<_>>(), vec![1, 3, 6]);
        assert_eq!(more, 2, "d.py and the fourth edit of a.py");
    }

    #[test]
    fn notes_and_inert_settings_are_not_changes() {
        assert!(is_note("/root/notes/plan.md") && !is_note("src/communicator.py"));
        assert!(inert_setting("--port") && inert_setting("NCCL_DEBUG") && !inert_setting("NCCL_BUFFSIZE"));
    }
}
