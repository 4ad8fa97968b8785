use super::*;

/// Program names of all commands, in order.
fn names(s: &Script) -> Vec<&str> {
    s.commands.iter().map(|c| c.name()).collect()
}

fn only(s: &Script, name: &str) -> SimpleCommand {
    let found: Vec<&SimpleCommand> = s.commands.iter().filter(|c| c.name() == name).collect();
    assert_eq!(found.len(), 1, "expected one {name} in {:?}", names(s));
    found[0].clone()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn env(c: &SimpleCommand) -> Vec<(&str, &str)> {
    c.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

// ---------------------------------------------------------------- real agent commands

#[test]
fn ssh_quoted_command_with_local_redirect() {
    let s = parse("ssh root@10.0.0.5 'tail -50 /data/logs/exp_1b.log' 2>&1");
    assert_eq!(names(&s), ["tail"]);
    let c = &s.commands[0];
    assert_eq!(strs(&c.args), ["-50", "/data/logs/exp_1b.log"]);
    assert_eq!(c.remote_host.as_deref(), Some("root@10.0.0.5"));
    assert_eq!(c.via, ["ssh"]);
    assert_eq!(c.flag_value(Some('n'), Some("lines")), Some("50"));
    assert_eq!(c.file_args(), ["/data/logs/exp_1b.log"]);
    assert_eq!(c.redirects, [Redirect { fd: Some(2), op: ">&", target: "1".into() }]);
}

#[test]
fn grep_alternation_piped_to_head() {
    let s = parse(r#"grep -i "exception\|error\|failed" /data/logs/x.log | head -20"#);
    assert_eq!(names(&s), ["grep", "head"]);
    let g = &s.commands[0];
    assert_eq!(strs(&g.args), ["-i", r"exception\|error\|failed", "/data/logs/x.log"]);
    assert!(g.has_flag(Some('i'), Some("ignore-case")));
    assert_eq!(g.positionals(), [r"exception\|error\|failed", "/data/logs/x.log"]);
    assert_eq!(g.file_args(), ["/data/logs/x.log"]);
    assert!(g.piped_to && !g.piped_from);
    let h = &s.commands[1];
    assert!(h.piped_from && !h.piped_to);
    assert_eq!(h.flag_value(Some('n'), None), Some("20"));
}

#[test]
fn ssh_double_quoted_pipeline() {
    let s = parse(r#"ssh host "grep -A5 'Traceback\|Exception' /data/x.log | tail -30""#);
    assert_eq!(names(&s), ["grep", "tail"]);
    let g = &s.commands[0];
    assert_eq!(strs(&g.args), ["-A5", r"Traceback\|Exception", "/data/x.log"]);
    assert_eq!(g.flag_value(Some('A'), None), Some("5"));
    assert_eq!(g.file_args(), ["/data/x.log"]);
    assert!(g.piped_to);
    assert!(s.commands[1].piped_from);
    for c in &s.commands {
        assert_eq!(c.remote_host.as_deref(), Some("host"));
        assert_eq!(c.via, ["ssh"]);
    }
}

#[test]
fn nohup_server_launch_with_env_and_background() {
    let s = parse(
        "cd /repo && NCCL_ALGO=Tree NCCL_MAX_NCHANNELS=2 nohup python -m sglang.launch_server \
         --model-path /m --tp 8 --port 30000 > /data/logs/srv.log 2>&1 &",
    );
    assert_eq!(names(&s), ["cd", "python"]);
    let p = &s.commands[1];
    assert_eq!(env(p), [("NCCL_ALGO", "Tree"), ("NCCL_MAX_NCHANNELS", "2")]);
    assert_eq!(p.via, ["nohup"]);
    assert!(p.background);
    assert_eq!(p.flag_value(Some('m'), None), Some("sglang.launch_server"));
    assert_eq!(p.flag_value(None, Some("tp")), Some("8"));
    assert_eq!(p.flag_value(None, Some("--port")), Some("30000"));
    assert!(p.has_flag(None, Some("model-path")));
    assert_eq!(p.redirects.len(), 2);
    assert_eq!(p.redirects[0].op, ">");
    assert_eq!(p.redirects[0].target, "/data/logs/srv.log");
    assert_eq!(p.redirects[1].fd, Some(2));
    assert_eq!(s.commands[0].file_args(), ["/repo"]);
}

#[test]
fn export_then_command() {
    let s = parse("export CUDA_VISIBLE_DEVICES=0,1; python train.py --lr 1e-4");
    assert_eq!(names(&s), ["export", "python"]);
    assert_eq!(s.exports, [("CUDA_VISIBLE_DEVICES".into(), "0,1".into())]);
    assert_eq!(s.env_at(1), [("CUDA_VISIBLE_DEVICES", "0,1")]);
    assert!(s.env_at(0).is_empty());
    let p = &s.commands[1];
    assert_eq!(p.file_args(), ["train.py"]);
    assert_eq!(p.flag_value(None, Some("lr")), Some("1e-4"));
}

#[test]
fn standalone_assignment_is_an_export() {
    let s = parse("FOO=bar\nBAZ=\"a b\" QUX=$(date)\necho $FOO");
    assert_eq!(names(&s), ["date", "echo"]);
    assert_eq!(
        s.exports,
        [("FOO".into(), "bar".into()), ("BAZ".into(), "a b".into()), ("QUX".into(), "$(date)".into())]
    );
    assert_eq!(s.env_at(1).len(), 3);
}

#[test]
fn for_seq_polling_loop() {
    let s = parse(
        "for i in $(seq 1 23); do if curl -s localhost:30000/health >/dev/null; then echo READY; \
         break; fi; if grep -q \"Exception\" /data/x.log; then echo CRASHED; break; fi; sleep 30; done",
    );
    assert_eq!(names(&s), ["seq", "curl", "echo", "break", "grep", "echo", "break", "sleep"]);
    assert!(!s.commands[0].in_loop, "the word list runs once, outside");
    assert_eq!(s.loops.len(), 1);
    let l = &s.loops[0];
    assert_eq!(l.kind, LoopKind::For);
    assert_eq!(l.iterations, Some(23));
    assert!(l.sleeps);
    assert_eq!(l.sleep_secs, Some(30.0));
    assert_eq!(l.max_sleep_secs(), Some(690.0));
    assert!(l.breaks);
    assert_eq!(l.body, 1..8);
    for i in l.body.clone() {
        assert!(s.commands[i].in_loop);
    }
    let curl = &s.commands[1];
    assert!(curl.in_condition);
    assert!(curl.file_args().is_empty(), "host:port/path is not a file");
    assert!(!s.commands[2].in_condition);
    let grep = &s.commands[4];
    assert!(grep.in_condition && grep.has_flag(Some('q'), Some("quiet")));
    assert_eq!(grep.file_args(), ["/data/x.log"]);
}

#[test]
fn while_not_curl_loop() {
    let s = parse("while ! curl -sf http://localhost:8000/v1/models; do sleep 5; done");
    assert_eq!(names(&s), ["curl", "sleep"]);
    let c = &s.commands[0];
    assert!(c.negated && c.in_condition && c.in_loop);
    assert!(c.has_flag(Some('f'), None) && c.has_flag(Some('s'), None));
    assert!(c.file_args().is_empty(), "URL is not a file");
    let l = &s.loops[0];
    assert_eq!(l.kind, LoopKind::While);
    assert_eq!((l.condition.clone(), l.body.clone()), (0..1, 1..2));
    assert_eq!(l.iterations, None);
    assert_eq!(l.sleep_secs, Some(5.0));
    assert!(!l.breaks);
    assert!(!s.commands[1].negated && !s.commands[1].in_condition);
}

#[test]
fn timeout_bash_c_until_loop() {
    let s = parse("timeout 600 bash -c 'until grep -q \"ready\" log.txt; do sleep 10; done'");
    assert_eq!(names(&s), ["grep", "sleep"]);
    let g = &s.commands[0];
    assert_eq!(g.via, ["timeout", "bash -c"]);
    assert!(g.in_condition && g.in_loop);
    assert_eq!(g.file_args(), ["log.txt"]);
    assert_eq!(strs(&g.args), ["-q", "ready", "log.txt"]);
    let l = &s.loops[0];
    assert_eq!(l.kind, LoopKind::Until);
    assert_eq!(l.sleep_secs, Some(10.0));
}

#[test]
fn codex_bash_lc() {
    let s = parse(r#"bash -lc "cd /repo && cargo test""#);
    assert_eq!(names(&s), ["cd", "cargo"]);
    assert_eq!(s.commands[1].via, ["bash -c"]);
    assert_eq!(strs(&s.commands[1].args), ["test"]);
    let a = parse_argv(&["bash", "-lc", "cd /repo && cargo test -p foo"]);
    assert_eq!(names(&a), ["cd", "cargo"]);
    assert_eq!(a.commands[1].flag_value(Some('p'), None), Some("foo"));
    assert_eq!(a.commands[0].via, ["bash -c"]);
    let plain = parse_argv(&["rg", "-n", "foo", "src/"]);
    assert_eq!(plain.commands[0].file_args(), ["src/"]);
}

#[test]
fn docker_exec_sh_c() {
    let s = parse("docker exec -it mycontainer sh -c 'tail -n 100 /var/log/app.log'");
    let t = only(&s, "tail");
    assert_eq!(t.container.as_deref(), Some("mycontainer"));
    assert_eq!(t.via, ["docker exec", "sh -c"]);
    assert_eq!(t.flag_value(Some('n'), None), Some("100"));
    assert_eq!(t.file_args(), ["/var/log/app.log"]);

    let s = parse("docker exec -e FOO=1 -u root -w /app ctr python x.py");
    let p = only(&s, "python");
    assert_eq!(p.container.as_deref(), Some("ctr"));
    assert_eq!(env(&p), [("FOO", "1")]);
    assert_eq!(p.file_args(), ["x.py"]);

    let s = parse("docker compose exec -T web cat /etc/hosts");
    let c = only(&s, "cat");
    assert_eq!(c.container.as_deref(), Some("web"));
    assert_eq!(c.via, ["docker compose exec"]);

    // Not exec: docker itself is the command.
    let s = parse("docker ps -a");
    assert_eq!(names(&s), ["docker"]);
}

#[test]
fn kubectl_exec() {
    let s = parse("kubectl exec pod -- cat /x");
    let c = only(&s, "cat");
    assert_eq!(c.container.as_deref(), Some("pod"));
    assert_eq!(c.via, ["kubectl exec"]);
    assert_eq!(strs(&c.args), ["/x"]);

    let s = parse("kubectl -n prod exec -it web-0 -c app -- bash -c 'ls /data | wc -l'");
    assert_eq!(names(&s), ["ls", "wc"]);
    assert_eq!(s.commands[0].container.as_deref(), Some("web-0"));
    assert_eq!(s.commands[1].via, ["kubectl exec", "bash -c"]);

    let s = parse("kubectl get pods -n x");
    assert_eq!(names(&s), ["kubectl"]);
}

#[test]
fn heredoc_patch_then_run() {
    let s = parse("cat <<'EOF' > /tmp/patch.py\nimport os\nprint(os.getcwd())\nEOF\npython /tmp/patch.py");
    assert_eq!(names(&s), ["cat", "python"]);
    assert_eq!(s.heredocs, ["import os\nprint(os.getcwd())\n"]);
    let c = &s.commands[0];
    assert_eq!(c.redirects[0].op, "<<");
    assert_eq!(c.redirects[0].target, "EOF");
    assert_eq!(c.redirects[1].target, "/tmp/patch.py");
    assert_eq!(s.commands[1].file_args(), ["/tmp/patch.py"]);
}

#[test]
fn heredoc_python_stdin_and_variants() {
    let s = parse("python - <<EOF\nimport sys\nprint('$HOME | ; && x')\nEOF\necho done");
    assert_eq!(names(&s), ["python", "echo"]);
    assert_eq!(s.heredocs, ["import sys\nprint('$HOME | ; && x')\n"]);
    assert_eq!(s.commands[0].positionals(), ["-"]);

    // <<- strips leading tabs, quoted delimiters, CRLF endings.
    let s = parse("cat <<-\"END\"\n\tline1\n\t\tline2\n\tEND\nls");
    assert_eq!(s.heredocs, ["line1\nline2\n"]);
    assert_eq!(names(&s), ["cat", "ls"]);
    let s = parse("cat <<EOF\r\nhello\r\nEOF\r\nls\r\n");
    assert_eq!(names(&s), ["cat", "ls"]);

    // Two heredocs on one line, bodies in order.
    let s = parse("cat <<A; cat <<B\na1\nA\nb1\nB\nwc -l f");
    assert_eq!(s.heredocs, ["a1\n", "b1\n"]);
    assert_eq!(names(&s), ["cat", "cat", "wc"]);

    // Unterminated heredoc: body runs to end of input.
    let s = parse("cat <<EOF\nnever closed\n");
    assert_eq!(s.heredocs, ["never closed\n"]);

    // Here-string.
    let s = parse("grep foo <<< \"$x\"");
    assert_eq!(s.commands[0].redirects[0].op, "<<<");
    assert_eq!(s.commands[0].redirects[0].target, "$x");
}

#[test]
fn heredoc_script_for_shell_and_ssh() {
    let s = parse("ssh gpu1 bash -s <<'EOF'\nnvidia-smi\ntail -5 /data/log.txt\nEOF");
    assert_eq!(names(&s), ["nvidia-smi", "tail"]);
    assert_eq!(s.commands[1].remote_host.as_deref(), Some("gpu1"));
    assert_eq!(s.commands[1].via, ["ssh", "bash"]);

    let s = parse("ssh gpu1 <<EOF\nls /data\nEOF");
    assert_eq!(names(&s), ["ls"]);
    assert_eq!(s.commands[0].remote_host.as_deref(), Some("gpu1"));

    let s = parse("bash <<EOF\nmake test\nEOF");
    assert_eq!(names(&s), ["make"]);
    assert_eq!(s.commands[0].via, ["bash"]);
}

#[test]
fn big_heredoc_is_linear() {
    let mut script = String::from("cat > /tmp/big.py <<'PY'\n");
    for i in 0..1000 {
        script.push_str(&format!("x_{i} = 'some ( \" ` $( text'  # {i}\n"));
    }
    script.push_str("PY\npython /tmp/big.py && echo ok");
    assert!(script.len() > 20_000);
    let t = std::time::Instant::now();
    let s = parse(&script);
    let took = t.elapsed();
    assert_eq!(names(&s), ["cat", "python", "echo"]);
    assert_eq!(s.heredocs.len(), 1);
    assert_eq!(s.heredocs[0].lines().count(), 1000);
    // Generous bound, only to catch quadratic behaviour (that would be ~100 ms+).
    assert!(took.as_millis() < 200, "took {took:?}");
}

// ---------------------------------------------------------------- reading commands and flags

#[test]
fn file_reading_commands() {
    let c = &parse("sed -n '100,200p' file.log").commands[0];
    assert!(c.has_flag(Some('n'), Some("quiet")));
    assert_eq!(c.positionals(), ["100,200p", "file.log"]);
    assert_eq!(c.file_args(), ["file.log"]);

    let c = &parse("sed -e 's/a/b/' -i cfg.yaml").commands[0];
    assert_eq!(c.flag_value(Some('e'), None), Some("s/a/b/"));
    assert_eq!(c.file_args(), ["cfg.yaml"]);

    let c = &parse("awk 'NR>100' f").commands[0];
    assert_eq!(c.file_args(), ["f"]);
    let c = &parse("awk -F, -f prog.awk data.csv").commands[0];
    assert_eq!(c.flag_value(Some('F'), None), Some(","));
    assert_eq!(c.file_args(), ["data.csv"]);

    let c = &parse("less +G f").commands[0];
    assert!(c.has_flag(Some('G'), None));
    assert_eq!(c.file_args(), ["f"]);

    let c = &parse("head -c 500 f").commands[0];
    assert_eq!(c.flag_value(Some('c'), Some("bytes")), Some("500"));
    assert_eq!(c.positionals(), ["f"]);
    let c = &parse("head --lines=40 a.txt b.txt").commands[0];
    assert_eq!(c.flag_value(Some('n'), Some("lines")), Some("40"));
    assert_eq!(c.file_args(), ["a.txt", "b.txt"]);
    let c = &parse("tail -fn200 /var/log/syslog").commands[0];
    assert!(c.has_flag(Some('f'), Some("follow")));
    assert_eq!(c.flag_value(Some('n'), None), Some("200"));
    assert_eq!(c.file_args(), ["/var/log/syslog"]);
}

#[test]
fn journalctl_pipe_grep() {
    let s = parse("journalctl -u foo --since '1 hour ago' | grep err");
    assert_eq!(names(&s), ["journalctl", "grep"]);
    let j = &s.commands[0];
    assert_eq!(j.flag_value(Some('u'), Some("unit")), Some("foo"));
    assert_eq!(j.flag_value(None, Some("since")), Some("1 hour ago"));
    assert!(j.positionals().is_empty());
    let g = &s.commands[1];
    assert!(g.piped_from);
    assert!(g.file_args().is_empty(), "the only operand is the pattern");
}

#[test]
fn rg_and_grep_patterns() {
    let c = &parse("rg -n foo src/").commands[0];
    assert!(c.has_flag(Some('n'), Some("line-number")));
    assert_eq!(c.positionals(), ["foo", "src/"]);
    assert_eq!(c.file_args(), ["src/"]);

    let c = &parse("grep -rn -e foo -e bar --include='*.py' . lib").commands[0];
    assert!(c.has_flag(Some('r'), None) && c.has_flag(Some('n'), None));
    assert_eq!(c.flag_value(None, Some("include")), Some("*.py"));
    assert_eq!(c.file_args(), [".", "lib"], "-e gives the pattern");

    let c = &parse("grep -e -n f.txt").commands[0];
    assert!(!c.has_flag(Some('n'), None), "-n is the value of -e");
    assert_eq!(c.flag_value(Some('e'), None), Some("-n"));

    let c = &parse("rg --files src").commands[0];
    assert_eq!(c.file_args(), ["src"]);

    let c = &parse("grep -C 3 pattern -- -weird-file.txt").commands[0];
    assert_eq!(c.flag_value(Some('C'), Some("context")), Some("3"));
    assert_eq!(c.positionals(), ["pattern", "-weird-file.txt"]);
    assert_eq!(c.file_args(), ["-weird-file.txt"]);
}

#[test]
fn git_paths() {
    let c = &parse("git diff HEAD~1 -- src/a.rs").commands[0];
    assert_eq!(c.positionals(), ["diff", "HEAD~1", "src/a.rs"]);
    assert_eq!(c.file_args(), ["src/a.rs"]);
    let c = &parse("git -C /repo log -n 5 --format=%H src/main.rs").commands[0];
    assert_eq!(c.flag_value(Some('C'), None), Some("/repo"));
    assert_eq!(c.flag_value(None, Some("format")), Some("%H"));
    assert_eq!(c.file_args(), ["src/main.rs"]);
    let c = &parse("git commit -m 'fix a.rs' -a").commands[0];
    assert!(c.file_args().is_empty());
    assert_eq!(c.flag_value(Some('m'), Some("message")), Some("fix a.rs"));
}

#[test]
fn sudo_env_time_xargs_wrappers() {
    let c = only(&parse("sudo -u postgres psql -c 'select 1'"), "psql");
    assert_eq!(c.via, ["sudo"]);
    assert_eq!(c.flag_value(Some('c'), Some("command")), Some("select 1"));
    assert!(c.file_args().is_empty());

    let c = only(&parse("env FOO=1 BAR=2 cmd --x"), "cmd");
    assert_eq!(env(&c), [("FOO", "1"), ("BAR", "2")]);
    assert_eq!(c.via, ["env"]);
    assert_eq!(strs(&c.args), ["--x"]);

    let c = only(&parse("A=0 /usr/bin/env -u X B=1 python3 -u run.py"), "python3");
    assert_eq!(env(&c), [("A", "0"), ("B", "1")]);

    let c = only(&parse("time make -j8"), "make");
    assert_eq!(c.via, ["time"]);
    assert_eq!(c.flag_value(Some('j'), Some("jobs")), Some("8"));

    let s = parse("find . -name '*.log' | xargs grep -l foo");
    assert_eq!(names(&s), ["find", "grep"]);
    let g = &s.commands[1];
    assert_eq!(g.via, ["xargs"]);
    assert!(g.piped_from);
    assert_eq!(strs(&g.args), ["-l", "foo"]);
    assert_eq!(s.commands[0].file_args(), ["."]);

    let c = only(&parse("xargs -I{} -P 4 sh -c 'wc -l {}'"), "wc");
    assert_eq!(c.via, ["xargs", "sh -c"]);

    let s = parse("nice -n 10 ionice -c 3 stdbuf -oL taskset -c 0-3 python x.py");
    let c = only(&s, "python");
    assert_eq!(c.via, ["nice", "ionice", "stdbuf", "taskset"]);

    let c = only(&parse("uv run --with rich python -m pytest -x tests/"), "python");
    assert_eq!(c.via, ["uv run"]);
    assert_eq!(c.file_args(), ["tests/"]);

    // A wrapper with nothing to run is itself the command.
    assert_eq!(names(&parse("nohup")), ["nohup"]);
    assert_eq!(names(&parse("ssh -p 2222 root@h")), ["ssh"]);
    assert_eq!(names(&parse("bash run.sh --fast")), ["bash"]);
    assert_eq!(parse("bash run.sh").commands[0].file_args(), ["run.sh"]);
    assert_eq!(names(&parse("sudo -i")), ["sudo"]);
}

#[test]
fn ssh_variants() {
    let s = parse("ssh -i ~/.ssh/id -o StrictHostKeyChecking=no -p 2222 user@gpu1 nvidia-smi");
    let c = only(&s, "nvidia-smi");
    assert_eq!(c.remote_host.as_deref(), Some("user@gpu1"));
    // `-P tag` (OpenSSH 9.2) takes a value too: the host is the word after it.
    let s = parse("ssh -P work gpu1 nvidia-smi");
    assert_eq!(only(&s, "nvidia-smi").remote_host.as_deref(), Some("gpu1"));

    // Unquoted command words are joined, as ssh does.
    let s = parse("ssh h cat /a/b.log | grep x");
    assert_eq!(names(&s), ["cat", "grep"]);
    assert_eq!(s.commands[0].remote_host.as_deref(), Some("h"));
    assert!(s.commands[0].piped_to);
    assert_eq!(s.commands[1].remote_host, None, "grep runs locally");
    assert!(s.commands[1].piped_from);

    // ssh inside ssh: innermost host, full chain.
    let s = parse(r#"ssh jump "ssh inner 'df -h /data'""#);
    let c = only(&s, "df");
    assert_eq!(c.remote_host.as_deref(), Some("inner"));
    assert_eq!(c.via, ["ssh", "ssh"]);

    // Local env prefix is not sent to the remote command.
    let s = parse("FOO=1 ssh h 'echo hi'");
    assert!(s.commands[0].env.is_empty());

    // watch over ssh.
    let s = parse("ssh h 'cd /x && sudo tail -f log.txt'");
    assert_eq!(names(&s), ["cd", "tail"]);
    assert_eq!(s.commands[1].via, ["ssh", "sudo"]);
}

#[test]
fn watch_is_a_loop() {
    let s = parse("watch -n 5 'nvidia-smi | head -20'");
    assert_eq!(names(&s), ["nvidia-smi", "head"]);
    assert!(s.commands.iter().all(|c| c.in_loop && c.via == ["watch"]));
    let l = &s.loops[0];
    assert_eq!(l.kind, LoopKind::Watch);
    assert!(l.sleeps);
    assert_eq!(l.sleep_secs, Some(5.0));
    assert_eq!(l.body, 0..2);
}

#[test]
fn windows_shells_hand_their_command_line_on() {
    let c = only(&parse("cmd /c \"python --version\""), "python");
    assert_eq!((c.args.as_slice(), c.via.as_slice()), (&["--version".to_string()][..], &["cmd /c".to_string()][..]));
    assert_eq!(names(&parse("cmd.exe /s /c \"git status && git pull\"")), ["git", "git"]);
    let c = only(&parse("powershell -NoProfile -ExecutionPolicy Bypass -Command \"git status\""), "git");
    assert_eq!(c.via, ["powershell -Command"]);
    assert_eq!(names(&parse("pwsh -c 'Get-Process node; Stop-Process -Name node'")), ["Get-Process", "Stop-Process"]);
    // A script file, or `cmd` without /c, is the command itself.
    assert_eq!(names(&parse("powershell.exe -ExecutionPolicy Bypass -File do-commit.ps1")), ["powershell.exe"]);
    assert_eq!(names(&parse("cmd")), ["cmd"]);
}

#[test]
fn eval_su_command_exec() {
    assert_eq!(names(&parse("eval \"ls -la /tmp\"")), ["ls"]);
    let c = only(&parse("su - app -c 'pg_dump db > /tmp/x.sql'"), "pg_dump");
    assert_eq!(c.via, ["su -c"]);
    assert_eq!(c.redirects[0].target, "/tmp/x.sql");
    assert_eq!(names(&parse("exec python serve.py")), ["python"]);
    assert_eq!(names(&parse("command -v python")), ["command"]);
    assert_eq!(names(&parse("command ls")), ["ls"]);
}

#[test]
fn find_exec_runs_command() {
    let s = parse(r"find /data -name '*.log' -mtime -1 -exec grep -l ERROR {} \;");
    assert_eq!(names(&s), ["find", "grep"]);
    assert_eq!(s.commands[0].file_args(), ["/data"]);
    assert_eq!(s.commands[0].flag_value(None, Some("name")), Some("*.log"));
    assert_eq!(s.commands[1].via, ["find -exec"]);
}

// ---------------------------------------------------------------- shell grammar

#[test]
fn lists_and_operators() {
    let s = parse("a || b && ! c; d & e\nf");
    assert_eq!(names(&s), ["a", "b", "c", "d", "e", "f"]);
    assert!(s.commands[2].negated);
    assert!(s.commands[3].background);
    assert!(!s.commands[4].background);
    let s = parse("make 2>&1 |& tee build.log");
    assert_eq!(names(&s), ["make", "tee"]);
    assert!(s.commands[1].piped_from);
    assert_eq!(s.commands[1].file_args(), ["build.log"]);
}

#[test]
fn subshells_groups_and_substitutions() {
    let s = parse("( cd a; make )");
    assert_eq!(names(&s), ["cd", "make"]);
    let s = parse("{ a; b; } > out.txt 2>&1");
    assert_eq!(names(&s), ["a", "b"]);
    assert!(s.commands.iter().all(|c| c.redirects.len() == 2));
    let s = parse("echo $(git rev-parse HEAD) `date +%s` \"$(hostname)\"");
    assert_eq!(names(&s), ["git", "date", "hostname", "echo"]);
    let e = &s.commands[3];
    assert_eq!(strs(&e.args), ["$(git rev-parse HEAD)", "`date +%s`", "$(hostname)"]);
    // Nested substitution with quotes and parens inside.
    let s = parse(r#"x=$(cat "$(ls -t logs/*.log | head -1)" | grep ')'); echo "$x""#);
    assert_eq!(names(&s), ["ls", "head", "cat", "grep", "echo"]);
    // Substitution output is captured: not part of the outer pipeline.
    let s = parse("echo $(date) | wc -c");
    assert!(!s.commands[0].piped_to, "date's output is captured");
    assert!(s.commands[1].piped_to);
    // Process substitution.
    let s = parse("diff <(sort a.txt) <(sort b.txt)");
    assert_eq!(names(&s), ["sort", "sort", "diff"]);
    // Arithmetic is not a command.
    let s = parse("echo $((1 + 2)); (( i++ )); x=$(( y * 2 ))");
    assert_eq!(names(&s), ["echo"]);
}

#[test]
fn if_elif_else_case_functions() {
    let s = parse("if [ -f a.txt ]; then cat a.txt; elif test -d b; then ls b; else echo none; fi");
    assert_eq!(names(&s), ["[", "cat", "test", "ls", "echo"]);
    let conds: Vec<bool> = s.commands.iter().map(|c| c.in_condition).collect();
    assert_eq!(conds, [true, false, true, false, false]);
    assert_eq!(s.commands[0].file_args(), ["a.txt"]);

    let s = parse(
        "case \"$1\" in\n  start|up) systemctl start x ;;\n  (stop) kill $(cat pid) ;;\n  *) echo usage ;;\nesac",
    );
    assert_eq!(names(&s), ["systemctl", "cat", "kill", "echo"]);

    let s = parse("f() { grep -c x \"$1\"; }; function g { tail -1 y.log; }\nf a.txt; g");
    assert_eq!(names(&s), ["grep", "tail", "f", "g"]);

    let s = parse("[[ -f x.log && $(wc -l < x.log) -gt 5 ]] && echo big");
    assert_eq!(names(&s), ["wc", "[[", "echo"]);
    assert_eq!(s.commands[1].args.last().map(String::as_str), Some("]]"));
}

#[test]
fn comments_continuations_and_multiline() {
    let s = parse(
        "# set up\ncd /x  # go there\npython a.py \\\n  --flag 1 \\\n  --out o.json\n\necho 'a # not comment' b#c",
    );
    assert_eq!(names(&s), ["cd", "python", "echo"]);
    assert_eq!(strs(&s.commands[1].args), ["a.py", "--flag", "1", "--out", "o.json"]);
    assert_eq!(strs(&s.commands[2].args), ["a # not comment", "b#c"]);
}

#[test]
fn quoting() {
    let s = parse(r#"echo 'single $x' "double $x \"q\" \$y" \$z a\ b $'tab\there' "it's""#);
    assert_eq!(strs(&s.commands[0].args), ["single $x", "double $x \"q\" $y", "$z", "a b", "tab\there", "it's"]);
    // Quoted keywords are ordinary words.
    let s = parse("\"if\" x; 'for' y");
    assert_eq!(names(&s), ["if", "for"]);
    // Redirection glued to words.
    let c = &parse("cmd>out.txt 2>/dev/null <in.txt &>>all.log").commands[0];
    let ops: Vec<(Option<u32>, &str, &str)> = c.redirects.iter().map(|r| (r.fd, r.op, r.target.as_str())).collect();
    assert_eq!(
        ops,
        [(None, ">", "out.txt"), (Some(2), ">", "/dev/null"), (None, "<", "in.txt"), (None, "&>>", "all.log")]
    );
    // Unicode passes through.
    let s = parse("echo 'héllo wörld' → ✓");
    assert_eq!(strs(&s.commands[0].args), ["héllo wörld", "→", "✓"]);
}

#[test]
fn loops_iteration_counts() {
    let it = |src: &str| parse(src).loops[0].iterations;
    assert_eq!(it("for i in {1..60}; do sleep 5; done"), Some(60));
    assert_eq!(it("for i in {0..100..10}; do x; done"), Some(11));
    assert_eq!(it("for i in 1 2 3; do x; done"), Some(3));
    assert_eq!(it("for i in `seq 5`; do x; done"), Some(5));
    assert_eq!(it("for i in $(seq 0 2 10); do x; done"), Some(6));
    assert_eq!(it("for ((i=0; i<30; i++)); do x; done"), Some(30));
    assert_eq!(it("for ((i=1;i<=10;i+=3)); do x; done"), Some(4));
    assert_eq!(it("for f in *.log; do x; done"), None);
    assert_eq!(it("for f in $FILES; do x; done"), None);
    assert_eq!(it("for f; do x; done"), None);
    assert_eq!(it("select x in a b; do break; done"), Some(2));

    let s = parse("for i in 1 2; do for j in a b c; do sleep 0.5; done; done");
    assert_eq!(s.loops.len(), 2);
    assert_eq!(s.loops[0].iterations, Some(2));
    assert_eq!(s.loops[1].iterations, Some(3));
    assert_eq!(s.loops[0].sleep_secs, Some(0.5));
    assert!(s.loops[0].sleeps && s.loops[1].sleeps);

    let s = parse("while true; do ls; done");
    assert!(!s.loops[0].sleeps);
    assert_eq!(s.loops[0].sleep_secs, None);
    let s = parse("while :; do sleep $T; sleep 1m; done");
    assert!(s.loops[0].sleeps);
    assert_eq!(s.loops[0].sleep_secs, None, "a non-literal sleep");
    let s = parse("until [ -f done.flag ]; do sleep 1m; sleep 30s; done");
    assert_eq!(s.loops[0].sleep_secs, Some(90.0));
    // Loop piped and redirected.
    let s = parse("while read -r l; do echo \"$l\"; done < list.txt | sort");
    assert_eq!(names(&s), ["read", "echo", "sort"]);
    assert!(s.commands[0].redirects.iter().any(|r| r.target == "list.txt"));
    assert!(s.commands[1].piped_to);
}

#[test]
fn numeric_edge_cases() {
    let it = |src: &str| parse(src).loops[0].iterations;
    assert_eq!(it("for i in {-9223372036854775808..9223372036854775807}; do :; done"), Some(u64::MAX));
    assert_eq!(it("for i in {1..99999999999999999999999}; do :; done"), None);
    assert_eq!(it("for i in $(seq 1 1e300); do :; done"), Some(u64::MAX));
    assert_eq!(it("for i in $(seq 10 1); do :; done"), Some(0));
    assert_eq!(it("for i in $(seq 1 0 5); do :; done"), None);
    assert_eq!(it("for i in {a..e}; do :; done"), Some(5));
    assert_eq!(it("for i in {5..1}; do :; done"), Some(5));
    assert_eq!(it("for ((;;)); do sleep 1; done"), None);
    let l = &parse("while :; do sleep 99999999999999999999d; sleep inf; done").loops[0];
    assert!(l.sleeps && l.sleep_secs.is_none());
    let l = &parse("while :; do sleep 1e308d; done").loops[0];
    assert!(l.sleep_secs.is_some_and(f64::is_infinite));
    assert_eq!(parse("cmd 99999999999>x").commands[0].args, ["99999999999"]);
}

#[test]
fn more_constructs() {
    // Array assignment stays one word; `>(…)` process substitution.
    let s = parse("arr=(a b c); tee >(gzip > out.gz) < in.txt");
    assert_eq!(s.exports, [("arr".into(), "(a b c)".into())]);
    assert_eq!(names(&s), ["gzip", "tee"]);
    // `time` keyword before a compound command.
    let s = parse("time { make; make test; }");
    assert_eq!(names(&s), ["make", "make"]);
    // `$(case …)` whose `)` must not close the substitution.
    let s = parse("x=$(case $a in y) echo 1;; esac); ls");
    assert_eq!(names(&s), ["echo", "ls"]);
    // But a plain word `case` inside $(…) does not confuse it.
    let s = parse("echo \"$(echo in case)\"; ls");
    assert_eq!(names(&s), ["echo", "echo", "ls"]);
    // Redirection on a loop applies to its body.
    let s = parse("for f in a b; do cat $f; done > all.txt 2>&1 &");
    assert!(s.commands[0].background);
    assert_eq!(s.commands[0].redirects.len(), 2);
    // Loop body with newlines and a nested function and heredoc.
    let src = "while true; do\n  cat <<EOF\n$(date)\nEOF\n  sleep 60\ndone";
    let s = parse(src);
    assert_eq!(names(&s), ["true", "cat", "sleep"]);
    assert_eq!(s.loops[0].sleep_secs, Some(60.0));
    assert_eq!(s.heredocs, ["$(date)\n"]);
    // `declare -x` exports; `local` does not.
    let s = parse("declare -x A=1; local B=2; typeset C=3");
    assert_eq!(s.exports, [("A".into(), "1".into())]);
    // Wrapper env and own env, in source order.
    let c = only(&parse("A=1 sudo B=2 env C=3 python x.py"), "python");
    assert_eq!(env(&c), [("A", "1"), ("B", "2"), ("C", "3")]);
    // env propagates into `bash -c` but redirections of the wrapper are appended.
    let s = parse("FOO=1 bash -c 'a; b > x.log' > out.log");
    assert!(s.commands.iter().all(|c| env(c) == [("FOO", "1")]));
    let targets: Vec<&str> = s.commands[1].redirects.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(targets, ["x.log", "out.log"]);
    // Conditions nested in loops, `elif` counts as condition.
    let s = parse("while true; do if pgrep -f train.py; then sleep 10; else break; fi; done");
    assert!(s.commands[0].in_condition && s.commands[0].in_loop);
    assert!(s.commands[0].file_args().is_empty(), "pgrep takes a pattern");
    assert!(s.loops[0].breaks);
    // `!` on a later pipeline stage marks the pipeline.
    let s = parse("! grep -q x f.txt | cat");
    assert!(s.commands.iter().all(|c| c.negated));
}

#[test]
fn words_splitting() {
    assert_eq!(words(r#"-n 5 'a b' "c $d" e\ f $(x y) a|b"#), ["-n", "5", "a b", "c $d", "e f", "$(x y)", "a|b"]);
    assert!(words("   ").is_empty());
    assert_eq!(words("'unterminated x"), ["unterminated x"]);
}

#[test]
fn name_and_find_helpers() {
    let s = parse("/usr/bin/grep x y; ./run.sh; grep z");
    assert_eq!(s.commands[0].name(), "grep");
    assert_eq!(s.commands[1].name(), "run.sh");
    assert_eq!(s.find("grep").collect::<Vec<_>>(), [0, 2]);
    assert_eq!(s.commands[0].program, "/usr/bin/grep");
}

// ---------------------------------------------------------------- malformed input

#[test]
fn malformed_inputs_best_effort() {
    let s = parse("echo 'unterminated");
    assert_eq!(names(&s), ["echo"]);
    assert_eq!(strs(&s.commands[0].args), ["unterminated"]);

    let s = parse("echo \"unterminated $(date");
    assert_eq!(names(&s), ["date", "echo"]);

    let s = parse("ls && echo $(foo");
    assert_eq!(names(&s), ["ls", "foo", "echo"]);

    assert!(parse("|").commands.is_empty());
    assert_eq!(names(&parse("| grep x")), ["grep"]);
    assert_eq!(names(&parse("a &&")), ["a"]);
    assert_eq!(names(&parse(";; fi done ) } a")), ["a"]);
    assert_eq!(names(&parse("if true; then ls")), ["true", "ls"]);
    assert_eq!(names(&parse("for i in 1 2; do echo $i")), ["echo"]);
    assert_eq!(names(&parse("while sleep 1; do")), ["sleep"]);
    assert_eq!(names(&parse("case x in a) ls")), ["ls"]);
    assert_eq!(names(&parse("(((((")), Vec::<&str>::new());
    assert_eq!(names(&parse("ssh")), ["ssh"]);
    assert_eq!(names(&parse("ssh host 'unterminated")), ["unterminated"]);
    assert_eq!(names(&parse("bash -c")), ["bash"]);
    assert_eq!(names(&parse("echo `ls")), ["ls", "echo"]);
    assert_eq!(names(&parse("echo ${x")), ["echo"]);
    assert_eq!(names(&parse("cat <<")), ["cat"]);
    assert_eq!(names(&parse(">")), Vec::<&str>::new());
    assert_eq!(names(&parse("2>&1")), Vec::<&str>::new());
    assert_eq!(names(&parse("trailing backslash \\")), ["trailing"]);
    assert!(parse("").commands.is_empty());
    assert!(parse("   \n\n ; ; & ").commands.is_empty());
}

#[test]
fn commit_message_heredoc_in_substitution() {
    let s = parse(
        "git add -A && git commit -m \"$(cat <<'EOF'\nFix parser (edge) case\n\nCo-Authored-By: X <x@y.z>\nEOF\n)\" && git push",
    );
    assert_eq!(names(&s), ["git", "cat", "git", "git"]);
    assert_eq!(s.heredocs, ["Fix parser (edge) case\n\nCo-Authored-By: X <x@y.z>\n"]);
    assert_eq!(s.commands[2].positionals(), ["commit"]);
    assert!(s.commands[2].file_args().is_empty());
    assert_eq!(strs(&s.commands[3].args), ["push"]);
}

#[test]
fn inline_python_is_one_argument() {
    let s = parse("python3 -c \"\nimport json\nprint(open('/data/x.json').read())\n\" | head -5");
    assert_eq!(names(&s), ["python3", "head"]);
    let p = &s.commands[0];
    assert!(p.flag_value(Some('c'), None).is_some_and(|v| v.contains("import json")));
    assert!(p.positionals().is_empty());
}

/// Agent transcripts are often cut mid-command: every prefix of every
/// real example must parse without panicking.
#[test]
fn truncated_real_commands() {
    let examples = [
        "ssh root@10.0.0.5 'tail -50 /data/logs/exp_1b.log' 2>&1",
        r#"ssh host "grep -A5 'Traceback\|Exception' /data/x.log | tail -30""#,
        "cd /repo && NCCL_ALGO=Tree nohup python -m x --tp 8 > /data/logs/srv.log 2>&1 &",
        "for i in $(seq 1 23); do if curl -s localhost:30000/health >/dev/null; then echo READY; break; fi; sleep 30; done",
        "timeout 600 bash -c 'until grep -q \"ready\" log.txt; do sleep 10; done'",
        "docker exec -it c sh -c 'tail -n 100 /var/log/app.log'",
        "cat <<'EOF' > /tmp/patch.py\nprint(1)\nEOF\npython /tmp/patch.py",
        "case $x in a) f() { echo \"$(date)\"; };; *) [[ -f y ]] && { a; b; } ;; esac",
        "git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"",
        "x=$(( 1 + $(wc -l < f) )); for ((i=0;i<x;i++)); do echo `date`; done",
    ];
    for ex in examples {
        for (i, _) in ex.char_indices() {
            let prefix = &ex[..i];
            check_invariants(&parse(prefix), prefix);
            let _ = words(prefix);
        }
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    // Run on a small stack to prove depth is capped, not merely lucky.
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let n = 1000;
            let subst = format!("echo {}x{}", "$(".repeat(n), ")".repeat(n));
            let s = parse(&subst);
            assert!(s.commands.iter().any(|c| c.name() == "echo"));

            let parens = format!("{}ls{}", "( ".repeat(n), " )".repeat(n));
            assert!(parse(&parens).commands.iter().any(|c| c.name() == "ls"));

            let ifs = format!("{}ls{}", "if true; then ".repeat(n), "; fi".repeat(n));
            assert!(parse(&ifs).commands.iter().any(|c| c.name() == "ls"));

            let braces = format!("{}ls{}", "{ ".repeat(n), "; }".repeat(n));
            assert!(parse(&braces).commands.iter().any(|c| c.name() == "ls"));

            let backticks = format!("echo {}x", "`".repeat(n));
            let _ = parse(&backticks);

            // Quoting nested `bash -c` strings grows exponentially, so a
            // few levels; ssh/eval chains re-parse linearly-sized strings.
            let mut bash_c = String::from("ls");
            for _ in 0..8 {
                bash_c = format!("bash -c {}", shell_quote(&bash_c));
            }
            let s = parse(&bash_c);
            assert_eq!(names(&s), ["ls"]);
            assert_eq!(s.commands[0].via.len(), 8);
            let ssh_chain = format!("{}ls", "ssh h ".repeat(n));
            assert!(!parse(&ssh_chain).commands.is_empty());
            let eval_chain = format!("{}ls", "eval ".repeat(n));
            assert!(!parse(&eval_chain).commands.is_empty());
            let argv_chain = format!("{}ls", "timeout 1 nohup ".repeat(n));
            let s = parse(&argv_chain);
            assert_eq!(names(&s), ["ls"]);
            assert_eq!(s.commands[0].via.len(), 2 * n);

            let unclosed = "$(".repeat(100_000);
            let _ = parse(&unclosed);
            let dq = "\"$(".repeat(10_000);
            let _ = parse(&dq);
        })
        .expect("spawn");
    assert!(handle.join().is_ok());
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[test]
fn one_megabyte_of_garbage() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let alphabet = b"abc $()`'\"\\|&;<>{}[]#=\n\t!*?~-0123456789";
    let garbage: String =
        (0..1 << 20).map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize] as char).collect();
    let t = std::time::Instant::now();
    let _ = parse(&garbage);
    let _ = words(&garbage);
    // A guard against a hang or a quadratic blow-up (minutes at this size), not a speed
    // target: those live in the benchmarks. Generous for a loaded debug build.
    assert!(t.elapsed().as_secs() < 60, "took {:?}", t.elapsed());

    // Pathological repetitions that would be quadratic with naive rescans.
    for unit in ["((", "$((", "<<E\n", "'", "\"", "`", "${", "$(", "a|", "\\\n", "case "] {
        let s = unit.repeat(200_000 / unit.len());
        let t = std::time::Instant::now();
        let _ = parse(&s);
        assert!(t.elapsed().as_secs() < 30, "{unit:?} took {:?}", t.elapsed());
    }
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn random_inputs_never_panic() {
    let mut rng = XorShift(42);
    // Shell-heavy alphabet so that random strings hit real syntax.
    let tokens: &[&str] = &[
        "a",
        "ssh h ",
        "bash -c ",
        "'",
        "\"",
        "$(",
        ")",
        "(",
        "`",
        "|",
        "&&",
        "||",
        ";",
        "&",
        "\n",
        "<<EOF\n",
        "EOF\n",
        "<<-",
        "<<<",
        ">",
        "2>&1",
        "{",
        "}",
        "if ",
        "then ",
        "fi ",
        "for i in ",
        "do ",
        "done ",
        "while ",
        "case ",
        "esac ",
        " in ",
        ";;",
        "\\",
        "${",
        "$((",
        "))",
        "!",
        "#",
        "=",
        "x=1 ",
        "sudo ",
        "timeout 5 ",
        "xargs ",
        "watch ",
        "docker exec c ",
        "kubectl exec p -- ",
        "[[ ",
        " ]]",
        "é",
        "\u{0}",
        "\r",
        " ",
        "find . -exec ",
        "\\;",
        "env A=1 ",
        "function f ",
        "() ",
    ];
    for round in 0..20_000 {
        let len = (rng.next() % 40) as usize;
        let mut s = String::new();
        for _ in 0..len {
            s.push_str(tokens[(rng.next() % tokens.len() as u64) as usize]);
        }
        let script = parse(&s);
        check_invariants(&script, &s);
        let _ = words(&s);
        if round % 4 == 0 {
            // Raw random bytes (lossily made UTF-8).
            let bytes: Vec<u8> = (0..(rng.next() % 64)).map(|_| rng.next() as u8).collect();
            let s = String::from_utf8_lossy(&bytes);
            check_invariants(&parse(&s), &s);
            let _ = words(&s);
        }
    }
}

fn check_invariants(s: &Script, src: &str) {
    let n = s.commands.len();
    for l in &s.loops {
        assert!(l.condition.end <= n && l.body.end <= n, "{src:?}");
        assert!(l.condition.start <= l.condition.end && l.body.start <= l.body.end);
    }
    for c in &s.commands {
        let _ = c.name();
        let _ = c.positionals();
        let _ = c.file_args();
        let _ = c.has_flag(Some('n'), Some("lines"));
        let _ = c.flag_value(Some('n'), Some("lines"));
    }
    for i in 0..n {
        let _ = s.env_at(i);
    }
    assert!(s.env_at(n).is_empty());
}

// ---------------------------------------------------------------- timing (not asserted)

/// Prints parse times; run with `cargo test --release -- --ignored --nocapture timing`.
#[test]
#[ignore]
fn timing() {
    let cases = [
        "ssh root@10.0.0.5 'tail -50 /data/logs/exp_1b.log' 2>&1",
        r#"grep -i "exception\|error\|failed" /data/logs/x.log | head -20"#,
        "cd /repo && NCCL_ALGO=Tree NCCL_MAX_NCHANNELS=2 nohup python -m sglang.launch_server --model-path /m --tp 8 --port 30000 > /data/logs/srv.log 2>&1 &",
        "for i in $(seq 1 23); do if curl -s localhost:30000/health >/dev/null; then echo READY; break; fi; if grep -q \"Exception\" /data/x.log; then echo CRASHED; break; fi; sleep 30; done",
        "git status",
    ];
    // Best of several trials: the shared machine is noisy.
    let best = |f: &dyn Fn(), n: u32| {
        (0..7)
            .map(|_| {
                let t = std::time::Instant::now();
                for _ in 0..n {
                    f();
                }
                t.elapsed() / n
            })
            .min()
            .unwrap_or_default()
    };
    for c in cases {
        let per = best(&|| drop(std::hint::black_box(parse(std::hint::black_box(c)))), 20_000);
        println!("{:>4} B {:>8.2?}  {}", c.len(), per, &c[..c.len().min(50)]);
    }
    let mut script = String::from("cat > /tmp/big.py <<'PY'\n");
    for i in 0..1000 {
        script.push_str(&format!("x_{i} = 'some ( \" ` $( text'  # {i}\n"));
    }
    script.push_str("PY\npython /tmp/big.py");
    let per = best(&|| drop(std::hint::black_box(parse(&script))), 100);
    println!("{:>4} B {:>8.2?}  heredoc script", script.len(), per);
}
