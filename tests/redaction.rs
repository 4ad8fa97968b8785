//! Redaction holds in every output. One sample of every secret kind the rule set
//! covers — gitleaks' own test recipes (`tests/data/gitleaks-samples.toml`, from the
//! rules' `tps`), else a string the rule's regex generates — plus hosts, IP and e-mail
//! addresses and home folders, all in one session; none may survive in `show`
//! (terminal and `--json`), `search` (snippets and `--json`), `detect` (summaries,
//! commands, `--json`), `sessions` or `report` (Markdown, HTML, JSON). The random parts
//! come from a fixed seed: no secret, real or fake, is written in the repository.
//! Ordinary text (hashes, UUIDs, project paths, versions) must come through unchanged.

mod common;

use common::secrets::{Needles, json_text, personal_samples, secret_samples};
use common::synth::Transcript;

/// Text that no rule may touch.
const ORDINARY: &[&str] = &[
    "commit 83ca5e5f0d9c1b2a3e4f5a6b7c8d9e0f1a2b3c4d",
    "session 7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93",
    "src/index/writer.rs:212 and tests/redaction.rs",
    "torch==2.5.1 numpy 1.26.4 rustc 1.95.0 v1.2.3",
    "NCCL_MAX_NCHANNELS=2 python -m sglang.launch_server --tp 8",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
];

struct Corpus {
    _dir: tempfile::TempDir,
    file: std::path::PathBuf,
    index: std::path::PathBuf,
    /// (kind, secret) for every sample.
    needles: Vec<(String, String)>,
}

fn build() -> (Corpus, usize, Vec<String>) {
    let (secrets, missing) = secret_samples();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = Transcript::new().user(&format!("Deploy it. {}", ORDINARY.join(" | ")));
    let mut needles = Vec::new();
    for (n, (id, sample)) in secrets.iter().enumerate() {
        let (text, secret) = (&sample.text, &sample.secret);
        // In a command's output, as a config file or environment would show it. (The
        // file is not named after the rule: some rule ids spell the key's prefix.)
        t = t.bash(&format!("cat config/service-{n}.env"), text, false);
        needles.push((id.clone(), secret.clone()));
    }
    for (kind, text, secret) in personal_samples() {
        t = t.bash(&text, &format!("{text}\nok"), false);
        needles.push((kind.to_string(), secret));
    }
    // Secrets in what the detectors quote: the same failing command three times (a
    // retry loop) and the user's and assistant's own words.
    let gh = &secrets.get("github-pat").expect("github sample").secret;
    let failing = format!("python deploy.py --token {gh} --url https://build.corp-internal.net/api/v2/jobs");
    for _ in 0..3 {
        t = t.bash(&failing, "Traceback (most recent call last):\nPermissionError: 401 from 203.0.113.77", true);
    }
    let aws = &secrets.get("aws-access-token").expect("aws sample").secret;
    t = t.user(&format!("Use {aws} and ssh root@203.0.113.77, not ann.smith@corp-mail.com."));
    t = t.assistant(&format!("Retrying with {gh} against 203.0.113.77. {}", ORDINARY.join(" | ")));
    // Records a parser cannot use: diagnostics (bad-record reasons, unknown record
    // types) quote them.
    let garbled = format!(
        "{{\"type\":\"{gh}\"}}\n{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":{{\"x\":\"{aws}\"}}}}}}\n"
    );
    let file = dir.path().join("leaky.jsonl");
    std::fs::write(&file, t.text() + &garbled).expect("write");
    let index = dir.path().join("ix");
    let n = secrets.len();
    (Corpus { _dir: dir, file, index, needles }, n, missing)
}

/// The needles (or any 12 characters of one) that `out` shows.
fn leaks(out: &str, needles: &[(String, String)]) -> Vec<String> {
    Needles::new(needles.to_vec()).leaks(out)
}

fn run(c: &Corpus, args: &[&str]) -> String {
    let out = common::debrief(&c.index).args(args).output().expect("run debrief");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn no_secret_survives_in_any_output() {
    let (c, kinds, missing) = build();
    let recipes = secret_samples().0.values().filter(|s| s.from.starts_with("gitleaks")).count();
    assert!(missing.is_empty(), "rules without a sample the redaction hides: {missing:?}");
    let f = c.file.to_str().expect("path");
    let index = common::debrief(&c.index).args(["index", f]).output().expect("run");
    assert!(index.status.success(), "{}", String::from_utf8_lossy(&index.stderr));
    // Searches that land on the samples: their surroundings, and the secrets themselves
    // (a secret can be searched for; it is just not shown).
    let mut searches: Vec<Vec<String>> =
        ["cat", "config", "curl", "ssh", "Retrying", "--errors"].iter().map(|w| vec![w.to_string()]).collect();
    let generic = searches.len();
    for (_, s) in c.needles.iter().step_by(8) {
        if let Some(word) = s.split(|ch: char| !ch.is_alphanumeric()).find(|w| w.len() >= 6) {
            searches.push(vec![word.to_string()]);
        }
    }
    let mut outputs: Vec<(String, String)> = Vec::new();
    for json in [false, true] {
        let mut show = vec!["show", f, "--full"];
        let mut detect = vec!["detect", f];
        let mut sessions = vec!["sessions"];
        if json {
            show.push("--json");
            detect.push("--json");
            sessions.push("--json");
        }
        for args in [show, detect, sessions] {
            let out = run(&c, &args);
            outputs.push((args.join(" "), if json { json_text(&out) } else { out }));
        }
        // Searches for the secrets themselves: once, as JSON.
        for q in searches.iter().take(if json { searches.len() } else { generic }) {
            let mut args: Vec<&str> = vec!["search", "-n", "200"];
            args.extend(q.iter().map(String::as_str));
            if json {
                args.push("--json");
            }
            let out = run(&c, &args);
            outputs.push((args.join(" "), if json { json_text(&out) } else { out }));
        }
    }
    for fmt in ["md", "html", "json"] {
        let out = run(&c, &["report", f, "--format", fmt]);
        outputs.push((format!("report --format {fmt}"), out));
        let out = run(&c, &["report", f, "--format", fmt, "--arc", "1..400"]);
        outputs.push((format!("report --arc --format {fmt}"), out));
    }
    let diagnostics = String::from_utf8_lossy(&index.stderr).into_owned();
    assert!(
        diagnostics.contains("unknown type `[REDACTED:github-pat]`"),
        "the garbled record is reported: {diagnostics}"
    );
    outputs.push(("index (stderr)".into(), diagnostics));
    outputs.push(("last-run.log".into(), std::fs::read_to_string(c.index.join("last-run.log")).expect("log")));
    outputs.push(("sources".into(), run(&c, &["sources"])));
    outputs.push(("sources --json".into(), run(&c, &["sources", "--json"])));
    let shown = common::debrief(&c.index).args(["show", f]).output().expect("run");
    outputs.push(("show (stderr)".into(), String::from_utf8_lossy(&shown.stderr).into_owned()));
    let mut failures = Vec::new();
    for (what, out) in &outputs {
        let l = leaks(out, &c.needles);
        if !l.is_empty() {
            failures.push(format!("{what}: {}", l.join(", ")));
        }
    }
    assert!(failures.is_empty(), "{} outputs leak:\n{}", failures.len(), failures.join("\n"));
    // The outputs did carry the samples' places: the detect summaries quote the failing
    // command, search found the messages, show printed every one.
    let detect = &outputs.iter().find(|(w, _)| w.starts_with("detect")).expect("detect ran").1;
    assert!(detect.contains("[REDACTED:github-pat]"), "detect quotes the command, redacted:\n{detect}");
    eprintln!(
        "{kinds} secret kinds ({recipes} from gitleaks' test recipes, the rest from the rules' regexes) and {} personal kinds hidden in {} outputs",
        personal_samples().len(),
        outputs.len()
    );
}

#[test]
fn with_no_redact_every_sample_is_shown_and_ordinary_text_is_never_touched() {
    let (c, _, _) = build();
    let f = c.file.to_str().expect("path");
    let raw = json_text(&run(&c, &["show", f, "--json", "--no-redact"]));
    let hidden: Vec<String> =
        c.needles.iter().filter(|(_, s)| !raw.contains(s.as_str())).map(|(k, _)| k.clone()).collect();
    assert!(hidden.is_empty(), "--no-redact must show what the transcript has: {hidden:?}");
    let shown = json_text(&run(&c, &["show", f, "--json"]));
    for o in ORDINARY {
        assert!(shown.contains(o), "mangled by redaction: {o}");
        assert!(debrief::redact::redact(o) == *o, "redact() changes {o}");
    }
    // The transcript's own project path keeps everything but the user name.
    assert!(shown.contains("/home/[USER]/.netrc"), "home folder redacted to [USER]");
}

#[test]
fn no_redact_and_extra_patterns_conflict_with_a_clear_message() {
    let (c, _, _) = build();
    let pats = c.index.with_file_name("pats.txt");
    std::fs::write(&pats, "Deploy\n").expect("write");
    let out = common::debrief(&c.index)
        .args(["show", c.file.to_str().expect("path"), "--no-redact", "--redact-patterns"])
        .arg(&pats)
        .output()
        .expect("run");
    // A usage error (exit 2) that names both flags.
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--no-redact") && err.contains("--redact-patterns"), "{err}");
    let shown = run(&c, &["show", c.file.to_str().expect("path"), "--redact-patterns", pats.to_str().expect("path")]);
    assert!(!shown.contains("Deploy it") && shown.contains("[REDACTED] it"), "extra pattern applied");
}

/// The transcript files' own paths (`source`) are not redacted anywhere, though they
/// hold the user's name and the project folder: they are the user's files, scripts open
/// them, and a report's suggested `debrief report PATH --episode N` must paste. Here the
/// archive is under a home folder whose user name the session's own folder gives away.
#[test]
fn source_paths_are_shown_as_they_are() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home/ann");
    let dir = home.join(".claude/projects/-home-ann-src-app");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let failing = "python train.py --config /home/ann/src/app/cfg.yaml";
    let mut t = Transcript::new().user("Train it, ann.");
    for _ in 0..3 {
        t = t.bash(failing, "Traceback (most recent call last):\nFileNotFoundError: /home/ann/data", true);
    }
    let file = dir.join("0f3e2d1c-aaaa-4bbb-8ccc-123456789abc.jsonl");
    std::fs::write(&file, t.assistant("It keeps failing on /home/ann/data.").text()).expect("write");
    let ix = tmp.path().join("ix");
    let index = common::debrief(&ix).arg("index").arg(&file).output().expect("run");
    assert!(index.status.success(), "{}", String::from_utf8_lossy(&index.stderr));
    let full = file.to_str().expect("path").to_string();
    // With HOME at the user's home (`~/.claude/…`), and from `/` (`tmp/…/home/ann/.claude/…`).
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    for (cwd, home_env, shown) in [
        (elsewhere.clone(), home.clone(), format!("~/{}", file.strip_prefix(&home).expect("under home").display())),
        ("/".into(), elsewhere.clone(), full.trim_start_matches('/').to_string()),
    ] {
        let out = |args: &[&str]| -> String {
            let o = common::debrief(&ix).current_dir(&cwd).env("HOME", &home_env).args(args).output().expect("run");
            assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
            String::from_utf8(o.stdout).expect("UTF-8")
        };
        let report = out(&["report", &full]);
        assert!(report.contains(&shown), "the report's footer names {shown}:\n{report}");
        let arc = out(&["report", &full, "--arc", "1..9"]);
        assert!(arc.contains(&format!("debrief report {shown} --episode")), "a command that pastes:\n{arc}");
        let facts: serde_json::Value =
            serde_json::from_str(&out(&["report", &full, "--format", "json"])).expect("JSON");
        assert_eq!(facts["facts"]["session"]["source"], shown.as_str(), "facts.session.source");
        for text in [out(&["show", &full]), out(&["detect", &full]), out(&["search", "traceback"]), out(&["sessions"])]
        {
            assert!(text.contains(&shown), "{shown} in:\n{text}");
        }
        for args in [
            &["show", &full, "--json"][..],
            &["detect", &full, "--json"],
            &["search", "traceback", "--json"],
            &["sessions", "--json"],
        ] {
            for line in out(args).lines() {
                let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
                assert_eq!(v["source"], full.as_str(), "{args:?}");
            }
        }
        // The user name is still redacted where the transcript says it.
        let show = out(&["show", &full]);
        assert!(!show.contains("/home/ann/data") && show.contains("/home/[USER]/data"), "{show}");
    }
}
