//! The team store: a PostgreSQL database that several machines push their indexed
//! sessions to (`debrief push --to postgres://…`) and that the reading commands read
//! with `--from postgres://…` (see docs/team.md).
//!
//! What goes there is redacted on the pushing machine, by the same [`Redact`] impls as
//! every output, before it is serialized; the database never sees the transcript as
//! written (unless the user pushes with `--no-redact` and says they understand).
//!
//! [`Redact`]: crate::redact::Redact

pub mod push;
pub mod read;
pub mod schema;

use std::path::PathBuf;

use anyhow::{Context, Result};

/// The environment variable `push` reads the database URL from when `--to` is not given.
pub const URL_ENV: &str = "DEBRIEF_TEAM_URL";
/// A PEM file of the certificate authority that signed the server's certificate (for a
/// server with a private CA); also `sslrootcert=FILE` in the URL.
pub const CA_ENV: &str = "DEBRIEF_TEAM_CA";

/// A team database URL: what to connect with, and how to name it in messages (its
/// password replaced by `***`).
#[derive(Clone)]
pub struct TeamUrl {
    config: postgres::Config,
    shown: String,
    password: Option<String>,
    ca: Option<PathBuf>,
}

impl std::fmt::Debug for TeamUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl TeamUrl {
    /// Read a `postgres://` (or `postgresql://`) URL. Anything else is a usage error.
    pub fn parse(raw: &str) -> Result<TeamUrl> {
        let raw = raw.trim();
        let shown = redact_url(raw);
        if !(raw.starts_with("postgres://") || raw.starts_with("postgresql://")) {
            crate::usage!("`{shown}` is not a PostgreSQL URL (postgres://user@host:5432/db)");
        }
        // `sslrootcert` is ours, not the client library's.
        let (base, query) = raw.split_once('?').unwrap_or((raw, ""));
        let mut ca = None;
        let mut kept = Vec::new();
        for kv in query.split('&').filter(|kv| !kv.is_empty()) {
            match kv.split_once('=') {
                Some(("sslrootcert", v)) => ca = Some(PathBuf::from(v)),
                _ => kept.push(kv),
            }
        }
        let url = if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) };
        let config: postgres::Config = match url.parse() {
            Ok(c) => c,
            Err(e) => crate::usage!("`{shown}` is not a PostgreSQL URL: {}", scrub(&e.to_string(), None)),
        };
        let password = config.get_password().map(|p| String::from_utf8_lossy(p).into_owned());
        let ca = ca.or_else(|| std::env::var_os(CA_ENV).map(PathBuf::from));
        Ok(TeamUrl { config, shown, password, ca })
    }

    /// The URL as messages name it: no password.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// A message about this database with the password taken out, wherever it is.
    pub fn scrub(&self, text: &str) -> String {
        scrub(text, self.password.as_deref())
    }

    /// Connect (with TLS unless the URL says `sslmode=disable`; `sslmode=require`
    /// refuses a server without it, the default `prefer` falls back to plain).
    pub fn connect(&self) -> Result<postgres::Client> {
        let fail = |e: &postgres::Error| {
            anyhow::anyhow!("connecting to the team database {}: {}", self.shown, self.scrub(&detail(e)))
        };
        let client = match self.config.get_ssl_mode() {
            postgres::config::SslMode::Disable => self.config.connect(postgres::NoTls).map_err(|e| fail(&e))?,
            _ => {
                let mut b = native_tls::TlsConnector::builder();
                if let Some(ca) = &self.ca {
                    let pem = std::fs::read(ca).with_context(|| format!("reading the CA file {}", ca.display()))?;
                    let cert = native_tls::Certificate::from_pem(&pem)
                        .map_err(|e| anyhow::anyhow!("{}: not a PEM certificate: {e}", ca.display()))?;
                    b.add_root_certificate(cert);
                }
                let tls = b.build().map_err(|e| anyhow::anyhow!("setting up TLS: {e}"))?;
                self.config.connect(postgres_native_tls::MakeTlsConnector::new(tls)).map_err(|e| fail(&e))?
            }
        };
        Ok(client)
    }

    /// An error of a query on this database as one line, password taken out.
    pub fn error(&self, what: &str, e: postgres::Error) -> anyhow::Error {
        anyhow::anyhow!("{what} in the team database {}: {}", self.shown, self.scrub(&detail(&e)))
    }
}

/// What went wrong, in one line: the server's message, or the client's error and its
/// causes (the client's own Display says only "db error").
fn detail(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_string();
    }
    let mut out = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let c_text = c.to_string();
        if !out.contains(&c_text) {
            out.push_str(": ");
            out.push_str(&c_text);
        }
        cause = c.source();
    }
    out
}

/// `text` with `password` replaced by `***`, and any URL in it shown without its password.
fn scrub(text: &str, password: Option<&str>) -> String {
    let mut out = redact_url(text);
    if let Some(p) = password.filter(|p| !p.is_empty()) {
        out = out.replace(p, "***");
    }
    out
}

/// Replace the password of every `scheme://user:password@` in `text` with `***`, and the
/// value of a `password=` parameter.
pub fn redact_url(text: &str) -> String {
    static USERINFO: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)[^@\s]*@").expect("regex")
    });
    static PARAM: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"(?i)(?P<head>password=)[^&\s]*").expect("regex"));
    let once = USERINFO.replace_all(text, "${head}***@");
    PARAM.replace_all(&once, "${head}***").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        let u = TeamUrl::parse("postgres://ann:s3cr%40t-pw@db.example.com:5432/team?sslmode=require").unwrap();
        assert_eq!(u.shown(), "postgres://ann:***@db.example.com:5432/team?sslmode=require");
        assert_eq!(redact_url("postgresql://x@h/db"), "postgresql://x@h/db");
        assert_eq!(redact_url("host=h password=hunter22 user=x"), "host=h password=*** user=x");
        assert_eq!(u.scrub("auth failed for s3cr@t-pw"), "auth failed for ***");
        let e = TeamUrl::parse("mysql://ann:pw123456@h/db").unwrap_err().to_string();
        assert!(!e.contains("pw123456") && e.contains("not a PostgreSQL URL"), "{e}");
        let e = TeamUrl::parse("postgres://ann:pw123456@h:notaport/db").unwrap_err().to_string();
        assert!(!e.contains("pw123456"), "{e}");
    }

    #[test]
    fn sslrootcert_is_taken_out_of_the_url() {
        let u = TeamUrl::parse("postgres://ann@h/db?sslrootcert=/etc/ca.pem&sslmode=require").unwrap();
        assert_eq!(u.ca.as_deref(), Some(std::path::Path::new("/etc/ca.pem")));
        assert_eq!(u.config.get_ssl_mode(), postgres::config::SslMode::Require);
    }
}
