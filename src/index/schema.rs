//! The tantivy schema: message documents (searched) and session documents (listed,
//! and used to filter messages by session attributes).
//!
//! Message documents index text but store only what a hit needs to be cited and
//! re-read from its source file (`idx`, `line`, `offset`, a short preview); snippets
//! are cut from the source at search time. That keeps the index small.

use tantivy::schema::{
    DateOptions, DateTimePrecision, FAST, Field, INDEXED, IndexRecordOption, NumericOptions, STORED, STRING, Schema,
    TextFieldIndexing, TextOptions,
};

use serde::{Deserialize, Serialize};
use tantivy::TantivyDocument;
use tantivy::schema::Value;

use super::tokenizer;
use crate::detect::{Finding, SessionStats};
use crate::model::SessionMeta;

/// Bump whenever the schema or what is indexed changes; an index with another version
/// is refused with advice to rebuild.
///
/// 2: the first detectors store findings (an unchanged file is never re-read, so an
/// older index would keep none for it), and the session stats count only assistant
/// messages with text.
/// 3: outputs are indexed as a terminal shows them (last `\r` redraw, giant lines
/// trimmed), their first 8 KB and last 4 KB, without harness reminders; call inputs by
/// their string values; an identifier's parts once per message; the file state in
/// `state/`.
pub const SCHEMA_VERSION: u32 = 3;

pub const KIND_MESSAGE: &str = "msg";
pub const KIND_SESSION: &str = "session";

#[derive(Clone, Copy)]
pub struct Fields {
    /// `msg` or `session`.
    pub kind: Field,
    /// Session key: stable hash of (source path, session ordinal in the file).
    pub skey: Field,
    /// File key: stable hash of the source path (delete everything of a file).
    pub fkey: Field,
    // Session documents.
    pub agent: Field,
    pub project: Field,
    pub sid: Field,
    pub record: Field,
    // Message documents.
    pub idx: Field,
    pub line: Field,
    pub end_line: Field,
    pub offset: Field,
    pub role: Field,
    pub time: Field,
    pub error: Field,
    pub tool: Field,
    pub program: Field,
    pub file: Field,
    pub detector: Field,
    pub preview: Field,
    pub text: Field,
    /// A message's vector (see [`super::embed`]); absent in indexes made before there
    /// were any.
    pub embedding: Option<Field>,
}

/// The fast field of message vectors.
pub const EMBEDDING: &str = "embedding";

impl Fields {
    pub fn from_schema(schema: &Schema) -> tantivy::Result<Fields> {
        let f = |name: &str| schema.get_field(name);
        Ok(Fields {
            kind: f("kind")?,
            skey: f("skey")?,
            fkey: f("fkey")?,
            agent: f("agent")?,
            project: f("project")?,
            sid: f("sid")?,
            record: f("record")?,
            idx: f("idx")?,
            line: f("line")?,
            end_line: f("end_line")?,
            offset: f("offset")?,
            role: f("role")?,
            time: f("time")?,
            error: f("error")?,
            tool: f("tool")?,
            program: f("program")?,
            file: f("file")?,
            detector: f("detector")?,
            preview: f("preview")?,
            text: f("text")?,
            embedding: f(EMBEDDING).ok(),
        })
    }
}

pub fn build() -> Schema {
    let mut b = Schema::builder();
    b.add_text_field("kind", STRING);
    let key = NumericOptions::default().set_indexed().set_fast().set_stored();
    b.add_u64_field("skey", key.clone());
    b.add_u64_field("fkey", INDEXED);
    b.add_text_field("agent", STRING);
    b.add_text_field("project", STRING);
    b.add_text_field("sid", STRING);
    b.add_text_field("record", STORED);
    b.add_u64_field("idx", key);
    b.add_u64_field("line", STORED);
    b.add_u64_field("end_line", STORED);
    b.add_u64_field("offset", STORED);
    b.add_text_field("role", STRING | STORED);
    b.add_date_field(
        "time",
        DateOptions::default().set_indexed().set_fast().set_stored().set_precision(DateTimePrecision::Seconds),
    );
    b.add_u64_field("error", INDEXED);
    b.add_text_field("tool", STRING);
    b.add_text_field("program", STRING);
    b.add_text_field("file", STRING);
    b.add_text_field("detector", STRING | STORED);
    b.add_text_field("preview", STORED);
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(tokenizer::NAME)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    b.add_text_field("text", text);
    b.add_bytes_field(EMBEDDING, FAST);
    b.build()
}

/// FNV-1a: a stable 64-bit hash for keys stored on disk (std's hasher may change).
pub fn stable_hash(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0xff;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        for &b in *p {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

pub fn file_key(source: &std::path::Path) -> u64 {
    stable_hash(&[source.as_os_str().as_encoded_bytes()])
}

pub fn session_key(source: &std::path::Path, ordinal: usize) -> u64 {
    stable_hash(&[source.as_os_str().as_encoded_bytes(), ordinal.to_string().as_bytes()])
}

/// What is stored with a session document.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SessionRecord {
    pub meta: SessionMeta,
    /// Position of the session in its file (0-based).
    pub ordinal: usize,
    pub stats: SessionStats,
    pub findings: Vec<Finding>,
}

/// The stored record of a session document.
pub fn record_of(doc: &TantivyDocument, f: &Fields) -> Option<SessionRecord> {
    let text = doc.get_first(f.record)?.as_str()?;
    serde_json::from_str(text).ok()
}
