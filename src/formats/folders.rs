//! Where the agents keep their sessions: the places a [`Format`](super::Format) names as
//! its default folders, and the file names it claims in them, so that a format says it
//! all in its own file.

use std::path::{Path, PathBuf};

/// An agent's default archive folder (whether or not it exists on this machine).
#[derive(Debug, Clone)]
pub struct Source {
    /// Who keeps it: the format id, or the agent that writes that format's shape in a
    /// folder of its own (`trae-cli`, `kilo`; see `formats::kin`).
    pub agent: &'static str,
    pub path: PathBuf,
    /// The environment variable that moved it, when one did.
    pub from_env: Option<&'static str>,
}

/// The base folders of this machine the agents' folders hang from.
pub struct Places {
    pub home: Option<PathBuf>,
    /// The platform's configuration folder (`~/.config`, `~/Library/Application Support`).
    pub config: Option<PathBuf>,
    /// `$XDG_DATA_HOME` when it is set to an absolute path.
    xdg_data: Option<PathBuf>,
}

/// The editors whose global storage the VS Code extensions (Cline, Roo Code, Copilot
/// Chat) may keep their sessions in.
const EDITORS: &[&str] = &["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"];

impl Places {
    pub fn here() -> Places {
        let dirs = directories::BaseDirs::new();
        Places {
            home: dirs.as_ref().map(|d| d.home_dir().to_path_buf()),
            config: dirs.as_ref().map(|d| d.config_dir().to_path_buf()),
            xdg_data: std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).filter(|p| p.is_absolute()),
        }
    }

    /// `agent`'s folder `sub` under `$var` when that is set, else under `default`.
    pub fn moved(&self, agent: &'static str, var: &'static str, default: Option<PathBuf>, sub: &[&str]) -> Vec<Source> {
        let (base, from_env) = match (std::env::var_os(var), default) {
            (Some(dir), _) => (PathBuf::from(dir), Some(var)),
            (None, Some(dir)) => (dir, None),
            (None, None) => return Vec::new(),
        };
        vec![Source { agent, path: join(base, sub), from_env }]
    }

    /// `agent`'s folder `sub` under `$var` when that is set, else under the home folder's `default`.
    pub fn moved_home(&self, agent: &'static str, var: &'static str, default: &[&str], sub: &[&str]) -> Vec<Source> {
        self.moved(agent, var, self.home.clone().map(|h| join(h, default)), sub)
    }

    /// The folder `parts` under the home folder.
    pub fn in_home(&self, agent: &'static str, parts: &[&str]) -> Vec<Source> {
        self.home.iter().map(|h| Source { agent, path: join(h.clone(), parts), from_env: None }).collect()
    }

    /// The items `subs` of `name`'s XDG data folder (`~/.local/share/<name>` unless
    /// `$XDG_DATA_HOME` moves it), which such agents use on every platform.
    pub fn data(&self, agent: &'static str, name: &str, subs: &[&[&str]]) -> Vec<Source> {
        let (dir, from_env) = match (&self.xdg_data, &self.home) {
            (Some(d), _) => (d.join(name), Some("XDG_DATA_HOME")),
            (None, Some(h)) => (join(h.clone(), &[".local", "share", name]), None),
            _ => return Vec::new(),
        };
        subs.iter().map(|sub| Source { agent, path: join(dir.clone(), sub), from_env }).collect()
    }

    /// `folder` of each editor's user folder (`<config>/<editor>/User/<folder>`): VS
    /// Code's always (when `always`), the other editors' when that folder exists; then `sub` of it.
    pub fn editors(&self, agent: &'static str, folder: &[&str], always: bool, sub: &[&str]) -> Vec<Source> {
        let Some(config) = &self.config else { return Vec::new() };
        EDITORS
            .iter()
            .map(|editor| join(config.join(editor).join("User"), folder))
            .enumerate()
            .filter(|(i, dir)| *i == 0 && always || dir.is_dir())
            .map(|(_, dir)| Source { agent, path: join(dir, sub), from_env: None })
            .collect()
    }
}

fn join(mut base: PathBuf, parts: &[&str]) -> PathBuf {
    base.extend(parts);
    base
}

/// Whether `path` has a name a format claims: `*.ext` (an extension), `name` (a whole
/// name), either lower-case and compared to the name without case, after the folders
/// that must hold it, nearest last (`goose/*/sessions.db`: `*` is any one folder).
pub fn name_matches(pattern: &str, path: &Path) -> bool {
    let mut parts = pattern.rsplit('/');
    let last = parts.next().unwrap_or("");
    // Compared without case and without making a lower-cased copy: the walk asks this
    // of every file for every pattern.
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").as_bytes();
    let named = match last.strip_prefix('*') {
        Some(ext) => name.len() >= ext.len() && name[name.len() - ext.len()..].eq_ignore_ascii_case(ext.as_bytes()),
        None => name.eq_ignore_ascii_case(last.as_bytes()),
    };
    let mut dirs = path.ancestors().skip(1);
    named && parts.all(|p| dirs.next().and_then(Path::file_name).is_some_and(|n| p == "*" || n == p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_by_extension_whole_name_and_folders() {
        assert!(name_matches("*.jsonl", Path::new("/a/b/Session.JSONL")));
        assert!(!name_matches("*.json", Path::new("/a/b/s.jsonl")));
        assert!(name_matches("opencode.db", Path::new("/a/OpenCode.db")));
        assert!(name_matches("goose/*/sessions.db", Path::new("/h/.local/share/goose/sessions/sessions.db")));
        assert!(!name_matches("goose/*/sessions.db", Path::new("/h/.local/share/other/sessions/sessions.db")));
        assert!(!name_matches("goose/*/sessions.db", Path::new("sessions/sessions.db")));
    }
}
