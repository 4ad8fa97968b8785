//! Agents that write another agent's file shape, named by the folder they keep it in.
//!
//! Some agents are forks that kept their parent's on-disk format: TRAE CLI writes Codex
//! CLI's rollout JSONL (`~/.trae/cli/sessions/`), Qwen Code's first versions Gemini
//! CLI's checkpoints and chats (`~/.qwen/tmp/`), Kilo Code's VS Code extension Roo
//! Code's task folders (`globalStorage/kilocode.kilo-code/`) and the newer Kilo (an
//! OpenCode core) OpenCode's storage and database (`~/.local/share/kilo/`). The format
//! that reads such a file stays the parent's (its id says how the records map); the
//! session's agent is the one that wrote it, told by the folder, since the records do
//! not say.

use std::path::{Component, Path};

/// One agent that writes another agent's file shape: a format lists its kin in
/// [`Format::kin`](super::Format::kin).
pub struct Kin {
    pub agent: &'static str,
    /// Consecutive folder names, one of which (run) is in the path of every file it keeps.
    pub folders: &'static [&'static [&'static str]],
}

/// The agent that wrote `path`, when it is one of `kin` (a format's) and the file lies in
/// that agent's own folder.
pub fn agent(path: &Path, kin: &[Kin]) -> Option<&'static str> {
    let names: Vec<&str> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => n.to_str(),
            _ => None,
        })
        .collect();
    kin.iter().find(|k| k.folders.iter().any(|run| names.windows(run.len()).any(|w| w == *run))).map(|k| k.agent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(path: &Path, format: &str) -> Option<&'static str> {
        let f = crate::formats::all().iter().find(|f| f.id() == format).expect("a format of that id");
        super::agent(path, f.kin())
    }

    #[test]
    fn named_by_their_own_folders() {
        let p = |s: &str| Path::new(s).to_path_buf();
        assert_eq!(agent(&p("/home/a/.trae/cli/sessions/2026/08/01/rollout-x.jsonl"), "codex"), Some("TRAE CLI"));
        assert_eq!(agent(&p("/home/a/.codex/sessions/2026/08/01/rollout-x.jsonl"), "codex"), None);
        assert_eq!(agent(&p("/home/a/.qwen/tmp/9f3e/checkpoint-fix.json"), "gemini-checkpoint"), Some("Qwen Code"));
        assert_eq!(agent(&p("/home/a/.gemini/tmp/9f3e/checkpoint-fix.json"), "gemini-checkpoint"), None);
        let kilo = "/home/a/.config/Code/User/globalStorage/kilocode.kilo-code/tasks/t1/api_conversation_history.json";
        assert_eq!(agent(&p(kilo), "roo-code"), Some("Kilo Code"));
        assert_eq!(agent(&p("/home/a/.local/share/kilo/kilo.db"), "opencode-db"), Some("Kilo"));
        assert_eq!(agent(&p("/home/a/.local/share/opencode/opencode.db"), "opencode-db"), None);
        // The folder counts only for the shape that agent writes.
        assert_eq!(agent(&p("/home/a/.trae/cli/notes/session.jsonl"), "claude-code"), None);
        // A project that is merely called `kilo` is not Kilo's data folder.
        assert_eq!(agent(&p("/home/a/src/kilo/opencode.db"), "opencode-db"), None);
    }
}
