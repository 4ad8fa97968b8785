//! `polling-timeout`: a wait/poll (a shell loop with sleep that probes readiness, a
//! sleep then a probe, a waiting tool such as `kubectl wait`, or the agent's own wait on
//! a background command) ran out of attempts or time without the condition being met.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::{Details, Detector, Finding, LOOKAHEAD, SessionView, Telling};
use crate::analysis::liveness::{describe_probe, is_probe};
use crate::analysis::searches::{self, echoed_literals, payload};
use crate::analysis::text::clip_line;
use crate::model::{Call, Message, Role};
use crate::shell::{self, Loop, LoopKind, Script, SimpleCommand};

pub struct PollingTimeout;

const DOC: &str = r#"
## What it finds

A call that waits for something to become ready and gave up without it:

- a shell loop that sleeps, probes (`curl` a health endpoint, `grep` a log for "ready",
  check a port, a process or a file) and ends once the probe succeeds (`break`/`exit`,
  or the probe is the `while`/`until` condition); `sleep N; probe`; or a waiting tool
  (`kubectl wait`, `kubectl rollout status`, `wait-for-it`, `wait-on`);
- whose result shows exhaustion: the loop printed its own give-up message ("Timed out
  after 23 attempts", "server not ready after 600s") at the end, the agent's tool cut
  the call off at its time limit ("Command timed out after 10m 0s"), `timeout N`
  stopped it (exit 124), the waiting tool timed out, or a loop with a fixed number of
  attempts ended without printing its success message (when the script echoes something
  before the loop, that echo must be in the output: a script that printed nothing of it
  never reached the loop, e.g. its own `pkill -f` pattern matched its shell and killed it).

Or two `sleep N` (10 s or more) then probe waits in a row, on the same thing, saw the same
output (`sleep 60 && tail log`, then `sleep 90 && tail log`, the same lines): the thing waited
for did not move in the whole wait; the second is the key, both are evidence.

Or the wait is the agent's own waiting tool, on a command it left running in the
background:

- a blocking read of the command's output that came back on its timeout with the
  command still running (Claude Code's `TaskOutput` answering
  `<retrieval_status>timeout</retrieval_status>`);
- a wait on the running process that sent it nothing, asked for 10 s or more, heard
  nothing new and found it still running (Codex's `write_stdin`), for a process the
  session never sees finish: the agent gave up on it.

The key message holds the poll call (for the waiting tool: the first wait that ran out
on that command; the command's launch and every such wait are the evidence).

## Why it matters

A poll that times out is a decision point: the process may be slow, stuck or dead,
and the poll alone cannot tell which. Long waits that end this way are where sessions
lose the most wall-clock time, and a timeout right after a relaunch often means the
relaunch did not do what was intended.

## Example

```text
[msg 5085] for i in $(seq 1 60); do curl -s localhost:30000/health && break; echo "waiting $i"; sleep 25; done
           -> waiting 1 … waiting 23
           -> Command timed out after 10m 0.0s          <- key
```

## Not an instance

- Two waits whose output changed between them (progress), or ended on a ready or done
  line both times; a call between them, or a turn of the person's.
- A poll that succeeded (its success message or a ready line is printed after the
  last give-up message), or that stopped on an alarm of its own (`CRASHED`): that is
  an answer, not exhaustion.
- A per-attempt status printed on every iteration ("not ready yet, waiting…") while
  the loop is still going.
- A loop that cannot end on a condition (`while true; do nvidia-smi; sleep 5; done`,
  `watch`): monitoring, not waiting.
- Loops without a probe (benchmark repetitions), loops without sleep, a lone `sleep`,
  a long build or test that hit the tool's time limit, a backgrounded loop, and a
  call the user interrupted.
- A read of a background command that got its end, a quiet stretch of a process that
  later finished (a long test run watched in chunks), a short look (`write_stdin`
  for 1 s), a wait that printed new output (progress), and a wait on a program meant
  to keep running (`npm run dev`, `uvicorn`, `tail -f`, `docker compose up`).
"#;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("polling-timeout patterns are valid regexes")
}

/// What a harness writes when it stops a call at its time limit.
static TOOL_TIMEOUT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)command timed out after [^\n]*|\[The command timed out after [^\n]*|has no new output after \d+ seconds[^\n]*",
    )
});
/// What waiting tools print when they give up.
static WAITER_TIMEOUT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)timed out waiting for [^\n]*|error: timed out[^\n]*|exceeded its progress deadline[^\n]*|timeout of \d+ ?ms exceeded[^\n]*|wait-for-it\.sh: timeout[^\n]*",
    )
});
/// A give-up message a loop echoes.
static GIVE_UP: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\btime[ds]?\s*-?\s*out\b|\btimed out\b|\bgave up\b|\bgiving up\b|\bnot\s+(?:yet\s+)?(?:ready|up|healthy|responding|started|available|reachable)\s+after\b|\bnever\s+(?:became|came|started|got)\b|\bstill\s+not\b|\bexhausted\b|\bfailed to\s+(?:start|come up|become)\b|\b(?:did not|didn't)\s+(?:start|come up|become)\b|\bno response after\b|\bmax(?:imum)?\s+(?:attempts|retries|wait)\b",
    )
});
/// A success message a loop echoes.
static SUCCESS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:ready|up|ok|healthy|success(?:ful)?|started|alive|listening|available|live|reachable|done|running|online)\b",
    )
});
static ATTEMPTS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(\d+)\s+(?:attempts|tries|retries|iterations|checks|polls|probes)\b"));

/// The wait a call performs.
struct Wait<'a> {
    /// The probing command (for the summary).
    probe: Option<&'a SimpleCommand>,
    /// The loop, when the wait is one.
    looped: Option<&'a Loop>,
    /// `kubectl wait` and friends.
    waiter: bool,
    /// `sleep N` then a probe.
    sleep_then_probe: Option<String>,
}

fn is_waiter(c: &SimpleCommand) -> bool {
    let pos = c.positionals();
    match c.name() {
        "kubectl" | "oc" => {
            pos.first() == Some(&"wait") || (pos.first() == Some(&"rollout") && pos.get(1) == Some(&"status"))
        }
        "wait-for-it" | "wait-for-it.sh" | "wait-on" | "wait4x" => true,
        "npx" => pos.first().is_some_and(|p| p.starts_with("wait-on")),
        "dockerize" => c.args.iter().any(|a| a == "-wait"),
        _ => false,
    }
}

fn wait_of(script: &Script) -> Option<Wait<'_>> {
    for l in &script.loops {
        let cmds = &script.commands[l.commands()];
        if cmds.iter().any(|c| c.background) {
            continue;
        }
        if !l.sleeps {
            continue;
        }
        // A wait ends when its condition is met: a probe in a while/until condition, or
        // a break/exit in the body. A loop that can only run out (`while true; do
        // nvidia-smi; sleep 5; done`, `watch`) is monitoring, not waiting.
        let probe_condition = script.commands[l.condition.clone()].iter().find(|c| is_probe(c));
        let can_end = l.breaks || (matches!(l.kind, LoopKind::While | LoopKind::Until) && probe_condition.is_some());
        if !can_end {
            continue;
        }
        if let Some(probe) = probe_condition.or_else(|| cmds.iter().find(|c| is_probe(c))) {
            return Some(Wait { probe: Some(probe), looped: Some(l), waiter: false, sleep_then_probe: None });
        }
    }
    if let Some(w) = script.commands.iter().find(|c| is_waiter(c) && !c.background) {
        return Some(Wait { probe: Some(w), looped: None, waiter: true, sleep_then_probe: None });
    }
    let sleep = script.commands.iter().position(|c| c.name() == "sleep" && !c.in_loop && !c.background)?;
    let probe = script.commands[sleep + 1..].iter().find(|c| is_probe(c) && !c.in_loop && !c.background)?;
    let secs = script.commands[sleep].args.first().cloned().unwrap_or_default();
    Some(Wait { probe: Some(probe), looped: None, waiter: false, sleep_then_probe: Some(secs) })
}

fn describe_wait(w: &Wait) -> String {
    let probe = w.probe.map(describe_probe).unwrap_or_else(|| "a probe".into());
    if w.waiter {
        return probe;
    }
    if let Some(secs) = &w.sleep_then_probe {
        return format!("sleep {secs} then {probe}");
    }
    let mut parts = vec![probe];
    if let Some(l) = w.looped {
        if let Some(s) = l.sleep_secs {
            parts.push(format!("every {s} s"));
        }
        if let Some(n) = l.iterations {
            parts.push(format!("up to {n} attempts"));
        }
    }
    format!("wait loop ({})", parts.join(", "))
}

/// The last `n` non-empty lines of an output.
fn tail_lines(out: &str, n: usize) -> Vec<&str> {
    let mut v: Vec<&str> = out.lines().rev().filter(|l| !l.trim().is_empty()).take(n).collect();
    v.reverse();
    v
}

/// Shortest sleep of a sleep-then-probe wait that counts as waiting for something.
const STALL_SECS: f64 = 10.0;

/// A sleep-then-probe wait that saw exactly what the one just before it saw (`sleep 60 &&
/// tail log`, then `sleep 90 && tail log`, the same lines both times): the thing waited for
/// did not move in the whole wait, and the wait ran out without it (a real trainer hung
/// on its weight handshake). Updates `prev` to this wait; a chain of them is reported
/// once, at its second wait. Output ending in a ready or done line is an answer, not a
/// stall: the waiting was over before it began.
fn stalled(prev: &mut Option<(u32, String, String, bool)>, idx: u32, call: &Call, w: &Wait) -> Option<(String, u32)> {
    let secs = w.sleep_then_probe.as_deref().and_then(|s| s.trim_end_matches('s').parse::<f64>().ok());
    let res = call.result.as_ref().filter(|r| !r.interrupted);
    let (Some(secs), Some(res), Some(probe)) = (secs, res, w.probe) else {
        *prev = None;
        return None;
    };
    let what = describe_probe(probe);
    let seen = payload(&res.output).trim().to_string();
    let answered = tail_lines(&seen, 3).iter().any(|l| SUCCESS.is_match(l));
    let before = prev.take();
    let stall = before
        .as_ref()
        .is_some_and(|(_, p, o, _)| secs >= STALL_SECS && *p == what && *o == seen && !seen.is_empty() && !answered);
    let reported = before.as_ref().is_some_and(|b| b.3);
    *prev = Some((idx, what, seen, stall));
    let at = before.filter(|_| stall && !reported)?.0;
    Some((format!("saw the same output as the wait of [msg {at}]: nothing changed in {secs} s"), at))
}

/// How a wait ran out, if it did: (how, the line that shows it).
fn exhaustion(call: &Call, script: &Script, w: &Wait) -> Option<String> {
    let res = call.result.as_ref()?;
    let raw = &res.output;
    let out = payload(raw);
    let literals = echoed_literals(script);
    let success: Vec<&str> =
        literals.iter().map(|(_, l)| l.as_str()).filter(|l| SUCCESS.is_match(l) && !GIVE_UP.is_match(l)).collect();
    let succeeded_after = |at: usize| success.iter().any(|s| out[at..].contains(s));
    let attempts = |line: &str| {
        ATTEMPTS.captures(line).map(|c| c[1].to_string()).or_else(|| {
            // A status echoed on every attempt: count how often it was printed.
            literals
                .iter()
                .map(|(_, l)| out.matches(l.as_str()).count())
                .filter(|n| *n >= 2)
                .max()
                .map(|n| n.to_string())
        })
    };
    if let Some(m) = TOOL_TIMEOUT.find(raw) {
        if succeeded_after(0) {
            return None;
        }
        let after = attempts("").map(|n| format!(" after {n} attempts")).unwrap_or_default();
        return Some(format!("was cut off by the tool's time limit{after} (\"{}\")", clip_line(m.as_str(), 60)));
    }
    if res.interrupted {
        return None; // the user stopped it: no verdict on the wait
    }
    if w.waiter
        && let Some(m) = WAITER_TIMEOUT.find(out)
    {
        return Some(format!("timed out (\"{}\")", clip_line(m.as_str(), 70)));
    }
    if res.exit_code == Some(124) && script.commands.iter().any(|c| c.via.iter().any(|v| v == "timeout")) {
        return Some("was stopped by `timeout` (exit 124)".into());
    }
    // Its own give-up message, printed once, at the end.
    let last = tail_lines(out, 3);
    for (_, lit) in literals.iter().filter(|(_, l)| GIVE_UP.is_match(l)) {
        let count = out.matches(lit.as_str()).count();
        if count != 1 {
            continue;
        }
        let Some(line) = last.iter().find(|l| l.contains(lit.as_str())) else { continue };
        let at = out.find(lit.as_str()).unwrap_or(0);
        if succeeded_after(at) {
            continue;
        }
        return Some(format!("ended with \"{}\"", clip_line(line, 70)));
    }
    // A counted loop that exits early on success ran to the end without its success
    // message.
    // (Only when the script has no give-up message of its own, and any per-attempt
    // status shows that the attempts did run.)
    if let Some(l) = w.looped
        && let Some(n) = l.iterations
        && l.breaks
        && !success.is_empty()
        && res.exit_code.is_some()
        && !succeeded_after(0)
        && !literals.iter().any(|(_, lit)| GIVE_UP.is_match(lit))
        && !literals.iter().any(|(_, lit)| crate::analysis::liveness::is_alarm_text(lit) && out.contains(lit.as_str()))
        // An echo before the loop that never printed: the script stopped before the loop
        // ran (a `pkill -f` whose pattern is in its own command line kills its shell).
        && !literals.iter().any(|(i, lit)| *i < l.condition.start.min(l.body.start) && !out.contains(lit.as_str()))
    {
        let statuses: Vec<usize> = literals
            .iter()
            .filter(|(i, lit)| l.body.contains(i) && !success.contains(&lit.as_str()))
            .map(|(_, lit)| out.matches(lit.as_str()).count())
            .collect();
        if statuses.iter().any(|c| *c > 0) && !statuses.iter().any(|c| *c as u64 + 1 >= n) {
            return None;
        }
        return Some(format!("ran all {n} attempts without printing \"{}\"", clip_line(success[0], 30)));
    }
    None
}

impl Detector for PollingTimeout {
    fn id(&self) -> &'static str {
        "polling-timeout"
    }

    fn summary(&self) -> &'static str {
        "A wait/poll for readiness ran out of attempts or time without the condition being met"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        tool_waits(self.id(), view.messages, out);
        // The sleep-then-probe wait just before, while nothing else ran: (message, what it
        // probed, its output, whether it was already reported as stalled).
        let mut prev: Option<(u32, String, String, bool)> = None;
        for m in view.messages {
            if m.is_typed_user() {
                prev = None;
            }
            if m.role != Role::Assistant {
                continue;
            }
            for c in &m.calls {
                let script = searches::script(c);
                let Some(wait) = script.as_ref().and_then(|s| wait_of(s)) else {
                    prev = None;
                    continue;
                };
                let script = script.as_ref().expect("a wait has a script");
                let (how, evidence) = match exhaustion(c, script, &wait) {
                    Some(how) => (how, vec![m.idx]),
                    None => match stalled(&mut prev, m.idx, c, &wait) {
                        Some((how, before)) => (how, vec![before, m.idx]),
                        None => continue,
                    },
                };
                out.push(Finding {
                    detector: self.id().into(),
                    key: m.idx,
                    evidence: evidence.clone(),
                    summary: format!("{} {how}", describe_wait(&wait)),
                    command: c.command.clone(),
                    details: Some(Details::Wait { waits: evidence, command: c.command.clone(), how }),
                });
                break;
            }
        }
    }
    fn telling(&self) -> Telling {
        Telling {
            rank: 5,
            beats: &["wait", "experiment"],
            told_by: &["wait"],
            with_tag: "with-polling-timeout",
            ..Telling::DEFAULT
        }
    }
}

/// The shortest wait (ms) a silent "still running" answer counts as running out: shorter
/// reads are the agent watching the output stream by, not waiting for the end.
const MIN_SILENT_WAIT_MS: u64 = 10_000;

/// How long a waiting call asked to wait, in ms (`TaskOutput`'s `timeout`, `write_stdin`'s
/// `yield_time_ms`).
fn wait_ms(call: &Call) -> Option<u64> {
    ["timeout", "yield_time_ms", "timeout_ms"].iter().find_map(|k| call.input.get(*k)?.as_u64())
}

/// How a call of the agent's own waiting tool ran out, if it did.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RanOut {
    /// A blocking read of a background command answered with its timeout (Claude Code's
    /// `TaskOutput`: `<retrieval_status>timeout</retrieval_status>`).
    TimedOut,
    /// A wait on a running process that sent it nothing, asked to wait a while, and came
    /// back with the process still running and nothing new printed (Codex's
    /// `write_stdin`). Such a tool always returns after its wait, so this alone is a
    /// quiet stretch; it counts only when the process is then never seen to end.
    Silent,
}

fn wait_ran_out(call: &Call) -> Option<RanOut> {
    let r = call.result.as_ref()?;
    if r.interrupted || call.command.is_some() {
        return None; // a shell command that hit the tool's limit is read from its script
    }
    if r.timed_out {
        return Some(RanOut::TimedOut);
    }
    let sends_nothing = call.input.get("chars").and_then(|c| c.as_str()).is_none_or(str::is_empty);
    (call.continues.is_some()
        && r.running
        && sends_nothing
        && wait_ms(call).is_some_and(|ms| ms >= MIN_SILENT_WAIT_MS)
        && r.output.trim().is_empty())
    .then_some(RanOut::Silent)
}

/// Programs that run until stopped: a wait on one that comes back "still running" is
/// the expected answer, not exhaustion.
fn stays_up(command: &str) -> bool {
    let script = shell::parse(command);
    if script.commands.iter().any(|c| c.via.iter().any(|v| v == "timeout")) {
        return false;
    }
    script.commands.iter().any(|c| {
        let pos = c.positionals();
        let first = pos.first().copied().unwrap_or("");
        match c.name() {
            "uvicorn" | "gunicorn" | "hypercorn" | "nodemon" | "http-server" | "serve" | "ngrok" | "watch" => true,
            "npm" | "pnpm" | "yarn" | "bun" => {
                let script = if first == "run" { pos.get(1).copied().unwrap_or("") } else { first };
                matches!(script, "dev" | "start" | "serve" | "watch" | "preview")
            }
            "vite" | "next" | "nuxt" => !matches!(first, "build" | "lint" | "test"),
            "tail" => c.has_flag(Some('f'), Some("follow")) || c.has_flag(Some('F'), None),
            "docker" | "podman" => {
                pos.contains(&"up") && !c.has_flag(Some('d'), Some("detach"))
                    || first == "logs" && c.has_flag(Some('f'), Some("follow"))
            }
            "kubectl" => {
                matches!(first, "logs" | "port-forward")
                    && (first == "port-forward" || c.has_flag(Some('f'), Some("follow")))
            }
            "flask" | "rails" => matches!(first, "run" | "s" | "server"),
            _ => {
                c.args.iter().any(|a| a == "--watch" || a == "http.server")
                    || first.contains("serve")
                    || c.name().contains("server")
            }
        }
    })
}

/// Waits of the agent's own waiting tools that ran out, one finding per command waited
/// on: keyed on the first wait that ran out, with the command's launch and every such
/// wait as evidence.
fn tool_waits(id: &str, messages: &[Message], out: &mut Vec<Finding>) {
    let launches: HashMap<&str, (u32, &Call)> =
        messages.iter().flat_map(|m| m.calls.iter().map(move |c| (c.id.as_str(), (m.idx, c)))).collect();
    // Processes seen to end: the command's result or a later read has its exit code.
    let mut ended: Vec<&str> = launches
        .iter()
        .filter(|(_, (_, c))| c.result.as_ref().is_some_and(|r| r.exit_code.is_some()))
        .map(|(id, _)| *id)
        .collect();
    ended.extend(
        messages
            .iter()
            .flat_map(|m| &m.calls)
            .filter(|c| c.result.as_ref().is_some_and(|r| r.exit_code.is_some()))
            .filter_map(|c| c.continues.as_deref()),
    );
    // Per command waited on (the call that started it, else the task the wait names).
    let mut groups: Vec<(String, Vec<(usize, &Call)>)> = Vec::new();
    for (pos, m) in messages.iter().enumerate().filter(|(_, m)| m.role == Role::Assistant) {
        for c in &m.calls {
            let Some(how) = wait_ran_out(c) else { continue };
            if how == RanOut::Silent && c.continues.as_deref().is_some_and(|o| ended.contains(&o)) {
                continue; // a quiet stretch of a process that did end
            }
            let command = c.continues.as_deref().and_then(|o| launches.get(o)).and_then(|(_, l)| l.command.as_deref());
            if command.is_some_and(stays_up) {
                continue;
            }
            let task = c.input.get("task_id").or_else(|| c.input.get("session_id")).map(|t| t.to_string());
            let target = c.continues.clone().or(task).unwrap_or_else(|| c.id.clone());
            match groups.iter_mut().find(|(t, _)| *t == target) {
                Some((_, waits)) => waits.push((pos, c)),
                None => groups.push((target, vec![(pos, c)])),
            }
        }
    }
    for (_, waits) in groups {
        let (first_pos, first) = waits[0];
        let waits: Vec<(usize, &Call)> = waits.into_iter().filter(|(p, _)| p - first_pos <= LOOKAHEAD).collect();
        let launch = first.continues.as_deref().and_then(|o| launches.get(o));
        let mut evidence: Vec<u32> = waits.iter().map(|(p, _)| messages[*p].idx).collect();
        if let Some((at, _)) = launch {
            evidence.push(*at);
        }
        evidence.sort_unstable();
        evidence.dedup();
        let command = launch.and_then(|(_, l)| l.command.as_deref());
        let what = match (command, first.input.get("task_id").and_then(|t| t.as_str())) {
            (Some(cmd), _) => format!("`{}`", clip_line(cmd, 60)),
            (None, Some(task)) => format!("background task {task}"),
            (None, None) => "a running process".to_string(),
        };
        let secs: Vec<String> =
            waits.iter().map(|(_, c)| wait_ms(c).map_or("?".to_string(), |ms| format!("{} s", ms / 1000))).collect();
        let times = match secs.as_slice() {
            [one] => format!("after {one}"),
            all => format!("{} times ({})", all.len(), all.join(", ")),
        };
        let how = if first.result.as_ref().is_some_and(|r| r.timed_out) {
            format!("timed out {times} with it still running")
        } else {
            format!("came back with nothing new {times}; it was never seen to finish")
        };
        let details = Details::Wait {
            waits: waits.iter().map(|(p, _)| messages[*p].idx).collect(),
            command: command.map(str::to_string),
            how: how.clone(),
        };
        out.push(Finding {
            detector: id.into(),
            key: messages[first_pos].idx,
            evidence,
            summary: format!("{} waiting for {what} {how}", first.name),
            command: command.map(str::to_string),
            details: Some(details),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::fixture;
    use crate::model::CallResult;

    #[test]
    fn two_waits_that_saw_the_same_lines_ran_out() {
        let stuck = "Loading weights: 100% 398/398\n[RANK 0] Initializing NCCL weight transfer\n";
        let msgs = vec![
            fixture::bash(44, "sleep 60 && tail -50 /tmp/smoke.log", stuck),
            fixture::bash(45, "sleep 90 && tail -60 /tmp/smoke.log", stuck),
            fixture::bash(46, "sleep 90 && tail -60 /tmp/smoke.log", stuck),
        ];
        let f = fixture::check(&PollingTimeout, &msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].key, f[0].evidence.clone()), (45, vec![44, 45]));
        assert!(
            f[0].summary.ends_with("saw the same output as the wait of [msg 44]: nothing changed in 90 s"),
            "{}",
            f[0].summary
        );
        // Near misses: the log moved; it showed its ready line; another file; a short look;
        // the person spoke in between; something else ran in between.
        for (a, b) in [
            (("sleep 60 && tail /tmp/smoke.log", stuck), ("sleep 90 && tail /tmp/smoke.log", "step 1/200 loss 2.3\n")),
            (
                ("sleep 30 && tail -2 s.log", "Server ready on :8000\n"),
                ("sleep 30 && tail -2 s.log", "Server ready on :8000\n"),
            ),
            (("sleep 60 && tail a.log", stuck), ("sleep 60 && tail b.log", stuck)),
            (("sleep 2 && tail a.log", stuck), ("sleep 2 && tail a.log", stuck)),
        ] {
            let msgs = vec![fixture::bash(1, a.0, a.1), fixture::bash(2, b.0, b.1)];
            assert!(fixture::check(&PollingTimeout, &msgs).is_empty(), "{b:?}");
        }
        let asked = vec![
            fixture::bash(1, "sleep 60 && tail a.log", stuck),
            fixture::said(2, Role::User, "keep waiting"),
            fixture::bash(3, "sleep 60 && tail a.log", stuck),
        ];
        assert!(fixture::check(&PollingTimeout, &asked).is_empty());
        let between = vec![
            fixture::bash(1, "sleep 60 && tail a.log", stuck),
            fixture::bash(2, "pip install -e .", "ok\n"),
            fixture::bash(3, "sleep 60 && tail a.log", stuck),
        ];
        assert!(fixture::check(&PollingTimeout, &between).is_empty());
    }

    fn ran(cmd: &str, output: &str, exit: Option<i32>) -> Vec<Finding> {
        fixture::check(&PollingTimeout, &[fixture::bash_exit(85, cmd, output, exit)])
    }

    const LOOP: &str = "for i in $(seq 1 60); do if curl -sf localhost:30000/health; then echo \"READY after $i\"; \
                        exit 0; fi; echo \"waiting $i\"; sleep 25; done; echo \"Timed out after $i attempts\"";

    #[test]
    fn give_up_message_at_the_end() {
        let out: String =
            (1..=23).map(|i| format!("waiting {i}\n")).collect::<String>() + "Timed out after 23 attempts\n";
        let f = ran(LOOP, &out, Some(0));
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].summary,
            "wait loop (curl localhost:30000/health, every 25 s, up to 60 attempts) ended with \"Timed out after 23 attempts\""
        );
    }

    #[test]
    fn tool_time_limit() {
        let out: String =
            (1..=23).map(|i| format!("waiting {i}\n")).collect::<String>() + "Command timed out after 10m 0.0s";
        let f = ran(LOOP, &out, Some(143));
        assert!(
            f[0].summary.ends_with(
                "was cut off by the tool's time limit after 23 attempts (\"Command timed out after 10m 0.0s\")"
            ),
            "{}",
            f[0].summary
        );
    }

    #[test]
    fn counted_loop_without_its_success_message() {
        let cmd = "for i in 1 2 3 4 5; do curl -sf localhost:8000/ready && echo UP && break; sleep 3; done";
        assert_eq!(
            ran(cmd, "", Some(0))[0].summary,
            "wait loop (curl localhost:8000/ready, every 3 s, up to 5 attempts) ran all 5 attempts without printing \"UP\""
        );
        assert!(ran(cmd, "UP\n", Some(0)).is_empty());
        // With an echo before the loop, the loop ran when that echo printed; when nothing
        // printed, the script stopped before it (a `pkill -f` that matched its own shell).
        let started = format!("pkill -f myserver; echo \"=== starting myserver ===\"; {cmd}");
        assert_eq!(ran(&started, "=== starting myserver ===\n", Some(0)).len(), 1);
        assert!(ran(&started, "", Some(0)).is_empty());
    }

    #[test]
    fn waiters_and_timeout_wrapper() {
        let f = ran(
            "kubectl wait --for=condition=ready pod/api --timeout=60s",
            "error: timed out waiting for the condition on pods/api",
            Some(1),
        );
        assert!(f[0].summary.starts_with("kubectl wait"));
        let f = ran("timeout 300 bash -c 'until curl -sf localhost:8000/health; do sleep 5; done'", "", Some(124));
        assert!(f[0].summary.ends_with("was stopped by `timeout` (exit 124)"));
    }

    /// A command the tool left running: Claude Code's "Command running in background" or
    /// Codex's "Process running with session ID".
    fn launched(idx: u32, id: &str, cmd: &str) -> Message {
        let mut m = fixture::bash(idx, cmd, "Command running in background with ID: b4k2x9p.");
        m.calls[0].id = id.into();
        if let Some(r) = m.calls[0].result.as_mut() {
            r.running = true;
        }
        m
    }

    /// A read of that command: `TaskOutput` (a blocking read that may time out) or
    /// `write_stdin` (a wait that returns when its time is up).
    fn read(idx: u32, of: &str, tool: &str, input: serde_json::Value, r: CallResult) -> Message {
        Message {
            idx,
            role: Role::Assistant,
            calls: vec![Call {
                id: format!("read{idx}"),
                name: tool.into(),
                input,
                continues: Some(of.into()),
                result: Some(r),
                ..Call::default()
            }],
            ..Message::default()
        }
    }

    fn task_output(idx: u32, of: &str, timeout_ms: u64, timed_out: bool) -> Message {
        let input = serde_json::json!({"block": true, "task_id": "b4k2x9p", "timeout": timeout_ms});
        let r = if timed_out {
            CallResult {
                timed_out: true,
                running: true,
                output: "<retrieval_status>timeout</retrieval_status>".into(),
                ..CallResult::default()
            }
        } else {
            CallResult {
                exit_code: Some(0),
                output: "<retrieval_status>success</retrieval_status>".into(),
                ..CallResult::default()
            }
        };
        read(idx, of, "TaskOutput", input, r)
    }

    fn write_stdin(idx: u32, of: &str, yield_ms: u64, output: &str, exit: Option<i32>) -> Message {
        let input = serde_json::json!({"session_id": 41, "chars": "", "yield_time_ms": yield_ms});
        let r = CallResult { running: exit.is_none(), exit_code: exit, output: output.into(), ..CallResult::default() };
        read(idx, of, "write_stdin", input, r)
    }

    const COMMIT: &str = "git commit -F notes/commit-msg.txt";
    const BUILD: &str = "dotnet build App.sln --configuration Release";

    #[test]
    fn a_blocking_read_of_a_background_command_that_timed_out() {
        let f = fixture::check(&PollingTimeout, &[launched(10, "c1", COMMIT), task_output(11, "c1", 30_000, true)]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].key, f[0].evidence.as_slice()), (11, &[10, 11][..]));
        assert_eq!(
            f[0].summary,
            "TaskOutput waiting for `git commit -F notes/commit-msg.txt` timed out after 30 s with it still running"
        );
        assert_eq!(f[0].command.as_deref(), Some(COMMIT));
        // Two reads of one command that both timed out are one finding; a later read that
        // got the end does not undo the timeout.
        let msgs = [
            launched(10, "c1", COMMIT),
            task_output(11, "c1", 30_000, true),
            task_output(12, "c1", 60_000, true),
            task_output(13, "c1", 120_000, false),
        ];
        let f = fixture::check(&PollingTimeout, &msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].key, f[0].evidence.as_slice()), (11, &[10, 11, 12][..]));
        assert!(f[0].summary.contains("timed out 2 times (30 s, 60 s)"), "{}", f[0].summary);
    }

    #[test]
    fn a_wait_on_a_running_process_that_heard_nothing_and_was_given_up() {
        let msgs = [
            launched(46, "c1", BUILD),
            write_stdin(47, "c1", 120_000, "", None),
            write_stdin(48, "c1", 120_000, "", None),
        ];
        let f = fixture::check(&PollingTimeout, &msgs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].key, f[0].evidence.as_slice()), (47, &[46, 47, 48][..]));
        assert_eq!(
            f[0].summary,
            "write_stdin waiting for `dotnet build App.sln --configuration Release` came back with nothing new 2 times (120 s, 120 s); it was never seen to finish"
        );
    }

    #[test]
    fn background_waits_that_are_not_exhaustion() {
        let quiet = |msgs: &[Message], why: &str| assert!(fixture::check(&PollingTimeout, msgs).is_empty(), "{why}");
        quiet(&[launched(10, "c1", COMMIT), task_output(11, "c1", 30_000, false)], "the read got the end");
        quiet(
            &[launched(10, "c1", "npm run dev -- --port 5173"), task_output(11, "c1", 15_000, true)],
            "a dev server is meant to keep running",
        );
        quiet(
            &[launched(10, "c1", "uvicorn app:app --port 8000"), write_stdin(11, "c1", 30_000, "", None)],
            "a server is meant to keep running",
        );
        quiet(
            &[
                launched(46, "c1", BUILD),
                write_stdin(47, "c1", 120_000, "", None),
                write_stdin(48, "c1", 120_000, "Build succeeded.", Some(0)),
            ],
            "a quiet stretch of a build that then finished",
        );
        quiet(&[launched(46, "c1", BUILD), write_stdin(47, "c1", 1_000, "", None)], "a one-second look, not a wait");
        quiet(
            &[launched(46, "c1", BUILD), write_stdin(47, "c1", 120_000, "  Restored App.csproj", None)],
            "it printed something: progress, not a stall",
        );
        let mut typed = write_stdin(47, "c1", 120_000, "", None);
        typed.calls[0].input["chars"] = "y\n".into();
        quiet(&[launched(46, "c1", BUILD), typed], "it answered a prompt, not waited");
        let mut stopped = task_output(11, "c1", 30_000, true);
        if let Some(r) = stopped.calls[0].result.as_mut() {
            r.interrupted = true;
        }
        quiet(&[launched(10, "c1", COMMIT), stopped], "the person stopped the wait");
    }

    #[test]
    fn near_misses() {
        let ok: String = (1..=5).map(|i| format!("waiting {i}\n")).collect::<String>() + "READY after 6\n";
        assert!(ran(LOOP, &ok, Some(0)).is_empty(), "succeeded");
        assert!(ran(LOOP, "waiting 1\nwaiting 2\n", Some(0)).is_empty(), "no verdict printed");
        let crashed = "for i in $(seq 1 60); do curl -sf h:1/health && echo READY && break; grep -q Exception x.log && echo CRASHED && break; sleep 20; done";
        assert!(ran(crashed, "CRASHED\n", Some(0)).is_empty(), "stopped on its own alarm");
        let status =
            "while true; do curl -sf h:1/health && break; echo 'not ready after this attempt, waiting'; sleep 5; done";
        let out = "not ready after this attempt, waiting\n".repeat(4);
        assert!(ran(status, &out, Some(0)).is_empty(), "a status on every attempt");
        assert!(
            ran("for i in 1 2 3; do python bench.py; sleep 5; done", "Command timed out after 2m 0.0s", None)
                .is_empty(),
            "no probe"
        );
        assert!(ran("cargo build --release", "Command timed out after 2m 0.0s", None).is_empty(), "not a wait");
        assert!(ran("sleep 600", "Command timed out after 2m 0.0s", None).is_empty(), "a lone sleep");
        assert!(
            ran("(while true; do curl -s h:1; sleep 1; done) &", "Command timed out after 2m 0.0s", None).is_empty(),
            "background"
        );
    }
}
