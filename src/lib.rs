//! debrief: index, search, detect debugging patterns in, and write up AI coding-agent
//! session transcripts. The binary (`src/main.rs`) is a thin layer over this library.

pub mod analysis;
pub mod cli;
pub mod commands;
pub mod detect;
pub mod formats;
pub mod index;
pub mod mcp;
pub mod model;
pub mod redact;
pub mod report;
pub mod shell;
/// Synthetic archives for the benchmark harness (`examples/debrief-gen.rs`).
#[doc(hidden)]
pub mod synth;
pub mod walk;

use cli::{Cli, Command};

/// An argument that is wrong, not a failure of the work: `main` exits with 2 for it, as
/// for the errors clap finds (the contract's usage error).
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// `bail!` for a usage error.
#[macro_export]
macro_rules! usage {
    ($($t:tt)*) => {
        return Err(anyhow::Error::new($crate::UsageError(format!($($t)*))))
    };
}

/// Run a parsed command line; returns the process exit code.
pub fn run(cli: &Cli) -> anyhow::Result<i32> {
    match &cli.command {
        Command::Index(a) => commands::index::run(cli, a),
        Command::Search(a) => commands::search::run(cli, a),
        Command::Show(a) => commands::show::run(cli, a),
        Command::Sessions(a) => commands::sessions::run(cli, a),
        Command::Detect(a) => commands::detect::run(cli, a),
        Command::Detectors(a) => commands::detectors::run(cli, a),
        Command::Sources(a) => commands::sources::run(cli, a),
        Command::Report(a) => commands::report::run(cli, a),
        Command::Mcp(a) => mcp::run(cli, a),
        Command::Completions(a) => commands::completions::completions(a),
        Command::Man => commands::completions::man(),
    }
}
