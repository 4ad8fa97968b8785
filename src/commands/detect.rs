//! `debrief detect`: findings for people, or JSON lines per the contract; with
//! `--stats`, how often each detector fires over a corpus. Summaries and commands
//! quote the transcript, so they are redacted unless `--no-redact`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Result, bail};
use serde_json::json;

use super::{Redaction, Style, Target, display_path, format_arg, index_dir, report_bad, targets};
use crate::analysis::text::thousands;
use crate::cli::{Cli, DetectArgs};
use crate::detect::{self, Detector, Finding, Released, SessionStats, Stream};
use crate::formats::{self, Format, Input, Sink, Unread};
use crate::index::IndexDir;
use crate::model::{BadRecord, Message, Role, SessionMeta};
use crate::team::read::TeamSessionRead;
use crate::walk;

pub fn run(cli: &Cli, args: &DetectArgs) -> Result<i32> {
    let detectors = detect::selection(&args.select, &args.ignore)?;
    let redaction = Redaction::from_args(&args.redact)?;
    let mut sessions = match &args.team.from {
        Some(from) => from_team(from, args, &detectors)?,
        None => from_files(cli, args, &detectors)?,
    };
    let out = std::io::stdout();
    let mut out = out.lock();
    let style = Style::stdout();
    // Sorted by source, then key idx (the contract's order).
    sessions.sort_by(|a, b| a.meta.source.cmp(&b.meta.source));
    if args.stats {
        let mut stats = Stats::default();
        for s in &sessions {
            stats.add(s);
        }
        print_stats(&mut out, &stats, &detectors, args, style)?;
        return Ok(0);
    }
    let mut total = 0usize;
    for s in &mut sessions {
        // Detected on the transcript as written; what is printed of it is redacted.
        redaction.apply(&s.meta, &mut s.findings)?;
        total += s.findings.len();
        for f in &s.findings {
            if args.json {
                writeln!(out, "{}", finding_json(s, f))?;
            } else {
                print_finding(&mut out, s, f, style)?;
            }
        }
    }
    if !args.json {
        eprintln!("{total} finding{}", if total == 1 { "" } else { "s" });
    }
    Ok(0)
}

/// The sessions of the team store (all of them, of `--machine`'s, or those the paths name
/// by id), read back into the model, with the findings the pushing machine's detectors
/// found over the whole transcript. Not detected again here: a pushed output longer than
/// 12 KB is kept as its head and tail, which changes what the detectors that weigh outputs
/// would say (a noisy-search "18 KB line" becomes "8 KB").
fn from_team(from: &str, args: &DetectArgs, detectors: &[&'static dyn Detector]) -> Result<Vec<SessionFindings>> {
    if args.input_format.is_some() {
        crate::usage!("--input-format reads files: a team store holds sessions already read (drop one)");
    }
    let mut team = crate::team::read::Team::open(from)?;
    let machine = args.team.machine.as_deref();
    let mut sessions = Vec::new();
    let mut add = |read: TeamSessionRead| sessions.push(SessionFindings::of_pushed(read, detectors));
    if args.paths.is_empty() {
        crate::team::read::each_session(&mut team, machine, |read| {
            add(read);
            Ok(())
        })?;
    }
    for id in &args.paths {
        add(crate::team::read::session(&mut team, &id.to_string_lossy(), machine)?);
    }
    Ok(sessions)
}

/// The sessions of the files the paths name (every indexed one with none), each file
/// streamed through the detectors; a line on stderr for each file that could not be read.
fn from_files(cli: &Cli, args: &DetectArgs, detectors: &[&'static dyn Detector]) -> Result<Vec<SessionFindings>> {
    let format = format_arg(&args.input_format)?;
    let targets = if args.paths.is_empty() { indexed(cli)? } else { targets(&cli.index, &args.paths)? };
    let only: HashMap<&Path, &str> =
        targets.iter().filter_map(|t| Some((t.path.as_path(), t.session.as_deref()?))).collect();
    let paths: Vec<PathBuf> = targets.iter().map(|t| t.path.clone()).collect();
    let mut problems = Vec::new();
    let found = walk::discover(&paths, true, &mut problems);
    let mut unreadable = 0usize;
    for (p, why) in &problems {
        eprintln!("debrief: {}: {why}", p.display());
        unreadable += 1;
    }
    // Files are read in parallel and streamed through the detectors (a session is never
    // held whole); what each yields is reported in path order, as one reader would.
    let results = scan_files(&found, format, detectors);
    let mut sessions: Vec<SessionFindings> = Vec::new();
    let mut read = 0usize;
    // Files that were read or that a line was printed for.
    let mut accounted: Vec<&Path> = Vec::new();
    for (c, result) in found.iter().zip(results) {
        if c.size == 0 {
            eprintln!("debrief: {}: {}", c.path.display(), super::EMPTY_FILE);
            unreadable += 1;
            accounted.push(&c.path);
            continue;
        }
        match result {
            Scan::Read { format, sessions: s, bad } => {
                report_bad(&c.path, &bad);
                accounted.push(&c.path);
                let messages = s.iter().map(|s| s.messages as u64).sum();
                match Unread::of(Some(format), messages) {
                    Some(why) => {
                        eprintln!("debrief: {}: {why}", c.path.display());
                        unreadable += 1;
                    }
                    None => {
                        read += 1;
                        let id = only.get(c.path.as_path());
                        sessions.extend(s.into_iter().filter(|s| id.is_none_or(|id| s.meta.id == *id)));
                    }
                }
            }
            Scan::Unknown => {
                if c.explicit {
                    eprintln!("debrief: {}: {}", c.path.display(), Unread::UnknownFormat);
                    unreadable += 1;
                    accounted.push(&c.path);
                }
            }
            Scan::Failed(e) => {
                eprintln!("debrief: {e}");
                unreadable += 1;
                accounted.push(&c.path);
            }
        }
    }
    // A folder named on the command line that gave nothing, and no line said why.
    for dir in args.paths.iter().filter(|p| p.is_dir()) {
        if !accounted.iter().any(|p| p.starts_with(dir)) {
            eprintln!("debrief: {}: {}", dir.display(), walk::empty_folder_reason(dir));
            unreadable += 1;
        }
    }
    if read == 0 && unreadable > 0 {
        return Err(super::Reported.into());
    }
    Ok(sessions)
}

/// With no path: every file the index holds a session of (as `index` with no path reads
/// the agents' folders), read again as it is now.
fn indexed(cli: &Cli) -> Result<Vec<Target>> {
    let ix = IndexDir::open(&index_dir(&cli.index))?;
    let mut paths: Vec<PathBuf> =
        ix.load_state()?.files.into_iter().filter(|(_, s)| s.sessions > 0).map(|(p, _)| p).collect();
    paths.sort();
    if paths.is_empty() {
        bail!("the index at {} holds no session: run `debrief index`, or name a transcript", ix.dir.display());
    }
    Ok(paths.into_iter().map(|path| Target { path, session: None }).collect())
}

/// What detect keeps of a session: its findings, and where each message is (the
/// findings cite them by line).
pub struct SessionFindings {
    pub meta: SessionMeta,
    pub findings: Vec<Finding>,
    /// Messages of the session.
    pub messages: usize,
    /// By idx - 1: first line, last line, role.
    places: Vec<(Option<u32>, Option<u32>, Role)>,
    /// The machine that pushed it, for a session of the team store.
    pub machine: Option<String>,
}

impl SessionFindings {
    /// A session of the team store and the findings the pushing machine found in it (of
    /// `detectors`), cited with the places of its messages as they were pushed.
    fn of_pushed(read: TeamSessionRead, detectors: &[&'static dyn Detector]) -> SessionFindings {
        let mut places = Vec::new();
        for m in &read.session.messages {
            place(&mut places, m);
        }
        let findings = read.findings.into_iter().filter(|f| detectors.iter().any(|d| d.id() == f.detector)).collect();
        SessionFindings {
            meta: read.session.meta,
            findings,
            messages: read.session.messages.len(),
            places,
            machine: Some(read.machine),
        }
    }

    fn place(&self, idx: u32) -> Option<&(Option<u32>, Option<u32>, Role)> {
        self.places.get((idx as usize).checked_sub(1)?)
    }
}

/// The outcome of reading one file.
enum Scan {
    Read {
        format: &'static dyn Format,
        sessions: Vec<SessionFindings>,
        bad: Vec<BadRecord>,
    },
    /// No format claims it.
    Unknown,
    Failed(String),
}

/// Read `files` on as many threads as there are cores; results in the order of `files`.
fn scan_files(
    files: &[walk::Candidate],
    format: Option<&'static dyn Format>,
    detectors: &[&'static dyn Detector],
) -> Vec<Scan> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(files.len()).max(1);
    let mut done: Vec<(usize, Scan)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(c) = files.get(i) else { break };
                        mine.push((i, scan_file(&c.path, format, detectors)));
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_default()).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, s)| s).collect()
}

fn scan_file(path: &Path, format: Option<&'static dyn Format>, detectors: &[&'static dyn Detector]) -> Scan {
    let format = match formats::format_of(path, format) {
        Ok(Some(f)) => f,
        Ok(None) => return Scan::Unknown,
        Err(e) => return Scan::Failed(format!("{e:#}")),
    };
    let mut sink = DetectSink { detectors, sessions: Vec::new(), bad: Vec::new() };
    let parsed = Input::open(path, None).and_then(|mut input| {
        let metas = format.parse(&mut input, &mut sink)?;
        sink.bad.extend(input.take_too_long());
        Ok(metas)
    });
    let metas = match parsed {
        Ok(m) => m,
        Err(e) => return Scan::Failed(format!("{e:#}")),
    };
    let mut bad = std::mem::take(&mut sink.bad);
    bad.sort_by_key(|b| b.line);
    let mut runs = std::mem::take(&mut sink.sessions);
    let sessions = metas
        .into_iter()
        .enumerate()
        .map(|(i, mut meta)| {
            meta.complete_provenance();
            runs.get_mut(i).and_then(Option::take).unwrap_or_else(|| SessionRun::new(detectors)).finish(meta)
        })
        .collect();
    Scan::Read { format, sessions, bad }
}

/// Keep where `msg` is among `places` (by idx - 1).
fn place(places: &mut Vec<(Option<u32>, Option<u32>, Role)>, msg: &Message) {
    let i = msg.idx as usize;
    if places.len() < i {
        places.resize(i, (None, None, Role::default()));
    }
    if let Some(p) = i.checked_sub(1).and_then(|p| places.get_mut(p)) {
        *p = (msg.line, msg.end_line, msg.role);
    }
}

struct SessionRun {
    stream: Stream,
    findings: Vec<Finding>,
    places: Vec<(Option<u32>, Option<u32>, Role)>,
}

impl SessionRun {
    fn new(detectors: &[&'static dyn Detector]) -> SessionRun {
        SessionRun {
            stream: Stream::new(detectors.to_vec(), SessionStats::default(), 0),
            findings: Vec::new(),
            places: Vec::new(),
        }
    }

    /// Where `msg` is, and what the detectors find once it is seen.
    fn push(&mut self, msg: Message) {
        place(&mut self.places, &msg);
        let mut released = Released::default();
        self.stream.push(msg, &mut released);
        self.findings.extend(released.findings);
    }

    /// The session's findings, once its last message is seen.
    fn finish(mut self, mut meta: SessionMeta) -> SessionFindings {
        let mut released = Released::default();
        self.stream.finish(&mut released);
        self.findings.extend(released.findings);
        meta.messages = self.places.len() as u32;
        SessionFindings {
            meta,
            findings: self.findings,
            messages: self.places.len(),
            places: self.places,
            machine: None,
        }
    }
}

/// Feeds each session's messages to its detector stream as the parser hands them out.
struct DetectSink<'d> {
    detectors: &'d [&'static dyn Detector],
    sessions: Vec<Option<SessionRun>>,
    bad: Vec<BadRecord>,
}

impl Sink for DetectSink<'_> {
    fn message(&mut self, session: usize, msg: Message) -> Result<()> {
        if self.sessions.len() <= session {
            self.sessions.resize_with(session + 1, || None);
        }
        let detectors = self.detectors;
        self.sessions[session].get_or_insert_with(|| SessionRun::new(detectors)).push(msg);
        Ok(())
    }

    fn bad(&mut self, bad: BadRecord) {
        self.bad.push(bad);
    }

    fn unknown(&mut self, _kind: &str) {}
}

/// The contract's JSON shape for one finding.
pub fn finding_json(s: &SessionFindings, f: &Finding) -> serde_json::Value {
    let key_line = s.place(f.key).and_then(|p| p.0);
    let evidence: Vec<serde_json::Value> = f
        .evidence
        .iter()
        .filter_map(|i| s.place(*i).map(|p| (*i, p)))
        .map(|(idx, (line, end_line, role))| json!({"idx": idx, "line": line, "end_line": end_line, "role": role.as_str()}))
        .collect();
    let mut v = json!({
        "detector": f.detector,
        "source": s.meta.source,
        "session": s.meta.id,
        "key": {"idx": f.key, "line": key_line},
        "messages": evidence,
        "summary": f.summary,
    });
    // Added to the contract's fields: the facts the detector found (docs/detectors.md).
    if let Some(d) = &f.details {
        v["details"] = json!(d);
    }
    if let Some(m) = &s.machine {
        v["machine"] = json!(m);
    }
    v
}

fn print_finding(out: &mut impl Write, s: &SessionFindings, f: &Finding, style: Style) -> Result<()> {
    let cites: Vec<String> = f.evidence.iter().map(|i| format!("[msg {i}]")).collect();
    let line = s.place(f.key).and_then(|p| p.0).map(|l| format!(":{l}")).unwrap_or_default();
    writeln!(out, "{} {} {}", style.yellow(&f.detector), style.bold(&format!("[msg {}]", f.key)), f.summary)?;
    let machine = s.machine.as_deref().map(|m| format!(" @{m}")).unwrap_or_default();
    writeln!(
        out,
        "  {} {}",
        style.dim(&format!("{}{line}{machine}", display_path(&s.meta.source))),
        style.dim(&cites.join(" "))
    )?;
    if let Some(cmd) = &f.command {
        let first = cmd.lines().next().unwrap_or("");
        writeln!(out, "  {} {}", style.bold("$"), first)?;
    }
    writeln!(out)?;
    Ok(())
}

/// Findings counted per detector and per file.
#[derive(Default)]
struct Stats {
    /// detector → (findings, sessions with one, files with one)
    per_detector: BTreeMap<String, (usize, BTreeSet<String>, BTreeSet<PathBuf>)>,
    /// file → detector → findings
    per_file: BTreeMap<PathBuf, BTreeMap<String, usize>>,
    sessions: usize,
    messages: usize,
}

impl Stats {
    fn add(&mut self, s: &SessionFindings) {
        self.sessions += 1;
        self.messages += s.messages;
        let file = self.per_file.entry(s.meta.source.clone()).or_default();
        for f in &s.findings {
            let e = self.per_detector.entry(f.detector.clone()).or_default();
            e.0 += 1;
            e.1.insert(format!("{}\u{1f}{}", s.meta.source.display(), s.meta.id));
            e.2.insert(s.meta.source.clone());
            *file.entry(f.detector.clone()).or_default() += 1;
        }
    }
}

fn print_stats(
    out: &mut impl Write,
    stats: &Stats,
    detectors: &[&'static dyn detect::Detector],
    args: &DetectArgs,
    style: Style,
) -> Result<()> {
    let empty = (0, BTreeSet::new(), BTreeSet::new());
    if args.json {
        for d in detectors {
            let (n, sessions, files) = stats.per_detector.get(d.id()).unwrap_or(&empty);
            writeln!(
                out,
                "{}",
                json!({"detector": d.id(), "findings": n, "sessions": sessions.len(), "files": files.len()})
            )?;
        }
        if args.verbose {
            for (path, counts) in &stats.per_file {
                writeln!(out, "{}", json!({"source": path, "findings": counts}))?;
            }
        }
        return Ok(());
    }
    writeln!(out, "{}", style.bold(&format!("{:<22} {:>8} {:>8} {:>6}", "detector", "findings", "sessions", "files")))?;
    for d in detectors {
        let (n, sessions, files) = stats.per_detector.get(d.id()).unwrap_or(&empty);
        writeln!(
            out,
            "{} {:>8} {:>8} {:>6}",
            style.yellow(&format!("{:<22}", d.id())),
            n,
            sessions.len(),
            files.len()
        )?;
    }
    if args.verbose {
        writeln!(out)?;
        for (path, counts) in stats.per_file.iter().filter(|(_, c)| !c.is_empty()) {
            let found: Vec<String> = counts.iter().map(|(d, n)| format!("{d}×{n}")).collect();
            writeln!(out, "{}  {}", style.dim(&display_path(path)), found.join(" "))?;
        }
    }
    let quiet = stats.per_file.values().filter(|c| c.is_empty()).count();
    eprintln!(
        "{} files ({quiet} without findings), {} sessions, {} messages",
        thousands(stats.per_file.len()),
        thousands(stats.sessions),
        thousands(stats.messages)
    );
    Ok(())
}
