//! Debugging-pattern detectors: the [`Detector`] trait, the registry, and the
//! streaming engine that runs them over a session of any length in bounded memory.
//!
//! Each detector lives in its own file with a stable kebab-case id and its user
//! documentation (`debrief detectors ID`). Detectors see a [`SessionView`]: a window of
//! consecutive messages plus session-wide statistics. The engine ([`Stream`]) slides
//! that window over the session in chunks with [`LOOKBACK`] messages of history and
//! [`LOOKAHEAD`] messages of future around each chunk, so a finding may cite evidence up
//! to that far from its key message. `detect`, `index` and `report` all use the same
//! engine, so they agree on every finding.

pub mod confounded_change;
pub mod context_dump;
pub mod empty_user_turn;
pub mod false_crash_alarm;
#[cfg(test)]
mod fixture;
pub mod grep_tail_pivot;
pub mod noisy_search;
pub mod oscillation;
pub mod polling_timeout;
pub mod retry_loop;
pub mod self_correction;
pub mod user_pushback;

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::model::{Message, Role};

/// Messages of history every window keeps before the messages it decides on.
pub const LOOKBACK: usize = 120;
/// Messages after the last decided message that a window must have seen.
pub const LOOKAHEAD: usize = 120;
/// Messages decided per window.
pub const CHUNK: usize = 1000;

/// One instance of a pattern, anchored on its key message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub detector: String,
    /// idx of the key message.
    pub key: u32,
    /// Every supporting message, key included, ascending.
    pub evidence: Vec<u32>,
    /// One line for people.
    pub summary: String,
    /// The command at the heart of the finding, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The facts the finding rests on, as the detector found them: reports and
    /// `detect --json` tell these instead of deriving them again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Details>,
}

/// A piece of a message that a finding quotes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cited {
    pub idx: u32,
    pub text: String,
}

/// The typed facts of a finding. One variant per kind of fact, not per detector: a new
/// detector that finds a belief undone, or runs that failed alike, fills in the variant
/// that exists and every report tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Details {
    /// Something believed and what undid it: a crash alarm and the evidence that the
    /// process was fine, a claim and its retraction, an answer and the person's pushback.
    Belief {
        /// What was believed, where it was printed or said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        claim: Option<Cited>,
        /// What undid it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        undone: Option<Undoing>,
    },
    /// Runs of one command that failed alike, nothing (but at most the folder) changed in between.
    Runs {
        /// The failing runs, first to last.
        runs: Vec<u32>,
        /// The error they share, as printed (empty: they failed the same silent way).
        error: String,
        /// Only the working folder asked for changed between runs (a refused call,
        /// which no folder could have let through).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        folder_changed: bool,
    },
    /// A relaunch with several things changed since the previous launch.
    Relaunch {
        /// The previous launch of the same program, when one is in view.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        previous: Option<u32>,
        /// Settings changed between the launches (`--port 8000 → 8001`).
        changes: Vec<String>,
        /// Files edited in between.
        edits: Vec<String>,
    },
    /// A state left and returned to by turns (A→B→A→B): lines of a file taken out and
    /// put back, a setting toggled across relaunches, two commands run by turns.
    Flips {
        /// What flipped: `lines` of a file, a `setting` of a program's launches, or
        /// `commands` run by turns.
        of: String,
        /// What went back and forth: the file, the program, or the two commands.
        subject: String,
        /// The two states, the one before the first switch first (the lines in the file,
        /// the setting's values, the two commands).
        states: [String; 2],
        /// Each switch, first to last: its message and the state it switched to.
        switches: Vec<Cited>,
    },
    /// Searches whose output did not answer (swamped, cut, or dismissed), and the read by
    /// position that went around them when there was one.
    Search {
        /// The searches, first to last: their message and command.
        searches: Vec<Cited>,
        /// How the output failed them, in the detector's words (`the tool cut 80% of its
        /// output (…)`, `returned a 14 KB line`).
        why: String,
        /// The read of the same file by position that came instead (`tail -n 50 app.log`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        read: Option<Cited>,
    },
    /// A wait for readiness that ran out of attempts or time.
    Wait {
        /// The waits that ran out, first to last (one for a loop in one command line).
        waits: Vec<u32>,
        /// What was waited on: the loop's command line, or the command a waiting tool
        /// waited for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command: Option<String>,
        /// How it ran out, in the detector's words (`ran all 10 attempts without
        /// printing "up"`, `timed out after 120 s`).
        how: String,
    },
    /// A reply far longer than the session's usual one that recaps the work.
    Recap {
        /// Its length in characters.
        chars: u64,
        /// The session's median reply in characters (0: too few replies to say).
        median: u64,
        /// The recap's sections (`done`, `state`, `next steps`…).
        sections: Vec<String>,
        /// What it came right after, when a prompt set it off: the message and what it
        /// was (`an empty user turn`, `a context compaction`, `a nudge to carry on`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<Cited>,
    },
    /// A turn of the person's with nothing in it.
    Pause {
        /// The last message that said or did something before it (the agent's, or the
        /// person's own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<u32>,
        /// The agent's answer to it (none when the person spoke again first).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reply: Option<u32>,
        /// Empty turns in a row, this one included.
        in_a_row: u32,
    },
}

/// What undid a belief.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undoing {
    pub idx: u32,
    /// `retraction`, `ready`, `alive`, `progress` or `pushback`.
    pub how: String,
    pub text: String,
}

/// Session-wide numbers that detectors compare a message against.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionStats {
    /// Histogram of assistant text lengths (chars) in quarter-octave buckets, over
    /// assistant messages with text (tool-call-only messages are left out).
    pub assistant_len_buckets: Vec<u32>,
    /// Assistant messages with text.
    pub assistant_messages: u32,
}

impl SessionStats {
    fn bucket(len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        // log2 in quarter steps: 4 buckets per doubling.
        let l = (len as f64).log2();
        ((l * 4.0).floor() as usize + 1).min(255)
    }

    fn bucket_floor(b: usize) -> usize {
        if b == 0 { 0 } else { 2f64.powf((b - 1) as f64 / 4.0).round() as usize }
    }

    pub fn observe(&mut self, m: &Message) {
        // Only messages that say something: agents emit many assistant messages that
        // are tool calls with no text, and counting them as length 0 drags the median
        // to 0, so "several times the typical reply" would mean nothing.
        if m.role != Role::Assistant || m.text.trim().is_empty() {
            return;
        }
        let b = Self::bucket(m.text.chars().count());
        if self.assistant_len_buckets.len() <= b {
            self.assistant_len_buckets.resize(b + 1, 0);
        }
        self.assistant_len_buckets[b] += 1;
        self.assistant_messages += 1;
    }

    /// Approximate median length of assistant text (within a quarter octave).
    pub fn median_assistant_len(&self) -> usize {
        let half = self.assistant_messages.div_ceil(2);
        let mut seen = 0;
        for (b, n) in self.assistant_len_buckets.iter().enumerate() {
            seen += n;
            if seen >= half && *n > 0 {
                return Self::bucket_floor(b);
            }
        }
        0
    }
}

/// What a detector looks at: consecutive messages of one session.
pub struct SessionView<'a> {
    pub messages: &'a [Message],
    pub stats: &'a SessionStats,
}

impl<'a> SessionView<'a> {
    /// Position in `messages` of the message numbered `idx`.
    pub fn position(&self, idx: u32) -> Option<usize> {
        self.messages.binary_search_by_key(&idx, |m| m.idx).ok()
    }

    pub fn get(&self, idx: u32) -> Option<&'a Message> {
        self.position(idx).map(|p| &self.messages[p])
    }
}

/// How reports tell a detector's findings, so that a detector owns its place in a story
/// as a ruff rule owns its message. The words themselves live in
/// `templates/phrases.toml`, in the section named by the detector's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Telling {
    /// Which finding a story leads with when several fall on one message, lowest first:
    /// the ones that change what the session believed before the ones that only measure.
    pub rank: u8,
    /// Kinds of story beat on the key message that the finding joins, preferred first;
    /// with none that fits, the beat of the key message, else a beat of its own.
    pub beats: &'static [&'static str],
    /// Beat kinds whose own wording already tells the finding: the moment then adds only
    /// what the beat does not say, and the beat gets the situation [`Telling::with_tag`].
    pub told_by: &'static [&'static str],
    pub with_tag: &'static str,
    /// The situation of an arc step that also tells the next message's finding.
    pub joined_tag: &'static str,
    /// A beat kind the finding marks with a situation (`("experiment", "false-alarm")`);
    /// with `folds`, the finding's facts fold into that beat instead of being told beside it.
    pub marks: Option<(&'static str, &'static str)>,
    pub folds: bool,
    /// The evidence before the key is the episode's context (the previous launch and the
    /// edits of a relaunch), not earlier attempts.
    pub evidence_is_context: bool,
    /// The finding is told again where its evidence reaches into a later range of an arc.
    pub threads: bool,
    /// The finding is a belief (a crash, a claim) that later evidence undid: episodes in
    /// between stood on a premise that failed.
    pub premise: bool,
}

impl Telling {
    pub const DEFAULT: Telling = Telling {
        rank: 9,
        beats: &[],
        told_by: &[],
        with_tag: "with-finding",
        joined_tag: "joined",
        marks: None,
        folds: false,
        evidence_is_context: false,
        threads: false,
        premise: false,
    };
}

/// How the detector with this id is told (the default for an id no detector has).
pub fn telling(id: &str) -> Telling {
    by_id(id).map(|d| d.telling()).unwrap_or(Telling::DEFAULT)
}

/// A debugging-pattern detector.
pub trait Detector: Sync {
    /// Stable kebab-case id (the contract of `detect --json` and search filters).
    fn id(&self) -> &'static str;
    /// One line for `debrief detectors`.
    fn summary(&self) -> &'static str;
    /// Documentation in Markdown with the sections "What it finds", "Why it matters"
    /// and "Example".
    fn doc(&self) -> &'static str;
    /// Append findings for this window. Evidence must lie within [`LOOKBACK`] messages
    /// before and [`LOOKAHEAD`] after the key.
    fn check(&self, view: &SessionView, out: &mut Vec<Finding>);
    /// How reports tell its findings.
    fn telling(&self) -> Telling {
        Telling::DEFAULT
    }
}

/// Every detector, in a stable order.
pub fn registry() -> &'static [&'static dyn Detector] {
    &[
        // The catalog's order (../shared/spec/detectors.md).
        &grep_tail_pivot::GrepTailPivot,
        &noisy_search::NoisySearch,
        &false_crash_alarm::FalseCrashAlarm,
        &self_correction::SelfCorrection,
        &empty_user_turn::EmptyUserTurn,
        &context_dump::ContextDump,
        &polling_timeout::PollingTimeout,
        &confounded_change::ConfoundedChange,
        &retry_loop::RetryLoop,
        &user_pushback::UserPushback,
        &oscillation::Oscillation,
    ]
}

/// The detector with this id.
pub fn by_id(id: &str) -> Option<&'static dyn Detector> {
    registry().iter().copied().find(|d| d.id() == id)
}

/// Detectors chosen by `--select` / `--ignore` (ids; empty select means all).
pub fn selection(select: &[String], ignore: &[String]) -> anyhow::Result<Vec<&'static dyn Detector>> {
    for id in select.iter().chain(ignore) {
        if by_id(id).is_none() {
            let known: Vec<&str> = registry().iter().map(|d| d.id()).collect();
            crate::usage!("unknown detector `{id}` (known: {})", known.join(", "));
        }
    }
    Ok(registry()
        .iter()
        .copied()
        .filter(|d| select.is_empty() || select.iter().any(|s| s == d.id()))
        .filter(|d| !ignore.iter().any(|s| s == d.id()))
        .collect())
}

/// What the engine hands back as it goes.
#[derive(Default)]
pub struct Released {
    /// Findings that are final, in key order.
    pub findings: Vec<Finding>,
    /// Messages no later finding can have as key, in idx order.
    pub messages: Vec<Message>,
}

/// Runs detectors over a stream of messages of one session, window by window.
pub struct Stream {
    detectors: Vec<&'static dyn Detector>,
    buf: Vec<Message>,
    stats: SessionStats,
    /// Findings with key below this are final.
    frontier: u32,
    /// Messages below `owned_from` were decided by an earlier run (append re-index):
    /// they are context only, neither released nor a finding's key.
    owned_from: u32,
    seen: HashSet<(String, u32)>,
}

impl Stream {
    pub fn new(detectors: Vec<&'static dyn Detector>, stats: SessionStats, owned_from: u32) -> Self {
        Stream { detectors, buf: Vec::new(), stats, frontier: 0, owned_from, seen: HashSet::new() }
    }

    pub fn stats(&self) -> &SessionStats {
        &self.stats
    }

    pub fn push(&mut self, msg: Message, out: &mut Released) {
        if msg.idx >= self.owned_from {
            self.stats.observe(&msg);
        }
        self.buf.push(msg);
        if self.buf.len() >= LOOKBACK + CHUNK + LOOKAHEAD {
            self.run(false, out);
        }
    }

    pub fn finish(&mut self, out: &mut Released) {
        self.run(true, out);
    }

    fn run(&mut self, last: bool, out: &mut Released) {
        let Some(last_idx) = self.buf.last().map(|m| m.idx) else { return };
        // Decide keys up to `upto` (exclusive): everything when the stream ends, else
        // all but the look-ahead.
        let upto = if last { last_idx + 1 } else { self.buf[self.buf.len() - LOOKAHEAD].idx };
        let view = SessionView { messages: &self.buf, stats: &self.stats };
        let mut found = Vec::new();
        for d in &self.detectors {
            d.check(&view, &mut found);
        }
        found.retain(|f| f.key >= self.frontier.max(self.owned_from) && f.key < upto);
        found.sort_by(|a, b| a.key.cmp(&b.key).then_with(|| a.detector.cmp(&b.detector)));
        for mut f in found {
            if self.seen.insert((f.detector.clone(), f.key)) {
                f.evidence.sort_unstable();
                f.evidence.dedup();
                if !f.evidence.contains(&f.key) {
                    f.evidence.push(f.key);
                    f.evidence.sort_unstable();
                }
                out.findings.push(f);
            }
        }
        self.frontier = upto;
        // Hand out messages that have left the history: every finding keyed on them is
        // final. At the end of the stream, hand out everything.
        let release_to =
            if last { self.buf.len() } else { self.buf.partition_point(|m| m.idx < upto).saturating_sub(LOOKBACK) };
        let owned_from = self.owned_from;
        out.messages.extend(self.buf.drain(..release_to).filter(|m| m.idx >= owned_from));
    }
}

/// Run detectors over a whole session in memory, through the same engine.
pub fn detect_session(detectors: &[&'static dyn Detector], messages: &[Message]) -> Vec<Finding> {
    let mut stream = Stream::new(detectors.to_vec(), SessionStats::default(), 0);
    let mut out = Released::default();
    for m in messages {
        stream.push(m.clone(), &mut out);
        out.messages.clear();
    }
    stream.finish(&mut out);
    out.findings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fires on every message whose text is "X", citing the next "Y" within 50
    /// messages when there is one: a finding whose evidence lies ahead of its key.
    struct XThenY;

    impl Detector for XThenY {
        fn id(&self) -> &'static str {
            "x-then-y"
        }
        fn summary(&self) -> &'static str {
            "test"
        }
        fn doc(&self) -> &'static str {
            "test"
        }
        fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
            for (i, m) in view.messages.iter().enumerate() {
                if m.text != "X" {
                    continue;
                }
                let y = view.messages[i + 1..].iter().take(50).find(|n| n.text == "Y");
                if let Some(y) = y {
                    out.push(Finding {
                        detector: self.id().into(),
                        key: m.idx,
                        evidence: vec![m.idx, y.idx],
                        summary: String::new(),
                        command: None,
                        details: None,
                    });
                }
            }
        }
    }

    fn session(n: u32) -> Vec<Message> {
        (1..=n)
            .map(|i| {
                let text = match i % 97 {
                    0 => "X",
                    30 => "Y",
                    _ => "",
                };
                Message { idx: i, role: Role::Assistant, text: text.into(), ..Message::default() }
            })
            .collect()
    }

    #[test]
    fn windows_find_what_one_pass_finds_and_release_every_message_once() {
        let messages = session(5000);
        // One pass over everything, no windows.
        let mut expected = Vec::new();
        XThenY.check(&SessionView { messages: &messages, stats: &SessionStats::default() }, &mut expected);
        assert!(expected.len() > 40);
        let mut stream = Stream::new(vec![&XThenY], SessionStats::default(), 0);
        let mut out = Released::default();
        let mut released = Vec::new();
        for m in messages.clone() {
            stream.push(m, &mut out);
            released.append(&mut out.messages);
        }
        stream.finish(&mut out);
        released.append(&mut out.messages);
        assert_eq!(out.findings, expected);
        let idxs: Vec<u32> = released.iter().map(|m| m.idx).collect();
        assert_eq!(idxs, (1..=5000).collect::<Vec<_>>());
    }

    #[test]
    fn messages_before_the_owned_range_are_context_only() {
        let messages = session(1000);
        let mut stream = Stream::new(vec![&XThenY], SessionStats::default(), 500);
        let mut out = Released::default();
        for m in messages {
            stream.push(m, &mut out);
        }
        stream.finish(&mut out);
        // X at 485 (its Y at 515 is in range) belongs to the earlier run; X at 582 is ours.
        assert_eq!(out.findings.first().map(|f| f.key), Some(582));
        assert_eq!(out.messages.first().map(|m| m.idx), Some(500));
        assert_eq!(out.messages.len(), 501);
    }

    #[test]
    fn median_is_within_a_quarter_octave() {
        let mut s = SessionStats::default();
        for len in [100usize, 200, 300, 400, 5000] {
            s.observe(&Message { role: Role::Assistant, text: "x".repeat(len), ..Message::default() });
        }
        let m = s.median_assistant_len();
        assert!((250..=300).contains(&m), "median {m}");
    }
}
