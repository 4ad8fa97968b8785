//! `context-dump`: an assistant message that recaps the whole project instead of taking
//! a step.
//!
//! Three tests, all required:
//! 1. Size: at least [`MIN_CHARS`] characters and [`RATIO`] times the session's median
//!    assistant text ([`SessionStats::median_assistant_len`]), so a session whose every
//!    answer is long does not fire on each of them.
//! 2. Shape: the text outside code fences is organised under section labels (markdown
//!    headings, bold labels, short `Label:` lines) whose words name the themes of a
//!    recap: goal, what was done/found, current state, files, next steps. A recap
//!    looks back, so "done/found" or "current state" must be among them; it needs four
//!    themes, or three when something prompted a recap (below).
//! 3. Not code: when most of the text is inside code fences it is code, not a recap.
//!
//! Prompts that make a recap likely: an empty user turn, a compaction summary, or a
//! short "continue"/"where were we"/"recap" turn just before. They lower the bar by one
//! theme and are cited as evidence.
//!
//! Without such a prompt, a long structured message is often the deliverable of the
//! person's request instead: the audit report, review or documentation they asked for,
//! or the summary that closes the task they gave. Those are not recaps (see
//! [`deliverable`]).
//!
//! [`SessionStats::median_assistant_len`]: super::SessionStats::median_assistant_len

use std::sync::LazyLock;

use regex::Regex;

use super::empty_user_turn::is_empty_turn;
use super::{Cited, Details, Detector, Finding, SessionView, Telling};
use crate::analysis::fences::{self, Place};
use crate::analysis::text::{and_list, thousands};
use crate::model::{Message, Origin, Role};

pub struct ContextDump;

/// A recap is thousands of characters long.
pub const MIN_CHARS: usize = 2000;
/// …and several times the session's typical assistant text.
pub const RATIO: usize = 4;
/// When the session has too few assistant texts for a median to mean anything, the
/// absolute bar is raised instead.
const FEW_TEXTS: u32 = 5;
const MIN_CHARS_FEW: usize = 4000;

const DOC: &str = r###"## What it finds

An assistant message that recaps the whole project rather than taking the next step:
far longer than the session's typical assistant message (at least 2,000 characters and
four times the median) and organised as a summary — sections whose titles name the
goal, what was tried or found, the current state, the files involved and the next
steps. Recaps often follow an empty user turn or a context compaction; such a prompt is
cited as evidence and lets a recap with three of those themes count (otherwise four
are needed). Either way the recap must look back: "what was done / found" or "current
state" must be among its sections.

Without such a prompt, a long structured message that is the deliverable of the
person's request is not a recap: the turn that started this part of the work asked for
a report, summary, review, audit, analysis or documentation; or the message closes the
turn (no more assistant text before the person speaks again) as the report of the task
they gave; or it opens by declaring the task complete ("# ✅ COMMIT SUCCESSFUL").

## Why it matters

A recap is the agent re-establishing its own context. It is useful to read (it is the
agent's picture of the situation at that moment, errors included), but it is not
progress, and a session that produces many of them is going in circles. In a write-up
it marks the boundary between phases of the work.

## Example

```text
[msg 86] user: ""
[msg 87] assistant (9,800 chars):
  ## Project goal            … 150 tok/s with speculative decoding on 8 PCIe GPUs
  ## What we found           … verify step is ~25 ms of NCCL all-reduce
  ## Experiments so far      … NCCL_ALGO=Tree crashed in graph capture; …
  ## Current state           … server loading with fewer channels + fusion
  ## Key files               … eagle-fast-verify.md, logs/nccl_exp_1b.log
  ## Next steps              … 1. wait for load 2. isolate the two changes …
```

## Not an instance

- A long answer that is mostly code (a script, a diff, a config file).
- A long plan for one step ("## Goal / ## Steps / ## Files to change"): it looks
  ahead only.
- An end-of-task report with two or three sections ("## Root cause / ## Fix"), or of
  any length when it closes the turn of the task the person gave ("push to GitHub" →
  "## ✅ Successfully pushed · What was pushed · Next steps").
- The report the person asked for: "Audit security settings" → "# Security audit
  report", "review all of my services" → "Inventory · Health · Recommendations",
  "summarize the latest sessions" → the summary.
- A long message in a session where every message is that long.
"###;

impl Detector for ContextDump {
    fn id(&self) -> &'static str {
        "context-dump"
    }

    fn summary(&self) -> &'static str {
        "An assistant message that recaps the whole project (goal, findings, state, files, next steps) instead of a step"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        let median = view.stats.median_assistant_len();
        let few = view.stats.assistant_messages < FEW_TEXTS;
        let min = if few { MIN_CHARS_FEW } else { MIN_CHARS.max(RATIO * median) };
        for (i, m) in view.messages.iter().enumerate() {
            if m.role != Role::Assistant || m.origin != Origin::Typed {
                continue;
            }
            // Cheap byte test first: char count ≤ byte length.
            if m.text.len() < min {
                continue;
            }
            let len = m.char_len();
            if len < min {
                continue;
            }
            let shape = Shape::of(&m.text);
            if shape.code_chars * 2 > len {
                continue;
            }
            if shape.thought_log() {
                continue;
            }
            let themes = shape.themes();
            let looks_back = themes.contains(&Theme::Done) || themes.contains(&Theme::State);
            let prompt = prompt_before(view.messages, i);
            let needed = if prompt.is_some() { 3 } else { 4 };
            if !looks_back || themes.len() < needed {
                continue;
            }
            if prompt.is_none() && deliverable(view.messages, i).is_some() {
                continue;
            }
            let mut evidence = vec![m.idx];
            let mut s = format!("{}-char recap", thousands(len));
            if !few && median > 0 {
                s.push_str(&format!(" ({}× the session's median reply)", len / median));
            }
            let names: Vec<String> = themes.iter().map(|t| t.name().to_string()).collect();
            s.push_str(&format!(" with sections on {}", and_list(&names)));
            if let Some((p, why)) = prompt {
                s.push_str(&format!(", right after {why}"));
                evidence.push(p.idx);
            }
            let details = Details::Recap {
                chars: len as u64,
                median: if few { 0 } else { median as u64 },
                sections: names,
                after: prompt.map(|(p, why)| Cited { idx: p.idx, text: why.to_string() }),
            };
            out.push(Finding {
                detector: self.id().into(),
                key: m.idx,
                evidence,
                summary: s,
                command: None,
                details: Some(details),
            });
        }
    }
    fn telling(&self) -> Telling {
        Telling {
            rank: 7,
            beats: &["recap"],
            told_by: &["recap"],
            with_tag: "with-context-dump",
            joined_tag: "joined-context-dump",
            ..Telling::DEFAULT
        }
    }
}

/// What a recap is about, in the order a summary names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Theme {
    Goal,
    Done,
    State,
    Files,
    Next,
}

impl Theme {
    fn name(self) -> &'static str {
        match self {
            Theme::Goal => "the goal",
            Theme::Done => "what was done/found",
            Theme::State => "the current state",
            Theme::Files => "files",
            Theme::Next => "next steps",
        }
    }
}

/// Words that name each theme in a section label, matched as word prefixes ("finding"
/// matches "Findings"). Checked in this order, so "Current task" is state, "Pending
/// tasks" next steps and "Files changed" files.
const THEME_WORDS: &[(Theme, &[&[&str]])] = &[
    (
        Theme::Next,
        &[
            &["next"],
            &["todo"],
            &["to", "do"],
            &["remaining"],
            &["pending"],
            &["left"],
            &["open", "question"],
            &["outstanding"],
            &["follow"],
            &["recommend"],
            &["priorit"],
            &["option"],
            &["plan"],
            &["roadmap"],
            &["action", "item"],
        ],
    ),
    (Theme::State, &[&["current"], &["status"], &["state"], &["where", "we"], &["right", "now"], &["as", "of"]]),
    (
        Theme::Files,
        &[
            &["file"],
            &["director"],
            &["folder"],
            &["path"],
            &["location"],
            &["artifact"],
            &["code", "section"],
            &["logs"],
        ],
    ),
    (
        Theme::Done,
        &[
            &["finding"],
            &["found"],
            &["discover"],
            &["learn"],
            &["lesson"],
            &["tried"],
            &["attempt"],
            &["experiment"],
            &["result"],
            &["accomplish"],
            &["done"],
            &["complete"],
            &["progress"],
            &["root", "cause"],
            &["cause"],
            &["analysis"],
            &["diagnos"],
            &["known"],
            &["know"],
            &["worked"],
            &["fix"],
            &["error"],
            &["problem"],
            &["change"],
            &["insight"],
            &["observ"],
            &["performance"],
            &["benchmark"],
            &["measure"],
            &["history"],
            &["timeline"],
            &["so", "far"],
            &["bottleneck"],
            &["conclusion"],
            &["built"],
            &["implemented"],
        ],
    ),
    (
        Theme::Goal,
        &[
            &["goal"],
            &["objective"],
            &["mission"],
            &["purpose"],
            &["primary", "request"],
            &["request"],
            &["intent"],
            &["overview"],
            &["background"],
            &["context"],
            &["project"],
            &["task"],
            &["aim"],
            &["target"],
        ],
    ),
];

/// Section labels and code size of a text.
#[derive(Debug, Default)]
struct Shape {
    labels: Vec<String>,
    code_chars: usize,
}

impl Shape {
    fn of(text: &str) -> Shape {
        let mut shape = Shape::default();
        // Markdown fences, and the `<source>` fences of aider's chat history.
        for (place, line) in fences::lines_with(text, fences::AIDER_FENCES) {
            match place {
                Place::Fence => continue,
                Place::Code => {
                    shape.code_chars += line.chars().count() + 1;
                    continue;
                }
                Place::Text => {}
            }
            if let Some(l) = section_label(line.trim()) {
                shape.labels.push(l);
            }
        }
        shape
    }

    /// Most labels are "**Examining the build**", "**Refining the approach**": the
    /// running headings of a reasoning summary (Gemini and Copilot print them as text),
    /// not the sections of a recap.
    fn thought_log(&self) -> bool {
        let gerund = |l: &&String| {
            l.split_whitespace().next().is_some_and(|w| w.len() > 5 && w.to_ascii_lowercase().ends_with("ing"))
        };
        let n = self.labels.len();
        n >= 6 && self.labels.iter().filter(gerund).count() * 5 >= n * 3
    }

    /// Distinct themes named by the labels, in [`Theme`] order.
    fn themes(&self) -> Vec<Theme> {
        let mut out: Vec<Theme> = self.labels.iter().filter_map(|l| theme_of(l)).collect();
        out.sort();
        out.dedup();
        out
    }
}

/// The label of a line that opens a section: `## Label`, `**Label**`, `**Label:** text`,
/// `1. **Label**`, or a short line ending in a colon (`Next steps:`).
fn section_label(line: &str) -> Option<String> {
    if let Some(h) = line.strip_prefix('#') {
        let h = h.trim_start_matches('#');
        return h.starts_with(' ').then(|| h.trim().to_string());
    }
    let body = strip_list_marker(line);
    if let Some(rest) = body.strip_prefix("**").or_else(|| body.strip_prefix("__")) {
        let end = rest.find("**").or_else(|| rest.find("__"))?;
        let label = rest[..end].trim().trim_end_matches(':');
        return (!label.is_empty() && label.split_whitespace().count() <= 8).then(|| label.to_string());
    }
    let label = body.strip_suffix(':')?;
    (label.split_whitespace().count() <= 6 && !label.contains(['.', '`', '(', '='])).then(|| label.to_string())
}

fn strip_list_marker(line: &str) -> &str {
    for m in ["- ", "* ", "+ "] {
        if let Some(r) = line.strip_prefix(m) {
            return r.trim_start();
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits < 3 {
        let rest = &line[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return r.trim_start();
        }
    }
    line
}

fn theme_of(label: &str) -> Option<Theme> {
    let words: Vec<String> = label
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('\'', ""))
        .collect();
    // Only the first few words name a section; the rest is content after a bold label.
    let words = &words[..words.len().min(6)];
    for (theme, phrases) in THEME_WORDS {
        for phrase in phrases.iter() {
            if words.windows(phrase.len()).any(|w| w.iter().zip(phrase.iter()).all(|(a, b)| a.starts_with(b))) {
                return Some(*theme);
            }
        }
    }
    None
}

/// Something just before message `i` that asks for (or forces) a recap: an empty user
/// turn, a compaction summary, or a short "continue"/"where were we"/"summarise" turn.
fn prompt_before(messages: &[Message], i: usize) -> Option<(&Message, &'static str)> {
    for p in messages[..i].iter().rev().take(3) {
        if p.role == Role::Assistant && !p.text.trim().is_empty() {
            return None;
        }
        if is_empty_turn(p) {
            return Some((p, "an empty user turn"));
        }
        if p.origin == Origin::CompactSummary {
            return Some((p, "a context compaction"));
        }
        if p.is_typed_user() {
            let t = p.text.trim().to_lowercase();
            // "Summarise …" asks for a deliverable, not for the agent to find its bearings.
            let asks = [
                "continue",
                "go on",
                "keep going",
                "resume",
                "where were we",
                "where are we",
                "where we are",
                "where we left",
                "where things stand",
                "catch me up",
                "recap",
            ]
            .iter()
            .any(|w| t.contains(w));
            return (asks && t.chars().count() <= 60).then_some((p, "a nudge to carry on"));
        }
    }
    None
}

/// A request for a deliverable: a report, summary, review, audit, analysis,
/// documentation, an exploration to report on (in the languages people write in).
static ASKS_FOR_DELIVERABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?:report|summar|summer[iy]|audit|review|analy[sz]|document|docs\b|write[- ]?up|overview|explore|explain",
        r"|assess|evaluat|investigat|inventory|catalog|describe|proposal|propose|recommend|compar|research|breakdown|list\s+(?:all|every))",
        r"|报告|報告|总结|總結|摘要|分析|审查|審查|文档|文檔|说明|說明|レポート|まとめ|要約|分析|調査",
        r"|\b(?:informe|resumen|an[aá]lisis|revis|bericht|zusammenfass|analyse|rapport|r[ée]sum[ée]|relat[oó]rio)",
    ))
    .expect("deliverable regex is valid")
});

/// A first line or heading that declares the task done: "# ✅ COMMIT SUCCESSFUL",
/// "## All issues resolved & pushed", "Done — …".
static DECLARES_DONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)✅|\b(?:complete[ds]?|success(?:ful(?:ly)?)?|succeeded|done|resolved|finished|published|pushed|all\s+set)\b",
    )
    .expect("done regex is valid")
});

/// Why message `i`, long and structured but not prompted by an empty turn, compaction
/// or nudge, is the deliverable of the person's request rather than a recap: the turn
/// asked for a report (or summary, review, audit, analysis, documentation); or the
/// message closes that turn, reporting on the task; or its title declares the task done.
fn deliverable(messages: &[Message], i: usize) -> Option<&'static str> {
    let asked = messages[..i].iter().rev().find(|p| p.is_typed_user() && !p.text.trim().is_empty())?;
    if ASKS_FOR_DELIVERABLE.is_match(&asked.text) {
        return Some("the report the person asked for");
    }
    let closes_turn = messages[i + 1..]
        .iter()
        .take_while(|n| !n.is_typed_user())
        .all(|n| n.role != Role::Assistant || n.text.trim().is_empty());
    if closes_turn {
        return Some("the report that closes the person's task");
    }
    let title = messages[i].text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let heading = messages[i].text.lines().map(str::trim).find(|l| l.starts_with('#')).unwrap_or("");
    (DECLARES_DONE.is_match(title) || DECLARES_DONE.is_match(heading)).then_some("a report that the task is done")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::detect_session;

    fn assistant(idx: u32, text: &str) -> Message {
        Message { idx, role: Role::Assistant, text: text.into(), ..Message::default() }
    }

    fn user(idx: u32, text: &str) -> Message {
        Message { idx, role: Role::User, text: text.into(), ..Message::default() }
    }

    fn para(words: usize) -> String {
        "the verify step spends most of its time in all-reduce over PCIe ".repeat(words / 12 + 1)
    }

    fn recap(sections: &[&str]) -> String {
        sections.iter().map(|s| format!("## {s}\n\n{}\n\n- a bullet\n- another\n\n", para(120))).collect()
    }

    /// A session of short steps, then `prompt` (if any) and the candidate.
    fn session(prompt: Option<Message>, candidate: String) -> Vec<Message> {
        let mut v: Vec<Message> =
            (1..=10).map(|i| assistant(i, &"Let me check the log for errors. ".repeat(4))).collect();
        if let Some(p) = prompt {
            v.push(Message { idx: 11, ..p });
        }
        let n = v.len() as u32 + 1;
        v.push(assistant(n, &candidate));
        v
    }

    fn run(messages: &[Message]) -> Vec<Finding> {
        detect_session(&[&ContextDump], messages)
    }

    #[test]
    fn a_recap_after_an_empty_turn_fires_and_cites_it() {
        let text = recap(&["Project goal", "What we tried", "Current state", "Key files", "Next steps"]);
        let f = run(&session(Some(user(0, "")), text));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].key, 12);
        assert_eq!(f[0].evidence, [11, 12]);
        assert!(f[0].summary.contains("with sections on the goal, what was done/found, the current state, files and next steps, right after an empty user turn"), "{}", f[0].summary);
    }

    #[test]
    fn three_themes_need_a_prompt_four_do_not() {
        let three = recap(&["Findings", "Current status", "Next steps"]);
        assert!(run(&session(None, three.clone())).is_empty());
        assert_eq!(run(&session(Some(user(0, "continue")), three)).len(), 1);
        let four = recap(&["Goal", "Findings", "Current status", "Next steps"]);
        assert_eq!(run(&session(None, four)).len(), 1);
    }

    #[test]
    fn bold_labels_and_colon_lines_are_sections() {
        let text = format!(
            "**Goal:** {}\n\n1. **Key findings**\n{}\n\nCurrent state:\n{}\n\n**Next steps**\n- {}\n",
            para(120),
            para(120),
            para(120),
            para(120)
        );
        assert_eq!(run(&session(None, text)).len(), 1);
    }

    #[test]
    fn code_plans_short_reports_and_long_sessions_do_not_fire() {
        // Mostly code.
        let code = format!(
            "## Goal\n## Findings\n## Current state\n## Next steps\n```python\n{}\n```\n",
            "x = 1\n".repeat(800)
        );
        assert!(run(&session(Some(user(0, "")), code)).is_empty());
        // A plan looks ahead only.
        let plan = recap(&["Goal", "Files to change", "Steps", "Plan", "Testing"]);
        assert!(run(&session(Some(user(0, "")), plan)).is_empty());
        // Too short.
        let short = "## Goal\nx\n## Findings\ny\n## Current state\nz\n## Next steps\nw\n".to_string();
        assert!(run(&session(Some(user(0, "")), short)).is_empty());
        // Every reply is that long: not far longer than typical.
        let text = recap(&["Goal", "Findings", "Current state", "Next steps"]);
        let v: Vec<Message> = (1..=8).map(|i| assistant(i, &text)).collect();
        assert!(run(&v).is_empty());
    }

    /// A task turn: the person's request, short steps, `candidate` (msg 12), then `after`.
    fn task(request: &str, candidate: String, after: Vec<Message>) -> Vec<Message> {
        let mut v = vec![user(1, request)];
        v.extend((2..=11).map(|i| assistant(i, &"Let me check the log for errors. ".repeat(4))));
        v.push(assistant(12, &candidate));
        v.extend(after.into_iter().zip(13..).map(|(m, idx)| Message { idx, ..m }));
        v
    }

    #[test]
    fn a_report_the_person_asked_for_is_not_a_recap() {
        let report = recap(&["Goal", "Findings", "Current state", "Recommendations", "Next steps"]);
        let more = || vec![assistant(0, "Let me also save it to docs/.")];
        for request in [
            "Audit security settings and vulnerabilities",
            "review all of my services",
            "summerize latest sessions (from repo)",
            "Write documentation for the new CLI",
            "请帮我总结一下这个项目的现状",
        ] {
            assert!(run(&task(request, report.clone(), more())).is_empty(), "{request}");
        }
    }

    #[test]
    fn the_report_closing_a_task_is_not_a_recap() {
        let report = recap(&["What was done", "Current state", "Files changed", "Next steps"]);
        // It closes the turn: the person speaks next (or the session ends).
        assert!(run(&task("push to github", report.clone(), vec![user(0, "thanks")])).is_empty());
        assert!(run(&task("push to github", report.clone(), vec![])).is_empty());
        // Its title declares the task done, with more to say after it.
        let done = format!("# ✅ COMMIT SUCCESSFUL\n\n{report}");
        assert!(run(&task("resume", done, vec![assistant(0, "Let me also check the hooks.")])).is_empty());
    }

    #[test]
    fn an_unprompted_recap_in_the_middle_of_a_task_still_fires() {
        let text = recap(&["Goal", "What we tried", "Current state", "Next steps"]);
        let after = vec![assistant(0, "Let me rerun the upload test with logging.")];
        let f = run(&task("fix the flaky upload test", text, after));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].key, 12);
    }

    #[test]
    fn a_reasoning_log_with_many_headings_is_not_a_recap() {
        let labels = [
            "Examining the goal",
            "Debugging the build",
            "Analyzing current state",
            "Refining next steps",
            "Checking the files",
            "Considering what was found",
            "Reviewing progress",
        ];
        let text: String = labels.iter().map(|l| format!("**{l}**\n{}\n\n", para(60))).collect();
        assert!(run(&session(Some(user(0, "continue")), text.clone())).is_empty());
        // The same sections under plain titles are a recap.
        let plain = text
            .replace("**Examining the goal**", "**Goal**")
            .replace("**Analyzing current state**", "**Current state**");
        let plain =
            plain.replace("**Refining next steps**", "**Next steps**").replace("**Checking the files**", "**Files**");
        assert_eq!(run(&session(Some(user(0, "continue")), plain)).len(), 1);
    }

    #[test]
    fn labels_and_themes() {
        assert_eq!(section_label("## Next steps").as_deref(), Some("Next steps"));
        assert_eq!(section_label("#hashtag"), None);
        assert_eq!(section_label("- **Root cause:** the grep matched").as_deref(), Some("Root cause"));
        assert_eq!(section_label("Files changed:").as_deref(), Some("Files changed"));
        assert_eq!(section_label("Run this: `cargo test`."), None);
        assert_eq!(theme_of("Current task"), Some(Theme::State));
        assert_eq!(theme_of("Pending tasks"), Some(Theme::Next));
        assert_eq!(theme_of("What's been tried"), Some(Theme::Done));
        assert_eq!(theme_of("Abandoned approaches"), None);
        assert_eq!(theme_of("Summary"), None);
    }
}
