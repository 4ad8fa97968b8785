//! `debrief sessions`: what is indexed (titles, folders and projects redacted unless
//! `--no-redact`).

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Result;
use serde_json::json;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{Order, TantivyDocument, Term};

use super::{Redaction, Style, display_path, filters, index_dir};
use crate::cli::{Cli, SessionsArgs};
use crate::index::IndexDir;
use crate::index::schema::KIND_SESSION;
use crate::index::schema::SessionRecord;
use crate::index::schema::record_of;

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
            let records = list(&ix, &f, args.limit)?;
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

/// Session records matching the session-level filters, newest first.
pub fn list(ix: &IndexDir, filters: &crate::index::search::Filters, limit: usize) -> Result<Vec<SessionRecord>> {
    let searcher = ix.searcher()?;
    let fl = ix.fields;
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(
        Occur::Must,
        Box::new(TermQuery::new(Term::from_field_text(fl.kind, KIND_SESSION), IndexRecordOption::Basic)),
    )];
    if let Some(d) = &filters.detector {
        clauses.push((
            Occur::Must,
            Box::new(TermQuery::new(Term::from_field_text(fl.detector, d), IndexRecordOption::Basic)),
        ));
    }
    // A filter on messages (--role, --tool, --program, --file, --errors): the sessions
    // with at least one message it accepts.
    let with_messages = if filters.on_messages() {
        Some(crate::index::search::sessions_with_messages(&searcher, &fl, filters)?)
    } else {
        None
    };
    let q = BooleanQuery::new(clauses);
    let top = searcher
        .search(&q, &TopDocs::with_limit(1_000_000).order_by_fast_field::<tantivy::DateTime>("time", Order::Desc))?;
    let mut out = Vec::new();
    for (_, addr) in top {
        let doc: TantivyDocument = searcher.doc(addr)?;
        if let Some(keys) = &with_messages {
            let skey = doc.get_first(fl.skey).and_then(|v| tantivy::schema::Value::as_u64(&v));
            if skey.is_none_or(|k| keys.binary_search(&k).is_err()) {
                continue;
            }
        }
        let Some(rec) = record_of(&doc, &fl) else { continue };
        if !matches_filters(&rec, filters) {
            continue;
        }
        out.push(rec);
        if out.len() >= limit {
            break;
        }
    }
    Ok(out)
}

fn matches_filters(r: &SessionRecord, f: &crate::index::search::Filters) -> bool {
    let m = &r.meta;
    f.agent.as_ref().is_none_or(|a| m.format.starts_with(&a.to_lowercase()))
        && f.project.as_ref().is_none_or(|p| m.project.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(p)))
        && f.session.as_ref().is_none_or(|s| m.id.starts_with(s.as_str()))
        && f.since.is_none_or(|t| m.ended.is_some_and(|e| e >= t))
        && f.until.is_none_or(|t| m.started.is_some_and(|s| s < t))
}
