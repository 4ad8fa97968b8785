//! `debrief mcp` driven by a real MCP client: the official Python SDK's, over stdio
//! (`tests/mcp/client.py`), installed in a venv by `scripts/mcp-client-venv` from
//! `tests/mcp/requirements.txt`. On an index of the bundled corpus plus one session with
//! planted secrets: initialize, list the tools, call every tool (pages included), wrong
//! arguments get JSON-RPC errors and the server stays up, and no secret comes out unless
//! the server was started with `--no-redact`.
//!
//! Where the client cannot be installed (no network, no `python3 -m venv`) the tests
//! skip, one line each; with `CI` set (`.ci/run`) that is a failure.

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::synth::{Transcript, noise};
use serde_json::{Value, json};

/// The venv's python, or why there is none.
fn client() -> Option<PathBuf> {
    static PY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let got = PY.get_or_init(|| {
        let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-client-venv");
        let out = Command::new("bash")
            .arg(common::root().join("scripts/mcp-client-venv"))
            .arg(&venv)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run scripts/mcp-client-venv: {e}"))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message");
            return Err(format!("scripts/mcp-client-venv failed: {last}"));
        }
        Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    });
    match got {
        Ok(p) => Some(p.clone()),
        Err(why) => {
            let test = std::thread::current().name().unwrap_or("a test").to_string();
            let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
            assert!(!ci, "{test}: the MCP client could not be installed ({why}), and CI is set");
            // Straight to the process's stderr: the harness captures a passing test's output.
            let _ = writeln!(std::io::stderr(), "skipped {test}: the MCP client could not be installed ({why})");
            None
        }
    }
}

/// The secrets planted in one session: a GitHub token in a command, its output and the
/// user's words, and an AWS key id in an output. Made from a fixed seed, written nowhere.
fn secrets() -> (String, String) {
    let alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    (format!("ghp_{}", noise(15, 36, alnum)), format!("AKIA{}", noise(16, 16, upper)))
}

/// An index of `corpus/` and the planted session, built once.
fn index() -> &'static Path {
    static IX: OnceLock<PathBuf> = OnceLock::new();
    IX.get_or_init(|| {
        // Under the target folder, made again each run (a temporary folder would outlive
        // the statics that hold it).
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-index");
        let _ = std::fs::remove_dir_all(&dir);
        let planted = dir.join("planted");
        std::fs::create_dir_all(&planted).unwrap();
        let (token, aws) = secrets();
        // The remote echoes the token: the line `seen_before` quotes for an error holds it.
        let failed = format!(
            "remote: Invalid username or password for x-access-token:{token}.\nfatal: Authentication failed for 'https://github.com/acme/app.git/'"
        );
        let t = Transcript::new()
            .user(&format!("Push the release. The deploy token is {token} if you need it."))
            .bash(&format!("git push https://x-access-token:{token}@github.com/acme/app.git main"), &failed, true)
            .bash("cat ~/.aws/credentials", &format!("[default]\naws_access_key_id = {aws}\nregion = eu-west-1"), false)
            .assistant("The token in the URL is rejected; I'll use the configured remote instead.")
            .bash("git remote set-url origin git@github.com:acme/app.git", "", false)
            .bash("git push origin main", "To github.com:acme/app.git\n   1a2b3c4..5d6e7f8  main -> main", false)
            .assistant("Pushed.");
        std::fs::write(planted.join("5e55a1c0-0000-4000-8000-00000000beef.jsonl"), t.text()).unwrap();
        let ix = dir.join("index");
        common::debrief(&ix).args(["index", "--quiet"]).arg(common::root().join("corpus")).arg(&planted).assert().success();
        ix
    })
}

/// One client session with `debrief mcp` (`extra` are its flags) running `steps`.
fn session(python: &Path, index: &Path, extra: &[&str], steps: Value) -> Value {
    let mut command = vec![env!("CARGO_BIN_EXE_debrief").to_string(), "--index".into(), index.display().to_string()];
    command.push("mcp".into());
    command.extend(extra.iter().map(|s| s.to_string()));
    let spec = json!({"command": command, "cwd": common::root(), "steps": steps});
    let mut child = Command::new(python)
        .arg(common::root().join("tests/mcp/client.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the MCP client");
    child.stdin.take().unwrap().write_all(spec.to_string().as_bytes()).unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).map(|_| s)
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).map(|_| s)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            panic!("the MCP session did not end in 180 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = out.join().unwrap().unwrap();
    let err = err.join().unwrap().unwrap();
    assert!(status.success(), "the MCP client failed ({status}):\n{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("client output is not JSON ({e}): {out}\n{err}"))
}

/// The structured result of step `i`, which must have succeeded.
fn ok(r: &Value, i: usize) -> &Value {
    let step = &r["steps"][i];
    let res = step.get("result").unwrap_or_else(|| panic!("step {i} failed: {step}"));
    assert_ne!(res["isError"], json!(true), "step {i} is a tool error: {res}");
    res.get("structuredContent").unwrap_or(res)
}

/// The text of step `i`'s result.
fn text(r: &Value, i: usize) -> String {
    let res = &r["steps"][i]["result"];
    res["content"]
        .as_array()
        .unwrap_or_else(|| panic!("step {i}: {}", r["steps"][i]))
        .iter()
        .map(|c| c["text"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Step `i` got a JSON-RPC "invalid params" error whose message says `says`.
fn invalid(r: &Value, i: usize, says: &str) {
    let e = &r["steps"][i]["error"];
    assert_eq!(e["code"], json!(-32602), "step {i}: {}", r["steps"][i]);
    let m = e["message"].as_str().unwrap();
    assert!(m.contains(says), "step {i}: {m}");
}

fn msgs(v: &Value, list: &str) -> Vec<u64> {
    v[list].as_array().unwrap().iter().map(|h| h["msg"].as_u64().or(h["idx"].as_u64()).unwrap()).collect()
}

#[test]
fn every_tool_over_stdio() {
    let Some(py) = client() else { return };
    let ix = index();
    let steps = json!([
        {"tool": "search", "arguments": {"query": "retry backoff", "limit": 2}},
        {"tool": "search", "arguments": {"query": "retry", "limit": 5}},
        {"tool": "search", "arguments": {"detector": "retry-loop", "errors": true}},
        {"tool": "list_sessions", "arguments": {"limit": 3}},
        {"tool": "list_sessions", "arguments": {"limit": 3}, "cursor_from": 3},
        {"tool": "read_messages", "arguments": {"session": "06eff548", "from": 2, "to": 9, "limit": 3, "max_chars": 100}},
        {"tool": "read_messages", "arguments": {"session": "06eff548", "from": 2, "to": 9, "limit": 3, "max_chars": 100}, "cursor_from": 5},
        {"tool": "findings", "arguments": {"detector": "retry-loop"}},
        {"tool": "findings", "arguments": {"session": "d41e7b02"}},
        {"tool": "writeup", "arguments": {"session": "0b284e8f", "episode": 2}},
        {"tool": "writeup", "arguments": {"session": "0b284e8f", "max_chars": 1000}},
        {"tool": "writeup", "arguments": {"session": "0b284e8f", "max_chars": 1000}, "cursor_from": 10},
        {"tool": "seen_before", "arguments": {"command": "python -m pytest tests/test_parse.py -q"}},
        {"tool": "seen_before", "arguments": {"error": "FAILED tests/test_parse.py::test_times - AssertionError"}},
        {"tool": "seen_before", "arguments": {"error": "fatal: Authentication failed for 'https://github.com/acme/app.git/'"}},
        // Wrong arguments: protocol errors, and the server goes on.
        {"tool": "search", "arguments": {"query": "retry", "limit": "ten"}},
        {"tool": "search", "arguments": {"detector": "no-such-detector"}},
        {"tool": "read_messages", "arguments": {}},
        {"tool": "no_such_tool", "arguments": {}},
        {"tool": "read_messages", "arguments": {"session": "06eff548", "from": 50}},
        {"tool": "search", "arguments": {"query": "retry", "colour": "red"}},
        {"tool": "search", "arguments": {"since": "soon"}},
        {"tool": "seen_before", "arguments": {"error": "x", "command": "y"}},
        {"tool": "search", "arguments": {"query": "retry", "cursor": "findings:3"}},
        {"tool": "search", "arguments": {"query": "retry", "limit": 5}, "cursor_from": 1},
        // A failure while working: a tool error the agent can read.
        {"tool": "writeup", "arguments": {"session": "zzzz"}},
        // The session an agent is in is left out, indexed or not.
        {"tool": "seen_before", "arguments": {"command": "python -m pytest tests/test_parse.py -q", "exclude_session": "06eff548"}},
        {"tool": "seen_before", "arguments": {"command": "python -m pytest tests/test_parse.py -q", "exclude_session": "not-indexed-yet"}},
        // Ranking modes (issue 22), and the any-word fallback's note.
        {"tool": "search", "arguments": {"query": "waiting longer between the attempts", "mode": "semantic", "limit": 3}},
        {"tool": "search", "arguments": {"query": "retry backoff", "mode": "hybrid", "limit": 5}},
        {"tool": "search", "arguments": {"query": "retry", "mode": "fuzzy"}},
        {"tool": "search", "arguments": {"query": "retry qqzzxxnoword", "limit": 3}},
        // One part of a message (issue 14): `backoff` is in msg 4's text, msg 5's command
        // and output, msg 7's command in the Codex sample.
        {"tool": "search", "arguments": {"query": "backoff", "in": "output", "session": "019cb2e4"}},
        {"tool": "search", "arguments": {"query": "backoff", "in": "stdout"}},
    ]);
    let r = session(&py, ix, &[], steps);

    let init = &r["initialize"];
    assert_eq!(init["serverInfo"]["name"], "debrief");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    assert!(init["instructions"].as_str().unwrap().contains("seen_before"));
    let tools: Vec<&str> = r["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(tools, ["search", "list_sessions", "read_messages", "findings", "writeup", "seen_before"]);
    for t in r["tools"].as_array().unwrap() {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
        assert!(t["description"].as_str().unwrap().len() > 100, "{t}");
    }
    let search = &r["tools"][0]["inputSchema"]["properties"];
    for f in ["query", "detector", "errors", "since", "until", "agent", "limit", "cursor"] {
        assert!(search[f].is_object(), "search has no `{f}`: {search}");
    }
    assert!(search["detector"]["enum"].as_array().unwrap().contains(&json!("retry-loop")));

    // search: cited hits, pages that do not overlap.
    let p1 = ok(&r, 0);
    let hit = &p1["hits"][0];
    assert_eq!(hit["session"], "019cb2e4-7a10-7c3e-9d21-5e8f0a4b6c17", "{hit}");
    assert_eq!((hit["msg"].as_u64(), hit["cite"].as_str()), (Some(5), Some("[msg 5]")));
    assert!(hit["at"].as_str().unwrap().ends_with("5e8f0a4b6c17.jsonl:11"), "{hit}");
    assert!(hit["snippet"].as_str().unwrap().contains("«backoff»"), "{hit}");
    assert_eq!(p1["next_cursor"], Value::Null, "{p1}");
    // Pages: the second page of `retry` (step 24, from step 1's cursor) repeats nothing.
    let first_page = ok(&r, 1);
    assert_eq!(first_page["next_cursor"], "search:5", "{first_page}");
    let p2 = ok(&r, 24);
    assert_eq!(p2["hits"].as_array().unwrap().len(), 5, "{p2}");
    let first: Vec<(Value, Value)> =
        first_page["hits"].as_array().unwrap().iter().map(|h| (h["session"].clone(), h["msg"].clone())).collect();
    assert!(!p2["hits"].as_array().unwrap().is_empty());
    for h in p2["hits"].as_array().unwrap() {
        assert!(!first.contains(&(h["session"].clone(), h["msg"].clone())), "page 2 repeats {h}");
    }
    let by_detector = ok(&r, 2)["hits"].as_array().unwrap().clone();
    assert!(!by_detector.is_empty());
    for h in &by_detector {
        let f = &h["findings"][0];
        assert_eq!(f["detector"], "retry-loop", "{h}");
        assert!(f["summary"].as_str().unwrap().contains("failed"), "{h}");
    }

    // list_sessions: newest first, page after page.
    let s1 = ok(&r, 3)["sessions"].as_array().unwrap().clone();
    let s2 = ok(&r, 4)["sessions"].as_array().unwrap().clone();
    assert_eq!((s1.len(), s2.len()), (3, 3));
    let started: Vec<&str> = s1.iter().chain(&s2).map(|s| s["started"].as_str().unwrap_or("")).collect();
    assert!(started.windows(2).all(|w| w[0] >= w[1]), "{started:?}");
    assert!(s1.iter().all(|s| !s2.iter().any(|t| t["session"] == s["session"])));

    // read_messages: a range in pages, long outputs cut with the count.
    let m1 = ok(&r, 5);
    assert_eq!(msgs(m1, "messages"), [2, 3, 4]);
    assert_eq!(m1["session"]["id"], "06eff548-98fe-59b0-bc89-da7a53fe5c65");
    let call = &m1["messages"][0]["calls"][0];
    assert_eq!(call["command"], "python -m pytest tests/test_parse.py -q 2>&1 | tail -3");
    assert_eq!(call["exit_code"], 1);
    assert!(call["output"].as_str().unwrap().contains("characters cut"), "{call}");
    assert!(m1["messages"][0]["chars_cut"].as_u64().unwrap() > 0);
    assert_eq!(msgs(ok(&r, 6), "messages"), [5, 6, 7]);

    // findings: across the index per detector, and of one session.
    let across = ok(&r, 7)["findings"].as_array().unwrap().clone();
    assert!(across.len() >= 3, "{across:?}");
    assert!(across.iter().all(|f| f["detector"] == "retry-loop"));
    let cargo =
        across.iter().find(|f| f["session"].as_str().unwrap().starts_with("0b284e8f")).expect("the cargo retry loop");
    assert_eq!((cargo["cite"].as_str(), cargo["evidence"].as_array().map(Vec::len)), (Some("[msg 2]"), Some(3)));
    let one: Vec<(String, u64)> = ok(&r, 8)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["detector"].as_str().unwrap().to_string(), f["msg"].as_u64().unwrap()))
        .collect();
    assert_eq!(one, [("polling-timeout".to_string(), 8), ("user-pushback".to_string(), 10)]);

    // writeup: Markdown, cited, in pages.
    let episode = text(&r, 9);
    assert!(episode.starts_with('#') && episode.contains("[msg 2]") && episode.contains("cargo build"), "{episode}");
    let page1 = text(&r, 10);
    let page2 = text(&r, 11);
    assert!(page1.contains("cursor \"writeup:"), "{page1}");
    assert!(page1.chars().count() < 1400 && !page2.is_empty(), "{page2}");
    assert!(!page2.starts_with(&page1[..200]));

    // seen_before: the command's runs and how its failure ended.
    let cmd = &ok(&r, 12)["sessions"][0];
    assert_eq!(cmd["session"], "06eff548-98fe-59b0-bc89-da7a53fe5c65", "{cmd}");
    assert_eq!((cmd["occurrences"].as_u64(), &cmd["stopped"]), (Some(5), &json!(true)), "{cmd}");
    assert!(cmd["stopped_how"].as_str().unwrap().contains("the last, [msg 9]"), "{cmd}");
    assert_eq!(cmd["episodes"][0]["followed"][0]["edit"], json!(["parse/dates.py"]), "{cmd}");
    // The error: test_times only (test_dates failing at [msg 2] is another error).
    let err = &ok(&r, 13)["sessions"][0];
    assert_eq!((err["first"].as_str(), err["last"].as_str()), (Some("[msg 4]"), Some("[msg 7]")), "{err}");
    assert_eq!(err["stopped"], true, "{err}");
    assert!(err["stopped_how"].as_str().unwrap().contains("ran again at [msg 9], exit 0"), "{err}");
    let push = &ok(&r, 14)["sessions"][0];
    assert_eq!(push["session"], "5e55a1c0-0000-4000-8000-00000000beef", "{push}");
    let next: Vec<&str> =
        push["episodes"][0]["followed"].as_array().unwrap().iter().filter_map(|a| a["command"].as_str()).collect();
    assert_eq!(
        next,
        ["cat ~/.aws/credentials", "git remote set-url origin git@github.com:acme/app.git", "git push origin main"]
    );
    assert_eq!(push["stopped"], true, "{push}");

    invalid(&r, 15, "argument `limit`: invalid type: string \"ten\"");
    invalid(&r, 16, "unknown detector `no-such-detector`");
    invalid(&r, 17, "missing field `session`");
    invalid(&r, 18, "unknown tool `no_such_tool`");
    invalid(&r, 19, "none in 50..");
    invalid(&r, 20, "unknown argument `colour`");
    invalid(&r, 21, "cannot read time `soon`");
    invalid(&r, 22, "either `error`");
    invalid(&r, 23, "not a cursor of search");
    let failed = &r["steps"][25]["result"];
    assert_eq!(failed["isError"], true, "{failed}");
    assert!(text(&r, 25).contains("no indexed session id starts with `zzzz`"), "{failed}");
    let sessions = |i| -> Vec<String> {
        ok(&r, i)["sessions"].as_array().unwrap().iter().map(|s| s["session"].as_str().unwrap().to_string()).collect()
    };
    assert!(!sessions(26).iter().any(|s| s.starts_with("06eff548")), "{:?}", sessions(26));
    assert!(sessions(27).iter().any(|s| s.starts_with("06eff548")), "{:?}", sessions(27));
    let semantic = ok(&r, 28)["hits"].as_array().unwrap().clone();
    assert!(!semantic.is_empty() && semantic.iter().all(|h| h["found_by"] == json!(["semantic"])), "{semantic:?}");
    let hybrid = ok(&r, 29)["hits"].as_array().unwrap().clone();
    assert!(hybrid.iter().any(|h| h["found_by"].as_array().unwrap().contains(&json!("keyword"))), "{hybrid:?}");
    assert!(hybrid.iter().any(|h| h["found_by"].as_array().unwrap().contains(&json!("semantic"))), "{hybrid:?}");
    invalid(&r, 30, "mode `fuzzy` is none of keyword, semantic, hybrid");
    let fallback = ok(&r, 31);
    assert!(fallback["note"].as_str().unwrap().starts_with("no message has every word"), "{fallback}");
    assert!(fallback["hits"].as_array().unwrap().iter().all(|h| h["found_by"] == json!(["any-word"])), "{fallback}");
    // The shapes docs/mcp.md lists, key for key.
    let keys = |v: &Value| {
        let mut k: Vec<String> =
            v.as_object().unwrap_or_else(|| panic!("not an object: {v}")).keys().cloned().collect();
        k.sort();
        k.join(" ")
    };
    assert_eq!(keys(ok(&r, 0)), "hits next_cursor");
    assert_eq!(
        keys(&ok(&r, 0)["hits"][0]),
        "agent at cite findings found_by line msg project role session snippet source timestamp"
    );
    assert_eq!(keys(ok(&r, 31)), "hits next_cursor note");
    assert_eq!(keys(ok(&r, 3)), "next_cursor sessions");
    assert_eq!(
        keys(&ok(&r, 3)["sessions"][0]),
        "agent agent_version cwd detectors ended messages model project session source started title"
    );
    assert_eq!(keys(ok(&r, 5)), "messages next_cursor session");
    assert_eq!(keys(&ok(&r, 5)["session"]), "agent id messages project source started title");
    let m = &ok(&r, 5)["messages"][0];
    assert_eq!(keys(m).replace(" chars_cut", ""), "calls end_line idx line origin role text thinking timestamp");
    assert_eq!(
        keys(&m["calls"][0]),
        "command continues exit_code id input interrupted is_error name output running timed_out"
    );
    assert_eq!(keys(ok(&r, 7)), "findings next_cursor");
    assert_eq!(
        keys(&ok(&r, 7)["findings"][0]),
        "agent cite command detector evidence line msg project session source summary timestamp"
    );
    let seen = ok(&r, 13);
    assert_eq!(keys(seen), "kind matched_on next_cursor sessions");
    assert_eq!(
        keys(&seen["sessions"][0]),
        "agent episodes first last last_seen occurrences project session source started stopped stopped_how title writeup"
    );
    assert_eq!(
        keys(&seen["sessions"][0]["episodes"][0]),
        "cite command exit_code failed followed line msg next_occurrence text timestamp"
    );
    let in_output = ok(&r, 32)["hits"].as_array().unwrap().clone();
    assert_eq!(in_output.iter().map(|h| h["msg"].as_u64().unwrap()).collect::<Vec<_>>(), [5], "{in_output:?}");
    assert!(in_output[0]["snippet"].as_str().unwrap().contains("from .«backoff» import"), "{in_output:?}");
    invalid(&r, 33, "in `stdout` is none of text, command, output");
    assert!(search["in"].is_object(), "search has no `in`: {search}");
    assert_eq!(r["tools_after"], 6, "the server is still up after the errors");
}

/// The steps that show the planted session every way a tool can.
fn planted_steps() -> Value {
    let (token, _) = secrets();
    json!([
        {"tool": "search", "arguments": {"query": token}},
        {"tool": "search", "arguments": {"query": "push", "session": "5e55a1c0-0000-4000-8000-00000000beef"}},
        {"tool": "list_sessions", "arguments": {"session": "5e55a1c0-0000-4000-8000-00000000beef"}},
        {"tool": "read_messages", "arguments": {"session": "5e55a1c0-0000-4000-8000-00000000beef", "max_chars": 100000}},
        {"tool": "findings", "arguments": {"session": "5e55a1c0-0000-4000-8000-00000000beef"}},
        {"tool": "writeup", "arguments": {"session": "5e55a1c0-0000-4000-8000-00000000beef", "max_chars": 200000}},
        {"tool": "writeup", "arguments": {"session": "5e55a1c0-0000-4000-8000-00000000beef", "episode": 2, "max_chars": 200000}},
        {"tool": "seen_before", "arguments": {"error": "fatal: Authentication failed for 'https://github.com/acme/app.git/'"}},
        {"tool": "seen_before", "arguments": {"command": format!("git push https://x-access-token:{token}@github.com/acme/app.git main")}},
        {"tool": "seen_before", "arguments": {"error": "remote: Invalid username or password for x-access-token"}},
    ])
}

#[test]
fn redaction_holds() {
    let Some(py) = client() else { return };
    let ix = index();
    let (token, aws) = secrets();
    let r = session(&py, ix, &[], planted_steps());
    let all = r["steps"].to_string();
    for (i, s) in r["steps"].as_array().unwrap().iter().enumerate() {
        assert!(s.get("result").is_some_and(|x| x["isError"] != json!(true)), "step {i}: {s}");
    }
    // The secret is found when typed, and shown nowhere.
    assert!(!ok(&r, 0)["hits"].as_array().unwrap().is_empty(), "{}", r["steps"][0]);
    // seen_before quotes the line that held the token, and the command that printed it.
    let echoed = &ok(&r, 9)["sessions"][0]["episodes"][0];
    assert!(echoed["text"].as_str().unwrap().contains("x-access-token:[REDACTED"), "{echoed}");
    assert!(
        echoed["command"].as_str().unwrap().starts_with("git push https://[USER]:[REDACTED]@github.com"),
        "{echoed}"
    );
    for secret in [&token, &aws, &token[4..20].to_string(), &aws[4..16].to_string()] {
        assert!(!all.contains(secret.as_str()), "a secret came out: {secret}");
    }
    assert!(!all.contains("/home/ann"), "the home folder's user came out");
    assert!(all.contains("[REDACTED"), "nothing was redacted: {all}");
    // The same steps with --no-redact show them: the check above can fail.
    let plain = session(&py, ix, &["--no-redact"], planted_steps())["steps"].to_string();
    assert!(plain.contains(&token) && plain.contains(&aws));
}

#[test]
fn no_index_yet_is_a_tool_error() {
    let Some(py) = client() else { return };
    let missing = tempfile::tempdir().unwrap();
    let r = session(
        &py,
        &missing.path().join("none"),
        &[],
        json!([{"tool": "search", "arguments": {"query": "x"}}, {"tool": "list_sessions", "arguments": {}}]),
    );
    for i in 0..2 {
        assert_eq!(r["steps"][i]["result"]["isError"], true, "{}", r["steps"][i]);
        assert!(text(&r, i).contains("no index at") && text(&r, i).contains("debrief index"), "{}", text(&r, i));
    }
}
