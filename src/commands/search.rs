//! `debrief search`: find messages, print them for people or as JSON lines, with
//! snippets redacted unless `--no-redact`.

use std::io::Write;

use anyhow::Result;
use serde_json::json;

use super::{Redaction, Style, display_path, filters, index_dir};
use crate::cli::{Cli, SearchArgs};
use crate::index::IndexDir;
use crate::index::search::{self, Hit};

pub fn run(cli: &Cli, args: &SearchArgs) -> Result<i32> {
    let mut f = filters(&args.filters)?;
    f.part = args.part;
    check_query(&args.query, &f)?;
    let redaction = Redaction::from_args(&args.redact)?;
    let mode = match (args.semantic, args.hybrid) {
        (true, _) => search::Mode::Semantic,
        (_, true) => search::Mode::Hybrid,
        _ => search::Mode::Keyword,
    };
    if mode != search::Mode::Keyword && args.query.trim().is_empty() {
        crate::usage!("--semantic and --hybrid need a query to compare meaning with");
    }
    let hits: Vec<(Hit, Option<String>)> = match &args.team.from {
        Some(from) => {
            if mode != search::Mode::Keyword {
                crate::usage!(
                    "--semantic and --hybrid search the local index: a team store has no embeddings (drop --from)"
                );
            }
            if args.part.is_some() {
                crate::usage!("--in searches the local index: a team store keeps one text per message (drop --from)");
            }
            let mut team = crate::team::read::Team::open(from)?;
            crate::team::read::search(&mut team, &args.query, &f, args.team.machine.as_deref(), args.limit, &redaction)?
                .into_iter()
                .map(|t| (t.hit, Some(t.machine)))
                .collect()
        }
        None => {
            let ix = IndexDir::open(&index_dir(&cli.index))?;
            search::search_mode(&ix, &args.query, &f, mode, 0, args.limit, redaction.extra())?
                .into_iter()
                .map(|h| (h, None))
                .collect()
        }
    };
    if let Some(note) = fallback_note(hits.iter().map(|(h, _)| h)) {
        eprintln!("{note}");
    }
    let out = std::io::stdout();
    let mut out = out.lock();
    if args.json {
        for (h, machine) in &hits {
            let mut v = hit_json(h);
            if let Some(m) = machine {
                v["machine"] = m.as_str().into();
            }
            writeln!(out, "{v}")?;
        }
    } else {
        let style = Style::stdout();
        for (h, machine) in &hits {
            print_hit(&mut out, h, machine.as_deref(), style)?;
        }
        if hits.is_empty() {
            eprintln!("no matches");
        }
    }
    Ok(0)
}

/// The one line that says the hits are not what was asked for (no message has every
/// word of the query, these have some), or `None`.
pub fn fallback_note<'a>(mut hits: impl Iterator<Item = &'a Hit>) -> Option<&'static str> {
    hits.next().filter(|h| h.found_by == [search::Ranking::AnyWord]).map(|_| {
        "no message has every word of the query: showing those with any of its words (stop words dropped), best first"
    })
}

/// A search needs a word to look for or a filter; punctuation alone is no word (it is
/// not indexed: searching for it would match everything).
pub fn check_query(query: &str, f: &search::Filters) -> Result<()> {
    if query.trim().is_empty() {
        if is_unfiltered(f) {
            crate::usage!("give a query or at least one filter (see `debrief search --help`)");
        }
    } else if search::parse_query(query).is_empty() {
        crate::usage!("the query `{}` has no word to search for (punctuation alone is not searched)", query.trim());
    }
    Ok(())
}

fn is_unfiltered(f: &search::Filters) -> bool {
    f.agent.is_none()
        && f.project.is_none()
        && f.session.is_none()
        && f.role.is_none()
        && f.tool.is_none()
        && f.program.is_none()
        && f.file.is_none()
        && f.detector.is_none()
        && f.since.is_none()
        && f.until.is_none()
        && !f.errors
        && !f.findings
}

/// The contract's JSON shape (plus `agent` and `timestamp`).
pub fn hit_json(h: &Hit) -> serde_json::Value {
    json!({
        "source": h.source,
        "session": h.session,
        "idx": h.idx,
        "line": h.line,
        "role": h.role,
        "score": h.score,
        "snippet": h.snippet.text,
        "detectors": h.detectors,
        "agent": h.agent,
        "timestamp": h.timestamp,
        "found_by": h.found_by,
    })
}

fn print_hit(out: &mut impl Write, h: &Hit, machine: Option<&str>, style: Style) -> Result<()> {
    let when = h.timestamp.map(|t| t.format("%Y-%m-%d %H:%M").to_string()).unwrap_or_default();
    let line = h.snippet.line.or(h.line).map(|l| format!(":{l}")).unwrap_or_default();
    let short: String = h.session.chars().take(8).collect();
    let mut head = format!(
        "{} {} {} {}",
        style.cyan(&short),
        style.bold(&format!("[msg {}]", h.idx)),
        style.magenta(&h.role),
        style.dim(&when)
    );
    if let Some(p) = &h.project {
        head.push_str(&format!(" {}", style.dim(p)));
    }
    if let Some(m) = machine {
        head.push_str(&format!(" @{}", style.dim(m)));
    }
    if !h.detectors.is_empty() {
        head.push_str(&format!(" {}", style.yellow(&h.detectors.join(","))));
    }
    writeln!(out, "{head}")?;
    writeln!(out, "  {}", style.dim(&format!("{}{line}", display_path(&h.source))))?;
    writeln!(out, "  {}\n", render_snippet(&h.snippet, style))?;
    Ok(())
}

/// Where a match starts and ends in a snippet shown without colour.
pub const MARK_OPEN: char = '«';
pub const MARK_CLOSE: char = '»';

/// A snippet with its matches highlighted: in bold red on a terminal, else between
/// [`MARK_OPEN`] and [`MARK_CLOSE`] (not brackets: logs and code are full of literal ones).
pub fn render_snippet(s: &search::Snippet, style: Style) -> String {
    let mut out = String::new();
    let mut at = 0;
    for &(a, b) in &s.highlights {
        if a < at || b > s.text.len() {
            continue;
        }
        out.push_str(&s.text[at..a]);
        if style.color {
            out.push_str(&style.bold(&style.red(&s.text[a..b])));
        } else {
            out.push(MARK_OPEN);
            out.push_str(&s.text[a..b]);
            out.push(MARK_CLOSE);
        }
        at = b;
    }
    out.push_str(&s.text[at..]);
    out
}
