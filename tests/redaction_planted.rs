//! Redaction holds on real archives (issue 18), checked by debrief's own samples and by
//! an independent scanner.
//!
//! Copies of real sessions — a bounded sample of `../shared/corpus-real`,
//! `../shared/corpus-real-new` and, when present, the project's real set
//! (`$DEBRIEF_EVAL_REAL`, else `../shared/corpus-real/eval-real`) — and the project's own
//! sample of every format it reads (`corpus/<format>/`), with secrets planted in them at
//! every position a transcript has one: the user's and the assistant's words, thinking,
//! a shell command, a non-shell tool's input, a tool's output, text the harness injected,
//! a subagent's prompt, and the session's title, folder and branch. Each planted secret
//! is a fresh sample of one kind (every rule of `src/redact/*.toml`, the personal kinds,
//! passwords and tokens in the shapes people write them; `tests/common/secrets.rs`),
//! wrapped in one of a dozen surroundings (`f(KEY)`, `[KEY]`, `KEY,`, `?t=KEY&`, …), and
//! kinds rotate over positions so that every kind goes to every position the sample has.
//! Secrets go in by editing the files as they are (after a word of the field, escaped
//! as the file needs it: raw, JSON, JSON in JSON, SQL), and a parse checks that each
//! landed where it was meant to.
//!
//! Every output then runs over the copies: `show` (terminal, `--full`, `--json`),
//! `search` (terminal and `--json`, for a word right before the secrets and one after
//! a long run of filler — in a tool output, past the window search redacts around —
//! and for words of the secrets themselves), `detect` (terminal, `--json`), `report`
//! (Markdown, HTML, JSON), `sessions` (terminal, `--json`), `sources` (terminal,
//! `--json`), what `index` writes to stderr, and the MCP tools over `debrief mcp`'s
//! stdio (`list_sessions`, `findings`, `search` and `seen_before` for the same words,
//! `read_messages` and `writeup` of each copy's reported session; every page). The test fails on any planted secret
//! (or 12 consecutive characters of one) in any of them, and on any credential-type
//! finding of detect-secrets (Yelp's, from PyPI: `scripts/oracle-scan.py`, installed by
//! `scripts/oracle-venv`) in any output; its generic high-entropy findings are counted by kind and
//! printed, not failed on (docs/reliability.md lists the harmless kinds). With
//! `--no-redact`, `show --json` must show every planted secret, or the test proves
//! nothing.
//!
//! Bounded for the suite: one real file per format (two for Claude Code), 8–200 KB, and
//! each corpus folder. `DEBRIEF_PLANTED_PER_FORMAT=N` takes more, `DEBRIEF_PLANTED_REPORT=FILE`
//! writes the kind × position × output matrix as Markdown.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::secrets::{Needles, Sample, json_text, samplers, shaped_kinds};
use debrief::formats;
use debrief::model::{Origin, Role, Session};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regex::Regex;

/// Where a secret sits in a transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Pos {
    User,
    Assistant,
    Thinking,
    ShellInput,
    ToolInput,
    ToolOutput,
    Injected,
    SubagentPrompt,
    Title,
    Folder,
    Branch,
}

impl Pos {
    const ALL: [Pos; 11] = [
        Pos::User,
        Pos::Assistant,
        Pos::Thinking,
        Pos::ShellInput,
        Pos::ToolInput,
        Pos::ToolOutput,
        Pos::Injected,
        Pos::SubagentPrompt,
        Pos::Title,
        Pos::Folder,
        Pos::Branch,
    ];

    fn name(self) -> &'static str {
        match self {
            Pos::User => "user text",
            Pos::Assistant => "assistant text",
            Pos::Thinking => "thinking",
            Pos::ShellInput => "shell command",
            Pos::ToolInput => "non-shell tool input",
            Pos::ToolOutput => "tool output",
            Pos::Injected => "injected text",
            Pos::SubagentPrompt => "subagent prompt",
            Pos::Title => "session title",
            Pos::Folder => "session folder",
            Pos::Branch => "git branch",
        }
    }

    /// A word of letters only (the search tokenizer keeps it whole), one per position.
    fn word(self) -> &'static str {
        match self {
            Pos::User => "user",
            Pos::Assistant => "assistant",
            Pos::Thinking => "thinking",
            Pos::ShellInput => "shell",
            Pos::ToolInput => "toolinput",
            Pos::ToolOutput => "tooloutput",
            Pos::Injected => "injected",
            Pos::SubagentPrompt => "subagent",
            Pos::Title => "title",
            Pos::Folder => "folder",
            Pos::Branch => "branch",
        }
    }

    /// Right before the secrets.
    fn near(self) -> String {
        format!("quokkanear{}", self.word())
    }

    /// After the first half of the secrets and a run of filler.
    fn far(self) -> String {
        format!("wombatfar{}", self.word())
    }

    /// Session metadata: one line, no filler.
    fn meta(self) -> bool {
        matches!(self, Pos::Title | Pos::Folder | Pos::Branch)
    }
}

/// The texts a session holds at each position.
fn fields(s: &Session) -> Vec<(Pos, String)> {
    let mut out = Vec::new();
    let subagent = s.meta.parent_call.is_some();
    let mut first_user = true;
    for m in &s.messages {
        match (m.role, m.origin) {
            (Role::User, Origin::Typed) => {
                let pos = if subagent && first_user { Pos::SubagentPrompt } else { Pos::User };
                first_user = false;
                out.push((pos, m.text.clone()));
            }
            (Role::Assistant, _) => out.push((Pos::Assistant, m.text.clone())),
            (Role::System, _) => out.push((Pos::Injected, m.text.clone())),
            (Role::Tool, _) => out.push((Pos::ToolOutput, m.text.clone())),
            _ => {}
        }
        out.push((Pos::Thinking, m.thinking.clone()));
        for c in &m.calls {
            let spawns = matches!(c.name.as_str(), "Task" | "Agent" | "task" | "spawn_agent");
            match &c.command {
                Some(cmd) => out.push((Pos::ShellInput, cmd.clone())),
                None => {
                    let pos = if spawns { Pos::SubagentPrompt } else { Pos::ToolInput };
                    strings(&c.input, &mut |t| out.push((pos, t.to_string())));
                }
            }
            if let Some(r) = &c.result {
                out.push((Pos::ToolOutput, r.output.clone()));
            }
        }
    }
    for (pos, v) in [(Pos::Title, &s.meta.title), (Pos::Folder, &s.meta.cwd), (Pos::Branch, &s.meta.git_branch)] {
        if let Some(v) = v {
            out.push((pos, v.clone()));
        }
    }
    out.retain(|(_, t)| !t.trim().is_empty());
    out
}

fn strings(v: &serde_json::Value, f: &mut dyn FnMut(&str)) {
    match v {
        serde_json::Value::String(s) => f(s),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, f)),
        serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, f)),
        _ => {}
    }
}

/// Every session under `dir`, as `show` reads them.
fn parse_dir(dir: &Path) -> Vec<Session> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name().into_iter().filter_map(Result::ok) {
        if !e.file_type().is_file() {
            continue;
        }
        let Ok(head) = formats::read_head(e.path()) else { continue };
        if formats::detect(e.path(), &head).is_none() {
            continue;
        }
        if let Ok(parsed) = formats::parse_file(e.path(), None) {
            out.extend(parsed.sessions);
        }
    }
    out
}

/// A kind of secret and its maker of fresh samples.
struct Kind {
    id: String,
    make: Box<dyn Fn(u64) -> Option<Sample>>,
}

fn kinds() -> Vec<Kind> {
    let mut out: Vec<Kind> = samplers()
        .into_iter()
        .map(|s| {
            let id = s.rule.id.clone();
            Kind { id, make: Box::new(move |salt| s.sample(salt)) }
        })
        .collect();
    for (id, make) in shaped_kinds() {
        out.push(Kind {
            id: id.to_string(),
            make: Box::new(move |salt| Some(make(&mut StdRng::seed_from_u64(salt ^ 0x5eed_0f5e_c2e7)))),
        });
    }
    out
}

/// What stands around a planted sample: where transcripts put keys.
const SURROUNDINGS: &[&str] = &[
    "@@",
    "login(@@)",
    "[@@]",
    "{k: @@}",
    "'@@'",
    "\"@@\",",
    "`@@`",
    "<@@>",
    "@@.",
    "?t=@@&page=2",
    "@@;",
    "(see @@)",
];

/// One planted secret.
#[derive(Debug, Clone)]
struct Planted {
    kind: String,
    pos: Pos,
    unit: String,
    secret: String,
    /// The sample in its surroundings, as planted.
    text: String,
}

/// How a planted text is written into the file at the anchor.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Escape {
    Raw,
    Json,
    JsonInJson,
    SqlJson,
}

impl Escape {
    fn apply(self, s: &str) -> String {
        let json = |s: &str| {
            let q = serde_json::to_string(s).expect("a string");
            q[1..q.len() - 1].to_string()
        };
        match self {
            Escape::Raw => s.to_string(),
            Escape::Json => json(s),
            Escape::JsonInJson => json(&json(s)),
            Escape::SqlJson => json(s).replace('\'', "''"),
        }
    }
}

/// A copy of real or sample transcripts that secrets are planted in.
struct Unit {
    name: String,
    dir: PathBuf,
    /// Where it came from, for the table.
    from: String,
    formats: BTreeSet<String>,
    /// The texts it held at each position before anything was planted.
    original: Vec<(Pos, String)>,
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_file() {
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(from, to).expect("copy");
        return;
    }
    for e in walkdir::WalkDir::new(from).into_iter().filter_map(Result::ok) {
        let dest = to.join(e.path().strip_prefix(from).expect("under"));
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &dest).expect("copy");
        }
    }
}

/// OpenCode's database sample is SQL: the unit holds the database built from it.
fn build_databases(dir: &Path) {
    for e in walkdir::WalkDir::new(dir).into_iter().filter_map(Result::ok) {
        if e.path().extension().is_some_and(|x| x == "sql") {
            let db = e.path().with_file_name("opencode.db");
            let _ = std::fs::remove_file(&db);
            let c = rusqlite::Connection::open(&db).expect("sqlite");
            c.execute_batch(&std::fs::read_to_string(e.path()).expect("sql")).expect("the SQL sample loads");
        }
    }
}

/// Sample files of one format from a real set: those between 8 and 200 KB, smallest
/// first, with the positions each offers.
fn real_candidates(set: &str, root: &Path) -> Vec<(String, PathBuf, BTreeSet<Pos>)> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| (8 << 10..=200 << 10).contains(&m.len())))
        .collect();
    files.sort_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0));
    for p in files {
        let Ok(head) = formats::read_head(&p) else { continue };
        let Some(f) = formats::detect(&p, &head) else { continue };
        out.push((format!("{set}/{}", f.id()), p, BTreeSet::new()));
    }
    out
}

/// The bounded sample of real files: per format, of its four smallest candidates, the
/// one (Claude Code: two) offering the most positions.
fn real_units(tmp: &Path) -> Vec<Unit> {
    let per_format: usize = std::env::var("DEBRIEF_PLANTED_PER_FORMAT").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let mut sets: Vec<(String, PathBuf)> = Vec::new();
    if let Some(d) = common::real_dir() {
        sets.push(("corpus-real".into(), d));
    }
    if let Some(d) = common::real_new_dir() {
        sets.push(("corpus-real-new".into(), d));
    }
    let eval = std::env::var_os("DEBRIEF_EVAL_REAL")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::shared_root().join("corpus-real/eval-real"));
    if eval.is_dir() {
        sets.push(("eval-real".into(), eval));
    } else {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "redaction_planted: skipped the real set (set DEBRIEF_EVAL_REAL; scripts/fetch-real-set fetches it)"
        );
    }
    let mut by_format: BTreeMap<String, Vec<(String, PathBuf)>> = BTreeMap::new();
    for (set, root) in &sets {
        for (key, p, _) in real_candidates(set, root) {
            let format = key.rsplit('/').next().unwrap_or("").to_string();
            by_format.entry(format).or_default().push((set.clone(), p));
        }
    }
    let mut units = Vec::new();
    for (format, mut cands) in by_format {
        cands.sort_by_key(|(_, p)| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0));
        let mut scored: Vec<(usize, String, PathBuf)> = cands
            .into_iter()
            .take(4)
            .map(|(set, p)| {
                let offered: BTreeSet<Pos> = formats::parse_file(&p, None)
                    .map(|f| f.sessions.iter().flat_map(fields).map(|(q, _)| q).collect())
                    .unwrap_or_default();
                (offered.len(), set, p)
            })
            .filter(|(n, _, _)| *n > 0)
            .collect();
        scored.sort_by_key(|(n, _, _)| std::cmp::Reverse(*n));
        let take = if format == "claude-code" { per_format * 2 } else { per_format };
        for (_, set, p) in scored.into_iter().take(take) {
            let base = sets.iter().find(|(s, _)| *s == set).map(|(_, r)| r.clone()).expect("a set");
            let rel = p.strip_prefix(&base).expect("under its set").to_path_buf();
            let name = format!("real-{}", units.len() + 1);
            let dir = tmp.join("units").join(&name);
            copy_tree(&p, &dir.join(&rel));
            units.push(Unit {
                name,
                dir,
                from: format!("{set}/{}", rel.display()),
                formats: BTreeSet::from([format.clone()]),
                original: Vec::new(),
            });
        }
    }
    units
}

/// Each format's own samples, `corpus/<format>/`.
fn corpus_units(tmp: &Path) -> Vec<Unit> {
    let mut units = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(common::root().join("corpus"))
        .expect("corpus")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !matches!(p.file_name().and_then(|n| n.to_str()), Some("detectors" | "seed-replay")))
        .collect();
    dirs.sort();
    for d in dirs {
        let name = format!("corpus-{}", d.file_name().and_then(|n| n.to_str()).unwrap_or("?"));
        let dir = tmp.join("units").join(&name);
        copy_tree(&d, &dir);
        build_databases(&dir);
        units.push(Unit {
            name,
            dir,
            from: format!("corpus/{}", d.file_name().unwrap().to_string_lossy()),
            formats: BTreeSet::new(),
            original: Vec::new(),
        });
    }
    units
}

/// Text files of a unit (the database's SQL, not the database).
fn unit_texts(dir: &Path) -> Vec<(PathBuf, String)> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_none_or(|x| x != "db"))
        .filter_map(|e| Some((e.path().to_path_buf(), std::fs::read_to_string(e.path()).ok()?)))
        .collect()
}

/// Plants secrets in every position `unit` offers; `needed` holds, per position, the kinds
/// still to plant there (what does not land goes back for another copy).
fn plant(
    unit: &mut Unit,
    kinds: &[Kind],
    per_slot: &BTreeMap<Pos, usize>,
    needed: &mut BTreeMap<Pos, std::collections::VecDeque<usize>>,
    salt: &mut u64,
) -> Vec<Planted> {
    let word = Regex::new(r"[A-Za-z][A-Za-z0-9]{3,30}").expect("regex");
    let mut planted = Vec::new();
    if unit.original.is_empty() {
        let sessions = parse_dir(&unit.dir);
        for s in &sessions {
            unit.formats.insert(s.meta.format.clone());
        }
        unit.original = sessions.iter().flat_map(fields).collect();
    }
    // Anchors come from the transcript's own words, never from what was planted.
    let before = unit.original.clone();
    for pos in Pos::ALL {
        let Some(queue) = needed.get_mut(&pos) else { continue };
        if queue.is_empty() {
            continue;
        }
        let values: Vec<&String> = before.iter().filter(|(p, _)| *p == pos).map(|(_, t)| t).collect();
        if values.is_empty() {
            continue;
        }
        // Anchors: words of the field that occur (as words) rarely in the files.
        let texts = unit_texts(&unit.dir);
        let count = |w: &str| -> usize {
            let re = Regex::new(&format!(r"(?-u:\b){w}(?-u:\b)")).expect("regex");
            texts.iter().map(|(_, t)| re.find_iter(t).count()).sum()
        };
        let mut anchors: Vec<(usize, String)> = Vec::new();
        let mut seen = BTreeSet::new();
        for v in &values {
            for m in word.find_iter(v) {
                let w = m.as_str();
                if w.len() >= 4 && seen.insert(w.to_string()) && seen.len() < 200 {
                    let n = count(w);
                    if (1..=4).contains(&n) {
                        anchors.push((n, w.to_string()));
                    }
                }
            }
        }
        anchors.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.len().cmp(&a.1.len())));
        let n = per_slot[&pos].min(queue.len());
        let taken: Vec<usize> = queue.drain(..n).collect();
        let mut samples: Vec<(usize, Sample, &str)> = Vec::new();
        for k in &taken {
            *salt += 1;
            // A kind with no sample for this salt is tried again later with another.
            match (kinds[*k].make)(*salt) {
                Some(s) => samples.push((*k, s, SURROUNDINGS[(*salt as usize) % SURROUNDINGS.len()])),
                None => queue.push_back(*k),
            }
        }
        let md = texts.iter().any(|(p, _)| p.extension().is_some_and(|x| x == "md"));
        let sql = texts.iter().any(|(p, _)| p.extension().is_some_and(|x| x == "sql"));
        let escapes: &[Escape] = if sql {
            &[Escape::SqlJson]
        } else if md {
            &[Escape::Raw, Escape::Json]
        } else {
            &[Escape::Json, Escape::JsonInJson, Escape::Raw]
        };
        let mut landed: BTreeSet<usize> = BTreeSet::new();
        'anchor: for (_, anchor) in anchors.iter().take(4) {
            for flat in [pos.meta(), true] {
                for esc in escapes {
                    let usable: Vec<&(usize, Sample, &str)> =
                        samples.iter().filter(|(_, s, _)| !flat || !s.text.contains('\n')).collect();
                    if usable.is_empty() {
                        continue;
                    }
                    let sep = if flat { " " } else { "\n" };
                    let wrapped: Vec<String> =
                        usable.iter().map(|(_, s, around)| around.replace("@@", &s.text)).collect();
                    let half = wrapped.len().div_ceil(2);
                    let filler = if pos.meta() {
                        String::new()
                    } else if pos == Pos::ToolOutput {
                        // Past the window search redacts around a match in a long text.
                        (0..1200).map(|i| format!("step {i:04} ok{sep}")).collect()
                    } else {
                        "and then the build went on for a while without any trouble at all, ".repeat(6) + sep
                    };
                    let far = if wrapped.len() > 1 && !pos.meta() {
                        format!("{sep}{filler}{} {}", pos.far(), wrapped[half..].join(sep))
                    } else {
                        String::new()
                    };
                    let first = if far.is_empty() { wrapped.join(sep) } else { wrapped[..half].join(sep) };
                    let bundle = format!("{anchor} {} {first}{far}{sep}", pos.near());
                    let re = Regex::new(&format!(r"(?-u:\b){anchor}(?-u:\b)")).expect("regex");
                    let with = esc.apply(&bundle);
                    for (p, t) in &texts {
                        let new = re.replace_all(t, regex::NoExpand(&with));
                        std::fs::write(p, new.as_ref()).expect("write");
                    }
                    build_databases(&unit.dir);
                    let after: Vec<(Pos, String)> = parse_dir(&unit.dir).iter().flat_map(fields).collect();
                    let here: String =
                        after.iter().filter(|(p, _)| *p == pos).map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n");
                    // What landed where it was meant to counts (a folder can take a key
                    // with `/` in it only as far as the path is read); the rest goes on to
                    // another copy.
                    let arrived: Vec<&&(usize, Sample, &str)> =
                        usable.iter().filter(|(_, s, _)| here.contains(&s.secret)).collect();
                    if !arrived.is_empty() {
                        for (k, s, around) in arrived.iter().map(|x| **x) {
                            planted.push(Planted {
                                kind: kinds[*k].id.clone(),
                                pos,
                                unit: unit.name.clone(),
                                secret: s.secret.clone(),
                                text: around.replace("@@", &s.text),
                            });
                        }
                        landed = arrived.iter().map(|(k, _, _)| *k).collect();
                        break 'anchor;
                    }
                    for (p, t) in &texts {
                        std::fs::write(p, t).expect("restore");
                    }
                    build_databases(&unit.dir);
                }
            }
        }
        // What did not land here goes to the next copy that offers the position.
        for (k, _, _) in &samples {
            if !landed.contains(k) {
                queue.push_back(*k);
            }
        }
    }
    planted
}

fn debrief(tmp: &Path) -> assert_cmd::Command {
    let mut c = common::debrief(&tmp.join("ix"));
    // `sources` looks at the agents' folders in the home folder: an empty one here.
    c.env("HOME", tmp.join("home")).current_dir(tmp);
    c
}

/// One output: its name, file extension (for the scanner), and text (JSON decoded).
struct Output {
    name: String,
    ext: &'static str,
    raw: String,
    text: String,
}

fn run(tmp: &Path, args: &[&str], json: bool, ext: &'static str) -> Output {
    let out = debrief(tmp).args(args).output().expect("run debrief");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let raw = String::from_utf8(out.stdout).expect("UTF-8 output");
    let text = if json { json_text(&raw) } else { raw.clone() };
    Output { name: args.join(" "), ext, raw, text }
}

/// The pages of `debrief serve` on the planted index: the lists, each searched word's
/// results page and live fragment, and each chosen session's page, live fragment and
/// write-up. Each page is one output (HTML, scanned as the text it is).
fn pages(tmp: &Path, positions: &BTreeSet<Pos>, sessions: &[String]) -> Vec<Output> {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_debrief"));
    c.arg("--index").arg(tmp.join("ix")).arg("serve").env("HOME", tmp.join("home")).env("NO_COLOR", "1");
    let server = common::http::start(c);
    let esc = |s: &str| -> String {
        s.bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    let mut paths: Vec<String> = vec!["/".into(), "/sources".into(), "/findings".into()];
    for pos in positions {
        for word in [pos.near(), pos.far()] {
            paths.push(format!("/search?q={}", esc(&word)));
            paths.push(format!("/api/search?q={}", esc(&word)));
        }
    }
    for id in sessions {
        paths.push(format!("/session/{}", esc(id)));
        paths.push(format!("/api/session/{}?after=0", esc(id)));
        paths.push(format!("/writeup/{}", esc(id)));
    }
    paths
        .into_iter()
        .map(|path| {
            let a = server.get(&path);
            assert_eq!(a.status, 200, "serve GET {path}: {}", a.body);
            let text = html_text(&a.body);
            Output { name: format!("serve GET {path}"), ext: "html", raw: a.body, text }
        })
        .collect()
}

/// What a page shows: its text with the tags taken out and the entities the pages write
/// turned back, so a secret split by markup or escaped as `&amp;` is still seen.
fn html_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(ch),
            _ => {}
        }
    }
    let raw = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'");
    let raw = raw.replace("&amp;", "&");
    // The raw page too: a secret inside an attribute (a link's href) is not in the text.
    format!("{raw}\n{html}")
}

/// `debrief mcp` over stdio, driven as an MCP client does (newline-delimited JSON-RPC:
/// `initialize`, then one `tools/call` at a time): every page of each call's answer (a
/// `next_cursor` is followed) is one output, named after the tool and its arguments.
fn mcp(tmp: &Path, calls: &[(&str, serde_json::Value)]) -> Vec<Output> {
    use std::io::{BufRead as _, Write as _};
    let mut child = Command::new(env!("CARGO_BIN_EXE_debrief"))
        .arg("mcp")
        .env("DEBRIEF_INDEX", tmp.join("ix"))
        .env("HOME", tmp.join("home"))
        .env("NO_COLOR", "1")
        .current_dir(tmp)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start debrief mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut id = 0u64;
    // A request and its answer; a notification (no answer) gives null.
    let mut ask = |method: &str, params: serde_json::Value| -> serde_json::Value {
        if method.starts_with("notifications/") {
            writeln!(stdin, "{}", serde_json::json!({"jsonrpc": "2.0", "method": method})).expect("write");
            return serde_json::Value::Null;
        }
        id += 1;
        let req = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{req}").expect("write to debrief mcp");
        loop {
            let mut line = String::new();
            assert!(stdout.read_line(&mut line).expect("read debrief mcp") > 0, "debrief mcp ended at {method}");
            let v: serde_json::Value = serde_json::from_str(&line).expect("a JSON-RPC message");
            if v["id"] == id {
                return v;
            }
        }
    };
    let init = ask(
        "initialize",
        serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "redaction_planted", "version": "0"}}),
    );
    assert!(init.get("result").is_some(), "initialize: {init}");
    ask("notifications/initialized", serde_json::Value::Null);
    let mut outputs = Vec::new();
    for (tool, args) in calls {
        let mut args = args.clone();
        for page in 0..40 {
            let r = ask("tools/call", serde_json::json!({"name": tool, "arguments": args}));
            let result = r.get("result").unwrap_or_else(|| panic!("mcp {tool} {args}: {r}"));
            assert_ne!(result["isError"], serde_json::json!(true), "mcp {tool} {args}: {result}");
            let raw = result.to_string();
            outputs.push(Output {
                name: format!(
                    "mcp {tool} {args}{}",
                    if page > 0 { format!(" (page {})", page + 1) } else { String::new() }
                ),
                ext: "json",
                text: json_text(&raw),
                raw,
            });
            let next = &result["structuredContent"]["next_cursor"];
            match next.as_str() {
                Some(c) => args["cursor"] = c.into(),
                None => break,
            }
        }
    }
    drop(stdin);
    let _ = child.wait();
    outputs
}

/// The Python that has detect-secrets: `$DEBRIEF_ORACLE_PYTHON`, else the venv
/// `scripts/oracle-venv` makes (installing it from PyPI the first time), or why there is
/// none.
fn oracle_python() -> Result<PathBuf, String> {
    if let Some(py) = std::env::var_os("DEBRIEF_ORACLE_PYTHON") {
        return Ok(PathBuf::from(py));
    }
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle-venv");
    let out = Command::new("bash")
        .arg(common::root().join("scripts/oracle-venv"))
        .arg(&venv)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run scripts/oracle-venv: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message");
        return Err(format!("scripts/oracle-venv failed: {last}"));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// A finding of the oracle.
#[derive(Debug, Clone)]
struct Finding {
    file: PathBuf,
    line: u64,
    kind: String,
    secret: String,
}

fn oracle(py: &Path, files: &[PathBuf]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for chunk in files.chunks(200) {
        let out = Command::new(py)
            .arg(common::root().join("scripts/oracle-scan.py"))
            .args(chunk)
            .output()
            .expect("run detect-secrets");
        assert!(out.status.success(), "detect-secrets: {}", String::from_utf8_lossy(&out.stderr));
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("a finding");
            findings.push(Finding {
                file: PathBuf::from(v["file"].as_str().unwrap_or("")),
                line: v["line"].as_u64().unwrap_or(0),
                kind: v["type"].as_str().unwrap_or("").to_string(),
                secret: v["secret"].as_str().unwrap_or("").to_string(),
            });
        }
    }
    findings
}

/// detect-secrets' generic findings: strings that only look random.
fn generic(kind: &str) -> bool {
    matches!(kind, "Base64 High Entropy String" | "Hex High Entropy String")
}

/// What a generic finding is, when it is one of the harmless kinds transcripts are full
/// of (docs/reliability.md lists them).
fn harmless(secret: &str) -> &'static str {
    let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    let s = secret.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    let b58 = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric() && !matches!(b, b'0' | b'O' | b'I' | b'l'));
    if hex(s) && (s.len() == 40 || (7..=12).contains(&s.len())) {
        "commit hash"
    } else if hex(s) && matches!(s.len(), 32 | 64 | 128) {
        "digest (md5, sha256, sha512)"
    } else if Regex::new(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")
        .expect("re")
        .is_match(s)
    {
        "UUID"
    } else if Regex::new(r"^(?:toolu|msg|call|req|resp|fc|rs|ses|prt|chatcmpl|run|item)_[A-Za-z0-9_-]+$")
        .expect("re")
        .is_match(s)
    {
        "message or call id"
    } else if s.starts_with("sha512-") || s.starts_with("sha256-") || s.starts_with("sha1-") {
        "package integrity hash"
    } else if hex(s) {
        "other hex string"
    } else if (32..=90).contains(&s.len()) && b58(s) && !s.contains('_') {
        "base58 or base64 id"
    } else {
        "other"
    }
}

#[test]
fn planted_secrets_never_show_and_the_oracle_finds_no_credential() {
    let started = std::time::Instant::now();
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    std::fs::create_dir_all(root.join("home")).expect("home");
    let mut units = real_units(root);
    units.extend(corpus_units(root));
    let kinds = kinds();
    // The matrix counts by id: two kinds of one id would hide one that is never planted.
    let ids: BTreeSet<&str> = kinds.iter().map(|k| k.id.as_str()).collect();
    assert_eq!(ids.len(), kinds.len(), "two kinds share an id");
    // Which positions each unit offers, so that kinds spread over all of them.
    let offered: Vec<BTreeSet<Pos>> =
        units.iter().map(|u| parse_dir(&u.dir).iter().flat_map(fields).map(|(p, _)| p).collect()).collect();
    let per_slot: BTreeMap<Pos, usize> = Pos::ALL
        .iter()
        .map(|p| {
            let n = offered.iter().filter(|o| o.contains(p)).count().max(1);
            // Every kind once per position over the sample, at least four per place.
            (*p, kinds.len().div_ceil(n).max(4))
        })
        .collect();
    // Per position, the kinds still to plant there; each copy offering it takes the
    // next few, and what does not land goes back for the next copy.
    let offered_anywhere: BTreeSet<Pos> = offered.iter().flatten().copied().collect();
    let mut needed: BTreeMap<Pos, std::collections::VecDeque<usize>> =
        offered_anywhere.iter().map(|p| (*p, (0..kinds.len()).collect())).collect();
    let mut salt = 0u64;
    let mut planted = Vec::new();
    // Rounds over the copies until every kind is planted everywhere or a round plants
    // nothing more (a position only a few copies can take needs several).
    loop {
        let before = planted.len();
        for u in &mut units {
            planted.extend(plant(u, &kinds, &per_slot, &mut needed, &mut salt));
        }
        if needed.values().all(|q| q.is_empty()) || planted.len() == before {
            break;
        }
    }
    // The SQL the database was built from is no transcript.
    for e in walkdir::WalkDir::new(root.join("units")).into_iter().filter_map(Result::ok) {
        if e.path().extension().is_some_and(|x| x == "sql") {
            std::fs::remove_file(e.path()).expect("rm");
        }
    }
    let planting = started.elapsed();
    assert!(!planted.is_empty(), "nothing planted");
    let units_dir = root.join("units");
    let ud = units_dir.to_str().expect("path");

    let index = debrief(root).args(["index", ud]).output().expect("index");
    assert!(index.status.success(), "index: {}", String::from_utf8_lossy(&index.stderr));
    let mut outputs: Vec<Output> = Vec::new();
    let stderr = String::from_utf8_lossy(&index.stderr).into_owned();
    outputs.push(Output { name: "index (stderr)".into(), ext: "txt", raw: stderr.clone(), text: stderr });
    outputs.push(run(root, &["show", ud], false, "txt"));
    outputs.push(run(root, &["show", ud, "--full"], false, "txt"));
    outputs.push(run(root, &["show", ud, "--json"], true, "json"));
    // Without redaction every planted secret shows, or the test proves nothing.
    let raw = run(root, &["show", ud, "--json", "--no-redact"], true, "json");
    let needles = Needles::new(planted.iter().map(|p| (p.kind.clone(), p.secret.clone())).collect());
    let visible: BTreeSet<usize> = needles.shown(&raw.text).into_iter().map(|(i, _)| i).collect();
    let meta_shown: String = run(root, &["sessions", "--json", "-n", "100000", "--no-redact"], true, "json").text;
    let visible_meta: BTreeSet<usize> = needles.shown(&meta_shown).into_iter().map(|(i, _)| i).collect();
    let unseen: Vec<&Planted> = planted
        .iter()
        .enumerate()
        .filter(|(i, _)| !visible.contains(i) && !visible_meta.contains(i))
        .map(|(_, p)| p)
        .collect();
    // Messages are all shown; of the metadata, `show` and `sessions` print the title and
    // folder (the branch only reaches the reports).
    let lost: Vec<String> = unseen
        .iter()
        .filter(|p| p.pos != Pos::Branch)
        .map(|p| format!("{} in {} of {}", p.kind, p.pos.name(), p.unit))
        .collect();
    assert!(lost.is_empty(), "planted but not shown with --no-redact: {lost:?}");
    let positions: BTreeSet<Pos> = planted.iter().map(|p| p.pos).collect();
    for pos in &positions {
        for word in [pos.near(), pos.far()] {
            let json = run(root, &["search", &word, "-n", "500", "--json"], true, "json");
            if !pos.meta() && word == pos.near() {
                outputs.push(run(root, &["search", &word, "-n", "500"], false, "txt"));
            }
            outputs.push(json);
        }
    }
    // Words of the secrets themselves: a secret can be searched for, never shown.
    let mut rng = StdRng::seed_from_u64(18);
    for _ in 0..12 {
        let p = &planted[rng.random_range(0..planted.len())];
        if let Some(w) = p.secret.split(|c: char| !c.is_ascii_alphanumeric()).find(|w| (6..=40).contains(&w.len())) {
            outputs.push(run(root, &["search", w, "-n", "50", "--json"], true, "json"));
        }
    }
    outputs.push(run(root, &["detect", ud], false, "txt"));
    outputs.push(run(root, &["detect", ud, "--json"], true, "json"));
    outputs.push(run(root, &["sessions", "-n", "100000"], false, "txt"));
    let sessions = run(root, &["sessions", "--json", "-n", "100000"], true, "json");
    outputs.push(run(root, &["sources"], false, "txt"));
    outputs.push(run(root, &["sources", "--json"], true, "json"));
    // Reports: per unit, its session that holds the most planted secrets.
    let mut best_sessions = Vec::new();
    for u in &units {
        let mut best: Option<(usize, String, PathBuf)> = None;
        for f in walkdir::WalkDir::new(&u.dir).into_iter().filter_map(Result::ok).filter(|e| e.file_type().is_file()) {
            let Ok(parsed) = formats::parse_file(f.path(), None) else { continue };
            for s in &parsed.sessions {
                let all: String = fields(s).into_iter().map(|(_, t)| t).collect();
                let n = planted.iter().filter(|p| p.unit == u.name && all.contains(&p.secret)).count();
                if n > 0 && best.as_ref().is_none_or(|b| n > b.0) {
                    best = Some((n, s.meta.id.clone(), f.path().to_path_buf()));
                }
            }
        }
        let Some((_, id, file)) = best else { continue };
        best_sessions.push(id.clone());
        let f = file.to_str().expect("path");
        for fmt in ["md", "html", "json"] {
            let mut o = run(root, &["report", f, "--session", &id, "--format", fmt], fmt == "json", fmt);
            o.name = format!("report --format {fmt} ({})", u.name);
            outputs.push(o);
        }
    }
    outputs.push(sessions);
    // The MCP tools: the same sessions, searches and positions through `debrief mcp`.
    let mut calls: Vec<(&str, serde_json::Value)> =
        vec![("list_sessions", serde_json::json!({})), ("findings", serde_json::json!({}))];
    for pos in &positions {
        for word in [pos.near(), pos.far()] {
            calls.push(("search", serde_json::json!({"query": word})));
            calls.push(("seen_before", serde_json::json!({"error": word})));
        }
        if *pos == Pos::ShellInput {
            calls.push(("seen_before", serde_json::json!({"command": pos.near()})));
        }
    }
    for id in &best_sessions {
        calls.push(("read_messages", serde_json::json!({"session": id, "max_chars": 100000})));
        calls.push(("writeup", serde_json::json!({"session": id, "max_chars": 200000})));
    }
    let from_mcp = mcp(root, &calls);
    // seen_before quotes the lines that hold the words right before the secrets: what it
    // shows passed through redaction, or this check proves nothing for it.
    assert!(
        from_mcp.iter().any(|o| o.name.starts_with("mcp seen_before") && o.text.contains("[REDACTED")),
        "no seen_before answer quoted a planted line"
    );
    outputs.extend(from_mcp);
    // The web UI: every page kind over the same index, the same sessions and searches.
    outputs.extend(pages(root, &positions, &best_sessions));
    let commands = started.elapsed() - planting;

    // Debrief's own check: no planted secret, nor 12 characters of one, anywhere.
    let mut leaks: BTreeMap<(String, Pos, String), usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for o in &outputs {
        for (i, at) in needles.shown(&o.text) {
            let p = &planted[i];
            *leaks.entry((p.kind.clone(), p.pos, o.name.clone())).or_default() += 1;
            failures.push(format!(
                "{}: {} planted in {} of {} as {:?} shown as {at:?}",
                o.name,
                p.kind,
                p.pos.name(),
                p.unit,
                p.text
            ));
        }
    }

    // The oracle: detect-secrets over the planted copies and over every output.
    let oracle_note = match oracle_python() {
        Err(why) => {
            // Outside CI a machine without network or `python3 -m venv` skips the scan
            // (one line); in CI (`.ci/run` sets CI) that is a failure.
            let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
            assert!(!ci, "detect-secrets could not be installed ({why}), and CI is set");
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "redaction_planted: skipped the oracle: detect-secrets could not be installed ({why})"
            );
            "oracle skipped".to_string()
        }
        Ok(py) => {
            let out_dir = root.join("outputs");
            std::fs::create_dir_all(&out_dir).expect("mkdir");
            let mut files = Vec::new();
            let mut names = BTreeMap::new();
            for (i, o) in outputs.iter().enumerate() {
                let f = out_dir.join(format!("{i:03}.{}", o.ext));
                std::fs::write(&f, &o.raw).expect("write output");
                names.insert(f.clone(), o.name.clone());
                files.push(f);
            }
            let inputs: Vec<PathBuf> = unit_texts(&units_dir).into_iter().map(|(p, _)| p).collect();
            let t = std::time::Instant::now();
            let mut all = files.clone();
            all.extend(inputs.iter().cloned());
            let findings = oracle(&py, &all);
            let in_inputs: Vec<&Finding> = findings.iter().filter(|f| !names.contains_key(&f.file)).collect();
            let in_outputs: Vec<&Finding> = findings.iter().filter(|f| names.contains_key(&f.file)).collect();
            let credential_in: Vec<&&Finding> = in_inputs.iter().filter(|f| !generic(&f.kind)).collect();
            let seen_planted = planted
                .iter()
                .filter(|p| {
                    in_inputs
                        .iter()
                        .any(|f| f.secret.len() >= 6 && (p.secret.contains(&f.secret) || f.secret.contains(&p.secret)))
                })
                .count();
            assert!(
                !credential_in.is_empty(),
                "detect-secrets found no credential in the planted copies: the oracle sees nothing"
            );
            // Credential-shaped findings of the copies' own text, by kind.
            let mut own_found: BTreeMap<String, usize> = BTreeMap::new();
            // A credential-shaped finding whose value is no part of any planted secret but
            // text the copies held anyway — before planting, or around a planted secret (the
            // `'uptime'` of `ssh deploy@HOST 'uptime'`) — is not a leak: detect-secrets reads
            // `pass … 'uptime'` as a keyword and its password.
            let own_text = |v: &str| {
                let v = v.trim();
                v.len() >= 3
                    && !planted.iter().any(|p| p.secret.contains(v) || v.contains(&p.secret))
                    && (units.iter().any(|u| u.original.iter().any(|(_, t)| t.contains(v)))
                        || planted.iter().any(|p| p.text.replace(&p.secret, "").contains(v)))
            };
            for f in &in_outputs {
                if generic(&f.kind) {
                    // Reported below, by class.
                } else if own_text(&f.secret) {
                    *own_found.entry(f.kind.clone()).or_default() += 1;
                } else {
                    let raw = std::fs::read_to_string(&f.file).unwrap_or_default();
                    let line = raw.lines().nth(f.line.saturating_sub(1) as usize).unwrap_or("");
                    let at = line.find(&f.secret).unwrap_or(0);
                    let from = line.floor_char_boundary(at.saturating_sub(80));
                    let to = line.ceil_char_boundary((at + f.secret.len() + 80).min(line.len()));
                    failures.push(format!(
                        "detect-secrets: {} {:?} in {} (line {}): {:?}",
                        f.kind,
                        f.secret,
                        names[&f.file],
                        f.line,
                        &line[from..to]
                    ));
                }
            }
            let mut kinds_in: BTreeMap<&str, usize> = BTreeMap::new();
            for f in &credential_in {
                *kinds_in.entry(f.kind.as_str()).or_default() += 1;
            }
            // The generic findings by what they are, in the copies and in the outputs; of
            // those no class names, a few (cut) to look at.
            let classes = |found: &[&Finding]| -> String {
                let mut by: BTreeMap<(String, &'static str), (usize, Vec<String>)> = BTreeMap::new();
                for f in found.iter().filter(|f| generic(&f.kind)) {
                    let e = by.entry((f.kind.clone(), harmless(&f.secret))).or_default();
                    e.0 += 1;
                    if e.1.len() < 3 && harmless(&f.secret) == "other" {
                        e.1.push(f.secret.chars().take(24).collect());
                    }
                }
                by.iter()
                    .map(|((k, c), (n, eg))| {
                        let eg = if eg.is_empty() { String::new() } else { format!(" (e.g. {eg:?})") };
                        format!("    {n:>5}  {k}: {c}{eg}")
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let own: Vec<String> = own_found
                .iter()
                .map(|(k, n)| format!("    {n:>5}  {k}: the copies' own text, no planted secret"))
                .collect();
            format!(
                "detect-secrets ({:.1} s): planted copies {} credential findings ({} of the {} planted secrets; {kinds_in:?}), \
                 {} generic ones:\n{}\noutputs {} credential findings ({} of them the copies' own text), {} generic ones \
                 reported:\n{}{}",
                t.elapsed().as_secs_f64(),
                credential_in.len(),
                seen_planted,
                planted.len(),
                in_inputs.iter().filter(|f| generic(&f.kind)).count(),
                classes(&in_inputs),
                in_outputs.iter().filter(|f| !generic(&f.kind)).count(),
                own_found.values().sum::<usize>(),
                in_outputs.iter().filter(|f| generic(&f.kind)).count(),
                classes(&in_outputs),
                if own.is_empty() { String::new() } else { format!("\n{}", own.join("\n")) }
            )
        }
    };

    // The matrix: planted secrets by kind and position, outputs checked.
    let mut matrix: BTreeMap<&str, BTreeMap<Pos, usize>> = BTreeMap::new();
    for p in &planted {
        *matrix.entry(p.kind.as_str()).or_default().entry(p.pos).or_default() += 1;
    }
    let kinds_planted = matrix.len();
    let summary = format!(
        "{} secrets of {kinds_planted} kinds (of {}) planted in {} positions of {} copies ({} formats: {}), \
         {} outputs checked, {} shown; planting {:.1} s, outputs {:.1} s\n{oracle_note}",
        planted.len(),
        kinds.len(),
        positions.len(),
        units.len(),
        units.iter().flat_map(|u| &u.formats).collect::<BTreeSet<_>>().len(),
        units
            .iter()
            .flat_map(|u| &u.formats)
            .cloned()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
            .join(" "),
        outputs.len(),
        failures.len(),
        planting.as_secs_f64(),
        commands.as_secs_f64(),
    );
    if let Some(path) = std::env::var_os("DEBRIEF_PLANTED_REPORT") {
        let mut md = format!("{summary}\n\n| copy | from | formats |\n|---|---|---|\n");
        for u in &units {
            md.push_str(&format!(
                "| {} | {} | {} |\n",
                u.name,
                u.from,
                u.formats.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        md.push_str("\n| kind |");
        for p in Pos::ALL {
            md.push_str(&format!(" {} |", p.name()));
        }
        md.push_str("\n|---|");
        md.push_str(&"---:|".repeat(Pos::ALL.len()));
        md.push('\n');
        for (k, row) in &matrix {
            md.push_str(&format!("| {k} |"));
            for p in Pos::ALL {
                md.push_str(&format!(" {} |", row.get(&p).copied().unwrap_or(0)));
            }
            md.push('\n');
        }
        md.push_str("\n| output | secrets shown |\n|---|---:|\n");
        for o in &outputs {
            let n = leaks.iter().filter(|((_, _, name), _)| name == &o.name).map(|(_, n)| n).sum::<usize>();
            md.push_str(&format!("| `{}` | {n} |\n", o.name.replace(ud, "DIR")));
        }
        std::fs::write(path, md).expect("write the matrix");
    }
    eprintln!("{summary}");
    assert!(failures.is_empty(), "{} leaks:\n{}", failures.len(), failures.join("\n"));
    // Every kind reached every position the sample offers at least once over the run
    // (a position no copy has is reported, not failed).
    let missing: Vec<String> = positions
        .iter()
        .flat_map(|p| {
            kinds
                .iter()
                .filter(|k| !matrix.get(k.id.as_str()).is_some_and(|r| r.contains_key(p)))
                .map(move |k| format!("{} at {}", k.id, p.name()))
        })
        .collect();
    let mut by_pos: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for m in &missing {
        if let Some((k, p)) = m.split_once(" at ") {
            by_pos.entry(p).or_default().push(k);
        }
    }
    eprintln!("kind × position pairs not planted: {} {by_pos:?}", missing.len());
}
