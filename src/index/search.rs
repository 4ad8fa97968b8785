//! Search: a small query language, filters, BM25 ranking, and snippets cut from the
//! source file at search time.
//!
//! Query language: words are ANDed; `"a phrase"` matches words in sequence; a term
//! written with punctuation (`foo::bar`, `logs/exp.log`, `NCCL_ALGO=Tree`) is the
//! phrase of its words; `-word` excludes. Matching is case-insensitive; identifiers
//! match whole or by part (see [`super::tokenizer`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Bound;
use std::path::PathBuf;

use anyhow::Result;
use chrono::{DateTime, Utc};
use tantivy::collector::TopDocs;
use tantivy::query::{
    AllQuery, BooleanQuery, Occur, PhraseQuery, Query, RangeQuery, RegexQuery, TermQuery, TermSetQuery,
};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, Searcher, TantivyDocument, Term};

use super::IndexDir;
use super::schema::{Fields, KIND_MESSAGE, KIND_SESSION};
use super::schema::{SessionRecord, record_of};
use super::tokenizer::{next_word, query_words, word_parts};
use crate::formats;
use crate::model::{Message, Role};
use crate::redact::Redactor;

/// Restrictions on which messages match.
#[derive(Debug, Default, Clone)]
pub struct Filters {
    pub agent: Option<String>,
    pub project: Option<String>,
    /// Session id or a prefix of it.
    pub session: Option<String>,
    pub role: Option<Role>,
    pub tool: Option<String>,
    pub program: Option<String>,
    pub file: Option<String>,
    pub detector: Option<String>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// Only messages with a failed call.
    pub errors: bool,
    /// Only messages that are the key of a finding (of any detector).
    pub findings: bool,
    /// Only messages whose match is in this part of the message (`search --in`).
    pub part: Option<Part>,
}

/// A part of a message a search can be limited to (`search --in`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Part {
    /// What the user or the assistant wrote, and the assistant's reasoning.
    Text,
    /// The commands and inputs of tool calls (with the tool's name).
    Command,
    /// What the tools printed.
    Output,
}

impl Part {
    /// Whether `clauses` (every one, or with `any` at least one) are in this part of `m`;
    /// with no clause, whether the part has any text.
    fn holds(self, m: &Message, clauses: &[Vec<String>], any: bool) -> bool {
        let texts: Vec<Cow<str>> = message_parts(m).into_iter().filter(|p| p.0 == self).map(|p| p.1).collect();
        if clauses.is_empty() {
            return texts.iter().any(|t| !t.trim().is_empty());
        }
        let found = |c: &Vec<String>| texts.iter().any(|t| clause_in(t, c));
        if any { clauses.iter().any(found) } else { clauses.iter().all(found) }
    }
}

/// Whether the words of `clause` are in `text` one after another, as the index matches
/// them (each word whole or by one of its parts).
fn clause_in(text: &str, clause: &[String]) -> bool {
    let mut words: Vec<&str> = Vec::new();
    let mut from = 0;
    while let Some((s, e)) = next_word(text, from) {
        from = e;
        words.push(&text[s..e]);
    }
    let one = |w: &str, q: &String| word_matches(w, std::slice::from_ref(q));
    (0..words.len())
        .any(|i| clause.len() <= words.len() - i && clause.iter().enumerate().all(|(j, q)| one(words[i + j], q)))
}

/// One search result.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Hit {
    pub source: PathBuf,
    pub session: String,
    pub agent: String,
    pub project: Option<String>,
    pub idx: u32,
    pub line: Option<u32>,
    pub role: String,
    pub timestamp: Option<DateTime<Utc>>,
    pub score: f32,
    pub snippet: Snippet,
    pub detectors: Vec<String>,
    /// The findings keyed on this message, as the index holds them (redacted with the
    /// snippet).
    pub findings: Vec<crate::detect::Finding>,
    /// The rankings that found this hit (more than one in a hybrid search).
    pub found_by: Vec<Ranking>,
}

/// A ranking that finds hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ranking {
    /// Every word of the query (BM25), or the filters alone.
    Keyword,
    /// Any word of the query, stop words dropped (BM25): what keyword search falls back
    /// to when no message has every word.
    AnyWord,
    /// Closeness in meaning (cosine of the embedded model's vectors).
    Semantic,
}

/// How a search ranks messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Words (BM25), with the any-word fallback.
    #[default]
    Keyword,
    /// Meaning only.
    Semantic,
    /// Both, fused by reciprocal rank.
    Hybrid,
}

impl Ranking {
    pub fn as_str(self) -> &'static str {
        match self {
            Ranking::Keyword => "keyword",
            Ranking::AnyWord => "any-word",
            Ranking::Semantic => "semantic",
        }
    }
}

/// The order of hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Best match first (BM25); equal scores by source, then message.
    Relevance,
    /// Most recent message first.
    Newest,
}

/// A piece of a message around the matches, with byte ranges to highlight.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Snippet {
    pub text: String,
    pub highlights: Vec<(usize, usize)>,
    /// Source line of the part the snippet comes from (a call's result line when the
    /// match is in its output).
    pub line: Option<u32>,
}

/// A parsed user query.
#[derive(Debug, Default)]
pub struct ParsedQuery {
    /// Each clause is a sequence of words (one word, or a phrase).
    pub must: Vec<Vec<String>>,
    pub must_not: Vec<Vec<String>>,
}

impl ParsedQuery {
    /// No word to match or exclude (the query was empty or punctuation only).
    pub fn is_empty(&self) -> bool {
        self.must.is_empty() && self.must_not.is_empty()
    }

    /// All the words the user is looking for (for highlighting).
    pub fn words(&self) -> Vec<String> {
        let mut w: Vec<String> = self.must.iter().flatten().cloned().collect();
        w.sort();
        w.dedup();
        w
    }

    /// The query for ranked any-word matching: each clause that is not a stop word (a
    /// phrase stays a phrase), none of them required; exclusions stay. `None` when
    /// nothing but stop words is left, or there was one clause only (any of one is
    /// every one).
    pub fn any_word(&self) -> Option<ParsedQuery> {
        let kept: Vec<Vec<String>> =
            self.must.iter().filter(|c| !(c.len() == 1 && is_stop_word(&c[0]))).cloned().collect();
        if kept.is_empty() || self.must.len() < 2 {
            return None;
        }
        Some(ParsedQuery { must: kept, must_not: self.must_not.clone() })
    }
}

/// Common English words that say nothing about which message is meant ("why did the
/// server not start": `server` and `start` are what to look for).
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before",
    "being", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "during", "each", "for", "from", "had",
    "has", "have", "having", "he", "her", "here", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "just", "me", "more", "most", "my", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our",
    "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was",
    "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you",
    "your",
];

pub fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.binary_search(&w).is_ok()
}

pub fn parse_query(q: &str) -> ParsedQuery {
    let mut out = ParsedQuery::default();
    let mut chars = q.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let negate = c == '-' && q[i + 1..].chars().next().is_some_and(|n| !n.is_whitespace());
        let start = if negate {
            chars.next();
            i + 1
        } else {
            i
        };
        let (text, _) = if q[start..].starts_with('"') {
            chars.next();
            let body_start = start + 1;
            let mut end = q.len();
            for (j, ch) in chars.by_ref() {
                if ch == '"' {
                    end = j;
                    break;
                }
            }
            (&q[body_start..end.max(body_start)], true)
        } else {
            let mut end = q.len();
            while let Some(&(j, ch)) = chars.peek() {
                if ch.is_whitespace() {
                    end = j;
                    break;
                }
                chars.next();
            }
            (&q[start..end], false)
        };
        let words = query_words(text);
        if words.is_empty() {
            continue;
        }
        if negate {
            out.must_not.push(words);
        } else {
            out.must.push(words);
        }
    }
    out
}

fn clause_query(f: &Fields, words: &[String]) -> Box<dyn Query> {
    if words.len() == 1 {
        Box::new(TermQuery::new(Term::from_field_text(f.text, &words[0]), IndexRecordOption::WithFreqs))
    } else {
        Box::new(PhraseQuery::new(words.iter().map(|w| Term::from_field_text(f.text, w)).collect()))
    }
}

fn term(field: tantivy::schema::Field, value: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(Term::from_field_text(field, value), IndexRecordOption::Basic))
}

/// Resolve `--agent` to format ids: an exact id, or every id it is a prefix of.
pub fn agent_ids(agent: &str) -> Result<Vec<&'static str>> {
    let a = agent.to_lowercase();
    let ids: Vec<&'static str> =
        formats::all().iter().map(|f| f.id()).filter(|id| *id == a || id.starts_with(&a)).collect();
    if ids.is_empty() {
        let known: Vec<&str> = formats::all().iter().map(|f| f.id()).collect();
        crate::usage!("unknown agent `{agent}` (known: {})", known.join(", "));
    }
    Ok(ids)
}

/// Session keys matching the session-level filters; `None` when there are none.
fn session_keys(searcher: &Searcher, f: &Fields, filters: &Filters) -> Result<Option<Vec<u64>>> {
    if filters.agent.is_none() && filters.project.is_none() && filters.session.is_none() {
        return Ok(None);
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, term(f.kind, KIND_SESSION))];
    if let Some(a) = &filters.agent {
        let any: Vec<(Occur, Box<dyn Query>)> =
            agent_ids(a)?.into_iter().map(|id| (Occur::Should, term(f.agent, id))).collect();
        clauses.push((Occur::Must, Box::new(BooleanQuery::new(any))));
    }
    if let Some(p) = &filters.project {
        clauses.push((Occur::Must, term(f.project, &p.to_lowercase())));
    }
    if let Some(s) = &filters.session {
        let re = RegexQuery::from_pattern(&format!("{}.*", regex::escape(s)), f.sid)
            .map_err(|e| anyhow::anyhow!("bad --session value: {e}"))?;
        clauses.push((Occur::Must, Box::new(re)));
    }
    let q = BooleanQuery::new(clauses);
    // Read the keys from the fast field: loading every matching session's stored
    // document took milliseconds on archives of a few hundred sessions.
    let keys = searcher.search(&q, &SessionKeys)?;
    Ok(Some(keys))
}

/// Collects the `skey` fast-field value of every matching document.
struct SessionKeys;

impl tantivy::collector::Collector for SessionKeys {
    type Fruit = Vec<u64>;
    type Child = SessionKeysOfSegment;

    fn for_segment(&self, _ord: u32, segment: &tantivy::SegmentReader) -> tantivy::Result<SessionKeysOfSegment> {
        Ok(SessionKeysOfSegment { column: segment.fast_fields().u64("skey")?, keys: Vec::new() })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Vec<u64>>) -> tantivy::Result<Vec<u64>> {
        Ok(fruits.concat())
    }
}

struct SessionKeysOfSegment {
    column: tantivy::columnar::Column<u64>,
    keys: Vec<u64>,
}

impl tantivy::collector::SegmentCollector for SessionKeysOfSegment {
    type Fruit = Vec<u64>;

    fn collect(&mut self, doc: tantivy::DocId, _score: tantivy::Score) {
        self.keys.extend(self.column.first(doc));
    }

    fn harvest(self) -> Vec<u64> {
        self.keys
    }
}

/// Build the whole query for messages: every clause of `query` required, or with
/// `any_word` at least one of them (ranked by BM25 over those that match).
pub fn build_query(
    searcher: &Searcher,
    f: &Fields,
    query: &ParsedQuery,
    filters: &Filters,
    any_word: bool,
) -> Result<Option<Box<dyn Query>>> {
    // Only message documents have text, so a text clause already selects messages; the
    // `kind` clause would make every search intersect with all messages.
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if query.must.is_empty() {
        clauses.push((Occur::Must, term(f.kind, KIND_MESSAGE)));
    }
    if any_word {
        let any: Vec<(Occur, Box<dyn Query>)> =
            query.must.iter().map(|w| (Occur::Should, clause_query(f, w))).collect();
        clauses.push((Occur::Must, Box::new(BooleanQuery::new(any))));
    } else {
        for words in &query.must {
            clauses.push((Occur::Must, clause_query(f, words)));
        }
    }
    for words in &query.must_not {
        clauses.push((Occur::MustNot, clause_query(f, words)));
    }
    if let Some(keys) = session_keys(searcher, f, filters)? {
        if keys.is_empty() {
            return Ok(None);
        }
        let terms = keys.into_iter().map(|k| Term::from_field_u64(f.skey, k));
        clauses.push((Occur::Must, Box::new(TermSetQuery::new(terms))));
    }
    if let Some(r) = filters.role {
        clauses.push((Occur::Must, term(f.role, r.as_str())));
    }
    if let Some(t) = &filters.tool {
        clauses.push((Occur::Must, term(f.tool, &t.to_lowercase())));
    }
    if let Some(p) = &filters.program {
        clauses.push((Occur::Must, term(f.program, p)));
    }
    if let Some(p) = &filters.file {
        clauses.push((Occur::Must, term(f.file, p)));
    }
    if let Some(d) = &filters.detector {
        clauses.push((Occur::Must, term(f.detector, d)));
    }
    if filters.findings {
        let any = RegexQuery::from_pattern(".+", f.detector).map_err(|e| anyhow::anyhow!("detector query: {e}"))?;
        clauses.push((Occur::Must, Box::new(any)));
    }
    if filters.errors {
        clauses
            .push((Occur::Must, Box::new(TermQuery::new(Term::from_field_u64(f.error, 1), IndexRecordOption::Basic))));
    }
    if filters.since.is_some() || filters.until.is_some() {
        let date =
            |t: &DateTime<Utc>| Term::from_field_date(f.time, tantivy::DateTime::from_timestamp_secs(t.timestamp()));
        let lo = filters.since.as_ref().map_or(Bound::Unbounded, |t| Bound::Included(date(t)));
        let hi = filters.until.as_ref().map_or(Bound::Unbounded, |t| Bound::Excluded(date(t)));
        clauses.push((Occur::Must, Box::new(RangeQuery::new(lo, hi))));
    }
    if clauses.len() == 1 {
        // One word alone: as a bare term query, tantivy skips whole blocks of postings
        // that cannot reach the top hits (block-max WAND) instead of scoring every match.
        if !query.must.is_empty()
            && !any_word
            && let Some((_, q)) = clauses.pop()
        {
            return Ok(Some(q));
        }
        clauses.push((Occur::Must, Box::new(AllQuery)));
    }
    Ok(Some(Box::new(BooleanQuery::new(clauses))))
}

impl Filters {
    /// Whether a filter asks about messages and their calls (rather than sessions).
    pub fn on_messages(&self) -> bool {
        self.role.is_some()
            || self.tool.is_some()
            || self.program.is_some()
            || self.file.is_some()
            || self.errors
            || self.findings
    }
}

/// The keys of the sessions with at least one message that the filters accept (all of
/// them: message-level and session-level).
pub fn sessions_with_messages(searcher: &Searcher, f: &Fields, filters: &Filters) -> Result<Vec<u64>> {
    let Some(q) = build_query(searcher, f, &ParsedQuery::default(), filters, false)? else { return Ok(Vec::new()) };
    let mut keys = searcher.search(&q, &SessionKeys)?;
    keys.sort_unstable();
    keys.dedup();
    Ok(keys)
}

/// Session records by key, loaded on demand.
pub struct SessionCache<'s> {
    searcher: &'s Searcher,
    f: Fields,
    map: HashMap<u64, Option<SessionRecord>>,
}

impl<'s> SessionCache<'s> {
    pub fn new(searcher: &'s Searcher, f: Fields) -> Self {
        SessionCache { searcher, f, map: HashMap::new() }
    }

    pub fn get(&mut self, skey: u64) -> Result<Option<&SessionRecord>> {
        if !self.map.contains_key(&skey) {
            let q = BooleanQuery::new(vec![
                (Occur::Must, term(self.f.kind, KIND_SESSION)),
                (
                    Occur::Must,
                    Box::new(TermQuery::new(Term::from_field_u64(self.f.skey, skey), IndexRecordOption::Basic)),
                ),
            ]);
            let hits = self.searcher.search(&q, &TopDocs::with_limit(1).order_by_score())?;
            let rec = match hits.first() {
                Some((_, addr)) => record_of(&self.searcher.doc::<TantivyDocument>(*addr)?, &self.f),
                None => None,
            };
            self.map.insert(skey, rec);
        }
        Ok(self.map.get(&skey).and_then(Option::as_ref))
    }
}

/// Session records matching the session-level filters, newest first.
pub fn sessions(ix: &IndexDir, filters: &Filters, limit: usize) -> Result<Vec<SessionRecord>> {
    let searcher = ix.searcher()?;
    let fl = ix.fields;
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(
        Occur::Must,
        Box::new(TermQuery::new(Term::from_field_text(fl.kind, KIND_SESSION), IndexRecordOption::Basic)),
    )];
    if let Some(d) = &filters.detector {
        clauses.push((
            Occur::Must,
            Box::new(TermQuery::new(Term::from_field_text(fl.detector, d), IndexRecordOption::Basic)),
        ));
    }
    // A filter on messages (--role, --tool, --program, --file, --errors): the sessions
    // with at least one message it accepts.
    let with_messages =
        if filters.on_messages() { Some(sessions_with_messages(&searcher, &fl, filters)?) } else { None };
    let q = BooleanQuery::new(clauses);
    let top = searcher.search(
        &q,
        &TopDocs::with_limit(1_000_000).order_by_fast_field::<tantivy::DateTime>("time", tantivy::Order::Desc),
    )?;
    let mut out = Vec::new();
    for (_, addr) in top {
        let doc: TantivyDocument = searcher.doc(addr)?;
        if let Some(keys) = &with_messages {
            let skey = doc.get_first(fl.skey).and_then(|v| tantivy::schema::Value::as_u64(&v));
            if skey.is_none_or(|k| keys.binary_search(&k).is_err()) {
                continue;
            }
        }
        let Some(rec) = record_of(&doc, &fl) else { continue };
        if !matches_filters(&rec, filters) {
            continue;
        }
        out.push(rec);
        if out.len() >= limit {
            break;
        }
    }
    Ok(out)
}

fn matches_filters(r: &SessionRecord, f: &Filters) -> bool {
    let m = &r.meta;
    f.agent.as_ref().is_none_or(|a| m.format.starts_with(&a.to_lowercase()))
        && f.project.as_ref().is_none_or(|p| m.project.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(p)))
        && f.session.as_ref().is_none_or(|s| m.id.starts_with(s.as_str()))
        && f.since.is_none_or(|t| m.ended.is_some_and(|e| e >= t))
        && f.until.is_none_or(|t| m.started.is_some_and(|s| s < t))
}

/// Run a search and return the best `limit` hits with snippets. With `redact` (the
/// user's extra patterns, maybe none), snippets and projects are redacted; `None`
/// shows them as the transcript has them.
pub fn search(
    ix: &IndexDir,
    query: &str,
    filters: &Filters,
    limit: usize,
    redact: Option<&[String]>,
) -> Result<Vec<Hit>> {
    search_page(ix, query, filters, Order::Relevance, 0, limit, redact)
}

/// [`search`] from the `offset`-th hit on, in `order`: the pages of a long result.
pub fn search_page(
    ix: &IndexDir,
    query: &str,
    filters: &Filters,
    order: Order,
    offset: usize,
    limit: usize,
    redact: Option<&[String]>,
) -> Result<Vec<Hit>> {
    let searcher = ix.searcher()?;
    let f = ix.fields;
    let (top, ranking, parsed) = top_in_part(&searcher, &f, &parse_query(query), filters, order, offset, limit)?;
    let top: Vec<(f32, DocAddress, Vec<Ranking>)> = top.into_iter().map(|(s, a)| (s, a, vec![ranking])).collect();
    let mut hits = make_hits(&searcher, &f, top, &parsed.words(), filters.part, redact)?;
    if order == Order::Relevance {
        sort_hits(&mut hits);
    }
    Ok(hits)
}

/// A search ranked by `mode`, from the `offset`-th hit on. Semantic and hybrid searches
/// need an index with embeddings.
pub fn search_mode(
    ix: &IndexDir,
    query: &str,
    filters: &Filters,
    mode: Mode,
    offset: usize,
    limit: usize,
    redact: Option<&[String]>,
) -> Result<Vec<Hit>> {
    if mode == Mode::Keyword || query.trim().is_empty() {
        return search_page(ix, query, filters, Order::Relevance, offset, limit, redact);
    }
    if filters.part.is_some() {
        crate::usage!(
            "--in looks for the words in one part of a message; it does not combine with --semantic or --hybrid"
        );
    }
    if !ix.embeddings {
        return Err(IndexNoEmbeddings { dir: ix.dir.clone() }.into());
    }
    let searcher = ix.searcher()?;
    let f = ix.fields;
    let parsed = parse_query(query);
    let words: Vec<String> = parsed.words().into_iter().filter(|w| !is_stop_word(w)).collect();
    // Ranked lists deep enough for the page and for fusion to matter.
    let depth = (offset + limit).max(FUSION_DEPTH);
    let semantic = semantic_top(&searcher, &f, query, &parsed, filters, depth)?;
    let fused: Vec<(f32, DocAddress, Vec<Ranking>)> = if mode == Mode::Semantic {
        semantic.into_iter().skip(offset).take(limit).map(|(s, a)| (s, a, vec![Ranking::Semantic])).collect()
    } else {
        let (keyword, ranking, _) = keyword_top(&searcher, &f, &parsed, filters, Order::Relevance, 0, depth)?;
        let mut by_doc: HashMap<DocAddress, (f32, Vec<Ranking>)> = HashMap::new();
        // Any-word matches are a weaker ranking than every-word ones: they count half.
        let keyword_weight = if ranking == Ranking::AnyWord { ANY_WORD_WEIGHT } else { 1.0 };
        for (list, r, weight) in [(&keyword, ranking, keyword_weight), (&semantic, Ranking::Semantic, 1.0)] {
            for (rank, (_, addr)) in list.iter().enumerate() {
                let e = by_doc.entry(*addr).or_insert((0.0, Vec::new()));
                e.0 += weight / (RRF_K + rank as f32 + 1.0);
                e.1.push(r);
            }
        }
        let mut all: Vec<(f32, DocAddress, Vec<Ranking>)> = by_doc.into_iter().map(|(a, (s, r))| (s, a, r)).collect();
        // Equal fused scores (the first of one ranking and the first of the other): the
        // every-word match first, so that an exact identifier's best hit stays on top.
        let by_words = |h: &(f32, DocAddress, Vec<Ranking>)| !h.2.contains(&Ranking::Keyword);
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| by_words(a).cmp(&by_words(b))).then_with(|| a.1.cmp(&b.1)));
        all.into_iter().skip(offset).take(limit).collect()
    };
    make_hits(&searcher, &f, fused, &words, None, redact)
}

/// The constant of reciprocal rank fusion (the usual 60): a hit's fused score is the sum
/// over rankings of 1 / (60 + its rank there).
const RRF_K: f32 = 60.0;
/// The weight of the any-word ranking in a fusion (every-word and semantic weigh 1).
const ANY_WORD_WEIGHT: f32 = 0.5;
/// How deep each ranking is read for fusion.
const FUSION_DEPTH: usize = 100;

/// A semantic query on an index built without embeddings.
#[derive(Debug, thiserror::Error)]
#[error(
    "the index in {} has no embeddings (it was built with --no-embeddings, or before debrief had them): \
     run `debrief index --rebuild` to add them, or search without --semantic/--hybrid",
    dir.display()
)]
pub struct IndexNoEmbeddings {
    pub dir: PathBuf,
}

/// Ranked documents, the ranking that found them, and the query it ran.
type KeywordTop = (Vec<(f32, DocAddress)>, Ranking, ParsedQuery);

/// The keyword ranking: every word, or when no message has every word (not merely none
/// on this page) any word; with the ranking used and the query it ran.
fn keyword_top(
    searcher: &Searcher,
    f: &Fields,
    parsed: &ParsedQuery,
    filters: &Filters,
    order: Order,
    offset: usize,
    limit: usize,
) -> Result<KeywordTop> {
    let every = ParsedQuery { must: parsed.must.clone(), must_not: parsed.must_not.clone() };
    let Some(q) = build_query(searcher, f, parsed, filters, false)? else {
        return Ok((Vec::new(), Ranking::Keyword, every));
    };
    let run = |q: &dyn Query| -> Result<Vec<(f32, DocAddress)>> {
        let top_docs = TopDocs::with_limit(limit.max(1)).and_offset(offset);
        Ok(match order {
            Order::Relevance => searcher.search(q, &top_docs.order_by_score())?,
            Order::Newest => searcher
                .search(q, &top_docs.order_by_fast_field::<tantivy::DateTime>("time", tantivy::Order::Desc))?
                .into_iter()
                .map(|(_, addr)| (0.0, addr))
                .collect(),
        })
    };
    let top = run(&*q)?;
    if top.is_empty()
        && order == Order::Relevance
        && let Some(any) = parsed.any_word()
        && (offset == 0 || searcher.search(&*q, &TopDocs::with_limit(1).order_by_score())?.is_empty())
        && let Some(q) = build_query(searcher, f, &any, filters, true)?
    {
        return Ok((run(&*q)?, Ranking::AnyWord, any));
    }
    Ok((top, Ranking::Keyword, every))
}

/// [`keyword_top`], of the messages whose match is in the filters' part when they name
/// one (`--in`): the index holds one text
/// per message, so candidates are read in ranked batches and each message is checked
/// where the words are. Slower than a plain search by how many candidates fail.
fn top_in_part(
    searcher: &Searcher,
    f: &Fields,
    parsed: &ParsedQuery,
    filters: &Filters,
    order: Order,
    offset: usize,
    limit: usize,
) -> Result<KeywordTop> {
    let Some(part) = filters.part else { return keyword_top(searcher, f, parsed, filters, order, offset, limit) };
    const BATCH: usize = 256;
    let mut cache = SessionCache::new(searcher, *f);
    let mut kept: Vec<(f32, DocAddress)> = Vec::new();
    let mut scanned = 0;
    let mut ranking = Ranking::Keyword;
    let mut ran = ParsedQuery::default();
    while kept.len() < offset + limit {
        let (batch, r, q) = keyword_top(searcher, f, parsed, filters, order, scanned, BATCH)?;
        (ranking, ran) = (r, q);
        if batch.is_empty() {
            break;
        }
        scanned += batch.len();
        for (score, addr) in batch {
            if let Some(m) = read_hit_message(searcher, f, &mut cache, addr)?
                && part.holds(&m, &ran.must, ranking == Ranking::AnyWord)
            {
                kept.push((score, addr));
            }
        }
        if scanned % BATCH != 0 {
            break;
        }
    }
    Ok((kept.into_iter().skip(offset).take(limit).collect(), ranking, ran))
}

/// The `depth` messages closest in meaning to `query` among those the filters (and the
/// query's exclusions) accept, best first.
fn semantic_top(
    searcher: &Searcher,
    f: &Fields,
    query: &str,
    parsed: &ParsedQuery,
    filters: &Filters,
    depth: usize,
) -> Result<Vec<(f32, DocAddress)>> {
    let Some(vector) = super::embed::Query::new(&super::embed::embed(query)?) else { return Ok(Vec::new()) };
    let only = ParsedQuery { must: Vec::new(), must_not: parsed.must_not.clone() };
    let Some(q) = build_query(searcher, f, &only, filters, false)? else { return Ok(Vec::new()) };
    let mut top = searcher.search(&*q, &Closest { query: vector, depth })?;
    top.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    top.truncate(depth);
    Ok(top)
}

/// Collects the `depth` documents whose stored vector is closest to `query`. A segment's
/// vectors are a dictionary-encoded bytes column: each distinct vector is scored once, in
/// the dictionary's order (a sequential read of the memory-mapped column), then each
/// matching document takes its vector's score.
struct Closest {
    query: super::embed::Query,
    depth: usize,
}

impl tantivy::collector::Collector for Closest {
    type Fruit = Vec<(f32, DocAddress)>;
    type Child = ClosestInSegment;

    fn for_segment(&self, ord: u32, segment: &tantivy::SegmentReader) -> tantivy::Result<ClosestInSegment> {
        let column = segment.fast_fields().bytes(super::schema::EMBEDDING)?;
        let mut scores = Vec::new();
        let mut ords = None;
        if let Some(col) = column {
            scores = vec![f32::NEG_INFINITY; col.num_terms()];
            let mut stream = col.dictionary().stream()?;
            while stream.advance() {
                let o = stream.term_ord() as usize;
                if o < scores.len() {
                    scores[o] = self.query.cosine(stream.key());
                }
            }
            ords = Some(col.ords().clone());
        }
        Ok(ClosestInSegment { segment: ord, ords, scores, depth: self.depth, top: Vec::new() })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Vec<(f32, DocAddress)>>) -> tantivy::Result<Vec<(f32, DocAddress)>> {
        Ok(fruits.concat())
    }
}

struct ClosestInSegment {
    segment: u32,
    ords: Option<tantivy::columnar::Column<u64>>,
    scores: Vec<f32>,
    depth: usize,
    top: Vec<(f32, DocAddress)>,
}

impl tantivy::collector::SegmentCollector for ClosestInSegment {
    type Fruit = Vec<(f32, DocAddress)>;

    fn collect(&mut self, doc: tantivy::DocId, _score: tantivy::Score) {
        let Some(ords) = &self.ords else { return };
        let Some(o) = ords.first(doc) else { return };
        let score = self.scores.get(o as usize).copied().unwrap_or(f32::NEG_INFINITY);
        if score.is_finite() {
            self.top.push((score, DocAddress::new(self.segment, doc)));
            if self.top.len() >= self.depth * 2 + 64 {
                self.shrink();
            }
        }
    }

    fn harvest(mut self) -> Vec<(f32, DocAddress)> {
        self.shrink();
        self.top
    }
}

impl ClosestInSegment {
    /// Keep the best `depth`.
    fn shrink(&mut self) {
        if self.top.len() > self.depth {
            self.top.select_nth_unstable_by(self.depth, |a, b| b.0.total_cmp(&a.0));
            self.top.truncate(self.depth);
        }
    }
}

/// Hits of ranked documents, in their order.
fn make_hits(
    searcher: &Searcher,
    f: &Fields,
    top: Vec<(f32, DocAddress, Vec<Ranking>)>,
    words: &[String],
    part: Option<Part>,
    redact: Option<&[String]>,
) -> Result<Vec<Hit>> {
    let mut cache = SessionCache::new(searcher, *f);
    // One redactor per session (its names are part of it), made when its first hit is.
    let mut redactors: HashMap<u64, Redactor> = HashMap::new();
    let mut hits = Vec::with_capacity(top.len());
    for (score, addr, found_by) in top {
        let redact = redact.map(|extra| (&mut redactors, extra));
        if let Some(mut hit) = make_hit(searcher, f, &mut cache, addr, score, words, part, redact)? {
            hit.found_by = found_by;
            hits.push(hit);
        }
    }
    Ok(hits)
}

/// Equal scores (e.g. filter-only searches) in a stable, readable order.
fn sort_hits(hits: &mut [Hit]) {
    hits.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.source.cmp(&b.source))
            .then_with(|| a.idx.cmp(&b.idx))
    });
}

/// The message a document stands for, read again from its source lines (`None` when the
/// source is gone or changed).
fn message_of(doc: &TantivyDocument, f: &Fields, meta: &crate::model::SessionMeta) -> Option<Message> {
    let u = |field| doc.get_first(field).and_then(|v| v.as_u64());
    let (offset, line, idx) = (u(f.offset)?, u(f.line)? as u32, u(f.idx).unwrap_or(0) as u32);
    let end_line = u(f.end_line).map_or(line, |l| l as u32);
    // The role tells apart two messages of one record (a prompt and the harness's text).
    let role = doc.get_first(f.role).and_then(|v| v.as_str()).and_then(Role::parse);
    let fmt = formats::by_id(&meta.format)?;
    formats::read_message(&meta.source, fmt, offset, line, end_line, idx, role).ok().flatten()
}

/// The message of the document at `addr`, read again from its source.
fn read_hit_message(
    searcher: &Searcher,
    f: &Fields,
    cache: &mut SessionCache,
    addr: DocAddress,
) -> Result<Option<Message>> {
    let doc: TantivyDocument = searcher.doc(addr)?;
    let Some(skey) = doc.get_first(f.skey).and_then(|v| v.as_u64()) else { return Ok(None) };
    let Some(rec) = cache.get(skey)? else { return Ok(None) };
    Ok(message_of(&doc, f, &rec.meta))
}

#[allow(clippy::too_many_arguments)]
fn make_hit(
    searcher: &Searcher,
    f: &Fields,
    cache: &mut SessionCache,
    addr: DocAddress,
    score: f32,
    words: &[String],
    part: Option<Part>,
    redact: Option<(&mut HashMap<u64, Redactor>, &[String])>,
) -> Result<Option<Hit>> {
    let doc: TantivyDocument = searcher.doc(addr)?;
    let u = |field| doc.get_first(field).and_then(|v| v.as_u64());
    let Some(skey) = u(f.skey) else { return Ok(None) };
    let idx = u(f.idx).unwrap_or(0) as u32;
    let line = u(f.line).map(|l| l as u32);
    let role = doc.get_first(f.role).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let preview = doc.get_first(f.preview).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let detectors: Vec<String> = doc.get_all(f.detector).filter_map(|v| v.as_str().map(str::to_string)).collect();
    let timestamp = doc
        .get_first(f.time)
        .and_then(|v| v.as_datetime())
        .and_then(|d| DateTime::<Utc>::from_timestamp(d.into_timestamp_secs(), 0));
    let Some(rec) = cache.get(skey)? else { return Ok(None) };
    let meta = &rec.meta;
    let message = message_of(&doc, f, meta);
    // Redact before cutting the snippet, so that highlights point into the text shown
    // and a match inside a secret cannot leave part of it in view.
    let redactor = match redact {
        Some((made, extra)) => Some(match made.entry(skey) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(Redactor::for_meta(meta, extra)?),
        }),
        None => None,
    };
    let redactor = redactor.map(|r| &*r);
    let snippet = match (message, redactor) {
        (Some(m), r) => make_snippet_in(&m, words, 220, part, r),
        (None, Some(r)) => highlight(&r.redact(&without_cut_word(&preview)), words, 220, line),
        (None, None) => highlight(&preview, words, 220, line),
    };
    // The project as the redacted metadata has it (named after the redacted folder).
    let project = match redactor {
        Some(r) => {
            let mut m = meta.clone();
            r.apply(&mut m);
            m.project
        }
        None => meta.project.clone(),
    };
    let mut findings: Vec<crate::detect::Finding> = rec.findings.iter().filter(|x| x.key == idx).cloned().collect();
    if let Some(r) = redactor {
        r.apply(&mut findings);
    }
    Ok(Some(Hit {
        source: meta.source.clone(),
        session: meta.id.clone(),
        agent: meta.format.clone(),
        project,
        idx,
        line,
        role,
        timestamp,
        score,
        snippet,
        detectors,
        findings,
        found_by: Vec::new(),
    }))
}

/// A preview the indexer cut (it ends in `…`) without the word it cut through: that
/// could be the first part of a secret, which no rule knows by its first part.
fn without_cut_word(preview: &str) -> Cow<'_, str> {
    match preview.strip_suffix('…').and_then(|p| p.rsplit_once(' ')) {
        Some((head, _)) => Cow::Owned(format!("{head} …")),
        None => Cow::Borrowed(preview),
    }
}

/// Whether a word of the text matches a query word, whole or by one of its parts.
fn word_matches(word: &str, query: &[String]) -> bool {
    let lower = word.to_lowercase();
    if query.contains(&lower) {
        return true;
    }
    word_parts(word).iter().any(|(s, e)| {
        let part = word[*s..*e].to_lowercase();
        query.contains(&part)
    })
}

/// The window of `text` around the densest cluster of matches.
fn highlight(text: &str, words: &[String], width: usize, line: Option<u32>) -> Snippet {
    highlight_cut(text, words, width, line, (false, false))
}

/// Where the query words are in `text`, and the start of the window of `width` bytes
/// that starts at a match and covers the most matches.
fn best_window(text: &str, words: &[String], width: usize) -> (Vec<(usize, usize)>, usize) {
    let mut matches = Vec::new();
    let mut from = 0;
    while let Some((s, e)) = next_word(text, from) {
        from = e;
        if word_matches(&text[s..e], words) {
            matches.push((s, e));
        }
    }
    let mut best = (0usize, 0usize);
    for (i, (s, _)) in matches.iter().enumerate() {
        let n = matches[i..].iter().take_while(|(_, e)| *e <= s + width).count();
        if n > best.1 {
            best = (*s, n);
        }
    }
    (matches, best.0)
}

/// Bytes redacted on each side of a snippet's window: more than any secret a rule
/// knows (a 4096-bit RSA key in PEM is about 3.2 KB), so a secret that reaches into
/// the window is redacted whole.
const REDACT_MARGIN: usize = 6 << 10;

/// The snippet of `text`, redacted. A long text is redacted only around the window
/// the snippet comes from (whole lines, `REDACT_MARGIN` on each side): redacting a
/// 400 KB log to show 220 bytes of it was most of a search's time.
fn highlight_redacted(text: &str, words: &[String], width: usize, line: Option<u32>, r: &Redactor) -> Snippet {
    if text.len() <= 4 * REDACT_MARGIN {
        return highlight(&r.redact(text), words, width, line);
    }
    let (_, at) = best_window(text, words, width);
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let ceil = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i += 1;
        }
        i
    };
    // Widen to whole lines where a line ends within another margin (a rule anchored at
    // a line start still sees it); a giant line is cut where the margin ends.
    let start = floor(at.saturating_sub(REDACT_MARGIN));
    let reach = floor(start.saturating_sub(REDACT_MARGIN));
    let start = text[reach..start].rfind('\n').map_or(start, |i| reach + i + 1);
    let end = ceil((at + width + REDACT_MARGIN).min(text.len()));
    let reach = ceil((end + REDACT_MARGIN).min(text.len()));
    let end = text[end..reach].find('\n').map_or(end, |i| end + i);
    let region = r.redact(&text[start..end]);
    highlight_cut(&region, words, width, line, (start > 0, end < text.len()))
}

/// [`highlight`] of a text that was cut out of a longer one (`cut`: before, after).
fn highlight_cut(text: &str, words: &[String], width: usize, line: Option<u32>, cut: (bool, bool)) -> Snippet {
    let (matches, best) = best_window(text, words, width);
    let mut start = best.saturating_sub(width / 4);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    // Start at a word boundary for readability.
    if start > 0
        && let Some(sp) = text[start..best.max(start)].find(char::is_whitespace)
    {
        start += sp + 1;
    }
    let mut end = (start + width).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let raw = &text[start..end];
    // Flatten whitespace, keeping highlight offsets right.
    let mut out = String::new();
    let mut hl = Vec::new();
    if start > 0 || cut.0 {
        out.push('…');
    }
    let mut last_space = false;
    let mut map = Vec::with_capacity(raw.len() + 1);
    for (i, ch) in raw.char_indices() {
        while map.len() <= i {
            map.push(out.len());
        }
        if ch.is_whitespace() {
            if !last_space {
                out.push(' ');
            }
            last_space = true;
        } else {
            out.push(ch);
            last_space = false;
        }
    }
    while map.len() <= raw.len() {
        map.push(out.len());
    }
    for (s, e) in matches {
        if s >= start && e <= end {
            hl.push((map[s - start], map[e - start]));
        }
    }
    if end < text.len() || cut.1 {
        out.push('…');
    }
    Snippet { text: out, highlights: hl, line }
}

/// The texts of a message in reading order, each with the part it belongs to and the
/// source line it comes from: its words, each call's command line (or, for a call
/// without one, such as an edit, the tool and its input) and output, then its reasoning.
/// What `--in` checks and what snippets are cut from.
fn message_parts(m: &Message) -> Vec<(Part, Cow<'_, str>, Option<u32>)> {
    let mut parts = Vec::new();
    if !m.text.is_empty() {
        parts.push((Part::Text, Cow::Borrowed(m.text.as_str()), m.line));
    }
    for c in &m.calls {
        match &c.command {
            Some(cmd) => parts.push((Part::Command, Cow::Owned(format!("$ {cmd}")), m.line)),
            None => {
                let mut s = String::new();
                super::writer::push_input_strings(&mut s, &c.input, super::writer::INPUT_BYTES);
                if !s.trim().is_empty() {
                    parts.push((Part::Command, Cow::Owned(format!("{}: {}", c.name, s.trim())), m.line));
                }
            }
        }
        if let Some(r) = &c.result
            && !r.output.is_empty()
        {
            parts.push((Part::Output, Cow::Borrowed(r.output.as_str()), r.line.or(m.line)));
        }
    }
    if !m.thinking.is_empty() {
        parts.push((Part::Text, Cow::Borrowed(m.thinking.as_str()), m.line));
    }
    parts
}

/// Snippet from the part of a message where the query words are, redacted with
/// `redactor` when there is one (before it is cut, so that highlights point into the
/// text shown and a match inside a secret cannot leave part of it in view).
pub fn make_snippet(m: &Message, words: &[String], width: usize, redactor: Option<&Redactor>) -> Snippet {
    make_snippet_in(m, words, width, None, redactor)
}

/// [`make_snippet`] from `part` of the message only, when given.
fn make_snippet_in(
    m: &Message,
    words: &[String],
    width: usize,
    part: Option<Part>,
    redactor: Option<&Redactor>,
) -> Snippet {
    let parts: Vec<(Cow<str>, Option<u32>)> = message_parts(m)
        .into_iter()
        .filter(|(p, _, _)| part.is_none_or(|w| w == *p))
        .map(|(_, text, line)| (text, line))
        .collect();
    if parts.is_empty() {
        return Snippet { line: m.line, ..Snippet::default() };
    }
    let score = |s: &Snippet| s.highlights.len();
    let mut best: Option<Snippet> = None;
    for (text, line) in &parts {
        let s = match redactor {
            Some(r) => highlight_redacted(text, words, width, *line, r),
            None => highlight(text, words, width, *line),
        };
        if best.as_ref().is_none_or(|b| score(&s) > score(b)) {
            best = Some(s);
        }
    }
    best.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_stop_word("why") && is_stop_word("the") && !is_stop_word("server"));
    }

    #[test]
    fn any_word_drops_stop_words_and_keeps_phrases_and_exclusions() {
        let q = parse_query("why did the \"vite server\" not start -docker");
        let any = q.any_word().expect("words are left");
        assert_eq!(any.must, vec![vec!["vite".to_string(), "server".to_string()], vec!["start".to_string()]]);
        assert_eq!(any.must_not, vec![vec!["docker".to_string()]]);
        // Stop words alone, and one clause alone, have no any-word form.
        assert!(parse_query("why did it not").any_word().is_none());
        assert!(parse_query("EADDRINUSE").any_word().is_none());
    }

    /// A long output is redacted only around the snippet's window, but a secret that
    /// reaches into the window is redacted whole: here a PEM key whose first line is
    /// 3 KB before the match, in a 100 KB log.
    #[test]
    fn long_outputs_are_redacted_around_the_snippet() {
        let body: String =
            (0..40).map(|i| format!("MIIEv{i:03}QIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n")).collect();
        let key = format!("-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----\n");
        let filler = "INFO step ok\n".repeat(4000);
        let text = format!("{filler}{key}quokka failed here\n{filler}");
        let words = vec!["quokka".to_string()];
        let s = highlight_redacted(&text, &words, 220, Some(1), Redactor::builtin());
        assert!(s.text.contains("[REDACTED:private-key") && !s.text.contains("-----END"), "{}", s.text);
        // The match is still highlighted where it is shown.
        let (a, b) = s.highlights[0];
        assert_eq!(&s.text[a..b], "quokka");
        // Without a redactor the key's END line would show.
        let plain = highlight(&text, &words, 220, Some(1)).text;
        assert!(plain.contains("-----END RSA PRIVATE KEY-----"), "{plain}");
    }
}
