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
    // Gemini CLI: `$GEMINI_CLI_HOME` stands in for the home folder (packages/core/src/utils/paths.ts).
    match (std::env::var_os("GEMINI_CLI_HOME").map(PathBuf::from), &home) {
        (Some(dir), _) => out.push(Source {
            agent: "gemini-cli",
            path: dir.join(".gemini").join("tmp"),
            from_env: Some("GEMINI_CLI_HOME"),
        }),
        (None, Some(h)) => {
            out.push(Source { agent: "gemini-cli", path: h.join(".gemini").join("tmp"), from_env: None })
        }
        _ => {}
    }
    // OpenCode keeps its data under the XDG data folder on every platform (xdg-basedir).
    let xdg = std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    let data = match (&xdg, &home) {
        (Some(d), _) => Some((d.join("opencode"), Some("XDG_DATA_HOME"))),
        (None, Some(h)) => Some((h.join(".local").join("share").join("opencode"), None)),
        _ => None,
    };
    if let Some((dir, from_env)) = data {
        out.push(Source { agent: "opencode", path: dir.join("storage").join("session"), from_env });
        out.push(Source { agent: "opencode", path: dir.join("opencode.db"), from_env });
    }
    // OpenHands: the agent SDK / CLI keeps `~/.openhands/conversations/<id>/events/`,
    // the V0 server its file store's `sessions/<id>/events/` (`FILE_STORE_PATH`).
    if let Some(h) = &home {
        out.push(Source { agent: "openhands", path: h.join(".openhands").join("conversations"), from_env: None });
    }
    match (std::env::var_os("FILE_STORE_PATH").map(PathBuf::from), &home) {
        (Some(dir), _) => {
            out.push(Source { agent: "openhands", path: dir.join("sessions"), from_env: Some("FILE_STORE_PATH") })
        }
        (None, Some(h)) => {
            out.push(Source { agent: "openhands", path: h.join(".openhands").join("sessions"), from_env: None })
        }
        _ => {}
    }
    // pi keeps `<agent dir>/sessions/--<cwd>--/*.jsonl`; `$PI_CODING_AGENT_DIR` moves the agent dir.
    match (std::env::var_os("PI_CODING_AGENT_DIR").map(PathBuf::from), &home) {
        (Some(dir), _) => {
            out.push(Source { agent: "pi", path: dir.join("sessions"), from_env: Some("PI_CODING_AGENT_DIR") })
        }
        (None, Some(h)) => {
            out.push(Source { agent: "pi", path: h.join(".pi").join("agent").join("sessions"), from_env: None })
        }
        _ => {}
    }
    // Agents that kept another agent's file shape, in folders of their own (`formats::kin`),
    // and Qwen Code's and iFlow CLI's own records.
    if let Some(h) = &home {
        out.push(Source { agent: "qwen-code", path: h.join(".qwen").join("projects"), from_env: None });
        out.push(Source { agent: "qwen-code", path: h.join(".qwen").join("tmp"), from_env: None });
        out.push(Source { agent: "iflow", path: h.join(".iflow").join("projects"), from_env: None });
        out.push(Source { agent: "trae-cli", path: h.join(".trae").join("cli").join("sessions"), from_env: None });
        out.push(Source { agent: "copilot-cli", path: h.join(".copilot").join("session-state"), from_env: None });
        // Cursor's agent transcripts, one folder per workspace (`<slug>/agent-transcripts/`).
        out.push(Source { agent: "cursor", path: h.join(".cursor").join("projects"), from_env: None });
    }
    // Goose keeps `sessions/sessions.db` (earlier `sessions/*.jsonl`) in its XDG data folder.
    if let Some(data) = match (&xdg, &home) {
        (Some(d), _) => Some(d.join("goose")),
        (None, Some(h)) => Some(h.join(".local").join("share").join("goose")),
        _ => None,
    } {
        out.push(Source {
            agent: "goose",
            path: data.join("sessions"),
            from_env: xdg.as_ref().map(|_| "XDG_DATA_HOME"),
        });
    }
    // Kilo (an OpenCode core) keeps OpenCode's layout under its own name in the XDG data folder.
    if let Some(data) = match (&xdg, &home) {
        (Some(d), _) => Some(d.join("kilo")),
        (None, Some(h)) => Some(h.join(".local").join("share").join("kilo")),
        _ => None,
    } {
        let from_env = xdg.as_ref().map(|_| "XDG_DATA_HOME");
        out.push(Source { agent: "kilo", path: data.join("storage").join("session"), from_env });
        out.push(Source { agent: "kilo", path: data.join("kilo.db"), from_env });
    }
    // mini-swe-agent saves its last run in its config folder (platformdirs).
    let mini = std::env::var_os("MSWEA_GLOBAL_CONFIG_DIR").map(PathBuf::from);
    let config = directories::BaseDirs::new().map(|d| d.config_dir().join("mini-swe-agent"));
    match (mini, config) {
        (Some(dir), _) => {
            out.push(Source { agent: "openai-chat", path: dir, from_env: Some("MSWEA_GLOBAL_CONFIG_DIR") })
        }
        (None, Some(dir)) => out.push(Source { agent: "openai-chat", path: dir, from_env: None }),
        _ => {}
    }
    out.extend(vscode_extension_sources(home.as_deref()));
    out
}

/// Cline and Roo Code (and Kilo Code, which writes Roo Code's format) keep their tasks in
/// the editor's global storage: `<config>/<editor>/User/globalStorage/<extension>/tasks`.
/// VS Code's folder is always listed; other editors (Insiders, VSCodium, Cursor,
/// Windsurf) when the extension has a folder there. The Cline CLI uses `~/.cline/data/tasks`.
fn vscode_extension_sources(home: Option<&Path>) -> Vec<Source> {
    const EXTENSIONS: &[(&str, &str)] = &[
        ("cline", "saoudrizwan.claude-dev"),
        ("roo-code", "rooveterinaryinc.roo-cline"),
        ("kilo-code", "kilocode.kilo-code"),
    ];
    const EDITORS: &[&str] = &["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"];
    let mut out = Vec::new();
    let Some(config) = directories::BaseDirs::new().map(|d| d.config_dir().to_path_buf()) else { return out };
    for (agent, ext) in EXTENSIONS {
        for editor in EDITORS {
            let dir = config.join(editor).join("User").join("globalStorage").join(ext);
            if *editor == "Code" && *agent != "kilo-code" || dir.is_dir() {
                out.push(Source { agent, path: dir.join("tasks"), from_env: None });
            }
        }
    }
    // VS Code's own chat (Copilot): a chatSessions/ folder per workspace.
    for editor in EDITORS {
        let dir = config.join(editor).join("User").join("workspaceStorage");
        if *editor == "Code" || dir.is_dir() {
            out.push(Source { agent: "copilot-chat", path: dir, from_env: None });
        }
    }
    if let Some(h) = home {
        let cli = h.join(".cline").join("data").join("tasks");
        if cli.is_dir() {
            out.push(Source { agent: "cline", path: cli, from_env: None });
        }
    }
    out
}

/// Formats whose sessions live with each project, not in a folder of the agent's own:
/// `debrief index` cannot find them by itself, so they are named here for people.
pub fn without_default_folder() -> &'static [(&'static str, &'static str)] {
    &[
        ("aider", ".aider.chat.history.md in the root of each project aider ran in"),
        ("specstory", ".specstory/history/*.md in each project"),
        ("swe-agent", "*.traj under trajectories/ where SWE-agent ran"),
    ]
}

/// Why a folder named on the command line gave no transcript (no file in it is of a
/// format debrief knows), for its one line of error.
pub fn empty_folder_reason(dir: &Path) -> String {
    let has = |name: &str| dir.join(name).is_file();
    if !has("api_conversation_history.json") && (has("ui_messages.json") || has("task_metadata.json")) {
        return "a Cline / Roo Code task folder without api_conversation_history.json (the conversation); nothing to read".into();
    }
    let empty = std::fs::read_dir(dir).map(|mut rd| rd.next().is_none()).unwrap_or(false);
    if empty {
        "empty folder; no transcript to read".into()
    } else {
        "no transcript found in this folder (no file of a format debrief knows)".into()
    }
}

/// File names worth sniffing inside folders. Files named explicitly are always tried.
fn worth_sniffing(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let lower = name.to_ascii_lowercase();
    lower == "opencode.db"
        || lower == "kilo.db"
        || lower == "sessions.db"
            && path.parent().and_then(Path::parent).and_then(Path::file_name).is_some_and(|n| n == "goose")
        || [".jsonl", ".json", ".md", ".traj"].iter().any(|ext| lower.ends_with(ext))
}

/// Folders whose files are read through another file, never on their own: OpenCode's
/// `storage/message/` and `storage/part/` (and `storage/session/{message,part}/` of the
/// older layout) belong to the session file that names them; OpenHands' `event_cache/`
/// pages repeat the conversation's `events/` folder beside them.
fn read_through_another_file(dir: &Path) -> bool {
    let Some(name) = dir.file_name() else { return false };
    if name == "event_cache" {
        return dir.parent().is_some_and(|conv| conv.join("events").is_dir());
    }
    if name != "message" && name != "part" {
        return false;
    }
    let parent = dir.parent();
    let parent_name = parent.and_then(Path::file_name);
    match parent_name {
        Some(p) if p == "storage" => parent.is_some_and(|s| s.join("session").is_dir()),
        Some(p) if p == "session" => {
            parent.and_then(Path::parent).and_then(Path::file_name).is_some_and(|g| g == "storage")
        }
        _ => false,
    }
}

fn nanos(t: std::time::SystemTime) -> i128 {
    t.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128)
}

/// Size and time by which a change is noticed, for files whose content lives partly
/// elsewhere: an SQLite database with its write-ahead log, an OpenCode session file
/// with its message folder.
fn effective_stat(path: &Path, size: u64, mtime: i128) -> (u64, i128) {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.ends_with(".db") {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        if let Ok(md) = std::fs::metadata(PathBuf::from(wal)) {
            let wal_time = md.modified().map(nanos).unwrap_or(0);
            return (size + md.len(), mtime.max(wal_time));
        }
        return (size, mtime);
    }
    if name.starts_with("ses_")
        && name.ends_with(".json")
        && let Some(t) = crate::formats::opencode::storage_mtime(path)
    {
        return (size, mtime.max(nanos(t)));
    }
    (size, mtime)
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
        if !meta.is_file() && !meta.is_dir() {
            // A FIFO, socket or device: opening one to read could block for ever.
            problems.push((root.clone(), format!("not a regular file or folder ({}); skipped", special_kind(&meta))));
            continue;
        }
        if meta.is_file() {
            match state::stat(root) {
                Ok((size, mtime)) => {
                    let (size, mtime) = effective_stat(root, size, mtime);
                    out.push(Candidate { path: root.clone(), size, mtime, explicit })
                }
                Err(e) => problems.push((root.clone(), e.to_string())),
            }
            continue;
        }
        let walk = WalkDir::new(root).follow_links(false).sort_by_file_name().into_iter();
        for entry in walk.filter_entry(|e| !(e.file_type().is_dir() && read_through_another_file(e.path()))) {
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
                    let mtime = md.modified().map(nanos).unwrap_or(0);
                    let (size, mtime) = effective_stat(entry.path(), md.len(), mtime);
                    out.push(Candidate { path: entry.path().to_path_buf(), size, mtime, explicit: false });
                }
                Err(e) => problems.push((entry.path().to_path_buf(), e.to_string())),
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    collapse_event_folders(&mut out);
    out
}

/// What kind of special file `meta` describes, for messages.
fn special_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    let _ = meta;
    "not a file"
}

/// OpenHands keeps a conversation as one JSON file per event in a folder (the SDK's
/// `events/`, or wherever a conversation was saved). The folder becomes one candidate:
/// its first event file, with the folder's total size and latest mtime, so that a new
/// event makes the index read the conversation again (the OpenHands parser reads the
/// siblings). Event files named one by one (a shell glob) are one conversation too.
fn collapse_event_folders(out: &mut Vec<Candidate>) {
    use crate::formats::openhands::event_folder_index;
    let mut firsts: std::collections::HashMap<PathBuf, usize> = std::collections::HashMap::new();
    let mut keep = vec![true; out.len()];
    for i in 0..out.len() {
        let c = &out[i];
        let Some(dir) = c.path.parent().map(Path::to_path_buf) else { continue };
        let Some(n) = event_folder_index(&c.path) else { continue };
        match firsts.get(&dir).copied() {
            None => {
                firsts.insert(dir, i);
            }
            Some(j) => {
                let (size, mtime) = (c.size, c.mtime);
                let first_n = event_folder_index(&out[j].path).unwrap_or(u64::MAX);
                let (keep_at, drop_at) = if n < first_n { (i, j) } else { (j, i) };
                keep[drop_at] = false;
                let total = out[j].size + size;
                let latest = out[j].mtime.max(mtime);
                let kept = &mut out[keep_at];
                kept.size = total;
                kept.mtime = latest;
                firsts.insert(dir, keep_at);
            }
        }
    }
    let mut i = 0;
    out.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}
