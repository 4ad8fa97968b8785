//! `oscillation`: the assistant undoes its own change and later redoes it (A→B→A→B):
//! lines of a file taken out and put back in by its edits, or a setting of a program
//! toggled back and forth across its relaunches.
//!
//! How it reads a session:
//! - File text: every edit the calls make ([`text_edits`]: Edit tools' old and
//!   new strings, patches' `-`/`+` lines, whole writes, heredocs appended) is a set of
//!   lines taken out and put in, per file and machine. A line of a file is *in* or
//!   *out*; an edit that takes a line out or puts it in flips it, and a whole write
//!   flips each line it drops or brings back. Lines that say too little to tell changes
//!   apart (`}`, `end`, `else:`) are left out.
//! - Settings: the launches of one program ([`confounded_change::launches`], the same
//!   identity, flags and environment the confounded-change detector compares) flip a
//!   setting when its value differs from the previous launch's.
//! - Three flips within [`LOOKBACK`] messages (A→B→A→B) make a finding, keyed on the
//!   third: the message that returns to a state for the second time. One revert (two
//!   flips) is not one. For file text, at least two lines must flip together at the same
//!   three messages (the line put back and the one it replaces, or a block): one line
//!   alone flips by coincidence too easily (`return None` added in one place, removed in
//!   another).
//! - A deliberate revert is not an oscillation: when the assistant says at a flip that
//!   it is bisecting, measuring A/B, taking a baseline or reverting to confirm, nothing
//!   is reported.
//!
//! Everything a finding rests on lies within [`LOOKBACK`] messages before its key, and
//! only what lies there is read to decide it, so every window of the engine decides a
//! key the same way.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;

use super::confounded_change::{Launch, launches};
use super::retry_loop::{normalize, outcome};
use super::{Cited, Details, Detector, Finding, LOOKAHEAD, LOOKBACK, SessionView, Telling};
use crate::analysis::calls::{edits, is_edit_tool, only_looks, text_edits};
use crate::analysis::searches::paths_meet;
use crate::analysis::text::{and_list, quote};
use crate::model::{Message, Role};
use crate::shell;

pub struct Oscillation;

const DOC: &str = r#"
## What it finds

The assistant undoing its own change and then redoing it — A→B→A→B — without saying it
is comparing the two:

- **an edit undone and redone**: lines of a file taken out, put back, taken out again
  (or put in, taken out, put back), by edits, patches or whole rewrites of the file
  (`cat > config.yml <<EOF` three times, alternating a `queryLog:` block);
- **a setting toggled across relaunches**: a flag or environment variable of the same
  program set to one value, then another, then the first again, then the other
  (`--attention-backend flashinfer` → `triton` → `flashinfer` → `triton`).

Three flips make it: the key message is the third, the one that returns to a state for
the second time; the evidence is every flip. At least two lines must flip together in
a file (the line put back and the one it replaces, or a whole block), and the flips
must lie within 120 messages.

## Why it matters

Going back and forth between two states is the loop that stuck-detectors of agent
frameworks look for: each flip costs a round of edits and checks, and without a new
observation in between the third attempt has no better chance than the first. In a
write-up it marks where the work stopped converging — the point to ask what evidence
would have decided between A and B.

## Example

```text
[msg 69] .github/workflows/ci.yml  - python-version: ["3.11", "3.12", "3.13"]  + python-version: ["3.11", "3.12"]
[msg 73] .github/workflows/ci.yml  - python-version: ["3.11", "3.12"]  + python-version: ["3.11", "3.12", "3.13"] (+ exclude)
[msg 78] .github/workflows/ci.yml  - python-version: ["3.11", "3.12", "3.13"]  + python-version: ["3.11", "3.12"]   <- key
```

No CI log was read between the flips; only the user's "CI seems to still fail".

## Not an instance

- One revert (A→B→A): a change tried and taken back.
- A deliberate revert after evidence: a bisect, an A/B measurement or a baseline the
  assistant states as such ("revert to confirm the regression comes from it").
- A line that only looks the same: lines with fewer than five letters or digits
  (`}`, `end`, `fi`) are not followed, and a single line flipping alone is not enough.
- A sweep in a loop (`for tp in 1 2 4; do …; done`), and settings that do not change
  what runs (ports, log paths, verbosity), as for `confounded-change`.
"#;

/// Lines with fewer letters and digits than this say too little to follow.
const MIN_ALNUM: usize = 5;
/// Flips that make an oscillation: A→B→A→B.
const FLIPS: usize = 3;
/// Lines of one whole write followed at most (a generated file is not a config).
const MAX_WHOLE_LINES: usize = 2000;

/// The assistant says the revert is a test: a bisect, an A/B, a baseline.
static DELIBERATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\bbisect|\bA/B\b|\bbaseline\b|\bfor comparison\b|\bcontrol run\b",
        r"|\bwith and without\b|\bwithout and with\b",
        r"|\bcompare (?:the )?(?:two|both|results|timings|numbers|performance|throughput|outputs?)\b",
        r"|\bisolate (?:the|which|whether)\b",
        r"|\b(?:revert|undo|roll back|back out)(?:ing|ed)?\b[^.\n]{0,60}\bto (?:confirm|verify|check|test|see|measure|compare)\b",
    ))
    .expect("deliberate-revert regex is valid")
});

/// One observation of a line of a file: in or out at a message.
#[derive(Debug, Clone, Copy)]
struct Seen {
    pos: usize,
    /// Edits with nothing else between them (no command run, no user turn) are one
    /// step: a change written in two goes (take the block out, put the new one in) is
    /// one change, not a flip and its undoing.
    step: usize,
    present: bool,
    /// The observation is a change (an edit took the line out or put it in), not only
    /// a state (a whole write that holds it or not).
    change: bool,
}

/// The messages, in order, where a series of observations flips within `from..=upto`
/// (positions), and the state after each.
fn flips(seen: &[Seen], from: usize, upto: usize) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    let mut state: Option<bool> = None;
    let in_range: Vec<&Seen> = seen.iter().filter(|s| s.pos >= from && s.pos <= upto).collect();
    let mut i = 0;
    while i < in_range.len() {
        let step = in_range[i].step;
        let first = in_range[i];
        let mut last = first;
        while i < in_range.len() && in_range[i].step == step {
            last = in_range[i];
            i += 1;
        }
        // Before the first observation in range, a change says what was there.
        let prior = state.or((first.change).then_some(!first.present));
        if prior == Some(!last.present) {
            out.push((last.pos, last.present));
        }
        state = Some(last.present);
    }
    out
}

/// A line as compared: trimmed, runs of whitespace as one space; `None` when it says
/// too little.
fn norm(line: &str) -> Option<String> {
    let l = line.split_whitespace().collect::<Vec<_>>().join(" ");
    (l.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_ALNUM).then_some(l)
}

/// The files of the view, each known by its first spelling; another spelling of the
/// same file (`ci.yml` and `/repo/ci.yml`) on the same machine is the same file.
#[derive(Default)]
struct Files {
    known: Vec<(Option<String>, String)>,
}

impl Files {
    fn id(&mut self, place: Option<String>, path: &str) -> usize {
        let path = path.strip_prefix("./").unwrap_or(path);
        if let Some(i) = self.known.iter().position(|(p, f)| *p == place && paths_meet(f, path)) {
            return i;
        }
        self.known.push((place, path.to_string()));
        self.known.len() - 1
    }

    fn name(&self, id: usize) -> &str {
        let f = &self.known[id].1;
        f.rsplit(['/', '\\']).next().filter(|n| !n.is_empty()).unwrap_or(f)
    }
}

/// The observations of every followed line of every file edited in the view.
fn observe(msgs: &[Message]) -> (Files, HashMap<(usize, String), Vec<Seen>>) {
    let mut files = Files::default();
    let mut seen: HashMap<(usize, String), Vec<Seen>> = HashMap::new();
    let mut lines_of: HashMap<usize, HashSet<String>> = HashMap::new();
    // The whole content of a file, once a whole write showed it (and edits since).
    let mut content: HashMap<usize, HashSet<String>> = HashMap::new();
    // Lines a file holds more than once (`const response = await request(app)`): taking
    // one out or putting one in says nothing about the others, so they are not followed.
    let mut repeated: HashSet<(usize, String)> = HashSet::new();
    let mut step = 0;
    for (pos, m) in msgs.iter().enumerate() {
        if m.role == Role::User && !m.text.trim().is_empty() {
            step += 1;
        }
        for call in &m.calls {
            let edits = text_edits(call);
            if edits.is_empty() {
                step += 1;
                continue;
            }
            // A command line that also runs something (`cat > f <<EOF; service x
            // restart`) tried the edit: what comes after it is a new step.
            let ran = call.command.as_deref().is_some_and(|c| {
                let used: HashSet<usize> = edits.iter().filter_map(|e| e.command).collect();
                !used.is_empty() && shell::parse(c).commands.len() > used.len()
            });
            for e in edits {
                if e.file.is_empty() {
                    continue;
                }
                let id = files.id(e.place.clone(), &e.file);
                let known = lines_of.entry(id).or_default();
                let mut once: HashSet<String> = HashSet::new();
                for l in e.added.iter().take(MAX_WHOLE_LINES).chain(&e.removed).filter_map(|l| norm(l)) {
                    if !once.insert(l.clone()) {
                        repeated.insert((id, l));
                    }
                }
                let added: HashSet<String> = e.added.iter().take(MAX_WHOLE_LINES).filter_map(|l| norm(l)).collect();
                let mut put = |line: &String, present: bool, change: bool| {
                    seen.entry((id, line.clone())).or_default().push(Seen { pos, step, present, change });
                };
                if e.whole {
                    match content.get(&id) {
                        // The file's content before is known: the write's changes are exact.
                        Some(before) => {
                            for line in before.difference(&added) {
                                put(line, false, true);
                            }
                            for line in added.difference(before) {
                                put(line, true, true);
                            }
                        }
                        None => {
                            for line in known.iter().filter(|l| !added.contains(*l)) {
                                put(line, false, false);
                            }
                            for line in &added {
                                put(line, true, false);
                            }
                        }
                    }
                    content.insert(id, added.clone());
                } else {
                    let removed: HashSet<String> = e.removed.iter().filter_map(|l| norm(l)).collect();
                    for line in removed.difference(&added) {
                        put(line, false, true);
                    }
                    for line in added.difference(&removed) {
                        put(line, true, true);
                    }
                    if let Some(c) = content.get_mut(&id) {
                        c.retain(|l| !removed.contains(l));
                        c.extend(added.iter().cloned());
                    }
                    known.extend(removed);
                }
                known.extend(added);
            }
            if ran {
                step += 1;
            }
        }
    }
    seen.retain(|k, _| !repeated.contains(k));
    (files, seen)
}

/// The assistant says, at one of these messages or in its words just before, that
/// the flip is a deliberate test.
fn deliberate(msgs: &[Message], positions: &[usize]) -> bool {
    positions.iter().any(|&p| {
        let start = p.saturating_sub(2);
        msgs[start..=p]
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .any(|m| DELIBERATE.is_match(&m.text) || DELIBERATE.is_match(&m.thinking))
    })
}

/// Where a series is from the start of its flips: `out → in → out → in`.
fn sequence(first_state_before: bool, n: usize) -> String {
    let word = |b: bool| if b { "in" } else { "out" };
    let mut s = vec![word(first_state_before)];
    let mut state = first_state_before;
    for _ in 0..n {
        state = !state;
        s.push(word(state));
    }
    s.join(" → ")
}

fn span(msgs: &[Message], first: usize, key: usize) -> String {
    let n = msgs[key].idx.saturating_sub(msgs[first].idx);
    format!("over {n} message{}", if n == 1 { "" } else { "s" })
}

/// Lines of a file that flip together a third time at the same message.
fn text_findings(msgs: &[Message], out: &mut Vec<Finding>) {
    let (files, seen) = observe(msgs);
    // (file, the three flips) → the lines, with their state at the key.
    type Flips = (usize, [usize; FLIPS]);
    let mut groups: BTreeMap<Flips, Vec<(String, bool)>> = BTreeMap::new();
    for ((file, line), obs) in &seen {
        for o in obs {
            let from = o.pos.saturating_sub(LOOKBACK);
            let f = flips(obs, from, o.pos);
            if f.len() == FLIPS && f.last().is_some_and(|(p, _)| *p == o.pos) {
                let at = [f[0].0, f[1].0, f[2].0];
                let entry = groups.entry((*file, at)).or_default();
                if !entry.iter().any(|(l, _)| l == line) {
                    entry.push((line.clone(), f[2].1));
                }
            }
        }
    }
    for ((file, at), lines) in groups {
        if lines.len() < 2 || deliberate(msgs, &at) {
            continue;
        }
        let key = at[FLIPS - 1];
        // The same oscillation going on: a line of the file flipped at these messages
        // and before them too (its third flip was reported earlier).
        let going_on = seen.iter().filter(|((f, _), _)| *f == file).any(|(_, obs)| {
            let f: Vec<usize> = flips(obs, key.saturating_sub(LOOKBACK), key).into_iter().map(|(p, _)| p).collect();
            f.len() > FLIPS && at.iter().all(|p| f.contains(p))
        });
        if going_on {
            continue;
        }
        // Later flips of the same lines, as far as the look-ahead reaches.
        let mut evidence: Vec<u32> = at.iter().map(|p| msgs[*p].idx).collect();
        for (line, _) in &lines {
            if let Some(obs) = seen.get(&(file, line.clone())) {
                let later = flips(obs, at[0], (key + LOOKAHEAD).min(msgs.len() - 1));
                evidence.extend(later.iter().filter(|(p, _)| *p > key).map(|(p, _)| msgs[*p].idx));
            }
        }
        evidence.sort_unstable();
        evidence.dedup();
        // Name the line the key put back in (else the one it took out), the longest.
        let code = |l: &str| !(l.starts_with('#') || l.starts_with("//") || l.starts_with("--"));
        let rank = |l: &String| (code(l), l.len(), std::cmp::Reverse(l.clone()));
        let (line, present) =
            lines.iter().max_by(|(a, pa), (b, pb)| (*pa, rank(a)).cmp(&(*pb, rank(b)))).cloned().unwrap_or_default();
        // The two states, each by its telling line: the lines the file holds before the
        // first switch (those out at the key), and after it (in at the key); empty where
        // a state is the lines' absence.
        let state = |in_at_key: bool| {
            let side: Vec<&String> = lines.iter().filter(|(_, p)| *p == in_at_key).map(|(l, _)| l).collect();
            side.into_iter().max_by_key(|l| rank(l)).map(|l| quote(l, 60)).unwrap_or_default()
        };
        let states = [state(false), state(true)];
        let switches: Vec<Cited> = evidence
            .iter()
            .enumerate()
            .map(|(n, idx)| Cited { idx: *idx, text: states[(n + 1) % 2].clone() })
            .collect();
        let others = lines.len() - 1;
        let with = match others {
            0 => String::new(),
            1 => " (and 1 other line)".to_string(),
            n => format!(" (and {n} other lines)"),
        };
        let summary = format!(
            "`{}`{with} {} in {} a second time: {} {}",
            quote(&line, 60),
            if present { "put back" } else { "taken out" },
            files.name(file),
            sequence(!present, FLIPS),
            span(msgs, at[0], key),
        );
        out.push(Finding {
            detector: String::new(),
            key: msgs[key].idx,
            evidence,
            summary,
            command: msgs[key].calls.iter().find_map(|c| c.command.clone()),
            details: Some(Details::Flips {
                of: "lines".into(),
                subject: files.name(file).to_string(),
                states,
                switches,
            }),
        });
    }
}

/// A setting's value at a launch: a flag's value (`""` for a bare flag) or a variable's.
fn setting(l: &Launch, name: &str) -> Option<String> {
    match name.strip_prefix('$') {
        Some(var) => l.env.get(var).cloned(),
        None => l.flags.get(name).cloned(),
    }
}

fn shown(v: &Option<String>, name: &str) -> String {
    match v {
        None => "unset".into(),
        Some(v) if v.is_empty() => format!("--{name}"),
        Some(v) => quote(v, 30),
    }
}

/// Settings of one program toggled back and forth across its relaunches.
fn setting_findings(msgs: &[Message], all: &[Launch], out: &mut Vec<Finding>) {
    let mut by_program: BTreeMap<&str, Vec<&Launch>> = BTreeMap::new();
    // Programs whose settings are an experiment's (servers, jobs, runs named so), as
    // confounded-change compares them: a query tool run with other flags is not one.
    for l in all {
        by_program.entry(l.identity.as_str()).or_default().push(l);
    }
    by_program.retain(|_, runs| runs.iter().any(|l| l.experiment));
    for runs in by_program.values() {
        for (n, cur) in runs.iter().enumerate() {
            let key = cur.at.0;
            let window: Vec<&Launch> = runs[..=n].iter().copied().filter(|l| l.at.0 + LOOKBACK >= key).collect();
            if window.len() <= FLIPS {
                continue;
            }
            let mut names: Vec<String> = window
                .iter()
                .flat_map(|l| l.flags.keys().cloned().chain(l.env.keys().map(|k| format!("${k}"))))
                .collect();
            names.sort();
            names.dedup();
            let mut toggled: Vec<(String, Vec<Option<String>>, Vec<usize>)> = Vec::new();
            for name in names {
                let values: Vec<Option<String>> = window.iter().map(|l| setting(l, &name)).collect();
                let at: Vec<usize> = (1..values.len()).filter(|i| values[*i] != values[i - 1]).collect();
                // The third flip, at this launch, between two values only.
                let two: HashSet<&Option<String>> = values[at.first().map_or(0, |i| i - 1)..].iter().collect();
                if at.len() == FLIPS && at.last() == Some(&(values.len() - 1)) && two.len() == 2 {
                    let first = at[0] - 1;
                    toggled.push((name, values[first..].to_vec(), at.iter().map(|i| window[*i].at.0).collect()));
                }
            }
            if toggled.is_empty() {
                continue;
            }
            let mut positions: Vec<usize> = toggled.iter().flat_map(|(_, _, p)| p.clone()).collect();
            positions.sort_unstable();
            positions.dedup();
            if deliberate(msgs, &positions) || out.iter().any(|f| f.key == msgs[key].idx) {
                continue;
            }
            let texts: Vec<String> = toggled
                .iter()
                .map(|(name, values, _)| {
                    let bare = name.trim_start_matches('$');
                    let mut seq: Vec<String> = Vec::new();
                    for v in values {
                        let s = shown(v, bare);
                        if seq.last() != Some(&s) {
                            seq.push(s);
                        }
                    }
                    let label = if name.starts_with('$') { bare.to_string() } else { format!("--{bare}") };
                    format!("{label} ({})", seq.join(" → "))
                })
                .collect();
            let mut first = positions[0];
            let mut evidence: Vec<u32> = positions.iter().map(|p| msgs[*p].idx).collect();
            // The launch before the first flip holds the state it flipped from.
            let before = window.iter().rev().find(|l| l.at.0 < first).copied();
            if let Some(before) = before {
                evidence.push(msgs[before.at.0].idx);
                first = before.at.0;
            }
            evidence.sort_unstable();
            evidence.dedup();
            // A launch's state: the toggled settings as it set them.
            let state_of = |l: &Launch| {
                let parts: Vec<String> = toggled
                    .iter()
                    .map(|(name, _, _)| {
                        let bare = name.trim_start_matches('$');
                        match (name.starts_with('$'), setting(l, name)) {
                            (true, v) => format!("{bare}={}", v.as_deref().map_or("unset".into(), |v| quote(v, 30))),
                            (false, None) => format!("no --{bare}"),
                            (false, Some(v)) if v.is_empty() => format!("--{bare}"),
                            (false, Some(v)) => format!("--{bare} {}", quote(&v, 30)),
                        }
                    })
                    .collect();
                parts.join(" ")
            };
            let switched: Vec<&Launch> = window.iter().copied().filter(|l| positions.contains(&l.at.0)).collect();
            let states = [
                before.or(switched.first().copied()).map(state_of).unwrap_or_default(),
                switched.first().map(|l| state_of(l)).unwrap_or_default(),
            ];
            let switches: Vec<Cited> =
                switched.iter().map(|l| Cited { idx: msgs[l.at.0].idx, text: state_of(l) }).collect();
            out.push(Finding {
                detector: String::new(),
                key: msgs[key].idx,
                evidence,
                summary: format!(
                    "relaunch of {} toggled {} back a second time ({})",
                    cur.display,
                    and_list(&texts),
                    span(msgs, first, key)
                ),
                command: cur.call.command.clone(),
                details: Some(Details::Flips { of: "setting".into(), subject: cur.display.clone(), states, switches }),
            });
        }
    }
}

/// Two commands run by turns, X Y X Y, each time with the outcome it had before, and
/// nothing edited and no word from the user in between: two approaches alternated
/// without new information. Commands that only look (a `git status` and a `git diff`)
/// and polls (loops, sleeps) are not approaches, and launches of a program are judged
/// by their settings ([`setting_findings`]).
fn command_findings(msgs: &[Message], all: &[Launch], out: &mut Vec<Finding>) {
    let launched: HashSet<(usize, usize)> = all.iter().map(|l| (l.at.0, l.at.1)).collect();
    struct Run {
        pos: usize,
        command: String,
        outcome: String,
        looks: bool,
        line: Option<String>,
    }
    let mut runs: Vec<Run> = Vec::new();
    let alternates = |r: &[Run]| {
        let [a, b, c, d] = r else { return false };
        a.command == c.command
            && b.command == d.command
            && a.command != b.command
            && a.outcome == c.outcome
            && b.outcome == d.outcome
            && !(a.looks && b.looks)
            && d.pos - a.pos <= LOOKBACK
    };
    for (pos, m) in msgs.iter().enumerate() {
        if m.role == Role::User && !m.text.trim().is_empty() {
            runs.clear();
        }
        for (ci, call) in m.calls.iter().enumerate() {
            if is_edit_tool(call) || !text_edits(call).is_empty() || !edits(call).is_empty() {
                runs.clear();
                continue;
            }
            if launched.contains(&(pos, ci)) {
                runs.clear();
                continue;
            }
            let Some(cmd) = call.command.as_deref() else { continue };
            let script = shell::parse(cmd);
            if !script.loops.is_empty() || script.commands.iter().any(|c| c.name() == "sleep") {
                continue;
            }
            let Some(command) = normalize(cmd) else { continue };
            let (outcome, line) = outcome(call.result.as_ref());
            runs.push(Run {
                pos,
                command,
                outcome,
                looks: only_looks(call),
                line: Some(line).filter(|l| !l.is_empty()),
            });
            let n = runs.len();
            if n < 4 || !alternates(&runs[n - 4..]) || (n >= 5 && alternates(&runs[n - 5..n - 1])) {
                continue;
            }
            let four = &runs[n - 4..];
            let positions: Vec<usize> = four.iter().map(|r| r.pos).collect();
            if deliberate(msgs, &positions) {
                continue;
            }
            let (a, b) = (&four[0], &four[1]);
            let said = |r: &Run| r.line.as_deref().map(|l| format!(" (\"{}\")", quote(l, 50))).unwrap_or_default();
            let mut evidence: Vec<u32> = positions.iter().map(|p| msgs[*p].idx).collect();
            evidence.dedup();
            let switches =
                four[1..].iter().map(|r| Cited { idx: msgs[r.pos].idx, text: quote(&r.command, 80) }).collect();
            let details = Details::Flips {
                of: "commands".into(),
                subject: format!("{} and {}", quote(&a.command, 50), quote(&b.command, 50)),
                states: [quote(&a.command, 80), quote(&b.command, 80)],
                switches,
            };
            out.push(Finding {
                detector: String::new(),
                key: msgs[pos].idx,
                evidence,
                summary: format!(
                    "`{}`{} and `{}`{} run by turns, twice each, with the same outcomes and nothing changed between ({})",
                    quote(&a.command, 50),
                    said(a),
                    quote(&b.command, 50),
                    said(b),
                    span(msgs, positions[0], pos),
                ),
                command: call.command.clone(),
                details: Some(details),
            });
        }
    }
}

impl Detector for Oscillation {
    fn id(&self) -> &'static str {
        "oscillation"
    }

    fn summary(&self) -> &'static str {
        "The assistant undid its own change and redid it (A→B→A→B): an edit or a relaunch setting flipped back and forth"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        let msgs = view.messages;
        let mut found = Vec::new();
        text_findings(msgs, &mut found);
        let all = launches(msgs);
        setting_findings(msgs, &all, &mut found);
        command_findings(msgs, &all, &mut found);
        // One finding per key message.
        found.sort_by_key(|f| f.key);
        found.dedup_by_key(|f| f.key);
        out.extend(found.into_iter().map(|f| Finding { detector: self.id().into(), ..f }));
    }

    fn telling(&self) -> Telling {
        // Told beside the edits or the relaunch that switched back a second time; its
        // evidence is the earlier switches, told again where they reach into later steps.
        Telling { rank: 4, beats: &["edits", "experiment", "test", "failure"], threads: true, ..Telling::DEFAULT }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::fixture;
    use crate::model::{Call, CallResult};
    use serde_json::json;

    fn edit(idx: u32, file: &str, old: &str, new: &str) -> Message {
        Message {
            idx,
            role: Role::Assistant,
            calls: vec![Call {
                name: "Edit".into(),
                input: json!({"file_path": file, "old_string": old, "new_string": new}),
                result: Some(CallResult { output: "The file has been updated.".into(), ..CallResult::default() }),
                ..Call::default()
            }],
            ..Message::default()
        }
    }

    fn user(idx: u32, text: &str) -> Message {
        fixture::said(idx, Role::User, text)
    }

    fn run(msgs: &[Message]) -> Vec<Finding> {
        fixture::check(&Oscillation, msgs)
    }

    const A: &str = "USE_FUSION = True\nNCCL_ALGO = 'Tree'";
    const B: &str = "USE_FUSION = False\nNCCL_ALGO = 'Ring'";

    #[test]
    fn an_edit_undone_and_redone() {
        let msgs = vec![
            edit(1, "cfg.py", A, B),
            user(2, "still slow"),
            edit(3, "cfg.py", B, A),
            user(4, "still slow"),
            edit(5, "/repo/cfg.py", A, B),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].key, 5);
        assert_eq!(f[0].evidence, vec![1, 3, 5]);
        assert_eq!(
            f[0].summary,
            "`NCCL_ALGO = 'Ring'` (and 3 other lines) put back in cfg.py a second time: out → in → out → in over 4 messages"
        );
        // Later flips of the same lines are the same oscillation: evidence, no new finding.
        let mut more = msgs.clone();
        more.extend([user(6, "no"), edit(7, "cfg.py", B, A)]);
        let f = run(&more);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence, vec![1, 3, 5, 7]);
    }

    #[test]
    fn near_misses_of_edits() {
        // One revert.
        assert!(run(&[edit(1, "cfg.py", A, B), user(2, "no"), edit(3, "cfg.py", B, A)]).is_empty());
        // A stated A/B.
        let mut ab = vec![edit(1, "cfg.py", A, B), user(2, "?"), edit(3, "cfg.py", B, A), user(4, "?")];
        ab[2].text = "Reverting the change to confirm the slowdown comes from it.".into();
        ab.push(edit(5, "cfg.py", A, B));
        assert!(run(&ab).is_empty());
        // Edits with nothing run between them are one change written in two goes.
        assert!(
            run(&[edit(1, "cfg.py", "", A), user(2, "go"), edit(3, "cfg.py", A, ""), edit(4, "cfg.py", "", A)])
                .is_empty()
        );
        // Another file, and lines too short to follow.
        assert!(
            run(&[edit(1, "a.py", A, B), user(2, "?"), edit(3, "b.py", B, A), user(4, "?"), edit(5, "a.py", A, B)])
                .is_empty()
        );
        assert!(
            run(&[
                edit(1, "a.rs", "}\n}", "end\nfi"),
                user(2, "?"),
                edit(3, "a.rs", "end\nfi", "}\n}"),
                user(4, "?"),
                edit(5, "a.rs", "}\n}", "end\nfi")
            ])
            .is_empty()
        );
        // A failed edit changed nothing.
        let mut failed = edit(5, "cfg.py", A, B);
        failed.calls[0].result = Some(CallResult { is_error: true, ..CallResult::default() });
        assert!(
            run(&[edit(1, "cfg.py", A, B), user(2, "?"), edit(3, "cfg.py", B, A), user(4, "?"), failed]).is_empty()
        );
    }

    #[test]
    fn a_config_rewritten_whole_toggles_a_block() {
        let write = |idx, with: bool| {
            let body = format!("log:\n  level: info\n{}", if with { "queryLog:\n  type: console\n" } else { "" });
            fixture::bash(idx, &format!("cat > /etc/blocky/config.yml <<'EOF'\n{body}EOF\nservice blocky restart"), "")
        };
        let msgs = vec![write(1, false), write(2, true), write(3, false), write(4, true)];
        let f = run(&msgs);
        assert_eq!(f.iter().map(|f| f.key).collect::<Vec<_>>(), vec![4], "{f:?}");
        assert_eq!(f[0].evidence, vec![2, 3, 4]);
        // Three writes are one revert of the block.
        assert!(run(&msgs[..3]).is_empty());
    }

    #[test]
    fn a_setting_toggled_across_relaunches() {
        let launch = |idx, v: &str| {
            fixture::bash(idx, &format!("nohup vllm serve /m --kv-cache-dtype {v} > /tmp/v.log 2>&1 &"), "")
        };
        let msgs = vec![launch(1, "fp8"), launch(2, "auto"), launch(3, "fp8"), launch(4, "auto")];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].key, 4);
        assert_eq!(
            f[0].summary,
            "relaunch of vllm serve toggled --kv-cache-dtype (fp8 → auto → fp8 → auto) back a second time (over 3 messages)"
        );
        // A value that moves on (fp8 → auto → fp8 → bf16) is not a toggle between two.
        assert!(run(&[launch(1, "fp8"), launch(2, "auto"), launch(3, "fp8"), launch(4, "bfloat16")]).is_empty());
        // Only the port moves: not a setting.
        let port = |idx, p: u32| fixture::bash(idx, &format!("nohup vllm serve /m --port {p} > /tmp/v.log 2>&1 &"), "");
        assert!(run(&[port(1, 8000), port(2, 8001), port(3, 8000), port(4, 8001)]).is_empty());
    }

    #[test]
    fn two_commands_by_turns_without_new_information() {
        let build = |idx| fixture::bash_exit(idx, "npm run build", "error: cannot resolve '@/lib/api'", Some(1));
        let prod = |idx| fixture::bash_exit(idx, "npm run build:prod", "npm error Missing script", Some(1));
        let f = run(&[build(1), prod(2), build(3), prod(4)]);
        assert_eq!(f.iter().map(|f| (f.key, f.evidence.clone())).collect::<Vec<_>>(), vec![(4, vec![1, 2, 3, 4])]);
        // An edit between, a new outcome, a user turn, or two commands that only look: no.
        assert!(run(&[build(1), prod(2), fixture::edit(3, "src/App.tsx"), build(4), prod(5)]).is_empty());
        let ok = fixture::bash_exit(3, "npm run build", "built in 1.2s", Some(0));
        assert!(run(&[build(1), prod(2), ok, prod(4)]).is_empty());
        assert!(run(&[build(1), prod(2), user(3, "try the prod one"), build(4), prod(5)]).is_empty());
        let look = |idx, c: &str| fixture::bash(idx, c, "nothing to commit");
        assert!(
            run(&[look(1, "git status"), look(2, "git diff"), look(3, "git status"), look(4, "git diff")]).is_empty()
        );
    }
}
