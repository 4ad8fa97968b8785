//! The episode report: one finding, or one message written up on its own, with the
//! story before it, what it rested on and what followed.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::belief::{self, BeliefFacts};
use super::context::{Change, Context, Event, MessageFacts, QUOTE, Quote, SessionInfo};
use super::glossary::Term;
use super::story::{Beat, Experiment, Moment, Paragraph, SearchFacts, Story, WaitFacts};
use crate::analysis::call_facts::CallFacts;
use crate::analysis::claims;
use crate::analysis::text::{duration, secs_between, sentences};
use crate::detect::{self, Details, Finding};
use crate::model::{Message, Origin, Role};

/// Messages after the key that "what followed" looks at.
const FOLLOW_MESSAGES: usize = 5;

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

/// The episode around the finding keyed on `key` — or, without one, the message
/// `key` written up on its own. With several findings on the message, the one that
/// tells the most leads.
pub fn episode(cx: &Context, key: u32) -> Option<EpisodeFacts> {
    let finding = cx.lead_finding(key);
    episode_for(cx, key, finding)
}

/// The episode on message `key`, told from `finding` (or of the message alone): each
/// part of it gathered by a step of its own.
pub(super) fn episode_for(cx: &Context, key: u32, finding: Option<&Finding>) -> Option<EpisodeFacts> {
    let story = Story::new(cx);
    let s = cx.session;
    let key_msg = s.message(key)?;
    let subject = cx.message(key_msg);
    let evidence: Vec<u32> = finding.map(|f| f.evidence.clone()).unwrap_or_else(|| vec![key]);
    // Where the context stops: before the finding's first evidence — except for a
    // relaunch, whose evidence (the previous launch, the edits) is the context.
    let first = if finding.is_some_and(|f| detect::telling(&f.detector).evidence_is_context) {
        key
    } else {
        evidence.first().copied().unwrap_or(key).min(key)
    };
    let prior = prior_attempts(cx, key, &evidence);
    let searches: Vec<SearchFacts> =
        prior.iter().filter_map(|p| s.message(p.idx)).filter_map(|m| story.search_of(m)).collect();

    // The story before: findings that are this episode's own evidence are told in
    // its sections, not in the context.
    let mut skip: Vec<u32> = evidence.clone();
    skip.push(key);
    let context = story.story_before(first, &skip);
    // The reasons a step gives are the assistant's; a person's turn is told by its text.
    let reasoning = if key_msg.role == Role::Assistant { claims::reasoning(&key_msg.text, 260, 4) } else { Vec::new() };
    let thinking: Vec<String> =
        Some(sentences(&key_msg.thinking, 5, 700)).filter(|t| !t.trim().is_empty()).into_iter().collect();

    // A finding's earlier attempts are part of its story; a message written up on
    // its own is about its own calls only.
    let attempts: &[MessageFacts] = if finding.is_some() { &prior } else { &[] };
    let search =
        attempts.iter().chain(std::iter::once(&subject)).flat_map(|m| &m.calls).find(|c| c.action == "search").cloned();
    let read = subject.calls.iter().find(|c| c.action == "read").cloned();
    let subject_changes_state = subject.calls.iter().any(|c| matches!(c.action, "launch" | "edit" | "write"));
    let (changes, previous_launch) = cx.changes_since_previous_launch(key_msg);
    let revealing = revealing(key, &subject);
    let progress = progress(key, &revealing);
    let (followed, after_count) = followed(cx, story, key);
    let technologies = technologies(cx, &evidence, key, &context);
    let moment = finding.map(|f| story.moment(f));
    let situations = situations(moment.as_ref(), &subject, &prior, finding.is_some());
    let since_start = secs_between(s.meta.started.or(s.messages.first().and_then(|m| m.timestamp)), key_msg.timestamp)
        .filter(|d| *d > 0)
        .map(duration);
    let mut ep = EpisodeFacts {
        detector: finding.map_or_else(|| "_message".to_string(), |f| f.detector.clone()),
        situations,
        seed: key,
        key,
        pattern: finding.map(pattern_of),
        moment,
        also: also(cx, story, key, finding),
        session: cx.info(),
        goal: cx.goal(),
        since_start,
        upstream: context.iter().flat_map(|p| &p.beats).rev().find(|b| b.kind == "experiment").cloned(),
        context,
        no_error: no_error(&subject),
        reading: reading(cx, key, &subject),
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
        assumptions: Vec::new(),
        belief: None,
        technologies,
        followed,
        after_count,
        changes_state: subject_changes_state,
        median_assistant_chars: cx.median_text_chars(),
        joined: Vec::new(),
        cited: Vec::new(),
    };
    ep.assumptions = assumptions(cx, &ep);
    ep.belief = belief::belief(cx, key, finding);
    ep.cited = cx.cited(cites(&ep));
    Some(ep)
}

/// Earlier attempts: the finding's evidence before the key; without that, the
/// assistant's last messages with calls right before it.
fn prior_attempts(cx: &Context, key: u32, evidence: &[u32]) -> Vec<MessageFacts> {
    let s = cx.session;
    let mut prior: Vec<MessageFacts> = evidence
        .iter()
        .filter(|i| **i < key)
        .filter_map(|i| s.message(*i))
        .filter(|m| m.role == Role::Assistant)
        .map(|m| cx.message(m))
        .collect();
    if prior.is_empty() {
        let pos = s.messages.partition_point(|m| m.idx < key);
        prior = s.messages[..pos]
            .iter()
            .rev()
            .take_while(|m| !m.is_typed_user())
            .filter(|m| m.role == Role::Assistant && !m.calls.is_empty())
            .take(2)
            .map(|m| cx.message(m))
            .collect();
        prior.reverse();
    }
    prior
}

/// Revealing lines of the subject's outputs.
fn revealing(key: u32, subject: &MessageFacts) -> Vec<Event> {
    subject
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
        .collect()
}

/// The first progress reading among the revealing lines, with its `done/total`.
fn progress(key: u32, revealing: &[Event]) -> Option<Progress> {
    revealing.iter().find(|r| r.kind == "progress").map(|r| {
        static FRACTION: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"\b(\d+)\s*/\s*(\d+)\b").expect("static regex"));
        let c = FRACTION.captures(&r.quote);
        Progress {
            idx: key,
            line: r.quote.clone(),
            done: c.as_ref().and_then(|c| c[1].parse().ok()),
            total: c.as_ref().and_then(|c| c[2].parse().ok()),
        }
    })
}

/// The subject read or searched output and none of it is an error line.
fn no_error(subject: &MessageFacts) -> bool {
    let looked = subject.calls.iter().any(|c| matches!(c.action, "read" | "search") && c.output.is_some());
    looked
        && subject
            .calls
            .iter()
            .filter_map(|c| c.output.as_ref())
            .all(|o| o.error_head.is_none() && !o.revealing.iter().any(|r| matches!(r.kind, "error" | "alarm")))
}

/// How the next assistant message read this one's outcome.
fn reading(cx: &Context, key: u32, subject: &MessageFacts) -> Option<Quote> {
    let s = cx.session;
    let pos = s.messages.partition_point(|m| m.idx <= key);
    s.messages[pos..]
        .iter()
        .take_while(|m| m.role != Role::User)
        .find(|m| m.role == Role::Assistant && !m.text.trim().is_empty())
        .and_then(|m| {
            claims::statements(&m.text, 260)
                .into_iter()
                .find(|x| matches!(x.kind, claims::Kind::Retraction | claims::Kind::Conclusion))
                .map(|x| Quote { idx: m.idx, text: x.text })
        })
        .filter(|_| subject.role == "assistant" && !subject.calls.is_empty())
}

/// What came after the key, as beats, and how many messages follow it.
fn followed(cx: &Context, story: Story, key: u32) -> (Vec<Beat>, usize) {
    let s = cx.session;
    let mut followed = story.story_after(key, FOLLOW_MESSAGES, &[key]);
    let after: Vec<&Message> =
        s.messages[s.messages.partition_point(|m| m.idx <= key)..].iter().filter(|m| m.role != Role::System).collect();
    if followed.is_empty()
        && let Some(m) =
            after.iter().take(FOLLOW_MESSAGES).find(|m| m.role == Role::Assistant && !m.text.trim().is_empty())
    {
        // Steps the story does not tell (a plain answer, reads): the next words said.
        followed.push(Beat::said(m, sentences(&m.text, 1, QUOTE)));
    }
    (followed, after.len())
}

/// Technologies: what the episode's own messages mention.
fn technologies(cx: &Context, evidence: &[u32], key: u32, context: &[Paragraph]) -> Vec<Term> {
    let s = cx.session;
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
    cx.glossary.find(&texts, &commands)
}

/// The other findings on the key message, one per detector.
fn also(cx: &Context, story: Story, key: u32, finding: Option<&Finding>) -> Vec<Moment> {
    let mut seen = std::collections::HashSet::new();
    cx.findings
        .iter()
        .filter(|f| f.key == key && Some(*f) != finding)
        .filter(|f| seen.insert(f.detector.clone()))
        .map(|f| story.moment(f))
        .collect()
}

/// The episode's situations: the moment's, then the subject's.
fn situations(
    moment: Option<&Moment>,
    subject: &MessageFacts,
    prior: &[MessageFacts],
    has_finding: bool,
) -> Vec<&'static str> {
    let mut situations = Vec::new();
    if let Some(m) = moment {
        situations.extend(m.situations.iter().copied());
    }
    situation_tags(subject, prior, has_finding, &mut situations);
    if subject.calls.first().is_some_and(|c| c.command.is_none()) {
        situations.push("tool-call");
    }
    situations
}

/// A finding, as the report names it.
fn pattern_of(f: &Finding) -> PatternInfo {
    PatternInfo {
        detector: f.detector.clone(),
        description: detect::by_id(&f.detector).map(|d| d.summary().to_string()),
        summary: f.summary.clone(),
        key: f.key,
        evidence: f.evidence.clone(),
    }
}

/// The assumptions the episode's moment rests on, each judged by what the
/// transcript shows later (held, failed) or left open. What the finding rests on
/// decides what it assumed, not which detector found it.
fn assumptions(cx: &Context, ep: &EpisodeFacts) -> Vec<Assumption> {
    let story = Story::new(cx);
    let detector = ep.pattern.as_ref().map(|p| p.detector.as_str()).unwrap_or("");
    let finding =
        ep.pattern.as_ref().and_then(|p| cx.findings.iter().find(|f| f.key == p.key && f.detector == p.detector));
    let mo = ep.moment.as_ref();
    let mut out: Vec<Assumption> = match (finding, finding.and_then(|f| f.details.as_ref())) {
        (None, _) | (_, Some(Details::Search { .. })) => looked_up(cx, story, ep, finding.is_some()),
        // The person's pushback assumed nothing of the assistant's that this names.
        (_, Some(Details::Belief { undone: Some(u), .. })) if u.how == "pushback" => Vec::new(),
        // A belief undone later: an alarm read as a crash.
        (Some(f), Some(Details::Belief { undone, .. })) if undone.as_ref().is_none_or(|u| u.idx != f.key) => mo
            .map(|m| {
                let held = if m.disproof.is_some() { "failed" } else { "open" };
                assumption(ep, "keyword-means-crash", held, m.probe.clone(), m.disproof.clone())
            })
            .into_iter()
            .collect(),
        // A claim taken back where the finding is keyed.
        (_, Some(Details::Belief { .. })) => mo.map(|m| claim_held(ep, m)).into_iter().collect(),
        (_, Some(Details::Wait { .. })) => {
            mo.and_then(|m| m.wait.as_ref()).map(|w| budget_enough(ep, w)).into_iter().collect()
        }
        (_, Some(Details::Relaunch { .. })) => {
            mo.and_then(|m| m.experiment.as_ref()).map(|x| changes_separable(cx, story, ep, x)).into_iter().collect()
        }
        (_, Some(Details::Pause { .. })) => mo
            .map(|m| {
                assumption(ep, "knows-next", if m.reply.is_some() { "held" } else { "open" }, None, m.reply.clone())
            })
            .into_iter()
            .collect(),
        (_, Some(Details::Runs { .. })) => mo.map(|m| retry_differs(ep, m)).into_iter().collect(),
        _ => Vec::new(),
    };
    if !detect::telling(detector).premise
        && let Some((claim, undone)) = crash_premise(cx, story, ep)
    {
        out.push(assumption(ep, "process-crashed", "failed", claim.map(|c| c.text), Some(undone)));
    }
    if ep.situations.contains(&"test-failed") {
        out.push(assumption(ep, "test-shows-problem", "open", None, None));
    }
    out
}

/// An assumption of `kind`, judged `validity`, about `subject`, settled by `evidence`.
fn assumption(
    ep: &EpisodeFacts,
    kind: &'static str,
    validity: &'static str,
    subject: Option<String>,
    evidence: Option<Quote>,
) -> Assumption {
    Assumption { kind, situations: vec![validity], seed: ep.key, subject, file: None, evidence, detail: None, at: None }
}

/// A crash believed before this moment and taken back after it: what was believed and
/// what undid it.
fn crash_premise(cx: &Context, story: Story, ep: &EpisodeFacts) -> Option<(Option<Quote>, Quote)> {
    cx.findings.iter().filter(|f| detect::telling(&f.detector).premise).find_map(|f| {
        let m = story.moment(f);
        let claimed = m.alarm.as_ref().or(m.claim.as_ref())?.idx;
        let undone = m.retraction.as_ref().or(m.disproof.as_ref())?;
        (claimed < ep.key && undone.idx > ep.key && undone.idx <= ep.key + 40)
            .then(|| (m.alarm.clone().or(m.claim.clone()), undone.clone()))
    })
}

/// What a search or a positional read assumed: that the end of the file holds the
/// answer, that the pattern is selective.
fn looked_up(cx: &Context, story: Story, ep: &EpisodeFacts, has_finding: bool) -> Vec<Assumption> {
    let s = cx.session;
    let mut out = Vec::new();
    if let Some(r) = &ep.read
        && r.window.is_some()
    {
        let line = r.output.as_ref().and_then(|o| {
            o.revealing.iter().find(|x| matches!(x.kind, "error" | "progress" | "result")).map(|x| x.line.clone())
        });
        let mut a_subject = r.window.clone();
        if let Some(f) = &r.file {
            a_subject = a_subject.map(|w| format!("{w} of {}", f.rsplit('/').next().unwrap_or(f)));
        }
        out.push(assumption(
            ep,
            "end-holds-answer",
            if line.is_some() { "held" } else { "open" },
            a_subject,
            line.map(|l| Quote { idx: ep.key, text: l }),
        ));
    }
    // A finding's searches; a message on its own is judged by its own search.
    let own: Vec<SearchFacts> = s.message(ep.key).and_then(|m| story.search_of(m)).into_iter().collect();
    let searches: Vec<&SearchFacts> = match ep.moment.as_ref() {
        Some(m) if has_finding => m.searches.iter().collect(),
        _ => own.iter().collect(),
    };
    if let Some(sf) = searches.iter().find(|x| x.pattern.is_some()) {
        let bad = sf.dump.is_some() || sf.truncated.is_some();
        let ev =
            sf.dump_words.first().cloned().or_else(|| sf.truncated.clone()).map(|t| Quote { idx: sf.idx, text: t });
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
    out
}

/// A claim taken back: it held, until the retraction.
fn claim_held(ep: &EpisodeFacts, m: &Moment) -> Assumption {
    let mut a = assumption(ep, "claim-holds", "failed", m.claim.as_ref().map(|c| c.text.clone()), m.retraction.clone());
    a.detail = Some(if m.situations.contains(&"admission") { "admission" } else { "crash" }.to_string());
    a
}

/// A wait that ran out: its budget was assumed enough.
fn budget_enough(ep: &EpisodeFacts, w: &WaitFacts) -> Assumption {
    let subject = match (w.attempts, &w.interval, &w.budget) {
        (Some(n), Some(i), Some(b)) => Some(format!("{n} attempts, {i} apart ({b})")),
        _ => w.elapsed.clone(),
    };
    assumption(ep, "budget-enough", "failed", subject, w.line.clone().map(|l| Quote { idx: w.idx, text: l }))
}

/// A relaunch with several changes at once: that their effects can be told apart,
/// judged by how the launch ended.
fn changes_separable(cx: &Context, story: Story, ep: &EpisodeFacts, x: &Experiment) -> Assumption {
    let s = cx.session;
    let later = s.message(ep.key).and_then(|m| story.experiment(m, s.messages.len()));
    let (outcome, ev) = match later.as_ref().map(|(x, _)| x) {
        Some(l) => (
            l.outcome,
            l.error
                .clone()
                .or_else(|| l.wait.as_ref().and_then(|w| w.line.clone().map(|t| Quote { idx: w.idx, text: t }))),
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
    a
}

/// Runs that failed alike: the retry was assumed to differ.
fn retry_differs(ep: &EpisodeFacts, m: &Moment) -> Assumption {
    let mut a = assumption(ep, "retry-differs", "failed", m.command.clone(), m.runs.last().cloned());
    if m.situations.contains(&"folder-changed") {
        a.situations.insert(0, "folder-changed");
    }
    a
}

/// Every message the episode cites.
fn cites(ep: &EpisodeFacts) -> Vec<u32> {
    let mut v: Vec<u32> = ep.context.iter().flat_map(|p| &p.beats).flat_map(Beat::cites).collect();
    v.extend(ep.goal.iter().map(|g| g.idx));
    v.push(ep.key);
    v.extend(ep.prior_attempts.iter().map(|m| m.idx));
    v.extend(ep.previous_launch.iter().map(|e| e.idx));
    v.extend(ep.followed.iter().flat_map(Beat::cites));
    v.extend(ep.moment.iter().chain(&ep.also).flat_map(Moment::cites));
    v.extend(ep.reading.iter().map(|q| q.idx));
    v.extend(ep.assumptions.iter().filter_map(|a| a.evidence.as_ref().map(|q| q.idx)));
    v.extend(ep.belief.iter().flat_map(BeliefFacts::cites));
    v
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
