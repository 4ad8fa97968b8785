//! One module per subcommand, plus the helpers they share: resolving the index
//! folder, reading `--format`, filters and times, and loading transcript files. The
//! dispatcher ([`dispatch::run`]) is a module of its own, so that the subcommands that
//! live elsewhere (`mcp`, `serve`, `push`) use these helpers without a loop back.

pub mod completions;
pub mod detect;
pub mod detectors;
pub mod dispatch;
pub mod index;
pub mod report;
pub mod search;
pub mod sessions;
pub mod show;
pub mod sources;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

use crate::cli::{FilterArgs, RedactArgs};
use crate::formats::{self, Format, ParsedFile, Unread};
use crate::index::IndexDir;
use crate::index::search::Filters;
use crate::model::{BadRecord, Role, Session, SessionMeta};
use crate::redact::{self, Redact, Redactor};
use crate::walk;

/// The index folder: `--index`, `$DEBRIEF_INDEX`, else the platform data dir.
pub fn index_dir(arg: &Option<PathBuf>) -> PathBuf {
    arg.clone().unwrap_or_else(crate::index::default_dir)
}

/// Resolve `--input-format` (spelled `--format` before report took `--format` for its output).
pub fn format_arg(name: &Option<String>) -> Result<Option<&'static dyn Format>> {
    match name {
        None => Ok(None),
        Some(n) => match formats::by_id(n) {
            Some(f) => Ok(Some(f)),
            None => {
                let known: Vec<&str> = formats::all().iter().map(|f| f.id()).collect();
                // `--format json` meant as report's output format (issue 14 item 10).
                if ["md", "markdown", "html", "json", "text", "txt"].contains(&n.to_lowercase().as_str()) {
                    crate::usage!(
                        "`{n}` is an output format; --input-format (or its older spelling --format) \
                         names the transcript format to read (known: {}); for JSON output use --json, \
                         for a report `debrief report --format {n}`",
                        known.join(", ")
                    )
                }
                crate::usage!("unknown format `{n}` (known: {})", known.join(", "))
            }
        },
    }
}

/// Parse `--since`/`--until`: a date, a date and time (UTC), or a span ago (`3d`).
pub fn parse_when(s: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let t = s.trim();
    if let Some(unit) = t.chars().last()
        && let Ok(n) = t[..t.len() - unit.len_utf8()].parse::<i64>()
    {
        let secs = match unit {
            's' => Some(1),
            'm' => Some(60),
            'h' => Some(3600),
            'd' => Some(86_400),
            'w' => Some(7 * 86_400),
            _ => None,
        };
        if let Some(secs) = secs {
            return Ok(now - chrono::Duration::seconds(n * secs));
        }
    }
    if let Some(dt) = formats::parse_time(t) {
        return Ok(dt);
    }
    for fmt in ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(n) = NaiveDateTime::parse_from_str(t, fmt) {
            return Ok(n.and_utc());
        }
    }
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d")
        && let Some(n) = d.and_hms_opt(0, 0, 0)
    {
        return Ok(n.and_utc());
    }
    crate::usage!("cannot read time `{s}`: use 2026-02-27, 2026-02-27T11:00, or a span ago such as 3d or 12h")
}

pub fn filters(a: &FilterArgs) -> Result<Filters> {
    let now = Utc::now();
    let role =
        match &a.role {
            None => None,
            Some(r) => Some(Role::parse(&r.to_lowercase()).ok_or_else(|| {
                crate::UsageError(format!("unknown role `{r}` (use user, assistant, tool or system)"))
            })?),
        };
    if let Some(d) = &a.detector
        && crate::detect::by_id(d).is_none()
    {
        let known: Vec<&str> = crate::detect::registry().iter().map(|d| d.id()).collect();
        crate::usage!("unknown detector `{d}` (known: {})", known.join(", "));
    }
    Ok(Filters {
        agent: a.agent.clone(),
        project: a.project.clone(),
        session: a.session.clone(),
        role,
        tool: a.tool.clone(),
        program: a.program.clone(),
        file: a.file.clone(),
        detector: a.detector.clone(),
        since: a.since.as_deref().map(|s| parse_when(s, now)).transpose()?,
        until: a.until.as_deref().map(|s| parse_when(s, now)).transpose()?,
        errors: a.errors,
        findings: false,
        part: None,
    })
}

/// How a command redacts the transcript text it prints: `--no-redact` turns it off,
/// `--redact-patterns FILE` adds the user's patterns to the built-in rules.
pub struct Redaction {
    /// The user's extra patterns; `None` when redaction is off.
    extra: Option<Vec<String>>,
}

impl Redaction {
    pub fn from_args(a: &RedactArgs) -> Result<Redaction> {
        // clap refuses --no-redact with --redact-patterns.
        match (a.no_redact, &a.redact_patterns) {
            (true, _) => Ok(Redaction { extra: None }),
            (false, Some(p)) => Ok(Redaction { extra: Some(redact::read_patterns(p)?) }),
            (false, None) => Ok(Redaction { extra: Some(Vec::new()) }),
        }
    }

    /// The user's extra patterns when redaction is on (maybe none), `None` when off.
    pub fn extra(&self) -> Option<&[String]> {
        self.extra.as_deref()
    }

    /// The redactor for one session (its user and host names join the rules), or
    /// `None` when redaction is off.
    pub fn for_meta(&self, meta: &SessionMeta) -> Result<Option<Redactor>> {
        self.extra.as_ref().map(|extra| Redactor::for_meta(meta, extra)).transpose()
    }

    /// Redact what a command prints of one session — the session itself, its findings,
    /// its index record — in place (see [`Redact`] for which fields), with the redactor
    /// of the session `meta` describes (made before `meta` itself is redacted: its user
    /// and host names join the rules).
    pub fn apply<T: Redact + ?Sized>(&self, meta: &SessionMeta, x: &mut T) -> Result<()> {
        if let Some(r) = self.for_meta(meta)? {
            r.apply(x);
        }
        Ok(())
    }

    /// Redact a session's messages and metadata in place, its source path excepted
    /// (where the file is on this machine; scripts open it).
    pub fn session(&self, s: &mut Session) -> Result<()> {
        let meta = s.meta.clone();
        self.apply(&meta, s)
    }
}

/// What a transcript argument names: a file or folder, or one session of an indexed file.
#[derive(Debug, Clone)]
pub struct Target {
    pub path: PathBuf,
    /// The full session id, when the argument was a session id (or a prefix of one).
    pub session: Option<String>,
}

/// Resolve the transcript arguments of `show`, `detect` and `report`: a path that exists
/// is a path; an argument that is not one and has no `/` is looked up as a session id,
/// or a unique prefix of one, among the indexed sessions (the ids `sessions` and
/// `search` print). A prefix several sessions share is a usage error that lists them;
/// an argument that is neither is an error that says both were tried.
pub fn targets(index: &Option<PathBuf>, args: &[PathBuf]) -> Result<Vec<Target>> {
    let mut ix: Option<Option<IndexDir>> = None;
    let mut out = Vec::new();
    for a in args {
        let as_path = Target { path: a.clone(), session: None };
        let Some(id) =
            a.to_str().filter(|s| !s.is_empty() && !s.contains(std::path::MAIN_SEPARATOR) && !s.contains('/'))
        else {
            out.push(as_path);
            continue;
        };
        if std::fs::symlink_metadata(a).is_ok() {
            out.push(as_path);
            continue;
        }
        let Some(ix) = ix.get_or_insert_with(|| IndexDir::open(&index_dir(index)).ok()) else {
            bail!("{id}: no such file or folder (and no index to look it up in as a session id)");
        };
        match session_by_id(ix, id) {
            Ok(one) => out.push(Target { path: one.meta.source.clone(), session: Some(one.meta.id.clone()) }),
            Err(e) if e.downcast_ref::<NoSuchSession>().is_some() => {
                bail!("{id}: no such file or folder, and no indexed session id starts with it")
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// No indexed session id starts with the one asked for.
#[derive(Debug)]
pub struct NoSuchSession(pub String);

impl std::fmt::Display for NoSuchSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no indexed session id starts with `{}` (`sessions` lists them)", self.0)
    }
}

impl std::error::Error for NoSuchSession {}

/// The indexed session whose id is `id` or starts with it: [`NoSuchSession`] when none
/// does, a usage error listing them when several do.
pub fn session_by_id(ix: &IndexDir, id: &str) -> Result<crate::index::schema::SessionRecord> {
    let wanted = Filters { session: Some(id.to_string()), ..Filters::default() };
    let mut found = crate::index::search::sessions(ix, &wanted, 11)?;
    // The whole id wins over the longer ids it is the start of.
    if let Some(i) = found.iter().position(|r| r.meta.id == id) {
        return Ok(found.swap_remove(i));
    }
    match found.len() {
        0 => Err(NoSuchSession(id.to_string()).into()),
        1 => Ok(found.remove(0)),
        n => {
            let listed: Vec<String> =
                found.iter().take(10).map(|r| format!("{} ({})", r.meta.id, display_path(&r.meta.source))).collect();
            crate::usage!(
                "`{id}` is the start of {} session ids: {}{}",
                if n > 10 { "more than 10".to_string() } else { n.to_string() },
                listed.join(", "),
                if n > 10 { ", …" } else { "" }
            )
        }
    }
}

/// Read every transcript the targets name (of a session id, that session only). Files
/// that cannot be read, and files that a format claims but yields no message from, are
/// reported on stderr, one line each; when nothing at all could be read the command
/// fails ([`Reported`]: exit 1, nothing more printed).
pub fn load(targets: &[Target], format: Option<&'static dyn Format>) -> Result<Vec<ParsedFile>> {
    let mut problems = Vec::new();
    let paths: Vec<PathBuf> = targets.iter().map(|t| t.path.clone()).collect();
    let only: std::collections::HashMap<&Path, &str> =
        targets.iter().filter_map(|t| Some((t.path.as_path(), t.session.as_deref()?))).collect();
    let found = walk::discover(&paths, true, &mut problems);
    let mut files = Vec::new();
    let mut unreadable = 0usize;
    for (p, why) in &problems {
        eprintln!("debrief: {}: {why}", p.display());
        unreadable += 1;
    }
    // Files that were read or that a line was printed for.
    let mut accounted: Vec<&Path> = Vec::new();
    for c in &found {
        if c.size == 0 {
            eprintln!("debrief: {}: {EMPTY_FILE}", c.path.display());
            unreadable += 1;
            accounted.push(&c.path);
            continue;
        }
        let fmt = match formats::format_of(&c.path, format) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("debrief: {e:#}");
                unreadable += 1;
                accounted.push(&c.path);
                continue;
            }
        };
        let parsed = match fmt {
            Some(f) => match formats::parse_file(&c.path, Some(f)) {
                Ok(mut parsed) => {
                    if let Some(id) = only.get(c.path.as_path()) {
                        parsed.sessions.retain(|s| s.meta.id == *id);
                    }
                    Some(parsed)
                }
                Err(e) => {
                    eprintln!("debrief: {e:#}");
                    unreadable += 1;
                    accounted.push(&c.path);
                    continue;
                }
            },
            None => None,
        };
        let messages = parsed.as_ref().map_or(0, |p| p.sessions.iter().map(|s| s.messages.len() as u64).sum());
        if let Some(p) = &parsed {
            report_bad(&c.path, &p.bad);
        }
        match Unread::of(fmt, messages) {
            // A file found in a folder walk that no format claims is not a transcript.
            Some(Unread::UnknownFormat) if !c.explicit => {}
            Some(why) => {
                eprintln!("debrief: {}: {why}", c.path.display());
                unreadable += 1;
                accounted.push(&c.path);
            }
            None => {
                files.extend(parsed);
                accounted.push(&c.path);
            }
        }
    }
    // A folder named on the command line that gave nothing, and no line said why.
    for dir in paths.iter().filter(|p| p.is_dir()) {
        if !accounted.iter().any(|p| p.starts_with(dir)) {
            eprintln!("debrief: {}: {}", dir.display(), walk::empty_folder_reason(dir));
            unreadable += 1;
        }
    }
    if files.is_empty() && unreadable > 0 {
        return Err(Reported.into());
    }
    Ok(files)
}

/// The command failed and has said why on stderr already: `main` exits 1 without
/// printing more.
#[derive(Debug)]
pub struct Reported;

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no transcript could be read")
    }
}

impl std::error::Error for Reported {}

/// What `show`, `detect` and `report` say of an empty file (`index` says it too, in its
/// words): there is nothing to read, and no `--format` can change that.
pub const EMPTY_FILE: &str = "empty file, nothing to read";

/// How many bad records a command prints one line each before it sums up the rest: a file
/// read with the wrong `--input-format` has a bad record on every line, and a screenful of
/// the same complaint hides the one line that says what to do.
pub const SHOW_BAD: usize = 10;

/// Print a file's bad records, one line each (at most [`SHOW_BAD`], then one line counting
/// the rest), redacted (a reason may quote the record).
pub fn report_bad(path: &Path, bad: &[BadRecord]) {
    for b in bad.iter().take(SHOW_BAD) {
        match b.line {
            Some(l) => eprintln!("debrief: {}:{l}: {}", path.display(), redact::redact(&b.reason)),
            None => eprintln!("debrief: {}: {}", path.display(), redact::redact(&b.reason)),
        }
    }
    if bad.len() > SHOW_BAD {
        let more = bad.len() - SHOW_BAD;
        eprintln!(
            "debrief: {}: … and {more} more bad record{}",
            path.display(),
            crate::analysis::text::plural(more as u64)
        );
    }
}

/// Terminal styling, off when output is not a terminal or `NO_COLOR` is set.
#[derive(Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    pub fn stdout() -> Style {
        Style { color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none() }
    }
    fn wrap(&self, code: &str, s: &str) -> String {
        if self.color { format!("\x1b[{code}m{s}\x1b[0m") } else { s.to_string() }
    }
    pub fn bold(&self, s: &str) -> String {
        self.wrap("1", s)
    }
    pub fn dim(&self, s: &str) -> String {
        self.wrap("2", s)
    }
    pub fn red(&self, s: &str) -> String {
        self.wrap("31", s)
    }
    pub fn green(&self, s: &str) -> String {
        self.wrap("32", s)
    }
    pub fn yellow(&self, s: &str) -> String {
        self.wrap("33", s)
    }
    pub fn cyan(&self, s: &str) -> String {
        self.wrap("36", s)
    }
    pub fn magenta(&self, s: &str) -> String {
        self.wrap("35", s)
    }
}

pub use crate::analysis::text::display_path;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn when_forms() {
        let now = DateTime::parse_from_rfc3339("2026-03-01T00:00:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(parse_when("2d", now).unwrap().to_rfc3339(), "2026-02-27T00:00:00+00:00");
        assert_eq!(parse_when("2026-02-27", now).unwrap().to_rfc3339(), "2026-02-27T00:00:00+00:00");
        assert_eq!(parse_when("2026-02-27T11:17", now).unwrap().to_rfc3339(), "2026-02-27T11:17:00+00:00");
        assert!(parse_when("soon", now).is_err());
    }
}
