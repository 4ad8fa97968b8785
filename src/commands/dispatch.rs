//! Which subcommand runs: the one place that names them all, including those that live
//! outside `commands/` (`mcp`, `serve`, `push`).

use super::{completions, detect, detectors, index, report, search, sessions, show, sources};
use crate::cli::{Cli, Command};

/// Run a parsed command line; returns the process exit code.
pub fn run(cli: &Cli) -> anyhow::Result<i32> {
    match &cli.command {
        Command::Index(a) => index::run(cli, a),
        Command::Search(a) => search::run(cli, a),
        Command::Show(a) => show::run(cli, a),
        Command::Sessions(a) => sessions::run(cli, a),
        Command::Detect(a) => detect::run(cli, a),
        Command::Detectors(a) => detectors::run(cli, a),
        Command::Sources(a) => sources::run(cli, a),
        Command::Report(a) => report::run(cli, a),
        Command::Mcp(a) => crate::mcp::run(cli, a),
        Command::Serve(a) => crate::serve::run(cli, a),
        Command::Push(a) => crate::team::push::run(cli, a),
        Command::Completions(a) => completions::completions(a),
        Command::Man => completions::man(),
    }
}
