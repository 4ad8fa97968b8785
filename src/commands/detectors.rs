//! `debrief detectors [ID]`: the registry, and each detector's documentation.

use std::io::Write;

use anyhow::{Result, bail};

use super::Style;
use crate::cli::{Cli, DetectorsArgs};
use crate::detect;

pub fn run(_cli: &Cli, args: &DetectorsArgs) -> Result<i32> {
    let out = std::io::stdout();
    let mut out = out.lock();
    let style = Style::stdout();
    match &args.id {
        None => {
            for d in detect::registry() {
                writeln!(out, "{:<22} {}", style.yellow(d.id()), d.summary())?;
            }
        }
        Some(id) => {
            let Some(d) = detect::by_id(id) else {
                let known: Vec<&str> = detect::registry().iter().map(|d| d.id()).collect();
                bail!("unknown detector `{id}` (known: {})", known.join(", "));
            };
            writeln!(out, "{}\n\n{}\n", style.bold(d.id()), d.summary())?;
            writeln!(out, "{}", d.doc().trim())?;
        }
    }
    Ok(0)
}
