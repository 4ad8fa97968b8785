//! The report model: facts gathered from a session and its findings, serialised into
//! the template context. Nothing here is worded for the reader — that is the
//! templates' and the phrase table's job — and nothing is invented: every field is a
//! quote, a command, an output line, a count or a time taken from the transcript, with
//! the `idx` of the message it came from.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::calls::CallFacts;
use super::glossary::{Glossary, Term};
use super::text::{clip, clock, duration, one_line, quote, secs_between, sentences, sentences_where};
use crate::commands::display_path;
use crate::detect::{self, Finding};
use crate::model::{Message, Origin, Role, Session};

/// Context events quoted before an episode.
const CONTEXT_EVENTS: usize = 8;
/// Messages after the key that "what followed" looks at.
const FOLLOW_MESSAGES: usize = 5;
/// Findings further than this after the key are not part of what followed.
const FOLLOW_FINDINGS_WITHIN: u32 = 40;
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
    /// the file a tool call worked on, else its first sentence.
    pub handle: String,
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
    pub session: SessionInfo,
    /// The first thing the user typed.
    pub goal: Option<Event>,
    /// What the session was doing before, oldest first.
    pub context: Vec<Event>,
    pub subject: MessageFacts,
    /// The attempts right before the subject (the finding's earlier evidence, or the
    /// assistant's last calls before it), oldest first.
    pub prior_attempts: Vec<MessageFacts>,
    /// Sentences of the subject (and its thinking) that give reasons.
    pub reasoning: Vec<String>,
    pub thinking: Vec<String>,
    /// The subject's first search call among the attempts, and its positional read.
    pub search: Option<CallFacts>,
    pub read: Option<CallFacts>,
    /// Settings changed since the previous launch of the same program.
    pub changes: Vec<Change>,
    pub previous_launch: Option<Event>,
    /// Revealing lines of the subject's outputs, with the idx they came from.
    pub revealing: Vec<Event>,
    pub technologies: Vec<Term>,
    pub followed_by: Vec<Event>,
    /// Later findings close after the key.
    pub later_findings: Vec<Event>,
    /// Median length of an assistant message in the session, for "N times longer".
    pub median_assistant_chars: usize,
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
    pub context: Vec<Event>,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    pub span: Option<String>,
    pub messages: usize,
    pub commands: usize,
    pub failed_commands: usize,
    /// One step per finding in the range, or per notable message when none.
    pub steps: Vec<EpisodeFacts>,
    pub detectors: Vec<String>,
    /// The last message of the range, quoted.
    pub last: Option<Event>,
    pub cited: Vec<Event>,
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
}

/// The part of a session between two typed user turns.
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
    pub findings: Vec<TimelineEntry>,
}

/// A launch and how long until the next launch of the same program (or the end).
#[derive(Debug, Clone, Serialize)]
pub struct Launch {
    pub event: Event,
    pub program: String,
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
    /// Time inside tool calls, per program, longest first.
    pub by_program: Vec<(String, String, i64)>,
    pub in_calls: Option<String>,
    pub waiting_for_user: Option<String>,
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
    pub timeline: Vec<TimelineEntry>,
    pub launches: Vec<Launch>,
    pub by_detector: Vec<DetectorCount>,
    pub failures: Vec<FailureGroup>,
    pub time: TimeUse,
    pub technologies: Vec<Term>,
    pub last: Option<Event>,
    pub cited: Vec<Event>,
}

/// Everything the builders need, gathered once per session.
pub struct Builder<'a> {
    pub session: &'a Session,
    pub findings: &'a [Finding],
    pub glossary: &'a Glossary,
    median_assistant_chars: usize,
    /// Facts of every call, per message position: computed once, since shell parsing
    /// and output analysis are the costly part and every section asks again.
    calls: Vec<Vec<CallFacts>>,
}

impl<'a> Builder<'a> {
    pub fn new(session: &'a Session, findings: &'a [Finding], glossary: &'a Glossary) -> Builder<'a> {
        let mut lens: Vec<usize> =
            session.messages.iter().filter(|m| m.role == Role::Assistant).map(|m| m.char_len()).collect();
        lens.sort_unstable();
        let median_assistant_chars = lens.get(lens.len() / 2).copied().unwrap_or(0);
        let calls = session.messages.iter().map(|m| m.calls.iter().map(|c| CallFacts::of(c, m)).collect()).collect();
        Builder { session, findings, glossary, median_assistant_chars, calls }
    }

    /// The facts of `m`'s calls, in call order.
    fn facts_of(&self, m: &Message) -> &[CallFacts] {
        match self.session.messages.binary_search_by_key(&m.idx, |x| x.idx) {
            Ok(pos) => &self.calls[pos],
            Err(_) => &[],
        }
    }

    fn info(&self) -> SessionInfo {
        let s = self.session;
        let m = &s.meta;
        let calls: Vec<_> = s.messages.iter().flat_map(|m| &m.calls).filter(|c| c.command.is_some()).collect();
        let failed = calls
            .iter()
            .filter(|c| c.result.as_ref().is_some_and(|r| r.is_error || r.exit_code.is_some_and(|x| x != 0)))
            .count();
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
            ended: m.ended.map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()),
            duration: secs_between(m.started, m.ended).map(duration),
            messages: s.messages.len(),
            typed_user_turns: s.messages.iter().filter(|m| m.is_typed_user() && !m.text.trim().is_empty()).count(),
            commands: calls.len(),
            failed_commands: failed,
        }
    }

    fn goal(&self) -> Option<Event> {
        self.session.messages.iter().find(|m| m.is_typed_user() && !m.text.trim().is_empty()).map(|m| Event {
            idx: m.idx,
            kind: "asked",
            time: clock(m.timestamp),
            quote: sentences(&m.text, 3, 300),
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
            gist: sentences(&m.text, 2, QUOTE),
            chars: m.char_len(),
            empty: m.text.trim().is_empty() && m.calls.is_empty(),
            thinking,
            calls: self.facts_of(m).to_vec(),
            headings: headings(&m.text),
            handle: m
                .commands()
                .next()
                .map(|c| clip(&one_line(c), 140))
                .or_else(|| self.events(m, true).into_iter().find(|e| e.kind != "said").map(|e| e.quote))
                .unwrap_or_else(|| sentences(&m.text, 1, QUOTE)),
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
            (Role::User, Origin::Typed) => out.push(base("asked", sentences(&m.text, 2, QUOTE))),
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
                            "tested" => pick("result").or_else(|| pick("error")).or_else(|| o.last_line.clone()),
                            "failed" => pick("error").or_else(|| o.last_line.clone()),
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
    /// `key` written up on its own.
    pub fn episode(&self, key: u32) -> Option<EpisodeFacts> {
        let finding = self.findings.iter().find(|f| f.key == key);
        self.episode_for(key, finding)
    }

    fn episode_for(&self, key: u32, finding: Option<&Finding>) -> Option<EpisodeFacts> {
        let s = self.session;
        let key_msg = s.message(key)?;
        let subject = self.message(key_msg);
        let evidence: Vec<u32> = finding.map(|f| f.evidence.clone()).unwrap_or_else(|| vec![key]);
        let first = evidence.first().copied().unwrap_or(key).min(key);

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

        let context = self.context_before(first, finding);
        let reasoning = reasons(&key_msg.text);
        let thinking =
            if key_msg.thinking.trim().is_empty() { vec![] } else { vec![sentences(&key_msg.thinking, 3, 400)] };

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

        let (changes, previous_launch) = self.changes_since_previous_launch(key_msg);

        let revealing: Vec<Event> = subject
            .calls
            .iter()
            .filter_map(|c| c.output.as_ref())
            .flat_map(|o| &o.revealing)
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

        let followed_by = self.followed_by(key);
        let later_findings: Vec<Event> = self
            .findings
            .iter()
            .filter(|f| f.key > key && f.key <= key + FOLLOW_FINDINGS_WITHIN)
            .map(|f| self.finding_event(f))
            .collect();

        // Technologies: what the episode's own messages mention.
        let mut texts: Vec<&str> = Vec::new();
        for i in evidence.iter().copied().chain([key]) {
            if let Some(m) = s.message(i) {
                texts.push(&m.text);
                for c in &m.calls {
                    texts.extend(c.command.as_deref());
                    if let Some(r) = &c.result {
                        texts.push(&r.output);
                    }
                }
            }
        }
        for e in &context {
            texts.push(&e.quote);
        }
        let technologies = self.glossary.find(&texts);

        let mut situations = Vec::new();
        situation_tags(&subject, &prior, finding.is_some(), &mut situations);

        let pattern = finding.map(|f| PatternInfo {
            detector: f.detector.clone(),
            description: detect::by_id(&f.detector).map(|d| d.summary().to_string()),
            summary: f.summary.clone(),
            key: f.key,
            evidence: f.evidence.clone(),
        });
        let mut ep = EpisodeFacts {
            detector: finding.map_or_else(|| "_message".to_string(), |f| f.detector.clone()),
            situations,
            seed: key,
            key,
            pattern,
            session: self.info(),
            goal: self.goal(),
            context,
            subject,
            prior_attempts: prior,
            reasoning,
            thinking,
            search,
            read,
            changes,
            previous_launch,
            revealing,
            technologies,
            followed_by,
            later_findings,
            median_assistant_chars: self.median_assistant_chars,
            cited: Vec::new(),
        };
        ep.cited = self.cited(ep_cites(&ep));
        Some(ep)
    }

    /// Context events before message `before`: launches, failures, plans, edits, user
    /// turns and earlier findings, the last few of them.
    fn context_before(&self, before: u32, finding: Option<&Finding>) -> Vec<Event> {
        let s = self.session;
        let pos = s.messages.partition_point(|m| m.idx < before);
        let goal_idx = self.goal().map(|g| g.idx);
        let mut events: Vec<Event> = Vec::new();
        // Walk back until enough events are found; the story reads oldest first.
        for m in s.messages[..pos].iter().rev() {
            if Some(m.idx) == goal_idx {
                continue;
            }
            let mut evs = self.events(m, false);
            evs.retain(|e| e.kind != "said");
            for e in evs.into_iter().rev() {
                events.push(e);
            }
            if events.len() >= CONTEXT_EVENTS * 2 {
                break;
            }
        }
        for f in self.findings.iter().filter(|f| f.key < before && Some(*f) != finding) {
            events.push(self.finding_event(f));
        }
        events.sort_by_key(|e| (e.idx, e.kind == "finding"));
        // Prefer the most recent events, but never more than two reads of the same kind
        // in a row: five "edited" events tell less than one edit, one launch, one failure.
        let mut kept: Vec<Event> = Vec::new();
        for e in events.into_iter().rev() {
            let same_run = kept.iter().rev().take(2).filter(|k| k.kind == e.kind).count();
            if same_run >= 2 && e.kind != "finding" {
                continue;
            }
            kept.push(e);
            if kept.len() >= CONTEXT_EVENTS {
                break;
            }
        }
        kept.reverse();
        kept
    }

    fn followed_by(&self, key: u32) -> Vec<Event> {
        let s = self.session;
        let pos = s.messages.partition_point(|m| m.idx <= key);
        s.messages[pos..]
            .iter()
            .filter(|m| m.role != Role::System)
            .take(FOLLOW_MESSAGES)
            .flat_map(|m| {
                let mut ev = self.events(m, true);
                // One event per message keeps "what followed" a story, not a log.
                ev.sort_by_key(|e| match e.kind {
                    "failed" | "tested-failed" | "launched" | "tested" => 0,
                    "said" | "planned" | "asked" | "empty-turn" | "interrupted" => 1,
                    _ => 2,
                });
                ev.into_iter().take(1)
            })
            .collect()
    }

    /// Settings that differ between this message's launch and the previous launch of
    /// the same program in the session.
    fn changes_since_previous_launch(&self, m: &Message) -> (Vec<Change>, Option<Event>) {
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
                    let before = settings(c.command.as_deref().unwrap_or(""), &prog);
                    let after = settings(&cmd, &prog);
                    let mut changes = Vec::new();
                    for (k, v) in &after {
                        if before.get(k) != Some(v) {
                            changes.push(Change {
                                setting: k.clone(),
                                before: before.get(k).cloned(),
                                after: Some(v.clone()),
                            });
                        }
                    }
                    for (k, v) in &before {
                        if !after.contains_key(k) {
                            changes.push(Change { setting: k.clone(), before: Some(v.clone()), after: None });
                        }
                    }
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
        let in_range: Vec<&Finding> = self.findings.iter().filter(|f| (from..=to).contains(&f.key)).collect();
        let mut steps: Vec<EpisodeFacts> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for f in &in_range {
            // Several detectors may fire on one message; it is one step of the story.
            if seen.insert(f.key)
                && let Some(ep) = self.episode_for(f.key, Some(f))
            {
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
        let mut detectors: Vec<String> = in_range.iter().map(|f| f.detector.clone()).collect();
        detectors.sort();
        detectors.dedup();
        let last_ev = self.events(last, true).into_iter().next();
        let mut arc = ArcFacts {
            detector: "_arc",
            situations: if in_range.is_empty() { vec!["no-findings"] } else { vec!["findings"] },
            seed: from,
            from: first.idx,
            to: last.idx,
            session: self.info(),
            goal: self.goal(),
            context: self.context_before(first.idx, None),
            start_time: clock(first.timestamp),
            end_time: clock(last.timestamp),
            span: secs_between(first.timestamp, last.timestamp).map(duration),
            messages: msgs.len(),
            commands: calls.len(),
            failed_commands: calls.iter().filter(|c| c.failed()).count(),
            steps,
            detectors,
            last: last_ev,
            cited: Vec::new(),
        };
        let mut idxs: Vec<u32> = arc.context.iter().map(|e| e.idx).collect();
        idxs.extend(arc.goal.iter().map(|g| g.idx));
        idxs.extend(arc.steps.iter().map(|s| s.key));
        idxs.extend(arc.last.iter().map(|e| e.idx));
        arc.cited = self.cited(idxs);
        Some(arc)
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
            });
            if t.is_some() {
                prev_t = t;
            }
        }

        // Phases between typed user turns.
        let mut phases: Vec<Phase> = Vec::new();
        let starts: Vec<usize> = s
            .messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_typed_user() && !m.text.trim().is_empty())
            .map(|(i, _)| i)
            .collect();
        for (n, &i) in starts.iter().enumerate() {
            let end = starts.get(n + 1).copied().unwrap_or(s.messages.len());
            let part = &s.messages[i..end];
            let calls: Vec<CallFacts> =
                part.iter().flat_map(|m| self.facts_of(m).iter().cloned()).filter(|c| c.command.is_some()).collect();
            let last = part.last().map(|m| m.idx).unwrap_or(s.messages[i].idx);
            let t0 = s.messages[i].timestamp;
            let t1 = part.iter().rev().find_map(|m| m.timestamp);
            phases.push(Phase {
                request: self.events(&s.messages[i], false).into_iter().next().unwrap_or_else(|| Event {
                    idx: s.messages[i].idx,
                    kind: "asked",
                    time: clock(t0),
                    quote: sentences(&s.messages[i].text, 2, QUOTE),
                    command: None,
                    file: None,
                    detail: None,
                    detector: None,
                }),
                from: s.messages[i].idx,
                to: last,
                start: clock(t0),
                duration: secs_between(t0, t1).map(duration),
                messages: part.len(),
                commands: calls.len(),
                failed: calls.iter().filter(|c| c.failed()).count(),
                findings: timeline.iter().filter(|t| (s.messages[i].idx..=last).contains(&t.idx)).cloned().collect(),
            });
        }

        // Launches and the wait until the next launch of the same program.
        let mut launches: Vec<Launch> = Vec::new();
        for m in &s.messages {
            for f in self.facts_of(m) {
                let f = f.clone();
                if f.action != "launch" {
                    continue;
                }
                if let Some(prev) = launches.iter_mut().rev().find(|l| l.program == f.program && l.next.is_none()) {
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
                    program: f.program.clone(),
                    next: None,
                    waited: None,
                    waited_secs: None,
                });
            }
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
                let sig = signature(&f);
                if let Some(g) = groups.iter_mut().find(|g| g.signature == sig) {
                    g.count += 1;
                    g.last_idx = m.idx;
                } else {
                    let detail = f.output.as_ref().and_then(|o| {
                        o.revealing.iter().find(|r| r.kind == "error").map(|r| r.line.clone()).or(o.last_line.clone())
                    });
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
        let mut texts: Vec<&str> = Vec::new();
        for m in &s.messages {
            if m.role == Role::System {
                continue;
            }
            texts.push(&m.text);
            texts.extend(m.commands());
        }
        let technologies = self.glossary.find(&texts);
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
            phases,
            timeline,
            launches,
            by_detector,
            failures: groups,
            time,
            technologies,
            last,
            cited: Vec::new(),
        };
        let mut idxs: Vec<u32> = facts.goal.iter().map(|g| g.idx).collect();
        idxs.extend(facts.phases.iter().map(|p| p.request.idx));
        idxs.extend(facts.timeline.iter().map(|t| t.idx));
        idxs.extend(facts.launches.iter().map(|l| l.event.idx));
        idxs.extend(facts.failures.iter().map(|f| f.first.idx));
        idxs.extend(facts.time.longest_calls.iter().map(|e| e.idx));
        idxs.extend(facts.last.iter().map(|e| e.idx));
        facts.cited = self.cited(idxs);
        facts
    }

    fn time_use(&self) -> TimeUse {
        let s = self.session;
        let total_secs = secs_between(s.meta.started, s.meta.ended);
        let mut by_program: BTreeMap<String, i64> = BTreeMap::new();
        let mut calls: Vec<(i64, Event)> = Vec::new();
        let mut in_calls = 0i64;
        for m in &s.messages {
            for f in self.facts_of(m) {
                let f = f.clone();
                let Some(secs) = f.seconds else { continue };
                in_calls += secs;
                *by_program.entry(f.program.clone()).or_default() += secs;
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
        }
        // Waiting for the user: the gap before each typed user turn.
        let mut waiting = 0i64;
        let mut prev = None;
        for m in &s.messages {
            if m.is_typed_user()
                && let Some(d) = secs_between(prev, m.timestamp)
            {
                waiting += d;
            }
            if m.timestamp.is_some() {
                prev = m.timestamp;
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
            waiting_for_user: (waiting > 0).then(|| duration(waiting)),
            longest_secs: calls.iter().map(|(s, _)| *s).collect(),
            longest_calls: calls.into_iter().map(|(_, e)| e).collect(),
        }
    }
}

fn ep_cites(ep: &EpisodeFacts) -> Vec<u32> {
    let mut v: Vec<u32> = ep.context.iter().map(|e| e.idx).collect();
    v.extend(ep.goal.iter().map(|g| g.idx));
    v.push(ep.key);
    v.extend(ep.prior_attempts.iter().map(|m| m.idx));
    v.extend(ep.previous_launch.iter().map(|e| e.idx));
    v.extend(ep.followed_by.iter().map(|e| e.idx));
    v.extend(ep.later_findings.iter().map(|e| e.idx));
    v
}

/// What a failed call is, for grouping repeats: program and first non-flag argument.
fn signature(f: &CallFacts) -> String {
    match &f.command {
        Some(cmd) => {
            let script = crate::shell::parse(cmd);
            let c = script.commands.iter().find(|c| c.name() == f.program);
            let arg = c.and_then(|c| c.positionals().into_iter().next()).map(|a| clip(a, 40));
            match arg {
                Some(a) => format!("{} {a}", f.program),
                None => f.program.clone(),
            }
        }
        None => f.tool.clone(),
    }
}

/// The environment and `--flag[=value]` options of the launched `program` in a command
/// line — inside `ssh host '…'` and `bash -c '…'` too, through the shared shell parser.
fn settings(cmd: &str, program: &str) -> BTreeMap<String, String> {
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

/// Sentences that state a reason or a decision.
fn reasons(text: &str) -> Vec<String> {
    static REASON: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(because|since|so |that's|that is|means|instead|let me|i'll|i will|looks like|seems|must|probably|the (output|log|error|problem|issue|cause)|didn't|isn't|wasn't|not an?|too (long|short|many|much))")
            .expect("static regex")
    });
    let mut out = sentences_where(text, 260, |s| REASON.is_match(s));
    out.truncate(4);
    out
}

/// Section headings of a structured message: `# Heading`, `**Label**`, `Label:` lines.
fn headings(text: &str) -> Vec<String> {
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
        if let Some(h) = h.filter(|h| !h.is_empty()) {
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
        let tag = match (c.action, failed) {
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
