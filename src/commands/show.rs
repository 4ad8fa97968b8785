//! `debrief show`: the normalized messages of a transcript, for people or as JSON,
//! redacted unless `--no-redact`.

use std::io::Write;

use anyhow::Result;
use serde_json::json;

use super::{Redaction, Style, display_path, format_arg, load, targets};
use crate::cli::{Cli, ShowArgs};
use crate::model::{Message, Origin, Role, Session};

/// Lines of a tool output shown in the terminal view before trimming.
const OUTPUT_LINES: usize = 12;
const TEXT_CHARS: usize = 2000;

/// An inclusive range of message numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub from: u32,
    pub to: u32,
}

impl Range {
    pub fn parse(s: &str) -> Result<Range> {
        let bad = || anyhow::Error::new(crate::UsageError(format!("bad range `{s}`: use A..B, A.., ..B or N")));
        let num = |t: &str| -> Result<u32> { t.trim().parse::<u32>().map_err(|_| bad()) };
        match s.split_once("..") {
            Some((a, b)) => {
                let from = if a.trim().is_empty() { 1 } else { num(a)? };
                let to = if b.trim().is_empty() { u32::MAX } else { num(b.trim_start_matches('='))? };
                if from > to {
                    crate::usage!("bad range `{s}`: {from} is after {to}");
                }
                Ok(Range { from, to })
            }
            None => {
                let n = num(s)?;
                Ok(Range { from: n, to: n })
            }
        }
    }

    pub fn contains(&self, idx: u32) -> bool {
        (self.from..=self.to).contains(&idx)
    }
}

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.from, self.to) {
            (a, b) if a == b => write!(f, "[msg {a}]"),
            (a, u32::MAX) => write!(f, "{a}.."),
            (a, b) => write!(f, "{a}..{b}"),
        }
    }
}

pub fn run(cli: &Cli, args: &ShowArgs) -> Result<i32> {
    let range = args.range.as_deref().map(Range::parse).transpose()?;
    let redaction = Redaction::from_args(&args.redact)?;
    let format = format_arg(&args.input_format)?;
    // The machine each file's sessions came from (with --from).
    let mut machines: Vec<Option<String>> = Vec::new();
    let mut files = match &args.team.from {
        None => load(&targets(&cli.index, &args.paths)?, format)?,
        Some(from) => {
            if args.input_format.is_some() {
                crate::usage!("--input-format reads files: a team store holds sessions already read (drop one)");
            }
            let mut team = crate::team::read::Team::open(from)?;
            let mut files = Vec::new();
            for id in &args.paths {
                let crate::team::read::TeamSessionRead { session, machine, .. } =
                    crate::team::read::session(&mut team, &id.to_string_lossy(), args.team.machine.as_deref())?;
                let format = crate::formats::by_id(&session.meta.format).unwrap_or(crate::formats::all()[0]);
                files.push(crate::formats::ParsedFile {
                    format,
                    sessions: vec![session],
                    bad: Vec::new(),
                    unknown: Default::default(),
                    pending_tail: false,
                });
                machines.push(Some(machine));
            }
            files
        }
    };
    for s in files.iter_mut().flat_map(|f| &mut f.sessions) {
        redaction.session(s)?;
    }
    if let Some(r) = range
        && !files.iter().flat_map(|f| &f.sessions).any(|s| s.messages.iter().any(|m| r.contains(m.idx)))
    {
        let sizes: Vec<String> = files
            .iter()
            .flat_map(|f| &f.sessions)
            .take(5)
            .map(|s| {
                format!(
                    "{} has {} message{}",
                    s.meta.id,
                    s.messages.len(),
                    if s.messages.len() == 1 { "" } else { "s" }
                )
            })
            .collect();
        crate::usage!(
            "no message in {}: {}",
            r,
            if sizes.is_empty() { "no session was read".into() } else { sizes.join(", ") }
        );
    }
    let out = std::io::stdout();
    let mut out = out.lock();
    let style = Style::stdout();
    for (n, file) in files.iter().enumerate() {
        let machine = machines.get(n).cloned().flatten();
        // With a range, only the sessions that have messages in it.
        for s in file.sessions.iter().filter(|s| range.is_none_or(|r| s.messages.iter().any(|m| r.contains(m.idx)))) {
            if !args.json {
                print_header(&mut out, s, style)?;
            }
            let started = commands_by_call(s);
            for m in s.messages.iter().filter(|m| range.is_none_or(|r| r.contains(m.idx))) {
                if args.json {
                    let mut v = message_json(s, m, args.max_output);
                    if let Some(name) = &machine {
                        v["machine"] = json!(name);
                    }
                    writeln!(out, "{v}")?;
                } else {
                    print_message(&mut out, m, style, args.full, &started)?;
                }
            }
        }
    }
    Ok(0)
}

/// The contract's JSON shape for one message (plus `origin`, `thinking`, and per call
/// `input` and `interrupted`).
pub fn message_json(s: &Session, m: &Message, max_output: Option<usize>) -> serde_json::Value {
    let calls: Vec<serde_json::Value> = m
        .calls
        .iter()
        .map(|c| {
            let r = c.result.as_ref();
            let output = r.map(|r| match max_output {
                Some(n) if r.output.chars().count() > n => r.output.chars().take(n).collect::<String>(),
                _ => r.output.clone(),
            });
            json!({
                "id": c.id,
                "name": c.name,
                "command": c.command,
                "output": output,
                "exit_code": r.and_then(|r| r.exit_code),
                "is_error": r.map(|r| r.is_error),
                "interrupted": r.map(|r| r.interrupted),
                "timed_out": r.map(|r| r.timed_out),
                "running": r.map(|r| r.running),
                "continues": c.continues,
                "input": c.input,
            })
        })
        .collect();
    json!({
        "source": s.meta.source,
        "session": s.meta.id,
        "format": s.meta.format,
        "idx": m.idx,
        "line": m.line,
        "end_line": m.end_line,
        "role": m.role.as_str(),
        "origin": m.origin,
        "timestamp": m.timestamp,
        "text": m.text,
        "thinking": if m.thinking.is_empty() { None } else { Some(&m.thinking) },
        "calls": calls,
    })
}

fn print_header(out: &mut impl Write, s: &Session, style: Style) -> Result<()> {
    let m = &s.meta;
    let when = m.started.map(|t| t.format("%Y-%m-%d %H:%M").to_string()).unwrap_or_else(|| "?".into());
    writeln!(
        out,
        "{} {} · {} · {} · {} messages · {}",
        style.bold("session"),
        style.cyan(&m.id),
        m.agent,
        m.project.as_deref().unwrap_or("-"),
        s.messages.len(),
        when
    )?;
    writeln!(out, "{}", style.dim(&display_path(&m.source)))?;
    if let Some(parent) = &m.parent_session {
        let how = match (m.forked_after, &m.parent_call) {
            (Some(n), _) => format!("abandoned branch of session {parent}: it left the conversation after [msg {n}]"),
            (None, Some(call)) => format!("subagent of session {parent}, run by its call {call}"),
            (None, None) => format!("subagent of session {parent}"),
        };
        writeln!(out, "{}", style.dim(&how))?;
    }
    if let Some(from) = &m.started_from {
        writeln!(out, "{}", style.dim(&format!("started from session {from}, carrying it on")))?;
    }
    writeln!(out)?;
    Ok(())
}

fn trim_chars(s: &str, n: usize) -> (String, usize) {
    let total = s.chars().count();
    if total <= n { (s.to_string(), 0) } else { (s.chars().take(n).collect(), total - n) }
}

/// Where each call of a session ran its command: what a later read of the same
/// process's output points back to.
fn commands_by_call(s: &Session) -> std::collections::HashMap<&str, (u32, &str)> {
    s.messages
        .iter()
        .flat_map(|m| m.calls.iter().filter_map(move |c| Some((c.id.as_str(), (m.idx, c.command.as_deref()?)))))
        .collect()
}

fn print_message(
    out: &mut impl Write,
    m: &Message,
    style: Style,
    full: bool,
    started: &std::collections::HashMap<&str, (u32, &str)>,
) -> Result<()> {
    let role = match (m.role, m.origin) {
        (Role::User, Origin::Interrupt) => style.yellow("user (interrupt)"),
        (Role::User, _) => style.green("user"),
        (Role::Assistant, _) => style.cyan("assistant"),
        (Role::Tool, _) => style.magenta("tool"),
        (Role::System, Origin::CompactSummary) => style.dim("system (compaction summary)"),
        (Role::System, _) => style.dim("system"),
    };
    let when = m.timestamp.map(|t| t.format("%H:%M:%S").to_string()).unwrap_or_default();
    let lines = match (m.line, m.end_line) {
        (Some(a), Some(b)) if b > a => format!("lines {a}-{b}"),
        (Some(a), _) => format!("line {a}"),
        _ => String::new(),
    };
    writeln!(out, "{} {} {}", style.bold(&format!("[msg {}]", m.idx)), role, style.dim(&format!("{when} {lines}")))?;
    if !m.thinking.is_empty() {
        let (t, more) = if full { (m.thinking.clone(), 0) } else { trim_chars(&m.thinking, 400) };
        for l in t.lines() {
            writeln!(out, "  {}", style.dim(&format!("∴ {l}")))?;
        }
        if more > 0 {
            writeln!(out, "  {}", style.dim(&format!("∴ … {more} more characters")))?;
        }
    }
    if m.text.is_empty() && m.calls.is_empty() {
        writeln!(out, "  {}", style.dim("(empty)"))?;
    }
    let (text, more) = if full { (m.text.clone(), 0) } else { trim_chars(&m.text, TEXT_CHARS) };
    for l in text.lines() {
        writeln!(out, "  {l}")?;
    }
    if more > 0 {
        writeln!(out, "  {}", style.dim(&format!("… {more} more characters (--full shows all)")))?;
    }
    for c in &m.calls {
        match &c.command {
            Some(cmd) => {
                let mut lines = cmd.lines();
                writeln!(out, "  {} {}", style.bold("$"), lines.next().unwrap_or(""))?;
                for l in lines {
                    writeln!(out, "    {l}")?;
                }
            }
            None => {
                let input = c.input.to_string();
                let (shown, more) = if full { (input, 0) } else { trim_chars(&input, 160) };
                let ellipsis = if more > 0 { "…" } else { "" };
                writeln!(out, "  {} {}", style.bold(&c.name), style.dim(&format!("{shown}{ellipsis}")))?;
            }
        }
        if let Some((idx, cmd)) = c.continues.as_deref().and_then(|id| started.get(id)) {
            let (cmd, more) = trim_chars(cmd.lines().next().unwrap_or(""), 120);
            let ellipsis = if more > 0 { "…" } else { "" };
            writeln!(out, "    {}", style.dim(&format!("↳ output of `{cmd}{ellipsis}` [msg {idx}]")))?;
        }
        let Some(r) = &c.result else {
            writeln!(out, "    {}", style.dim("(no result)"))?;
            continue;
        };
        let all: Vec<&str> = r.output.lines().collect();
        let shown = if full || all.len() <= OUTPUT_LINES { all.len() } else { OUTPUT_LINES };
        for l in &all[..shown] {
            let (l, more) = if full { (l.to_string(), 0) } else { trim_chars(l, 200) };
            let ellipsis = if more > 0 { "…" } else { "" };
            writeln!(out, "    {} {l}{ellipsis}", style.dim("│"))?;
        }
        if shown < all.len() {
            writeln!(out, "    {}", style.dim(&format!("│ … {} more lines", all.len() - shown)))?;
        }
        let mut status = Vec::new();
        if let Some(code) = r.exit_code {
            status.push(format!("exit {code}"));
        }
        if r.is_error {
            status.push("error".into());
        }
        if r.interrupted {
            status.push("interrupted".into());
        }
        if r.timed_out {
            status.push("timed out".into());
        }
        if r.running {
            status.push("still running".into());
        }
        if !status.is_empty() {
            let s = status.join(", ");
            let s = if r.is_error || r.interrupted { style.red(&s) } else { style.dim(&s) };
            writeln!(out, "    {s}")?;
        }
    }
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(Range::parse("5080..5087").unwrap(), Range { from: 5080, to: 5087 });
        assert_eq!(Range::parse("10..").unwrap(), Range { from: 10, to: u32::MAX });
        assert_eq!(Range::parse("..3").unwrap(), Range { from: 1, to: 3 });
        assert_eq!(Range::parse("7").unwrap(), Range { from: 7, to: 7 });
        assert!(Range::parse("9..3").is_err());
        assert!(Range::parse("a..b").is_err());
    }
}
