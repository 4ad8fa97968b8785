//! What the parser and the wrapper table both build on: the script being built
//! ([`Out`]), the context a wrapper passes to what it wraps ([`Ctx`]), per-position
//! flags ([`Fl`]) and the nesting bound. `parse.rs` drives the recursion and
//! `wrap.rs` peels wrappers; both write here, and neither needs the other's insides.

use super::{Loop, LoopKind, Redirect, Script, SimpleCommand};
use std::ops::Range;

/// Nesting depth (compound commands, substitutions, re-parsed wrapper
/// strings) beyond which the parser stops recursing: compound keywords are
/// then skipped so their contents parse flat, substitutions and wrapper
/// strings are not descended into. Bounds stack use on hostile input.
pub(super) const MAX_DEPTH: u32 = 48;

/// Context inherited from wrappers by every command parsed inside them.
#[derive(Debug, Default, Clone)]
pub(super) struct Ctx {
    pub host: Option<String>,
    pub container: Option<String>,
    pub via: Vec<String>,
    pub env: Vec<(String, String)>,
    pub redirects: Vec<Redirect>,
    /// Heredocs/here-strings feeding the re-parsed string's stdin
    /// (`ssh h 'bash -s' <<EOF`), for a shell inside it to run.
    pub stdin: Vec<String>,
}

/// Cheap per-position flags, passed by value.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Fl {
    pub in_loop: bool,
    pub in_condition: bool,
    pub depth: u32,
}

impl Fl {
    pub(super) fn deeper(self) -> Self {
        Fl { depth: self.depth + 1, ..self }
    }
}

/// The script being built, plus per-command bookkeeping.
#[derive(Debug, Default)]
pub(super) struct Out {
    pub script: Script,
    /// Command came from a `$(…)`/backtick/`<(…)` substitution relative to
    /// the construct being marked: its stdout is captured, so pipeline and
    /// negation flags of the enclosing pipeline do not apply to it.
    subst: Vec<bool>,
}

impl Out {
    pub(super) fn len(&self) -> usize {
        self.script.commands.len()
    }

    pub(super) fn push(&mut self, c: SimpleCommand) {
        self.script.commands.push(c);
        self.subst.push(false);
    }

    /// Record an export applying to commands from the current position on.
    pub(super) fn export(&mut self, name: String, value: String) {
        self.script.exports.push((name, value));
        self.script.export_at.push(self.len());
    }

    pub(super) fn finish(self) -> Script {
        self.script
    }

    /// The commands in `r` came from a substitution: their output is captured.
    pub(super) fn substituted(&mut self, r: Range<usize>) {
        for s in self.subst.get_mut(r.clone()).unwrap_or_default() {
            *s = true;
        }
        for c in self.script.commands.get_mut(r).unwrap_or_default() {
            c.in_substitution = true;
        }
    }

    /// Apply `f` to commands in `r` that are not from a substitution.
    pub(super) fn mark(&mut self, r: Range<usize>, f: impl Fn(&mut SimpleCommand)) {
        let cmds = self.script.commands.get_mut(r.clone()).unwrap_or_default();
        let subst = self.subst.get(r).unwrap_or_default();
        for (c, s) in cmds.iter_mut().zip(subst) {
            if !s {
                f(c);
            }
        }
    }

    pub(super) fn start_loop(&mut self, kind: LoopKind) -> usize {
        let at = self.len();
        self.script.loops.push(Loop {
            kind,
            condition: at..at,
            body: at..at,
            iterations: None,
            sleeps: false,
            sleep_secs: None,
            breaks: false,
        });
        self.script.loops.len() - 1
    }

    pub(super) fn end_loop(
        &mut self,
        idx: usize,
        condition: Range<usize>,
        body: Range<usize>,
        iterations: Option<u64>,
    ) {
        let all = condition.start.min(body.start)..body.end;
        let mut sleeps = false;
        let mut secs = Some(0.0);
        let mut breaks = false;
        for c in self.script.commands.get(all).unwrap_or_default() {
            match c.name() {
                "sleep" => {
                    sleeps = true;
                    secs = secs.zip(sleep_secs(&c.args)).map(|(a, b)| a + b);
                }
                "break" | "exit" | "return" => breaks = true,
                _ => {}
            }
        }
        if let Some(l) = self.script.loops.get_mut(idx) {
            l.condition = condition;
            l.body = body;
            l.iterations = iterations;
            l.sleeps = sleeps;
            l.sleep_secs = if sleeps { secs } else { None };
            l.breaks = breaks;
        }
    }
}

/// Total seconds of `sleep` arguments (`30`, `0.5`, `1m`, `2h`, `1d`; GNU
/// sleep sums several), or `None` if any is not a literal duration.
pub(super) fn sleep_secs(args: &[String]) -> Option<f64> {
    if args.is_empty() {
        return None;
    }
    let mut total = 0.0;
    for a in args {
        let (num, mult) = match a.as_bytes().last()? {
            b's' => (&a[..a.len() - 1], 1.0),
            b'm' => (&a[..a.len() - 1], 60.0),
            b'h' => (&a[..a.len() - 1], 3600.0),
            b'd' => (&a[..a.len() - 1], 86400.0),
            _ => (a.as_str(), 1.0),
        };
        let n: f64 = num.parse().ok()?;
        if !n.is_finite() || n < 0.0 {
            return None;
        }
        total += n * mult;
    }
    Some(total)
}
