//! Command wrappers: programs whose arguments are another command.
//!
//! Two shapes. Argument-vector wrappers (`nohup`, `sudo -u u`, `timeout 60`,
//! `docker exec ctr`, `xargs -I{}`…) are peeled off in place: their options
//! are skipped and the wrapped command continues at a later index of the
//! same argv. String wrappers (`ssh host 'cmd'`, `bash -c 'cmd'`, `eval`,
//! `watch`, a heredoc fed to `bash`/`ssh`) hand their argument to a shell,
//! so it is lexed and parsed again in a context that records the host,
//! container and wrapper chain.

use super::builder::{Ctx, Fl, MAX_DEPTH, Out};
use super::{LoopKind, Redirect, SimpleCommand};

/// A simple command as parsed, before wrappers are peeled off.
#[derive(Debug, Default)]
pub(super) struct Simple {
    pub argv: Vec<String>,
    /// `VAR=x` prefixes.
    pub env: Vec<(String, String)>,
    pub redirects: Vec<Redirect>,
    /// Heredoc bodies and here-strings on stdin: the script of `bash <<EOF`
    /// or `ssh host <<EOF`.
    pub stdin_docs: Vec<String>,
}

enum Step {
    /// Not a wrapper, or a wrapper with nothing to run: emit from here.
    Stop,
    /// Argument-vector wrapper: the wrapped command starts at this index.
    Inner(usize),
    /// String wrapper: parse these scripts in the wrapped context. The flag
    /// tells they came from stdin (a heredoc), not from an argument.
    Scripts(Vec<String>, bool),
}

/// What crossing a wrapper changes.
#[derive(Default)]
struct Fx {
    label: String,
    host: Option<String>,
    container: Option<String>,
    env: Vec<(String, String)>,
    /// The wrapped command does not inherit the local environment (ssh,
    /// container exec).
    fresh_env: bool,
    /// `watch` interval: the wrapped command is a loop.
    watch: Option<f64>,
}

fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

pub(super) fn is_assignment(a: &str) -> bool {
    a.split_once('=').is_some_and(|(k, _)| {
        let mut b = k.bytes();
        matches!(b.next(), Some(b'a'..=b'z' | b'A'..=b'Z' | b'_')) && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
    })
}

/// Skip the options of a wrapper starting at `argv[i]`, calling `f(flag,
/// value)` for each (`flag` without dashes; one call per char of a short
/// bundle). Stops at the first non-option; `--` is consumed. Returns the
/// index of the first non-option.
fn opts(
    argv: &[String],
    mut i: usize,
    short_val: &[u8],
    long_val: &[&str],
    mut f: impl FnMut(&str, Option<&str>),
) -> usize {
    while let Some(a) = argv.get(i) {
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') || a == "-" {
            return i;
        }
        i += 1;
        if let Some(l) = a.strip_prefix("--") {
            match l.split_once('=') {
                Some((name, v)) => f(name, Some(v)),
                None if long_val.contains(&l) => {
                    f(l, argv.get(i).map(String::as_str));
                    i += 1;
                }
                None => f(l, None),
            }
            continue;
        }
        let body = &a[1..];
        for (p, ch) in body.char_indices() {
            let flag = &body[p..p + ch.len_utf8()];
            if ch.is_ascii() && short_val.contains(&(ch as u8)) {
                let rest = &body[p + ch.len_utf8()..];
                if rest.is_empty() {
                    f(flag, argv.get(i).map(String::as_str));
                    i += 1;
                } else {
                    f(flag, Some(rest));
                }
                break;
            }
            f(flag, None);
        }
    }
    i.min(argv.len())
}

fn no_opt(_: &str, _: Option<&str>) {}

fn join(argv: &[String]) -> String {
    argv.join(" ")
}

/// Decide whether `argv[k]` is a wrapper.
fn step(argv: &[String], k: usize, stdin_docs: &[String]) -> (Step, Fx) {
    let name = argv.get(k).map_or("", |p| basename(p));
    // `label` is filled in below only for actual wrappers: this runs for
    // every simple command, so the common case must not allocate.
    let mut fx = Fx::default();
    let arg = |j: usize| argv.get(j).map(String::as_str);
    let next = k + 1;
    let st = match name {
        "nohup" | "setsid" | "builtin" => Step::Inner(opts(argv, next, b"", &[], no_opt)),
        "exec" => Step::Inner(opts(argv, next, b"a", &[], no_opt)),
        "command" => {
            if matches!(arg(next), Some("-v" | "-V")) {
                Step::Stop
            } else {
                Step::Inner(opts(argv, next, b"", &[], no_opt))
            }
        }
        "time" => Step::Inner(opts(argv, next, b"fo", &["format", "output"], no_opt)),
        "nice" => Step::Inner(opts(argv, next, b"n", &["adjustment"], no_opt)),
        "ionice" => Step::Inner(opts(argv, next, b"cnpPu", &["class", "classdata", "pid", "pgid", "uid"], no_opt)),
        "stdbuf" => Step::Inner(opts(argv, next, b"ioe", &["input", "output", "error"], no_opt)),
        "numactl" => Step::Inner(opts(
            argv,
            next,
            b"CNmip",
            &["physcpubind", "cpunodebind", "membind", "interleave", "preferred"],
            no_opt,
        )),
        "taskset" => {
            let mut pid = false;
            let i = opts(argv, next, b"", &[], |f, _| pid |= f == "p" || f == "pid");
            // The cpu mask/list comes before the command.
            if pid { Step::Stop } else { Step::Inner(i + 1) }
        }
        "timeout" => {
            let i = opts(argv, next, b"sk", &["signal", "kill-after"], no_opt);
            Step::Inner(i + 1) // skip DURATION
        }
        "env" => {
            let mut i = opts(argv, next, b"uCS", &["unset", "chdir", "split-string"], no_opt);
            while let Some(a) = argv.get(i).filter(|a| is_assignment(a)) {
                if let Some((k, v)) = a.split_once('=') {
                    fx.env.push((k.to_string(), v.to_string()));
                }
                i += 1;
            }
            Step::Inner(i)
        }
        "sudo" | "doas" => {
            let mut i = opts(
                argv,
                next,
                b"ugphCDrtUT",
                &[
                    "user",
                    "group",
                    "host",
                    "prompt",
                    "close-from",
                    "chdir",
                    "role",
                    "type",
                    "other-user",
                    "command-timeout",
                ],
                no_opt,
            );
            while let Some(a) = argv.get(i).filter(|a| is_assignment(a)) {
                if let Some((k, v)) = a.split_once('=') {
                    fx.env.push((k.to_string(), v.to_string()));
                }
                i += 1;
            }
            Step::Inner(i)
        }
        "xargs" => Step::Inner(opts(
            argv,
            next,
            b"EILnPsda",
            &["max-args", "max-procs", "max-lines", "arg-file", "delimiter", "max-chars", "process-slot-var", "eof"],
            no_opt,
        )),
        "uv" | "poetry" | "pipenv" | "pdm" | "rye" if arg(next) == Some("run") => {
            fx.label = format!("{name} run");
            Step::Inner(opts(
                argv,
                next + 1,
                b"pw",
                &[
                    "with",
                    "python",
                    "project",
                    "directory",
                    "package",
                    "extra",
                    "group",
                    "env-file",
                    "index-url",
                    "extra-index-url",
                    "index",
                    "with-requirements",
                ],
                no_opt,
            ))
        }
        "conda" | "mamba" | "micromamba" if arg(next) == Some("run") => {
            fx.label = format!("{name} run");
            Step::Inner(opts(argv, next + 1, b"np", &["name", "prefix", "cwd"], no_opt))
        }
        "watch" => {
            let mut interval = 2.0;
            let i = opts(argv, next, b"nq", &["interval", "equexit"], |f, v| {
                if f == "n" || f == "interval" {
                    interval = v.and_then(|v| v.parse().ok()).unwrap_or(interval);
                }
            });
            fx.watch = Some(interval);
            if i < argv.len() { Step::Scripts(vec![join(&argv[i..])], false) } else { Step::Stop }
        }
        "eval" => {
            if next < argv.len() {
                Step::Scripts(vec![join(&argv[next..])], false)
            } else {
                Step::Stop
            }
        }
        "ssh" => ssh(argv, next, stdin_docs, &mut fx),
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish" => {
            shell(argv, name, next, stdin_docs, &mut fx)
        }
        "su" => {
            let mut cmd = None;
            let mut i = next;
            while let Some(a) = argv.get(i) {
                if a == "-c" || a == "--command" {
                    cmd = argv.get(i + 1).cloned();
                    break;
                }
                if let Some(c) = a.strip_prefix("--command=") {
                    cmd = Some(c.to_string());
                    break;
                }
                i += 1;
            }
            fx.label = "su -c".to_string();
            cmd.map_or(Step::Stop, |c| Step::Scripts(vec![c], false))
        }
        "docker" | "podman" => match arg(next) {
            Some("exec") => container_exec(argv, name, next + 1, &mut fx, "exec"),
            Some("compose") if arg(next + 1) == Some("exec") => {
                container_exec(argv, name, next + 2, &mut fx, "compose exec")
            }
            _ => Step::Stop,
        },
        "docker-compose" | "podman-compose" if arg(next) == Some("exec") => {
            container_exec(argv, name, next + 1, &mut fx, "exec")
        }
        "kubectl" | "oc" => kubectl(argv, name, next, &mut fx),
        "cmd" | "cmd.exe" | "CMD" | "CMD.EXE" => windows_cmd(argv, next, &mut fx),
        "powershell" | "powershell.exe" | "pwsh" | "pwsh.exe" => powershell(argv, name, next, &mut fx),
        _ => Step::Stop,
    };
    if fx.label.is_empty() && !matches!(st, Step::Stop) {
        fx.label = name.to_string();
    }
    (st, fx)
}

/// The short options of OpenSSH's `ssh` that take a value (`-p 2222`, `-i key`, `-J
/// jump`, `-P tag` since 9.2), as its manual lists them: the one list the shell tables
/// and redaction (which must find the destination after them) both read.
pub(crate) const SSH_VALUE_FLAGS: &[u8] = b"BbcDEeFIiJLlmOoPpQRSWw";

fn ssh(argv: &[String], i: usize, stdin_docs: &[String], fx: &mut Fx) -> Step {
    let i = opts(argv, i, SSH_VALUE_FLAGS, &[], no_opt);
    let Some(host) = argv.get(i) else {
        return Step::Stop;
    };
    // OpenSSH also accepts options after the destination.
    let i = opts(argv, i + 1, SSH_VALUE_FLAGS, &[], no_opt);
    let step = if i < argv.len() {
        // ssh joins its arguments with spaces and hands them to the remote
        // shell, so `ssh h grep "a b" f` really runs `grep a b f`.
        Step::Scripts(vec![join(&argv[i..])], false)
    } else if !stdin_docs.is_empty() {
        Step::Scripts(stdin_docs.to_vec(), true)
    } else {
        return Step::Stop;
    };
    fx.host = Some(host.clone());
    fx.fresh_env = true;
    step
}

fn shell(argv: &[String], name: &str, mut i: usize, stdin_docs: &[String], fx: &mut Fx) -> Step {
    let mut has_c = false;
    let mut has_s = false;
    while let Some(a) = argv.get(i) {
        if a == "--" || a == "-" {
            i += 1;
            break;
        }
        if let Some(l) = a.strip_prefix("--") {
            i += 1;
            if matches!(l, "rcfile" | "init-file") {
                i += 1;
            }
            if l == "command" {
                has_c = true; // fish --command 'cmd'
            }
            continue;
        }
        if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
            i += 1;
            let body = &a[1..];
            has_c |= body.contains('c');
            has_s |= body.contains('s');
            if body.contains('o') || body.contains('O') {
                i += 1; // `-o pipefail`
            }
            continue;
        }
        break;
    }
    if has_c {
        fx.label = format!("{name} -c");
        return argv.get(i).map_or(Step::Stop, |c| Step::Scripts(vec![c.clone()], false));
    }
    if (i >= argv.len() || has_s) && !stdin_docs.is_empty() {
        return Step::Scripts(stdin_docs.to_vec(), true);
    }
    Step::Stop
}

/// `cmd /c "python --version"` (Windows): the words after `/c` (or `/k`) are a command
/// line; switches such as `/s`, `/q`, `/d` may come first.
fn windows_cmd(argv: &[String], mut i: usize, fx: &mut Fx) -> Step {
    while let Some(a) = argv.get(i).filter(|a| a.starts_with('/') && a.len() == 2) {
        i += 1;
        if a.eq_ignore_ascii_case("/c") || a.eq_ignore_ascii_case("/k") {
            fx.label = "cmd /c".to_string();
            return if i < argv.len() { Step::Scripts(vec![join(&argv[i..])], false) } else { Step::Stop };
        }
    }
    Step::Stop
}

/// `powershell -NoProfile -Command "git status"` (also `pwsh -c`): the words after
/// `-Command` are a command line. `-File script.ps1` runs a script: not a wrapper.
fn powershell(argv: &[String], name: &str, mut i: usize, fx: &mut Fx) -> Step {
    /// Parameters that take a value.
    const VAL: &[&str] = &["executionpolicy", "ep", "windowstyle", "w", "configurationname", "workingdirectory", "wd"];
    while let Some(a) = argv.get(i).filter(|a| a.starts_with('-') && a.len() > 1) {
        i += 1;
        let p = a.trim_start_matches('-').to_ascii_lowercase();
        if matches!(p.as_str(), "command" | "c") {
            fx.label = format!("{} -Command", name.trim_end_matches(".exe"));
            return if i < argv.len() { Step::Scripts(vec![join(&argv[i..])], false) } else { Step::Stop };
        }
        if matches!(p.as_str(), "file" | "f" | "encodedcommand" | "e" | "ec") {
            return Step::Stop;
        }
        if VAL.contains(&p.as_str()) {
            i += 1;
        }
    }
    // `powershell "git status"`: a bare command line.
    if i < argv.len() {
        fx.label = format!("{} -Command", name.trim_end_matches(".exe"));
        return Step::Scripts(vec![join(&argv[i..])], false);
    }
    Step::Stop
}

/// `docker|podman exec [opts] CONTAINER cmd…` (also `compose exec SERVICE`).
fn container_exec(argv: &[String], name: &str, i: usize, fx: &mut Fx, sub: &str) -> Step {
    let mut env = Vec::new();
    let i = opts(argv, i, b"euw", &["env", "env-file", "user", "workdir", "detach-keys", "index"], |f, v| {
        if (f == "e" || f == "env")
            && let Some((k, v)) = v.and_then(|v| v.split_once('='))
        {
            env.push((k.to_string(), v.to_string()));
        }
    });
    let Some(ctr) = argv.get(i) else {
        return Step::Stop;
    };
    fx.label = format!("{name} {sub}");
    fx.container = Some(ctr.clone());
    fx.env = env;
    fx.fresh_env = true;
    Step::Inner(i + 1)
}

/// `kubectl [global opts] exec [opts] POD [-c ctr] [--] cmd…`
fn kubectl(argv: &[String], name: &str, i: usize, fx: &mut Fx) -> Step {
    let i = opts(argv, i, b"ns", &["namespace", "context", "kubeconfig", "server", "cluster", "user"], no_opt);
    if argv.get(i).map(String::as_str) != Some("exec") {
        return Step::Stop;
    }
    let rest = argv.get(i + 1..).unwrap_or_default();
    let dashdash = rest.iter().position(|a| a == "--");
    let opts_end = dashdash.unwrap_or(rest.len());
    let mut pod = None;
    let mut j = 0;
    while j < opts_end {
        let a = &rest[j];
        j += 1;
        if a.starts_with('-') && a.len() > 1 {
            let takes_value = matches!(
                a.as_str(),
                "-c" | "-n"
                    | "-f"
                    | "--container"
                    | "--namespace"
                    | "--filename"
                    | "--context"
                    | "--pod-running-timeout"
            );
            if takes_value {
                j += 1;
            }
        } else if pod.is_none() {
            pod = Some(a.clone());
            if dashdash.is_none() {
                break; // old form: `kubectl exec pod cmd…`
            }
        }
    }
    let Some(pod) = pod else {
        return Step::Stop;
    };
    let cmd_start = i + 1 + dashdash.map_or(j, |d| d + 1);
    fx.label = format!("{name} exec");
    fx.container = Some(pod);
    fx.fresh_env = true;
    Step::Inner(cmd_start)
}

/// How a string wrapper's script is read: the parser's entry point, handed in by the
/// caller so that the wrapper table does not reach back up into the parser.
pub(super) type Reparse = fn(&str, &mut Out, &Ctx, Fl);

/// Peel wrappers off a simple command and emit the command(s) it runs; the scripts of
/// string wrappers (`bash -c`, `ssh host 'cmd'`) are read with `reparse`.
pub(super) fn run(out: &mut Out, s: Simple, ctx: &Ctx, fl: Fl, reparse: Reparse) {
    let Simple { mut argv, mut env, redirects, mut stdin_docs } = s;
    if stdin_docs.is_empty() {
        // Inside `ssh h 'bash -s' <<EOF`, the heredoc is the stdin of the
        // re-parsed command string.
        stdin_docs.clone_from(&ctx.stdin);
    }
    if argv.is_empty() {
        // `VAR=x` alone sets a shell variable for what follows.
        for (k, v) in env {
            out.export(k, v);
        }
        return;
    }
    let mut k = 0;
    let mut via: Vec<String> = Vec::new();
    let mut host: Option<String> = None;
    let mut container: Option<String> = None;
    let mut inherit_env = true;
    loop {
        let (st, fx) = step(&argv, k, &stdin_docs);
        match st {
            Step::Stop => break,
            Step::Inner(next) => {
                if next >= argv.len() {
                    break; // nothing to run: the wrapper is the command
                }
                if fx.fresh_env {
                    inherit_env = false;
                    env.clear();
                }
                env.extend(fx.env);
                via.push(fx.label);
                host = fx.host.or(host);
                container = fx.container.or(container);
                k = next;
            }
            Step::Scripts(scripts, from_stdin) => {
                if fl.depth + 1 >= MAX_DEPTH {
                    break;
                }
                let mut inner = Ctx {
                    host: fx.host.or(host).or_else(|| ctx.host.clone()),
                    container: fx.container.or(container).or_else(|| ctx.container.clone()),
                    via: ctx.via.clone(),
                    env: Vec::new(),
                    redirects: redirects.clone(),
                    stdin: if from_stdin { Vec::new() } else { stdin_docs },
                };
                inner.via.extend(via);
                inner.via.push(fx.label);
                if !fx.fresh_env {
                    if inherit_env {
                        inner.env.extend(ctx.env.iter().cloned());
                    }
                    inner.env.extend(env);
                }
                inner.env.extend(fx.env);
                inner.redirects.extend(ctx.redirects.iter().cloned());
                let inner_fl = Fl { in_loop: fl.in_loop || fx.watch.is_some(), ..fl.deeper() };
                let watch_loop = fx.watch.map(|secs| (out.start_loop(LoopKind::Watch), secs));
                let start = out.len();
                for src in &scripts {
                    reparse(src, out, &inner, inner_fl);
                }
                if let Some((li, secs)) = watch_loop {
                    let end = out.len();
                    out.end_loop(li, start..start, start..end, None);
                    if let Some(l) = out.script.loops.get_mut(li) {
                        l.sleeps = true;
                        l.sleep_secs = Some(secs);
                    }
                }
                return;
            }
        }
    }
    argv.drain(..k);
    emit(out, argv, env, redirects, host, container, via, inherit_env, ctx, fl, reparse);
}

#[allow(clippy::too_many_arguments)]
fn emit(
    out: &mut Out,
    mut argv: Vec<String>,
    env: Vec<(String, String)>,
    mut redirects: Vec<Redirect>,
    host: Option<String>,
    container: Option<String>,
    via: Vec<String>,
    inherit_env: bool,
    ctx: &Ctx,
    fl: Fl,
    reparse: Reparse,
) {
    if argv.is_empty() {
        return;
    }
    let program = argv.remove(0);
    let mut full_env = if inherit_env { ctx.env.clone() } else { Vec::new() };
    full_env.extend(env);
    redirects.extend(ctx.redirects.iter().cloned());
    let mut full_via = ctx.via.clone();
    full_via.extend(via);
    let cmd = SimpleCommand {
        program,
        args: argv,
        env: full_env,
        redirects,
        remote_host: host.or_else(|| ctx.host.clone()),
        container: container.or_else(|| ctx.container.clone()),
        via: full_via,
        in_loop: fl.in_loop,
        in_condition: fl.in_condition,
        ..SimpleCommand::default()
    };
    let name = cmd.name();
    let exports = name == "export"
        || (matches!(name, "declare" | "typeset") && cmd.args.iter().any(|a| a.starts_with('-') && a.contains('x')));
    let find_exec = name == "find" && fl.depth + 1 < MAX_DEPTH;
    let exported: Vec<(String, String)> = if exports {
        cmd.args
            .iter()
            .filter(|a| is_assignment(a))
            .filter_map(|a| a.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    } else {
        Vec::new()
    };
    let exec_argvs = if find_exec { find_exec_commands(&cmd.args) } else { Vec::new() };
    out.push(cmd);
    for (k, v) in exported {
        out.export(k, v);
    }
    // `find … -exec cmd {} \;` runs cmd once per match.
    for argv in exec_argvs {
        let mut inner = ctx.clone();
        inner.via.push("find -exec".to_string());
        run(out, Simple { argv, ..Simple::default() }, &inner, fl.deeper(), reparse);
    }
}

fn find_exec_commands(args: &[String]) -> Vec<Vec<String>> {
    let mut res = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let cmd: Vec<String> =
                it.by_ref().take_while(|x| x.as_str() != ";" && x.as_str() != "+").cloned().collect();
            if !cmd.is_empty() {
                res.push(cmd);
            }
        }
    }
    res
}
