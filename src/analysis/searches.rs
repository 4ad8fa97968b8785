//! What a message's tool calls did, in the terms the search, read and wait detectors
//! share: pattern searches and the file or log they searched, positional reads of a
//! file or log, the shape of an output (how much of it one huge line is, whether the
//! tool truncated it) and the literal strings a command echoes.
//!
//! Everything is read from the parsed command line ([`crate::shell`]) or from the
//! tool's structured input, never from substrings of the raw command.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::text::{clip_line, human_bytes};
use crate::model::Call;
use crate::shell::{self, Script, SimpleCommand};

/// A call's output without the harness's own header lines (Claude Code's "Exit code N",
/// Codex's "Exit code: 0 / Wall time: … / Output:"), so that shapes and markers describe
/// only what the command printed.
pub fn payload(output: &str) -> &str {
    let mut rest = output;
    if let Some(r) = rest.strip_prefix("Exit code ")
        && let Some(nl) = r.find('\n')
        && r[..nl].trim().parse::<i32>().is_ok()
    {
        rest = &r[nl + 1..];
    }
    // Codex: a few "Key: value" lines, then "Output:" on a line of its own.
    let mut offset = 0;
    for line in rest.split_inclusive('\n').take(8) {
        let bare = line.trim_end();
        offset += line.len();
        if bare == "Output:" {
            return &rest[offset..];
        }
        let is_header = bare.starts_with("Process exited with code ")
            || bare.split_once(": ").is_some_and(|(k, _)| {
                !k.is_empty() && k.len() < 30 && k.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
            });
        if !is_header {
            break;
        }
    }
    rest
}

/// Shell programs whose output is small or none: a pipeline made only of these does
/// not compete with a search for a call's output.
const QUIET: &[&str] = &[
    "cd", "pushd", "popd", "export", "set", "unset", "source", ".", "sleep", "true", "false", ":", "echo", "printf",
    "mkdir", "wait", "local", "test", "[", "[[", "shopt", "ulimit", "trap",
];

/// Markers that agents' harnesses put where they cut an output.
static TRUNCATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\.\.\. \[\d+ lines truncated\] \.\.\.",
        r"|\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]",
        r"|\[\.\.\. output truncated to fit \d+ bytes \.\.\.\]",
        r"|\[\.\.\. removed \d+ bytes to fit",
        r"|…\d+ tokens truncated…",
        r"|Output too large \([^)]*\)\. Full output saved",
        r"|\[\.\.\. Observation truncated due to length \.\.\.\]",
        r"|<response clipped>",
        // Codex CLI before its envelope format (August 2025): the head is kept.
        r"|\[Output truncated after \d+ lines: too many lines or bytes\.\]",
    ))
    .expect("truncation markers are a valid regex")
});

/// The shape of an output: is it swamped by a few huge lines, was it truncated?
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shape {
    pub bytes: usize,
    pub lines: usize,
    /// Byte lengths of the (up to) three longest lines, longest first.
    pub longest: Vec<usize>,
    /// Lines at least [`LONG_LINE`] bytes long.
    pub long_lines: usize,
    /// Share of the bytes held by the long lines (at least [`LONG_LINE`] bytes).
    pub long_share: f64,
    /// Share of the bytes held by lines longer than a match line of code (at least
    /// [`WIDE_LINE`] bytes): log records with payloads, JSON records, prose paragraphs.
    pub wide_share: f64,
    /// The truncation marker the tool left, if any.
    pub truncated: Option<String>,
    /// How much of the whole output the tool cut (0..1), when its marker or header
    /// says how much there was ("Total output lines: 779", "[... omitted 0 of 178
    /// lines ...]", "… [4210 lines truncated] …", "…11211 tokens truncated…").
    pub cut_share: Option<f64>,
    /// How many lines the whole output had before the cut, when the tool says
    /// ("Total output lines: 421", "omitted 0 of 178 lines", "… [4210 lines truncated] …").
    pub total_lines: Option<usize>,
    /// Every long line (at least [`LONG_LINE`] bytes) is a match line of a search
    /// (`path:12:…`, as `grep -n`/`rg -n` print them), so a search printed them.
    pub long_are_matches: bool,
    /// What the longest line is, when it is recognisably a dump ("ServerArgs(…) dump").
    pub dump: Option<String>,
}

/// A line at least this long is not a log line or a match a person reads.
pub const LONG_LINE: usize = 1000;
/// The longest line of a swamped output is at least this long, or its long lines
/// together at least [`SWAMP_BYTES`].
const SWAMP_LINE: usize = 2000;
const SWAMP_BYTES: usize = 4000;
/// Longer than a match line of source code (`src/a.rs:12:    let x = …`).
const WIDE_LINE: usize = 300;
/// A search whose whole output had this many lines matched more than a person reads:
/// when the tool had to cut it, the few matches sought are buried among the rest,
/// however much of it was kept.
const FLOOD_LINES: usize = 300;

/// A match line as `grep -n`/`rg -n` print it: a file name (a Windows drive allowed),
/// a line number, then the line.
static MATCH_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A(?:[A-Za-z]:)?[^\s:]+:\d+:").expect("match-line regex is valid"));

/// How harnesses say how much output there was, or how much they cut.
static AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\A\s*Total output lines: (?P<total>\d+)",
        r"|\[\.\.\. omitted (?P<omitted>\d+) of (?P<of>\d+) lines \.\.\.\]",
        r"|\.\.\. \[(?P<cut_lines>\d+) lines truncated\] \.\.\.",
        r"|…(?P<tokens>\d+) tokens truncated…",
        r"|\[\.\.\. removed (?P<cut_bytes>\d+) bytes to fit",
        r"|Output too large \((?P<size>[\d.]+)\s*(?P<unit>[KMG]?B)\)",
    ))
    .expect("truncation-amount regex is valid")
});

/// Share of the whole output that the tool cut, and how many lines the whole output
/// had, from what its marker says.
fn cut_share(text: &str, bytes: usize, lines: usize) -> (Option<f64>, Option<usize>) {
    let share = |cut: f64, total: f64| (total > 0.0).then(|| (cut / total).clamp(0.0, 1.0));
    let num = |c: &regex::Captures, k: &str| c.name(k).and_then(|m| m.as_str().parse::<f64>().ok());
    // Lines shown: the marker's own line and the header are not output.
    let shown = lines.saturating_sub(1) as f64;
    let mut best: Option<f64> = None;
    let mut total_lines: Option<f64> = None;
    for c in AMOUNT.captures_iter(prefix(text, 200_000)) {
        let s = if let Some(total) = num(&c, "total").or_else(|| num(&c, "of")) {
            total_lines = Some(total_lines.map_or(total, |t| t.max(total)));
            // "omitted 0 of 178 lines" when the cut was by bytes: count what is shown.
            share((total - shown).max(num(&c, "omitted").unwrap_or(0.0)), total)
        } else if let Some(cut) = num(&c, "cut_lines") {
            total_lines = Some(total_lines.map_or(cut + shown, |t| t.max(cut + shown)));
            share(cut, cut + shown)
        } else if let Some(tokens) = num(&c, "tokens") {
            share(tokens * 4.0, tokens * 4.0 + bytes as f64)
        } else if let Some(cut) = num(&c, "cut_bytes") {
            share(cut, cut + bytes as f64)
        } else if let Some(size) = num(&c, "size") {
            let unit = match c.name("unit").map(|m| m.as_str()) {
                Some("KB") => 1e3,
                Some("MB") => 1e6,
                Some("GB") => 1e9,
                _ => 1.0,
            };
            share(size * unit - bytes as f64, size * unit)
        } else {
            None
        };
        best = match (best, s) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
    (best, total_lines.map(|t| t as usize))
}

impl Shape {
    /// The shape of a call's output as the tool returned it: [`Shape::of`] its
    /// [`payload`], with the line count that Codex states in the header above the
    /// payload ("Total output lines: 421").
    pub fn of_output(raw: &str) -> Shape {
        let body = payload(raw);
        let mut shape = Shape::of(body);
        if shape.truncated.is_some() {
            let header = &raw[..raw.len() - body.len()];
            let total =
                header.lines().find_map(|l| l.trim().strip_prefix("Total output lines: ")?.parse::<usize>().ok());
            if let Some(total) = total.filter(|t| *t > 0) {
                // The marker's own line is not output.
                let cut = total.saturating_sub(shape.lines.saturating_sub(1)) as f64 / total as f64;
                shape.cut_share = Some(shape.cut_share.map_or(cut, |c| c.max(cut)));
                shape.total_lines = Some(shape.total_lines.map_or(total, |t| t.max(total)));
            }
        }
        shape
    }

    pub fn of(text: &str) -> Shape {
        let mut longest: Vec<(usize, &str)> = Vec::with_capacity(4);
        let (mut lines, mut long_lines, mut long_bytes, mut wide_bytes) = (0, 0, 0, 0);
        let mut long_are_matches = true;
        for line in text.lines() {
            lines += 1;
            let len = line.len();
            if len >= LONG_LINE {
                long_lines += 1;
                long_bytes += len;
                long_are_matches &= MATCH_LINE.is_match(line);
            }
            if len >= WIDE_LINE {
                wide_bytes += len;
            }
            if longest.len() < 3 || len > longest[longest.len() - 1].0 {
                let at = longest.partition_point(|(l, _)| *l >= len);
                longest.insert(at, (len, line));
                longest.truncate(3);
            }
        }
        let bytes = text.len();
        let share = |n: usize| if bytes == 0 { 0.0 } else { n as f64 / bytes as f64 };
        let dump = longest.first().filter(|(l, _)| *l >= LONG_LINE).and_then(|(_, line)| describe_line(line));
        let truncated = TRUNCATION.find(text).map(|m| m.as_str().to_string());
        let (cut_share, total_lines) = match truncated {
            Some(_) => cut_share(text, bytes, lines),
            None => (None, None),
        };
        Shape {
            bytes,
            lines,
            longest: longest.iter().map(|(l, _)| *l).collect(),
            long_lines,
            long_share: share(long_bytes),
            wide_share: share(wide_bytes),
            truncated,
            cut_share,
            total_lines,
            long_are_matches: long_are_matches && long_lines > 0,
            dump,
        }
    }

    /// Most of the output is one or a few very long lines: whatever the search was
    /// after is buried under them.
    pub fn swamped(&self) -> bool {
        let long_bytes = self.long_share * self.bytes as f64;
        let big = self.longest.first().is_some_and(|l| *l >= SWAMP_LINE) || long_bytes >= SWAMP_BYTES as f64;
        big && self.long_share >= 0.5
    }

    /// The tool cut the output so that the matches are buried: it cut at least half of
    /// it (or does not say how much), or what it kept is mostly long lines, or the whole
    /// output ran to hundreds of lines ([`FLOOD_LINES`]). A cut that kept most of a
    /// short list of ordinary match lines (101 of 178) left them readable.
    pub fn cut_buries(&self) -> bool {
        self.truncated.is_some()
            && (self.cut_share.is_none_or(|c| c >= 0.5)
                || self.wide_share >= 1.0 / 3.0
                || self.total_lines.is_some_and(|t| t >= FLOOD_LINES))
    }

    /// The tool kept the head of the output and dropped the rest (Codex CLI's
    /// "[Output truncated after N lines …]"): what the call printed last is what it lost.
    pub fn cut_keeps_head(&self) -> bool {
        self.truncated.as_deref().is_some_and(|m| m.starts_with("[Output truncated after"))
    }

    /// Too much to read, whatever its lines look like.
    pub fn very_long(&self) -> bool {
        self.bytes >= 10_000 || self.lines >= 200
    }

    /// "a 14 KB ServerArgs(…) dump line" / "a 14 KB line": the line that swamped it.
    pub fn swamp_phrase(&self) -> String {
        let size = human_bytes(self.longest.first().copied().unwrap_or(0) as u64);
        match &self.dump {
            Some(d) => format!("a {size} {d} line"),
            None => format!("a {size} line"),
        }
    }
}

static CTOR_DUMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Z][A-Za-z0-9_]{2,})\(\s*[a-z_][a-z0-9_]*=").expect("constructor-dump regex is valid")
});
static KEY_VALUE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[a-z_][a-z0-9_]*=").expect("key=value regex is valid"));

/// Name a long line by what it is: a `Name(key=…)` repr (argparse `Namespace`,
/// dataclass configs), minified JSON, a base64 blob, a key=value dump.
pub fn describe_line(line: &str) -> Option<String> {
    let head = prefix(line, 400);
    if let Some(c) = CTOR_DUMP.captures(head) {
        return Some(format!("{}(…) dump", &c[1]));
    }
    let start = head.find(['{', '[']);
    if let Some(s) = start
        && s < 200
        && line.matches("\":").take(20).count() >= 20
    {
        return Some("JSON".into());
    }
    if longest_run(line, |b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=') >= LONG_LINE {
        return Some("base64".into());
    }
    let sample = prefix(line, 4000);
    let spaces = sample.bytes().filter(|b| *b == b' ').count();
    if sample.matches(';').take(30).count() >= 30 && spaces * 10 < sample.len() {
        return Some("minified code".into());
    }
    if KEY_VALUE.find_iter(sample).take(20).count() >= 20 {
        return Some("key=value dump".into());
    }
    None
}

fn longest_run(s: &str, pred: impl Fn(u8) -> bool) -> usize {
    let (mut best, mut cur) = (0, 0);
    for b in s.bytes() {
        if pred(b) {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// At most `n` bytes of `s`, cut at a character boundary.
pub fn prefix(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Where a search or a read looked: a file (or folder) or a log stream, on a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The ssh destination without its user (`10.0.0.5` for `root@10.0.0.5`).
    pub host: Option<String>,
    pub what: Source,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A path as written (`./` removed).
    Path(String),
    /// A log that is not a file: `journalctl -u sglang`, `docker logs api`.
    Stream(String),
}

impl Target {
    fn path(host: Option<&str>, p: &str) -> Target {
        let p = p.strip_prefix("./").unwrap_or(p);
        let p = if p.len() > 1 { p.trim_end_matches('/') } else { p };
        Target { host: host.map(bare_host), what: Source::Path(p.to_string()) }
    }

    fn stream(host: Option<&str>, s: String) -> Target {
        Target { host: host.map(bare_host), what: Source::Stream(s) }
    }

    /// Short name for summaries: the file name, or the stream.
    pub fn name(&self) -> &str {
        match &self.what {
            Source::Path(p) => p.rsplit(['/', '\\']).next().filter(|n| !n.is_empty()).unwrap_or(p),
            Source::Stream(s) => s,
        }
    }

    /// "log" or "file", for "the same log".
    pub fn noun(&self) -> &'static str {
        match &self.what {
            Source::Stream(_) => "log",
            Source::Path(p) if p.ends_with(".log") || p.contains("/log") => "log",
            Source::Path(_) => "file",
        }
    }

    /// The same file or log: equal paths, or one path is the other seen from a folder
    /// (`logs/x.log` and `/srv/app/logs/x.log`), on the same host.
    pub fn same(&self, other: &Target) -> bool {
        if self.host != other.host {
            return false;
        }
        match (&self.what, &other.what) {
            (Source::Path(a), Source::Path(b)) => paths_meet(a, b),
            (Source::Stream(a), Source::Stream(b)) => a == b,
            _ => false,
        }
    }

    /// This (search) target covers the file `read`: the same file, or a folder holding
    /// it whose search output has a match in the file (a line that starts with its path,
    /// as `grep -rn`, `rg -n` and `grep -l` print one). A match elsewhere that only
    /// mentions the file ("docs/review.md:26: see src/vault/vault.py:80") is not a look
    /// at it.
    pub fn covers(&self, read: &Target, search_output: &str) -> bool {
        if self.same(read) {
            return true;
        }
        if self.host != read.host {
            return false;
        }
        match (&self.what, &read.what) {
            (Source::Path(dir), Source::Path(file)) => {
                let inside = dir == "." || file.starts_with(&format!("{dir}/"));
                inside
                    && !read.name().is_empty()
                    && search_output.lines().filter_map(match_location).any(|at| paths_meet(&at, file))
            }
            _ => false,
        }
    }
}

/// The file a line of search output is a match in: the path before its first `:` (a
/// drive's `C:` kept), or the whole line when it is a lone path (`grep -l`, rg's
/// headings), with `\\` read as `/` and a leading `./` dropped.
fn match_location(line: &str) -> Option<String> {
    let t = line.trim_start();
    let drive = t.len() > 2 && t.as_bytes()[0].is_ascii_alphabetic() && t[1..].starts_with(":\\");
    let skip = if drive { 2 } else { 0 };
    let end = t[skip..].find(':').map_or(t.trim_end().len(), |k| k + skip);
    let path = &t[..end];
    (!path.is_empty() && !path.contains(char::is_whitespace))
        .then(|| path.replace('\\', "/").trim_start_matches("./").to_string())
}

/// Two spellings of one path: the same, or one the other's tail at a `/`
/// (`ci.yml`, `/repo/.github/workflows/ci.yml` and `.github/workflows/ci.yml`).
pub fn paths_meet(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() < b.len() { (a, b) } else { (b, a) };
    long.ends_with(short) && long[..long.len() - short.len()].ends_with('/')
}

fn bare_host(h: &str) -> String {
    h.rsplit('@').next().unwrap_or(h).to_string()
}

/// A pattern search in a call.
#[derive(Debug, Clone)]
pub struct Search {
    /// `grep`, `rg`, `git grep`, `Grep` (a tool), …
    pub program: String,
    pub pattern: String,
    pub targets: Vec<Target>,
    /// Runs inside a shell loop (a poll's probe, not a look at the result).
    pub in_loop: bool,
    /// No other part of the call prints much, so the call's output is the search's.
    pub sole: bool,
    /// Every other part of the call that prints is a pattern search of a file too
    /// (`rg -n a src && rg -n b src | head`): the call's output is the searches'.
    pub among_searches: bool,
    /// No part of the call after this one prints: a cut that keeps the head of the
    /// output drops this search's part first.
    pub prints_last: bool,
}

impl Search {
    /// "grep on x.log", "rg over src".
    pub fn describe(&self) -> String {
        match self.targets.first() {
            Some(t) if t.noun() == "file" && matches!(&t.what, Source::Path(p) if !p.contains('.') || p == ".") => {
                format!("{} over {}", self.program, t.name())
            }
            Some(t) => format!("{} on {}", self.program, t.name()),
            None => self.program.clone(),
        }
    }
}

/// A read of a file or log by position: the end, the start, or a line range.
#[derive(Debug, Clone)]
pub struct PositionalRead {
    /// `tail -50`, `sed -n '100,160p'`, `Read offset=400`.
    pub how: String,
    pub target: Target,
    /// The first line read, when the read names one (sed/awk ranges, Read offsets).
    pub first_line: Option<u64>,
    pub in_loop: bool,
}

/// Tools that search file contents by pattern with structured input.
const SEARCH_TOOLS: &[&str] = &["grep", "search_file_content", "search_files", "grep_search", "ripgrep", "rg"];
/// Tools that read a file and may take a position.
const READ_TOOLS: &[&str] = &["read", "read_file", "readfile", "view", "view_file", "open_file", "str_replace_editor"];
const PATH_FIELDS: &[&str] = &["file_path", "path", "absolute_path", "target_file", "filename", "file"];

/// The shell script a call ran, parsed.
pub fn script(call: &Call) -> Option<std::rc::Rc<Script>> {
    call.command.as_deref().map(shell::parse)
}

/// Consecutive commands joined by `|`.
pub fn pipelines(script: &Script) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in script.commands.iter().enumerate() {
        if i > start && !c.piped_from {
            out.push(start..i);
            start = i;
        }
    }
    if start < script.commands.len() {
        out.push(start..script.commands.len());
    }
    out
}

fn lower_name(c: &SimpleCommand) -> String {
    c.name().to_ascii_lowercase()
}

/// The search program a command is, if it searches by a (positive) pattern.
fn search_program(c: &SimpleCommand) -> Option<String> {
    let name = lower_name(c);
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    match name {
        "grep" | "egrep" | "fgrep" | "zgrep" | "rg" | "ag" | "ack" | "ack-grep" => {
            if c.has_flag(Some('v'), Some("invert-match")) || lists_files(c, name) {
                None
            } else {
                Some(name.to_string())
            }
        }
        "findstr" => (!c.args.iter().any(|a| a.eq_ignore_ascii_case("/v"))).then(|| "findstr".into()),
        "select-string" | "sls" => {
            (!c.args.iter().any(|a| a.eq_ignore_ascii_case("-notmatch"))).then(|| "Select-String".into())
        }
        "git" if c.positionals().first() == Some(&"grep") => Some("git grep".into()),
        "journalctl" if c.flag_value(Some('g'), Some("grep")).is_some() => Some("journalctl --grep".into()),
        _ => None,
    }
}

/// `rg --files`, `ag -g`, `ack -f`: the search program lists files (optionally by a
/// name pattern) instead of searching their contents, so it has no matches to bury.
fn lists_files(c: &SimpleCommand, name: &str) -> bool {
    match name {
        "rg" => c.has_flag(None, Some("files")),
        "ag" => c.has_flag(Some('g'), Some("filename-pattern")) || c.has_flag(None, Some("list-file-types")),
        "ack" | "ack-grep" => c.has_flag(Some('f'), None) || c.has_flag(Some('g'), None),
        _ => false,
    }
}

/// The pattern and explicit file operands of a search command.
fn search_operands(c: &SimpleCommand, program: &str) -> (String, Vec<String>) {
    match program {
        "findstr" => {
            let mut pattern = String::new();
            let mut files = Vec::new();
            for a in &c.args {
                if let Some(p) = a.strip_prefix("/c:").or_else(|| a.strip_prefix("/C:")) {
                    pattern = p.to_string();
                } else if a.starts_with('/') && a.len() <= 3 {
                    continue;
                } else if pattern.is_empty() {
                    pattern = a.clone();
                } else {
                    files.push(a.clone());
                }
            }
            (pattern, files)
        }
        "Select-String" => {
            let mut pattern = String::new();
            let mut files = Vec::new();
            let mut it = c.args.iter();
            while let Some(a) = it.next() {
                if a.eq_ignore_ascii_case("-pattern") {
                    pattern = it.next().cloned().unwrap_or_default();
                } else if a.eq_ignore_ascii_case("-path") || a.eq_ignore_ascii_case("-literalpath") {
                    files.extend(it.next().cloned());
                } else if a.starts_with('-') {
                    continue;
                } else if pattern.is_empty() {
                    pattern = a.clone();
                } else {
                    files.push(a.clone());
                }
            }
            (pattern, files)
        }
        "journalctl --grep" => (c.flag_value(Some('g'), Some("grep")).unwrap_or("").to_string(), Vec::new()),
        "git grep" => {
            let pos = c.positionals();
            (pos.get(1).map(|s| s.to_string()).unwrap_or_default(), Vec::new())
        }
        _ => {
            let pattern = c
                .flag_value(Some('e'), Some("regexp"))
                .map(str::to_string)
                .or_else(|| c.positionals().first().map(|s| s.to_string()))
                .unwrap_or_default();
            (pattern, c.file_args().into_iter().map(str::to_string).collect())
        }
    }
}

/// What the first command of a pipeline feeds into it, when that is a file or a log.
fn source_targets(c: &SimpleCommand) -> Vec<Target> {
    let host = c.remote_host.as_deref();
    let name = lower_name(c);
    match name.as_str() {
        "cat" | "zcat" | "bzcat" | "xzcat" | "nl" | "tail" | "head" | "tac" | "get-content" | "gc" | "type" => {
            let files: Vec<String> = if name == "get-content" || name == "gc" || name == "type" {
                c.args.iter().filter(|a| !a.starts_with('-') && a.parse::<u64>().is_err()).cloned().collect()
            } else {
                c.file_args().into_iter().map(str::to_string).collect()
            };
            files.iter().map(|f| Target::path(host, f)).collect()
        }
        _ => stream_of(c).map(|s| vec![Target::stream(host, s)]).unwrap_or_default(),
    }
}

/// `journalctl -u x`, `docker logs c`, `kubectl logs p`: a log that is not a file.
fn stream_of(c: &SimpleCommand) -> Option<String> {
    let name = lower_name(c);
    match name.as_str() {
        "journalctl" => {
            let unit = c.flag_value(Some('u'), Some("unit"));
            Some(match unit {
                Some(u) => format!("journalctl -u {u}"),
                None => "journalctl".to_string(),
            })
        }
        "docker" | "podman" | "kubectl" | "oc" => {
            let pos = c.positionals();
            let logs = pos.iter().position(|a| *a == "logs")?;
            let what = pos.get(logs + 1).filter(|a| a.parse::<u64>().is_err())?;
            Some(format!("{name} logs {what}"))
        }
        _ => None,
    }
}

/// The pattern searches of a call: shell pipelines with a search program, or a search
/// tool's structured input.
pub fn searches(call: &Call) -> Vec<Search> {
    let mut out = Vec::new();
    let tool = call.name.to_ascii_lowercase();
    if call.command.is_none() && SEARCH_TOOLS.contains(&tool.as_str()) {
        let field = |k: &str| call.input.get(k).and_then(|v| v.as_str());
        let pattern = field("pattern").or_else(|| field("regex")).or_else(|| field("query")).unwrap_or("");
        if !pattern.is_empty() {
            let path = PATH_FIELDS.iter().find_map(|k| field(k)).or_else(|| field("dir_path")).unwrap_or(".");
            out.push(Search {
                program: call.name.clone(),
                pattern: pattern.to_string(),
                targets: vec![Target::path(None, path)],
                in_loop: false,
                sole: true,
                among_searches: true,
                prints_last: true,
            });
        }
        return out;
    }
    let Some(script) = script(call) else { return out };
    let pipes = pipelines(&script);
    let mut found: Vec<(usize, Search)> = Vec::new();
    for (pi, p) in pipes.iter().enumerate() {
        let cmds = &script.commands[p.clone()];
        let Some((si, program)) = cmds.iter().enumerate().find_map(|(i, c)| search_program(c).map(|n| (i, n))) else {
            continue;
        };
        let c = &cmds[si];
        let (pattern, files) = search_operands(c, &program);
        let host = c.remote_host.as_deref();
        let mut targets: Vec<Target> = files.iter().map(|f| Target::path(host, f)).collect();
        if targets.is_empty() {
            if program == "journalctl --grep" {
                targets.extend(stream_of(c).map(|s| Target::stream(host, s)));
            } else if si > 0 {
                targets = source_targets(&cmds[0]);
            } else if program == "git grep"
                || matches!(program.as_str(), "rg" | "ag" | "ack" | "ack-grep")
                || c.has_flag(Some('r'), Some("recursive"))
                || c.has_flag(Some('R'), Some("dereference-recursive"))
            {
                targets.push(Target::path(host, "."));
            }
        }
        if targets.is_empty() {
            // Searching a program's output (`ps aux | grep x`), not a file or log.
            continue;
        }
        let sole = pipes.iter().enumerate().all(|(j, q)| j == pi || quiet(&script, q.clone()));
        let prints_last = pipes.iter().enumerate().skip(pi + 1).all(|(_, q)| quiet(&script, q.clone()));
        let search = Search { program, pattern, targets, in_loop: c.in_loop, sole, among_searches: sole, prints_last };
        found.push((pi, search));
    }
    // The parts that print are all searches: the call's output is theirs.
    let searching: Vec<usize> = found.iter().map(|(pi, _)| *pi).collect();
    let among = pipes.iter().enumerate().all(|(j, q)| searching.contains(&j) || quiet(&script, q.clone()));
    out.extend(found.into_iter().map(|(_, s)| Search { among_searches: s.sole || among, ..s }));
    out
}

/// A pipeline that prints little or nothing: quiet programs, or stdout sent elsewhere.
fn quiet(script: &Script, p: Range<usize>) -> bool {
    let cmds = &script.commands[p];
    let all_quiet = cmds.iter().all(|c| QUIET.contains(&c.name()) || c.name().is_empty());
    let redirected = cmds.last().is_some_and(|c| {
        c.redirects.iter().any(|r| matches!(r.fd, None | Some(1)) && matches!(r.op, ">" | ">>" | "&>" | ">|"))
    });
    all_quiet || redirected
}

static SED_RANGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(\d+|\$)\s*(?:,\s*(?:\d+|\$|\+\d+)\s*)?p\s*$").expect("sed range regex is valid")
});
static AWK_NR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bF?NR\s*(?:==|>=|<=|>|<)\s*(\d+)").expect("awk NR regex is valid"));

/// How a command reads by position, and the first line it names.
fn positional_how(c: &SimpleCommand) -> Option<(String, Option<u64>)> {
    let name = lower_name(c);
    match name.as_str() {
        "tail" | "head" => {
            let how = if let Some(n) = c.flag_value(Some('c'), Some("bytes")) {
                format!("{name} -c {n}")
            } else if c.has_flag(Some('f'), Some("follow")) || c.has_flag(Some('F'), None) {
                format!("{name} -f")
            } else {
                match c.flag_value(Some('n'), Some("lines")) {
                    Some(n) => format!("{name} -{}", n.trim_start_matches('-')),
                    None => name.clone(),
                }
            };
            Some((how, None))
        }
        "sed" => {
            if !c.has_flag(Some('n'), Some("quiet")) {
                return None;
            }
            let script = c.flag_value(Some('e'), Some("expression")).or_else(|| c.positionals().first().copied())?;
            let caps = SED_RANGE.captures(script)?;
            Some((format!("sed -n '{script}'"), caps[1].parse().ok()))
        }
        "awk" | "gawk" | "mawk" => {
            let script = c.positionals().first().copied()?;
            let caps = AWK_NR.captures(script)?;
            if script.contains('/') {
                return None; // a pattern match as well: a search, not a position
            }
            Some((format!("awk '{}'", clip_line(script, 40)), caps[1].parse().ok()))
        }
        "less" | "more" => {
            let plus = c.args.iter().find(|a| a.starts_with('+') && a.len() > 1)?;
            Some((format!("{name} {plus}"), plus[1..].parse().ok()))
        }
        "get-content" | "gc" => {
            let mut it = c.args.iter();
            while let Some(a) = it.next() {
                let lower = a.to_ascii_lowercase();
                if matches!(lower.as_str(), "-tail" | "-totalcount" | "-head" | "-first" | "-last") {
                    return Some((format!("Get-Content {a} {}", it.next().map(String::as_str).unwrap_or("")), None));
                }
            }
            None
        }
        "journalctl" => {
            if c.flag_value(Some('g'), Some("grep")).is_some() {
                return None;
            }
            let n = c.flag_value(Some('n'), Some("lines"))?;
            Some((format!("journalctl -n {n}"), None))
        }
        "docker" | "podman" | "kubectl" | "oc" => {
            stream_of(c)?;
            let n = c.flag_value(None, Some("tail"))?;
            Some((format!("{name} logs --tail {n}"), None))
        }
        _ => None,
    }
}

/// The positional reads of a call: a pipeline whose source is read by position (or
/// that reads a file or log by position after `cat`), with no search in it; or a
/// file-read tool given an offset or limit.
pub fn positional_reads(call: &Call) -> Vec<PositionalRead> {
    let mut out = Vec::new();
    let tool = call.name.to_ascii_lowercase();
    if call.command.is_none() && READ_TOOLS.contains(&tool.as_str()) {
        let input = &call.input;
        if tool == "str_replace_editor" && input.get("command").and_then(|v| v.as_str()) != Some("view") {
            return out;
        }
        let num = |k: &str| input.get(k).and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())));
        let offset = num("offset")
            .or_else(|| num("start_line"))
            .or_else(|| num("line_start"))
            .or_else(|| input.get("view_range").and_then(|v| v.get(0)).and_then(|v| v.as_u64()));
        let limit = num("limit").or_else(|| num("end_line"));
        if offset.is_none() && limit.is_none() {
            return out;
        }
        let Some(path) = PATH_FIELDS.iter().find_map(|k| input.get(*k).and_then(|v| v.as_str())) else {
            return out;
        };
        let mut how = call.name.clone();
        if let Some(o) = offset {
            how.push_str(&format!(" offset={o}"));
        }
        if let Some(l) = limit {
            how.push_str(&format!(" limit={l}"));
        }
        out.push(PositionalRead { how, target: Target::path(None, path), first_line: offset, in_loop: false });
        return out;
    }
    let Some(script) = script(call) else { return out };
    for p in pipelines(&script) {
        let cmds = &script.commands[p];
        if cmds.iter().any(|c| search_program(c).is_some()) {
            continue;
        }
        let first = &cmds[0];
        let host = first.remote_host.as_deref();
        // The reader itself names the file or log.
        if let Some((how, line)) = positional_how(first) {
            let mut targets: Vec<Target> = match stream_of(first) {
                Some(s) => vec![Target::stream(host, s)],
                None => first.file_args().into_iter().map(|f| Target::path(host, f)).collect(),
            };
            if lower_name(first) == "get-content" || lower_name(first) == "gc" {
                targets = source_targets(first);
            }
            for t in targets {
                out.push(PositionalRead { how: how.clone(), target: t, first_line: line, in_loop: first.in_loop });
            }
            continue;
        }
        // `cat f | tail -50`, `journalctl -u x | tail -100`, `cat -n f | sed -n '5,9p'`.
        let Some(reader) = cmds.get(1) else { continue };
        let Some((how, line)) = positional_how(reader) else { continue };
        if !reader.file_args().is_empty() && stream_of(reader).is_none() {
            continue;
        }
        let name = lower_name(first);
        if !matches!(name.as_str(), "cat" | "nl" | "journalctl" | "docker" | "podman" | "kubectl" | "oc") {
            continue;
        }
        for t in source_targets(first) {
            out.push(PositionalRead { how: how.clone(), target: t, first_line: line, in_loop: reader.in_loop });
        }
    }
    out
}

/// Literal text a command prints with `echo`/`printf`: the words up to the first
/// expansion (`"Timed out after $i attempts"` gives "Timed out after").
pub fn echoed_literals(script: &Script) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, c) in script.commands.iter().enumerate() {
        if !matches!(c.name(), "echo" | "printf") {
            continue;
        }
        let words: Vec<&str> = c.args.iter().map(String::as_str).filter(|a| !a.starts_with('-')).collect();
        let text = words.join(" ");
        let cut = text.find(['$', '%', '`', '\\']).unwrap_or(text.len());
        let lit = text[..cut].trim().trim_end_matches(['(', '[', ':', '=', ',']).trim();
        if lit.chars().filter(|c| c.is_alphanumeric()).count() >= 2 {
            out.push((i, lit.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash(cmd: &str) -> Call {
        Call { name: "Bash".into(), command: Some(cmd.into()), ..Call::default() }
    }

    #[test]
    fn payload_drops_harness_headers() {
        assert_eq!(payload("Exit code 1\nboom"), "boom");
        assert_eq!(payload("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nhello\n"), "hello\n");
        assert_eq!(payload("Chunk ID: 3\nWall time: 1 seconds\nProcess exited with code 0\nOutput:\nx"), "x");
        assert_eq!(payload("plain: text here\nmore"), "plain: text here\nmore");
    }

    #[test]
    fn one_huge_line_swamps_an_output() {
        let dump = format!("[2026-02-27] server_args=ServerArgs(model_path='/m', {})", "tp_size=8, ".repeat(1300));
        let out = format!("{dump}\n[2026-02-27] WARNING import failed\n");
        let s = Shape::of(&out);
        assert!(s.swamped(), "{s:?}");
        assert_eq!(s.dump.as_deref(), Some("ServerArgs(…) dump"));
        assert_eq!(s.swamp_phrase(), "a 14 KB ServerArgs(…) dump line");
        let normal = "a.rs:12: fn main()\n".repeat(300);
        let s = Shape::of(&normal);
        assert!(!s.swamped() && s.very_long());
    }

    #[test]
    fn dumps_are_named() {
        let json = format!("{{{}}}", (0..40).map(|i| format!("\"k{i}\":{i}")).collect::<Vec<_>>().join(","));
        assert_eq!(describe_line(&json).as_deref(), Some("JSON"));
        assert_eq!(describe_line(&"QUJD".repeat(400)).as_deref(), Some("base64"));
        let js: String = (0..200).map(|i| format!("var a{i}=function(e){{return e.k{i}}};")).collect();
        assert_eq!(describe_line(&js).as_deref(), Some("minified code"));
        assert_eq!(describe_line(&"just words ".repeat(200)), None);
    }

    #[test]
    fn truncation_markers_of_each_harness() {
        for m in [
            "a\n... [120 lines truncated] ...\nb",
            "a\n[... omitted 900 of 1200 lines ...]\n",
            "x…4512 tokens truncated…y",
            "a\n\n[Output truncated after 256 lines: too many lines or bytes.]",
        ] {
            assert!(Shape::of(m).truncated.is_some(), "{m}");
        }
    }

    #[test]
    fn searches_name_their_file_through_ssh_and_pipes() {
        let s = searches(&bash("ssh root@10.0.0.5 'grep -i \"exception\\|error\" /data/logs/exp.log | head -20' 2>&1"));
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].program, "grep");
        assert_eq!(s[0].targets[0].name(), "exp.log");
        assert_eq!(s[0].targets[0].host.as_deref(), Some("10.0.0.5"));
        assert!(s[0].sole && !s[0].in_loop);

        let s = searches(&bash("journalctl -u sglang --no-pager | grep -i error"));
        assert_eq!(s[0].targets[0].name(), "journalctl -u sglang");
        assert!(searches(&bash("ps aux | grep python")).is_empty(), "a program's output is not a file");
        assert!(searches(&bash("tail -100 x.log | grep -v DEBUG")).is_empty(), "grep -v filters, it does not search");
        let s = searches(&bash("cat app.log | grep -n Traceback"));
        assert_eq!(s[0].targets[0].name(), "app.log");
        let s = searches(&bash("grep foo a.log; tail -5 b.log"));
        assert!(!s[0].sole, "another pipeline prints too");
        let grep_tool = Call {
            name: "Grep".into(),
            input: json!({"pattern": "Traceback", "path": "/srv/app/server.log"}),
            ..Call::default()
        };
        assert_eq!(searches(&grep_tool)[0].targets[0].name(), "server.log");
    }

    #[test]
    fn positional_reads_of_files_and_logs() {
        let r = positional_reads(&bash("ssh root@10.0.0.5 'tail -50 /data/logs/exp.log' 2>&1"));
        assert_eq!(r[0].how, "tail -50");
        assert_eq!(r[0].target.host.as_deref(), Some("10.0.0.5"));
        let r = positional_reads(&bash("sed -n '120,180p' src/server.py"));
        assert_eq!((r[0].how.as_str(), r[0].first_line), ("sed -n '120,180p'", Some(120)));
        let r = positional_reads(&bash("awk 'NR>=400 && NR<=460' run.log"));
        assert_eq!(r[0].first_line, Some(400));
        assert_eq!(positional_reads(&bash("less +G big.log"))[0].how, "less +G");
        let r = positional_reads(&bash("journalctl -u sglang --no-pager | tail -80"));
        assert_eq!(r[0].target.name(), "journalctl -u sglang");
        assert!(positional_reads(&bash("grep x f.log | tail -30")).is_empty(), "a search, even if tailed");
        assert!(positional_reads(&bash("sed -i 's/a/b/' f.py")).is_empty());
        assert!(positional_reads(&bash("cat f.log")).is_empty(), "a whole read is not positional");
        let read_tool = Call {
            name: "Read".into(),
            input: json!({"file_path": "/srv/app/server.log", "offset": 4000, "limit": 80}),
            ..Call::default()
        };
        let r = positional_reads(&read_tool);
        assert_eq!((r[0].how.as_str(), r[0].first_line), ("Read offset=4000 limit=80", Some(4000)));
        let whole = Call { name: "Read".into(), input: json!({"file_path": "/srv/a.py"}), ..Call::default() };
        assert!(positional_reads(&whole).is_empty());
    }

    #[test]
    fn targets_meet_across_relative_and_absolute_paths() {
        let a = Target::path(None, "logs/x.log");
        let b = Target::path(None, "/srv/app/logs/x.log");
        assert!(a.same(&b) && b.same(&a));
        assert!(!Target::path(None, "other/x.log").same(&b));
        assert!(!Target::path(Some("root@h1"), "/x.log").same(&Target::path(Some("h2"), "/x.log")));
        assert!(Target::path(Some("root@h1"), "/x.log").same(&Target::path(Some("h1"), "/x.log")));
        let dir = Target::path(None, "logs/");
        assert!(dir.covers(&a, "logs/x.log:12: boom"));
        assert!(!dir.covers(&a, "logs/y.log:12: boom"));
        // A match in the file, in any spelling of its path; not a mention of it.
        assert!(dir.covers(&a, "logs\\x.log:7:boom"));
        assert!(dir.covers(&a, "./logs/x.log"));
        assert!(!dir.covers(&a, "docs/review.md:26: see `logs/x.log:80`"));
        let win = Target::path(None, "C:/srv/logs/x.log");
        assert!(Target::path(None, "C:/srv").covers(&win, "C:\\srv\\logs\\x.log:3: boom"));
    }

    #[test]
    fn echoed_literals_stop_at_expansions() {
        let s = shell::parse("for i in $(seq 1 5); do echo \"Timed out after $i attempts\"; printf 'READY\\n'; done");
        let lits: Vec<String> = echoed_literals(&s).into_iter().map(|(_, l)| l).collect();
        assert_eq!(lits, ["Timed out after", "READY"]);
    }
}
