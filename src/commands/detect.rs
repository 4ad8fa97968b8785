//! `debrief detect`: findings for people, or JSON lines per the contract.

use std::io::Write;

use anyhow::Result;
use serde_json::json;

use super::{Style, display_path, format_arg, load};
use crate::cli::{Cli, DetectArgs};
use crate::detect::{self, Finding};
use crate::model::Session;

pub fn run(_cli: &Cli, args: &DetectArgs) -> Result<i32> {
    let detectors = detect::selection(&args.select, &args.ignore)?;
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
    for file in &files {
        for s in &file.sessions {
            let findings = detect::detect_session(&detectors, &s.messages);
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
