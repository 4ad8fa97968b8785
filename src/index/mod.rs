//! The on-disk index: a tantivy index plus a small version file, guarded by a lock so
//! that one `debrief index` writes at a time while searches keep reading.
//!
//! Layout of the index folder:
//! - `debrief.json` — `{"schema": N}`; another N means "rebuild".
//! - `tantivy/` — the tantivy index. Every commit carries, as its payload, the
//!   [`state::State`] of the files it covers, so the documents and the record of what
//!   was read are committed together: an interrupted run leaves the last commit whole.
//! - `debrief.lock` — held (advisory lock) by the running `index`; holds its pid.
//! - `last-run.log` — every bad record of the last run, `path:line: reason`.

pub mod schema;
pub mod search;
pub mod state;
pub mod tokenizer;
pub mod writer;

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use tantivy::Index;

pub use schema::{Fields, SCHEMA_VERSION};

/// Errors a caller (or the user) acts on differently.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("another `debrief index` is writing to {dir} (pid {pid}); wait for it to finish, or run again with --wait")]
    Locked { dir: PathBuf, pid: String },
    #[error(
        "the index at {dir} was built with schema version {found}, this debrief needs version {SCHEMA_VERSION}: run `debrief index --rebuild`"
    )]
    SchemaMismatch { dir: PathBuf, found: u32 },
    #[error("no index at {dir} yet: run `debrief index` first")]
    Missing { dir: PathBuf },
}

#[derive(Serialize, Deserialize)]
struct VersionFile {
    schema: u32,
}

/// The default index folder: `$DEBRIEF_INDEX`, else the platform data dir.
pub fn default_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "debrief")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".debrief"))
}

/// An opened index folder.
pub struct IndexDir {
    pub dir: PathBuf,
    pub index: Index,
    pub fields: Fields,
    /// Held while writing; released on drop.
    _lock: Option<File>,
}

fn register_tokenizers(index: &Index) {
    index.tokenizers().register(tokenizer::NAME, tokenizer::CodeTokenizer::default());
}

fn check_version(dir: &Path) -> Result<bool> {
    let path = dir.join("debrief.json");
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let v: VersionFile =
        serde_json::from_str(&text).with_context(|| format!("{}: not a debrief index version file", path.display()))?;
    if v.schema != SCHEMA_VERSION {
        return Err(IndexError::SchemaMismatch { dir: dir.to_path_buf(), found: v.schema }.into());
    }
    Ok(true)
}

impl IndexDir {
    /// Open for reading (search, sessions). Never takes the lock.
    pub fn open(dir: &Path) -> Result<IndexDir> {
        if !check_version(dir)? {
            return Err(IndexError::Missing { dir: dir.to_path_buf() }.into());
        }
        let index = Index::open_in_dir(dir.join("tantivy"))
            .with_context(|| format!("opening the index in {}", dir.display()))?;
        register_tokenizers(&index);
        let fields = Fields::from_schema(&index.schema()).context("index schema is missing fields: rebuild it")?;
        Ok(IndexDir { dir: dir.to_path_buf(), index, fields, _lock: None })
    }

    /// Open for writing: take the lock (waiting if asked), create the index if it
    /// does not exist, or wipe and recreate it when `rebuild` is set.
    pub fn open_for_write(dir: &Path, rebuild: bool, wait: bool) -> Result<IndexDir> {
        fs::create_dir_all(dir).with_context(|| format!("creating index folder {}", dir.display()))?;
        let lock = take_lock(dir, wait)?;
        let exists = if rebuild {
            remove_index_files(dir)?;
            false
        } else {
            check_version(dir)?
        };
        let tantivy_dir = dir.join("tantivy");
        let index = if exists && tantivy_dir.join("meta.json").exists() {
            Index::open_in_dir(&tantivy_dir).with_context(|| format!("opening the index in {}", dir.display()))?
        } else {
            fs::create_dir_all(&tantivy_dir).with_context(|| format!("creating {}", tantivy_dir.display()))?;
            let index = Index::create_in_dir(&tantivy_dir, schema::build())
                .with_context(|| format!("creating the index in {}", dir.display()))?;
            let v = serde_json::to_string(&VersionFile { schema: SCHEMA_VERSION })?;
            write_atomic(&dir.join("debrief.json"), v.as_bytes())?;
            index
        };
        register_tokenizers(&index);
        let fields = Fields::from_schema(&index.schema()).context("index schema is missing fields: rebuild it")?;
        Ok(IndexDir { dir: dir.to_path_buf(), index, fields, _lock: Some(lock) })
    }

    /// The file state committed with the last commit.
    pub fn load_state(&self) -> Result<state::State> {
        let metas = self.index.load_metas().context("reading index metadata")?;
        match metas.payload {
            Some(p) if !p.is_empty() => {
                serde_json::from_str(&p).context("index state is unreadable: run `debrief index --rebuild`")
            }
            _ => Ok(state::State::default()),
        }
    }
}

fn take_lock(dir: &Path, wait: bool) -> Result<File> {
    let path = dir.join("debrief.lock");
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("opening lock file {}", path.display()))?;
    let got = if wait { file.lock().map_err(std::fs::TryLockError::Error) } else { file.try_lock() };
    match got {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            let pid = pid.trim().to_string();
            return Err(IndexError::Locked {
                dir: dir.to_path_buf(),
                pid: if pid.is_empty() { "unknown".into() } else { pid },
            }
            .into());
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(e).with_context(|| format!("locking {}", path.display())),
    }
    file.set_len(0).ok();
    let _ = write!(file, "{}", std::process::id());
    let _ = file.flush();
    Ok(file)
}

fn remove_index_files(dir: &Path) -> Result<()> {
    for name in ["tantivy", "debrief.json", "last-run.log"] {
        let p = dir.join(name);
        let res = if p.is_dir() { fs::remove_dir_all(&p) } else { fs::remove_file(&p) };
        match res {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("removing {}", p.display())),
        }
    }
    Ok(())
}

/// Write a file so that readers see the old or the new content, never half of it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    {
        let mut f = File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
        f.write_all(bytes).with_context(|| format!("writing {}", tmp.display()))?;
        f.sync_all().ok();
    }
    fs::rename(&tmp, path).with_context(|| format!("renaming {} into place", tmp.display()))?;
    Ok(())
}
