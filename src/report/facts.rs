//! The report model: facts gathered from a session and its findings, serialised into
//! the template context. Nothing here is worded for the reader — that is the
//! templates' and the phrase table's job — and nothing is invented: every field is a
//! quote, a command, an output line, a count or a time taken from the transcript, with
//! the `idx` of the message it came from.

use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::glossary::{Glossary, Term};
use super::story::{Beat, Experiment, Moment, Paragraph, Quote, SearchFacts};
use crate::analysis::call_facts::{CallFacts, Grain};
use crate::analysis::claims;
use crate::analysis::text::display_path;
use crate::analysis::text::{clip, clock, duration, one_line, quote, secs_between, sentences, sentences_where};
use crate::detect::{self, Details, Finding};
use crate::model::{Message, Origin, Role, Session};

/// What a person asked, without what clients and prompt templates put around it: the
/// `<ide_…>` tags an IDE adds; the IDE context before the Codex extension's "## My request
/// for Codex:"; the input block of a template prompt ("## User Input" over a fenced
/// block) — or, when that block is empty, the prompt itself from its next heading on; and
/// a lead-in such as "Implement the following plan:" joined (with "…") to the heading of
/// the document it introduces. Everything returned stands in the message as written.
pub(super) fn request_text(text: &str) -> String {
    let t = unwrapped_request(text);
    if t.is_empty() { text.trim().to_string() } else { t }
}

fn unwrapped_request(text: &str) -> String {
    static IDE_TAG: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?s)<ide_[a-z_]+>.*?</ide_[a-z_]+>").expect("static regex"));
    static MY_REQUEST: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?im)^#+\s*my request for [\w .-]+:\s*$").expect("static regex"));
    let mut t = IDE_TAG.replace_all(text, "").into_owned();
    if let Some(m) = MY_REQUEST.find_iter(&t).last() {
        t = t[m.end()..].to_string();
    }
    let lines: Vec<&str> = t.lines().collect();
    let filled = |from: usize| (from..lines.len()).find(|&i| !lines[i].trim().is_empty());
    if let Some(h) = filled(0).filter(|&h| lines[h].trim_start().starts_with('#'))
        && let Some(open) = filled(h + 1).filter(|&o| lines[o].trim_start().starts_with("```"))
        && let Some(close) = (open + 1..lines.len()).find(|&i| lines[i].trim_start().starts_with("```"))
    {
        let input = lines[open + 1..close].join("\n");
        if !input.trim().is_empty() {
            return input.trim().to_string();
        }
        // Nothing typed into the template: what it asks starts under its next heading.
        if let Some(next) = (close + 1..lines.len()).find(|&i| lines[i].trim_start().starts_with('#')) {
            return lines[next + 1..].join("\n").trim().to_string();
        }
    }
    // A lead-in over a document ("Implement the following plan:" and its "# Plan: …").
    let paras: Vec<&str> = t.split("\n\n").map(str::trim).filter(|p| !p.is_empty()).collect();
    if let [lead, next, ..] = paras.as_slice()
        && !lead.contains('\n')
        && lead.ends_with(':')
        && lead.chars().count() < 80
        && next.starts_with('#')
    {
        let first = next.lines().next().unwrap_or("").trim_start_matches(['#', ' ']);
        return format!("{lead} … {first}");
    }
    t.trim().to_string()
}

/// The first `n` sentences of what a person asked ([`request_text`]).
pub(super) fn asked(text: &str, n: usize, max: usize) -> String {
    sentences(&request_text(text), n, max)
}

/// Context events quoted before an episode.
/// Messages after the key that "what followed" looks at.
const FOLLOW_MESSAGES: usize = 5;
/// Characters of a quoted sentence or line.
const QUOTE: usize = 220;

/// The session a report is about.
#[derive(Debug, Clone, Serialize)]
pub struct SessionInfo {
    pub id: String,
    pub short_id: String,
    pub agent: String,
    pub format: String,
    pub project: Option<String>,
    pub model: Option<String>,
    pub branch: Option<String>,
    pub source: String,
    pub date: Option<String>,
    pub started: Option<String>,
    pub ended: Option<String>,
    pub duration: Option<String>,
    pub messages: usize,
    pub typed_user_turns: usize,
    pub commands: usize,
    pub failed_commands: usize,
}

/// Something that happened at one message, quoted.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub idx: u32,
    /// asked, interrupted, empty-turn, compacted, launched, tested, failed, edited, wrote,
    /// planned, searched, read, waited, ran, said, finding
    pub kind: &'static str,
    pub time: Option<String>,
    /// The words of the message (a sentence or the command), as a faithful quote.
    pub quote: String,
    /// The command, when the event is a call.
    pub command: Option<String>,
    /// The file the step worked on.
    pub file: Option<String>,
    /// A line of the output that tells how it went.
    pub detail: Option<String>,
    /// For findings: the detector id.
    pub detector: Option<String>,
}

/// One message, described for quoting.
#[derive(Debug, Clone, Serialize)]
pub struct MessageFacts {
    pub idx: u32,
    pub role: &'static str,
    pub origin: Origin,
    pub time: Option<String>,
    /// The whole text (redacted), for quoting in full when short.
    pub text: String,
    /// Its first sentences on one line.
    pub gist: String,
    pub chars: usize,
    pub empty: bool,
    pub thinking: Option<String>,
    pub calls: Vec<CallFacts>,
    /// Markdown headings or bold labels of a long structured message (a recap).
    pub headings: Vec<String>,
    /// What to quote when naming this message in one breath: its first command, else
    /// the file a tool call worked on, else its first sentence, else its tool's name —
    /// and whether that is code (command, file, tool) or words.
    pub handle: String,
    pub handle_code: bool,
}

/// A setting that differs between two launches.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub setting: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// A finding, as the report names it.
#[derive(Debug, Clone, Serialize)]
pub struct PatternInfo {
    pub detector: String,
    /// The detector's one-line description (`debrief detectors`), when registered.
    pub description: Option<String>,
    /// The finding's own summary line.
    pub summary: String,
    pub key: u32,
    pub evidence: Vec<u32>,
}

/// An assumption the moment rests on, and what the transcript later says about it.
#[derive(Debug, Clone, Serialize)]
pub struct Assumption {
    /// pattern-selective, end-holds-answer, process-crashed, keyword-means-crash,
    /// claim-holds, budget-enough, changes-separable, knows-next, retry-differs,
    /// test-shows-problem, remote-copy
    pub kind: &'static str,
    /// held, failed, open — the phrase key `assumption.<kind>` picks its wording by it.
    pub situations: Vec<&'static str>,
    pub seed: u32,
    /// What the assumption is about: a pattern, a window of a file, a count.
    pub subject: Option<String>,
    pub file: Option<String>,
    /// The message that settles it, and the words or line that do.
    pub evidence: Option<Quote>,
    pub detail: Option<String>,
    /// The message the assumption is about, when it is not the subject.
    pub at: Option<u32>,
}

/// How far a process had got, read from a progress line.
#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub idx: u32,
    pub line: String,
    pub done: Option<u64>,
    pub total: Option<u64>,
}

/// One step of a belief's story: a call, with what the tool reported.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub idx: u32,
    /// search, read, launch, wait, test, edit, write, run (as [`CallFacts::action`]).
    pub action: &'static str,
    /// The command line, clipped, or the tool and its file.
    pub command: Option<String>,
    pub tool: String,
    pub file: Option<String>,
    /// ok, failed, stopped (by the user), or unknown (no result came back).
    pub status: &'static str,
    /// The line that says what went wrong, when it failed and one does.
    pub error: Option<String>,
}

/// A belief and what undid it, as the findings' [`Details::Belief`] and the transcript
/// show them: each part is there only when a message shows it.
#[derive(Debug, Clone, Serialize)]
pub struct BeliefFacts {
    /// claim, alarm; then how it was undone (pushback, retraction, progress, ready, alive).
    pub situations: Vec<&'static str>,
    pub seed: u32,
    /// What was believed, as said or printed.
    pub believed: Quote,
    /// The last call that returned before the belief was stated, after the user's last turn.
    pub rested_on: Option<Step>,
    /// What the assistant did between stating it and what undid it.
    pub acted: Vec<Step>,
    pub acted_more: usize,
    /// What undid it: the user's words, or the output line that showed the process fine.
    pub undone: Option<Quote>,
    /// pushback (the user disputed it), user (the user's turn right before a retraction),
    /// failure (a call that failed right before a retraction), progress, ready, alive.
    pub undone_how: Option<&'static str>,
    pub undone_step: Option<Step>,
    /// The assistant's own words taking it back.
    pub correction: Option<Quote>,
    /// From what undid it to the user's next turn after the correction: the last command that returned.
    pub outcome: Option<Step>,
    /// The user's next turn after the correction, when it disputes the next claim.
    pub next_pushback: Option<Quote>,
    pub next_claim: Option<Quote>,
    /// The user spoke again after the correction.
    pub user_next: bool,
    /// Nothing follows the correction: the session ends there.
    pub ends: bool,
}

/// An episode: one finding, or one message written up on its own.
#[derive(Debug, Clone, Serialize)]
pub struct EpisodeFacts {
    /// Phrase table to use: the detector id, or `_message` without a finding.
    pub detector: String,
    /// Situations, most specific first: phrase keys `name.<situation>` win over `name`.
    pub situations: Vec<&'static str>,
    /// Seed for choosing phrase variants (the key idx).
    pub seed: u32,
    pub key: u32,
    pub pattern: Option<PatternInfo>,
    /// The finding's own facts, and those of other findings on the same message.
    pub moment: Option<Moment>,
    pub also: Vec<Moment>,
    pub session: SessionInfo,
    /// The first thing the user typed.
    pub goal: Option<Event>,
    /// Time from the session's start to this message.
    pub since_start: Option<String>,
    /// What the session was doing before, as paragraphs of beats, oldest first.
    pub context: Vec<Paragraph>,
    /// The last launch told in the context: what this moment traces back to.
    pub upstream: Option<Beat>,
    pub subject: MessageFacts,
    /// The attempts right before the subject (the finding's earlier evidence, or the
    /// assistant's last calls before it), oldest first.
    pub prior_attempts: Vec<MessageFacts>,
    /// The searches among them, measured.
    pub searches: Vec<SearchFacts>,
    /// Sentences of the subject that say why or what next (prose only).
    pub reasoning: Vec<String>,
    /// The subject's visible thinking.
    pub thinking: Vec<String>,
    /// The subject's first search call among the attempts, and its positional read.
    pub search: Option<CallFacts>,
    pub read: Option<CallFacts>,
    /// Settings changed since the previous launch of the same program.
    pub changes: Vec<Change>,
    pub previous_launch: Option<Event>,
    /// Revealing lines of the subject's outputs, with the idx they came from.
    pub revealing: Vec<Event>,
    /// The last progress reading of the subject's outputs.
    pub progress: Option<Progress>,
    /// The subject read or searched output and none of it is an error line.
    pub no_error: bool,
    /// How the next assistant message read this one's outcome.
    pub reading: Option<Quote>,
    pub assumptions: Vec<Assumption>,
    /// What was believed and what undid it, when a finding on this episode found one.
    pub belief: Option<BeliefFacts>,
    pub technologies: Vec<Term>,
    /// What came after, as beats.
    pub followed: Vec<Beat>,
    /// Messages after the subject: what followed is "nothing" only when there are none.
    pub after_count: usize,
    /// The subject launched, edited or wrote something: a step that changes state
    /// rather than reveals it.
    pub changes_state: bool,
    /// Median length of assistant text in the session, for "N times longer".
    pub median_assistant_chars: usize,
    /// In an arc: findings of the next messages told in the same section (an empty
    /// turn and the recap it drew).
    pub joined: Vec<Moment>,
    /// Every message the episode cites, for the appendix.
    pub cited: Vec<Event>,
}

/// An arc: the findings (or notable steps) over a range of messages.
#[derive(Debug, Clone, Serialize)]
pub struct ArcFacts {
    pub detector: &'static str,
    pub situations: Vec<&'static str>,
    pub seed: u32,
    pub from: u32,
    pub to: u32,
    pub session: SessionInfo,
    pub goal: Option<Event>,
    /// The story before the arc, as paragraphs of beats.
    pub context: Vec<Paragraph>,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    pub span: Option<String>,
    pub messages: usize,
    pub commands: usize,
    pub failed_commands: usize,
    /// One step per message with findings (the telling one leads, the others are its
    /// `also`), or per notable message when there are none.
    pub steps: Vec<EpisodeFacts>,
    /// Findings in the range, and how many of each detector.
    pub findings: usize,
    pub tally: Vec<Tally>,
    pub detectors: Vec<String>,
    /// The findings that make the arc's thread, in order — including one before the
    /// range whose evidence reaches into it (an alarm taken back inside the arc).
    pub thread: Vec<Moment>,
    /// Where the arc's wall-clock time went: the largest waits and pauses.
    pub time_parts: Vec<TimePart>,
    /// How the arc ends: its last message, told.
    pub ending: Option<Beat>,
    /// The launch that changed several things at once that the arc's story traces
    /// back to, when its context tells one.
    pub upstream: Option<Beat>,
    /// The last message of the range, quoted.
    pub last: Option<Event>,
    pub cited: Vec<Event>,
}

/// Findings of one detector in an arc.
#[derive(Debug, Clone, Serialize)]
pub struct Tally {
    pub detector: String,
    pub count: usize,
    pub seed: u32,
    pub situations: Vec<&'static str>,
}

/// A stretch of wall-clock time: a call that ran long, or a pause before a turn.
#[derive(Debug, Clone, Serialize)]
pub struct TimePart {
    pub idx: u32,
    /// wait, call, pause
    pub kind: &'static str,
    pub secs: i64,
    pub text: String,
    /// What ran (for calls), quoted, and for a wait the line it ended with.
    pub command: Option<String>,
    pub line: Option<String>,
}

/// A finding on the session timeline.
#[derive(Debug, Clone, Serialize)]
pub struct TimelineEntry {
    pub idx: u32,
    pub detector: String,
    pub summary: String,
    pub title_facts: Event,
    pub time: Option<String>,
    /// Time since the previous finding (or the session start).
    pub since_previous: Option<String>,
    /// The finding's own facts, for wording it.
    pub moment: Moment,
}

/// The part of a session between two requests of the user's (turns that only nod the
/// work on — "continue", "go ahead" — do not start a phase; they are counted).
#[derive(Debug, Clone, Serialize)]
pub struct Phase {
    pub request: Event,
    pub from: u32,
    pub to: u32,
    pub start: Option<String>,
    pub duration: Option<String>,
    pub messages: usize,
    pub commands: usize,
    pub failed: usize,
    pub launches: usize,
    /// The user's nudges inside the phase.
    pub nudges: usize,
    pub findings: Vec<TimelineEntry>,
}

/// A nudge the user typed, and how often.
#[derive(Debug, Clone, Serialize)]
pub struct Nudge {
    pub text: String,
    pub count: usize,
}

/// A launch, what changed since the previous launch of the same program, and what
/// became of it; and how long until the next launch of the same program (or the end).
#[derive(Debug, Clone, Serialize)]
pub struct Launch {
    pub event: Event,
    pub program: String,
    pub experiment: Experiment,
    pub next: Option<u32>,
    pub waited: Option<String>,
    pub waited_secs: Option<i64>,
}

/// Failed calls grouped by what ran.
#[derive(Debug, Clone, Serialize)]
pub struct FailureGroup {
    pub signature: String,
    pub count: usize,
    pub first: Event,
    pub last_idx: u32,
}

/// Where the time went.
#[derive(Debug, Clone, Serialize)]
pub struct TimeUse {
    pub total: Option<String>,
    pub total_secs: Option<i64>,
    /// Time inside tool calls, per program (wait loops as "wait loop"), longest first.
    pub by_program: Vec<(String, String, i64)>,
    pub in_calls: Option<String>,
    /// Time calls spent waiting on the person: questions, plans up for approval, calls
    /// the person stopped or refused.
    pub on_user: Option<String>,
    pub waiting_for_user: Option<String>,
    /// Stretches of more than half an hour with nothing happening (nights, lunch), and
    /// their sum: calls of editors and readers whose result came back that late count
    /// here, not as work.
    pub pauses: usize,
    pub paused: Option<String>,
    /// The share of the wall-clock time that went to wait loops, and how much.
    pub in_waits: Option<String>,
    /// The longest single calls.
    pub longest_calls: Vec<Event>,
    pub longest_secs: Vec<i64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DetectorCount {
    pub detector: String,
    pub description: Option<String>,
    pub count: usize,
    pub keys: Vec<u32>,
}

/// The whole session.
#[derive(Debug, Clone, Serialize)]
pub struct SessionFacts {
    pub detector: &'static str,
    pub situations: Vec<&'static str>,
    pub seed: u32,
    pub session: SessionInfo,
    pub goal: Option<Event>,
    pub phases: Vec<Phase>,
    /// Requests the user typed, and the nudges in between, most frequent first.
    pub requests: usize,
    pub nudges: Vec<Nudge>,
    pub nudge_count: usize,
    pub timeline: Vec<TimelineEntry>,
    pub launches: Vec<Launch>,
    /// The main problems and what became of them (`stories`).
    pub stories: Vec<super::stories::Story>,
    pub by_detector: Vec<DetectorCount>,
    pub failures: Vec<FailureGroup>,
    pub time: TimeUse,
    pub technologies: Vec<Term>,
    pub last: Option<Event>,
    /// How the session ends: its last message, told.
    pub ending: Option<Beat>,
    pub cited: Vec<Event>,
}

/// Everything the builders need, gathered once per session.
pub struct Builder<'a> {
    pub session: &'a Session,
    pub findings: &'a [Finding],
    pub glossary: &'a Glossary,
    /// Facts of every call, per message position: computed once, since shell parsing
    /// and output analysis are the costly part and every section asks again.
    calls: Vec<Vec<CallFacts>>,
}

impl<'a> Builder<'a> {
    pub fn new(session: &'a Session, findings: &'a [Finding], glossary: &'a Glossary) -> Builder<'a> {
        let mut calls: Vec<Vec<CallFacts>> =
            session.messages.iter().map(|m| m.calls.iter().map(|c| CallFacts::of(c, m)).collect()).collect();
        // A read of a background command's output reports that command's exit: it names
        // the command it continues, and the time spent reading is that command's.
        let started: std::collections::HashMap<&str, (&str, String)> = session
            .messages
            .iter()
            .zip(&calls)
            .flat_map(|(m, facts)| m.calls.iter().zip(facts))
            .filter_map(|(c, f)| Some((c.id.as_str(), (c.command.as_deref()?, f.label.clone()))))
            .collect();
        for (m, facts) in session.messages.iter().zip(&mut calls) {
            for (c, f) in m.calls.iter().zip(facts.iter_mut()) {
                if let Some((cmd, label)) = c.continues.as_deref().and_then(|id| started.get(id)) {
                    f.continues = Some(crate::analysis::text::clip(&crate::analysis::text::one_line(cmd), 140));
                    f.label = label.clone();
                }
            }
        }
        Builder { session, findings, glossary, calls }
    }

    /// The facts of `m`'s calls, in call order.
    pub(super) fn facts_of(&self, m: &Message) -> &[CallFacts] {
        match self.session.messages.binary_search_by_key(&m.idx, |x| x.idx) {
            Ok(pos) => &self.calls[pos],
            Err(_) => &[],
        }
    }

    fn info(&self) -> SessionInfo {
        let s = self.session;
        let m = &s.meta;
        // What failed is what the call facts say failed: not a call the person stopped, not
        // a search that found nothing.
        let calls: Vec<&CallFacts> = self.calls.iter().flatten().filter(|c| c.command.is_some()).collect();
        let failed = calls.iter().filter(|c| c.failed()).count();
        SessionInfo {
            id: m.id.clone(),
            short_id: m.id.chars().take(8).collect(),
            agent: m.agent.clone(),
            format: m.format.clone(),
            project: m.project.clone(),
            model: m.model.clone(),
            branch: m.git_branch.clone(),
            source: display_path(&m.source),
            date: m.started.map(|t| t.format("%Y-%m-%d").to_string()),
            started: m.started.map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()),
            ended: self.last_time().map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()),
            duration: secs_between(m.started, self.last_time()).filter(|d| *d > 0).map(duration),
            messages: s.messages.len(),
            typed_user_turns: s.messages.iter().filter(|m| m.is_typed_user() && !m.text.trim().is_empty()).count(),
            commands: calls.len(),
            failed_commands: failed,
        }
    }

    /// The last moment the transcript shows something happen: its last message or result.
    /// A file's own "last updated" stamp may come much later (the window left open).
    fn last_time(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        let s = self.session;
        let seen = s
            .messages
            .iter()
            .flat_map(|m| m.timestamp.into_iter().chain(m.calls.iter().filter_map(|c| c.result.as_ref()?.timestamp)))
            .max();
        seen.or(s.meta.ended)
    }

    fn goal(&self) -> Option<Event> {
        self.session.messages.iter().find(|m| m.is_typed_user() && !m.text.trim().is_empty()).map(|m| Event {
            idx: m.idx,
            kind: "asked",
            time: clock(m.timestamp),
            quote: asked(&m.text, 3, 300),
            command: None,
            file: None,
            detail: None,
            detector: None,
        })
    }

    fn message(&self, m: &Message) -> MessageFacts {
        let thinking = (!m.thinking.trim().is_empty()).then(|| sentences(&m.thinking, 3, 400));
        MessageFacts {
            idx: m.idx,
            role: m.role.as_str(),
            origin: m.origin,
            time: clock(m.timestamp),
            text: m.text.trim().to_string(),
            gist: if m.is_typed_user() { asked(&m.text, 2, QUOTE) } else { sentences(&m.text, 2, QUOTE) },
            chars: m.char_len(),
            empty: m.text.trim().is_empty() && m.calls.is_empty(),
            thinking,
            calls: self.facts_of(m).to_vec(),
            headings: headings(&m.text),
            handle: m
                .commands()
                .next()
                .map(|c| clip(&one_line(c), 140))
                .or_else(|| self.facts_of(m).iter().find_map(|c| c.file.clone()))
                .or_else(|| Some(sentences(&m.text, 1, QUOTE)).filter(|s| !s.is_empty()))
                .or_else(|| m.calls.first().map(|c| c.name.clone()))
                .unwrap_or_default(),
            handle_code: m.commands().next().is_some()
                || self.facts_of(m).iter().any(|c| c.file.is_some())
                || (sentences(&m.text, 1, QUOTE).is_empty() && !m.calls.is_empty()),
        }
    }

    /// Events of message `m`: what a reader of the story needs to know it did.
    fn events(&self, m: &Message, all: bool) -> Vec<Event> {
        let base = |kind, quote: String| Event {
            idx: m.idx,
            kind,
            time: clock(m.timestamp),
            quote,
            command: None,
            file: None,
            detail: None,
            detector: None,
        };
        let mut out = Vec::new();
        match (m.role, m.origin) {
            (Role::User, Origin::Interrupt) => out.push(base("interrupted", quote(&m.text, 80))),
            (Role::User, Origin::Typed) if m.text.trim().is_empty() => out.push(base("empty-turn", String::new())),
            (Role::User, Origin::Typed) => out.push(base("asked", asked(&m.text, 2, QUOTE))),
            (Role::System, Origin::CompactSummary) => out.push(base("compacted", sentences(&m.text, 1, 160))),
            (Role::Assistant, _) => {
                static PLAN: LazyLock<Regex> =
                    LazyLock::new(|| Regex::new(r"(?i)\b(plan|priority|next step|strategy)\b").expect("static regex"));
                if let Some(s) = sentences_where(&m.text, QUOTE, |s| PLAN.is_match(s)).into_iter().next() {
                    out.push(base("planned", s));
                } else if all && !m.text.trim().is_empty() {
                    out.push(base("said", sentences(&m.text, 1, QUOTE)));
                }
                for f in self.facts_of(m) {
                    let f = f.clone();
                    let out_facts = f.output.as_ref();
                    let failed = f.failed();
                    let kind = match f.action {
                        "launch" => "launched",
                        "test" => "tested",
                        "edit" => "edited",
                        "write" => "wrote",
                        _ if failed => "failed",
                        "search" if all => "searched",
                        "read" if all => "read",
                        // A wait is part of the story even in brief: it is how a launch
                        // was judged.
                        "wait" => "waited",
                        _ if all => "ran",
                        _ => continue,
                    };
                    let detail = out_facts.and_then(|o| {
                        let pick = |k: &str| o.revealing.iter().find(|r| r.kind == k).map(|r| r.line.clone());
                        match kind {
                            "tested" => pick("result").or_else(|| o.failure_line()),
                            "failed" => o.failure_line(),
                            "launched" | "edited" | "wrote" => None,
                            _ => pick("alarm").or_else(|| pick("error")).or_else(|| o.last_line.clone()),
                        }
                    });
                    let q = f.command_short.clone().unwrap_or_else(|| f.file.clone().unwrap_or_else(|| f.tool.clone()));
                    let mut e = base(kind, q);
                    e.command = f.command_short.clone();
                    e.file = f.file.clone();
                    e.detail = detail;
                    if failed && kind == "tested" {
                        e.kind = "tested-failed";
                    }
                    out.push(e);
                }
            }
            _ => {}
        }
        out
    }

    fn finding_event(&self, f: &Finding) -> Event {
        let m = self.session.message(f.key);
        let q = m
            .map(|m| {
                m.commands().next().map(|c| clip(&one_line(c), 140)).unwrap_or_else(|| {
                    if m.text.trim().is_empty() { String::new() } else { sentences(&m.text, 1, QUOTE) }
                })
            })
            .unwrap_or_default();
        Event {
            idx: f.key,
            kind: "finding",
            time: m.and_then(|m| clock(m.timestamp)),
            quote: q,
            command: f.command.as_deref().map(|c| clip(&one_line(c), 140)),
            file: None,
            detail: Some(f.summary.clone()),
            detector: Some(f.detector.clone()),
        }
    }

    /// The episode around the finding keyed on `key` — or, without one, the message
    /// `key` written up on its own. With several findings on the message, the one that
    /// tells the most leads.
    pub fn episode(&self, key: u32) -> Option<EpisodeFacts> {
        let finding = self.lead_finding(key);
        self.episode_for(key, finding)
    }

    /// The finding on message `key` that a story leads with.
    pub(super) fn lead_finding(&self, key: u32) -> Option<&'a Finding> {
        self.findings.iter().filter(|f| f.key == key).min_by_key(|f| detect::telling(&f.detector).rank)
    }

    fn episode_for(&self, key: u32, finding: Option<&Finding>) -> Option<EpisodeFacts> {
        let s = self.session;
        let key_msg = s.message(key)?;
        let subject = self.message(key_msg);
        let evidence: Vec<u32> = finding.map(|f| f.evidence.clone()).unwrap_or_else(|| vec![key]);
        // Where the context stops: before the finding's first evidence — except for a
        // relaunch, whose evidence (the previous launch, the edits) is the context.
        let first = if finding.is_some_and(|f| detect::telling(&f.detector).evidence_is_context) {
            key
        } else {
            evidence.first().copied().unwrap_or(key).min(key)
        };

        // Earlier attempts: the finding's evidence before the key; without that, the
        // assistant's last messages with calls right before it.
        let mut prior: Vec<MessageFacts> = evidence
            .iter()
            .filter(|i| **i < key)
            .filter_map(|i| s.message(*i))
            .filter(|m| m.role == Role::Assistant)
            .map(|m| self.message(m))
            .collect();
        if prior.is_empty() {
            let pos = s.messages.partition_point(|m| m.idx < key);
            prior = s.messages[..pos]
                .iter()
                .rev()
                .take_while(|m| !m.is_typed_user())
                .filter(|m| m.role == Role::Assistant && !m.calls.is_empty())
                .take(2)
                .map(|m| self.message(m))
                .collect();
            prior.reverse();
        }
        let searches: Vec<SearchFacts> =
            prior.iter().filter_map(|p| s.message(p.idx)).filter_map(|m| self.search_of(m)).collect();

        // The story before: findings that are this episode's own evidence are told in
        // its sections, not in the context.
        let mut skip: Vec<u32> = evidence.clone();
        skip.push(key);
        let context = self.story_before(first, &skip);
        // The reasons a step gives are the assistant's; a person's turn is told by its text.
        let reasoning =
            if key_msg.role == Role::Assistant { claims::reasoning(&key_msg.text, 260, 4) } else { Vec::new() };
        let thinking: Vec<String> =
            Some(sentences(&key_msg.thinking, 5, 700)).filter(|t| !t.trim().is_empty()).into_iter().collect();

        // A finding's earlier attempts are part of its story; a message written up on
        // its own is about its own calls only.
        let attempts: &[MessageFacts] = if finding.is_some() { &prior } else { &[] };
        let search = attempts
            .iter()
            .chain(std::iter::once(&subject))
            .flat_map(|m| &m.calls)
            .find(|c| c.action == "search")
            .cloned();
        let read = subject.calls.iter().find(|c| c.action == "read").cloned();
        let subject_changes_state = subject.calls.iter().any(|c| matches!(c.action, "launch" | "edit" | "write"));

        let (changes, previous_launch) = self.changes_since_previous_launch(key_msg);

        let revealing: Vec<Event> = subject
            .calls
            .iter()
            .filter_map(|c| c.output.as_ref())
            // An output's last line is worth quoting only when nothing in it says what
            // went wrong: after an error line it is the cleanup or the help text's end.
            .flat_map(|o| {
                let erred = o.revealing.iter().any(|r| matches!(r.kind, "error" | "alarm"));
                o.revealing.iter().filter(move |r| r.kind != "last" || !erred)
            })
            .filter(|r| r.kind != "last" || subject.calls.iter().all(|c| c.action != "wait"))
            .map(|r| Event {
                idx: key,
                kind: r.kind,
                time: subject.time.clone(),
                quote: r.line.clone(),
                command: None,
                file: None,
                detail: None,
                detector: None,
            })
            .collect();
        let progress = revealing.iter().find(|r| r.kind == "progress").map(|r| {
            static FRACTION: LazyLock<Regex> =
                LazyLock::new(|| Regex::new(r"\b(\d+)\s*/\s*(\d+)\b").expect("static regex"));
            let c = FRACTION.captures(&r.quote);
            Progress {
                idx: key,
                line: r.quote.clone(),
                done: c.as_ref().and_then(|c| c[1].parse().ok()),
                total: c.as_ref().and_then(|c| c[2].parse().ok()),
            }
        });
        let looked = subject.calls.iter().any(|c| matches!(c.action, "read" | "search") && c.output.is_some());
        let no_error =
            looked
                && subject.calls.iter().filter_map(|c| c.output.as_ref()).all(|o| {
                    o.error_head.is_none() && !o.revealing.iter().any(|r| matches!(r.kind, "error" | "alarm"))
                });
        // How the next assistant message read this one's outcome.
        let pos = s.messages.partition_point(|m| m.idx <= key);
        let reading = s.messages[pos..]
            .iter()
            .take_while(|m| m.role != Role::User)
            .find(|m| m.role == Role::Assistant && !m.text.trim().is_empty())
            .and_then(|m| {
                claims::statements(&m.text, 260)
                    .into_iter()
                    .find(|x| matches!(x.kind, claims::Kind::Retraction | claims::Kind::Conclusion))
                    .map(|x| Quote { idx: m.idx, text: x.text })
            })
            .filter(|_| subject.role == "assistant" && !subject.calls.is_empty());

        let mut followed = self.story_after(key, FOLLOW_MESSAGES, &[key]);
        let after: Vec<&Message> = s.messages[s.messages.partition_point(|m| m.idx <= key)..]
            .iter()
            .filter(|m| m.role != Role::System)
            .collect();
        if followed.is_empty()
            && let Some(m) =
                after.iter().take(FOLLOW_MESSAGES).find(|m| m.role == Role::Assistant && !m.text.trim().is_empty())
        {
            // Steps the story does not tell (a plain answer, reads): the next words said.
            followed.push(Beat::said(m, sentences(&m.text, 1, QUOTE)));
        }
        let after_count = after.len();

        // Technologies: what the episode's own messages mention.
        let (mut texts, mut commands): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
        for i in evidence.iter().copied().chain([key]) {
            if let Some(m) = s.message(i) {
                texts.push(&m.text);
                for c in &m.calls {
                    commands.extend(c.command.as_deref());
                    if let Some(r) = &c.result {
                        texts.push(&r.output);
                    }
                }
            }
        }
        let context_quotes: Vec<String> =
            context.iter().flat_map(|p| &p.beats).flat_map(|b| b.quotes.iter().cloned()).collect();
        texts.extend(context_quotes.iter().map(String::as_str));
        let technologies = self.glossary.find(&texts, &commands);

        let moment = finding.map(|f| self.moment(f));
        let mut seen = std::collections::HashSet::new();
        let also: Vec<Moment> = self
            .findings
            .iter()
            .filter(|f| f.key == key && Some(*f) != finding)
            .filter(|f| seen.insert(f.detector.clone()))
            .map(|f| self.moment(f))
            .collect();

        let mut situations = Vec::new();
        if let Some(m) = &moment {
            situations.extend(m.situations.iter().copied());
        }
        situation_tags(&subject, &prior, finding.is_some(), &mut situations);
        if subject.calls.first().is_some_and(|c| c.command.is_none()) {
            situations.push("tool-call");
        }

        let pattern = finding.map(|f| PatternInfo {
            detector: f.detector.clone(),
            description: detect::by_id(&f.detector).map(|d| d.summary().to_string()),
            summary: f.summary.clone(),
            key: f.key,
            evidence: f.evidence.clone(),
        });
        let goal = self.goal();
        let since_start =
            secs_between(s.meta.started.or(s.messages.first().and_then(|m| m.timestamp)), key_msg.timestamp)
                .filter(|d| *d > 0)
                .map(duration);
        let mut ep = EpisodeFacts {
            detector: finding.map_or_else(|| "_message".to_string(), |f| f.detector.clone()),
            situations,
            seed: key,
            key,
            pattern,
            moment,
            also,
            session: self.info(),
            goal,
            since_start,
            upstream: context.iter().flat_map(|p| &p.beats).rev().find(|b| b.kind == "experiment").cloned(),
            context,
            subject,
            prior_attempts: prior,
            searches,
            reasoning,
            thinking,
            search,
            read,
            changes,
            previous_launch,
            revealing,
            progress,
            no_error,
            reading,
            assumptions: Vec::new(),
            belief: None,
            technologies,
            followed,
            after_count,
            changes_state: subject_changes_state,
            median_assistant_chars: self.median_text_chars(),
            joined: Vec::new(),
            cited: Vec::new(),
        };
        ep.assumptions = self.assumptions(&ep);
        ep.belief = self.belief(key, finding);
        ep.cited = self.cited(ep_cites(&ep));
        Some(ep)
    }

    /// A call as a step: what ran and what the tool reported of it.
    fn step(idx: u32, c: &CallFacts) -> Step {
        let o = c.output.as_ref();
        let status = match o {
            None => "unknown",
            Some(o) if o.interrupted => "stopped",
            Some(o) if o.failed => "failed",
            Some(_) => "ok",
        };
        Step {
            idx,
            action: c.action,
            command: c.command_short.clone(),
            tool: c.tool.clone(),
            file: c.file.clone(),
            status,
            error: o.filter(|o| o.failed).and_then(|o| o.error_line.clone()),
        }
    }

    /// The calls of messages `from..to` (exclusive), oldest first.
    fn steps_between(&self, from: u32, to: u32) -> Vec<Step> {
        let s = self.session;
        let (a, b) = (s.messages.partition_point(|m| m.idx <= from), s.messages.partition_point(|m| m.idx < to));
        s.messages[a..b.max(a)]
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .flat_map(|m| self.facts_of(m).iter().map(move |c| Self::step(m.idx, c)))
            .collect()
    }

    /// The first typed user turn after `idx`.
    fn next_typed(&self, idx: u32) -> Option<&'a Message> {
        let s = self.session;
        s.messages[s.messages.partition_point(|m| m.idx <= idx)..].iter().find(|m| m.is_typed_user())
    }

    /// What was believed and what undid it: the belief a finding of this episode found
    /// (keyed here, or whose claim is here), with the parts other findings and the
    /// transcript show — the run before it, what was done on it, the correction and what
    /// came of it. Nothing is guessed: a part no message shows is left out.
    fn belief(&self, key: u32, lead: Option<&Finding>) -> Option<BeliefFacts> {
        let s = self.session;
        let beliefs: Vec<(&Finding, &crate::detect::Cited, Option<&crate::detect::Undoing>)> = self
            .findings
            .iter()
            .filter_map(|f| match &f.details {
                Some(Details::Belief { claim: Some(c), undone }) => Some((f, c, undone.as_ref())),
                _ => None,
            })
            .collect();
        let (_, claim, undone) = beliefs
            .iter()
            .find(|(f, ..)| lead.is_some_and(|l| l == *f))
            .or_else(|| beliefs.iter().find(|(f, ..)| f.key == key))
            .or_else(|| beliefs.iter().find(|(_, c, _)| c.idx == key))
            .copied()?;
        let how = undone.map(|u| u.how.as_str());
        // A turn of the user's that neither names what was said nor says something failed
        // or is wrong is a new request, not what undid it (“So many warnings in the log”
        // after “All 198 tests pass”): without the assistant taking it back, no belief.
        let words = crate::analysis::text::content_words;
        let disputes = |t: &str| {
            static NAY: LazyLock<Regex> = LazyLock::new(|| {
                Regex::new(r"(?i)^\W*(?:no|nope|wrong)\b|\b(?:still|not|never|didn'?t|doesn'?t|isn'?t|fail\w*|error\w*|broke\w*|wrong)\b")
                    .expect("static regex")
            });
            NAY.is_match(t) || !words(t).is_disjoint(&words(&claim.text))
        };
        let alarm = matches!(how, Some("progress" | "ready" | "alive"));
        let mut situations: Vec<&'static str> = vec![if alarm { "alarm" } else { "claim" }];
        // Of what the claimed message says, the sentence what undid it is about: the one
        // sharing the most words with the user's answer or the retraction (the detector's
        // own pick when none shares more).
        let against = undone.map(|u| words(&u.text)).unwrap_or_default();
        let overlap = |t: &str| words(t).intersection(&against).count();
        let believed = s
            .message(claim.idx)
            .map(|m| claims::statements(&m.text, QUOTE))
            .unwrap_or_default()
            .into_iter()
            // A belief is stated, not asked, planned or put as a heading.
            .filter(|st| !matches!(st.kind, claims::Kind::Question | claims::Kind::Plan))
            .map(|st| st.text)
            .filter(|t| t.trim_end().ends_with(['.', '!', ':', '”', '"', ')']))
            // Nor put as a condition (“If you later enable Pages, we can switch the badge”).
            .filter(|t| !["If ", "When ", "Once ", "Should "].iter().any(|c| t.starts_with(c)))
            .filter(|t| overlap(t) > overlap(&claim.text))
            .max_by_key(|t| overlap(t))
            .map_or_else(|| Quote { idx: claim.idx, text: claim.text.clone() }, |text| Quote { idx: claim.idx, text });

        // The last call that returned before it was said, since the user's last turn.
        let since = s.messages[..s.messages.partition_point(|m| m.idx < claim.idx)]
            .iter()
            .rev()
            .find(|m| m.is_typed_user())
            .map_or(0, |m| m.idx);
        let rested_on = if alarm {
            // The alarm is read from the output of its own message's calls.
            s.message(claim.idx)
                .and_then(|m| self.facts_of(m).iter().rev().find(|c| c.output.is_some()))
                .map(|c| Self::step(claim.idx, c))
        } else {
            // The last shell run; of those, the last whose command shares a word with
            // what was said (`pytest` for "pytest -q → 17 passed"), or a test run for a
            // claim about tests.
            let said = words(&believed.text);
            let about_tests = said.iter().any(|w| w.starts_with("test") || w.starts_with("pass"));
            let runs: Vec<Step> = self
                .steps_between(since, claim.idx)
                .into_iter()
                .filter(|st| st.status != "unknown" && st.command.is_some() && !matches!(st.action, "edit" | "write"))
                .collect();
            let shares = |st: &Step| {
                (about_tests && st.action == "test")
                    || st.command.as_deref().is_some_and(|c| !words(c).is_disjoint(&said))
            };
            match runs.iter().rev().find(|st| shares(st)) {
                Some(st) => {
                    situations.push("rested-same");
                    Some(st.clone())
                }
                None => runs.last().cloned(),
            }
        };

        // What undid it, and the correction.
        let retraction_of = |after: u32, before: Option<u32>| {
            beliefs.iter().find(|(g, c, u)| {
                u.is_some_and(|u| u.how == "retraction" && u.idx > after && before.is_none_or(|b| u.idx < b))
                    && (c.idx == claim.idx || g.key > after)
            })
        };
        let (mut undone_q, mut undone_how, mut undone_step, mut correction) = (None, None, None, None::<Quote>);
        match (how, undone) {
            (Some("retraction"), Some(u)) => {
                correction = Some(Quote { idx: u.idx, text: u.text.clone() });
                // What came right before the retraction: a pushback on the same claim,
                // else the user's last turn since the claim, else a failed call.
                let push = beliefs.iter().find(|(_, c, v)| {
                    c.idx == claim.idx && v.is_some_and(|v| v.how == "pushback" && v.idx > claim.idx && v.idx < u.idx)
                });
                let user = s.messages
                    [s.messages.partition_point(|m| m.idx <= claim.idx)..s.messages.partition_point(|m| m.idx < u.idx)]
                    .iter()
                    .rev()
                    .find(|m| m.is_typed_user());
                if let Some((_, _, Some(v))) = push {
                    undone_q = Some(Quote { idx: v.idx, text: v.text.clone() });
                    undone_how = Some("pushback");
                } else if let Some(m) = user {
                    undone_q = Some(Quote { idx: m.idx, text: sentences(&request_text(&m.text), 1, QUOTE) });
                    undone_how = Some("user");
                } else if let Some(st) =
                    self.steps_between(claim.idx, u.idx).into_iter().rev().find(|st| st.status == "failed")
                {
                    undone_how = Some("failure");
                    undone_step = Some(st);
                }
            }
            (Some(h), Some(u)) => {
                undone_q = Some(Quote { idx: u.idx, text: u.text.clone() });
                undone_how = Some(match h {
                    "pushback" => "pushback",
                    "progress" => "progress",
                    "ready" => "ready",
                    _ => "alive",
                });
                // The assistant's retraction of it, before the user's next turn.
                let next_user = self.next_typed(u.idx).map(|m| m.idx);
                if let Some((_, _, Some(r))) = retraction_of(u.idx.saturating_sub(1), next_user) {
                    correction = Some(Quote { idx: r.idx, text: r.text.clone() });
                }
            }
            _ => {}
        }
        let undone_idx = undone_q.as_ref().map(|q| q.idx).or(undone_step.as_ref().map(|st| st.idx));
        // What was done on the belief before it was undone: steps that change or run
        // something (reads and searches only look).
        let acted_all: Vec<Step> = undone_idx
            .map(|u| self.steps_between(claim.idx, u))
            .unwrap_or_default()
            .into_iter()
            .filter(|st| !matches!(st.action, "read" | "search"))
            .collect();
        let acted_more = acted_all.len().saturating_sub(3);
        let acted: Vec<Step> = acted_all.into_iter().take(3).collect();

        // What came of the correction: the last command that returned from what undid it to
        // the user's next turn after the correction (an agent often fixes first and says
        // so after); that turn, when it disputes the next claim; or the session's end.
        let (mut outcome, mut next_pushback, mut next_claim, mut ends, mut user_next) =
            (None, None, None, false, false);
        if let Some(x) = &correction {
            let next_user = self.next_typed(x.idx);
            user_next = next_user.is_some();
            outcome = self
                .steps_between(undone_idx.unwrap_or(claim.idx).min(x.idx), next_user.map_or(u32::MAX, |m| m.idx))
                .into_iter()
                .rev()
                .find(|st| st.status != "unknown" && st.command.is_some());
            if let Some(n) = next_user
                && let Some((_, c, Some(v))) = beliefs
                    .iter()
                    .find(|(_, c, v)| c.idx >= x.idx && v.is_some_and(|v| v.how == "pushback" && v.idx == n.idx))
            {
                next_pushback = Some(Quote { idx: v.idx, text: v.text.clone() });
                next_claim = Some(Quote { idx: c.idx, text: c.text.clone() });
            }
            ends = s.messages.last().is_none_or(|m| m.idx <= x.idx);
        }
        // Nor is a pushback after another request of the user's since the claim: it
        // answers what that request started.
        let asked_between = undone_q.as_ref().is_some_and(|q| {
            s.messages
                [s.messages.partition_point(|m| m.idx <= claim.idx)..s.messages.partition_point(|m| m.idx < q.idx)]
                .iter()
                .any(|m| m.is_typed_user())
        });
        if undone_how == Some("pushback")
            && correction.is_none()
            && (asked_between || !undone_q.as_ref().is_some_and(|q| disputes(&q.text)))
        {
            return None;
        }
        if let Some(h) = undone_how {
            situations.push(h);
        }
        if correction.is_some() {
            situations.push("corrected");
        }
        Some(BeliefFacts {
            situations,
            seed: key,
            believed,
            rested_on,
            acted,
            acted_more,
            undone: undone_q,
            undone_how,
            undone_step,
            correction,
            outcome,
            next_pushback,
            next_claim,
            user_next,
            ends,
        })
    }

    /// The assumptions the episode's moment rests on, each judged by what the
    /// transcript shows later (held, failed) or left open.
    fn assumptions(&self, ep: &EpisodeFacts) -> Vec<Assumption> {
        let s = self.session;
        let mut out: Vec<Assumption> = Vec::new();
        let mk =
            |kind: &'static str, validity: &'static str, subject: Option<String>, evidence: Option<Quote>| Assumption {
                kind,
                situations: vec![validity],
                seed: ep.key,
                subject,
                file: None,
                evidence,
                detail: None,
                at: None,
            };
        let detector = ep.pattern.as_ref().map(|p| p.detector.as_str()).unwrap_or("");
        // What the finding rests on decides what it assumed, not which detector found it.
        let finding =
            ep.pattern.as_ref().and_then(|p| self.findings.iter().find(|f| f.key == p.key && f.detector == p.detector));
        let mo = ep.moment.as_ref();
        // A crash believed before this moment and taken back after it.
        let premise = self.findings.iter().filter(|f| detect::telling(&f.detector).premise).find_map(|f| {
            let m = self.moment(f);
            let claimed = m.alarm.as_ref().or(m.claim.as_ref())?.idx;
            let undone = m.retraction.as_ref().or(m.disproof.as_ref())?;
            (claimed < ep.key && undone.idx > ep.key && undone.idx <= ep.key + 40)
                .then(|| (m.alarm.clone().or(m.claim.clone()), undone.clone()))
        });
        match (finding, finding.and_then(|f| f.details.as_ref())) {
            (None, _) | (_, Some(Details::Search { .. })) => {
                if let Some(r) = &ep.read
                    && r.window.is_some()
                {
                    let line = r.output.as_ref().and_then(|o| {
                        o.revealing
                            .iter()
                            .find(|x| matches!(x.kind, "error" | "progress" | "result"))
                            .map(|x| x.line.clone())
                    });
                    let mut a_subject = r.window.clone();
                    if let Some(f) = &r.file {
                        a_subject = a_subject.map(|w| format!("{w} of {}", f.rsplit('/').next().unwrap_or(f)));
                    }
                    out.push(mk(
                        "end-holds-answer",
                        if line.is_some() { "held" } else { "open" },
                        a_subject,
                        line.map(|l| Quote { idx: ep.key, text: l }),
                    ));
                }
                // A finding's searches; a message on its own is judged by its own search.
                let own: Vec<SearchFacts> = s.message(ep.key).and_then(|m| self.search_of(m)).into_iter().collect();
                let searches: Vec<&SearchFacts> = match mo {
                    Some(m) if finding.is_some() => m.searches.iter().collect(),
                    _ => own.iter().collect(),
                };
                if let Some(sf) = searches.iter().find(|x| x.pattern.is_some()) {
                    let bad = sf.dump.is_some() || sf.truncated.is_some();
                    let ev = sf
                        .dump_words
                        .first()
                        .cloned()
                        .or_else(|| sf.truncated.clone())
                        .map(|t| Quote { idx: sf.idx, text: t });
                    let mut a = Assumption {
                        kind: "pattern-selective",
                        situations: vec![if bad { "failed" } else { "open" }],
                        seed: ep.key,
                        subject: sf.pattern.clone(),
                        file: sf.file.clone(),
                        evidence: ev,
                        detail: sf.dump.clone(),
                        at: Some(sf.idx),
                    };
                    if sf.truncated.is_some() {
                        a.situations.push("truncated");
                    }
                    out.push(a);
                }
            }
            // The person's pushback assumed nothing of the assistant's that this names.
            (_, Some(Details::Belief { undone: Some(u), .. })) if u.how == "pushback" => {}
            // A belief undone later: an alarm read as a crash.
            (Some(f), Some(Details::Belief { undone, .. })) if undone.as_ref().is_none_or(|u| u.idx != f.key) => {
                if let Some(m) = mo {
                    out.push(mk(
                        "keyword-means-crash",
                        if m.disproof.is_some() { "failed" } else { "open" },
                        m.probe.clone(),
                        m.disproof.clone(),
                    ));
                }
            }
            // A claim taken back where the finding is keyed.
            (_, Some(Details::Belief { .. })) => {
                if let Some(m) = mo {
                    let mut a =
                        mk("claim-holds", "failed", m.claim.as_ref().map(|c| c.text.clone()), m.retraction.clone());
                    a.detail =
                        Some(if m.situations.contains(&"admission") { "admission" } else { "crash" }.to_string());
                    out.push(a);
                }
            }
            (_, Some(Details::Wait { .. })) => {
                if let Some(w) = mo.and_then(|m| m.wait.as_ref()) {
                    let subject = match (w.attempts, &w.interval, &w.budget) {
                        (Some(n), Some(i), Some(b)) => Some(format!("{n} attempts, {i} apart ({b})")),
                        _ => w.elapsed.clone(),
                    };
                    out.push(mk(
                        "budget-enough",
                        "failed",
                        subject,
                        w.line.clone().map(|l| Quote { idx: w.idx, text: l }),
                    ));
                }
            }
            (_, Some(Details::Relaunch { .. })) => {
                if let Some(x) = mo.and_then(|m| m.experiment.as_ref()) {
                    let later = s.message(ep.key).and_then(|m| self.experiment(m, s.messages.len()));
                    let (outcome, ev) = match later.as_ref().map(|(x, _)| x) {
                        Some(l) => (
                            l.outcome,
                            l.error.clone().or_else(|| {
                                l.wait.as_ref().and_then(|w| w.line.clone().map(|t| Quote { idx: w.idx, text: t }))
                            }),
                        ),
                        None => ("unknown", None),
                    };
                    let mut a = Assumption {
                        kind: "changes-separable",
                        situations: vec![if outcome == "ready" { "held" } else { "open" }],
                        seed: ep.key,
                        subject: Some(x.change_count.to_string()),
                        file: None,
                        evidence: ev,
                        detail: Some(outcome.to_string()),
                        at: None,
                    };
                    a.situations.push(match outcome {
                        "failed" => "outcome-failed",
                        "alarm" => "outcome-alarm",
                        "timeout" => "outcome-timeout",
                        "ready" => "outcome-ready",
                        _ => "outcome-unknown",
                    });
                    out.push(a);
                }
            }
            (_, Some(Details::Pause { .. })) => {
                if let Some(m) = mo {
                    out.push(mk("knows-next", if m.reply.is_some() { "held" } else { "open" }, None, m.reply.clone()));
                }
            }
            (_, Some(Details::Runs { .. })) => {
                if let Some(m) = mo {
                    let mut a = mk("retry-differs", "failed", m.command.clone(), m.runs.last().cloned());
                    if m.situations.contains(&"folder-changed") {
                        a.situations.insert(0, "folder-changed");
                    }
                    out.push(a);
                }
            }
            _ => {}
        }
        if let Some((claim, undone)) = premise
            && !detect::telling(detector).premise
        {
            out.push(mk("process-crashed", "failed", claim.map(|c| c.text), Some(undone)));
        }
        if ep.situations.contains(&"test-failed") {
            out.push(mk("test-shows-problem", "open", None, None));
        }
        out
    }

    /// Settings that differ between this message's launch and the previous launch of
    /// the same program in the session.
    pub(super) fn changes_since_previous_launch(&self, m: &Message) -> (Vec<Change>, Option<Event>) {
        let Some((cmd, prog)) = m.calls.iter().zip(self.facts_of(m)).find_map(|(c, f)| {
            (f.action == "launch").then(|| (c.command.clone().unwrap_or_default(), f.program.clone()))
        }) else {
            return (vec![], None);
        };
        let s = self.session;
        let pos = s.messages.partition_point(|x| x.idx < m.idx);
        for prev in s.messages[..pos].iter().rev() {
            for (c, f) in prev.calls.iter().zip(self.facts_of(prev)) {
                let f = f.clone();
                if f.action == "launch" && f.program == prog {
                    let changes = settings_changed(c.command.as_deref().unwrap_or(""), &cmd, &prog);
                    let ev = Event {
                        idx: prev.idx,
                        kind: "launched",
                        time: clock(prev.timestamp),
                        quote: f.command_short.clone().unwrap_or_default(),
                        command: f.command_short,
                        file: None,
                        detail: None,
                        detector: None,
                    };
                    return (changes, Some(ev));
                }
            }
        }
        (vec![], None)
    }

    /// Every cited message as an appendix entry: its role, time and opening words.
    fn cited(&self, mut idxs: Vec<u32>) -> Vec<Event> {
        idxs.sort_unstable();
        idxs.dedup();
        idxs.into_iter()
            .filter_map(|i| self.session.message(i))
            .map(|m| {
                // A call without text is named by its command, or the file a tool
                // worked on.
                let (q, command) = if !m.text.trim().is_empty() {
                    (sentences(&m.text, 1, 160), None)
                } else {
                    let ev = self.events(m, true).into_iter().next();
                    let q = ev.as_ref().map(|e| e.quote.clone()).unwrap_or_default();
                    (q.clone(), ev.is_some().then_some(q))
                };
                Event {
                    idx: m.idx,
                    kind: m.role.as_str(),
                    time: clock(m.timestamp),
                    quote: q,
                    command,
                    file: None,
                    detail: None,
                    detector: None,
                }
            })
            .collect()
    }

    /// The arc over messages `from..=to`.
    pub fn arc(&self, from: u32, to: u32) -> Option<ArcFacts> {
        let s = self.session;
        let msgs: Vec<&Message> = s.messages.iter().filter(|m| (from..=to).contains(&m.idx)).collect();
        let first = *msgs.first()?;
        let last = *msgs.last()?;
        let in_range: Vec<&Finding> = {
            let mut seen = std::collections::HashSet::new();
            self.findings
                .iter()
                .filter(|f| (from..=to).contains(&f.key))
                .filter(|f| seen.insert((f.key, f.detector.clone())))
                .collect()
        };
        let mut steps: Vec<EpisodeFacts> = Vec::new();
        let mut keys: Vec<u32> = in_range.iter().map(|f| f.key).collect();
        keys.dedup();
        for k in keys {
            let Some(lead) = self.lead_finding(k) else { continue };
            // A finding whose evidence is the step just before (the recap an empty turn
            // drew) is told in that step's section.
            if let Some(prev) = steps.last_mut()
                && lead.evidence.contains(&prev.key)
                && prev.subject.role == "user"
                && self.session.messages.partition_point(|m| m.idx < k)
                    == self.session.messages.partition_point(|m| m.idx <= prev.key)
            {
                prev.joined.push(self.moment(lead));
                prev.situations.insert(0, detect::telling(&lead.detector).joined_tag);
                continue;
            }
            if let Some(ep) = self.episode_for(k, Some(lead)) {
                steps.push(ep);
            }
        }
        if steps.is_empty() {
            // No findings: the steps are the turns that moved the story — requests,
            // failures, launches, tests, and the assistant's conclusions.
            for m in &msgs {
                let evs = self.events(m, false);
                let notable = evs.iter().any(|e| {
                    matches!(
                        e.kind,
                        "asked"
                            | "empty-turn"
                            | "interrupted"
                            | "failed"
                            | "tested"
                            | "tested-failed"
                            | "launched"
                            | "edited"
                    )
                });
                if notable && let Some(ep) = self.episode_for(m.idx, None) {
                    steps.push(ep);
                }
                if steps.len() >= 8 {
                    break;
                }
            }
        }
        let calls: Vec<CallFacts> =
            msgs.iter().flat_map(|m| self.facts_of(m).iter().cloned()).filter(|c| c.command.is_some()).collect();
        let mut tally: Vec<Tally> = Vec::new();
        for f in &in_range {
            match tally.iter_mut().find(|t| t.detector == f.detector) {
                Some(t) => t.count += 1,
                None => tally.push(Tally { detector: f.detector.clone(), count: 1, seed: from, situations: vec![] }),
            }
        }
        for t in &mut tally {
            t.situations.push(if t.count == 1 { "one" } else { "several" });
        }
        let mut detectors: Vec<String> = in_range.iter().map(|f| f.detector.clone()).collect();
        detectors.sort();
        detectors.dedup();
        // The thread: findings in the range, led per message, and earlier findings whose
        // evidence reaches into the range.
        let mut thread: Vec<Moment> = self
            .findings
            .iter()
            .filter(|f| f.key < from && f.evidence.iter().any(|e| (from..=to).contains(e)))
            .filter(|f| detect::telling(&f.detector).threads)
            .map(|f| self.moment(f))
            .collect();
        let mut led: Vec<u32> = Vec::new();
        for f in &in_range {
            if led.contains(&f.key) {
                continue;
            }
            led.push(f.key);
            let mut on: Vec<&Finding> = in_range.iter().copied().filter(|g| g.key == f.key).collect();
            on.sort_by_key(|g| detect::telling(&g.detector).rank);
            thread.extend(on.into_iter().map(|g| self.moment(g)));
        }
        thread.truncate(8);
        let time_parts = self.time_parts(&msgs);
        let last_pos = s.messages.partition_point(|m| m.idx < last.idx);
        let _ = last_pos;
        let ending = self.ending_of(last);
        let last_ev = self.events(last, true).into_iter().next();
        let mut arc = ArcFacts {
            detector: "_arc",
            situations: if in_range.is_empty() { vec!["no-findings"] } else { vec!["findings"] },
            seed: from,
            from: first.idx,
            to: last.idx,
            session: self.info(),
            goal: self.goal(),
            context: self.story_before(first.idx, &[]),
            start_time: clock(first.timestamp),
            end_time: clock(last.timestamp),
            span: secs_between(first.timestamp, last.timestamp).map(duration),
            messages: msgs.len(),
            commands: calls.len(),
            failed_commands: calls.iter().filter(|c| c.failed()).count(),
            steps,
            findings: in_range.len(),
            tally,
            detectors,
            thread,
            time_parts,
            ending,
            upstream: None,
            last: last_ev,
            cited: Vec::new(),
        };
        arc.upstream = arc
            .context
            .iter()
            .flat_map(|p| &p.beats)
            .rev()
            .find(|b| b.kind == "experiment")
            .filter(|b| b.situations.contains(&"confounded"))
            .cloned();
        let mut idxs: Vec<u32> = arc.context.iter().flat_map(|p| &p.beats).flat_map(Beat::cites).collect();
        idxs.extend(arc.goal.iter().map(|g| g.idx));
        for st in &arc.steps {
            idxs.push(st.key);
            idxs.extend(st.moment.iter().chain(&st.also).chain(&st.joined).flat_map(Moment::cites));
            idxs.extend(st.assumptions.iter().filter_map(|a| a.evidence.as_ref().map(|q| q.idx)));
        }
        idxs.extend(arc.thread.iter().flat_map(Moment::cites));
        idxs.extend(arc.time_parts.iter().map(|t| t.idx));
        idxs.extend(arc.ending.iter().flat_map(Beat::cites));
        idxs.extend(arc.last.iter().map(|e| e.idx));
        arc.cited = self.cited(idxs);
        Some(arc)
    }

    /// The last message of a story, told: its beat, or its first sentence.
    fn ending_of(&self, m: &Message) -> Option<Beat> {
        let before = self.session.messages.iter().rev().find(|x| x.idx < m.idx).map_or(0, |x| x.idx);
        self.story_after(before, 1, &[])
            .into_iter()
            .find(|b| b.idx == m.idx)
            .or_else(|| (!m.text.trim().is_empty()).then(|| Beat::said(m, sentences(&m.text, 1, QUOTE))))
    }

    /// The largest stretches of wall-clock time among `msgs`: long calls and pauses
    /// before a user's turn, each at least a fifth of the span.
    fn time_parts(&self, msgs: &[&Message]) -> Vec<TimePart> {
        let (Some(a), Some(z)) = (msgs.first(), msgs.last()) else { return vec![] };
        let Some(span) = secs_between(a.timestamp, z.timestamp).filter(|s| *s > 0) else { return vec![] };
        let mut parts: Vec<TimePart> = Vec::new();
        let mut prev_t = None;
        for m in msgs {
            for c in self.facts_of(m) {
                if let Some(secs) = c.seconds.filter(|s| *s * 5 >= span) {
                    parts.push(TimePart {
                        idx: m.idx,
                        kind: if c.action == "wait" { "wait" } else { "call" },
                        secs,
                        text: duration(secs),
                        command: c.command_short.clone().or_else(|| Some(c.tool.clone())),
                        line: if c.action == "wait" { self.wait_of(m).and_then(|w| w.line) } else { None },
                    });
                }
            }
            if m.role == Role::User
                && m.origin == Origin::Typed
                && let Some(d) = secs_between(prev_t, m.timestamp).filter(|d| *d * 5 >= span)
            {
                parts.push(TimePart {
                    idx: m.idx,
                    kind: "pause",
                    secs: d,
                    text: duration(d),
                    command: None,
                    line: (!m.text.trim().is_empty()).then(|| sentences(&m.text, 1, 120)),
                });
            }
            // The pause before a turn runs from the last result, not the last message.
            let end = self
                .facts_of(m)
                .iter()
                .filter_map(|c| c.seconds.and_then(|s| m.timestamp.map(|t| t + chrono::Duration::seconds(s))))
                .max()
                .or(m.timestamp);
            if end.is_some() {
                prev_t = end;
            }
        }
        parts.sort_by_key(|p| std::cmp::Reverse(p.secs));
        parts.truncate(3);
        parts.sort_by_key(|p| p.idx);
        parts
    }

    /// The whole-session report.
    pub fn session_report(&self) -> SessionFacts {
        let s = self.session;
        let goal = self.goal();

        // Timeline of findings, with the time since the previous one.
        let mut timeline = Vec::new();
        let mut prev_t = s.meta.started;
        let mut keys_seen = std::collections::HashSet::new();
        for f in self.findings {
            if !keys_seen.insert((f.key, f.detector.clone())) {
                continue;
            }
            let m = s.message(f.key);
            let t = m.and_then(|m| m.timestamp);
            timeline.push(TimelineEntry {
                idx: f.key,
                detector: f.detector.clone(),
                summary: f.summary.clone(),
                title_facts: self.finding_event(f),
                time: clock(t),
                since_previous: secs_between(prev_t, t).map(duration),
                moment: self.moment(f),
            });
            if t.is_some() {
                prev_t = t;
            }
        }

        // Phases between the user's requests; nudges ("continue") are counted.
        let mut phases: Vec<Phase> = Vec::new();
        let typed = |m: &Message| m.is_typed_user() && !m.text.trim().is_empty();
        let starts: Vec<usize> = s
            .messages
            .iter()
            .enumerate()
            .filter(|(j, m)| typed(m) && (!claims::is_nudge(&m.text) || !s.messages[..*j].iter().any(typed)))
            .map(|(i, _)| i)
            .collect();
        let mut nudges: Vec<Nudge> = Vec::new();
        let first_typed = starts.first().map(|&i| s.messages[i].idx);
        for m in s.messages.iter().filter(|m| typed(m) && claims::is_nudge(&m.text) && Some(m.idx) != first_typed) {
            let t = one_line(m.text.trim());
            match nudges.iter_mut().find(|n| n.text.eq_ignore_ascii_case(&t)) {
                Some(n) => n.count += 1,
                None => nudges.push(Nudge { text: t, count: 1 }),
            }
        }
        // Nudges typed before the first request are not nudges of any phase.
        let nudge_count: usize = nudges.iter().map(|n| n.count).sum();
        nudges.sort_by(|a, b| b.count.cmp(&a.count).then(a.text.cmp(&b.text)));
        nudges.truncate(4);
        for (n, &i) in starts.iter().enumerate() {
            let end = starts.get(n + 1).copied().unwrap_or(s.messages.len());
            let part = &s.messages[i..end];
            let facts: Vec<&CallFacts> = part.iter().flat_map(|m| self.facts_of(m).iter()).collect();
            let calls: Vec<&&CallFacts> = facts.iter().filter(|c| c.command.is_some()).collect();
            let last = part.last().map(|m| m.idx).unwrap_or(s.messages[i].idx);
            let t0 = s.messages[i].timestamp;
            let t1 = part.iter().rev().find_map(|m| m.timestamp);
            phases.push(Phase {
                request: Event {
                    idx: s.messages[i].idx,
                    kind: "asked",
                    time: clock(t0),
                    quote: asked(&s.messages[i].text, 2, QUOTE),
                    command: None,
                    file: None,
                    detail: None,
                    detector: None,
                },
                from: s.messages[i].idx,
                to: last,
                start: clock(t0),
                duration: secs_between(t0, t1).map(duration),
                messages: part.len(),
                commands: calls.len(),
                failed: calls.iter().filter(|c| c.failed()).count(),
                launches: facts.iter().filter(|c| c.action == "launch").count(),
                nudges: part[1..].iter().filter(|m| typed(m) && claims::is_nudge(&m.text)).count(),
                findings: timeline.iter().filter(|t| (s.messages[i].idx..=last).contains(&t.idx)).cloned().collect(),
            });
        }

        // Launches: what changed, what became of each, and the time until the next
        // launch of the same program.
        let mut launches: Vec<Launch> = Vec::new();
        for m in &s.messages {
            let Some(f) = self.facts_of(m).iter().find(|f| f.action == "launch") else { continue };
            let Some((experiment, _)) = self.experiment(m, s.messages.len()) else { continue };
            if let Some(prev) = launches.iter_mut().rev().find(|l| l.program == f.label && l.next.is_none()) {
                let t0 = s.message(prev.event.idx).and_then(|x| x.timestamp);
                prev.next = Some(m.idx);
                prev.waited_secs = secs_between(t0, m.timestamp);
                prev.waited = prev.waited_secs.map(duration);
            }
            launches.push(Launch {
                event: Event {
                    idx: m.idx,
                    kind: "launched",
                    time: clock(m.timestamp),
                    quote: f.command_short.clone().unwrap_or_default(),
                    command: f.command_short.clone(),
                    file: None,
                    detail: None,
                    detector: None,
                },
                program: f.label.clone(),
                experiment,
                next: None,
                waited: None,
                waited_secs: None,
            });
        }
        let end_t = s.messages.iter().rev().find_map(|m| m.timestamp);
        for l in launches.iter_mut().filter(|l| l.next.is_none()) {
            let t0 = s.message(l.event.idx).and_then(|x| x.timestamp);
            l.waited_secs = secs_between(t0, end_t);
            l.waited = l.waited_secs.map(duration);
        }

        // Findings per detector.
        let mut by: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for f in self.findings {
            by.entry(f.detector.clone()).or_default().push(f.key);
        }
        let mut by_detector: Vec<DetectorCount> = by
            .into_iter()
            .map(|(d, keys)| DetectorCount {
                description: detect::by_id(&d).map(|x| x.summary().to_string()),
                detector: d,
                count: keys.len(),
                keys,
            })
            .collect();
        by_detector.sort_by(|a, b| b.count.cmp(&a.count).then(a.detector.cmp(&b.detector)));

        // Failed commands grouped by what ran.
        let mut groups: Vec<FailureGroup> = Vec::new();
        for m in &s.messages {
            for f in self.facts_of(m) {
                let f = f.clone();
                if !f.failed() {
                    continue;
                }
                let sig = f.subject(Grain::Line);
                if let Some(g) = groups.iter_mut().find(|g| g.signature == sig) {
                    g.count += 1;
                    g.last_idx = m.idx;
                } else {
                    let detail = f.output.as_ref().and_then(|o| o.failure_line());
                    groups.push(FailureGroup {
                        signature: sig,
                        count: 1,
                        first: Event {
                            idx: m.idx,
                            kind: "failed",
                            time: clock(m.timestamp),
                            quote: f.command_short.clone().unwrap_or_else(|| f.tool.clone()),
                            command: f.command_short.clone(),
                            file: f.file.clone(),
                            detail,
                            detector: None,
                        },
                        last_idx: m.idx,
                    });
                }
            }
        }
        groups.sort_by(|a, b| b.count.cmp(&a.count).then(a.first.idx.cmp(&b.first.idx)));
        groups.truncate(5);

        let time = self.time_use();
        // A tool is worth explaining where the story turns on it: in the calls the
        // findings cite. Elsewhere a command counts as text (`--tp 8` still names tensor
        // parallelism), so `grep`, `head` or `sed` run in passing are not defined.
        let cited: HashSet<u32> =
            self.findings.iter().flat_map(|f| f.evidence.iter().chain([&f.key])).copied().collect();
        let (mut texts, mut commands): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
        for m in &s.messages {
            if m.role == Role::System {
                continue;
            }
            texts.push(&m.text);
            if cited.contains(&m.idx) {
                commands.extend(m.commands());
            } else {
                texts.extend(m.commands());
            }
        }
        let technologies = self.glossary.find(&texts, &commands);
        let last =
            s.messages.iter().rev().find(|m| m.role == Role::Assistant && !m.text.trim().is_empty()).map(|m| Event {
                idx: m.idx,
                kind: "said",
                time: clock(m.timestamp),
                quote: sentences(&m.text, 2, QUOTE),
                command: None,
                file: None,
                detail: None,
                detector: None,
            });
        let mut situations = Vec::new();
        if self.findings.is_empty() {
            situations.push("no-findings");
        }
        let mut facts = SessionFacts {
            detector: "_session",
            situations,
            seed: s.messages.first().map_or(0, |m| m.idx),
            session: self.info(),
            goal,
            requests: phases.len(),
            nudges,
            nudge_count,
            phases,
            timeline,
            launches,
            stories: self.stories(),
            by_detector,
            failures: groups,
            time,
            technologies,
            last,
            ending: s.messages.iter().rev().find(|m| m.role != Role::System).and_then(|m| self.ending_of(m)),
            cited: Vec::new(),
        };
        let mut idxs: Vec<u32> = facts.goal.iter().map(|g| g.idx).collect();
        idxs.extend(facts.ending.iter().flat_map(Beat::cites));
        idxs.extend(facts.phases.iter().map(|p| p.request.idx));
        idxs.extend(facts.timeline.iter().map(|t| t.idx));
        idxs.extend(facts.launches.iter().flat_map(|l| l.experiment.cites()));
        idxs.extend(facts.timeline.iter().flat_map(|t| t.moment.cites()));
        idxs.extend(facts.failures.iter().map(|f| f.first.idx));
        idxs.extend(facts.stories.iter().flat_map(|st| st.cites()));
        idxs.extend(facts.time.longest_calls.iter().map(|e| e.idx));
        idxs.extend(facts.last.iter().map(|e| e.idx));
        facts.cited = self.cited(idxs);
        facts
    }

    fn time_use(&self) -> TimeUse {
        /// A stretch with nothing happening longer than this is a pause, not work.
        const PAUSE: i64 = 30 * 60;
        let s = self.session;
        // A transcript without timestamps spans "0 s": that is no span at all.
        let total_secs = secs_between(s.meta.started, self.last_time()).filter(|d| *d > 0);
        let mut by_program: BTreeMap<String, i64> = BTreeMap::new();
        let mut calls: Vec<(i64, Event)> = Vec::new();
        let (mut in_calls, mut in_waits, mut on_user) = (0i64, 0i64, 0i64);
        let (mut waiting, mut paused, mut pauses) = (0i64, 0i64, 0usize);
        let mut last_activity = None;
        for m in &s.messages {
            // The gap since the last thing that happened: a pause, or the user's time.
            if let Some(d) = secs_between(last_activity, m.timestamp) {
                if d > PAUSE {
                    pauses += 1;
                    paused += d;
                } else if m.is_typed_user() {
                    waiting += d;
                }
            }
            let mut end = m.timestamp.or(last_activity);
            // A message's calls all start with it, and their results come back one after
            // another: each call is credited with the time from the previous result to its
            // own, so calls made together are never counted twice (three parallel calls
            // that return after 10 minutes took 10 minutes, not 30).
            let mut timed: Vec<(&CallFacts, i64)> = self
                .facts_of(m)
                .iter()
                .filter_map(|f| Some((f, f.seconds?)))
                // An editor or reader whose result came back hours later was waiting
                // for a person (an approval) or the machine was asleep: not work.
                .filter(|(f, secs)| !(f.command.is_none() && *secs > PAUSE))
                .collect();
            timed.sort_by_key(|(_, secs)| *secs);
            // The agent's own tools (edits, writes, reads, its todo list) return at once:
            // the time before the first of their results went to the model writing out
            // the message's calls (or to an approval), not to any call running.
            let mut before = timed.iter().find(|(f, _)| instant(f)).map_or(0, |(_, until)| *until);
            for (f, until) in timed {
                let secs = (until - before).max(0);
                before = before.max(until);
                if instant(f) {
                    continue;
                }
                // A question to the person, a plan waiting for approval, a call the person
                // stopped or refused: the time went to the person, not to the call.
                if waits_on_user(f) {
                    on_user += secs;
                    if let Some(t) = m.timestamp {
                        end = end.max(Some(t + chrono::Duration::seconds(until)));
                    }
                    continue;
                }
                in_calls += secs;
                if f.action == "wait" {
                    in_waits += secs;
                }
                *by_program.entry(f.label.clone()).or_default() += secs;
                if let Some(t) = m.timestamp {
                    end = end.max(Some(t + chrono::Duration::seconds(until)));
                }
                calls.push((
                    secs,
                    Event {
                        idx: m.idx,
                        kind: f.action,
                        time: clock(m.timestamp),
                        quote: f.command_short.clone().unwrap_or_else(|| f.tool.clone()),
                        command: f.command_short.clone(),
                        file: f.file.clone(),
                        detail: None,
                        detector: None,
                    },
                ));
            }
            if end.is_some() {
                last_activity = end;
            }
        }
        let mut progs: Vec<(String, i64)> = by_program.into_iter().filter(|(_, v)| *v > 0).collect();
        progs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        progs.truncate(6);
        calls.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.idx.cmp(&b.1.idx)));
        calls.retain(|(secs, _)| *secs > 0);
        calls.truncate(3);
        TimeUse {
            total: total_secs.map(duration),
            total_secs,
            by_program: progs.into_iter().map(|(p, v)| (p, duration(v), v)).collect(),
            in_calls: (in_calls > 0).then(|| duration(in_calls)),
            on_user: (on_user > 0).then(|| duration(on_user)),
            waiting_for_user: (waiting > 0).then(|| duration(waiting)),
            pauses,
            paused: (paused > 0).then(|| duration(paused)),
            in_waits: (in_waits > 0).then(|| duration(in_waits)),
            longest_secs: calls.iter().map(|(s, _)| *s).collect(),
            longest_calls: calls.into_iter().map(|(_, e)| e).collect(),
        }
    }
}

/// A tool of the agent's own that takes no measurable time: an edit, a whole-file write,
/// a read or search by the agent's tool (not a shell command), its todo list or plan.
fn instant(f: &CallFacts) -> bool {
    f.command.is_none()
        && f.continues.is_none()
        && (matches!(f.action, "edit" | "write" | "read" | "search")
            || matches!(f.tool.as_str(), "TodoWrite" | "TaskCreate" | "TaskUpdate" | "TaskList" | "update_plan"))
}

/// A call whose time is the person's: a question put to them, a plan up for their
/// approval, a call they stopped or refused.
fn waits_on_user(f: &CallFacts) -> bool {
    matches!(f.tool.as_str(), "AskUserQuestion" | "ExitPlanMode" | "request_user_input" | "ask_followup_question")
        || f.output.as_ref().is_some_and(|o| o.interrupted)
}

fn ep_cites(ep: &EpisodeFacts) -> Vec<u32> {
    let mut v: Vec<u32> = ep.context.iter().flat_map(|p| &p.beats).flat_map(Beat::cites).collect();
    v.extend(ep.goal.iter().map(|g| g.idx));
    v.push(ep.key);
    v.extend(ep.prior_attempts.iter().map(|m| m.idx));
    v.extend(ep.previous_launch.iter().map(|e| e.idx));
    v.extend(ep.followed.iter().flat_map(Beat::cites));
    v.extend(ep.moment.iter().chain(&ep.also).flat_map(Moment::cites));
    v.extend(ep.reading.iter().map(|q| q.idx));
    v.extend(ep.assumptions.iter().filter_map(|a| a.evidence.as_ref().map(|q| q.idx)));
    if let Some(b) = &ep.belief {
        v.push(b.believed.idx);
        v.extend(b.rested_on.iter().chain(&b.acted).chain(&b.undone_step).chain(&b.outcome).map(|st| st.idx));
        v.extend(b.undone.iter().chain(&b.correction).chain(&b.next_pushback).chain(&b.next_claim).map(|q| q.idx));
    }
    v
}

/// The settings of `program` that differ between command lines `then` and `now`: changed
/// and added ones, then dropped ones.
pub(super) fn settings_changed(then: &str, now: &str, program: &str) -> Vec<Change> {
    let before = settings(then, program);
    let after = settings(now, program);
    let mut changes = Vec::new();
    for (k, v) in &after {
        if before.get(k) != Some(v) {
            changes.push(Change { setting: k.clone(), before: before.get(k).cloned(), after: Some(v.clone()) });
        }
    }
    for (k, v) in &before {
        if !after.contains_key(k) {
            changes.push(Change { setting: k.clone(), before: Some(v.clone()), after: None });
        }
    }
    changes
}

/// The environment and `--flag[=value]` options of the launched `program` in a command
/// line — inside `ssh host '…'` and `bash -c '…'` too, through the shared shell parser.
pub(super) fn settings(cmd: &str, program: &str) -> BTreeMap<String, String> {
    let script = crate::shell::parse(cmd);
    let mut out = BTreeMap::new();
    let Some(i) = script.commands.iter().rposition(|c| c.name() == program) else {
        return out;
    };
    for (k, v) in script.env_at(i) {
        out.insert(k.to_string(), v.to_string());
    }
    let args = &script.commands[i].args;
    let mut j = 0;
    while j < args.len() {
        if let Some(flag) = args[j].strip_prefix("--") {
            // A bare `--` ends the options of the program itself (`npm run dev -- --port
            // 5173`): what follows are the script's, still settings, but `--` is none.
            if flag.is_empty() {
                j += 1;
                continue;
            }
            match flag.split_once('=') {
                Some((k, v)) => {
                    out.insert(format!("--{k}"), v.to_string());
                }
                None => {
                    let v = args.get(j + 1).filter(|n| !n.starts_with('-'));
                    out.insert(format!("--{flag}"), v.cloned().unwrap_or_default());
                    if v.is_some() {
                        j += 1;
                    }
                }
            }
        }
        j += 1;
    }
    out
}

/// Section headings of a structured message: `# Heading`, `**Label**`, `Label:` lines.
pub(super) fn headings(text: &str) -> Vec<String> {
    if text.len() < 800 {
        return vec![];
    }
    let mut out = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        let h = if let Some(h) = t.strip_prefix('#') {
            Some(h.trim_start_matches('#').trim())
        } else if t.starts_with("**") && t.ends_with("**") && t.len() > 4 && t.len() < 80 {
            Some(t.trim_matches('*').trim())
        } else if t.starts_with("**") && t.contains(":**") && t.find(":**").is_some_and(|i| i < 60) {
            t.split(":**").next().map(|x| x.trim_matches('*').trim())
        } else {
            None
        };
        if let Some(h) = h.map(|h| h.trim_end_matches(':').trim()).filter(|h| !h.is_empty()) {
            out.push(clip(h, 60));
        }
        if out.len() >= 10 {
            break;
        }
    }
    out
}

/// Situation tags of an episode, most specific first.
fn situation_tags(subject: &MessageFacts, prior: &[MessageFacts], has_finding: bool, out: &mut Vec<&'static str>) {
    let calls = &subject.calls;
    let failed = calls.iter().any(|c| c.failed());
    if subject.role == "user" {
        out.push(if subject.origin == Origin::Interrupt {
            "interrupt"
        } else if subject.empty {
            "empty"
        } else {
            "user-turn"
        });
    }
    if let Some(c) = calls.first() {
        let stopped = c.output.as_ref().is_some_and(|o| o.interrupted);
        let tag = match (c.action, failed) {
            _ if stopped => "stopped",
            ("test", true) => "test-failed",
            ("test", false) => "test-passed",
            ("launch", _) => "launch",
            ("search", _) => "search",
            ("read", _) => "read",
            ("edit" | "write", _) => "edit",
            ("wait", _) => "wait",
            (_, true) => "failed",
            _ => "ran",
        };
        out.push(tag);
    } else if subject.role == "assistant" {
        out.push("reply");
    }
    if has_finding {
        out.push(match prior.len() {
            0 => "no-attempts",
            1 => "one-attempt",
            _ => "several-attempts",
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{request_text, settings_changed};

    #[test]
    fn a_bare_double_dash_is_no_setting() {
        // npm passes what follows `--` to the script: those flags are settings, `--` is not.
        let c = settings_changed("npm run dev", "npm run dev -- --port 5173", "npm");
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(
            (c[0].setting.as_str(), c[0].before.as_deref(), c[0].after.as_deref()),
            ("--port", None, Some("5173"))
        );
        let moved = settings_changed("npm run dev -- --port 5173", "npm run dev -- --port 5174 --host", "npm");
        let names: Vec<&str> = moved.iter().map(|c| c.setting.as_str()).collect();
        assert_eq!(names, vec!["--host", "--port"]);
    }

    #[test]
    fn a_request_is_quoted_without_its_wrappers() {
        // The Codex IDE extension's context and heading.
        let codex = "# Context from my IDE setup:\n\n## Active file: src/app.tsx\n\n## My request for Codex:\nlet's launch the dev server\n";
        assert_eq!(request_text(codex), "let's launch the dev server");
        // A template prompt's input block, typed into or left empty.
        let typed = "\n## User Input\n\n```text\nPhase 2\n```\n\nYou **MUST** consider the user input before proceeding (if not empty).\n\n## Outline\n\n1. Run the checks.\n";
        assert_eq!(request_text(typed), "Phase 2");
        let empty = typed.replace("Phase 2\n", "\n");
        assert_eq!(request_text(&empty), "1. Run the checks.");
        // A lead-in joined to what it introduces.
        let plan = "Implement the following plan:\n\n# Plan: Flow Diagram Refinements\n\n## Context\n\nSeven issues.";
        assert_eq!(request_text(plan), "Implement the following plan: … Plan: Flow Diagram Refinements");
        assert_eq!(
            request_text("<ide_opened_file>The user opened a.py.</ide_opened_file>fix the import"),
            "fix the import"
        );
    }

    #[test]
    fn a_plain_request_is_left_as_typed() {
        for t in [
            "fix the temp file permissions",
            "# Why does the build fail?\n\nIt says `error[E0308]`.",
            "Here is what I want:",
            // A lead-in over pasted output, not a document: the paste is not the request.
            "commit error:\n\n\u{1b}[1;33mRunning gitleaks scan...\u{1b}[0m\nFinding: 39 leaks",
        ] {
            assert_eq!(request_text(t), t.trim(), "{t:?}");
        }
    }
}
