//! The assistant's own words, as the detectors that read conclusions need them: text
//! without code blocks or quotations (an agent writing "I was wrong" into a file, or
//! quoting a log line, is not saying it), split into sentences, with a guard for
//! conditional and questioning phrasing ("if it crashed", "did it crash?").

use std::sync::LazyLock;

use regex::Regex;

use super::fences::{self, Place};
use super::text::{quote, without_ansi};

/// The message text minus fenced code blocks, quoted lines (`> …`) and aider-style
/// SEARCH/REPLACE bodies; inline code keeps its content (agents name things in it).
pub fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (place, line) in fences::lines(text) {
        if place != Place::Text || line.trim_start().starts_with('>') {
            continue;
        }
        out.push_str(&line.replace('`', ""));
        out.push('\n');
    }
    out
}

/// The prose of `text` from `sentence` on, on one line, at most `n` characters: a
/// quote that starts where the point is made and keeps what follows it.
pub fn quote_from(text: &str, sentence: &str, n: usize) -> String {
    let p = prose(text);
    let from = p.find(sentence).map(|i| &p[i..]).unwrap_or(sentence);
    quote(from, n)
}

/// `sentence` as `text` writes it, with the mark that ends it (`It's still loading!`),
/// on one line, at most `n` characters. A sentence that only introduces what follows
/// (`Uncaught runtime errors:`) is quoted with what it introduces.
pub fn sentence_quote(text: &str, sentence: &str, n: usize) -> String {
    if sentence.trim_end().ends_with(':') {
        return quote_from(&without_ansi(text), sentence, n);
    }
    let p = prose(text);
    let end = p.find(sentence).map(|i| i + sentence.len());
    let mark = end.and_then(|e| p[e..].chars().next()).filter(|c| matches!(c, '.' | '!' | '?' | '。' | '！' | '？'));
    match mark {
        Some(m) => quote(&format!("{sentence}{m}"), n),
        None => quote(sentence, n),
    }
}

/// Sentences (and list items): split at `.`, `!`, `?` followed by a space or the end,
/// at the full-width `。`, `！`, `？` of Chinese and Japanese (which no space follows),
/// and at line breaks. Each comes with the character that ended it (full-width marks
/// as their ASCII counterparts, so a `？` question is a `?` one).
pub fn sentences(text: &str) -> Vec<(&str, Option<char>)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, ch) in text.char_indices() {
        let end = match ch {
            '\n' => Some(None),
            '.' | '!' | '?' => bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace()).then_some(Some(ch)),
            '。' => Some(Some('.')),
            '！' => Some(Some('!')),
            '？' => Some(Some('?')),
            _ => None,
        };
        if let Some(mark) = end {
            let s = text[start..i].trim();
            if !s.is_empty() {
                out.push((s, mark));
            }
            start = i + ch.len_utf8();
        }
    }
    let s = text[start..].trim();
    if !s.is_empty() {
        out.push((s, None));
    }
    out
}

/// "You're right", in the languages people write to agents in: the assistant conceding
/// the person's point. Not "you're right to worry": a reader handles that one apart.
pub static CONCEDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?:you['’]?re|you\s+are|you\s+were)\s+(?:absolutely\s+|totally\s+|completely\s+|quite\s+|entirely\s+|so\s+|100%\s+)?(?:right|correct)\b",
        r"|你说得对|您说得对|你說得對|您說得對|你说的对|你說的對|你是对的|你是對的|おっしゃる通り|ご指摘の通り",
        r"|\btienes?\s+raz[oó]n\b|\bdu\s+hast\s+recht\b|\bsie\s+haben\s+recht\b|\bvous\s+avez\s+raison\b|\btu\s+as\s+raison\b",
        r"|\bhai\s+ragione\b|\bha\s+ragione\b|\bvoc[eê]\s+tem\s+raz[aã]o\b|\bвы\s+правы\b|\bты\s+прав\b",
    ))
    .expect("concession regex is valid")
});

/// The assistant's message opens by conceding the person's point: "You're right", "You're
/// absolutely right!", "你说得对" in its first two sentences, not in a question, not hedged,
/// and not "you're right to worry" (a worry granted, not a point). The conceding sentence.
pub fn opens_conceding(text: &str) -> Option<String> {
    let p = prose(text);
    sentences(&p).into_iter().take(2).find_map(|(s, end)| {
        let m = CONCEDE.find(s)?;
        let granted = s[m.end()..].trim_start().starts_with("to ");
        (end != Some('?') && !granted && !hedged(clause_before(s, m.start()))).then(|| s.to_string())
    })
}

static HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:if|whether|unless|in case|might|may|could|would|should|maybe|perhaps|possibly|whatever|assuming|suppose|wonder|verify|confirm|make sure|ensure|determine|figure out|find out|not sure|in order|to avoid|prevent|so that)\b",
    )
    .expect("hedge regex is valid")
});

/// The words before a match make it conditional, a question or a plan to check rather
/// than a statement ("let me check whether the server crashed").
pub fn hedged(before: &str) -> bool {
    HEDGE.is_match(before)
}

/// The part of `sentence` before byte `at`, limited to the clause the match is in
/// (after the last comma, semicolon, dash or colon).
pub fn clause_before(sentence: &str, at: usize) -> &str {
    let head = &sentence[..at];
    let cut = head.rfind([',', ';', ':', '—', '(']).map(|i| i + head[i..].chars().next().map_or(1, char::len_utf8));
    match cut {
        Some(c) => &head[c..],
        None => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_and_quotes_are_not_prose() {
        let t = "I was right.\n```\nI was wrong\n```\n> I was wrong too\nUse `grep` here.";
        let p = prose(t);
        assert!(!p.contains("wrong"));
        assert!(p.contains("Use grep here."));
    }

    #[test]
    fn sentences_keep_their_end() {
        let s = sentences("It crashed. Did it crash? Version 1.2 works!\nnext");
        assert_eq!(
            s,
            vec![
                ("It crashed", Some('.')),
                ("Did it crash", Some('?')),
                ("Version 1.2 works", Some('!')),
                ("next", None)
            ]
        );
        assert_eq!(
            sentences("您说得对！这不正常。对吗？"),
            vec![("您说得对", Some('!')), ("这不正常", Some('.')), ("对吗", Some('?'))]
        );
    }

    #[test]
    fn a_sentence_that_introduces_is_quoted_with_what_it_introduces() {
        let t = "Uncaught runtime errors:\n× ERROR useCallback is not defined\nat CalendarView";
        assert_eq!(
            sentence_quote(t, "Uncaught runtime errors:", 80),
            "Uncaught runtime errors: × ERROR useCallback is not defined at CalendarView"
        );
        assert_eq!(sentence_quote("It is still failing! See log.", "It is still failing", 80), "It is still failing!");
        let colour = "commit error:\n\u{1b}[1;33mRunning gitleaks scan\u{1b}[0m";
        assert_eq!(sentence_quote(colour, "commit error:", 80), "commit error: Running gitleaks scan");
    }

    #[test]
    fn hedges() {
        assert!(hedged("let me check whether "));
        assert!(hedged("If "));
        assert!(!hedged("It looks like "));
        assert_eq!(clause_before("Loaded 3 shards, then the server crashed", 33), " then the server ");
    }
}
