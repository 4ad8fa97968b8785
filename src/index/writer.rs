//! Incremental indexing: find transcript files, decide per file whether to skip it,
//! read only what was appended, or read it again, and write message and session
//! documents with the findings of the detectors.
//!
//! Every file's documents are replaced as a unit: a file read from scratch first
//! deletes all documents of that file, an append deletes the documents from its
//! restart point on. Commits carry the file state (see [`super::state`]); a file whose
//! documents were partly written when a run was killed has no state entry, so the next
//! run reads it from scratch and its first step deletes the partial documents.

use std::collections::{BTreeMap, HashMap};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tantivy::query::{BooleanQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{IndexWriter, TantivyDocument, Term};

use super::IndexDir;
use super::schema::SessionRecord;
use super::schema::{self, Fields, KIND_MESSAGE, KIND_SESSION};
use super::state::{self, FileState};
use crate::detect::{self, Detector, Finding, Released, Stream};
use crate::formats::{self, Checkpoint, Format, Input, Resume, Sink};
use crate::model::{BadRecord, Message, SessionMeta};
use crate::walk;

/// Output bytes indexed per call: the head and the tail, where errors and verdicts are.
pub const OUTPUT_HEAD: usize = 8 * 1024;
pub const OUTPUT_TAIL: usize = 4 * 1024;
/// Bytes indexed of one output line (head and tail): a 50 KB single-line JSON or
/// base64 dump is noise to search and was the costliest text to index.
pub const OUTPUT_LINE_HEAD: usize = 2048;
pub const OUTPUT_LINE_TAIL: usize = 1024;
/// Message text indexed per message (head and tail).
pub const TEXT_HEAD: usize = 64 * 1024;
pub const TEXT_TAIL: usize = 16 * 1024;
/// Characters of preview stored per message (the fallback snippet).
pub const PREVIEW_CHARS: usize = 240;

pub struct Options {
    pub roots: Vec<PathBuf>,
    /// Roots the user named (files named explicitly must be readable and known).
    pub explicit: bool,
    pub format: Option<&'static dyn Format>,
    pub detectors: Vec<&'static dyn Detector>,
    pub progress: bool,
    /// Commit after this many bytes read, so a long run keeps its progress. Each commit
    /// closes every thread's segment half full, and small segments are merged later:
    /// every 2 GB (a dozen seconds of work) keeps a big first run to a few segments.
    pub commit_every: u64,
    pub threads: usize,
    pub memory_budget: usize,
}

impl Options {
    pub fn new(roots: Vec<PathBuf>) -> Options {
        Options {
            roots,
            explicit: true,
            format: None,
            detectors: detect::registry().to_vec(),
            progress: std::io::stderr().is_terminal(),
            commit_every: 2 << 30,
            threads: 1,
            memory_budget: 96 << 20,
        }
    }
}

/// Indexing threads for this machine: tantivy's indexing is most of the work and
/// scales with cores; past four, parsing on the calling thread is the limit.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(4)
}

/// The writer's memory budget for `threads` indexing threads: each flushes a segment
/// when its share is full, so larger shares mean fewer, larger segments (less work to
/// write and merge) at the cost of memory.
pub fn memory_budget(threads: usize) -> usize {
    threads.max(1) * (96 << 20)
}

/// The outcome of a run, for the one-line summary and for tests.
#[derive(Debug, Default)]
pub struct Summary {
    pub files_seen: usize,
    pub files_read: usize,
    pub files_appended: usize,
    pub files_unchanged: usize,
    pub files_removed: usize,
    /// Files found in the folders walked that no format claims (skipped; listed in
    /// `last-run.log`).
    pub files_unknown: Vec<PathBuf>,
    pub sessions: usize,
    pub messages: u64,
    pub findings: usize,
    pub bytes_read: u64,
    pub bad: Vec<(PathBuf, BadRecord)>,
    /// Unknown record kinds per (format, agent version, kind).
    pub unknown: BTreeMap<(String, String, String), u64>,
    pub pending_tails: usize,
    /// Files read with a format that yielded no message, with why.
    pub nothing_read: Vec<(PathBuf, String)>,
    /// Files that could not be read at all, with why.
    pub unreadable: Vec<(PathBuf, String)>,
    pub elapsed: Duration,
}

enum Plan {
    Unchanged,
    Full,
    Append { resume: Box<Resume>, owned: Checkpoint },
}

/// Index the files under `opts.roots` into `ix`.
pub fn run(ix: &IndexDir, opts: &Options) -> Result<Summary> {
    let started = Instant::now();
    let mut state = ix.load_state()?;
    let mut summary = Summary::default();
    let found = walk::discover(&opts.roots, opts.explicit, &mut summary.unreadable);
    summary.files_seen = found.len();
    // Test hook (tests/unreadable.rs, docs/reliability.md): a file that disappears
    // between listing and reading, as an agent's temporary file may.
    if let Some(p) = std::env::var_os("DEBRIEF_TEST_REMOVE_AFTER_LISTING") {
        let _ = std::fs::remove_file(p);
    }
    // Every file found is there; only indexed files not found need a look on disk.
    let found_paths: std::collections::HashSet<PathBuf> = found.iter().map(|c| c.path.clone()).collect();

    // Decide per file.
    let mut work: Vec<(walk::Candidate, Plan)> = Vec::new();
    for c in found {
        let plan = match state.files.get(&c.path) {
            Some(fs) if fs.size == c.size && fs.mtime == c.mtime => Plan::Unchanged,
            Some(fs) if c.size > fs.size => plan_append(ix, &c.path, fs).unwrap_or(Plan::Full),
            _ => Plan::Full,
        };
        match plan {
            Plan::Unchanged => summary.files_unchanged += 1,
            plan => work.push((c, plan)),
        }
    }
    // Files that were indexed under these roots and are gone.
    let gone: Vec<PathBuf> = state
        .files
        .keys()
        .filter(|p| opts.roots.iter().any(|r| p.starts_with(r)) && !found_paths.contains(*p) && !p.exists())
        .cloned()
        .collect();

    if work.is_empty() && gone.is_empty() {
        summary.elapsed = started.elapsed();
        return Ok(summary);
    }

    let mut writer: IndexWriter = ix
        .index
        .writer_with_num_threads(opts.threads.max(1), opts.memory_budget.max(15 << 20))
        .map_err(|e| anyhow::anyhow!("opening the index writer: {e}"))?;
    // A run killed after writing files but before committing leaves them behind, and
    // the delete files' names (segment id and opstamp) are the very ones this run's
    // commits will choose again: tantivy then refuses to commit ("file already
    // exists"). Remove every file the last commit does not use before writing.
    writer.garbage_collect_files().wait().context("removing the files of an interrupted index run")?;
    let f = ix.fields;
    for p in &gone {
        writer.delete_term(Term::from_field_u64(f.fkey, schema::file_key(p)));
        state.files.remove(p);
        summary.files_removed += 1;
    }

    let total: u64 = work
        .iter()
        .map(|(c, plan)| match plan {
            Plan::Append { resume, .. } => c.size - resume.checkpoint.offset,
            _ => c.size,
        })
        .sum();
    let bar = progress_bar(opts.progress, total);
    let mut since_commit = 0u64;
    let searcher = ix.searcher()?;

    for (c, plan) in work {
        if c.size == 0 {
            summary.bad.push((c.path.clone(), BadRecord { line: None, reason: "empty file, nothing to index".into() }));
            writer.delete_term(Term::from_field_u64(f.fkey, schema::file_key(&c.path)));
            state.files.insert(c.path.clone(), FileState { size: 0, mtime: c.mtime, ..FileState::default() });
            continue;
        }
        let format = match formats::format_of(&c.path, opts.format) {
            Ok(f) => f,
            Err(e) => {
                summary.unreadable.push((c.path.clone(), format!("{e:#}")));
                continue;
            }
        };
        let Some(format) = format else {
            summary.files_unknown.push(c.path.clone());
            if c.explicit {
                summary.unreadable.push((c.path.clone(), formats::Unread::UnknownFormat.to_string()));
            }
            // Remember it, so that an unchanged file is not sniffed again.
            writer.delete_term(Term::from_field_u64(f.fkey, schema::file_key(&c.path)));
            state.files.insert(c.path.clone(), FileState { size: c.size, mtime: c.mtime, ..FileState::default() });
            continue;
        };
        let (resume, owned) = match plan {
            Plan::Append { resume, owned } => (Some(*resume), Some(owned)),
            _ => (None, None),
        };
        let old_records = match &owned {
            Some(o) => old_session_records(&searcher, &f, &c.path, o.session)?,
            None => HashMap::new(),
        };
        let fkey = schema::file_key(&c.path);
        match &owned {
            None => {
                writer.delete_term(Term::from_field_u64(f.fkey, fkey));
            }
            Some(o) => delete_from(&writer, &f, &c.path, o, state.files.get(&c.path).map_or(0, |s| s.sessions)),
        };
        let read_from = resume.as_ref().map_or(0, |r| r.checkpoint.offset);
        let mut job = FileJob::new(&writer, f, &c.path, format, &opts.detectors, owned.clone(), old_records);
        // An append re-reads a little before the old end; drift there was counted then.
        let old_state = state.files.get(&c.path).filter(|_| owned.is_some());
        job.unknown_from = old_state.map_or(0, |s| s.consumed);
        job.seen_offset = read_from;
        job.embeddings = ix.embeddings;
        let outcome = read_file(&c.path, format, resume, &mut job);
        let (metas, input_state) = match outcome {
            Ok(v) => v,
            Err(e) => {
                // The summary names the file itself; a reader's error may name it too.
                let why = format!("{e:#}");
                let why = why.strip_prefix(&format!("{}: ", c.path.display())).map_or(why.clone(), str::to_string);
                summary.unreadable.push((c.path.clone(), why));
                // Leave no half-written state: forget the file so the next run starts over.
                state.files.remove(&c.path);
                continue;
            }
        };
        let (consumed, lines, pending_tail) = input_state;
        let n_sessions = metas.len();
        let result = job.finish(metas)?;
        let mut bad_count = 0u32;
        for b in result.bad {
            bad_count += 1;
            summary.bad.push((c.path.clone(), b));
        }
        let mut unknown = old_state.map(|s| s.unknown.clone()).unwrap_or_default();
        for ((version, kind), n) in result.unknown {
            *unknown.entry(kind.clone()).or_default() += n;
            *summary.unknown.entry((format.id().to_string(), version, kind)).or_default() += n;
        }
        let agent_version = result.agent_version.or_else(|| old_state.and_then(|s| s.agent_version.clone()));
        if pending_tail {
            summary.pending_tails += 1;
        }
        // A file its format claimed that gave no message is named, not counted as read
        // quietly (an append adds to what an earlier read found).
        let nothing_read = result.messages_written == 0 && old_state.is_none_or(|s| s.nothing_read);
        if nothing_read && let Some(why) = formats::Unread::of(Some(format), 0) {
            summary.nothing_read.push((c.path.clone(), why.to_string()));
        }
        summary.sessions += result.sessions_written;
        summary.messages += result.messages_written;
        summary.findings += result.findings;
        let mut checkpoints = match &owned {
            Some(_) => state.files.get(&c.path).map(|s| s.checkpoints.clone()).unwrap_or_default(),
            None => Vec::new(),
        };
        if let Some(o) = &owned {
            checkpoints.retain(|cp| (cp.session, cp.next_idx) < (o.session, o.next_idx));
        }
        for cp in result.checkpoints {
            state::add_checkpoint(&mut checkpoints, cp);
        }
        let tail_hash = state::tail_hash(&c.path, consumed).unwrap_or(0);
        state.files.insert(
            c.path.clone(),
            FileState {
                size: c.size,
                mtime: c.mtime,
                format: format.id().to_string(),
                consumed,
                lines,
                tail_hash,
                sessions: owned.as_ref().map_or(0, |o| o.session) + n_sessions,
                bad: bad_count,
                pending_tail,
                checkpoints,
                unknown,
                agent_version,
                nothing_read,
            },
        );
        if owned.is_some() {
            summary.files_appended += 1;
        } else {
            summary.files_read += 1;
        }
        let read = consumed.saturating_sub(read_from).max(c.size.saturating_sub(read_from));
        summary.bytes_read += read;
        since_commit += read;
        bar.inc(read);
        bar.set_message(format!(
            "{} files, {} messages",
            summary.files_read + summary.files_appended,
            summary.messages
        ));
        if since_commit >= opts.commit_every {
            ix.commit(&mut writer, &state)?;
            since_commit = 0;
        }
    }
    ix.commit(&mut writer, &state)?;
    writer.wait_merging_threads().context("finishing index merges")?;
    bar.finish_and_clear();
    summary.elapsed = started.elapsed();
    Ok(summary)
}

fn progress_bar(enabled: bool, total: u64) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "{spinner} indexing [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} {msg}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// Decide how to continue a grown file: the checkpoint to re-read from (with history
/// for the detectors) and the one from which documents are rewritten.
fn plan_append(_ix: &IndexDir, path: &Path, fs: &FileState) -> Option<Plan> {
    if fs.checkpoints.is_empty() || fs.consumed == 0 {
        return None;
    }
    // The bytes already read must be unchanged.
    if state::tail_hash(path, fs.consumed).ok()? != fs.tail_hash {
        return None;
    }
    let last = fs.checkpoints.last()?;
    // Findings near the old end may gain evidence: rewrite from LOOKAHEAD before it.
    let owned = fs
        .checkpoints
        .iter()
        .rev()
        .find(|cp| cp.session < last.session || cp.next_idx + detect::LOOKAHEAD as u32 <= last.next_idx)
        .or_else(|| fs.checkpoints.iter().find(|cp| cp.session == last.session))?
        .clone();
    // Re-read from LOOKBACK before that, within the same session, for history.
    let from = fs
        .checkpoints
        .iter()
        .rev()
        .find(|cp| cp.session == owned.session && cp.next_idx + detect::LOOKBACK as u32 <= owned.next_idx)
        .or_else(|| fs.checkpoints.iter().find(|cp| cp.session == owned.session))?
        .clone();
    Some(Plan::Append { resume: Box::new(Resume { checkpoint: from, session: SessionMeta::default() }), owned })
}

/// Delete the documents an append will write again: messages of the owned session
/// from the owned idx on, and every later session of the file.
fn delete_from(writer: &IndexWriter, f: &Fields, path: &Path, owned: &Checkpoint, sessions: usize) {
    let skey = schema::session_key(path, owned.session);
    let msgs: Box<dyn Query> = Box::new(BooleanQuery::new(vec![
        (
            Occur::Must,
            Box::new(TermQuery::new(Term::from_field_u64(f.skey, skey), IndexRecordOption::Basic)) as Box<dyn Query>,
        ),
        (
            Occur::Must,
            Box::new(RangeQuery::new(
                std::ops::Bound::Included(Term::from_field_u64(f.idx, u64::from(owned.next_idx))),
                std::ops::Bound::Unbounded,
            )),
        ),
    ]));
    let _ = writer.delete_query(msgs);
    let session_doc: Box<dyn Query> = Box::new(BooleanQuery::new(vec![
        (
            Occur::Must,
            Box::new(TermQuery::new(Term::from_field_u64(f.skey, skey), IndexRecordOption::Basic)) as Box<dyn Query>,
        ),
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(f.kind, KIND_SESSION), IndexRecordOption::Basic))),
    ]));
    let _ = writer.delete_query(session_doc);
    for later in owned.session + 1..sessions.max(owned.session + 1) {
        writer.delete_term(Term::from_field_u64(f.skey, schema::session_key(path, later)));
    }
}

/// The stored session records of a file from `from_session` on.
fn old_session_records(
    searcher: &tantivy::Searcher,
    f: &Fields,
    path: &Path,
    session: usize,
) -> Result<HashMap<usize, SessionRecord>> {
    let mut out = HashMap::new();
    let skey = schema::session_key(path, session);
    let q = BooleanQuery::new(vec![
        (
            Occur::Must,
            Box::new(TermQuery::new(Term::from_field_u64(f.skey, skey), IndexRecordOption::Basic)) as Box<dyn Query>,
        ),
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(f.kind, KIND_SESSION), IndexRecordOption::Basic))),
    ]);
    let hits = searcher.search(&q, &tantivy::collector::TopDocs::with_limit(1).order_by_score())?;
    for (_, addr) in hits {
        let doc: TantivyDocument = searcher.doc(addr)?;
        if let Some(rec) = super::schema::record_of(&doc, f) {
            out.insert(session, rec);
        }
    }
    Ok(out)
}

type InputState = (u64, u32, bool);

fn read_file(
    path: &Path,
    format: &'static dyn Format,
    resume: Option<Resume>,
    job: &mut FileJob,
) -> Result<(Vec<SessionMeta>, InputState)> {
    let mut resume = resume;
    if let Some(r) = resume.as_mut()
        && let Some(rec) = job.old.get(&r.checkpoint.session)
    {
        r.session = rec.meta.clone();
    }
    let mut input = Input::open(path, resume)?;
    let metas = format.parse(&mut input, job)?;
    job.bad.extend(input.take_too_long());
    Ok((metas, (input.consumed(), input.lines(), input.pending_tail())))
}

struct SessionWork {
    stream: Stream,
    findings: Vec<Finding>,
    written: u64,
    finished: bool,
}

struct JobResult {
    bad: Vec<BadRecord>,
    unknown: HashMap<(String, String), u64>,
    agent_version: Option<String>,
    checkpoints: Vec<Checkpoint>,
    sessions_written: usize,
    messages_written: u64,
    findings: usize,
}

/// The [`Sink`] that turns a file's messages into index documents.
struct FileJob<'w> {
    writer: &'w IndexWriter,
    f: Fields,
    path: PathBuf,
    format: &'static dyn Format,
    detectors: &'w [&'static dyn Detector],
    owned: Option<Checkpoint>,
    old: HashMap<usize, SessionRecord>,
    sessions: Vec<Option<SessionWork>>,
    /// Detectors keyed on each not-yet-written message.
    tags: HashMap<(usize, u32), Vec<String>>,
    bad: Vec<BadRecord>,
    unknown: HashMap<String, u64>,
    /// Unknown records are counted from this byte offset on (the old end on appends).
    unknown_from: u64,
    /// How far the parser has got, as far as its messages and checkpoints tell.
    seen_offset: u64,
    checkpoints: Vec<Checkpoint>,
    text_buf: String,
    /// Embed each message (the index has embeddings).
    embeddings: bool,
    error: Option<anyhow::Error>,
}

impl<'w> FileJob<'w> {
    fn new(
        writer: &'w IndexWriter,
        f: Fields,
        path: &Path,
        format: &'static dyn Format,
        detectors: &'w [&'static dyn Detector],
        owned: Option<Checkpoint>,
        old: HashMap<usize, SessionRecord>,
    ) -> Self {
        FileJob {
            writer,
            f,
            path: path.to_path_buf(),
            format,
            detectors,
            owned,
            old,
            sessions: Vec::new(),
            tags: HashMap::new(),
            bad: Vec::new(),
            unknown: HashMap::new(),
            unknown_from: 0,
            seen_offset: 0,
            checkpoints: Vec::new(),
            text_buf: String::new(),
            embeddings: false,
            error: None,
        }
    }

    /// First idx of `session` whose documents this job writes.
    fn owned_from(&self, session: usize) -> Option<u32> {
        match &self.owned {
            None => Some(0),
            Some(o) if session > o.session => Some(0),
            Some(o) if session == o.session => Some(o.next_idx),
            Some(_) => None,
        }
    }

    fn work(&mut self, session: usize) -> Option<&mut SessionWork> {
        let owned_from = self.owned_from(session)?;
        if self.sessions.len() <= session {
            self.sessions.resize_with(session + 1, || None);
        }
        if self.sessions[session].is_none() {
            let old = self.old.get(&session);
            let stats = old.map(|r| r.stats.clone()).unwrap_or_default();
            let findings: Vec<Finding> =
                old.map(|r| r.findings.iter().filter(|x| x.key < owned_from).cloned().collect()).unwrap_or_default();
            self.sessions[session] = Some(SessionWork {
                stream: Stream::new(self.detectors.to_vec(), stats, owned_from),
                findings,
                written: 0,
                finished: false,
            });
        }
        self.sessions[session].as_mut()
    }

    fn handle(&mut self, session: usize, released: Released) -> Result<()> {
        for fnd in &released.findings {
            self.tags.entry((session, fnd.key)).or_default().push(fnd.detector.clone());
        }
        if let Some(Some(w)) = self.sessions.get_mut(session) {
            w.findings.extend(released.findings);
        }
        for m in released.messages {
            let tags = self.tags.remove(&(session, m.idx)).unwrap_or_default();
            self.write_message(session, &m, &tags)?;
            if let Some(Some(w)) = self.sessions.get_mut(session) {
                w.written += 1;
            }
        }
        Ok(())
    }

    fn finish_session(&mut self, session: usize) -> Result<()> {
        let Some(Some(w)) = self.sessions.get_mut(session) else { return Ok(()) };
        if w.finished {
            return Ok(());
        }
        w.finished = true;
        let mut released = Released::default();
        w.stream.finish(&mut released);
        self.handle(session, released)
    }

    fn write_message(&mut self, session: usize, m: &Message, tags: &[String]) -> Result<()> {
        let f = &self.f;
        let mut doc = TantivyDocument::new();
        doc.add_text(f.kind, KIND_MESSAGE);
        doc.add_u64(f.skey, schema::session_key(&self.path, session));
        doc.add_u64(f.fkey, schema::file_key(&self.path));
        doc.add_u64(f.idx, u64::from(m.idx));
        if let Some(l) = m.line {
            doc.add_u64(f.line, u64::from(l));
        }
        if let Some(l) = m.end_line {
            doc.add_u64(f.end_line, u64::from(l));
        }
        if let Some(o) = m.offset {
            doc.add_u64(f.offset, o);
        }
        doc.add_text(f.role, m.role.as_str());
        if let Some(t) = m.timestamp {
            doc.add_date(f.time, tantivy::DateTime::from_timestamp_secs(t.timestamp()));
        }
        let failed = m
            .calls
            .iter()
            .any(|c| c.result.as_ref().is_some_and(|r| r.is_error || r.exit_code.is_some_and(|x| x != 0)));
        doc.add_u64(f.error, u64::from(failed));
        let facets = crate::analysis::facets(m);
        for t in &facets.tools {
            doc.add_text(f.tool, t);
        }
        for p in &facets.programs {
            doc.add_text(f.program, p);
        }
        for p in &facets.files {
            doc.add_text(f.file, p);
        }
        for t in tags {
            doc.add_text(f.detector, t);
        }
        doc.add_text(f.preview, preview(m));
        self.text_buf.clear();
        index_text(m, &mut self.text_buf);
        doc.add_text(f.text, &self.text_buf);
        if self.embeddings
            && let Some(field) = f.embedding
            && let Some(v) = super::embed::message_vector(m, &mut self.text_buf)?
        {
            doc.add_bytes(field, &v);
        }
        self.writer.add_document(doc).map_err(|e| anyhow::anyhow!("adding a document: {e}"))?;
        super::crash_point("doc");
        Ok(())
    }

    fn finish(mut self, metas: Vec<SessionMeta>) -> Result<JobResult> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for s in 0..self.sessions.len() {
            self.finish_session(s)?;
        }
        let mut sessions_written = 0;
        let mut messages_written = 0;
        let mut findings = 0;
        // The newest version the file names (multi-session files span upgrades).
        let version_of = metas.iter().rev().find_map(|m| m.agent_version.clone()).unwrap_or_default();
        let first = self.owned.as_ref().map_or(0, |o| o.session);
        for (i, mut meta) in metas.into_iter().enumerate() {
            let ordinal = first + i;
            let Some(owned_from) = self.owned_from(ordinal) else { continue };
            let (stats, fs, written) = match self.sessions.get_mut(ordinal).and_then(Option::take) {
                Some(w) => (w.stream.stats().clone(), w.findings, w.written),
                None => {
                    let old = self.old.remove(&ordinal);
                    (
                        old.as_ref().map(|r| r.stats.clone()).unwrap_or_default(),
                        old.map(|r| r.findings).unwrap_or_default(),
                        0,
                    )
                }
            };
            meta.complete_provenance();
            let before = owned_from.saturating_sub(1);
            meta.messages = before + written as u32;
            messages_written += written;
            findings += fs.iter().filter(|x| x.key >= owned_from).count();
            let record = SessionRecord { meta, ordinal, stats, findings: fs };
            self.write_session(&record)?;
            sessions_written += 1;
        }
        let unknown = self.unknown.into_iter().map(|(k, n)| ((version_of.clone(), k), n)).collect();
        Ok(JobResult {
            bad: self.bad,
            unknown,
            agent_version: Some(version_of).filter(|v| !v.is_empty()),
            checkpoints: self.checkpoints,
            sessions_written,
            messages_written,
            findings,
        })
    }

    fn write_session(&self, rec: &SessionRecord) -> Result<()> {
        let f = &self.f;
        let mut doc = TantivyDocument::new();
        doc.add_text(f.kind, KIND_SESSION);
        doc.add_u64(f.skey, schema::session_key(&self.path, rec.ordinal));
        doc.add_u64(f.fkey, schema::file_key(&self.path));
        doc.add_text(f.agent, &rec.meta.format);
        if let Some(p) = &rec.meta.project {
            doc.add_text(f.project, p.to_lowercase());
        }
        doc.add_text(f.sid, &rec.meta.id);
        if let Some(t) = rec.meta.started {
            doc.add_date(f.time, tantivy::DateTime::from_timestamp_secs(t.timestamp()));
        }
        for d in rec.findings.iter().map(|x| x.detector.as_str()).collect::<std::collections::BTreeSet<_>>() {
            doc.add_text(f.detector, d);
        }
        doc.add_text(f.record, serde_json::to_string(rec)?);
        self.writer.add_document(doc).map_err(|e| anyhow::anyhow!("adding a document: {e}"))?;
        super::crash_point("doc");
        let _ = self.format;
        Ok(())
    }
}

impl Sink for FileJob<'_> {
    fn message(&mut self, session: usize, msg: Message) -> Result<()> {
        self.seen_offset = self.seen_offset.max(msg.offset.unwrap_or(0));
        // A new session in the file settles the previous ones.
        for s in 0..session.min(self.sessions.len()) {
            self.finish_session(s)?;
        }
        let Some(w) = self.work(session) else { return Ok(()) };
        let mut released = Released::default();
        w.stream.push(msg, &mut released);
        self.handle(session, released)
    }

    fn bad(&mut self, bad: BadRecord) {
        self.bad.push(bad);
    }

    fn unknown(&mut self, kind: &str) {
        if self.seen_offset >= self.unknown_from {
            *self.unknown.entry(kind.to_string()).or_default() += 1;
        }
    }

    fn keeps_checkpoints(&self) -> bool {
        true
    }

    fn checkpoint(&mut self, cp: Checkpoint) {
        self.seen_offset = self.seen_offset.max(cp.offset);
        if self.owned_from(cp.session).is_some_and(|from| cp.next_idx >= from) {
            state::add_checkpoint(&mut self.checkpoints, cp);
        }
    }
}

/// Cut `s` to its first `head` and last `tail` bytes (on char boundaries).
pub fn head_tail(s: &str, head: usize, tail: usize) -> (&str, &str) {
    if s.len() <= head + tail {
        return (s, "");
    }
    let mut h = head;
    while !s.is_char_boundary(h) {
        h -= 1;
    }
    let mut t = s.len() - tail;
    while !s.is_char_boundary(t) {
        t += 1;
    }
    (&s[..h], &s[t..])
}

/// The text search indexes for a message: its words, thinking, calls, and the head
/// and tail of each output.
pub fn index_text(m: &Message, out: &mut String) {
    let (h, t) = head_tail(&m.text, TEXT_HEAD, TEXT_TAIL);
    out.push_str(h);
    out.push('\n');
    out.push_str(t);
    if !m.thinking.is_empty() {
        out.push('\n');
        let (h, t) = head_tail(&m.thinking, TEXT_HEAD, TEXT_TAIL);
        out.push_str(h);
        out.push('\n');
        out.push_str(t);
    }
    for c in &m.calls {
        out.push('\n');
        out.push_str(&c.name);
        out.push('\n');
        match &c.command {
            Some(cmd) => out.push_str(head_tail(cmd, INPUT_BYTES, 0).0),
            None => {
                push_input_strings(out, &c.input, INPUT_BYTES);
            }
        }
        if let Some(r) = &c.result {
            out.push('\n');
            let output = without_reminders(&r.output);
            let (h, t) = head_tail(&output, OUTPUT_HEAD, OUTPUT_TAIL);
            push_as_displayed(out, h);
            out.push('\n');
            push_as_displayed(out, t);
        }
    }
}

/// An output without the `<system-reminder>` blocks the harness appends to it (Claude
/// Code adds the same paragraph to every file read): they are not what the tool printed,
/// and would make every such message match their words.
pub fn without_reminders(s: &str) -> std::borrow::Cow<'_, str> {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let Some(first) = memchr::memmem::find(s.as_bytes(), OPEN.as_bytes()) else {
        return std::borrow::Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut at = first;
    loop {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len()..];
        match memchr::memmem::find(after.as_bytes(), CLOSE.as_bytes()) {
            Some(end) => rest = &after[end + CLOSE.len()..],
            // Unclosed: keep it, it is not the harness's block.
            None => {
                out.push_str(&rest[at..]);
                return std::borrow::Cow::Owned(out);
            }
        }
        match memchr::memmem::find(rest.as_bytes(), OPEN.as_bytes()) {
            Some(next) => at = next,
            None => {
                out.push_str(rest);
                return std::borrow::Cow::Owned(out);
            }
        }
    }
}

/// Bytes of a call's input indexed (its command line, or its string values).
pub const INPUT_BYTES: usize = 8192;

/// Append the string values of a call's input (file paths, patterns, the text of an
/// edit), each on its own line, up to `budget` bytes. Its JSON form would glue words to
/// escapes (`\nreturn`) and index the key names of every call.
pub(crate) fn push_input_strings(out: &mut String, v: &serde_json::Value, budget: usize) -> usize {
    match v {
        serde_json::Value::String(s) => {
            let piece = head_tail(s, budget, 0).0;
            out.push_str(piece);
            out.push('\n');
            budget.saturating_sub(piece.len() + 1)
        }
        serde_json::Value::Array(items) => {
            let mut left = budget;
            for item in items {
                if left == 0 {
                    break;
                }
                left = push_input_strings(out, item, left);
            }
            left
        }
        serde_json::Value::Object(map) => {
            let mut left = budget;
            for item in map.values() {
                if left == 0 {
                    break;
                }
                left = push_input_strings(out, item, left);
            }
            left
        }
        serde_json::Value::Number(n) => {
            let before = out.len();
            out.push_str(&n.to_string());
            out.push('\n');
            budget.saturating_sub(out.len() - before)
        }
        serde_json::Value::Bool(_) | serde_json::Value::Null => budget,
    }
}

/// Append output text the way a terminal leaves it: of a line redrawn with `\r`
/// (progress bars), only the last drawing; of an over-long line, its head and tail.
pub fn push_as_displayed(out: &mut String, s: &str) {
    let long = OUTPUT_LINE_HEAD + OUTPUT_LINE_TAIL;
    let needs_work = memchr::memchr(b'\r', s.as_bytes()).is_some() || {
        let mut start = 0;
        let mut over = false;
        for nl in memchr::memchr_iter(b'\n', s.as_bytes()).chain(std::iter::once(s.len())) {
            if nl - start > long {
                over = true;
                break;
            }
            start = nl + 1;
        }
        over
    };
    if !needs_work {
        out.push_str(s);
        return;
    }
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let shown = match memchr::memrchr(b'\r', line.as_bytes()) {
            None => line,
            // The last drawing that shows something (a CRLF line ends in an empty one).
            Some(_) => line.rsplit('\r').find(|seg| !seg.trim().is_empty()).unwrap_or(""),
        };
        if shown.len() > long {
            let (h, t) = head_tail(shown, OUTPUT_LINE_HEAD, OUTPUT_LINE_TAIL);
            out.push_str(h);
            out.push('\n');
            out.push_str(t);
        } else {
            out.push_str(shown);
        }
    }
}

/// A short one-line preview of a message.
pub fn preview(m: &Message) -> String {
    let source = if !m.text.trim().is_empty() {
        m.text.as_str()
    } else if let Some(cmd) = m.commands().next() {
        cmd
    } else {
        m.calls.iter().filter_map(|c| c.result.as_ref()).map(|r| r.output.as_str()).next().unwrap_or_default()
    };
    // The words joined by single spaces, cut at PREVIEW_CHARS: read only as many words
    // as that takes (the source may be a 60 KB output).
    let mut s = String::new();
    let mut chars = 0;
    for word in source.split_whitespace() {
        if !s.is_empty() {
            s.push(' ');
            chars += 1;
        }
        s.push_str(word);
        chars += word.chars().count();
        if chars > PREVIEW_CHARS {
            let cut = s.char_indices().nth(PREVIEW_CHARS).map_or(s.len(), |(i, _)| i);
            s.truncate(cut);
            s.push('…');
            break;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn displayed(s: &str) -> String {
        let mut out = String::new();
        push_as_displayed(&mut out, s);
        out
    }

    #[test]
    fn outputs_are_indexed_as_a_terminal_shows_them() {
        assert_eq!(displayed("plain\ntext"), "plain\ntext");
        assert_eq!(displayed("crlf\r\nlines\r\n"), "crlf\nlines\n");
        assert_eq!(displayed("start\r 10% |#  |\r 50% |### |\r100% |#####|\ndone"), "100% |#####|\ndone");
        let dump = format!("head {}tail", "x ".repeat(20_000));
        let shown = displayed(&format!("before\n{dump}\nafter"));
        assert!(shown.starts_with("before\nhead x "));
        assert!(shown.ends_with(" x tail\nafter"));
        assert!(shown.len() <= OUTPUT_LINE_HEAD + OUTPUT_LINE_TAIL + 20, "{}", shown.len());
    }

    #[test]
    fn harness_reminders_are_not_indexed_as_output() {
        let out = "1→fn main() {}\n\n<system-reminder>\nconsider malware\n</system-reminder>\n";
        assert_eq!(without_reminders(out), "1→fn main() {}\n\n\n");
        assert_eq!(
            without_reminders("a <system-reminder>b</system-reminder> c <system-reminder>d"),
            "a  c <system-reminder>d"
        );
        assert_eq!(without_reminders("plain"), "plain");
    }

    #[test]
    fn call_inputs_are_indexed_by_their_string_values() {
        let input =
            serde_json::json!({"file_path": "src/a.rs", "old_string": "x\nreturn 1", "replace_all": false, "n": 3});
        let mut out = String::new();
        push_input_strings(&mut out, &input, INPUT_BYTES);
        assert_eq!(out, "src/a.rs\n3\nx\nreturn 1\n");
        let mut small = String::new();
        push_input_strings(&mut small, &input, 5);
        assert_eq!(small, "src/a\n");
    }

    #[test]
    fn previews_are_cut_after_whole_words() {
        let m = Message { text: format!("a  b\n{}", "word ".repeat(200)), ..Message::default() };
        let p = preview(&m);
        assert!(p.starts_with("a b word word"));
        assert_eq!(p.chars().count(), PREVIEW_CHARS + 1);
        assert!(p.ends_with('…'));
        let short = Message { text: "  just   this ".into(), ..Message::default() };
        assert_eq!(preview(&short), "just this");
    }

    #[test]
    fn head_tail_respects_char_boundaries() {
        let s = "é".repeat(100);
        let (h, t) = head_tail(&s, 11, 11);
        assert!(h.len() <= 11 && t.len() <= 12);
        assert!(h.chars().all(|c| c == 'é'));
    }
}
