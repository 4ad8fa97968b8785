//! `confounded-change`: a program or service relaunched with two or more independent
//! settings changed at once, so its outcome cannot be pinned on any one of them.
//!
//! How it reads a session:
//! - A *launch* is a simple command (found by the shell parser, through `ssh`, `nohup`,
//!   `bash -lc`, `tmux new -d '…'`…) that starts a program with an entry point: a
//!   Python module or script (`python -m sglang.launch_server`, `python train.py`,
//!   `torchrun … train.py`), a server launcher (`vllm serve`, `uvicorn app:app`), a
//!   `node`/`java -jar`/`cargo run`/`bash run.sh` entry, or a local executable
//!   (`./build/server`). Test runners, package managers and inspection tools are not
//!   launches, nor are commands inside loops (a sweep varies its values on purpose) or
//!   `python -c` snippets.
//! - Launches with the same identity (program, entry point, subcommand, remote host)
//!   are compared with the previous one in the session: environment (`VAR=x` prefixes
//!   and `export`s of the same command line), flags and their values. Positional
//!   arguments are not compared: they are usually inputs, not settings. Nor are flags
//!   that carry free text (`--prompt "build a game"`: the task given to the program) or
//!   that changed together with such a text (`--project demo-2`, the task's folder); and
//!   a relaunch with another task is another run, not compared with the previous one.
//! - Files edited between the two launches (edit tools, `apply_patch`, `sed -i`, …;
//!   notes and docs excluded) count as **one** change however many files they touch:
//!   edits for one fix often span files, and splitting them would cry wolf.
//! - Settings that do not change what runs are ignored: ports, hosts, log/output
//!   paths, run names, verbosity (`NCCL_DEBUG`, `--log-level`). A `MIN_`/`MAX_` pair of
//!   the same variable is one setting; a flag renamed with its value kept is one change;
//!   a flag the previous launch rejected ("unrecognized arguments") is a fix, not a
//!   change.
//!
//! - A system service restarted (`service x restart`, `systemctl restart x`,
//!   `/etc/init.d/x start`) is a launch of `x`; services restarted in one command line are
//!   one stack, told at the last of them. A config file of the service (its name or folder
//!   names it) rewritten whole (`cat > f <<EOF`, the Write tool) whose content before is
//!   known (an earlier write, or a `cat` of it) changes each *setting* that differs: the
//!   key two levels deep at most (`log.level`, `queryLog`), lines changed together in one
//!   section counting once. A service's first restart in view is compared with the
//!   configuration it was running with, as far as the session showed it; a return to a
//!   configuration written earlier is no change.
//!
//! Two or more changes make a finding, keyed on the relaunch, with the previous launch
//! and the editing messages as evidence.

use std::collections::{BTreeMap, BTreeSet};

use super::{Details, Detector, Finding, LOOKBACK, SessionView, Telling};
use crate::analysis::calls::{copies_to, edits, is_edit_tool, is_note, place_of, text_edits};
use crate::analysis::text::{and_list, quote};
use crate::model::{Call, Message};
use crate::shell::{self, Script, SimpleCommand};

pub struct ConfoundedChange;

const DOC: &str = r###"## What it finds

The same program or service relaunched with two or more independent settings changed
at once compared with its previous launch in the session: environment variables,
flags or their values, and code or config edits made between the two launches. When
the relaunch then fails (or succeeds), nobody can tell which change did it.

A launch is a command that starts a program from an entry point — `python -m
module`, `python script.py`, `torchrun … train.py`, `vllm serve`, `uvicorn app:app`,
`node server.js`, `java -jar x.jar`, `cargo run`, `bash run.sh`, `./build/server` —
read with the shell parser through `ssh`, `nohup`, `bash -lc`, `tmux new -d`, `timeout`
and the like. Launches are compared when program, entry point, subcommand and host
agree. All files edited between two launches count as one change — except a
service's configuration rewritten whole: `service blocky restart` after `cat >
/etc/blocky/config.yml <<EOF` counts each setting that differs from the configuration
it ran with (`log.level`, `queryLog`), and services restarted in one command line
(`service cloudflared restart && service blocky restart`) are judged together.

## Why it matters

Changing one thing at a time is what makes an experiment readable. Two changes in one
launch save a restart when they work and cost a bisection when they do not; the
session then spends its time finding out which of the two broke it.

## Example

```text
[msg 70] $ ssh gpu 'NCCL_ALGO=Tree nohup python -m sglang.launch_server --model-path /m --tp 8 > exp_1a.log 2>&1 &'
[msg 76] Edit communicator.py   (enable FlashInfer allreduce fusion on SM120)
[msg 80] $ ssh gpu 'NCCL_MIN_NCHANNELS=1 NCCL_MAX_NCHANNELS=2 NCCL_BUFFSIZE=131072 nohup python -m sglang.launch_server --model-path /m --tp 8 > exp_1b.log 2>&1 &'
```

`[msg 80]` changed the channel count, the buffer size and the code (and dropped
`NCCL_ALGO`) in one go.

## Not an instance

- One change per launch: a new `NCCL_ALGO`, then a relaunch with only a new buffer size.
- A relaunch that only fixes a rejected flag, renames a flag, or moves the log file
  or port.
- Several files edited for one fix, then the same command run again (one change).
- A sweep in a loop (`for bs in 1 2 4; do python bench.py --bs $bs; done`).
- A program given another task: `--prompt "hi" --project demo` after `--prompt "check
  defaults" --project defaults-demo` is another run (free text is an input, and so is
  what changes with it), not a relaunch with two settings changed.
- Runs of test suites, linters, package managers (`pytest`, `cargo test`, `pip`).
"###;

impl Detector for ConfoundedChange {
    fn id(&self) -> &'static str {
        "confounded-change"
    }

    fn summary(&self) -> &'static str {
        "A program relaunched with two or more settings, flags or code changes at once"
    }

    fn doc(&self) -> &'static str {
        DOC
    }

    fn check(&self, view: &SessionView, out: &mut Vec<Finding>) {
        let launches = launches(view.messages);
        // The most recent launch of each identity seen so far.
        let mut last: BTreeMap<String, usize> = BTreeMap::new();
        for (n, l) in launches.iter().enumerate() {
            // A service restarted for the first time in view was running with its old
            // configuration: what the session saw of its config files is the baseline.
            // Of services restarted together, the last one speaks for the stack.
            let stack_member = l.is_service()
                && launches.get(n + 1).is_some_and(|x| x.is_service() && (x.at.0, x.at.1) == (l.at.0, l.at.1));
            if stack_member {
                last.insert(l.identity.clone(), n);
                continue;
            }
            if !last.contains_key(&l.identity)
                && l.is_service()
                && let Some(f) = compare_with_running(view.messages, l)
            {
                out.push(Finding { detector: self.id().into(), ..f });
            }
            if let Some(&p) = last.get(&l.identity) {
                let prev = &launches[p];
                if prev.at.0 != l.at.0 && l.at.0 - prev.at.0 <= LOOKBACK && (prev.experiment || l.experiment) {
                    let (task, inputs) = input_flags(&launches, n);
                    // A new task (another prompt) is another run, not the same one retried.
                    let new_task = task.iter().any(|k| prev.flags.get(k) != l.flags.get(k));
                    if !new_task && let Some(f) = compare(view.messages, prev, l, &inputs) {
                        out.push(Finding { detector: self.id().into(), ..f });
                    }
                }
            }
            last.insert(l.identity.clone(), n);
        }
    }
    fn telling(&self) -> Telling {
        Telling {
            rank: 3,
            beats: &["experiment"],
            marks: Some(("experiment", "confounded")),
            folds: true,
            evidence_is_context: true,
            threads: true,
            ..Telling::DEFAULT
        }
    }
}

/// One launch of a program, with what it was launched with.
#[derive(Debug)]
pub(super) struct Launch<'a> {
    /// (position in the view, call number, command number in the call's script).
    pub(super) at: (usize, usize, usize),
    pub(super) call: &'a Call,
    /// The machine it runs on (see [`place_of`]); `None` for the agent's own.
    place: Option<String>,
    /// Program, entry point, subcommand and machine: what makes two launches comparable.
    pub(super) identity: String,
    /// The name people know it by: `sglang.launch_server`, `train.py`, `vllm serve`.
    pub(super) display: String,
    pub(super) env: BTreeMap<String, String>,
    pub(super) flags: BTreeMap<String, String>,
    /// Runs like an experiment or a service (see [`Entry::experiment`], [`runs_as_job`],
    /// and environment settings on its command line).
    pub(super) experiment: bool,
    /// For a system service: the services the same command line restarts (itself
    /// included). `service a restart && service b restart` relaunches a stack whose
    /// outcome is one: the configuration of each counts for the last of them.
    stack: Vec<String>,
}

impl Launch<'_> {
    fn is_service(&self) -> bool {
        self.identity.contains("\u{1f}service ")
    }

    /// A config file of a service this launch (re)starts.
    fn configures(&self, file: &str) -> bool {
        self.stack.iter().any(|s| belongs_to(file, s))
    }
}

pub(super) fn launches(messages: &[Message]) -> Vec<Launch<'_>> {
    let mut out = Vec::new();
    for (pos, m) in messages.iter().enumerate() {
        for (ci, call) in m.calls.iter().enumerate() {
            let Some(cmd) = call.command.as_deref().filter(|_| !is_edit_tool(call)) else { continue };
            let script = shell::parse(cmd);
            for (k, c) in script.commands.iter().enumerate() {
                if c.in_loop {
                    continue;
                }
                let place = place_of(c);
                let env = env_of(&script, k);
                let mut found: Vec<(Entry, BTreeMap<String, String>, bool)> = Vec::new();
                if let Some(e) = launch_of(c) {
                    found.push((e, env, runs_as_job(c, false)));
                } else if let Some(inner) = terminal_multiplexer_command(c) {
                    // `tmux new -d 'cmd'`: the launch is in the string, detached.
                    let inner_script = shell::parse(inner);
                    for (j, ic) in inner_script.commands.iter().enumerate() {
                        if let Some(e) = launch_of(ic).filter(|_| !ic.in_loop) {
                            let mut env = env.clone();
                            env.extend(env_of(&inner_script, j));
                            found.push((e, env, true));
                        }
                    }
                }
                for (e, env, job) in found {
                    out.push(Launch {
                        at: (pos, ci, k),
                        call,
                        identity: format!("{}\u{1f}{}", place.as_deref().unwrap_or(""), e.identity),
                        place: place.clone(),
                        display: e.display,
                        experiment: e.experiment || job || !env.is_empty(),
                        env,
                        flags: e.flags,
                        stack: Vec::new(),
                    });
                }
            }
        }
    }
    let services: Vec<((usize, usize), String)> =
        out.iter().filter(|l| l.is_service()).map(|l| ((l.at.0, l.at.1), l.display.clone())).collect();
    for l in out.iter_mut().filter(|l| l.is_service()) {
        l.stack = services.iter().filter(|(at, _)| *at == (l.at.0, l.at.1)).map(|(_, d)| d.clone()).collect();
    }
    out
}

/// The environment a command runs with, as far as its command line says, without the
/// variables that do not change what runs.
fn env_of(script: &Script, k: usize) -> BTreeMap<String, String> {
    script
        .env_at(k)
        .into_iter()
        .filter(|(name, _)| !inert_env(name))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// `tmux new-session -d -s srv 'cmd'`, `tmux send-keys -t srv 'cmd' Enter`,
/// `screen -dmS srv cmd`: the command string they run.
fn terminal_multiplexer_command(c: &SimpleCommand) -> Option<&str> {
    match c.name() {
        "tmux" => {
            let sub = c.args.first()?.as_str();
            if !matches!(sub, "new" | "new-session" | "new-window" | "send-keys" | "send" | "neww") {
                return None;
            }
            // The command is the last argument that is not a key name.
            c.args
                .iter()
                .skip(1)
                .rev()
                .map(String::as_str)
                .find(|a| !a.starts_with('-') && !matches!(*a, "Enter" | "C-m" | "C-c") && a.contains(' '))
        }
        "screen" => c.args.iter().rev().map(String::as_str).find(|a| a.contains(' ')),
        _ => None,
    }
}

/// Python modules that are tools, not programs being tuned.
const TOOL_MODULES: &[&str] = &[
    "pytest",
    "pip",
    "unittest",
    "json.tool",
    "venv",
    "virtualenv",
    "py_compile",
    "compileall",
    "black",
    "ruff",
    "mypy",
    "pylint",
    "flake8",
    "isort",
    "pydoc",
    "timeit",
    "ensurepip",
    "site",
    "doctest",
    "pdb",
    "cProfile",
    "trace",
    "tabnanny",
    "build",
    "twine",
    "coverage",
    "uv",
];

/// What [`launch_of`] makes of a command that starts a program.
#[derive(Debug)]
struct Entry {
    /// Program, entry point and subcommands: launches are compared when these agree.
    identity: String,
    /// The name people know it by.
    display: String,
    flags: BTreeMap<String, String>,
    /// A server or job launcher, or an entry point named like an experiment (train,
    /// bench, serve…): a run whose settings are the experiment.
    experiment: bool,
}

/// Programs that start servers and jobs: their runs are experiments by nature.
const SERVICE_LAUNCHERS: &[&str] = &[
    "torchrun",
    "deepspeed",
    "accelerate",
    "uvicorn",
    "gunicorn",
    "hypercorn",
    "vllm",
    "sglang",
    "llama-server",
    "text-generation-launcher",
    "trtllm-serve",
    "ollama",
    "mpirun",
    "horovodrun",
    "streamlit",
];

/// Runtimes whose first word may be a subcommand (`bun run x.ts`, `deno run`).
const RUNTIMES: &[&str] = &["node", "bun", "deno", "java", "ray", "flask"];

/// Runtime subcommands that build, test or manage packages rather than run a program.
const NOT_RUNS: &[&str] = &[
    "build", "test", "install", "i", "add", "remove", "rm", "x", "fmt", "lint", "check", "compile", "upgrade", "init",
    "create", "pm", "link", "bundle", "publish", "outdated", "update", "cache", "doc", "info", "types",
];

/// Words in a script or module name that say "this run is an experiment or a service".
const EXPERIMENT_WORDS: &[&str] =
    &["train", "finetune", "fine_tune", "bench", "serve", "server", "launch", "eval", "profil", "experiment", "infer"];

fn experiment_name(entry: &str) -> bool {
    let e = entry.to_lowercase();
    EXPERIMENT_WORDS.iter().any(|w| e.contains(w))
}

/// Is this simple command a launch, and of what?
fn launch_of(c: &SimpleCommand) -> Option<Entry> {
    let name = c.name();
    let args: &[String] = &c.args;
    let is_python = matches!(name, "python" | "python2" | "python3" | "pypy" | "pypy3") || name.starts_with("python3.");
    if is_python {
        let (entry, rest) = python_entry(args)?;
        let shown = entry.trim_start_matches("-m ").to_string();
        let subs = subcommands(rest);
        return Some(Entry {
            identity: format!("python {entry} {}", subs.join(" ")),
            display: [shown.as_str()].into_iter().chain(subs.iter().copied()).collect::<Vec<_>>().join(" "),
            flags: flags_of(rest),
            experiment: experiment_name(&shown),
        });
    }
    let service = SERVICE_LAUNCHERS.contains(&name);
    if service || RUNTIMES.contains(&name) {
        // `torchrun … train.py …`, `accelerate launch … train.py`, `bun run cli.ts …`: the
        // entry is the script or module; else the subcommand (`vllm serve`).
        let sub = subcommands(args).first().copied();
        if sub.is_some_and(|s| NOT_RUNS.contains(&s)) {
            return None;
        }
        let script = args.iter().position(|a| is_script(a));
        let module = args.iter().position(|a| a == "-m" || a == "--module");
        let (entry, after) = match (script, module) {
            (_, Some(m)) if m + 1 < args.len() => (format!("-m {}", args[m + 1]), m + 2),
            (Some(s), _) => (basename(&args[s]).to_string(), s + 1),
            _ => match name {
                "java" => {
                    let j = args.iter().position(|a| a == "-jar")?;
                    (basename(args.get(j + 1)?).to_string(), j + 2)
                }
                "uvicorn" | "gunicorn" | "hypercorn" => {
                    (positionals(args).into_iter().find(|a| a.contains(':'))?.to_string(), args.len())
                }
                _ => (sub?.to_string(), args.len()),
            },
        };
        let shown = entry.trim_start_matches("-m ").to_string();
        let subs = subcommands(args.get(after..).unwrap_or(&[]));
        let runtime_sub = if service { "" } else { sub.unwrap_or("") };
        return Some(Entry {
            identity: format!("{name} {runtime_sub} {entry} {}", subs.join(" ")),
            display: [name, shown.as_str()].into_iter().chain(subs.iter().copied()).collect::<Vec<_>>().join(" "),
            flags: flags_of(args),
            experiment: service || experiment_name(&shown),
        });
    }
    if let Some(unit) = service_restart(c) {
        return Some(Entry {
            identity: format!("service {unit}"),
            display: unit.to_string(),
            flags: BTreeMap::new(),
            experiment: true,
        });
    }
    match name {
        "cargo" | "go" if args.first().is_some_and(|a| a == "run") => {
            let bin = c.flag_value(None, Some("bin")).or_else(|| c.flag_value(Some('p'), Some("package")));
            let display = format!("{name} run{}", bin.map(|b| format!(" --bin {b}")).unwrap_or_default());
            Some(Entry {
                identity: display.clone(),
                experiment: bin.is_some_and(experiment_name),
                display,
                flags: flags_of(&args[1..]),
            })
        }
        "bash" | "sh" | "zsh" if args.first().is_some_and(|a| a.ends_with(".sh")) => {
            let script = basename(&args[0]).to_string();
            Some(Entry {
                identity: format!("sh {script}"),
                experiment: experiment_name(&script),
                display: script,
                flags: flags_of(&args[1..]),
            })
        }
        _ if (c.program.starts_with("./") || c.program.starts_with('/') || c.program.contains("/bin/"))
            && name.bytes().any(|b| b.is_ascii_alphabetic())
            && !crate::analysis::calls::command_only_looks(c)
            && !is_system_tool(name) =>
        {
            let subs = subcommands(args);
            Some(Entry {
                identity: format!("exe {} {}", c.program, subs.join(" ")),
                display: [name].into_iter().chain(subs.iter().copied()).collect::<Vec<_>>().join(" "),
                flags: flags_of(args),
                experiment: experiment_name(name),
            })
        }
        _ => None,
    }
}

/// A system service (re)started: `service NAME restart`, `systemctl restart NAME`,
/// `/etc/init.d/NAME start`, `rc-service NAME restart`. The same unit however spelled,
/// so the three forms compare. (One unit: `systemctl restart a b` names the first.)
fn service_restart(c: &SimpleCommand) -> Option<&str> {
    let act = |a: Option<&String>| a.is_some_and(|a| matches!(a.as_str(), "start" | "restart" | "force-reload"));
    let args = &c.args;
    match c.name() {
        "service" | "rc-service" if act(args.get(1)) => args.first().map(String::as_str),
        "systemctl" => {
            let words: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
            if act(words.first().copied()) { words.get(1).map(|u| u.trim_end_matches(".service")) } else { None }
        }
        _ if c.program.starts_with("/etc/init.d/") && act(args.first()) => Some(c.name()),
        _ => None,
    }
}

/// How the command runs says it is a job, not a query: in the background, detached
/// (`nohup`, `setsid`, `tmux`, `screen`), or writing its output to a log file.
fn runs_as_job(c: &SimpleCommand, detached: bool) -> bool {
    let log = |t: &str| {
        let t = t.to_lowercase();
        [".log", ".out", ".err"].iter().any(|e| t.ends_with(e)) || t.contains("/log")
    };
    detached
        || c.background
        || c.via.iter().any(|v| matches!(v.as_str(), "nohup" | "setsid"))
        || c.redirects.iter().any(|r| matches!(r.op, ">" | ">>" | "&>" | "&>>") && r.fd != Some(2) && log(&r.target))
}

/// Programs under `/usr/bin` that are tools, not the thing being launched.
fn is_system_tool(name: &str) -> bool {
    matches!(
        name,
        "python"
            | "python3"
            | "pip"
            | "pip3"
            | "git"
            | "make"
            | "cmake"
            | "rm"
            | "cp"
            | "mv"
            | "mkdir"
            | "chmod"
            | "kill"
            | "pkill"
            | "sudo"
            | "apt"
            | "apt-get"
            | "npm"
            | "npx"
            | "yarn"
            | "pnpm"
            | "docker"
            | "ssh"
            | "scp"
            | "rsync"
            | "tar"
            | "unzip"
            | "gcc"
            | "g++"
            | "clang"
            | "rustc"
            | "cargo"
            | "go"
            | "bash"
            | "sh"
            | "zsh"
            | "configure"
    ) || name.starts_with("python")
        || name.starts_with("pip")
        || name.starts_with("test")
        || name.contains("test")
}

/// `python [interp flags] (-m MOD | script.py) args…` → ("-m MOD" or "script.py", args).
fn python_entry(args: &[String]) -> Option<(String, &[String])> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-m" => {
                let module = args.get(i + 1)?;
                if TOOL_MODULES.contains(&module.as_str()) {
                    return None;
                }
                return Some((format!("-m {module}"), &args[i + 2..]));
            }
            "-c" | "-" => return None,
            "-W" | "-X" => i += 2,
            s if s.starts_with('-') => i += 1,
            s => {
                if !is_script(s) {
                    return None;
                }
                return Some((basename(s).to_string(), &args[i + 1..]));
            }
        }
    }
    None
}

fn is_script(a: &str) -> bool {
    !a.starts_with('-') && [".py", ".js", ".mjs", ".ts", ".jar"].iter().any(|e| a.ends_with(e))
}

fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// Leading operands that read as subcommand words (`serve`, `session list`), at most
/// two: `manage.py migrate` and `manage.py runserver` are different programs.
fn subcommands(args: &[String]) -> Vec<&str> {
    args.iter()
        .take(2)
        .map(String::as_str)
        .take_while(|a| {
            !a.is_empty()
                && a.len() <= 24
                && a.bytes().all(|b| b.is_ascii_lowercase() || b == b'-' || b == b'_')
                && a.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        })
        .collect()
}

fn positionals(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a.starts_with('-') {
            if !a.contains('=') && args.get(i + 1).is_some_and(|n| !n.starts_with('-')) {
                i += 1;
            }
        } else {
            out.push(a.as_str());
        }
        i += 1;
    }
    out
}

/// Flags and their values (`""` for a flag without one). `--a=b` and `--a b` agree,
/// `_` and `-` in names agree, a repeated flag keeps every value. Which flags take a
/// value is not known for arbitrary programs, so a flag followed by a non-flag word
/// takes it; both launches are read the same way, so the comparison is fair.
fn flags_of(args: &[String]) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let Some(body) = a.strip_prefix("--").or_else(|| a.strip_prefix('-')) else { continue };
        if body.is_empty() || body.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'.') {
            continue; // `--` or a negative number
        }
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, v.to_string()),
            None => match args.get(i) {
                Some(n) if !n.starts_with('-') || n.parse::<f64>().is_ok() => {
                    i += 1;
                    (body, n.clone())
                }
                _ => (body, String::new()),
            },
        };
        let name = name.replace('_', "-");
        if inert_flag(&name) {
            continue;
        }
        out.entry(name).and_modify(|v| *v = format!("{v},{value}")).or_insert(value);
    }
    out
}

/// Flags that do not change what runs: where it listens and logs, what the run is
/// called, how chatty it is, and how big a measurement is (a benchmark's number of
/// prompts or iterations changes its precision, not what it measures).
fn inert_flag(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "port",
        "host",
        "p",
        "o",
        "out",
        "log",
        "logdir",
        "name",
        "run-name",
        "exp-name",
        "experiment-name",
        "tag",
        "tags",
        "verbose",
        "v",
        "vv",
        "quiet",
        "q",
        "debug",
        "color",
        "no-color",
        "progress",
        "help",
        "h",
        "version",
        "pid-file",
        "pidfile",
        "daemon",
        "detach",
        "d",
        "num-prompts",
        "num-requests",
        "requests",
        "iterations",
        "iters",
        "num-iters",
        "repeat",
        "repeats",
        "runs",
        "num-runs",
        "trials",
        "warmup",
        "warmup-iters",
        "warmup-steps",
        "duration",
    ];
    const PREFIX: &[&str] = &["log-", "logging-", "output", "save-dir", "wandb", "report-to", "tensorboard"];
    EXACT.contains(&name) || PREFIX.iter().any(|p| name.starts_with(p))
}

/// Environment variables that do not change what runs.
fn inert_env(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "HOME",
        "PWD",
        "TERM",
        "LANG",
        "SHELL",
        "USER",
        "TMPDIR",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONWARNINGS",
        "TOKENIZERS_PARALLELISM",
        "FORCE_COLOR",
        "NO_COLOR",
        "CLICOLOR",
        "PAGER",
        "GIT_PAGER",
        "CI",
    ];
    const SUFFIX: &[&str] =
        &["_DEBUG", "_DEBUG_SUBSYS", "_DEBUG_FILE", "LOG_LEVEL", "LOGLEVEL", "_VERBOSITY", "_LOG", "BACKTRACE"];
    EXACT.contains(&name) || name.starts_with("LC_") || SUFFIX.iter().any(|s| name.ends_with(s))
}

/// One change between two launches, for the summary.
struct Change {
    /// What a person reads: `NCCL_BUFFSIZE (unset→131072)`.
    text: String,
}

fn compare(messages: &[Message], prev: &Launch, cur: &Launch, inputs: &BTreeSet<String>) -> Option<Finding> {
    let mut changes: Vec<Change> = Vec::new();
    changes.extend(env_changes(&prev.env, &cur.env));
    changes.extend(flag_changes(prev, cur, inputs));
    // Edits between the two launches (after the previous launch's call, before the
    // relaunch's command) that reach the machine the program runs on: made there, or
    // made here and then copied there (`rsync`/`scp`).
    let mut files: Vec<String> = Vec::new();
    let mut edit_msgs: Vec<u32> = Vec::new();
    let mut not_copied_yet: Vec<(u32, String)> = Vec::new();
    for (pos, m) in messages.iter().enumerate().take(cur.at.0 + 1).skip(prev.at.0) {
        for (ci, call) in m.calls.iter().enumerate() {
            if (pos, ci) <= (prev.at.0, prev.at.1) || (pos, ci) > (cur.at.0, cur.at.1) {
                continue;
            }
            // In the relaunch's own call, only what runs before the launch command.
            let limit = if (pos, ci) == (cur.at.0, cur.at.1) { cur.at.2 } else { usize::MAX };
            let mut events: Vec<(usize, Option<String>, Option<String>)> = edits(call)
                .into_iter()
                .filter(|e| !is_note(&e.file))
                .map(|e| (e.command.unwrap_or(0), Some(e.file), e.place))
                .collect();
            events.extend(copies_to(call).into_iter().map(|(k, host)| (k, None, Some(host))));
            events.retain(|(k, _, _)| *k < limit);
            events.sort_by_key(|(k, _, _)| *k);
            for (_, file, place) in events {
                match file {
                    Some(f) if place == cur.place => {
                        edit_msgs.push(m.idx);
                        files.push(f);
                    }
                    Some(f) if place.is_none() => not_copied_yet.push((m.idx, f)),
                    Some(_) => {} // another machine
                    None if place == cur.place && !not_copied_yet.is_empty() => {
                        for (idx, f) in not_copied_yet.drain(..) {
                            edit_msgs.push(idx);
                            files.push(f);
                        }
                        edit_msgs.push(m.idx);
                    }
                    None => {}
                }
            }
        }
    }
    files.sort();
    files.dedup();
    // A configuration file rewritten whole, whose content before is known, changes the
    // settings that differ: each is a change of its own. Other files are "the code",
    // one change however many.
    let (config, rest): (Vec<String>, Vec<String>) = files.into_iter().partition(|f| is_config(f));
    // A system service runs its own configuration: other files do not change it.
    let service = cur.is_service();
    let config: Vec<String> = config.into_iter().filter(|f| !service || cur.configures(f)).collect();
    let mut files = if service { Vec::new() } else { rest };
    for f in config {
        match config_settings(messages, Some(prev.at), cur.at, &f) {
            Some(settings) => {
                for k in settings {
                    changes.push(Change { text: format!("{k} in {}", short_path(&f)) });
                }
            }
            None => files.push(f),
        }
    }
    let settings: Vec<String> = changes.iter().map(|c| c.text.clone()).collect();
    if !files.is_empty() {
        let names: Vec<String> = files
            .iter()
            .map(|f| if f.starts_with('(') { f.trim_matches(['(', ')']).to_string() } else { basename(f).to_string() })
            .collect();
        let mut names = names;
        names.dedup();
        let shown: Vec<String> = names.iter().take(3).cloned().collect();
        let more = if names.len() > 3 { format!(" and {} more", names.len() - 3) } else { String::new() };
        changes.push(Change { text: format!("the code ({}{more})", and_list(&shown)) });
    }
    if changes.len() < 2 {
        return None;
    }
    let key = messages[cur.at.0].idx;
    let prev_idx = messages[prev.at.0].idx;
    let texts: Vec<String> = changes.iter().map(|c| c.text.clone()).collect();
    // The ids are in the evidence; the summary reads as prose (reports quote every
    // message they cite, and a summary cannot quote).
    let when = match key - prev_idx {
        1 => String::from("in the message before"),
        n => format!("{n} messages earlier"),
    };
    let summary = format!(
        "relaunch of {} changed {} in one go ({} changes since its previous launch {when})",
        cur.display,
        and_list(&texts),
        changes.len(),
    );
    let mut evidence = vec![prev_idx, key];
    evidence.extend(edit_msgs);
    evidence.sort_unstable();
    evidence.dedup();
    let details = Details::Relaunch { previous: Some(prev_idx), changes: settings, edits: files };
    Some(Finding {
        detector: String::new(),
        key,
        evidence,
        summary,
        command: cur.call.command.clone(),
        details: Some(details),
    })
}

/// A service's first restart in view against the configuration it was running with:
/// the settings of its config files rewritten since the session last saw them.
fn compare_with_running(messages: &[Message], cur: &Launch) -> Option<Finding> {
    let mut changes: Vec<Change> = Vec::new();
    let mut evidence: Vec<u32> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for (pos, m) in messages.iter().enumerate().take(cur.at.0 + 1) {
        for (ci, call) in m.calls.iter().enumerate() {
            if (pos, ci) > (cur.at.0, cur.at.1) {
                continue;
            }
            let limit = if (pos, ci) == (cur.at.0, cur.at.1) { cur.at.2 } else { usize::MAX };
            for (k, file, _) in whole_writes(call) {
                if k >= limit || !is_config(&file) || seen.contains(&file) || !cur.configures(&file) {
                    continue;
                }
                seen.push(file.clone());
                // The baseline: what the file held before its first rewrite here.
                if let Some(settings) = config_settings(messages, None, cur.at, &file)
                    && !settings.is_empty()
                {
                    evidence.push(m.idx);
                    changes
                        .extend(settings.into_iter().map(|k| Change { text: format!("{k} in {}", short_path(&file)) }));
                }
            }
        }
    }
    if changes.len() < 2 {
        return None;
    }
    let key = messages[cur.at.0].idx;
    let texts: Vec<String> = changes.iter().map(|c| c.text.clone()).collect();
    let summary = format!(
        "restart of {} with {} changed in one go ({} changes to the configuration it was running with)",
        cur.display,
        and_list(&texts),
        changes.len(),
    );
    evidence.push(key);
    evidence.sort_unstable();
    evidence.dedup();
    let details = Details::Relaunch { previous: None, changes: texts, edits: Vec::new() };
    Some(Finding {
        detector: String::new(),
        key,
        evidence,
        summary,
        command: cur.call.command.clone(),
        details: Some(details),
    })
}

/// A file named with its folder: `blocky/config.yml`.
fn short_path(path: &str) -> String {
    let mut parts = path.rsplit('/');
    match (parts.next(), parts.next()) {
        (Some(f), Some(d)) if !d.is_empty() && d != "." => format!("{d}/{f}"),
        (Some(f), _) => f.to_string(),
        _ => path.to_string(),
    }
}

/// A config file of the service: its name or folder names the service
/// (`/etc/blocky/config.yml` for `blocky`, `/etc/nginx/nginx.conf`).
fn belongs_to(file: &str, service: &str) -> bool {
    let s = service.to_lowercase();
    !s.is_empty() && file.to_lowercase().split(['/', '.', '-', '_']).any(|part| part == s)
}

/// Files whose lines are settings: YAML, TOML, INI, JSON, `.env`, `*.conf`, and
/// extensionless files under `/etc/`.
fn is_config(path: &str) -> bool {
    let p = path.to_lowercase();
    let name = basename(&p);
    [".yml", ".yaml", ".toml", ".ini", ".conf", ".cfg", ".json", ".env", ".properties"]
        .iter()
        .any(|e| name.ends_with(e))
        || name == ".env"
        || (p.starts_with("/etc/") && !name.contains('.'))
}

/// A file's whole new content written by a call, with the number of the command in
/// the call's script: the Write tool, or `cat > f <<EOF` / `tee f <<EOF`.
fn whole_writes(call: &Call) -> Vec<(usize, String, String)> {
    text_edits(call)
        .into_iter()
        .filter(|e| e.whole)
        .map(|e| (e.command.unwrap_or(0), e.file, e.added.join("\n")))
        .collect()
}

/// What `file` held before position `pos`, as far as the session shows: its last whole
/// write, or the output of a `cat` of it that came first in its command line.
fn content_before(messages: &[Message], pos: usize, file: &str) -> Option<String> {
    for m in messages[..pos.min(messages.len())].iter().rev() {
        for call in m.calls.iter().rev() {
            if let Some((_, _, c)) = whole_writes(call).into_iter().rev().find(|(_, f, _)| f == file) {
                return Some(c);
            }
            let Some(cmd) = call.command.as_deref() else { continue };
            let script = shell::parse(cmd);
            let first = script.commands.first();
            if first.is_some_and(|c| c.name() == "cat" && c.positionals() == [file] && !c.piped_to)
                && let Some(r) = call.result.as_ref().filter(|r| !r.is_error && !r.output.trim().is_empty())
            {
                // The local shell's own complaints can land in the output (Cygwin's fork
                // retries, `bash: …` warnings): they are not the file's lines.
                let noise = |l: &&str| {
                    let t = l.trim_start();
                    t.contains(" [main] ") || t.contains(": fork: ") || t.starts_with("Warning: Permanently added")
                };
                return Some(r.output.lines().filter(|l| !noise(l)).collect::<Vec<_>>().join("\n"));
            }
        }
    }
    None
}

/// The settings a config file's rewrites after `from` (a launch's place; `None`: the
/// view's start) and before `cur` changed:
/// its last content written before the relaunch against what it held before `from`'s
/// first rewrite of it. `None` when either content is unknown.
fn config_settings(
    messages: &[Message],
    from: Option<(usize, usize, usize)>,
    cur: (usize, usize, usize),
    file: &str,
) -> Option<Vec<String>> {
    let mut first_write: Option<usize> = None;
    let mut last: Option<String> = None;
    for (pos, m) in messages.iter().enumerate().take(cur.0 + 1).skip(from.map_or(0, |f| f.0)) {
        for (ci, call) in m.calls.iter().enumerate() {
            for (k, f, c) in whole_writes(call) {
                if f == file && from.is_none_or(|from| (pos, ci, k) > from) && (pos, ci, k) < cur {
                    first_write.get_or_insert(pos);
                    last = Some(c);
                }
            }
        }
    }
    let new = last?;
    let first_write = first_write?;
    let old = content_before(messages, first_write, file)?;
    // Back to a configuration written earlier in view: a return to a known state (the
    // outcome is that state's), not new changes.
    let same = |a: &str, b: &str| changed_settings(a, b).is_empty();
    let earlier = messages[..first_write].iter().flat_map(|m| &m.calls).flat_map(whole_writes);
    if !same(&old, &new) && earlier.filter(|(_, f, _)| f == file).any(|(_, _, c)| same(&c, &new)) {
        return Some(Vec::new());
    }
    Some(changed_settings(&old, &new))
}

/// The settings that differ between two versions of a config file: for each changed
/// line the setting it belongs to (see [`setting_name`]), comments and blank lines left
/// out; one name per setting, and a section changed at its header (added, removed,
/// renamed) counts once for everything inside it.
fn changed_settings(old: &str, new: &str) -> Vec<String> {
    let norm = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.trim_end().to_string())
            .filter(|l| {
                let t = l.trim_start();
                !t.is_empty() && !t.starts_with('#') && !t.starts_with("//") && !t.starts_with(';')
            })
            .collect()
    };
    let (a, b) = (norm(old), norm(new));
    if a.len() > 2000 || b.len() > 2000 {
        return Vec::new();
    }
    // Longest common subsequence of lines.
    let mut lcs = vec![vec![0u16; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut names: Vec<String> = Vec::new();
    // (run of changed lines, its top-level section) already named.
    let mut named: Vec<(usize, String)> = Vec::new();
    let mut hunk = 0usize;
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
            hunk += 1;
            continue;
        }
        // The changed line, and the lines it sits under.
        let (lines, at) = if j < b.len() && (i >= a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            j += 1;
            (&b, j - 1)
        } else {
            i += 1;
            (&a, i - 1)
        };
        // Lines changed together in one section are one setting (a block rewritten:
        // `type`, `target`, `logRetentionDays` of `queryLog`); apart, two.
        let name = setting_name(lines, at);
        let top = name.split('.').next().unwrap_or("").to_string();
        if named.iter().any(|(h, t)| *h == hunk && *t == top) {
            continue;
        }
        named.push((hunk, top));
        if !names.contains(&name) {
            names.push(name);
        }
    }
    // A section added or removed whole is one setting, not one per key inside it.
    let whole: Vec<String> = names.iter().filter(|n| !n.contains('.')).cloned().collect();
    names.retain(|n| n.split_once('.').is_none_or(|(top, _)| !whole.iter().any(|w| w == top)));
    names
}

/// The setting a changed config line belongs to, two levels deep at most: its section
/// and key (`log.format`, `clientLookup.upstream`; a list item or deeper value counts
/// under the key two levels down that holds it), or its key at the top level. Lines of
/// one section's key changed together are one setting; a section's two keys are two.
fn setting_name(lines: &[String], at: usize) -> String {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let key = |l: &str| {
        let t = l.trim_start().trim_start_matches("- ").trim_start_matches('[');
        let k = t.split([':', '=']).next().unwrap_or(t).trim().trim_matches(['"', '\'', ']']);
        (t.contains(':') || t.contains('=')).then(|| k.to_string()).filter(|k| !k.is_empty() && !k.contains(' '))
    };
    // The chain of keys above the line, innermost first, then the line's own.
    let mut chain: Vec<String> = Vec::new();
    let line = &lines[at];
    if !line.trim_start().starts_with("- ")
        && let Some(k) = key(line)
    {
        chain.push(k);
    }
    let mut level = indent(line);
    for l in lines[..at].iter().rev() {
        if level == 0 {
            break;
        }
        if indent(l) < level && !l.trim_start().starts_with("- ") {
            level = indent(l);
            chain.extend(key(l));
        }
    }
    chain.reverse();
    match chain.as_slice() {
        [] => quote(line.trim(), 30),
        [one] => one.clone(),
        [top, second, ..] => format!("{top}.{second}"),
    }
}

/// One variable's change: name, value before, value after.
struct EnvDiff {
    name: String,
    from: String,
    to: String,
}

/// Environment differences; a `MIN_`/`MAX_` pair of one variable is one change.
fn env_changes(prev: &BTreeMap<String, String>, cur: &BTreeMap<String, String>) -> Vec<Change> {
    let mut names: Vec<&String> = prev.keys().chain(cur.keys()).collect();
    names.sort();
    names.dedup();
    let mut groups: BTreeMap<String, Vec<EnvDiff>> = BTreeMap::new();
    for n in names {
        let (a, b) = (prev.get(n), cur.get(n));
        if a == b {
            continue;
        }
        let show = |v: Option<&String>| v.map_or_else(|| "unset".to_string(), |v| quote(v, 30));
        let group = n.replace("_MIN_", "_MINMAX_").replace("_MAX_", "_MINMAX_");
        groups.entry(group).or_default().push(EnvDiff { name: n.clone(), from: show(a), to: show(b) });
    }
    groups
        .into_values()
        .map(|mut g| {
            // MIN before MAX, as people say it.
            g.sort_by_key(|d| !d.name.contains("_MIN_"));
            let names: Vec<&str> = g.iter().map(|d| d.name.as_str()).collect();
            let olds: Vec<&str> = g.iter().map(|d| d.from.as_str()).collect();
            let news: Vec<&str> = g.iter().map(|d| d.to.as_str()).collect();
            let from = if olds.iter().all(|o| *o == olds[0]) { olds[0].to_string() } else { olds.join("/") };
            Change { text: format!("{} ({from}→{})", names.join("/"), news.join("/")) }
        })
        .collect()
}

/// Flags that give the program its task rather than set how it runs, as far as the
/// launches of the same program within [`LOOKBACK`] messages up to the `n`th show them.
/// First the flags that carry free text in any of them (a prompt, a question, a title:
/// the task); then those and the flags that changed together with such a text at some
/// relaunch (the project or folder the task is given). Positional arguments are not
/// compared for the same reason.
fn input_flags(launches: &[Launch], n: usize) -> (BTreeSet<String>, BTreeSet<String>) {
    let cur = &launches[n];
    let same: Vec<&Launch> =
        launches[..=n].iter().filter(|l| l.identity == cur.identity && cur.at.0 - l.at.0 <= LOOKBACK).collect();
    let task: BTreeSet<String> =
        same.iter().flat_map(|l| &l.flags).filter(|(_, v)| is_prose(v)).map(|(k, _)| k.clone()).collect();
    let mut inputs = task.clone();
    for w in same.windows(2) {
        let (a, b) = (&w[0].flags, &w[1].flags);
        let differ: Vec<&String> = a.keys().chain(b.keys()).filter(|k| a.get(*k) != b.get(*k)).collect();
        if differ.iter().any(|k| task.contains(*k)) {
            inputs.extend(differ.into_iter().cloned());
        }
    }
    (task, inputs)
}

/// Free text, as a person writes a request (`"build a python guessing game"`), not a
/// value (`1 2 4`, `--sandbox read-only`, `{"a": 1}`, `/a b/c`): two or more words, of
/// which at least two are all letters, and no word an option or an assignment.
fn is_prose(v: &str) -> bool {
    let words: Vec<&str> = v.split_whitespace().collect();
    words.len() >= 2
        && !v.contains(['{', '[', '<', '=', '/', '\\'])
        && words.iter().all(|w| !w.starts_with('-') && w.chars().any(char::is_alphabetic))
        && words.iter().filter(|w| w.chars().all(char::is_alphabetic)).count() >= 2
}

/// Flag differences, minus the program's inputs (see [`input_flags`]), renames (same
/// value, new name) and fixes of flags the previous launch rejected.
fn flag_changes(prev: &Launch, cur: &Launch, inputs: &BTreeSet<String>) -> Vec<Change> {
    let rejected = prev.call.result.as_ref().map(|r| r.output.as_str()).unwrap_or("");
    let rejected_flag = |name: &str| {
        let low = rejected.to_lowercase();
        (low.contains("unrecognized") || low.contains("no such option") || low.contains("unexpected argument"))
            && (rejected.contains(&format!("--{name}")) || rejected.contains(&format!("--{}", name.replace('-', "_"))))
    };
    let setting = |k: &String| !inputs.contains(k);
    let mut removed: Vec<(&String, &String)> =
        prev.flags.iter().filter(|(k, _)| setting(k) && !cur.flags.contains_key(*k)).collect();
    let mut added: Vec<(&String, &String)> =
        cur.flags.iter().filter(|(k, _)| setting(k) && !prev.flags.contains_key(*k)).collect();
    let mut out = Vec::new();
    // Renames: a removed and an added flag with the same non-empty value.
    removed.retain(|(_, rv)| {
        if let Some(p) = added.iter().position(|(_, av)| !rv.is_empty() && av == rv) {
            added.remove(p);
            false
        } else {
            true
        }
    });
    for (k, v) in &removed {
        if rejected_flag(k) {
            continue;
        }
        out.push(Change {
            text: if v.is_empty() { format!("--{k} (on→off)") } else { format!("--{k} ({}→unset)", quote(v, 30)) },
        });
    }
    for (k, v) in &added {
        out.push(Change {
            text: if v.is_empty() { format!("--{k} (off→on)") } else { format!("--{k} (unset→{})", quote(v, 30)) },
        });
    }
    for (k, v) in cur.flags.iter().filter(|(k, _)| setting(k)) {
        if let Some(pv) = prev.flags.get(k)
            && pv != v
        {
            out.push(Change { text: format!("--{k} ({}→{})", quote(pv, 30), quote(v, 30)) });
        }
    }
    // By flag name, as a person scans them.
    out.sort_by(|a, b| a.text.cmp(&b.text));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::detect_session;

    fn bash(idx: u32, cmd: &str) -> Message {
        bash_out(idx, cmd, "")
    }

    use crate::detect::fixture::{bash as bash_out, edit};

    fn run(messages: &[Message]) -> Vec<Finding> {
        detect_session(&[&ConfoundedChange], messages)
    }

    const SRV: &str = "nohup python -m sglang.launch_server --model-path /m --tp 8";

    fn launch(idx: u32, env: &str, extra: &str, log: &str) -> Message {
        bash(idx, &format!("ssh root@gpu '{env} {SRV} {extra} > /data/logs/{log}.log 2>&1 &'"))
    }

    fn write(idx: u32, file: &str, body: &str, then: &str) -> Message {
        bash(idx, &format!("ssh root@router \"cat > {file} << 'EOF'\n{body}EOF\n{then}\""))
    }

    const BLOCKY_0: &str = "upstreams:\n  default:\n    - 10.0.0.1:5053\nlog:\n  level: info\n";

    #[test]
    fn a_service_restarted_with_two_config_settings_changed_fires() {
        let messages = vec![
            bash_out(1, "ssh root@router \"cat /etc/blocky/config.yml\"", BLOCKY_0),
            write(2, "/etc/blocky/config.yml", BLOCKY_0, "service blocky restart"),
            write(
                3,
                "/etc/blocky/config.yml",
                "upstreams:\n  default:\n    - 10.0.0.1:5053\nlog:\n  level: debug\nqueryLog:\n  type: console\n",
                "/etc/init.d/blocky restart",
            ),
        ];
        let f = run(&messages);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!((f[0].key, f[0].evidence.clone()), (3, vec![2, 3]));
        assert!(
            f[0].summary.contains("log.level in blocky/config.yml and queryLog in blocky/config.yml"),
            "{}",
            f[0].summary
        );
    }

    #[test]
    fn a_service_config_near_misses_stay_quiet() {
        let debug = "upstreams:\n  default:\n    - 10.0.0.1:5053\nlog:\n  level: debug\n";
        // One setting per restart; then back to the configuration it ran with before
        // (two settings differ, but it is a return to a known state).
        let messages = vec![
            write(1, "/etc/blocky/config.yml", BLOCKY_0, "service blocky restart"),
            write(2, "/etc/blocky/config.yml", debug, "service blocky restart"),
            write(
                3,
                "/etc/blocky/config.yml",
                &format!("{debug}queryLog:\n  type: console\n"),
                "service blocky restart",
            ),
            write(4, "/etc/blocky/config.yml", BLOCKY_0, "service blocky restart"),
        ];
        assert!(run(&messages).is_empty(), "{:#?}", run(&messages));
        // Another service's config rewritten does not change this one.
        let messages = vec![
            bash_out(1, "ssh root@router \"cat /etc/cloudflared/config.yml\"", "proxy-dns: true\nupstream: a\n"),
            write(2, "/etc/blocky/config.yml", BLOCKY_0, "service blocky restart"),
            write(3, "/etc/cloudflared/config.yml", "proxy-dns: false\nupstream: b\n", "service blocky restart"),
        ];
        assert!(run(&messages).is_empty(), "{:#?}", run(&messages));
    }

    #[test]
    fn env_and_code_changed_together_fire_on_the_relaunch() {
        let messages = vec![
            launch(1, "NCCL_ALGO=Tree", "", "exp_1a"),
            bash(2, "ssh root@gpu 'tail -5 /data/logs/exp_1a.log'"),
            edit(3, "/root/sglang/python/sglang/srt/layers/communicator.py"),
            edit(4, "/root/sglang/python/sglang/srt/layers/communicator.py"),
            edit(5, "/root/notes/eagle-fast-verify.md"),
            bash(6, "rsync -az python/sglang/srt/layers/communicator.py root@gpu:/opt/sglang/ --relative"),
            launch(7, "NCCL_MIN_NCHANNELS=1 NCCL_MAX_NCHANNELS=2 NCCL_BUFFSIZE=131072", "", "exp_1b"),
        ];
        let f = run(&messages);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].key, 7);
        assert_eq!(f[0].evidence, [1, 3, 4, 6, 7]);
        assert_eq!(
            f[0].summary,
            "relaunch of sglang.launch_server changed NCCL_ALGO (Tree→unset), NCCL_BUFFSIZE (unset→131072), \
             NCCL_MIN_NCHANNELS/NCCL_MAX_NCHANNELS (unset→1/2) and the code (communicator.py) in one go \
             (4 changes since its previous launch 6 messages earlier)"
        );
        assert!(f[0].command.as_deref().unwrap().contains("NCCL_BUFFSIZE=131072"));
    }

    #[test]
    fn edits_count_only_where_the_program_runs() {
        // A local edit never copied to the GPU host does not change the remote server;
        // an edit made on the host through ssh does.
        let local = vec![
            launch(1, "NCCL_ALGO=Tree", "", "a"),
            edit(2, "/home/me/sglang/communicator.py"),
            launch(3, "NCCL_ALGO=Ring", "", "b"),
        ];
        assert!(run(&local).is_empty());
        let remote = vec![
            launch(1, "NCCL_ALGO=Tree", "", "a"),
            bash(2, "ssh root@gpu \"sed -i 's/sm100/sm120/' /opt/sglang/communicator.py\""),
            launch(3, "NCCL_ALGO=Ring", "", "b"),
        ];
        assert_eq!(run(&remote).len(), 1);
    }

    #[test]
    fn one_change_per_launch_is_clean_experimenting() {
        let messages = vec![
            launch(1, "", "", "base"),
            launch(2, "NCCL_ALGO=Tree", "", "exp1"),
            launch(3, "NCCL_ALGO=Ring", "", "exp2"),
            launch(4, "NCCL_ALGO=Ring", "--enable-fusion", "exp3"),
            edit(5, "/r/communicator.py"),
            edit(6, "/r/server_args.py"),
            launch(7, "NCCL_ALGO=Ring", "--enable-fusion", "exp4"),
            // Port, log level and NCCL_DEBUG do not change what runs.
            launch(8, "NCCL_ALGO=Ring NCCL_DEBUG=INFO", "--enable-fusion --port 30001 --log-level debug", "exp5"),
        ];
        assert!(run(&messages).is_empty(), "{:?}", run(&messages));
    }

    #[test]
    fn renamed_and_rejected_flags_are_fixes_not_changes() {
        let messages = vec![
            bash(1, "python train.py --lr 3e-4 --batch_size 32"),
            bash(2, "python train.py --lr 3e-4 --batch-size 32 --epochs 3"),
            bash_out(
                3,
                "python train.py --lr 3e-4 --bs 32 --dropout 0.1",
                "error: unrecognized arguments: --dropout 0.1",
            ),
            bash(4, "python train.py --lr 1e-4 --bs 32"),
        ];
        // 1→2: --epochs added (batch_size/batch-size agree). 2→3: --batch-size renamed to
        // --bs, --epochs dropped, --dropout added: two changes. 3→4: --dropout was
        // rejected, --lr changed: one change.
        let f = run(&messages);
        assert_eq!(f.iter().map(|f| f.key).collect::<Vec<_>>(), [3]);
        assert_eq!(
            f[0].summary,
            "relaunch of train.py changed --dropout (unset→0.1) and --epochs (3→unset) in one go (2 changes since its previous launch in the message before)"
        );
    }

    #[test]
    fn the_task_given_to_a_program_is_an_input_not_a_setting() {
        let run_app = |idx: u32, args: &str| bash(idx, &format!("APP_DIR=shared cargo run -p app -- {args}"));
        // Another prompt is another run; the project changed with the prompt is the
        // task's folder, so a fresh folder and a code fix later are one change.
        let messages = vec![
            run_app(1, "--playbook /tmp/p.json"),
            edit(2, "/r/app/src/main.rs"),
            run_app(3, "--prompt \"build a python guessing game\" --project test-guess"),
            edit(4, "/r/app/src/worker.rs"),
            run_app(5, "--prompt hi --project roles-demo"),
            run_app(6, "--prompt \"check defaults\" --project defaults-demo"),
            edit(7, "/r/app/src/main.rs"),
            run_app(8, "--prompt \"check defaults\" --project defaults-demo-2"),
        ];
        assert!(run(&messages).is_empty(), "{:#?}", run(&messages));
        // The same task, with two settings and the code changed: confounded.
        let messages = vec![
            run_app(1, "--prompt \"check defaults\" --project demo --threads 2"),
            edit(2, "/r/app/src/main.rs"),
            run_app(3, "--prompt \"check defaults\" --project demo --threads 4 --sandbox workspace-write"),
        ];
        let f = run(&messages);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].key, 3);
        assert!(
            f[0].summary.contains("--sandbox (unset→workspace-write), --threads (2→4) and the code"),
            "{}",
            f[0].summary
        );
        assert!(!f[0].summary.contains("--prompt"), "{}", f[0].summary);
        assert!(is_prose("verify write+net preset") && !is_prose("hi"));
        assert!(
            !is_prose("1 2 4") && !is_prose("--sandbox read-only") && !is_prose("/a b/c") && !is_prose("{\"a\": 1}")
        );
    }

    #[test]
    fn sweeps_tools_and_different_programs_are_not_relaunches() {
        let messages = vec![
            bash(1, "for bs in 1 2 4; do python bench.py --bs $bs; done"),
            bash(2, "for bs in 8 16; do A=1 python bench.py --bs $bs --seq 2; done"),
            bash(3, "python -m pytest -x tests/"),
            bash(4, "FOO=1 python -m pytest -k slow --maxfail 2 tests/"),
            bash(5, "python -c 'import torch; print(torch.__version__)'"),
            bash(6, "A=1 python -c 'import torch; print(torch.cuda.is_available())'"),
            bash(7, "python serve.py --tp 8"),
            bash(8, "python other.py --tp 4 --dp 2"),
        ];
        assert!(run(&messages).is_empty());
    }

    #[test]
    fn launches_inside_tmux_and_edits_before_the_launch_count() {
        let messages = vec![
            bash(1, "tmux new-session -d -s srv 'vllm serve /m --max-num-seqs 64'"),
            bash(
                2,
                "sed -i 's/fuse=False/fuse=True/' /r/model.py && tmux new-session -d -s srv 'VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve /m --max-num-seqs 64'",
            ),
        ];
        let f = run(&messages);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].summary.starts_with(
                "relaunch of vllm serve changed VLLM_ATTENTION_BACKEND (unset→FLASHINFER) and the code (model.py)"
            ),
            "{}",
            f[0].summary
        );
    }

    #[test]
    fn identity_and_flags() {
        let launch = |cmd: &str| launch_of(&shell::parse(cmd).commands[0]);
        let e = launch("CUDA_VISIBLE_DEVICES=0 torchrun --nproc_per_node 8 train.py --lr=1e-4 --fp16").unwrap();
        assert_eq!(e.display, "torchrun train.py");
        assert!(e.experiment);
        assert_eq!(e.flags.get("nproc-per-node").map(String::as_str), Some("8"));
        assert_eq!(e.flags.get("lr").map(String::as_str), Some("1e-4"));
        assert_eq!(e.flags.get("fp16").map(String::as_str), Some(""));
        assert_eq!(launch("python manage.py migrate").unwrap().display, "manage.py migrate");
        assert_ne!(
            launch("python manage.py migrate").unwrap().identity,
            launch("python manage.py runserver").unwrap().identity
        );
        let cli = launch("bun run src/cli.ts session list --all").unwrap();
        assert_eq!(cli.display, "bun cli.ts session list");
        assert!(!cli.experiment);
        assert!(launch("bun build src/cli.ts --outfile cli").is_none());
        assert!(launch("vllm serve /m --max-num-seqs 8").unwrap().experiment);
        assert!(launch("./build/bin/llama-bench -m x.gguf").unwrap().experiment);
        assert!(launch("/usr/bin/grep x y").is_none());
        assert!(launch("cargo test --release").is_none());
        assert!(launch("cargo run --release -- --port 1").is_some());
    }

    #[test]
    fn runs_of_a_query_tool_are_not_experiments() {
        // The project's own CLI asked different questions: not a relaunch of a job.
        let messages = vec![
            bash(1, "bun run src/cli.ts tasks list --repo /tmp/t8 --all"),
            bash(2, "bun run src/cli.ts tasks list --repo /tmp/t9 --json | jq ."),
            bash(3, "./cli git pr --session 004 > pr.md"),
            bash(4, "./cli git pr --task 008 --base main > pr.md"),
        ];
        assert!(run(&messages).is_empty());
        // The same CLI started as a background job with a log is a service.
        let messages = vec![
            bash(1, "nohup bun run src/cli.ts mcp start --port 1 > /tmp/mcp.log 2>&1 &"),
            bash(2, "nohup bun run src/cli.ts mcp start --sse --cache off > /tmp/mcp.log 2>&1 &"),
        ];
        assert_eq!(run(&messages).len(), 1);
    }
}

#[cfg(test)]
mod config_tests {
    use super::{changed_settings, service_restart};
    use crate::shell;

    #[test]
    fn a_service_is_the_same_however_it_is_restarted() {
        let unit = |cmd: &str| shell::parse(cmd).commands.iter().find_map(|c| service_restart(c).map(str::to_string));
        for cmd in [
            "service blocky restart",
            "systemctl restart blocky.service",
            "/etc/init.d/blocky start",
            "ssh r 'rc-service blocky restart'",
        ] {
            assert_eq!(unit(cmd).as_deref(), Some("blocky"), "{cmd}");
        }
        for cmd in ["service blocky status", "systemctl status blocky", "/etc/init.d/blocky stop"] {
            assert_eq!(unit(cmd), None, "{cmd}");
        }
    }

    #[test]
    fn settings_changed_in_a_rewritten_config() {
        let old = "upstreams:\n  groups:\n    default:\n      - 10.0.0.1:5053\nbootstrapDns:\n  - 10.0.0.1\nlog:\n  level: info\n  format: text\nqueryLog:\n  type: csv-client\n  target: /tmp/q.csv\n  logRetentionDays: 1\n";
        let new = "upstreams:\n  groups:\n    default:\n      - 10.0.0.1:5053\nbootstrapDns:\n  - tcp+udp:10.0.0.1\n  - tcp+udp:10.0.0.2\nlog:\n  level: info\nqueryLog:\n  type: csv-client\n  target: /tmp/blocky-logs\n  logRetentionDays: 1\n";
        assert_eq!(changed_settings(old, new), ["bootstrapDns", "log.format", "queryLog.target"]);
        // A section's block rewritten in one place is one setting.
        let old = "queryLog:\n  type: console\n  flushInterval: 30s\n";
        let new = "queryLog:\n  type: csv\n  target: /var/log/q\n  logRetentionDays: 7\n";
        assert_eq!(changed_settings(old, new), ["queryLog.type"]);
        // Two entries of one list are one setting; comments and blank lines are none.
        let old = "clientLookup:\n  clients:\n    a:\n      - 10.0.0.5\n";
        let new = "# who is who\nclientLookup:\n\n  clients:\n    a:\n      - 10.0.0.6\n    b:\n      - 10.0.0.7\n";
        assert_eq!(changed_settings(old, new), ["clientLookup.clients"]);
        assert!(changed_settings("a: 1\n", "# a comment\na: 1\n").is_empty());
        // A level changed and a section added right after it: two settings.
        let old = "log:\n  level: info\n";
        let new = "log:\n  level: debug\nqueryLog:\n  type: console\n  fields:\n    - clientIP\n";
        assert_eq!(changed_settings(old, new), ["log.level", "queryLog"]);
    }
}
