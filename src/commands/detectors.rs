//! `debrief detectors [ID]`: the registry, and each detector's documentation.

use std::io::Write;

use anyhow::Result;
use serde_json::json;

use super::Style;
use crate::cli::{Cli, DetectorsArgs};
use crate::detect::{self, Detector};

pub fn run(_cli: &Cli, args: &DetectorsArgs) -> Result<i32> {
    let out = std::io::stdout();
    let mut out = out.lock();
    let style = Style::stdout();
    let chosen: Vec<&'static dyn Detector> = match &args.id {
        None => detect::registry().to_vec(),
        Some(id) => match detect::by_id(id) {
            Some(d) => vec![d],
            None => {
                let known: Vec<&str> = detect::registry().iter().map(|d| d.id()).collect();
                crate::usage!("unknown detector `{id}` (known: {})", known.join(", "));
            }
        },
    };
    if args.json {
        for d in &chosen {
            writeln!(out, "{}", json!({"id": d.id(), "summary": d.summary(), "doc": d.doc().trim()}))?;
        }
        return Ok(0);
    }
    match chosen.as_slice() {
        [d] if args.id.is_some() => print_doc(&mut out, *d, style)?,
        all => {
            let width = all.iter().map(|d| d.id().len()).max().unwrap_or(0);
            for d in all {
                let pad = " ".repeat(width - d.id().len());
                writeln!(out, "{}{pad}  {}", style.yellow(d.id()), d.summary())?;
            }
            eprintln!("`debrief detectors ID` prints one's documentation");
        }
    }
    Ok(0)
}

/// The documentation as written (Markdown), with headings in bold on a terminal.
fn print_doc(out: &mut impl Write, d: &dyn Detector, style: Style) -> Result<()> {
    writeln!(out, "{}\n\n{}\n", style.bold(d.id()), d.summary())?;
    for line in d.doc().trim().lines() {
        if line.starts_with("## ") && style.color {
            writeln!(out, "{}", style.bold(line.trim_start_matches("## ")))?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}
