//! `debrief push`: send this machine's indexed sessions to the team store.
//!
//! Incremental by session: each session row carries a fingerprint of what the index
//! holds of it (its record: metadata, message count, findings) and of the redaction
//! rules; a session whose fingerprint the database already has is not read again, so a
//! second push sends nothing. A new or changed session is read from its source file
//! (the messages the index counted, no more), redacted here, and written in one
//! transaction that first deletes its old rows: a push stopped at any point leaves each
//! session as one push or the other wrote it, never a mix.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use sha2::Digest as _;
use tantivy::tokenizer::{TokenStream, Tokenizer};

use super::TeamUrl;
use crate::cli::{Cli, PushArgs};
use crate::commands::{Redaction, display_path, index_dir};
use crate::formats;
use crate::index::IndexDir;
use crate::index::schema::SessionRecord;
use crate::index::search::Filters;
use crate::index::tokenizer::CodeTokenizer;
use crate::index::writer::{OUTPUT_HEAD, OUTPUT_TAIL, head_tail, index_text};
use crate::model::{Message, Session};
use crate::redact::Redactor;

/// File in the index folder holding this machine's id in the team store.
pub const MACHINE_ID_FILE: &str = "machine-id";

pub fn run(cli: &Cli, args: &PushArgs) -> Result<i32> {
    if args.redact.no_redact && !args.i_understand_unredacted {
        crate::usage!(
            "--no-redact would send secrets, host names and user names to the team database as the transcripts have them; add --i-understand-unredacted if that is what you want"
        );
    }
    let Some(raw) = args.to.as_deref().filter(|s| !s.trim().is_empty()) else {
        crate::usage!("give the team database: --to postgres://user@host:5432/db, or set {}", super::URL_ENV);
    };
    let url = TeamUrl::parse(raw)?;
    let redaction = Redaction::from_args(&args.redact)?;
    let dir = index_dir(&cli.index);
    let ix = IndexDir::open(&dir)?;
    let records = crate::index::search::sessions(&ix, &Filters::default(), usize::MAX)?;
    let machine = machine_id(&dir)?;
    let name = args.machine_name.clone().unwrap_or_else(crate::model::local_host);
    let mut db = url.connect()?;
    super::schema::migrate(&url, &mut db)?;
    db.execute(
        "INSERT INTO machines (id, name, client) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, last_push = now(), client = excluded.client",
        &[&machine, &name, &CLIENT],
    )
    .map_err(|e| url.error("recording the machine", e))?;
    let ruleset = Ruleset::of(&redaction)?;
    db.execute(
        "INSERT INTO redaction_rulesets (id, redacted, rules) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
        &[&ruleset.id, &ruleset.redacted, &ruleset.rules],
    )
    .map_err(|e| url.error("recording the redaction rules", e))?;
    let known: HashMap<i64, String> = db
        .query("SELECT skey, fingerprint FROM sessions WHERE machine = $1", &[&machine])
        .map_err(|e| url.error("reading what was pushed", e))?
        .into_iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();

    // What to send, by source file (a file is parsed once for all its sessions).
    let mut todo: BTreeMap<std::path::PathBuf, Vec<(SessionRecord, String)>> = BTreeMap::new();
    let mut unchanged = 0usize;
    for r in records {
        let fp = fingerprint(&r, &ruleset.id)?;
        let skey = session_key(&r);
        if known.get(&skey) == Some(&fp) {
            unchanged += 1;
            continue;
        }
        todo.entry(r.meta.source.clone()).or_default().push((r, fp));
    }
    let started = Instant::now();
    let mut pushed = Pushed::default();
    let mut failed = 0usize;
    for (path, sessions) in todo {
        let parsed = match formats::by_id(&sessions[0].0.meta.format) {
            Some(f) => formats::parse_file(&path, Some(f)),
            None => Err(anyhow::anyhow!("unknown format `{}`", sessions[0].0.meta.format)),
        };
        let parsed = match parsed {
            Ok(p) => p,
            Err(e) => {
                eprintln!("debrief: {}: not pushed: {e:#}", display_path(&path));
                failed += sessions.len();
                continue;
            }
        };
        for (rec, fp) in sessions {
            let Some(session) = parsed.sessions.get(rec.ordinal).filter(|s| s.meta.id == rec.meta.id) else {
                eprintln!(
                    "debrief: {}: session {} not pushed: the file changed since it was indexed (run `debrief index`)",
                    display_path(&path),
                    rec.meta.id
                );
                failed += 1;
                continue;
            };
            let mut session = session.clone();
            if session.messages.len() < rec.meta.messages as usize {
                eprintln!(
                    "debrief: {}: session {} not pushed: the file has fewer messages than the index (run `debrief index`)",
                    display_path(&path),
                    rec.meta.id
                );
                failed += 1;
                continue;
            }
            // The messages the index counted, as its findings saw them.
            session.messages.truncate(rec.meta.messages as usize);
            let one = prepare(rec, session, &redaction)?;
            push_session(&url, &mut db, &machine, &ruleset, &fp, &one)?;
            pushed.sessions += 1;
            pushed.messages += one.session.messages.len();
            pushed.bytes += one.bytes;
        }
    }
    if !args.quiet {
        let secs = started.elapsed().as_secs_f64();
        let mb = pushed.bytes as f64 / 1e6;
        eprintln!(
            "pushed {} sessions ({} messages, {mb:.1} MB in {secs:.1} s) to {} as machine {name}; {unchanged} unchanged{}",
            pushed.sessions,
            pushed.messages,
            url.shown(),
            if failed > 0 { format!("; {failed} not pushed") } else { String::new() }
        );
    }
    Ok(if failed > 0 { 1 } else { 0 })
}

const CLIENT: &str = concat!("debrief ", env!("CARGO_PKG_VERSION"));

#[derive(Default)]
struct Pushed {
    sessions: usize,
    messages: usize,
    bytes: u64,
}

/// This index folder's machine id, made (random) at its first push.
pub fn machine_id(dir: &Path) -> Result<String> {
    let path = dir.join(MACHINE_ID_FILE);
    match std::fs::read_to_string(&path) {
        Ok(s) if is_machine_id(s.trim()) => return Ok(s.trim().to_string()),
        Ok(_) => anyhow::bail!("{}: not a machine id (32 hex digits); remove it to make a new one", path.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    }
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| anyhow::anyhow!("no random numbers from the system: {e}"))?;
    let id: String = b.iter().map(|x| format!("{x:02x}")).collect();
    crate::index::write_atomic(&path, id.as_bytes())?;
    Ok(id)
}

fn is_machine_id(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The index key of a session as the database stores it (a `bigint`).
fn session_key(r: &SessionRecord) -> i64 {
    crate::index::schema::session_key(&r.meta.source, r.ordinal) as i64
}

/// What identifies a session's pushed content: its index record, the redaction rules,
/// the schema.
fn fingerprint(r: &SessionRecord, ruleset: &str) -> Result<String> {
    let mut h = sha2::Sha256::new();
    h.update(serde_json::to_vec(r)?);
    h.update(ruleset.as_bytes());
    h.update(super::schema::VERSION.to_le_bytes());
    Ok(h.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect())
}

/// The rules every session's redactor starts from (its own user and host names join
/// them), recorded once in `redaction_rulesets`.
struct Ruleset {
    id: String,
    redacted: bool,
    rules: Vec<String>,
}

impl Ruleset {
    fn of(redaction: &Redaction) -> Result<Ruleset> {
        let rules: Vec<String> = match redaction.extra() {
            Some(extra) => Redactor::new(extra, &[])?.rule_ids().into_iter().map(str::to_string).collect(),
            None => Vec::new(),
        };
        let redacted = redaction.extra().is_some();
        let mut h = sha2::Sha256::new();
        h.update([u8::from(redacted)]);
        for r in &rules {
            h.update(r.as_bytes());
            h.update([0]);
        }
        let id = h.finalize().iter().take(12).map(|b| format!("{b:02x}")).collect();
        Ok(Ruleset { id, redacted, rules })
    }
}

/// A session made ready to send: redacted, with its source path redacted too.
struct Prepared {
    /// The session's index key (of its source path as indexed, not as sent).
    key: i64,
    rec: SessionRecord,
    session: Session,
    source: String,
    names: i32,
    bytes: u64,
}

fn prepare(mut rec: SessionRecord, mut session: Session, redaction: &Redaction) -> Result<Prepared> {
    let key = session_key(&rec);
    let meta = rec.meta.clone();
    let mut source = meta.source.to_string_lossy().into_owned();
    let mut names = 0;
    if let Some(r) = redaction.for_meta(&meta)? {
        names = (r.rule_ids().len() - Redactor::builtin().rule_ids().len()) as i32;
        r.apply(&mut rec);
        r.apply(&mut session);
        r.redact_string(&mut source);
    }
    rec.meta.source = source.clone().into();
    session.meta = rec.meta.clone();
    let bytes = session
        .messages
        .iter()
        .map(|m| {
            m.text.len()
                + m.thinking.len()
                + m.calls.iter().map(|c| c.result.as_ref().map_or(0, |r| r.output.len())).sum::<usize>()
        })
        .sum::<usize>() as u64;
    Ok(Prepared { key, rec, session, source, names, bytes })
}

/// Test hook (tests/team.rs): with `DEBRIEF_PUSH_STOP=<point>:<k>`, the k-th time a push
/// reaches `point` it says so on stderr and waits to be killed. Points, in each
/// session's transaction: `begin`, `session` (its row written), `messages`, `calls`,
/// `findings` (each copied), `commit` (about to commit), `committed`.
fn stop_point(point: &str) {
    static AT: crate::test_point::TestPoint = crate::test_point::TestPoint::new("DEBRIEF_PUSH_STOP");
    if let Some(k) = AT.reached(point) {
        eprintln!("debrief: stopped at {point}:{k}");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
    }
}

fn push_session(
    url: &TeamUrl,
    db: &mut postgres::Client,
    machine: &str,
    ruleset: &Ruleset,
    fp: &str,
    p: &Prepared,
) -> Result<()> {
    let skey = p.key;
    let fail = |what: &str| {
        let what = format!("{what} of session {}", p.rec.meta.id);
        move |e| url.error(&what, e)
    };
    let mut tx = db.transaction().map_err(fail("starting the transaction"))?;
    stop_point("begin");
    // Two pushes of the same index folder at once: one waits for the other, then finds
    // the session sent.
    tx.execute("SELECT pg_advisory_xact_lock(hashtext($1), $2)", &[&machine, &((skey >> 32) as i32 ^ skey as i32)])
        .map_err(fail("locking"))?;
    let now: Option<String> = tx
        .query_opt("SELECT fingerprint FROM sessions WHERE machine = $1 AND skey = $2", &[&machine, &skey])
        .map_err(fail("reading"))?
        .map(|r| r.get(0));
    if now.as_deref() == Some(fp) {
        tx.commit().map_err(fail("committing"))?;
        return Ok(());
    }
    for t in ["messages", "calls", "findings"] {
        tx.execute(&format!("DELETE FROM {t} WHERE machine = $1 AND skey = $2"), &[&machine, &skey])
            .map_err(fail("deleting the old rows"))?;
    }
    let m = &p.rec.meta;
    let meta = clean_json(serde_json::to_value(m)?);
    let stats = serde_json::to_value(&p.rec.stats)?;
    tx.execute(
        "INSERT INTO sessions (machine, skey, id, format, agent, project, cwd, title, model, started, ended, messages,
                               source, ordinal, meta, stats, fingerprint, redaction, redacted_names, bytes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
         ON CONFLICT (machine, skey) DO UPDATE SET
           id = excluded.id, format = excluded.format, agent = excluded.agent, project = excluded.project,
           cwd = excluded.cwd, title = excluded.title, model = excluded.model, started = excluded.started,
           ended = excluded.ended, messages = excluded.messages, source = excluded.source, ordinal = excluded.ordinal,
           meta = excluded.meta, stats = excluded.stats, fingerprint = excluded.fingerprint,
           redaction = excluded.redaction, redacted_names = excluded.redacted_names, bytes = excluded.bytes,
           pushed_at = now()",
        &[
            &machine,
            &skey,
            &nul_free(&m.id),
            &m.format,
            &nul_free(&m.agent),
            &m.project.as_deref().map(nul_free),
            &m.cwd.as_deref().map(nul_free),
            &m.title.as_deref().map(nul_free),
            &m.model.as_deref().map(nul_free),
            &m.started,
            &m.ended,
            &(m.messages as i32),
            &nul_free(&p.source),
            &(p.rec.ordinal as i32),
            &postgres::types::Json(&meta),
            &postgres::types::Json(&stats),
            &fp,
            &ruleset.id,
            &p.names,
            &(p.bytes as i64),
        ],
    )
    .map_err(fail("writing the session row"))?;
    stop_point("session");
    let mut tags: HashMap<u32, Vec<&str>> = HashMap::new();
    for f in &p.rec.findings {
        tags.entry(f.key).or_default().push(&f.detector);
    }
    let mut buf = Vec::with_capacity(1 << 16);
    let mut tok = CodeTokenizer::default();
    let mut text = String::new();
    let mut copy = tx
        .copy_in(
            "COPY messages (machine, skey, idx, role, origin, ts, text, thinking, line, end_line, sidechain, error,
                            tools, programs, files, detectors, tsv) FROM STDIN",
        )
        .map_err(fail("sending messages"))?;
    for msg in &p.session.messages {
        buf.clear();
        message_row(
            &mut buf,
            machine,
            skey,
            msg,
            tags.get(&msg.idx).map_or(&[][..], Vec::as_slice),
            &mut tok,
            &mut text,
        );
        copy.write_all(&buf).context("sending messages")?;
    }
    copy.finish().map_err(fail("sending messages"))?;
    stop_point("messages");
    let mut copy = tx
        .copy_in(
            "COPY calls (machine, skey, idx, n, call_id, name, input, command, continues, has_result, output,
                         output_bytes, exit_code, is_error, interrupted, timed_out, running, ts, line) FROM STDIN",
        )
        .map_err(fail("sending calls"))?;
    for msg in &p.session.messages {
        for (n, c) in msg.calls.iter().enumerate() {
            buf.clear();
            call_row(&mut buf, machine, skey, msg.idx, n, c)?;
            copy.write_all(&buf).context("sending calls")?;
        }
    }
    copy.finish().map_err(fail("sending calls"))?;
    stop_point("calls");
    let mut copy = tx
        .copy_in("COPY findings (machine, skey, n, detector, key, evidence, summary, command, details) FROM STDIN")
        .map_err(fail("sending findings"))?;
    for (n, f) in p.rec.findings.iter().enumerate() {
        buf.clear();
        let mut row = Row::new(&mut buf);
        row.text(machine).int(skey).int(n as i64).text(&f.detector).int(i64::from(f.key));
        row.raw(&format!("{{{}}}", f.evidence.iter().map(u32::to_string).collect::<Vec<_>>().join(",")));
        row.text(&f.summary).opt_text(f.command.as_deref());
        match &f.details {
            Some(d) => row.text(&serde_json::to_string(&clean_json(serde_json::to_value(d)?))?),
            None => row.null(),
        };
        row.end();
        copy.write_all(&buf).context("sending findings")?;
    }
    copy.finish().map_err(fail("sending findings"))?;
    stop_point("findings");
    stop_point("commit");
    tx.commit().map_err(fail("committing"))?;
    stop_point("committed");
    Ok(())
}

/// A string without NUL characters (PostgreSQL's text cannot hold them).
fn nul_free(s: &str) -> String {
    s.replace('\0', "\u{fffd}")
}

/// A JSON value without NUL characters in its strings (jsonb refuses `\u0000`).
fn clean_json(mut v: serde_json::Value) -> serde_json::Value {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::String(s) if s.contains('\0') => *s = s.replace('\0', "\u{fffd}"),
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            serde_json::Value::Object(o) => {
                if o.keys().any(|k| k.contains('\0')) {
                    *o = std::mem::take(o).into_iter().map(|(k, v)| (k.replace('\0', "\u{fffd}"), v)).collect();
                }
                o.values_mut().for_each(walk);
            }
            _ => {}
        }
    }
    walk(&mut v);
    v
}

/// One line of `COPY … FROM STDIN` (text format), field by field.
struct Row<'a> {
    buf: &'a mut Vec<u8>,
    first: bool,
}

impl Row<'_> {
    fn new(buf: &mut Vec<u8>) -> Row<'_> {
        Row { buf, first: true }
    }

    fn sep(&mut self) {
        if !self.first {
            self.buf.push(b'\t');
        }
        self.first = false;
    }

    /// A field that is already in COPY's text form (numbers, array literals of numbers).
    fn raw(&mut self, s: &str) -> &mut Self {
        self.sep();
        self.buf.extend_from_slice(s.as_bytes());
        self
    }

    fn text(&mut self, s: &str) -> &mut Self {
        self.sep();
        escape_into(self.buf, s);
        self
    }

    fn opt_text(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            Some(s) => self.text(s),
            None => self.null(),
        }
    }

    fn int(&mut self, n: i64) -> &mut Self {
        self.raw(&n.to_string())
    }

    fn opt_int(&mut self, n: Option<i64>) -> &mut Self {
        match n {
            Some(n) => self.int(n),
            None => self.null(),
        }
    }

    fn bool(&mut self, b: bool) -> &mut Self {
        self.raw(if b { "t" } else { "f" })
    }

    fn time(&mut self, t: Option<chrono::DateTime<chrono::Utc>>) -> &mut Self {
        match t {
            Some(t) => self.raw(&t.to_rfc3339()),
            None => self.null(),
        }
    }

    fn null(&mut self) -> &mut Self {
        self.sep();
        self.buf.extend_from_slice(b"\\N");
        self
    }

    /// An array of text, as `{"a","b"}`.
    fn text_array<'s>(&mut self, items: impl IntoIterator<Item = &'s str>) -> &mut Self {
        let mut lit = String::from("{");
        for (i, s) in items.into_iter().enumerate() {
            if i > 0 {
                lit.push(',');
            }
            lit.push('"');
            for c in s.chars() {
                match c {
                    '"' | '\\' => {
                        lit.push('\\');
                        lit.push(c);
                    }
                    '\0' => lit.push('\u{fffd}'),
                    c => lit.push(c),
                }
            }
            lit.push('"');
        }
        lit.push('}');
        self.text(&lit)
    }

    fn end(&mut self) {
        self.buf.push(b'\n');
        self.first = true;
    }
}

/// `s` escaped for COPY's text format (backslash, tab, newline, carriage return; NUL
/// becomes U+FFFD).
fn escape_into(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'\\' => b"\\\\",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            0 => "\u{fffd}".as_bytes(),
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(esc);
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// The tsvector of a message's search text, as a literal: the lexemes debrief's
/// tokenizer makes of [`index_text`], with positions (1-based, at most 16383, at most
/// 256 per lexeme: PostgreSQL's limits).
pub fn tsvector_literal(m: &Message, tok: &mut CodeTokenizer, text: &mut String) -> String {
    text.clear();
    index_text(m, text);
    let mut lexemes: BTreeMap<String, Vec<u16>> = BTreeMap::new();
    let mut stream = tok.token_stream(text);
    while stream.advance() {
        let t = stream.token();
        let pos = (t.position + 1).min(16383) as u16;
        let e = lexemes.entry(t.text.clone()).or_default();
        if e.len() < 256 && e.last() != Some(&pos) {
            e.push(pos);
        }
    }
    let mut out = String::with_capacity(text.len());
    for (lex, positions) in &lexemes {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push('\'');
        for c in lex.chars() {
            match c {
                '\'' => out.push_str("''"),
                '\\' => out.push_str("\\\\"),
                c => out.push(c),
            }
        }
        out.push_str("':");
        for (i, p) in positions.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&p.to_string());
        }
    }
    out
}

fn message_row(
    buf: &mut Vec<u8>,
    machine: &str,
    skey: i64,
    m: &Message,
    detectors: &[&str],
    tok: &mut CodeTokenizer,
    text: &mut String,
) {
    let failed =
        m.calls.iter().any(|c| c.result.as_ref().is_some_and(|r| r.is_error || r.exit_code.is_some_and(|x| x != 0)));
    let facets = crate::analysis::facets(m);
    let origin = serde_json::to_value(m.origin).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let tsv = tsvector_literal(m, tok, text);
    let mut row = Row::new(buf);
    row.text(machine).int(skey).int(i64::from(m.idx)).text(m.role.as_str()).text(&origin).time(m.timestamp);
    row.text(&m.text).text(&m.thinking);
    row.opt_int(m.line.map(i64::from)).opt_int(m.end_line.map(i64::from)).bool(m.sidechain).bool(failed);
    row.text_array(facets.tools.iter().map(String::as_str));
    row.text_array(facets.programs.iter().map(String::as_str));
    row.text_array(facets.files.iter().map(String::as_str));
    row.text_array(detectors.iter().copied());
    row.text(&tsv);
    row.end();
}

fn call_row(buf: &mut Vec<u8>, machine: &str, skey: i64, idx: u32, n: usize, c: &crate::model::Call) -> Result<()> {
    let mut row = Row::new(buf);
    row.text(machine).int(skey).int(i64::from(idx)).int(n as i64).text(&c.id).text(&c.name);
    row.text(&serde_json::to_string(&clean_json(c.input.clone()))?);
    row.opt_text(c.command.as_deref()).opt_text(c.continues.as_deref());
    let r = c.result.as_ref();
    row.bool(r.is_some());
    match r {
        Some(r) => {
            let (h, t) = head_tail(&r.output, OUTPUT_HEAD, OUTPUT_TAIL);
            let trimmed = if t.is_empty() { h.to_string() } else { format!("{h}\n…\n{t}") };
            row.text(&trimmed).int(r.output.len() as i64);
            row.opt_int(r.exit_code.map(i64::from)).bool(r.is_error).bool(r.interrupted).bool(r.timed_out);
            row.bool(r.running).time(r.timestamp).opt_int(r.line.map(i64::from));
        }
        None => {
            row.null().null().null().null().null().null().null().null().null();
        }
    }
    row.end();
    Ok(())
}
