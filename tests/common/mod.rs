//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use debrief::formats;
use debrief::model::Session;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/corpus-real`, the real transcripts beside the repository.
pub fn real(rel: &str) -> PathBuf {
    root().join("../shared/corpus-real").join(rel)
}

/// A file of the project's own corpus.
pub fn corpus(rel: &str) -> PathBuf {
    root().join("corpus").join(rel)
}

/// Parse a file with format detection; panics with the error.
pub fn parse(path: &Path) -> Vec<Session> {
    formats::parse_file(path, None).unwrap_or_else(|e| panic!("{}: {e:#}", path.display())).sessions
}

/// A `debrief` command with its own index folder and no colour.
pub fn debrief(index: &Path) -> Command {
    let mut c = Command::cargo_bin("debrief").expect("the debrief binary is built");
    c.env("DEBRIEF_INDEX", index).env("NO_COLOR", "1").env_remove("CODEX_HOME").env_remove("CLAUDE_CONFIG_DIR");
    c
}

/// Calls, shell commands, failed calls and calls without a result in a session.
pub fn call_counts(s: &Session) -> (usize, usize, usize, usize) {
    let calls: Vec<_> = s.messages.iter().flat_map(|m| &m.calls).collect();
    (
        calls.len(),
        calls.iter().filter(|c| c.command.is_some()).count(),
        calls.iter().filter(|c| c.result.as_ref().is_some_and(|r| r.is_error)).count(),
        calls.iter().filter(|c| c.result.is_none()).count(),
    )
}
