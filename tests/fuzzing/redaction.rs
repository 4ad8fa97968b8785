//! The redactor fuzzed on its own (issue 18), shared by `tests/fuzz_redaction.rs` (a
//! short deterministic run in the suite) and the cargo-fuzz target `redaction`
//! (`scripts/fuzz.sh 60 redaction`).
//!
//! The property is differential: what the redactor wrote, redacted again, is left as it
//! is — no rule finds anything in the redactor's output (a replacement that another
//! rule still matches, a secret cut so that a rest of it is still a secret, a label that
//! looks like a key, a match that grows into the text around it). Inputs are transcript
//! text (the seeds' lines), secrets of many shapes (keys with their vendors' prefixes,
//! JWTs, PEM blocks, passwords in words, assignments and flags, URLs with credentials,
//! addresses, e-mails, home folders), debrief's own labels, and the characters rules
//! turn on (quotes, `=`, `:`, `@`, `://`, brackets, backslashes, line breaks), spliced,
//! cut and repeated. A secret planted whole between spaces must also be gone.

use debrief::redact::{HOST, Redactor, USER};

use super::Rng;

/// Secrets of many shapes, from `rng`: (the text, the part that must not show).
pub fn secret(rng: &mut Rng) -> (String, String) {
    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const B64URL: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
    let mut pick = |set: &[u8], n: usize| -> String { (0..n).map(|_| set[rng.below(set.len())] as char).collect() };
    let xoxb = format!("xoxb-{}-{}-{}", pick(b"0123456789", 12), pick(b"0123456789", 12), pick(ALNUM, 24));
    let octet = pick(b"123456789", 2);
    let body = pick(ALNUM, 36);
    let pw = format!("Q{}7", pick(ALNUM, 12));
    let jwt = format!("eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}", pick(B64URL, 48), pick(B64URL, 43));
    let aws = format!("AKIA{}", pick(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16));
    let ant = format!("sk-ant-api03-{}", pick(B64URL, 40));
    let host = format!("gpu-{}.lab.internal", pick(b"abcdefghijklmnopqrstuvwxyz", 6));
    let user = pick(b"abcdefghijklmnopqrstuvwxyz", 8);
    let cases: Vec<(String, String)> = vec![
        (format!("ghp_{body}"), format!("ghp_{body}")),
        (aws.clone(), aws),
        (jwt.clone(), jwt),
        (ant.clone(), ant),
        (format!("the password is {pw}"), pw.clone()),
        (format!("PGPASSWORD={pw} psql"), pw.clone()),
        (format!("{{\"password\": \"{pw}\"}}"), pw.clone()),
        (format!("mysql -u root -p{pw} db"), pw.clone()),
        (format!("curl -u {user}:{pw} https://api.github.com"), pw.clone()),
        (format!("curl -u='{user}:{pw}' x"), pw.clone()),
        (format!("sshpass -p '{pw}' scp a b:"), pw.clone()),
        (format!("redis-cli -a {pw} ping"), pw.clone()),
        (format!("postgres://app:{pw}@{host}:5432/x"), pw.clone()),
        (format!("redis://:{pw}@cache:6379"), pw.clone()),
        (format!("ssh deploy@{host} uptime"), host.clone()),
        (format!("mail {user}.smith@corp-mail.com"), format!("{user}.smith@corp-mail.com")),
        (format!("cd /home/{user}/src"), format!("/home/{user}/")),
        (format!("curl http://203.0.113.{octet}/health"), format!("203.0.113.{octet}")),
        (
            format!("-----BEGIN RSA PRIVATE KEY-----\nMIIEow{body}\n{body}==\n-----END RSA PRIVATE KEY-----"),
            format!("MIIEow{body}"),
        ),
        (format!("Authorization: Bearer {body}"), body.clone()),
        (xoxb.clone(), xoxb),
    ];
    let i = rng.below(cases.len());
    cases.into_iter().nth(i).unwrap_or_default()
}

/// Pieces that rules turn on, and debrief's own labels.
const TOKENS: &[&str] = &[
    "[REDACTED]",
    "[REDACTED:github-pat]",
    "[REDACTED:secret-assignment]",
    "[USER]",
    "[EMAIL]",
    "password",
    "password is ",
    "token=",
    "api_key: ",
    "\"secret\": \"",
    "='",
    "\"",
    "'",
    "`",
    "\\\"",
    "\\n",
    "\n",
    " ",
    "://",
    "@",
    ":",
    "=",
    "&",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "/home/",
    "/Users/",
    "ssh ",
    "https://",
    "eyJ",
    "-----BEGIN PRIVATE KEY-----\n",
    "-----END PRIVATE KEY-----",
    "mysql -p",
    "Bearer ",
    "AKIA",
    "ghp_",
    "127.0.0.1",
    "::1",
    "é",
    "\u{200b}",
];

/// One input: 1–12 pieces of seed text, secrets and tokens, then 0–3 cuts and copies.
/// Returns the text and the secrets planted whole between spaces.
pub fn case(rng: &mut Rng, seeds: &[&[u8]]) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut planted = Vec::new();
    for _ in 0..1 + rng.below(12) {
        match rng.below(4) {
            0 if !seeds.is_empty() => {
                let s = String::from_utf8_lossy(rng.pick::<&[u8]>(seeds)).into_owned();
                let at = floor(&s, rng.below(s.len().max(1)));
                let end = floor(&s, (at + 1 + rng.below(600)).min(s.len()));
                out.push_str(&s[at..end]);
            }
            1 => {
                let (text, secret) = secret(rng);
                // A key that needs no words around it (`ghp_…`, `AKIA…`, a JWT), planted
                // whole where nothing can join it to its neighbours.
                if text == secret && rng.chance(50) {
                    out.push_str(&format!(" {text} "));
                    planted.push(secret);
                } else {
                    out.push_str(&text);
                }
            }
            _ => out.push_str(rng.pick::<&str>(TOKENS)),
        }
    }
    for _ in 0..rng.below(4) {
        if out.is_empty() {
            break;
        }
        let a = floor(&out, rng.below(out.len()));
        let b = floor(&out, (a + rng.below(80)).min(out.len()));
        match rng.below(3) {
            0 => {
                let piece = out[a..b].to_string();
                out.insert_str(a, &piece);
            }
            1 => out.replace_range(a..b, ""),
            _ => out.insert_str(a, rng.pick::<&str>(TOKENS)),
        }
    }
    // A planted secret a cut, a copy or an insertion went through is no longer whole:
    // every time it occurs, it must stand between spaces.
    planted.retain(|s| out.matches(s.as_str()).count() == out.matches(&format!(" {s} ")).count());
    (out, planted)
}

fn floor(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The redactor the checks use: the built-in rules, a user's pattern, and a session's
/// user and host names.
pub fn redactor() -> &'static Redactor {
    static R: std::sync::OnceLock<Redactor> = std::sync::OnceLock::new();
    R.get_or_init(|| {
        Redactor::new(&["PROJ-[0-9]+".to_string()], &[("annsmith".to_string(), USER), ("gpu-box-7".to_string(), HOST)])
            .expect("the redactor builds")
    })
}

/// The property on one input: redacting the redactor's output changes nothing — as
/// text, and as a JSON tool input with its keys — and the planted secrets are gone.
/// Returns how many passes of the rules changed the text.
pub fn check(input: &str, planted: &[String]) -> Result<usize, String> {
    let r = redactor();
    let (once, passes) = r.redact_counting_passes(input);
    let once = once.into_owned();
    let twice = r.redact(&once);
    if twice != once {
        return Err(format!(
            "redacting the output again changed it:\ninput:  {input:?}\nonce:   {once:?}\ntwice:  {twice:?}"
        ));
    }
    for s in planted {
        if once.contains(s.as_str()) {
            return Err(format!("planted {s:?} shows:\ninput: {input:?}\noutput: {once:?}"));
        }
    }
    let mut v = serde_json::json!({"password": input, "args": [input, {"note": input}], input: true});
    r.apply(&mut v);
    let mut again = v.clone();
    r.apply(&mut again);
    if again != v {
        return Err(format!("a JSON input redacted again changed:\ninput: {input:?}\nonce:  {v}\ntwice: {again}"));
    }
    Ok(passes)
}
