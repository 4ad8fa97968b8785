//! Redaction holds in every output. One sample of every secret kind the rule set
//! covers — gitleaks' own test recipes (`tests/data/gitleaks-samples.toml`, from the
//! rules' `tps`), else a string the rule's regex generates — plus hosts, IP and e-mail
//! addresses and home folders, all in one session; none may survive in `show`
//! (terminal and `--json`), `search` (snippets and `--json`), `detect` (summaries,
//! commands, `--json`), `sessions` or `report` (Markdown, HTML, JSON). The random parts
//! come from a fixed seed: no secret, real or fake, is written in the repository.
//! Ordinary text (hashes, UUIDs, project paths, versions) must come through unchanged.

mod common;

use std::collections::{BTreeMap, HashSet};

use common::synth::Transcript;
use rand::SeedableRng;
use rand::rngs::StdRng;
use regex::Regex;
use serde::Deserialize;

#[derive(Deserialize)]
struct RuleFile {
    rules: Vec<Rule>,
}

#[derive(Deserialize)]
struct Rule {
    id: String,
    regex: String,
    #[serde(rename = "secretGroup")]
    secret_group: Option<usize>,
    #[serde(default)]
    keywords: Vec<String>,
}

#[derive(Deserialize)]
struct Samples {
    sample: Vec<Recipe>,
}

#[derive(Deserialize)]
struct Recipe {
    rule: String,
    parts: Vec<Part>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Part {
    Lit(String),
    Re(String),
}

fn rules() -> Vec<Rule> {
    let mut out = Vec::new();
    for f in ["src/redact/gitleaks.toml", "src/redact/builtin.toml"] {
        let text = std::fs::read_to_string(common::root().join(f)).expect("rule file");
        out.extend(toml::from_str::<RuleFile>(&text).expect("rules parse").rules);
    }
    out
}

fn seed_of(s: &str, attempt: u64) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)) ^ attempt
}

fn generate(re: &str, rng: &mut StdRng) -> Option<String> {
    let g = rand_regex::Regex::compile(&without_anchors(re), 40).ok()?;
    Some(rand::Rng::sample(rng, &g))
}

/// `re` without `^`, `$`, `\b` and the like, which a generator cannot honour (a
/// candidate that needed them fails the check after generation and is tried again),
/// and with ASCII classes for `\d`, `\w`, `\s`: keys are ASCII, and a Unicode digit
/// matches `\d` but makes no sample of a real key.
fn without_anchors(re: &str) -> String {
    let mut out = String::with_capacity(re.len());
    let mut chars = re.chars().peekable();
    let mut class = 0;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let n = chars.next().unwrap_or('\\');
                if class == 0 && matches!(n, 'b' | 'B' | 'A' | 'z') {
                    continue;
                }
                let ascii = match n {
                    'd' => "0-9",
                    'w' => "0-9A-Za-z_",
                    's' => " \\t",
                    _ => "",
                };
                match (ascii, class) {
                    ("", _) => {
                        out.push(c);
                        out.push(n);
                    }
                    (a, 0) => {
                        out.push('[');
                        out.push_str(a);
                        out.push(']');
                    }
                    (a, _) => out.push_str(a),
                }
            }
            '[' => {
                class += 1;
                out.push(c);
            }
            ']' if class > 0 => {
                class -= 1;
                out.push(c);
            }
            '^' | '$' if class == 0 => {}
            _ => out.push(c),
        }
    }
    out
}

/// The secret in `text`: what the rule's secret group matches, else the random parts.
fn secret_in(rule: &Rule, text: &str) -> Option<String> {
    let caps = Regex::new(&rule.regex).ok()?.captures(text)?;
    let m = match rule.secret_group {
        Some(g) => caps.get(g),
        None => caps.iter().skip(1).flatten().next().or(caps.get(0)),
    }?;
    Some(m.as_str().to_string())
}

/// A sample for `rule`: (the text as it would sit in a file, the secret in it).
/// Tries gitleaks' recipes, then the rule's own regex, with fresh random parts until
/// the built-in redaction hides the secret (a candidate the rule's entropy or allowlist
/// would rightly let pass is not a sample of it).
fn sample_for(rule: &Rule, recipes: &[&Recipe]) -> Option<Sample> {
    let plausible = |text: &str, secret: &str| {
        secret.len() >= 8 && text.contains(secret) && !debrief::redact::redact(text).contains(secret)
    };
    for attempt in 0..64 {
        let mut rng = StdRng::seed_from_u64(seed_of(&rule.id, attempt));
        for recipe in recipes {
            let (mut text, mut secret) = (String::new(), String::new());
            let mut ok = true;
            for p in &recipe.parts {
                match p {
                    Part::Lit(l) => text.push_str(l),
                    Part::Re(r) => match generate(r, &mut rng) {
                        Some(s) => {
                            text.push_str(&s);
                            secret.push_str(&s);
                        }
                        None => ok = false,
                    },
                }
            }
            let secret = secret_in(rule, &text).unwrap_or(secret);
            if ok && plausible(&text, &secret) {
                return Some((text, secret, "gitleaks test recipe"));
            }
        }
        // The rule's own regex (after its first keyword, as gitleaks' samples have it):
        // the secret is its secret group.
        let Some(generated) = generate(&rule.regex, &mut rng) else { continue };
        let text = match rule.keywords.first() {
            Some(k) if !generated.to_lowercase().contains(k.as_str()) => format!("{k} {generated}"),
            _ => generated,
        };
        let Some(secret) = secret_in(rule, &text) else { continue };
        if plausible(&text, &secret) {
            return Some((text, secret, "the rule's regex"));
        }
    }
    None
}

/// A sample: the text as a file would have it, the secret in it, where it came from.
type Sample = (String, String, &'static str);

/// One sample per rule id, and the rules without one.
fn secret_samples() -> (BTreeMap<String, Sample>, Vec<String>) {
    let text = std::fs::read_to_string(common::root().join("tests/data/gitleaks-samples.toml")).expect("samples");
    let recipes: Samples = toml::from_str(&text).expect("samples parse");
    let mut found = BTreeMap::new();
    let mut missing = Vec::new();
    for rule in rules() {
        let mine: Vec<&Recipe> = recipes.sample.iter().filter(|r| r.rule == rule.id).collect();
        match sample_for(&rule, &mine) {
            Some(s) => {
                found.insert(rule.id.clone(), s);
            }
            None => missing.push(rule.id.clone()),
        }
    }
    (found, missing)
}

/// Hosts, addresses, e-mails and home folders, as (what, text, what must go).
fn personal_samples() -> Vec<(&'static str, String, String)> {
    vec![
        ("ipv4", "curl -s http://203.0.113.77:8080/health".into(), "203.0.113.77".into()),
        ("ipv6", "inet6 2001:db8:85a3::8a2e:370:7334/64 scope global".into(), "2001:db8:85a3::8a2e:370:7334".into()),
        ("ssh-host", "ssh deploy@gpu-node-7.lab.internal 'uptime'".into(), "gpu-node-7.lab.internal".into()),
        ("url-host", "GET https://build.corp-internal.net/api/v2/jobs".into(), "build.corp-internal.net".into()),
        ("email", "git log -1 --format=%ae prints ann.smith@corp-mail.com".into(), "ann.smith@corp-mail.com".into()),
        ("home-linux", "cat /home/annsmith/.netrc | wc -l".into(), "annsmith".into()),
        ("home-mac", "ls /Users/bobjones/Library/Logs".into(), "bobjones".into()),
        (
            // A real short-lived Bedrock key goes on past the fixed prefix gitleaks matches.
            "bedrock-short-lived",
            "AWS_BEARER_TOKEN_BEDROCK=bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29tLz9BY3Rpb249Q2FsbFdpdGhCZWFyZXJUb2tlbiZYLUFtei1DcmVkZW50aWFsPUFTSUFRM0VHVElKSk9NM1Q2".into(),
            "Q2FsbFdpdGhCZWFyZXJUb2tlbiZYLUFtei1DcmVkZW50aWFsPUFTSUFRM0VHVElKSk9NM1Q2".into(),
        ),
        (
            "db-password",
            "DATABASE_URL=postgres://app:pw9Xk2Lq7Zr4@db.internal:5432/prod".into(),
            "pw9Xk2Lq7Zr4".into(),
        ),
    ]
}

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
    for (n, (id, (text, secret, _))) in secrets.iter().enumerate() {
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
    let (_, (_, gh, _)) = secrets.iter().find(|(k, _)| k.as_str() == "github-pat").expect("github sample");
    let failing = format!("python deploy.py --token {gh} --url https://build.corp-internal.net/api/v2/jobs");
    for _ in 0..3 {
        t = t.bash(&failing, "Traceback (most recent call last):\nPermissionError: 401 from 203.0.113.77", true);
    }
    let (_, (_, aws, _)) = secrets.iter().find(|(k, _)| k.as_str() == "aws-access-token").expect("aws sample");
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

/// Every 12-character window of `out`, to find a secret shown even in part.
fn windows(out: &str) -> HashSet<String> {
    let chars: Vec<char> = out.chars().collect();
    chars.windows(12).map(|w| w.iter().collect()).collect()
}

/// The needles (or any 12 characters of one) that `out` shows. The rule ids in
/// `[REDACTED:rule-id]` labels are ours (and some spell a key's fixed prefix).
fn leaks(out: &str, needles: &[(String, String)]) -> Vec<String> {
    let labels = Regex::new(r"\[REDACTED:[a-z0-9-]+\]").expect("regex");
    let out = labels.replace_all(out, "[REDACTED]");
    let out = out.as_ref();
    let grams = windows(out);
    let mut found = Vec::new();
    for (kind, secret) in needles {
        let chars: Vec<char> = secret.chars().collect();
        let shown: Option<String> = if chars.len() < 12 {
            out.contains(secret.as_str()).then(|| secret.clone())
        } else {
            chars.windows(12).map(|w| w.iter().collect::<String>()).find(|g| grams.contains(g))
        };
        if let Some(g) = shown {
            let at = out.find(&g).unwrap_or(0);
            let from = out.floor_char_boundary(at.saturating_sub(60));
            let to = out.ceil_char_boundary((at + 80).min(out.len()));
            found.push(format!("{kind} ({secret}) shown as {:?}", &out[from..to]));
        }
    }
    found
}

/// The text of every JSON line of `out`, strings decoded.
fn json_text(out: &str) -> String {
    fn walk(v: &serde_json::Value, acc: &mut String) {
        match v {
            serde_json::Value::String(s) => {
                acc.push_str(s);
                acc.push('\n');
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, acc)),
            serde_json::Value::Object(o) => o.values().for_each(|x| walk(x, acc)),
            _ => {}
        }
    }
    let mut acc = String::new();
    for line in out.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        walk(&v, &mut acc);
    }
    acc
}

fn run(c: &Corpus, args: &[&str]) -> String {
    let out = common::debrief(&c.index).args(args).output().expect("run debrief");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn no_secret_survives_in_any_output() {
    let (c, kinds, missing) = build();
    let recipes = secret_samples().0.values().filter(|(_, _, from)| from.starts_with("gitleaks")).count();
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
