//! What was believed and what undid it: the section of a write-up built from the
//! findings' [`Details::Belief`] and the transcript around them.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::context::{Context, QUOTE, Quote, request_text};
use crate::analysis::call_facts::CallFacts;
use crate::analysis::claims;
use crate::analysis::text::{content_words, sentences};
use crate::detect::{Cited, Details, Finding, Undoing};
use crate::model::{Message, Role};

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
    /// claim, printed (a command's output, not the assistant's words), alarm; then how it was undone (pushback, retraction, progress, ready, alive).
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

impl BeliefFacts {
    /// Something the transcript shows undid it: the section tells it only then.
    pub fn told(&self) -> bool {
        self.undone.is_some() || self.correction.is_some() || self.undone_step.is_some()
    }

    /// Every message the belief's story cites.
    pub fn cites(&self) -> Vec<u32> {
        let mut v = vec![self.believed.idx];
        v.extend(
            self.rested_on.iter().chain(&self.acted).chain(&self.undone_step).chain(&self.outcome).map(|st| st.idx),
        );
        v.extend(
            self.undone
                .iter()
                .chain(&self.correction)
                .chain(&self.next_pushback)
                .chain(&self.next_claim)
                .map(|q| q.idx),
        );
        v
    }
}

/// Every belief the session's findings found that the transcript shows undone, each
/// once (a claim and its retraction may be found by two detectors).
pub(super) fn told(cx: &Context) -> Vec<BeliefFacts> {
    let mut out: Vec<BeliefFacts> = Vec::new();
    for f in cx.findings.iter().filter(|f| matches!(f.details, Some(Details::Belief { claim: Some(_), .. }))) {
        if let Some(b) = belief(cx, f.key, Some(f)).filter(BeliefFacts::told)
            && first_telling(&out, &b)
        {
            out.push(b);
        }
    }
    out
}

/// Whether `b` is a belief none of `told` already tells: a belief is the message it
/// was said in, whichever finding carries it (a false-crash-alarm and the
/// self-correction that takes it back carry the same one).
pub(super) fn first_telling(told: &[BeliefFacts], b: &BeliefFacts) -> bool {
    !told.iter().any(|o| o.believed.idx == b.believed.idx)
}

/// A finding's belief: the finding, what it claims, and what undid it.
type Belief<'f> = (&'f Finding, &'f Cited, Option<&'f Undoing>);

/// How a belief was undone, as the transcript shows it.
#[derive(Default)]
struct Undone {
    quote: Option<Quote>,
    how: Option<&'static str>,
    step: Option<Step>,
    correction: Option<Quote>,
}

/// What came of the correction.
#[derive(Default)]
struct Outcome {
    step: Option<Step>,
    next_pushback: Option<Quote>,
    next_claim: Option<Quote>,
    ends: bool,
    user_next: bool,
}

/// What was believed and what undid it: the belief a finding of this episode found
/// (keyed here, or whose claim is here), with the parts other findings and the
/// transcript show — the run before it, what was done on it, the correction and what
/// came of it. Nothing is guessed: a part no message shows is left out.
pub(super) fn belief(cx: &Context, key: u32, lead: Option<&Finding>) -> Option<BeliefFacts> {
    let beliefs: Vec<Belief> = cx
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
    let alarm = matches!(how, Some("progress" | "ready" | "alive"));
    // A line a command printed is no statement of the assistant's, however it was undone.
    let printed = if alarm { None } else { printed_by(cx, claim) };
    let mut situations: Vec<&'static str> = vec![if alarm {
        "alarm"
    } else if printed.is_some() {
        "printed"
    } else {
        "claim"
    }];
    let believed = if printed.is_some() {
        Quote { idx: claim.idx, text: claim.text.clone() }
    } else {
        believed(cx, claim, undone)
    };
    let rested_on = if printed.is_some() {
        printed
    } else if alarm {
        // The alarm is read from the output of its own message's calls.
        cx.session
            .message(claim.idx)
            .and_then(|m| cx.facts_of(m).iter().rev().find(|c| c.output.is_some()))
            .map(|c| step(claim.idx, c))
    } else {
        let (run, same) = run_before(cx, claim, &believed);
        if same {
            situations.push("rested-same");
        }
        run
    };
    let undoing = undoing(cx, &beliefs, claim, undone);
    let undone_idx = undoing.quote.as_ref().map(|q| q.idx).or(undoing.step.as_ref().map(|st| st.idx));
    // What was done on the belief before it was undone: steps that change or run
    // something (reads and searches only look).
    let acted_all: Vec<Step> = undone_idx
        .map(|u| steps_between(cx, claim.idx, u))
        .unwrap_or_default()
        .into_iter()
        .filter(|st| !matches!(st.action, "read" | "search"))
        .collect();
    let acted_more = acted_all.len().saturating_sub(3);
    let acted: Vec<Step> = acted_all.into_iter().take(3).collect();
    let came = undoing.correction.as_ref().map(|x| outcome(cx, &beliefs, claim, x, undone_idx)).unwrap_or_default();
    if undoing.how == Some("pushback") && undoing.correction.is_none() && !pushback_undid(cx, claim, &undoing) {
        return None;
    }
    if let Some(h) = undoing.how {
        situations.push(h);
    }
    if undoing.correction.is_some() {
        situations.push("corrected");
    }
    Some(BeliefFacts {
        situations,
        seed: key,
        believed,
        rested_on,
        acted,
        acted_more,
        undone: undoing.quote,
        undone_how: undoing.how,
        undone_step: undoing.step,
        correction: undoing.correction,
        outcome: came.step,
        next_pushback: came.next_pushback,
        next_claim: came.next_claim,
        user_next: came.user_next,
        ends: came.ends,
    })
}

/// The call of the claim's message whose output holds the claim, when the assistant's
/// own words do not: a verdict its script printed (a poll loop's `CRASHED`), told as
/// printed, never as said.
fn printed_by(cx: &Context, claim: &Cited) -> Option<Step> {
    let m = cx.session.message(claim.idx)?;
    let probe: String = claim.text.trim().trim_end_matches('…').trim_end().chars().take(60).collect();
    if probe.is_empty() || m.text.contains(probe.as_str()) {
        return None;
    }
    m.calls
        .iter()
        .zip(cx.facts_of(m))
        .rev()
        .find(|(c, _)| c.result.as_ref().is_some_and(|r| r.output.contains(probe.as_str())))
        .map(|(_, f)| step(claim.idx, f))
}

/// Of what the claimed message says, the sentence what undid it is about: the one
/// sharing the most words with the user's answer or the retraction (the detector's
/// own pick when none shares more). A report's finding is often a heading or a list
/// item (“No Password Required for Admin Account”): one counts when it holds what the
/// undoing quotes (“I was WRONG about "no password"”) and the prose does not.
fn believed(cx: &Context, claim: &Cited, undone: Option<&Undoing>) -> Quote {
    let against = undone.map(|u| content_words(&u.text)).unwrap_or_default();
    let overlap = |t: &str| content_words(t).intersection(&against).count();
    let Some(m) = cx.session.message(claim.idx) else {
        return Quote { idx: claim.idx, text: claim.text.clone() };
    };
    // Never put as a condition (“If you later enable Pages, we can switch the badge”),
    // and sharing more than the detector's own pick.
    let apt = |t: &String| {
        !["If ", "When ", "Once ", "Should "].iter().any(|c| t.starts_with(c)) && overlap(t) > overlap(&claim.text)
    };
    let prose = claims::statements(&m.text, QUOTE)
        .into_iter()
        // A belief is stated, not asked, planned or offered.
        .filter(|st| !matches!(st.kind, claims::Kind::Question | claims::Kind::Plan))
        .map(|st| st.text)
        .filter(|t| t.trim_end().ends_with(['.', '!', ':', '”', '"', ')']))
        .filter(apt)
        .max_by_key(|t| overlap(t));
    // Of the headings and list items, only one holding a phrase the undoing quotes
    // (“I was WRONG about "no password"”), the first sharing the most: a finding's
    // heading comes before the advice that repeats its words. (Sharing words alone is
    // not enough: a long answer shares some with every item of a recap.) Nor a
    // question, a plan or a lead-in (“Next step:”).
    let quoted = undone.map(|u| quoted_phrases(&u.text)).unwrap_or_default();
    let holds = |t: &str| {
        let t = t.to_lowercase();
        quoted.iter().any(|p| t.contains(p.as_str()))
    };
    let item = claims::structure_items(&m.text, QUOTE)
        .into_iter()
        .filter(|t| !t.trim_end().ends_with(['?', ':']) && claims::classify(t) != claims::Kind::Plan)
        .filter(|t| apt(t) && holds(t))
        .fold(None::<String>, |b, t| match b {
            Some(b) if overlap(&b) >= overlap(&t) => Some(b),
            _ => Some(t),
        });
    // Prose first, unless only the item holds the quoted phrase.
    let said = match (prose, item) {
        (Some(p), Some(i)) if !holds(&p) => Some(i),
        (Some(p), _) => Some(p),
        (None, i) => i,
    };
    said.map_or_else(|| Quote { idx: claim.idx, text: claim.text.clone() }, |text| Quote { idx: claim.idx, text })
}

/// The phrases `text` puts in quotes (`"no password"`, “no password”), lower case; at
/// least four characters each.
fn quoted_phrases(text: &str) -> Vec<String> {
    static QUOTED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#""([^"]{4,80})"|“([^”]{4,80})”"#).expect("static regex"));
    QUOTED
        .captures_iter(text)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .map(|m| m.as_str().trim().to_lowercase())
        .collect()
}

/// The last call that returned before the claim was made, since the user's last turn:
/// the last shell run; of those, the last whose command shares a word with what was
/// said (`pytest` for "pytest -q → 17 passed"), or a test run for a claim about tests
/// — and whether it was one of those.
fn run_before(cx: &Context, claim: &Cited, believed: &Quote) -> (Option<Step>, bool) {
    let s = cx.session;
    let since = s.messages[..s.messages.partition_point(|m| m.idx < claim.idx)]
        .iter()
        .rev()
        .find(|m| m.is_typed_user())
        .map_or(0, |m| m.idx);
    let said = content_words(&believed.text);
    let about_tests = said.iter().any(|w| w.starts_with("test") || w.starts_with("pass"));
    let runs: Vec<Step> = steps_between(cx, since, claim.idx)
        .into_iter()
        .filter(|st| st.status != "unknown" && st.command.is_some() && !matches!(st.action, "edit" | "write"))
        .collect();
    let shares = |st: &Step| {
        (about_tests && st.action == "test")
            || st.command.as_deref().is_some_and(|c| !content_words(c).is_disjoint(&said))
    };
    match runs.iter().rev().find(|st| shares(st)) {
        Some(st) => (Some(st.clone()), true),
        None => (runs.last().cloned(), false),
    }
}

/// What undid the belief, and the assistant's correction. A retraction is the
/// correction; what undid it is what came right before: a pushback on the same claim,
/// else the user's last turn since the claim, else a failed call. Anything else undid
/// it itself, and the correction is the assistant's retraction before the user's next turn.
fn undoing(cx: &Context, beliefs: &[Belief], claim: &Cited, undone: Option<&Undoing>) -> Undone {
    let s = cx.session;
    let Some(u) = undone else { return Undone::default() };
    if u.how == "retraction" {
        let mut out = Undone { correction: Some(Quote { idx: u.idx, text: u.text.clone() }), ..Undone::default() };
        let push = beliefs.iter().find(|(_, c, v)| {
            c.idx == claim.idx && v.is_some_and(|v| v.how == "pushback" && v.idx > claim.idx && v.idx < u.idx)
        });
        let user = s.messages
            [s.messages.partition_point(|m| m.idx <= claim.idx)..s.messages.partition_point(|m| m.idx < u.idx)]
            .iter()
            .rev()
            .find(|m| m.is_typed_user());
        if let Some((_, _, Some(v))) = push {
            out.quote = Some(Quote { idx: v.idx, text: v.text.clone() });
            out.how = Some("pushback");
        } else if let Some(m) = user {
            out.quote = Some(Quote { idx: m.idx, text: sentences(&request_text(&m.text), 1, QUOTE) });
            out.how = Some("user");
        } else if let Some(st) = steps_between(cx, claim.idx, u.idx).into_iter().rev().find(|st| st.status == "failed")
        {
            out.how = Some("failure");
            out.step = Some(st);
        }
        return out;
    }
    let how = match u.how.as_str() {
        "pushback" => "pushback",
        "progress" => "progress",
        "ready" => "ready",
        _ => "alive",
    };
    // The assistant's retraction of it, before the user's next turn.
    let (after, before) = (u.idx.saturating_sub(1), next_typed(cx, u.idx).map(|m| m.idx));
    let retraction = beliefs.iter().find(|(g, c, r)| {
        r.is_some_and(|r| r.how == "retraction" && r.idx > after && before.is_none_or(|b| r.idx < b))
            && (c.idx == claim.idx || g.key > after)
    });
    Undone {
        quote: Some(Quote { idx: u.idx, text: u.text.clone() }),
        how: Some(how),
        step: None,
        correction: retraction.and_then(|(_, _, r)| *r).map(|r| Quote { idx: r.idx, text: r.text.clone() }),
    }
}

/// A pushback the assistant did not take back undid the claim only when it disputes
/// it and answers it: a turn of the user's that neither names what was said nor says
/// something failed or is wrong is a new request (“So many warnings in the log” after
/// “All 198 tests pass”); so is a pushback after another request of the user's since
/// the claim, which answers what that request started.
fn pushback_undid(cx: &Context, claim: &Cited, undoing: &Undone) -> bool {
    static NAY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\W*(?:no|nope|wrong)\b|\b(?:still|not|never|didn'?t|doesn'?t|isn'?t|fail\w*|error\w*|broke\w*|wrong)\b")
            .expect("static regex")
    });
    let s = cx.session;
    let Some(q) = &undoing.quote else { return false };
    let asked_between = s.messages
        [s.messages.partition_point(|m| m.idx <= claim.idx)..s.messages.partition_point(|m| m.idx < q.idx)]
        .iter()
        .any(|m| m.is_typed_user());
    let disputes = NAY.is_match(&q.text) || !content_words(&q.text).is_disjoint(&content_words(&claim.text));
    !asked_between && disputes
}

/// What came of the correction `x`: the last command that returned from what undid it
/// to the user's next turn after the correction (an agent often fixes first and says so
/// after); that turn, when it disputes the next claim; or the session's end.
fn outcome(cx: &Context, beliefs: &[Belief], claim: &Cited, x: &Quote, undone_idx: Option<u32>) -> Outcome {
    let s = cx.session;
    let next_user = next_typed(cx, x.idx);
    let step = steps_between(cx, undone_idx.unwrap_or(claim.idx).min(x.idx), next_user.map_or(u32::MAX, |m| m.idx))
        .into_iter()
        .rev()
        .find(|st| st.status != "unknown" && st.command.is_some());
    let pushed = next_user.and_then(|n| {
        beliefs.iter().find(|(_, c, v)| c.idx >= x.idx && v.is_some_and(|v| v.how == "pushback" && v.idx == n.idx))
    });
    let (next_pushback, next_claim) = match pushed {
        Some((_, c, Some(v))) => {
            (Some(Quote { idx: v.idx, text: v.text.clone() }), Some(Quote { idx: c.idx, text: c.text.clone() }))
        }
        _ => (None, None),
    };
    Outcome {
        step,
        next_pushback,
        next_claim,
        ends: s.messages.last().is_none_or(|m| m.idx <= x.idx),
        user_next: next_user.is_some(),
    }
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
fn steps_between(cx: &Context, from: u32, to: u32) -> Vec<Step> {
    let s = cx.session;
    let (a, b) = (s.messages.partition_point(|m| m.idx <= from), s.messages.partition_point(|m| m.idx < to));
    s.messages[a..b.max(a)]
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| cx.facts_of(m).iter().map(move |c| step(m.idx, c)))
        .collect()
}

/// The first typed user turn after `idx`.
fn next_typed<'a>(cx: &Context<'a>, idx: u32) -> Option<&'a Message> {
    let s = cx.session;
    s.messages[s.messages.partition_point(|m| m.idx <= idx)..].iter().find(|m| m.is_typed_user())
}
