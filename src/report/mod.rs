//! Write-ups: narrative reports of a session, an episode (one finding) or an arc (the
//! findings over a range of messages), rendered from templates.
//!
//! The split:
//! - [`context`] is what every report stands on, gathered once per session: the session,
//!   its findings, the facts of each call, and the facts reports name things by (the
//!   session, a message, an event, a quote). No wording.
//! - [`story`] tells a session as beats around a message, each finding a moment woven into
//!   the beat of its key message ([`story::Story`], over the context); [`stories`] tells
//!   the session's problems; [`belief`] what was believed and what undid it.
//! - One file per report kind gathers its facts into serialisable structs: [`session`],
//!   [`episode`], [`arc`] — quotes, commands, outputs, counts, times, each with the `idx`
//!   it came from.
//! - The templates in `templates/` (embedded; a user folder given with `--templates`
//!   comes first, see [`templates`]) lay the report out per format, and the phrase table
//!   `templates/phrases.toml` words it: variants per detector and situation, chosen by
//!   the facts, each a small template that can only print facts.
//! - [`export`] has one renderer per output format behind a small trait.
//!
//! Redaction happens before any of this, on the session itself
//! ([`crate::redact::Redact`]) and on the findings' summaries and
//! commands (detectors read the transcript as written), so nothing a template prints —
//! quote, excerpt, path, finding, JSON field — can bypass it. The one string left as it
//! is: the session's source path (`facts.session.source`), the user's own file, which a
//! report cites and suggests `debrief report` commands with.

pub mod arc;
pub mod belief;
pub mod context;
pub mod episode;
pub mod export;
pub mod glossary;
pub mod session;
pub mod stories;
pub mod story;
pub mod templates;

use anyhow::Result;
use serde::Serialize;

use crate::detect::{self, Finding};
use crate::model::Session;
use crate::redact::Redactor;
use context::Context;
use glossary::Glossary;

/// Which report to write.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Selector {
    Session,
    /// The episode around the finding keyed on this message (or the message alone).
    Episode(u32),
    /// The arc over messages `from..=to`.
    Arc(u32, u32),
}

/// A report's facts, ready for a renderer.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `session`, `episode` or `arc`: the template family.
    pub kind: &'static str,
    pub facts: serde_json::Value,
}

/// Gather the facts of the selected report from a (redacted) session and its findings.
pub fn build(session: &Session, findings: &[Finding], selector: Selector, glossary: &Glossary) -> Result<Report> {
    let cx = Context::new(session, findings, glossary);
    let (kind, facts) = match selector {
        Selector::Session => ("session", serde_json::to_value(session::report(&cx))?),
        Selector::Episode(n) => {
            let Some(ep) = episode::episode(&cx, n) else {
                crate::usage!(
                    "session {} has no message [msg {n}] (it has {} messages)",
                    session.meta.id,
                    session.messages.len()
                )
            };
            ("episode", serde_json::to_value(ep)?)
        }
        Selector::Arc(a, z) => {
            let Some(arc) = arc::arc(&cx, a, z) else {
                crate::usage!(
                    "session {} has no messages in {a}..{z} (it has {} messages)",
                    session.meta.id,
                    session.messages.len()
                )
            };
            ("arc", serde_json::to_value(arc)?)
        }
    };
    Ok(Report { kind, facts })
}

/// Redact every string of the facts except the glossary's explanations (`technologies`):
/// those are debrief's own text, not the transcript's (`ssh host 'cmd'` is an example);
/// and except a `source` that is the session's source path (`source`): where the file
/// is on this machine, not something it says.
fn redact_facts(r: &Redactor, v: &mut serde_json::Value, source: &str) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                let own_path = k == "source" && x.as_str() == Some(source);
                if k != "technologies" && !own_path {
                    redact_facts(r, x, source);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| redact_facts(r, x, source)),
        serde_json::Value::String(s) => r.redact_string(s),
        _ => {}
    }
}

/// The whole pipeline for one session: detect (on the transcript as written), redact,
/// gather facts, render with `format` (`md`, `html`, `json`). `redact` is the user's
/// extra patterns (maybe none) when redaction is on, `None` when it is off (as for
/// [`crate::index::search::search`]).
pub fn render(
    session: &Session,
    selector: Selector,
    format: &str,
    templates: &templates::Templates,
    redact: Option<&[String]>,
) -> Result<String> {
    let findings = detect::detect_session(detect::registry(), &session.messages);
    render_with(session, findings, selector, format, templates, redact)
}

/// [`render`] with the session's findings already detected (on the transcript as
/// written), for a caller that looked at them first.
pub fn render_with(
    session: &Session,
    mut findings: Vec<Finding>,
    selector: Selector,
    format: &str,
    templates: &templates::Templates,
    redact: Option<&[String]>,
) -> Result<String> {
    let exporter = export::by_id(format)?;
    let mut session = session.clone();
    let redactor = redact.map(|extra| Redactor::for_meta(&session.meta, extra)).transpose()?;
    // Findings quote the transcript as written (summaries, commands): redact them too.
    if let Some(r) = &redactor {
        r.apply(&mut session);
        r.apply(&mut findings);
    }
    let glossary = templates.glossary()?;
    let mut report = build(&session, &findings, selector, &glossary)?;
    if let Some(r) = &redactor {
        // Every string a template can print goes through the redactor once more, so a
        // fact derived in a way that bypassed the session (or a future one) cannot leak.
        redact_facts(r, &mut report.facts, &crate::analysis::text::display_path(&session.meta.source));
    }
    exporter.render(&report, templates)
}
