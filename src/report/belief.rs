//! What was believed and what undid it: the section of a write-up built from the
//! findings' [`Details::Belief`] and the transcript around them.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::context::{Context, QUOTE, Quote, request_text};
use crate::analysis::call_facts::CallFacts;
use crate::analysis::claims;
use crate::analysis::text::sentences;
use crate::detect::{Details, Finding};
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

/// What was believed and what undid it: the belief a finding of this episode found
/// (keyed here, or whose claim is here), with the parts other findings and the
/// transcript show — the run before it, what was done on it, the correction and what
/// came of it. Nothing is guessed: a part no message shows is left out.
pub(super) fn belief(cx: &Context, key: u32, lead: Option<&Finding>) -> Option<BeliefFacts> {
    let s = cx.session;
    let beliefs: Vec<(&Finding, &crate::detect::Cited, Option<&crate::detect::Undoing>)> = cx
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
            .and_then(|m| cx.facts_of(m).iter().rev().find(|c| c.output.is_some()))
            .map(|c| step(claim.idx, c))
    } else {
        // The last shell run; of those, the last whose command shares a word with
        // what was said (`pytest` for "pytest -q → 17 passed"), or a test run for a
        // claim about tests.
        let said = words(&believed.text);
        let about_tests = said.iter().any(|w| w.starts_with("test") || w.starts_with("pass"));
        let runs: Vec<Step> = steps_between(cx, since, claim.idx)
            .into_iter()
            .filter(|st| st.status != "unknown" && st.command.is_some() && !matches!(st.action, "edit" | "write"))
            .collect();
        let shares = |st: &Step| {
            (about_tests && st.action == "test") || st.command.as_deref().is_some_and(|c| !words(c).is_disjoint(&said))
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
                steps_between(cx, claim.idx, u.idx).into_iter().rev().find(|st| st.status == "failed")
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
            let next_user = next_typed(cx, u.idx).map(|m| m.idx);
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
        .map(|u| steps_between(cx, claim.idx, u))
        .unwrap_or_default()
        .into_iter()
        .filter(|st| !matches!(st.action, "read" | "search"))
        .collect();
    let acted_more = acted_all.len().saturating_sub(3);
    let acted: Vec<Step> = acted_all.into_iter().take(3).collect();

    // What came of the correction: the last command that returned from what undid it to
    // the user's next turn after the correction (an agent often fixes first and says
    // so after); that turn, when it disputes the next claim; or the session's end.
    let (mut outcome, mut next_pushback, mut next_claim, mut ends, mut user_next) = (None, None, None, false, false);
    if let Some(x) = &correction {
        let next_user = next_typed(cx, x.idx);
        user_next = next_user.is_some();
        outcome = steps_between(cx, undone_idx.unwrap_or(claim.idx).min(x.idx), next_user.map_or(u32::MAX, |m| m.idx))
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
        s.messages[s.messages.partition_point(|m| m.idx <= claim.idx)..s.messages.partition_point(|m| m.idx < q.idx)]
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
