//! Finding transcript files: the agents' default folders, and the files under the
//! paths a user names (a path may be a file or a folder searched recursively).

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::formats::{self, Places, Source};

/// A file that may hold transcripts.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    pub size: u64,
    pub mtime: i128,
    /// Named by the user rather than found in a folder: it must be readable and known.
    pub explicit: bool,
}

/// Where the agents keep their sessions on this machine (whether or not it exists),
/// honouring each agent's own environment override, in the order of [`formats::all`].
pub fn default_sources() -> Vec<Source> {
    let places = Places::here();
    formats::all().iter().flat_map(|f| f.folders(&places)).collect()
}

/// Formats whose sessions live with each project, not in a folder of the agent's own:
/// `debrief index` cannot find them by itself, so they are named here for people.
pub fn without_default_folder() -> Vec<(&'static str, &'static str)> {
    formats::all().iter().filter_map(|f| Some((f.id(), f.kept_with_project()?))).collect()
}

/// Why a folder named on the command line gave no transcript (no file in it is of a
/// format debrief knows), for its one line of error: a format's own reason when the folder
/// is one of its agent's ([`Format::empty_folder_reason`](formats::Format::empty_folder_reason)).
pub fn empty_folder_reason(dir: &Path) -> String {
    if let Some(reason) = formats::all().iter().find_map(|f| f.empty_folder_reason(dir)) {
        return reason.into();
    }
    let empty = std::fs::read_dir(dir).map(|mut rd| rd.next().is_none()).unwrap_or(false);
    if empty {
        "empty folder; no transcript to read".into()
    } else {
        "no transcript found in this folder (no file of a format debrief knows)".into()
    }
}

/// File names worth sniffing inside folders: those some format claims. Files named
/// explicitly are always tried.
fn worth_sniffing(path: &Path) -> bool {
    formats::all().iter().flat_map(|f| f.file_names()).any(|p| formats::folders::name_matches(p, path))
}

/// Folders whose files are read through another file, never on their own (a session's
/// message folder): some format says so ([`Format::folder_read_through_another`](formats::Format::folder_read_through_another)).
fn read_through_another_file(dir: &Path) -> bool {
    formats::all().iter().any(|f| f.folder_read_through_another(dir))
}

/// Size and mtime of a file as the index compares them.
fn stat(path: &Path) -> std::io::Result<(u64, i128)> {
    let md = std::fs::metadata(path)?;
    Ok((md.len(), md.modified().map(nanos).unwrap_or(0)))
}

fn nanos(t: std::time::SystemTime) -> i128 {
    t.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128)
}

/// Size and time by which a change is noticed, for files whose content lives partly
/// elsewhere: what a format reads beside the file ([`Format::read_beside`](formats::Format::read_beside))
/// adds its bytes to the size and its time to the mtime.
fn effective_stat(path: &Path, size: u64, mtime: i128) -> (u64, i128) {
    match formats::all().iter().find_map(|f| f.read_beside(path)) {
        Some(b) => (size + b.bytes, mtime.max(b.modified.map(nanos).unwrap_or(0))),
        None => (size, mtime),
    }
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
            match stat(root) {
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
            if !entry.file_type().is_file()
                || !worth_sniffing(entry.path())
                || formats::all().iter().any(|f| f.read_through_another(entry.path()))
            {
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

/// A format may keep a session as one file per event in a folder (OpenHands: the SDK's
/// `events/`, or wherever a conversation was saved). The folder becomes one candidate:
/// its first event file, with the folder's total size and latest mtime, so that a new
/// event makes the index read the session again (the format's reader reads the
/// siblings). Event files named one by one (a shell glob) are one session too.
fn collapse_event_folders(out: &mut Vec<Candidate>) {
    let event_folder_index = |path: &Path| formats::all().iter().find_map(|f| f.folder_member(path));
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
