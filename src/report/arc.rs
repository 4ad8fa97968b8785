//! The arc report: the findings (or notable steps) over a range of messages.

use serde::Serialize;

use super::belief::{self, BeliefFacts};
use super::context::{Context, Event, SessionInfo};
use super::episode::{self, EpisodeFacts};
use super::story::{Beat, Moment, Paragraph, Story};
use crate::analysis::call_facts::CallFacts;
use crate::analysis::text::{clock, duration, secs_between, sentences};
use crate::detect::{self, Finding};
use crate::model::{Message, Origin, Role};

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

/// The arc over messages `from..=to`.
pub fn arc(cx: &Context, from: u32, to: u32) -> Option<ArcFacts> {
    let story = Story::new(cx);
    let msgs: Vec<&Message> = cx.session.messages.iter().filter(|m| (from..=to).contains(&m.idx)).collect();
    let first = *msgs.first()?;
    let last = *msgs.last()?;
    let in_range: Vec<&Finding> = {
        let mut seen = std::collections::HashSet::new();
        cx.findings
            .iter()
            .filter(|f| (from..=to).contains(&f.key))
            .filter(|f| seen.insert((f.key, f.detector.clone())))
            .collect()
    };
    let mut steps = finding_steps(cx, story, &in_range);
    if steps.is_empty() {
        steps = notable_steps(cx, &msgs);
    }
    // A belief two steps carry is told under the first.
    let mut told: Vec<BeliefFacts> = Vec::new();
    for st in &mut steps {
        if let Some(b) = st.belief.as_ref().filter(|b| b.told()) {
            if belief::first_telling(&told, b) {
                told.push(b.clone());
            } else {
                st.belief = None;
            }
        }
    }
    let calls: Vec<CallFacts> =
        msgs.iter().flat_map(|m| cx.facts_of(m).iter().cloned()).filter(|c| c.command.is_some()).collect();
    let mut detectors: Vec<String> = in_range.iter().map(|f| f.detector.clone()).collect();
    detectors.sort();
    detectors.dedup();
    let context = story.story_before(first.idx, &[]);
    let mut arc = ArcFacts {
        detector: "_arc",
        situations: if in_range.is_empty() { vec!["no-findings"] } else { vec!["findings"] },
        seed: from,
        from: first.idx,
        to: last.idx,
        session: cx.info(),
        goal: cx.goal(),
        // The launch that changed several things at once that the context tells.
        upstream: context
            .iter()
            .flat_map(|p| &p.beats)
            .rev()
            .find(|b| b.kind == "experiment")
            .filter(|b| b.situations.contains(&"confounded"))
            .cloned(),
        context,
        start_time: clock(first.timestamp),
        end_time: clock(last.timestamp),
        span: secs_between(first.timestamp, last.timestamp).map(duration),
        messages: msgs.len(),
        commands: calls.len(),
        failed_commands: calls.iter().filter(|c| c.failed()).count(),
        steps,
        findings: in_range.len(),
        tally: tally(&in_range, from),
        detectors,
        thread: thread(cx, story, &in_range, from, to),
        time_parts: time_parts(cx, &msgs),
        ending: story.ending_of(last),
        last: cx.events(last, true).into_iter().next(),
        cited: Vec::new(),
    };
    arc.cited = cx.cited(cites(&arc));
    Some(arc)
}

/// One step per message with findings, the telling finding leading it.
fn finding_steps(cx: &Context, story: Story, in_range: &[&Finding]) -> Vec<EpisodeFacts> {
    let mut steps: Vec<EpisodeFacts> = Vec::new();
    let mut keys: Vec<u32> = in_range.iter().map(|f| f.key).collect();
    keys.dedup();
    for k in keys {
        let Some(lead) = cx.lead_finding(k) else { continue };
        // A finding whose evidence is the step just before (the recap an empty turn
        // drew) is told in that step's section.
        if let Some(prev) = steps.last_mut()
            && lead.evidence.contains(&prev.key)
            && prev.subject.role == "user"
            && cx.pos_of(k) == cx.session.messages.partition_point(|m| m.idx <= prev.key)
        {
            prev.joined.push(story.moment(lead));
            prev.situations.insert(0, detect::telling(&lead.detector).joined_tag);
            continue;
        }
        if let Some(ep) = episode::episode_for(cx, k, Some(lead)) {
            steps.push(ep);
        }
    }
    steps
}

/// Without findings, the steps are the turns that moved the story — requests,
/// failures, launches, tests, and the assistant's conclusions — at most eight.
fn notable_steps(cx: &Context, msgs: &[&Message]) -> Vec<EpisodeFacts> {
    let mut steps = Vec::new();
    for m in msgs {
        let notable = cx.events(m, false).iter().any(|e| {
            matches!(
                e.kind,
                "asked" | "empty-turn" | "interrupted" | "failed" | "tested" | "tested-failed" | "launched" | "edited"
            )
        });
        if notable && let Some(ep) = episode::episode_for(cx, m.idx, None) {
            steps.push(ep);
        }
        if steps.len() >= 8 {
            break;
        }
    }
    steps
}

/// Findings in the range, counted per detector in order of first appearance.
fn tally(in_range: &[&Finding], from: u32) -> Vec<Tally> {
    let mut tally: Vec<Tally> = Vec::new();
    for f in in_range {
        match tally.iter_mut().find(|t| t.detector == f.detector) {
            Some(t) => t.count += 1,
            None => tally.push(Tally { detector: f.detector.clone(), count: 1, seed: from, situations: vec![] }),
        }
    }
    for t in &mut tally {
        t.situations.push(if t.count == 1 { "one" } else { "several" });
    }
    tally
}

/// The thread: earlier findings whose evidence reaches into the range, then the
/// findings in the range, led per message; at most eight.
fn thread(cx: &Context, story: Story, in_range: &[&Finding], from: u32, to: u32) -> Vec<Moment> {
    let mut thread: Vec<Moment> = cx
        .findings
        .iter()
        .filter(|f| f.key < from && f.evidence.iter().any(|e| (from..=to).contains(e)))
        .filter(|f| detect::telling(&f.detector).threads)
        .map(|f| story.moment(f))
        .collect();
    let mut led: Vec<u32> = Vec::new();
    for f in in_range {
        if led.contains(&f.key) {
            continue;
        }
        led.push(f.key);
        let mut on: Vec<&Finding> = in_range.iter().copied().filter(|g| g.key == f.key).collect();
        on.sort_by_key(|g| detect::telling(&g.detector).rank);
        thread.extend(on.into_iter().map(|g| story.moment(g)));
    }
    thread.truncate(8);
    thread
}

/// Every message the arc cites.
fn cites(arc: &ArcFacts) -> Vec<u32> {
    let mut idxs: Vec<u32> = arc.context.iter().flat_map(|p| &p.beats).flat_map(Beat::cites).collect();
    idxs.extend(arc.goal.iter().map(|g| g.idx));
    for st in &arc.steps {
        idxs.push(st.key);
        idxs.extend(st.moment.iter().chain(&st.also).chain(&st.joined).flat_map(Moment::cites));
        idxs.extend(st.assumptions.iter().filter_map(|a| a.evidence.as_ref().map(|q| q.idx)));
        idxs.extend(st.belief.iter().filter(|b| b.told()).flat_map(BeliefFacts::cites));
    }
    idxs.extend(arc.thread.iter().flat_map(Moment::cites));
    idxs.extend(arc.time_parts.iter().map(|t| t.idx));
    idxs.extend(arc.ending.iter().flat_map(Beat::cites));
    idxs.extend(arc.last.iter().map(|e| e.idx));
    idxs
}

/// The largest stretches of wall-clock time among `msgs`: long calls and pauses
/// before a user's turn, each at least a fifth of the span.
fn time_parts(cx: &Context, msgs: &[&Message]) -> Vec<TimePart> {
    let story = Story::new(cx);
    let (Some(a), Some(z)) = (msgs.first(), msgs.last()) else { return vec![] };
    let Some(span) = secs_between(a.timestamp, z.timestamp).filter(|s| *s > 0) else { return vec![] };
    let mut parts: Vec<TimePart> = Vec::new();
    let mut prev_t = None;
    for m in msgs {
        for c in cx.facts_of(m) {
            if let Some(secs) = c.seconds.filter(|s| *s * 5 >= span) {
                parts.push(TimePart {
                    idx: m.idx,
                    kind: if c.action == "wait" { "wait" } else { "call" },
                    secs,
                    text: duration(secs),
                    command: c.command_short.clone().or_else(|| Some(c.tool.clone())),
                    line: if c.action == "wait" { story.wait_of(m).and_then(|w| w.line) } else { None },
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
        let end = cx
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
