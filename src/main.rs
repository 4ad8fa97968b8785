//! The `debrief` binary: parse flags, run, map the outcome to an exit code
//! (0 success, 1 runtime error, 2 usage error). A closed pipe (`debrief … | head`) is
//! not an error.

use clap::Parser;

fn main() {
    let cli = debrief::cli::Cli::parse();
    let code = match debrief::run(&cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => 0,
        // Said on stderr already, one line per file.
        Err(e) if e.downcast_ref::<debrief::commands::Reported>().is_some() => 1,
        Err(e) if e.downcast_ref::<debrief::UsageError>().is_some() => {
            eprintln!("debrief: {e:#}");
            2
        }
        Err(e) => {
            eprintln!("debrief: {e:#}");
            1
        }
    };
    std::process::exit(code);
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}
