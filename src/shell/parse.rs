//! Recovering recursive-descent parser: tokens -> flat [`SimpleCommand`]s.
//!
//! It never fails. A token that cannot be placed (a stray `fi`, `)` or `;;`
//! at top level) is skipped; a compound command whose closing keyword is
//! missing just ends where its list ends. Every loop consumes at least one
//! token per round, so parsing terminates and stays linear.

use super::builder::{Ctx, Fl, MAX_DEPTH, Out};
use super::lex::{self, Op, Tok, Word};
use super::wrap;
use super::{LoopKind, Redirect};

/// Lex and parse `src` into `out` in context `ctx`.
pub(super) fn parse_str(src: &str, out: &mut Out, ctx: &Ctx, fl: Fl) {
    if fl.depth >= MAX_DEPTH {
        return;
    }
    let toks = lex::tokenize(src);
    Parser { toks, i: 0, out }.list(ctx, fl, true);
}

/// Keywords the parser dispatches on (only for unquoted words in command
/// position).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kw {
    Subshell,
    Group,
    If,
    While,
    Until,
    For,
    Select,
    Case,
    Function,
    DBracket,
    /// `then`, `fi`, `done`, `}`…: ends an enclosing list.
    Terminator,
    /// `name() …` function definition.
    FuncDef,
    Simple,
    /// Any other operator: not a command.
    Nothing,
    Arith,
}

struct Parser<'o> {
    toks: Vec<Tok>,
    i: usize,
    out: &'o mut Out,
}

fn is_terminator_word(s: &str) -> bool {
    matches!(s, "then" | "elif" | "else" | "fi" | "do" | "done" | "esac" | "}")
}

impl Parser<'_> {
    fn peek_op(&self) -> Option<Op> {
        match self.toks.get(self.i) {
            Some(Tok::Op(op)) => Some(*op),
            _ => None,
        }
    }

    /// The current token if it is an unquoted word.
    fn peek_word(&self) -> Option<&str> {
        match self.toks.get(self.i) {
            Some(Tok::Word(w)) if !w.quoted => Some(w.text.as_str()),
            _ => None,
        }
    }

    fn eat_word(&mut self, s: &str) -> bool {
        let hit = self.peek_word() == Some(s);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn eat_op(&mut self, op: Op) -> bool {
        let hit = self.peek_op() == Some(op);
        if hit {
            self.i += 1;
        }
        hit
    }

    /// Take the current word (must be one) and advance.
    fn take_word(&mut self) -> Word {
        let w = match self.toks.get_mut(self.i) {
            Some(Tok::Word(w)) => std::mem::take(w),
            _ => Word::default(),
        };
        self.i += 1;
        w
    }

    fn skip_newlines(&mut self) {
        while self.eat_op(Op::Newline) {}
    }

    fn at_terminator(&self) -> bool {
        match self.toks.get(self.i) {
            Some(Tok::Op(Op::RParen | Op::CaseEnd)) => true,
            Some(Tok::Word(w)) => !w.quoted && is_terminator_word(&w.text),
            _ => false,
        }
    }

    /// A command list. At `top` level, stray terminators are skipped;
    /// otherwise they end the list (the caller consumes the one it expects).
    fn list(&mut self, ctx: &Ctx, fl: Fl, top: bool) {
        loop {
            while matches!(self.peek_op(), Some(Op::Newline | Op::Semi | Op::Amp)) {
                self.i += 1;
            }
            if self.i >= self.toks.len() {
                return;
            }
            if self.at_terminator() {
                if top {
                    self.i += 1;
                    continue;
                }
                return;
            }
            let before = self.i;
            let start = self.out.len();
            self.and_or(ctx, fl);
            if self.eat_op(Op::Amp) {
                let end = self.out.len();
                for c in self.out.script.commands.get_mut(start..end).unwrap_or_default() {
                    c.background = true;
                }
            }
            if self.i == before {
                self.i += 1;
            }
        }
    }

    fn and_or(&mut self, ctx: &Ctx, fl: Fl) {
        self.pipeline(ctx, fl);
        while matches!(self.peek_op(), Some(Op::AndIf | Op::OrIf)) {
            self.i += 1;
            self.skip_newlines();
            self.pipeline(ctx, fl);
        }
    }

    fn pipeline(&mut self, ctx: &Ctx, fl: Fl) {
        let start = self.out.len();
        let mut negated = false;
        loop {
            match self.peek_word() {
                Some("!") => negated = !negated,
                // `time` before a compound command is a keyword; before a
                // simple command it is handled as a wrapper.
                Some("time") if self.next_starts_compound() => {}
                _ => break,
            }
            self.i += 1;
        }
        let mut seg = start;
        self.command(ctx, fl);
        while self.eat_op(Op::Pipe) {
            self.skip_newlines();
            let end = self.out.len();
            self.out.mark(seg..end, |c| c.piped_to = true);
            seg = end;
            self.command(ctx, fl);
            let end = self.out.len();
            self.out.mark(seg..end, |c| c.piped_from = true);
        }
        if negated {
            let end = self.out.len();
            self.out.mark(start..end, |c| c.negated = true);
        }
    }

    fn next_starts_compound(&self) -> bool {
        match self.toks.get(self.i + 1) {
            Some(Tok::Op(Op::LParen)) => true,
            Some(Tok::Word(w)) => {
                !w.quoted && matches!(w.text.as_str(), "{" | "if" | "for" | "while" | "until" | "case" | "[[")
            }
            _ => false,
        }
    }

    fn classify(&self) -> Kw {
        match self.toks.get(self.i) {
            None => Kw::Nothing,
            Some(Tok::Op(Op::LParen)) => Kw::Subshell,
            Some(Tok::Op(Op::Redir(..))) => Kw::Simple,
            Some(Tok::Op(_)) => Kw::Nothing,
            Some(Tok::Arith(_)) => Kw::Arith,
            Some(Tok::Word(w)) if w.quoted => Kw::Simple,
            Some(Tok::Word(w)) => match w.text.as_str() {
                "{" => Kw::Group,
                "if" => Kw::If,
                "while" => Kw::While,
                "until" => Kw::Until,
                "for" => Kw::For,
                "select" => Kw::Select,
                "case" => Kw::Case,
                "function" => Kw::Function,
                "[[" => Kw::DBracket,
                t if is_terminator_word(t) => Kw::Terminator,
                _ if matches!(self.toks.get(self.i + 1), Some(Tok::Op(Op::LParen)))
                    && matches!(self.toks.get(self.i + 2), Some(Tok::Op(Op::RParen))) =>
                {
                    Kw::FuncDef
                }
                _ => Kw::Simple,
            },
        }
    }

    fn command(&mut self, ctx: &Ctx, fl: Fl) {
        let kw = self.classify();
        let compound = !matches!(kw, Kw::Simple | Kw::Nothing | Kw::Terminator | Kw::DBracket | Kw::Arith);
        if compound && fl.depth >= MAX_DEPTH {
            // Too deep: drop the keyword, its contents then parse flat
            // in the enclosing list, without recursion.
            self.i += 1;
            return;
        }
        match kw {
            Kw::Nothing | Kw::Terminator => {}
            Kw::Simple => self.simple(ctx, fl),
            Kw::Arith => {
                self.i += 1;
                let start = self.out.len();
                self.trailing_redirects(start, ctx, fl);
            }
            Kw::Subshell | Kw::Group => {
                self.i += 1;
                let start = self.out.len();
                self.list(ctx, fl.deeper(), false);
                if kw == Kw::Subshell {
                    self.eat_op(Op::RParen);
                } else {
                    self.eat_word("}");
                }
                self.trailing_redirects(start, ctx, fl);
            }
            Kw::If => self.if_clause(ctx, fl),
            Kw::While => self.while_clause(ctx, fl, LoopKind::While),
            Kw::Until => self.while_clause(ctx, fl, LoopKind::Until),
            Kw::For => self.for_clause(ctx, fl, LoopKind::For),
            Kw::Select => self.for_clause(ctx, fl, LoopKind::Select),
            Kw::Case => self.case_clause(ctx, fl),
            Kw::Function | Kw::FuncDef => {
                // `function name [()] body` or `name () body`
                self.i += 1;
                if kw == Kw::Function && matches!(self.toks.get(self.i), Some(Tok::Word(_))) {
                    self.i += 1;
                }
                if self.peek_op() == Some(Op::LParen) && matches!(self.toks.get(self.i + 1), Some(Tok::Op(Op::RParen)))
                {
                    self.i += 2;
                }
                self.skip_newlines();
                self.command(ctx, fl.deeper());
            }
            Kw::DBracket => self.dbracket(ctx, fl),
        }
    }

    fn if_clause(&mut self, ctx: &Ctx, fl: Fl) {
        self.i += 1;
        let start = self.out.len();
        let body = fl.deeper();
        let cond = Fl { in_condition: true, ..body };
        self.list(ctx, cond, false);
        self.eat_word("then");
        self.list(ctx, body, false);
        loop {
            if self.eat_word("elif") {
                self.list(ctx, cond, false);
                self.eat_word("then");
                self.list(ctx, body, false);
            } else if self.eat_word("else") {
                self.list(ctx, body, false);
            } else {
                self.eat_word("fi");
                break;
            }
        }
        self.trailing_redirects(start, ctx, fl);
    }

    fn while_clause(&mut self, ctx: &Ctx, fl: Fl, kind: LoopKind) {
        self.i += 1;
        let li = self.out.start_loop(kind);
        let cond = Fl { in_loop: true, in_condition: true, depth: fl.depth + 1 };
        let cs = self.out.len();
        self.list(ctx, cond, false);
        let bs = self.out.len();
        self.eat_word("do");
        let body = Fl { in_condition: false, ..cond };
        self.list(ctx, body, false);
        self.eat_word("done");
        let end = self.out.len();
        self.out.end_loop(li, cs..bs, bs..end, None);
        self.trailing_redirects(cs, ctx, fl);
    }

    fn for_clause(&mut self, ctx: &Ctx, fl: Fl, kind: LoopKind) {
        self.i += 1;
        let li = self.out.start_loop(kind);
        let mut iterations = None;
        match self.toks.get(self.i) {
            Some(Tok::Arith(expr)) => {
                iterations = c_for_count(expr);
                self.i += 1;
            }
            Some(Tok::Word(_)) => {
                self.i += 1; // the loop variable
                self.skip_newlines();
                if self.eat_word("in") {
                    let mut items: Vec<(String, bool)> = Vec::new();
                    while matches!(self.toks.get(self.i), Some(Tok::Word(_))) && self.peek_word() != Some("do") {
                        let w = self.take_word();
                        // The word list is expanded once, before the loop.
                        self.subs(w.subs, ctx, fl);
                        items.push((w.text, w.quoted));
                    }
                    iterations = for_count(&items);
                }
            }
            _ => {}
        }
        while matches!(self.peek_op(), Some(Op::Semi | Op::Newline)) {
            self.i += 1;
        }
        let body = Fl { in_loop: true, in_condition: false, depth: fl.depth + 1 };
        let bs = self.out.len();
        if self.eat_word("do") {
            self.list(ctx, body, false);
            self.eat_word("done");
        } else if self.eat_word("{") {
            self.list(ctx, body, false);
            self.eat_word("}");
        }
        let end = self.out.len();
        self.out.end_loop(li, bs..bs, bs..end, iterations);
        self.trailing_redirects(bs, ctx, fl);
    }

    fn case_clause(&mut self, ctx: &Ctx, fl: Fl) {
        self.i += 1;
        let start = self.out.len();
        if matches!(self.toks.get(self.i), Some(Tok::Word(_))) {
            let w = self.take_word();
            self.subs(w.subs, ctx, fl);
        }
        self.skip_newlines();
        self.eat_word("in");
        let body = fl.deeper();
        loop {
            let before = self.i;
            while matches!(self.peek_op(), Some(Op::Newline | Op::Semi)) {
                self.i += 1;
            }
            if self.i >= self.toks.len() || self.eat_word("esac") {
                break;
            }
            self.eat_op(Op::LParen);
            // Pattern alternatives up to `)`.
            loop {
                match self.toks.get(self.i) {
                    Some(Tok::Word(_) | Tok::Op(Op::Pipe)) => self.i += 1,
                    Some(Tok::Op(Op::RParen)) => {
                        self.i += 1;
                        break;
                    }
                    _ => break,
                }
            }
            self.list(ctx, body, false);
            if !self.eat_op(Op::CaseEnd) && self.peek_word() != Some("esac") {
                break; // something else ended the item: give up on this case
            }
            if self.i == before {
                break;
            }
        }
        self.trailing_redirects(start, ctx, fl);
    }

    /// `[[ … ]]`: one command named `[[` whose args are everything up to and
    /// including `]]` (operators inside are not command separators).
    fn dbracket(&mut self, ctx: &Ctx, fl: Fl) {
        let mut argv = Vec::new();
        loop {
            match self.toks.get(self.i) {
                None | Some(Tok::Op(Op::Newline)) => break,
                Some(Tok::Word(_)) => {
                    let w = self.take_word();
                    self.subs(w.subs, ctx, fl);
                    let end = !w.quoted && w.text == "]]";
                    argv.push(w.text);
                    if end {
                        break;
                    }
                }
                Some(Tok::Op(op)) => {
                    argv.push(op_text(*op).to_string());
                    self.i += 1;
                }
                Some(Tok::Arith(a)) => {
                    argv.push(format!("(({a}))"));
                    self.i += 1;
                }
            }
        }
        wrap::run(self.out, wrap::Simple { argv, ..wrap::Simple::default() }, ctx, fl, parse_str);
    }

    fn simple(&mut self, ctx: &Ctx, fl: Fl) {
        let mut s = wrap::Simple::default();
        loop {
            match self.toks.get(self.i) {
                Some(Tok::Word(_)) => {
                    let w = self.take_word();
                    self.subs(w.subs, ctx, fl);
                    match w.assign {
                        Some(eq) if s.argv.is_empty() => {
                            let mut name = w.text;
                            let value = name.split_off(eq);
                            s.env.push((name, value.get(1..).unwrap_or("").to_string()));
                        }
                        _ => s.argv.push(w.text),
                    }
                }
                Some(Tok::Op(Op::Redir(fd, op))) => {
                    let (fd, op) = (*fd, *op);
                    self.i += 1;
                    let r = self.redirect(fd, op, ctx, fl, &mut s.stdin_docs);
                    s.redirects.push(r);
                }
                _ => break,
            }
        }
        wrap::run(self.out, s, ctx, fl, parse_str);
    }

    /// After a redirection operator: its target word. Heredoc bodies and
    /// here-strings are also collected as possible stdin scripts.
    fn redirect(
        &mut self,
        fd: Option<u32>,
        op: &'static str,
        ctx: &Ctx,
        fl: Fl,
        stdin_docs: &mut Vec<String>,
    ) -> Redirect {
        let mut target = String::new();
        if matches!(self.toks.get(self.i), Some(Tok::Word(_))) {
            let w = self.take_word();
            self.subs(w.subs, ctx, fl);
            if op == "<<" || op == "<<-" {
                let body = w.heredoc.unwrap_or_default();
                self.out.script.heredocs.push(body.clone());
                stdin_docs.push(body);
            } else if op == "<<<" {
                stdin_docs.push(w.text.clone());
            }
            target = w.text;
        }
        Redirect { fd, op, target }
    }

    /// Redirections after a compound command apply to every command in it.
    fn trailing_redirects(&mut self, start: usize, ctx: &Ctx, fl: Fl) {
        let mut rs = Vec::new();
        let mut docs = Vec::new();
        while let Some(Op::Redir(fd, op)) = self.peek_op() {
            self.i += 1;
            rs.push(self.redirect(fd, op, ctx, fl, &mut docs));
        }
        if rs.is_empty() {
            return;
        }
        let end = self.out.len();
        for c in self.out.script.commands.get_mut(start..end).unwrap_or_default() {
            c.redirects.extend(rs.iter().cloned());
        }
    }

    /// Parse substitution bodies found in a word; their commands run before
    /// the command that contains the word.
    fn subs(&mut self, subs: Vec<Vec<Tok>>, ctx: &Ctx, fl: Fl) {
        if fl.depth >= MAX_DEPTH {
            return;
        }
        for toks in subs {
            let start = self.out.len();
            Parser { toks, i: 0, out: self.out }.list(ctx, fl.deeper(), true);
            let end = self.out.len();
            self.out.substituted(start..end);
        }
    }
}

fn op_text(op: Op) -> &'static str {
    match op {
        Op::AndIf => "&&",
        Op::OrIf => "||",
        Op::Pipe => "|",
        Op::Semi => ";",
        Op::CaseEnd => ";;",
        Op::Amp => "&",
        Op::LParen => "(",
        Op::RParen => ")",
        Op::Newline => "\n",
        Op::Redir(_, o) => o,
    }
}

/// Iterations declared by a `for … in` word list: literal words count one
/// each, `{A..B[..S]}` and `$(seq …)`/`` `seq …` `` count their range;
/// anything else (globs, variables) makes the count unknown.
fn for_count(items: &[(String, bool)]) -> Option<u64> {
    let mut total: u64 = 0;
    for (text, quoted) in items {
        let n = if let Some(n) = seq_count(text) {
            n
        } else if let Some(n) = brace_count(text).filter(|_| !quoted) {
            n
        } else if text.contains("$@") || text.contains("[@]") || text.contains('*') {
            return None;
        } else if *quoted {
            // No word splitting or globbing of a quoted word… mostly.
            1
        } else if text.bytes().any(|b| matches!(b, b'$' | b'`' | b'?' | b'[' | b'{')) {
            return None;
        } else {
            1
        };
        total = total.saturating_add(n);
    }
    Some(total)
}

/// `$(seq [opts] [FIRST [STEP]] LAST)` or the backtick form.
fn seq_count(text: &str) -> Option<u64> {
    let inner = text
        .strip_prefix("$(")
        .and_then(|t| t.strip_suffix(')'))
        .or_else(|| text.strip_prefix('`').and_then(|t| t.strip_suffix('`')))?;
    let mut parts = inner.split_whitespace();
    if parts.next()? != "seq" {
        return None;
    }
    let mut nums = Vec::new();
    let mut skip_value = false;
    for p in parts {
        if skip_value {
            skip_value = false;
        } else if let Ok(n) = p.parse::<f64>() {
            nums.push(n);
        } else if matches!(p, "-s" | "-f" | "--separator" | "--format") {
            skip_value = true;
        } else if !p.starts_with('-') {
            return None;
        }
    }
    let (first, step, last) = match nums[..] {
        [last] => (1.0, 1.0, last),
        [first, last] => (first, 1.0, last),
        [first, step, last] => (first, step, last),
        _ => return None,
    };
    range_count(first, step, last)
}

fn range_count(first: f64, step: f64, last: f64) -> Option<u64> {
    if !(first.is_finite() && step.is_finite() && last.is_finite()) || step == 0.0 {
        return None;
    }
    let n = ((last - first) / step).floor() + 1.0;
    Some(if n > 0.0 { n.min(u64::MAX as f64) as u64 } else { 0 })
}

/// `{A..B}` / `{A..B..S}` (numbers or single letters), possibly with a
/// prefix/suffix (`file{1..3}.txt`).
fn brace_count(text: &str) -> Option<u64> {
    let open = text.find('{')?;
    let close = open + text.get(open..)?.find('}')?;
    let inner = text.get(open + 1..close)?;
    let mut parts = inner.split("..");
    let a = parts.next()?;
    let b = parts.next()?;
    let s = parts.next();
    if parts.next().is_some() {
        return None;
    }
    let val = |x: &str| -> Option<f64> {
        x.parse::<i64>().ok().map(|n| n as f64).or_else(|| {
            let mut cs = x.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) if c.is_ascii_alphabetic() => Some(c as u32 as f64),
                _ => None,
            }
        })
    };
    let (a, b) = (val(a)?, val(b)?);
    let step = match s {
        Some(s) => s.parse::<i64>().ok()?.unsigned_abs().max(1) as f64,
        None => 1.0,
    };
    // `as` saturates, so `{i64::MIN..i64::MAX}` cannot overflow here.
    Some((((a - b).abs() / step).floor() as u64).saturating_add(1))
}

/// `for ((i=A; i<B; i++))` style loops with literal bounds.
fn c_for_count(expr: &str) -> Option<u64> {
    let e: String = expr.chars().filter(|c| !c.is_whitespace()).collect();
    let mut parts = e.split(';');
    let (init, cond, step) = (parts.next()?, parts.next()?, parts.next()?);
    let (var, start) = init.split_once('=')?;
    let start: f64 = start.parse().ok()?;
    let rest = cond.strip_prefix(var)?;
    let (op, bound) = ["<=", ">=", "<", ">"].iter().find_map(|op| rest.strip_prefix(op).map(|b| (*op, b)))?;
    let bound: f64 = bound.parse().ok()?;
    let delta: f64 = if step == format!("{var}++") || step == format!("++{var}") {
        1.0
    } else if step == format!("{var}--") || step == format!("--{var}") {
        -1.0
    } else if let Some(d) = step.strip_prefix(&format!("{var}+=")) {
        d.parse().ok()?
    } else if let Some(d) = step.strip_prefix(&format!("{var}-=")) {
        -d.parse::<f64>().ok()?
    } else {
        return None;
    };
    let last = match op {
        "<" => bound - delta.signum(),
        ">" => bound - delta.signum(),
        _ => bound,
    };
    if (op.starts_with('<') && delta <= 0.0) || (op.starts_with('>') && delta >= 0.0) {
        return None;
    }
    range_count(start, delta, last)
}
