//! `debrief report`: a narrative write-up of a session, an episode or an arc, in
//! Markdown, HTML or JSON, redacted unless `--no-redact`.

use std::io::Write;

use anyhow::{Context, Result, bail};

use super::show::Range;
use super::{Redaction, format_arg, load, targets};
use crate::cli::{Cli, ReportArgs};
use crate::detect;
use crate::model::Session;
use crate::report::templates::Templates;
use crate::report::{self, Selector, export};

pub fn run(cli: &Cli, args: &ReportArgs) -> Result<i32> {
    // Check the cheap things before reading transcripts.
    export::by_id(&args.format)?;
    let selector = selector(args.episode, args.arc.as_deref())?;
    let redaction = Redaction::from_args(&args.redact)?;
    let templates = match &args.templates {
        Some(dir) => Templates::with_user_dir(dir)?,
        None => Templates::embedded(),
    };
    let format = format_arg(&args.input_format)?;
    let (session, findings) = match &args.team.from {
        // A session someone pushed: its messages as pushed (long outputs trimmed to head
        // and tail), and the findings the pushing machine found over the whole transcript.
        Some(from) => {
            if args.input_format.is_some() {
                crate::usage!("--input-format reads files: a team store holds sessions already read (drop one)");
            }
            let id = match (args.session.as_deref(), args.paths.as_slice()) {
                (None, [one]) => one.to_string_lossy().into_owned(),
                _ => crate::usage!("with --from, name one session by its id (or the start of it), and no --session"),
            };
            let mut team = crate::team::read::Team::open(from)?;
            let read = crate::team::read::session(&mut team, &id, args.team.machine.as_deref())?;
            (read.session, read.findings)
        }
        None => {
            let targets = targets(&cli.index, &args.paths)?;
            // A session id given as the argument chooses the session, as --session does.
            let wanted = args.session.as_deref().or_else(|| targets.iter().find_map(|t| t.session.as_deref()));
            let files = load(&targets, format)?;
            let session = pick_session(files.into_iter().flat_map(|f| f.sessions).collect(), wanted)?;
            let findings = detect::detect_session(detect::registry(), &session.messages);
            (session, findings)
        }
    };
    for note in notes(&session, &findings, selector) {
        eprintln!("debrief: {note}");
    }
    let text = report::render_with(&session, findings, selector, &args.format, &templates, redaction.extra())?;
    match &args.output {
        Some(path) => std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?,
        None => {
            let out = std::io::stdout();
            let mut out = out.lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(0)
}

/// The report `--episode N` or `--arc A..B` asks for (at most one of them), else the
/// session report.
pub fn selector(episode: Option<u32>, arc: Option<&str>) -> Result<Selector> {
    Ok(match (episode, arc) {
        (Some(_), Some(_)) => crate::usage!("ask for an episode or an arc, not both"),
        (Some(n), None) => Selector::Episode(n),
        (None, Some(a)) => {
            let r = Range::parse(a)?;
            Selector::Arc(r.from, r.to)
        }
        (None, None) => Selector::Session,
    })
}

/// What a reader should know about the report asked for before reading it: an arc cut
/// to the session's messages, an episode on a message no finding is keyed on.
pub fn notes(session: &Session, findings: &[detect::Finding], selector: Selector) -> Vec<String> {
    let mut out = Vec::new();
    if let Selector::Arc(a, z) = selector
        && let (Some(first), Some(last)) = (session.messages.first(), session.messages.last())
        && (a < first.idx || (z > last.idx && z != u32::MAX))
        && session.messages.iter().any(|m| (a..=z).contains(&m.idx))
    {
        out.push(format!(
            "session {} has messages {}..{}: the arc covers {}..{}",
            session.meta.id,
            first.idx,
            last.idx,
            a.max(first.idx),
            z.min(last.idx)
        ));
    }
    if let Selector::Episode(n) = selector
        && session.message(n).is_some()
        && !findings.iter().any(|f| f.key == n)
    {
        let keys: Vec<String> = findings.iter().map(|f| format!("[msg {}] {}", f.key, f.detector)).collect();
        out.push(format!(
            "no finding is keyed on [msg {n}]; writing up the message on its own{}",
            if keys.is_empty() { String::new() } else { format!(" (findings: {})", keys.join(", ")) }
        ));
    }
    out
}

/// The one session the report is about: the only one read, or the one `--session`
/// names.
fn pick_session(sessions: Vec<Session>, wanted: Option<&str>) -> Result<Session> {
    let total = sessions.len();
    let mut matching: Vec<Session> =
        sessions.into_iter().filter(|s| wanted.is_none_or(|w| s.meta.id.starts_with(w))).collect();
    match matching.len() {
        1 => Ok(matching.remove(0)),
        0 if total == 0 => bail!("no session found in the paths given"),
        0 => crate::usage!("no session id starts with `{}` ({total} sessions read)", wanted.unwrap_or_default()),
        n => {
            let ids: Vec<String> = matching.iter().take(10).map(|s| s.meta.id.clone()).collect();
            crate::usage!(
                "{n} sessions found; choose one with --session ID: {}{}",
                ids.join(", "),
                if n > 10 { ", …" } else { "" }
            )
        }
    }
}
