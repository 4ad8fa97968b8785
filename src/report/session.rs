//! The session report: the whole session, its phases, launches, problems and time.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::belief::{self, BeliefFacts};
use super::context::{Context, Event, QUOTE, SessionInfo, asked, empty_template};
use super::glossary::Term;
use super::story::{Beat, Experiment, Moment, Story};
use crate::analysis::call_facts::{CallFacts, Grain};
use crate::analysis::claims;
use crate::analysis::text::{clock, duration, one_line, secs_between, sentences};
use crate::detect;
use crate::model::{Message, Role};

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
    /// What was believed and what undid it, for each belief the findings found undone.
    pub beliefs: Vec<BeliefFacts>,
    pub by_detector: Vec<DetectorCount>,
    pub failures: Vec<FailureGroup>,
    pub time: TimeUse,
    pub technologies: Vec<Term>,
    pub last: Option<Event>,
    /// How the session ends: its last message, told.
    pub ending: Option<Beat>,
    pub cited: Vec<Event>,
}

/// The whole-session report.
pub fn report(cx: &Context) -> SessionFacts {
    let story = Story::new(cx);
    let s = cx.session;
    let timeline = timeline(cx, story);
    let (phases, nudges, nudge_count) = phases(cx, &timeline);
    let mut situations = Vec::new();
    if cx.findings.is_empty() {
        situations.push("no-findings");
    }
    let mut facts = SessionFacts {
        detector: "_session",
        situations,
        seed: s.messages.first().map_or(0, |m| m.idx),
        session: cx.info(),
        goal: cx.goal(),
        requests: phases.len(),
        nudges,
        nudge_count,
        phases,
        timeline,
        launches: launches(cx, story),
        stories: cx.stories(),
        beliefs: belief::told(cx),
        by_detector: by_detector(cx),
        failures: failures(cx),
        time: time_use(cx),
        technologies: technologies(cx),
        last: last_said(cx),
        ending: s.messages.iter().rev().find(|m| m.role != Role::System).and_then(|m| story.ending_of(m)),
        cited: Vec::new(),
    };
    facts.cited = cx.cited(cites(&facts));
    facts
}

/// The findings in order, with the time since the previous one (or the session's start).
fn timeline(cx: &Context, story: Story) -> Vec<TimelineEntry> {
    let s = cx.session;
    let mut timeline = Vec::new();
    let mut prev_t = s.meta.started;
    let mut keys_seen = std::collections::HashSet::new();
    for f in cx.findings {
        if !keys_seen.insert((f.key, f.detector.clone())) {
            continue;
        }
        let m = s.message(f.key);
        let t = m.and_then(|m| m.timestamp);
        timeline.push(TimelineEntry {
            idx: f.key,
            detector: f.detector.clone(),
            summary: f.summary.clone(),
            title_facts: cx.finding_event(f),
            time: clock(t),
            since_previous: secs_between(prev_t, t).map(duration),
            moment: story.moment(f),
        });
        if t.is_some() {
            prev_t = t;
        }
    }
    timeline
}

/// The phases between the user's requests; and the nudges ("continue") typed in them,
/// most frequent first, and how many.
fn phases(cx: &Context, timeline: &[TimelineEntry]) -> (Vec<Phase>, Vec<Nudge>, usize) {
    let s = cx.session;
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
        let facts: Vec<&CallFacts> = part.iter().flat_map(|m| cx.facts_of(m).iter()).collect();
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
                detail: empty_template(&s.messages[i].text).then(|| "empty-template".to_string()),
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
    (phases, nudges, nudge_count)
}

/// Launches: what changed, what became of each, and the time until the next launch of
/// the same program.
fn launches(cx: &Context, story: Story) -> Vec<Launch> {
    let s = cx.session;
    let mut launches: Vec<Launch> = Vec::new();
    for m in &s.messages {
        let Some(f) = cx.facts_of(m).iter().find(|f| f.action == "launch") else { continue };
        let Some((experiment, _)) = story.experiment(m, s.messages.len()) else { continue };
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
    launches
}

/// Findings per detector, most first.
fn by_detector(cx: &Context) -> Vec<DetectorCount> {
    let mut by: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for f in cx.findings {
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
    by_detector
}

/// Failed commands grouped by what ran, the most frequent first.
fn failures(cx: &Context) -> Vec<FailureGroup> {
    let s = cx.session;
    let mut groups: Vec<FailureGroup> = Vec::new();
    for m in &s.messages {
        for f in cx.facts_of(m) {
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
    groups
}

/// The technologies the session names. A tool is worth explaining where the story turns
/// on it: the command that does the work of a call the findings cite. Elsewhere a command
/// counts as text (`--tp 8` still names tensor parallelism), so `grep`, `head` or `sed`
/// run in passing, or filtering another command's output (`ykman piv info | grep PIN`),
/// are not defined; a polling loop, a `nohup` launch or an `ssh` call still are.
fn technologies(cx: &Context) -> Vec<Term> {
    let s = cx.session;
    let cited: HashSet<u32> = cx.findings.iter().flat_map(|f| f.evidence.iter().chain([&f.key])).copied().collect();
    let (mut texts, mut commands): (Vec<&str>, Vec<String>) = (Vec::new(), Vec::new());
    for m in &s.messages {
        if m.role == Role::System {
            continue;
        }
        texts.push(&m.text);
        texts.extend(m.commands());
        if cited.contains(&m.idx) {
            for (c, f) in m.calls.iter().zip(cx.facts_of(m)) {
                commands.extend(c.command.as_deref().map(|cmd| unfiltered(cmd, &f.program)));
            }
        }
    }
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    cx.glossary.find(&texts, &commands)
}

/// A command line without the pipe stages that only filter another's output: of
/// `ykman piv info 2>&1 | grep -E "PIN|PUK"` (named `ykman`), `ykman piv info 2>&1`. A
/// stage that runs the call's named program stays (`cat log | grep Error` is a search).
fn unfiltered(cmd: &str, program: &str) -> String {
    // A loop is one piece of work, pipes in its body included.
    if !crate::shell::parse(cmd).loops.is_empty() {
        return cmd.to_string();
    }
    let (mut stages, mut cur, mut quote) = (Vec::new(), String::new(), None::<char>);
    let chars: Vec<char> = cmd.chars().collect();
    for (i, &ch) in chars.iter().enumerate() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(ch),
            (None, '|') if chars.get(i + 1) != Some(&'|') && (i == 0 || chars[i - 1] != '|') => {
                stages.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    stages.push(cur);
    let runs = |st: &str| st.split_whitespace().next().is_some_and(|w| w.rsplit('/').next() == Some(program));
    stages
        .iter()
        .enumerate()
        .filter(|(i, st)| *i == 0 || runs(st))
        .map(|(_, st)| st.as_str())
        .collect::<Vec<_>>()
        .join("|")
}

/// The assistant's last words.
fn last_said(cx: &Context) -> Option<Event> {
    cx.session.messages.iter().rev().find(|m| m.role == Role::Assistant && !m.text.trim().is_empty()).map(|m| Event {
        idx: m.idx,
        kind: "said",
        time: clock(m.timestamp),
        quote: sentences(&m.text, 2, QUOTE),
        command: None,
        file: None,
        detail: None,
        detector: None,
    })
}

/// Every message the session report cites.
fn cites(facts: &SessionFacts) -> Vec<u32> {
    let mut idxs: Vec<u32> = facts.goal.iter().map(|g| g.idx).collect();
    idxs.extend(facts.ending.iter().flat_map(Beat::cites));
    idxs.extend(facts.phases.iter().map(|p| p.request.idx));
    idxs.extend(facts.timeline.iter().map(|t| t.idx));
    idxs.extend(facts.launches.iter().flat_map(|l| l.experiment.cites()));
    idxs.extend(facts.timeline.iter().flat_map(|t| t.moment.cites()));
    idxs.extend(facts.failures.iter().map(|f| f.first.idx));
    idxs.extend(facts.stories.iter().flat_map(|st| st.cites()));
    idxs.extend(facts.beliefs.iter().flat_map(BeliefFacts::cites));
    idxs.extend(facts.time.longest_calls.iter().map(|e| e.idx));
    idxs.extend(facts.last.iter().map(|e| e.idx));
    idxs
}

/// Where the session's time went: the gaps between messages (pauses, the person's time
/// before they wrote) and the time of each message's calls, until its last counted result.
fn time_use(cx: &Context) -> TimeUse {
    let s = cx.session;
    // A transcript without timestamps spans "0 s": that is no span at all.
    let total_secs = secs_between(s.meta.started, cx.last_time()).filter(|d| *d > 0);
    let mut tally = Tally::default();
    let mut last_activity = None;
    for m in &s.messages {
        if let Some(d) = secs_between(last_activity, m.timestamp) {
            tally.gap(d, m.is_typed_user());
        }
        let busy = tally.calls_of(m, cx.facts_of(m));
        if let Some(t) = m.timestamp {
            last_activity = Some(t + chrono::Duration::seconds(busy));
        }
    }
    tally.finish(total_secs)
}

/// A stretch with nothing happening longer than this is a pause, not work.
const PAUSE: i64 = 30 * 60;

/// What [`time_use`] adds up, message by message (seconds).
#[derive(Default)]
struct Tally {
    by_program: BTreeMap<String, i64>,
    /// Each call counted as work, with its seconds.
    calls: Vec<(i64, Event)>,
    in_calls: i64,
    in_waits: i64,
    on_user: i64,
    waiting: i64,
    paused: i64,
    pauses: usize,
}

impl Tally {
    /// The gap since the last thing that happened, up to a message (`typed`: one the
    /// person typed): a pause when it is long, else the person's time before they wrote.
    fn gap(&mut self, secs: i64, typed: bool) {
        if secs > PAUSE {
            self.pauses += 1;
            self.paused += secs;
        } else if typed {
            self.waiting += secs;
        }
    }

    /// Count the time of a message's calls, to the person or to the work; returns how
    /// long after the message the last result so counted came back (0 when none did).
    fn calls_of(&mut self, m: &Message, facts: &[CallFacts]) -> i64 {
        let mut busy = 0;
        for (f, secs, until) in credited(facts) {
            busy = busy.max(until);
            // A question to the person, a plan waiting for approval, a call the person
            // stopped or refused: the time went to the person, not to the call.
            if waits_on_user(f) {
                self.on_user += secs;
                continue;
            }
            self.in_calls += secs;
            if f.action == "wait" {
                self.in_waits += secs;
            }
            *self.by_program.entry(f.label.clone()).or_default() += secs;
            let event = Event {
                idx: m.idx,
                kind: f.action,
                time: clock(m.timestamp),
                quote: f.command_short.clone().unwrap_or_else(|| f.tool.clone()),
                command: f.command_short.clone(),
                file: f.file.clone(),
                detail: None,
                detector: None,
            };
            self.calls.push((secs, event));
        }
        busy
    }

    /// The sums as the report words them: the six programs and three calls that took
    /// longest.
    fn finish(self, total_secs: Option<i64>) -> TimeUse {
        let some = |secs: i64| (secs > 0).then(|| duration(secs));
        let mut progs: Vec<(String, i64)> = self.by_program.into_iter().filter(|(_, v)| *v > 0).collect();
        progs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        progs.truncate(6);
        let mut calls = self.calls;
        calls.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.idx.cmp(&b.1.idx)));
        calls.retain(|(secs, _)| *secs > 0);
        calls.truncate(3);
        TimeUse {
            total: total_secs.map(duration),
            total_secs,
            by_program: progs.into_iter().map(|(p, v)| (p, duration(v), v)).collect(),
            in_calls: some(self.in_calls),
            on_user: some(self.on_user),
            waiting_for_user: some(self.waiting),
            pauses: self.pauses,
            paused: some(self.paused),
            in_waits: some(self.in_waits),
            longest_secs: calls.iter().map(|(s, _)| *s).collect(),
            longest_calls: calls.into_iter().map(|(_, e)| e).collect(),
        }
    }
}

/// The calls of one message that took time, each with the seconds credited to it and
/// how long after the message its result came back. A message's calls all start with
/// it, and their results come back one after another: each call is credited with the
/// time from the previous result to its own, so calls made together are never counted
/// twice (three parallel calls that return after 10 minutes took 10 minutes, not 30).
fn credited(facts: &[CallFacts]) -> Vec<(&CallFacts, i64, i64)> {
    let mut timed: Vec<(&CallFacts, i64)> = facts
        .iter()
        .filter_map(|f| Some((f, f.seconds?)))
        // An editor or reader whose result came back hours later was waiting for a
        // person (an approval) or the machine was asleep: not work.
        .filter(|(f, secs)| !(f.command.is_none() && *secs > PAUSE))
        .collect();
    timed.sort_by_key(|(_, secs)| *secs);
    // The agent's own tools (edits, writes, reads, its todo list) return at once: the
    // time before the first of their results went to the model writing out the
    // message's calls (or to an approval), not to any call running.
    let mut before = timed.iter().find(|(f, _)| instant(f)).map_or(0, |(_, until)| *until);
    let mut out = Vec::with_capacity(timed.len());
    for (f, until) in timed {
        let secs = (until - before).max(0);
        before = before.max(until);
        if !instant(f) {
            out.push((f, secs, until));
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::unfiltered;

    #[test]
    fn a_pipe_filter_is_not_the_work() {
        // cc11: the finding's call asked ykman; grep only trimmed the answer.
        assert_eq!(unfiltered(r#"ykman piv info 2>&1 | grep -E "PIN|PUK""#, "ykman"), "ykman piv info 2>&1 ");
        // A loop is kept whole, pipes in its body too, and `||` is no pipe.
        let until = "until curl -sf localhost:5174/health | grep -q ok || false; do sleep 1; done";
        assert_eq!(unfiltered(until, "curl"), until);
        assert_eq!(unfiltered("a || b | grep x", "a"), "a || b ");
        // Near miss: a search of what `cat` read is a search.
        assert_eq!(unfiltered("cat x.log | grep -n Error | head -5", "grep"), "cat x.log | grep -n Error ");
    }
}
