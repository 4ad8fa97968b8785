//! "Seen before": given an error line or a command, the past sessions where it
//! occurred, and what followed each time — the next commands and edits, and whether the
//! error stopped — most recent first.
//!
//! The index finds candidate messages (every distinctive word of the line, ANDed); each
//! candidate session is then read and checked line by line: an occurrence is a line of
//! a tool output or of a message's text (an error pasted by the user counts) that holds
//! most of the line's words, or a call whose command does. Words that change from one
//! run to the next (numbers, hashes, addresses, ids) are left out of both, so
//! `CUDA out of memory. Tried to allocate 2.00 GiB` finds the run that tried 1.50.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use anyhow::Result;
use serde_json::{Value, json};

use super::tools::{Context, SeenBeforeParams, cursor, cut, next_cursor, page_size};
use crate::analysis::calls::{edited_files, failed};
use crate::index::search::{self, Order};
use crate::index::tokenizer::query_words;
use crate::model::{Call, Message, Session};
use crate::redact::Redactor;

/// Words of the line that the index is asked for (the longest: the most telling).
const SEARCH_WORDS: usize = 8;
/// Words of the line kept for matching.
const KEY_WORDS: usize = 24;
/// Key words a line may miss and still be an occurrence: one in this many (a path
/// under another home folder, a word the line wraps). A short line must hold them all:
/// `test_dates` failing is not `test_times` failing.
const MAY_MISS: usize = 8;
/// Candidate hits read from the index, and candidate sessions read from their files.
const MAX_HITS: usize = 400;
const MAX_SESSIONS_READ: usize = 40;
/// Occurrences told per session (the first ones and the last ones).
const EPISODES: usize = 4;
/// Characters of a line or command shown.
const SHOWN: usize = 300;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Error,
    Command,
}

/// A word that differs between two runs of the same thing: a number, a hash, an
/// address, a long id with digits in it.
fn volatile(w: &str) -> bool {
    let digits = w.chars().filter(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let alnum: String = w.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    let hex = alnum.chars().all(|c| c.is_ascii_hexdigit());
    digits == alnum.len() || (hex && alnum.len() >= 7) || alnum.len() >= 16 || w.starts_with("0x")
}

/// The words that say what the line is, in order, without repeats.
fn key_words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    query_words(text).into_iter().filter(|w| !volatile(w) && seen.insert(w.clone())).take(KEY_WORDS).collect()
}

/// Whether `text` holds enough of the key words.
fn matches(text: &str, key: &[String]) -> bool {
    if key.is_empty() {
        return false;
    }
    let words: HashSet<String> = query_words(text).into_iter().collect();
    let have = key.iter().filter(|w| words.contains(*w)).count();
    have >= key.len() - key.len() / MAY_MISS
}

/// Where and how the thing occurred in one message.
struct Occurrence<'s> {
    msg: &'s Message,
    /// The call it came from (its place in the message's calls), if any.
    call: Option<(usize, &'s Call)>,
    /// The line of the call's output or of the message's text that matched (error); the
    /// call's command (command) when `None`.
    line: Option<usize>,
}

fn occurrence<'s>(m: &'s Message, kind: Kind, key: &[String]) -> Option<Occurrence<'s>> {
    match kind {
        Kind::Command => m.calls.iter().enumerate().find_map(|(i, c)| {
            let cmd = c.command.as_deref()?;
            matches(cmd, key).then_some(Occurrence { msg: m, call: Some((i, c)), line: None })
        }),
        Kind::Error => {
            for (i, c) in m.calls.iter().enumerate() {
                if let Some(r) = &c.result
                    && let Some(n) = r.output.lines().position(|l| matches(l, key))
                {
                    return Some(Occurrence { msg: m, call: Some((i, c)), line: Some(n) });
                }
            }
            m.text.lines().position(|l| matches(l, key)).map(|n| Occurrence { msg: m, call: None, line: Some(n) })
        }
    }
}

/// The session's messages as this answer shows them: each one it quotes is redacted
/// whole, through the model's `Redact` impl — the one place that decides what every
/// output shows, as `read_messages`, `show` and `search` go through it — before any of it
/// is cut; each message once.
struct Shown<'r> {
    redactor: Option<&'r Redactor>,
    done: RefCell<HashMap<u32, Rc<Message>>>,
}

impl<'r> Shown<'r> {
    fn new(redactor: Option<&'r Redactor>) -> Self {
        Shown { redactor, done: RefCell::new(HashMap::new()) }
    }

    fn message(&self, m: &Message) -> Rc<Message> {
        let mut done = self.done.borrow_mut();
        let shown = done.entry(m.idx).or_insert_with(|| {
            let mut m = m.clone();
            if let Some(r) = self.redactor {
                r.apply(&mut m);
            }
            Rc::new(m)
        });
        Rc::clone(shown)
    }

    /// What an occurrence quotes: the line that matched, or the command.
    fn text(&self, o: &Occurrence, key: &[String]) -> String {
        let m = self.message(o.msg);
        let call = o.call.and_then(|(i, _)| m.calls.get(i));
        let Some(n) = o.line else { return clip(call.and_then(|c| c.command.as_deref()).unwrap_or("")) };
        let (raw, shown) = match (o.call, call) {
            (Some((_, c)), Some(s)) => (
                c.result.as_ref().map_or("", |r| r.output.as_str()),
                s.result.as_ref().map_or("", |r| r.output.as_str()),
            ),
            _ => (o.msg.text.as_str(), m.text.as_str()),
        };
        // Redaction that took a line break with it (a private key's block) moves the
        // lines: then the shown line is the one holding most of the words.
        let lines: Vec<&str> = shown.lines().collect();
        let line = if lines.len() == raw.lines().count() {
            lines.get(n).copied()
        } else {
            lines.iter().copied().max_by_key(|l| {
                let words: HashSet<String> = query_words(l).into_iter().collect();
                key.iter().filter(|w| words.contains(*w)).count()
            })
        };
        clip(line.unwrap_or(""))
    }
}

/// One step taken after an occurrence: a command run, or files edited (the call `i` of
/// message `m`; what it says, from the message as shown).
fn action(m: &Message, i: usize, shown: &Shown) -> Option<Value> {
    let c = &m.calls[i];
    let sm = shown.message(m);
    let sc = sm.calls.get(i)?;
    let files: Vec<String> = edited_files(sc).iter().map(|f| clip(f)).collect();
    if !files.is_empty() && c.command.is_none() {
        return Some(json!({"msg": m.idx, "cite": format!("[msg {}]", m.idx), "edit": files, "tool": sc.name}));
    }
    let cmd = sc.command.as_deref()?;
    let res = c.result.as_ref();
    let mut v = json!({
        "msg": m.idx,
        "cite": format!("[msg {}]", m.idx),
        "command": clip(cmd),
        "exit_code": res.and_then(|x| x.exit_code),
        "failed": res.map(|_| failed(c)),
    });
    if !files.is_empty() {
        v["edit"] = files.into();
    }
    Some(v)
}

/// A string of a message as shown (already redacted), cut.
fn clip(s: &str) -> String {
    cut(s.trim(), SHOWN).0
}

/// Commands with the same words (flags and paths in the same places).
fn same_command(a: &str, b: &str) -> bool {
    let wa: Vec<String> = query_words(a);
    let wb: Vec<String> = query_words(b);
    wa == wb
}

/// What one session says about the thing: `None` when it does not occur in it after
/// all (the words were in one message, not on one line).
fn analyse(s: &Session, kind: Kind, key: &[String], followups: usize, r: Option<&Redactor>) -> Option<Value> {
    let shown = Shown::new(r);
    let occ: Vec<Occurrence> = s.messages.iter().filter_map(|m| occurrence(m, kind, key)).collect();
    let (first, last) = (occ.first()?, occ.last()?);
    let shown_occ: Vec<usize> = if occ.len() <= EPISODES {
        (0..occ.len()).collect()
    } else {
        let mut v: Vec<usize> = (0..EPISODES / 2).collect();
        v.extend(occ.len() - EPISODES / 2..occ.len());
        v
    };
    let mut episodes = Vec::new();
    for &i in &shown_occ {
        let o = &occ[i];
        let until = occ.get(i + 1).map_or(u32::MAX, |n| n.msg.idx);
        let mut followed = Vec::new();
        // The rest of the occurrence's own message (the calls after the one that printed
        // it), then the messages up to the next occurrence.
        let own = o.call.map_or(0, |(i, _)| i + 1);
        let later = s.messages.iter().filter(|m| m.idx > o.msg.idx && m.idx < until);
        let steps = (own.min(o.msg.calls.len())..o.msg.calls.len())
            .map(|i| (o.msg, i))
            .chain(later.flat_map(|m| (0..m.calls.len()).map(move |i| (m, i))));
        for (m, i) in steps {
            if followed.len() >= followups {
                break;
            }
            followed.extend(action(m, i, &shown));
        }
        let call = o.call.map(|(_, c)| c);
        let res = call.and_then(|c| c.result.as_ref());
        let command = o.call.and_then(|(i, _)| shown.message(o.msg).calls.get(i)?.command.as_deref().map(clip));
        episodes.push(json!({
            "msg": o.msg.idx,
            "cite": format!("[msg {}]", o.msg.idx),
            "line": res.and_then(|x| x.line).or(o.msg.line),
            "timestamp": o.msg.timestamp,
            "text": shown.text(o, key),
            "command": command,
            "exit_code": res.and_then(|x| x.exit_code),
            "failed": call.filter(|c| c.result.is_some()).map(failed),
            "next_occurrence": occ.get(i + 1).map(|n| format!("[msg {}]", n.msg.idx)),
            "followed": followed,
        }));
    }
    let (stopped, how) = match kind {
        Kind::Error => error_stopped(s, last, &shown),
        Kind::Command => command_stopped(&occ),
    };
    let mut meta = s.meta.clone();
    if let Some(r) = r {
        r.apply(&mut meta);
    }
    Some(json!({
        "session": meta.id,
        "agent": meta.format,
        "project": meta.project,
        "title": meta.title,
        "started": meta.started,
        "source": meta.source,
        "last_seen": last.msg.timestamp.or(meta.ended),
        "occurrences": occ.len(),
        "first": format!("[msg {}]", first.msg.idx),
        "last": format!("[msg {}]", last.msg.idx),
        "stopped": stopped,
        "stopped_how": how,
        "episodes": episodes,
        "writeup": {"session": meta.id, "episode": first.msg.idx},
    }))
}

/// Whether an error stopped after its last occurrence: the command that printed it ran
/// again without it, or other commands ran and none printed it; unknown when nothing ran.
fn error_stopped(s: &Session, last: &Occurrence, shown: &Shown) -> (Value, String) {
    let after: Vec<(&Message, &Call)> = s
        .messages
        .iter()
        .filter(|m| m.idx > last.msg.idx)
        .flat_map(|m| m.calls.iter().map(move |c| (m, c)))
        .filter(|(_, c)| c.command.is_some())
        .collect();
    let printed_by = last.call.and_then(|(i, c)| Some((i, c.command.as_deref()?)));
    if let Some((i, cmd)) = printed_by
        && let Some((m, c)) = after.iter().find(|(_, c)| c.command.as_deref().is_some_and(|x| same_command(x, cmd)))
    {
        let exit = c.result.as_ref().and_then(|x| x.exit_code).map(|e| format!(", exit {e}")).unwrap_or_default();
        let cmd = shown.message(last.msg).calls.get(i).and_then(|c| c.command.as_deref()).map(clip).unwrap_or_default();
        return (Value::Bool(true), format!("`{cmd}` ran again at [msg {}]{exit} without printing it", m.idx));
    }
    match after.len() {
        0 => (
            Value::Null,
            format!("no command ran after its last occurrence [msg {}]: the session ends there", last.msg.idx),
        ),
        n => (
            Value::Bool(true),
            format!(
                "{n} command{} ran after its last occurrence [msg {}], and none printed it again",
                if n == 1 { "" } else { "s" },
                last.msg.idx
            ),
        ),
    }
}

/// Whether a command stopped failing: how its last run ended.
fn command_stopped(occ: &[Occurrence]) -> (Value, String) {
    let runs: Vec<(&Message, &Call)> = occ.iter().filter_map(|o| Some((o.msg, o.call?.1))).collect();
    let failures = runs.iter().filter(|(_, c)| failed(c)).count();
    let Some((m, c)) = runs.last() else { return (Value::Null, "it never ran".into()) };
    let exit = c.result.as_ref().and_then(|x| x.exit_code).map(|e| format!(" (exit {e})")).unwrap_or_default();
    match (failures, failed(c)) {
        (0, _) => (Value::Null, format!("it ran {} time(s) and never failed", runs.len())),
        (n, false) => (
            Value::Bool(true),
            format!("it failed {n} of {} runs; the last, [msg {}]{exit}, succeeded", runs.len(), m.idx),
        ),
        (n, true) => (
            Value::Bool(false),
            format!("it failed {n} of {} runs, the last one too: [msg {}]{exit}", runs.len(), m.idx),
        ),
    }
}

pub fn seen_before(cx: &Context, p: SeenBeforeParams) -> Result<Value> {
    let (kind, text) = match (&p.error, &p.command) {
        (Some(e), None) => (Kind::Error, e.as_str()),
        (None, Some(c)) => (Kind::Command, c.as_str()),
        _ => crate::usage!("give either `error` (an error line) or `command` (a command line), not both or neither"),
    };
    let key = key_words(text);
    if key.is_empty() {
        crate::usage!("`{}` has no word to look for (numbers, hashes and punctuation are not)", text.trim());
    }
    let limit = page_size(p.limit, 5, 20, "limit")?;
    let followups = page_size(p.followups, 5, 15, "followups")?;
    let offset = cursor(&p.cursor, "seen_before")?;
    let f = crate::commands::filters(&crate::cli::FilterArgs {
        agent: p.agent.clone(),
        project: p.project.clone(),
        since: p.since.clone(),
        until: p.until.clone(),
        ..Default::default()
    })?;
    let ix = cx.index()?;
    // The session the agent is in may not be indexed yet: left out by its id's start.
    let excluded = p.exclude_session.as_deref().map(str::trim).filter(|s| !s.is_empty());
    let mut by_length = key.clone();
    by_length.sort_by_key(|w| std::cmp::Reverse(w.chars().count()));
    by_length.truncate(SEARCH_WORDS);
    // Words as the query language reads them: each one alone (a word with punctuation
    // is the phrase of its parts).
    let query = by_length.join(" ");
    let mut found: Vec<Value> = Vec::new();
    let mut seen_sessions: HashSet<(std::path::PathBuf, String)> = HashSet::new();
    let mut read = 0usize;
    let mut at = 0usize;
    let want = offset + limit + 1;
    'pages: while at < MAX_HITS && found.len() < want {
        let hits = search::search_page(&ix, &query, &f, Order::Newest, at, 50, None)?;
        if hits.is_empty() {
            break;
        }
        at += hits.len();
        for h in hits {
            if excluded.is_some_and(|x| h.session.starts_with(x))
                || !seen_sessions.insert((h.source.clone(), h.session.clone()))
            {
                continue;
            }
            if read >= MAX_SESSIONS_READ {
                break 'pages;
            }
            read += 1;
            // A file that cannot be read now is left out, not the whole answer.
            let Ok(session) = cx.session(&h.source, &h.agent, &h.session) else { continue };
            let redactor = cx.redactor(&session.meta)?;
            if let Some(v) = analyse(&session, kind, &key, followups, redactor.as_ref()) {
                found.push(v);
                if found.len() >= want {
                    break 'pages;
                }
            }
        }
    }
    // Most recent first, by when it was last seen.
    found.sort_by(|a, b| b["last_seen"].as_str().unwrap_or("").cmp(a["last_seen"].as_str().unwrap_or("")));
    let more = found.len() > offset + limit;
    let page: Vec<Value> = found.into_iter().skip(offset).take(limit).collect();
    let words: Vec<String> = match cx.redaction.extra() {
        Some(_) => key.iter().map(|w| crate::redact::redact(w).into_owned()).collect(),
        None => key.clone(),
    };
    Ok(json!({
        "kind": if kind == Kind::Error { "error" } else { "command" },
        "matched_on": words,
        "sessions": page,
        "next_cursor": next_cursor("seen_before", offset + limit, more),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volatile_words_are_left_out() {
        let key = key_words("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB at 0x7f3a9c (pid 48213)");
        assert!(key.contains(&"runtimeerror".to_string()) && key.contains(&"cuda".to_string()), "{key:?}");
        assert!(!key.iter().any(|w| w.contains("48213") || w.starts_with("0x")), "{key:?}");
        // Error codes with digits stay: they are the error.
        assert!(key_words("error[E0382]: borrow of moved value").contains(&"e0382".to_string()));
    }

    #[test]
    fn what_is_quoted_comes_from_the_message_redacted_whole() {
        // A private key printed before the error: redacted whole, its block becomes one
        // line, and the line quoted is still the error's, with the token in it gone.
        let body: String =
            (0..6).map(|i| format!("MIIEow{i}AIBAAKCAQEAx9Lq2hZ0Tnb5vWd8Rk3Yp7Cq1Jf4Ue6Gs9Hm2Xa\n")).collect();
        // Made of two pieces, so that no key-shaped string is committed.
        let token = format!("ghp_{}{}", "R8mX2kQ9vL4nT7wZ1cY6", "bH3pF5sD0jGa8uEe");
        let output = format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----\n\
             remote: Invalid credentials for x-access-token:{token}\nfatal: Authentication failed"
        );
        let call = Call {
            name: "Bash".into(),
            command: Some(format!("git push https://x-access-token:{token}@github.com/acme/app.git")),
            result: Some(crate::model::CallResult { output, exit_code: Some(128), ..Default::default() }),
            ..Default::default()
        };
        let s = Session {
            messages: vec![Message { idx: 1, calls: vec![call], ..Default::default() }],
            ..Default::default()
        };
        let key = key_words("remote: Invalid credentials for x-access-token");
        let r = Redactor::for_meta(&s.meta, &[]).expect("redactor");
        let v = analyse(&s, Kind::Error, &key, 5, Some(&r)).expect("an occurrence");
        let ep = &v["episodes"][0];
        let text = ep["text"].as_str().expect("text");
        assert!(text.starts_with("remote: Invalid credentials for x-access-token:[REDACTED"), "{ep}");
        assert!(!ep.to_string().contains("R8mX2kQ9"), "{ep}");
        // Without redaction the line is the same line, as written.
        let v = analyse(&s, Kind::Error, &key, 5, None).expect("an occurrence");
        assert_eq!(v["episodes"][0]["text"], format!("remote: Invalid credentials for x-access-token:{token}"));
    }

    #[test]
    fn a_line_matches_when_it_holds_most_words() {
        let key = key_words("ModuleNotFoundError: No module named 'transformers.models.glm4v_moe'");
        assert!(matches("E   ModuleNotFoundError: No module named 'transformers.models.glm4v_moe'", &key));
        // Another module is another error.
        assert!(!matches("ModuleNotFoundError: No module named 'numpy'", &key), "{key:?}");
        assert!(!matches("No module here", &key));
        // A long line may miss one word in eight (here the user's home folder).
        let long = "FileNotFoundError: [Errno 2] No such file or directory: '/home/ann/src/app/config/settings.yaml'";
        let key = key_words(long);
        assert!(matches(&long.replace("ann", "bob"), &key), "{key:?}");
    }
}
