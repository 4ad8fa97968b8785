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
pub mod serve;
pub mod shell;
pub mod team;
mod test_point;
pub mod walk;

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

pub use commands::dispatch::run;
