//! The shared context of every report: the session, its findings and the facts of each
//! call, gathered once — and the facts all reports name things by (the session, a
//! message, an event, a quote). Nothing here is worded for the reader — that is the
//! templates' and the phrase table's job — and nothing is invented: every field is a
//! quote, a command, an output line, a count or a time taken from the transcript, with
//! the `idx` of the message it came from.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::glossary::Glossary;
use crate::analysis::call_facts::CallFacts;
use crate::analysis::fences::{self, Place};
use crate::analysis::text::display_path;
use crate::analysis::text::{clip, clock, duration, one_line, quote, secs_between, sentences, sentences_where};
use crate::detect::{self, Finding, SessionStats};
use crate::model::{Message, Origin, Role, Session};

/// What a person asked, without what clients and prompt templates put around it: the
/// `<ide_…>` tags an IDE adds; the IDE context before the Codex extension's "## My request
/// for Codex:"; the input block of a template prompt ("## User Input" over a fenced
/// block) — or, when that block is empty, the prompt itself from its next heading on; and
/// a lead-in such as "Implement the following plan:" joined (with "…") to the heading of
/// the document it introduces. Everything returned stands in the message as written.
pub(super) fn request_text(text: &str) -> String {
    let t = unwrapped_request(text);
    if t.is_empty() { text.trim().to_string() } else { t }
}

/// The fenced input block of a template prompt ("## User Input" over a fenced block, read
/// through [`fences::lines`]): the lines that open and close it.
fn template_input(lines: &[(Place, &str)]) -> Option<(usize, usize)> {
    let filled = |from: usize| (from..lines.len()).find(|&i| !lines[i].1.trim().is_empty());
    let h = filled(0).filter(|&h| is_heading(lines, h))?;
    let open = filled(h + 1).filter(|&o| lines[o].0 == Place::Fence)?;
    let close = (open + 1..lines.len()).find(|&i| lines[i].0 == Place::Fence)?;
    Some((open, close))
}

fn is_heading(lines: &[(Place, &str)], i: usize) -> bool {
    lines[i].0 == Place::Text && lines[i].1.trim_start().starts_with('#')
}

/// A template prompt sent with nothing typed into its input block (a spec-kit command
/// run without arguments): what [`request_text`] quotes of it is the template's own text.
pub(super) fn empty_template(text: &str) -> bool {
    let t = crate::analysis::text::typed(text);
    let lines: Vec<(Place, &str)> = fences::lines(&t).collect();
    template_input(&lines).is_some_and(|(open, close)| lines[open + 1..close].iter().all(|(_, l)| l.trim().is_empty()))
}

fn unwrapped_request(text: &str) -> String {
    let t = crate::analysis::text::typed(text);
    let lines: Vec<(Place, &str)> = fences::lines(&t).collect();
    let joined = |range: &[(Place, &str)]| range.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n");
    // A template (a heading over a fenced block for the input, as spec-kit's commands).
    if let Some((open, close)) = template_input(&lines) {
        let input = joined(&lines[open + 1..close]);
        if !input.trim().is_empty() {
            return input.trim().to_string();
        }
        // Nothing typed into the template: what it asks starts under its next heading.
        if let Some(next) = (close + 1..lines.len()).find(|&i| is_heading(&lines, i)) {
            return joined(&lines[next + 1..]).trim().to_string();
        }
    }
    // A lead-in over a document ("Implement the following plan:" and its "# Plan: …").
    let paras: Vec<&str> = t.split("\n\n").map(str::trim).filter(|p| !p.is_empty()).collect();
    if let [lead, next, ..] = paras.as_slice()
        && !lead.contains('\n')
        && lead.ends_with(':')
        && lead.chars().count() < 80
        && next.starts_with('#')
    {
        let first = next.lines().next().unwrap_or("").trim_start_matches(['#', ' ']);
        return format!("{lead} … {first}");
    }
    t.trim().to_string()
}

/// The first `n` sentences of what a person asked ([`request_text`]).
pub(super) fn asked(text: &str, n: usize, max: usize) -> String {
    sentences(&request_text(text), n, max)
}

/// Characters of a quoted sentence or line.
pub(super) const QUOTE: usize = 220;

/// A sentence of message `idx`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Quote {
    pub idx: u32,
    pub text: String,
}

/// The session a report is about.
#[derive(Debug, Clone, Serialize)]
pub struct SessionInfo {
    pub id: String,
    pub short_id: String,
    pub agent: String,
    pub format: String,
    pub project: Option<String>,
    pub model: Option<String>,
    pub branch: Option<String>,
    pub source: String,
    pub date: Option<String>,
    pub started: Option<String>,
    pub ended: Option<String>,
    pub duration: Option<String>,
    pub messages: usize,
    pub typed_user_turns: usize,
    pub commands: usize,
    pub failed_commands: usize,
}

/// Something that happened at one message, quoted.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub idx: u32,
    /// asked, interrupted, empty-turn, compacted, launched, tested, failed, edited, wrote,
    /// planned, searched, read, waited, ran, said, finding
    pub kind: &'static str,
    pub time: Option<String>,
    /// The words of the message (a sentence or the command), as a faithful quote.
    pub quote: String,
    /// The command, when the event is a call.
    pub command: Option<String>,
    /// The file the step worked on.
    pub file: Option<String>,
    /// A line of the output that tells how it went.
    pub detail: Option<String>,
    /// For findings: the detector id.
    pub detector: Option<String>,
}

/// One message, described for quoting.
#[derive(Debug, Clone, Serialize)]
pub struct MessageFacts {
    pub idx: u32,
    pub role: &'static str,
    pub origin: Origin,
    pub time: Option<String>,
    /// The whole text (redacted), for quoting in full when short.
    pub text: String,
    /// Its first sentences on one line.
    pub gist: String,
    pub chars: usize,
    pub empty: bool,
    pub thinking: Option<String>,
    pub calls: Vec<CallFacts>,
    /// Markdown headings or bold labels of a long structured message (a recap).
    pub headings: Vec<String>,
    /// What to quote when naming this message in one breath: its first command, else
    /// the file a tool call worked on, else its first sentence, else its tool's name —
    /// and whether that is code (command, file, tool) or words.
    pub handle: String,
    pub handle_code: bool,
}

/// A setting that differs between two launches.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub setting: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// Everything the reports need, gathered once per session.
pub struct Context<'a> {
    pub session: &'a Session,
    pub findings: &'a [Finding],
    pub glossary: &'a Glossary,
    /// Facts of every call, per message position: computed once, since shell parsing
    /// and output analysis are the costly part and every section asks again.
    calls: Vec<Vec<CallFacts>>,
}

impl<'a> Context<'a> {
    pub fn new(session: &'a Session, findings: &'a [Finding], glossary: &'a Glossary) -> Context<'a> {
        let environment =
            crate::analysis::call_facts::environment_lines(session.messages.iter().flat_map(|m| &m.calls));
        let mut calls: Vec<Vec<CallFacts>> = session
            .messages
            .iter()
            .map(|m| m.calls.iter().map(|c| CallFacts::of_in(c, m, &environment)).collect())
            .collect();
        // A read of a background command's output reports that command's exit: it names
        // the command it continues, and the time spent reading is that command's.
        let started: std::collections::HashMap<&str, (&str, String)> = session
            .messages
            .iter()
            .zip(&calls)
            .flat_map(|(m, facts)| m.calls.iter().zip(facts))
            .filter_map(|(c, f)| Some((c.id.as_str(), (c.command.as_deref()?, f.label.clone()))))
            .collect();
        for (m, facts) in session.messages.iter().zip(&mut calls) {
            for (c, f) in m.calls.iter().zip(facts.iter_mut()) {
                if let Some((cmd, label)) = c.continues.as_deref().and_then(|id| started.get(id)) {
                    f.continues = Some(crate::analysis::text::clip(&crate::analysis::text::one_line(cmd), 140));
                    f.label = label.clone();
                }
            }
        }
        Context { session, findings, glossary, calls }
    }

    /// The facts of `m`'s calls, in call order.
    pub(super) fn facts_of(&self, m: &Message) -> &[CallFacts] {
        match self.session.messages.binary_search_by_key(&m.idx, |x| x.idx) {
            Ok(pos) => &self.calls[pos],
            Err(_) => &[],
        }
    }

    /// The position of message `idx` in the session (of the first after it, when absent).
    pub(super) fn pos_of(&self, idx: u32) -> usize {
        self.session.messages.partition_point(|m| m.idx < idx)
    }

    pub(super) fn info(&self) -> SessionInfo {
        let s = self.session;
        let m = &s.meta;
        // What failed is what the call facts say failed: not a call the person stopped, not
        // a search that found nothing.
        let calls: Vec<&CallFacts> = self.calls.iter().flatten().filter(|c| c.command.is_some()).collect();
        let failed = calls.iter().filter(|c| c.failed()).count();
        SessionInfo {
            id: m.id.clone(),
            short_id: m.id.chars().take(8).collect(),
            agent: m.agent.clone(),
            format: m.format.clone(),
            project: m.project.clone(),
            model: m.model.clone(),
            branch: m.git_branch.clone(),
            source: display_path(&m.source),
            date: m.started.map(|t| t.format("%Y-%m-%d").to_string()),
            started: m.started.map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()),
            ended: self.last_time().map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()),
            duration: secs_between(m.started, self.last_time()).filter(|d| *d > 0).map(duration),
            messages: s.messages.len(),
            typed_user_turns: s.messages.iter().filter(|m| m.is_typed_user() && !m.text.trim().is_empty()).count(),
            commands: calls.len(),
            failed_commands: failed,
        }
    }

    /// The last moment the transcript shows something happen: its last message or result.
    /// A file's own "last updated" stamp may come much later (the window left open).
    pub(super) fn last_time(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        let s = self.session;
        let seen = s
            .messages
            .iter()
            .flat_map(|m| m.timestamp.into_iter().chain(m.calls.iter().filter_map(|c| c.result.as_ref()?.timestamp)))
            .max();
        seen.or(s.meta.ended)
    }

    /// The message that states the user's goal: the first typed request, unless it is a
    /// one-line opener the assistant answered with words only before the user asked
    /// again ("shell", then a prompt; a pasted "already installed" notice, then the
    /// report wanted): that set nothing going, the next request did.
    pub(super) fn goal_message(&self) -> Option<&'a Message> {
        let s = self.session;
        let mut typed =
            (0..s.messages.len()).filter(|&i| s.messages[i].is_typed_user() && !s.messages[i].text.trim().is_empty());
        let first = typed.next()?;
        let opener = |i: usize, next: usize| {
            let m = &s.messages[i];
            let t = request_text(&m.text);
            !t.contains('\n')
                && t.split_whitespace().count() <= 12
                && s.messages[i + 1..next].iter().all(|r| r.calls.is_empty())
                && s.messages[i + 1..next].iter().any(|r| r.role == Role::Assistant && !r.text.trim().is_empty())
        };
        match typed.next() {
            Some(next) if opener(first, next) => Some(&s.messages[next]),
            _ => Some(&s.messages[first]),
        }
    }

    pub(super) fn goal(&self) -> Option<Event> {
        self.goal_message().map(|m| Event {
            idx: m.idx,
            kind: "asked",
            time: clock(m.timestamp),
            quote: asked(&m.text, 3, 300),
            command: None,
            file: None,
            detail: empty_template(&m.text).then(|| "empty-template".to_string()),
            detector: None,
        })
    }

    pub(super) fn message(&self, m: &Message) -> MessageFacts {
        let thinking = (!m.thinking.trim().is_empty()).then(|| sentences(&m.thinking, 3, 400));
        MessageFacts {
            idx: m.idx,
            role: m.role.as_str(),
            origin: m.origin,
            time: clock(m.timestamp),
            text: m.text.trim().to_string(),
            gist: if m.is_typed_user() { asked(&m.text, 2, QUOTE) } else { sentences(&m.text, 2, QUOTE) },
            chars: m.char_len(),
            empty: m.text.trim().is_empty() && m.calls.is_empty(),
            thinking,
            calls: self.facts_of(m).to_vec(),
            headings: headings(&m.text),
            handle: m
                .commands()
                .next()
                .map(|c| clip(&one_line(c), 140))
                .or_else(|| self.facts_of(m).iter().find_map(|c| c.file.clone()))
                .or_else(|| Some(sentences(&m.text, 1, QUOTE)).filter(|s| !s.is_empty()))
                .or_else(|| m.calls.first().map(|c| c.name.clone()))
                .unwrap_or_default(),
            handle_code: m.commands().next().is_some()
                || self.facts_of(m).iter().any(|c| c.file.is_some())
                || (sentences(&m.text, 1, QUOTE).is_empty() && !m.calls.is_empty()),
        }
    }

    /// Events of message `m`: what a reader of the story needs to know it did.
    pub(super) fn events(&self, m: &Message, all: bool) -> Vec<Event> {
        let base = |kind, quote: String| Event {
            idx: m.idx,
            kind,
            time: clock(m.timestamp),
            quote,
            command: None,
            file: None,
            detail: None,
            detector: None,
        };
        let mut out = Vec::new();
        match (m.role, m.origin) {
            (Role::User, Origin::Interrupt) => out.push(base("interrupted", quote(&m.text, 80))),
            (Role::User, Origin::Typed) if m.text.trim().is_empty() => out.push(base("empty-turn", String::new())),
            (Role::User, Origin::Typed) => out.push(base("asked", asked(&m.text, 2, QUOTE))),
            (Role::System, Origin::CompactSummary) => out.push(base("compacted", sentences(&m.text, 1, 160))),
            (Role::Assistant, _) => {
                static PLAN: LazyLock<Regex> =
                    LazyLock::new(|| Regex::new(r"(?i)\b(plan|priority|next step|strategy)\b").expect("static regex"));
                if let Some(s) = sentences_where(&m.text, QUOTE, |s| PLAN.is_match(s)).into_iter().next() {
                    out.push(base("planned", s));
                } else if all && !m.text.trim().is_empty() {
                    out.push(base("said", sentences(&m.text, 1, QUOTE)));
                }
                for f in self.facts_of(m) {
                    let f = f.clone();
                    let out_facts = f.output.as_ref();
                    let failed = f.failed();
                    let kind = match f.action {
                        "launch" => "launched",
                        "test" => "tested",
                        "edit" => "edited",
                        "write" => "wrote",
                        _ if failed => "failed",
                        "search" if all => "searched",
                        "read" if all => "read",
                        // A wait is part of the story even in brief: it is how a launch
                        // was judged.
                        "wait" => "waited",
                        _ if all => "ran",
                        _ => continue,
                    };
                    let detail = out_facts.and_then(|o| {
                        let pick = |k: &str| o.revealing.iter().find(|r| r.kind == k).map(|r| r.line.clone());
                        match kind {
                            "tested" => pick("result").or_else(|| o.failure_line()),
                            "failed" => o.failure_line(),
                            "launched" | "edited" | "wrote" => None,
                            _ => pick("alarm").or_else(|| pick("error")).or_else(|| o.last_line.clone()),
                        }
                    });
                    let q = f.command_short.clone().unwrap_or_else(|| f.file.clone().unwrap_or_else(|| f.tool.clone()));
                    let mut e = base(kind, q);
                    e.command = f.command_short.clone();
                    e.file = f.file.clone();
                    e.detail = detail;
                    if failed && kind == "tested" {
                        e.kind = "tested-failed";
                    }
                    out.push(e);
                }
            }
            _ => {}
        }
        out
    }

    pub(super) fn finding_event(&self, f: &Finding) -> Event {
        let m = self.session.message(f.key);
        let q = m
            .map(|m| {
                m.commands().next().map(|c| clip(&one_line(c), 140)).unwrap_or_else(|| {
                    if m.text.trim().is_empty() { String::new() } else { sentences(&m.text, 1, QUOTE) }
                })
            })
            .unwrap_or_default();
        Event {
            idx: f.key,
            kind: "finding",
            time: m.and_then(|m| clock(m.timestamp)),
            quote: q,
            command: f.command.as_deref().map(|c| clip(&one_line(c), 140)),
            file: None,
            detail: Some(f.summary.clone()),
            detector: Some(f.detector.clone()),
        }
    }

    /// The finding on message `key` that a story leads with.
    pub(super) fn lead_finding(&self, key: u32) -> Option<&'a Finding> {
        self.findings.iter().filter(|f| f.key == key).min_by_key(|f| detect::telling(&f.detector).rank)
    }

    /// Settings that differ between this message's launch and the previous launch of
    /// the same program in the session.
    pub(super) fn changes_since_previous_launch(&self, m: &Message) -> (Vec<Change>, Option<Event>) {
        let Some((cmd, prog)) = m.calls.iter().zip(self.facts_of(m)).find_map(|(c, f)| {
            (f.action == "launch").then(|| (c.command.clone().unwrap_or_default(), f.program.clone()))
        }) else {
            return (vec![], None);
        };
        let s = self.session;
        let pos = s.messages.partition_point(|x| x.idx < m.idx);
        for prev in s.messages[..pos].iter().rev() {
            for (c, f) in prev.calls.iter().zip(self.facts_of(prev)) {
                let f = f.clone();
                if f.action == "launch" && f.program == prog {
                    let changes = settings_changed(c.command.as_deref().unwrap_or(""), &cmd, &prog);
                    let ev = Event {
                        idx: prev.idx,
                        kind: "launched",
                        time: clock(prev.timestamp),
                        quote: f.command_short.clone().unwrap_or_default(),
                        command: f.command_short,
                        file: None,
                        detail: None,
                        detector: None,
                    };
                    return (changes, Some(ev));
                }
            }
        }
        (vec![], None)
    }

    /// Every cited message as an appendix entry: its role, time and opening words.
    pub(super) fn cited(&self, mut idxs: Vec<u32>) -> Vec<Event> {
        idxs.sort_unstable();
        idxs.dedup();
        idxs.into_iter()
            .filter_map(|i| self.session.message(i))
            .map(|m| {
                // A call without text is named by its command, or the file a tool
                // worked on.
                let (q, command) = if !m.text.trim().is_empty() {
                    (sentences(&m.text, 1, 160), None)
                } else {
                    let ev = self.events(m, true).into_iter().next();
                    let q = ev.as_ref().map(|e| e.quote.clone()).unwrap_or_default();
                    (q.clone(), ev.is_some().then_some(q))
                };
                Event {
                    idx: m.idx,
                    kind: m.role.as_str(),
                    time: clock(m.timestamp),
                    quote: q,
                    command,
                    file: None,
                    detail: None,
                    detector: None,
                }
            })
            .collect()
    }

    /// The median length of assistant text, as the detectors measure it.
    pub(super) fn median_text_chars(&self) -> usize {
        let mut st = SessionStats::default();
        for m in &self.session.messages {
            st.observe(m);
        }
        st.median_assistant_len()
    }
}

/// The settings of `program` that differ between command lines `then` and `now`: changed
/// and added ones, then dropped ones.
pub(super) fn settings_changed(then: &str, now: &str, program: &str) -> Vec<Change> {
    let before = settings(then, program);
    let after = settings(now, program);
    let mut changes = Vec::new();
    for (k, v) in &after {
        if before.get(k) != Some(v) {
            changes.push(Change { setting: k.clone(), before: before.get(k).cloned(), after: Some(v.clone()) });
        }
    }
    for (k, v) in &before {
        if !after.contains_key(k) {
            changes.push(Change { setting: k.clone(), before: Some(v.clone()), after: None });
        }
    }
    changes
}

/// The environment and `--flag[=value]` options of the launched `program` in a command
/// line — inside `ssh host '…'` and `bash -c '…'` too, through the shared shell parser.
pub(super) fn settings(cmd: &str, program: &str) -> BTreeMap<String, String> {
    let script = crate::shell::parse(cmd);
    let mut out = BTreeMap::new();
    let Some(i) = script.commands.iter().rposition(|c| c.name() == program) else {
        return out;
    };
    for (k, v) in script.env_at(i) {
        out.insert(k.to_string(), v.to_string());
    }
    let args = &script.commands[i].args;
    let mut j = 0;
    while j < args.len() {
        if let Some(flag) = args[j].strip_prefix("--") {
            // A bare `--` ends the options of the program itself (`npm run dev -- --port
            // 5173`): what follows are the script's, still settings, but `--` is none.
            if flag.is_empty() {
                j += 1;
                continue;
            }
            match flag.split_once('=') {
                Some((k, v)) => {
                    out.insert(format!("--{k}"), v.to_string());
                }
                None => {
                    let v = args.get(j + 1).filter(|n| !n.starts_with('-'));
                    out.insert(format!("--{flag}"), v.cloned().unwrap_or_default());
                    if v.is_some() {
                        j += 1;
                    }
                }
            }
        }
        j += 1;
    }
    out
}

/// Section headings of a structured message: `# Heading`, `**Label**`, `Label:` lines.
pub(super) fn headings(text: &str) -> Vec<String> {
    if text.len() < 800 {
        return vec![];
    }
    let mut out = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        let h = if let Some(h) = t.strip_prefix('#') {
            Some(h.trim_start_matches('#').trim())
        } else if t.starts_with("**") && t.ends_with("**") && t.len() > 4 && t.len() < 80 {
            Some(t.trim_matches('*').trim())
        } else if t.starts_with("**") && t.contains(":**") && t.find(":**").is_some_and(|i| i < 60) {
            t.split(":**").next().map(|x| x.trim_matches('*').trim())
        } else {
            None
        };
        if let Some(h) = h.map(|h| h.trim_end_matches(':').trim()).filter(|h| !h.is_empty()) {
            out.push(clip(h, 60));
        }
        if out.len() >= 10 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{empty_template, request_text, settings_changed};

    #[test]
    fn a_bare_double_dash_is_no_setting() {
        // npm passes what follows `--` to the script: those flags are settings, `--` is not.
        let c = settings_changed("npm run dev", "npm run dev -- --port 5173", "npm");
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(
            (c[0].setting.as_str(), c[0].before.as_deref(), c[0].after.as_deref()),
            ("--port", None, Some("5173"))
        );
        let moved = settings_changed("npm run dev -- --port 5173", "npm run dev -- --port 5174 --host", "npm");
        let names: Vec<&str> = moved.iter().map(|c| c.setting.as_str()).collect();
        assert_eq!(names, vec!["--host", "--port"]);
    }

    #[test]
    fn a_request_is_quoted_without_its_wrappers() {
        // The Codex IDE extension's context and heading.
        let codex = "# Context from my IDE setup:\n\n## Active file: src/app.tsx\n\n## My request for Codex:\nlet's launch the dev server\n";
        assert_eq!(request_text(codex), "let's launch the dev server");
        // A template prompt's input block, typed into or left empty.
        let typed = "\n## User Input\n\n```text\nPhase 2\n```\n\nYou **MUST** consider the user input before proceeding (if not empty).\n\n## Outline\n\n1. Run the checks.\n";
        assert_eq!(request_text(typed), "Phase 2");
        let empty = typed.replace("Phase 2\n", "\n");
        assert_eq!(request_text(&empty), "1. Run the checks.");
        // Only the empty one is told as a template sent without input (cx06).
        assert!(empty_template(&empty) && !empty_template(typed));
        assert!(!empty_template("fix the import"));
        // A lead-in joined to what it introduces.
        let plan = "Implement the following plan:\n\n# Plan: Flow Diagram Refinements\n\n## Context\n\nSeven issues.";
        assert_eq!(request_text(plan), "Implement the following plan: … Plan: Flow Diagram Refinements");
        assert_eq!(
            request_text("<ide_opened_file>The user opened a.py.</ide_opened_file>fix the import"),
            "fix the import"
        );
    }

    #[test]
    fn a_one_line_opener_answered_with_words_is_not_the_goal() {
        use crate::model::{Call, Message, Role, Session};
        let msg = |idx: u32, role: Role, text: &str, calls: usize| Message {
            idx,
            role,
            text: text.into(),
            calls: (0..calls)
                .map(|_| Call { name: "shell".into(), command: Some("ls".into()), ..Call::default() })
                .collect(),
            ..Message::default()
        };
        let glossary = crate::report::templates::Templates::embedded().glossary().unwrap();
        let goal = |messages: Vec<Message>| {
            let session = Session { meta: Default::default(), messages };
            let cx = super::Context::new(&session, &[], &glossary);
            cx.goal_message().map(|m| m.idx)
        };
        let prompt = "# /butler-exec — Execute a ButlerSpec\n\nRun one spec.";
        // "shell", answered "What would you like to do?", then the prompt: the prompt.
        let opened = vec![
            msg(1, Role::User, "shell", 0),
            msg(2, Role::Assistant, "I'm ready to run shell commands. What would you like to do?", 0),
            msg(3, Role::User, prompt, 0),
            msg(4, Role::Assistant, "", 1),
        ];
        assert_eq!(goal(opened), Some(3));
        // Near misses: an opener the assistant acted on, and a first request of many lines.
        let acted = vec![
            msg(1, Role::User, "shell", 0),
            msg(2, Role::Assistant, "Listing the repo.", 1),
            msg(3, Role::User, prompt, 0),
        ];
        assert_eq!(goal(acted), Some(1));
        let long = vec![
            msg(1, Role::User, "Plan the refactor:\n- split the parser\n- keep the API", 0),
            msg(2, Role::Assistant, "Here is a plan.", 0),
            msg(3, Role::User, "go ahead", 0),
        ];
        assert_eq!(goal(long), Some(1));
    }

    #[test]
    fn a_plain_request_is_left_as_typed() {
        for t in [
            "fix the temp file permissions",
            "# Why does the build fail?\n\nIt says `error[E0308]`.",
            "Here is what I want:",
            // A lead-in over pasted output, not a document: the paste is not the request.
            "commit error:\n\n\u{1b}[1;33mRunning gitleaks scan...\u{1b}[0m\nFinding: 39 leaks",
        ] {
            assert_eq!(request_text(t), t.trim(), "{t:?}");
        }
    }
}
