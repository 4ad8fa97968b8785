//! Transcript formats: one module per agent's on-disk format behind [`Format`], plus
//! the machinery they share — content sniffing, a streaming line reader that never
//! hands out half-written lines, and the [`Assembler`] that numbers messages and joins
//! tool results to their calls.
//!
//! Parsers stream: they push finished messages into a [`Sink`] and never hold a whole
//! file, so a 600 MB session is read in bounded memory. Line-oriented parsers also
//! report [`Checkpoint`]s — places where parsing can restart with nothing lost — so the
//! indexer can read only the bytes appended since the last run.

pub mod aider;
pub mod antigravity;
pub mod claude;
pub mod claude_extract;
pub mod cline;
pub mod codex;
pub mod copilot_chat;
pub mod copilot_cli;
pub mod cursor;
pub mod folders;
pub mod gemini;
pub mod goose;
pub mod iflow;
pub mod kin;
pub mod markdown;
pub mod openai_chat;
pub mod opencode;
pub mod openhands;
pub mod pi;
pub mod qwen;
pub mod specstory;
pub mod swe_agent;

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

pub use self::folders::{Places, Source};
use crate::model::{BadRecord, Call, CallResult, Message, Origin, Role, Session, SessionMeta};

/// A line longer than this is skipped and reported; it would otherwise make memory
/// use grow with the input.
const MAX_LINE_BYTES: usize = 64 << 20;

/// One transcript format.
pub trait Format: Send + Sync {
    /// Stable id used by `--format`, in the index and in JSON output.
    fn id(&self) -> &'static str;
    /// Agent name for people.
    fn agent(&self) -> &'static str;
    /// The names its files have ([`folders::name_matches`] patterns): in a folder, only
    /// files some format claims are sniffed; a file named on the command line always is.
    fn file_names(&self) -> &'static [&'static str];
    /// The agent's default folders on this machine (whether or not they exist), each
    /// with the environment variable that moves it, and those of agents that write this
    /// format's shape in folders of their own (`kin`). `debrief index` with no path
    /// reads them; `debrief sources` lists them.
    fn folders(&self, _places: &Places) -> Vec<Source> {
        Vec::new()
    }
    /// Where its sessions are when the agent keeps them with each project rather than in
    /// a folder of its own (so `debrief index` cannot find them by itself), for people.
    fn kept_with_project(&self) -> Option<&'static str> {
        None
    }
    /// Agents that write this format's file shape in folders of their own (forks that
    /// kept their parent's format): the session's agent is the one whose folder holds the
    /// file ([`kin`]).
    fn kin(&self) -> &'static [kin::Kin] {
        &[]
    }
    /// Whether `path`, a file some format's [`file_names`](Format::file_names) claim, is
    /// read through another file of this format beside it and so is skipped when a folder
    /// is walked (a file named on the command line is still read).
    fn read_through_another(&self, _path: &Path) -> bool {
        false
    }
    /// Whether the folder `dir` holds files read through another file of this format
    /// (a session's message folder, a cache of pages another folder repeats): a walk does
    /// not enter it.
    fn folder_read_through_another(&self, _dir: &Path) -> bool {
        false
    }
    /// What else this format reads of `path` beside the file itself (an SQLite database's
    /// write-ahead log, an OpenCode session's message folder), so that a change there is
    /// noticed: `None` when the file is read alone.
    fn read_beside(&self, _path: &Path) -> Option<Beside> {
        None
    }
    /// The position of `path` among the numbered files of a folder that together hold one
    /// session (OpenHands' events, a file per event): such a folder is one session, handed
    /// out as its first file.
    fn folder_member(&self, _path: &Path) -> Option<u64> {
        None
    }
    /// Why `dir`, a folder named on the command line in which no file was a transcript,
    /// holds none, when it is a folder of this format's agent that lacks the file it reads.
    fn empty_folder_reason(&self, _dir: &Path) -> Option<&'static str> {
        None
    }
    /// How sure the format is that it reads this file (0 = not its format), judged
    /// from the content's first bytes, with the name as a tie-breaker only.
    fn sniff(&self, path: &Path, head: &[u8]) -> u8;
    /// Read the input, pushing messages into `sink` and returning the metadata of
    /// every session met, in order. `input.resume()` is set when continuing a file;
    /// the sessions returned then start at the checkpoint's session. A reader sets a
    /// session's `agent` only when the records name it; callers use [`Format::parse`].
    fn read(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>>;
    /// [`Format::read`], with every session's `format` set to [`Format::id`] and its
    /// `agent` to the agent that wrote the file: a kin agent named by the file's folder
    /// ([`kin`]), else the one the records name, else [`Format::agent`]. This is the one
    /// place both are set; formats do not override it.
    fn parse(&self, input: &mut Input, sink: &mut dyn Sink) -> Result<Vec<SessionMeta>> {
        let mut metas = self.read(input, sink)?;
        let kin = kin::agent(input.path(), self.kin());
        for meta in &mut metas {
            meta.format = self.id().to_string();
            if let Some(agent) = kin {
                meta.agent = agent.to_string();
            } else if meta.agent.is_empty() {
                meta.agent = self.agent().to_string();
            }
        }
        Ok(metas)
    }
}

/// What a format reads beside a file ([`Format::read_beside`]): the bytes there, added to
/// the file's size, and their latest modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Beside {
    pub bytes: u64,
    pub modified: Option<std::time::SystemTime>,
}

/// An SQLite database's write-ahead log (`<file>-wal`), which holds the latest writes
/// until a checkpoint copies them into the file: what the SQLite formats read beside a
/// `.db` file (any `.db` file, named on the command line or found in a folder).
pub(crate) fn sqlite_wal(path: &Path) -> Option<Beside> {
    if !path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".db")) {
        return None;
    }
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let md = std::fs::metadata(PathBuf::from(wal)).ok()?;
    Some(Beside { bytes: md.len(), modified: md.modified().ok() })
}

/// Every format, in sniffing order of preference.
pub fn all() -> &'static [&'static dyn Format] {
    static ALL: [&dyn Format; 26] = [
        &claude::ClaudeCode,
        &codex::Codex,
        &claude::ClaudeCodeWeb,
        &codex::CodexJson,
        &gemini::GeminiCli,
        &gemini::GeminiCheckpoint,
        &gemini::GeminiStream,
        &opencode::OpenCode,
        &opencode::OpenCodeDb,
        &cline::Cline,
        &cline::RooCode,
        &aider::Aider,
        &specstory::SpecStory,
        &swe_agent::SweAgent,
        &openai_chat::OpenAiChat,
        &openhands::OpenHands,
        &pi::Pi,
        &qwen::QwenCode,
        &iflow::Iflow,
        &copilot_cli::CopilotCli,
        &copilot_chat::CopilotChat,
        &cursor::Cursor,
        &goose::Goose,
        &goose::GooseDb,
        &antigravity::Antigravity,
        &claude_extract::ClaudeExtract,
    ];
    &ALL
}

/// The format with this id.
pub fn by_id(id: &str) -> Option<&'static dyn Format> {
    all().iter().copied().find(|f| f.id() == id)
}

/// How many bytes sniffing looks at.
pub const SNIFF_BYTES: usize = 64 * 1024;

/// The format to read `path` with: `forced` (`--input-format`), else the one its content
/// names ([`detect`] on its first [`SNIFF_BYTES`]); `None` when no format claims it
/// ([`Unread::UnknownFormat`]). An error only when the file cannot be read.
pub fn format_of(path: &Path, forced: Option<&'static dyn Format>) -> Result<Option<&'static dyn Format>> {
    match forced {
        Some(f) => Ok(Some(f)),
        None => Ok(detect(path, &read_head(path)?)),
    }
}

/// Pick the format of a file from its content. `None` when no format claims it.
pub fn detect(path: &Path, head: &[u8]) -> Option<&'static dyn Format> {
    all()
        .iter()
        .map(|f| (f.sniff(path, head), *f))
        .filter(|(score, _)| *score > 0)
        .max_by_key(|(score, _)| *score)
        .map(|(_, f)| f)
}

/// Why a file gave no transcript. Every command words it the same way, one line
/// naming the file: `show`, `detect` and `report` fail on it, `index` lists it.
#[derive(Clone, Copy)]
pub enum Unread {
    /// No format's sniffing claims the content.
    UnknownFormat,
    /// A format claimed the file (or `--format` forced one), the file is not empty,
    /// and yet no message came out of it: not a success with nothing in it.
    NoMessages(&'static dyn Format),
}

impl Unread {
    /// The problem with a file that `format` (`None`: no format claims it) read into
    /// `messages` messages; `None` when something was read.
    pub fn of(format: Option<&'static dyn Format>, messages: u64) -> Option<Unread> {
        match format {
            None => Some(Unread::UnknownFormat),
            Some(f) if messages == 0 => Some(Unread::NoMessages(f)),
            Some(_) => None,
        }
    }
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::UnknownFormat => f.write_str("not a transcript format debrief knows (try --input-format)"),
            Unread::NoMessages(format) => {
                write!(f, "read as {} (format {}), but no message was found in it", format.agent(), format.id())
            }
        }
    }
}

/// The keys of the JSON object that starts at byte `start` of `text` (which must be
/// `{`), with the raw value text of each (cut short where `text` ends: sniffing sees
/// only a file's head). `None` when no object starts there.
pub fn object_fields(text: &str, start: usize) -> Option<Vec<(String, &str)>> {
    let b = text.as_bytes();
    if b.get(start) != Some(&b'{') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = start + 1;
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b',') {
            i += 1;
        }
        if i >= b.len() || b[i] == b'}' || b[i] != b'"' {
            return Some(out);
        }
        let key_end = string_end(b, i)?;
        let key = serde_json::from_str::<String>(&text[i..key_end]).ok()?;
        i = key_end;
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b':') {
            i += 1;
        }
        let value_start = i;
        let mut depth = 0usize;
        while i < b.len() {
            match b[i] {
                b'"' => match string_end(b, i) {
                    Some(e) => {
                        i = e;
                        if depth == 0 {
                            break;
                        }
                        continue;
                    }
                    None => i = b.len(),
                },
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth == 0 => break,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                b',' if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        out.push((key, text[value_start..i.min(b.len())].trim_end()));
        if i >= b.len() {
            return Some(out);
        }
    }
}

/// The byte after the JSON string that opens at `start`.
fn string_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The fields of the first item of the JSON list that opens at byte `start` of `text`.
pub fn first_item_fields(text: &str, start: usize) -> Option<Vec<(String, &str)>> {
    let b = text.as_bytes();
    if b.get(start) != Some(&b'[') {
        return None;
    }
    let first = start + 1 + b[start + 1..].iter().position(|c| !c.is_ascii_whitespace())?;
    object_fields(text, first)
}

/// Append `s` to `out` as a new paragraph (a blank line between); nothing when `s` is empty.
pub(crate) fn push_para(out: &mut String, s: &str) {
    if s.is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(s);
}

/// The string under `key` of a JSON object, if it is one.
pub fn str_of<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(serde_json::Value::as_str)
}

/// The raw value of `key` among `fields`.
pub fn field<'a>(fields: &[(String, &'a str)], key: &str) -> Option<&'a str> {
    fields.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
}

/// Read the first [`SNIFF_BYTES`] of a file.
pub fn read_head(path: &Path) -> Result<Vec<u8>> {
    let mut f = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut head = Vec::with_capacity(4096);
    (&mut f).take(SNIFF_BYTES as u64).read_to_end(&mut head).with_context(|| format!("reading {}", path.display()))?;
    Ok(head)
}

/// Where a parse may restart: every message before `next_idx` is complete, and
/// re-reading from `offset` (1-based line `line`) reproduces the rest exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub offset: u64,
    pub line: u32,
    /// Index (0-based) of the session in the file that the next message belongs to.
    pub session: usize,
    pub next_idx: u32,
    /// Format-specific context needed to carry on (small).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub state: serde_json::Value,
}

/// What a line parser carries from record to record and hands on in each checkpoint
/// (`Checkpoint::state`), so that a resumed parse starts with it.
pub trait Carried: Serialize {
    /// Whether a checkpoint may be taken here (a parse can restart there); always, unless
    /// the format says otherwise.
    fn restartable(&self, _cp: &Checkpoint) -> bool {
        true
    }
}

/// A sink that stamps each checkpoint with the parser's carried state, and drops those
/// the state says a parse cannot restart at.
pub struct CarrySink<'s, C> {
    pub inner: &'s mut dyn Sink,
    pub carry: C,
}

impl<C: Carried> Sink for CarrySink<'_, C> {
    fn message(&mut self, session: usize, msg: Message) -> Result<()> {
        self.inner.message(session, msg)
    }
    fn bad(&mut self, bad: BadRecord) {
        self.inner.bad(bad)
    }
    fn unknown(&mut self, kind: &str) {
        self.inner.unknown(kind)
    }
    fn keeps_checkpoints(&self) -> bool {
        self.inner.keeps_checkpoints()
    }
    fn checkpoint(&mut self, mut cp: Checkpoint) {
        if !self.inner.keeps_checkpoints() || !self.carry.restartable(&cp) {
            return;
        }
        cp.state = serde_json::to_value(&self.carry).unwrap_or(serde_json::Value::Null);
        self.inner.checkpoint(cp)
    }
}

/// What a parser needs to continue a file from a checkpoint. A resumed parse returns
/// the metadata of the sessions from `checkpoint.session` on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    pub checkpoint: Checkpoint,
    /// Metadata of the checkpoint's session as known at the end of the previous read.
    pub session: SessionMeta,
}

/// Receives what a parser finds.
pub trait Sink {
    /// A finished message of the `session`-th session in the file (0-based).
    fn message(&mut self, session: usize, msg: Message) -> Result<()>;
    /// A record that could not be used; parsing goes on.
    fn bad(&mut self, bad: BadRecord);
    /// A record of a type or shape the parser does not know (format drift).
    fn unknown(&mut self, kind: &str);
    /// A place where parsing could restart (line-oriented formats only).
    fn checkpoint(&mut self, _cp: Checkpoint) {}
    /// Whether [`Sink::checkpoint`] keeps what it is given. A parser need not carry its
    /// state for checkpoints (a copy per record, a JSON value per checkpoint) into a sink
    /// that drops them: a whole file read to be shown or reported.
    fn keeps_checkpoints(&self) -> bool {
        false
    }
}

/// A source line handed to a parser.
pub struct Line<'a> {
    pub bytes: &'a [u8],
    /// 1-based line number.
    pub number: u32,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// The file ended without a newline after this line: it may still be being
    /// written. [`Line::json`] leaves it for the next run when it cannot read it.
    pub unterminated: bool,
    /// Where its `Input` notes a line left for the next run.
    kept: &'a Cell<Option<u64>>,
    /// Room for the line with invalid UTF-8 replaced, which a record may borrow from.
    repaired: &'a mut Option<String>,
}

/// One record of a JSONL transcript, read in place by [`Line::json`]: where it is, its
/// bytes, and the value parsed from them (which may borrow from them).
pub struct JsonLine<'a, T> {
    pub at: At,
    pub bytes: &'a [u8],
    pub value: T,
}

impl<'a> Line<'a> {
    /// This line as one record of a JSONL transcript, parsed as `T` (a typed record may
    /// borrow its strings from the line): the one reading of a record every JSONL format
    /// shares, so a broken line is worded the same whichever agent wrote it. `None` for:
    /// - a blank line (skipped);
    /// - a line that is not a JSON object (`not a JSON object`) or does not parse as `T`
    ///   (serde's reason, with its column): reported to `sink` with the line's number, and
    ///   the reading goes on;
    /// - a last line still being written (no newline yet, and the JSON ends early): left
    ///   for the next run — not consumed, not reported — and no line is read after it.
    ///
    /// Invalid UTF-8 is replaced, and the line is reported as repaired.
    pub fn json<T: Deserialize<'a>>(self, sink: &mut dyn Sink) -> Option<JsonLine<'a, T>> {
        let at = At::of(&self);
        let text = self.bytes.trim_ascii_start();
        if text.is_empty() {
            return None;
        }
        if !text.starts_with(b"{") {
            sink.bad(BadRecord { line: Some(at.line), reason: "not a JSON object".into() });
            return None;
        }
        let parsed = match serde_json::from_slice::<T>(self.bytes) {
            Err(_) if std::str::from_utf8(self.bytes).is_err() => {
                let repaired: &'a str = self.repaired.insert(String::from_utf8_lossy(self.bytes).into_owned());
                serde_json::from_str::<T>(repaired)
                    .inspect(|_| sink.bad(BadRecord { line: Some(at.line), reason: "invalid UTF-8 replaced".into() }))
            }
            parsed => parsed,
        };
        match parsed {
            Ok(value) => Some(JsonLine { at, bytes: self.bytes, value }),
            Err(e) if self.unterminated && e.is_eof() => {
                self.kept.set(Some(self.offset));
                None
            }
            Err(e) => {
                sink.bad(BadRecord { line: Some(at.line), reason: json_reason(&e) });
                None
            }
        }
    }
}

/// A file being parsed: a streaming reader of complete lines that tracks how far the
/// file has been consumed, or the whole content for formats that need it.
pub struct Input {
    path: std::path::PathBuf,
    reader: BufReader<File>,
    buf: Vec<u8>,
    offset: u64,
    line: u32,
    consumed: u64,
    /// The offset of the last line, when [`Line::json`] left it for the next run.
    kept: Cell<Option<u64>>,
    repaired: Option<String>,
    resume: Option<Resume>,
    too_long: Vec<BadRecord>,
    /// Stop after this line (reading one message back).
    last_line: Option<u32>,
    /// Where reading began: (byte offset, line number).
    began: (u64, u32),
}

impl Input {
    /// Open a file, positioned at the resume checkpoint when one is given.
    pub fn open(path: &Path, resume: Option<Resume>) -> Result<Input> {
        Input::open_buffered(path, resume, 256 * 1024)
    }

    /// [`Input::open`] with a read buffer of `capacity` bytes: small for reading one
    /// message back (a search reads twenty of them), large for reading files through.
    pub fn open_buffered(path: &Path, resume: Option<Resume>, capacity: usize) -> Result<Input> {
        let (offset, line) = resume.as_ref().map_or((0, 1), |r| (r.checkpoint.offset, r.checkpoint.line));
        Input::start(path, offset, line, resume, capacity)
    }

    /// The lines of a file from byte `offset` on, the first numbered `line`: a second
    /// pass over what a parser's [`Input`] reads (Claude Code's scan for rewinds).
    pub fn lines_from(path: &Path, offset: u64, line: u32) -> Result<Input> {
        Input::start(path, offset, line, None, 256 * 1024)
    }

    fn start(path: &Path, offset: u64, line: u32, resume: Option<Resume>, capacity: usize) -> Result<Input> {
        let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let mut reader = BufReader::with_capacity(capacity, file);
        if offset > 0 {
            reader.seek(SeekFrom::Start(offset)).with_context(|| format!("seeking in {}", path.display()))?;
        }
        Ok(Input {
            path: path.to_path_buf(),
            reader,
            buf: Vec::new(),
            offset,
            line: line.saturating_sub(1),
            consumed: offset,
            kept: Cell::new(None),
            repaired: None,
            resume,
            too_long: Vec::new(),
            last_line: None,
            began: (offset, line),
        })
    }

    /// Hand out no line after `line`.
    pub fn stop_after_line(&mut self, line: u32) {
        self.last_line = Some(line);
    }

    /// The last line that will be handed out, when reading one message back.
    pub fn stop_line(&self) -> Option<u32> {
        self.last_line
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn resume(&self) -> Option<&Resume> {
        self.resume.as_ref()
    }

    /// Bytes of the file that have been read and accepted.
    pub fn consumed(&self) -> u64 {
        self.kept.get().unwrap_or(self.consumed)
    }

    /// Lines read so far (the number of the last line handed out).
    pub fn lines(&self) -> u32 {
        self.line
    }

    /// Whether the last line was left for a later run.
    pub fn pending_tail(&self) -> bool {
        self.kept.get().is_some()
    }

    /// The next line, without its line ending. Over-long lines are skipped and kept
    /// for [`Input::take_too_long`]; after a line left for the next run, none.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>> {
        loop {
            if self.last_line.is_some_and(|l| self.line >= l) || self.kept.get().is_some() {
                return Ok(None);
            }
            self.buf.clear();
            let start = self.offset;
            let n = read_line_capped(&mut self.reader, &mut self.buf, MAX_LINE_BYTES)
                .with_context(|| format!("reading {}", self.path.display()))?;
            if n.bytes == 0 {
                return Ok(None);
            }
            self.offset += n.bytes;
            self.line += 1;
            if n.overflowed {
                self.consumed = self.offset;
                self.too_long.push(BadRecord {
                    line: Some(self.line),
                    reason: format!(
                        "line of {} MB is longer than the {} MB limit; skipped",
                        n.bytes >> 20,
                        MAX_LINE_BYTES >> 20
                    ),
                });
                continue;
            }
            let unterminated = self.buf.last() != Some(&b'\n');
            let mut end = self.buf.len();
            if !unterminated {
                end -= 1;
                if end > 0 && self.buf[end - 1] == b'\r' {
                    end -= 1;
                }
            }
            self.consumed = self.offset;
            return Ok(Some(Line {
                bytes: &self.buf[..end],
                number: self.line,
                offset: start,
                unterminated,
                kept: &self.kept,
                repaired: &mut self.repaired,
            }));
        }
    }

    /// Back to where reading began (the resume checkpoint, else the file's start), as if
    /// nothing had been read: for a format that reads its first lines to tell two forms of
    /// file apart (Gemini CLI's single document and its JSONL).
    pub fn restart(&mut self) -> Result<()> {
        let (offset, line) = self.began;
        self.reader.seek(SeekFrom::Start(offset)).with_context(|| format!("seeking in {}", self.path.display()))?;
        (self.offset, self.line, self.consumed) = (offset, line.saturating_sub(1), offset);
        self.kept.set(None);
        self.too_long.clear();
        self.buf.clear();
        Ok(())
    }

    /// Over-long lines met so far.
    pub fn take_too_long(&mut self) -> Vec<BadRecord> {
        std::mem::take(&mut self.too_long)
    }

    /// The whole remaining content, for formats that are one JSON document.
    pub fn read_all(&mut self) -> Result<Vec<u8>> {
        self.read_up_to(u64::MAX)
    }

    /// The next `limit` bytes at most (fewer at the end of the file), without regard to
    /// lines: for a format that judges a file by a bounded prefix before reading it whole.
    pub fn read_up_to(&mut self, limit: u64) -> Result<Vec<u8>> {
        let mut all = Vec::new();
        (&mut self.reader)
            .take(limit)
            .read_to_end(&mut all)
            .with_context(|| format!("reading {}", self.path.display()))?;
        self.offset += all.len() as u64;
        self.consumed = self.offset;
        Ok(all)
    }
}

struct LineRead {
    bytes: u64,
    overflowed: bool,
}

/// `read_until(b'\n')` that stops storing after `cap` bytes but still consumes the
/// whole line, so one giant line cannot exhaust memory.
fn read_line_capped(r: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> std::io::Result<LineRead> {
    let mut total = 0u64;
    let mut overflowed = false;
    loop {
        let (done, used) = {
            let available = match r.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(LineRead { bytes: total, overflowed });
            }
            match memchr::memchr(b'\n', available) {
                Some(i) => {
                    if !overflowed {
                        buf.extend_from_slice(&available[..=i]);
                    }
                    (true, i + 1)
                }
                None => {
                    if !overflowed {
                        buf.extend_from_slice(available);
                    }
                    (false, available.len())
                }
            }
        };
        r.consume(used);
        total += used as u64;
        if !overflowed && buf.len() > cap {
            overflowed = true;
            buf.clear();
            buf.shrink_to(64 * 1024);
        }
        if done {
            return Ok(LineRead { bytes: total, overflowed });
        }
    }
}

/// Position of a record in the source, for messages and checkpoints.
#[derive(Debug, Clone, Copy, Default)]
pub struct At {
    pub line: u32,
    pub offset: u64,
}

impl At {
    pub fn of(line: &Line) -> At {
        At { line: line.number, offset: line.offset }
    }
}

/// Messages pending before a forced flush: a call whose result never arrives must not
/// hold the rest of a long session in memory.
const MAX_PENDING: usize = 64;

/// Numbers messages, merges streamed chunks, joins tool results to calls by id, and
/// hands messages to the sink in order once nothing more can change them.
pub struct Assembler {
    session: usize,
    next_idx: u32,
    pending: VecDeque<Pending>,
    /// call id → idx of the message holding the call, for calls still open.
    open_calls: HashMap<String, u32>,
}

struct Pending {
    msg: Message,
    merge_key: Option<String>,
    open: usize,
}

impl Assembler {
    pub fn new(session: usize, next_idx: u32) -> Assembler {
        Assembler { session, next_idx: next_idx.max(1), pending: VecDeque::new(), open_calls: HashMap::new() }
    }

    pub fn from_resume(resume: Option<&Resume>) -> Assembler {
        match resume {
            Some(r) => Assembler::new(r.checkpoint.session, r.checkpoint.next_idx),
            None => Assembler::new(0, 1),
        }
    }

    /// Index the next message will get.
    pub fn next_idx(&self) -> u32 {
        self.next_idx
    }

    pub fn session(&self) -> usize {
        self.session
    }

    /// The most recent message, if it is still pending (for merging streamed chunks).
    pub fn last_mut(&mut self, merge_key: &str) -> Option<&mut Message> {
        let last = self.pending.back_mut()?;
        (last.merge_key.as_deref() == Some(merge_key)).then_some(&mut last.msg)
    }

    /// The message holding the open call `call_id`.
    pub fn message_of_call_mut(&mut self, call_id: &str) -> Option<&mut Message> {
        let idx = *self.open_calls.get(call_id)?;
        self.pending.iter_mut().find(|p| p.msg.idx == idx).map(|p| &mut p.msg)
    }

    /// Add calls to the most recent message (after it was found with `last_mut`).
    pub fn register_calls_of_last(&mut self) {
        if let Some(last) = self.pending.back_mut() {
            let idx = last.msg.idx;
            let mut open = 0;
            for c in &last.msg.calls {
                if c.result.is_none() {
                    self.open_calls.insert(c.id.clone(), idx);
                    open += 1;
                } else if self.open_calls.get(&c.id) == Some(&idx) {
                    // Joined with `attach_partial`: still waiting for the rest.
                    open += 1;
                }
            }
            last.open = open;
        }
    }

    /// Settle the calls of the most recent message that have no result: the format
    /// records none for them (a read whose output was not saved, a cancelled call), so
    /// nothing will be joined later and the message must not wait for it.
    pub fn close_calls_of_last(&mut self) {
        if let Some(last) = self.pending.back_mut() {
            let idx = last.msg.idx;
            for c in &last.msg.calls {
                if self.open_calls.get(&c.id) == Some(&idx) {
                    self.open_calls.remove(&c.id);
                }
            }
            last.open = 0;
        }
    }

    /// Settle the open call `call_id` with no result: the format says none will come
    /// (the agent went on without one), so its message must not wait for it.
    pub fn close_call(&mut self, call_id: &str) {
        let Some(idx) = self.open_calls.remove(call_id) else { return };
        if let Some(p) = self.pending.iter_mut().find(|p| p.msg.idx == idx) {
            p.open = p.open.saturating_sub(1);
        }
    }

    /// Start a new message at `at`; returns its idx. Emits a checkpoint first when
    /// everything before it is settled.
    pub fn push(&mut self, mut msg: Message, merge_key: Option<String>, at: At, sink: &mut dyn Sink) -> Result<u32> {
        self.flush(sink)?;
        if self.pending.iter().all(|p| p.open == 0) {
            sink.checkpoint(Checkpoint {
                offset: at.offset,
                line: at.line,
                session: self.session,
                next_idx: self.next_idx,
                state: serde_json::Value::Null,
            });
        }
        let idx = self.next_idx;
        self.next_idx += 1;
        msg.idx = idx;
        if msg.line.is_none() {
            msg.line = Some(at.line);
            msg.offset = Some(at.offset);
        }
        if msg.end_line.is_none() {
            msg.end_line = msg.line;
        }
        let mut open = 0;
        for c in &msg.calls {
            if c.result.is_none() {
                self.open_calls.insert(c.id.clone(), idx);
                open += 1;
            }
        }
        self.pending.push_back(Pending { msg, merge_key, open });
        Ok(idx)
    }

    /// Join a result to its call. Returns the result back when no open call has that
    /// id, so the caller can keep it as a tool message.
    pub fn attach(&mut self, call_id: &str, result: CallResult) -> Option<CallResult> {
        self.attach_with(call_id, result, |_, _| {})
    }

    /// [`Assembler::attach`], letting the format complete the result from its call
    /// (e.g. Claude Code's Bash exits 0 whenever it reports no error).
    pub fn attach_with(
        &mut self,
        call_id: &str,
        mut result: CallResult,
        complete: impl FnOnce(&Call, &mut CallResult),
    ) -> Option<CallResult> {
        let Some(idx) = self.open_calls.remove(call_id) else {
            return Some(result);
        };
        let Some(p) = self.pending.iter_mut().find(|p| p.msg.idx == idx) else {
            return Some(result);
        };
        let Some(call) = p.msg.calls.iter_mut().find(|c| c.id == call_id && c.result.is_none()) else {
            return Some(result);
        };
        if let Some(l) = result.line {
            p.msg.end_line = Some(p.msg.end_line.map_or(l, |e| e.max(l)));
        }
        complete(call, &mut result);
        call.result = Some(result);
        p.open = p.open.saturating_sub(1);
        None
    }

    /// Join the first part of a result to a call that is not done yet (a process still
    /// running, whose later output and exit code come with other records): the call
    /// stays open, so its message waits, and [`Assembler::amend`] completes the result.
    /// A forced flush or the end of the file sends the message with the result so far.
    /// Returns the result back when no open call has that id.
    pub fn attach_partial(&mut self, call_id: &str, result: CallResult) -> Option<CallResult> {
        let Some(&idx) = self.open_calls.get(call_id) else { return Some(result) };
        let Some(p) = self.pending.iter_mut().find(|p| p.msg.idx == idx) else { return Some(result) };
        let Some(k) = p.msg.calls.iter().position(|c| c.id == call_id && c.result.is_none()) else {
            return Some(result);
        };
        if let Some(l) = result.line {
            Assembler::extend_end_line(&mut p.msg, l);
        }
        p.msg.calls[k].result = Some(result);
        None
    }

    /// Change the result of a call joined with [`Assembler::attach_partial`] (more
    /// output, how it ended); `done` settles the call. `line` is the record the change
    /// came from: the message then spans it, so reading the message back from its lines
    /// gives the same result. False when the call is no longer waiting.
    pub fn amend(
        &mut self,
        call_id: &str,
        line: Option<u32>,
        done: bool,
        change: impl FnOnce(&mut CallResult),
    ) -> bool {
        let Some(&idx) = self.open_calls.get(call_id) else { return false };
        let Some(p) = self.pending.iter_mut().find(|p| p.msg.idx == idx) else { return false };
        let Some(result) = p.msg.calls.iter_mut().find(|c| c.id == call_id).and_then(|c| c.result.as_mut()) else {
            return false;
        };
        change(result);
        if let Some(l) = line {
            p.msg.end_line = Some(p.msg.end_line.map_or(l, |e| e.max(l)));
        }
        if done {
            self.open_calls.remove(call_id);
            p.open = p.open.saturating_sub(1);
        }
        true
    }

    /// Give every call still waiting an empty, interrupted result (the turn was aborted);
    /// a result joined in part keeps what it has and is marked interrupted.
    pub fn interrupt_open(&mut self, timestamp: Option<chrono::DateTime<chrono::Utc>>, line: u32) {
        let ids: Vec<String> = self.open_calls.keys().cloned().collect();
        for id in ids {
            if self.amend(&id, Some(line), true, |r| r.interrupted = true) {
                continue;
            }
            let r = CallResult { interrupted: true, timestamp, line: Some(line), ..CallResult::default() };
            let _ = self.attach(&id, r);
        }
    }

    /// Whether a call id is waiting for its result.
    pub fn is_open(&self, call_id: &str) -> bool {
        self.open_calls.contains_key(call_id)
    }

    /// Extend the last line of the pending message `idx` (a merged chunk).
    pub fn extend_end_line(msg: &mut Message, line: u32) {
        msg.end_line = Some(msg.end_line.map_or(line, |e| e.max(line)));
    }

    /// Emit settled messages from the front. The newest message stays: a streamed
    /// chunk may still extend it.
    fn flush(&mut self, sink: &mut dyn Sink) -> Result<()> {
        while self.pending.len() > 1 {
            let front_open = self.pending.front().map_or(0, |p| p.open);
            if front_open > 0 && self.pending.len() <= MAX_PENDING {
                break;
            }
            if let Some(p) = self.pending.pop_front() {
                for c in &p.msg.calls {
                    if self.open_calls.get(&c.id) == Some(&p.msg.idx) {
                        self.open_calls.remove(&c.id);
                    }
                }
                sink.message(self.session, p.msg)?;
            }
        }
        Ok(())
    }

    /// Emit everything (end of file, or end of one session in a multi-session file).
    pub fn finish(&mut self, sink: &mut dyn Sink) -> Result<()> {
        while let Some(p) = self.pending.pop_front() {
            sink.message(self.session, p.msg)?;
        }
        self.open_calls.clear();
        Ok(())
    }

    /// Emit everything and start numbering a new session.
    pub fn next_session(&mut self, sink: &mut dyn Sink) -> Result<()> {
        self.finish(sink)?;
        self.session += 1;
        self.next_idx = 1;
        Ok(())
    }
}

/// A tool result with no call to join becomes a message of its own, so nothing is lost.
pub fn orphan_result_message(call_id: &str, result: CallResult) -> Message {
    let mut text = result.output;
    if text.is_empty() {
        text = format!("(result of call {call_id} with no output)");
    }
    Message { role: Role::Tool, origin: Origin::ToolOutput, timestamp: result.timestamp, text, ..Message::default() }
}

/// A [`Sink`] that keeps everything in memory: for `show`, `detect`, `report` and tests.
#[derive(Default)]
pub struct Collect {
    pub messages: Vec<Vec<Message>>,
    pub bad: Vec<BadRecord>,
    pub unknown: HashMap<String, u64>,
    pub checkpoints: Vec<Checkpoint>,
    /// Drop checkpoints instead of keeping them in [`Collect::checkpoints`] (a file read
    /// whole, where nothing restarts from them).
    pub no_checkpoints: bool,
}

impl Sink for Collect {
    fn message(&mut self, session: usize, msg: Message) -> Result<()> {
        if self.messages.len() <= session {
            self.messages.resize_with(session + 1, Vec::new);
        }
        self.messages[session].push(msg);
        Ok(())
    }
    fn bad(&mut self, bad: BadRecord) {
        self.bad.push(bad);
    }
    fn unknown(&mut self, kind: &str) {
        *self.unknown.entry(kind.to_string()).or_default() += 1;
    }
    fn checkpoint(&mut self, cp: Checkpoint) {
        if !self.no_checkpoints {
            self.checkpoints.push(cp);
        }
    }
    fn keeps_checkpoints(&self) -> bool {
        !self.no_checkpoints
    }
}

/// A sink wrapper for formats that cannot restart mid-file: it drops checkpoints (so a
/// changed file is re-read whole) and, for whole-document formats, clears the source
/// positions (the contract's `line`/`end_line` are null for them).
pub struct NoRestart<'s> {
    pub inner: &'s mut dyn Sink,
    /// Keep `line`/`end_line` (line-oriented files whose records later lines rewrite).
    pub keep_lines: bool,
}

impl<'s> NoRestart<'s> {
    /// For one JSON document: no positions, no checkpoints.
    pub fn whole_document(inner: &'s mut dyn Sink) -> NoRestart<'s> {
        NoRestart { inner, keep_lines: false }
    }

    /// For line files read whole: positions kept, no checkpoints.
    pub fn lines(inner: &'s mut dyn Sink) -> NoRestart<'s> {
        NoRestart { inner, keep_lines: true }
    }
}

impl Sink for NoRestart<'_> {
    fn message(&mut self, session: usize, mut msg: Message) -> Result<()> {
        if self.keep_lines && msg.line == Some(0) {
            // Pushed at `At::default()`: a message no single line holds.
            msg.line = None;
            msg.end_line = None;
            msg.offset = None;
        }
        if !self.keep_lines {
            msg.line = None;
            msg.end_line = None;
            msg.offset = None;
            for c in &mut msg.calls {
                if let Some(r) = c.result.as_mut() {
                    r.line = None;
                }
            }
        }
        self.inner.message(session, msg)
    }
    fn bad(&mut self, bad: BadRecord) {
        self.inner.bad(bad)
    }
    fn unknown(&mut self, kind: &str) {
        self.inner.unknown(kind)
    }
    fn checkpoint(&mut self, _cp: Checkpoint) {}
}

/// A whole file read into memory.
pub struct ParsedFile {
    pub format: &'static dyn Format,
    pub sessions: Vec<Session>,
    pub bad: Vec<BadRecord>,
    pub unknown: HashMap<String, u64>,
    pub pending_tail: bool,
}

/// Parse a whole file with the given format, or the detected one.
pub fn parse_file(path: &Path, format: Option<&'static dyn Format>) -> Result<ParsedFile> {
    let format =
        format_of(path, format)?.ok_or_else(|| anyhow::anyhow!("{}: {}", path.display(), Unread::UnknownFormat))?;
    let mut input = Input::open(path, None)?;
    let mut sink = Collect { no_checkpoints: true, ..Collect::default() };
    let metas = format.parse(&mut input, &mut sink)?;
    sink.bad.extend(input.take_too_long());
    sink.bad.sort_by_key(|b| b.line);
    let mut sessions = Vec::with_capacity(metas.len());
    for (i, mut meta) in metas.into_iter().enumerate() {
        meta.complete_provenance();
        let messages = sink.messages.get_mut(i).map(std::mem::take).unwrap_or_default();
        meta.messages = messages.len() as u32;
        sessions.push(Session { meta, messages });
    }
    Ok(ParsedFile { format, sessions, bad: sink.bad, unknown: sink.unknown, pending_tail: input.pending_tail() })
}

/// Read one message back from its source lines (`line..=end_line`, starting at byte
/// `offset`), numbered `idx`: how search cuts snippets without storing text. When one
/// record gives two messages (the harness's text split from the prompt it wraps), `role`
/// tells which is meant.
pub fn read_message(
    path: &Path,
    format: &'static dyn Format,
    offset: u64,
    line: u32,
    end_line: u32,
    idx: u32,
    role: Option<Role>,
) -> Result<Option<Message>> {
    let resume = Resume {
        checkpoint: Checkpoint { offset, line, session: 0, next_idx: idx, state: serde_json::Value::Null },
        session: SessionMeta::default(),
    };
    let mut input = Input::open_buffered(path, Some(resume), 16 * 1024)?;
    input.stop_after_line(end_line);
    let mut sink = Collect { no_checkpoints: true, ..Collect::default() };
    format.parse(&mut input, &mut sink)?;
    let mut at_line = sink.messages.into_iter().flatten().filter(|m| m.line == Some(line));
    let first = at_line.next();
    match role {
        Some(r) if first.as_ref().is_some_and(|m| m.role != r) => Ok(at_line.find(|m| m.role == r).or(first)),
        _ => Ok(first),
    }
}

/// The next record of a JSONL transcript as a JSON value, read by [`Line::json`] (blank
/// and broken lines skipped, a last line still being written left for the next run).
pub fn next_json_record(input: &mut Input, sink: &mut dyn Sink) -> Result<Option<(At, serde_json::Value)>> {
    while let Some(line) = input.next_line()? {
        if let Some(record) = line.json(sink) {
            return Ok(Some((record.at, record.value)));
        }
    }
    Ok(None)
}

/// A one-line reason for a JSON error, without serde's "at line 1 column N" noise
/// when the record is a single line.
pub fn json_reason(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    match msg.rfind(" at line ") {
        Some(i) if e.line() == 1 => format!("{} (column {})", &msg[..i], e.column()),
        _ => msg,
    }
}

/// Parse timestamps as the agents write them (RFC 3339, with or without `Z`).
pub fn parse_time(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&chrono::Utc))
        .ok()
        .or_else(|| chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f").ok().map(|n| n.and_utc()))
}

/// A subagent's sidecar, read with the transcript beside it and never on its own: the
/// `agent-<id>.meta.json` that Claude Code and Qwen Code write next to `agent-<id>.jsonl`
/// (its `toolUseId` names the call that spawned the subagent). Both formats'
/// [`Format::read_through_another`].
pub(crate) fn subagent_sidecar(path: &Path) -> bool {
    let Some(stem) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".meta.json")) else {
        return false;
    };
    path.with_file_name(format!("{stem}.jsonl")).is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_reader_skips_giant_line_and_keeps_the_next() {
        let data = format!("{}\nshort\n", "x".repeat(1000));
        let mut r = BufReader::with_capacity(16, data.as_bytes());
        let mut buf = Vec::new();
        let first = read_line_capped(&mut r, &mut buf, 100).unwrap();
        assert!(first.overflowed);
        assert_eq!(first.bytes, 1001);
        buf.clear();
        let second = read_line_capped(&mut r, &mut buf, 100).unwrap();
        assert!(!second.overflowed);
        assert_eq!(buf, b"short\n");
    }

    #[test]
    fn fields_of_a_cut_off_object() {
        let t = r#"[ {"role": "user", "content": [{"type": "text", "text": "a \"}\" b"}], "ts": 3}, {"x"#;
        let f = first_item_fields(t, 0).unwrap();
        let keys: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["role", "content", "ts"]);
        assert_eq!(field(&f, "role"), Some("\"user\""));
        assert_eq!(field(&f, "ts"), Some("3"));
        // The head ends inside a value: the keys seen so far.
        let f = object_fields(r#"{"history": [{"role": "human", "text": "hel"#, 0).unwrap();
        assert_eq!(f[0].0, "history");
        assert!(field(&f, "history").unwrap().starts_with("[{"));
        assert!(object_fields("[1]", 0).is_none());
    }

    #[test]
    fn timestamps_with_and_without_zone() {
        assert!(parse_time("2026-02-27T11:17:29.123Z").is_some());
        assert!(parse_time("2026-02-27T11:17:29.123456").is_some());
        assert!(parse_time("yesterday").is_none());
    }
}
