//! `debrief index`: bring the index up to date with the transcripts on disk.

use std::fmt::Write as _;
use std::io::IsTerminal;

use anyhow::Result;

use super::{SHOW_BAD, display_path, format_arg, index_dir};
use crate::analysis::text::plural;
use crate::cli::{Cli, IndexArgs};
use crate::index::IndexDir;
use crate::index::writer::{self, Options, Summary};
// Bad-record reasons and unknown record types can quote the transcript (a value of
// the wrong type, a garbled type name): they pass through the built-in rules.
use crate::redact::redact;
use crate::walk;

pub fn run(cli: &Cli, args: &IndexArgs) -> Result<i32> {
    let dir = index_dir(&cli.index);
    let ix = IndexDir::open_for_write_with(&dir, args.rebuild, args.wait, args.no_embeddings.then_some(false))?;
    let (roots, explicit) = if args.paths.is_empty() {
        let roots: Vec<_> = walk::default_sources().into_iter().map(|s| s.path).filter(|p| p.exists()).collect();
        if roots.is_empty() && !args.quiet {
            eprintln!(
                "debrief: no agent folder found (`debrief sources` lists where each agent keeps its sessions); name a folder: debrief index PATH"
            );
        }
        (roots, false)
    } else {
        (args.paths.iter().map(|p| walk::absolute(p)).collect(), true)
    };
    let mut opts = Options::new(roots);
    opts.explicit = explicit;
    opts.format = format_arg(&args.input_format)?;
    opts.progress = !args.quiet && std::io::stderr().is_terminal();
    tune(&mut opts);
    let summary = writer::run(&ix, &opts)?;
    write_log(&ix, &summary);
    if !args.quiet {
        for (path, why) in &summary.unreadable {
            eprintln!("debrief: {}: {why}", display_path(path));
        }
        for (path, why) in &summary.nothing_read {
            eprintln!("debrief: {}: {why}", path.display());
        }
        for (path, bad) in summary.bad.iter().take(SHOW_BAD) {
            match bad.line {
                Some(l) => eprintln!("debrief: {}:{l}: {}", display_path(path), redact(&bad.reason)),
                None => eprintln!("debrief: {}: {}", display_path(path), redact(&bad.reason)),
            }
        }
        eprintln!("{}", summary_line(&summary, &ix));
        for ((format, version, kind), n) in &summary.unknown {
            let v = if version.is_empty() { String::new() } else { format!(" {version}") };
            eprintln!(
                "  format drift: {n} {format}{v} record(s) of unknown type `{}` (kept going; see `debrief sources`)",
                redact(kind)
            );
        }
    }
    Ok(if summary.unreadable.is_empty() { 0 } else { 1 })
}

/// Threads, memory and commit interval: sized for the machine, with overrides for tests
/// and benchmarks (see docs/performance.md): `DEBRIEF_INDEX_THREADS`, `DEBRIEF_INDEX_MB`
/// (the writer's memory budget), `DEBRIEF_COMMIT_EVERY` (commit after this many bytes read).
pub fn tune(opts: &mut Options) {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse::<usize>().ok());
    let threads = env("DEBRIEF_INDEX_THREADS").unwrap_or_else(writer::default_threads).max(1);
    opts.threads = threads;
    opts.memory_budget = env("DEBRIEF_INDEX_MB").map_or_else(|| writer::memory_budget(threads), |mb| mb << 20);
    // Also for the crash tests (docs/reliability.md): a small corpus that commits every
    // few KB makes many commits to be interrupted between.
    if let Some(bytes) = env("DEBRIEF_COMMIT_EVERY") {
        opts.commit_every = bytes.max(1) as u64;
    }
}

pub fn write_log(ix: &IndexDir, s: &Summary) {
    let mut log = String::new();
    for (path, why) in &s.unreadable {
        let _ = writeln!(log, "{}: unreadable: {why}", path.display());
    }
    for (path, why) in &s.nothing_read {
        let _ = writeln!(log, "{}: {why}", path.display());
    }
    for (path, bad) in &s.bad {
        match bad.line {
            Some(l) => {
                let _ = writeln!(log, "{}:{l}: {}", path.display(), redact(&bad.reason));
            }
            None => {
                let _ = writeln!(log, "{}: {}", path.display(), redact(&bad.reason));
            }
        }
    }
    for path in &s.files_unknown {
        let _ = writeln!(log, "{}: skipped: not a transcript format debrief knows", path.display());
    }
    let _ = std::fs::write(ix.dir.join("last-run.log"), log);
}

/// The one-line summary of a run.
pub fn summary_line(s: &Summary, ix: &IndexDir) -> String {
    let secs = s.elapsed.as_secs_f64();
    let mut line = format!(
        "indexed {} file{} ({} read, {} appended, {} unchanged, {} removed): {} session{}, {} message{}, {} finding{} in {:.2}s",
        s.files_seen,
        plural(s.files_seen as u64),
        s.files_read,
        s.files_appended,
        s.files_unchanged,
        s.files_removed,
        s.sessions,
        plural(s.sessions as u64),
        s.messages,
        plural(s.messages),
        s.findings,
        plural(s.findings as u64),
        secs
    );
    if s.bytes_read > 0 && secs > 0.0 {
        let _ = write!(line, " ({:.0} MB/s)", s.bytes_read as f64 / 1e6 / secs);
    }
    let mut problems = Vec::new();
    if !s.bad.is_empty() {
        problems.push(format!("{} bad record{}", s.bad.len(), plural(s.bad.len() as u64)));
    }
    if !s.nothing_read.is_empty() {
        problems.push(format!(
            "{} file{} read as no message",
            s.nothing_read.len(),
            plural(s.nothing_read.len() as u64)
        ));
    }
    if !s.unreadable.is_empty() {
        problems.push(format!("{} unreadable file{}", s.unreadable.len(), plural(s.unreadable.len() as u64)));
    }
    if !problems.is_empty() {
        let _ = write!(line, "; {}: see {}", problems.join(", "), display_path(&ix.dir.join("last-run.log")));
    }
    if s.pending_tails > 0 {
        let _ = write!(
            line,
            "; {} half-written last line{} left for the next run",
            s.pending_tails,
            plural(s.pending_tails as u64)
        );
    }
    if !s.files_unknown.is_empty() {
        let n = s.files_unknown.len();
        let _ = write!(
            line,
            "; {n} file{} of no known format skipped (listed in {})",
            plural(n as u64),
            display_path(&ix.dir.join("last-run.log"))
        );
    }
    line
}
