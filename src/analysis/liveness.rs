//! Is the process the agent is watching alive? Shared by `false-crash-alarm` and
//! `self-correction`: alarms (a check printing CRASHED, the assistant saying the server
//! crashed), retractions ("it didn't crash", "it's still loading!"), evidence that
//! confirms a crash (traceback, OOM, non-zero exit) or shows the process alive (ready,
//! progress that advanced), and relaunches, after which "it's up" is about a new
//! process and no longer contradicts the old alarm.

use std::sync::LazyLock;

use regex::Regex;

use super::calls;
use super::searches::{self, echoed_literals, payload};
use super::statements::{clause_before, hedged, prose, sentences};
use super::text::{clip_line, quote};
use crate::model::{Message, Role};
use crate::shell::SimpleCommand;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("liveness patterns are valid regexes")
}

/// What a check prints when it decides the process failed. Upper-case FAIL words only:
/// lower-case "failed" is too common in ordinary progress messages.
static ALARM_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(?:CRASH(?:ED)?|[Cc]rashed|[Cc]rash detected|DIED|[Dd]ied|DEAD|[Ii]s dead|FAIL(?:ED|URE)?|ERROR DETECTED|[Ee]rror detected|NOT RUNNING|EXITED|[Pp]rocess exited|DOWN|[Ii]s down)\b",
    )
});

/// "the server crashed", "it died", "the process failed to start".
static CRASH_STATEMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:server|process|job|run|launch|training|service|worker|engine|container|app|daemon|instance|node|it|that|this|which)\s+(?:(?:has|had|have|just|already|apparently|clearly|definitely|then|must have|seems to have|appears to have)\s+)*(?:crashed|died|is dead|went down|failed to (?:start|launch|come up|load|initiali[sz]e))\b",
    )
});

static NOT_CRASHED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:didn't|did not|didnt|hasn't|has not|hasnt|never|wasn't|was not|isn't|is not)\s+(?:actually\s+|really\s+|even\s+|in fact\s+)?(?:crash(?:ed)?|died?|dead|down|a (?:real |genuine |actual )?crash)\b|\bnot\s+(?:actually\s+|really\s+)?(?:crashed|dead)\b",
    )
});
static STILL_GOING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bstill\s+(?:loading|starting(?:\s+up)?|running|alive|initiali[sz]ing|booting|warming up|coming up|compiling|capturing|in progress|going|working|up)\b",
    )
});
static FALSE_ALARM: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\bfalse\s+(?:alarm|positive)s?\b"));
static NOT_REAL_FAILURE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\bnot\s+(?:an?\s+)?(?:actual|real|genuine)\s+(?:error|crash|failure|exception|problem)"));
/// After "didn't crash": "this time", "anymore" make it a new run's result.
static NEW_RUN: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^\W*(?:this time|any ?more|now|again|after|with the fix|since)"));

/// Words in a process's own output that settle that it did fail.
static CONFIRMS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"Traceback \(most recent call last\)|CUDA out of memory|OutOfMemoryError|\bOOM\b|[Oo]ut of memory|Segmentation fault|core dumped|\bKilled\b|SIGKILL|SIGSEGV|SIGABRT|exited with (?:code|status) [1-9]|exit (?:code|status):? [1-9]|panicked at|NCCL error|Fatal Python error|terminate called",
    )
});

static READY_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\bready\b|startup complete|uvicorn running|listening on|fired up|server started|started server|\bis up\b|"status"\s*:\s*"(?:ok|healthy|ready|up)"|\b200 OK\b"#,
    )
});
static NOT_READY: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\bnot\b|n't\b|\bnever\b|time[ds]? ?out|waiting|wait for|unhealthy|unready|\bif\b|until"));
static ALIVE_STATEMENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:server|process|service|it|model)(?:\s+is|'s|’s)\s+(?:now\s+|actually\s+)?(?:up|ready|alive|healthy|serving)\b",
    )
});

static PROGRESS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)(?P<label>[A-Za-z][A-Za-z ._-]{2,60}?)[:\s|]*(?:(?P<pct>\d{1,3})%|(?P<num>\d+)\s*/\s*(?P<den>\d+))")
});
static PROGRESS_WORD: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)loading|completed|it/s|s/it|\bstep\b|epoch|shard|capturing|downloading|processing|batch|warm|migrat")
});

/// The text is a failure verdict a check would print ("CRASHED", "server died").
pub fn is_alarm_text(s: &str) -> bool {
    ALARM_TOKEN.is_match(s)
}

/// Programs that check whether something is ready.
const PROBES: &[&str] = &[
    "curl",
    "wget",
    "http",
    "https",
    "nc",
    "ncat",
    "ss",
    "netstat",
    "lsof",
    "pgrep",
    "pidof",
    "ps",
    "grep",
    "egrep",
    "rg",
    "test",
    "[",
    "[[",
    "kill",
    "nvidia-smi",
    "docker",
    "kubectl",
    "systemctl",
    "tail",
    "cat",
    "ls",
    "redis-cli",
    "pg_isready",
    "mysqladmin",
    "grpcurl",
    "stat",
];

/// A command that checks whether something is up or ready.
pub fn is_probe(c: &SimpleCommand) -> bool {
    let name = c.name();
    PROBES.contains(&name)
        || (matches!(name, "python" | "python3") && c.args.iter().any(|a| a == "-c"))
        || name.ends_with("health") // project scripts such as ./check_health
}

/// "curl localhost:30000/health", "grep 'ready' server.log".
pub fn describe_probe(c: &SimpleCommand) -> String {
    let name = c.name();
    let pos = c.positionals();
    let what = match name {
        "curl" | "wget" | "http" | "https" => pos
            .iter()
            .find(|a| a.contains(':') || a.contains('/'))
            .map(|u| u.trim_start_matches("http://").trim_start_matches("https://").to_string()),
        "grep" | "egrep" | "rg" => {
            let pattern = c.flag_value(Some('e'), Some("regexp")).or_else(|| pos.first().copied()).unwrap_or("");
            let file = c.file_args().first().map(|f| f.rsplit('/').next().unwrap_or(f).to_string());
            Some(match file {
                Some(f) => format!("'{}' {f}", clip_line(pattern, 30)),
                None => format!("'{}'", clip_line(pattern, 30)),
            })
        }
        _ => (!pos.is_empty()).then(|| clip_line(&pos.iter().take(3).copied().collect::<Vec<_>>().join(" "), 40)),
    };
    match what {
        Some(w) => format!("{name} {w}"),
        None => name.to_string(),
    }
}

/// A failure a check printed or the assistant stated, in one message.
#[derive(Debug, Clone)]
pub struct Alarm {
    /// "a check printed CRASHED" / "the assistant said \"the server crashed\"".
    pub what: String,
    /// The command of the check, when a check raised it.
    pub command: Option<String>,
    /// The line that raised it: the verdict as the check printed it, or the sentence.
    pub line: String,
}

/// The alarm an assistant message raises, if any: one of its commands echoes a failure
/// token and the output carries it, or its text states that the process crashed.
pub fn alarm(m: &Message) -> Option<Alarm> {
    if m.role != Role::Assistant {
        return None;
    }
    for call in &m.calls {
        let (Some(script), Some(result)) = (searches::script(call), call.result.as_ref()) else { continue };
        let out = payload(&result.output);
        for (at, lit) in echoed_literals(&script) {
            // A verdict is printed once; a status printed on every attempt ("FAIL" while
            // the server is still coming up) is the poll waiting, not an alarm.
            // A liveness check probes something (a port, a process, a log); "FAILED" from
            // a loop over test files is a test result, not a verdict on a process.
            if let Some(tok) = ALARM_TOKEN.find(&lit)
                && (1..=2).contains(&out.matches(lit.as_str()).count())
                && script.commands.iter().any(is_probe)
            {
                let kind = if script.loops.is_empty() { "a check" } else { "a poll loop" };
                // The probe whose outcome printed the verdict: the nearest one before it.
                let on = script.commands[..at]
                    .iter()
                    .rev()
                    .find(|c| is_probe(c))
                    .map(|c| format!(" on {}", describe_probe(c)))
                    .unwrap_or_default();
                let line = out.lines().find(|l| l.contains(lit.as_str())).unwrap_or(&lit);
                return Some(Alarm {
                    what: format!("{kind} printed {}{on}", tok.as_str()),
                    command: call.command.clone(),
                    line: clip_line(line, 160),
                });
            }
        }
    }
    crash_statement(&m.text).map(|s| Alarm {
        what: format!("the assistant said \"{}\"", clip_line(&s, 80)),
        command: None,
        line: clip_line(&s, 160),
    })
}

/// The sentence of `text` that states, without hedging, that the process crashed.
pub fn crash_statement(text: &str) -> Option<String> {
    let p = prose(text);
    for (s, end) in sentences(&p) {
        if end == Some('?') {
            continue;
        }
        for m in CRASH_STATEMENT.find_iter(s) {
            if !hedged(clause_before(s, m.start())) {
                return Some(s.to_string());
            }
        }
    }
    None
}

/// The sentence in which the assistant says the process did not crash after all: "it
/// didn't crash", "it's still loading!", "a false alarm", "not an actual error".
pub fn crash_retraction(text: &str) -> Option<String> {
    let p = prose(text);
    let ss = sentences(&p);
    let contrast = ss.iter().any(|(s, end)| {
        *end == Some('!')
            || NOT_CRASHED.is_match(s)
            || FALSE_ALARM.is_match(s)
            || s.to_ascii_lowercase().contains("actually")
            || s.to_ascii_lowercase().contains("in fact")
            || s.to_ascii_lowercase().contains("turns out")
    });
    for (s, end) in &ss {
        if *end == Some('?') {
            continue;
        }
        let found = [&*NOT_CRASHED, &*FALSE_ALARM, &*NOT_REAL_FAILURE]
            .iter()
            .flat_map(|r| r.find_iter(s))
            .chain(STILL_GOING.find_iter(s).filter(|_| contrast))
            .find(|m| !hedged(clause_before(s, m.start())) && !NEW_RUN.is_match(&s[m.end()..]));
        if found.is_some() {
            return Some(s.to_string());
        }
    }
    None
}

static CAUSE_STATED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)out of memory|\bOOM\b|segfault|segmentation fault|exit(?:ed with)? code [1-9]|crash(?:ed)? (?:because|due to|with|from)|(?:crash|failure) (?:is|was) (?:caused|due)",
    )
});

/// The assistant states how or why the process failed (OOM, a segfault, an exit code,
/// "crashed because …"): it takes the failure as settled.
pub fn crash_cause_stated(text: &str) -> bool {
    let p = prose(text);
    sentences(&p)
        .iter()
        .any(|(s, end)| *end != Some('?') && CAUSE_STATED.find(s).is_some_and(|m| !hedged(clause_before(s, m.start()))))
}

/// The assistant says the process is up ("the server is ready now").
pub fn alive_statement(text: &str) -> Option<String> {
    let p = prose(text);
    for (s, end) in sentences(&p) {
        if end == Some('?') {
            continue;
        }
        if let Some(m) = ALIVE_STATEMENT.find(s) {
            let before = clause_before(s, m.start());
            if !hedged(before) && !NOT_READY.is_match(before) && !NOT_READY.is_match(&s[m.start()..]) {
                return Some(s.to_string());
            }
        }
    }
    None
}

/// Outputs of the message's calls.
fn outputs(m: &Message) -> impl Iterator<Item = &str> {
    m.calls.iter().filter_map(|c| c.result.as_ref()).map(|r| payload(&r.output))
}

/// A line of the message's outputs that settles that the process failed.
pub fn confirmation(m: &Message) -> Option<String> {
    outputs(m).find_map(|o| CONFIRMS.find(o).map(|x| x.as_str().to_string()))
}

/// A line of the message's outputs saying the process is ready.
pub fn ready_line(m: &Message) -> Option<String> {
    for o in outputs(m) {
        for line in o.lines().rev() {
            if READY_LINE.is_match(line) && !NOT_READY.is_match(line) {
                return Some(clip_line(line, 80));
            }
        }
    }
    None
}

/// The last progress reading in the message's outputs: label and fraction done.
pub fn progress(m: &Message) -> Option<(String, f64)> {
    progress_of(m).map(|(label, f, _)| (label, f))
}

/// The last line of a message's outputs that reports progress ("Loading safetensors
/// checkpoint shards: 3% Completed | 2/64", "step 400/1000"), clipped to one line.
pub fn progress_line(m: &Message) -> Option<String> {
    progress_of(m).map(|(_, _, line)| line)
}

fn progress_of(m: &Message) -> Option<(String, f64, String)> {
    let mut last = None;
    for o in outputs(m) {
        for line in o.lines() {
            if !PROGRESS_WORD.is_match(line) {
                continue;
            }
            if let Some(c) = PROGRESS.captures(line) {
                let frac = if let Some(p) = c.name("pct") {
                    p.as_str().parse::<f64>().ok().map(|v| v / 100.0)
                } else {
                    let num = c.name("num").and_then(|n| n.as_str().parse::<f64>().ok());
                    let den = c.name("den").and_then(|n| n.as_str().parse::<f64>().ok()).filter(|d| *d > 0.0);
                    num.zip(den).map(|(n, d)| n / d)
                };
                if let Some(f) = frac.filter(|f| *f <= 1.0) {
                    last = Some((c["label"].trim().to_string(), f, quote(line, 160)));
                }
            }
        }
    }
    last
}

/// Every call of the message only looks (probes, reads logs): what it shows is the
/// process as it was, not the result of something the message changed or ran.
pub fn only_observes(m: &Message) -> bool {
    m.calls.iter().all(calls::only_looks)
}

/// The message starts, restarts or kills a process: what it says afterwards about "the
/// server" is about a new process.
pub fn relaunches(m: &Message) -> bool {
    m.calls.iter().any(|call| {
        if call.input.get("run_in_background").and_then(|v| v.as_bool()) == Some(true) {
            return true;
        }
        let Some(script) = searches::script(call) else { return false };
        script.commands.iter().any(|c| {
            let pos = c.positionals();
            let sub = pos.first().copied().unwrap_or("");
            c.background
                || c.via.iter().any(|v| matches!(v.as_str(), "nohup" | "setsid"))
                || matches!(c.name(), "kill" | "pkill" | "killall" | "screen" | "tmux")
                || (matches!(c.name(), "systemctl" | "service" | "supervisorctl" | "pm2")
                    && pos.iter().any(|a| matches!(*a, "start" | "restart" | "reload")))
                || (matches!(c.name(), "docker" | "podman" | "docker-compose")
                    && pos.iter().take(2).any(|a| matches!(*a, "up" | "run" | "start" | "restart")))
                || (c.name() == "kubectl" && matches!(sub, "apply" | "rollout" | "delete" | "scale"))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Call, CallResult};

    fn ran(cmd: &str, out: &str) -> Message {
        Message {
            role: Role::Assistant,
            calls: vec![Call {
                name: "Bash".into(),
                command: Some(cmd.into()),
                result: Some(CallResult { output: out.into(), ..CallResult::default() }),
                ..Call::default()
            }],
            ..Message::default()
        }
    }

    #[test]
    fn statements_of_a_crash() {
        assert!(crash_statement("The server crashed during model loading. Let me look.").is_some());
        assert!(crash_statement("It looks like it died right after the NCCL init.").is_some());
        assert!(crash_statement("Let me check whether the server crashed.").is_none());
        assert!(crash_statement("Did the server crash?").is_none());
        assert!(crash_statement("It didn't crash — still loading.").is_none());
        assert!(crash_statement("If the server crashed, the log will say so.").is_none());
        assert!(crash_statement("```\nthe server crashed\n```").is_none());
    }

    #[test]
    fn checks_that_print_an_alarm() {
        let loop_cmd =
            "for i in $(seq 1 40); do if grep -q Exception x.log; then echo CRASHED; break; fi; sleep 15; done";
        let a = alarm(&ran(loop_cmd, "CRASHED\n")).expect("alarm");
        assert_eq!(a.what, "a poll loop printed CRASHED on grep 'Exception' x.log");
        assert!(alarm(&ran(loop_cmd, "")).is_none(), "the token must be printed");
        assert!(
            alarm(&ran("echo '=== checking for crash ==='; tail -3 x.log", "=== checking for crash ===\n")).is_none()
        );
    }

    #[test]
    fn retractions() {
        assert!(crash_retraction("It's still loading! It didn't crash — my grep matched an import warning.").is_some());
        assert!(crash_retraction("That was a false alarm: the log just has warnings.").is_some());
        assert!(crash_retraction("The server is still loading, let me wait.").is_none(), "no contrast");
        assert!(crash_retraction("It didn't crash this time, the fix works.").is_none(), "a new run");
        assert!(crash_retraction("Make sure it did not crash?").is_none());
        assert!(crash_retraction("Let me see if it didn't crash.").is_none());
    }

    #[test]
    fn evidence_in_outputs() {
        assert!(confirmation(&ran("tail x.log", "Traceback (most recent call last):\n  File ...")).is_some());
        assert!(confirmation(&ran("tail x.log", "WARNING: Exception ignored in import")).is_none());
        assert_eq!(
            ready_line(&ran("curl h", "Server ready after 12 attempts")).as_deref(),
            Some("Server ready after 12 attempts")
        );
        assert!(ready_line(&ran("curl h", "Waiting for server to be ready (3/60)")).is_none());
        let p =
            progress(&ran("tail x.log", "Loading safetensors checkpoint shards:   3% Completed | 2/64 [00:01<00:33]"));
        let (label, f) = p.expect("progress");
        assert!(label.starts_with("Loading safetensors checkpoint shards"), "{label}");
        assert!((f - 0.03).abs() < 1e-9);
        assert!(alive_statement("The server is up now.").is_some());
        assert!(alive_statement("Is the server up?").is_none());
        assert!(alive_statement("The server is not up yet.").is_none());
    }

    #[test]
    fn relaunch_forms() {
        assert!(relaunches(&ran("nohup python -m sglang.launch_server --port 30000 > x.log 2>&1 &", "")));
        assert!(relaunches(&ran("pkill -f sglang", "")));
        assert!(relaunches(&ran("docker compose up -d api", "")));
        assert!(!relaunches(&ran("tail -50 x.log", "")));
        assert!(!relaunches(&ran("for i in $(seq 1 5); do curl -s h; sleep 5; done", "")));
    }

    #[test]
    fn observing_is_probing_and_reading() {
        assert!(only_observes(&ran("ssh root@h 'tail -50 /x.log' 2>&1", "")));
        assert!(only_observes(&ran("sleep 30; systemctl is-active api; journalctl -u api -n 3", "")));
        assert!(only_observes(&ran("docker logs api --tail 5", "")));
        assert!(!only_observes(&ran("timeout 10 python app.py", "")), "runs the app itself");
        assert!(!only_observes(&ran("sed -i 's/a/b/' cfg.py && tail -3 x.log", "")));
    }
}
