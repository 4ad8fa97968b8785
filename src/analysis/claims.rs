//! What the assistant's sentences do: plan a step, give a reason, state a conclusion,
//! take one back, or ask. Reports quote them by what they do — a conclusion is not a
//! plan, and a list item of a recap is not reasoning — so the sentences come from prose
//! only: paragraphs, not list items, headings, tables, quotes or code.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::fences::{self, Place};
use super::liveness;
use super::text::{clip, one_line, split_sentences};

/// What a sentence does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Question,
    /// Takes an earlier conclusion back ("it didn't crash", "I was wrong").
    Retraction,
    /// Announces a step ("Let me …", "Next: …", "I'll …", "Launching …").
    Plan,
    /// Says why ("because", "since", "so …", "that's just the dump").
    Reason,
    /// States a result ("X fails during Y", "plateaued at 38%", "is out").
    Conclusion,
    Other,
}

/// One sentence of prose and what it does.
#[derive(Debug, Clone, Serialize)]
pub struct Statement {
    pub kind: Kind,
    pub text: String,
    /// It carries a number with a unit ("38%", "82 tok/s", "~25 ms").
    pub quantified: bool,
}

static PLAN_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:ok(?:ay)?|alright|now|so|first|then|next|great|good)[,:]?\s+)?(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i need to|we need to|we should|we'll|time to|going to|next\s*:|then\s*:|plan\s*:|first\s*:|step \d+\s*:)",
    )
    .expect("static regex")
});
/// Sentences that open with a gerund announce what the message is doing
/// ("Launching …", "Polling until …", "Waiting for …").
static GERUND_START: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Z][a-z]{2,}ing\s").expect("static regex"));
/// Words that end in -ing without being a verb.
const NOT_GERUNDS: &[&str] =
    &["Anything", "Nothing", "Something", "Everything", "During", "Morning", "Evening", "String", "Thing", "Spring"];
static PLAN_ANY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:i'll|i will|i'm going to|next step|will try|let me|let's)\b").expect("static regex")
});
/// An offer of a step the person may want ("I can add a config option if you want",
/// "Happy to switch it"): a possible plan, not a statement of what is.
static OFFER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bif you(?:'d)? (?:want|like|prefer|wish)\b|\bif (?:that|this) (?:helps|works for you)\b|^(?:i'm |i am )?(?:happy|glad) to\b|\bwant me to\b",
    )
    .expect("static regex")
});
static REASON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:since|because|as)\b|\b(?:because|since|so that|that's why|which means|that means|due to|in order to|, so\b|; so\b)|\bthat's (?:just|only)\b|\bthat is (?:just|only)\b|\btoo (?:long|short|many|much|big|large|slow|noisy)\b",
    )
    .expect("static regex")
});
static CONCLUSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:fail(?:s|ed)?|work(?:s|ed)|succeed(?:s|ed)|is out|are out|plateau(?:s|ed)?|did(?: not|n't) (?:improve|help|work|change|fix|move)|no (?:gain|improvement|difference)|worse|better|faster|slower|bottleneck|root cause|explains?|turns? out|confirm(?:s|ed)|shows?|showed|caused|is (?:the|a) (?:bug|problem|issue|cause|culprit)|fixed|pass(?:es|ed)|broke|breaks|missing|crashed|died|hangs|hung|timed out|returns?|returned|takes? ~|of which|is (?:because|due)|is not|isn't|wasn't|was not|doesn't|does not|can't|cannot)\b",
    )
    .expect("static regex")
});
static QUANTIFIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\d(?:[\d,.]*\d)?\s?(?:%|×|x\b|ms\b|s\b|sec|seconds?\b|min\b|minutes?\b|h\b|hours?\b|tok/s|tokens?\b|[kmg]i?b\b|it/s|calls?\b|steps?\b|tests?\b|files?\b|lines?\b|errors?\b|attempts?\b|times\b|passed\b|failed\b|shards?\b)|\b\d+(?:\.\d+)?\s+vs\.?\s+\d",
    )
    .expect("static regex")
});
static ADMISSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bI\s+(?:was|am|'m)\s+(?:wrong|mistaken|incorrect)\b|\bmy (?:mistake|bad)\b|\bI\s+(?:misread|misinterpreted|misdiagnosed|misjudged)\b|\bI\s+(?:incorrectly|wrongly|mistakenly)\s+\w+|\bI stand corrected\b|\bscratch that\b|\bfalse (?:alarm|positive)\b|\bnot (?:an? )?(?:actual|real|genuine) (?:error|crash|failure|problem)\b",
    )
    .expect("static regex")
});

/// A line that is structure, not prose: a heading, list item, table row, quote, rule or
/// a bold label on its own.
fn is_structure(t: &str) -> bool {
    let numbered = {
        let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
        digits > 0
            && digits < 4
            && matches!(t[digits..].chars().next(), Some('.' | ')'))
            && t[digits + 1..].starts_with(' ')
    };
    t.starts_with('#')
        || t.starts_with('|')
        || t.starts_with('>')
        || t.starts_with("- ")
        || t.starts_with("* ")
        || t.starts_with("+ ")
        || t.starts_with("• ")
        || t == "---"
        || t == "***"
        || numbered
        || (t.starts_with("**") && t.ends_with("**") && t.len() < 100)
}

/// The headings and list items of `text` (outside fenced code), as words: markers,
/// numbering, leading symbols and bold marks taken off; each clipped to `max`
/// characters. Table rows, quotes and items that are only a command or a path
/// (`` - `sed -n '1,60p' shared/rng1/rng.py` ``) are left out.
pub fn structure_items(text: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (place, line) in fences::lines(text) {
        let t = line.trim();
        if place != Place::Text || !is_structure(t) || t.starts_with('|') || t.starts_with('>') {
            continue;
        }
        let t = t.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '*' && c != '`');
        let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
        let t = match t[digits..].strip_prefix(['.', ')']) {
            Some(rest) if digits > 0 => rest,
            _ => t,
        };
        let words = one_line(&t.replace("**", ""));
        let words = words.trim();
        let prose: String = words.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        if prose.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count() >= 2
            && prose.chars().filter(|c| c.is_alphabetic()).count() >= 3
        {
            out.push(clip(words, max));
        }
    }
    out
}

/// The runs of prose lines of `text` (each run one contiguous piece of the message),
/// without fenced code.
pub fn prose_runs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let flush = |cur: &mut Vec<&str>, out: &mut Vec<String>| {
        if !cur.is_empty() {
            out.push(one_line(&cur.join(" ")));
            cur.clear();
        }
    };
    for (place, line) in fences::lines(text) {
        let t = line.trim();
        if place != Place::Text || t.is_empty() || is_structure(t) {
            flush(&mut cur, &mut out);
            continue;
        }
        cur.push(t);
    }
    flush(&mut cur, &mut out);
    out
}

/// What one sentence does.
pub fn classify(s: &str) -> Kind {
    // Codex and many models write the typographic apostrophe (“I’ll”, “didn’t”).
    let t = s.trim().replace('’', "'");
    let t = t.as_str();
    if t.ends_with('?') {
        return Kind::Question;
    }
    if liveness::crash_retraction(t).is_some() || ADMISSION.is_match(t) {
        return Kind::Retraction;
    }
    if PLAN_START.is_match(t) || OFFER.is_match(t) {
        return Kind::Plan;
    }
    if REASON.is_match(t) {
        return Kind::Reason;
    }
    let gerund = GERUND_START.is_match(t) && !NOT_GERUNDS.iter().any(|w| t.starts_with(w));
    if gerund || PLAN_ANY.is_match(t) {
        return Kind::Plan;
    }
    if CONCLUSION.is_match(t) || liveness::crash_statement(t).is_some() {
        return Kind::Conclusion;
    }
    Kind::Other
}

/// The prose sentences of `text`, each classified and clipped to `max` characters.
/// The first statement of `text` of one of these kinds, quoted in at most `max` characters.
pub fn first_of(text: &str, kinds: &[Kind], max: usize) -> Option<String> {
    statements(text, max).into_iter().find(|s| kinds.contains(&s.kind)).map(|s| s.text)
}

pub fn statements(text: &str, max: usize) -> Vec<Statement> {
    let mut out = Vec::new();
    for run in prose_runs(text) {
        for s in split_sentences(&run) {
            if s.chars().filter(|c| c.is_alphabetic()).count() < 3 {
                continue;
            }
            let quantified = QUANTIFIED.is_match(&s);
            let kind = match classify(&s) {
                // A bare measurement ("Baseline 64.2 tok/s.") is a result.
                Kind::Other if quantified => Kind::Conclusion,
                k => k,
            };
            out.push(Statement { kind, quantified, text: clip(&s, max) });
        }
    }
    out
}

/// The sentences of `text` that say why or what next, in the assistant's words.
pub fn reasoning(text: &str, max: usize, n: usize) -> Vec<String> {
    statements(text, max)
        .into_iter()
        .filter(|s| matches!(s.kind, Kind::Reason | Kind::Plan | Kind::Retraction))
        .map(|s| s.text)
        .take(n)
        .collect()
}

/// A typed user turn that only nods the work on ("continue", "ok, go ahead", "what's
/// the throughput now?"): not a new request.
pub fn is_nudge(text: &str) -> bool {
    static ACK: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)^(?:ok(?:ay)?|yes|yep|yeah|sure|continue|go(?: ahead| on)?|proceed|sounds good|looks good|lgtm|keep going|thanks?|thank you|great|good|nice|perfect|please continue|do it|carry on|next|cool)\b",
        )
        .expect("static regex")
    });
    static STATUS: LazyLock<Regex> = LazyLock::new(|| {
        // "update" asks for one only alone or "update on …": "update brew cache?" asks for
        // work.
        Regex::new(
            r"(?i)^(?:(?:what'?s|what is|how'?s|how is|how are|any|status|done|still|are we|is it|and now|progress)\b|update(?:\s+on\b|\W*$))",
        )
        .expect("static regex")
    });
    let t = text.trim();
    let words = t.split_whitespace().count();
    words == 0
        || (words <= 5
            && !t.chars().any(|c| c.is_ascii_digit())
            && (ACK.is_match(t) || (t.ends_with('?') && STATUS.is_match(t))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, String)> {
        statements(text, 400).into_iter().map(|s| (s.kind, s.text)).collect()
    }

    #[test]
    fn conclusions_plans_reasons_and_retractions() {
        let k = kinds(
            "NCCL_ALGO=Tree fails during CUDA graph capture: the kernels are not capturable. Priority 1A is out.\n\n\
             Next: Priority 1B (fewer channels). Since each launch takes 10+ minutes, I'll also apply Priority 2.",
        );
        let got: Vec<Kind> = k.iter().map(|x| x.0).collect();
        assert_eq!(got, vec![Kind::Conclusion, Kind::Conclusion, Kind::Plan, Kind::Reason]);
        let k =
            kinds("It's still loading! It didn't crash — my grep matched 'Exception'. Let me wait for it properly.");
        let got: Vec<Kind> = k.iter().map(|x| x.0).collect();
        assert_eq!(got, vec![Kind::Retraction, Kind::Retraction, Kind::Plan]);
        assert_eq!(classify("The output is too long — that's just the ServerArgs dump."), Kind::Reason);
        assert_eq!(classify("Launching Priority 1B together with the fusion patch."), Kind::Plan);
        assert_eq!(classify("Where is the fusion gated by architecture?"), Kind::Question);
        assert_eq!(
            classify(
                "Anything that reduces the number of all-reduces, their latency, or overlaps them with compute helps; a better drafter alone cannot."
            ),
            Kind::Conclusion
        );
    }

    #[test]
    fn a_typographic_apostrophe_plans_as_a_straight_one() {
        assert_eq!(
            classify("Then I’ll implement the transport/router/envelope logic to satisfy all tests."),
            Kind::Plan
        );
        // Near miss: the same apostrophe in a result is no plan.
        assert_eq!(classify("The install didn’t work: pip could not reach the index."), Kind::Conclusion);
    }

    #[test]
    fn an_offer_is_no_statement() {
        assert_eq!(
            classify(
                "Also, if you want the project-only mount (host `shared/{PROJ}` → container `/work`), I can add a config option to switch from the shared-base mount."
            ),
            Kind::Plan
        );
        // Near miss: the same words stating what is.
        assert_eq!(
            classify("The project-only mount works now: the run writes rng.py to shared/rng1/."),
            Kind::Conclusion
        );
    }

    #[test]
    fn headings_and_list_items_as_words() {
        let text = "# 🔒 AUDIT REPORT\n\n**System:** Windows 11 Build 26200\n\n\
                    ### 🔴 2. **No Password Required for Admin Account**\n- **Status:** PasswordRequired: FALSE\n\
                    - Re-run your prompt:\n  - `target/debug/orchestrator --prompt \"code\" --project rng1`\n\n\
                    | a | b |\n> quoted words here";
        assert_eq!(
            structure_items(text, 200),
            vec![
                "AUDIT REPORT",
                "No Password Required for Admin Account",
                "Status: PasswordRequired: FALSE",
                "Re-run your prompt:"
            ]
        );
        // The field line is prose, as before.
        assert_eq!(kinds(text).len(), 1);
    }

    #[test]
    fn list_items_headings_and_tables_are_not_prose() {
        let text = "## The plan\n1. **1A** `NCCL_ALGO=Tree` — lower latency.\n7. **6** TP4 × 2 replicas instead of TP8.\n\
                    | a | b |\n\nThe drafter is not what limits us.";
        let k = kinds(text);
        assert_eq!(k.len(), 1, "{k:?}");
        assert_eq!(k[0].1, "The drafter is not what limits us.");
        assert!(reasoning(text, 200, 4).is_empty());
    }

    #[test]
    fn numbers_with_units_are_quantified() {
        let s = statements("Fine-tuning plateaued at 38% draft acceptance. It was fine.", 200);
        assert!(s[0].quantified && !s[1].quantified);
    }

    #[test]
    fn nudges() {
        for t in [
            "continue",
            "ok, keep going",
            "what's the throughput now?",
            "Go ahead.",
            "",
            "update?",
            "update on the build?",
        ] {
            assert!(is_nudge(t), "{t}");
        }
        for t in [
            "Good plan. Start from priority 1.",
            "Acceptance is low. Can we fine-tune the drafter?",
            "why does `cargo test` fail?",
            // cc11: a request for work that starts with the word.
            "update brew cache?",
        ] {
            assert!(!is_nudge(t), "{t}");
        }
    }
}
