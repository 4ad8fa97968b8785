//! The team store's tables, versioned: `debrief_schema` holds one row per migration
//! applied. `push` applies the ones the database lacks (under an advisory lock, so two
//! first pushes do not race to create the tables), each in its own transaction; a
//! database with a newer version than this debrief knows is refused, by `push` and by
//! the readers alike, with advice to upgrade.
//!
//! Keys: a machine is a random id made once per index folder (`machine-id` there), so
//! two machines never write the same rows; a session is (machine, its index key), the
//! index key being a stable hash of its source path and place in the file.
//!
//! Search: `messages.tsv` holds the lexemes of debrief's own tokenizer
//! ([`crate::index::tokenizer`]), made on the pushing machine and stored as a literal
//! tsvector: identifiers, paths and error codes are whole lexemes (`nccl_max_nchannels`,
//! `logs/exp.log` as its words, `e1102`) plus their parts, exactly as the local index
//! has them, so a team search matches what a local one does. No text search
//! configuration of the server's takes part (its parsers split `NCCL_MAX_NCHANNELS` and
//! drop `::`), and none needs to be installed.

use anyhow::Result;

use super::TeamUrl;

/// The newest schema version this debrief knows.
pub const VERSION: i32 = 1;

/// Key of the advisory lock migrations run under.
const MIGRATION_LOCK: i64 = 0x6465_6272_6965_6601;

/// Migration `n` brings the schema from version `n - 1` to `n`.
const MIGRATIONS: &[(i32, &str)] = &[(1, V1)];

const V1: &str = r#"
CREATE TABLE machines (
    id text PRIMARY KEY,
    name text NOT NULL,
    first_push timestamptz NOT NULL DEFAULT now(),
    last_push timestamptz NOT NULL DEFAULT now(),
    client text NOT NULL
);
-- The redaction rules that ran on the pushing machine, by a hash of their ids.
CREATE TABLE redaction_rulesets (
    id text PRIMARY KEY,
    redacted boolean NOT NULL,
    rules text[] NOT NULL
);
CREATE TABLE sessions (
    machine text NOT NULL REFERENCES machines (id),
    skey bigint NOT NULL,
    id text NOT NULL,
    format text NOT NULL,
    agent text NOT NULL,
    project text,
    cwd text,
    title text,
    model text,
    started timestamptz,
    ended timestamptz,
    messages integer NOT NULL,
    source text NOT NULL,
    ordinal integer NOT NULL,
    meta jsonb NOT NULL,
    stats jsonb NOT NULL,
    fingerprint text NOT NULL,
    redaction text NOT NULL REFERENCES redaction_rulesets (id),
    -- The session's own redactor added its user and host names to the ruleset's rules.
    redacted_names integer NOT NULL,
    bytes bigint NOT NULL,
    pushed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (machine, skey)
);
CREATE INDEX sessions_started ON sessions (started DESC NULLS LAST);
CREATE INDEX sessions_id ON sessions (id text_pattern_ops);
CREATE TABLE messages (
    machine text NOT NULL,
    skey bigint NOT NULL,
    idx integer NOT NULL,
    role text NOT NULL,
    origin text NOT NULL,
    ts timestamptz,
    text text NOT NULL,
    thinking text NOT NULL,
    line integer,
    end_line integer,
    sidechain boolean NOT NULL,
    error boolean NOT NULL,
    tools text[] NOT NULL,
    programs text[] NOT NULL,
    files text[] NOT NULL,
    detectors text[] NOT NULL,
    tsv tsvector NOT NULL,
    PRIMARY KEY (machine, skey, idx)
);
CREATE INDEX messages_tsv ON messages USING gin (tsv);
CREATE INDEX messages_ts ON messages (ts);
-- Outputs trimmed to their first 8 KB and last 4 KB (what search indexes); `output_bytes`
-- is the whole output's length.
CREATE TABLE calls (
    machine text NOT NULL,
    skey bigint NOT NULL,
    idx integer NOT NULL,
    n integer NOT NULL,
    call_id text NOT NULL,
    name text NOT NULL,
    input jsonb NOT NULL,
    command text,
    continues text,
    has_result boolean NOT NULL,
    output text,
    output_bytes bigint,
    exit_code integer,
    is_error boolean,
    interrupted boolean,
    timed_out boolean,
    running boolean,
    ts timestamptz,
    line integer,
    PRIMARY KEY (machine, skey, idx, n)
);
CREATE TABLE findings (
    machine text NOT NULL,
    skey bigint NOT NULL,
    n integer NOT NULL,
    detector text NOT NULL,
    key integer NOT NULL,
    evidence integer[] NOT NULL,
    summary text NOT NULL,
    command text,
    details jsonb,
    PRIMARY KEY (machine, skey, n)
);
CREATE INDEX findings_detector ON findings (detector);
"#;

/// The schema version of the database: 0 when it has no debrief tables.
pub fn version(url: &TeamUrl, db: &mut postgres::Client) -> Result<i32> {
    let row = db
        .query_one("SELECT to_regclass('debrief_schema') IS NOT NULL", &[])
        .map_err(|e| url.error("reading the schema version", e))?;
    if !row.get::<_, bool>(0) {
        return Ok(0);
    }
    let row = db
        .query_one("SELECT coalesce(max(version), 0) FROM debrief_schema", &[])
        .map_err(|e| url.error("reading the schema version", e))?;
    Ok(row.get(0))
}

/// Refuse a database whose schema is newer than this debrief's.
fn check_not_newer(url: &TeamUrl, found: i32) -> Result<()> {
    if found > VERSION {
        anyhow::bail!(
            "the team database {} has schema version {found}, newer than this debrief knows ({VERSION}): upgrade debrief (it was pushed to by a newer one)",
            url.shown()
        );
    }
    Ok(())
}

/// For the readers: the schema must be this debrief's.
pub fn check(url: &TeamUrl, db: &mut postgres::Client) -> Result<()> {
    let found = version(url, db)?;
    check_not_newer(url, found)?;
    if found == 0 {
        anyhow::bail!(
            "the team database {} has no debrief tables yet: `debrief push --to …` creates them",
            url.shown()
        );
    }
    if found < VERSION {
        anyhow::bail!(
            "the team database {} has schema version {found}, older than this debrief's ({VERSION}): a `debrief push` with this version upgrades it",
            url.shown()
        );
    }
    Ok(())
}

/// For `push`: apply the migrations the database lacks. Returns the versions applied.
pub fn migrate(url: &TeamUrl, db: &mut postgres::Client) -> Result<Vec<i32>> {
    // Cheap check first, without the lock: a newer schema is refused at once.
    check_not_newer(url, version(url, db)?)?;
    db.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK]).map_err(|e| url.error("locking for migration", e))?;
    let result = migrate_locked(url, db);
    let _ = db.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]);
    result
}

fn migrate_locked(url: &TeamUrl, db: &mut postgres::Client) -> Result<Vec<i32>> {
    let found = version(url, db)?;
    check_not_newer(url, found)?;
    let mut applied = Vec::new();
    for (n, sql) in MIGRATIONS.iter().filter(|(n, _)| *n > found) {
        let mut tx = db.transaction().map_err(|e| url.error("starting a migration", e))?;
        if *n == 1 {
            tx.batch_execute(
                "CREATE TABLE debrief_schema (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now(), client text NOT NULL)",
            )
            .map_err(|e| url.error("creating the schema table", e))?;
        }
        tx.batch_execute(sql).map_err(|e| url.error(&format!("applying migration {n}"), e))?;
        tx.execute(
            "INSERT INTO debrief_schema (version, client) VALUES ($1, $2)",
            &[n, &concat!("debrief ", env!("CARGO_PKG_VERSION"))],
        )
        .map_err(|e| url.error("recording the migration", e))?;
        tx.commit().map_err(|e| url.error(&format!("committing migration {n}"), e))?;
        applied.push(*n);
    }
    Ok(applied)
}
