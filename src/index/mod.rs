//! The on-disk index: a tantivy index plus a small version file, guarded by a lock so
//! that one `debrief index` writes at a time while searches keep reading.
//!
//! Layout of the index folder:
//! - `debrief.json` — `{"schema": N, "embeddings": true}`; another N means "rebuild";
//!   `embeddings` says whether message documents carry vectors for search by meaning
//!   (see [`embed`]; false with `index --no-embeddings`, and for indexes made before).
//! - `tantivy/` — the tantivy index. Every commit carries, as its payload, the name of
//!   the [`state::State`] file of the files it covers, so the documents and the record of
//!   what was read are committed together: an interrupted run leaves the last commit whole.
//! - `state/<opstamp>.json` — that file state, written (and synced) under a new name
//!   before the commit that names it; older ones are removed after. It is kept out of
//!   tantivy's `meta.json` because every search parses that file, and the state of ten
//!   thousand sessions is megabytes.
//! - `debrief.lock` — held (advisory lock) by the running `index`; holds its pid.
//! - `last-run.log` — what the last run could not use: every bad record
//!   (`path:line: reason`), every unreadable file (`path: unreadable: why`) and every
//!   file of no known format it skipped (`path: skipped: …`).

pub mod embed;
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
    #[serde(default)]
    embeddings: bool,
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
    /// Message documents carry embeddings (see [`embed`]).
    pub embeddings: bool,
    /// Held while writing; released on drop.
    _lock: Option<File>,
    /// A reader kept across searches ([`IndexDir::keep_reader`]); without one, each
    /// [`IndexDir::searcher`] opens the last commit afresh.
    reader: Option<tantivy::IndexReader>,
}

fn register_tokenizers(index: &Index) {
    index.tokenizers().register(tokenizer::NAME, tokenizer::CodeTokenizer::default());
}

fn check_version(dir: &Path) -> Result<Option<VersionFile>> {
    let path = dir.join("debrief.json");
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let v: VersionFile =
        serde_json::from_str(&text).with_context(|| format!("{}: not a debrief index version file", path.display()))?;
    if v.schema != SCHEMA_VERSION {
        return Err(IndexError::SchemaMismatch { dir: dir.to_path_buf(), found: v.schema }.into());
    }
    Ok(Some(v))
}

/// A tantivy error in one plain line: its I/O errors carry debug output
/// (`IoError { io_error: Os { code: 13, … } }`) where a user needs the file and the reason.
fn plain(e: tantivy::TantivyError, tantivy_dir: &Path) -> anyhow::Error {
    use tantivy::directory::error::OpenReadError;
    match e {
        tantivy::TantivyError::OpenReadError(OpenReadError::IoError { io_error, filepath }) => {
            anyhow::anyhow!("{}: {io_error}", tantivy_dir.join(filepath).display())
        }
        tantivy::TantivyError::OpenReadError(OpenReadError::FileDoesNotExist(p)) => {
            anyhow::anyhow!(
                "{}: no such file (the index is incomplete: run `debrief index --rebuild`)",
                tantivy_dir.join(p).display()
            )
        }
        e => e.into(),
    }
}

impl IndexDir {
    /// Open for reading (search, sessions). Never takes the lock, and needs no write
    /// access to the folder (see [`ReaderDir`]).
    pub fn open(dir: &Path) -> Result<IndexDir> {
        let tantivy_dir = dir.join("tantivy");
        // A first `index` writes the version file, then creates the tantivy index: until
        // its meta.json is there, there is no index yet.
        let version = check_version(dir)?;
        let Some(version) = version.filter(|_| tantivy_dir.join("meta.json").exists()) else {
            return Err(IndexError::Missing { dir: dir.to_path_buf() }.into());
        };
        let index = tantivy::directory::MmapDirectory::open(&tantivy_dir)
            .map_err(|e| anyhow::anyhow!("{}: {e}", tantivy_dir.display()))
            .and_then(|d| {
                Index::open(ReaderDir { inner: d, root: tantivy_dir.clone() }).map_err(|e| plain(e, &tantivy_dir))
            })
            .with_context(|| format!("opening the index in {}", dir.display()))?;
        register_tokenizers(&index);
        let fields = Fields::from_schema(&index.schema()).context("index schema is missing fields: rebuild it")?;
        let embeddings = version.embeddings && fields.embedding.is_some();
        Ok(IndexDir { dir: dir.to_path_buf(), index, fields, embeddings, _lock: None, reader: None })
    }

    /// Open for writing: take the lock (waiting if asked), create the index if it
    /// does not exist, or wipe and recreate it when `rebuild` is set. A new index has
    /// embeddings; an existing one keeps what it has.
    pub fn open_for_write(dir: &Path, rebuild: bool, wait: bool) -> Result<IndexDir> {
        Self::open_for_write_with(dir, rebuild, wait, None)
    }

    /// [`Self::open_for_write`], with or without embeddings as `embeddings` says
    /// (`None`: a new index has them, an existing one keeps what it has). Asking an
    /// existing index for what it was not built with is a usage error: that takes a
    /// rebuild.
    pub fn open_for_write_with(dir: &Path, rebuild: bool, wait: bool, embeddings: Option<bool>) -> Result<IndexDir> {
        fs::create_dir_all(dir).with_context(|| format!("creating index folder {}", dir.display()))?;
        let lock = take_lock(dir, wait)?;
        let version = if rebuild {
            remove_index_files(dir)?;
            None
        } else {
            check_version(dir)?
        };
        let tantivy_dir = dir.join("tantivy");
        let existing = version.filter(|_| tantivy_dir.join("meta.json").exists());
        if let (Some(v), Some(want)) = (&existing, embeddings)
            && v.embeddings != want
        {
            let (has, flag) = if v.embeddings { ("has", " --no-embeddings") } else { ("has no", "") };
            crate::usage!(
                "the index in {} {has} embeddings; to change that, build it again: debrief index --rebuild{flag}",
                dir.display()
            );
        }
        let with_embeddings = existing.as_ref().map_or(embeddings.unwrap_or(true), |v| v.embeddings);
        let index = if existing.is_some() {
            Index::open_in_dir(&tantivy_dir).with_context(|| format!("opening the index in {}", dir.display()))?
        } else {
            // The version file first: a reader that finds tantivy's meta.json then finds
            // the version too (see `open`).
            let v = serde_json::to_string(&VersionFile { schema: SCHEMA_VERSION, embeddings: with_embeddings })?;
            write_atomic(&dir.join("debrief.json"), v.as_bytes())?;
            fs::create_dir_all(&tantivy_dir).with_context(|| format!("creating {}", tantivy_dir.display()))?;
            Index::create_in_dir(&tantivy_dir, schema::build())
                .with_context(|| format!("creating the index in {}", dir.display()))?
        };
        register_tokenizers(&index);
        let fields = Fields::from_schema(&index.schema()).context("index schema is missing fields: rebuild it")?;
        let embeddings = with_embeddings && fields.embedding.is_some();
        Ok(IndexDir { dir: dir.to_path_buf(), index, fields, embeddings, _lock: Some(lock), reader: None })
    }

    /// A searcher over the last commit, or, with a kept reader, over the commit it was
    /// opened or last [`IndexDir::reload`]ed at. No reader watches the index (no watcher
    /// thread): a command reads one commit.
    pub fn searcher(&self) -> Result<tantivy::Searcher> {
        match &self.reader {
            Some(r) => Ok(r.searcher()),
            None => Ok(self.reader()?.searcher()),
        }
    }

    /// The same index, with one reader opened now and kept for every search (a server's:
    /// opening the segments on every request is most of what a small request costs).
    pub fn keep_reader(mut self) -> Result<IndexDir> {
        self.reader = Some(self.reader()?);
        Ok(self)
    }

    /// Have the kept reader (if any) read the last commit.
    pub fn reload(&self) -> Result<()> {
        match &self.reader {
            Some(r) => {
                r.reload().with_context(|| format!("reading the last commit of the index in {}", self.dir.display()))
            }
            None => Ok(()),
        }
    }

    fn reader(&self) -> Result<tantivy::IndexReader> {
        let reader: tantivy::IndexReader =
            self.index.reader_builder().reload_policy(tantivy::ReloadPolicy::Manual).try_into().map_err(|e| {
                // tantivy words a lock failure with debug output; say it plainly.
                let why = match e {
                    tantivy::TantivyError::LockFailure(tantivy::directory::error::LockError::IoError(io), _) => {
                        io.to_string()
                    }
                    e => e.to_string(),
                };
                anyhow::anyhow!("opening the index in {} for reading: {why}", self.dir.display())
            })?;
        Ok(reader)
    }

    /// The file state committed with the last commit.
    pub fn load_state(&self) -> Result<state::State> {
        let metas = self.index.load_metas().context("reading index metadata")?;
        let Some(payload) = metas.payload.filter(|p| !p.is_empty()) else {
            return Ok(state::State::default());
        };
        let unreadable = || format!("index state {payload} is unreadable: run `debrief index --rebuild`");
        let r: StateRef = serde_json::from_str(&payload).with_context(unreadable)?;
        let bytes = fs::read(self.dir.join(STATE_DIR).join(&r.file)).with_context(unreadable)?;
        if bytes.len() as u64 != r.len {
            anyhow::bail!("{}", unreadable());
        }
        serde_json::from_slice(&bytes).with_context(unreadable)
    }

    /// Commit what `writer` holds together with `state`: the state goes to a new file,
    /// synced, and the commit names it, so a crash at any point leaves the last commit
    /// and its state file as they were.
    pub fn commit(&self, writer: &mut tantivy::IndexWriter, state: &state::State) -> Result<()> {
        let bytes = serde_json::to_vec(state)?;
        let mut prepared = writer.prepare_commit().context("preparing the index commit")?;
        let file = format!("{:020}.json", prepared.opstamp());
        let dir = self.dir.join(STATE_DIR);
        fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        write_atomic(&dir.join(&file), &bytes)?;
        prepared.set_payload(&serde_json::to_string(&StateRef { file: file.clone(), len: bytes.len() as u64 })?);
        crash_point("commit");
        prepared.commit().context("committing the index")?;
        crash_point("committed");
        remove_old_states(&dir, &file);
        Ok(())
    }
}

/// Tantivy's memory-mapped folder as readers open it. Tantivy takes a lock file while it
/// opens a commit's segments, so that a writer's cleanup cannot delete them meanwhile;
/// creating that file needs write access, which a reader of a read-only index (another
/// user's, a read-only mount, a copy on a CD) does not have. Then the existing lock file
/// is locked opened read-only (flock needs no write access); when there is none, the
/// reader goes on without it: it has never been taken there, so no writer is running.
#[derive(Clone, Debug)]
struct ReaderDir {
    inner: tantivy::directory::MmapDirectory,
    root: PathBuf,
}

impl tantivy::Directory for ReaderDir {
    fn get_file_handle(
        &self,
        path: &Path,
    ) -> Result<std::sync::Arc<dyn tantivy::directory::FileHandle>, tantivy::directory::error::OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), tantivy::directory::error::DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, tantivy::directory::error::OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(
        &self,
        path: &Path,
    ) -> Result<tantivy::directory::WritePtr, tantivy::directory::error::OpenWriteError> {
        self.inner.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, tantivy::directory::error::OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> std::io::Result<()> {
        self.inner.sync_directory()
    }

    fn watch(&self, cb: tantivy::directory::WatchCallback) -> tantivy::Result<tantivy::directory::WatchHandle> {
        self.inner.watch(cb)
    }

    fn acquire_lock(
        &self,
        lock: &tantivy::directory::Lock,
    ) -> Result<tantivy::directory::DirectoryLock, tantivy::directory::error::LockError> {
        use std::io::ErrorKind;
        use tantivy::directory::DirectoryLock;
        use tantivy::directory::error::LockError;
        match self.inner.acquire_lock(lock) {
            Err(LockError::IoError(e))
                if matches!(e.kind(), ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem) =>
            {
                match File::open(self.root.join(&lock.filepath)) {
                    Ok(file) => {
                        if lock.is_blocking {
                            file.lock().map_err(LockError::wrap_io_error)?;
                        } else if file.try_lock().is_err() {
                            return Err(LockError::LockBusy);
                        }
                        Ok(DirectoryLock::from(Box::new(file)))
                    }
                    Err(e) if e.kind() == ErrorKind::NotFound => Ok(DirectoryLock::from(Box::new(()))),
                    Err(e) => Err(LockError::wrap_io_error(e)),
                }
            }
            other => other,
        }
    }
}

/// Folder of the state files, in the index folder.
const STATE_DIR: &str = "state";

/// What a commit's payload says: which state file is its own.
#[derive(Serialize, Deserialize)]
struct StateRef {
    file: String,
    len: u64,
}

/// Remove state files older than `current` except the one before it (a reader that
/// loaded the previous commit may still be about to read its state).
fn remove_old_states(dir: &Path, current: &str) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut names: Vec<String> =
        entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| n.as_str() != current).collect();
    names.sort();
    // Names are zero-padded opstamps: sorted oldest first. Keep the newest older one,
    // and anything newer than `current` (cannot be: it would be a commit not made).
    let older: Vec<&String> = names.iter().filter(|n| n.as_str() < current).collect();
    for name in older.iter().rev().skip(1) {
        let _ = fs::remove_file(dir.join(name));
    }
    for name in names.iter().filter(|n| n.as_str() > current) {
        let _ = fs::remove_file(dir.join(name));
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
    for name in ["tantivy", STATE_DIR, "debrief.json", "last-run.log"] {
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

/// Test hook for the crash tests (`tests/crash_safety.rs`, `scripts/crash.sh`; see
/// docs/reliability.md): with `DEBRIEF_CRASH_AT=<point>:<k>` in the environment, the
/// k-th time `index` reaches `point` it aborts on the spot — no destructors, no
/// flushing, like SIGKILL — so that a test can stop it at exact places. Points: `doc`
/// (a document was just added), `commit` (a commit is prepared and about to be made),
/// `committed` (a commit was just made).
pub(crate) fn crash_point(point: &str) {
    static AT: crate::test_point::TestPoint = crate::test_point::TestPoint::new("DEBRIEF_CRASH_AT");
    if AT.reached(point).is_some() {
        std::process::abort();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of the index another user owns (0600, as tantivy writes `.managed.json`):
    /// one line naming the file and the reason, no Rust debug output.
    #[test]
    fn an_unreadable_index_file_is_one_plain_line() {
        let io = std::io::Error::from_raw_os_error(13);
        let e = tantivy::TantivyError::OpenReadError(tantivy::directory::error::OpenReadError::IoError {
            io_error: std::sync::Arc::new(io),
            filepath: ".managed.json".into(),
        });
        let line = plain(e, Path::new("/ix/tantivy")).to_string();
        assert_eq!(line, "/ix/tantivy/.managed.json: Permission denied (os error 13)");
    }
}
