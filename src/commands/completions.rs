//! `debrief completions SHELL` and `debrief man`: shell completions and the man page,
//! generated from the command-line definitions (`crate::cli`), so they say what the
//! flags are and cannot drift from them.

use std::io::Write;

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

pub fn completions(args: &CompletionsArgs) -> Result<i32> {
    let mut cmd = Cli::command();
    // Generated into memory first: clap_complete panics on a write error, and a closed
    // pipe (`debrief completions bash | head`) is not one.
    let mut text = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "debrief", &mut text);
    write_out(&text)
}

pub fn man() -> Result<i32> {
    let mut text = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut text)?;
    write_out(&text)
}

fn write_out(text: &[u8]) -> Result<i32> {
    let out = std::io::stdout();
    let mut out = out.lock();
    out.write_all(text)?;
    out.flush()?;
    Ok(0)
}
