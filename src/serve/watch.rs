//! `debrief serve --watch [PATH…]`: the agents' folders (or the paths named) watched with
//! file notifications (the `notify` crate: inotify on Linux), and an incremental
//! `debrief index` of them run when something was written there — an appended session is
//! read from where the last run stopped, a new one from its start. The pages open the index per request and
//! parse a transcript again when its file changed, so the next page shows the new
//! messages.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context as _, Result};
use notify::{EventKind, RecursiveMode, Watcher};

use crate::commands::{display_path, index as index_cmd};
use crate::index::IndexDir;
use crate::index::writer::{self, Options};
use crate::walk;

/// Quiet time after a notification before indexing: an agent writes a turn in bursts.
const SETTLE: Duration = Duration::from_millis(300);

/// Index `paths` (the agents' folders when none is named) now, then again whenever a file
/// under them changes, on a thread of its own. A named path that does not exist is an
/// error, as it is for `debrief index`.
pub fn start(index: PathBuf, paths: &[PathBuf]) -> Result<()> {
    let explicit = !paths.is_empty();
    let roots: Vec<PathBuf> = if explicit {
        for p in paths {
            if !p.exists() {
                anyhow::bail!("--watch {}: no such file or folder", p.display());
            }
        }
        paths.to_vec()
    } else {
        walk::default_sources().into_iter().map(|s| s.path).filter(|p| p.exists()).collect()
    };
    if roots.is_empty() {
        eprintln!("debrief serve: --watch: no agent folder found (`debrief sources` lists where they are looked for)");
        return Ok(());
    }
    let (tx, rx) = mpsc::channel::<()>();
    let mut watcher = notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
        if let Ok(e) = ev
            && !matches!(e.kind, EventKind::Access(_))
        {
            let _ = tx.send(());
        }
    })
    .context("--watch: starting file notifications")?;
    for r in &roots {
        watcher.watch(r, RecursiveMode::Recursive).with_context(|| format!("--watch: {}", r.display()))?;
    }
    let names: Vec<String> = roots.iter().map(|r| display_path(r)).collect();
    eprintln!("debrief serve: watching {} (re-indexing as sessions are written)", names.join(", "));
    std::thread::spawn(move || {
        // The watcher lives as long as the thread that reads its events.
        let _watcher = watcher;
        reindex(&index, &roots, explicit);
        while rx.recv().is_ok() {
            while rx.recv_timeout(SETTLE).is_ok() {}
            reindex(&index, &roots, explicit);
        }
    });
    Ok(())
}

/// One incremental index run over `roots`, as `debrief index` makes it (with the paths
/// named, when `explicit`, or with none).
fn reindex(index: &Path, roots: &[PathBuf], explicit: bool) {
    let run = || -> Result<String> {
        let ix = IndexDir::open_for_write(index, false, true)?;
        let mut opts = Options::new(roots.to_vec());
        opts.explicit = explicit;
        index_cmd::tune(&mut opts);
        let summary = writer::run(&ix, &opts)?;
        index_cmd::write_log(&ix, &summary);
        let changed = summary.files_read + summary.files_appended + summary.files_removed > 0;
        Ok(if changed { index_cmd::summary_line(&summary, &ix) } else { String::new() })
    };
    match run() {
        Ok(line) if !line.is_empty() => eprintln!("debrief serve: {line}"),
        Ok(_) => {}
        Err(e) => eprintln!("debrief serve: --watch: {e:#}"),
    }
}
