//! `self-correction`: the assistant explicitly retracts a conclusion of its own ("it
//! didn't crash", "I was wrong", "my grep matched X, not an actual error").

use std::sync::LazyLock;

use regex::Regex;

use super::liveness;
use super::statements::{clause_before, hedged, prose, quote_from, sentences};
use super::{Detector, Finding, SessionView};
use crate::model::{Message, Role};

pub struct SelfCorrection;

/// How far back the retracted claim may be.
const CLAIM_WINDOW: usize = 60;
/// A second explicit retraction this close after another restates it.
const REPEAT_WINDOW: usize = 8;

const DOC: &str = r#"
## What it finds

An assistant message that explicitly retracts or corrects a conclusion of the
assistant's own:

- plain admissions: "I was wrong", "I was mistaken", "I stand corrected", "my
  mistake", "I misread …", "I incorrectly assumed …", "contrary to what I said",
  "I jumped to conclusions", "my earlier diagnosis was wrong", "my previous answer was
  incorrect";
- a check of its own disowned: "my crash-detection grep matched 'Exception' in import
  lines, not an actual error";
- a crash verdict taken back — "it didn't crash", "it's still loading!", "that was a
  false alarm" — when the assistant (or a check it ran) declared the crash earlier.

The key message is the retraction. The evidence includes the messages holding the
retracted claim when it can be found: the crash verdicts since the last relaunch, or for
an admission the message the person quoted or pushed back on (else the assistant's last
statement before it).

## Why it matters

Self-corrections mark where the session's understanding changed: everything between
the claim and the retraction was built on a wrong premise. They are the moments a
write-up should explain, and a run of them says the agent concludes too early.

## Example

```text
[msg 5081] poll loop -> CRASHED
[msg 5085] "It's still loading! It didn't crash — my 'crash detection' grep matched
           'Exception' in the import error lines, not in an actual error."   <- key
```

## Not an instance

- Correcting the user ("actually, the file is in src/"), or ordinary "actually, let's
  also …" phrasing: no retraction of the assistant's own conclusion.
- "It didn't crash this time" after a fix and relaunch: a new result, not a retraction.
- "It's still loading, let me wait" with no earlier crash verdict to take back.
- Apologies for "the mistake in my previous response": in real sessions they mostly
  follow an edit-format error (a malformed SEARCH/REPLACE block), not a wrong conclusion.
- Retractions quoted in code blocks or block quotes, hedged or asked ("if I was wrong…",
  "was I wrong?"), and the same retraction repeated a few messages later.
"#;

static ADMISSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bI\s+(?:was|am|'m)\s+(?:wrong|mistaken|incorrect)\b",
        r"|\bI\s+stand\s+corrected\b",
        r"|\bmy\s+(?:mistake|bad)\b",
        r"|\bI\s+(?:misread|misinterpreted|misdiagnosed|misjudged|misspoke|miscounted|misattributed)\b",
        r"|\bI\s+(?:incorrectly|wrongly|mistakenly|erroneously)\s+(?:said|stated|assumed|concluded|thought|claimed|reported|identified|attributed|blamed|diagnosed|called|treated|read)\b",
        r"|\bscratch\s+that\b|\bI\s+retract\b",
        r"|\bmy\s+(?:previous|earlier|last|prior)\s+(?:response|answer|message|reply|explanation|analysis)\s+(?:was|is)\s+(?:wrong|incorrect|mistaken|inaccurate)\b",
        r"|\bcontrary\s+to\s+what\s+I\s+(?:said|thought|stated|wrote|claimed)\b",
        r"|\bI\s+jumped\s+to\s+(?:a\s+|the\s+)?conclusions?\b",
        r"|\bI\s+was\s+too\s+quick\s+to\b",
        r"|\bmy\s+(?:earlier|previous|initial|original|first)\s+(?:conclusion|diagnosis|assumption|claim|statement|analysis|reading|assessment|theory|explanation)\s+(?:was|is)\s+(?:wrong|incorrect|mistaken|premature|off|not right)\b",
        r"|\bmy\s+(?:[\w'‘’-]+\s+){0,3}(?:grep|check|regex|pattern|detection|detector|test|script|loop|probe|health\s?check|alert|monitor)\b[^.!?]{0,80}?\b(?:matched|caught|picked up|flagged|triggered on)\b[^.!?]{0,120}?\bnot\s+(?:an?\s+|in\s+an?\s+)?(?:actual|real|genuine)\b",
    ))
    .expect("admission regex is valid")
});
/// A retraction sentence about a crash verdict: attach the crash claims as evidence.
static CRASH_TOPIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)crash|\bdied\b|\bdead\b|alive|still\s+(?:loading|running|starting)|false\s+(?:alarm|positive)|detection",
    )
    .expect("crash-topic regex is valid")
});

/// How far back, in messages, an admission's claim is looked for.
const STATED_WINDOW: usize = 30;

/// Sentences that announce a step rather than state a finding.
static PLAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:let me|let's|i'll|i will|i'm going to|now|first|next|then|ok|okay|sure|great|alright|good)\b")
        .expect("plan regex is valid")
});

/// A sentence of the message that states something (not a plan, not a question).
fn states_something(m: &Message) -> bool {
    let p = prose(&m.text);
    sentences(&p).iter().any(|(s, end)| *end != Some('?') && !PLAN.is_match(s) && s.split_whitespace().count() >= 4)
}

/// The earlier assistant message whose claim an admission takes back. When the person
/// pushed back in between, the claim is what they pushed back on: the assistant message
/// holding the text they quoted (`> …`), else the nearest statement before their turn.
/// Otherwise it is the nearest statement before the admission. Plans ("let me …") and
/// questions are not claims.
fn stated_claim(msgs: &[Message], i: usize) -> Option<usize> {
    let lo = i.saturating_sub(STATED_WINDOW);
    let pushback = (lo..i).rev().find(|&j| msgs[j].is_typed_user());
    let before = pushback.unwrap_or(i);
    if let Some(u) = pushback {
        let quoted: Vec<String> = msgs[u]
            .text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix('>'))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| l.len() >= 20)
            .collect();
        if !quoted.is_empty()
            && let Some(j) = (lo..u).rev().find(|&j| {
                let flat = msgs[j].text.split_whitespace().collect::<Vec<_>>().join(" ");
                msgs[j].role == Role::Assistant && quoted.iter().any(|q| flat.contains(q.as_str()))
            })
        {
            return Some(j);
        }
    }
    (lo..before).rev().find(|&j| {
        let n = &msgs[j];
        n.role == Role::Assistant && retraction(n).is_none() && states_something(n)
    })
}

/// The sentence in which the assistant plainly admits a wrong conclusion.
fn admission(text: &str) -> Option<String> {
    let p = prose(text);
    for (s, end) in sentences(&p) {
        if end == Some('?') {
            continue;
        }
        if let Some(m) = ADMISSION.find(s)
            && !hedged(clause_before(s, m.start()))
        {
            return Some(s.to_string());
        }
    }
    None
}

/// A retraction in this message: (the sentence, whether it needs an earlier claim).
fn retraction(m: &Message) -> Option<(String, bool)> {
    if m.role != Role::Assistant {
        return None;
    }
    let admitted = admission(&m.text);
    let crash = liveness::crash_retraction(&m.text);
    match (admitted, crash) {
        // Quote from whichever comes first; an admission needs no earlier claim.
        (Some(a), Some(c)) => {
            let p = prose(&m.text);
            let first = if p.find(&c) < p.find(&a) { c } else { a };
            Some((first, false))
        }
        (Some(a), None) => Some((a, false)),
        (None, Some(c)) => Some((c, true)),
        (None, None) => None,
    }
}

impl Detector for SelfCorrection {
    fn id(&self) -> &'static str {
        "self-correction"
    }

    fn summary(&self) -> &'static str {
        "The assistant explicitly retracted a conclusion of its own (\"it didn't crash\", \"I was wrong\")"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        let msgs = view.messages;
        for (i, m) in msgs.iter().enumerate() {
            let Some((sentence, needs_claim)) = retraction(m) else { continue };
            let about_crash = needs_claim || CRASH_TOPIC.is_match(&sentence);
            // The crash verdicts this takes back, newest first, back to the last relaunch;
            // and whether another message already retracted them.
            let mut claims = Vec::new();
            let mut retracted_before = None;
            for (j, n) in msgs[..i].iter().enumerate().rev().take(CLAIM_WINDOW) {
                if n.role != Role::Assistant {
                    continue;
                }
                if let Some(a) = liveness::alarm(n)
                    && liveness::crash_retraction(&n.text).is_none()
                {
                    claims.push((j, a));
                } else if claims.is_empty()
                    && retracted_before.is_none()
                    && let Some((s, weak)) = retraction(n)
                    && (weak || CRASH_TOPIC.is_match(&s)) == about_crash
                {
                    // An earlier retraction on the same topic: this one repeats it.
                    retracted_before = Some(j);
                }
                if liveness::relaunches(n) {
                    break;
                }
            }
            if !about_crash {
                claims.clear();
            }
            if needs_claim && claims.is_empty() {
                continue;
            }
            let repeated = match retracted_before {
                Some(_) if !claims.is_empty() => true,
                Some(j) => i - j <= REPEAT_WINDOW,
                None => false,
            };
            if repeated {
                continue;
            }
            let q = quote_from(&m.text, &sentence, 110);
            let plural = |n: u32| if n == 1 { "" } else { "s" };
            let stated = if claims.is_empty() { stated_claim(msgs, i) } else { None };
            let summary = match (claims.last(), stated) {
                (Some((j, a)), _) => {
                    let ago = m.idx.saturating_sub(msgs[*j].idx);
                    format!("retracts the crash verdict of {ago} message{} earlier ({}): \"{q}\"", plural(ago), a.what)
                }
                (None, Some(j)) => {
                    let ago = m.idx.saturating_sub(msgs[j].idx);
                    format!("retracts its claim of {ago} message{} earlier: \"{q}\"", plural(ago))
                }
                (None, None) => format!("retracts an earlier conclusion: \"{q}\""),
            };
            let mut evidence: Vec<u32> = claims.iter().map(|(j, _)| msgs[*j].idx).collect();
            evidence.extend(stated.map(|j| msgs[j].idx));
            evidence.push(m.idx);
            evidence.sort_unstable();
            out.push(Finding { detector: self.id().into(), key: m.idx, evidence, summary, command: None });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::fixture::{self, bash as ran};

    fn said(idx: u32, text: &str) -> Message {
        fixture::said(idx, Role::Assistant, text)
    }

    fn run(msgs: &[Message]) -> Vec<Finding> {
        fixture::check(&SelfCorrection, msgs)
    }

    #[test]
    fn retracting_a_crash_verdict_cites_it() {
        let poll = "for i in $(seq 1 9); do if grep -q Exception x.log; then echo CRASHED; break; fi; sleep 9; done";
        let msgs = vec![
            ran(81, poll, "CRASHED\n"),
            said(83, "The server crashed during model loading."),
            said(84, "Let me look at the end of the log."),
            said(
                85,
                "It's still loading! It didn't crash — my grep matched 'Exception' in import lines, not an actual error.",
            ),
            said(87, "Summary: the crash detection was a false positive."),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].key, 85);
        assert_eq!(f[0].evidence, vec![81, 83, 85]);
        assert!(
            f[0].summary.starts_with(
                "retracts the crash verdict of 4 messages earlier (a poll loop printed CRASHED on grep 'Exception' x.log)"
            ),
            "{}",
            f[0].summary
        );
    }

    #[test]
    fn an_admission_on_another_topic_does_not_hide_a_crash_retraction() {
        let poll =
            "for i in $(seq 1 9); do if pgrep -f server >/dev/null; then :; else echo DIED; break; fi; sleep 9; done";
        let msgs = vec![
            ran(1, poll, "DIED\n"),
            said(2, "I was wrong about the port earlier: it is 8080."),
            said(3, "It didn't crash — pgrep matched nothing because the process is named python."),
        ];
        let keys: Vec<u32> = run(&msgs).iter().map(|f| f.key).collect();
        assert_eq!(keys, vec![2, 3]);
    }

    #[test]
    fn plain_admissions_need_no_claim() {
        let f = run(&[said(3, "You're right, I was wrong: the port is 8080, not 8000.")]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence, vec![3]);
        assert_eq!(
            f[0].summary,
            "retracts an earlier conclusion: \"You're right, I was wrong: the port is 8080, not 8000.\""
        );
    }

    #[test]
    fn an_admission_cites_the_claim_the_person_pushed_back_on() {
        let msgs = vec![
            said(2, "The retry storm comes from deliver() ignoring retry_after."),
            said(3, "The loop in run() looks fine to me."),
            Message {
                idx: 4,
                role: Role::User,
                text: "> comes from deliver() ignoring retry_after\n\nLook again.".into(),
                ..Message::default()
            },
            said(5, "I misread the code earlier: `deliver()` honours `retry_after`; `run()` resets the attempt."),
        ];
        let f = run(&msgs);
        assert_eq!(f[0].evidence, vec![2, 5]);
        assert!(f[0].summary.starts_with("retracts its claim of 3 messages earlier: \"I misread"), "{}", f[0].summary);
    }

    #[test]
    fn near_misses() {
        let msgs = vec![
            said(1, "Actually, let's also add a test for the empty case."),
            said(2, "Actually, the config file is in src/, not in the root as you said."),
            said(3, "The server is still loading, let me wait."),
            said(4, "It didn't crash this time — the fix works."),
            said(5, "If I was wrong about the port, the curl will fail."),
            said(6, "```\n# I was wrong\n```"),
            // Aider's models say this mostly after an edit-format error, not a wrong conclusion.
            said(
                7,
                "I apologize for the mistake in my previous response. Let me provide the correct SEARCH/REPLACE block.",
            ),
        ];
        assert!(run(&msgs).is_empty());
    }
}
