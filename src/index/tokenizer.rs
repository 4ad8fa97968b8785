//! The tokenizer that makes code and log text searchable the way people type it.
//!
//! A word is a maximal run of letters, digits and `_`; it is lowercased and emitted
//! whole, so `NCCL_MAX_NCHANNELS`, `snake_case_name`, `E0382` and `0x7f3a` are single
//! terms. A word made of parts (`snake_case`, `camelCase`, `HTTPServer2`) also emits
//! each part at the same position, so `nchannels` or `server` alone find it. A part is
//! emitted once per text (at its first occurrence): parts exist so that a message is
//! *found* by a part, and repeating them for every occurrence of an identifier in a
//! long log made up a third of all indexing work. Everything
//! else separates words, and each word advances the position by one: a query such as
//! `foo::bar` or `logs/exp.log` becomes the phrase of its words and matches exactly
//! that sequence. Words over [`MAX_WORD`] bytes (base64, hashes of blobs) are skipped.
//!
//! Queries are split with [`query_words`], which does not emit parts: the whole word
//! `nccl_max_nchannels` must match whole.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Longer words are noise (blobs, minified code) and would bloat the term dictionary.
pub const MAX_WORD: usize = 64;

/// Name the tokenizer is registered under.
pub const NAME: &str = "code";

#[derive(Clone, Default)]
pub struct CodeTokenizer {
    /// Parts emitted so far in the current text, reused from text to text.
    seen: SeenParts,
}

/// Parts already emitted in the current text: an open-addressing set of
/// case-insensitive hashes, each with where the part first occurred (compared on a hash
/// hit, so a collision never drops a part). Emptied in O(1) by bumping a generation, as
/// it is emptied for every message.
#[derive(Clone, Default)]
pub struct SeenParts {
    /// (generation, hash, start, end); a slot is empty unless its generation is current.
    slots: Vec<(u32, u64, u32, u32)>,
    generation: u32,
    len: usize,
}

impl SeenParts {
    fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Wrapped around: old slots could look current.
            self.slots.iter_mut().for_each(|s| s.0 = 0);
            self.generation = 1;
        }
    }

    /// Record `text[s..e]`; true when no equal part (ignoring case) was recorded.
    fn insert(&mut self, text: &str, s: usize, e: usize) -> bool {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let part = &text.as_bytes()[s..e];
        let hash = part_hash(part);
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let (generation, h, a, b) = self.slots[i];
            if generation != self.generation {
                self.slots[i] = (self.generation, hash, s as u32, e as u32);
                self.len += 1;
                return true;
            }
            if h == hash && text.as_bytes()[a as usize..b as usize].eq_ignore_ascii_case(part) {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let generation = self.generation;
        self.slots = vec![(0, 0, 0, 0); (old.len() * 2).max(64)];
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|s| s.0 == generation) {
            let mut i = slot.1 as usize & mask;
            while self.slots[i].0 == generation {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }
}

/// Hash of an ASCII part, ignoring case.
fn part_hash(part: &[u8]) -> u64 {
    // Parts are ASCII letters and digits, where setting bit 0x20 lowercases a letter
    // and leaves a digit alone: hash eight bytes at a time.
    const LOWER: u64 = 0x2020_2020_2020_2020;
    let mut h = (part.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut chunks = part.chunks_exact(8);
    for c in &mut chunks {
        let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) | LOWER;
        h = (h ^ v).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 31;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut b = [0u8; 8];
        b[..rest.len()].copy_from_slice(rest);
        let v = u64::from_le_bytes(b) | (LOWER >> (8 * (8 - rest.len())));
        h = (h ^ v).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
    h ^= h >> 29;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 32)
}

pub struct CodeTokenStream<'a> {
    text: &'a str,
    pos: usize,
    position: usize,
    token: Token,
    /// Sub-parts of the current word still to emit: (start, end) byte ranges, last first.
    parts: Vec<(usize, usize)>,
    seen: &'a mut SeenParts,
    started: bool,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        self.seen.clear();
        CodeTokenStream {
            text,
            pos: 0,
            position: 0,
            token: Token::default(),
            parts: Vec::new(),
            seen: &mut self.seen,
            started: false,
        }
    }
}

/// Byte classes for ASCII: word bytes, and which of them are upper case or `_` (the
/// only bytes that can split a word into parts). Indexing spends most of its time
/// here, so the classes are a table lookup.
const WORD: u8 = 1;
const SPLITS: u8 = 2;
const UPPER: u8 = 4;
static CLASS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            t[b] = WORD;
        } else if c.is_ascii_uppercase() {
            t[b] = WORD | SPLITS | UPPER;
        } else if c == b'_' {
            t[b] = WORD | SPLITS;
        }
        b += 1;
    }
    t
};

/// A word found by [`scan_word`]: its byte range, whether it is all ASCII, and whether
/// it may have parts (it holds an upper-case letter or `_`).
struct Scanned {
    start: usize,
    end: usize,
    ascii: bool,
    splits: bool,
    /// It holds an ASCII upper-case letter (else it is lower case already, if ASCII).
    upper: bool,
}

#[inline]
fn scan_word(text: &str, from: usize) -> Option<Scanned> {
    let bytes = text.as_bytes();
    let mut i = from;
    // Skip separators.
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if CLASS[b as usize] & WORD != 0 {
                break;
            }
            i += 1;
        } else {
            let c = text[i..].chars().next()?;
            if c.is_alphanumeric() {
                break;
            }
            i += c.len_utf8();
        }
    }
    if i >= bytes.len() {
        return None;
    }
    let start = i;
    let mut ascii = true;
    let mut splits = false;
    let mut classes = 0u8;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            let class = CLASS[b as usize];
            if class & WORD == 0 {
                break;
            }
            classes |= class;
            // An upper-case letter or `_` after the first byte: `The` or `_x` have no parts.
            splits |= class & SPLITS != 0 && i > start;
            i += 1;
        } else {
            let Some(c) = text[i..].chars().next() else { break };
            if !c.is_alphanumeric() {
                break;
            }
            ascii = false;
            i += c.len_utf8();
        }
    }
    Some(Scanned { start, end: i, ascii, splits, upper: classes & UPPER != 0 })
}

/// Next word in `text` from byte `from`: (start, end).
pub fn next_word(text: &str, from: usize) -> Option<(usize, usize)> {
    scan_word(text, from).map(|w| (w.start, w.end))
}

/// Byte ranges of the parts of a word: split at `_`, at lower→upper case changes, and
/// at an upper-case run followed by lower case (`HTTPServer` → `HTTP`, `Server`).
/// Letters and digits stay together (`sm120`, `eagle3`, `E0382` are one part).
/// Empty when the word has a single part.
pub fn word_parts(word: &str) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    push_parts(word, 0, &mut parts);
    parts
}

/// [`word_parts`] of `word` (which starts at byte `base` of its text), appended to `out`
/// with the offsets of the text. Appends nothing when the word has a single part.
fn push_parts(word: &str, base: usize, out: &mut Vec<(usize, usize)>) {
    let b = word.as_bytes();
    if !b.is_ascii() {
        return;
    }
    let first = out.len();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'_' {
            if i > start {
                out.push((base + start, base + i));
            }
            start = i + 1;
        } else if i > start {
            let prev = b[i - 1];
            let cur = b[i];
            let lower_to_upper = prev.is_ascii_lowercase() && cur.is_ascii_uppercase();
            let acronym_end = prev.is_ascii_uppercase()
                && cur.is_ascii_uppercase()
                && b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
            if lower_to_upper || acronym_end {
                out.push((base + start, base + i));
                start = i;
            }
        }
        i += 1;
    }
    if start < b.len() && out.len() > first {
        out.push((base + start, base + b.len()));
    }
}

impl CodeTokenStream<'_> {
    /// Make the token `text[start..end]`, lowercased: ASCII words with `upper` set
    /// are lowercased in place, ASCII words without it are copied as they are.
    fn set(&mut self, start: usize, end: usize, ascii: bool, upper: bool) {
        self.token.offset_from = start;
        self.token.offset_to = end;
        self.token.position = self.position;
        self.token.position_length = 1;
        self.token.text.clear();
        let word = &self.text[start..end];
        if ascii {
            self.token.text.push_str(word);
            if upper {
                self.token.text.make_ascii_lowercase();
            }
        } else {
            for c in word.chars() {
                if c.is_ascii() {
                    self.token.text.push(c.to_ascii_lowercase());
                } else {
                    self.token.text.extend(c.to_lowercase());
                }
            }
        }
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if let Some((s, e)) = self.parts.pop() {
            self.set(s, e, true, true);
            return true;
        }
        loop {
            let Some(w) = scan_word(self.text, self.pos) else {
                return false;
            };
            self.pos = w.end;
            if w.end - w.start > MAX_WORD {
                continue;
            }
            if self.started {
                self.position += 1;
            }
            self.started = true;
            self.set(w.start, w.end, w.ascii, w.upper);
            if w.splits && w.ascii {
                push_parts(&self.text[w.start..w.end], w.start, &mut self.parts);
                let (text, seen) = (self.text, &mut *self.seen);
                self.parts.retain(|&(s, e)| seen.insert(text, s, e));
                // Reverse so that `pop` emits them in order.
                self.parts.reverse();
            }
            return true;
        }
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

/// Lowercased whole words of a query string (no parts), as the index spells them.
pub fn query_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some((s, e)) = next_word(text, from) {
        from = e;
        if e - s <= MAX_WORD {
            out.push(text[s..e].to_lowercase());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<(String, usize)> {
        let mut t = CodeTokenizer::default();
        let mut s = t.token_stream(text);
        let mut out = Vec::new();
        while s.advance() {
            out.push((s.token().text.clone(), s.token().position));
        }
        out
    }

    #[test]
    fn identifiers_are_whole_and_in_parts() {
        let t = tokens("NCCL_MAX_NCHANNELS=2");
        assert_eq!(
            t,
            vec![
                ("nccl_max_nchannels".into(), 0),
                ("nccl".into(), 0),
                ("max".into(), 0),
                ("nchannels".into(), 0),
                ("2".into(), 1)
            ]
        );
    }

    #[test]
    fn camel_case_and_acronyms_split() {
        let words = |text: &str| -> Vec<String> { tokens(text).into_iter().map(|t| t.0).collect() };
        assert_eq!(words("ServerArgs"), vec!["serverargs", "server", "args"]);
        assert_eq!(words("HTTPServer"), vec!["httpserver", "http", "server"]);
    }

    #[test]
    fn paths_and_scopes_are_word_sequences() {
        let t: Vec<String> = tokens("/data/logs/exp_1b.log foo::bar").into_iter().map(|t| t.0).collect();
        assert_eq!(t, vec!["data", "logs", "exp_1b", "exp", "1b", "log", "foo", "bar"]);
        assert_eq!(query_words("logs/exp_1b.log"), vec!["logs", "exp_1b", "log"]);
    }

    /// The plain statement of the rules, as first written: the fast tokenizer must
    /// give exactly its tokens.
    fn reference_tokens(text: &str) -> Vec<(String, usize, usize, usize)> {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let mut out = Vec::new();
        let mut position = 0;
        let mut started = false;
        let mut seen_parts = std::collections::HashSet::new();
        let mut chars = text.char_indices().peekable();
        while let Some(&(start, c)) = chars.peek() {
            if !word(c) {
                chars.next();
                continue;
            }
            let mut end = start;
            while let Some(&(i, c)) = chars.peek() {
                if !word(c) {
                    break;
                }
                end = i + c.len_utf8();
                chars.next();
            }
            if end - start > MAX_WORD {
                continue;
            }
            if started {
                position += 1;
            }
            started = true;
            let w = &text[start..end];
            out.push((w.to_lowercase(), position, start, end));
            if w.is_ascii() {
                let b = w.as_bytes();
                let mut parts = Vec::new();
                let mut s = 0;
                for i in 0..b.len() {
                    if b[i] == b'_' {
                        if i > s {
                            parts.push((s, i));
                        }
                        s = i + 1;
                    } else if i > s
                        && ((b[i - 1].is_ascii_lowercase() && b[i].is_ascii_uppercase())
                            || (b[i - 1].is_ascii_uppercase()
                                && b[i].is_ascii_uppercase()
                                && b.get(i + 1).is_some_and(u8::is_ascii_lowercase)))
                    {
                        parts.push((s, i));
                        s = i;
                    }
                }
                if s < b.len() && !parts.is_empty() {
                    parts.push((s, b.len()));
                }
                for (a, e) in parts {
                    if seen_parts.insert(w[a..e].to_lowercase()) {
                        out.push((w[a..e].to_lowercase(), position, start + a, start + e));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn fast_tokenizer_matches_the_reference_rules() {
        const ALPHABET: &[&str] = &[
            "a",
            "Z",
            "q",
            "B",
            "_",
            "_",
            "0",
            "7",
            " ",
            "\n",
            "\r",
            ".",
            "/",
            ":",
            "-",
            "é",
            "Ä",
            "ß",
            "日本",
            "—",
            "█",
            "İ",
            "x",
            "Y",
            "HTTP",
            "Server",
            "snake_case",
            "NCCL_MAX",
            "0x7f",
            "\t",
            "(",
            ")",
            "\"",
            "'",
        ];
        use rand::{Rng as _, SeedableRng as _, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(7);
        // One tokenizer for all texts: what it remembers must not leak from one to the next.
        let mut t = CodeTokenizer::default();
        for round in 0..3000 {
            let mut text = String::new();
            let n = rng.random_range(0..=if round % 100 == 0 { 400 } else { 40 });
            for _ in 0..n {
                text.push_str(ALPHABET[rng.random_range(0..ALPHABET.len())]);
            }
            let mut s = t.token_stream(&text);
            let mut got = Vec::new();
            while s.advance() {
                let k = s.token();
                got.push((k.text.clone(), k.position, k.offset_from, k.offset_to));
            }
            assert_eq!(got, reference_tokens(&text), "text {text:?}");
        }
    }

    #[test]
    fn parts_are_emitted_once_per_text_whole_words_every_time() {
        let t = tokens("ServerArgs server_args SERVER_ARGS server");
        assert_eq!(
            t,
            vec![
                ("serverargs".into(), 0),
                ("server".into(), 0),
                ("args".into(), 0),
                ("server_args".into(), 1),
                ("server_args".into(), 2),
                ("server".into(), 3)
            ]
        );
    }

    #[test]
    fn the_seen_set_grows_and_empties() {
        let text: String = (0..5000).map(|i| format!("Part{i} ")).collect();
        let spans: Vec<(usize, usize)> = {
            let mut v = Vec::new();
            let mut from = 0;
            while let Some(w) = next_word(&text, from) {
                v.push(w);
                from = w.1;
            }
            v
        };
        let mut seen = SeenParts::default();
        for round in 0..3 {
            seen.clear();
            assert!(spans.iter().all(|&(s, e)| seen.insert(&text, s, e)), "round {round}: all new");
            assert!(spans.iter().all(|&(s, e)| !seen.insert(&text, s, e)), "round {round}: all seen");
        }
        let upper = text.to_uppercase();
        assert!(!seen.insert(&upper, spans[7].0, spans[7].1), "case is ignored");
    }

    #[test]
    fn long_blobs_are_skipped_and_unicode_kept() {
        let blob = "A".repeat(100);
        let t: Vec<String> = tokens(&format!("x {blob} Größe")).into_iter().map(|t| t.0).collect();
        assert_eq!(t, vec!["x", "größe"]);
    }
}
