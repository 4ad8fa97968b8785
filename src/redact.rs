//! Redaction of secrets, hosts, addresses and user names: what every command that prints
//! transcript text (`show`, `search` snippets, `detect` summaries, `sessions`, `report`,
//! in every output format) passes it through, unless the user says `--no-redact`.
//!
//! What is replaced, and by what:
//! - API keys, tokens, private keys, JWTs: `[REDACTED:<rule id>]`. The rules are data:
//!   a subset of gitleaks' maintained rule set (`src/redact/gitleaks.toml`, MIT, see the
//!   header there) plus our own for what gitleaks misses (`src/redact/builtin.toml`).
//! - `password=…`/`token: …` assignments and `--password X` flags: the value.
//! - hosts: `ssh root@gpu-7` → `root@[REDACTED]`, URL hosts and credentials
//!   (`postgres://[USER]:[REDACTED]@[REDACTED]:5432/db`); well-known public hosts
//!   (github.com, pypi.org, …) and localhost stay.
//! - IPv4/IPv6 addresses → `[REDACTED]` (loopback and 0.0.0.0 stay; version numbers are
//!   not addresses); e-mail addresses → `[EMAIL]`;
//!   home folders `/home/ann/` → `/home/[USER]/`; the session's own user and host names
//!   wherever they appear.
//!
//! Ordinary text is left alone: commit hashes, UUIDs, paths inside the project and
//! version numbers match none of the rules (tests pin that).
//!
//! Speed: every rule has a cheap trigger — its keywords, found for all rules at once by
//! one Aho-Corasick automaton, or a small regex (`@`, `://`, a dotted quad) in a
//! [`RegexSet`] — so a text without any trigger costs one scan, and only the triggered
//! rules run their full regex. A rule's regex is compiled the first time it is
//! triggered: compiling all 116 secret rules up front took 40 ms, most of a search.
//! Matches of all rules are collected and the earliest, longest one wins where they
//! overlap, so one pass produces the result.

use std::borrow::Cow;
use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::Path;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use anyhow::{Context, Result};
use regex::{Captures, Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use serde::Deserialize;

use crate::detect::{Cited, Details, Finding, Undoing};
use crate::index::schema::SessionRecord;
use crate::model::{BadRecord, Call, CallResult, Message, Session, SessionMeta};
use crate::shell::SSH_VALUE_FLAGS;

/// Passes of the rules at most (see [`Redactor::redact`]): of 100,000 fuzzed texts
/// (docs/reliability.md) 7 needed three and 2 all four, whose output a further pass
/// left as it was.
const MAX_PASSES: usize = 4;

/// What a redacted host or address becomes (the seeds' spelling).
pub const HOST: &str = "[REDACTED]";
/// What a personal user name becomes.
pub const USER: &str = "[USER]";
/// What an e-mail address becomes.
pub const EMAIL: &str = "[EMAIL]";

const GITLEAKS_RULES: &str = include_str!("redact/gitleaks.toml");
const BUILTIN_RULES: &str = include_str!("redact/builtin.toml");

/// Accounts that name a role, not a person: they stay (`root@[REDACTED]`).
const GENERIC_USERS: &[&str] = &[
    "root",
    "ubuntu",
    "ec2-user",
    "admin",
    "git",
    "debian",
    "centos",
    "fedora",
    "azureuser",
    "opc",
    "core",
    "pi",
    "user",
    "runner",
    "postgres",
    "mysql",
    "redis",
    "www-data",
    "nobody",
    "noreply",
    "no-reply",
    "shared",
    "public",
    "default",
    "guest",
];

/// Public hosts whose names reveal nothing about the user (suffix match on a dot
/// boundary). Everything else in a URL or ssh target is redacted.
const PUBLIC_HOSTS: &[&str] = &[
    "github.com",
    "githubusercontent.com",
    "github.io",
    "gitlab.com",
    "bitbucket.org",
    "pypi.org",
    "pythonhosted.org",
    "python.org",
    "crates.io",
    "docs.rs",
    "rust-lang.org",
    "npmjs.com",
    "npmjs.org",
    "yarnpkg.com",
    "huggingface.co",
    "hf.co",
    "docker.io",
    "docker.com",
    "ghcr.io",
    "nvidia.com",
    "pytorch.org",
    "go.dev",
    "golang.org",
    "google.com",
    "microsoft.com",
    "apple.com",
    "anthropic.com",
    "claude.ai",
    "openai.com",
    "stackoverflow.com",
    "wikipedia.org",
    "readthedocs.io",
    "readthedocs.org",
    "mozilla.org",
    "example.com",
    "example.org",
    "example.net",
    "debian.org",
    "ubuntu.com",
    "kernel.org",
    "apache.org",
    "w3.org",
    "json-schema.org",
    "arxiv.org",
];

/// One rule as written in the TOML rule files (gitleaks' field names).
#[derive(Debug, Deserialize)]
struct RuleSpec {
    id: String,
    regex: String,
    #[serde(rename = "secretGroup")]
    secret_group: Option<usize>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    allow: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct RuleFile {
    rules: Vec<RuleSpec>,
}

/// How a rule turns a match into replacement text.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// A secret: its group becomes `[REDACTED:id]`.
    Secret,
    /// A user-supplied pattern: its group becomes `[REDACTED]`.
    Extra,
    /// `user@host`: e-mail address or ssh/scp target.
    UserAtHost,
    /// `ssh [options] host` without a user.
    SshHost,
    /// `scheme://[user[:password]@]host`.
    Url,
    Ipv4,
    Ipv6,
    /// `/home/ann`, `/Users/ann`, `C:\Users\ann`.
    Home,
    /// The session's own user or host name as a word.
    Name,
    /// A database or remote client's command (`mysql …`, `sshpass …`, `redis-cli …`,
    /// `curl -u …`): the value of every password flag in it.
    ClientFlags,
}

struct Rule {
    id: String,
    kind: Kind,
    /// The regex's source, compiled into `regex` when the rule is first triggered.
    pattern: String,
    regex: OnceLock<Regex>,
    /// The pattern with its long bounded repetitions unbounded (see [`loosened`]), when
    /// it has any: it matches wherever the rule could, and compiles many times faster.
    loose: Option<Loose>,
    group: Option<usize>,
    entropy: Option<f64>,
    allow_patterns: Vec<String>,
    allow: OnceLock<Vec<Regex>>,
}

/// A rule's loosened pattern (see [`loosened`]) and the smallest bound it dropped.
struct Loose {
    pattern: String,
    /// The smallest upper bound `n` of the repetitions `{m,n}` written `{m,}`: a match of
    /// the loosened pattern no longer than this many characters is the rule's own match
    /// (see [`Rule::matches_from`]).
    bound: usize,
    regex: OnceLock<Regex>,
}

/// What makes a rule worth running on a text.
enum Trigger {
    /// Any of these words, ASCII case ignored.
    Keywords(Vec<String>),
    Regex(String),
}

/// One replacement: bytes `start..end` of the input become `with`.
struct Hit {
    start: usize,
    end: usize,
    with: String,
    /// Found by the second scan (escaped line breaks read as spaces).
    second: bool,
}

/// `text` with each escaped line break or tab (`\n`, `\r`, `\t` as two characters) as
/// two spaces, when it has one.
fn escapes_as_spaces(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let escaped = |i: usize| b[i] == b'\\' && matches!(b.get(i + 1), Some(b'n' | b'r' | b't'));
    let first = memchr::memchr_iter(b'\\', b).find(|&i| escaped(i))?;
    let mut out = b.to_vec();
    let mut i = first;
    while i + 1 < out.len() {
        if escaped(i) {
            out[i] = b' ';
            out[i + 1] = b' ';
            i += 2;
        } else {
            i += 1;
        }
    }
    // Only ASCII bytes changed, to ASCII: still UTF-8.
    String::from_utf8(out).ok()
}

/// Rules used together, with their pre-filter.
struct Layer {
    rules: Vec<Rule>,
    /// Keyword automaton and, by pattern, the rule each keyword triggers.
    keywords: Option<(AhoCorasick, Vec<usize>)>,
    /// Regex triggers and, by pattern, their rules.
    regexes: Option<(RegexSet, Vec<usize>)>,
}

/// A compiled set of redaction rules: the built-in layer (compiled once per process and
/// shared) and a small layer of the user's patterns and the session's names. Build one
/// per export, use it for every text of the export.
pub struct Redactor {
    layers: Vec<std::sync::Arc<Layer>>,
}

static BUILTIN_LAYER: LazyLock<std::sync::Arc<Layer>> = LazyLock::new(|| {
    // The rule files are compiled into the binary and a unit test compiles them, so a
    // failure here is a build defect, not a user error.
    std::sync::Arc::new(builtin_layer().expect("the built-in redaction rules compile (tested)"))
});

static BUILTIN: LazyLock<Redactor> = LazyLock::new(|| Redactor { layers: vec![BUILTIN_LAYER.clone()] });

/// Redact `text` with the built-in rules.
pub fn redact(text: &str) -> Cow<'_, str> {
    BUILTIN.redact(text)
}

impl Redactor {
    /// The built-in rules, compiled once per process.
    pub fn builtin() -> &'static Redactor {
        &BUILTIN
    }

    /// The built-in rules plus `extra` regexes (each redacts its first group, or the
    /// whole match, as `[REDACTED]`) and `names` (the session's user and host names,
    /// redacted wherever they appear as a word).
    pub fn new(extra: &[String], names: &[(String, &'static str)]) -> Result<Redactor> {
        // Sessions of one archive share their user and host names, and a search makes a
        // redactor for each session it shows: the layer of the user's patterns and the
        // names is made (and its rules compiled) once per process for each set of them.
        type Key = (Vec<String>, Vec<(String, &'static str)>);
        static MADE: LazyLock<std::sync::Mutex<HashMap<Key, Option<std::sync::Arc<Layer>>>>> =
            LazyLock::new(Default::default);
        let key = (extra.to_vec(), names.to_vec());
        if let Some(layer) = MADE.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(Redactor { layers: [BUILTIN_LAYER.clone()].into_iter().chain(layer.clone()).collect() });
        }
        let layer = Redactor::extra_layer(extra, names)?;
        let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
        // A long-running server meets many names: forget them all now and then.
        if made.len() >= 256 {
            made.clear();
        }
        made.insert(key, layer.clone());
        Ok(Redactor { layers: [BUILTIN_LAYER.clone()].into_iter().chain(layer).collect() })
    }

    /// The layer of the user's `extra` patterns and the session's `names`, if any.
    fn extra_layer(extra: &[String], names: &[(String, &'static str)]) -> Result<Option<std::sync::Arc<Layer>>> {
        let mut rules = Vec::new();
        for (i, pattern) in extra.iter().enumerate() {
            // The user's patterns are compiled now, so a bad one is an error, not a panic.
            let regex = compile(pattern).with_context(|| format!("redaction pattern `{pattern}`"))?;
            let mut rule = Rule::new(format!("extra-{}", i + 1), Kind::Extra, pattern.clone());
            rule.regex = OnceLock::from(regex);
            rules.push((rule, Trigger::Regex(pattern.clone())));
        }
        for (name, with) in names {
            if name.chars().count() < 3 || is_generic_user(name) {
                continue;
            }
            // An ASCII name needs only ASCII word boundaries, which compile far faster.
            let re = if name.is_ascii() {
                format!(r"(?i)(?-u:\b){}(?-u:\b)", regex::escape(name))
            } else {
                format!(r"(?i)\b{}\b", regex::escape(name))
            };
            // Compiled when the name first occurs (an escaped name always compiles): a
            // search makes a redactor for each session it shows, most never need it.
            let rule = Rule::new((*with).to_string(), Kind::Name, re);
            let trigger = if name.is_ascii() {
                Trigger::Keywords(vec![name.clone()])
            } else {
                Trigger::Regex(format!("(?i){}", regex::escape(name)))
            };
            rules.push((rule, trigger));
        }
        if rules.is_empty() {
            return Ok(None);
        }
        Ok(Some(std::sync::Arc::new(Layer::new(rules)?)))
    }

    /// A redactor for the session `meta` describes, with the user's `extra` patterns
    /// (already read with [`read_patterns`]).
    pub fn for_meta(meta: &SessionMeta, extra: &[String]) -> Result<Redactor> {
        let mut names = Vec::new();
        if let Some(u) = &meta.user {
            names.push((u.clone(), USER));
        }
        // The machine name is often the reading machine's (formats that do not record
        // one); redact it where it looks like a machine name, not a plain word that
        // ordinary text may contain ("main", "dev").
        if let Some(h) = &meta.host
            && h.len() >= 4
            && h.contains(|c: char| c == '-' || c == '.' || c.is_ascii_digit())
        {
            names.push((h.clone(), HOST));
        }
        Redactor::new(extra, &names)
    }

    fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.layers.iter().flat_map(|l| &l.rules)
    }

    /// The ids of the rules, in order (the user's patterns as `extra-N`, the session's
    /// names as what replaces them): what the team store records as having run.
    pub fn rule_ids(&self) -> Vec<&str> {
        self.rules().map(|r| r.id.as_str()).collect()
    }

    /// Number of rules (secrets, structural, extra, names).
    pub fn rule_count(&self) -> usize {
        self.rules().count()
    }

    /// Number of secret rules from the vendored gitleaks set and our own rule file.
    pub fn secret_rule_count(&self) -> usize {
        self.rules().filter(|r| r.kind == Kind::Secret).count()
    }

    /// `text` with everything sensitive replaced; borrowed when nothing was.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.redact_counting_passes(text).0
    }

    /// [`Redactor::redact`], and how many passes of the rules changed the text (the
    /// fuzzer reports how many texts need more than one).
    pub fn redact_counting_passes<'a>(&self, text: &'a str) -> (Cow<'a, str>, usize) {
        let Cow::Owned(mut out) = self.redact_once(text) else { return (Cow::Borrowed(text), 0) };
        // A replacement changes what its neighbours stand next to: a key glued to the
        // one before it (`ghp_…eyJ…`) stands on its own once the first is a label, and
        // is then found. Passes go on until one finds nothing; the fuzzer
        // (tests/fuzz_redaction.rs) checks that the last pass always finds nothing.
        let mut passes = 1;
        while passes < MAX_PASSES {
            match self.redact_once(&out) {
                Cow::Borrowed(_) => break,
                Cow::Owned(next) => out = next,
            }
            passes += 1;
        }
        (Cow::Owned(out), passes)
    }

    /// One pass of the rules over `text`.
    fn redact_once<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if text.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut hits = self.hits(text);
        // Escaped line breaks and tabs (`\n` as two characters: JSON printed as it is)
        // end words as real ones do, but a key right after one has no word boundary
        // before it, and rules that start at a boundary pass it by. So such a text is
        // scanned again with each `\n`, `\r`, `\t` as two spaces (same length, same
        // offsets), and what either scan finds goes.
        if let Some(spaced) = escapes_as_spaces(text) {
            let more = self.hits(&spaced);
            hits.extend(more.into_iter().map(|h| Hit { second: true, ..h }));
        }
        if hits.is_empty() {
            return Cow::Borrowed(text);
        }
        // Earliest first, then longest (then the first scan's): a URL beats the IP inside
        // it, a PEM block beats the assignment inside it. A hit that starts inside an
        // earlier one and runs on past it goes too (its replacement follows): whatever
        // any rule wants gone is gone, and no rest of a secret is left after a shorter,
        // earlier match.
        hits.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)).then(a.second.cmp(&b.second)));
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for h in hits {
            if h.end <= at {
                continue;
            }
            if h.start >= at {
                out.push_str(&text[at..h.start]);
            }
            out.push_str(&h.with);
            at = h.end;
        }
        out.push_str(&text[at..]);
        // Hits that write what was there (`git@github.com`, kept) change nothing.
        if out == text { Cow::Borrowed(text) } else { Cow::Owned(out) }
    }

    /// What the rules find in `text`, unordered.
    fn hits(&self, text: &str) -> Vec<Hit> {
        let mut hits = Vec::new();
        for layer in &self.layers {
            for i in layer.triggered(text) {
                let rule = &layer.rules[i];
                let mut from = 0;
                // The loosened pattern first, while its matches are the rule's (see
                // `Rule::matches_from`); the rule's own regex from the first that may not be.
                let mut loose = rule.loose.as_ref();
                while from <= text.len() {
                    let Some(caps) = rule.captures_at(&mut loose, text, from) else { break };
                    let Some(whole) = caps.get(0) else { break };
                    if rule.kind == Kind::ClientFlags {
                        client_flags(&caps, &mut hits);
                    } else if let Some(hit) = rule.hit(text, &caps) {
                        hits.push(hit);
                    }
                    from = next_search(text, &caps, whole, rule.kind);
                }
            }
        }
        hits
    }

    /// Redact in place.
    pub fn redact_string(&self, s: &mut String) {
        if let Cow::Owned(r) = self.redact(s) {
            *s = r;
        }
    }

    /// Redact anything the model holds, through its [`Redact`] impl: the one place that
    /// says which fields of the model are shown redacted.
    pub fn apply<T: Redact + ?Sized>(&self, x: &mut T) {
        x.redact_with(self);
    }

    /// A string value of a JSON object, with its key: under a key that names a secret
    /// (`"password"`, `"apiKey"`, `"client_secret"`) the whole value is one, whatever it
    /// looks like — the key is the context a rule would need, and a string value alone
    /// does not carry it.
    fn redact_json_field(&self, key: &str, value: &mut String) {
        if secret_key(key) && plausible_secret_value(value) {
            *value = "[REDACTED:secret-assignment]".to_string();
        } else {
            self.redact_string(value);
        }
    }
}

/// Whether a JSON key or a variable name names a secret: the names of
/// `secret-assignment` in `builtin.toml` (where the text rules decide the same).
fn secret_key(key: &str) -> bool {
    static KEY: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(&format!("(?i)^(?:{SECRET_NAME})$")).expect("static regex"));
    key.len() <= 80 && KEY.is_match(key)
}

/// A value under a secret's name that is not a placeholder, a type, a reference or
/// empty (`"password": ""`, `"token": "$GITHUB_TOKEN"`, `"api_key": "<your key>"`,
/// `"secret": null` stay).
fn plausible_secret_value(v: &str) -> bool {
    static PLACEHOLDER: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(&format!("^(?:{PLACEHOLDER_VALUE})$")).expect("static regex"));
    let v = v.trim();
    !v.is_empty()
        && v.len() <= 4096
        && !v.starts_with(['$', '<', '{', '%', '*', '[', '/', '~'])
        && !PLACEHOLDER.is_match(v)
}

/// Names of secrets in assignments and JSON keys: any name that contains one of these
/// (`PGPASSWORD`, `db_password_confirm`, `JWTSecret`, `OPENAI_API_KEY`), or ends in
/// `token`, `pwd` or `credentials` (`access_token`, `MYSQL_PWD`; not `tokenizer`).
/// Kept in step with `secret-assignment` and `quoted-secret-assignment` in
/// `builtin.toml` (a unit test checks that they agree).
pub(crate) const SECRET_NAME: &str = r"[\w.-]*(?:password|passwd|passphrase|secret|api[_-]?key|apikey|auth[_-]?key|access[_-]?key|private[_-]?key|priv[_-]?key|client[_-]?key|service[_-]?key|account[_-]?key|db[_-]?pass|database[_-]?pass|key[_-]?pass|contrase(?:ñ|n)a)[\w.-]*|[\w.-]*(?:token|pwd|credentials?)";

/// Values under a secret's name that are not secrets: type names, empty markers,
/// switches, version numbers (`"tiktoken": "^0.7.0"`), and what debrief itself writes.
const PLACEHOLDER_VALUE: &str = r"(?i:str|string|bytes|none|null|nil|true|false|yes|no|on|off|int|bool|boolean|number|secretstr|required|optional.*|undefined|redacted.*|\[redacted.*|x+|\.+|-+|_+|\*+|\d{1,7}|[\^~<>=!]*v?\d+(?:\.\d+)+(?:[-+.][0-9A-Za-z]+){0,4})";

/// Redaction of the normalized model, field by field. Every impl destructures its struct
/// whole (no `..`), so a field added to the model does not compile until it is decided
/// here whether it is shown redacted — a new output that prints the model cannot forget a
/// field. What stays as it is: the source path (where the file is on this machine:
/// scripts open it and commands paste it), ids (session, call, parent: the keys other
/// commands take), numbers, times, and names debrief gives (format, agent, detector).
pub trait Redact {
    fn redact_with(&mut self, r: &Redactor);
}

impl Redact for String {
    fn redact_with(&mut self, r: &Redactor) {
        r.redact_string(self);
    }
}

impl<T: Redact> Redact for Option<T> {
    fn redact_with(&mut self, r: &Redactor) {
        if let Some(x) = self {
            x.redact_with(r);
        }
    }
}

impl<T: Redact> Redact for [T] {
    fn redact_with(&mut self, r: &Redactor) {
        self.iter_mut().for_each(|x| x.redact_with(r));
    }
}

impl<T: Redact> Redact for Vec<T> {
    fn redact_with(&mut self, r: &Redactor) {
        self.as_mut_slice().redact_with(r);
    }
}

/// Any JSON value (a tool's input, whatever the tool): every string, object keys
/// included (a key can be data: a header or variable name, a map's entry), and a string
/// under a secret's name whole (see [`Redactor::redact_json_field`]).
impl Redact for serde_json::Value {
    fn redact_with(&mut self, r: &Redactor) {
        match self {
            serde_json::Value::String(s) => r.redact_string(s),
            serde_json::Value::Array(a) => a.redact_with(r),
            serde_json::Value::Object(o) => {
                let renamed = o.keys().any(|k| matches!(r.redact(k), Cow::Owned(_)));
                if renamed {
                    *o = std::mem::take(o).into_iter().map(|(k, v)| (r.redact(&k).into_owned(), v)).collect();
                }
                for (k, v) in o.iter_mut() {
                    match v {
                        serde_json::Value::String(s) => r.redact_json_field(k, s),
                        _ => v.redact_with(r),
                    }
                }
            }
            serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {}
        }
    }
}

impl Redact for Session {
    fn redact_with(&mut self, r: &Redactor) {
        let Session { meta, messages } = self;
        meta.redact_with(r);
        messages.redact_with(r);
    }
}

/// What a session's metadata took from the transcript: working folder, project, title,
/// branch, model and version strings; user and host names become `[USER]` and
/// `[REDACTED]`. The source path and the ids stay.
impl Redact for SessionMeta {
    fn redact_with(&mut self, r: &Redactor) {
        let SessionMeta {
            id: _,
            format: _,
            agent: _,
            source: _,
            cwd,
            project,
            title,
            started: _,
            ended: _,
            model,
            agent_version,
            git_branch,
            host,
            user,
            parent_session: _,
            parent_call: _,
            forked_after: _,
            started_from: _,
            messages: _,
        } = self;
        // A project named after the folder is named after the redacted folder: redacted
        // on its own, the last part of a path with a secret in it is a piece of the
        // secret that no rule knows.
        let derived = project.is_some() && *project == cwd.as_deref().and_then(crate::model::project_name);
        for f in [&mut *cwd, title, model, agent_version, git_branch] {
            f.redact_with(r);
        }
        if derived {
            *project = cwd.as_deref().and_then(crate::model::project_name);
        } else {
            project.redact_with(r);
        }
        if host.is_some() {
            *host = Some(HOST.to_string());
        }
        if user.as_deref().is_some_and(|u| !is_generic_user(u)) {
            *user = Some(USER.to_string());
        }
    }
}

impl Redact for Message {
    fn redact_with(&mut self, r: &Redactor) {
        let Message {
            idx: _,
            role: _,
            origin: _,
            timestamp: _,
            text,
            thinking,
            calls,
            line: _,
            end_line: _,
            offset: _,
            sidechain: _,
        } = self;
        text.redact_with(r);
        thinking.redact_with(r);
        calls.redact_with(r);
    }
}

/// A tool call of any tool: its name, its whole input (any JSON), its command line and
/// its result. The ids stay (a poll names the call it continues by id).
impl Redact for Call {
    fn redact_with(&mut self, r: &Redactor) {
        let Call { id: _, name, input, command, result, continues: _ } = self;
        name.redact_with(r);
        input.redact_with(r);
        command.redact_with(r);
        result.redact_with(r);
    }
}

impl Redact for CallResult {
    fn redact_with(&mut self, r: &Redactor) {
        let CallResult {
            output,
            exit_code: _,
            is_error: _,
            interrupted: _,
            timed_out: _,
            running: _,
            timestamp: _,
            line: _,
        } = self;
        output.redact_with(r);
    }
}

/// What a finding quotes from the transcript: its summary, command and the facts it
/// rests on. (Detectors run on the transcript as written, so their findings are redacted
/// like the messages.)
impl Redact for Finding {
    fn redact_with(&mut self, r: &Redactor) {
        let Finding { detector: _, key: _, evidence: _, summary, command, details } = self;
        summary.redact_with(r);
        command.redact_with(r);
        details.redact_with(r);
    }
}

/// Every variant's quotes: the claim and what undid it, the shared error, the settings
/// changed and the files edited. Message numbers and the detector's own words (`how`)
/// stay.
impl Redact for Details {
    fn redact_with(&mut self, r: &Redactor) {
        match self {
            Details::Belief { claim, undone } => {
                claim.redact_with(r);
                undone.redact_with(r);
            }
            Details::Runs { runs: _, error, folder_changed: _ } => error.redact_with(r),
            Details::Flips { of: _, subject, states, switches } => {
                subject.redact_with(r);
                states.iter_mut().for_each(|s| s.redact_with(r));
                switches.redact_with(r);
            }
            Details::Relaunch { previous: _, changes, edits } => {
                changes.redact_with(r);
                edits.redact_with(r);
            }
            Details::Search { searches, why, read } => {
                searches.redact_with(r);
                why.redact_with(r);
                read.redact_with(r);
            }
            Details::Wait { waits: _, command, how } => {
                command.redact_with(r);
                how.redact_with(r);
            }
            Details::Recap { chars: _, median: _, sections: _, after } => after.redact_with(r),
            Details::Pause { before: _, reply: _, in_a_row: _ } => {}
        }
    }
}

impl Redact for Cited {
    fn redact_with(&mut self, r: &Redactor) {
        let Cited { idx: _, text } = self;
        text.redact_with(r);
    }
}

impl Redact for Undoing {
    fn redact_with(&mut self, r: &Redactor) {
        let Undoing { idx: _, how: _, text } = self;
        text.redact_with(r);
    }
}

/// A record a parser could not use: its reason may quote the record.
impl Redact for BadRecord {
    fn redact_with(&mut self, r: &Redactor) {
        let BadRecord { line: _, reason } = self;
        reason.redact_with(r);
    }
}

/// A session as the index stores it (what `sessions` and `search` print of it).
impl Redact for SessionRecord {
    fn redact_with(&mut self, r: &Redactor) {
        let SessionRecord { meta, ordinal: _, stats: _, findings } = self;
        meta.redact_with(r);
        findings.redact_with(r);
    }
}

impl Loose {
    fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| compile(&self.pattern).expect("loosened redaction rules compile (tested)"))
    }
}

impl Rule {
    fn new(id: String, kind: Kind, pattern: String) -> Rule {
        Rule {
            id,
            kind,
            pattern,
            regex: OnceLock::new(),
            loose: None,
            group: None,
            entropy: None,
            allow_patterns: Vec::new(),
            allow: OnceLock::new(),
        }
    }

    /// The compiled regex. Built-in patterns are compiled by a unit test
    /// (`every_rule_compiles`), the user's when the redactor is made, so this cannot fail.
    fn regex(&self) -> &Regex {
        self.regex.get_or_init(|| compile(&self.pattern).expect("redaction rules compile (tested)"))
    }

    /// Give a built-in rule its loosened pattern (the user's patterns are not rewritten:
    /// [`loosened`] reads the syntax the rule files use, not every flag a user may set).
    fn loosen(&mut self) {
        self.loose = loosened(&self.pattern).map(|(pattern, bound)| Loose { pattern, bound, regex: OnceLock::new() });
    }

    /// The rule's first match at or after `from`, with its groups, as [`Regex::captures_at`]
    /// of the rule's regex finds it; from the loosened pattern while `loose` is set, which
    /// is cleared (and the rule's regex compiled) at the first match that may not be the
    /// rule's.
    ///
    /// Why a short match of the loosened pattern is the rule's: the rule's matches (each
    /// a way through the pattern) are the loosened pattern's that repeat no item more often
    /// than the rule's bounds allow, and both prefer among them in the same order (a
    /// greedy repetition prefers one more, a lazy one fewer, bounded or not). So when the
    /// loosened pattern's match — the earliest-starting, and of those the preferred — is
    /// one of the rule's, no match of the rule starts earlier and none is preferred to it:
    /// it is the rule's match, groups and all. It is one of the rule's when it repeats no
    /// loosened item more than `bound` times, and each repetition of one consumes a
    /// character ([`loosened`] loosens only single-character items), so a match of at most
    /// `bound` characters is. Quoted values are short: on real transcripts the rule's own
    /// regex (`quoted-secret-assignment`: three `{0,300}` values, 18 ms to compile, most of
    /// a search's set-up) is hardly ever needed. `tests::loosened_matches_are_the_rules`
    /// checks the two against each other.
    fn captures_at<'t>(&self, loose: &mut Option<&Loose>, text: &'t str, from: usize) -> Option<Captures<'t>> {
        if let Some(l) = *loose {
            let caps = l.regex().captures_at(text, from)?;
            let whole = caps.get(0)?;
            if whole.len() <= l.bound || whole.as_str().chars().count() <= l.bound {
                return Some(caps);
            }
            *loose = None;
        }
        self.regex().captures_at(text, from)
    }

    fn allow(&self) -> &[Regex] {
        self.allow.get_or_init(|| {
            self.allow_patterns.iter().map(|a| compile(a).expect("redaction allow-lists compile (tested)")).collect()
        })
    }

    fn hit(&self, text: &str, caps: &Captures) -> Option<Hit> {
        let whole = caps.get(0)?;
        match self.kind {
            Kind::Secret | Kind::Extra => {
                let m = match self.group {
                    Some(g) => caps.get(g)?,
                    None => caps.iter().skip(1).flatten().next().unwrap_or(whole),
                };
                let secret = m.as_str();
                // Our own label, read as a value by a later pass (`--token [REDACTED:github-pat]`):
                // it stays as the first rule named it.
                if secret.starts_with("[REDACTED") {
                    return None;
                }
                if self.allow().iter().any(|a| a.is_match(secret)) {
                    return None;
                }
                if self.entropy.is_some_and(|min| shannon_entropy(secret) < min) {
                    return None;
                }
                let with = if self.kind == Kind::Secret { format!("[REDACTED:{}]", self.id) } else { HOST.to_string() };
                Some(Hit { start: m.start(), end: m.end(), with, second: false })
            }
            Kind::Name => Some(Hit { start: whole.start(), end: whole.end(), with: self.id.clone(), second: false }),
            Kind::Home => {
                let user = caps.get(2)?;
                if is_generic_user(user.as_str()) {
                    return None;
                }
                Some(Hit { start: user.start(), end: user.end(), with: USER.to_string(), second: false })
            }
            Kind::Ipv4 => {
                let m = caps.get(1)?;
                let before = text[..m.start()].chars().next_back();
                let after = text[m.end()..].chars().next();
                // `v1.2.3.4`, `==1.2.3.4`, `1.2.3.4.5`: versions and longer dotted
                // numbers, not addresses.
                if before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '=' | '~' | '^' | '_'))
                    || after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    || (after == Some('.') && text[m.end() + 1..].starts_with(|c: char| c.is_ascii_digit()))
                {
                    return None;
                }
                let ip: Ipv4Addr = m.as_str().parse().ok()?;
                if keep_ipv4(ip) {
                    return None;
                }
                Some(Hit { start: m.start(), end: m.end(), with: HOST.to_string(), second: false })
            }
            Kind::Ipv6 => {
                let m = caps.get(1)?;
                let s = m.as_str();
                // Needs a digit and a real IPv6 shape: keeps `11:17:29`, MAC addresses,
                // `std::io` and hex-word paths such as `add::bad` out.
                if !s.bytes().any(|b| b.is_ascii_digit()) {
                    return None;
                }
                let ip: Ipv6Addr = s.parse().ok()?;
                if ip.is_loopback() || ip.is_unspecified() {
                    return None;
                }
                Some(Hit { start: m.start(), end: m.end(), with: HOST.to_string(), second: false })
            }
            Kind::UserAtHost => user_at_host(text, caps),
            Kind::SshHost => ssh_host(caps),
            Kind::Url => url(caps),
            // Several hits per match: see `client_flags`.
            Kind::ClientFlags => None,
        }
    }
}

/// Where the search for a rule's next match starts. A secret rule's match ends with
/// the value it redacts, and a quoted value can run over the name of the next
/// assignment (`key = "x] {k: secret != "VALUE"`: the first value ends at the second's
/// opening quote); searching on from the end of the match would pass that one by, and
/// once the first value is a label the second has no name before it. So the search goes
/// on from where the value begins (matches still start ever later: the value begins
/// after the match does), and the overlapping hits merge.
fn next_search(text: &str, caps: &Captures, whole: regex::Match, kind: Kind) -> usize {
    let value_start = match kind {
        Kind::Secret | Kind::Extra => caps.iter().skip(1).flatten().map(|m| m.start()).min(),
        _ => None,
    };
    match value_start {
        Some(v) if v > whole.start() && v < whole.end() => v,
        _ if whole.end() > whole.start() => whole.end(),
        // An empty match: one character on.
        _ => text[whole.end()..].chars().next().map_or(text.len() + 1, |c| whole.end() + c.len_utf8()),
    }
}

/// The built-in rules: vendored gitleaks rules, our own rule file, and the structural
/// rules (hosts, addresses, home folders).
fn builtin_layer() -> Result<Layer> {
    let mut rules = Vec::new();
    for (file, text) in [("gitleaks.toml", GITLEAKS_RULES), ("builtin.toml", BUILTIN_RULES)] {
        let parsed: RuleFile = toml::from_str(text).with_context(|| format!("reading redaction rules {file}"))?;
        for spec in parsed.rules {
            let trigger = if spec.keywords.is_empty() {
                Trigger::Regex(ascii_classes(&spec.regex))
            } else {
                Trigger::Keywords(spec.keywords)
            };
            let regex = if file == "gitleaks.toml" { widen_terminator(&spec.regex) } else { spec.regex.clone() };
            let mut rule = Rule::new(spec.id, Kind::Secret, ascii_classes(&regex));
            rule.group = spec.secret_group;
            rule.loosen();
            rule.entropy = spec.entropy;
            rule.allow_patterns = spec.allow.iter().map(|a| ascii_classes(a)).collect();
            rules.push((rule, trigger));
        }
    }
    for (kind, id, re, trigger) in structural_rules() {
        let mut rule = Rule::new(id.to_string(), kind, ascii_classes(re));
        rule.loosen();
        rules.push((rule, Trigger::Regex(ascii_classes(trigger))));
    }
    Layer::new(rules)
}

impl Layer {
    fn new(rules: Vec<(Rule, Trigger)>) -> Result<Layer> {
        let mut words = Vec::new();
        let mut word_rules = Vec::new();
        let mut regexes = Vec::new();
        let mut regex_rules = Vec::new();
        for (i, (_, trigger)) in rules.iter().enumerate() {
            match trigger {
                Trigger::Keywords(ks) => {
                    for k in ks {
                        words.push(k.as_str());
                        word_rules.push(i);
                    }
                }
                Trigger::Regex(r) => {
                    regexes.push(r.as_str());
                    regex_rules.push(i);
                }
            }
        }
        let keywords = if words.is_empty() {
            None
        } else {
            // The contiguous NFA: the DFA scans a whole session 2% faster (a report) but
            // takes 9% of a search's instructions to build; the plain NFA is the reverse.
            let ac = AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
                .build(&words)
                .context("building the redaction keyword filter")?;
            Some((ac, word_rules))
        };
        let regexes = if regexes.is_empty() {
            None
        } else {
            let set = RegexSetBuilder::new(&regexes)
                .size_limit(64 << 20)
                .dfa_size_limit(64 << 20)
                .build()
                .context("building the redaction pre-filter")?;
            Some((set, regex_rules))
        };
        Ok(Layer { rules: rules.into_iter().map(|(r, _)| r).collect(), keywords, regexes })
    }

    /// The rules whose trigger occurs in `text`, in rule order.
    fn triggered(&self, text: &str) -> Vec<usize> {
        let mut hit = vec![false; self.rules.len()];
        if let Some((ac, by_word)) = &self.keywords {
            for m in ac.find_overlapping_iter(text) {
                hit[by_word[m.pattern().as_usize()]] = true;
            }
        }
        if let Some((set, by_regex)) = &self.regexes {
            for i in set.matches(text).iter() {
                hit[by_regex[i]] = true;
            }
        }
        hit.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| i).collect()
    }
}

/// Rules that need validation in code: (kind, id, regex, trigger for the pre-filter).
fn structural_rules() -> Vec<(Kind, &'static str, &'static str, &'static str)> {
    vec![
        (
            Kind::Ipv4,
            "ipv4",
            r"(?:^|[^\d])((?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})",
            r"\d\.\d{1,3}\.\d{1,3}\.\d",
        ),
        (
            Kind::Ipv6,
            "ipv6",
            r"(?i)(?:^|[^\w:.])((?:[0-9a-f]{1,4})?(?::[0-9a-f]{0,4}){2,7})(?:$|[^\w:.])",
            r"(?i)[0-9a-f]:[0-9a-f:]*:",
        ),
        (
            Kind::UserAtHost,
            "user-at-host",
            r"(?:^|[^\w.+-])([A-Za-z0-9_][A-Za-z0-9._+-]*)@([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*)",
            "@",
        ),
        (
            Kind::SshHost,
            "ssh-host",
            r"\b(?:ssh|mosh|autossh)((?:\s+-[A-Za-z]+(?:\s+[^\s-]\S*)?)*)\s+([A-Za-z0-9][A-Za-z0-9.-]*)(?:$|[\s'\x22;|&])",
            r"ssh\s",
        ),
        (
            Kind::Url,
            "url",
            r#"(?i)\b([a-z][a-z0-9+.-]{1,15})://(?:([^\s:/@'"<>]*)(?::([^\s/'"<>]*))?@)?(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)"#,
            "://",
        ),
        (
            // The command up to the end of its line or pipeline step; `client_flags`
            // finds the password flags in it.
            Kind::ClientFlags,
            "password-flag",
            r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump|sshpass|redis-cli|curl|wget)\b[^\n;|&]*",
            r"mysql|mariadb|sshpass|redis-cli|curl|wget",
        ),
        (
            Kind::Home,
            "home",
            r"(/home/|/Users/|[A-Za-z]:\\Users\\|\\\\Users\\\\)([^/\\\s'\x22:*?<>|\[][^/\\\s'\x22:*?<>|]*)",
            r"(?i)/home/|/users/|\\users\\",
        ),
        (
            // A home folder inside a name made of a path with `__` for `/` (SWE-agent's
            // CTF containers work in `/__Users__ann__project`): the user's name ends at
            // the next `__`.
            Kind::Home,
            "home-in-a-name",
            r"(__(?:home|Users)__)([A-Za-z0-9.-]+(?:_[A-Za-z0-9.-]+)*)",
            r"__home__|__Users__",
        ),
    ]
}

/// What ends a key in 49 of gitleaks' rules (50 places): a quote, a backtick, a space, `;`, an
/// escaped line break or the end. Gitleaks scans files; transcripts put a key in a
/// call's arguments (`login(KEY)`), a list, a query string or a sentence (`KEY).`,
/// `KEY,`, `KEY&`), where that left it whole in view. Anything that cannot go on
/// the key ends it here.
const GITLEAKS_END: &str = r#"(?:[\x60'"\s;]|\\[nr]|$)"#;
const WIDER_END: &str = r"(?:[^0-9A-Za-z_+/=-]|$)";

/// The same for the rules that spell their ends otherwise: Azure AD client secrets
/// (both ends), Perplexity keys, and curl's `-u user:pass` and `-H 'Authorization: …'`.
const OTHER_ENDS: &[(&str, &str)] = &[
    (r#"(?:^|[\\'"\x60\s>=:(,)])"#, r"(?:^|[^0-9A-Za-z_~.-])"),
    (r#"(?:$|[\\'"\x60\s<),])"#, r"(?:$|[^0-9A-Za-z_~.-]|\.(?:[^0-9A-Za-z_~-]|$))"),
    (r#"(?:[\x60'"\s;]|\\[nr]|$|\b)"#, r"(?:[^0-9A-Za-z_+/=-]|$)"),
    (r"(?:\s|\z)", r"(?:[^0-9A-Za-z_.@$-]|\.(?:\s|\z)|\z)"),
    (r"(?:\B|\s|\z)", r"(?:[^0-9A-Za-z_.@$-]|\.(?:\s|\z)|\z)"),
];

fn widen_terminator(re: &str) -> String {
    OTHER_ENDS.iter().fold(re.replace(GITLEAKS_END, WIDER_END), |r, (from, to)| r.replace(from, to))
}

fn compile(re: &str) -> Result<Regex> {
    RegexBuilder::new(re).size_limit(32 << 20).build().with_context(|| format!("compiling regex `{re}`"))
}

/// A rule's regex with gitleaks' (Go RE2's) meaning of the Perl classes: `\w`, `\d`,
/// `\s` and `\b` are ASCII-only there, Unicode-aware in Rust's regex. The rules were
/// written for the ASCII meaning, and the Unicode classes made compiling a rule cost
/// up to ten times more (a search compiles the few rules its snippets trigger).
fn ascii_classes(re: &str) -> String {
    let mut out = String::with_capacity(re.len() + 16);
    let mut chars = re.chars().peekable();
    // Depth of bracketed classes; inside one a class escape is spelled without brackets.
    let mut depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push(c);
                    break;
                };
                let inside = depth > 0;
                match (e, inside) {
                    ('w', false) => out.push_str("[0-9A-Za-z_]"),
                    ('w', true) => out.push_str("0-9A-Za-z_"),
                    ('d', false) => out.push_str("[0-9]"),
                    ('d', true) => out.push_str("0-9"),
                    ('s', false) => out.push_str(r"[\t\n\x0B\f\r ]"),
                    ('s', true) => out.push_str(r"\t\n\x0B\f\r "),
                    ('W', false) => out.push_str("[^0-9A-Za-z_]"),
                    ('D', false) => out.push_str("[^0-9]"),
                    ('S', false) => out.push_str(r"[^\t\n\x0B\f\r ]"),
                    ('b', false) => out.push_str(r"(?-u:\b)"),
                    ('B', false) => out.push_str(r"(?-u:\B)"),
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            '[' => {
                out.push(c);
                if depth > 0 && chars.peek() == Some(&':') {
                    // `[:alpha:]` inside a class: copy it whole.
                    for x in chars.by_ref() {
                        out.push(x);
                        if x == ']' {
                            break;
                        }
                    }
                    continue;
                }
                depth += 1;
                // A `]` (after an optional `^`) right at the start is a literal.
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap_or('^'));
                }
                if chars.peek() == Some(&']') {
                    out.push(chars.next().unwrap_or(']'));
                }
            }
            ']' if depth > 0 => {
                depth -= 1;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Repetitions bounded above by this many or more are unbounded in a loosened pattern.
const LOOSE_FROM: usize = 100;

/// `re` with every repetition `{m,n}` of a single-character item (a class, a literal, a
/// class escape) whose `n` is at least [`LOOSE_FROM`] written `{m,}`, and the smallest
/// such `n`; `None` when it has none. The loosened pattern matches every string `re`
/// matches (and more), so where it finds nothing `re` finds nothing; and a long bounded
/// repetition is most of what compiling a regex costs (each of its copies is compiled
/// forwards and backwards). Each repetition of a loosened item consumes one character:
/// what [`Rule::captures_at`] relies on.
fn loosened(re: &str) -> Option<(String, usize)> {
    let mut out = String::with_capacity(re.len());
    let mut bound: Option<usize> = None;
    let mut chars = re.char_indices().peekable();
    // Depth of bracketed classes, where `{` is a literal.
    let mut depth = 0usize;
    // Whether what was copied last is one item that consumes exactly one character.
    let mut single = false;
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                let e = chars.next().map(|(_, e)| e);
                if let Some(e) = e {
                    out.push(e);
                }
                // Not assertions (`\b`, `\A`, `\z`), nor escapes with more after them
                // (`\x41`, `\p{L}`, `\u{…}`), which are left bounded.
                single = depth == 0 && e.is_some_and(|e| !e.is_ascii_alphanumeric() || "dDwWsSnrtfv".contains(e));
            }
            '[' => {
                out.push(c);
                if depth > 0 && chars.peek().is_some_and(|&(_, x)| x == ':') {
                    // `[:alpha:]` inside a class.
                    for (_, x) in chars.by_ref() {
                        out.push(x);
                        if x == ']' {
                            break;
                        }
                    }
                    continue;
                }
                depth += 1;
                if chars.peek().is_some_and(|&(_, x)| x == '^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek().is_some_and(|&(_, x)| x == ']') {
                    out.push(']');
                    chars.next();
                }
            }
            ']' if depth > 0 => {
                depth -= 1;
                out.push(c);
                single = depth == 0;
            }
            '{' if depth == 0 => {
                // `{m,n}`: copy `{m,` and drop `n` when it is large.
                let rest = &re[i + 1..];
                let bounded = rest.find('}').and_then(|close| {
                    let (m, n) = rest[..close].split_once(',')?;
                    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
                    (digits(m) && digits(n)).then(|| (m.len(), n.parse::<usize>().ok(), close))
                });
                match bounded {
                    Some((m_len, Some(n), close)) if n >= LOOSE_FROM && single => {
                        out.push('{');
                        out.push_str(&rest[..=m_len]);
                        out.push('}');
                        bound = Some(bound.map_or(n, |b| b.min(n)));
                        // Skip what was copied or dropped, through the `}`.
                        while chars.peek().is_some_and(|&(j, _)| j <= i + 1 + close) {
                            chars.next();
                        }
                    }
                    _ => out.push(c),
                }
                single = false;
            }
            _ => {
                out.push(c);
                single = depth == 0 && !"()|*+?{}^$".contains(c);
            }
        }
    }
    bound.map(|b| (out, b))
}

/// The user's extra patterns: one regex per line, blank lines and `#` comments skipped.
pub fn read_patterns(path: &Path) -> Result<Vec<String>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading redaction patterns {}", path.display()))?;
    Ok(text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_string).collect())
}

fn is_generic_user(u: &str) -> bool {
    GENERIC_USERS.iter().any(|g| g.eq_ignore_ascii_case(u))
}

fn is_public_host(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    h == "localhost"
        || PUBLIC_HOSTS.iter().any(|p| h == *p || (h.ends_with(p) && h[..h.len() - p.len()].ends_with('.')))
}

fn keep_ipv4(ip: Ipv4Addr) -> bool {
    ip.is_loopback() || ip.is_unspecified() || ip.is_broadcast() || ip.octets()[0] == 255
}

/// A host as it should appear: kept when public, local or a kept address.
fn host_replacement(host: &str) -> Option<String> {
    if is_public_host(host) {
        return None;
    }
    if let Ok(ip) = host.parse::<Ipv4Addr>()
        && keep_ipv4(ip)
    {
        return None;
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<Ipv6Addr>()
        && (ip.is_loopback() || ip.is_unspecified())
    {
        return None;
    }
    Some(HOST.to_string())
}

fn user_replacement(user: &str) -> String {
    if is_generic_user(user) { user.to_string() } else { USER.to_string() }
}

/// Does the line around byte `at` run ssh, scp, rsync or sftp?
fn ssh_context(text: &str, at: usize) -> bool {
    static SSH: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b(?:ssh|scp|rsync|sftp|mosh|autossh|ProxyJump|sshfs)\b").expect("static regex"));
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    SSH.is_match(&text[start..end])
}

fn user_at_host(text: &str, caps: &Captures) -> Option<Hit> {
    let user = caps.get(1)?;
    let host = caps.get(2)?;
    let h = host.as_str();
    let after = text[host.end()..].chars().next();
    let ssh =
        ssh_context(text, user.start()) || after == Some(':') && !h.contains('.') || h.parse::<Ipv4Addr>().is_ok();
    let has_tld = h.rsplit('.').next().is_some_and(|t| t.len() >= 2 && t.chars().all(|c| c.is_ascii_alphabetic()))
        && h.contains('.');
    if ssh {
        let new_host = host_replacement(h);
        let new_user = user_replacement(user.as_str());
        if new_host.is_none() && new_user == user.as_str() {
            return None;
        }
        let with = format!("{new_user}@{}", new_host.as_deref().unwrap_or(h));
        return Some(Hit { start: user.start(), end: host.end(), with, second: false });
    }
    if has_tld {
        // An e-mail address (`react@18.2.0` and `x@W` never get here: no TLD).
        if is_generic_user(user.as_str()) && is_public_host(h) {
            return None;
        }
        return Some(Hit { start: user.start(), end: host.end(), with: EMAIL.to_string(), second: false });
    }
    None
}

/// The password flags of a client's command line (`mysql -pPASS`, `mysqldump
/// -p'PASS'`, `sshpass -p PASS`, `redis-cli -a PASS`, `curl -u user:PASS`): each
/// value becomes `[REDACTED:password-flag]`, however many the command has. `mysql -p`
/// alone asks for the password (the next word is the database); `$VAR` stays.
fn client_flags(caps: &Captures, hits: &mut Vec<Hit>) {
    static VALUE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"\s(?:-p|(?:-u|--user)[=\s]*['"]?(?:[^\s:'"\[=][^\s:'"]*)?:|(?P<spaced>-a\s+|-p\s+))(?:'([^'\n$\[][^'\n]*)'|"([^"\n$\[][^"\n]*)"|([^\s'"$\[-][^\s'"\[\])}>,;]*))"#,
        )
        .expect("static regex")
    });
    static PROGRAM: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:mysql\w*|mariadb(?:-dump)?|sshpass|redis-cli|curl|wget)\b").expect("static regex")
    });
    let Some(cmd) = caps.get(0) else { return };
    let line = cmd.as_str();
    // Where each program's words begin (a line with its newlines flattened, as a
    // search preview, holds several commands).
    let programs: Vec<(usize, &str)> = PROGRAM.find_iter(line).map(|m| (m.start(), m.as_str())).collect();
    for c in VALUE.captures_iter(line) {
        let Some(all) = c.get(0) else { continue };
        let flag = all.as_str().trim_start();
        let spaced = c.name("spaced").is_some();
        let program = programs.iter().rev().find(|(at, _)| *at < all.start()).map_or("", |(_, p)| *p);
        let mysql = program.starts_with("mysql") || program.starts_with("mariadb");
        let allowed = match program {
            "sshpass" => flag.starts_with("-p"),
            "redis-cli" => flag.starts_with("-a"),
            "curl" | "wget" => flag.starts_with("-u") || flag.starts_with("--user"),
            // `mysql -p PASS` is `-p` (ask) and a database named PASS.
            _ => mysql && flag.starts_with("-p") && !spaced,
        };
        let Some(v) = (2..=4).filter_map(|i| c.get(i)).next() else { continue };
        if allowed {
            let start = cmd.start() + v.start();
            hits.push(Hit { start, end: start + v.len(), with: "[REDACTED:password-flag]".to_string(), second: false });
        }
    }
}

fn ssh_host(caps: &Captures) -> Option<Hit> {
    let opts = caps.get(1).map_or("", |m| m.as_str());
    let host = caps.get(2)?;
    // The regex lets every option swallow one argument; when the last option takes
    // none (`ssh -v gpu-box`), what it swallowed was the destination, and the regex's
    // "host" is then the remote command. Re-read the options to tell.
    let words: Vec<&str> = opts.split_whitespace().collect();
    let mut i = 0;
    let mut dest_in_opts = None;
    while i < words.len() {
        let w = words[i];
        if let Some(flags) = w.strip_prefix('-') {
            // Options of ssh that take an argument (`-p 22`, `-i key`): the destination is
            // the first word after the options.
            let takes_arg = flags.len() == 1 && SSH_VALUE_FLAGS.contains(&flags.as_bytes()[0]);
            i += if takes_arg { 2 } else { 1 };
        } else {
            dest_in_opts = Some(w);
            break;
        }
    }
    // The last option wanted an argument the option words do not hold: the regex's
    // "host" is that argument (`ssh -p 2222 [REDACTED]`, once the host is redacted).
    if dest_in_opts.is_none() && i > words.len() {
        return None;
    }
    if let Some(d) = dest_in_opts {
        // The destination sat inside the option words; redact it there.
        let m = caps.get(1)?;
        let off = m.as_str().find(d)?;
        if d.contains('@') || host_replacement(d).is_none() {
            return None;
        }
        let start = m.start() + off;
        return Some(Hit { start, end: start + d.len(), with: HOST.to_string(), second: false });
    }
    let h = host.as_str();
    let with = host_replacement(h)?;
    Some(Hit { start: host.start(), end: host.end(), with, second: false })
}

fn url(caps: &Captures) -> Option<Hit> {
    let scheme = caps.get(1)?;
    let host = caps.get(4)?;
    let user = caps.get(2);
    let password = caps.get(3);
    let new_host = host_replacement(host.as_str());
    let new_user = user.map(|u| user_replacement(u.as_str()));
    if new_host.is_none() && user.is_none() {
        return None;
    }
    let mut with = format!("{}://", scheme.as_str());
    if let (Some(u), Some(nu)) = (user, &new_user) {
        // `redis://:PASS@host` has a password and no user.
        if !u.as_str().is_empty() {
            with.push_str(nu);
        }
        if password.is_some() {
            with.push(':');
            with.push_str(HOST);
        }
        with.push('@');
    }
    with.push_str(new_host.as_deref().unwrap_or(host.as_str()));
    Some(Hit { start: scheme.start(), end: host.end(), with, second: false })
}

/// Shannon entropy in bits per character (gitleaks' `entropy` threshold).
fn shannon_entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    if n == 0.0 {
        return 0.0;
    }
    counts.iter().filter(|c| **c > 0).map(|c| f64::from(*c) / n).map(|p| -p * p.log2()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        redact(s).into_owned()
    }

    #[test]
    fn every_rule_compiles() {
        let red = Redactor::builtin();
        assert!(red.secret_rule_count() > 100, "{}", red.secret_rule_count());
        // Rules compile lazily at run time; here, all of them, allow-lists included.
        for rule in red.rules() {
            compile(&rule.pattern).unwrap_or_else(|e| panic!("rule {}: {e:#}", rule.id));
            if let Some(l) = &rule.loose {
                compile(&l.pattern).unwrap_or_else(|e| panic!("rule {} loosened: {e:#}", rule.id));
            }
            for a in &rule.allow_patterns {
                compile(a).unwrap_or_else(|e| panic!("rule {} allow-list: {e:#}", rule.id));
            }
        }
    }

    #[test]
    fn loosened_patterns_unbound_only_long_repetitions() {
        let l = |re: &str| loosened(re).map(|(p, n)| format!("{p} {n}"));
        assert_eq!(
            l(r"a{0,300}b{2,5}[{0,300}]\{1,200}c{3,100}?").as_deref(),
            Some(r"a{0,}b{2,5}[{0,300}]\{1,200}c{3,}? 100")
        );
        assert_eq!(l(r"[^x{]{0,99}"), None);
        // Only items of one character: not groups, assertions or multi-character escapes.
        assert_eq!(l(r"(?:ab){0,300}\b{0,200}\p{L}{0,200}"), None);
        assert_eq!(l(r"[^\\\n]{0,300}\.{1,150}\d{0,400}x").as_deref(), Some(r"[^\\\n]{0,}\.{1,}\d{0,}x 150"));
        let rules: Vec<&Rule> = Redactor::builtin().rules().filter(|r| r.loose.is_some()).collect();
        // Every rule with a long bound is loosened (all bound classes).
        let long = Regex::new(r"\{[0-9]+,[0-9]{3,}\}").unwrap();
        for rule in Redactor::builtin().rules() {
            assert_eq!(long.is_match(&rule.pattern), rule.loose.is_some(), "{}", rule.id);
        }
        assert!(rules.iter().any(|r| r.id == "quoted-secret-assignment"));
    }

    /// Where a rule is run by its loosened pattern ([`Rule::captures_at`]), every match and
    /// every group is the one the rule's own regex finds, on texts made of the rules' own
    /// words and values of every length around the bounds (over them too, where the rule's
    /// regex takes over).
    #[test]
    fn loosened_matches_are_the_rules() {
        let pieces = [
            "password",
            "api_key",
            "token",
            "secret",
            "db_pass",
            "PRIVATE KEY",
            "-----BEGIN ",
            "-----END ",
            "RSA ",
            "-----",
            "glpat-",
            "glrt-t1_",
            "hvs.",
            "hvb.",
            "pypi-AgEIcHlwaS5vcmc",
            "eyJrIjoi",
            "glc_",
            "xoxe.xoxb-1-",
            "ABSK",
            "sntrys_eyJpYXQiO",
            "LCJyZWdpb25fdXJs",
            ".ab1234567",
            " is ",
            " was ",
            ": ",
            " = ",
            "=",
            ":",
            "\"",
            "'",
            "`",
            "\\\"",
            "\\",
            "\n",
            "\\n",
            " ",
            "é",
            "ſ",
            "K",
            "-",
            "_",
            ".",
            "/",
            "+",
            "=",
            "a",
            "Z",
            "7",
            "x",
            "for root",
        ];
        let runs = ["a", "B", "0", "é", "-", " ", "_", "/", "+"];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let rules: Vec<&Rule> = Redactor::builtin().rules().filter(|r| r.loose.is_some()).collect();
        let (mut matches, mut over) = (0, 0);
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..next(12) + 1 {
                if next(3) == 0 {
                    // The shapes the rules look for, around a value of any length.
                    let name =
                        ["password", "API_KEY", "x.token", "secret", "pwd", "-----BEGIN RSA PRIVATE KEY", "glc_"];
                    let op = [": ", " = ", "=", " is ", ": \\\"", "-----", "==", " was "];
                    let quote = ["\"", "'", "`", "\\\"", "", " "];
                    let q = quote[next(quote.len())];
                    let len = [next(8) + 1, next(20) + 90, next(30) + 280, next(400) + 1][next(4)];
                    text.push_str(name[next(name.len())]);
                    text.push_str(op[next(op.len())]);
                    text.push_str(q);
                    text.push_str(&runs[next(runs.len())].repeat(len));
                    text.push_str(if next(3) == 0 { quote[next(quote.len())] } else { q });
                } else if next(4) == 0 {
                    // A run near a bound: 90..=310, or longer.
                    let len = [next(20) + 90, next(20) + 140, next(30) + 260, next(30) + 290, next(700) + 300][next(5)];
                    text.push_str(&runs[next(runs.len())].repeat(len));
                } else {
                    text.push_str(pieces[next(pieces.len())]);
                }
            }
            for rule in &rules {
                let strict = rule.regex();
                let mut loose = rule.loose.as_ref();
                let mut from = 0;
                while from <= text.len() {
                    let want = strict.captures_at(&text, from);
                    let got = rule.captures_at(&mut loose, &text, from);
                    let spans = |c: &Option<Captures>| {
                        c.as_ref().map(|c| c.iter().map(|m| m.map(|m| m.range())).collect::<Vec<_>>())
                    };
                    assert_eq!(spans(&got), spans(&want), "rule {} from {from} in {text:?}", rule.id);
                    let Some(caps) = want else { break };
                    let whole = caps.get(0).unwrap();
                    matches += 1;
                    over += usize::from(loose.is_none());
                    from = next_search(&text, &caps, whole, rule.kind);
                }
            }
        }
        // Both ways were taken.
        assert!(matches > 1000 && over > 100 && matches - over > 300, "{matches} matches, {over} by the rule's regex");
    }

    #[test]
    fn keys_end_wherever_they_cannot_go_on() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/redact/gitleaks.toml")).unwrap();
        assert_eq!(text.matches(GITLEAKS_END).count(), 50, "gitleaks' terminator as vendored");
        for (from, _) in OTHER_ENDS {
            assert!(text.contains(from), "{from} is in gitleaks.toml");
        }
        let key = format!("dop_v1_{}", "a1b2c3d4".repeat(8));
        for around in ["run({})", "[{}]", "{},", "{}.", "x={}&y=1", "{}"] {
            let out = r(&around.replace("{}", &key));
            assert!(!out.contains("a1b2c3d4a1b2"), "{around}: {out}");
        }
        // A longer run of key characters is no key of that rule.
        assert!(r(&format!("{key}a1")).contains("a1b2c3d4a1b2"));
    }

    #[test]
    fn perl_classes_become_ascii_as_in_gitleaks() {
        assert_eq!(ascii_classes(r"\b(ghp_\w{36})\b"), r"(?-u:\b)(ghp_[0-9A-Za-z_]{36})(?-u:\b)");
        assert_eq!(
            ascii_classes(r"[\w.-]+\s*=\s*[^\s'\x22]+"),
            r"[0-9A-Za-z_.-]+[\t\n\x0B\f\r ]*=[\t\n\x0B\f\r ]*[^\t\n\x0B\f\r '\x22]+"
        );
        assert_eq!(ascii_classes(r"[]\d][^]\D]\\w[[:alpha:]\d]"), r"[]0-9][^]\D]\\w[[:alpha:]0-9]");
        // A word boundary next to a non-ASCII letter, as in Go.
        let re = compile(&ascii_classes(r"\bkey\b")).unwrap();
        assert!(re.is_match("é key é") && re.is_match("ékey"));
    }

    #[test]
    fn a_private_key_ends_at_its_end_line_or_at_the_end_of_a_cut_text() {
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n";
        let whole = r(&format!("{key}-----END OPENSSH PRIVATE KEY-----\nthen pytest passed"));
        assert!(whole.ends_with("]\nthen pytest passed") && !whole.contains("b3Blbn"), "{whole}");
        let cut = r(&format!("cat id\n{key}[output cut]"));
        assert!(cut.starts_with("cat id\n[REDACTED:") && !cut.contains("b3Blbn") && !cut.contains("cut]"), "{cut}");
    }

    #[test]
    fn ssh_targets_keep_generic_users() {
        assert_eq!(r("ssh root@203.0.113.9 'tail -50 x.log'"), "ssh root@[REDACTED] 'tail -50 x.log'");
        assert_eq!(r("ssh ann@gpu-box.lab.internal ls"), "ssh [USER]@[REDACTED] ls");
        assert_eq!(r("scp ann@gpu7:/data/x.log ."), "scp [USER]@[REDACTED]:/data/x.log .");
        assert_eq!(r("ssh -p 2222 gpu7 'nvidia-smi'"), "ssh -p 2222 [REDACTED] 'nvidia-smi'");
        assert_eq!(r("ssh -v gpu7 uptime"), "ssh -v [REDACTED] uptime");
        assert_eq!(r("ssh -P work gpu7 uptime"), "ssh -P work [REDACTED] uptime");
        assert_eq!(r("git clone git@github.com:org/repo.git"), "git clone git@github.com:org/repo.git");
    }

    #[test]
    fn addresses() {
        assert_eq!(r("curl http://10.0.0.5:30000/health"), "curl http://[REDACTED]:30000/health");
        assert_eq!(r("listening on 192.168.1.20"), "listening on [REDACTED]");
        assert_eq!(r("bind 0.0.0.0 and 127.0.0.1"), "bind 0.0.0.0 and 127.0.0.1");
        assert_eq!(r("peer 2001:db8::8a2e:370:7334 up"), "peer [REDACTED] up");
        assert_eq!(r("curl http://localhost:8000/v1"), "curl http://localhost:8000/v1");
        assert_eq!(r("see https://github.com/a/b/issues/1"), "see https://github.com/a/b/issues/1");
        assert_eq!(r("GET https://api.internal.corp/v2"), "GET https://[REDACTED]/v2");
        assert_eq!(r("mail ann.smith@corp.com now"), "mail [EMAIL] now");
    }

    #[test]
    fn connection_strings() {
        assert_eq!(
            r("DATABASE_URL=postgres://app:s3cretpw@db.internal:5432/prod"),
            "DATABASE_URL=postgres://[USER]:[REDACTED]@[REDACTED]:5432/prod"
        );
        // A user named like a secret (GitHub's app tokens) is the URL's user, and the
        // repository's path stays readable.
        assert_eq!(
            r("git push https://x-access-token:ghs_abcdefghijklmnopqrstuvwxyz0123456789@github.com/acme/app.git main"),
            "git push https://[USER]:[REDACTED]@github.com/acme/app.git main"
        );
        // A name after one slash is still a name.
        assert_eq!(r("/etc/app/api_key=hunter2hunter"), "/etc/app/api_key=[REDACTED:secret-assignment]");
        assert_eq!(r("/api_key=hunter2hunter"), "/api_key=[REDACTED:secret-assignment]");
    }

    #[test]
    fn home_folders() {
        assert_eq!(r("cd /home/ann/src/app"), "cd /home/[USER]/src/app");
        assert_eq!(r("/Users/chip/dev"), "/Users/[USER]/dev");
        // A path written as one name, `__` for `/`: the name goes, the rest stays.
        assert_eq!(r("/__Users__chip__ctf_data__HTB__crypto"), "/__Users__[USER]__ctf_data__HTB__crypto");
        assert_eq!(r("cd /__home__ann_lee__src"), "cd /__home__[USER]__src");
        assert_eq!(r("__home__root__x"), "__home__root__x");
        assert_eq!(r(r"C:\Users\bob\proj"), r"C:\Users\[USER]\proj");
    }

    #[test]
    fn ordinary_text_is_not_mangled() {
        for s in [
            "commit 83ca5e5f0d9c1b2a3e4f5a6b7c8d9e0f1a2b3c4d",
            "session 7f3c2a10-5b7e-4c1d-9a8e-2f6d4b1c0e93",
            "version 2.1.30 and v1.2.3.4 and torch==2.5.1.0",
            "[2026-02-27 11:17:29 TP7] Using CompressedTensorsWNA16MarlinMoEMethod",
            "use std::io::Write; let x = foo::bar();",
            "src/detect/mod.rs:42: max_tokens=512, num_tokens: 1024",
            "pip install react@18.2.0 && npm i @types/node@20.1.0",
            "def login(password: str, token: Optional[str]) -> bool:",
            "NCCL_MAX_NCHANNELS=2 NCCL_BUFFSIZE=131072 python -m sglang.launch_server",
            "aa:bb:cc:dd:ee:ff",
            "Loading safetensors checkpoint shards: 3% Completed | 2/64 [00:01<00:33, 1.83it/s]",
        ] {
            assert_eq!(r(s), s);
        }
    }

    #[test]
    fn assignments() {
        assert_eq!(r("export DB_PASSWORD=hunter2hunter"), "export DB_PASSWORD=[REDACTED:secret-assignment]");
        assert_eq!(r(r#"{"api_key": "abcd1234efgh"}"#), r#"{"api_key": "[REDACTED:secret-assignment]"}"#);
        assert_eq!(r("login --password Tr0ub4dor"), "login --password [REDACTED:secret-flag]");
        assert_eq!(r("token=$GITHUB_TOKEN"), "token=$GITHUB_TOKEN");
    }

    /// JSON written inside a string (a tool's input quoted in a command, a stored
    /// record) escapes its quotes: a value after `\"` is still a value.
    #[test]
    fn values_after_an_escaped_quote() {
        assert_eq!(r(r#"run --passphrase \"h:/upA:aWf:hXV\""#), r#"run --passphrase \"[REDACTED:secret-flag]""#);
        assert_eq!(
            r(r#"{\"msg\": \"the password would be : \"B2.kUM9zB+v43x\"\"}"#),
            r#"{\"msg\": \"the password would be : \"[REDACTED:password-statement]\"\"}"#
        );
        assert_eq!(r(r#"echo \"password is required\""#), r#"echo \"password is required\""#);
    }

    /// A JWT is one wherever it stands: gitleaks' rule wants a quote, a space or the end
    /// after it, and a skill's arguments put a `)` or `,` there (issue 18).
    #[test]
    fn jwts_anywhere() {
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFubiJ9.\
                   SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        for around in ["login({})", "[{}]", "{},next", "?pat={}&x=1", "<{}>", "{}.", "{{\"t\":{}}}", "{}"] {
            let text = around.replace("{}", jwt);
            let out = r(&text);
            assert!(!out.contains("SflKxwRJ") && !out.contains("eyJzdWIi"), "{text} -> {out}");
        }
        // Not a token: too short, or a word that starts with `ey`.
        for s in ["eyJhbGci.eyJzdWIi.abc", "they.eyeball.keys", "money.eyes.key"] {
            assert_eq!(r(s), s);
        }
    }

    #[test]
    fn passwords_in_any_shape() {
        for (text, secret) in [
            // Real shapes: gm15 of the real set said it in words.
            ("password is Jicarilla12484", "Jicarilla12484"),
            ("the password for root is hunter2!", "hunter2!"),
            ("Password: Tr0ub4dor&3", "Tr0ub4dor&3"),
            ("export PGPASSWORD=s3cr3tpw && psql", "s3cr3tpw"),
            ("MYSQL_PWD=abcd1234 mysql", "abcd1234"),
            (r#"{"password": "short"}"#, "short"),
            (r#"os.environ["OPENAI_API_KEY"] = "deadbeef""#, "deadbeef"),
            (r#"JWTSecret:       "handler-secret","#, "handler-secret"),
            (".send({ password: 'short', name: 'x' })", "short"),
            (r#"db_password_confirm = "correct horse battery staple""#, "correct horse battery"),
            (r#"{\"password\": \"p4ssw0rd\"}"#, "p4ssw0rd"),
            ("mysql -u root -pS3cretPw db", "S3cretPw"),
            ("mysqldump -h db -p'S3cret Pw' prod", "S3cret Pw"),
            ("sshpass -p 'hunter22' ssh x", "hunter22"),
            ("redis-cli -h r -a s3cretredis ping", "s3cretredis"),
            ("curl -u ann:hunter22 https://x.example.com", "hunter22"),
            ("wget --http-password=hunter22 https://x", "hunter22"),
            ("redis://:s3cretredis@cache:6379/0", "s3cretredis"),
            ("postgres://app:p@ssw0rd@db.internal:5432/prod", "ssw0rd"),
        ] {
            let out = r(text);
            assert!(!out.contains(secret), "{text} -> {out}");
        }
    }

    /// JSON printed as it is: a key right after an escaped line break has no word
    /// boundary before it (`\nAKIA…`), yet is a key.
    #[test]
    fn keys_after_escaped_line_breaks() {
        for text in [
            r#"{"log": "starting\nAKIAQ3EGTIJJOM3T6ZXY loaded"}"#,
            r"line one\nsshpass -p 'hunter2222' scp x y:",
            r"cfg:\tpassword is Jicarilla12484\n",
        ] {
            let out = r(text);
            assert!(!out.contains("Q3EGTIJJOM") && !out.contains("hunter2222") && !out.contains("Jicarilla"), "{out}");
        }
        // A Windows path whose folder starts with n, r or t is still a path.
        assert_eq!(r(r"C:\Users\nancy\src"), r"C:\Users\[USER]\src");
        assert_eq!(r(r"dir C:\tools\node"), r"dir C:\tools\node");
    }

    #[test]
    fn words_about_passwords_stay() {
        for s in [
            "the password is required",
            "Password is Incorrect.",
            "password: str",
            "if password is None:",
            "mysql -u root -p mydb",
            "mysql -P 3306 -h localhost",
            "curl -u $USER:$PASS https://api.github.com",
            "token=$GITHUB_TOKEN",
            r#"{"password": ""}"#,
            r#"password = "${DB_PASSWORD}""#,
            "max_tokens=4096 and num_tokens: 1024",
            "PWD=/home/[USER]/src",
            "tokenizer: bert-base-uncased",
        ] {
            assert_eq!(r(s), s);
        }
    }

    /// A tool's input is JSON of any shape: a string under a secret's name is a secret
    /// whole, whatever it looks like; keys are redacted too (they can be data).
    #[test]
    fn json_inputs_by_key() {
        let mut v = serde_json::json!({
            "skill": "deploy",
            "args": {"password": "hunter2", "apiKey": "abc", "token": "$GH_TOKEN", "pin": "1234", "note": "ok"},
            "env": [{"name": "DB", "DB_PASSWORD": "pw12"}],
            "headers": {"Authorization": "Bearer abcdefghijklmnopqrstuvwx"},
            "ann.smith@corp-mail.com": true,
        });
        Redactor::builtin().apply(&mut v);
        let a = &v["args"];
        assert_eq!(a["password"], "[REDACTED:secret-assignment]");
        assert_eq!(a["apiKey"], "[REDACTED:secret-assignment]");
        assert_eq!((&a["token"], &a["pin"], &a["note"]), (&"$GH_TOKEN".into(), &"1234".into(), &"ok".into()));
        assert_eq!(v["env"][0]["DB_PASSWORD"], "[REDACTED:secret-assignment]");
        assert!(!v["headers"]["Authorization"].as_str().unwrap().contains("abcdefgh"));
        assert!(v.get("[EMAIL]").is_some(), "{v}");
    }

    /// Redacting what the redactor wrote changes nothing (the fuzz property, here on the
    /// samples above).
    #[test]
    fn redaction_is_idempotent_on_its_own_output() {
        for s in [
            "password is Jicarilla12484 and postgres://app:pw@db.internal:5432/x",
            "ssh ann@gpu-7 && curl http://10.0.0.5/ && mail ann@corp.com",
            r#"{"password": "short", "JWTSecret": "x-y-z"}"#,
        ] {
            let once = r(s);
            assert_eq!(r(&once), once, "{s}");
        }
    }

    #[test]
    fn extra_patterns_and_names() {
        let red = Redactor::new(&[r"PROJ-\d+".to_string()], &[("dana".to_string(), USER)]).unwrap();
        assert_eq!(red.redact("dana fixed PROJ-1234"), "[USER] fixed [REDACTED]");
    }
}
