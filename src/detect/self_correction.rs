//! `self-correction`: the assistant takes back a conclusion of its own — in so many
//! words ("it didn't crash", "I was wrong", "my grep matched X, not an actual error"),
//! by conceding the person's pushback ("You're right: the editor only had Start/End"),
//! by turning round on the step it just took ("Wait, that won't work"), or by denying
//! its own statement of a moment ago ("The YubiKey is NOT locked out").

use std::sync::LazyLock;

use regex::Regex;

use super::{Cited, Details, Detector, Finding, SessionView, Telling, Undoing};
use crate::analysis::calls;
use crate::analysis::claims::{Kind as Claim, first_of};
use crate::analysis::liveness;
use crate::analysis::statements::{CONCEDE, clause_before, hedged, prose, quote_from, sentence_quote, sentences};
use crate::analysis::text::content_words;
use crate::model::{Message, Role};

pub struct SelfCorrection;

/// How far back the retracted claim may be.
const CLAIM_WINDOW: usize = 60;
/// A second explicit retraction this close after another restates it.
const REPEAT_WINDOW: usize = 8;

const DOC: &str = r#"
## What it finds

An assistant message that takes back a conclusion of the assistant's own, in any of
the ways real sessions do it:

- plain admissions: "I was wrong", "I was mistaken", "I stand corrected", "my
  mistake", "I misread …", "I incorrectly assumed …", "contrary to what I said",
  "I jumped to conclusions", "my earlier diagnosis was wrong", "my previous answer was
  incorrect", an assessment revised against its first one ("more serious than
  initially thought"), a planned fix taken back ("My apologies, resetTimer was already
  correct"), its own report narrowed ("I only spawned the red one initially");
- a check of its own disowned: "my crash-detection grep matched 'Exception' in import
  lines, not an actual error";
- a crash verdict taken back — "it didn't crash", "it's still loading!", "that was a
  false alarm" — when the assistant (or a check it ran) declared the crash earlier;
- a concession after the person pushes back: the first answer to their turn opens
  with "You're right" (你说得对, おっしゃる通り, tienes razón, du hast recht, vous avez
  raison, …) and goes on to admit a fault of its own claim or work ("You're right: that
  text is the CLI's status output, not the HTML", "You were right — I … missed
  updating set_defaults"), with an earlier statement of the assistant's to take back;
- a reversal of the step it just took, opening the next message: "Wait, that won't
  work for an interactive session", "Actually, looking at your screenshot more
  carefully, …", "On second thought, …" (等等，这样不行; espera, eso no funciona);
- a contradiction of its own recent statement about the same thing: "The YubiKey is
  NOT locked out" after "… the PIV PIN on your YubiKey is locked out", "the server is
  actually running" after "the server is not running", "The 1Password agent has the
  keys" after "the 1Password SSH agent still has no keys loaded" (then only looks may
  stand between the two: nothing was done that could have given it the keys) — with no
  turn of the person's and no relaunch in between (either could have changed the facts).
- a diagnosis of its own taken back with no cue word: a suspect it named cleared ("The
  config looks correct: dnsmasq → blocky:5335" after "Root cause found! Port 53 is bound
  to dnsmasq", 所以问题不在这里 after its own 核心问题), with nothing edited or relaunched in
  between, or revisited by a sentence opening "Actually, …" ("Actually, … Offline is
  preferred" after "its status is Offline. This is why the mount command failed");
- its own change owned up to after the person reports damage: "my regex replacement
  corrupted the file encoding", 但我把它們都刪掉了 ("but I deleted them all").

Only what the assistant says counts, not its reasoning (the `thinking` of formats
that record it): reasoning revises hypotheses all the time ("actually wait, let me look
more carefully"), and the conclusion a write-up cares about is the one the person was
told. When a retraction in reasoning is real, the reply says it too.

The key message is the retraction. The evidence includes the messages holding the
retracted claim when it can be found: the crash verdicts since the last relaunch; the
person's turn a concession answers and the claim they pushed back on (the message they
quoted, else the assistant's last statement before their turn); the step a reversal
takes back; the statement a contradiction denies; for an admission the assistant's last
statement before it.

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
- "You're right, we should use GET" (accepting a request), "Yes, you're right, rich
  has a safe print" (agreeing, nothing taken back), "You're right to be concerned: the
  current implementation does not …" (a worry granted about code it did not claim).
- "It didn't crash this time" after a fix and relaunch: a new result, not a retraction.
- "It's still loading, let me wait" with no earlier crash verdict to take back; "X is
  NOT Y" with no earlier statement of the assistant's that X is Y.
- Apologies for "the mistake in my previous response": in real sessions they mostly
  follow an edit-format error (a malformed SEARCH/REPLACE block), not a wrong conclusion;
  "I made a mistake by using backtick-n in the files" admits a faulty edit, not a claim.
- "The config looks correct now" after its own fix of the config; "这是对的，因为…" (an
  affirmation); "I removed the debug logs" with no report of the person's to answer.
- Retractions quoted in code blocks or block quotes, hedged or asked ("if I was wrong…",
  "was I wrong?"), and the same retraction repeated a few messages later.
"#;

static ADMISSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bI\s*(?:was|am|['’]m)\s+(?:wrong|mistaken|incorrect)\b",
        r"|\bI\s+stand\s+corrected\b",
        r"|\bmy\s+(?:mistake|bad)\b",
        r"|\bI\s+(?:misread|misinterpreted|misdiagnosed|misjudged|misspoke|miscounted|misattributed)\b",
        r"|\bI\s+(?:incorrectly|wrongly|mistakenly|erroneously)\s+(?:said|stated|assumed|concluded|thought|claimed|reported|identified|attributed|blamed|diagnosed|called|treated|read)\b",
        r"|\bscratch\s+that\b|\bI\s+retract\b",
        r"|\bmy\s+(?:previous|earlier|last|prior)\s+(?:response|answer|message|reply|explanation|analysis)\s+(?:was|is)\s+(?:wrong|incorrect|mistaken|inaccurate)\b",
        r"|\bcontrary\s+to\s+what\s+I\s+(?:said|thought|stated|wrote|claimed)\b",
        r"|\bI\s+jumped\s+to\s+(?:a\s+|the\s+)?conclusions?\b",
        r"|\bI\s+was\s+too\s+quick\s+to\b",
        r"|\b(?:my|the)\s+(?:earlier|previous|initial|original|first)\s+(?:conclusion|diagnosis|assumption|claim|statement|analysis|reading|assessment|theory|explanation|suggestion|recommendation|estimate)\s+(?:was|is)\s+(?:wrong|incorrect|mistaken|premature|off|not right)\b",
        r"|\bmy\s+(?:[\w'‘’-]+\s+){0,3}(?:grep|check|regex|pattern|detection|detector|test|script|loop|probe|health\s?check|alert|monitor)\b[^.!?]{0,80}?\b(?:matched|caught|picked up|flagged|triggered on)\b[^.!?]{0,120}?\bnot\s+(?:an?\s+|in\s+an?\s+)?(?:actual|real|genuine)\b",
        // An assessment revised against its own first one: "more serious than initially thought".
        r"|\bthan\s+(?:I\s+|we\s+)?(?:had\s+)?(?:initially|originally|first|previously|earlier)\s+(?:thought|assumed|believed|reported|estimated|stated|claimed|said)\b",
        r"|\bthan\s+I\s+(?:had\s+)?(?:reported|claimed|stated)\b",
        // A planned fix taken back: "My apologies, resetTimer was already correct."
        r"|\b(?:my\s+apologies|I\s+apologi[sz]e|sorry)\b[^.!?]{0,80}?\b(?:was|were|is|are)\s+(?:already|actually)\s+(?:correct|fine|right|working|in\s+place|present|there)\b",
        // Its own earlier report narrowed: "I only spawned the red one initially".
        r"|\bI\s+(?:had\s+)?only\s+[a-z]+ed\b[^.!?]{0,60}?\b(?:initially|at\s+first|originally|earlier)\b",
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

/// What a concession goes on to admit about the assistant's own work or claim: a
/// negation, a limit, a miss ("not the HTML itself", "only had Start/End", "missed").
static FAULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bnot\b|n['’]t\b|\bno\b|\bonly\b|\bnever\b|\bmissed\b|\bmissing\b|\boverlooked\b|\bforgot\b|\bwrong(?:ly)?\b",
        r"|\bincorrect(?:ly)?\b|\bbroke(?:n)?\b|\bmistake|\bmisread|\bduplicat|\binstead\s+of\b|\brather\s+than\b|\bshould\s+have\b",
        r"|\b(?:we|I)\s+had\b",
        r"|不|没|沒|错|錯|漏|只|并非|並非|ない|ません|ではなく|間違",
        r"|\bsolo\b|\bs[oó]lo\b|\bnicht\b|\bkein\w*|\bnur\b|\bfalsch\b|\bpas\b|\bseulement\b|\bnon\b|\bsbagli\w*|\bn[aã]o\b|\bне\b|\bтолько\b|ошиб",
    ))
    .expect("fault regex is valid")
});
/// A concession that goes on to what will be done ("you're right, we should use get";
/// "You're right to start now. I'm going to add …"): it accepts a request, it does not
/// take back a claim.
static FORWARD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)^(?:(?:so|then|and)\s+)?(?:we|I|you)\s*(?:should|shouldn['’]t|need|needn['’]t|must|['’]ll|will|can|could|have\s+to|ought",
        r"|(?:['’]m|am|['’]re|are)\s+going\s+to)\b",
        r"|^(?:let['’]s|let\s+me)\b|^(?:我们|我們|我)(?:应该|應該|需要|会|會|来|來|可以|马上|馬上)|^(?:让我|讓我)",
    ))
    .expect("forward regex is valid")
});
/// Words that make a sentence about the assistant's own earlier work, or a second look.
static OWN_WORK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:I|my|we|our)\b|\blooking\s+at\s+(?:it|this|that)\s+again\b|\bon\s+(?:a\s+)?(?:second|closer)\s+(?:thought|look)\b")
        .expect("own-work regex is valid")
});
/// What may stand between "You're right" and what it concedes.
static CONCEDE_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^[\s,:;.!！，：—–-]*(?:(?:and|that|but)\s+)?(?:(?:I\s+apologi[sz]e|sorry)[^,:;.!—–-]*[,:;.!—–-]+\s*)?",
    )
    .expect("concession-lead regex is valid")
});

/// The assistant turning round on the step it just took: "Wait, that won't work",
/// "Actually, looking at your screenshot more carefully, …", "On second thought, …".
static REVERSAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)^(?:(?:actually|wait|hmm+|oh|ah|oops|no)\b[\s,.!—–-]*)+(?:",
        r"(?:looking|having\s+looked|looked)\s+(?:at\s+[^,.;:!?]{1,40}?\s+)?(?:again|more\s+(?:carefully|closely)|closer)\b",
        r"|on\s+(?:a\s+)?(?:closer|second)\s+(?:look|inspection|thought|reading)\b|re-?reading\b",
        r"|(?:that|this|it)(?:['’]s|\s+is|\s+was)?\s+(?:won['’]t|will\s+not|wouldn['’]t|doesn['’]t|does\s+not|isn['’]t|is\s+not|wasn['’]t|was\s+not|can['’]t|cannot)\s+(?:\w+\s+)?(?:work|right|correct|true|help)\b",
        r"|(?:that|this)(?:['’]s|\s+is|\s+was)\s+(?:wrong|incorrect|not\s+(?:right|correct|true))\b)",
        r"|^on\s+(?:a\s+)?(?:closer|second)\s+(?:look|inspection|thought|reading)\b",
        r"|^(?:等等|等一下|不对|不對|其实|其實)[，,、\s]*(?:这|這|那)?(?:样|樣)?(?:不行|行不通|不对|不對|是错|是錯)",
        r"|^(?:待って|いや)[、,\s]*(?:それ|これ)?(?:は|では)?(?:うまくいかない|違う|間違)",
        r"|^(?:espera|en\s+realidad)[,\s]+(?:eso|esto)\s+no\s+(?:funciona|va\s+a\s+funcionar|es\s+correcto)",
        r"|^(?:moment|warte|eigentlich)[,\s]+(?:das|so)\s+(?:funktioniert|klappt|stimmt)\s+nicht",
    ))
    .expect("reversal regex is valid")
});

/// "The YubiKey is NOT locked out": an emphatic denial, to be checked against an earlier
/// statement of the assistant that said it was.
static DENIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:is|are|was|were)\s+NOT\s+(?P<pred>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})")
        .expect("denial regex is valid")
});
/// "Your YubiKey is actually fine": to be checked against an earlier statement that it
/// was broken, locked, missing …
static ACTUALLY_FINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:is|are|was|were)\s+actually\s+(?:fine|ok|okay|working|running|correct|alive|intact|healthy|present|there)\b",
    )
    .expect("actually-fine regex is valid")
});
/// An earlier statement that something is not in order.
static BAD_STATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bnot\b|n['’]t\b|\bno\s+longer\b|\blocked\b|\bbroken\b|\bfail\w*|\bcrash\w*|\bdead\b|\bdown\b|\bmissing\b|\blost\b|\bgone\b|\bcorrupt\w*|\bstopped\b|\bstuck\b|\binvalid\w*",
    )
    .expect("bad-state regex is valid")
});
/// "The 1Password agent has the keys": a plain statement that something holds something,
/// to be checked against an earlier statement of the assistant that it held none.
static HAS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:has|have)\s+(?:the|its|their|all\s+the|all|both)\s+(?P<noun>[a-z][\w-]{2,})\b")
        .expect("possession regex is valid")
});
static NEGATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bnot\b|n['’]t\b|\bno\b|\bnever\b").expect("negation regex is valid"));
/// Words that name no subject of their own.
const NO_SUBJECT: &[&str] = &[
    "it", "this", "that", "these", "those", "they", "which", "what", "there", "here", "he", "she", "we", "you", "i",
    "the", "a", "an", "and", "but", "so", "also", "still", "just", "now", "all", "both",
];

/// How far back, in messages, an admission's claim is looked for.
const STATED_WINDOW: usize = 30;

/// Sentences that announce a step rather than state a finding.
static PLAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:let me|let's|i'll|i will|i'm going to|now|first|next|then|ok|okay|sure|great|alright|good)\b|^(?:让我|讓我|我来|我來|好的|首先|接下来|接下來)")
        .expect("plan regex is valid")
});

/// A sentence of the message that states something (not a plan, not a question).
fn states_something(m: &Message) -> bool {
    let p = prose(&m.text);
    sentences(&p).iter().any(|(s, end)| *end != Some('?') && !PLAN.is_match(s) && substantial(s))
}

/// Four words or more; in Chinese or Japanese, which put no spaces between words, six
/// ideographs or kana.
fn substantial(s: &str) -> bool {
    s.split_whitespace().count() >= 4 || s.chars().filter(|c| is_cjk(*c)).count() >= 6
}

/// The earlier assistant message whose claim an admission takes back. When the person
/// pushed back in between, the claim is what they pushed back on: the assistant message
/// holding the text they quoted (`> …`), else the nearest statement before their turn.
/// Otherwise it is the nearest statement before the admission. Plans ("let me …") and
/// questions are not claims.
fn stated_claim(msgs: &[Message], found: &[Option<Retraction>], i: usize) -> Option<usize> {
    let lo = i.saturating_sub(STATED_WINDOW);
    // Nothing before a cleared conversation (aider's `/clear`) is in the model's context.
    let lo = (lo..i).rev().find(|&j| clears_context(&msgs[j])).map_or(lo, |j| j + 1);
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
        n.role == Role::Assistant && found.get(j).is_none_or(Option::is_none) && states_something(n)
    })
}

/// A person's turn that empties the model's context (`/clear`, `/reset`, `/new`).
fn clears_context(m: &Message) -> bool {
    m.is_typed_user() && matches!(m.text.split_whitespace().next(), Some("/clear" | "/reset" | "/new"))
}

/// What kind of taking-back a message holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// "I was wrong", "my grep matched X, not an actual error", "more serious than
    /// initially thought": needs no earlier claim to be found.
    Admission,
    /// "It didn't crash", "it's still loading!": needs a crash verdict to take back.
    Crash,
    /// "You're right: that text is the CLI's output, not the HTML" in answer to the
    /// person's pushback on a claim of the assistant's.
    Concession,
    /// "Wait, that won't work": taking back the step of the message just before.
    Reversal,
    /// "The YubiKey is NOT locked out" against its own "the PIN is locked out".
    Contradiction,
    /// "The config looks correct: dnsmasq → blocky" against its own "Root cause found!
    /// Port 53 is bound to dnsmasq": a suspect it named cleared, or its diagnosis revisited
    /// with "Actually, …".
    Diagnosis,
}

struct Retraction {
    sentence: String,
    kind: Kind,
    /// The message holding what is taken back, when the retraction's test found it.
    claim: Option<usize>,
    /// The person's turn a concession answers.
    pushback: Option<usize>,
    /// The sentence of the claim message that is taken back, when the test found it.
    said: Option<String>,
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

/// The person's turn that message `i` answers first: the nearest typed user turn before
/// it with no assistant text in between. Slash commands (`/run pytest`) are the harness
/// at work, not the person objecting; `/ask …` and the like carry words.
fn answers(msgs: &[Message], i: usize) -> Option<usize> {
    for j in (0..i).rev() {
        let n = &msgs[j];
        if n.role == Role::Assistant && !prose(&n.text).trim().is_empty() {
            return None;
        }
        if n.is_typed_user() {
            let t = n.text.trim_start();
            let command = t.starts_with('/') && !["/ask", "/code", "/architect"].iter().any(|c| t.starts_with(c));
            return (!t.is_empty() && !command).then_some(j);
        }
    }
    None
}

/// What a concession admits: the rest of its sentence, or the next sentence when the
/// concession stands alone ("You're right to question that. Looking at it again, …").
/// It must take something back (a negation, a limit, a miss) and not turn to the next
/// step ("you're right, we should …") or hedge.
fn conceded(rest: &str, next: Option<&str>, only_concern: bool) -> bool {
    let lead = CONCEDE_LEAD.find(rest).map_or(0, |m| m.end());
    let own = rest[lead..].trim();
    let short = own.split_whitespace().count() < 3 && own.chars().count() < 8;
    let content = if short || only_concern { next.unwrap_or("").trim() } else { own };
    if content.is_empty() || FORWARD.is_match(content) {
        return false;
    }
    // "You're right to be concerned" grants a worry, not a point: what follows must be
    // about the assistant's own work ("the solution I provided … won't work") or a
    // second look ("Looking at it again, …").
    if only_concern && !OWN_WORK.is_match(content) {
        return false;
    }
    FAULT.find(content).is_some_and(|m| !hedged(&content[..m.start()]))
}

/// "You're right: …" opening the assistant's answer to the person's objection.
fn concession(msgs: &[Message], i: usize) -> Option<(String, usize)> {
    let u = answers(msgs, i)?;
    let p = prose(&msgs[i].text);
    let ss = sentences(&p);
    for (k, (s, end)) in ss.iter().enumerate().take(2) {
        if *end == Some('?') {
            continue;
        }
        let Some(m) = CONCEDE.find(s) else { continue };
        if hedged(clause_before(s, m.start())) {
            return None;
        }
        let rest = &s[m.end()..];
        let next = ss.get(k + 1).map(|(n, _)| *n);
        // "You're right to question that": what it concedes is in the next sentence.
        let only_concern = rest.trim_start().starts_with("to ");
        return conceded(rest, next, only_concern).then(|| (s.to_string(), u));
    }
    None
}

/// "Wait, that won't work" opening the message after one of the assistant's own steps.
fn reversal(msgs: &[Message], i: usize) -> Option<(String, usize)> {
    let p = prose(&msgs[i].text);
    let s = sentences(&p).into_iter().take(2).find(|(s, end)| *end != Some('?') && REVERSAL.is_match(s))?.0;
    let s = s.to_string();
    for j in (0..i).rev() {
        let n = &msgs[j];
        if n.is_typed_user() {
            return None;
        }
        if n.role == Role::Assistant && (!n.calls.is_empty() || states_something(n)) {
            return Some((s, j));
        }
    }
    None
}

/// The words naming what a clause is about: its last word before the verb, unless that
/// is a pronoun or an article ("The YubiKey is …" → "yubikey").
fn subject(clause: &str) -> Option<String> {
    let w =
        clause.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '_').rfind(|w| !w.is_empty())?.to_lowercase();
    (w.chars().count() >= 3 && !NO_SUBJECT.contains(&w.as_str())).then_some(w)
}

/// A plain statement of an earlier assistant message, since the person last spoke and
/// the last relaunch, for which `holds` is true: (message, sentence).
fn earlier_statement(msgs: &[Message], i: usize, holds: impl Fn(&str) -> bool) -> Option<(usize, String)> {
    for j in (i.saturating_sub(STATED_WINDOW)..i).rev() {
        let n = &msgs[j];
        if n.is_typed_user() {
            return None;
        }
        if n.role == Role::Assistant {
            let p = prose(&n.text);
            if let Some((s, _)) = sentences(&p).into_iter().find(|(s, end)| *end != Some('?') && !hedged(s) && holds(s))
            {
                return Some((j, s.to_string()));
            }
            if liveness::relaunches(n) {
                return None;
            }
        }
    }
    None
}

/// A statement that denies what the assistant itself said a little earlier about the same
/// thing: "The YubiKey is NOT locked out" after "… the PIV PIN is locked out" (same
/// sentence naming the YubiKey), "X is actually fine" after "X is broken".
fn contradiction(msgs: &[Message], i: usize) -> Option<(String, usize)> {
    let p = prose(&msgs[i].text);
    for (s, end) in sentences(&p) {
        if end == Some('?') {
            continue;
        }
        if let Some(c) = DENIAL.captures(s) {
            let verb = c.get(0).map_or(0, |m| m.start());
            let clause = clause_before(s, verb);
            let pred = c["pred"].to_lowercase();
            let weighty = pred.split_whitespace().any(|w| w.len() >= 4);
            if let Some(subj) = subject(clause).filter(|_| weighty && !hedged(clause))
                && let Some((j, _)) = earlier_statement(msgs, i, |e| {
                    let low = e.to_lowercase();
                    low.contains(&subj)
                        && low.match_indices(&pred).any(|(at, _)| {
                            let before = &low[low[..at].char_indices().rev().nth(11).map_or(0, |(b, _)| b)..at];
                            !NEGATION.is_match(before)
                        })
                })
            {
                return Some((s.to_string(), j));
            }
        }
        if let Some(c) = HAS.captures(s) {
            let verb = c.get(0).map_or(0, |m| m.start());
            let clause = clause_before(s, verb);
            let noun = c["noun"].to_lowercase();
            if let Some(subj) = subject(clause).filter(|_| !hedged(clause) && !NEGATION.is_match(clause))
                && let Some(j) = denied_possession(msgs, i, &subj, &noun)
            {
                return Some((s.to_string(), j));
            }
        }
        if let Some(m) = ACTUALLY_FINE.find(s) {
            let clause = clause_before(s, m.start());
            if let Some(subj) = subject(clause).filter(|_| !hedged(clause))
                && let Some((j, _)) = earlier_statement(msgs, i, |e| {
                    let low = e.to_lowercase();
                    low.contains(&subj) && BAD_STATE.is_match(e)
                })
            {
                return Some((s.to_string(), j));
            }
        }
    }
    None
}

/// An earlier sentence saying that the subject holds none of `noun` ("still has no keys
/// loaded", "doesn't have the key"), with only looks between it and message `i`: nothing
/// was done that could have given it one, so the later "has the keys" takes it back.
fn denied_possession(msgs: &[Message], i: usize, subj: &str, noun: &str) -> Option<usize> {
    let stem = regex::escape(noun.strip_suffix('s').unwrap_or(noun));
    let none = Regex::new(&format!(
        r"(?i)\b(?:(?:has|have)\s+no|(?:doesn['’]t|does\s+not|don['’]t|do\s+not)\s+have(?:\s+(?:any|the|its|their))?)\s+(?:[\w-]+\s+)?{stem}s?\b"
    ))
    .ok()?;
    let (j, _) = earlier_statement(msgs, i, |e| e.to_lowercase().contains(subj) && none.is_match(e))?;
    (j..i).all(|k| liveness::only_observes(&msgs[k])).then_some(j)
}

/// A sentence naming the cause of a problem: "Root cause found!", "This is why the mount
/// command failed", "the real problem is …", "问题所在：顺序错误", "真正的问题：…".
static DIAGNOSIS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\broot[\s-]+cause\b|\bfound\s+(?:the|a)\s+(?:real\s+)?(?:issue|problem|bug|culprit|cause)\b",
        r"|\b(?:this|that)(?:['’]s|\s+is|\s+was)\s+(?:why|the\s+(?:real\s+|actual\s+)?(?:cause|problem|issue|culprit|reason|bug))\b",
        r"|\bthe\s+(?:real\s+|actual\s+|core\s+|main\s+)?(?:problem|issue|cause|culprit)\s+(?:is|was)\b",
        r"|\b(?:is|was)\s+(?:the\s+)?(?:real\s+|actual\s+)?(?:problem|issue|cause|culprit)\b",
        r"|问题所在|問題所在|根本原因|问题根源|問題根源|根因|真正的?(?:问题|問題|原因)|核心问题|核心問題|关键问题|關鍵問題",
        r"|问题是|問題是|原因是|找到(?:了)?问题|找到(?:了)?問題|这就是为什么|這就是為什麼|这就是原因|這就是原因",
    ))
    .expect("diagnosis regex is valid")
});
/// A sentence clearing a suspect: "The config looks correct: dnsmasq → blocky:5335",
/// "X is not the problem", "the problem is not in X", "问题不在这里", "编号是对的".
static CLEARED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?:is|are|was|were)(?:\s+not|n['’]t)\s+(?:the\s+|a\s+)?(?:real\s+)?(?:problem|issue|cause|culprit)\b",
        r"|\bthe\s+(?:problem|issue|cause)\s+(?:is|was)(?:\s+not|n['’]t)\s+(?:in|with|from)\b",
        r"|\b(?:looks?|is|are|seems?)\s+(?:to\s+be\s+)?(?:correct|fine|right)(?:ly\s+configured)?\b",
        r"|\bnothing\s+(?:is\s+)?wrong\s+with\b",
        r"|问题不在|問題不在|(?:看起来|看起來|看来|看來|似乎)?(?:都)?是(?:对的|對的|正确的|正確的)",
        r"|(?:看起来|看起來|看来|看來|似乎)(?:没有|沒有|没|沒)(?:什么|什麼)?(?:问题|問題)",
    ))
    .expect("cleared regex is valid")
});
/// The facts may have changed since: "looks correct now", "现在是对的".
static CHANGED_SINCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:now|anymore|any\s+more|again|after\s+(?:the|my|this)\b)|现在|現在|已经|已經|修复后|修復後")
        .expect("changed-since regex is valid")
});
/// Chinese and Japanese words that make a statement a guess or a question.
static HEDGED_CJK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"可能|也许|也許|或许|或許|如果|是否|吗|嗎|假设|假設|かもしれ|もし").expect("cjk hedge regex is valid")
});
/// "Actually, …" opening a sentence anywhere in the message: what follows sets the record
/// straight, and is a retraction when it speaks of what the assistant itself diagnosed.
static ACTUALLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:actually|in\s+fact|in\s+reality)\s*,\s*|^(?:其实|其實|实际上|實際上)[，,]\s*")
        .expect("actually regex is valid")
});
/// The assistant admitting that its own change did the damage: "my regex replacement
/// corrupted the encoding", "I accidentally removed …", "but I deleted them all",
/// "我的正則替換破壞了檔案編碼", "但我把它們都刪掉了".
static OWN_DAMAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bmy\s+(?:[\w-]+\s+){0,3}?(?:edit|edits|change|changes|regex|replacement|replace|refactor|refactoring|rewrite|patch|fix|script|migration|update|commit)\s+(?:\w+\s+)?(?:broke|corrupted|damaged|mangled|clobbered|wiped|deleted|removed|overwrote)\b",
        r"|\bI\s+(?:\w+\s+)?(?:broke|corrupted|damaged|mangled|clobbered|wiped\s+out)\b",
        r"|\bI\s+(?:accidentally|inadvertently|mistakenly|unintentionally)\s+(?:\w+\s+)?(?:removed|deleted|dropped|overwrote|reverted|broke)\b",
        r"|\bbut\s+I\s+(?:\w+\s+)?(?:removed|deleted|dropped|overwrote)\s+(?:them|it|all|those|these|everything)\b",
        r"|我的[^，。！？,!?]{0,15}?(?:破坏|破壞|弄坏|弄壞|损坏|損壞|搞坏|搞壞|覆盖了|覆蓋了|删掉了|刪掉了)",
        r"|我(?:不小心|误|誤)[^，。！？,!?]{0,12}?(?:删|刪|覆盖|覆蓋|破坏|破壞|改)",
        r"|(?:但|但是|却|卻)我把[^，。！？,!?]{0,15}?(?:删|刪|去掉|移除|弄坏|弄壞)",
        r"|我把[^，。！？,!?]{0,15}?(?:弄坏|弄壞|搞坏|搞壞|破坏|破壞|改坏|改壞)",
    ))
    .expect("own-damage regex is valid")
});
/// Words that stand for what was just said, not for a thing of their own.
const ANAPHORA: &[&str] = &["这里", "這裡", "这", "這", "那里", "那裡", "这个", "這個"];
/// How far back, in messages, a diagnosis is looked for.
const DIAGNOSIS_WINDOW: usize = 12;

fn has_cjk(s: &str) -> bool {
    s.chars().any(is_cjk)
}

/// An ideograph or kana: Chinese and Japanese put no spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}' | '\u{f900}'..='\u{faff}')
}

/// What a clearing sentence is about: the run of ideographs right before (or, for "问题不在
/// X", right after) the match; empty when it names nothing ("这", "看起来是对的").
fn cjk_subject(s: &str, at: usize, end: usize, after: bool) -> String {
    let run: String = if after {
        s[end..].chars().take_while(|c| is_cjk(*c)).take(6).collect()
    } else {
        let mut v: Vec<char> = s[..at].chars().rev().take_while(|c| is_cjk(*c)).take(6).collect();
        v.reverse();
        v.into_iter().collect()
    };
    if ANAPHORA.contains(&run.as_str()) { String::new() } else { run }
}

/// A sentence of the assistant's that names a cause and is neither asked nor hedged.
fn diagnoses(s: &str) -> bool {
    DIAGNOSIS.find(s).is_some_and(|m| {
        // A heading that is only the marker ("## 关键问题") names no cause.
        let rest = format!("{} {}", &s[..m.start()], &s[m.end()..]);
        let named = rest.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).count() >= 2
            || rest.chars().filter(|c| is_cjk(*c)).count() >= 2;
        named && !hedged(clause_before(s, m.start())) && !HEDGED_CJK.is_match(s)
    }) && !CLEARED.is_match(s)
}

/// The message holding the assistant's own diagnosis that `about` speaks of: earlier in
/// message `i` (sentences before `upto`), or in an assistant message since the person last
/// spoke. `about` gets the diagnosis sentence and the one before it ("Its status is
/// Offline. This is why the mount command failed."). `same_only`: the sentence names
/// nothing of its own, so only a diagnosis in the same message can be what it means.
/// `still`: the facts must not have changed in between (no file edited, no relaunch).
fn own_diagnosis(
    msgs: &[Message],
    i: usize,
    upto: usize,
    same_only: bool,
    still: bool,
    about: impl Fn(&str, &str) -> bool,
) -> Option<(usize, String)> {
    let found_in = |text: &str, limit: Option<usize>| {
        let p = prose(text);
        let ss = sentences(&p);
        let n = limit.unwrap_or(ss.len()).min(ss.len());
        (0..n)
            .rev()
            .find(|&k| {
                let (s, end) = ss[k];
                end != Some('?') && diagnoses(s) && about(s, if k > 0 { ss[k - 1].0 } else { "" })
            })
            .map(|k| ss[k].0.to_string())
    };
    if let Some(d) = found_in(&msgs[i].text, Some(upto)) {
        return Some((i, d));
    }
    if same_only {
        return None;
    }
    for j in (i.saturating_sub(DIAGNOSIS_WINDOW)..i).rev() {
        let n = &msgs[j];
        if n.is_typed_user() {
            return None;
        }
        if n.role != Role::Assistant {
            continue;
        }
        if still && (liveness::relaunches(n) || n.calls.iter().any(|c| !calls::edited_files(c).is_empty())) {
            return None;
        }
        if let Some(d) = found_in(&n.text, None) {
            return Some((j, d));
        }
    }
    None
}

/// Content words two sentences share, or for Chinese and Japanese whether the subject
/// run appears.
fn shares(a: &std::collections::HashSet<String>, b: &str, at_least: usize) -> bool {
    a.intersection(&content_words(b)).count() >= at_least
}

/// The assistant clears a suspect it named itself: "The config looks correct: dnsmasq →
/// blocky:5335" after "Root cause found! Port 53 is bound to dnsmasq, NOT blocky", "所以
/// 问题不在这里" after its own "核心问题". The thing cleared must be named in the
/// diagnosis (two content words shared; for Chinese the subject's ideographs), or, when the
/// sentence names nothing ("看起来是对的"), the diagnosis must be in the same message.
fn exoneration(msgs: &[Message], i: usize) -> Option<(String, (usize, String))> {
    let p = prose(&msgs[i].text);
    for (k, (s, end)) in sentences(&p).into_iter().enumerate() {
        if end == Some('?') {
            continue;
        }
        let Some(m) = CLEARED.find(s) else { continue };
        let clause = clause_before(s, m.start());
        if hedged(clause) || HEDGED_CJK.is_match(s) || CHANGED_SINCE.is_match(s) || NEGATION.is_match(clause) {
            continue;
        }
        let matched = m.as_str();
        let j = if has_cjk(matched) {
            let before: String = s[..m.start()].chars().rev().take(1).collect();
            if before == "不" || before == "没" || before == "沒" {
                continue;
            }
            // "正确的逻辑应该是" proposes; "是正确的" at the end of its clause clears.
            let next = s[m.end()..].chars().next();
            if matched.ends_with('的') && next.is_some_and(|c| is_cjk(c) || c.is_alphanumeric()) {
                continue;
            }
            let after = matched.starts_with("问题") || matched.starts_with("問題");
            let subj = cjk_subject(s, m.start(), m.end(), after);
            let same_only = subj.is_empty();
            // "这是对的，因为 …" affirms what it just said; only a judgement after a look
            // ("看起来是对的") or a locus denied ("问题不在这里") clears it.
            let judged = after || matched.starts_with('看') || matched.starts_with('似');
            if same_only && !judged {
                continue;
            }
            own_diagnosis(msgs, i, k, same_only, true, |d, _| same_only || d.contains(&subj))
        } else {
            let mut words = content_words(&s[..m.start()]);
            words.extend(content_words(&s[m.end()..]));
            if words.is_empty() {
                continue;
            }
            own_diagnosis(msgs, i, k, false, true, |d, _| shares(&words, d, 2))
        };
        if let Some(j) = j {
            return Some((s.to_string(), j));
        }
    }
    None
}

/// "Actually, for wsl --mount, … Offline is preferred" a sentence opening with "Actually"
/// (anywhere in the message) that speaks of what the assistant itself diagnosed since the
/// person last spoke ("its status is Offline. This is why the mount command failed"):
/// three content words shared with the diagnosis or the sentence before it.
fn actually_about_own_diagnosis(msgs: &[Message], i: usize) -> Option<(String, (usize, String))> {
    let p = prose(&msgs[i].text);
    for (k, (s, end)) in sentences(&p).into_iter().enumerate() {
        if end == Some('?') {
            continue;
        }
        let Some(m) = ACTUALLY.find(s) else { continue };
        let rest = &s[m.end()..];
        if FORWARD.is_match(rest) || PLAN.is_match(rest) || HEDGED_CJK.is_match(rest) {
            continue;
        }
        let words = content_words(rest);
        if let Some(j) = own_diagnosis(msgs, i, k, false, false, |d, prev| shares(&words, &format!("{prev} {d}"), 3)) {
            return Some((s.to_string(), j));
        }
    }
    None
}

/// Messages since the person last spoke within which an admission still answers them.
const ANSWER_WINDOW: usize = 4;

/// "My regex replacement corrupted the encoding", "但我把它們都刪掉了": the assistant admits
/// that its own change did the damage the person just reported.
fn own_damage(msgs: &[Message], i: usize) -> Option<(String, usize)> {
    let p = prose(&msgs[i].text);
    let s = sentences(&p).into_iter().filter(|(_, end)| *end != Some('?')).map(|(s, _)| s).find(|s| {
        OWN_DAMAGE.find(s).is_some_and(|m| !hedged(clause_before(s, m.start())) && !HEDGED_CJK.is_match(s))
    })?;
    let mut said = 0;
    for j in (0..i).rev() {
        let n = &msgs[j];
        if n.is_typed_user() {
            let t = n.text.trim_start();
            return (!t.is_empty() && !t.starts_with('/')).then(|| (s.to_string(), j));
        }
        if n.role == Role::Assistant {
            said += 1;
            if said > ANSWER_WINDOW {
                return None;
            }
        }
    }
    None
}

/// The retraction message `i` holds, if any: the one that comes first in its prose.
/// Only what the assistant says counts, not its reasoning (`thinking`): reasoning
/// revises hypotheses all the time ("actually wait, let me look more carefully") and
/// what the person is told is the conclusion being taken back.
fn retraction(msgs: &[Message], found: &[Option<Retraction>], i: usize) -> Option<Retraction> {
    let m = &msgs[i];
    if m.role != Role::Assistant || m.text.trim().is_empty() {
        return None;
    }
    let mut all: Vec<Retraction> = Vec::new();
    let plain = |sentence: String, kind| Retraction { sentence, kind, claim: None, pushback: None, said: None };
    if let Some(s) = admission(&m.text) {
        all.push(plain(s, Kind::Admission));
    }
    if let Some(s) = liveness::crash_retraction(&m.text) {
        all.push(plain(s, Kind::Crash));
    }
    if let Some((s, u)) = concession(msgs, i)
        && let Some(j) = stated_claim(msgs, found, i)
    {
        all.push(Retraction { sentence: s, kind: Kind::Concession, claim: Some(j), pushback: Some(u), said: None });
    }
    if let Some((s, j)) = reversal(msgs, i) {
        all.push(Retraction { sentence: s, kind: Kind::Reversal, claim: Some(j), pushback: None, said: None });
    }
    if let Some((s, j)) = contradiction(msgs, i) {
        all.push(Retraction { sentence: s, kind: Kind::Contradiction, claim: Some(j), pushback: None, said: None });
    }
    if let Some((s, (j, d))) = exoneration(msgs, i).or_else(|| actually_about_own_diagnosis(msgs, i)) {
        all.push(Retraction { sentence: s, kind: Kind::Diagnosis, claim: Some(j), pushback: None, said: Some(d) });
    }
    if let Some((s, u)) = own_damage(msgs, i)
        && let Some(j) = stated_claim(msgs, found, i)
    {
        all.push(Retraction { sentence: s, kind: Kind::Concession, claim: Some(j), pushback: Some(u), said: None });
    }
    let p = prose(&m.text);
    all.into_iter().min_by_key(|r| p.find(&r.sentence).unwrap_or(usize::MAX))
}

impl Detector for SelfCorrection {
    fn id(&self) -> &'static str {
        "self-correction"
    }

    fn summary(&self) -> &'static str {
        "The assistant explicitly retracted a conclusion of its own (\"it didn't crash\", \"I was wrong\", \"you're right: …\")"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        let msgs = view.messages;
        let mut found: Vec<Option<Retraction>> = Vec::with_capacity(msgs.len());
        for i in 0..msgs.len() {
            let r = retraction(msgs, &found, i);
            found.push(r);
        }
        for (i, m) in msgs.iter().enumerate() {
            let Some(r) = &found[i] else { continue };
            let about_crash = r.kind == Kind::Crash || CRASH_TOPIC.is_match(&r.sentence);
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
                    && let Some(e) = &found[j]
                    && (e.kind == Kind::Crash || CRASH_TOPIC.is_match(&e.sentence)) == about_crash
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
            if r.kind == Kind::Crash && claims.is_empty() {
                continue;
            }
            let repeated = match retracted_before {
                Some(_) if !claims.is_empty() => true,
                // A diagnosis taken back is a new retraction when it is another diagnosis
                // (an analysis that names a cause, clears it, and names the next one).
                Some(j) if r.kind == Kind::Diagnosis => found[j].as_ref().is_some_and(|e| e.claim == r.claim),
                Some(j) => i - j <= REPEAT_WINDOW,
                None => false,
            };
            if repeated {
                continue;
            }
            let q = quote_from(&m.text, &r.sentence, 110);
            let plural = |n: u32| if n == 1 { "" } else { "s" };
            let stated = if claims.is_empty() { r.claim.or_else(|| stated_claim(msgs, &found, i)) } else { None };
            let ago = |j: usize| m.idx.saturating_sub(msgs[j].idx);
            let summary = match (claims.last(), stated) {
                (Some((j, a)), _) => {
                    let n = ago(*j);
                    format!("retracts the crash verdict of {n} message{} earlier ({}): \"{q}\"", plural(n), a.what)
                }
                (None, Some(j)) => {
                    let n = ago(j);
                    let what = match r.kind {
                        Kind::Concession => "concedes the person's objection to its claim of",
                        Kind::Reversal => "takes back its step of",
                        Kind::Contradiction => "contradicts its own claim of",
                        Kind::Diagnosis => "takes back its own diagnosis of",
                        Kind::Admission | Kind::Crash => "retracts its claim of",
                    };
                    if n == 0 {
                        let what = what.strip_suffix(" of").unwrap_or(what);
                        format!("{what} made earlier in the same message: \"{q}\"")
                    } else {
                        format!("{what} {n} message{} earlier: \"{q}\"", plural(n))
                    }
                }
                (None, None) => format!("retracts an earlier conclusion: \"{q}\""),
            };
            let mut evidence: Vec<u32> = claims.iter().map(|(j, _)| msgs[*j].idx).collect();
            evidence.extend(stated.map(|j| msgs[j].idx));
            evidence.extend(r.pushback.map(|u| msgs[u].idx));
            evidence.push(m.idx);
            evidence.sort_unstable();
            let claim = match (claims.last(), stated) {
                (Some((j, a)), _) => Some(Cited { idx: msgs[*j].idx, text: a.line.clone() }),
                (None, Some(j)) => r
                    .said
                    .as_ref()
                    .map(|s| sentence_quote(&msgs[j].text, s, 160))
                    .or_else(|| first_of(&msgs[j].text, &[Claim::Conclusion, Claim::Reason, Claim::Other], 160))
                    .map(|text| Cited { idx: msgs[j].idx, text }),
                (None, None) => None,
            };
            let details = Details::Belief {
                claim,
                undone: Some(Undoing {
                    idx: m.idx,
                    how: "retraction".into(),
                    text: sentence_quote(&m.text, &r.sentence, 220),
                }),
            };
            out.push(Finding {
                detector: self.id().into(),
                key: m.idx,
                evidence,
                summary,
                command: None,
                details: Some(details),
            });
        }
    }
    fn telling(&self) -> Telling {
        Telling {
            rank: 0,
            beats: &["retraction"],
            told_by: &["retraction"],
            with_tag: "with-self-correction",
            joined_tag: "joined-self-correction",
            premise: true,
            ..Telling::DEFAULT
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

    fn user(idx: u32, text: &str) -> Message {
        fixture::said(idx, Role::User, text)
    }

    fn keys(msgs: &[Message]) -> Vec<u32> {
        run(msgs).iter().map(|f| f.key).collect()
    }

    #[test]
    fn a_concession_after_pushback_cites_the_claim_and_the_pushback() {
        let msgs = vec![
            said(2, "Done — all the printer settings are in the tabs and the tests pass."),
            user(3, "OK, we still seem to be missing all the custom gcode settings?"),
            ran(4, "grep -n gcode ui/tabs.py", "12: g_start\n"),
            said(5, "You’re right — the editor only had Start/End. I’ve now added a full G-code hooks editor."),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].key, 5);
        assert_eq!(f[0].evidence, vec![2, 3, 5]);
        assert!(
            f[0].summary.starts_with(
                "concedes the person's objection to its claim of 3 messages earlier: \"You’re right — the editor only had"
            ),
            "{}",
            f[0].summary
        );
    }

    #[test]
    fn concessions_in_other_languages() {
        for (claim, pushback, concession) in [
            (
                "這次應該能看到正確的風險等級分布了。",
                "還是全部都是中風險",
                "您說得對！所有 23 個條款都被標記為中風險，這確實不正常。讓我檢查一下。",
            ),
            (
                "El servidor ya genera los informes HTML en output/.",
                "Los archivos contienen el texto del CLI, no HTML.",
                "Tienes razón: el archivo no era HTML, era la salida del CLI.",
            ),
            (
                "Die Konfiguration ist jetzt vollständig und getestet.",
                "Der Port fehlt immer noch.",
                "Du hast recht, der Port war nicht gesetzt.",
            ),
            (
                "設定はすべて完了し、テストも通っています。",
                "ポートの設定がまだありません。",
                "おっしゃる通りです。ポートの設定が抜けていて、テストも実行されていませんでした。",
            ),
        ] {
            let msgs = vec![said(1, claim), user(2, pushback), said(3, concession)];
            assert_eq!(keys(&msgs), vec![3], "{concession}");
        }
    }

    #[test]
    fn a_worry_granted_counts_only_when_the_next_sentence_takes_back_its_own_work() {
        let claim = said(1, "This approach works with vim and emacs, since the pty gives them a real terminal.");
        let taken_back = vec![
            claim.clone(),
            user(2, "will this work on windows?"),
            said(
                3,
                "You're right to be concerned. The solution I provided using pty is Unix-specific and won't work on Windows.",
            ),
        ];
        assert_eq!(keys(&taken_back), vec![3]);
        let second_look = vec![
            said(1, "I won't execute that command myself, but you can run it."),
            user(2, "why won't you run it?"),
            said(3, "You're right to question that. Looking at it again, there's no good reason not to run it."),
        ];
        assert_eq!(keys(&second_look), vec![3]);
        let granted = vec![
            claim,
            user(2, "will they still support curses?"),
            said(
                3,
                "You're right to be concerned about that. The current implementation doesn't fully support curses.",
            ),
        ];
        assert!(run(&granted).is_empty());
        // Granting a request to act: the next sentence is the plan, though it says "no longer".
        let planned = vec![
            said(1, "The dashboard reads its figures from the local cache."),
            user(2, "we will move the figures to the new metrics service soon, prepare for it"),
            said(
                3,
                "You're right to begin now. I'm going to add a provider seam so the dashboard no longer reads the cache directly.",
            ),
        ];
        assert!(run(&planned).is_empty());
    }

    #[test]
    fn concession_near_misses() {
        let claim = said(1, "The request is sent with httpx.post and the test mocks it.");
        for (pushback, answer) in [
            // Accepting a request: what follows is the next step.
            ("get not post", "You're right, we should be using get instead of post for this request."),
            ("don't modify send_with_retries", "You're right, we shouldn't modify send_with_retries at all."),
            ("你应该先检查后端", "你说得对，我应该检查。让我现在检查后端的逻辑。"),
            // Agreeing: nothing of its own taken back.
            ("isn't there a safe print in rich?", "Yes, you're right. Rich does provide a safe print method."),
            ("it doesn't sound like music", "You're absolutely right! The current approach plays each sound in turn."),
            // Hedged.
            ("is the port wrong?", "If you're right, the port is not 8080."),
        ] {
            let msgs = vec![claim.clone(), user(2, pushback), said(3, answer)];
            assert!(run(&msgs).is_empty(), "{answer}");
        }
        // A slash command is the harness at work, not the person objecting.
        let run_cmd = vec![claim.clone(), user(2, "/run pytest tests/"), said(3, "You're right, the test is broken.")];
        assert!(run(&run_cmd).is_empty());
        // Nothing of the assistant's is left to take back after the chat was cleared.
        let cleared = vec![
            claim.clone(),
            user(2, "/clear"),
            user(3, "this script only considers the files present now"),
            said(4, "You're absolutely correct. The current script only considers the files present now."),
        ];
        assert!(run(&cleared).is_empty());
        // Not the first answer to the person's turn.
        let later = vec![
            claim,
            user(2, "the request fails"),
            said(3, "Let me look at the request code."),
            said(4, "You're right, the request is not sent."),
        ];
        assert!(run(&later).is_empty());
    }

    #[test]
    fn reversing_the_step_just_taken() {
        let edit = Message {
            text: "The workflow only runs on main; let me widen it to all branches.".into(),
            ..fixture::edit(1, ".github/workflows/test.yml")
        };
        let msgs = vec![
            edit,
            said(2, "Actually, looking at your screenshot more carefully, the failures come from another repo's main."),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, vec![1, 2]);
        assert!(
            f[0].summary.starts_with("takes back its step of 1 message earlier: \"Actually, looking"),
            "{}",
            f[0].summary
        );
        for text in [
            "Wait, that won't work for an interactive session. Let me try AppleScript.",
            "On second thought, the nohup launcher has no terminal.",
            "等等，这样不行：nohup 进程没有终端。",
            "Espera, eso no funciona sin una terminal.",
        ] {
            let msgs = vec![ran(1, "nohup claude -p go &", "started\n"), said(2, text)];
            assert_eq!(keys(&msgs), vec![2], "{text}");
        }
    }

    #[test]
    fn reversal_near_misses() {
        let step = ran(1, "cat config.yml", "port: 80\n");
        for text in [
            // A first careful look, not a second one.
            "Looking more closely at the log, the error happens at startup.",
            "Let me look at it more carefully.",
            "Actually, let's also add a test for the empty case.",
        ] {
            assert!(run(&[step.clone(), said(2, text)]).is_empty(), "{text}");
        }
        // Right after the person's turn it corrects the person, not itself.
        let msgs =
            vec![step, user(2, "the config is in the root"), said(3, "Actually, that's not right — it is in src/.")];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn contradicting_its_own_statement() {
        let msgs = vec![
            said(1, "Found it! You have a YubiKey with PIV, and the PIV PIN is locked out."),
            ran(2, "ykman piv info", "PIN tries remaining: 3/3\n"),
            said(3, "The YubiKey is NOT locked out. The error must come from somewhere else."),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, vec![1, 3]);
        assert!(f[0].summary.starts_with("contradicts its own claim of 2 messages earlier"), "{}", f[0].summary);
        let fine = vec![
            said(1, "The database is not running, so the app cannot connect."),
            ran(2, "pg_isready", "accepting connections\n"),
            said(3, "The database is actually running on port 5432; the app reads the wrong host."),
        ];
        assert_eq!(keys(&fine), vec![3]);
    }

    #[test]
    fn contradiction_near_misses() {
        let locked = said(1, "The PIV PIN on your YubiKey is locked out.");
        // Nothing said before to deny.
        assert!(run(&[said(1, "Auto-tiling is NOT a separate daemon in COSMIC.")]).is_empty());
        // Hedged.
        assert!(
            run(&[locked.clone(), said(2, "If the YubiKey is NOT locked out, the error is elsewhere.")]).is_empty()
        );
        // The person spoke in between: the facts may have changed.
        let msgs =
            vec![locked.clone(), user(2, "I reset it with the PUK"), said(3, "The YubiKey is NOT locked out now.")];
        assert!(run(&msgs).is_empty());
        // The earlier statement said it was not, too.
        let same = vec![said(1, "The YubiKey is not locked out yet."), said(2, "The YubiKey is NOT locked out.")];
        assert!(run(&same).is_empty());
        // A relaunch in between makes it a new state.
        let relaunch = vec![
            said(1, "The server is not running."),
            ran(2, "nohup python server.py > log 2>&1 &", ""),
            said(3, "The server is actually running now on port 8000."),
        ];
        assert!(run(&relaunch).is_empty());
    }

    #[test]
    fn a_later_has_the_takes_back_its_own_has_no() {
        let msgs = vec![
            said(1, "The 1Password SSH agent still has no keys loaded. You need to enable the keys in the app."),
            ran(2, "SSH_AUTH_SOCK=~/agent.sock ssh-add -l", "256 SHA256:abc id_ed25519 (ED25519)\n"),
            said(3, "The 1Password agent has the keys. Let me try SSH with that socket."),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, vec![1, 3]);
        let dont = vec![
            said(1, "The build container doesn't have the Rust toolchain."),
            ran(2, "ls /usr/local/cargo/bin", "cargo\nrustc\n"),
            said(3, "The container has the toolchain after all; the PATH is what is missing."),
        ];
        assert_eq!(keys(&dont), vec![3]);
    }

    #[test]
    fn a_later_has_the_near_misses() {
        let none = said(1, "The SSH agent has no keys loaded.");
        // Something was done in between that gives it the keys.
        let added = vec![
            none.clone(),
            ran(2, "ssh-add ~/.ssh/id_ed25519", "Identity added\n"),
            said(3, "The agent has the keys now."),
        ];
        assert!(run(&added).is_empty());
        // The person spoke in between.
        let asked = vec![none.clone(), user(2, "I enabled them in the app"), said(3, "The agent has the keys.")];
        assert!(run(&asked).is_empty());
        // Another thing, or another noun.
        assert!(run(&[none.clone(), said(2, "The keychain has the keys.")]).is_empty());
        assert!(run(&[none.clone(), said(2, "The agent has the socket open.")]).is_empty());
        // Hedged, negated or asked.
        assert!(run(&[none.clone(), said(2, "If the agent has the keys, ssh will use them.")]).is_empty());
        assert!(run(&[none.clone(), said(2, "No agent has the keys.")]).is_empty());
        assert!(run(&[none, said(2, "Does the agent have the keys?")]).is_empty());
    }

    #[test]
    fn revised_assessments_and_narrowed_reports_are_admissions() {
        for text in [
            "NVMe Controller Warning - **MORE SERIOUS THAN INITIALLY THOUGHT**: about 90 errors a day.",
            "My apologies, `resetTimer` was already correct. The task is complete.",
            "I realize I need to spawn the other agents - I only spawned the red one initially.",
        ] {
            let msgs = vec![said(1, "All three agents are running and the timer resets correctly."), said(2, text)];
            assert_eq!(keys(&msgs), vec![2], "{text}");
        }
        for text in [
            "This was easier than I thought.",
            "RepoMap is called with more arguments than expected in the test.",
            "I made a mistake by using backtick-n inside the Python files; let me fix the edit.",
        ] {
            assert!(run(&[said(1, "The test passes now."), said(2, text)]).is_empty(), "{text}");
        }
    }

    #[test]
    fn clearing_a_suspect_it_named_takes_back_its_diagnosis() {
        // A router session: the cause it announced, then the config that clears it.
        let msgs = vec![
            said(
                12,
                "**Root cause found!** Port 53 is bound to **dnsmasq**, NOT blocky. Let's check if dnsmasq forwards.",
            ),
            ran(13, "ssh root@router 'cat /etc/config/dhcp'", "list server '127.0.0.1#5335'\n"),
            said(15, "The config looks correct: dnsmasq → blocky:5335. Let me verify blocky is actually responding."),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, vec![12, 15]);
        assert!(f[0].summary.starts_with("takes back its own diagnosis of 3 messages earlier"), "{}", f[0].summary);
        // In Chinese, within one analysis: the cause named in a heading, then cleared.
        for text in [
            "## 问题 3：编号从 2 开始的真正原因\n\n执行过程如下。\n\n**结果：编号是对的！**",
            "#### 原因 3：编号更新时机错误 ⭐ **核心问题**\n\n**但这还是当前的逻辑！所以问题不在这里。**",
            "## 真正的问题：编号生成逻辑错误\n\n让我重新看 updateNumberingState。\n\n**看起来是对的！**",
        ] {
            let f = run(&[said(1, text)]);
            assert_eq!(f.len(), 1, "{text}");
            assert!(
                f[0].summary.starts_with("takes back its own diagnosis made earlier in the same message"),
                "{}",
                f[0].summary
            );
        }
    }

    #[test]
    fn clearing_near_misses() {
        let cause = said(1, "**Root cause found!** dnsmasq forwards to the wrong blocky port.");
        // Its own fix in between: the state it clears is the one it made.
        let fixed = vec![
            cause.clone(),
            ran(2, "sed -i 's/#5353/#5335/' /etc/config/dhcp", ""),
            said(3, "The config looks correct: dnsmasq forwards to blocky on 5335."),
        ];
        assert!(run(&fixed).is_empty());
        for text in [
            // After a change, in so many words.
            "The config looks correct now: dnsmasq forwards to blocky.",
            // Another thing: one word in common is not the same suspect.
            "The firewall config looks correct: LAN accepts port 53.",
            // Hedged or asked.
            "If the dnsmasq forwarding to blocky is correct, the firewall is next.",
            "Is the dnsmasq forwarding to blocky correct?",
        ] {
            assert!(run(&[cause.clone(), said(2, text)]).is_empty(), "{text}");
        }
        // The person spoke in between.
        let asked = vec![
            cause,
            user(2, "I changed the port"),
            said(3, "The config looks correct: dnsmasq forwards to blocky."),
        ];
        assert!(run(&asked).is_empty());
        // "This is right, because …" affirms; a heading that is only "关键问题" names no cause;
        // a guessed cause ("可能") is not a diagnosis to take back.
        for text in [
            "## 关键问题\n\n### 问题 2：章节需要编号吗？\n\n这是对的，因为章节有自己的编号系统。",
            "真正的問題可能是：條件檢查通過了。\n\n看起來是對的！",
            "## 问题所在：顺序错误\n\n**正确的逻辑应该是：**先更新编号。",
        ] {
            assert!(run(&[said(1, text)]).is_empty(), "{text}");
        }
    }

    #[test]
    fn actually_revisiting_its_own_diagnosis() {
        let msgs = vec![
            said(25, "The disk is Number 2, but its status is **Offline**. This is why the mount command failed."),
            ran(26, "wsl --mount \\\\.\\PHYSICALDRIVE2 --bare", "The system cannot find the drive specified.\n"),
            said(
                27,
                "It is still failing. Actually, for wsl --mount, the disk usually must be unmounted in Windows, or sometimes Offline is preferred so Windows does not lock the disk.",
            ),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence, vec![25, 27]);
        // Near misses: a plan, another topic, a diagnosis from before the person spoke.
        for text in [
            "Actually, let's also format the disk as ext4 once it is mounted.",
            "Actually, the USB hub needs its own power supply.",
        ] {
            assert!(run(&[msgs[0].clone(), said(2, text)]).is_empty(), "{text}");
        }
        let asked = vec![
            msgs[0].clone(),
            user(26, "the disk is offline on purpose"),
            said(
                27,
                "Actually, for wsl --mount the disk status Offline is preferred, so the mount command failed elsewhere.",
            ),
        ];
        assert!(run(&asked).is_empty());
    }

    #[test]
    fn owning_up_to_the_damage_the_person_reports() {
        let done = said(63, "Pushed: the clauses table has updated_at now, saving a clause should work.");
        for text in [
            "糟糕！我的正則替換破壞了檔案編碼，導致中文字串損壞。讓我從 Git 恢復原始檔案。",
            "原始版本有完整的功能（風險識別、編輯、註解等），但我把它們都刪掉了，只保留了簡單的顯示功能。",
            "Oops: my regex replacement corrupted the file encoding. Let me restore it from git.",
            "I see it: I accidentally removed the annotation panel when I rewrote the page.",
        ] {
            let msgs = vec![done.clone(), user(64, "now other things are broken"), said(65, text)];
            let f = run(&msgs);
            assert_eq!(f.len(), 1, "{text}");
            assert_eq!(f[0].evidence, vec![63, 64, 65], "{text}");
        }
        // Near misses: no report of the person's to answer; an ordinary step told; hedged.
        assert!(run(&[done.clone(), said(2, "My regex replacement corrupted the file encoding.")]).is_empty());
        for text in [
            "I removed the debug logs and deleted the old schema file.",
            "If my regex replacement corrupted the encoding, git has the original.",
        ] {
            assert!(run(&[done.clone(), user(64, "clean it up"), said(65, text)]).is_empty(), "{text}");
        }
    }

    #[test]
    fn reasoning_alone_is_not_a_retraction() {
        let m = Message {
            thinking: "So I was wrong about the password requirement.".into(),
            ..said(2, "Checking the credential providers next.")
        };
        assert!(run(&[said(1, "No password is required for the admin account."), m]).is_empty());
    }
}
