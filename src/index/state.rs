//! What the index knows about each source file, committed with the documents (as the
//! tantivy commit payload) so that the two can never disagree.
//!
//! A file is skipped when its size and mtime are unchanged. When it has grown, the
//! bytes up to `consumed` are checked (a hash of the last 4 KB before it) and, if they
//! are unchanged, parsing resumes from a [`Checkpoint`] near the end instead of the
//! start. Anything else re-reads the file from scratch.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::formats::Checkpoint;

/// Bytes before `consumed` that must be unchanged for a resume.
pub const TAIL_CHECK_BYTES: u64 = 4096;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    pub files: BTreeMap<PathBuf, FileState>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileState {
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: i128,
    pub format: String,
    /// Bytes read and accepted; a trailing half-written line is not included.
    pub consumed: u64,
    pub lines: u32,
    /// Hash of the [`TAIL_CHECK_BYTES`] before `consumed`.
    pub tail_hash: u64,
    /// Number of sessions found in the file.
    pub sessions: usize,
    pub bad: u32,
    /// The last line was left unread because it is still being written.
    #[serde(default)]
    pub pending_tail: bool,
    /// Sparse restart points, oldest first (line-oriented formats only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checkpoints: Vec<Checkpoint>,
    /// Records of a type or shape the parser did not know (format drift), per kind,
    /// counted over the whole file: a re-read replaces them, an append adds the
    /// records after the old end.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unknown: BTreeMap<String, u64>,
    /// The agent version the file's sessions were written with, when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<String>,
    /// Read with its format, yet no message came out of it (`debrief sources` names it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nothing_read: bool,
}

/// Format drift seen in the indexed files: unknown record kinds per format and agent
/// version, with how many records and files show them.
pub fn drift(state: &State) -> BTreeMap<(String, String, String), (u64, usize)> {
    let mut out: BTreeMap<(String, String, String), (u64, usize)> = BTreeMap::new();
    for fs in state.files.values() {
        for (kind, n) in &fs.unknown {
            let key = (fs.format.clone(), fs.agent_version.clone().unwrap_or_default(), kind.clone());
            let e = out.entry(key).or_default();
            e.0 += n;
            e.1 += 1;
        }
    }
    out
}

/// Hash of the bytes of `path` in `[end - TAIL_CHECK_BYTES, end)`.
pub fn tail_hash(path: &Path, end: u64) -> std::io::Result<u64> {
    let start = end.saturating_sub(TAIL_CHECK_BYTES);
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(start))?;
    let mut buf = vec![0u8; (end - start) as usize];
    f.read_exact(&mut buf)?;
    Ok(super::schema::stable_hash(&[&buf]))
}

/// How many restart points a file keeps, and how far apart (in messages) they are.
const KEEP_CHECKPOINTS: usize = 12;
const CHECKPOINT_SPACING: u32 = 64;

/// Keep a sparse, bounded set of checkpoints: spaced out, plus the latest one.
pub fn add_checkpoint(list: &mut Vec<Checkpoint>, cp: Checkpoint) {
    if let Some(last) = list.last() {
        let same_session = last.session == cp.session;
        if same_session && cp.next_idx < last.next_idx + CHECKPOINT_SPACING && list.len() > 1 {
            // Replace the latest with the newer one unless it is a spaced keeper.
            let before = &list[list.len() - 2];
            if before.session == cp.session && last.next_idx < before.next_idx + CHECKPOINT_SPACING {
                list.pop();
            }
        }
    }
    list.push(cp);
    if list.len() > KEEP_CHECKPOINTS {
        // Drop the oldest, but keep the first checkpoint of the last session.
        list.remove(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cp(idx: u32) -> Checkpoint {
        Checkpoint { offset: idx as u64 * 100, line: idx, session: 0, next_idx: idx, state: serde_json::Value::Null }
    }

    #[test]
    fn checkpoints_stay_sparse_and_bounded() {
        let mut list = Vec::new();
        for i in 1..=5000 {
            add_checkpoint(&mut list, cp(i));
        }
        assert!(list.len() <= KEEP_CHECKPOINTS);
        assert_eq!(list.last().map(|c| c.next_idx), Some(5000));
        // Spaced keepers exist well before the end.
        assert!(list.first().is_some_and(|c| c.next_idx < 5000 - 300));
    }
}
