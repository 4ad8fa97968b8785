//! Synthetic transcript archives for the benchmark harness (`examples/debrief-gen.rs`,
//! `bench/run.sh`, `docs/performance.md`).
//!
//! The archives are deterministic — the same seed and size give byte-identical files on
//! every run and machine — and realistic in what costs time and memory at scale:
//! tool outputs make up most of the bytes; Claude Code writes every output twice (in
//! the `tool_result` block and again in `toolUseResult`, with whole files for `Read` and
//! `Edit`) and Codex writes it twice too (`function_call_output` and the
//! `exec_command_end` event); some outputs are 20–60 KB single-line dumps, progress bars
//! redrawn with `\r`, tracebacks, compiler errors, long logs; thinking blocks carry long
//! signatures; sessions range from a few KB to tens of MB. Words follow a Zipf-like
//! distribution over English and a large pool of code identifiers, and there are plenty
//! of one-off tokens (hashes, ids, addresses, timestamps) as in real logs, so the term
//! dictionary grows the way a real one does. A few marker words ([`NEEDLES`]) are
//! planted at known rates so that benchmark queries have rare and common targets.
//!
//! Layout under the output folder, as the agents write it:
//! `claude/projects/-home-dev-src-<project>/<uuid>.jsonl` and
//! `codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`.

use rand::seq::IndexedRandom;
use rand::{Rng as _, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// What to generate.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Total bytes to write (the archive ends up within one turn of it per file).
    pub size: u64,
    pub seed: u64,
    /// Share of the bytes written as Codex sessions (0.0–1.0); the rest is Claude Code.
    pub codex_share: f64,
    /// Make the first Claude Code session this large (a single huge session file).
    pub big_session: Option<u64>,
    /// Spread the bytes over exactly this many files instead of the natural mix of
    /// session sizes (for the many-files re-index benchmark).
    pub files: Option<usize>,
}

impl Spec {
    pub fn new(size: u64, seed: u64) -> Spec {
        Spec { size, seed, codex_share: 0.0, big_session: None, files: None }
    }
}

/// Words planted at fixed rates per message, for rare-word benchmark queries.
/// (word, expected occurrences per million generated messages)
pub const NEEDLES: &[(&str, u32)] =
    &[("quokka", 40), ("axolotl_fixture", 15), ("NCCL_MAX_NCHANNELS", 400), ("ServerArgs", 800), ("ECONNRESET", 600)];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Codex,
}

/// One file to write.
#[derive(Debug, Clone)]
pub struct FilePlan {
    /// Path relative to the output folder.
    pub path: PathBuf,
    pub agent: Agent,
    /// Bytes to write (the file stops after the first turn that reaches it).
    pub target: u64,
    pub seed: u64,
    /// Session start, milliseconds since the epoch.
    pub start_ms: i64,
    pub project: String,
}

/// The generator's random source: `rand`'s ChaCha8 stream (`rand_chacha`), seeded from a
/// `u64`. The archive must be the same for a seed on every machine and run: ChaCha8 is
/// a named algorithm whose output rand_chacha keeps fixed (checked against reference
/// vectors), and `Cargo.lock` pins the `rand` release whose ranges and floats are drawn
/// from it (rand allows itself value changes in minor releases only). Updating `rand`
/// to a new minor release may therefore change the archive; bench figures compare
/// binaries on one archive, so that only matters across runs of the harness.
#[derive(Debug, Clone)]
pub struct Rng(ChaCha8Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(ChaCha8Rng::seed_from_u64(seed))
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0.random_range(0..n)
    }
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        self.0.random_range(lo..=hi)
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.0.random()
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.0.random_bool(p.clamp(0.0, 1.0))
    }
    /// Zipf-like rank in `0..n`: P(k) ∝ 1/(k+1) (log-uniform).
    pub fn zipf(&mut self, n: usize) -> usize {
        let k = ((n as f64 + 1.0).ln() * self.unit()).exp() as usize;
        k.saturating_sub(1).min(n - 1)
    }
    /// Log-uniform size between lo and hi.
    pub fn log_size(&mut self, lo: usize, hi: usize) -> usize {
        let (l, h) = ((lo as f64).ln(), (hi as f64).ln());
        (l + (h - l) * self.unit()).exp() as usize
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        items.choose(&mut self.0).expect("pick from a non-empty list")
    }
    pub fn hex(&mut self, out: &mut String, n: usize) {
        const HEX: &[u8] = b"0123456789abcdef";
        let mut x = self.next_u64();
        for i in 0..n {
            if i % 16 == 15 {
                x = self.next_u64();
            }
            out.push(HEX[(x & 15) as usize] as char);
            x >>= 4;
        }
    }

    pub fn uuid(&mut self) -> String {
        let mut s = String::with_capacity(36);
        for (i, n) in [8, 4, 4, 4, 12].iter().enumerate() {
            if i > 0 {
                s.push('-');
            }
            self.hex(&mut s, *n);
        }
        s
    }

    pub fn base64(&mut self, out: &mut String, n: usize) {
        const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut x = self.next_u64();
        for i in 0..n {
            if i % 10 == 9 {
                x = self.next_u64();
            }
            out.push(B64[(x & 63) as usize] as char);
            x >>= 6;
        }
    }
}

const ENGLISH: &[&str] = &[
    "the",
    "to",
    "a",
    "and",
    "of",
    "is",
    "in",
    "it",
    "that",
    "for",
    "this",
    "with",
    "on",
    "be",
    "not",
    "we",
    "I",
    "you",
    "are",
    "at",
    "as",
    "now",
    "so",
    "if",
    "but",
    "from",
    "can",
    "was",
    "have",
    "will",
    "let",
    "me",
    "check",
    "file",
    "test",
    "error",
    "run",
    "fix",
    "see",
    "look",
    "there",
    "should",
    "which",
    "when",
    "then",
    "what",
    "one",
    "all",
    "by",
    "an",
    "or",
    "still",
    "because",
    "function",
    "code",
    "output",
    "failing",
    "fails",
    "value",
    "change",
    "update",
    "need",
    "make",
    "sure",
    "first",
    "again",
    "just",
    "also",
    "here",
    "config",
    "issue",
    "problem",
    "works",
    "seems",
    "looks",
    "like",
    "instead",
    "only",
    "after",
    "before",
    "call",
    "calls",
    "returns",
    "build",
    "log",
    "logs",
    "line",
    "lines",
    "version",
    "missing",
    "wrong",
    "expected",
    "actual",
    "passes",
    "tests",
    "server",
    "request",
    "response",
    "timeout",
    "retry",
    "memory",
    "data",
    "model",
    "training",
    "loss",
    "step",
    "batch",
    "script",
    "command",
    "directory",
    "path",
    "module",
    "import",
    "package",
    "install",
    "dependency",
    "environment",
    "variable",
    "setting",
    "option",
    "flag",
    "default",
    "case",
    "cause",
    "root",
    "reason",
    "likely",
    "probably",
    "actually",
    "correct",
    "incorrect",
    "simple",
    "minimal",
    "reproduce",
    "bug",
    "crash",
    "hang",
    "slow",
    "fast",
    "cache",
    "worker",
    "queue",
    "job",
    "task",
    "process",
    "thread",
    "lock",
    "race",
    "condition",
    "timezone",
    "date",
    "time",
    "format",
    "parse",
    "string",
    "number",
    "list",
    "dict",
    "map",
    "key",
    "type",
    "class",
    "method",
    "field",
    "struct",
    "trait",
    "borrow",
    "lifetime",
    "compile",
    "compiler",
    "warning",
    "kernel",
    "device",
    "gpu",
    "cuda",
    "rank",
    "node",
    "cluster",
    "network",
    "connection",
    "refused",
    "reset",
    "port",
    "host",
    "socket",
    "endpoint",
    "database",
    "query",
    "migration",
    "schema",
    "table",
    "index",
    "row",
    "column",
    "user",
    "account",
    "balance",
    "ledger",
    "payment",
    "invoice",
    "deploy",
    "release",
    "branch",
    "commit",
    "merge",
    "diff",
    "patch",
    "review",
    "approach",
    "plan",
    "next",
    "done",
    "good",
    "great",
    "okay",
    "right",
    "think",
    "try",
    "tried",
    "trying",
    "add",
    "added",
    "remove",
    "removed",
    "rename",
    "move",
    "keep",
    "drop",
    "skip",
    "handle",
    "handler",
    "case",
    "edge",
    "null",
    "empty",
    "none",
    "true",
    "false",
    "zero",
    "large",
    "small",
    "every",
    "each",
    "some",
    "many",
    "few",
    "more",
    "less",
    "than",
    "into",
    "out",
    "up",
    "down",
    "over",
    "under",
    "between",
    "without",
    "within",
    "across",
    "again",
    "once",
    "twice",
    "until",
    "while",
    "since",
    "already",
    "yet",
    "why",
    "how",
    "where",
    "who",
    "whether",
    "entry",
    "point",
    "result",
    "results",
    "report",
    "summary",
    "details",
    "step",
    "steps",
    "stage",
    "phase",
];

const PARTS: &[&str] = &[
    "config",
    "server",
    "client",
    "request",
    "handler",
    "cache",
    "token",
    "batch",
    "worker",
    "queue",
    "retry",
    "backoff",
    "buffer",
    "stream",
    "parse",
    "index",
    "session",
    "model",
    "tensor",
    "grad",
    "loss",
    "epoch",
    "shard",
    "rank",
    "device",
    "kernel",
    "alloc",
    "mem",
    "pool",
    "thread",
    "lock",
    "mutex",
    "channel",
    "socket",
    "conn",
    "timeout",
    "delay",
    "attempt",
    "job",
    "task",
    "event",
    "state",
    "store",
    "db",
    "query",
    "schema",
    "field",
    "record",
    "row",
    "column",
    "user",
    "auth",
    "login",
    "http",
    "url",
    "path",
    "file",
    "dir",
    "log",
    "level",
    "debug",
    "trace",
    "error",
    "warn",
    "info",
    "metric",
    "count",
    "total",
    "max",
    "min",
    "avg",
    "size",
    "len",
    "offset",
    "limit",
    "page",
    "item",
    "list",
    "map",
    "set",
    "key",
    "value",
    "hash",
    "id",
    "name",
    "type",
    "kind",
    "mode",
    "flag",
    "opt",
    "arg",
    "param",
    "env",
    "var",
    "init",
    "setup",
    "load",
    "save",
    "read",
    "write",
    "open",
    "close",
    "start",
    "stop",
    "run",
    "exec",
    "spawn",
    "wait",
    "poll",
    "send",
    "recv",
    "encode",
    "decode",
    "serialize",
    "validate",
    "check",
    "verify",
    "test",
    "mock",
    "fixture",
    "assert",
    "expect",
    "result",
    "output",
    "input",
    "format",
    "render",
    "template",
    "view",
    "route",
    "api",
    "proxy",
    "gateway",
    "balance",
    "ledger",
    "account",
    "invoice",
    "payment",
    "order",
    "cart",
    "price",
    "rate",
    "currency",
    "timezone",
    "date",
    "clock",
    "tick",
    "nccl",
    "cuda",
    "gpu",
    "cpu",
    "fp16",
    "bf16",
    "attn",
    "layer",
    "head",
    "embed",
    "vocab",
    "seq",
    "ctx",
    "window",
    "decoder",
    "encoder",
    "optimizer",
    "scheduler",
    "warmup",
    "lr",
    "weight",
    "bias",
    "norm",
    "dropout",
    "eval",
    "train",
    "step",
    "ckpt",
    "checkpoint",
    "deliver",
    "webhook",
    "rollover",
    "snapshot",
    "manifest",
    "registry",
];

const EXCEPTIONS: &[&str] = &[
    "ValueError",
    "KeyError",
    "TypeError",
    "AttributeError",
    "RuntimeError",
    "AssertionError",
    "ImportError",
    "ModuleNotFoundError",
    "FileNotFoundError",
    "ConnectionRefusedError",
    "TimeoutError",
    "IndexError",
    "ZeroDivisionError",
    "PermissionError",
    "torch.cuda.OutOfMemoryError",
];

const ERROR_MESSAGES: &[&str] = &[
    "connection refused",
    "out of memory",
    "borrow of moved value",
    "No such file or directory",
    "permission denied",
    "address already in use",
    "broken pipe",
    "invalid literal for int() with base 10",
    "list index out of range",
    "'NoneType' object has no attribute 'get'",
    "CUDA out of memory. Tried to allocate 2.00 GiB",
    "timed out after 30 seconds",
    "assert 3 == 4",
    "unexpected keyword argument 'timeout'",
];

const PROGRAMS: &[&str] = &[
    "pytest",
    "python",
    "cargo",
    "grep",
    "rg",
    "tail",
    "cat",
    "sed",
    "ls",
    "git",
    "npm",
    "make",
    "docker",
    "curl",
    "find",
    "head",
    "awk",
    "nvidia-smi",
    "torchrun",
    "uv",
];

/// The identifier pool and other fixed material, built once from a fixed seed so that
/// every archive (whatever its seed) shares a vocabulary.
struct Vocab {
    idents: Vec<String>,
    files: Vec<String>,
}

impl Vocab {
    fn build() -> Vocab {
        let mut rng = Rng::new(0x5eed);
        let mut idents = Vec::with_capacity(40_000);
        for _ in 0..40_000 {
            let n = rng.range(2, 3);
            let parts: Vec<&str> = (0..n).map(|_| *rng.pick(PARTS)).collect();
            let style = rng.below(100);
            let mut s = if style < 45 {
                parts.join("_")
            } else if style < 65 {
                let mut s = parts[0].to_string();
                for p in &parts[1..] {
                    s.push_str(&capitalize(p));
                }
                s
            } else if style < 88 {
                parts.iter().map(|p| capitalize(p)).collect()
            } else {
                parts.join("_").to_uppercase()
            };
            if rng.chance(0.15) {
                let _ = write!(s, "{}", rng.below(100));
            }
            idents.push(s);
        }
        let mut files = Vec::with_capacity(3000);
        for _ in 0..3000 {
            let dir = *rng.pick(PARTS);
            let sub = *rng.pick(PARTS);
            let name = format!("{}_{}", rng.pick(PARTS), rng.pick(PARTS));
            let ext = *rng.pick(&["py", "py", "py", "rs", "ts", "go", "toml", "yaml", "json", "md"]);
            files.push(format!("{dir}/{sub}/{name}.{ext}"));
        }
        Vocab { idents, files }
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Text generator over the shared vocabulary and one session's RNG.
struct Gen<'v> {
    v: &'v Vocab,
    rng: Rng,
    project: String,
    cwd: String,
}

impl Gen<'_> {
    fn word(&mut self, out: &mut String) {
        let r = self.rng.below(100);
        if r < 72 {
            out.push_str(ENGLISH[self.rng.zipf(ENGLISH.len())]);
        } else if r < 96 {
            let i = self.rng.zipf(self.v.idents.len());
            out.push_str(&self.v.idents[i]);
        } else if r < 98 {
            let _ = write!(out, "{}", self.rng.below(10_000));
        } else {
            self.rng.hex(out, 8);
        }
    }

    fn ident(&mut self) -> &str {
        let i = self.rng.zipf(self.v.idents.len());
        &self.v.idents[i]
    }

    fn file(&mut self) -> String {
        let i = self.rng.zipf(self.v.files.len());
        self.v.files[i].clone()
    }

    /// A planted marker word, at its rate per message.
    fn needle(&mut self, out: &mut String) {
        for (w, per_million) in NEEDLES {
            if self.rng.below(1_000_000) < *per_million as usize {
                out.push(' ');
                out.push_str(w);
            }
        }
    }

    fn sentence(&mut self, out: &mut String, words: usize) {
        let start = out.len();
        for i in 0..words {
            if i > 0 {
                out.push(' ');
            }
            if self.rng.chance(0.06) {
                out.push('`');
                let id = self.ident().to_string();
                out.push_str(&id);
                out.push('`');
            } else {
                self.word(out);
            }
        }
        if let Some(c) = out[start..].chars().next()
            && c.is_ascii_lowercase()
        {
            let upper = c.to_ascii_uppercase();
            out.replace_range(start..start + 1, &upper.to_string());
        }
        out.push_str(if self.rng.chance(0.1) { ":" } else { "." });
    }

    fn prose(&mut self, out: &mut String, sentences: usize) {
        for i in 0..sentences {
            if i > 0 {
                out.push_str(if self.rng.chance(0.2) { "\n\n" } else { " " });
            }
            let n = self.rng.range(5, 22);
            self.sentence(out, n);
        }
        self.needle(out);
    }

    fn code_line(&mut self, out: &mut String) {
        let indent = self.rng.below(4) * 4;
        for _ in 0..indent {
            out.push(' ');
        }
        let a = self.ident().to_string();
        let b = self.ident().to_string();
        let c = self.ident().to_string();
        match self.rng.below(7) {
            0 => {
                let _ = write!(out, "{a} = {b}({c}, timeout={})", self.rng.below(120));
            }
            1 => {
                let _ = write!(out, "if {a}.{b} is None:");
            }
            2 => {
                let _ = write!(out, "return {a}[{c}] + {}", self.rng.below(10));
            }
            3 => {
                let _ = write!(out, "def {a}(self, {b}: int, {c}: str = \"\") -> dict:");
            }
            4 => {
                let _ = write!(out, "let {a} = {b}.{c}()?;");
            }
            5 => {
                let _ = write!(out, "# {} {} {}", ENGLISH[self.rng.zipf(ENGLISH.len())], a, b);
            }
            _ => {
                let _ = write!(out, "self.{a} = {b}.get(\"{c}\", {})", self.rng.below(100));
            }
        }
    }

    fn timestamp_text(&mut self, out: &mut String) {
        let _ = write!(
            out,
            "2026-{:02}-{:02} {:02}:{:02}:{:02},{:03}",
            self.rng.range(1, 3),
            self.rng.range(1, 28),
            self.rng.below(24),
            self.rng.below(60),
            self.rng.below(60),
            self.rng.below(1000)
        );
    }

    // ---- tool outputs -------------------------------------------------------------

    fn out_traceback(&mut self, out: &mut String) {
        out.push_str("Traceback (most recent call last):\n");
        for _ in 0..self.rng.range(2, 9) {
            let f = self.file();
            let func = self.ident().to_string();
            let _ = writeln!(out, "  File \"{}/{f}\", line {}, in {func}", self.cwd, self.rng.range(1, 900));
            out.push_str("    ");
            self.code_line(out);
            out.push('\n');
        }
        let exc = *self.rng.pick(EXCEPTIONS);
        let msg = *self.rng.pick(ERROR_MESSAGES);
        let _ = writeln!(out, "{exc}: {msg}");
    }

    fn out_pytest(&mut self, out: &mut String) {
        let n = self.rng.log_size(3, 300);
        out.push_str("============================= test session starts ==============================\n");
        out.push_str("platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0\n");
        let _ = writeln!(out, "rootdir: {}\ncollected {n} items\n", self.cwd);
        let mut failed = Vec::new();
        let mut done = 0;
        while done < n {
            let f = self.file();
            let k = self.rng.range(1, 30).min(n - done);
            let _ = write!(out, "tests/{f} ");
            for _ in 0..k {
                if self.rng.chance(0.04) {
                    out.push('F');
                    failed.push((f.clone(), self.ident().to_string()));
                } else {
                    out.push('.');
                }
            }
            done += k;
            let _ = writeln!(out, " [{:3}%]", done * 100 / n);
        }
        if !failed.is_empty() {
            out.push_str("\n=================================== FAILURES ===================================\n");
            for (f, t) in &failed {
                let _ = writeln!(out, "____________________________ test_{t} ____________________________\n");
                for _ in 0..self.rng.range(3, 12) {
                    out.push_str("    ");
                    self.code_line(out);
                    out.push('\n');
                }
                let msg = *self.rng.pick(ERROR_MESSAGES);
                let _ = writeln!(
                    out,
                    ">       assert {t} == expected\nE       AssertionError: {msg}\n\ntests/{f}:{}: AssertionError",
                    self.rng.range(1, 500)
                );
            }
            out.push_str("=========================== short test summary info ============================\n");
            for (f, t) in &failed {
                let _ = writeln!(out, "FAILED tests/{f}::test_{t} - AssertionError");
            }
        }
        let _ = writeln!(
            out,
            "======================== {} failed, {} passed in {}.{:02}s ========================",
            failed.len(),
            n - failed.len(),
            self.rng.below(90),
            self.rng.below(100)
        );
    }

    fn out_cargo(&mut self, out: &mut String) {
        let _ = writeln!(out, "   Compiling {} v0.{}.0 ({})", self.project, self.rng.below(9), self.cwd);
        for _ in 0..self.rng.range(1, 6) {
            let code = self.rng.range(1, 800);
            let msg = *self.rng.pick(&[
                "borrow of moved value",
                "mismatched types",
                "cannot find value in this scope",
                "use of possibly-uninitialized variable",
                "the trait bound is not satisfied",
            ]);
            let f = self.file().replace(".py", ".rs");
            let line = self.rng.range(1, 700);
            let _ = writeln!(out, "error[E{code:04}]: {msg}: `{}`", self.ident());
            let _ = writeln!(out, "  --> src/{f}:{line}:{}\n   |", self.rng.range(1, 60));
            let _ = write!(out, "{line} | ");
            self.code_line(out);
            out.push_str("\n   |     ^^^^^^^ value used here after move\n\n");
        }
        let _ = writeln!(out, "error: could not compile `{}` due to previous errors", self.project);
    }

    fn out_log(&mut self, out: &mut String, bytes: usize) {
        let target = out.len() + bytes;
        while out.len() < target {
            self.timestamp_text(out);
            let level = *self.rng.pick(&["INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR"]);
            let module = format!("{}.{}", self.rng.pick(PARTS), self.rng.pick(PARTS));
            let _ = write!(out, " {level} {module}: ");
            let n = self.rng.range(3, 12);
            self.sentence(out, n);
            let _ = write!(out, " {}=", self.rng.pick(PARTS));
            self.rng.hex(out, 12);
            let _ = write!(
                out,
                " step={} loss={}.{:04}",
                self.rng.below(100_000),
                self.rng.below(5),
                self.rng.below(10_000)
            );
            if self.rng.chance(0.002) {
                self.needle(out);
                out.push_str(" NCCL WARN NET/Socket : peer closed connection ECONNRESET");
            }
            out.push('\n');
        }
    }

    fn out_grep(&mut self, out: &mut String) {
        for _ in 0..self.rng.log_size(1, 200) {
            let f = self.file();
            let _ = write!(out, "{f}:{}:", self.rng.range(1, 2000));
            self.code_line(out);
            out.push('\n');
        }
    }

    fn out_progress(&mut self, out: &mut String) {
        let total = self.rng.range(100, 5000);
        let steps = self.rng.log_size(10, 400);
        let label = self.ident().to_string();
        for s in 0..=steps {
            let done = total * s / steps;
            let pct = 100 * s / steps;
            let bar: String = (0..20).map(|i| if i * 5 < pct { '█' } else { ' ' }).collect();
            let _ = write!(
                out,
                "\r{label}: {pct:3}%|{bar}| {done}/{total} [{:02}:{:02}<{:02}:{:02}, {}.{}it/s, loss={}.{:03}]",
                s / 60,
                s % 60,
                (steps - s) / 60,
                (steps - s) % 60,
                self.rng.below(90),
                self.rng.below(10),
                self.rng.below(3),
                self.rng.below(1000)
            );
        }
        out.push('\n');
    }

    /// A 20–60 KB single-line dump: minified JSON, a blob, or a CSV row.
    fn out_dump(&mut self, out: &mut String) {
        let bytes = self.rng.range(20_000, 60_000);
        let target = out.len() + bytes;
        match self.rng.below(3) {
            0 => {
                out.push('{');
                while out.len() < target {
                    let k = self.ident().to_string();
                    let _ = write!(out, "\"{k}\":");
                    match self.rng.below(4) {
                        0 => {
                            let _ = write!(out, "{},", self.rng.below(1_000_000));
                        }
                        1 => {
                            out.push('"');
                            self.rng.hex(out, 24);
                            out.push_str("\",");
                        }
                        2 => {
                            out.push_str("[\"");
                            let w = self.ident().to_string();
                            out.push_str(&w);
                            out.push_str("\",true,null],");
                        }
                        _ => {
                            out.push('"');
                            let n = self.rng.range(2, 8);
                            self.sentence(out, n);
                            out.push_str("\",");
                        }
                    }
                }
                out.push_str("\"end\":true}");
            }
            1 => {
                out.push_str("data:application/octet-stream;base64,");
                self.rng.base64(out, bytes);
            }
            _ => {
                while out.len() < target {
                    let (a, b) = (self.rng.below(1000), self.rng.below(1000));
                    let _ = write!(out, "{},{a}.{b},", self.ident());
                }
            }
        }
        out.push('\n');
    }

    fn out_listing(&mut self, out: &mut String) {
        for _ in 0..self.rng.log_size(3, 400) {
            let f = self.file();
            if self.rng.chance(0.5) {
                let _ = writeln!(out, "{}/{f}", self.cwd);
            } else {
                let _ = writeln!(
                    out,
                    "-rw-r--r-- 1 dev dev {:>8} Mar {:2} {:02}:{:02} {f}",
                    self.rng.below(200_000),
                    self.rng.range(1, 28),
                    self.rng.below(24),
                    self.rng.below(60)
                );
            }
        }
    }

    fn out_diff(&mut self, out: &mut String) {
        for _ in 0..self.rng.range(1, 5) {
            let f = self.file();
            let _ = writeln!(out, "diff --git a/{f} b/{f}\nindex ");
            self.rng.hex(out, 7);
            out.push_str("..");
            self.rng.hex(out, 7);
            let _ = writeln!(out, " 100644\n--- a/{f}\n+++ b/{f}");
            let _ = writeln!(out, "@@ -{},7 +{},9 @@", self.rng.range(1, 500), self.rng.range(1, 500));
            for _ in 0..self.rng.range(4, 30) {
                out.push(*self.rng.pick(&[' ', ' ', '-', '+']));
                self.code_line(out);
                out.push('\n');
            }
        }
    }

    fn out_nccl(&mut self, out: &mut String) {
        let host = format!("gpu-node-{:02}", self.rng.below(32));
        for _ in 0..self.rng.range(10, 120) {
            let rank = self.rng.below(8);
            let _ = write!(
                out,
                "{host}:{}:{} [{rank}] NCCL INFO ",
                self.rng.range(1000, 99999),
                self.rng.range(1000, 99999)
            );
            match self.rng.below(4) {
                0 => {
                    let _ = writeln!(out, "Channel {:02}/{:02} : 0 1 2 3 4 5 6 7", self.rng.below(32), 32);
                }
                1 => {
                    let _ = writeln!(out, "NCCL_MAX_NCHANNELS set by environment to {}", self.rng.range(1, 32));
                }
                2 => {
                    let _ =
                        writeln!(out, "Using network IB, comm 0x{:x} rank {rank} nranks 8", self.rng.next_u64() >> 16);
                }
                _ => {
                    let _ = writeln!(out, "Connected all rings, use ring PXN 0 GDR 1");
                }
            }
        }
    }

    /// The content of a source file as `Read` returns it (`cat -n` style with `→`).
    fn file_content(&mut self, lines: usize) -> String {
        let mut s = String::new();
        for _ in 0..lines {
            self.code_line(&mut s);
            s.push('\n');
        }
        s
    }

    /// A shell command and its output; returns (command, output, exit code).
    fn shell(&mut self) -> (String, String, i32) {
        let mut out = String::new();
        let kind = self.rng.below(1000);
        let f = self.file();
        let (cmd, code) = if kind < 170 {
            self.out_pytest(&mut out);
            let code = i32::from(out.contains("FAILED"));
            (format!("cd {} && python -m pytest tests/ -x -q", self.cwd), code)
        } else if kind < 275 {
            let n = self.rng.log_size(300, 20_000);
            self.out_log(&mut out, n);
            (format!("tail -n {} logs/{}.log", self.rng.range(20, 2000), self.ident()), 0)
        } else if kind < 280 {
            // A long log dumped whole: the rare outputs that dominate some sessions.
            let n = self.rng.log_size(50_000, 400_000);
            self.out_log(&mut out, n);
            (format!("cat logs/train_{}.log", self.rng.below(100)), 0)
        } else if kind < 370 {
            self.out_traceback(&mut out);
            (format!("python {f}"), 1)
        } else if kind < 440 {
            self.out_cargo(&mut out);
            ("cargo build --release 2>&1 | head -80".to_string(), 101)
        } else if kind < 570 {
            self.out_grep(&mut out);
            let id = self.ident().to_string();
            (format!("grep -rn \"{id}\" src/ tests/"), 0)
        } else if kind < 620 {
            self.out_progress(&mut out);
            (format!("python train.py --epochs {} --lr 3e-4", self.rng.range(1, 20)), 0)
        } else if kind < 635 {
            self.out_dump(&mut out);
            (format!("curl -s http://localhost:{}/api/{}/config", self.rng.range(3000, 9000), self.ident()), 0)
        } else if kind < 740 {
            self.out_listing(&mut out);
            (format!("ls -la {}", self.rng.pick(PARTS)), 0)
        } else if kind < 820 {
            self.out_diff(&mut out);
            ("git diff".to_string(), 0)
        } else if kind < 850 {
            self.out_nccl(&mut out);
            ("NCCL_DEBUG=INFO torchrun --nproc_per_node 8 train.py".to_string(), 0)
        } else {
            let n = self.rng.range(1, 6);
            self.prose(&mut out, n);
            out.push('\n');
            (format!("{} {}", self.rng.pick(PROGRAMS), f), 0)
        };
        (cmd, out, code)
    }
}

/// Writes JSON pieces into a line buffer.
struct Json<'b>(&'b mut Vec<u8>);

impl Json<'_> {
    fn raw(&mut self, s: &str) -> &mut Self {
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    fn str(&mut self, s: &str) -> &mut Self {
        escape_into(self.0, s);
        self
    }
}

/// `s` as a JSON string literal.
pub fn escape_into(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.extend_from_slice(esc);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

fn json_string(s: &str) -> String {
    let mut v = Vec::with_capacity(s.len() + 2);
    escape_into(&mut v, s);
    String::from_utf8(v).unwrap_or_default()
}

fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_default()
}

/// Session sizes: most sessions are small, a few are long and make up a good part of
/// the bytes (log-uniform from 8 KB to 32 MB).
fn session_size(rng: &mut Rng) -> u64 {
    rng.log_size(8 << 10, 32 << 20) as u64
}

/// Decide the files of an archive.
pub fn plan(spec: &Spec) -> Vec<FilePlan> {
    let mut rng = Rng::new(spec.seed);
    let mut plans = Vec::new();
    let codex_bytes = (spec.size as f64 * spec.codex_share.clamp(0.0, 1.0)) as u64;
    let claude_bytes = spec.size - codex_bytes;
    let base_ms: i64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
    let projects: Vec<String> =
        (0..24).map(|i| format!("{}-{}", PARTS[(i * 7) % PARTS.len()], PARTS[(i * 13 + 5) % PARTS.len()])).collect();
    for (agent, budget) in [(Agent::Claude, claude_bytes), (Agent::Codex, codex_bytes)] {
        let mut left = budget;
        let mut n = 0usize;
        let per_file = spec.files.map(|f| (spec.size / f.max(1) as u64).max(1));
        while left > 0 {
            let mut target = match (per_file, n, spec.big_session) {
                (Some(p), _, _) => p,
                (None, 0, Some(big)) if agent == Agent::Claude => big,
                _ => session_size(&mut rng),
            };
            target = target.min(left);
            left -= target;
            let seed = rng.next_u64();
            let start_ms = base_ms + (rng.below(90 * 24 * 3600) as i64) * 1000;
            let project = projects[rng.zipf(projects.len())].clone();
            let uuid = Rng::new(seed ^ 0x1d).uuid();
            let path = match agent {
                Agent::Claude => PathBuf::from("claude/projects")
                    .join(format!("-home-dev-src-{project}"))
                    .join(format!("{uuid}.jsonl")),
                Agent::Codex => {
                    let t = chrono::DateTime::from_timestamp_millis(start_ms).unwrap_or_default();
                    PathBuf::from("codex/sessions")
                        .join(t.format("%Y/%m/%d").to_string())
                        .join(format!("rollout-{}-{uuid}.jsonl", t.format("%Y-%m-%dT%H-%M-%S")))
                }
            };
            plans.push(FilePlan { path, agent, target, seed, start_ms, project });
            n += 1;
        }
    }
    plans
}

/// Write every planned file under `root` with `threads` threads. Returns the bytes written.
pub fn generate(spec: &Spec, root: &Path, threads: usize) -> std::io::Result<u64> {
    let plans = plan(spec);
    let vocab = Vocab::build();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let total = std::sync::atomic::AtomicU64::new(0);
    let err: std::sync::Mutex<Option<std::io::Error>> = std::sync::Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(p) = plans.get(i) else { break };
                    match write_file(&vocab, p, root) {
                        Ok(n) => {
                            total.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                        }
                        Err(e) => {
                            if let Ok(mut g) = err.lock() {
                                g.get_or_insert(e);
                            }
                            break;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = err.into_inner().ok().flatten() {
        return Err(e);
    }
    Ok(total.into_inner())
}

/// Write one planned file; returns its size.
fn write_file(vocab: &Vocab, p: &FilePlan, root: &Path) -> std::io::Result<u64> {
    let path = root.join(&p.path);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
    let mut g = Gen {
        v: vocab,
        rng: Rng::new(p.seed),
        project: p.project.clone(),
        cwd: format!("/home/dev/src/{}", p.project),
    };
    let n = match p.agent {
        Agent::Claude => claude_session(&mut g, p, &mut w)?,
        Agent::Codex => codex_session(&mut g, p, &mut w)?,
    };
    w.flush()?;
    Ok(n)
}

const VERSIONS: [&str; 4] = ["1.0.61", "2.0.14", "2.1.14", "2.1.30"];

/// Session-wide fields every Claude Code line repeats.
struct ClaudeCtx {
    session_id: String,
    cwd: String,
    version: &'static str,
    branch: String,
    clock: i64,
    parent: Option<String>,
    written: u64,
}

impl ClaudeCtx {
    fn head(&mut self, g: &mut Gen, buf: &mut Vec<u8>) -> String {
        let uuid = g.rng.uuid();
        let mut j = Json(buf);
        j.raw("{\"parentUuid\":");
        match &self.parent {
            Some(p) => {
                j.str(p);
            }
            None => {
                j.raw("null");
            }
        }
        j.raw(",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":").str(&self.cwd);
        j.raw(",\"sessionId\":").str(&self.session_id);
        j.raw(",\"version\":").str(self.version);
        j.raw(",\"gitBranch\":").str(&self.branch);
        self.parent = Some(uuid.clone());
        uuid
    }

    fn tail(&mut self, g: &mut Gen, buf: &mut Vec<u8>, uuid: &str) {
        self.clock += g.rng.range(200, 40_000) as i64;
        let mut j = Json(buf);
        j.raw(",\"uuid\":").str(uuid).raw(",\"timestamp\":").str(&iso(self.clock));
    }
}

fn claude_session(g: &mut Gen, p: &FilePlan, w: &mut impl Write) -> std::io::Result<u64> {
    let mut cx = ClaudeCtx {
        session_id: g.rng.uuid(),
        cwd: g.cwd.clone(),
        version: VERSIONS[g.rng.below(VERSIONS.len())],
        branch: g.rng.pick(&["main", "master", "fix/retry-storm", "feature/ledger-tz"]).to_string(),
        clock: p.start_ms,
        parent: None,
        written: 0,
    };
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    let emit = |buf: &mut Vec<u8>, cx: &mut ClaudeCtx, w: &mut dyn Write| -> std::io::Result<()> {
        buf.push(b'\n');
        w.write_all(buf)?;
        cx.written += buf.len() as u64;
        buf.clear();
        Ok(())
    };
    // Bookkeeping first, as Claude Code writes it.
    {
        let mut j = Json(&mut buf);
        j.raw("{\"type\":\"file-history-snapshot\",\"messageId\":").str(&g.rng.uuid());
        j.raw(",\"snapshot\":{\"trackedFileBackups\":{},\"timestamp\":")
            .str(&iso(cx.clock))
            .raw("},\"isSnapshotUpdate\":false}");
    }
    emit(&mut buf, &mut cx, w)?;
    let mut text = String::new();
    while cx.written < p.target {
        // The person's turn.
        text.clear();
        let n = g.rng.range(1, 5);
        g.prose(&mut text, n);
        if g.rng.chance(0.3) {
            let f = g.file();
            let _ = write!(text, " See {}/{f} and logs/train_{}.log", cx.cwd, g.rng.below(100));
        }
        let uuid = cx.head(g, &mut buf);
        Json(&mut buf).raw(",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":").str(&text).raw("}");
        cx.tail(g, &mut buf, &uuid);
        buf.push(b'}');
        emit(&mut buf, &mut cx, w)?;
        if g.rng.chance(0.08) {
            // A harness-injected turn.
            let uuid = cx.head(g, &mut buf);
            text.clear();
            text.push_str("<system-reminder>\n");
            g.prose(&mut text, 3);
            text.push_str("\n</system-reminder>");
            Json(&mut buf)
                .raw(",\"type\":\"user\",\"isMeta\":true,\"message\":{\"role\":\"user\",\"content\":")
                .str(&text)
                .raw("}");
            cx.tail(g, &mut buf, &uuid);
            buf.push(b'}');
            emit(&mut buf, &mut cx, w)?;
        }
        // The agent's steps.
        for _ in 0..g.rng.range(1, 14) {
            // Small files (the many-files benchmark) stop within a step of their size.
            if cx.written >= p.target {
                break;
            }
            let msg_id = format!("msg_01{}", {
                let mut s = String::new();
                g.rng.base64(&mut s, 22);
                s.replace(['+', '/'], "x")
            });
            let request = format!("req_011C{}", {
                let mut s = String::new();
                g.rng.base64(&mut s, 18);
                s.replace(['+', '/'], "x")
            });
            let mut blocks: Vec<String> = Vec::new();
            if g.rng.chance(0.35) {
                let mut t = String::new();
                let n = g.rng.range(1, 8);
                g.prose(&mut t, n);
                let mut sig = String::new();
                let n = g.rng.range(300, 1600);
                g.rng.base64(&mut sig, n);
                blocks.push(format!(
                    "{{\"type\":\"thinking\",\"thinking\":{},\"signature\":{}}}",
                    json_string(&t),
                    json_string(&sig)
                ));
            }
            if g.rng.chance(0.55) {
                let mut t = String::new();
                let n = g.rng.range(1, 6);
                g.prose(&mut t, n);
                blocks.push(format!("{{\"type\":\"text\",\"text\":{}}}", json_string(&t)));
            }
            let tool_id = {
                let mut s = String::from("toolu_01");
                g.rng.base64(&mut s, 22);
                s.replace(['+', '/'], "x")
            };
            let tool = g.rng.below(100);
            // (tool name, input JSON, content, toolUseResult JSON, is_error)
            let (name, input, content, dup, is_error) = if tool < 58 {
                let (cmd, out, code) = g.shell();
                let input =
                    format!("{{\"command\":{},\"description\":{}}}", json_string(&cmd), json_string("Run the check"));
                if code != 0 {
                    let content = format!("Exit code {code}\n{out}");
                    let dup = json_string(&format!("Error: {content}"));
                    ("Bash", input, content, dup, true)
                } else {
                    let dup = format!(
                        "{{\"stdout\":{},\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}}",
                        json_string(&out)
                    );
                    ("Bash", input, out, dup, false)
                }
            } else if tool < 78 {
                let f = format!("{}/{}", cx.cwd, g.file());
                let n = g.rng.log_size(3, 400);
                let raw = g.file_content(n);
                let mut numbered = String::with_capacity(raw.len() + n * 8);
                for (i, l) in raw.lines().enumerate() {
                    let _ = writeln!(numbered, "{:>6}→{l}", i + 1);
                }
                numbered.push_str("\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware.\n</system-reminder>\n");
                let input = format!("{{\"file_path\":{}}}", json_string(&f));
                let dup = format!(
                    "{{\"type\":\"text\",\"file\":{{\"filePath\":{},\"content\":{},\"numLines\":{n},\"startLine\":1,\"totalLines\":{n}}}}}",
                    json_string(&f),
                    json_string(&raw)
                );
                ("Read", input, numbered, dup, false)
            } else if tool < 88 {
                let f = format!("{}/{}", cx.cwd, g.file());
                let n = g.rng.log_size(10, 400);
                let original = g.file_content(n);
                let mut old = String::new();
                g.code_line(&mut old);
                let mut new = String::new();
                g.code_line(&mut new);
                let input = format!(
                    "{{\"file_path\":{},\"old_string\":{},\"new_string\":{}}}",
                    json_string(&f),
                    json_string(&old),
                    json_string(&new)
                );
                let content = format!(
                    "The file {f} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     1→{new}\n"
                );
                let dup = format!(
                    "{{\"filePath\":{},\"oldString\":{},\"newString\":{},\"originalFile\":{},\"structuredPatch\":[{{\"oldStart\":{},\"oldLines\":1,\"newStart\":1,\"newLines\":1,\"lines\":[{},{}]}}],\"userModified\":false,\"replaceAll\":false}}",
                    json_string(&f),
                    json_string(&old),
                    json_string(&new),
                    json_string(&original),
                    g.rng.range(1, 500),
                    json_string(&format!("-{old}")),
                    json_string(&format!("+{new}"))
                );
                ("Edit", input, content, dup, false)
            } else if tool < 96 {
                let id = g.ident().to_string();
                let mut out = String::new();
                g.out_grep(&mut out);
                let input = format!(
                    "{{\"pattern\":{},\"path\":{},\"output_mode\":\"content\"}}",
                    json_string(&id),
                    json_string(&cx.cwd)
                );
                let dup = format!(
                    "{{\"mode\":\"content\",\"numFiles\":{},\"filenames\":[],\"content\":{},\"numLines\":{}}}",
                    g.rng.range(1, 40),
                    json_string(&out),
                    out.lines().count()
                );
                ("Grep", input, out, dup, false)
            } else {
                let mut todos = String::from("[");
                for i in 0..g.rng.range(2, 8) {
                    let mut t = String::new();
                    let n = g.rng.range(3, 10);
                    g.sentence(&mut t, n);
                    if i > 0 {
                        todos.push(',');
                    }
                    let _ = write!(
                        todos,
                        "{{\"content\":{},\"status\":\"pending\",\"activeForm\":{}}}",
                        json_string(&t),
                        json_string(&t)
                    );
                }
                todos.push(']');
                let input = format!("{{\"todos\":{todos}}}");
                let dup = format!("{{\"oldTodos\":[],\"newTodos\":{todos}}}");
                ("TodoWrite", input, "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.".to_string(), dup, false)
            };
            blocks.push(format!(
                "{{\"type\":\"tool_use\",\"id\":{},\"name\":{},\"input\":{input}}}",
                json_string(&tool_id),
                json_string(name)
            ));
            // One line per content block, sharing the API message id.
            for b in &blocks {
                let uuid = cx.head(g, &mut buf);
                let mut j = Json(&mut buf);
                j.raw(",\"message\":{\"model\":\"claude-opus-4-5-20251101\",\"id\":").str(&msg_id);
                j.raw(",\"type\":\"message\",\"role\":\"assistant\",\"content\":[")
                    .raw(b)
                    .raw("],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":");
                let usage = format!(
                    "{},\"cache_creation_input_tokens\":{},\"cache_read_input_tokens\":{},\"output_tokens\":{},\"service_tier\":\"standard\"}}}},\"requestId\":",
                    g.rng.below(20),
                    g.rng.below(5000),
                    g.rng.range(10_000, 150_000),
                    g.rng.below(2000)
                );
                Json(&mut buf).raw(&usage).str(&request).raw(",\"type\":\"assistant\"");
                cx.tail(g, &mut buf, &uuid);
                buf.push(b'}');
                emit(&mut buf, &mut cx, w)?;
            }
            if name == "Bash" && g.rng.chance(0.1) {
                // Progress lines while a command runs (bookkeeping, not conversation).
                let mut j = Json(&mut buf);
                j.raw("{\"type\":\"progress\",\"data\":{\"type\":\"bash_progress\",\"output\":");
                let cut = content.char_indices().nth(400).map_or(content.len(), |(i, _)| i);
                j.str(&content[..cut]).raw(",\"elapsedTimeSeconds\":3},\"toolUseID\":").str(&tool_id);
                j.raw(",\"timestamp\":").str(&iso(cx.clock)).raw("}");
                emit(&mut buf, &mut cx, w)?;
            }
            // The result, with its duplicate in toolUseResult.
            let uuid = cx.head(g, &mut buf);
            let mut j = Json(&mut buf);
            j.raw(",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":").str(&tool_id);
            j.raw(",\"type\":\"tool_result\",\"content\":").str(&content);
            if is_error {
                j.raw(",\"is_error\":true");
            }
            j.raw("}]}");
            cx.tail(g, &mut buf, &uuid);
            Json(&mut buf).raw(",\"toolUseResult\":").raw(&dup).raw("}");
            emit(&mut buf, &mut cx, w)?;
        }
        // The closing answer.
        let uuid = cx.head(g, &mut buf);
        text.clear();
        let n = g.rng.range(1, 10);
        g.prose(&mut text, n);
        let msg_id = format!("msg_01{}", g.rng.next_u64());
        let mut j = Json(&mut buf);
        j.raw(",\"message\":{\"model\":\"claude-opus-4-5-20251101\",\"id\":").str(&msg_id);
        j.raw(",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":").str(&text);
        j.raw("}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"type\":\"assistant\"");
        cx.tail(g, &mut buf, &uuid);
        buf.push(b'}');
        emit(&mut buf, &mut cx, w)?;
        if g.rng.chance(0.1) {
            let mut j = Json(&mut buf);
            j.raw("{\"parentUuid\":null,\"isSidechain\":false,\"type\":\"system\",\"subtype\":\"turn_duration\",\"durationMs\":");
            let d = format!("{}", g.rng.below(600_000));
            j.raw(&d).raw(",\"timestamp\":").str(&iso(cx.clock)).raw("}");
            emit(&mut buf, &mut cx, w)?;
        }
    }
    if g.rng.chance(0.5) {
        let mut t = String::new();
        g.sentence(&mut t, 6);
        Json(&mut buf)
            .raw("{\"type\":\"summary\",\"summary\":")
            .str(&t)
            .raw(",\"leafUuid\":")
            .str(&g.rng.uuid())
            .raw("}");
        emit(&mut buf, &mut cx, w)?;
    }
    Ok(cx.written)
}

fn codex_session(g: &mut Gen, p: &FilePlan, w: &mut impl Write) -> std::io::Result<u64> {
    let mut written = 0u64;
    let mut clock = p.start_ms;
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    let id = g.rng.uuid();
    let cwd = g.cwd.clone();
    macro_rules! line {
        ($kind:expr, $payload:expr) => {{
            clock += g.rng.range(50, 20_000) as i64;
            let mut j = Json(&mut buf);
            j.raw("{\"timestamp\":")
                .str(&iso(clock))
                .raw(",\"type\":\"")
                .raw($kind)
                .raw("\",\"payload\":")
                .raw($payload)
                .raw("}\n");
            w.write_all(&buf)?;
            written += buf.len() as u64;
            buf.clear();
        }};
    }
    let meta = format!(
        "{{\"id\":{},\"timestamp\":{},\"cwd\":{},\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.98.0\",\"source\":\"cli\",\"model_provider\":\"openai\",\"git\":{{\"commit_hash\":\"{:016x}\",\"branch\":\"main\"}}}}",
        json_string(&id),
        json_string(&iso(clock)),
        json_string(&cwd),
        g.rng.next_u64()
    );
    line!("session_meta", &meta);
    let env = format!(
        "{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":{}}}]}}",
        json_string(&format!(
            "<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>"
        ))
    );
    line!("response_item", &env);
    let mut call_n = 0u32;
    while written < p.target {
        let tc = format!(
            "{{\"cwd\":{},\"approval_policy\":\"on-request\",\"sandbox_policy\":{{\"type\":\"workspace-write\"}},\"model\":\"gpt-5.1-codex\",\"effort\":\"medium\",\"summary\":\"auto\"}}",
            json_string(&cwd)
        );
        line!("turn_context", &tc);
        let mut text = String::new();
        let n = g.rng.range(1, 5);
        g.prose(&mut text, n);
        let user = format!(
            "{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":{}}}]}}",
            json_string(&text)
        );
        line!("response_item", &user);
        let ev = format!("{{\"type\":\"user_message\",\"message\":{},\"images\":[]}}", json_string(&text));
        line!("event_msg", &ev);
        for _ in 0..g.rng.range(1, 12) {
            if written >= p.target {
                break;
            }
            if g.rng.chance(0.5) {
                let mut t = String::from("**");
                let n = g.rng.range(2, 6);
                g.sentence(&mut t, n);
                t.push_str("**");
                let mut enc = String::from("gAAAAB");
                let n = g.rng.range(400, 3000);
                g.rng.base64(&mut enc, n);
                let r = format!(
                    "{{\"type\":\"reasoning\",\"summary\":[{{\"type\":\"summary_text\",\"text\":{}}}],\"content\":null,\"encrypted_content\":{}}}",
                    json_string(&t),
                    json_string(&enc)
                );
                line!("response_item", &r);
                let e = format!("{{\"type\":\"agent_reasoning\",\"text\":{}}}", json_string(&t));
                line!("event_msg", &e);
            }
            if g.rng.chance(0.3) {
                let mut t = String::new();
                let n = g.rng.range(1, 4);
                g.prose(&mut t, n);
                let (m, e) = codex_assistant(&t);
                line!("response_item", &m);
                line!("event_msg", &e);
            }
            call_n += 1;
            let call_id = format!("call_{call_n}_{:x}", g.rng.next_u64());
            let (cmd, out, code) = g.shell();
            let args = format!(
                "{{\"command\":[\"bash\",\"-lc\",{}],\"workdir\":{},\"timeout_ms\":120000}}",
                json_string(&cmd),
                json_string(&cwd)
            );
            let fc = format!(
                "{{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":{},\"call_id\":{}}}",
                json_string(&args),
                json_string(&call_id)
            );
            line!("response_item", &fc);
            let dur = format!("{}.{}", g.rng.below(100), g.rng.below(10));
            let end = format!(
                "{{\"type\":\"exec_command_end\",\"call_id\":{},\"stdout\":{},\"stderr\":\"\",\"aggregated_output\":{},\"exit_code\":{code},\"duration\":{{\"secs\":{},\"nanos\":0}},\"formatted_output\":{}}}",
                json_string(&call_id),
                json_string(&out),
                json_string(&out),
                g.rng.below(100),
                json_string(&out)
            );
            line!("event_msg", &end);
            let inner = format!(
                "{{\"output\":{},\"metadata\":{{\"exit_code\":{code},\"duration_seconds\":{dur}}}}}",
                json_string(&out)
            );
            let fo = format!(
                "{{\"type\":\"function_call_output\",\"call_id\":{},\"output\":{}}}",
                json_string(&call_id),
                json_string(&inner)
            );
            line!("response_item", &fo);
            let tok = format!(
                "{{\"type\":\"token_count\",\"info\":{{\"total_token_usage\":{{\"input_tokens\":{},\"output_tokens\":{}}}}}}}",
                g.rng.below(200_000),
                g.rng.below(9000)
            );
            line!("event_msg", &tok);
        }
        let mut t = String::new();
        let n = g.rng.range(1, 8);
        g.prose(&mut t, n);
        let (m, e) = codex_assistant(&t);
        line!("response_item", &m);
        line!("event_msg", &e);
    }
    Ok(written)
}

/// An assistant's words as Codex writes them: the response item and its event copy.
fn codex_assistant(text: &str) -> (String, String) {
    let item = format!(
        "{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":{}}}]}}",
        json_string(text)
    );
    let event = format!("{{\"type\":\"agent_message\",\"message\":{}}}", json_string(text));
    (item, event)
}

/// Parse sizes such as `100M`, `1G`, `1.5G`, `600MB`, `4096`.
pub fn parse_size(s: &str) -> Option<u64> {
    let t = s.trim().trim_end_matches(['B', 'b']);
    let (num, mult) = match t.chars().last()? {
        'K' | 'k' => (&t[..t.len() - 1], 1u64 << 10),
        'M' | 'm' => (&t[..t.len() - 1], 1 << 20),
        'G' | 'g' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let v: f64 = num.parse().ok()?;
    (v >= 0.0).then_some((v * mult as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("100M"), Some(100 << 20));
        assert_eq!(parse_size("1.5G"), Some(3 << 29));
        assert_eq!(parse_size("600MB"), Some(600 << 20));
        assert_eq!(parse_size("x"), None);
    }

    #[test]
    fn escaping_is_valid_json() {
        let s = "a\"b\\c\nd\re\tf\u{1}g█";
        let mut v = Vec::new();
        escape_into(&mut v, s);
        let back: String = serde_json::from_slice(&v).unwrap();
        assert_eq!(back, s);
    }
}
