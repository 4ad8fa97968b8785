//! `debrief serve`: a local, read-only web UI over the index.
//!
//! Safety first, as a notebook server does it: the server listens on 127.0.0.1 unless
//! `--bind` names another address; it prints a URL with a random token, and a request
//! is served only with that token (in the query, which sets a cookie and redirects to
//! the same page without it, or in the cookie); it answers only to a `Host` that is
//! `localhost` or an IP address with its own port (a page of another site that a DNS
//! rebinding points at 127.0.0.1 is refused); every response carries a strict
//! Content-Security-Policy (no script but the server's own `/static/app.js`, styles from
//! the server itself, nothing from outside); and it has only `GET` routes.
//!
//! The pages ([`pages`]) are server-rendered HTML over the functions the CLI and `debrief
//! mcp` use (the index's sessions and search, a transcript parsed and kept by
//! [`crate::mcp::tools::Context`], the report's HTML), redacted unless `--no-redact`.
//! With `--watch` ([`watch`]) it keeps the index up to date as the agents write.

mod html;
mod pages;
mod watch;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use anyhow::{Context as _, Result};
use axum::Router;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::cli::{Cli, ServeArgs};
use crate::commands::{Redaction, index_dir};
use crate::mcp::tools::Context;

/// The policy of every page the UI makes: nothing loads from elsewhere, and the only
/// script is the server's own file (`/static/app.js`); inline scripts and event
/// attributes (`onerror=`), which a transcript could smuggle in, never run.
const CSP: &str = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; \
                   img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// What the handlers share.
pub struct App {
    pub cx: Context,
    token: String,
    port: u16,
    /// The cookie that carries the token (named by port: two servers on one host keep
    /// their own).
    cookie: String,
    /// Whether the page text is redacted (shown in the header of every page).
    pub redacted: bool,
}

pub fn run(cli: &Cli, args: &ServeArgs) -> Result<i32> {
    let redaction = Redaction::from_args(&args.redact)?;
    let redacted = redaction.extra().is_some();
    let listener = std::net::TcpListener::bind(SocketAddr::new(args.bind, args.port.unwrap_or(0)))
        .with_context(|| format!("cannot listen on {}", SocketAddr::new(args.bind, args.port.unwrap_or(0))))?;
    listener.set_nonblocking(true).context("setting up the socket")?;
    let port = listener.local_addr().context("the socket's address")?.port();
    let token = new_token()?;
    let app = Arc::new(App {
        cx: Context::new(index_dir(&cli.index), redaction),
        cookie: format!("debrief-{port}"),
        token,
        port,
        redacted,
    });
    let host = match args.bind {
        IpAddr::V4(a) if a.is_unspecified() => "127.0.0.1".to_string(),
        IpAddr::V6(a) if a.is_unspecified() => "[::1]".to_string(),
        IpAddr::V4(a) => a.to_string(),
        IpAddr::V6(a) => format!("[{a}]"),
    };
    if !args.bind.is_loopback() {
        eprintln!(
            "debrief serve: listening on {} (not only this machine): anyone who has the URL below can read the index",
            args.bind
        );
    }
    if let Some(paths) = &args.watch {
        watch::start(index_dir(&cli.index), paths)?;
    }
    // The URL on stdout, alone on its line (scripts read it); the rest on stderr.
    println!("http://{host}:{port}/?token={}", app.token);
    eprintln!(
        "debrief serve: open the URL above in a browser; read-only, {}; Ctrl-C stops it",
        if redacted { "redacted" } else { "NOT redacted (--no-redact)" }
    );
    // One thread for the connections; each page's work runs on tokio's blocking pool.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the server")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).context("setting up the socket")?;
        axum::serve(listener, router(app)).await.context("serving HTTP")?;
        Ok(0)
    })
}

fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(sessions))
        .route("/session/{id}", get(session))
        .route("/search", get(search))
        .route("/findings", get(findings))
        .route("/writeup/{id}", get(writeup))
        .route("/sources", get(sources))
        .route("/api/session/{id}", get(session_after))
        .route("/api/search", get(search_fragment))
        .route("/static/app.css", get(css))
        .route("/static/app.js", get(js))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&app), guard))
        .with_state(app)
}

type Params = Query<Vec<(String, String)>>;

async fn sessions(State(app): State<Arc<App>>, Query(q): Params) -> Response {
    blocking(app, move |app| pages::sessions(app, &q)).await
}

async fn session(State(app): State<Arc<App>>, Path(id): Path<String>, Query(q): Params) -> Response {
    blocking(app, move |app| pages::session(app, &id, &q)).await
}

async fn search(State(app): State<Arc<App>>, Query(q): Params) -> Response {
    blocking(app, move |app| pages::search(app, &q)).await
}

async fn session_after(State(app): State<Arc<App>>, Path(id): Path<String>, Query(q): Params) -> Response {
    blocking(app, move |app| pages::session_after(app, &id, &q)).await
}

async fn search_fragment(State(app): State<Arc<App>>, Query(q): Params) -> Response {
    blocking(app, move |app| pages::search_fragment(app, &q)).await
}

async fn findings(State(app): State<Arc<App>>, Query(q): Params) -> Response {
    blocking(app, move |app| pages::findings(app, &q)).await
}

async fn writeup(State(app): State<Arc<App>>, Path(id): Path<String>, Query(q): Params) -> Response {
    blocking(app, move |app| pages::writeup(app, &id, &q)).await
}

async fn sources(State(app): State<Arc<App>>) -> Response {
    blocking(app, pages::sources).await
}

async fn css() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], html::CSS).into_response()
}

async fn js() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], html::JS).into_response()
}

async fn not_found(State(app): State<Arc<App>>) -> Response {
    let body = html::page(&app, "Not found", "<h1>Not found</h1><p>No page here. <a href=\"/\">Sessions</a></p>");
    (StatusCode::NOT_FOUND, axum::response::Html(body)).into_response()
}

/// Run a page's work (blocking reads of the index and transcripts) off the server's
/// threads, and answer with its page or its error.
async fn blocking<F>(app: Arc<App>, work: F) -> Response
where
    F: FnOnce(&App) -> Result<pages::Reply> + Send + 'static,
{
    let app2 = Arc::clone(&app);
    match tokio::task::spawn_blocking(move || work(&app2)).await {
        Ok(Ok(reply)) => reply.into_response(),
        Ok(Err(e)) => {
            let status = if e.downcast_ref::<crate::UsageError>().is_some() {
                StatusCode::BAD_REQUEST
            } else if e.downcast_ref::<crate::commands::NoSuchSession>().is_some() {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::INTERNAL_SERVER_ERROR
            };
            let text = html::esc(&format!("{e:#}"));
            let body = html::page(&app, "Error", &format!("<h1>Cannot show this</h1><p class=\"error\">{text}</p>"));
            (status, axum::response::Html(body)).into_response()
        }
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("the page failed: {e}")).into_response(),
    }
}

/// Every request: the Host check, the token, and the headers every response carries.
async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let mut resp = if !host_allowed(req.headers(), app.port) {
        (StatusCode::FORBIDDEN, "debrief serve answers only to localhost or an IP address with its port\n")
            .into_response()
    } else {
        let given = query_token(req.uri().query());
        match given {
            Some(t) if same(&t, &app.token) => {
                // Keep the token in a cookie, and take it out of the address bar (and of
                // the history and of what is bookmarked).
                let rest = query_without_token(req.uri().query());
                let to =
                    format!("{}{}", req.uri().path(), if rest.is_empty() { String::new() } else { format!("?{rest}") });
                let cookie = format!("{}={}; Path=/; HttpOnly; SameSite=Strict", app.cookie, app.token);
                let mut r = (StatusCode::SEE_OTHER, [(header::LOCATION, to)]).into_response();
                if let Ok(v) = HeaderValue::from_str(&cookie) {
                    r.headers_mut().insert(header::SET_COOKIE, v);
                }
                r
            }
            Some(_) => unauthorized(),
            None if cookie_token(req.headers(), &app.cookie).is_some_and(|t| same(&t, &app.token)) => {
                next.run(req).await
            }
            None => unauthorized(),
        }
    };
    let h = resp.headers_mut();
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "debrief serve: open the URL it printed, with its ?token=…\n",
    )
        .into_response()
}

/// A `Host` the server answers to: `localhost` or an IP address (a name other than
/// localhost may be a rebinding attacker's), with the server's port.
fn host_allowed(headers: &HeaderMap, port: u16) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else { return false };
    let (name, p) = match host.rsplit_once(':') {
        Some((n, p)) if !p.contains(']') => (n, p),
        _ => return false,
    };
    if p.parse::<u16>().ok() != Some(port) {
        return false;
    }
    let name = name.to_ascii_lowercase();
    if name == "localhost" {
        return true;
    }
    let bare = name.strip_prefix('[').and_then(|n| n.strip_suffix(']'));
    match bare {
        Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
        None => name.parse::<std::net::Ipv4Addr>().is_ok(),
    }
}

fn query_token(query: Option<&str>) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query?).ok()?;
    pairs.into_iter().find(|(k, _)| k == "token").map(|(_, v)| v)
}

fn query_without_token(query: Option<&str>) -> String {
    let pairs: Vec<(String, String)> = query.and_then(|q| serde_urlencoded::from_str(q).ok()).unwrap_or_default();
    let kept: Vec<(String, String)> = pairs.into_iter().filter(|(k, _)| k != "token").collect();
    serde_urlencoded::to_string(kept).unwrap_or_default()
}

fn cookie_token(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// `a == b` in a time that does not tell how much of a guess was right.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 24 random bytes from the system, in hex.
fn new_token() -> Result<String> {
    let mut b = [0u8; 24];
    getrandom::fill(&mut b).map_err(|e| anyhow::anyhow!("no random numbers from the system: {e}"))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_host(h: &str) -> HeaderMap {
        let mut m = HeaderMap::new();
        m.insert(header::HOST, HeaderValue::from_str(h).unwrap());
        m
    }

    #[test]
    fn hosts_answered() {
        for ok in ["127.0.0.1:8700", "localhost:8700", "LOCALHOST:8700", "[::1]:8700", "192.168.1.20:8700"] {
            assert!(host_allowed(&with_host(ok), 8700), "{ok}");
        }
        for bad in ["evil.example:8700", "127.0.0.1:8701", "127.0.0.1", "localhost", "[::1]", "127.0.0.1.nip.io:8700"] {
            assert!(!host_allowed(&with_host(bad), 8700), "{bad}");
        }
        assert!(!host_allowed(&HeaderMap::new(), 8700));
    }

    #[test]
    fn token_leaves_the_query() {
        assert_eq!(query_token(Some("a=1&token=abc")), Some("abc".into()));
        assert_eq!(query_without_token(Some("q=nccl+error&token=abc&agent=claude")), "q=nccl+error&agent=claude");
        assert_eq!(query_without_token(None), "");
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
        let t = new_token().unwrap();
        assert_eq!(t.len(), 48);
        assert_ne!(t, new_token().unwrap());
    }
}
