//! Finding transcript files: the agents' default folders, and the files under the
//! paths a user names (a path may be a file or a folder searched recursively).

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::index::state;

/// A file that may hold transcripts.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    pub size: u64,
    pub mtime: i128,
    /// Named by the user rather than found in a folder: it must be readable and known.
    pub explicit: bool,
}

/// An agent's default archive folder.
#[derive(Debug, Clone)]
pub struct Source {
    pub agent: &'static str,
    pub path: PathBuf,
    /// The environment variable that moved it, when one did.
    pub from_env: Option<&'static str>,
}

fn home() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf())
}

/// Where the agents keep their sessions on this machine (whether or not it exists),
/// honouring each agent's own environment override.
pub fn default_sources() -> Vec<Source> {
    let mut out = Vec::new();
    let home = home();
    let claude = std::env::var_os("CLAUDE_CONFIG_DIR").map(PathBuf::from);
    match (&claude, &home) {
        (Some(dir), _) => {
            out.push(Source { agent: "claude-code", path: dir.join("projects"), from_env: Some("CLAUDE_CONFIG_DIR") })
        }
        (None, Some(h)) => {
            out.push(Source { agent: "claude-code", path: h.join(".claude").join("projects"), from_env: None })
        }
        _ => {}
    }
    let codex = std::env::var_os("CODEX_HOME").map(PathBuf::from);
    match (&codex, &home) {
        (Some(dir), _) => out.push(Source { agent: "codex", path: dir.join("sessions"), from_env: Some("CODEX_HOME") }),
        (None, Some(h)) => out.push(Source { agent: "codex", path: h.join(".codex").join("sessions"), from_env: None }),
        _ => {}
    }
    out
}

/// File names worth sniffing inside folders. Files named explicitly are always tried.
fn worth_sniffing(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let lower = name.to_ascii_lowercase();
    [".jsonl", ".json", ".md", ".traj"].iter().any(|ext| lower.ends_with(ext))
}

/// Absolute form of a path without resolving symlinks in its last component.
pub fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// Every candidate file under `roots`, sorted by path. Problems (a missing path, a
/// folder that cannot be read) are collected in `problems` and the walk goes on.
pub fn discover(roots: &[PathBuf], explicit: bool, problems: &mut Vec<(PathBuf, String)>) -> Vec<Candidate> {
    let mut out = Vec::new();
    for root in roots {
        let meta = match std::fs::metadata(root) {
            Ok(m) => m,
            Err(e) => {
                if explicit {
                    problems.push((root.clone(), e.to_string()));
                }
                continue;
            }
        };
        if meta.is_file() {
            match state::stat(root) {
                Ok((size, mtime)) => out.push(Candidate { path: root.clone(), size, mtime, explicit }),
                Err(e) => problems.push((root.clone(), e.to_string())),
            }
            continue;
        }
        for entry in WalkDir::new(root).follow_links(false).sort_by_file_name() {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let p = e.path().map(Path::to_path_buf).unwrap_or_else(|| root.clone());
                    problems.push((p, e.io_error().map_or_else(|| e.to_string(), |io| io.to_string())));
                    continue;
                }
            };
            if !entry.file_type().is_file() || !worth_sniffing(entry.path()) {
                continue;
            }
            match entry.metadata() {
                Ok(md) => {
                    let mtime = md
                        .modified()
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .map_or(0, |d| d.as_nanos() as i128);
                    out.push(Candidate { path: entry.path().to_path_buf(), size: md.len(), mtime, explicit: false });
                }
                Err(e) => problems.push((entry.path().to_path_buf(), e.to_string())),
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    out
}
