//! `debrief sources`: where each agent keeps its sessions on this machine, what of it
//! the index has read, and the format drift the parsers met — record types a newer
//! agent version writes that debrief does not know yet, counted instead of lost.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::json;

use super::{Style, display_path, index_dir};
use crate::analysis::text::{human_bytes, plural};
use crate::cli::{Cli, SourcesArgs};
use crate::index::IndexDir;
use crate::index::state::{self, State};
use crate::walk;

/// One default folder, as found on disk.
pub struct Folder {
    pub agent: &'static str,
    pub path: PathBuf,
    pub from_env: Option<&'static str>,
    pub exists: bool,
    pub files: usize,
    pub bytes: u64,
    /// Files under the folder the index has read (`None` without an index).
    pub indexed: Option<usize>,
}

pub fn run(cli: &Cli, args: &SourcesArgs) -> Result<i32> {
    let dir = index_dir(&cli.index);
    // The index is optional here: without one, the folders are still worth showing.
    let (state, index_note) = match IndexDir::open(&dir) {
        Ok(ix) => match ix.load_state() {
            Ok(s) => (Some(s), None),
            Err(e) => (None, Some(format!("{e:#}"))),
        },
        Err(e) => (None, Some(format!("{e:#}"))),
    };
    let folders: Vec<Folder> = walk::default_sources().into_iter().map(|s| folder(s, state.as_ref())).collect();
    let drift = state.as_ref().map(state::drift).unwrap_or_default();
    let empty = state.as_ref().map(nothing_read).unwrap_or_default();
    let out = std::io::stdout();
    let mut out = out.lock();
    if args.json {
        let doc = json!({
            "index": display_path(&dir),
            "indexed_files": state.as_ref().map(|s| indexed(s, None)),
            "sources": folders.iter().map(|f| json!({
                "agent": f.agent,
                "path": f.path,
                "from_env": f.from_env,
                "exists": f.exists,
                "files": f.files,
                "bytes": f.bytes,
                "indexed": f.indexed,
            })).collect::<Vec<_>>(),
            "elsewhere": walk::without_default_folder().iter().map(|(agent, where_)| json!({
                "agent": agent,
                "where": where_,
            })).collect::<Vec<_>>(),
            "nothing_read": empty.iter().map(|(path, format)| json!({"path": path, "format": format})).collect::<Vec<_>>(),
            "drift": drift.iter().map(|((format, version, kind), (records, files))| json!({
                "format": format,
                "agent_version": if version.is_empty() { None } else { Some(crate::redact::redact(version)) },
                "kind": crate::redact::redact(kind),
                "records": records,
                "files": files,
            })).collect::<Vec<_>>(),
        });
        writeln!(out, "{doc}")?;
        return Ok(0);
    }
    let style = Style::stdout();
    writeln!(out, "{}", style.bold("Agent folders"))?;
    let width = folders.iter().map(|f| display_path(&f.path).chars().count()).max().unwrap_or(0);
    for f in &folders {
        let path = display_path(&f.path);
        let pad = " ".repeat(width.saturating_sub(path.chars().count()));
        let what = if !f.exists {
            style.dim("not found")
        } else {
            let mut s = format!("{} file{}, {}", f.files, plural(f.files as u64), human_bytes(f.bytes));
            if let Some(n) = f.indexed {
                s.push_str(&format!(", {n} indexed"));
            }
            s
        };
        let env = f.from_env.map(|e| style.dim(&format!(" (from ${e})"))).unwrap_or_default();
        writeln!(out, "  {:<12} {path}{pad}  {what}{env}", f.agent)?;
    }
    writeln!(out, "\n{}", style.bold("Kept with each project (index them by path: debrief index PROJECT)"))?;
    for (agent, where_) in walk::without_default_folder() {
        writeln!(out, "  {agent:<12} {where_}")?;
    }
    writeln!(out)?;
    match (&state, &index_note) {
        (Some(s), _) => {
            let total = indexed(s, None);
            let inside: usize = folders.iter().filter_map(|f| f.indexed).sum();
            writeln!(
                out,
                "{} {} holds {total} file{}{}",
                style.bold("Index"),
                display_path(&dir),
                plural(total as u64),
                if total > inside { format!(" ({} from other paths)", total - inside) } else { String::new() }
            )?;
        }
        (None, Some(note)) => writeln!(out, "{} {}", style.bold("Index"), style.dim(note))?,
        (None, None) => {}
    }
    if state.is_none() {
        return Ok(0);
    }
    if !empty.is_empty() {
        writeln!(
            out,
            "\n{}",
            style.bold("Read as no message (a format claimed these files; nothing came out of them)")
        )?;
        for (path, format) in &empty {
            writeln!(out, "  {format:<12} {}", display_path(path))?;
        }
    }
    writeln!(out, "\n{}", style.bold("Format drift (record types the parsers did not know, in indexed files)"))?;
    if drift.is_empty() {
        writeln!(out, "  none seen")?;
    }
    for ((format, version, kind), (records, files)) in &drift {
        let v = if version.is_empty() { String::new() } else { format!(" {}", crate::redact::redact(version)) };
        writeln!(
            out,
            "  {format}{v}: {records} record{} of type {} in {files} file{}",
            plural(*records),
            style.yellow(&format!("`{}`", crate::redact::redact(kind))),
            plural(*files as u64),
        )?;
    }
    Ok(0)
}

pub fn folder(s: crate::formats::Source, state: Option<&State>) -> Folder {
    let exists = s.path.exists();
    let (files, bytes) = if exists {
        let mut problems = Vec::new();
        let found = walk::discover(std::slice::from_ref(&s.path), false, &mut problems);
        (found.len(), found.iter().map(|c| c.size).sum())
    } else {
        (0, 0)
    };
    let indexed = state.map(|st| indexed(st, Some(&s.path)));
    Folder { agent: s.agent, path: s.path, from_env: s.from_env, exists, files, bytes, indexed }
}

/// Files the index has read (of a known format), under `under` when given.
pub fn indexed(state: &State, under: Option<&Path>) -> usize {
    state.files.iter().filter(|(p, fs)| !fs.format.is_empty() && under.is_none_or(|u| p.starts_with(u))).count()
}

/// Indexed files (of a known format) by format id: files, sessions and bytes.
pub fn by_format(state: &State) -> std::collections::BTreeMap<&str, (usize, usize, u64)> {
    let mut out = std::collections::BTreeMap::new();
    for fs in state.files.values().filter(|fs| !fs.format.is_empty()) {
        let e: &mut (usize, usize, u64) = out.entry(fs.format.as_str()).or_default();
        e.0 += 1;
        e.1 += fs.sessions;
        e.2 += fs.size;
    }
    out
}

/// Indexed files read with a format that gave no message, by path.
pub fn nothing_read(state: &State) -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> =
        state.files.iter().filter(|(_, fs)| fs.nothing_read).map(|(p, fs)| (p.clone(), fs.format.clone())).collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_for_people() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1_250_000), "1.2 MB");
    }
}
