//! `debrief report`: snapshots of the three reports for the sample sessions, citations
//! that must quote the message they cite, redaction of every secret kind in every
//! format, user template folders (override and confinement), and the HTML in a real
//! browser.

mod common;

use std::path::{Path, PathBuf};

use common::synth::{ALNUM, HEX, LOWER, Transcript, UPPER32, noise};
use debrief::model::Session;
use debrief::redact::Redactor;
use debrief::report::templates::Templates;
use debrief::report::{self, Selector};
use regex::Regex;

fn strict() -> Templates {
    let mut t = Templates::embedded();
    t.strict = true;
    t
}

fn render(s: &Session, sel: Selector, fmt: &str) -> String {
    report::render(s, sel, fmt, &strict(), Some(&[])).unwrap_or_else(|e| panic!("{} {sel:?} {fmt}: {e:#}", s.meta.id))
}

/// The project's own sample sessions (and the seed replay once it exists).
fn samples() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["claude-code", "codex", "seed-replay"] {
        let d = common::corpus(dir);
        if !d.exists() {
            continue;
        }
        for e in walkdir::WalkDir::new(&d).sort_by_file_name() {
            let e = e.expect("walk corpus");
            if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "jsonl") {
                out.push(e.path().to_path_buf());
            }
        }
    }
    out
}

/// The episode a sample's snapshot shows: the first finding, else the first failed
/// call, else the last assistant message with a call.
fn episode_of(s: &Session) -> u32 {
    let findings = debrief::detect::detect_session(debrief::detect::registry(), &s.messages);
    if let Some(f) = findings.first() {
        return f.key;
    }
    let failed = s.messages.iter().find(|m| {
        m.calls.iter().any(|c| c.result.as_ref().is_some_and(|r| r.is_error || r.exit_code.is_some_and(|x| x != 0)))
    });
    failed.or_else(|| s.messages.iter().rev().find(|m| !m.calls.is_empty())).map(|m| m.idx).unwrap_or(1)
}

fn arc_of(s: &Session) -> (u32, u32) {
    let first = s.messages.iter().find(|m| m.is_typed_user()).map_or(1, |m| m.idx);
    (first, s.messages.last().map_or(first, |m| m.idx))
}

#[test]
fn sample_reports_match_snapshots() {
    let samples = samples();
    assert!(samples.len() >= 2, "corpus samples missing");
    for path in samples {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("x").chars().take(40).collect::<String>();
        let dir = path
            .parent()
            .and_then(|p| p.strip_prefix(common::corpus("")).ok())
            .map(|p| p.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned()).unwrap_or_default());
        let name = format!("{}-{stem}", dir.unwrap_or_default());
        for (i, s) in common::parse(&path).into_iter().enumerate() {
            // A file's other sessions (subagents, abandoned branches) by their id.
            let name = if i == 0 { name.clone() } else { format!("{name}.{}", s.meta.id) };
            let (a, z) = arc_of(&s);
            let ep = episode_of(&s);
            for fmt in ["md", "html"] {
                insta::assert_snapshot!(format!("{name}.session.{fmt}"), render(&s, Selector::Session, fmt));
                insta::assert_snapshot!(format!("{name}.episode-{ep}.{fmt}"), render(&s, Selector::Episode(ep), fmt));
                insta::assert_snapshot!(format!("{name}.arc-{a}-{z}.{fmt}"), render(&s, Selector::Arc(a, z), fmt));
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// Citations: every [msg N] must sit next to a quote of message N.

/// Everything of a message a sentence may quote, whitespace collapsed.
fn haystack(s: &Session, idx: u32) -> Option<String> {
    let m = s.message(idx)?;
    let mut parts = vec![m.text.clone(), m.thinking.clone()];
    for c in &m.calls {
        parts.extend(c.command.clone());
        parts.push(c.name.clone());
        collect_strings(&c.input, &mut parts);
        if let Some(r) = &c.result {
            parts.push(r.output.clone());
        }
    }
    Some(parts.iter().map(|p| p.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>().join("\n"))
}

fn collect_strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

/// Quoted fragments of a piece of rendered text: code spans (any fence length) and
/// “…” quotes.
fn quotes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let n = b[i..].iter().take_while(|c| **c == b'`').count();
        let fence = "`".repeat(n);
        let start = i + n;
        match text[start..].find(&fence) {
            Some(len) => {
                out.push(text[start..start + len].trim().to_string());
                i = start + len + n;
            }
            None => break,
        }
    }
    let curly = Regex::new(r"“([^”]+)”").expect("regex");
    out.extend(curly.captures_iter(text).map(|c| c[1].to_string()));
    out
}

fn html_to_text(line: &str) -> String {
    let tags = Regex::new(r"<[^>]+>").expect("regex");
    let line = line.replace("<code>", "`").replace("</code>", "`");
    tags.replace_all(&line, "")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
}

/// Check every citation of `doc` against the (redacted) session; returns how many.
fn check_citations(doc: &str, session: &Session, html: bool, what: &str) -> usize {
    let cite = Regex::new(r"\[msg (\d+)\]").expect("regex");
    let mut checked = 0;
    for raw in doc.lines() {
        // A Markdown table cell escapes `|` as `\|`; the reader sees `|`.
        let line = if html {
            html_to_text(raw)
        } else if raw.starts_with('|') {
            raw.replace("\\|", "|")
        } else {
            raw.to_string()
        };
        let cites: Vec<_> = cite.captures_iter(&line).collect();
        for (i, c) in cites.iter().enumerate() {
            let m0 = c.get(0).expect("match");
            let idx: u32 = c[1].parse().expect("number");
            let from = if i == 0 { 0 } else { cites[i - 1].get(0).expect("match").end() };
            let to = cites.get(i + 1).map_or(line.len(), |n| n.get(0).expect("match").start());
            let window = &line[from..to];
            let msg = session.message(idx).unwrap_or_else(|| panic!("{what}: [msg {idx}] does not exist\n{line}"));
            checked += 1;
            if msg.text.trim().is_empty() && msg.calls.is_empty() {
                continue; // an empty turn: nothing to quote
            }
            let hay = haystack(session, idx).expect("message");
            let found = quotes(window).iter().any(|q| {
                let pieces: Vec<String> = q
                    .split('…')
                    .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
                    .filter(|p| p.chars().count() >= 2 && !p.starts_with('('))
                    .collect();
                !pieces.is_empty() && pieces.iter().all(|p| hay.contains(p.as_str()))
            });
            assert!(found, "{what}: [msg {idx}] is cited without a quote from it:\n{line}\n(at {})", m0.start());
        }
    }
    checked
}

fn redacted(s: &Session) -> Session {
    let mut r = s.clone();
    Redactor::for_meta(&s.meta, &[]).expect("redactor").apply(&mut r);
    r
}

fn citation_sources() -> Vec<PathBuf> {
    let mut v = samples();
    for rel in [
        "claude_code/sniffly/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
        "claude_code/sniffly/fed8ce56-bc79-401f-a83e-af084253362f.jsonl",
        "claude_code/DRMacIver_claude-reliability/coverage-test-fix.transcript.jsonl",
        "claude_code/DRMacIver_claude-reliability/python-to-rust-port.transcript.jsonl",
    ] {
        match common::real_part(rel, "the real sessions") {
            Some(p) => v.push(p),
            None => break,
        }
    }
    v
}

#[test]
fn every_citation_quotes_the_message_it_cites() {
    let mut total = 0;
    for path in citation_sources() {
        for s in common::parse(&path) {
            if s.messages.is_empty() {
                continue;
            }
            let red = redacted(&s);
            let (a, z) = arc_of(&s);
            let mut selectors = vec![Selector::Session, Selector::Arc(a, z)];
            // Episodes: every message with a call or typed by the user, spread over the session.
            let picks: Vec<u32> =
                s.messages.iter().filter(|m| !m.calls.is_empty() || m.is_typed_user()).map(|m| m.idx).collect();
            let step = (picks.len() / 8).max(1);
            selectors.extend(picks.iter().step_by(step).map(|i| Selector::Episode(*i)));
            // Detect, redact and gather once per selector; both formats render the
            // same facts (the CLI does the same steps through `report::render`).
            let findings = debrief::detect::detect_session(debrief::detect::registry(), &s.messages);
            let glossary = strict().glossary().expect("glossary");
            for sel in selectors {
                let rep = report::build(&red, &findings, sel, &glossary).expect("build");
                for fmt in ["md", "html"] {
                    let doc = report::export::by_id(fmt).expect("format").render(&rep, &strict()).expect("render");
                    let what = format!("{} {sel:?} {fmt}", path.display());
                    total += check_citations(&doc, &red, fmt == "html", &what);
                }
            }
        }
    }
    assert!(total > 200, "only {total} citations checked");
}

#[test]
fn an_oscillation_is_told_by_its_two_states_and_each_switch() {
    use debrief::detect::Details;
    let dir = common::corpus("detectors/oscillation");
    let mut told = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        if !path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("pos-")) {
            continue;
        }
        let s = common::parse(&path).remove(0);
        let red = redacted(&s);
        let findings = debrief::detect::detect_session(debrief::detect::registry(), &s.messages);
        let f = findings.iter().find(|f| f.detector == "oscillation").expect("an oscillation");
        let Some(Details::Flips { states, switches, .. }) = &f.details else { panic!("{}: no flips", path.display()) };
        let glossary = strict().glossary().expect("glossary");
        let rep = report::build(&red, &findings, Selector::Episode(f.key), &glossary).expect("build");
        for fmt in ["md", "html"] {
            let doc = report::export::by_id(fmt).expect("format").render(&rep, &strict()).expect("render");
            check_citations(&doc, &red, fmt == "html", &format!("{} {fmt}", path.display()));
            if fmt == "md" {
                let lede = doc.lines().find(|l| !l.is_empty() && !l.starts_with('#')).expect("a lede");
                for st in states.iter().filter(|s| !s.is_empty()) {
                    assert!(lede.contains(&format!("`{st}`")), "{}: the lede lacks `{st}`:\n{lede}", path.display());
                }
                for sw in switches {
                    assert!(
                        lede.contains(&format!("[msg {}]", sw.idx)),
                        "{}: switch {} untold:\n{lede}",
                        path.display(),
                        sw.idx
                    );
                }
            }
        }
        told += 1;
    }
    assert!(told >= 8, "only {told} oscillation fixtures told");
}

#[test]
fn a_citation_without_its_quote_is_caught() {
    // The checker itself must be able to fail.
    let s = &common::parse(&common::corpus("claude-code/ledger-timezone-fix.jsonl"))[0];
    let doc = "The user wrote “CI runs in America/New_York” [msg 8].\nThe user wrote “something else” [msg 8].";
    let r = std::panic::catch_unwind(|| check_citations(doc, s, false, "probe"));
    assert!(r.is_err());
    assert_eq!(check_citations(doc.lines().next().expect("line"), s, false, "probe"), 1);
}

// ---------------------------------------------------------------------------------
// Redaction: one sample of every kind; none may survive in any format.

fn secrets() -> Vec<(&'static str, String)> {
    vec![
        ("aws", format!("AKIA{}", noise(1, 16, UPPER32))),
        ("gcp", format!("AIza{}", noise(2, 35, ALNUM))),
        ("azure", format!("{}8Q~{}", noise(3, 3, ALNUM), noise(4, 32, ALNUM))),
        ("github", format!("ghp_{}", noise(5, 36, ALNUM))),
        ("github-fine-grained", format!("github_pat_{}", noise(6, 82, ALNUM))),
        ("gitlab", format!("glpat-{}", noise(7, 20, ALNUM))),
        (
            "slack",
            format!("xoxb-{}-{}-{}", noise(8, 12, "0123456789"), noise(9, 12, "0123456789"), noise(10, 24, ALNUM)),
        ),
        ("discord", noise(11, 64, HEX)),
        ("openai", format!("sk-proj-{}", noise(12, 48, ALNUM))),
        ("anthropic", format!("sk-ant-api03-{}", noise(13, 60, ALNUM))),
        ("huggingface", format!("hf_{}", noise(14, 34, LOWER))),
        ("stripe", format!("sk_live_{}", noise(15, 32, ALNUM))),
        ("npm", format!("npm_{}", noise(16, 36, ALNUM))),
        ("jwt", format!("eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}", noise(17, 40, ALNUM), noise(18, 43, ALNUM))),
        ("password", format!("Tr0ub4{}", noise(19, 10, ALNUM))),
        ("db-password", format!("pw{}", noise(20, 12, ALNUM))),
        ("email", "ann.smith@corp-mail.com".to_string()),
        ("ipv4", "203.0.113.77".to_string()),
        ("ipv6", "2001:db8:85a3::8a2e:370:7334".to_string()),
        ("host", "gpu-node-7.lab.internal".to_string()),
        ("home-user", "annsmith".to_string()),
        ("pem-body", noise(21, 64, ALNUM)),
    ]
}

/// Where each sample sits: a command and its output, as they would in a session.
fn secret_call(kind: &str, secret: &str) -> (String, String) {
    match kind {
        "discord" => ("cat bot.env".into(), format!("DISCORD_TOKEN={secret}")),
        "password" => ("grep -n password config.ini".into(), format!("12:password={secret}")),
        "db-password" => ("echo $DATABASE_URL".into(), format!("postgres://app:{secret}@db.internal:5432/prod")),
        "email" => ("git log -1 --format=%ae".into(), secret.to_string()),
        "ipv4" => (format!("curl -s http://{secret}:8080/health"), "ok".into()),
        "ipv6" => ("ip -6 addr show eth0".into(), format!("inet6 {secret}/64 scope global")),
        "host" => (format!("ssh root@{secret} 'uptime'"), "up 3 days".into()),
        "home-user" => (format!("cat /home/{secret}/.netrc | wc -l"), "3".into()),
        "jwt" => (format!("curl -H 'Authorization: Bearer {secret}' https://api.example.com/me"), "{}".into()),
        "pem-body" => (
            "cat deploy_key".into(),
            format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{secret}\n{}\n-----END RSA PRIVATE KEY-----",
                noise(22, 64, ALNUM)
            ),
        ),
        _ => (
            format!("printenv {}", kind.to_uppercase()),
            format!("export {}_KEY={secret}", kind.to_uppercase().replace('-', "_")),
        ),
    }
}

/// A session with one sample of every kind, each in its own call (so an episode shows
/// it whole), and some in the user's and assistant's text.
fn secret_transcript() -> (String, Vec<(&'static str, String)>) {
    let s = secrets();
    let mut t = Transcript::new()
        .user(&format!("Deploy with key {} and tell {} when done.", s[0].1, "ann.smith@corp-mail.com"));
    for (kind, secret) in &s {
        let (cmd, out) = secret_call(kind, secret);
        t = t.bash(&cmd, &out, false);
    }
    let t = t.assistant(&format!("Rotating the key {} now.", s[3].1));
    (t.text(), s)
}

fn secret_selectors(s: &Session) -> Vec<Selector> {
    let mut v = vec![Selector::Session, Selector::Arc(1, s.messages.len() as u32)];
    v.extend(s.messages.iter().map(|m| Selector::Episode(m.idx)));
    v
}

#[test]
fn no_secret_survives_in_any_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (text, secrets) = secret_transcript();
    let path = dir.path().join("secrets.jsonl");
    std::fs::write(&path, text).expect("write");
    let s = &common::parse(&path)[0];
    // Unredacted, the reports do show every sample — else the test proves nothing.
    let mut raw = String::new();
    for sel in secret_selectors(s) {
        raw.push_str(&report::render(s, sel, "md", &strict(), None).expect("render"));
    }
    for (kind, secret) in &secrets {
        assert!(raw.contains(secret.as_str()), "{kind} sample not shown in the unredacted reports");
    }
    for sel in secret_selectors(s) {
        for fmt in ["md", "html", "json"] {
            let out = render(s, sel, fmt);
            for (kind, secret) in &secrets {
                assert!(!out.contains(secret.as_str()), "{kind} survived in {fmt} {sel:?}:\n{out}");
            }
        }
    }
}

#[test]
fn seeds_spelling_of_a_redacted_ssh_host() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = Transcript::new().user("Why did the server crash?").bash(
        "ssh root@198.51.100.23 'tail -50 /data/logs/exp_1b.log' 2>&1",
        "Loading shards: 3% Completed | 2/64",
        false,
    );
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, t.text()).expect("write");
    let out = render(&common::parse(&path)[0], Selector::Episode(2), "md");
    assert!(out.contains("ssh root@[REDACTED] 'tail -50 /data/logs/exp_1b.log' 2>&1"), "{out}");
    assert!(out.contains("/home/[USER]/") || !out.contains("/home/ann/"));
}

#[test]
fn extra_patterns_from_a_file_are_redacted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pats = dir.path().join("patterns.txt");
    std::fs::write(&pats, "# ticket ids\nPROJ-\\d+\n").expect("write");
    let s = &common::parse(&common::corpus("claude-code/ledger-timezone-fix.jsonl"))[0];
    let mut s = s.clone();
    s.messages[2].text.push_str(" See PROJ-4711.");
    let out = report::render(
        &s,
        Selector::Session,
        "md",
        &strict(),
        Some(&debrief::redact::read_patterns(&pats).expect("patterns")),
    )
    .expect("render");
    assert!(!out.contains("PROJ-4711") && out.contains("[REDACTED]"), "{out}");
}

// ---------------------------------------------------------------------------------
// HTML: transcript markup is text; the page is self-contained.

/// Markup a transcript may hold — pasted HTML, a log of an XSS test, a half-written
/// tag — that must print as text: scripts, event handlers, `javascript:` links,
/// markup that would close the report's own elements, comments and CDATA.
const HOSTILE: &[&str] = &[
    "<script>document.title='PWNED'</script>",
    "<img src=x onerror=\"document.title='PWNED'\">",
    "<svg onload=\"document.title='PWNED'\"><circle r=5/></svg>",
    "<body onpageshow=\"document.title='PWNED'\">",
    "<a href=\"javascript:document.title='PWNED'\">click</a>",
    "[click](javascript:document.title='PWNED')",
    "<iframe src=\"javascript:alert(1)\"></iframe>",
    "<div style=\"background:url(javascript:alert(1))\" onmouseover=alert(1)>x</div>",
    "</pre></code></blockquote></li></ul></section></main></body></html><b>bold",
    "<!-- unterminated comment <p>",
    "<![CDATA[ ]]> <textarea><style>body{display:none}</style>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<b <i class=\"x' & \\\" >",
];

fn script_session(dir: &Path) -> PathBuf {
    let t = Transcript::new()
        .user(&format!("Render this: {}", HOSTILE.join(" ")))
        .bash("echo '<script>alert(1)</script>'", "<script>alert(1)</script>\n</pre></code><b>bold", false)
        .bash(&format!("cat xss.html # {}", HOSTILE[1]), &HOSTILE.join("\n"), true)
        .assistant(&format!("It printed <script>alert(1)</script> & friends: {}", HOSTILE.join(" ")));
    let path = dir.join("script.jsonl");
    std::fs::write(&path, t.text()).expect("write");
    path
}

#[test]
fn transcript_markup_renders_as_text_in_html() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = &common::parse(&script_session(dir.path()))[0];
    for sel in [Selector::Session, Selector::Episode(2), Selector::Arc(1, 4)] {
        let html = render(s, sel, "html");
        assert!(!html.to_lowercase().contains("<script"), "{sel:?}:\n{html}");
        assert!(!html.contains("<img"), "{sel:?}");
        assert!(!html.contains("<b>bold"), "{sel:?}");
        assert!(html.contains("&lt;script&gt;"), "{sel:?}");
        // Self-contained: no external resource of any kind.
        for needle in ["src=\"http", "href=\"http", "@import", "url(http"] {
            assert!(!html.contains(needle), "{needle} in {sel:?}");
        }
    }
}

/// Chromium, when installed (`.ci/run` installs it; CI=true makes it required).
fn chromium() -> Option<PathBuf> {
    for p in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(p).exists() {
            return Some(PathBuf::from(p));
        }
    }
    assert!(std::env::var_os("CI").is_none(), "CI needs chromium for the HTML check (apt-get install -y chromium)");
    eprintln!("chromium not installed: skipping the browser check");
    None
}

/// Open `file` in headless Chromium: (the DOM after load, the browser's log).
fn open_in_chromium(chrome: &Path, profile: &Path, file: &Path) -> (String, String) {
    let out = std::process::Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            &format!("--user-data-dir={}", profile.display()),
            "--dump-dom",
        ])
        .arg(format!("file://{}", file.display()))
        .output()
        .expect("run chromium");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "chromium failed: {log}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), log)
}

/// What a page that ran a script, or carries live script hooks, shows.
fn script_signs(dom: &str, log: &str) -> Vec<String> {
    let mut signs = Vec::new();
    if dom.contains("<title>PWNED") {
        signs.push("a script changed the title".to_string());
    }
    // Elements only: in the serialised DOM a `<` of text is `&lt;`, so these match tags.
    for (what, re) in [
        ("a script, frame, svg or image element", r"(?i)<(script|iframe|svg|img|object|embed)[\s>]"),
        ("a refresh", r#"(?i)<meta[^>]*http-equiv\s*=\s*"refresh"#),
        ("a javascript: link", r#"(?i)<[a-z][^>]*\s(href|src|action)\s*=\s*"\s*javascript:"#),
        ("an event handler attribute", r"(?i)<[a-z][^>]*\son[a-z]+\s*="),
    ] {
        if let Some(m) = Regex::new(re).expect("regex").find(dom) {
            signs.push(format!("{what}: {}", m.as_str()));
        }
    }
    for bad in ["CONSOLE", "Uncaught", "Refused to"] {
        if log.contains(bad) {
            signs.push(format!("console message `{bad}`"));
        }
    }
    signs
}

#[test]
fn html_reports_open_in_a_browser_without_errors_or_scripts() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = dir.path().join("profile");
    // The check can fail: a page with a live script and handler is caught.
    let control = dir.path().join("control.html");
    std::fs::write(
        &control,
        format!(
            "<!doctype html><html><head><title>t</title></head><body><h1>x</h1>{}{}</body></html>",
            HOSTILE[0], HOSTILE[4]
        ),
    )
    .expect("write");
    let (dom, log) = open_in_chromium(&chrome, &profile, &control);
    let signs = script_signs(&dom, &log);
    assert!(signs.iter().any(|s| s.contains("title")), "the control's script must run: {signs:?}\n{dom}");
    assert!(signs.iter().any(|s| s.contains("javascript:")), "{signs:?}");

    let s = &common::parse(&script_session(dir.path()))[0];
    let ledger = &common::parse(&common::corpus("claude-code/ledger-timezone-fix.jsonl"))[0];
    let n = s.messages.len() as u32;
    let mut pages = vec![("ledger".to_string(), ledger, Selector::Session)];
    for sel in [Selector::Session, Selector::Arc(1, n)].into_iter().chain((1..=n).map(Selector::Episode)) {
        pages.push((format!("script {sel:?}"), s, sel));
    }
    for (name, sess, sel) in pages {
        let file = dir.path().join("page.html");
        std::fs::write(&file, render(sess, sel, "html")).expect("write");
        let (dom, log) = open_in_chromium(&chrome, &profile, &file);
        assert!(dom.contains("<h1>"), "{name}: no report in the DOM:\n{dom}");
        let signs = script_signs(&dom, &log);
        assert!(signs.is_empty(), "{name}: {signs:?}\n{log}");
        if name.starts_with("script") {
            // The markup is there, as text.
            assert!(
                dom.contains("&lt;script&gt;document.title='PWNED'&lt;/script&gt;")
                    || dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
                "{name}: the transcript's markup is shown as text"
            );
        }
    }
}

// ---------------------------------------------------------------------------------
// User template folders.

fn ledger() -> Session {
    common::parse(&common::corpus("claude-code/ledger-timezone-fix.jsonl")).remove(0)
}

fn with_templates(dir: &Path, sel: Selector, fmt: &str) -> anyhow::Result<String> {
    let mut t = Templates::with_user_dir(dir)?;
    t.strict = true;
    report::render(&ledger(), sel, fmt, &t, Some(&[]))
}

#[test]
fn a_user_section_replaces_only_that_section() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("sections/episode")).expect("mkdir");
    std::fs::write(dir.path().join("sections/episode/context.md.j2"), "## Our context\n\nCustom {{ r.key }}.\n")
        .expect("write");
    let out = with_templates(dir.path(), Selector::Episode(4), "md").expect("render");
    assert!(out.contains("## Our context\n\nCustom 4."), "{out}");
    assert!(!out.contains("## The broader context"));
    assert!(out.contains("## The subject message"), "the rest stays");
}

#[test]
fn a_user_template_can_extend_the_default_and_change_one_block() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("episode.md.j2"),
        "{% extends \"default/episode.md.j2\" %}{% block title %}# Ours: {{ phrase(\"title\", r) }}{% endblock %}",
    )
    .expect("write");
    let out = with_templates(dir.path(), Selector::Episode(4), "md").expect("render");
    assert!(out.starts_with("# Ours: "), "{out}");
    assert!(out.contains("## What followed"));
}

#[test]
fn user_phrases_and_glossary_extend_the_defaults() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("phrases.toml"), "[_message]\n\"title.test-failed\" = [\"Red: {{ f.key }}\"]\n")
        .expect("write");
    std::fs::write(
        dir.path().join("glossary.toml"),
        "[[term]]\nname = \"Ledger\"\npatterns = ['\\bLedger\\b']\nexplain = \"the project's book of postings.\"\n",
    )
    .expect("write");
    let out = with_templates(dir.path(), Selector::Episode(4), "md").expect("render");
    assert!(out.starts_with("# Red: 4"), "{out}");
    assert!(out.contains("**Ledger**: the project's book of postings."));
    assert!(out.contains("**pytest**"), "default terms stay");
}

#[test]
fn a_template_folder_cannot_reach_outside_itself() {
    let root = tempfile::tempdir().expect("tempdir");
    let outside = root.path().join("outside.j2");
    std::fs::write(&outside, "SECRET OUTSIDE").expect("write");
    let dir = root.path().join("tpl");
    std::fs::create_dir_all(&dir).expect("mkdir");

    // `..` in an include.
    std::fs::write(dir.join("episode.md.j2"), "{% include \"../outside.j2\" %}").expect("write");
    let e = with_templates(&dir, Selector::Episode(4), "md").expect_err("`..` must be refused");
    assert!(!format!("{e:#}").contains("SECRET OUTSIDE"));

    // An absolute path.
    std::fs::write(dir.join("episode.md.j2"), format!("{{% include \"{}\" %}}", outside.display())).expect("write");
    let e = with_templates(&dir, Selector::Episode(4), "md").expect_err("absolute paths must be refused");
    assert!(format!("{e:#}").contains("not allowed"), "{e:#}");

    // A symlink that leaves the folder.
    std::fs::remove_file(dir.join("episode.md.j2")).expect("rm");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, dir.join("episode.md.j2")).expect("symlink");
        let e = with_templates(&dir, Selector::Episode(4), "md").expect_err("symlink out must be refused");
        assert!(format!("{e:#}").contains("outside the templates folder"), "{e:#}");
        std::fs::remove_file(dir.join("episode.md.j2")).expect("rm");
        std::os::unix::fs::symlink(&outside, dir.join("glossary.toml")).expect("symlink");
        assert!(with_templates(&dir, Selector::Session, "md").is_err(), "glossary.toml via symlink");
    }
}

/// Every way a template names another file — include, extends, import, from-import,
/// a name computed at run time, a phrase of the user's phrases.toml — and the data
/// files (glossary.toml, phrases.toml), through `..`, absolute paths, backslashes,
/// drive letters, hidden names, and symlinks to a file or a folder outside: each is
/// refused, and no error shows the outside file's content.
#[test]
fn no_way_in_a_template_folder_reads_outside_it() {
    let root = tempfile::tempdir().expect("tempdir");
    let secret_dir = root.path().join("private");
    std::fs::create_dir_all(secret_dir.join("episode")).expect("mkdir");
    let outside = secret_dir.join("outside.j2");
    std::fs::write(&outside, "SECRET OUTSIDE").expect("write");
    std::fs::write(secret_dir.join("episode/context.md.j2"), "SECRET OUTSIDE").expect("write");
    let abs = outside.display().to_string();
    let tags = [
        "{% include \"../private/outside.j2\" %}".to_string(),
        "{% extends \"../private/outside.j2\" %}".to_string(),
        "{% import \"../private/outside.j2\" as m %}".to_string(),
        "{% from \"../private/outside.j2\" import x %}".to_string(),
        format!("{{% include \"{abs}\" %}}"),
        format!("{{% extends \"{abs}\" %}}"),
        format!("{{% import \"{abs}\" as m %}}"),
        "{% set n = \"..\" ~ \"/private/outside.j2\" %}{% include n %}".to_string(),
        "{% include \"sections\\\\..\\\\..\\\\private\\\\outside.j2\" %}".to_string(),
        "{% include \"C:/private/outside.j2\" %}".to_string(),
        "{% include \".hidden.j2\" %}".to_string(),
        "{% include \"default/../../private/outside.j2\" %}".to_string(),
    ];
    for tag in &tags {
        let dir = tempfile::tempdir_in(root.path()).expect("tempdir");
        std::fs::write(dir.path().join(".hidden.j2"), "hidden").expect("write");
        std::fs::write(dir.path().join("episode.md.j2"), tag).expect("write");
        let out = with_templates(dir.path(), Selector::Episode(4), "md");
        let shown = match &out {
            Ok(text) => text.clone(),
            Err(e) => format!("{e:#}"),
        };
        assert!(out.is_err(), "{tag}: must be refused, rendered:\n{shown}");
        assert!(!shown.contains("SECRET OUTSIDE"), "{tag}: {shown}");
        // Through a phrase of the user's phrases.toml, the same.
        std::fs::remove_file(dir.path().join("episode.md.j2")).expect("rm");
        std::fs::write(dir.path().join("phrases.toml"), format!("[_default]\ntitle = [{:?}]\n", tag)).expect("write");
        let out = with_templates(dir.path(), Selector::Episode(4), "md");
        let shown = out.as_ref().map_or_else(|e| format!("{e:#}"), |t| t.clone());
        assert!(!shown.contains("SECRET OUTSIDE"), "phrase {tag}: {shown}");
    }
    #[cfg(unix)]
    {
        // A folder of the template tree that is a symlink to a folder outside.
        let dir = tempfile::tempdir_in(root.path()).expect("tempdir");
        std::os::unix::fs::symlink(&secret_dir, dir.path().join("sections")).expect("symlink");
        let e = with_templates(dir.path(), Selector::Episode(4), "md").expect_err("symlinked folder out");
        assert!(format!("{e:#}").contains("outside the templates folder"), "{e:#}");
        // The data files, as symlinks out.
        for data in ["glossary.toml", "phrases.toml"] {
            let dir = tempfile::tempdir_in(root.path()).expect("tempdir");
            std::os::unix::fs::symlink(&outside, dir.path().join(data)).expect("symlink");
            let e = with_templates(dir.path(), Selector::Session, "md").expect_err("data file via symlink");
            assert!(!format!("{e:#}").contains("SECRET OUTSIDE"), "{data}: {e:#}");
        }
        // A symlink that stays inside is fine.
        let dir = tempfile::tempdir_in(root.path()).expect("tempdir");
        std::fs::write(dir.path().join("mine.md.j2"), "# Mine {{ r.key }}\n").expect("write");
        std::os::unix::fs::symlink(dir.path().join("mine.md.j2"), dir.path().join("episode.md.j2")).expect("symlink");
        let out = with_templates(dir.path(), Selector::Episode(4), "md").expect("a symlink inside is followed");
        assert!(out.starts_with("# Mine 4"), "{out}");
    }
}

#[test]
fn report_cli_writes_files_and_refuses_bad_selectors() {
    let idx = tempfile::tempdir().expect("tempdir");
    let out = idx.path().join("r.html");
    common::debrief(idx.path())
        .args(["report", "--episode", "4", "--format", "html", "-o"])
        .arg(&out)
        .arg(common::corpus("claude-code/ledger-timezone-fix.jsonl"))
        .assert()
        .success();
    let html = std::fs::read_to_string(&out).expect("read");
    assert!(html.starts_with("<!doctype html>") && html.contains("id=\"msg-4\""));
    common::debrief(idx.path())
        .args(["report", "--episode", "999"])
        .arg(common::corpus("claude-code/ledger-timezone-fix.jsonl"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no message [msg 999]"));
    common::debrief(idx.path())
        .args(["report", "--format", "pdf"])
        .arg(common::corpus("claude-code/ledger-timezone-fix.jsonl"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown report format"));
    let md = common::debrief(idx.path())
        .args(["report", "--arc", "3..10"])
        .arg(common::corpus("claude-code/ledger-timezone-fix.jsonl"))
        .assert()
        .success();
    let text = String::from_utf8_lossy(&md.get_output().stdout).into_owned();
    assert!(text.contains("## Conclusion") && text.contains("/home/[USER]/"), "{text}");
}

// ---------------------------------------------------------------------------------
// Per-detector wording: findings as the catalog (../shared/spec/detectors.md) defines
// them, placed on the seed replay's story, render in both formats and cite correctly —
// whether or not the detectors that produce them are registered yet.

fn seed_findings() -> Vec<debrief::detect::Finding> {
    let f = |detector: &str, key: u32, evidence: &[u32], summary: &str| debrief::detect::Finding {
        detector: detector.to_string(),
        key,
        evidence: evidence.to_vec(),
        summary: summary.to_string(),
        command: None,
        details: None,
    };
    // What the belief detectors find, as they would fill it in.
    use debrief::detect::{Cited, Details, Undoing};
    let belief =
        |f: debrief::detect::Finding, claim: Option<(u32, &str)>, undone: (u32, &str, &str)| debrief::detect::Finding {
            details: Some(Details::Belief {
                claim: claim.map(|(idx, text)| Cited { idx, text: text.into() }),
                undone: Some(Undoing { idx: undone.0, how: undone.1.into(), text: undone.2.into() }),
            }),
            ..f
        };
    // The rest as their detectors fill in their facts.
    let with = |f: debrief::detect::Finding, details: Details| debrief::detect::Finding { details: Some(details), ..f };
    let cited = |idx: u32, text: &str| Cited { idx, text: text.into() };
    vec![
        with(
            f(
                "confounded-change",
                5080,
                &[5068, 5076, 5078, 5080],
                "relaunch changes NCCL settings and a code patch at once",
            ),
            Details::Relaunch {
                previous: Some(5068),
                changes: vec!["NCCL_BUFFSIZE=131072".into(), "NCCL_ALGO=Tree → unset".into()],
                edits: vec!["communicator.py".into(), "server_args.py".into()],
            },
        ),
        belief(
            f("false-crash-alarm", 5081, &[5081, 5085], "the poll loop printed CRASHED while the server was loading"),
            Some((5081, "CRASHED")),
            (5085, "retraction", "It's still loading!"),
        ),
        with(
            f("noisy-search", 5082, &[5082], "one ServerArgs line carries most of the grep output"),
            Details::Search { searches: vec![cited(5082, "grep -i exception")], why: "a dump line".into(), read: None },
        ),
        with(
            f("retry-loop", 5083, &[5082, 5083], "the log is grepped again with a similar pattern"),
            Details::Runs { runs: vec![5082, 5083], error: String::new(), folder_changed: false },
        ),
        with(
            f(
                "grep-tail-pivot",
                5084,
                &[5082, 5083, 5084],
                "grep swamped by the ServerArgs dump, then tail -50 of the same log",
            ),
            Details::Search {
                searches: vec![cited(5082, "grep -i exception"), cited(5083, "grep -A5 Traceback")],
                why: "returned a dump line".into(),
                read: Some(cited(5084, "tail -50")),
            },
        ),
        belief(
            f("self-correction", 5085, &[5081, 5085], "the assistant retracts the crash verdict"),
            Some((5081, "CRASHED")),
            (5085, "retraction", "It's still loading!"),
        ),
        with(
            f("empty-user-turn", 5086, &[5086], "an empty user turn"),
            Details::Pause { before: Some(5085), reply: Some(5087), in_a_row: 1 },
        ),
        with(
            f("context-dump", 5087, &[5086, 5087], "a whole-project recap"),
            Details::Recap {
                chars: 5379,
                median: 45,
                sections: vec!["done".into(), "state".into()],
                after: Some(cited(5086, "an empty user turn")),
            },
        ),
        with(
            f("polling-timeout", 5069, &[5069], "the wait loop ran out of attempts"),
            Details::Wait { waits: vec![5069], command: None, how: "printed CRASHED".into() },
        ),
        belief(
            f("user-pushback", 2795, &[2792, 2795], "the user reports n-gram is slower than the baseline"),
            Some((2792, "Checking how n-gram is wired in `python/sglang/srt/model_executor/cuda_graph_runner.py`.")),
            (2795, "pushback", "n-gram is worse than baseline (41 vs 82 tok/s)."),
        ),
        debrief::detect::Finding {
            details: Some(debrief::detect::Details::Flips {
                of: "lines".into(),
                subject: "communicator.py".into(),
                states: ["topk = 1".into(), "topk = 2".into()],
                switches: [(37, "topk = 2"), (47, "max_len = 4096"), (49, "topk = 2")]
                    .map(|(idx, text)| debrief::detect::Cited { idx, text: text.into() })
                    .to_vec(),
            }),
            ..f("oscillation", 49, &[37, 47, 49], "an edit of communicator.py undone and redone")
        },
    ]
}

#[test]
fn every_detector_has_wording_that_cites_correctly() {
    let path = common::corpus("seed-replay/kimi-k25-eagle3-campaign.jsonl");
    if !path.exists() {
        panic!("corpus/seed-replay is missing");
    }
    let s = common::parse(&path).remove(0);
    let red = redacted(&s);
    let findings = seed_findings();
    let glossary = strict().glossary().expect("glossary");
    let mut sels: Vec<Selector> = findings.iter().map(|f| Selector::Episode(f.key)).collect();
    sels.push(Selector::Arc(5080, 5087));
    for sel in sels {
        let rep = report::build(&red, &findings, sel, &glossary).expect("build");
        for fmt in ["md", "html"] {
            let doc = report::export::by_id(fmt).expect("format").render(&rep, &strict()).expect("render");
            check_citations(&doc, &red, fmt == "html", &format!("seed {sel:?} {fmt}"));
            if fmt == "md" && matches!(sel, Selector::Episode(5084) | Selector::Arc(..)) {
                insta::assert_snapshot!(format!("seed-replay-with-findings.{sel:?}.md"), doc);
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// The seeds' story (../shared/seeds/000_….txt, 001_….txt): with the detectors as they
// run, the episode of [msg 5084] and the arc over 5083–5087 tell the same story with the
// same facts and citations.

fn seed_replay() -> Session {
    let path = common::corpus("seed-replay/kimi-k25-eagle3-campaign.jsonl");
    common::parse(&path).remove(0)
}

/// `needle` is words of message `idx`, and `doc` prints it in the stretch of a line
/// that cites `[msg idx]` (between the citations before and after it — where the
/// citation check looks for its quote).
fn told_with(doc: &str, s: &Session, needle: &str, idx: u32) -> bool {
    let hay = haystack(s, idx).unwrap_or_default();
    if !hay.contains(needle) {
        return false;
    }
    let cite = Regex::new(r"\[msg (\d+)\]").expect("regex");
    doc.lines().any(|l| {
        let cites: Vec<_> = cite.captures_iter(l).collect();
        cites.iter().enumerate().any(|(i, c)| {
            let from = if i == 0 { 0 } else { cites[i - 1].get(0).map_or(0, |m| m.end()) };
            let to = cites.get(i + 1).and_then(|n| n.get(0)).map_or(l.len(), |m| m.start());
            &c[1] == idx.to_string().as_str() && l[from..to].contains(needle)
        })
    })
}

#[test]
fn the_seed_episode_tells_the_seed_story() {
    let s = seed_replay();
    let doc = render(&s, Selector::Episode(5084), "md");
    let red = redacted(&s);
    check_citations(&doc, &red, false, "seed episode 5084");
    let told = |needle: &str, idx: u32| told_with(&doc, &red, needle, idx);
    insta::assert_snapshot!("seed-replay.episode-5084.md", doc.clone());
    // The sections of 000_….txt, in its order.
    let sections = [
        "# When grep fails, try tail",
        "## The broader context",
        "## The subject message",
        "## Why this message was written",
        "## The thinking process",
        "## What the output reveals",
        "## Assumptions made and their validity",
        "## Input knowledge required",
        "## Output knowledge created",
        "## What followed",
    ];
    let mut at = 0;
    for h in sections {
        let found = doc[at..].find(h).unwrap_or_else(|| panic!("section {h} missing or out of order:\n{doc}"));
        at += found + h.len();
    }
    // The campaign, as the seed tells it: the goal, what was abandoned and why (with the
    // numbers), the plan file and its priorities, 1A's failure, then the combined launch.
    for (needle, idx) in [
        ("82 tok/s baseline", 2309),
        ("41 vs 82 tok/s", 2795),
        ("~25 ms is NCCL all-reduce (122 calls per forward pass)", 3714),
        ("eagle-fast-verify.md", 3714),
        ("NCCL_ALGO=Tree", 5068),
        ("RuntimeError: NCCL error", 5070),
        ("NCCL_ALGO=Tree fails during CUDA graph capture", 5071),
        ("I'll also apply Priority 2", 5071),
        ("Now adding SM120 next to SM90/SM100 in the fusion gate.", 5076),
        ("together with the FlashInfer allreduce fusion patch", 5080),
        ("CRASHED", 5081),
        // Why: the two greps, and what made them useless.
        ("enable_flashinfer_allreduce_fusion=True", 5082),
        ("The output is too long — that's just the ServerArgs dump.", 5084),
        // What the output reveals, read as the transcript reads it.
        ("2/64", 5084),
        ("It's still loading!", 5085),
        ("timed out after 23 attempts", 5085),
    ] {
        assert!(told(needle, idx), "`{needle}` is not told with [msg {idx}]:\n{doc}");
    }
    // Counts the transcript supports: four changes in one launch, 89% of an output in
    // one dump line, 2 of 64 shards.
    for needle in ["four changes", "89% of the 5672 characters", "2 of 64 done"] {
        assert!(doc.contains(needle), "`{needle}` missing:\n{doc}");
    }
    // Findings are woven in, not pasted: no detector ids or raw summaries in the prose.
    for raw in ["detector had flagged", "`confounded-change`", "relaunch of sglang.launch_server changed"] {
        assert!(!doc.contains(raw), "raw finding text `{raw}`:\n{doc}");
    }
}

#[test]
fn the_seed_arc_has_the_seed_shape() {
    let s = seed_replay();
    let doc = render(&s, Selector::Arc(5083, 5087), "md");
    check_citations(&doc, &redacted(&s), false, "seed arc 5083..5087");
    insta::assert_snapshot!("seed-replay.arc-5083-5087.md", doc.clone());
    assert!(doc.contains("## Introduction") && doc.contains("## Conclusion") && doc.contains("## References"));
    // The introduction counts what it lists: six findings.
    assert!(doc.contains("debrief flags six findings in them:"), "{doc}");
    // One section per message with findings; 5085's leads with the self-correction and
    // tells the wait that ran out too; the empty turn and the recap it drew share one.
    let steps: Vec<&str> =
        doc.lines().filter(|l| l.starts_with("## ") && l[3..].starts_with(char::is_numeric)).collect();
    assert_eq!(steps.len(), 4, "{steps:?}");
    assert!(steps[2].contains("self-correction"), "{steps:?}");
    let step3 = doc.split(steps[2]).nth(1).and_then(|r| r.split("\n## ").next()).unwrap_or("");
    assert!(step3.contains("timed out after 23 attempts"), "{step3}");
    // Reasoning is prose, never a list item of the recap; the ending is told, not a heading.
    assert!(!doc.contains("TP4 × 2 replicas"), "{doc}");
    assert!(!doc.contains("“The plan (notes/eagle-fast-verify.md)”."), "{doc}");
    let conclusion = doc.split("## Conclusion").nth(1).unwrap_or("");
    for needle in ["false alarm", "tail", "It's still loading!", "timed out after 23 attempts", "silence", "recap"] {
        assert!(conclusion.contains(needle), "conclusion lacks `{needle}`:\n{conclusion}");
    }
}

#[test]
fn finding_summaries_are_redacted_too() {
    // The detectors quote the transcript as written (`curl 10.23.0.17:30000/health`);
    // reports must not.
    let s = seed_replay();
    for sel in [Selector::Session, Selector::Episode(5085), Selector::Arc(5080, 5087)] {
        for fmt in ["md", "html", "json"] {
            let out = render(&s, sel, fmt);
            assert!(!out.contains("10.23.0.17"), "{sel:?} {fmt} leaks the host");
        }
    }
}
