//! `debrief sessions`: what is indexed (titles, folders and projects redacted unless
//! `--no-redact`).

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Result;
use serde_json::json;

use super::{Redaction, Style, display_path, filters, index_dir};
use crate::cli::{Cli, SessionsArgs};
use crate::index::IndexDir;
use crate::index::schema::SessionRecord;

pub fn run(cli: &Cli, args: &SessionsArgs) -> Result<i32> {
    let redaction = Redaction::from_args(&args.redact)?;
    let f = filters(&args.filters)?;
    let (mut records, machines): (Vec<SessionRecord>, Vec<Option<String>>) = match &args.team.from {
        Some(from) => {
            let mut team = crate::team::read::Team::open(from)?;
            crate::team::read::sessions(&mut team, &f, args.team.machine.as_deref(), args.limit)?
                .into_iter()
                .map(|t| (t.record, Some(t.machine)))
                .unzip()
        }
        None => {
            let ix = IndexDir::open(&index_dir(&cli.index))?;
            let records = crate::index::search::sessions(&ix, &f, args.limit)?;
            let n = records.len();
            (records, vec![None; n])
        }
    };
    // Titles, folders and project names come from the transcripts.
    for r in &mut records {
        let meta = r.meta.clone();
        redaction.apply(&meta, r)?;
    }
    let out = std::io::stdout();
    let mut out = out.lock();
    let style = Style::stdout();
    for (r, machine) in records.iter().zip(&machines) {
        let counts = detector_counts(r);
        if args.json {
            let mut v = session_json(r);
            if let Some(m) = machine {
                v["machine"] = m.as_str().into();
            }
            writeln!(out, "{v}")?;
        } else {
            let when = r.meta.started.map(|t| t.format("%Y-%m-%d %H:%M").to_string()).unwrap_or_else(|| "?".into());
            let short: String = r.meta.id.chars().take(8).collect();
            let found: Vec<String> = counts.iter().map(|(d, n)| format!("{d}×{n}")).collect();
            writeln!(
                out,
                "{} {} {:<12} {:<20} {:>6} msgs  {}",
                style.cyan(&short),
                style.dim(&when),
                r.meta.format,
                r.meta.project.as_deref().unwrap_or("-"),
                r.meta.messages,
                style.yellow(&found.join(" "))
            )?;
            match machine {
                Some(m) => {
                    writeln!(out, "  {} {}", style.dim(&format!("@{m}")), style.dim(&display_path(&r.meta.source)))?
                }
                None => writeln!(out, "  {}", style.dim(&display_path(&r.meta.source)))?,
            }
        }
    }
    if records.is_empty() && !args.json {
        eprintln!("no sessions indexed (run `debrief index`)");
    }
    Ok(0)
}

/// The JSON shape of `sessions --json` for one session (as recorded; redact it first).
pub fn session_json(r: &SessionRecord) -> serde_json::Value {
    json!({
        "session": r.meta.id,
        "agent": r.meta.format,
        "project": r.meta.project,
        "cwd": r.meta.cwd,
        "started": r.meta.started,
        "ended": r.meta.ended,
        "messages": r.meta.messages,
        "model": r.meta.model,
        "agent_version": r.meta.agent_version,
        "source": r.meta.source,
        "title": r.meta.title,
        "detectors": detector_counts(r),
    })
}

pub fn detector_counts(r: &SessionRecord) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for f in &r.findings {
        *m.entry(f.detector.clone()).or_default() += 1;
    }
    m
}
