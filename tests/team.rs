//! The team store (issue 23) against a real PostgreSQL server: each test starts its own
//! (`initdb`/`pg_ctl` of Debian's `postgresql` package, in a temporary folder, on
//! 127.0.0.1 and a free port, password authentication) and stops it at the end. Where
//! the server is not installed the tests skip with one line, except in CI
//! (`CI=true` or `DEBRIEF_REQUIRE_SHARED=1`), where that is a failure; `.ci/run`
//! installs it.
//!
//! Every command's output is checked not to show the database password.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::secrets::{Needles, personal_samples, secret_samples};
use common::synth::Transcript;

const USER: &str = "debrief";
const PASSWORD: &str = "Pw-team-Zq81xv";

/// A PostgreSQL server of this test's own.
struct Pg {
    dir: tempfile::TempDir,
    port: u16,
    bin: PathBuf,
    as_postgres: bool,
}

fn pg_bin() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .collect();
    dirs.sort();
    dirs.into_iter()
        .rev()
        .find(|d| d.join("initdb").exists() && d.join("pg_ctl").exists() && d.join("postgres").exists())
}

fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") || std::env::var_os("DEBRIEF_REQUIRE_SHARED").is_some()
}

fn is_root() -> bool {
    // The uid of this process, from /proc (no libc dependency for one number).
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(1) == Some("0")))
        .unwrap_or(false)
}

impl Pg {
    /// Start a server, or `None` (after one line) when PostgreSQL is not installed.
    fn start() -> Option<Pg> {
        let Some(bin) = pg_bin() else {
            assert!(
                !required(),
                "PostgreSQL's server (Debian package postgresql) is not installed; .ci/run installs it"
            );
            eprintln!("skipped: PostgreSQL's server is not installed (apt-get install postgresql)");
            return None;
        };
        let dir = tempfile::tempdir().expect("tempdir");
        // postgres refuses to run as root: then the server runs as the `postgres` user.
        let as_postgres = is_root();
        let data = dir.path().join("data");
        let pwfile = dir.path().join("pw");
        std::fs::write(&pwfile, PASSWORD).unwrap();
        if as_postgres {
            let ok = Command::new("chown").arg("-R").arg("postgres").arg(dir.path()).status().unwrap();
            assert!(ok.success(), "chown to postgres");
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let pg = Pg { dir, port, bin, as_postgres };
        pg.run(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                USER,
                "--pwfile",
                pwfile.to_str().unwrap(),
                "-A",
                "scram-sha-256",
                "-E",
                "UTF8",
                "--locale=C",
            ],
        );
        let opts = format!("-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off", pg.dir.path().display());
        pg.run(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-o",
                &opts,
                "-l",
                pg.dir.path().join("log").to_str().unwrap(),
                "-w",
                "start",
            ],
        );
        Some(pg)
    }

    fn run(&self, tool: &str, args: &[&str]) {
        let exe = self.bin.join(tool);
        let out = if self.as_postgres {
            Command::new("runuser").arg("-u").arg("postgres").arg("--").arg(&exe).args(args).output()
        } else {
            Command::new(&exe).args(args).output()
        }
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert!(
            out.status.success(),
            "{tool} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn url(&self, db: &str) -> String {
        format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{}/{db}?sslmode=disable", self.port)
    }

    fn client(&self, db: &str) -> postgres::Client {
        postgres::Client::connect(&self.url(db), postgres::NoTls).expect("connect")
    }

    /// A new, empty database.
    fn create(&self, db: &str) -> String {
        self.client("postgres").batch_execute(&format!("CREATE DATABASE {db}")).expect("create database");
        self.url(db)
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let exe = self.bin.join("pg_ctl");
        let args = ["-D", data.to_str().unwrap(), "-m", "immediate", "-w", "stop"];
        let _ = if self.as_postgres {
            Command::new("runuser").arg("-u").arg("postgres").arg("--").arg(&exe).args(args).output()
        } else {
            Command::new(&exe).args(args).output()
        };
    }
}

/// A `debrief` command on index folder `ix`.
fn debrief(ix: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_debrief"));
    c.env("DEBRIEF_INDEX", ix)
        .env("NO_COLOR", "1")
        .env("DEBRIEF_INDEX_THREADS", "1")
        .env_remove("DEBRIEF_TEAM_URL")
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR");
    c
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Run and check that nothing printed shows the password.
fn run(mut c: Command) -> Out {
    let o = c.output().expect("run debrief");
    let out = Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    assert!(
        !out.stdout.contains(PASSWORD) && !out.stderr.contains(PASSWORD),
        "the password was printed: {}{}",
        out.stdout,
        out.stderr
    );
    out
}

fn ok(c: Command) -> Out {
    let o = run(c);
    assert_eq!(o.code, 0, "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    o
}

fn index(ix: &Path, dir: &Path) {
    let mut c = debrief(ix);
    c.arg("index").arg("--quiet").arg(dir);
    ok(c);
}

fn push(ix: &Path, url: &str, name: &str) -> Out {
    let mut c = debrief(ix);
    c.args(["push", "--to", url, "--machine-name", name]);
    ok(c)
}

fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// Every row of the team tables, by (machine, session key), as text (without the time of
/// the push): what "the database as it was" means.
fn dump(pg: &Pg, db: &str) -> BTreeMap<(String, i64), Vec<String>> {
    let mut c = pg.client(db);
    let mut out: BTreeMap<(String, i64), Vec<String>> = BTreeMap::new();
    for t in ["sessions", "messages", "calls", "findings"] {
        let q = format!("SELECT machine, skey, (to_jsonb(t) - 'pushed_at')::text FROM {t} t ORDER BY 3");
        for r in c.query(&q, &[]).unwrap() {
            out.entry((r.get(0), r.get(1))).or_default().push(format!("{t} {}", r.get::<_, String>(2)));
        }
    }
    out
}

fn count(pg: &Pg, db: &str, sql: &str) -> i64 {
    pg.client(db).query_one(sql, &[]).unwrap().get(0)
}

/// A transcript of `n` exchanges with commands and outputs (some failing), numbered
/// from `from`, so that appending makes a longer session of the same file.
fn transcript(seed: u32, n: u32) -> Transcript {
    let mut t = Transcript::new();
    for i in 0..n {
        t = t
            .user(&format!("step {i} of run {seed}: why does NCCL_MAX_NCHANNELS=8 hang in allreduce?"))
            .assistant(&format!("Checking logs/run{seed}.log and torch.distributed for step {i}"))
            .bash(
                &format!("grep -n NCCL logs/run{seed}.log | tail -5"),
                &format!("NCCL WARN Call to connect returned Connection refused, errno {i}\nE1102 retry"),
                i % 3 == 1,
            );
    }
    t
}

#[test]
fn push_is_incremental_and_team_search_equals_local_search() {
    let Some(pg) = Pg::start() else { return };
    let url = pg.create("team");
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    for sub in ["claude-code", "codex", "detectors"] {
        copy_tree(&common::corpus(sub), &data.join(sub));
    }
    let grow = data.join("grow.jsonl");
    std::fs::write(&grow, transcript(1, 3).text()).unwrap();
    let ix = tmp.path().join("ix");
    index(&ix, &data);
    let first = push(&ix, &url, "box-a");
    assert!(first.stderr.contains("as machine box-a; 0 unchanged"), "{}", first.stderr);
    let sessions = count(&pg, "team", "SELECT count(*) FROM sessions");
    assert!(sessions > 10, "{sessions} sessions pushed");
    // Every message the index counted is there, and its calls.
    let messages = count(&pg, "team", "SELECT count(*) FROM messages");
    assert_eq!(messages, count(&pg, "team", "SELECT sum(messages)::bigint FROM sessions"));
    assert!(count(&pg, "team", "SELECT count(*) FROM calls") > 0);
    assert!(count(&pg, "team", "SELECT count(*) FROM findings WHERE details IS NOT NULL") > 0);
    assert_eq!(
        count(
            &pg,
            "team",
            "SELECT count(*) FROM sessions s JOIN redaction_rulesets r ON r.id = s.redaction WHERE r.redacted AND cardinality(r.rules) > 100"
        ),
        sessions
    );

    // A second push changes nothing.
    let before = dump(&pg, "team");
    let again = push(&ix, &url, "box-a");
    assert!(again.stderr.contains("pushed 0 sessions (0 messages"), "{}", again.stderr);
    assert!(again.stderr.contains(&format!("{sessions} unchanged")), "{}", again.stderr);
    assert_eq!(before, dump(&pg, "team"));
    let stamps = |pg: &Pg| -> Vec<(i64, String)> {
        pg.client("team")
            .query("SELECT skey, pushed_at::text FROM sessions ORDER BY skey", &[])
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect()
    };
    let stamped = stamps(&pg);

    // An append: that session alone is sent again, with its new messages.
    let mut f = std::fs::OpenOptions::new().append(true).open(&grow).unwrap();
    let longer = transcript(1, 5).text();
    f.write_all(&longer.as_bytes()[transcript(1, 3).text().len()..]).unwrap();
    drop(f);
    index(&ix, &data);
    let third = push(&ix, &url, "box-a");
    assert!(third.stderr.contains("pushed 1 sessions"), "{}", third.stderr);
    let changed: Vec<i64> = stamped.iter().zip(stamps(&pg)).filter(|(a, b)| a.1 != b.1).map(|(a, _)| a.0).collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    let grown: i32 = pg
        .client("team")
        .query_one("SELECT messages FROM sessions WHERE source LIKE '%grow.jsonl'", &[])
        .unwrap()
        .get(0);
    assert_eq!(grown, 5 * 3, "messages of the grown session");

    // Team search equals local search (every hit, all fields but the score and machine).
    let queries: &[&[&str]] = &[
        &["NCCL_MAX_NCHANNELS"],
        &["\"connection refused\""],
        &["error"],
        &["grep", "--program", "grep"],
        &["the -error"],
        &["", "--errors"],
        &["", "--detector", "retry-loop"],
        &["test", "--agent", "codex"],
        &["", "--role", "user", "--since", "2020-01-01"],
        &["logs/run1.log"],
        &["E1102"],
    ];
    for q in queries {
        let mut local = debrief(&ix);
        local.arg("search").args(*q).args(["--json", "-n", "10000"]);
        let mut team = debrief(&ix);
        team.arg("search").args(*q).args(["--json", "-n", "10000", "--from", &url]);
        let norm = |o: Out| -> Vec<serde_json::Value> {
            let mut v: Vec<serde_json::Value> = o
                .stdout
                .lines()
                .map(|l| {
                    let mut j: serde_json::Value = serde_json::from_str(l).unwrap();
                    let m = j.as_object_mut().unwrap();
                    m.remove("score");
                    m.remove("machine");
                    j
                })
                .collect();
            v.sort_by_key(|j| (j["source"].to_string(), j["session"].to_string(), j["idx"].as_u64()));
            v
        };
        let t = ok(team);
        assert!(t.stdout.lines().all(|l| l.contains("\"machine\":\"box-a\"")), "{}", t.stdout);
        let (l, t) = (norm(ok(local)), norm(t));
        assert!(!l.is_empty(), "{q:?} finds nothing locally");
        assert_eq!(l.len(), t.len(), "{q:?}: local {} hits, team {}", l.len(), t.len());
        let words = debrief::index::search::parse_query(q[0]).words();
        for (a, b) in l.iter().zip(&t) {
            // The team's snippet is cut from the message as the whole file's parse has it
            // (redacted). A local search re-reads the message's source lines alone, which
            // can give another snippet (the first of two messages on a line; a Codex
            // output without its call; a format without lines: the index's preview).
            let (mut a, mut b) = (a.clone(), b.clone());
            let snippet = b.as_object_mut().unwrap().remove("snippet").unwrap();
            a.as_object_mut().unwrap().remove("snippet");
            assert_eq!(a, b, "{q:?}");
            let source = Path::new(a["source"].as_str().unwrap());
            let parsed = debrief::formats::parse_file(source, None).unwrap();
            let s = parsed.sessions.iter().find(|s| s.meta.id == a["session"].as_str().unwrap()).unwrap();
            let m = s.message(a["idx"].as_u64().unwrap() as u32).unwrap();
            let r = debrief::redact::Redactor::for_meta(&s.meta, &[]).unwrap();
            let want = debrief::index::search::make_snippet(m, &words, 220, Some(&r));
            assert_eq!(snippet.as_str().unwrap(), want.text, "{q:?} {source:?} [msg {}]", a["idx"]);
        }
    }
    // sessions --from: the same sessions as the local list, plus the machine.
    let mut local = debrief(&ix);
    local.args(["sessions", "--json", "-n", "10000"]);
    let mut team = debrief(&ix);
    team.args(["sessions", "--json", "-n", "10000", "--from", &url, "--machine", "box-a"]);
    let ids = |o: Out| -> Vec<String> {
        let mut v: Vec<String> = o
            .stdout
            .lines()
            .map(|l| {
                let mut j: serde_json::Value = serde_json::from_str(l).unwrap();
                j.as_object_mut().unwrap().remove("machine");
                j.to_string()
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids(ok(local)), ids(ok(team)));
    let mut none = debrief(&ix);
    none.args(["sessions", "--json", "--from", &url, "--machine", "nobody"]);
    assert_eq!(ok(none).stdout, "");

    // show --from: a session's messages as the local show gives them, plus the machine
    // (every session of a few formats: their outputs are short, so none was trimmed).
    let mut list = debrief(&ix);
    list.args(["sessions", "--json", "-n", "10000"]);
    let listed: Vec<serde_json::Value> = ok(list).stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut shown = 0;
    for j in listed.iter().filter(|j| {
        let src = j["source"].as_str().unwrap_or("");
        src.ends_with("grow.jsonl") || src.contains("/codex/") || src.contains("/claude-code/")
    }) {
        let id = j["session"].as_str().unwrap();
        let mut local = debrief(&ix);
        local.args(["show", id, "--json"]);
        let mut team = debrief(&ix);
        team.args(["show", id, "--json", "--from", &url]);
        let t = ok(team);
        assert!(t.stdout.lines().all(|l| l.contains("\"machine\":\"box-a\"")), "{}", t.stdout);
        let strip = |o: &str| -> Vec<serde_json::Value> {
            o.lines()
                .map(|l| {
                    let mut j: serde_json::Value = serde_json::from_str(l).unwrap();
                    j.as_object_mut().unwrap().remove("machine");
                    j
                })
                .collect()
        };
        assert_eq!(strip(&ok(local).stdout), strip(&t.stdout), "show --from {id}");
        shown += 1;
    }
    assert!(shown >= 5, "{shown} sessions compared");
    let mut text = debrief(&ix);
    text.args(["show", &listed[0]["session"].as_str().unwrap()[..8], "--from", &url]);
    assert!(ok(text).stdout.contains("[msg 1]"), "the terminal view, by an id's start");
    // report --from: the same write-up as the local report, for a session whose outputs
    // were short enough to be pushed whole (the findings are the pushing machine's).
    let mut reported = 0;
    for j in listed.iter().filter(|j| j["source"].as_str().is_some_and(|s| s.contains("/detectors/"))).take(6) {
        let id = j["session"].as_str().unwrap();
        let mut local = debrief(&ix);
        local.args(["report", id]);
        let mut team = debrief(&ix);
        team.args(["report", id, "--from", &url]);
        let (l, t) = (ok(local).stdout, ok(team).stdout);
        assert!(t.contains("[msg "), "a write-up of {id}: {t}");
        assert_eq!(l, t, "report --from {id}");
        reported += 1;
    }
    assert!(reported >= 3, "{reported} reports compared");
    let mut two = debrief(&ix);
    two.args(["report", "a", "b", "--from", &url]);
    assert_eq!(run(two).code, 2, "one session with --from");
    let mut missing = debrief(&ix);
    missing.args(["show", "ffffffff-nothing", "--from", &url]);
    let out = run(missing);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("no session id starts with `ffffffff-nothing` in the team store"), "{}", out.stderr);
}

/// Two lists of findings are the same; else the first that differs, and how many.
fn same_findings(a: &[serde_json::Value], b: &[serde_json::Value], what: &str) {
    let first = a.iter().zip(b).position(|(x, y)| x != y);
    assert!(
        a.len() == b.len() && first.is_none(),
        "{what}: {} findings and {}; first difference: {:#}\n{:#}",
        a.len(),
        b.len(),
        first.map(|i| a[i].clone()).unwrap_or_default(),
        first.map(|i| b[i].clone()).unwrap_or_default()
    );
}

/// `detect --json` lines with the machine taken out, and the machines they named.
fn findings(o: &Out) -> (Vec<serde_json::Value>, Vec<String>) {
    let mut machines = Vec::new();
    let v = o
        .stdout
        .lines()
        .map(|l| {
            let mut j: serde_json::Value = serde_json::from_str(l).unwrap();
            if let Some(m) = j.as_object_mut().unwrap().remove("machine") {
                machines.push(m.as_str().unwrap().to_string());
            }
            j
        })
        .collect();
    (v, machines)
}

#[test]
fn team_detect_equals_local_detect() {
    let Some(pg) = Pg::start() else { return };
    let url = pg.create("team");
    let tmp = tempfile::tempdir().unwrap();
    // Two machines: one with the detectors' samples (every detector fires there), one
    // with Claude Code sessions.
    let (data_a, data_b) = (tmp.path().join("a"), tmp.path().join("b"));
    copy_tree(&common::corpus("detectors"), &data_a);
    copy_tree(&common::corpus("claude-code"), &data_b);
    let (ix_a, ix_b) = (tmp.path().join("ix-a"), tmp.path().join("ix-b"));
    index(&ix_a, &data_a);
    index(&ix_b, &data_b);
    push(&ix_a, &url, "box-a");
    push(&ix_b, &url, "box-b");

    let detect = |ix: &Path, args: &[&str]| -> Out {
        let mut c = debrief(ix);
        c.arg("detect").args(args);
        ok(c)
    };
    // The findings of box-a's sessions read back from the store are those of `detect`
    // on box-a's index, line for line (the contract's order), plus the machine.
    let local = findings(&detect(&ix_a, &["--json"])).0;
    let (team, machines) = findings(&detect(&ix_a, &["--json", "--from", &url, "--machine", "box-a"]));
    assert!(local.len() >= 10, "{} findings locally", local.len());
    let detectors: std::collections::BTreeSet<&str> = local.iter().map(|j| j["detector"].as_str().unwrap()).collect();
    assert!(detectors.len() >= 8, "{detectors:?}");
    same_findings(&local, &team, "local, team");
    assert_eq!(machines.len(), team.len());
    assert!(machines.iter().all(|m| m == "box-a"), "{machines:?}");
    // Without --machine: everyone's.
    let local_b = findings(&detect(&ix_b, &["--json"])).0;
    let (all, machines) = findings(&detect(&ix_a, &["--json", "--from", &url]));
    assert_eq!(all.len(), local.len() + local_b.len());
    assert_eq!(machines.iter().filter(|m| *m == "box-b").count(), local_b.len());
    let mut none = debrief(&ix_a);
    none.args(["detect", "--json", "--from", &url, "--machine", "nobody"]);
    assert_eq!(ok(none).stdout, "");
    // The same filters: --select, a session by its id, --stats.
    let one = local[0]["session"].as_str().unwrap();
    for args in [&["--select", "retry-loop,oscillation"][..], &["--ignore", "retry-loop"], &[one]] {
        let l = findings(&detect(&ix_a, &[&["--json"], args].concat())).0;
        let t = findings(&detect(&ix_a, &[&["--json", "--from", &url, "--machine", "box-a"], args].concat())).0;
        assert!(!l.is_empty(), "{args:?}");
        same_findings(&l, &t, &format!("{args:?}"));
    }
    let stats = |o: Out| o.stdout;
    assert_eq!(
        stats(detect(&ix_a, &["--stats", "--json"])),
        stats(detect(&ix_a, &["--stats", "--json", "--from", &url, "--machine", "box-a"]))
    );
    // The terminal view names the machine.
    let text = detect(&ix_a, &["--from", &url, "--machine", "box-a"]);
    assert!(text.stdout.contains(" @box-a"), "{}", text.stdout);
    assert!(text.stderr.contains(&format!("{} findings", local.len())), "{}", text.stderr);

    // Errors: exit 1 for the database (one line), 2 for the arguments.
    let fails = |args: &[&str], code: i32| -> String {
        let mut c = debrief(&ix_a);
        c.arg("detect").args(args);
        let o = run(c);
        assert_eq!(o.code, code, "{args:?}: {}", o.stderr);
        // clap's usage errors (exit 2) add the usage lines; the database's are one line.
        assert!(code == 2 || o.stderr.lines().count() == 1, "{args:?}: {}", o.stderr);
        assert!(o.stdout.is_empty(), "{args:?}: {}", o.stdout);
        o.stderr
    };
    let wrong = url.replace(PASSWORD, "not-the-Pw-4471");
    let e = fails(&["--from", &wrong], 1);
    assert!(
        !e.contains("not-the-Pw-4471") && e.contains(":***@") && e.contains("password authentication failed"),
        "{e}"
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let e = fails(&["--from", &format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{port}/x")], 1);
    assert!(e.starts_with("debrief: connecting to the team database postgres://debrief:***@"), "{e}");
    let e = fails(&["--from", &url, "ffffffff-nothing"], 1);
    assert!(e.contains("no session id starts with `ffffffff-nothing` in the team store"), "{e}");
    let e = fails(&["--from", "mysql://u:hunter2hunter@h/db"], 2);
    assert!(!e.contains("hunter2hunter"), "{e}");
    fails(&["--machine", "box-a"], 2);
    fails(&["--from", &url, "--input-format", "claude-code"], 2);
}

#[test]
fn two_machines_pushing_at_once_never_collide() {
    let Some(pg) = Pg::start() else { return };
    let url = pg.create("team");
    let tmp = tempfile::tempdir().unwrap();
    // The same files on two machines: same session ids and keys, other machine ids.
    let data = tmp.path().join("data");
    copy_tree(&common::corpus("claude-code"), &data.join("claude-code"));
    let grow = data.join("grow.jsonl");
    let (a, b) = (tmp.path().join("ix-a"), tmp.path().join("ix-b"));
    for round in 1..=4u32 {
        std::fs::write(&grow, transcript(7, round).text()).unwrap();
        index(&a, &data);
        index(&b, &data);
        let spawn = |ix: &Path, name: &str| {
            let mut c = debrief(ix);
            c.args(["push", "--to", &url, "--machine-name", name]);
            std::thread::spawn(move || run(c))
        };
        let (ta, tb) = (spawn(&a, "box-a"), spawn(&b, "box-b"));
        for o in [ta.join().unwrap(), tb.join().unwrap()] {
            assert_eq!(o.code, 0, "round {round}: {}", o.stderr);
        }
        let per: Vec<(String, i64, i64)> = pg
            .client("team")
            .query(
                "SELECT mc.name, count(*), sum(s.messages)::bigint FROM sessions s JOIN machines mc ON mc.id = s.machine GROUP BY 1 ORDER BY 1",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect();
        assert_eq!(per.len(), 2, "{per:?}");
        assert_eq!((per[0].1, per[0].2), (per[1].1, per[1].2), "round {round}: {per:?}");
        assert_eq!(
            count(&pg, "team", "SELECT count(*) FROM messages"),
            count(&pg, "team", "SELECT sum(messages)::bigint FROM sessions")
        );
        let grown: Vec<i32> = pg
            .client("team")
            .query("SELECT messages FROM sessions WHERE source LIKE '%grow.jsonl'", &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(grown, vec![(round * 3) as i32; 2], "round {round}");
    }
    // The same folder pushed twice at once: one waits for the other, no error.
    let spawn = |ix: &Path| {
        let mut c = debrief(ix);
        c.args(["push", "--to", &url, "--machine-name", "box-a"]);
        std::thread::spawn(move || run(c))
    };
    std::fs::write(&grow, transcript(7, 6).text()).unwrap();
    index(&a, &data);
    let (t1, t2) = (spawn(&a), spawn(&a));
    for o in [t1.join().unwrap(), t2.join().unwrap()] {
        assert_eq!(o.code, 0, "{}", o.stderr);
    }
}

#[test]
fn a_push_killed_anywhere_leaves_each_session_as_before_or_after() {
    let Some(pg) = Pg::start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let files: Vec<PathBuf> = (0..4).map(|i| data.join(format!("s{i}.jsonl"))).collect();
    for (i, f) in files.iter().enumerate() {
        std::fs::write(f, transcript(i as u32, 2).text()).unwrap();
    }
    let (old, new) = (tmp.path().join("ix-old"), tmp.path().join("ix-new"));
    index(&old, &data);
    for (i, f) in files.iter().enumerate() {
        std::fs::write(f, transcript(i as u32, 4).text()).unwrap();
    }
    index(&new, &data);
    // One machine: the two index folders share its id.
    let scratch = pg.create("scratch");
    push(&old, &scratch, "box");
    std::fs::copy(old.join("machine-id"), new.join("machine-id")).unwrap();
    let points = [
        ("begin", 1),
        ("session", 1),
        ("messages", 1),
        ("calls", 1),
        ("findings", 1),
        ("commit", 1),
        ("committed", 1),
        ("messages", 2),
        ("calls", 3),
        ("commit", 4),
    ];
    for (n, (point, k)) in points.iter().enumerate() {
        let db = format!("kill{n}");
        let url = pg.create(&db);
        push(&old, &url, "box");
        let d0 = dump(&pg, &db);
        let mut c = debrief(&new);
        c.args(["push", "--to", &url, "--machine-name", "box"])
            .env("DEBRIEF_PUSH_STOP", format!("{point}:{k}"))
            .stderr(Stdio::piped())
            .stdout(Stdio::null());
        let mut child = c.spawn().unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        assert!(line.contains(&format!("stopped at {point}:{k}")), "{point}:{k}: {line}");
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let d1 = dump(&pg, &db);
        push(&new, &url, "box");
        let d2 = dump(&pg, &db);
        assert_eq!(d0.keys().collect::<Vec<_>>(), d2.keys().collect::<Vec<_>>());
        let mut done = 0;
        for (key, after) in &d2 {
            let before = &d0[key];
            assert_ne!(before, after, "every session changed");
            match d1.get(key) {
                Some(x) if x == after => done += 1,
                Some(x) if x == before => {}
                x => panic!("{point}:{k}: session {key:?} is half written: {x:?}"),
            }
        }
        let want = if *point == "committed" { *k } else { k - 1 };
        assert_eq!(done, want, "{point}:{k}: sessions committed before the kill");
    }
}

#[test]
fn a_newer_schema_is_refused() {
    let Some(pg) = Pg::start() else { return };
    let url = pg.create("team");
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("a.jsonl"), transcript(3, 2).text()).unwrap();
    let ix = tmp.path().join("ix");
    index(&ix, &data);
    push(&ix, &url, "box");
    let v: i32 = pg.client("team").query_one("SELECT max(version) FROM debrief_schema", &[]).unwrap().get(0);
    pg.client("team")
        .execute("INSERT INTO debrief_schema (version, client) VALUES ($1, 'debrief 99')", &[&(v + 1)])
        .unwrap();
    let before = dump(&pg, "team");
    std::fs::write(data.join("b.jsonl"), transcript(4, 2).text()).unwrap();
    index(&ix, &data);
    for args in [vec!["push", "--to", &url], vec!["search", "NCCL", "--from", &url], vec!["sessions", "--from", &url]] {
        let mut c = debrief(&ix);
        c.args(&args);
        let o = run(c);
        assert_eq!(o.code, 1, "{args:?}: {}", o.stderr);
        let want = format!("has schema version {}, newer than this debrief knows ({v}): upgrade debrief", v + 1);
        assert!(o.stderr.contains(&want) && o.stderr.lines().count() == 1, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(&format!("postgres://{USER}:***@127.0.0.1")), "{}", o.stderr);
    }
    assert_eq!(before, dump(&pg, "team"));
}

#[test]
fn wrong_arguments_and_credentials() {
    let Some(pg) = Pg::start() else { return };
    let url = pg.create("team");
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("a.jsonl"), transcript(3, 1).text()).unwrap();
    let ix = tmp.path().join("ix");
    index(&ix, &data);
    // No URL.
    let mut c = debrief(&ix);
    c.arg("push");
    let o = run(c);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("DEBRIEF_TEAM_URL"), "{}", o.stderr);
    // The URL from the environment.
    let mut c = debrief(&ix);
    c.args(["push", "--machine-name", "env-box"]).env("DEBRIEF_TEAM_URL", &url);
    assert!(ok(c).stderr.contains("as machine env-box"));
    // --no-redact alone is refused, and sends nothing.
    let mut c = debrief(&ix);
    c.args(["push", "--no-redact", "--to", &url]);
    let o = run(c);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("--i-understand-unredacted"), "{}", o.stderr);
    // A wrong password: said, without either password.
    let wrong = url.replace(PASSWORD, "not-the-Pw-4471");
    let mut c = debrief(&ix);
    c.args(["push", "--to", &wrong]);
    let o = run(c);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(!o.stderr.contains("not-the-Pw-4471") && o.stderr.contains(":***@"), "{}", o.stderr);
    assert!(o.stderr.contains("password authentication failed"), "{}", o.stderr);
    // --machine without --from, and a URL that is not PostgreSQL's.
    let mut c = debrief(&ix);
    c.args(["search", "x", "--machine", "a"]);
    assert_eq!(run(c).code, 2);
    let mut c = debrief(&ix);
    c.args(["search", "x", "--from", "mysql://u:hunter2hunter@h/db"]);
    let o = run(c);
    assert_eq!(o.code, 2);
    assert!(!o.stderr.contains("hunter2hunter"), "{}", o.stderr);
    // Nothing listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut c = debrief(&ix);
    c.args(["sessions", "--from", &format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{port}/x")]);
    let o = run(c);
    assert_eq!(o.code, 1);
    assert!(o.stderr.starts_with("debrief: connecting to the team database postgres://debrief:***@"), "{}", o.stderr);
}

#[test]
fn planted_secrets_never_reach_the_database() {
    let Some(pg) = Pg::start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let (samples, _) = secret_samples();
    let mut needles: Vec<(String, String)> = Vec::new();
    let mut t = Transcript::new();
    for (i, (kind, s)) in samples.iter().enumerate() {
        needles.push((kind.clone(), s.secret.clone()));
        // Each secret in a different place: the user's words, the assistant's, a
        // command line, a command's output.
        t = match i % 4 {
            0 => t.user(&format!("the key is {} ok", s.text)),
            1 => t.assistant(&format!("Found it: {} in the config", s.text)),
            2 => t.bash(&format!("echo {} > .env", s.text), "done", false),
            _ => t.bash("cat .env", &format!("export X={}\nok", s.text), false),
        };
    }
    for (kind, text, secret) in personal_samples() {
        needles.push((kind.to_string(), secret));
        t = t.bash(&text, &format!("{text}\nexit 0"), false);
    }
    std::fs::write(data.join("secrets.jsonl"), t.text()).unwrap();
    let ix = tmp.path().join("ix");
    index(&ix, &data);
    let needles = Needles::new(needles);
    let scan = |db: &str| -> Vec<String> {
        let mut c = pg.client(db);
        let tables: Vec<String> = c
            .query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'", &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(tables.len() >= 7, "{tables:?}");
        // The rulesets hold debrief's own rule ids (some spell a key's fixed prefix):
        // nothing of a transcript.
        let ours: std::collections::BTreeSet<&str> =
            debrief::redact::Redactor::builtin().rule_ids().into_iter().collect();
        for r in c.query("SELECT rules FROM redaction_rulesets", &[]).unwrap() {
            let rules: Vec<String> = r.get(0);
            assert!(rules.iter().all(|x| ours.contains(x.as_str())), "{rules:?}");
        }
        let mut leaks = Vec::new();
        for t in tables.into_iter().filter(|t| t != "redaction_rulesets") {
            for r in c.query(&format!("SELECT to_jsonb(t)::text FROM {t} t"), &[]).unwrap() {
                let row: String = r.get(0);
                // The JSON text escapes quotes and backslashes; read it back as text too.
                let unescaped = row.replace("\\\"", "\"").replace("\\\\", "\\").replace("\\n", "\n");
                for l in needles.leaks(&row).into_iter().chain(needles.leaks(&unescaped)) {
                    leaks.push(format!("{t}: {l}"));
                }
            }
        }
        leaks
    };
    let url = pg.create("team");
    push(&ix, &url, "box");
    let leaks = scan("team");
    assert!(leaks.is_empty(), "{} secrets in the database:\n{}", leaks.len(), leaks.join("\n"));
    // The same push unredacted, understood: the secrets are there (the scan can fail).
    let raw = pg.create("raw");
    let mut c = debrief(&ix);
    c.args(["push", "--to", &raw, "--no-redact", "--i-understand-unredacted"]);
    ok(c);
    let shown = scan("raw");
    assert!(
        shown.len() >= needles.needles.len() / 2,
        "only {} of {} secrets found unredacted",
        shown.len(),
        needles.needles.len()
    );
    let redacted: bool = pg
        .client("raw")
        .query_one("SELECT bool_and(r.redacted) FROM sessions s JOIN redaction_rulesets r ON r.id = s.redaction", &[])
        .unwrap()
        .get(0);
    assert!(!redacted, "the rows say they were not redacted");
}
