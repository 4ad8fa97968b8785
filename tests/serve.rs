//! `debrief serve` over HTTP: the binary started on an index of `corpus/` plus one
//! session holding markup and a secret, asked with plain HTTP/1.1 requests (the token,
//! the Host check, the policy headers, every page, escaping, redaction), then driven in
//! headless Chromium by Playwright for Python (`tests/serve/browser.py`, installed in a
//! venv by `scripts/serve-browser-venv`, pointed at the system's Chromium).
//!
//! Where the browser driver cannot be installed the browser test skips with one line;
//! with `CI` or `DEBRIEF_REQUIRE_SHARED` set that is a failure.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use common::http::{Server, request, start};
use common::synth::{Transcript, noise};

const PLANTED: &str = "5e55a1c0-0000-4000-8000-00000000beef";
/// A session the browser test appends to while its page is open.
const LIVE: &str = "5e55a1c0-0000-4000-8000-0000000011fe";

/// The live session as indexed, and as the agent goes on writing it (written with its own
/// id in place of `PLANTED`, which every `Transcript` carries).
fn live_transcripts() -> (Transcript, Transcript) {
    let first = Transcript::new().user("Why do the quokkas fail to load?").assistant("Looking at the loader.");
    let more = Transcript::new()
        .user("Why do the quokkas fail to load?")
        .assistant("Looking at the loader.")
        .user("Now the wombats fail too.")
        .assistant("The wombats need the same fix.");
    (first, more)
}

/// The markup planted in the transcript: a script in the user's words, an image whose
/// `onerror` would run in a command's output, and one that closes a `<pre>` first.
const SCRIPT: &str = "<script>alert('xss-script')</script>";
const ONERROR: &str = "<img src=x onerror=alert('xss-img')>";
const BREAKOUT: &str = "</pre></details><svg onload=alert('xss-svg')>";

fn token() -> String {
    format!("ghp_{}", noise(15, 36, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"))
}

/// An index of `corpus/` and the planted session, built once.
fn index() -> &'static Path {
    static IX: OnceLock<PathBuf> = OnceLock::new();
    IX.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-index");
        let _ = std::fs::remove_dir_all(&dir);
        let planted = dir.join("planted");
        std::fs::create_dir_all(&planted).unwrap();
        let t = Transcript::new()
            .user(&format!("Why does the page break? It shows {SCRIPT} and the deploy token is {}", token()))
            .bash("cat templates/broken.html", &format!("<html>{ONERROR}\n{BREAKOUT}</html>"), false)
            .assistant(&format!("The template echoes {ONERROR} unescaped; escape it."))
            .bash("grep -rn onerror templates/", "templates/broken.html:1: onerror", true)
            .assistant("Fixed.");
        std::fs::write(planted.join(format!("{PLANTED}.jsonl")), t.text()).unwrap();
        std::fs::write(planted.join(format!("{LIVE}.jsonl")), live_transcripts().0.text().replace(PLANTED, LIVE))
            .unwrap();
        let ix = dir.join("index");
        common::debrief(&ix)
            .args(["index", "--quiet"])
            .arg(common::root().join("corpus"))
            .arg(&planted)
            .assert()
            .success();
        ix
    })
}

fn serve(extra: &[&str]) -> Server {
    let mut c = Command::new(env!("CARGO_BIN_EXE_debrief"));
    c.arg("--index").arg(index()).arg("serve").args(extra);
    start(c)
}

#[test]
fn without_the_token_nothing_is_served() {
    let s = serve(&[]);
    for path in ["/", "/session/x", "/search?q=error", "/static/app.css", "/nowhere"] {
        let a = request(s.port, "GET", path, &s.host(), None);
        assert_eq!(a.status, 401, "{path}");
        assert!(!a.body.contains("<table"), "{path}: {}", a.body);
    }
    let wrong = request(s.port, "GET", "/?token=0123", &s.host(), None);
    assert_eq!(wrong.status, 401);
    let bad_cookie = request(s.port, "GET", "/", &s.host(), Some(&format!("debrief-{}=nope", s.port)));
    assert_eq!(bad_cookie.status, 401);
    // The printed URL sets the cookie and takes the token out of the address.
    let first = request(s.port, "GET", &format!("/search?q=error&token={}", s.token), &s.host(), None);
    assert_eq!(first.status, 303);
    assert_eq!(first.header("location"), Some("/search?q=error"));
    let set = first.header("set-cookie").expect("a cookie");
    assert!(
        set.starts_with(&format!("{}; ", s.cookie())) && set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    assert_eq!(s.get("/").status, 200);
}

#[test]
fn only_loopback_names_and_addresses_are_answered() {
    let s = serve(&[]);
    let port = s.port;
    for host in
        [format!("evil.example:{port}"), format!("127.0.0.1.nip.io:{port}"), "127.0.0.1:1".into(), "localhost".into()]
    {
        let a = request(port, "GET", "/", &host, Some(&s.cookie()));
        assert_eq!(a.status, 403, "Host: {host}");
        assert!(a.header("content-security-policy").is_some(), "Host: {host}");
    }
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        assert_eq!(request(port, "GET", "/", &host, Some(&s.cookie())).status, 200, "Host: {host}");
    }
    // Read-only: nothing but GET (and HEAD).
    assert_eq!(request(port, "POST", "/search", &s.host(), Some(&s.cookie())).status, 405);
    assert_eq!(request(port, "DELETE", "/session/x", &s.host(), Some(&s.cookie())).status, 405);
}

#[test]
fn every_response_has_a_strict_policy() {
    let s = serve(&[]);
    for path in ["/", "/sources", "/findings", &format!("/session/{PLANTED}")] {
        let a = s.get(path);
        assert_eq!(a.status, 200, "{path}");
        let csp = a.header("content-security-policy").unwrap_or_else(|| panic!("{path}: no CSP"));
        assert!(csp.starts_with("default-src 'none'"), "{path}: {csp}");
        // The one script is the server's own file: no inline script, no event attribute.
        assert!(csp.contains("script-src 'self';") && csp.contains("connect-src 'self';"), "{path}: {csp}");
        assert!(!csp.contains("unsafe") && !csp.contains("http") && !csp.contains('*'), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert_eq!(a.header("x-content-type-options"), Some("nosniff"), "{path}");
        assert_eq!(a.header("referrer-policy"), Some("no-referrer"), "{path}");
        assert_eq!(a.body.matches("<script").count(), 1, "{path}: one script");
        assert!(a.body.contains("<script src=\"/static/app.js\" defer></script>"), "{path}: the server's script");
        assert!(!a.body.contains("style=\""), "{path}: inline style");
        assert!(!a.body.contains("http://") && !a.body.contains("https://") || path.starts_with("/session"), "{path}");
    }
    // The write-up is the CLI's HTML: its one inline stylesheet is allowed by hash.
    let w = s.get(&format!("/writeup/{PLANTED}"));
    assert_eq!(w.status, 200);
    let csp = w.header("content-security-policy").unwrap();
    assert!(csp.starts_with("default-src 'none'; style-src 'sha256-") && !csp.contains("unsafe"), "{csp}");
    assert!(!w.body.contains("<script"), "a write-up has no script");
    let css = s.get("/static/app.css");
    assert_eq!(css.status, 200);
    assert!(css.header("content-type").is_some_and(|c| c.starts_with("text/css")));
    let js = s.get("/static/app.js");
    assert_eq!(js.status, 200);
    assert!(js.header("content-type").is_some_and(|c| c.starts_with("text/javascript")));
    assert!(js.body.contains("/api/") && !js.body.contains("http"), "the script asks only its own server");
}

/// What the page's script asks: the messages after the last one shown, and the results
/// part of the search page.
#[test]
fn fragments_for_the_page_script() {
    let s = serve(&[]);
    let page = s.ok(&format!("/session/{PLANTED}"));
    let tail = format!("<div id=\"messages\" data-live=\"/api/session/{PLANTED}\" data-after=\"5\">");
    assert!(page.contains(&tail), "the last window is live: {page}");
    let a = s.get(&format!("/api/session/{PLANTED}?after=1"));
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.header("x-debrief-last"), Some("5"));
    assert!(!a.body.contains("<!doctype") && !a.body.contains("<header"), "a fragment, not a page");
    assert!(a.body.contains("id=\"msg-2\"") && a.body.contains("id=\"msg-5\"") && !a.body.contains("id=\"msg-1\""));
    // As the page shows them: escaped.
    assert!(!a.body.contains("<img src=x") && a.body.contains("&lt;img src=x onerror="), "{}", a.body);
    let none = s.get(&format!("/api/session/{PLANTED}?after=5"));
    assert_eq!((none.status, none.header("x-debrief-last"), none.body.trim()), (200, Some("5"), ""));
    assert_eq!(s.get(&format!("/api/session/{PLANTED}")).status, 400, "after is needed");
    assert_eq!(s.get("/api/session/0000dead?after=1").status, 404);

    let search = s.ok("/search?q=broken");
    assert!(search.contains("<form data-live=\"/api/search\" class=\"filters\""), "{search}");
    let hits = s.get("/api/search?q=broken");
    assert_eq!(hits.status, 200);
    assert!(hits.body.contains("class=\"hit\"") && !hits.body.contains("<!doctype"), "{}", hits.body);
    assert!(search.contains(&format!("<div id=\"results\">{}</div>", hits.body)), "the page holds the same results");
    let bad = s.get("/api/search?q=%22");
    assert_eq!(bad.status, 400);
    assert!(bad.body.starts_with("<p class=\"error\">"), "{}", bad.body);
    // The token is needed there too.
    assert_eq!(request(s.port, "GET", "/api/search?q=broken", &s.host(), None).status, 401);
}

/// The `href` values of a page.
fn links(body: &str) -> Vec<String> {
    body.split("href=\"").skip(1).filter_map(|s| s.split('"').next()).map(|h| h.replace("&amp;", "&")).collect()
}

#[test]
fn pages_answer_and_link_to_each_other() {
    let s = serve(&[]);
    let list = s.ok("/");
    assert!(list.contains(&PLANTED[..8]), "the planted session is listed");
    let sorted = s.ok("/?sort=findings");
    // The session with the most findings comes first and shows its counts.
    let first = links(&sorted).into_iter().find(|l| l.starts_with("/session/")).unwrap();
    let page = s.ok(&first);
    assert!(page.contains("id=\"msg-1\""));
    // Its list of findings links to each, marked at its key message (on the page of
    // messages that holds it: the seed replay has 5,087).
    let to =
        links(&page).into_iter().find(|l| l.contains("#finding-")).unwrap_or_else(|| panic!("{first}: no finding"));
    let (path, anchor) = to.split_once('#').unwrap();
    let at = if path.is_empty() { s.ok(&first) } else { s.ok(path) };
    assert!(at.contains(&format!("<aside class=\"finding\" id=\"{anchor}\"")), "{to}: the finding is not marked");
    for p in [
        "/?agent=claude&since=2020-01-01",
        "/?detector=retry-loop",
        "/search",
        "/search?q=error",
        "/search?q=onerror&errors=1",
        "/findings",
        "/findings?detector=retry-loop",
    ] {
        s.ok(p);
    }
    // The sources page counts the index's files by format (the corpus, indexed by path, is
    // in no agent's folder): every indexed file is in one row.
    let sources = s.ok("/sources");
    let index = &sources[sources.find("<h2>Index</h2><p>").expect("the index part") + "<h2>Index</h2><p>".len()..];
    let total: usize = index.split(' ').next().unwrap().parse().unwrap();
    let table = &sources[sources.find("<table class=\"formats\">").expect("files by format")..];
    let table = &table[..table.find("</table>").unwrap()];
    let rows: Vec<(&str, usize)> = table
        .split("<tr><td>")
        .skip(1)
        .map(|r| {
            let (format, rest) = r.split_once("</td><td class=\"num\">").unwrap();
            (format, rest.split('<').next().unwrap().parse().unwrap())
        })
        .collect();
    assert!(rows.iter().any(|(f, _)| *f == "claude-code") && rows.iter().any(|(f, _)| *f == "codex"), "{rows:?}");
    assert_eq!(rows.iter().map(|(_, n)| n).sum::<usize>(), total, "{rows:?}");
    // A search hit links to its message's anchor on the session's page.
    let hits = s.ok(&format!("/search?q=broken&session={PLANTED}"));
    let to = links(&hits).into_iter().find(|l| l.contains("#msg-")).expect("a hit");
    let (path, anchor) = to.split_once('#').unwrap();
    assert!(s.ok(path).contains(&format!("id=\"{anchor}\"")), "{to}");
    // Ranked by meaning: hits, the choice kept in the form; and the any-word fallback's line.
    let by_meaning = s.ok(&format!("/search?q=the+thing+does+not+work&mode=semantic&session={PLANTED}"));
    assert!(links(&by_meaning).iter().any(|l| l.contains("#msg-")), "semantic hits");
    assert!(by_meaning.contains("value=\"semantic\" selected"), "the mode is kept in the form");
    // One part of a message: `backoff` is only in msg 5's output in the Codex sample.
    let in_output = s.ok("/search?q=backoff&in=output&session=019cb2e4");
    let to: Vec<String> = links(&in_output).into_iter().filter(|l| l.contains("#msg-")).collect();
    assert!(!to.is_empty() && to.iter().all(|l| l.ends_with("#msg-5")), "{to:?}");
    assert!(in_output.contains("value=\"output\" selected"), "the part is kept in the form");
    assert_eq!(s.get("/search?q=backoff&in=stdout").status, 400);
    assert_eq!(s.get("/search?q=backoff&in=output&mode=semantic").status, 400);
    let fallback = s.ok("/search?q=broken+qqzzxxnoword");
    assert!(fallback.contains("no message has every word of the query"), "the fallback says so");
    // A finding links to its write-up, the CLI's HTML report of the episode.
    let findings = s.ok("/findings");
    let writeup = links(&findings).into_iter().find(|l| l.starts_with("/writeup/") && l.contains("episode=")).unwrap();
    let w = s.get(&writeup);
    assert_eq!(w.status, 200, "{writeup}");
    assert!(w.body.contains("<meta name=\"generator\" content=\"debrief\">"), "{writeup}");
    s.ok(&format!("/writeup/{PLANTED}"));
    s.ok(&format!("/writeup/{PLANTED}?arc=1..4"));
    // Wrong arguments and missing things have their own statuses.
    assert_eq!(s.get("/session/ffffffff-none").status, 404);
    assert_eq!(s.get("/search?q=x&since=soon").status, 400);
    assert_eq!(s.get("/?sort=size").status, 400);
    assert_eq!(s.get(&format!("/writeup/{PLANTED}?episode=x")).status, 400);
    assert_eq!(s.get("/nowhere").status, 404);
}

#[test]
fn transcript_markup_is_shown_as_text() {
    let s = serve(&[]);
    let page = s.ok(&format!("/session/{PLANTED}"));
    for payload in [SCRIPT, ONERROR, BREAKOUT] {
        assert!(!page.contains(payload), "raw markup on the page: {payload}");
    }
    assert!(page.contains("&lt;script&gt;alert(&#39;xss-script&#39;)&lt;/script&gt;"));
    assert!(page.contains("&lt;img src=x onerror=alert(&#39;xss-img&#39;)&gt;"));
    assert!(page.contains("&lt;/pre&gt;&lt;/details&gt;&lt;svg onload="));
    let hits = s.ok("/search?q=onerror");
    assert!(hits.contains("<mark>onerror</mark>") && !hits.contains(ONERROR), "search snippets are escaped");
    let w = s.get(&format!("/writeup/{PLANTED}"));
    assert!(!w.body.contains(ONERROR) && !w.body.contains(SCRIPT));
}

#[test]
fn redacted_unless_asked() {
    let secret = token();
    let s = serve(&[]);
    for p in [
        format!("/session/{PLANTED}"),
        format!("/search?q=deploy+token&session={PLANTED}"),
        format!("/writeup/{PLANTED}"),
    ] {
        let body = s.get(&p).body;
        assert!(!body.contains(&secret), "{p} shows the secret");
        assert!(!body.contains("/home/ann"), "{p} shows the home folder");
    }
    assert!(s.ok("/").contains(">redacted<"));
    drop(s);
    let open = serve(&["--no-redact"]);
    assert!(open.ok(&format!("/session/{PLANTED}")).contains(&secret));
    assert!(open.ok("/").contains(">not redacted<"));
}

#[test]
fn listening_elsewhere_needs_bind() {
    let s = serve(&["--bind", "127.0.0.1", "--port", "0"]);
    assert!(s.url.starts_with("http://127.0.0.1:"));
    let out = Command::new(env!("CARGO_BIN_EXE_debrief")).args(["serve", "--bind", "nowhere"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a bad address is a usage error");
    // A port in use is a failure with one line that names it.
    let out = Command::new(env!("CARGO_BIN_EXE_debrief"))
        .arg("--index")
        .arg(index())
        .args(["serve", "--port", &s.port.to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("cannot listen on 127.0.0.1:{}", s.port)), "{err}");
}

#[test]
fn watch_indexes_sessions_as_they_are_written() {
    // A home folder of its own: the agents' folders are looked for there only.
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-watch");
    let _ = std::fs::remove_dir_all(&home);
    let project = home.join(".claude/projects/-home-ann-src-app");
    std::fs::create_dir_all(&project).unwrap();
    let file = project.join(format!("{PLANTED}.jsonl"));
    let first = Transcript::new().user("Why do the quokkas fail to load?").assistant("Looking.");
    std::fs::write(&file, first.text()).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_debrief"));
    c.arg("--index").arg(home.join("index")).args(["serve", "--watch"]).env("HOME", &home);
    for v in [
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "GEMINI_CLI_HOME",
        "XDG_DATA_HOME",
        "FILE_STORE_PATH",
        "PI_CODING_AGENT_DIR",
        "MSWEA_GLOBAL_CONFIG_DIR",
    ] {
        c.env_remove(v);
    }
    let s = start(c);
    let found = |word: &str| {
        let a = s.get(&format!("/search?q={word}"));
        a.status == 200 && a.body.contains("class=\"hit\"")
    };
    let wait = |word: &str| {
        let t = std::time::Instant::now();
        while !found(word) {
            assert!(t.elapsed() < Duration::from_secs(60), "{word}: not indexed within 60 s");
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    // The session there when the server started is indexed by its first run.
    wait("quokkas");
    assert!(!found("wombats"));
    // The write-up is kept once made, for this version of the file only.
    let writeup = s.ok(&format!("/writeup/{PLANTED}"));
    assert_eq!(s.ok(&format!("/writeup/{PLANTED}")), writeup);
    // Appended turns are indexed as they are written, and the session page shows them.
    let more = Transcript::new()
        .user("Why do the quokkas fail to load?")
        .assistant("Looking.")
        .user("Now the wombats fail too.")
        .assistant("The wombats need the same fix.");
    let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all(&more.text().as_bytes()[first.text().len()..]).unwrap();
    drop(f);
    wait("wombats");
    let page = s.ok(&format!("/session/{PLANTED}"));
    assert!(
        page.contains("id=\"msg-4\"") && page.contains("The wombats need the same fix."),
        "the new messages are shown"
    );
    assert_ne!(s.ok(&format!("/writeup/{PLANTED}")), writeup, "the write-up is made again for the grown file");
}

/// `--watch PATH`: the folder named is watched (not the agents' folders), and a session
/// written there after the server started is found; a path that does not exist is one
/// line and exit 1, before any URL is printed.
#[test]
fn watch_a_named_folder() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-watch-named");
    let _ = std::fs::remove_dir_all(&dir);
    let sessions = dir.join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_debrief"));
    c.arg("--index").arg(dir.join("index")).args(["serve", "--watch"]).arg(&sessions).env("HOME", dir.join("home"));
    let s = start(c);
    let (_, more) = live_transcripts();
    std::fs::write(sessions.join(format!("{LIVE}.jsonl")), more.text().replace(PLANTED, LIVE)).unwrap();
    let t = std::time::Instant::now();
    loop {
        let a = s.get("/search?q=wombats");
        if a.status == 200 && a.body.contains("class=\"hit\"") {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(60), "a session written under --watch DIR is not indexed");
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_debrief"))
        .arg("--index")
        .arg(dir.join("index"))
        .args(["serve", "--watch"])
        .arg(dir.join("nowhere"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no URL");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--watch ") && err.contains("nowhere: no such file or folder"), "{err}");
}

/// The venv's python with Playwright, or why there is none.
fn driver() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-browser-venv");
    let out = Command::new("bash")
        .arg(common::root().join("scripts/serve-browser-venv"))
        .arg(&venv)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run scripts/serve-browser-venv: {e}"));
    let why = match out {
        Ok(o) if o.status.success() && Path::new("/usr/bin/chromium").exists() => {
            return Some(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
        }
        Ok(o) if o.status.success() => "no /usr/bin/chromium (apt-get install chromium)".to_string(),
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr);
            format!(
                "scripts/serve-browser-venv failed: {}",
                err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message")
            )
        }
        Err(e) => e,
    };
    let set = |v: &str| std::env::var(v).is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    assert!(!set("CI") && !set("DEBRIEF_REQUIRE_SHARED"), "the browser test cannot run ({why}), and CI is set");
    let _ = writeln!(std::io::stderr(), "skipped the browser test of debrief serve: {why}");
    None
}

#[test]
fn in_a_real_browser() {
    let Some(python) = driver() else { return };
    let s = serve(&[]);
    let (first, more) = live_transcripts();
    let appended = more.text()[first.text().len()..].replace(PLANTED, LIVE);
    let spec = serde_json::json!({
        "url": s.url,
        "chromium": "/usr/bin/chromium",
        "session": PLANTED,
        "query": "broken",
        "payloads": ["xss-script", "xss-img", "xss-svg"],
        "live": {
            "session": LIVE,
            "file": index().parent().unwrap().join("planted").join(format!("{LIVE}.jsonl")),
            "append": appended,
            "word": "wombats",
        },
    });
    let out = Command::new(python)
        .arg(common::root().join("tests/serve/browser.py"))
        .arg(spec.to_string())
        .output()
        .expect("run the browser driver");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the browser check failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("browser checks passed"), "{stdout}\n{stderr}");
}
