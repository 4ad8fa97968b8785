//! Redaction takes nothing it should not (issue 18): over real sessions, how many of the
//! things a reader needs and no rule should touch come through redaction unchanged —
//! source and project paths (the user's name in a home folder is meant to go, the rest
//! of the path stays), commit hashes, UUIDs, version numbers, and package names with `@`
//! (`@scope/pkg`, `pkg@1.2.3`).
//!
//! Every field of every message (text, thinking, commands, tool inputs, outputs) of the
//! real transcripts of `../shared/corpus-real` and `../shared/corpus-real-new` (and of the
//! real set, `$DEBRIEF_EVAL_REAL`, when present; files up to 600 KB), each redacted with
//! its session's redactor as every output redacts it: a token counts as kept when the
//! redacted field still holds it. The figures are printed; the test fails when a kind
//! keeps less than its floor (the floors are the measured figures, rounded down), and
//! prints what was lost. The source path itself is never redacted (see
//! `tests/redaction.rs`).

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use debrief::model::Session;
use debrief::redact::Redactor;
use regex::Regex;

/// The kinds, their patterns, and the share of tokens each must keep.
fn kinds() -> Vec<(&'static str, Regex, f64)> {
    let re = |s: &str| Regex::new(s).expect("regex");
    vec![
        // A path of three parts or more (not a URL's); in a home folder, the part after
        // the user name.
        ("path", re(r#"(?:^|[\s"'(=\[`,])((?:~|\.{1,2})?(?:/[A-Za-z0-9_.+-]+){3,})"#), 0.995),
        // Two hex strings of the real transcripts are rightly taken: one typed at a
        // `Password:` prompt (a CTF flag) and one assigned as an API key in code.
        ("commit hash", re(r"\b[0-9a-f]{7,40}\b"), 0.998),
        ("UUID", re(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), 0.999),
        ("version", re(r"\bv?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.]+)?\b"), 0.999),
        ("@scope/package", re(r"@[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*(?:@[0-9][0-9A-Za-z.^~-]*)?"), 0.995),
        ("package@version", re(r"\b[a-z][a-z0-9._-]*@\^?~?\d+\.\d+(?:\.\d+)?\b"), 0.999),
    ]
}

fn texts(s: &Session) -> Vec<String> {
    let mut out = Vec::new();
    for m in &s.messages {
        out.push(m.text.clone());
        out.push(m.thinking.clone());
        for c in &m.calls {
            out.extend(c.command.clone());
            out.push(c.input.to_string());
            out.extend(c.result.as_ref().map(|r| r.output.clone()));
        }
    }
    out.extend(s.meta.cwd.clone());
    out.retain(|t| !t.is_empty());
    out
}

/// What a token must look like after redaction: a path keeps all but the user's name
/// (the home folder's, and the session user's wherever it is a word: a project folder
/// named after its owner, Claude Code's `-home-ann-…` folders).
fn expected(kind: &str, token: &str, user: Option<&str>) -> String {
    if kind != "path" {
        return token.to_string();
    }
    let home = Regex::new(r"^(.*?/(?:home|Users)/)([^/]+)(/.*)?$").expect("regex");
    let generic = |u: &str| matches!(u, "root" | "ubuntu" | "runner" | "user" | "admin");
    let mut out = match home.captures(token) {
        Some(c) if !generic(&c[2]) => format!("{}[USER]{}", &c[1], c.get(3).map_or("", |m| m.as_str())),
        _ => token.to_string(),
    };
    if let Some(u) = user.filter(|u| u.len() >= 3 && !generic(u)) {
        let word = Regex::new(&format!(r"(?i)\b{}\b", regex::escape(u))).expect("regex");
        out = word.replace_all(&out, "[USER]").into_owned();
    }
    out
}

#[test]
fn paths_hashes_uuids_versions_and_packages_come_through() {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut sets: Vec<PathBuf> = [common::real_dir(), common::real_new_dir()].into_iter().flatten().collect();
    if let Some(d) = std::env::var_os("DEBRIEF_EVAL_REAL").map(PathBuf::from).filter(|d| d.is_dir()) {
        sets.push(d);
    }
    if sets.is_empty() {
        return;
    }
    for d in &sets {
        for e in walkdir::WalkDir::new(d).sort_by_file_name().into_iter().filter_map(Result::ok) {
            if e.file_type().is_file() && e.metadata().is_ok_and(|m| m.len() <= 600 << 10) {
                files.push(e.into_path());
            }
        }
    }
    let kinds = kinds();
    // kind → (tokens, kept), and some lost ones.
    let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut lost: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut sessions = 0;
    for f in &files {
        let Ok(head) = debrief::formats::read_head(f) else { continue };
        if debrief::formats::detect(f, &head).is_none() {
            continue;
        }
        let Ok(parsed) = debrief::formats::parse_file(f, None) else { continue };
        for s in &parsed.sessions {
            sessions += 1;
            let r = Redactor::for_meta(&s.meta, &[]).expect("redactor");
            for t in texts(s) {
                let red = r.redact(&t);
                for (kind, re, _) in &kinds {
                    for c in re.captures_iter(&t) {
                        let Some(m) = c.get(1).or(c.get(0)) else { continue };
                        // Three parts of an IP address are no version (`172.18.0.5`).
                        let after = &t[m.end()..];
                        let before = &t[..m.start()];
                        if after.starts_with('.') && after[1..].starts_with(|ch: char| ch.is_ascii_digit())
                            || before.ends_with('.')
                                && before[..before.len() - 1].ends_with(|ch: char| ch.is_ascii_digit())
                        {
                            continue;
                        }
                        let e = tally.entry(kind).or_default();
                        e.0 += 1;
                        let want = expected(kind, m.as_str(), s.meta.user.as_deref());
                        if red.contains(&want) {
                            e.1 += 1;
                        } else {
                            let l = lost.entry(kind).or_default();
                            if l.len() < 8 {
                                let at = red.find(&m.as_str()[..m.len().min(4)]).unwrap_or(0);
                                let from = red.floor_char_boundary(at.saturating_sub(40));
                                let to = red.ceil_char_boundary((at + 80).min(red.len()));
                                l.push(format!("{:?} → {:?}", m.as_str(), &red[from..to]));
                            }
                        }
                    }
                }
            }
        }
    }
    let mut report = format!("{} files, {sessions} sessions:\n", files.len());
    let mut failures = Vec::new();
    for (kind, _, floor) in &kinds {
        let (n, kept) = tally.get(kind).copied().unwrap_or_default();
        let share = if n == 0 { 1.0 } else { kept as f64 / n as f64 };
        report.push_str(&format!("  {kind:<16} {kept:>7} of {n:>7} kept ({:.3}%)\n", share * 100.0));
        for l in lost.get(kind).into_iter().flatten() {
            report.push_str(&format!("      lost {l}\n"));
        }
        if share < *floor {
            failures.push(format!("{kind}: {:.3}% kept, below {:.1}%", share * 100.0, floor * 100.0));
        }
    }
    eprintln!("{report}");
    assert!(failures.is_empty(), "{}\n{report}", failures.join("\n"));
}
