//! The parser fuzzer shared by `tests/fuzz_formats.rs` (a short, deterministic run in
//! the test suite) and `scripts/fuzz.sh` (long runs, same code, more executions).
//!
//! Seeds are every sample of `corpus/` and `../shared/corpus-real/`, grouped by the
//! format that detects them. An execution takes a seed (sometimes another format's),
//! stacks one to four mutations on it — truncation, flipped bytes, invalid UTF-8,
//! binary garbage, line surgery, splices from other seeds, format tokens, and JSON-aware
//! changes (wrong field types, missing fields, huge numbers and strings, nesting past
//! serde_json's recursion limit) — writes it where the seed lives (so parsers that read
//! sibling files find them), and runs everything that reads a transcript: every
//! format's sniffer, the forced format's parser, a resumed parse from a checkpoint, one
//! message read back (how search cuts snippets), the detectors, what the indexer and
//! `show --json` make of each message, and redaction. A panic anywhere is a failure;
//! an error return is fine (it is how a parser says "not my format").
#![allow(dead_code)]

pub mod redaction;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use debrief::formats::{self, Format};
use rand::seq::IndexedRandom;
use rand::{Rng as _, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

/// The fuzzer's random source: `rand`'s seeded ChaCha8 stream, so a failing execution
/// is found again from its number on any machine.
#[derive(Clone)]
pub struct Rng(ChaCha8Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(ChaCha8Rng::seed_from_u64(seed))
    }
    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform in `0..n`; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.0.random_range(0..n) }
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.0.random_ratio(percent.min(100) as u32, 100)
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        items.choose(&mut self.0).expect("pick from a non-empty list")
    }
}

/// One seed: the file's place in the copied tree and its bytes.
pub struct Seed {
    /// Path relative to the fuzz folder (the copy of the corpora).
    pub rel: PathBuf,
    pub bytes: Vec<u8>,
}

/// Seeds grouped by format id, with the folder they were copied to.
pub struct Seeds {
    pub root: PathBuf,
    pub by_format: BTreeMap<&'static str, Vec<Seed>>,
}

/// Source folders of seeds: ours (the samples, and their copies with records broken on
/// purpose), and the real transcripts beside the checkout.
fn seed_roots(repo: &Path) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("corpus", repo.join("corpus")),
        ("broken", repo.join("tests/data/broken")),
        ("real", repo.join("../shared/corpus-real")),
    ]
}

/// Copy the corpora of the checkout at `repo` under `into` and group their files by
/// detected format. Files larger than `max_seed` bytes are copied (as siblings) but not
/// used as seeds.
pub fn load_seeds(repo: &Path, into: &Path, max_seed: usize) -> Seeds {
    let mut by_format: BTreeMap<&'static str, Vec<Seed>> = BTreeMap::new();
    for (name, src) in seed_roots(repo) {
        if !src.exists() {
            continue;
        }
        for e in walkdir::WalkDir::new(&src).sort_by_file_name().into_iter().filter_map(Result::ok) {
            if !e.file_type().is_file() {
                continue;
            }
            let rel = Path::new(name).join(e.path().strip_prefix(&src).expect("under the root"));
            let dest = into.join(&rel);
            std::fs::create_dir_all(dest.parent().expect("has a parent")).expect("mkdir");
            let bytes = std::fs::read(e.path()).expect("read seed");
            std::fs::write(&dest, &bytes).expect("copy seed");
            if bytes.len() > max_seed {
                continue;
            }
            let format = if rel.extension().is_some_and(|x| x == "sql") {
                // The database samples (OpenCode's, Goose's) are SQL: the seed is a database
                // built from it, of the format that claims it. Its mutations change the SQL
                // (see `write_input`).
                let db = dest.with_extension("db");
                if build_sqlite(&db, &bytes).is_err() {
                    continue;
                }
                let head = std::fs::read(&db).expect("read the built database");
                let Some(f) = formats::detect(&db, &head[..head.len().min(formats::SNIFF_BYTES)]) else { continue };
                by_format.entry(f.id()).or_default().push(Seed { rel: rel.with_extension("db"), bytes });
                continue;
            } else {
                let head = &bytes[..bytes.len().min(formats::SNIFF_BYTES)];
                formats::detect(&dest, head)
            };
            if let Some(f) = format {
                by_format.entry(f.id()).or_default().push(Seed { rel, bytes });
            }
        }
    }
    Seeds { root: into.to_path_buf(), by_format }
}

/// Build an SQLite database from SQL (the OpenCode sample, or a mutated copy of it).
pub fn build_sqlite(path: &Path, sql: &[u8]) -> rusqlite::Result<()> {
    let _ = std::fs::remove_file(path);
    let db = rusqlite::Connection::open(path)?;
    // No fsync per statement: thousands of databases are built.
    db.execute_batch("PRAGMA synchronous = OFF; PRAGMA journal_mode = MEMORY;")?;
    db.execute_batch(&String::from_utf8_lossy(sql))?;
    Ok(())
}

// ---------------------------------------------------------------------------------
// Mutations.

/// Tokens that mean something to one of the parsers: markdown headers and fences of
/// aider and SpecStory, JSON punctuation and literals, line endings, a BOM.
const TOKENS: &[&str] = &[
    "#### ",
    "# aider chat started at 2024-08-05 19:33:01\n",
    "> ",
    "```",
    "````",
    "```bash\n",
    "~~~",
    "_**User**_",
    "_**Assistant**_",
    "_**Agent (model gpt-5, mode Agent)**_",
    "<!-- Generated by SpecStory -->",
    "<details>",
    "</details>",
    "<summary>",
    "<tool-use data-tool-type=\"shell\" data-tool-name=\"run_terminal_cmd\">",
    "</tool-use>",
    "<think>",
    "</think>",
    "\n---\n",
    "Exit code 1\n",
    "Added 12 lines of output to the chat.",
    "/run ",
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "null",
    "true",
    "-1",
    "1e999",
    "18446744073709551616",
    "\\u0000",
    "\\ud800",
    "\\\"",
    "\r\n",
    "\r",
    "\n",
    "\n\n",
    "\t",
    "\u{feff}",
    "\u{202e}",
    "é",
    "🦀",
];

/// Bytes that are never valid UTF-8 where they land, or only half of a character.
const BAD_UTF8: &[&[u8]] =
    &[b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xc0\xaf", b"\x00", b"\xfe\xff"];

/// Mutate `data` in place with one to four stacked mutations. `others` are all the
/// seeds, for splices.
pub fn mutate(rng: &mut Rng, data: &mut Vec<u8>, others: &[&[u8]]) {
    let n = 1 + rng.below(4);
    for _ in 0..n {
        match rng.below(14) {
            0 => truncate(rng, data),
            1 => flip_bytes(rng, data),
            2 => insert_at(rng, data, rng.clone().pick(BAD_UTF8).to_vec()),
            3 => {
                let len = 1 + rng.below(256);
                let garbage: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                insert_at(rng, data, garbage);
            }
            4 | 5 => line_surgery(rng, data),
            6 => splice(rng, data, others),
            7 => {
                let t = rng.pick(TOKENS).as_bytes().to_vec();
                insert_at(rng, data, t);
            }
            8 => {
                let t = rng.pick(TOKENS).as_bytes().to_vec();
                insert_at_line_start(rng, data, t);
            }
            _ => json_mutation(rng, data),
        }
    }
}

fn truncate(rng: &mut Rng, data: &mut Vec<u8>) {
    let at = rng.below(data.len() + 1);
    data.truncate(at);
}

fn flip_bytes(rng: &mut Rng, data: &mut [u8]) {
    if data.is_empty() {
        return;
    }
    for _ in 0..1 + rng.below(8) {
        let i = rng.below(data.len());
        data[i] = match rng.below(3) {
            0 => rng.next() as u8,
            1 => data[i] ^ (1 << rng.below(8)),
            _ => *rng.pick(b"{}[]\":,\\\n0 "),
        };
    }
}

fn insert_at(rng: &mut Rng, data: &mut Vec<u8>, bytes: Vec<u8>) {
    let at = rng.below(data.len() + 1);
    data.splice(at..at, bytes);
}

fn line_starts(data: &[u8]) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(memchr::memchr_iter(b'\n', data).map(|i| i + 1).filter(|i| *i < data.len()));
    v
}

fn insert_at_line_start(rng: &mut Rng, data: &mut Vec<u8>, bytes: Vec<u8>) {
    let starts = line_starts(data);
    let at = *rng.pick(&starts);
    data.splice(at..at, bytes);
}

/// Whole lines: delete, duplicate, swap, join with the next, split, blank, CRLF.
fn line_surgery(rng: &mut Rng, data: &mut Vec<u8>) {
    let text = std::mem::take(data);
    let mut lines: Vec<Vec<u8>> = text.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
    let n = lines.len();
    let i = rng.below(n);
    match rng.below(7) {
        0 => {
            lines.remove(i);
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        2 => {
            let j = rng.below(n);
            lines.swap(i, j);
        }
        3 if i + 1 < n => {
            let next = lines.remove(i + 1);
            lines[i].extend(next);
        }
        4 => {
            let at = rng.below(lines[i].len() + 1);
            let tail = lines[i].split_off(at);
            lines.insert(i + 1, tail);
        }
        5 => lines.insert(i, Vec::new()),
        _ => {
            for l in &mut lines {
                l.push(b'\r');
            }
        }
    }
    *data = lines.join(&b'\n');
}

fn splice(rng: &mut Rng, data: &mut Vec<u8>, others: &[&[u8]]) {
    if others.is_empty() {
        return;
    }
    let other = *rng.pick(others);
    if other.is_empty() {
        return;
    }
    let a = rng.below(other.len());
    let b = (a + 1 + rng.below(4096)).min(other.len());
    let at = rng.below(data.len() + 1);
    let end = (at + rng.below(4096)).min(data.len());
    data.splice(at..end, other[a..b].iter().copied());
}

/// Change a JSON value inside the data: a whole document when it parses as one, else
/// one line of a JSON Lines file.
fn json_mutation(rng: &mut Rng, data: &mut Vec<u8>) {
    if let Ok(mut v) = serde_json::from_slice::<Value>(data) {
        for _ in 0..1 + rng.below(3) {
            mutate_value(rng, &mut v);
        }
        *data = if rng.chance(50) {
            serde_json::to_vec_pretty(&v).expect("serialise")
        } else {
            serde_json::to_vec(&v).expect("serialise")
        };
        return;
    }
    let starts = line_starts(data);
    for _ in 0..4 {
        let s = *rng.pick(&starts);
        let e = memchr::memchr(b'\n', &data[s..]).map_or(data.len(), |i| s + i);
        let Ok(mut v) = serde_json::from_slice::<Value>(&data[s..e]) else { continue };
        for _ in 0..1 + rng.below(3) {
            mutate_value(rng, &mut v);
        }
        let line = serde_json::to_vec(&v).expect("serialise");
        data.splice(s..e, line);
        return;
    }
    // No JSON here: nest raw brackets instead.
    let depth = 1 + rng.below(20_000);
    let open = if rng.chance(50) { b"[" } else { b"{" };
    insert_at(rng, data, open.repeat(depth));
}

/// Visit a random node of `v` and change it.
fn mutate_value(rng: &mut Rng, v: &mut Value) {
    // Walk down a random path, stopping at a random depth.
    let mut node = v;
    loop {
        let stop = rng.chance(30);
        let next = match node {
            Value::Array(a) if !a.is_empty() && !stop => {
                let i = rng.below(a.len());
                Some(i)
            }
            Value::Object(o) if !o.is_empty() && !stop => Some(rng.below(o.len())),
            _ => None,
        };
        match next {
            None => break,
            Some(i) => {
                node = match node {
                    Value::Array(a) => &mut a[i],
                    Value::Object(o) => o.values_mut().nth(i).expect("index in range"),
                    _ => unreachable!("only containers have children"),
                }
            }
        }
    }
    match node {
        Value::Object(o) if !o.is_empty() && rng.chance(40) => {
            // Drop a field, or give it a value of another type.
            let key = o.keys().nth(rng.below(o.len())).cloned().expect("index in range");
            if rng.chance(50) {
                o.remove(&key);
            } else {
                o.insert(key, random_value(rng));
            }
        }
        Value::Array(a) if !a.is_empty() && rng.chance(40) => {
            let i = rng.below(a.len());
            if rng.chance(50) {
                a.remove(i);
            } else {
                let x = a[i].clone();
                a.insert(i, x);
            }
        }
        _ => *node = random_value(rng),
    }
}

fn random_value(rng: &mut Rng) -> Value {
    match rng.below(14) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => Value::from(*rng.pick(&[0i64, -1, 1, i64::MIN, i64::MAX, 4_294_967_296])),
        3 => Value::from(u64::MAX),
        4 => Value::from(*rng.pick(&[1.5f64, -0.0, 1e308, -1e308, 5e-324])),
        5 => Value::from(""),
        6 => Value::from(weird_string(rng)),
        7 => Value::from("x".repeat(1 + rng.below(200_000))),
        8 => Value::Array(vec![]),
        9 => Value::Object(Default::default()),
        10 => {
            // Nested past serde_json's recursion limit (128) sometimes, below it others.
            let depth = 1 + rng.below(300);
            let mut x = Value::from("deep");
            for _ in 0..depth {
                x = if rng.chance(50) { Value::Array(vec![x]) } else { serde_json::json!({ "content": x }) };
            }
            x
        }
        11 => serde_json::json!([{"type": "text", "text": weird_string(rng)}, {"type": "tool_use"}, null, 7]),
        12 => serde_json::json!({"type": weird_string(rng), "role": "assistant", "content": null}),
        _ => Value::from(rng.pick(TOKENS).to_string()),
    }
}

fn weird_string(rng: &mut Rng) -> String {
    let parts = [
        "\u{0}",
        "\u{7}",
        "\n",
        "\r\n",
        "\t",
        " ",
        "é",
        "🦀",
        "\u{202e}",
        "\u{feff}",
        "\u{fffd}",
        "[msg 5]",
        "<script>",
        "```",
        "#### ",
        "2026-02-27T11:17:29Z",
        "not-a-date",
        "toolu_1",
        "call_1",
        "Exit code: 1",
        "/home/ann/x",
        "user",
        "assistant",
        "tool_result",
    ];
    (0..1 + rng.below(12)).map(|_| *rng.pick(&parts)).collect()
}

// ---------------------------------------------------------------------------------
// One execution.

/// Run everything that reads a transcript on the file at `path`, parsed as `format`.
/// Returns the number of messages read (to show the fuzzer reaches the parsers).
pub fn exercise(path: &Path, format: &'static dyn Format) -> usize {
    // Every sniffer sees the head.
    if let Ok(head) = formats::read_head(path) {
        for f in formats::all() {
            let _ = f.sniff(path, &head);
        }
    }
    let Ok(parsed) = formats::parse_file(path, Some(format)) else { return 0 };
    let mut messages = 0;
    for s in &parsed.sessions {
        messages += s.messages.len();
        let _ = debrief::detect::detect_session(debrief::detect::registry(), &s.messages);
        let mut text = String::new();
        for m in &s.messages {
            text.clear();
            debrief::index::writer::index_text(m, &mut text);
            let _ = debrief::index::writer::preview(m);
            let _ = debrief::commands::show::message_json(s, m, Some(100));
            let _ = debrief::index::search::make_snippet(m, &["error".to_string()], 220, None);
            let _ = debrief::index::search::make_snippet(
                m,
                &["error".to_string()],
                220,
                Some(debrief::redact::Redactor::builtin()),
            );
        }
        let mut red = s.clone();
        if let Ok(r) = debrief::redact::Redactor::for_meta(&s.meta, &[]) {
            r.apply(&mut red);
        }
        // Read one message back from its source lines, as search does for snippets.
        if let Some(m) = s.messages.get(s.messages.len() / 2)
            && let (Some(o), Some(l)) = (m.offset, m.line)
        {
            let _ = formats::read_message(path, format, o, l, m.end_line.unwrap_or(l), m.idx, Some(m.role));
        }
    }
    // Resume from a checkpoint in the middle, as an append does.
    let mut sink = formats::Collect::default();
    if let Ok(mut input) = formats::Input::open(path, None)
        && format.parse(&mut input, &mut sink).is_ok()
        && let Some(cp) = sink.checkpoints.get(sink.checkpoints.len() / 2).cloned()
    {
        let session = parsed.sessions.get(cp.session).map(|s| s.meta.clone()).unwrap_or_default();
        let resume = formats::Resume { checkpoint: cp, session };
        if let Ok(mut input) = formats::Input::open(path, Some(resume)) {
            let _ = format.parse(&mut input, &mut formats::Collect::default());
        }
    }
    messages
}

/// What a run did, per format.
#[derive(Default, Debug, Clone)]
pub struct Tally {
    pub executions: u64,
    /// Executions whose parse produced at least one message.
    pub with_messages: u64,
    pub panics: Vec<String>,
}

/// Run `iterations` executions for `format_id`, starting at `first` (so that runs can
/// be split and reproduced: execution `i` always makes the same input). A panicking
/// input is saved under `keep` (when given) and recorded.
pub fn run_format(
    seeds: &Seeds,
    format_id: &str,
    first: u64,
    iterations: u64,
    keep: Option<&Path>,
    deadline: Option<std::time::Instant>,
) -> Tally {
    let format = formats::by_id(format_id).expect("known format");
    let own = &seeds.by_format[format_id];
    let all: Vec<&[u8]> = seeds.by_format.values().flatten().map(|s| s.bytes.as_slice()).collect();
    let mut tally = Tally::default();
    for i in first..first + iterations {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break;
        }
        let mut rng = Rng::new(i.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ stable(format_id));
        let seed = rng.pick(own);
        // Now and then another format's file: a parser must cope with anything.
        let mut data = if rng.chance(10) { rng.pick(&all).to_vec() } else { seed.bytes.clone() };
        // Byte-level damage makes a JSON document unreadable as a whole, which the
        // parsers handle in one place; most inputs of whole-document formats are
        // therefore changed as JSON, to reach the code that reads the fields.
        if data.first().is_some_and(|b| matches!(b, b'{' | b'[')) && rng.chance(60) {
            for _ in 0..1 + rng.below(4) {
                json_mutation(&mut rng, &mut data);
            }
        } else {
            mutate(&mut rng, &mut data, &all);
        }
        let path = seeds.root.join(&seed.rel);
        write_input(format_id, &path, &data);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exercise(&path, format)));
        write_input(format_id, &path, &seed.bytes);
        tally.executions += 1;
        match outcome {
            Ok(n) => tally.with_messages += u64::from(n > 0),
            Err(e) => {
                let what = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                let mut note = format!("{format_id} execution {i} (seed {}): {what}", seed.rel.display());
                if let Some(dir) = keep {
                    let _ = std::fs::create_dir_all(dir);
                    let file = dir.join(format!("{format_id}-{i}.bin"));
                    let _ = std::fs::write(&file, &data);
                    note.push_str(&format!(" — input saved as {}", file.display()));
                }
                tally.panics.push(note);
            }
        }
    }
    tally
}

/// The formats whose samples are kept as SQL and read as SQLite databases.
pub const DATABASES: &[&str] = &["opencode-db", "goose-db"];

/// Put an input in place: the bytes of the file, or for a database format the
/// database the (mutated) SQL builds — as far as it builds: rows of a script that
/// fails half-way stay, which makes odd databases too.
pub fn write_input(format_id: &str, path: &Path, data: &[u8]) {
    if DATABASES.contains(&format_id) {
        let _ = build_sqlite(path, data);
    } else {
        std::fs::write(path, data).expect("write input");
    }
}

fn stable(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}
