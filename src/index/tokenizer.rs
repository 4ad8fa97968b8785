//! The tokenizer that makes code and log text searchable the way people type it.
//!
//! A word is a maximal run of letters, digits and `_`; it is lowercased and emitted
//! whole, so `NCCL_MAX_NCHANNELS`, `snake_case_name`, `E0382` and `0x7f3a` are single
//! terms. A word made of parts (`snake_case`, `camelCase`, `HTTPServer2`) also emits
//! each part at the same position, so `nchannels` or `server` alone find it. Everything
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
pub struct CodeTokenizer;

pub struct CodeTokenStream<'a> {
    text: &'a str,
    pos: usize,
    position: usize,
    token: Token,
    /// Sub-parts of the current word still to emit: (start, end) byte ranges.
    parts: Vec<(usize, usize)>,
    started: bool,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        CodeTokenStream { text, pos: 0, position: 0, token: Token::default(), parts: Vec::new(), started: false }
    }
}

#[inline]
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Next word in `text` from byte `from`: (start, end).
pub fn next_word(text: &str, from: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut i = from;
    // Skip separators.
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if is_word_byte(b) {
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
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if !is_word_byte(b) {
                break;
            }
            i += 1;
        } else {
            let Some(c) = text[i..].chars().next() else { break };
            if !c.is_alphanumeric() {
                break;
            }
            i += c.len_utf8();
        }
    }
    Some((start, i))
}

/// Byte ranges of the parts of a word: split at `_`, at lower→upper case changes, and
/// at an upper-case run followed by lower case (`HTTPServer` → `HTTP`, `Server`).
/// Letters and digits stay together (`sm120`, `eagle3`, `E0382` are one part).
/// Empty when the word has a single part.
pub fn word_parts(word: &str) -> Vec<(usize, usize)> {
    let b = word.as_bytes();
    if !b.is_ascii() {
        return Vec::new();
    }
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'_' {
            if i > start {
                parts.push((start, i));
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
                parts.push((start, i));
                start = i;
            }
        }
        i += 1;
    }
    if start < b.len() && !parts.is_empty() {
        parts.push((start, b.len()));
    }
    parts
}

impl CodeTokenStream<'_> {
    fn set(&mut self, start: usize, end: usize) {
        self.token.offset_from = start;
        self.token.offset_to = end;
        self.token.position = self.position;
        self.token.position_length = 1;
        self.token.text.clear();
        for c in self.text[start..end].chars() {
            if c.is_ascii() {
                self.token.text.push(c.to_ascii_lowercase());
            } else {
                self.token.text.extend(c.to_lowercase());
            }
        }
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if let Some((s, e)) = self.parts.pop() {
            self.set(s, e);
            return true;
        }
        loop {
            let Some((start, end)) = next_word(self.text, self.pos) else {
                return false;
            };
            self.pos = end;
            if end - start > MAX_WORD {
                continue;
            }
            if self.started {
                self.position += 1;
            }
            self.started = true;
            self.set(start, end);
            let parts = word_parts(&self.text[start..end]);
            // Reverse so that `pop` emits them in order.
            self.parts.extend(parts.iter().rev().map(|(s, e)| (start + s, start + e)));
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
        let mut t = CodeTokenizer;
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
        let words: Vec<String> = tokens("ServerArgs HTTPServer").into_iter().map(|t| t.0).collect();
        assert_eq!(words, vec!["serverargs", "server", "args", "httpserver", "http", "server"]);
    }

    #[test]
    fn paths_and_scopes_are_word_sequences() {
        let t: Vec<String> = tokens("/data/logs/exp_1b.log foo::bar").into_iter().map(|t| t.0).collect();
        assert_eq!(t, vec!["data", "logs", "exp_1b", "exp", "1b", "log", "foo", "bar"]);
        assert_eq!(query_words("logs/exp_1b.log"), vec!["logs", "exp_1b", "log"]);
    }

    #[test]
    fn long_blobs_are_skipped_and_unicode_kept() {
        let blob = "A".repeat(100);
        let t: Vec<String> = tokens(&format!("x {blob} Größe")).into_iter().map(|t| t.0).collect();
        assert_eq!(t, vec!["x", "größe"]);
    }
}
