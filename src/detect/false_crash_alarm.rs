//! `false-crash-alarm`: a check or a conclusion declared that the process failed, and
//! later evidence in the session shows it had not.

use super::{Cited, Details, Detector, Finding, SessionView, Telling, Undoing};
use crate::analysis::liveness::{self, Alarm};
use crate::analysis::statements::{quote_from, sentence_quote};
use crate::analysis::text::clip_line;
use crate::model::{Message, Role};

pub struct FalseCrashAlarm;

/// Messages after the alarm in which it may be contradicted.
const AHEAD: usize = 40;
/// An alarm this close after another one about the same process (no relaunch between)
/// restates it and belongs to the first one's finding.
const EPISODE: usize = 30;

const DOC: &str = r#"
## What it finds

An automated check or a conclusion declared that a process failed — a poll or watch
loop printing `CRASHED`/`FAILED`/"error detected", a keyword grep used as a crash
verdict, or the assistant stating that the server crashed or died — and later evidence
in the session, before any relaunch, shows it had not:

- the assistant retracts it ("it didn't crash", "it's still loading!", "false alarm");
- the process reports ready (a health check answers, the log says "ready"); or
- its progress advances past where it was at the alarm (checkpoint shards 3% → 40%).

The key message is the one that raised the alarm; the evidence adds restatements of it,
the probes that showed the process alive, and the message that settled it.

## Why it matters

A false alarm sends the session down a debugging path for a failure that does not
exist: the seeds' crash check matched "Exception" in import warnings, and the
assistant spent several messages hunting a crash in a server that was still loading.
Counting them shows which checks need tightening (match tracebacks and exit codes, not
keywords).

## Example

```text
[msg 5081] for i in $(seq 1 60); do ... if grep -q "Exception" log; then echo CRASHED; break; fi ...
           -> CRASHED                                  <- key
[msg 5084] tail -50 log -> Loading safetensors checkpoint shards: 3% Completed | 2/64
[msg 5085] "It's still loading! It didn't crash — my 'crash detection' grep matched 'Exception'..."
```

## Not an instance

- An alarm that later evidence confirms (a traceback, an OOM or `Killed`, a non-zero
  exit) and that is never retracted.
- "It's up" after a relaunch, restart or kill: that is a new process. Likewise a
  process seen up or progressing only after the session changed something (an edit, the
  app run in the foreground): only probes and log reads between the alarm and the
  evidence count, while an explicit retraction always does.
- A status printed on every attempt of a wait loop ("FAIL", "not ready") — a poll
  waiting, not a verdict — and hedged statements ("if it crashed…", "did it crash?").
"#;

/// What settled the alarm as false.
struct Settled {
    pos: usize,
    /// For the summary: "the process reported ready: \"…\"".
    how: String,
    /// What it was (`retraction`, `ready`, `alive`, `progress`) and the line that showed it.
    kind: &'static str,
    line: String,
}

/// Another alarm about the same process came shortly before, with no relaunch and no
/// settling in between: this one restates it.
fn restates_earlier(msgs: &[Message], i: usize) -> bool {
    for n in msgs[i.saturating_sub(EPISODE)..i].iter().rev() {
        if n.role != Role::Assistant {
            continue;
        }
        if liveness::crash_retraction(&n.text).is_some() || liveness::relaunches(n) {
            return false;
        }
        if liveness::alarm_or_not_up(n).is_some() {
            return true;
        }
    }
    false
}

/// Scan forward from the alarm for what settles it, collecting supporting messages.
fn settle(msgs: &[Message], i: usize, port: Option<u16>, support: &mut Vec<u32>) -> Option<Settled> {
    let mut confirmed = liveness::confirmation(&msgs[i]).is_some() || liveness::crash_cause_stated(&msgs[i].text);
    let mut last_progress = liveness::progress(&msgs[i]);
    // What the alarm's own message goes on to do comes after the alarm: a restart there
    // makes a new process, a fix there explains what follows.
    if liveness::relaunches(&msgs[i]) {
        return None;
    }
    let mut changed = !liveness::only_observes(&msgs[i]);
    for (pos, n) in msgs.iter().enumerate().skip(i + 1).take(AHEAD) {
        if n.role != Role::Assistant {
            continue;
        }
        if let Some(s) = liveness::crash_retraction(&n.text) {
            let q = quote_from(&n.text, &s, 90);
            return Some(Settled {
                pos,
                how: format!("the assistant retracted it: \"{q}\""),
                kind: "retraction",
                line: sentence_quote(&n.text, &s, 220),
            });
        }
        if liveness::relaunches(n) {
            return None;
        }
        if liveness::alarm_or_not_up(n).is_some() {
            support.push(n.idx);
        }
        if liveness::confirmation(n).is_some() || liveness::crash_cause_stated(&n.text) {
            confirmed = true;
        }
        // Once the session changed or ran something (a fix, the app in the foreground),
        // a process seen up afterwards proves nothing about the alarm.
        if !liveness::only_observes(n) {
            changed = true;
        }
        if confirmed || changed {
            continue;
        }
        if let Some(line) = liveness::ready_line(n) {
            return Some(Settled { pos, how: format!("the process reported ready: \"{line}\""), kind: "ready", line });
        }
        if let Some(line) = port.and_then(|p| liveness::up_on_port(n, p)) {
            let q = clip_line(&line, 70);
            return Some(Settled { pos, how: format!("it was up on that port: \"{q}\""), kind: "alive", line });
        }
        if let Some(s) = liveness::alive_statement(&n.text) {
            let q = clip_line(&s, 70);
            return Some(Settled { pos, how: format!("the assistant found it up: \"{q}\""), kind: "alive", line: q });
        }
        if let Some((label, f)) = liveness::progress(n) {
            if let Some((prev_label, prev)) = &last_progress
                && *prev_label == label
                && f > *prev
            {
                let how = format!("its progress advanced ({label} {:.0}% → {:.0}%)", prev * 100.0, f * 100.0);
                let line = liveness::progress_line(n).unwrap_or_else(|| how.clone());
                return Some(Settled { pos, how, kind: "progress", line });
            }
            support.push(n.idx);
            last_progress = Some((label, f));
        }
    }
    None
}

fn finding(id: &str, msgs: &[Message], i: usize, alarm: Alarm) -> Option<Finding> {
    let mut support = Vec::new();
    let settled = settle(msgs, i, alarm.port, &mut support)?;
    let later = msgs[settled.pos].idx.saturating_sub(msgs[i].idx);
    let mut evidence = vec![msgs[i].idx];
    evidence.extend(support.into_iter().filter(|s| *s < msgs[settled.pos].idx));
    evidence.push(msgs[settled.pos].idx);
    evidence.sort_unstable();
    evidence.dedup();
    Some(Finding {
        detector: id.into(),
        key: msgs[i].idx,
        evidence,
        summary: format!("{}; {later} message{} later {}", alarm.what, if later == 1 { "" } else { "s" }, settled.how),
        command: alarm.command,
        details: Some(Details::Belief {
            claim: Some(Cited { idx: msgs[i].idx, text: alarm.line }),
            undone: Some(Undoing { idx: msgs[settled.pos].idx, how: settled.kind.into(), text: settled.line }),
        }),
    })
}

impl Detector for FalseCrashAlarm {
    fn id(&self) -> &'static str {
        "false-crash-alarm"
    }

    fn summary(&self) -> &'static str {
        "A check or conclusion declared a crash that later evidence (ready, progress, retraction) disproved"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        let msgs = view.messages;
        for (i, m) in msgs.iter().enumerate() {
            let Some(alarm) = liveness::alarm_or_not_up(m) else { continue };
            if liveness::crash_retraction(&m.text).is_some() || restates_earlier(msgs, i) {
                continue;
            }
            out.extend(finding(self.id(), msgs, i, alarm));
        }
    }
    fn telling(&self) -> Telling {
        Telling {
            rank: 1,
            beats: &["experiment", "wait", "conclusion"],
            marks: Some(("experiment", "false-alarm")),
            threads: true,
            premise: true,
            ..Telling::DEFAULT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::fixture;
    use crate::detect::fixture::step as msg;

    fn run(msgs: &[Message]) -> Vec<Finding> {
        fixture::check(&FalseCrashAlarm, msgs)
    }

    const POLL: &str = "for i in $(seq 1 60); do if curl -s localhost:30000/health; then echo READY; break; fi; \
                        if grep -q Exception /x.log; then echo CRASHED; break; fi; sleep 20; done";

    #[test]
    fn crash_check_then_retraction() {
        let msgs = vec![
            msg(81, "", Some((POLL, "CRASHED\n"))),
            msg(82, "The server crashed during loading. Let me find the error.", Some(("grep -i error /x.log", "..."))),
            msg(84, "", Some(("tail -50 /x.log", "Loading safetensors checkpoint shards: 3% Completed | 2/64\n"))),
            msg(85, "It's still loading! It didn't crash — my grep matched an import warning.", None),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].key, 81);
        assert_eq!(f[0].evidence, vec![81, 82, 84, 85]);
        assert!(
            f[0].summary.starts_with(
                "a poll loop printed CRASHED on grep 'Exception' x.log; 4 messages later the assistant retracted it"
            ),
            "{}",
            f[0].summary
        );
    }

    #[test]
    fn progress_that_advances_settles_it() {
        let msgs = vec![
            msg(1, "It crashed.", Some(("tail -3 /x.log", "Loading shards: 10% Completed | 6/64"))),
            msg(2, "", Some(("tail -3 /x.log", "Loading shards: 40% Completed | 26/64"))),
        ];
        let f = run(&msgs);
        assert_eq!(f.len(), 1);
        assert!(f[0].summary.contains("its progress advanced (Loading shards 10% → 40%)"), "{}", f[0].summary);
    }

    #[test]
    fn a_confirmed_crash_is_not_false() {
        let msgs = vec![
            msg(1, "", Some((POLL, "CRASHED\n"))),
            msg(2, "", Some(("tail -20 /x.log", "Traceback (most recent call last):\n  ...\ntorch.OutOfMemoryError"))),
            msg(3, "", Some(("tail -2 /x.log", "Loading shards: 50% Completed | 32/64"))),
            msg(4, "", Some(("curl -s localhost:30000/health", "{\"status\": \"ok\"}"))),
        ];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn an_alarm_that_states_its_cause_is_confirmed() {
        let msgs = vec![
            msg(1, "The server crashed due to OOM at batch 64.", None),
            msg(2, "", Some(("curl -s localhost:30000/health", "{\"status\": \"ok\"}"))),
        ];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn ready_after_a_fix_proves_nothing() {
        let msgs = vec![
            msg(1, "The server crashed on the missing import.", None),
            fixture::edit(2, "app.py"),
            msg(3, "", Some(("timeout 20 python app.py", "Uvicorn running on http://0.0.0.0:8000"))),
            msg(4, "", Some(("curl -s localhost:8000/health", "{\"status\": \"ok\"}"))),
        ];
        assert!(run(&msgs).is_empty());
    }

    #[test]
    fn ready_after_a_relaunch_is_a_new_process() {
        let msgs = vec![
            msg(1, "The server crashed.", None),
            msg(2, "", Some(("nohup python -m server > /x.log 2>&1 &", ""))),
            msg(3, "", Some(("curl -s localhost:30000/health", "Server ready"))),
            msg(4, "The server is up now.", None),
        ];
        assert!(run(&msgs).is_empty());
    }
}
