//! Samples of every kind of secret redaction promises to hide, for the redaction tests:
//! one per rule of `src/redact/*.toml` (gitleaks' own test recipes,
//! `tests/data/gitleaks-samples.toml`, else a string the rule's regex generates), the
//! personal kinds (hosts, addresses, e-mail, home folders), and passwords and tokens in
//! the shapes people write them (in words, assignments, client flags, URLs, JWTs). The
//! random parts come from seeds: no secret, real or fake, is written in the repository.
//! And the check: which of them (or any 12 characters of one) an output shows.

use std::collections::BTreeMap;

use aho_corasick::AhoCorasick;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regex::Regex;
use serde::Deserialize;

#[derive(Deserialize)]
struct RuleFile {
    rules: Vec<Rule>,
}

/// A rule as the rule files write it (the fields the samples need).
#[derive(Deserialize, Clone)]
pub struct Rule {
    pub id: String,
    pub regex: String,
    #[serde(rename = "secretGroup")]
    pub secret_group: Option<usize>,
    #[serde(default)]
    pub keywords: Vec<String>,
}

#[derive(Deserialize)]
struct Samples {
    sample: Vec<Recipe>,
}

#[derive(Deserialize, Clone)]
struct Recipe {
    rule: String,
    parts: Vec<Part>,
}

#[derive(Deserialize, Clone)]
#[serde(rename_all = "lowercase")]
enum Part {
    Lit(String),
    Re(String),
}

/// Every secret rule of the two rule files.
pub fn rules() -> Vec<Rule> {
    let mut out = Vec::new();
    for f in ["src/redact/gitleaks.toml", "src/redact/builtin.toml"] {
        let text = std::fs::read_to_string(super::root().join(f)).expect("rule file");
        out.extend(toml::from_str::<RuleFile>(&text).expect("rules parse").rules);
    }
    out
}

fn seed_of(s: &str, attempt: u64) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)) ^ attempt
}

/// `re` without `^`, `$`, `\b` and the like, which a generator cannot honour (a
/// candidate that needed them fails the check after generation and is tried again),
/// and with ASCII classes for `\d`, `\w`, `\s`: keys are ASCII, and a Unicode digit
/// matches `\d` but makes no sample of a real key.
fn without_anchors(re: &str) -> String {
    let mut out = String::with_capacity(re.len());
    let mut class = 0;
    // Depths of the classes that are negated.
    let mut negated: Vec<i32> = Vec::new();
    // Case-insensitive flags: a generator then folds `s` to `ſ` and `k` to the Kelvin
    // sign; a sample in one case matches the rule all the same.
    let re = re.replace("(?i)", "").replace("(?i:", "(?:").replace("(?-i:", "(?:");
    let mut chars = re.chars().peekable();
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
                    's' => " ",
                    'S' => "A-Za-z0-9",
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
            '[' if class == 0 && chars.peek() == Some(&'^') => {
                // `[^…]` as `[[^…]&&[A-Za-z0-9_.:/+=-]]`: what keys and passwords are made of.
                class += 1;
                out.push_str("[[");
                negated.push(class);
            }
            '[' => {
                class += 1;
                out.push(c);
            }
            ']' if class > 0 => {
                out.push(c);
                if negated.last() == Some(&class) {
                    negated.pop();
                    out.push_str("&&[A-Za-z0-9_.:/+=-]]");
                }
                class -= 1;
            }
            '^' | '$' if class == 0 => {}
            // Samples look like what people paste: `.`, `\S` and `[^…]` would make any
            // character, `\s` tabs and carriage returns.
            '.' if class == 0 => out.push_str("[A-Za-z0-9]"),
            _ => out.push(c),
        }
    }
    out
}

/// A sample: the text as it would sit in a file, the secret in it, where it came from.
#[derive(Debug, Clone)]
pub struct Sample {
    pub text: String,
    pub secret: String,
    pub from: &'static str,
}

/// Makes samples of one rule, fresh for every salt.
pub struct Sampler {
    pub rule: Rule,
    recipes: Vec<(Recipe, Vec<Option<rand_regex::Regex>>)>,
    re: Option<Regex>,
    generator: Option<rand_regex::Regex>,
}

impl Sampler {
    fn new(rule: Rule, recipes: Vec<Recipe>) -> Sampler {
        let re = Regex::new(&rule.regex).ok();
        let generator = rand_regex::Regex::compile(&without_anchors(&rule.regex), 12).ok();
        let recipes = recipes
            .into_iter()
            .map(|r| {
                let gens = r
                    .parts
                    .iter()
                    .map(|p| match p {
                        Part::Re(re) => rand_regex::Regex::compile(&without_anchors(re), 12).ok(),
                        Part::Lit(_) => None,
                    })
                    .collect();
                (r, gens)
            })
            .collect();
        Sampler { rule, recipes, re, generator }
    }

    /// The secret in `text`: what the rule's secret group matches.
    fn secret_in(&self, text: &str) -> Option<String> {
        let caps = self.re.as_ref()?.captures(text)?;
        let m = match self.rule.secret_group {
            Some(g) => caps.get(g),
            None => caps.iter().skip(1).flatten().next().or(caps.get(0)),
        }?;
        // Of a PEM block, the key is what follows its BEGIN line.
        let s = m.as_str();
        if let Some(body) = s.strip_prefix("-----BEGIN").and_then(|b| b.split_once("-----")).map(|(_, b)| b) {
            return Some(body.to_string());
        }
        Some(s.to_string())
    }

    /// A sample, fresh for each `salt` (salt 0 is the suite's fixed sample). Tries
    /// gitleaks' recipes, then the rule's own regex, with new random parts until the
    /// built-in redaction hides the secret on its own (a candidate the rule's entropy
    /// or allowlist would rightly let pass is not a sample of it).
    pub fn sample(&self, salt: u64) -> Option<Sample> {
        let plausible = |text: &str, secret: &str| {
            secret.len() >= 8
                && text.is_ascii()
                && !text.contains('\\')
                && text.contains(secret)
                && !debrief::redact::redact(text).contains(secret)
        };
        for attempt in 0..64 {
            let mut rng = StdRng::seed_from_u64(seed_of(&self.rule.id, attempt) ^ salt.wrapping_mul(0x9E37_79B9));
            for (recipe, gens) in &self.recipes {
                let (mut text, mut secret) = (String::new(), String::new());
                let mut ok = true;
                for (p, g) in recipe.parts.iter().zip(gens) {
                    match (p, g) {
                        (Part::Lit(l), _) => text.push_str(l),
                        (Part::Re(_), Some(g)) => {
                            let s: String = rng.sample(g);
                            text.push_str(&s);
                            secret.push_str(&s);
                        }
                        (Part::Re(_), None) => ok = false,
                    }
                }
                let secret = self.secret_in(&text).unwrap_or(secret);
                if ok && plausible(&text, &secret) {
                    return Some(Sample { text, secret, from: "gitleaks test recipe" });
                }
            }
            // The rule's own regex (after its first keyword, as gitleaks' samples have
            // it): the secret is its secret group.
            let Some(g) = &self.generator else { continue };
            let generated: String = rng.sample(g);
            let text = match self.rule.keywords.first() {
                Some(k) if !generated.to_lowercase().contains(k.as_str()) => format!("{k} {generated}"),
                _ => generated,
            };
            let Some(secret) = self.secret_in(&text) else { continue };
            // What the regex makes around the secret is a name (`--<name>-auth-token`),
            // and a name of forty random characters is none people write: scanners
            // rightly take it for a key of its own.
            static LONG_WORD: std::sync::LazyLock<Regex> =
                std::sync::LazyLock::new(|| Regex::new(r"[A-Za-z0-9_-]{24}").expect("regex"));
            if LONG_WORD.is_match(&text.replace(&secret, " ")) {
                continue;
            }
            if plausible(&text, &secret) {
                return Some(Sample { text, secret, from: "the rule's regex" });
            }
        }
        None
    }
}

/// One sampler per secret rule.
pub fn samplers() -> Vec<Sampler> {
    let text = std::fs::read_to_string(super::root().join("tests/data/gitleaks-samples.toml")).expect("samples");
    let recipes: Samples = toml::from_str(&text).expect("samples parse");
    rules()
        .into_iter()
        .map(|rule| {
            let mine = recipes.sample.iter().filter(|r| r.rule == rule.id).cloned().collect();
            Sampler::new(rule, mine)
        })
        .collect()
}

/// One sample per rule id (the suite's fixed ones), and the rules without one.
pub fn secret_samples() -> (BTreeMap<String, Sample>, Vec<String>) {
    let mut found = BTreeMap::new();
    let mut missing = Vec::new();
    for s in samplers() {
        match s.sample(0) {
            Some(x) => {
                found.insert(s.rule.id.clone(), x);
            }
            None => missing.push(s.rule.id.clone()),
        }
    }
    (found, missing)
}

/// Hosts, addresses, e-mails and home folders, as (what, text, what must go).
pub fn personal_samples() -> Vec<(&'static str, String, String)> {
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

fn pick<'a>(rng: &mut StdRng, xs: &[&'a str]) -> &'a str {
    xs[rng.random_range(0..xs.len())]
}

fn letters(rng: &mut StdRng, n: usize) -> String {
    (0..n).map(|_| (b'a' + rng.random_range(0..26u8)) as char).collect()
}

/// A password as people choose them: letters and digits, a capital inside, a symbol
/// now and then, 12 to 16 characters (so any 12 of them can be looked for).
fn password(rng: &mut StdRng) -> String {
    const CHARS: &[u8] = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let n = rng.random_range(12..=16);
    let mut p: String = (0..n).map(|_| CHARS[rng.random_range(0..CHARS.len())] as char).collect();
    p.replace_range(0..1, &((b'A' + rng.random_range(0..26u8)) as char).to_string());
    p.push(char::from(b'0' + rng.random_range(0..10u8)));
    if rng.random_bool(0.3) {
        p.push(*[b'!', b'#', b'%', b'^'].get(rng.random_range(0..4)).unwrap_or(&b'!') as char);
    }
    p
}

fn base64url(rng: &mut StdRng, n: usize) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    (0..n).map(|_| B64[rng.random_range(0..B64.len())] as char).collect()
}

/// A maker of fresh samples of one kind.
pub type MakeSample = fn(&mut StdRng) -> Sample;

/// The kinds besides the rules, each a maker of fresh samples: the personal kinds and
/// passwords and tokens in the shapes transcripts have them (issue 18: a password
/// said in words, a JWT in a skill's arguments).
pub fn shaped_kinds() -> Vec<(&'static str, MakeSample)> {
    fn s(text: String, secret: String) -> Sample {
        Sample { text, secret, from: "shaped" }
    }
    vec![
        ("ipv4", |r| {
            let ip = format!(
                "{}.{}.{}.{}",
                pick(r, &["23", "45", "52", "63", "81", "91", "104", "141", "151", "185", "203"]),
                r.random_range(1..250),
                r.random_range(1..250),
                r.random_range(1..250)
            );
            s(format!("curl -s http://{ip}:8080/health"), ip)
        }),
        ("ipv6", |r| {
            let ip = format!(
                "2001:db8:{:x}:{:x}::{:x}",
                r.random_range(1..0xffff),
                r.random_range(1..0xffff),
                r.random_range(1..0xffff)
            );
            s(format!("inet6 {ip}/64 scope global"), ip)
        }),
        ("ssh-host", |r| {
            let host = format!("gpu-{}-{}.lab.internal", letters(r, 5), r.random_range(1..99));
            s(format!("ssh deploy@{host} 'uptime'"), host)
        }),
        ("url-host", |r| {
            let host = format!("{}.corp-{}.net", letters(r, 6), letters(r, 5));
            s(format!("GET https://{host}/api/v2/jobs"), host)
        }),
        ("email", |r| {
            let mail = format!("{}.{}@{}-mail.com", letters(r, 5), letters(r, 7), letters(r, 4));
            s(format!("git log -1 --format=%ae prints {mail}"), mail)
        }),
        ("home-linux", |r| {
            let user = letters(r, 9);
            s(format!("cat /home/{user}/.netrc | wc -l"), user)
        }),
        ("home-mac", |r| {
            let user = letters(r, 9);
            s(format!("ls /Users/{user}/Library/Logs"), user)
        }),
        ("password-in-words", |r| {
            let p = password(r);
            s(format!("the password is {p}"), p)
        }),
        ("password-said-for", |r| {
            let p = password(r);
            s(format!("Password for root: {p}"), p)
        }),
        ("password-assignment", |r| {
            let p = password(r);
            s(format!("DB_PASSWORD={p}"), p)
        }),
        ("password-json", |r| {
            let p = password(r);
            s(format!("{{\"password\": \"{p}\"}}"), p)
        }),
        ("passphrase-quoted", |r| {
            let p = format!("{} {} {} {}", letters(r, 6), letters(r, 5), letters(r, 7), letters(r, 6));
            s(format!("passphrase = \"{p}\""), p)
        }),
        ("pgpassword", |r| {
            let p = password(r);
            s(format!("PGPASSWORD={p} psql -h db -U app"), p)
        }),
        ("mysql-p", |r| {
            let p = password(r);
            s(format!("mysql -u root -p{p} shop"), p)
        }),
        ("sshpass", |r| {
            let p = password(r);
            s(format!("sshpass -p '{p}' scp dump.sql backup:"), p)
        }),
        ("url-password", |r| {
            let p = password(r);
            s(format!("postgres://app:{p}@db.internal:5432/prod"), p)
        }),
        ("url-password-only", |r| {
            let p = password(r);
            s(format!("redis://:{p}@cache:6379/0"), p)
        }),
        // A JWT pasted alone (gitleaks' own `jwt` rule has its samples too).
        ("jwt-pasted", |r| {
            let n = r.random_range(40..120);
            let t = format!("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{}.{}", base64url(r, n), base64url(r, 43));
            s(t.clone(), t)
        }),
        ("jwt-as-pat", |r| {
            let t = format!("eyJhbGciOiJSUzI1NiJ9.eyJ{}.{}", base64url(r, 60), base64url(r, 86));
            s(format!("--pat {t}"), t)
        }),
    ]
}

/// The text of every JSON line of `out` (or of `out`, one JSON document), strings and
/// keys decoded.
pub fn json_text(out: &str) -> String {
    fn walk(v: &serde_json::Value, acc: &mut String) {
        match v {
            serde_json::Value::String(s) => {
                acc.push_str(s);
                acc.push('\n');
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, acc)),
            serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| {
                acc.push_str(k);
                acc.push('\n');
                walk(x, acc)
            }),
            _ => {}
        }
    }
    let mut acc = String::new();
    // One document (a report's facts, pretty-printed), or JSON lines.
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(out) {
        walk(&v, &mut acc);
        return acc;
    }
    for line in out.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        walk(&v, &mut acc);
    }
    acc
}

/// Finds needles in outputs: a needle shows when the output has it whole, or any 12
/// consecutive characters of it. `[REDACTED:rule-id]` labels are ours (some rule ids
/// spell a key's fixed prefix) and are read as `[REDACTED]`.
pub struct Needles {
    /// (kind, secret) by needle number.
    pub needles: Vec<(String, String)>,
    grams: AhoCorasick,
    /// Needle of each pattern of `grams`.
    owner: Vec<usize>,
}

impl Needles {
    pub fn new(needles: Vec<(String, String)>) -> Needles {
        // 12 characters that several different secrets share are a fixed part of a
        // kind (`bedrock-api-key-YmVkcm9jay5h`, `/IncomingWebhook/`), not the secret.
        let grams_of = |secret: &str| -> Vec<String> {
            let chars: Vec<char> = secret.chars().collect();
            if chars.len() < 12 {
                vec![secret.to_string()]
            } else {
                chars.windows(12).map(|w| w.iter().collect()).collect()
            }
        };
        let mut holders: std::collections::HashMap<String, std::collections::BTreeSet<&str>> = Default::default();
        for (_, secret) in &needles {
            for g in grams_of(secret) {
                holders.entry(g).or_default().insert(secret.as_str());
            }
        }
        let mut patterns = Vec::new();
        let mut owner = Vec::new();
        for (i, (_, secret)) in needles.iter().enumerate() {
            let all = grams_of(secret);
            let own: Vec<String> = all.iter().filter(|g| holders[*g].len() == 1).cloned().collect();
            for g in if own.is_empty() { all } else { own } {
                patterns.push(g);
                owner.push(i);
            }
        }
        let grams = AhoCorasick::new(&patterns).expect("needle automaton");
        Needles { needles, grams, owner }
    }

    /// The needles `out` shows, each with the place it shows at.
    pub fn shown(&self, out: &str) -> Vec<(usize, String)> {
        // A label `show` cut short (`[REDACTED:aws-amazon-bedrock-api-key-short…`) too.
        let labels = Regex::new(r"\[REDACTED:[a-z0-9-]*\]?").expect("regex");
        let out = labels.replace_all(out, "[REDACTED]");
        let out = out.as_ref();
        let mut seen = std::collections::BTreeMap::new();
        for m in self.grams.find_overlapping_iter(out) {
            let i = self.owner[m.pattern().as_usize()];
            seen.entry(i).or_insert_with(|| {
                let from = out.floor_char_boundary(m.start().saturating_sub(60));
                let to = out.ceil_char_boundary((m.end() + 60).min(out.len()));
                out[from..to].to_string()
            });
        }
        seen.into_iter().collect()
    }

    /// [`Needles::shown`] as lines for a failure message.
    pub fn leaks(&self, out: &str) -> Vec<String> {
        self.shown(out)
            .into_iter()
            .map(|(i, at)| format!("{} ({}) shown as {at:?}", self.needles[i].0, self.needles[i].1))
            .collect()
    }
}
