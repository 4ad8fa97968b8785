//! The one walk over a message's lines that knows which are fenced code: every prose
//! scanner (statements, claims, the pushback and context-dump detectors) reads a
//! message through [`lines`] instead of keeping its own fence toggle.
//!
//! A fence opens on a line that starts (after any indentation) with ```` ``` ```` or
//! `~~~` and closes on the next line that starts with the same mark; a fence never
//! closed runs to the end of the text, as CommonMark has it. Indentation is not
//! limited to CommonMark's three spaces, because agents nest fences in list items
//! without the list's exact indentation.
//!
//! Why not pulldown-cmark (not a dependency; tried in a scratch crate, 0.13): measured on the 11,853 messages of the real sessions on the machine
//! (eval/real, corpus-real, real-agents; 3.7 MB of text, 300 messages with a fence),
//! its fenced code blocks cover the same lines as this walk in 11,852 messages; in the
//! one other, indented `~~~~^^` lines of a Python traceback open a fence here and not
//! there. But (1) it takes 45 ms over those messages against 3.6 ms for this walk, and
//! [`super::statements::prose`] is run several times per message by the detectors;
//! (2) its indented code blocks (four spaces) would claim 222 lines of prose in 20
//! of those messages, list continuations and pasted logs the agents meant as text, so
//! only its fenced blocks could be used; (3) aider's chat history fences code in
//! `<source>` … `</source>`, which CommonMark reads as an HTML block ending at the next
//! blank line ([`AIDER_FENCES`]). So the walk stays one hand-written iterator.

/// Where a line stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A line that opens or closes a fence (```` ```python ````, `~~~`).
    Fence,
    /// A line inside fenced code.
    Code,
    /// A line outside any fence.
    Text,
}

/// The Markdown fences: each opening mark with the mark that closes it.
pub const MARKDOWN_FENCES: &[(&str, &str)] = &[("```", "```"), ("~~~", "~~~")];

/// The Markdown fences and the `<source>` … `</source>` fences of aider's chat history.
pub const AIDER_FENCES: &[(&str, &str)] = &[("```", "```"), ("~~~", "~~~"), ("<source", "</source>")];

/// The lines of `text` (as [`str::lines`] gives them), each with its [`Place`] under
/// the Markdown fences.
pub fn lines(text: &str) -> Lines<'_> {
    lines_with(text, MARKDOWN_FENCES)
}

/// The lines of `text`, each with its [`Place`] under `fences`.
pub fn lines_with<'a>(text: &'a str, fences: &'static [(&'static str, &'static str)]) -> Lines<'a> {
    Lines { lines: text.lines(), fences, close: None }
}

/// The iterator [`lines`] returns.
pub struct Lines<'a> {
    lines: std::str::Lines<'a>,
    fences: &'static [(&'static str, &'static str)],
    /// The mark that closes the fence the walk is in.
    close: Option<&'static str>,
}

impl<'a> Iterator for Lines<'a> {
    type Item = (Place, &'a str);

    fn next(&mut self) -> Option<(Place, &'a str)> {
        let line = self.lines.next()?;
        let t = line.trim_start();
        if let Some(close) = self.close {
            if t.starts_with(close) {
                self.close = None;
                return Some((Place::Fence, line));
            }
            return Some((Place::Code, line));
        }
        match self.fences.iter().find(|(open, _)| t.starts_with(open)) {
            Some((_, close)) => {
                self.close = Some(close);
                Some((Place::Fence, line))
            }
            None => Some((Place::Text, line)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(text: &str) -> Vec<Place> {
        lines(text).map(|(p, _)| p).collect()
    }

    #[test]
    fn a_fence_closes_only_on_its_own_mark() {
        use Place::*;
        let t = "a\n```md\n~~~\nb\n```\nc\n~~~\n```\n~~~";
        assert_eq!(places(t), [Text, Fence, Code, Code, Fence, Text, Fence, Code, Fence]);
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end_and_indented_fences_count() {
        use Place::*;
        assert_eq!(places("- item\n   ```\n   x\ny"), [Text, Fence, Code, Code]);
    }

    #[test]
    fn aider_source_fences_close_on_their_end_tag() {
        use Place::*;
        let p: Vec<Place> = lines_with("<source>\nx\n```\n</source>\ny", AIDER_FENCES).map(|(p, _)| p).collect();
        assert_eq!(p, [Fence, Code, Code, Fence, Text]);
    }
}
