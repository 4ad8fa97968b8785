//! `debrief detect`: findings for people, or JSON lines per the contract; with
//! `--stats`, how often each detector fires over a corpus. Summaries and commands
//! quote the transcript, so they are redacted unless `--no-redact`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use anyhow::Result;
use serde_json::json;

use super::{Redaction, Style, display_path, format_arg, load};
use crate::cli::{Cli, DetectArgs};
use crate::detect::prose::thousands;
use crate::detect::{self, Finding};
use crate::model::Session;

pub fn run(_cli: &Cli, args: &DetectArgs) -> Result<i32> {
    let detectors = detect::selection(&args.select, &args.ignore)?;
    let redaction = Redaction::from_args(&args.redact)?;
    let files = load(&args.paths, format_arg(&args.format)?)?;
    let out = std::io::stdout();
    let mut out = out.lock();
    let style = Style::stdout();
    let mut total = 0usize;
    // Sorted by source, then key idx (the contract's order).
    let mut files = files;
    files.sort_by(|a, b| {
        let pa = a.sessions.first().map(|s| s.meta.source.clone());
        let pb = b.sessions.first().map(|s| s.meta.source.clone());
        pa.cmp(&pb)
    });
    if args.stats {
        let mut stats = Stats::default();
        for file in &files {
            for s in &file.sessions {
                stats.add(s, &detect::detect_session(&detectors, &s.messages));
            }
        }
        print_stats(&mut out, &stats, &detectors, args, style)?;
        return Ok(0);
    }
    for file in &files {
        for s in &file.sessions {
            // Detect on the transcript as written; redact what is printed of it.
            let mut findings = detect::detect_session(&detectors, &s.messages);
            if let Some(r) = redaction.for_meta(&s.meta)? {
                findings.iter_mut().for_each(|f| r.redact_finding(f));
            }
            total += findings.len();
            for f in &findings {
                if args.json {
                    writeln!(out, "{}", finding_json(s, f))?;
                } else {
                    print_finding(&mut out, s, f, style)?;
                }
            }
        }
    }
    if !args.json {
        eprintln!("{total} finding{}", if total == 1 { "" } else { "s" });
    }
    Ok(0)
}

/// The contract's JSON shape for one finding.
pub fn finding_json(s: &Session, f: &Finding) -> serde_json::Value {
    let key_line = s.message(f.key).and_then(|m| m.line);
    let evidence: Vec<serde_json::Value> = f
        .evidence
        .iter()
        .filter_map(|i| s.message(*i))
        .map(|m| json!({"idx": m.idx, "line": m.line, "end_line": m.end_line, "role": m.role.as_str()}))
        .collect();
    json!({
        "detector": f.detector,
        "source": s.meta.source,
        "session": s.meta.id,
        "key": {"idx": f.key, "line": key_line},
        "messages": evidence,
        "summary": f.summary,
    })
}

fn print_finding(out: &mut impl Write, s: &Session, f: &Finding, style: Style) -> Result<()> {
    let cites: Vec<String> = f.evidence.iter().map(|i| format!("[msg {i}]")).collect();
    let line = s.message(f.key).and_then(|m| m.line).map(|l| format!(":{l}")).unwrap_or_default();
    writeln!(out, "{} {} {}", style.yellow(&f.detector), style.bold(&format!("[msg {}]", f.key)), f.summary)?;
    writeln!(
        out,
        "  {} {}",
        style.dim(&format!("{}{line}", display_path(&s.meta.source))),
        style.dim(&cites.join(" "))
    )?;
    if let Some(cmd) = &f.command {
        let first = cmd.lines().next().unwrap_or("");
        writeln!(out, "  {} {}", style.bold("$"), first)?;
    }
    writeln!(out)?;
    Ok(())
}

/// Findings counted per detector and per file.
#[derive(Default)]
struct Stats {
    /// detector → (findings, sessions with one, files with one)
    per_detector: BTreeMap<String, (usize, BTreeSet<String>, BTreeSet<std::path::PathBuf>)>,
    /// file → detector → findings
    per_file: BTreeMap<std::path::PathBuf, BTreeMap<String, usize>>,
    sessions: usize,
    messages: usize,
}

impl Stats {
    fn add(&mut self, s: &Session, findings: &[Finding]) {
        self.sessions += 1;
        self.messages += s.messages.len();
        let file = self.per_file.entry(s.meta.source.clone()).or_default();
        for f in findings {
            let e = self.per_detector.entry(f.detector.clone()).or_default();
            e.0 += 1;
            e.1.insert(format!("{}\u{1f}{}", s.meta.source.display(), s.meta.id));
            e.2.insert(s.meta.source.clone());
            *file.entry(f.detector.clone()).or_default() += 1;
        }
    }
}

fn print_stats(
    out: &mut impl Write,
    stats: &Stats,
    detectors: &[&'static dyn detect::Detector],
    args: &DetectArgs,
    style: Style,
) -> Result<()> {
    let empty = (0, BTreeSet::new(), BTreeSet::new());
    if args.json {
        for d in detectors {
            let (n, sessions, files) = stats.per_detector.get(d.id()).unwrap_or(&empty);
            writeln!(
                out,
                "{}",
                json!({"detector": d.id(), "findings": n, "sessions": sessions.len(), "files": files.len()})
            )?;
        }
        if args.verbose {
            for (path, counts) in &stats.per_file {
                writeln!(out, "{}", json!({"source": path, "findings": counts}))?;
            }
        }
        return Ok(());
    }
    writeln!(out, "{}", style.bold(&format!("{:<22} {:>8} {:>8} {:>6}", "detector", "findings", "sessions", "files")))?;
    for d in detectors {
        let (n, sessions, files) = stats.per_detector.get(d.id()).unwrap_or(&empty);
        writeln!(
            out,
            "{} {:>8} {:>8} {:>6}",
            style.yellow(&format!("{:<22}", d.id())),
            n,
            sessions.len(),
            files.len()
        )?;
    }
    if args.verbose {
        writeln!(out)?;
        for (path, counts) in stats.per_file.iter().filter(|(_, c)| !c.is_empty()) {
            let found: Vec<String> = counts.iter().map(|(d, n)| format!("{d}×{n}")).collect();
            writeln!(out, "{}  {}", style.dim(&display_path(path)), found.join(" "))?;
        }
    }
    let quiet = stats.per_file.values().filter(|c| c.is_empty()).count();
    eprintln!(
        "{} files ({quiet} without findings), {} sessions, {} messages",
        thousands(stats.per_file.len()),
        thousands(stats.sessions),
        thousands(stats.messages)
    );
    Ok(())
}
