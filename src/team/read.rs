//! Reading the team store: `search` and `sessions` with `--from postgres://…`, with the
//! local commands' filters and output shapes (plus the machine each session came from).
//!
//! A search's query is the local query language ([`parse_query`]) turned into a
//! tsquery of the same lexemes the pushing machine's tokenizer stored (see
//! [`super::schema`]): words ANDed, phrases as `<->` sequences, `-word` as `!`. Ranking
//! is PostgreSQL's `ts_rank`, not the local index's BM25, so the order of hits of equal
//! relevance to a person can differ; which messages match does not.

use anyhow::Result;
use postgres::types::ToSql;

use super::TeamUrl;
use crate::commands::Redaction;
use crate::detect::Finding;
use crate::index::schema::SessionRecord;
use crate::index::search::{Filters, Hit, agent_ids, make_snippet, parse_query};
use crate::model::{Call, Message, Role, SessionMeta};

/// An open connection to a team store whose schema this debrief reads.
pub struct Team {
    pub url: TeamUrl,
    db: postgres::Client,
}

impl Team {
    pub fn open(from: &str) -> Result<Team> {
        let url = TeamUrl::parse(from)?;
        let mut db = url.connect()?;
        super::schema::check(&url, &mut db)?;
        Ok(Team { url, db })
    }
}

/// A search hit of the team store, and the machine its session was pushed from.
pub struct TeamHit {
    pub hit: Hit,
    pub machine: String,
}

/// A session of the team store, and the machine it was pushed from.
pub struct TeamSession {
    pub record: SessionRecord,
    pub machine: String,
}

/// SQL parameters, numbered as they are added.
#[derive(Default)]
struct Params {
    values: Vec<Box<dyn ToSql + Sync>>,
}

impl Params {
    fn add(&mut self, v: impl ToSql + Sync + 'static) -> String {
        self.values.push(Box::new(v));
        format!("${}", self.values.len())
    }

    fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.values.iter().map(|b| b.as_ref() as &(dyn ToSql + Sync)).collect()
    }
}

/// A lexeme quoted for a tsquery literal.
fn lexeme(w: &str) -> String {
    format!("'{}'", w.replace('\\', "\\\\").replace('\'', "''"))
}

fn clause(words: &[String]) -> String {
    let parts: Vec<String> = words.iter().map(|w| lexeme(w)).collect();
    if parts.len() == 1 { parts[0].clone() } else { format!("({})", parts.join(" <-> ")) }
}

/// The tsquery literal of a query, `None` when it has no word.
pub fn tsquery(query: &str) -> Option<String> {
    let q = parse_query(query);
    let mut parts: Vec<String> = q.must.iter().map(|w| clause(w)).collect();
    parts.extend(q.must_not.iter().map(|w| format!("!{}", clause(w))));
    if parts.is_empty() { None } else { Some(parts.join(" & ")) }
}

/// `LIKE` pattern of a prefix.
fn prefix_pattern(p: &str) -> String {
    let mut out = String::new();
    for c in p.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// The message-level conditions of `filters` on the messages aliased `m`.
fn message_conditions(filters: &Filters, p: &mut Params, out: &mut Vec<String>) {
    if let Some(r) = filters.role {
        out.push(format!("m.role = {}", p.add(r.as_str().to_string())));
    }
    if let Some(t) = &filters.tool {
        out.push(format!("{} = ANY(m.tools)", p.add(t.to_lowercase())));
    }
    if let Some(x) = &filters.program {
        out.push(format!("{} = ANY(m.programs)", p.add(x.clone())));
    }
    if let Some(x) = &filters.file {
        out.push(format!("{} = ANY(m.files)", p.add(x.clone())));
    }
    if let Some(d) = &filters.detector {
        out.push(format!("{} = ANY(m.detectors)", p.add(d.clone())));
    }
    if filters.findings {
        out.push("cardinality(m.detectors) > 0".into());
    }
    if filters.errors {
        out.push("m.error".into());
    }
}

/// The JSON of a message's calls, in order, in the model's shape.
const CALLS_JSON: &str = "(SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', c.call_id, 'name', c.name, 'input', c.input, 'command', c.command, 'continues', c.continues,
        'result', CASE WHEN c.has_result THEN jsonb_build_object(
            'output', c.output, 'exit_code', c.exit_code, 'is_error', c.is_error, 'interrupted', c.interrupted,
            'timed_out', c.timed_out, 'running', c.running, 'timestamp', c.ts, 'line', c.line) END)
        ORDER BY c.n), '[]'::jsonb)
    FROM calls c WHERE c.machine = m.machine AND c.skey = m.skey AND c.idx = m.idx)";

/// The JSON of findings, in the model's shape, of the session `s` (and `extra` condition).
fn findings_json(extra: &str) -> String {
    format!(
        "(SELECT coalesce(jsonb_agg(jsonb_build_object(
            'detector', f.detector, 'key', f.key, 'evidence', to_jsonb(f.evidence), 'summary', f.summary,
            'command', f.command, 'details', f.details) ORDER BY f.n), '[]'::jsonb)
         FROM findings f WHERE f.machine = s.machine AND f.skey = s.skey {extra})"
    )
}

fn json<T: serde::de::DeserializeOwned>(v: serde_json::Value, what: &str) -> Result<T> {
    serde_json::from_value(v)
        .map_err(|e| anyhow::anyhow!("the team database holds a {what} this debrief cannot read: {e}"))
}

/// Search the team store: the best `limit` hits, snippets cut from the stored (redacted)
/// messages and redacted again with the reader's rules unless `--no-redact`.
pub fn search(
    team: &mut Team,
    query: &str,
    filters: &Filters,
    machine: Option<&str>,
    limit: usize,
    redaction: &Redaction,
) -> Result<Vec<TeamHit>> {
    let mut p = Params::default();
    let mut wh = Vec::new();
    let score = match tsquery(query) {
        Some(q) => {
            let q = p.add(q);
            wh.push(format!("m.tsv @@ {q}::text::tsquery"));
            format!("ts_rank(m.tsv, {q}::text::tsquery)")
        }
        None => "0::real".to_string(),
    };
    session_conditions(filters, machine, &mut p, &mut wh, false)?;
    message_conditions(filters, &mut p, &mut wh);
    if let Some(t) = filters.since {
        wh.push(format!("m.ts >= {}", p.add(t)));
    }
    if let Some(t) = filters.until {
        wh.push(format!("m.ts < {}", p.add(t)));
    }
    let limit_p = p.add(limit as i64);
    let sql = format!(
        "SELECT mc.name, s.source, s.meta, m.idx, m.line, m.role, m.ts, {score} AS score, m.detectors,
                m.text, m.thinking, m.end_line, {CALLS_JSON}, {findings}
         FROM messages m JOIN sessions s ON s.machine = m.machine AND s.skey = m.skey
              JOIN machines mc ON mc.id = m.machine
         WHERE {where_}
         ORDER BY score DESC, s.source, m.idx
         LIMIT {limit_p}",
        findings = findings_json("AND f.key = m.idx"),
        where_ = if wh.is_empty() { "true".to_string() } else { wh.join(" AND ") },
    );
    let rows = team.db.query(&sql, &p.refs()).map_err(|e| team.url.error("searching", e))?;
    let words = parse_query(query).words();
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let meta: SessionMeta = json(row.get::<_, serde_json::Value>(2), "session")?;
        let idx: i32 = row.get(3);
        let line: Option<i32> = row.get(4);
        let role: String = row.get(5);
        let m = Message {
            idx: idx as u32,
            role: Role::parse(&role).unwrap_or_default(),
            timestamp: row.get(6),
            text: row.get(9),
            thinking: row.get(10),
            calls: json::<Vec<Call>>(row.get(12), "call")?,
            line: line.map(|l| l as u32),
            end_line: row.get::<_, Option<i32>>(11).map(|l| l as u32),
            ..Message::default()
        };
        let mut findings: Vec<Finding> = json(row.get(13), "finding")?;
        let redactor = redaction.for_meta(&meta)?;
        let snippet = make_snippet(&m, &words, 220, redactor.as_ref());
        let mut shown = meta.clone();
        if let Some(r) = &redactor {
            r.apply(&mut shown);
            r.apply(&mut findings);
        }
        let source: String = row.get(1);
        out.push(TeamHit {
            machine: row.get(0),
            hit: Hit {
                source: source.into(),
                session: meta.id.clone(),
                agent: meta.format.clone(),
                project: shown.project,
                idx: m.idx,
                line: m.line,
                role,
                // To the second, as the local index keeps a message's time.
                timestamp: m.timestamp.and_then(|t| chrono::DateTime::from_timestamp(t.timestamp(), 0)),
                score: row.get::<_, f32>(7),
                snippet,
                detectors: row.get(8),
                findings,
                found_by: vec![crate::index::search::Ranking::Keyword],
            },
        });
    }
    Ok(out)
}

/// The session-level conditions on the sessions aliased `s` (and the machine). With
/// `times`, `--since`/`--until` too, as `sessions` applies them (a search applies them
/// to messages).
fn session_conditions(
    filters: &Filters,
    machine: Option<&str>,
    p: &mut Params,
    wh: &mut Vec<String>,
    times: bool,
) -> Result<()> {
    if let Some(a) = &filters.agent {
        let ids: Vec<String> = agent_ids(a)?.into_iter().map(str::to_string).collect();
        wh.push(format!("s.format = ANY({})", p.add(ids)));
    }
    if let Some(x) = &filters.project {
        wh.push(format!("lower(s.project) = {}", p.add(x.to_lowercase())));
    }
    if let Some(x) = &filters.session {
        wh.push(format!("s.id LIKE {}", p.add(prefix_pattern(x))));
    }
    if let Some(x) = machine {
        wh.push(format!("s.machine IN (SELECT id FROM machines WHERE name = {})", p.add(x.to_string())));
    }
    if times {
        if let Some(t) = filters.since {
            wh.push(format!("s.ended >= {}", p.add(t)));
        }
        if let Some(t) = filters.until {
            wh.push(format!("s.started < {}", p.add(t)));
        }
    }
    Ok(())
}

/// Sessions of the team store matching the filters, newest first, with their findings
/// (as stored: redacted on the pushing machine).
pub fn sessions(team: &mut Team, filters: &Filters, machine: Option<&str>, limit: usize) -> Result<Vec<TeamSession>> {
    let mut p = Params::default();
    let mut wh = Vec::new();
    session_conditions(filters, machine, &mut p, &mut wh, true)?;
    if let Some(d) = &filters.detector {
        wh.push(format!(
            "EXISTS (SELECT 1 FROM findings f WHERE f.machine = s.machine AND f.skey = s.skey AND f.detector = {})",
            p.add(d.clone())
        ));
    }
    if filters.on_messages() {
        let mut mw = vec!["m.machine = s.machine".to_string(), "m.skey = s.skey".to_string()];
        let only_messages = Filters { detector: None, ..filters.clone() };
        message_conditions(&only_messages, &mut p, &mut mw);
        wh.push(format!("EXISTS (SELECT 1 FROM messages m WHERE {})", mw.join(" AND ")));
    }
    let limit_p = p.add(limit.min(i64::MAX as usize) as i64);
    let sql = format!(
        "SELECT mc.name, s.meta, s.ordinal, s.stats, {findings}
         FROM sessions s JOIN machines mc ON mc.id = s.machine
         WHERE {where_}
         ORDER BY s.started DESC NULLS LAST, s.source, s.ordinal
         LIMIT {limit_p}",
        findings = findings_json(""),
        where_ = if wh.is_empty() { "true".to_string() } else { wh.join(" AND ") },
    );
    let rows = team.db.query(&sql, &p.refs()).map_err(|e| team.url.error("listing sessions", e))?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let record = SessionRecord {
            meta: json(row.get(1), "session")?,
            ordinal: row.get::<_, i32>(2) as usize,
            stats: json(row.get(3), "session")?,
            findings: json(row.get(4), "finding")?,
        };
        out.push(TeamSession { machine: row.get(0), record });
    }
    Ok(out)
}

/// The session of the team store whose id is `id` or starts with it (of `machine`, when
/// given), read whole: its messages in order, with their calls (outputs as they were
/// pushed: redacted, long ones trimmed to their head and tail), and the machine it came
/// from, and the findings the pushing machine found in it (over the whole transcript).
/// None: an error saying so; several: a usage error naming them.
pub fn session(team: &mut Team, id: &str, machine: Option<&str>) -> Result<TeamSessionRead> {
    let mut p = Params::default();
    let pattern = format!("{}%", id.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
    let mut wh = vec![format!("s.meta->>'id' LIKE {}", p.add(pattern))];
    if let Some(m) = machine {
        wh.push(format!("mc.name = {}", p.add(m.to_string())));
    }
    let sql = format!(
        "SELECT mc.name, s.machine, s.skey, s.meta, {} FROM sessions s JOIN machines mc ON mc.id = s.machine
         WHERE {} ORDER BY s.meta->>'id', mc.name LIMIT 6",
        findings_json(""),
        wh.join(" AND ")
    );
    let rows = team.db.query(&sql, &p.refs()).map_err(|e| team.url.error("finding the session", e))?;
    let exact: Vec<&postgres::Row> = rows
        .iter()
        .filter(|r| r.get::<_, serde_json::Value>(3).get("id").and_then(|v| v.as_str()) == Some(id))
        .collect();
    let row = match (rows.len(), exact.len()) {
        (0, _) => anyhow::bail!(
            "no session id starts with `{id}` in the team store{} (`sessions --from` lists them)",
            machine.map(|m| format!(" from machine {m}")).unwrap_or_default()
        ),
        (1, _) | (_, 1) => exact.first().copied().unwrap_or(&rows[0]),
        _ => {
            let named: Vec<String> = rows
                .iter()
                .map(|r| {
                    let id =
                        r.get::<_, serde_json::Value>(3).get("id").and_then(|v| v.as_str()).unwrap_or("").to_string();
                    format!("{id} (machine {})", r.get::<_, String>(0))
                })
                .collect();
            crate::usage!(
                "`{id}` names more than one session of the team store: {} (give more of the id, or --machine)",
                named.join(", ")
            )
        }
    };
    let machine_name: String = row.get(0);
    let (mid, skey): (String, i64) = (row.get(1), row.get(2));
    let meta: SessionMeta = json(row.get(3), "session")?;
    let findings: Vec<Finding> = json(row.get(4), "finding")?;
    read_whole(team, &mid, skey, meta, machine_name, findings)
}

/// Every session of the team store (of `machine`, when given), in the order of their
/// sources, each read whole as [`session`] reads one, handed to `each` one at a time
/// (a store is not held in memory).
pub fn each_session(
    team: &mut Team,
    machine: Option<&str>,
    mut each: impl FnMut(TeamSessionRead) -> Result<()>,
) -> Result<()> {
    let mut p = Params::default();
    let mut wh = Vec::new();
    session_conditions(&Filters::default(), machine, &mut p, &mut wh, false)?;
    let sql = format!(
        "SELECT mc.name, s.machine, s.skey, s.meta, {} FROM sessions s JOIN machines mc ON mc.id = s.machine
         WHERE {} ORDER BY s.source, s.ordinal, mc.name",
        findings_json(""),
        if wh.is_empty() { "true".to_string() } else { wh.join(" AND ") }
    );
    let rows = team.db.query(&sql, &p.refs()).map_err(|e| team.url.error("listing sessions", e))?;
    for row in rows {
        let meta: SessionMeta = json(row.get(3), "session")?;
        let findings: Vec<Finding> = json(row.get(4), "finding")?;
        each(read_whole(team, &row.get::<_, String>(1), row.get(2), meta, row.get(0), findings)?)?;
    }
    Ok(())
}

/// The messages of the session (`mid`, `skey`) of the team store, in order, with their calls.
fn read_whole(
    team: &mut Team,
    mid: &str,
    skey: i64,
    mut meta: SessionMeta,
    machine: String,
    findings: Vec<Finding>,
) -> Result<TeamSessionRead> {
    let sql = format!(
        "SELECT m.idx, m.role, m.origin, m.ts, m.text, m.thinking, m.line, m.end_line, m.sidechain, {CALLS_JSON}
         FROM messages m WHERE m.machine = $1 AND m.skey = $2 ORDER BY m.idx"
    );
    let rows = team.db.query(&sql, &[&mid, &skey]).map_err(|e| team.url.error("reading the session", e))?;
    let mut messages = Vec::with_capacity(rows.len());
    for row in rows {
        let role: String = row.get(1);
        let origin: String = row.get(2);
        messages.push(Message {
            idx: row.get::<_, i32>(0) as u32,
            role: Role::parse(&role).unwrap_or_default(),
            origin: serde_json::from_value(serde_json::Value::String(origin)).unwrap_or_default(),
            timestamp: row.get(3),
            text: row.get(4),
            thinking: row.get(5),
            line: row.get::<_, Option<i32>>(6).map(|l| l as u32),
            end_line: row.get::<_, Option<i32>>(7).map(|l| l as u32),
            sidechain: row.get(8),
            calls: json::<Vec<Call>>(row.get(9), "call")?,
            ..Message::default()
        });
    }
    meta.messages = messages.len() as u32;
    Ok(TeamSessionRead { session: crate::model::Session { meta, messages }, machine, findings })
}

/// A session of the team store read whole ([`session`]).
pub struct TeamSessionRead {
    pub session: crate::model::Session,
    pub machine: String,
    /// As the pushing machine found them, redacted there.
    pub findings: Vec<Finding>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_become_tsqueries_of_the_same_lexemes() {
        assert_eq!(tsquery("NCCL_MAX_NCHANNELS").as_deref(), Some("'nccl_max_nchannels'"));
        assert_eq!(tsquery("\"nccl error\" -warn").as_deref(), Some("('nccl' <-> 'error') & !'warn'"));
        assert_eq!(tsquery(":: --"), None);
    }
}
