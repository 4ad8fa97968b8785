//! Shell command-line analysis: what did a command an agent ran actually do?
//!
//! This module owns turning one shell command line (as an agent's Bash tool
//! call or Codex `["bash", "-lc", "…"]` carries it) into a flat list of the
//! simple commands that would run: program, arguments, env prefixes,
//! redirections, and the context each runs in (remote host through `ssh`,
//! container through `docker exec`/`kubectl exec`, wrapper chain, loop,
//! condition, pipeline position, background). It also reports loops (with
//! sleep detection and declared iteration counts), `export`s and heredoc
//! bodies. It knows nothing about transcripts or detectors.
//!
//! # Design choice: a hand-written lexer and recovering parser
//!
//! Crates were tried first, on the real agent commands of the tests:
//! - `brush-parser` 0.4 (maintained, from the brush shell) parses valid input
//!   well, but fails the whole input on any error (`echo 'unterminated`,
//!   `echo $(foo`, `a &&` all return `Err` with no AST), so a best-effort
//!   fallback parser would be needed anyway for truncated agent output. It
//!   also pulls 77 crates (`insta`, `cached`, `tracing`, `peg`, `bon` as
//!   non-optional dependencies; ~75 s release build on 2 cores), leaves
//!   `$(…)` bodies as strings to re-parse, and took 4.5 µs for a 60-byte
//!   `ssh` command and 17 µs for a 110-byte polling loop.
//! - `yash-syntax` is async-only, POSIX-only (no `[[`, `{1..N}`), errors on
//!   malformed input, and its current release needs a newer rustc.
//! - `conch-parser` is unmaintained; `shell-words`/`shlex` only split words.
//! - `tree-sitter-bash` 0.25 (with `tree-sitter` 0.25, C code built by `cc`) does
//!   recover (ERROR and MISSING nodes instead of failing: 221 of 5,537 distinct real
//!   agent commands had one, every one still gave a tree). Timed spike, 2026-12-03, on
//!   those 5,537 commands (mean 356 bytes) from the real evaluation set, one reused
//!   parser, release build, two runs on a loaded 2-core machine: 15–31 µs per command
//!   for tree-sitter's parse alone (16–34 µs with a walk taking each command's words),
//!   against 4–12 µs for this module's whole analysis (lex, parse, wrappers, argument
//!   tables) in the same process — 2.3–3.6× the cost before any conversion of its tree
//!   into `Script`. The bar was at most 2× per command, so it was not adopted,
//!   and the converter needed to run `tests.rs` against it was not written.
//!
//! What detectors need is narrower than a shell: words, operators, nesting
//! and wrappers, with recovery instead of errors. So this module has a
//! tokenizer (`lex.rs`) that never fails (unterminated constructs run to end
//! of input), a recursive-descent parser (`parse.rs`) that skips tokens it
//! cannot place instead of failing, and a table of command wrappers
//! (`wrap.rs`) whose argument strings are re-parsed in the wrapped context.
//! No dependencies.
//!
//! Speed (release build on the 2-core dev machine, best of 7 runs, with
//! noise of up to 2x): 0.7–1.6 µs for a typical 60–150-byte command,
//! 3.5 µs for a 180-byte polling loop, ~19 µs for a 36 KB heredoc script.
//! Cheap pre-checks keep the common path lean: ordinary word bytes are
//! skipped with a 256-entry table, heredoc work happens only after `<<`,
//! wrapper detection is one `match` on the program's basename that
//! allocates nothing for non-wrappers, and loop analysis runs only for
//! loops.
//!
//! Robustness: nothing here panics on any input (fuzzed in the tests);
//! nesting (`$(`, subshells, compound commands, re-parsed `bash -c`/`ssh`
//! strings) is capped at a fixed depth, beyond which content is skipped or
//! flattened, so hostile input cannot overflow the stack; every scan is
//! linear, so a 20 KB heredoc script or 1 MB of garbage is not quadratic.
//!
//! Known approximations: expansions are never evaluated (`$HOME/x` stays
//! literal); aliases and `source`d files are not followed; a `$(…)` inside a
//! double-quoted `ssh`/`bash -c` string is reported both where it is expanded
//! (locally) and again inside the re-parsed string; `[[ … ]]` is one command
//! named `[[`; `docker run IMAGE cmd` is not unwrapped (too many options);
//! which flags take a value is known only for a table of common programs.

mod args;
mod builder;
mod lex;
mod parse;
mod wrap;

pub(crate) use wrap::SSH_VALUE_FLAGS;

#[cfg(test)]
mod tests;

use std::ops::Range;

/// Parse a command line into the flat list of simple commands that would run.
///
/// Commands come in execution order, which is source order except that the
/// commands of a `$(…)`/backtick/`<(…)` substitution come just before the
/// command whose word contains it. Parsing descends into pipelines, lists
/// (`&&`, `||`, `;`, `&`, newlines), subshells and groups, command
/// substitutions, loops (`for`/`while`/`until`/`select`), `if`/`case` bodies,
/// function bodies, and the arguments of wrappers that run a command:
/// `ssh [opts] host 'cmd'` (also `ssh host cmd args…`, and a heredoc fed to
/// `ssh host`), `bash|sh|zsh|dash|ksh -c/-lc 'cmd'` (and a heredoc fed to a
/// bare shell), `su -c`, `eval`, `docker|podman exec [opts] ctr cmd…`,
/// `docker compose exec`, `kubectl exec … -- cmd`, `sudo [-u u]`,
/// `env [VAR=x…]`, `timeout [opts] DUR`, `nohup`, `time`, `nice`, `ionice`,
/// `stdbuf`, `setsid`, `exec`, `command`, `taskset`, `numactl`, `xargs [opts]`,
/// `watch [-n N] 'cmd'` (recorded as a loop), and `uv|poetry|pipenv|conda run`.
/// A wrapper with nothing to run (`ssh host`, `bash script.sh`) is itself the
/// command.
///
/// Never panics; malformed or truncated input gives a best-effort result.
///
/// The same command line is looked at by every detector and by the report: parses are
/// kept per thread (the last few thousand, a few MB of command text at most), so each
/// is parsed once. Parsing was a fifth of a report's time.
pub fn parse(command_line: &str) -> std::rc::Rc<Script> {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;
    /// Parses kept, and the bytes of command text they hold.
    type Kept = (HashMap<String, Rc<Script>>, usize);
    thread_local! {
        static PARSED: RefCell<Kept> = RefCell::new((HashMap::new(), 0));
    }
    const KEEP: usize = 4096;
    const KEEP_BYTES: usize = 4 << 20;
    if let Some(s) = PARSED.with(|p| p.borrow().0.get(command_line).cloned()) {
        return s;
    }
    let mut out = builder::Out::default();
    parse::parse_str(command_line, &mut out, &builder::Ctx::default(), builder::Fl::default());
    let script = Rc::new(out.finish());
    PARSED.with(|p| {
        let (kept, bytes) = &mut *p.borrow_mut();
        if kept.len() >= KEEP || *bytes + command_line.len() > KEEP_BYTES {
            kept.clear();
            *bytes = 0;
        }
        *bytes += command_line.len();
        kept.insert(command_line.to_string(), script.clone());
    });
    script
}

/// Like [`parse`], for a command given as an argument vector (Codex's
/// `["bash", "-lc", "cargo test"]`), without joining and re-quoting it.
pub fn parse_argv<S: AsRef<str>>(argv: &[S]) -> Script {
    let mut out = builder::Out::default();
    let argv: Vec<String> = argv.iter().map(|a| a.as_ref().to_string()).collect();
    wrap::run(
        &mut out,
        wrap::Simple { argv, ..wrap::Simple::default() },
        &builder::Ctx::default(),
        builder::Fl::default(),
        parse::parse_str,
    );
    out.finish()
}

/// POSIX-ish word splitting: whitespace separates words, single and double
/// quotes and backslashes are removed, expansions (`$X`, `$(…)`) are kept
/// literally, and operators (`|`, `;`, `>`) are ordinary characters. For
/// splitting an argument string such as `"-n 5 'a b'"`.
pub fn words(s: &str) -> Vec<String> {
    lex::plain_words(s)
}

/// The result of [`parse`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    /// Every simple command that would run, flattened (see [`parse`]).
    pub commands: Vec<SimpleCommand>,
    /// Loops found anywhere, in the order they start.
    pub loops: Vec<Loop>,
    /// `export VAR=val`, `declare -x VAR=val` and standalone `VAR=val`
    /// statements, in order (they apply to later commands; see
    /// [`Script::env_at`]).
    pub exports: Vec<(String, String)>,
    /// Here-document bodies (`<<EOF`, `<<-EOF`, `<<'EOF'`), in order, so a
    /// caller can look at an inline python script.
    pub heredocs: Vec<String>,
    /// For each entry of `exports`, the index of the first command it
    /// applies to.
    export_at: Vec<usize>,
}

impl Script {
    /// The environment assignments visible to `commands[index]`: earlier
    /// `exports` then the command's own `env`, in order (a later pair with the
    /// same name wins, as in the shell). Empty for an out-of-range index.
    pub fn env_at(&self, index: usize) -> Vec<(&str, &str)> {
        let Some(cmd) = self.commands.get(index) else {
            return Vec::new();
        };
        self.exports
            .iter()
            .zip(&self.export_at)
            .filter(|(_, at)| **at <= index)
            .map(|((k, v), _)| (k.as_str(), v.as_str()))
            .chain(cmd.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .collect()
    }

    /// Indexes of commands whose [`SimpleCommand::name`] is `name`.
    pub fn find<'a>(&'a self, name: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.commands.iter().enumerate().filter(move |(_, c)| c.name() == name).map(|(i, _)| i)
    }
}

/// One simple command: a program with its arguments and context.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// As written (after wrappers are peeled off): `python`,
    /// `/usr/bin/grep`, `./run.sh`, `[[`.
    pub program: String,
    /// Words after the program, quotes removed, expansions kept literally
    /// (`"$HOME/x"` -> `$HOME/x`).
    pub args: Vec<String>,
    /// Environment assignments for this command, in source order: `VAR=x`
    /// prefixes and those of wrappers (`A=1 sudo B=2 env C=3 cmd` gives A,
    /// B, C; also `docker exec -e VAR=x`), preceded by those inherited from
    /// an enclosing `bash -c` string (`FOO=1 bash -c 'cmd'`). Not forwarded
    /// through `ssh`/container exec. `export`s are in [`Script::exports`].
    pub env: Vec<(String, String)>,
    /// The command's own redirections, then those of enclosing compound
    /// commands and wrappers (`{ a; } > log`, `ssh h cmd > log`).
    pub redirects: Vec<Redirect>,
    /// The `ssh` destination as written (`root@10.0.0.5`) when the command
    /// runs through ssh (the innermost one when nested).
    pub remote_host: Option<String>,
    /// The `docker`/`podman exec` container or `kubectl exec` pod.
    pub container: Option<String>,
    /// Wrapper chain, outermost first: `["ssh", "bash -c", "timeout",
    /// "nohup"]`. Shells appear as `"<shell> -c"` for a command string and as
    /// `"<shell>"` for a heredoc script.
    pub via: Vec<String>,
    /// Inside a loop body or condition (or under `watch`).
    pub in_loop: bool,
    /// Stdin comes from the previous command of a pipeline.
    pub piped_from: bool,
    /// Stdout goes to the next command of a pipeline.
    pub piped_to: bool,
    /// Part of a list ended by `&`.
    pub background: bool,
    /// Part of a pipeline negated with `!`.
    pub negated: bool,
    /// Part of an `if`/`elif`/`while`/`until` condition.
    pub in_condition: bool,
    /// From a `$(…)`/backtick/`<(…)` substitution: it makes a word of another
    /// command (`git commit -m "$(cat <<'EOF' …)"`), not a step of its own.
    pub in_substitution: bool,
}

/// A redirection such as `2>&1` or `> /data/log`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// Explicit fd number (`2>` -> `Some(2)`); `None` for the default.
    pub fd: Option<u32>,
    /// One of `<`, `>`, `>>`, `>|`, `<>`, `<&`, `>&`, `&>`, `&>>`, `<<`,
    /// `<<-`, `<<<`.
    pub op: &'static str,
    /// The target word, quotes removed (for `<<` the delimiter, for `<<<`
    /// the string).
    pub target: String,
}

/// What kind of loop a [`Loop`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopKind {
    /// `for x in …` or `for ((…))`
    For,
    /// `select x in …`
    Select,
    While,
    Until,
    /// `watch [-n N] cmd`: re-runs its command forever.
    Watch,
}

/// A loop found anywhere in the script.
#[derive(Debug, Clone, PartialEq)]
pub struct Loop {
    pub kind: LoopKind,
    /// Indexes into [`Script::commands`] of the `while`/`until` condition
    /// (empty for other kinds).
    pub condition: Range<usize>,
    /// Indexes into [`Script::commands`] of the body (including nested
    /// loops and substitutions inside it).
    pub body: Range<usize>,
    /// Iterations the loop declares: `for i in $(seq 1 N)`, `{1..N}`,
    /// `for i in a b c`, `for ((i=0; i<N; i++))`. `None` when unknown
    /// (`while`, globs, variables).
    pub iterations: Option<u64>,
    /// A `sleep` runs in the condition or body.
    pub sleeps: bool,
    /// Seconds slept per iteration, when every `sleep` has a literal
    /// duration (`sleep 30`, `sleep 0.5`, `sleep 1m`); for `watch`, its
    /// interval.
    pub sleep_secs: Option<f64>,
    /// The body can leave early (`break`, `exit`, `return`).
    pub breaks: bool,
}

impl Loop {
    /// All command indexes of the loop (condition then body).
    pub fn commands(&self) -> Range<usize> {
        let start = if self.condition.is_empty() { self.body.start } else { self.condition.start };
        start..self.body.end.max(start)
    }

    /// Upper bound on the seconds the loop sleeps in total, when both the
    /// iteration count and per-iteration sleep are known.
    pub fn max_sleep_secs(&self) -> Option<f64> {
        Some(self.iterations? as f64 * self.sleep_secs?)
    }
}
