//! What a tool call did, in the terms a write-up needs: which program ran (looking
//! through `ssh host '…'`, `bash -lc '…'`, env assignments and `cd x &&`), whether it
//! searched, read by position, launched, waited, tested or edited, on which file, and
//! what its output looked like (size, longest line, the lines that matter).

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::liveness;
use super::searches::{LONG_LINE, Shape};
use super::text::{clip, clock, one_line, secs_between, without_ansi};
use crate::model::{Call, Message};
use crate::shell::{self, SimpleCommand};

/// Output lines shown from the start and the end of a trimmed output.
const HEAD_LINES: usize = 4;
const TAIL_LINES: usize = 6;
/// Characters of one output line in a quote.
const LINE_CHARS: usize = 160;

/// One tool call, described.
#[derive(Debug, Clone, Serialize)]
pub struct CallFacts {
    /// Tool name as the agent called it.
    pub tool: String,
    /// The shell command line, when the call ran one.
    pub command: Option<String>,
    /// The command clipped to one line, for prose.
    pub command_short: Option<String>,
    /// For a read of a background command's output: that command (set by the report
    /// builder, which sees the whole session).
    pub continues: Option<String>,
    /// The part of the command line that did the work (`python -m pytest tests/ -q`
    /// out of `cd x && TZ=UTC python -m pytest tests/ -q | tail -3`), for titles.
    pub core: Option<String>,
    /// The program that did the work (`grep`, `tail`, `python`), or the tool name.
    pub program: String,
    /// What kind of step it was: search, read, launch, wait, test, edit, write, run.
    pub action: &'static str,
    /// The file it worked on, when one can be named.
    pub file: Option<String>,
    /// For a search: the pattern it looked for.
    pub pattern: Option<String>,
    /// For a positional read: which part (`last 50 lines`, `lines 40-75`).
    pub window: Option<String>,
    /// The command ran on another machine over ssh.
    pub remote: bool,
    /// For a launch: the entry point people know it by (`sglang.launch_server`,
    /// `train.py`, `vllm serve`).
    pub entry: Option<String>,
    /// For a wait loop: what each attempt checks (`curl [REDACTED]:30000/health`), how
    /// many attempts it allows and how long it sleeps between them.
    pub probe: Option<String>,
    pub attempts: Option<u64>,
    pub interval_secs: Option<u64>,
    /// What ran, for tables and titles: the entry of a launch, "wait loop" for a wait,
    /// else the program.
    pub label: String,
    pub output: Option<OutputFacts>,
    /// Seconds the call took (result time minus message time), when both are known.
    pub seconds: Option<i64>,
}

/// A call's output, measured and trimmed.
#[derive(Debug, Clone, Serialize)]
pub struct OutputFacts {
    pub lines: usize,
    pub chars: usize,
    pub longest_line: usize,
    /// Share (percent) of the characters in the single longest line.
    pub longest_share: u32,
    pub exit_code: Option<i32>,
    pub failed: bool,
    pub interrupted: bool,
    pub empty: bool,
    /// The output trimmed to its first and last lines (each clipped), "…" between.
    pub excerpt: Vec<String>,
    /// Lines that say what happened: errors, the last progress line, result counts.
    pub revealing: Vec<Revealing>,
    /// The last non-empty line.
    pub last_line: Option<String>,
    /// The longest line, when it is thousands of characters of one thing: what it is
    /// (`ServerArgs(…) dump`, `JSON`, `base64`), and how long.
    pub dump: Option<String>,
    pub dump_chars: usize,
    /// For a search whose longest line is such a dump: the words of the dump that the
    /// search pattern matched, each as it stands there (`enable_flashinfer_allreduce_fusion=True`).
    pub dump_words: Vec<String>,
    /// The marker the tool left where it cut the output.
    pub truncated: Option<String>,
    /// The line that names an error the way programs print one at the end
    /// (`RuntimeError: …`, `error[E0308]: …`), the last such line.
    pub error_head: Option<String>,
    /// The line to quote as the error (see [`error_line`]): an error or exception over
    /// banners, hints, warnings, log lines at info level and stack frames. `None` when
    /// no line of the output says what went wrong.
    pub error_line: Option<String>,
    /// Time the result came back.
    pub time: Option<String>,
}

/// A line of output that tells something, and why it was picked.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Revealing {
    /// error, progress, result, alarm, last
    pub kind: &'static str,
    pub line: String,
}

static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    // "timeout" alone names a setting as often as a failure (`--timeout MIN` in a help
    // text): only "timed out" and "timeout after/exceeded" count.
    Regex::new(r"(?i)(?-u:\b)(traceback|error|exception|fatal|panic(ked)?|segmentation fault|killed|out of memory|oom|refused|timed ?out|timeout (after|exceeded|expired)|etimedout|assert(ion)?|no such file|not found|permission denied|not permitted|failed|does not exist|doesn't exist|blocked|denied|unknown (option|command|flag|argument)|unrecognized (option|argument)s?|invalid (option|argument))(?-u:\b)")
        .expect("static regex")
});
static ALARM_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)(crashed|crash detected|error detected|died|giving up|gave up|timeout after|timed out after)(?-u:\b)|(?-i:(?-u:\b)FAILED(?-u:\b)|(?-u:\b)DEAD(?-u:\b))")
        .expect("static regex")
});
static PROGRESS_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)\d{1,3}(\.\d+)?%|(?-u:\b)\d+/\d+(?-u:\b).*(it/s|s/it|%|done|completed)").expect("static regex")
});
static RESULT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?-u:\b)\d+ (passed|failed|errors?|warnings?)(?-u:\b)|(?-u:\b)test result:|(?-u:\b)ready(?-u:\b)|(?-u:\b)listening on(?-u:\b)|(?-u:\b)success(fully)?(?-u:\b)",
    )
    .expect("static regex")
});
static LAUNCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)(nohup|setsid|launch_server|uvicorn|gunicorn|torchrun|vllm serve|docker (run|compose up)|systemctl (re)?start|npm (run )?(start|dev)|flask run|rails s(erver)?|serve)(?-u:\b)")
        .expect("static regex")
});
/// An installer: the server it names is a package to fetch (`pip install fastapi uvicorn`),
/// not a program started.
static INSTALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|\s)(?:pip[0-9.]*|pipx|uv|npm|pnpm|yarn|brew|apt|apt-get|cargo|poetry|conda|gem)\s+(?:install|add|i)(?:\s|$)")
        .expect("static regex")
});
static TEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)(pytest|cargo (nextest run|test)|go test|npm (run )?test|yarn test|make test|jest|vitest|tox|rspec|ctest|unittest|phpunit|mvn test|gradle test)(?-u:\b)")
        .expect("static regex")
});

/// The line a program prints to name its error: `RuntimeError: …`, `error[E0308]: …`,
/// `fatal: …`, `panicked at …`.
static ERROR_HEAD: LazyLock<Regex> = LazyLock::new(|| {
    // pytest marks the exception line of a failure with "E   ".
    // A linter's rule code heads its finding (`SIM102 Use a single `if` …`, `src/a.py:3:1:
    // E501 Line too long`): that, not its "Found 1 error." summary, says what is wrong.
    Regex::new(r"^\s*(?:E\s+)?(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)|[Ee]rror(?:\[[A-Z0-9]+\])?|fatal(?: error)?|FATAL|ERROR)(?::| -)\s|panicked at |^(?:\S+:\d+:\d+: )?[A-Z]{1,4}\d{3,4} [A-Z`]")
        .expect("static regex")
});

const SEARCH_PROGRAMS: &[&str] = &["grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep", "select-string", "findstr"];
const READ_PROGRAMS: &[&str] = &["tail", "head", "sed", "less", "cat", "awk", "more", "bat", "nl"];

impl CallFacts {
    pub fn of(call: &Call, msg: &Message) -> CallFacts {
        CallFacts::of_in(call, msg, &[])
    }

    /// The facts of `call`, with the lines the environment prints before every output
    /// (`environment`, see [`environment_lines`]) taken off its output first.
    pub fn of_in(call: &Call, msg: &Message, environment: &[String]) -> CallFacts {
        let tool = call.name.clone();
        let Step { program, action, file, pattern, window, remote, core, entry, probe, attempts, interval_secs } =
            match &call.command {
                Some(cmd) => shell_step(cmd),
                None => tool_step(call),
            };
        // Only a search's dump line is read for pattern words; only then does case matter.
        let case_insensitive = || {
            call.command.as_deref().is_some_and(|c| {
                let script = shell::parse(c);
                script
                    .commands
                    .iter()
                    .any(|c| SEARCH_PROGRAMS.contains(&c.name()) && c.has_flag(Some('i'), Some("ignore-case")))
            }) || call.input.get("-i").and_then(|v| v.as_bool()).unwrap_or(false)
        };
        let output = call.result.as_ref().map(|r| {
            let body = without_environment(strip_harness_header(&r.output), environment);
            let lines: Vec<&str> = body.lines().collect();
            let chars = body.chars().count();
            let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
            // A call the person stopped or refused did not fail: it was stopped. A search
            // that exits 1 printing nothing found nothing — often the answer wanted.
            let found_nothing = action == "search" && r.exit_code == Some(1) && no_match(body);
            // Claude Code cancels the calls made beside one that failed: they never ran.
            let cancelled = body.trim() == "<tool_use_error>Sibling tool call errored</tool_use_error>";
            // A server still running when the tool's time limit came (`timeout` exits 124)
            // did not fail, whatever it printed meanwhile.
            // Unless what it printed names an error: a compile error or a panic the dev
            // server showed before the limit came is a failure the assistant acts on.
            let held = action == "launch" && (r.timed_out || r.exit_code == Some(124)) && error_line(&lines).is_none();
            let failed = (r.is_error || r.exit_code.is_some_and(|c| c != 0))
                && !r.interrupted
                && !found_nothing
                && !cancelled
                && !held;
            // The shape (a dump line, a truncation marker) matters for long outputs only.
            let maybe_cut = ["truncat", "omitted", "removed", "clipped", "too large"].iter().any(|k| body.contains(k));
            let shape = (longest >= LONG_LINE || maybe_cut).then(|| Shape::of(body));
            let longest_text = lines.iter().max_by_key(|l| l.len()).copied().unwrap_or("");
            let dump = shape.as_ref().and_then(|s| s.dump.clone()).filter(|_| longest >= LONG_LINE);
            let dump_words = match (&dump, action, &pattern) {
                (Some(_), "search", Some(p)) => pattern_words(p, longest_text, case_insensitive()),
                _ => Vec::new(),
            };
            OutputFacts {
                lines: lines.len(),
                chars,
                longest_line: longest,
                longest_share: (longest * 100).checked_div(chars).unwrap_or(0) as u32,
                exit_code: r.exit_code,
                failed,
                interrupted: r.interrupted,
                empty: body.trim().is_empty(),
                excerpt: excerpt(&lines),
                revealing: revealing(body, &lines),
                last_line: lines.iter().rev().find(|l| !l.trim().is_empty()).map(|l| clip(&one_line(l), LINE_CHARS)),
                time: clock(r.timestamp),
                dump_chars: if dump.is_some() { longest } else { 0 },
                dump,
                dump_words,
                truncated: shape.and_then(|s| s.truncated),
                error_line: error_line(&lines),
                // Programs name their error at the end: the last lines are enough.
                error_head: lines
                    .iter()
                    .rev()
                    .take(200)
                    .find(|l| l.len() < 2000 && ERROR_HEAD.is_match(l))
                    .map(|l| clip(&one_line(l), LINE_CHARS)),
            }
        });
        let seconds = call.result.as_ref().and_then(|r| secs_between(msg.timestamp, r.timestamp));
        CallFacts {
            tool,
            command_short: call.command.as_deref().map(|c| clip(&one_line(c), 140)),
            continues: None,
            command: call.command.clone(),
            core: core.or_else(|| call.command.as_deref().map(|c| clip(&one_line(c), 100))),
            action,
            file,
            pattern,
            window,
            remote,
            label: match (action, &entry) {
                ("launch", Some(e)) => e.clone(),
                ("wait", _) => "wait loop".to_string(),
                _ => program.clone(),
            },
            program,
            entry,
            probe,
            attempts,
            interval_secs,
            output,
            seconds,
        }
    }

    pub fn failed(&self) -> bool {
        self.output.as_ref().is_some_and(|o| o.failed)
    }
}

impl OutputFacts {
    /// What to quote of a failed call: its error line, else its last line unless that
    /// is noise (an info-level log line, a hint, a stack frame, the harness's
    /// "Exit code N"), which would pass for the error when it is not.
    pub fn failure_line(&self) -> Option<String> {
        self.error_line.clone().or_else(|| self.last_line.clone().filter(|l| !is_noise(l)))
    }
}

/// Lines that are never the error, whatever words they hold.
static NOISE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:Exit code \d+|Command exited with code \d+)$",
        // log lines below warning level
        r"|(?-u:\b)(?:INFO|DEBUG|TRACE)(?-u:\b)|(?i:level=(?:info|debug|trace))",
        // hints and notes, and the lead-ins of advice ("What to do:", "To fix this:")
        r"|^(?i:hint|note|help|tip)(?::|\s*-)|^= (?:note|help):",
        r"|^(?i:what to do|to fix(?: this| it)?|to see .*|to scan .*|next steps|possible (?:fixes|causes)|suggestions?)\s*:",
        // stack frames and PowerShell's position lines
        r#"|^at\s|^File "|^\+ |^At line:\d+|^(?:CategoryInfo|FullyQualifiedErrorId)\s*:"#,
        // source code that mentions errors
        r"|console\.error|logger\.|log\.error|\.error\(|^raise\s|^except\s|catch\s*\(|throw new"
    ))
    .expect("static regex")
});
/// Lines that announce a failure without saying what it was.
static BANNER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)error occurred|errors? (?:were )?found|build failed|failed to compile|compilation failed|^npm err! (?:a complete log|code|errno|path|syscall|command)|command failed|exited with|see .* for details|aborting due to|^error: process didn't exit successfully|^error: could not compile|(?-u:\b)warn(?:ing)?(?-u:\b)")
        .expect("static regex")
});
/// A Python exception line (the traceback's last word is the one to quote).
static PY_EXCEPTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt):").expect("static regex"));

/// A row of a table of counts ending in a percentage: a name, numbers, the share.
static TABLE_ROW: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\S+(?:\s+\d+)+\s+\d{1,3}(?:\.\d+)?%(?:\s|$)").expect("static regex"));
/// Codex's report of a non-zero exit inside its sandbox, before what the command printed:
/// "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit
/// code: 1, stdout: " (nothing was denied: the command exited 1).
static SANDBOX_EXIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^failed in sandbox \S+ with execution error: sandbox denied exec error, exit code: -?\d+, stdout: ")
        .expect("static regex")
});

/// The output of a search that matched nothing: empty, or Codex's sandbox report of an
/// exit code 1 with empty stdout ("failed in sandbox … exit_code: 1, stdout: StreamOutput
/// { text: \"\", …").
fn no_match(body: &str) -> bool {
    body.trim().is_empty()
        || (body.starts_with("failed in sandbox")
            && body.contains("exit_code: 1,")
            && body.contains("stdout: StreamOutput { text: \"\""))
}

fn is_noise(line: &str) -> bool {
    NOISE.is_match(line.trim())
}

/// The line of an output that says what went wrong, for quoting as "the error":
/// ranked — a line naming an error the way programs print one (`TypeError: …`,
/// `error[E0308]: …`, `fatal: …`, a PowerShell error followed by its `At line:`) over
/// a line with an error word, over a banner ("Build error occurred", "npm ERR! code")
/// or a warning; never an info-level log line, a hint, a stack frame or a source line.
/// Of equals the first (the first compile error is the cause), except Python's
/// exception lines, where the traceback's last is the one raised.
fn error_line(lines: &[&str]) -> Option<String> {
    let from = lines.len().saturating_sub(400);
    let mut best: Option<(u8, usize, String)> = None;
    for (i, raw) in lines.iter().enumerate().skip(from) {
        if raw.len() >= 2000 {
            continue;
        }
        let l = without_ansi(raw);
        let l = l.trim();
        if l.is_empty() || is_noise(l) {
            continue;
        }
        // PowerShell prints `Cmdlet : message` (wrapped over a few lines), then `At line:`.
        let powershell = l.contains(" : ")
            && lines[i + 1..]
                .iter()
                .map(|n| n.trim())
                .filter(|n| !n.is_empty())
                .take(3)
                .any(|n| n.starts_with("At line:"));
        let score = if ERROR_HEAD.is_match(l) || powershell {
            4
        } else if BANNER.is_match(l) || l.ends_with(':') {
            // "error when starting dev server:" introduces the error on the next lines.
            1
        } else if ERROR_LINE.is_match(l) {
            3
        } else {
            0
        };
        let better = match &best {
            None => score > 0,
            Some((b, _, _)) => score > *b || (score == *b && score == 4 && PY_EXCEPTION.is_match(l)),
        };
        if better {
            best = Some((score, i, l.to_string()));
        }
    }
    let (_, i, line) = best?;
    // "thread 'main' panicked at src/main.rs:305:10:" puts the message on the next line.
    let line = if line.ends_with(':') {
        let next = lines[i + 1..].iter().map(|n| without_ansi(n)).find(|n| !n.trim().is_empty());
        match next.filter(|n| !is_noise(n.trim()) && n.len() < 2000) {
            Some(n) => format!("{line} {}", n.trim()),
            None => line,
        }
    } else {
        line
    };
    // A panic's location deep in the registry (`C:\\Users\\…\\tauri-1.8.3\\src\\state.rs:51:7`):
    // its file and line are enough, so that the message after it survives the clipping.
    let line =
        PANIC_AT.replace(
            &line,
            |c: &regex::Captures| {
                if c[0].len() > 60 { format!("panicked at …{}", &c[1]) } else { c[0].to_string() }
            },
        );
    Some(clip(&one_line(&line), LINE_CHARS))
}

/// `panicked at C:\Users\…\tauri-1.8.3\src\state.rs:51:7`: the location's file.
static PANIC_AT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"panicked at \S*?[\\/]([^\\/\s]+:\d+:\d+)").expect("static regex"));

/// Lines the machine prints before the output of every command, whatever it runs: a
/// shell profile failing the same way each time (`…/shellenv.sh: line 18: /bin/ps:
/// Operation not permitted` opening all of a Codex session's outputs). Such a line says
/// nothing about the call it opens, so it is never its error nor its result. A line is
/// one when it opens at least three quarters of the session's shell outputs that say
/// anything, from at least three different programs, one of which succeeded: a refusal
/// every call meets ("This command requires approval") opens failures only.
pub fn environment_lines<'a>(calls: impl Iterator<Item = &'a Call>) -> Vec<String> {
    // The first line of each shell output, with its call; commands are parsed (for their
    // program) only for a line common enough to be the environment's, which in most
    // sessions none is.
    let mut openers: std::collections::HashMap<&str, Vec<&Call>> = std::collections::HashMap::new();
    let mut outputs = 0usize;
    for call in calls {
        let (Some(_), Some(r)) = (call.command.as_deref(), call.result.as_ref()) else { continue };
        let Some(first) = strip_harness_header(&r.output).lines().map(str::trim).find(|l| !l.is_empty()) else {
            continue;
        };
        outputs += 1;
        openers.entry(first).or_default().push(call);
    }
    let mut out: Vec<String> = openers
        .into_iter()
        .filter(|(_, with)| with.len() >= 3 && with.len() * 4 >= outputs * 3)
        .filter(|(_, with)| {
            with.iter().any(|c| c.result.as_ref().is_some_and(|r| !r.is_error && r.exit_code.is_none_or(|e| e == 0)))
        })
        .filter(|(_, with)| {
            let programs: std::collections::HashSet<String> =
                with.iter().filter_map(|c| c.command.as_deref()).map(|cmd| shell_step(cmd).program).collect();
            programs.len() >= 3
        })
        .map(|(l, _)| l.to_string())
        .collect();
    out.sort();
    out
}

/// `body` without the environment's lines at its start.
fn without_environment<'b>(body: &'b str, environment: &[String]) -> &'b str {
    let mut rest = body;
    while let Some(first) = rest.lines().next()
        && (first.trim().is_empty() || environment.iter().any(|e| e == first.trim()))
        && !environment.is_empty()
    {
        rest = rest.get(first.len() + 1..).unwrap_or("");
    }
    rest
}

/// Codex wraps outputs in "Exit code / Wall time / Output:" lines, Claude Code's
/// TaskOutput in tags; the report quotes what the program printed.
fn strip_harness_header(out: &str) -> &str {
    // Claude Code's TaskOutput: `<retrieval_status>…<status>…<exit_code>…<output>…</output>`;
    // the command printed what is inside `<output>`.
    if out.trim_start().starts_with("<retrieval_status>")
        && let Some(start) = out.find("<output>")
    {
        let body = &out[start + "<output>".len()..];
        let body = body.rfind("</output>").map_or(body, |end| &body[..end]);
        return body.strip_prefix('\n').unwrap_or(body);
    }
    // Gemini CLI's run_shell_command: `Command: …`, `Directory: …`, `Output: <output>`,
    // then `Error: (none)`, `Exit Code: N`, `Signal: …`, `Background PIDs: …`, `Process
    // Group PGID: N` — the program printed what is between.
    if out.starts_with("Command: ")
        && let Some(at) = out.find("\nOutput: ").or_else(|| out.find("\nOutput:\n"))
    {
        let mut body = &out[at + "\nOutput:".len()..];
        body = body.strip_prefix(' ').unwrap_or(body);
        const FOOTER: [&str; 5] =
            ["Process Group PGID: ", "Background PIDs: ", "Signal: ", "Exit Code: ", "Error: (none)"];
        while let Some(end) = body.trim_end().rfind('\n')
            && FOOTER.iter().any(|f| body[end + 1..].starts_with(f))
        {
            body = &body[..end];
        }
        return if body.trim() == "(empty)" { "" } else { body };
    }
    if let Some(m) = SANDBOX_EXIT.find(out) {
        let body = &out[m.end()..];
        return body.trim_end().strip_suffix(", stderr:").unwrap_or(body);
    }
    let head: Vec<&str> = out.lines().take(6).collect();
    if let Some(pos) = head.iter().position(|l| l.trim() == "Output:")
        && head[..pos].iter().all(|l| {
            ["Exit code", "Wall time", "Chunk ID", "Process exited", "Original token count"]
                .iter()
                .any(|p| l.starts_with(p))
        })
    {
        let skip: usize = head[..=pos].iter().map(|l| l.len() + 1).sum();
        return out.get(skip.min(out.len())..).unwrap_or("");
    }
    out
}

fn excerpt(lines: &[&str]) -> Vec<String> {
    let shown = |l: &&str| clip(l.trim_end(), LINE_CHARS);
    if lines.len() <= HEAD_LINES + TAIL_LINES + 1 {
        return lines.iter().map(shown).collect();
    }
    let mut out: Vec<String> = lines[..HEAD_LINES].iter().map(shown).collect();
    out.push(format!("… ({} lines left out)", lines.len() - HEAD_LINES - TAIL_LINES));
    out.extend(lines[lines.len() - TAIL_LINES..].iter().map(shown));
    out
}

/// The lines of an output worth quoting: alarms, errors, the last progress and result
/// lines, the last line. `lines` are `body`'s lines.
fn revealing(body: &str, lines: &[&str]) -> Vec<Revealing> {
    let mut out: Vec<Revealing> = Vec::new();
    let mut push = |kind, l: &str| {
        let line = clip(&one_line(l), LINE_CHARS);
        if !line.is_empty() && !out.iter().any(|r| r.line == line) && out.len() < 6 {
            out.push(Revealing { kind, line });
        }
    };
    // Each pattern runs once over the whole output, not once per line (a log of
    // 100,000 lines made a quarter of a report's time that way).
    let base = body.as_ptr() as usize;
    let starts: Vec<usize> = lines.iter().map(|l| l.as_ptr() as usize - base).collect();
    let matching = |re: &Regex| lines_matching(body, lines, &starts, re);
    // A line thousands of characters long is a dump (args, JSON): it is what drowned
    // the search, not what the output reveals.
    let readable = |i: &usize| lines[*i].len() < 2000;
    let results = matching(&RESULT_LINE);
    let is_result = |i: &usize| results.binary_search(i).is_ok();
    // "1 failed in 0.31s" is a test result, not an alarm.
    for i in matching(&ALARM_LINE).into_iter().filter(readable).filter(|i| !is_result(i)) {
        push("alarm", lines[i]);
    }
    // Where a line names an error the way programs print one (`E   AssertionError: …`),
    // those are the errors: a test's source lines in a traceback that hold the word
    // ("# should degrade to local-only, not error") are context. Never noise.
    let errors: Vec<usize> =
        matching(&ERROR_LINE).into_iter().filter(readable).filter(|i| !is_result(i) && !is_noise(lines[*i])).collect();
    let heads: Vec<usize> = errors.iter().copied().filter(|i| ERROR_HEAD.is_match(lines[*i])).collect();
    for i in (if heads.is_empty() { errors } else { heads }).into_iter().take(3) {
        push("error", lines[i]);
    }
    // A percentage in a table's row ("TOTAL  1295  907  30%" of a coverage report) is
    // no progress.
    if let Some(i) = matching(&PROGRESS_LINE).into_iter().filter(|i| !TABLE_ROW.is_match(lines[*i])).rfind(readable) {
        push("progress", lines[i]);
    }
    if let Some(&i) = results.iter().rfind(|i| readable(i)) {
        push("result", lines[i]);
    }
    if let Some(l) = lines.iter().filter(|l| l.len() < 2000).rev().find(|l| !l.trim().is_empty()) {
        push("last", l);
    }
    out
}

/// Indexes, in order, of the `lines` of `body` (which start at `starts`) where `re`
/// matches within the line.
fn lines_matching(body: &str, lines: &[&str], starts: &[usize], re: &Regex) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for m in re.find_iter(body) {
        let Some(i) = starts.partition_point(|&s| s <= m.start()).checked_sub(1) else { continue };
        if m.end() <= starts[i] + lines[i].len() && out.last() != Some(&i) {
            out.push(i);
        }
    }
    out
}

/// A command that runs tests: a test runner is the program (behind `python -m`, `uv run`,
/// `npx` and the like), not an argument (`which pytest`, `head …/bin/pytest`, `python -c
/// "import pytest"`), and it is not asked only for its version, help or test list.
fn test_run(text: &str) -> bool {
    static LAUNCHER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:(?:python[0-9.]*|py) -m |uv run |poetry run |pipenv run |pdm run |hatch run |npx |pnpm |bundle exec )*")
            .expect("static regex")
    });
    let rest = LAUNCHER.find(text).map_or(text, |m| &text[m.end()..]);
    TEST.find(rest).is_some_and(|m| m.start() == 0)
        && !text.split_whitespace().any(|a| {
            matches!(a, "--version" | "-V" | "--help" | "-h" | "--collect-only" | "--co" | "--fixtures" | "--markers")
        })
}

/// What a call did, before its output is looked at.
#[derive(Default)]
struct Step {
    program: String,
    action: &'static str,
    file: Option<String>,
    pattern: Option<String>,
    window: Option<String>,
    remote: bool,
    /// The segment that did the work, when the command line has more around it.
    core: Option<String>,
    entry: Option<String>,
    probe: Option<String>,
    attempts: Option<u64>,
    interval_secs: Option<u64>,
}

/// Facts of a call that carries no shell command (Read, Grep, Edit, …).
fn tool_step(call: &Call) -> Step {
    let name = call.name.to_lowercase();
    let field = |k: &str| call.input.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let file = field("file_path").or_else(|| field("path")).or_else(|| field("notebook_path"));
    let action = match name.as_str() {
        "grep" | "glob" | "search" | "find" | "codebase_search" | "grep_search" => "search",
        "read" | "view" | "read_file" | "open" => "read",
        "edit" | "multiedit" | "str_replace" | "str_replace_editor" | "replace" | "apply_patch" | "notebookedit" => {
            "edit"
        }
        "write" | "create" | "write_file" => "write",
        _ if call.input.as_str().is_some_and(|s| s.contains("*** Begin Patch")) => "edit",
        _ => "tool",
    };
    let window =
        match (call.input.get("offset").and_then(|v| v.as_u64()), call.input.get("limit").and_then(|v| v.as_u64())) {
            (Some(o), Some(l)) => Some(format!("lines {o}-{}", o + l)),
            (Some(o), None) => Some(format!("from line {o}")),
            (None, Some(l)) => Some(format!("first {l} lines")),
            _ => None,
        };
    let file = file.or_else(|| patch_file(call));
    Step { program: call.name.clone(), action, file, pattern: field("pattern"), window, ..Step::default() }
}

fn patch_file(call: &Call) -> Option<String> {
    let s =
        call.input.as_str().map(str::to_string).or_else(|| call.input.get("input")?.as_str().map(str::to_string))?;
    s.lines().find_map(|l| {
        l.strip_prefix("*** Update File: ").or_else(|| l.strip_prefix("*** Add File: ")).map(|f| f.trim().to_string())
    })
}

/// Program, action, file, pattern, window, remote — for a shell command line, read
/// through [`crate::shell`] (which opens up `ssh host '…'`, `bash -lc '…'`, wrappers
/// and pipelines).
fn shell_step(cmd: &str) -> Step {
    let script = shell::parse(cmd);
    let cmds = &script.commands;
    let remote = cmds.iter().any(|c| c.remote_host.is_some());
    let text = |c: &SimpleCommand| {
        let mut t = c.program.clone();
        for a in &c.args {
            t.push(' ');
            t.push_str(a);
        }
        t
    };
    // The step is named by its most telling command: a launch or a test run beats the
    // `| tail -20` that trims its output; a search or read beats the pipe filters after
    // it (`grep … | head -20` is a search).
    // `pkill -f sglang.launch_server` names a server but stops it.
    let launched = |c: &&SimpleCommand| {
        !matches!(
            c.name(),
            "pkill"
                | "kill"
                | "killall"
                | "pgrep"
                | "ps"
                | "grep"
                | "tail"
                | "cat"
                | "head"
                | "echo"
                | "cd"
                | "export"
                | "sleep"
                | "true"
        ) && !INSTALL.is_match(&text(c))
            && (LAUNCH.is_match(&text(c)) || c.background || c.via.iter().any(|v| v == "nohup" || v == "setsid"))
    };
    // A substitution makes a word of another command (`git commit -m "$(cat <<EOF …)"`),
    // not a step; it names the step only when nothing else is there.
    let steps: Vec<&SimpleCommand> = match cmds.iter().filter(|c| !c.in_substitution).collect::<Vec<_>>() {
        v if v.is_empty() => cmds.iter().collect(),
        v => v,
    };
    let pick = steps
        .iter()
        .copied()
        .find(launched)
        .map(|c| (c, "launch"))
        .or_else(|| steps.iter().copied().find(|c| test_run(&text(c))).map(|c| (c, "test")))
        // A loop's body is the line's work (`ls && for z in *.zip; do unzip "$z"; done`
        // unzips; `for a in /Applications/*.app; do codesign -dv "$a" | grep …; done`
        // runs codesign), unless it only looks or sleeps between probes (a wait).
        .or_else(|| {
            script
                .loops
                .iter()
                .filter(|l| l.max_sleep_secs().is_none())
                .flat_map(|l| l.body.clone())
                .filter_map(|i| cmds.get(i))
                .find(|c| {
                    ![SEARCH_PROGRAMS, READ_PROGRAMS, SETUP_PROGRAMS].iter().any(|p| p.contains(&c.name()))
                        && c.name() != "sleep"
                })
                .map(|c| (c, "run"))
        })
        // A search that reads a pipe searches what the command heading the pipe printed:
        // that command is the work (`defaults domains | tr ', ' '\n' | grep -i term` asks
        // `defaults`), unless it only reads or echoes (`cat log | grep Error` searches log).
        .or_else(|| {
            steps
                .iter()
                .copied()
                .find(|c| {
                    SEARCH_PROGRAMS.contains(&c.name())
                        && pipe_head(cmds, c).is_none_or(|h| {
                            [SEARCH_PROGRAMS, READ_PROGRAMS, SETUP_PROGRAMS].iter().any(|p| p.contains(&h.name()))
                        })
                })
                .map(|c| (c, "search"))
        })
        .or_else(|| {
            steps.iter().copied().find(|c| READ_PROGRAMS.contains(&c.name()) && !c.piped_from).map(|c| (c, "read"))
        })
        .or_else(|| steps.iter().copied().find(|c| !SETUP_PROGRAMS.contains(&c.name())).map(|c| (c, "run")))
        // Only setup and tests: a line appended to a file is what the call did
        // (`if [ -f ~/.zshrc ]; then echo 'export PATH=…' >> ~/.zshrc; fi`).
        .or_else(|| steps.iter().copied().find(|c| written_file(c).is_some()).map(|c| (c, "write")))
        .or_else(|| steps.first().copied().map(|c| (c, "run")));
    let Some((c, mut action)) = pick else {
        return Step { program: "sh".into(), action: "run", remote, ..Step::default() };
    };
    let file = match action {
        "write" => written_file(c),
        _ => c.file_args().last().map(|f| f.to_string()),
    };
    let mut pattern = None;
    let mut window = None;
    match action {
        "search" => {
            pattern = c
                .flag_value(Some('e'), Some("regexp"))
                .or_else(|| c.positionals().into_iter().next())
                .map(str::to_string)
        }
        "read" => window = read_window(c),
        _ => {}
    }
    // A loop that sleeps between probes is a wait, whatever it probes with (a `grep`
    // of the log, a `curl` of a health endpoint).
    let (mut probe, mut attempts, mut interval_secs) = (None, None, None);
    if action != "launch"
        && let Some(l) = script.loops.iter().find(|l| l.max_sleep_secs().is_some())
    {
        action = "wait";
        attempts = l.iterations;
        interval_secs = l.sleep_secs.map(|s| s.round() as u64);
        probe = l.commands().filter_map(|i| cmds.get(i)).find(|c| liveness::is_probe(c)).map(liveness::describe_probe);
    }
    let core = (cmds.len() > 1 || remote || !c.env.is_empty()).then(|| clip(&text(c), 100));
    let entry = (action == "launch").then(|| entry_of(c));
    Step {
        program: c.name().to_string(),
        action,
        file,
        pattern,
        window,
        remote,
        core,
        entry,
        probe,
        attempts,
        interval_secs,
    }
}

/// The command heading the pipeline `c` reads from, when `c` reads a pipe: `defaults`
/// of `defaults domains | tr … | grep term`. Substitutions inside the pipeline are words.
fn pipe_head<'a>(cmds: &'a [SimpleCommand], c: &SimpleCommand) -> Option<&'a SimpleCommand> {
    if !c.piped_from {
        return None;
    }
    let at = cmds.iter().position(|x| std::ptr::eq(x, c))?;
    let mut head = None;
    for x in cmds[..at].iter().rev().filter(|x| !x.in_substitution) {
        head = Some(x);
        if !x.piped_from {
            break;
        }
    }
    head
}

/// Commands that prepare or test rather than do the work of a line: `chmod +x install.sh
/// && ./install.sh` runs the installer, `[[ -f db ]] && sqlite3 db …` queries the database.
const SETUP_PROGRAMS: &[&str] =
    &["cd", "echo", "printf", "export", "source", ".", "[", "[[", "test", "chmod", "mkdir", "true", ":", "set"];

/// The file a command's stdout is written or appended to (`> f`, `>> f`), if any.
fn written_file(c: &SimpleCommand) -> Option<String> {
    c.redirects
        .iter()
        .find(|r| {
            matches!(r.op, ">" | ">>" | ">|" | "&>" | "&>>")
                && r.fd.is_none_or(|fd| fd == 1)
                && !r.target.starts_with("/dev/")
        })
        .map(|r| r.target.clone())
}

/// How finely [`CallFacts::subject`] tells calls apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grain {
    /// What the program run goes by (`cargo fmt`, `pytest` for `python -m pytest tests/`,
    /// `train.py`; see [`entry_of`]): its attempts with other arguments are the same.
    Program,
    /// The command line as run, on one line: "failed three times" is said of that line.
    Line,
}

impl CallFacts {
    /// What a call is about, for telling its repeats and attempts apart from other work:
    /// its program or its command line (see [`Grain`]); a call with no command line is
    /// its tool and the file it worked on, and a read of a background command's output
    /// is about that command.
    pub fn subject(&self, grain: Grain) -> String {
        if grain == Grain::Program && self.continues.is_some() {
            return self.label.clone();
        }
        let Some(cmd) = self.command.as_deref() else {
            return match (&self.file, grain) {
                (Some(p), Grain::Program) => format!("{} {}", self.tool, p.rsplit(['/', '\\']).next().unwrap_or(p)),
                _ => self.tool.clone(),
            };
        };
        if grain == Grain::Line {
            return one_line(cmd);
        }
        let script = shell::parse(cmd);
        match script.commands.iter().rev().find(|c| c.name() == self.program && !c.in_substitution) {
            Some(c) => command_subject(c),
            None => self.program.clone(),
        }
    }
}

/// A command's subject: its entry point, or for inline code (`python -c "…"`, `node -e
/// "…"`) what the snippet works on — the first file it names in quotes, else its first
/// statement — since each snippet is its own program, and its fixed versions (the same
/// file read with `encoding='utf-8'`) are the same one.
pub fn command_subject(c: &SimpleCommand) -> String {
    match c.flag_value(Some('c'), None).or_else(|| c.flag_value(Some('e'), None)) {
        Some(code)
            if ["python", "node", "ruby", "perl", "bash", "sh", "zsh"].iter().any(|p| c.name().starts_with(p)) =>
        {
            let what = QUOTED_FILE
                .captures(code)
                .map(|m| m[1].to_string())
                .unwrap_or_else(|| code.split([';', '\n']).next().unwrap_or(code).trim().to_string());
            let name = c.name().trim_end_matches(|ch: char| ch.is_ascii_digit() || ch == '.');
            format!("{name} -c {what}")
        }
        _ => entry_of(c),
    }
}

/// A file named in quotes inside inline code (`Path('src/app.tsx')`, `open("data.json")`).
static QUOTED_FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"['"]([\w./\\-]+\.\w{1,5})['"]"#).expect("static regex"));

/// The entry point of the `program` run in a command line (see [`entry_of`]).
pub fn entry_of_command(cmd: &str, program: &str) -> Option<String> {
    let script = shell::parse(cmd);
    script.commands.iter().find(|c| c.name() == program).map(entry_of)
}

/// The name a launched program goes by: `python -m sglang.launch_server` →
/// `sglang.launch_server`, `python train.py` → `train.py`, `vllm serve` → `vllm serve`.
pub fn entry_of(c: &SimpleCommand) -> String {
    let name = c.name();
    if name.starts_with("python") {
        if let Some(m) = c.flag_value(Some('m'), None) {
            return m.to_string();
        }
        if let Some(script) = c.positionals().first() {
            return script.rsplit('/').next().unwrap_or(script).to_string();
        }
    }
    match c.args.first() {
        Some(sub) if !sub.starts_with('-') && sub.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '-') => {
            format!("{name} {sub}")
        }
        _ => name.to_string(),
    }
}

/// The words of a long line that a search pattern matched, each as it stands in the
/// line (the run of characters around the match up to a space, comma or bracket), in
/// pattern order. Only plain alternatives (`foo\|bar`, `foo|bar`) are looked for.
fn pattern_words(pattern: &str, line: &str, case_insensitive: bool) -> Vec<String> {
    let alts: Vec<&str> =
        if pattern.contains("\\|") { pattern.split("\\|").collect() } else { pattern.split('|').collect() };
    let hay = if case_insensitive { line.to_ascii_lowercase() } else { line.to_string() };
    let mut out: Vec<String> = Vec::new();
    for alt in alts {
        let plain = !alt.is_empty() && alt.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' '));
        if !plain {
            continue;
        }
        let needle = if case_insensitive { alt.to_ascii_lowercase() } else { alt.to_string() };
        let Some(at) = hay.find(&needle) else { continue };
        let stop = |c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '[' | ']' | '{' | '}' | '"' | '\'');
        let start = line[..at].rfind(stop).map_or(0, |i| i + 1);
        let end = line[at..].find(stop).map_or(line.len(), |i| at + i);
        let word = clip(&line[start..end], 80);
        if !out.contains(&word) {
            out.push(word);
        }
        if out.len() >= 5 {
            break;
        }
    }
    out
}

/// `tail -50` → "last 50 lines"; `head -n 20` → "first 20 lines"; `sed -n '40,75p'` →
/// "lines 40-75".
fn read_window(c: &SimpleCommand) -> Option<String> {
    let count =
        || c.flag_value(Some('n'), Some("lines")).and_then(|n| n.trim_start_matches(['+', '-']).parse::<u64>().ok());
    match c.name() {
        "tail" => Some(format!("last {} lines", count().unwrap_or(10))),
        "head" => Some(format!("first {} lines", count().unwrap_or(10))),
        "sed" => c.args.iter().find_map(|a| {
            let r = a.strip_suffix('p')?;
            let (x, y) = r.split_once(',')?;
            Some(format!("lines {}-{}", x.parse::<u64>().ok()?, y.parse::<u64>().ok()?))
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_line_is_the_error_not_a_banner_hint_or_log_line() {
        let pick = |out: &str| error_line(&out.lines().collect::<Vec<_>>());
        // Next.js: the banner first, the TypeError after it.
        let vite = "error when starting dev server:\nError: Port 5173 is already in use";
        assert_eq!(pick(vite).as_deref(), Some("Error: Port 5173 is already in use"));
        let next = "> Build error occurred\nTypeError: Cannot read properties of undefined (reading 'map')\n    at page.tsx:12:5";
        assert_eq!(pick(next).as_deref(), Some("TypeError: Cannot read properties of undefined (reading 'map')"));
        // rustc: the first error is the cause; cargo's closing line is a banner.
        let rust = "error[E0308]: mismatched types\n --> src/a.rs:3:5\nerror[E0425]: cannot find value `x`\nerror: could not compile `a` (lib) due to 2 previous errors";
        assert_eq!(pick(rust).as_deref(), Some("error[E0308]: mismatched types"));
        // Python: a chained traceback ends with the exception raised.
        let py = "Traceback (most recent call last):\n  File \"a.py\", line 3\nKeyError: 'x'\nDuring handling of the above exception, another exception occurred:\nRuntimeError: config missing";
        assert_eq!(pick(py).as_deref(), Some("RuntimeError: config missing"));
        // PowerShell: the cmdlet's message, followed by its position lines.
        let ps = "Exit code 1\nGet-ItemProperty : Property EnableLUA does not exist at path\nHKLM\\System.\nAt line:1 char:1\n+ Get-ItemProperty 'HKLM:...'\n    + CategoryInfo          : InvalidArgument: (EnableLUA:String) [Get-ItemProperty], PSArgumentException";
        assert_eq!(pick(ps).as_deref(), Some("Get-ItemProperty : Property EnableLUA does not exist at path"));
        // A hook's verdict, not the advice after it (gitleaks: "❌ Secrets detected! Commit
        // blocked." then "What to do:" and a numbered list).
        assert_eq!(
            pick(
                "Exit code 1\nFinding:     ...\n8:19PM INF 0 commits scanned.\n❌ Secrets detected! Commit blocked.\n\nWhat to do:\n\n1. Review the findings above\n2. Remove any real secrets"
            ),
            Some("❌ Secrets detected! Commit blocked.".into())
        );
        // Near miss: advice alone is no error line.
        assert_eq!(pick("Exit code 1\nWhat to do:\n\n1. Review the findings above"), None);
        // Info-level log lines, hints and source lines are never the error.
        assert_eq!(
            pick("Exit code 1\n2026-01-16 20:30:58,493 - INFO - Found 1 logs in C--\nhint: Updates were rejected"),
            None
        );
        assert_eq!(pick("src/log.ts:4:  console.error(`failed: ${e}`)"), None);
        // Escape codes are left out of the quote.
        assert_eq!(
            pick("\x1b[31mError: listen EADDRINUSE: address already in use :::3000\x1b[0m").as_deref(),
            Some("Error: listen EADDRINUSE: address already in use :::3000")
        );
    }

    #[test]
    fn the_error_line_is_whole_and_help_text_is_no_error() {
        let pick = |out: &str| error_line(&out.lines().collect::<Vec<_>>());
        // A Rust panic prints its message on the line after the header.
        let panic = "thread 'main' panicked at src/main.rs:305:10:\nerror while running tauri application: Runtime(CreateWebview)\nnote: run with `RUST_BACKTRACE=1`";
        assert_eq!(
            pick(panic).as_deref(),
            Some(
                "thread 'main' panicked at src/main.rs:305:10: error while running tauri application: Runtime(CreateWebview)"
            )
        );
        // A panic deep in a dependency: its file, not the path, before the message.
        let deep = "thread 'tokio-runtime-worker' panicked at C:\\Users\\u\\.cargo\\registry\\src\\github.com-25cdd57fae9f0462\\tauri-1.8.3\\src\\state.rs:51:7:\nstate not managed for field `state` on command `login`";
        assert_eq!(
            pick(deep).as_deref(),
            Some(
                "thread 'tokio-runtime-worker' panicked at …state.rs:51:7: state not managed for field `state` on command `login`"
            )
        );
        // pytest's "E   " line over a plugin's warning.
        let pytest = "failed in sandbox: /x/_pytest/config/__init__.py:331: PluggyTeardownRaisedWarning: A plugin raised an exception\nE   TypeError: unsupported operand type(s) for |";
        assert_eq!(pick(pytest).as_deref(), Some("E TypeError: unsupported operand type(s) for |"));
        // A help text mentions timeouts; the error is the unknown option.
        let help = "Unknown option: --version\nUsage: ralph [OPTIONS]\n    -t, --timeout MIN       Set the execution timeout in minutes (default: 15)\n    ralph --monitor --timeout 30  # 30-minute timeout";
        assert_eq!(pick(help).as_deref(), Some("Unknown option: --version"));
        assert_eq!(pick("Usage: ralph\n    -t, --timeout MIN  Set the timeout"), None);
        // A timeout that happened still counts.
        assert_eq!(
            pick("curl: (28) Operation timed out after 5001 ms").as_deref(),
            Some("curl: (28) Operation timed out after 5001 ms")
        );
    }

    #[test]
    fn a_test_run_runs_the_tests() {
        for cmd in [
            "pytest tests/unit -q",
            "python3 -m pytest tests/ -x",
            "cd app && TZ=UTC python -m pytest tests/test_a.py 2>&1 | tail -20",
            "uv run pytest",
            "cargo test --release",
            "npm test",
        ] {
            assert_eq!(shell_step(cmd).action, "test", "{cmd}");
        }
        // Version probes, lookups and reads of a runner are not test runs.
        for cmd in [
            "which pytest",
            "head -n 20 /opt/homebrew/bin/pytest",
            "python3 -c \"import pytest; print(pytest.__version__)\"",
            "pytest --version",
            "python3 -m pytest --version",
            "pytest --collect-only tests/unit/test_a.py",
        ] {
            assert_ne!(shell_step(cmd).action, "test", "{cmd}");
        }
    }

    #[test]
    fn a_search_that_finds_nothing_did_not_fail() {
        let run = |cmd: &str, out: &str, code: i32| {
            let call = Call {
                name: "shell".into(),
                command: Some(cmd.into()),
                result: Some(crate::model::CallResult {
                    output: out.into(),
                    exit_code: Some(code),
                    is_error: true,
                    ..Default::default()
                }),
                ..Call::default()
            };
            CallFacts::of(&call, &Message::default()).failed()
        };
        assert!(!run("rg \"kill-port\"", "", 1));
        let codex = "failed in sandbox LinuxSeccomp with execution error: Denied { output: ExecToolCallOutput { exit_code: 1, stdout: StreamOutput { text: \"\", truncated_after_lines: None }, stderr: StreamOutput { text: \"\" } } }";
        assert!(!run("rg -n \"no mcp\" .", codex, 1));
        // Near misses: a search that broke, and a command that is not a search.
        assert!(run("rg -n x -g*.rs $(fd codex)", "rg: error parsing glob", 2));
        assert!(run("which mcp-tools", "", 1));
        // Claude Code cancelled it beside a call that failed: it never ran.
        assert!(!run("pytest -q", "<tool_use_error>Sibling tool call errored</tool_use_error>", 1));
    }

    #[test]
    fn a_line_opening_every_output_is_the_environments() {
        let call = |cmd: &str, out: &str, code: i32| Call {
            name: "shell_command".into(),
            command: Some(cmd.into()),
            result: Some(crate::model::CallResult {
                output: out.into(),
                exit_code: Some(code),
                is_error: code != 0,
                ..Default::default()
            }),
            ..Call::default()
        };
        let profile = "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted";
        let calls = [
            call("ls", &format!("{profile}\nREADME.md\nsrc"), 0),
            call("rg --files -g '*.yaml'", &format!("{profile}\n"), 1),
            call("sed -n '1,20p' a.py", &format!("{profile}\nsed: a.py: No such file or directory"), 1),
            call("pytest -q", &format!("{profile}\nzsh:1: command not found: pytest"), 127),
        ];
        let env = environment_lines(calls.iter());
        assert_eq!(env, vec![profile.to_string()]);
        let facts = |c: &Call| CallFacts::of_in(c, &Message::default(), &env);
        assert_eq!(facts(&calls[3]).output.unwrap().error_line.as_deref(), Some("zsh:1: command not found: pytest"));
        // With the profile's line gone, the search printed nothing: it found nothing.
        assert!(!facts(&calls[1]).failed());
        assert_eq!(facts(&calls[0]).output.unwrap().lines, 2);
        // Near misses: the same refusal of every call is each call's error (no call that
        // met it succeeded); a line opening the outputs of one program only is its own.
        let refused = "This command requires approval";
        let calls =
            [call("swift build", refused, 1), call("ls Sources", refused, 1), call("cat Package.swift", refused, 1)];
        assert!(environment_lines(calls.iter()).is_empty());
        let calls = [
            call("cargo build", "   Compiling app v0.1.0\nerror[E0308]: mismatched types", 101),
            call("cargo build", "   Compiling app v0.1.0\n    Finished", 0),
            call("cargo build", "   Compiling app v0.1.0\n    Finished", 0),
        ];
        assert!(environment_lines(calls.iter()).is_empty());
    }

    #[test]
    fn a_traceback_is_quoted_by_its_exception_not_its_source_lines() {
        let out = concat!(
            "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: .F    [100%]\n",
            "    def test_status(monkeypatch):\n",
            "        # Force English to assert on fixed strings\n",
            "        result = runner.invoke(cli, [\"status\"])  # should degrade, not error\n",
            ">       assert \"Offline\" in out\n",
            "E       AssertionError: assert 'Offline' in 'x'\n",
            "Name      Stmts   Miss  Cover\n",
            "TOTAL      1295    907    30%\n",
            "1 failed, 1 passed in 0.87s\n, stderr: ",
        );
        let call = Call {
            name: "shell".into(),
            command: Some("pytest -q".into()),
            result: Some(crate::model::CallResult { output: out.into(), exit_code: Some(1), ..Default::default() }),
            ..Call::default()
        };
        let o = CallFacts::of(&call, &Message::default()).output.unwrap();
        let errors: Vec<&str> = o.revealing.iter().filter(|r| r.kind == "error").map(|r| r.line.as_str()).collect();
        assert_eq!(errors, ["E AssertionError: assert 'Offline' in 'x'"]);
        // Codex's sandbox wording is no line of the output; a coverage total is no progress.
        let progress: Vec<&str> =
            o.revealing.iter().filter(|r| r.kind == "progress").map(|r| r.line.as_str()).collect();
        assert_eq!(progress, [".F [100%]"]);
        assert_eq!(o.last_line.as_deref(), Some("1 failed, 1 passed in 0.87s"));
        // Near miss: without an exception line, a line with an error word is still an error.
        let call = Call {
            name: "shell".into(),
            command: Some("make".into()),
            result: Some(crate::model::CallResult {
                output: "cc -o app main.c\nmain.c: No such file or directory\n".into(),
                exit_code: Some(2),
                ..Default::default()
            }),
            ..Call::default()
        };
        let o = CallFacts::of(&call, &Message::default()).output.unwrap();
        assert!(o.revealing.iter().any(|r| r.kind == "error" && r.line.contains("No such file")));
    }

    #[test]
    fn gemini_shell_outputs_are_read_without_their_frame() {
        let framed = "Command: ren a b\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 3444";
        assert_eq!(strip_harness_header(framed), "");
        let out = "Command: make dist\nDirectory: (root)\nOutput: tar: VERSION: Cannot stat: No such file or directory\nmake: *** [Makefile:41: dist] Error 2\nError: (none)\nExit Code: 2\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242";
        assert_eq!(
            strip_harness_header(out),
            "tar: VERSION: Cannot stat: No such file or directory\nmake: *** [Makefile:41: dist] Error 2"
        );
        // "Error: (none)" is never the error.
        assert_eq!(error_line(&strip_harness_header(framed).lines().collect::<Vec<_>>()), None);
    }

    #[test]
    fn a_failure_with_no_error_line_quotes_its_last_line_unless_noise() {
        let facts = |out: &str| {
            let call = Call {
                name: "Bash".into(),
                command: Some("python sync.py".into()),
                result: Some(crate::model::CallResult {
                    output: out.into(),
                    exit_code: Some(1),
                    is_error: true,
                    ..Default::default()
                }),
                ..Call::default()
            };
            CallFacts::of(&call, &Message::default()).output.unwrap()
        };
        assert_eq!(facts("Exit code 1\n2026-01-16 20:30:59,795 - INFO - Journal: 1 entries").failure_line(), None);
        assert_eq!(
            facts("Exit code 1\nno matching tokens in vault").failure_line().as_deref(),
            Some("no matching tokens in vault")
        );
    }

    #[test]
    fn ssh_commands_are_opened_up() {
        let s = shell_step("ssh root@[REDACTED] 'tail -50 /data/logs/exp_1b.log' 2>&1");
        assert_eq!(
            (s.program.as_str(), s.action, s.file.as_deref(), s.window.as_deref(), s.remote),
            ("tail", "read", Some("/data/logs/exp_1b.log"), Some("last 50 lines"), true)
        );
    }

    #[test]
    fn a_line_is_named_by_the_command_that_does_its_work() {
        // The heredoc in a substitution is the commit's message, not a `cat` that read.
        let commit = shell_step("git commit -m \"$(cat <<'EOF'\nfix: redaction hook\nEOF\n)\"");
        assert_eq!((commit.program.as_str(), commit.action), ("git", "run"));
        // Making a script runnable, testing for a file: setup before the work.
        assert_eq!(shell_step("chmod +x install.sh && ./install.sh").program, "install.sh");
        let q = shell_step("[[ -f ~/Library/TCC.db ]] && sqlite3 ~/Library/TCC.db 'select * from access'");
        assert_eq!(q.program, "sqlite3");
        // Nothing but a test and an append: the append is what the line did.
        let rc = shell_step("if [ -f ~/.zshrc ]; then echo 'export PATH=$HOME/.local/bin:$PATH' >> ~/.zshrc; fi");
        assert_eq!((rc.action, rc.file.as_deref()), ("write", Some("~/.zshrc")));
        // A line of setup alone is still named.
        assert_eq!(shell_step("mkdir -p out").program, "mkdir");
        // A loop's body is the work, not the look before it or the filter inside it.
        assert_eq!(shell_step("cd /tmp/x && ls -la && for z in *.zip; do unzip -o \"$z\"; done").program, "unzip");
        let codesign = shell_step("for a in /Applications/*.app; do codesign -dv \"$a\" 2>&1 | grep -i team; done");
        assert_eq!((codesign.program.as_str(), codesign.action), ("codesign", "run"));
        let unsigned = shell_step(
            "for app in /Applications/*.app; do\n  S=$(codesign -dv \"$app\" 2>&1 || true)\n  if echo \"$S\" | grep -qi 'not signed'; then echo \"UNSIGNED: $app\"; fi\ndone",
        );
        assert_eq!(unsigned.program, "codesign");
        // A loop that only looks is a look still.
        assert_eq!(shell_step("for f in *.py; do grep -l foo \"$f\"; done").action, "search");
    }

    #[test]
    fn a_search_of_a_pipe_is_named_by_what_the_pipe_carries() {
        // cc14: the 22 s went to `defaults`, not to the `grep` over its answer.
        let d = shell_step("defaults domains 2>/dev/null | tr ', ' '\\n' | grep -i term");
        assert_eq!((d.program.as_str(), d.action), ("defaults", "run"));
        assert_eq!(shell_step("ps aux | grep -v grep | grep vllm").program, "ps");
        // What only reads or echoes a text hands the search its subject.
        let c = shell_step("cat /data/x.log | grep -n Error");
        assert_eq!((c.program.as_str(), c.action), ("grep", "search"));
        assert_eq!(shell_step("echo \"$PATH\" | tr : '\\n' | grep -i brew").action, "search");
    }

    #[test]
    fn an_install_that_names_a_server_starts_nothing() {
        // cx29: `uvicorn` here is a package to fetch.
        assert_ne!(shell_step("python3 -m pip install --user pytest fastapi httpx uvicorn").action, "launch");
        assert_ne!(shell_step("npm install serve").action, "launch");
        // Near miss: the server itself is a launch.
        assert_eq!(shell_step("uvicorn app:app --port 8000").action, "launch");
    }

    #[test]
    fn a_search_piped_into_head_is_a_search() {
        let s = shell_step(r#"grep -i "exception\|error" /data/x.log | head -20"#);
        assert_eq!(
            (s.program.as_str(), s.action, s.file.as_deref(), s.pattern.as_deref()),
            ("grep", "search", Some("/data/x.log"), Some(r"exception\|error"))
        );
    }

    #[test]
    fn launches_and_tests() {
        let launch = shell_step("NCCL_MAX_NCHANNELS=2 nohup python -m sglang.launch_server --tp 8 > x.log 2>&1 &");
        assert_eq!(launch.action, "launch");
        let test = shell_step("cd /src && TZ=UTC python -m pytest tests/ -q | tail -3");
        assert_eq!(
            (test.action, test.program.as_str(), test.core.as_deref()),
            ("test", "python", Some("python -m pytest tests/ -q"))
        );
        assert_eq!(shell_step("sed -n '40,75p' worker/deliver.py").window.as_deref(), Some("lines 40-75"));
    }
}
