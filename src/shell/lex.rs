//! Tokenizer: turns shell source into words and operators.
//!
//! Works on bytes: every byte that has syntactic meaning is ASCII, and UTF-8
//! continuation bytes are all >= 0x80, so slicing the `&str` at the positions
//! of syntax bytes is always on a char boundary.
//!
//! Never fails: an unterminated quote, `$(`, `${`, backtick or heredoc simply
//! runs to the end of the input. Every scan moves `pos` forward, so lexing is
//! linear in the input (the one rescanning construct, `((`, is guarded).

/// How deep `$(`/backtick/`<(` nesting is lexed into tokens. Deeper nesting
/// is skipped with an iterative paren scan, so hostile input such as
/// 1000 nested `$(` cannot overflow the stack.
pub(super) const MAX_LEX_DEPTH: u32 = 32;

/// A word with quotes removed and expansions kept literally (`"$HOME"/x` ->
/// `$HOME/x`).
#[derive(Debug, Default)]
pub(super) struct Word {
    pub text: String,
    /// Any quoting or escaping was present: such a word is never a reserved
    /// word (`"if"` is not `if`) nor an fd number (`"2">x`).
    pub quoted: bool,
    /// Byte offset in `text` of the `=` when the word is `NAME=value` with an
    /// unquoted valid NAME (a candidate assignment).
    pub assign: Option<usize>,
    /// Command and process substitutions found outside single quotes, already
    /// tokenized (they run when the word is expanded).
    pub subs: Vec<Vec<Tok>>,
    /// For the delimiter word of `<<`/`<<-`: the here-document body.
    pub heredoc: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    AndIf,
    OrIf,
    /// `|` and `|&`
    Pipe,
    Semi,
    /// `;;`, `;&` and `;;&` (case item terminators)
    CaseEnd,
    Amp,
    LParen,
    RParen,
    Newline,
    /// A redirection operator with its optional fd number (`2>` -> Some(2)).
    Redir(Option<u32>, &'static str),
}

#[derive(Debug)]
pub(super) enum Tok {
    Word(Word),
    Op(Op),
    /// `(( expr ))` arithmetic command, inner text.
    Arith(String),
}

/// Bytes that end a run of ordinary word characters.
const WORD_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let s = b" \t\r\n|&;<>()\\'\"$`=";
    let mut i = 0;
    while i < s.len() {
        t[s[i] as usize] = true;
        i += 1;
    }
    t
};

/// Bytes that end a run inside double quotes.
const DQ_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let s = b"\"\\$`";
    let mut i = 0;
    while i < s.len() {
        t[s[i] as usize] = true;
        i += 1;
    }
    t
};

struct Lexer<'a> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
    depth: u32,
    /// `words()` mode: only whitespace separates words, no operators,
    /// comments or heredocs, substitutions are not tokenized.
    plain: bool,
    /// A `((` scan that failed reached this far; do not retry before it
    /// (keeps `((((((…` garbage linear).
    arith_fail_until: usize,
}

/// Tokenize a whole script.
pub(super) fn tokenize(s: &str) -> Vec<Tok> {
    let mut lx = Lexer::new(s, 0, false);
    lx.lex_list(false)
}

/// POSIX-ish word splitting: whitespace separates, quotes and backslashes are
/// removed, expansions are kept literally, operators are ordinary characters.
pub(super) fn plain_words(s: &str) -> Vec<String> {
    let mut lx = Lexer::new(s, 0, true);
    let mut out = Vec::new();
    loop {
        while matches!(lx.b.get(lx.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            lx.pos += 1;
        }
        if lx.pos >= lx.b.len() {
            return out;
        }
        let before = lx.pos;
        let w = lx.lex_word();
        if lx.pos == before {
            // Cannot happen with the plain special set, but never loop forever.
            lx.pos += 1;
        }
        out.push(w.text);
    }
}

fn is_name(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z' | b'A'..=b'Z' | b'_'))
        && bytes.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

impl<'a> Lexer<'a> {
    fn new(s: &'a str, depth: u32, plain: bool) -> Self {
        Lexer { s, b: s.as_bytes(), pos: 0, depth, plain, arith_fail_until: 0 }
    }

    fn peek_at(&self, off: usize) -> Option<u8> {
        self.b.get(self.pos + off).copied()
    }

    /// Lex a list of tokens. With `in_subst`, stop after the `)` that closes
    /// the enclosing `$(` / `<(` (tracking nested parens and `case` patterns,
    /// whose `)` does not close anything).
    fn lex_list(&mut self, in_subst: bool) -> Vec<Tok> {
        let mut toks: Vec<Tok> = Vec::new();
        // Heredocs whose body starts after the next newline: (token index, strip tabs).
        let mut pending: Vec<(usize, bool)> = Vec::new();
        let mut want_delim: Option<bool> = None;
        let mut paren = 0u32;
        let mut case_depth = 0u32;
        // At a position where a reserved word would be recognised; only used
        // to track `case`/`esac` so that `$(echo case)` still closes.
        let mut cmd_pos = true;
        loop {
            // Blanks and line continuations.
            loop {
                match self.peek_at(0) {
                    Some(b' ' | b'\t' | b'\r') => self.pos += 1,
                    Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                    _ => break,
                }
            }
            let Some(c) = self.peek_at(0) else { break };
            let op = match c {
                b'\n' => {
                    self.pos += 1;
                    toks.push(Tok::Op(Op::Newline));
                    for (idx, strip) in pending.drain(..) {
                        if let Some(Tok::Word(w)) = toks.get_mut(idx) {
                            w.heredoc = Some(self.read_heredoc(&w.text, strip));
                        }
                    }
                    cmd_pos = true;
                    continue;
                }
                b'#' => {
                    self.pos = self.find_byte(b'\n').unwrap_or(self.b.len());
                    continue;
                }
                b')' => {
                    self.pos += 1;
                    if in_subst && paren == 0 && case_depth == 0 {
                        break;
                    }
                    paren = paren.saturating_sub(1);
                    Op::RParen
                }
                b'(' => {
                    if self.peek_at(1) == Some(b'(')
                        && self.pos >= self.arith_fail_until
                        && let Some(end) = self.scan_arith(self.pos)
                    {
                        let inner = self.s.get(self.pos + 2..end - 2).unwrap_or("");
                        toks.push(Tok::Arith(inner.to_string()));
                        self.pos = end;
                        cmd_pos = false;
                        continue;
                    }
                    self.pos += 1;
                    paren += 1;
                    Op::LParen
                }
                b'|' => match self.peek_at(1) {
                    Some(b'|') => {
                        self.pos += 2;
                        Op::OrIf
                    }
                    Some(b'&') => {
                        self.pos += 2;
                        Op::Pipe
                    }
                    _ => {
                        self.pos += 1;
                        Op::Pipe
                    }
                },
                b'&' => match self.peek_at(1) {
                    Some(b'&') => {
                        self.pos += 2;
                        Op::AndIf
                    }
                    Some(b'>') => {
                        let op = if self.peek_at(2) == Some(b'>') { "&>>" } else { "&>" };
                        self.pos += op.len();
                        Op::Redir(None, op)
                    }
                    _ => {
                        self.pos += 1;
                        Op::Amp
                    }
                },
                b';' => match (self.peek_at(1), self.peek_at(2)) {
                    (Some(b';'), Some(b'&')) => {
                        self.pos += 3;
                        Op::CaseEnd
                    }
                    (Some(b';' | b'&'), _) => {
                        self.pos += 2;
                        Op::CaseEnd
                    }
                    _ => {
                        self.pos += 1;
                        Op::Semi
                    }
                },
                b'<' | b'>' if self.peek_at(1) != Some(b'(') => Op::Redir(None, self.redir_op()),
                _ => {
                    let w = if c == b'<' || c == b'>' { self.lex_procsub() } else { self.lex_word() };
                    // `2>file`, `2>&1`: an unquoted all-digit word glued to a redirection.
                    if !w.quoted
                        && w.subs.is_empty()
                        && (1..=9).contains(&w.text.len())
                        && w.text.bytes().all(|b| b.is_ascii_digit())
                        && matches!(self.peek_at(0), Some(b'<' | b'>'))
                        && self.peek_at(1) != Some(b'(')
                    {
                        let fd = w.text.parse().ok();
                        let op = self.redir_op();
                        if op.starts_with("<<") && op != "<<<" {
                            want_delim = Some(op == "<<-");
                        }
                        toks.push(Tok::Op(Op::Redir(fd, op)));
                        continue;
                    }
                    if let Some(strip) = want_delim.take() {
                        pending.push((toks.len(), strip));
                    }
                    if cmd_pos && !w.quoted {
                        match w.text.as_str() {
                            "case" => case_depth += 1,
                            "esac" => case_depth = case_depth.saturating_sub(1),
                            _ => {}
                        }
                    }
                    cmd_pos = !w.quoted
                        && matches!(
                            w.text.as_str(),
                            "then" | "do" | "else" | "elif" | "if" | "while" | "until" | "{" | "!"
                        );
                    toks.push(Tok::Word(w));
                    continue;
                }
            };
            if let Op::Redir(_, o) = op
                && o.starts_with("<<")
                && o != "<<<"
            {
                want_delim = Some(o == "<<-");
            }
            cmd_pos = !matches!(op, Op::Redir(..) | Op::RParen);
            toks.push(Tok::Op(op));
        }
        toks
    }

    fn find_byte(&self, needle: u8) -> Option<usize> {
        self.b.get(self.pos..)?.iter().position(|&b| b == needle).map(|p| p + self.pos)
    }

    /// At `<` or `>` (not a process substitution): consume the operator.
    fn redir_op(&mut self) -> &'static str {
        let op = match (self.peek_at(0), self.peek_at(1), self.peek_at(2)) {
            (Some(b'<'), Some(b'<'), Some(b'<')) => "<<<",
            (Some(b'<'), Some(b'<'), Some(b'-')) => "<<-",
            (Some(b'<'), Some(b'<'), _) => "<<",
            (Some(b'<'), Some(b'&'), _) => "<&",
            (Some(b'<'), Some(b'>'), _) => "<>",
            (Some(b'<'), _, _) => "<",
            (_, Some(b'>'), _) => ">>",
            (_, Some(b'&'), _) => ">&",
            (_, Some(b'|'), _) => ">|",
            _ => ">",
        };
        self.pos += op.len();
        op
    }

    /// Read a here-document body that starts at `pos`, up to and including the
    /// delimiter line. An unterminated body runs to the end of input.
    fn read_heredoc(&mut self, delim: &str, strip_tabs: bool) -> String {
        let mut body = String::new();
        while self.pos < self.b.len() {
            let end = self.find_byte(b'\n').unwrap_or(self.b.len());
            let line = self.s.get(self.pos..end).unwrap_or("");
            self.pos = (end + 1).min(self.b.len());
            let line = if strip_tabs { line.trim_start_matches('\t') } else { line };
            // Tolerate CRLF and trailing blanks after the delimiter: agents
            // write both, and a missed delimiter would swallow the script.
            if line.trim_end() == delim {
                break;
            }
            body.push_str(line);
            body.push('\n');
        }
        body
    }

    /// `s[start..]` begins with `((`. If it is an arithmetic `(( … ))` on one
    /// line, return the index just past the closing `))`.
    fn scan_arith(&mut self, start: usize) -> Option<usize> {
        let mut depth = 0u32;
        let mut inner_close = 0usize;
        let mut i = start;
        while let Some(&c) = self.b.get(i) {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 1 {
                        inner_close = i;
                    } else if depth == 0 {
                        return (inner_close + 1 == i).then_some(i + 1);
                    }
                }
                b'\\' => i += 1,
                b'\n' => break,
                _ => {}
            }
            i += 1;
        }
        self.arith_fail_until = i;
        None
    }

    /// Skip a balanced `( … )` region starting after an already-consumed `(`,
    /// without tokenizing (used past the depth limit and in plain mode).
    fn skip_parens(&mut self) {
        let mut depth = 1u32;
        while let Some(&c) = self.b.get(self.pos) {
            self.pos += 1;
            match c {
                b'\\' => self.pos += 1,
                b'\'' => self.pos = self.find_byte(b'\'').map_or(self.b.len(), |p| p + 1),
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        self.pos = self.pos.min(self.b.len());
    }

    /// After an already-consumed `(` of `$(` or `<(`: lex the inner command
    /// list, or skip it past the depth limit.
    fn lex_subst_body(&mut self) -> Option<Vec<Tok>> {
        if self.plain || self.depth >= MAX_LEX_DEPTH {
            self.skip_parens();
            return None;
        }
        self.depth += 1;
        let toks = self.lex_list(true);
        self.depth -= 1;
        Some(toks)
    }

    /// `<(cmd)` / `>(cmd)` at the start of a word.
    fn lex_procsub(&mut self) -> Word {
        let start = self.pos;
        self.pos += 2;
        let mut w = Word { quoted: true, ..Word::default() };
        if let Some(t) = self.lex_subst_body() {
            w.subs.push(t);
        }
        w.text.push_str(self.s.get(start..self.pos).unwrap_or(""));
        w
    }

    /// Lex one word starting at `pos` (which is not a blank or operator).
    fn lex_word(&mut self) -> Word {
        let mut w = Word::default();
        let mut seen_eq = false;
        while let Some(&c) = self.b.get(self.pos) {
            match c {
                // CR ends a word too: agent text often has CRLF line ends.
                b' ' | b'\t' | b'\r' | b'\n' => break,
                b'|' | b'&' | b';' | b'<' | b'>' | b'(' | b')' if !self.plain => {
                    if c == b'(' && w.assign.is_some_and(|a| a + 1 == w.text.len()) {
                        // Array assignment `a=(x y)`: keep it one word.
                        let start = self.pos;
                        self.pos += 1;
                        self.skip_parens();
                        w.text.push_str(self.s.get(start..self.pos).unwrap_or(""));
                        continue;
                    }
                    if (c == b'<' || c == b'>') && self.peek_at(1) == Some(b'(') && w.text.ends_with('=') {
                        // `--file=<(cmd)`
                        let p = self.lex_procsub();
                        w.text.push_str(&p.text);
                        w.subs.extend(p.subs);
                        continue;
                    }
                    break;
                }
                b'\\' => {
                    w.quoted = true;
                    self.pos += 1;
                    match self.s.get(self.pos..).and_then(|r| r.chars().next()) {
                        Some('\n') => self.pos += 1,
                        Some(ch) => {
                            w.text.push(ch);
                            self.pos += ch.len_utf8();
                        }
                        None => {}
                    }
                }
                b'\'' => {
                    w.quoted = true;
                    self.pos += 1;
                    let end = self.find_byte(b'\'').unwrap_or(self.b.len());
                    w.text.push_str(self.s.get(self.pos..end).unwrap_or(""));
                    self.pos = (end + 1).min(self.b.len());
                }
                b'"' => self.lex_dquote(&mut w),
                b'$' => self.lex_dollar(&mut w, false),
                b'`' => self.lex_backtick(&mut w),
                b'=' => {
                    if !seen_eq {
                        seen_eq = true;
                        if !w.quoted && is_name(&w.text) {
                            w.assign = Some(w.text.len());
                        }
                    }
                    w.text.push('=');
                    self.pos += 1;
                }
                _ => {
                    let start = self.pos;
                    self.pos += 1;
                    while let Some(&c) = self.b.get(self.pos) {
                        if WORD_SPECIAL[c as usize] {
                            break;
                        }
                        self.pos += 1;
                    }
                    w.text.push_str(self.s.get(start..self.pos).unwrap_or(""));
                }
            }
        }
        w
    }

    /// At `"`: the rest of a double-quoted string.
    fn lex_dquote(&mut self, w: &mut Word) {
        w.quoted = true;
        self.pos += 1;
        while let Some(&c) = self.b.get(self.pos) {
            match c {
                b'"' => {
                    self.pos += 1;
                    return;
                }
                b'\\' => match self.peek_at(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(n @ (b'$' | b'`' | b'"' | b'\\')) => {
                        w.text.push(n as char);
                        self.pos += 2;
                    }
                    _ => {
                        w.text.push('\\');
                        self.pos += 1;
                    }
                },
                b'$' => self.lex_dollar(w, true),
                b'`' => self.lex_backtick(w),
                _ => {
                    let start = self.pos;
                    while let Some(&c) = self.b.get(self.pos) {
                        if DQ_SPECIAL[c as usize] {
                            break;
                        }
                        self.pos += 1;
                    }
                    w.text.push_str(self.s.get(start..self.pos).unwrap_or(""));
                }
            }
        }
    }

    /// At `$`: an expansion, kept literally in the text; `$(…)` bodies are
    /// tokenized into `w.subs`.
    fn lex_dollar(&mut self, w: &mut Word, in_dquote: bool) {
        let start = self.pos;
        match self.peek_at(1) {
            Some(b'(') => {
                if self.peek_at(2) == Some(b'(')
                    && self.pos + 1 >= self.arith_fail_until
                    && let Some(end) = self.scan_arith(self.pos + 1)
                {
                    self.pos = end;
                } else {
                    self.pos += 2;
                    if let Some(t) = self.lex_subst_body() {
                        w.subs.push(t);
                    }
                }
            }
            Some(b'{') => {
                self.pos += 2;
                let mut depth = 1u32;
                while let Some(&c) = self.b.get(self.pos) {
                    self.pos += 1;
                    match c {
                        b'\\' => self.pos += 1,
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                self.pos = self.pos.min(self.b.len());
            }
            Some(b'\'') if !in_dquote => {
                self.pos += 2;
                w.quoted = true;
                self.lex_ansi_c(w);
                return;
            }
            Some(b'"') if !in_dquote => {
                self.pos += 1;
                self.lex_dquote(w);
                return;
            }
            _ => self.pos += 1,
        }
        w.text.push_str(self.s.get(start..self.pos).unwrap_or(""));
    }

    /// After `$'`: ANSI-C quoted string with the common escapes decoded.
    fn lex_ansi_c(&mut self, w: &mut Word) {
        while let Some(&c) = self.b.get(self.pos) {
            match c {
                b'\'' => {
                    self.pos += 1;
                    return;
                }
                b'\\' => {
                    let decoded = match self.peek_at(1) {
                        Some(b'n') => Some('\n'),
                        Some(b't') => Some('\t'),
                        Some(b'r') => Some('\r'),
                        Some(b'\\') => Some('\\'),
                        Some(b'\'') => Some('\''),
                        Some(b'"') => Some('"'),
                        Some(b'e' | b'E') => Some('\u{1b}'),
                        Some(b'a') => Some('\u{7}'),
                        Some(b'0') => Some('\0'),
                        _ => None,
                    };
                    if let Some(ch) = decoded {
                        w.text.push(ch);
                        self.pos += 2;
                    } else {
                        w.text.push('\\');
                        self.pos += 1;
                    }
                }
                _ => {
                    let start = self.pos;
                    while let Some(&c) = self.b.get(self.pos) {
                        if c == b'\'' || c == b'\\' {
                            break;
                        }
                        self.pos += 1;
                    }
                    w.text.push_str(self.s.get(start..self.pos).unwrap_or(""));
                }
            }
        }
    }

    /// At `` ` ``: old-style command substitution. Its body is unescaped
    /// (`\``, `\\`, `\$`) and tokenized as a separate string.
    fn lex_backtick(&mut self, w: &mut Word) {
        let start = self.pos;
        self.pos += 1;
        let mut body = String::new();
        while let Some(&c) = self.b.get(self.pos) {
            match c {
                b'`' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    // Only \`, \\ and \$ are escapes inside backticks.
                    if let Some(n @ (b'`' | b'\\' | b'$')) = self.peek_at(1) {
                        body.push(n as char);
                        self.pos += 2;
                    } else {
                        body.push('\\');
                        self.pos += 1;
                    }
                }
                _ => {
                    let run_start = self.pos;
                    while let Some(&c) = self.b.get(self.pos) {
                        if c == b'`' || c == b'\\' {
                            break;
                        }
                        self.pos += 1;
                    }
                    body.push_str(self.s.get(run_start..self.pos).unwrap_or(""));
                }
            }
        }
        self.pos = self.pos.min(self.b.len());
        w.text.push_str(self.s.get(start..self.pos).unwrap_or(""));
        if !self.plain && self.depth < MAX_LEX_DEPTH {
            let mut sub = Lexer::new(&body, self.depth + 1, false);
            w.subs.push(sub.lex_list(false));
        }
    }
}
