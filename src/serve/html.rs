//! The HTML around the pages: escaping, the page layout and its stylesheet, links.
//!
//! Every piece of transcript text goes through [`esc`] (or [`Out::text`]) on its way
//! into a page: the pages hold no markup that did not come from here.

use std::fmt::Write as _;

use super::App;

/// The stylesheet of every page (served as `/static/app.css`: the policy allows no
/// inline style).
pub const CSS: &str = include_str!("app.css");

/// The one script of the UI (served as `/static/app.js`, the only script the policy
/// allows): an open session page shows new messages as the agent writes them, and the
/// search page shows results as the words are typed. Every page works without it.
pub const JS: &str = include_str!("app.js");

/// `s` with the characters that mean something in HTML (text or a quoted attribute)
/// written as entities.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    push_esc(&mut out, s);
    out
}

pub fn push_esc(out: &mut String, s: &str) {
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + 1;
    }
    out.push_str(&s[last..]);
}

/// A path segment (a session id) percent-encoded.
pub fn seg(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// `path?query` from pairs (the empty values left out), escaped for an attribute.
pub fn href(path: &str, pairs: &[(&str, &str)]) -> String {
    let kept: Vec<(&str, &str)> = pairs.iter().copied().filter(|(_, v)| !v.is_empty()).collect();
    let q = serde_urlencoded::to_string(kept).unwrap_or_default();
    esc(&if q.is_empty() { path.to_string() } else { format!("{path}?{q}") })
}

/// The link to message `idx` of a session: its page, scrolled to its anchor.
pub fn msg_href(session: &str, idx: u32) -> String {
    format!("/session/{}?at={idx}#msg-{idx}", seg(session))
}

/// A whole page: the header with the navigation, then `body` (already HTML).
pub fn page(app: &App, title: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 1024);
    out.push_str(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <link rel=\"icon\" href=\"data:,\">\n<link rel=\"stylesheet\" href=\"/static/app.css\">\n\
         <script src=\"/static/app.js\" defer></script>\n<title>",
    );
    push_esc(&mut out, title);
    out.push_str(
        " · debrief</title>\n</head>\n<body>\n<header class=\"top\"><a class=\"brand\" href=\"/\">debrief</a>\n<nav>",
    );
    for (href, label) in [("/", "Sessions"), ("/search", "Search"), ("/findings", "Findings"), ("/sources", "Sources")]
    {
        let _ = write!(out, "<a href=\"{href}\">{label}</a>");
    }
    out.push_str("</nav>");
    if app.redacted {
        out.push_str(
            "<span class=\"badge\" title=\"secrets, hosts, addresses and user names are redacted\">redacted</span>",
        );
    } else {
        out.push_str("<span class=\"badge warn\" title=\"started with --no-redact\">not redacted</span>");
    }
    out.push_str("</header>\n<main>\n");
    out.push_str(body);
    out.push_str("\n</main>\n</body>\n</html>\n");
    out
}

/// A time for people, in UTC.
pub fn when(t: Option<chrono::DateTime<chrono::Utc>>) -> String {
    t.map(|t| t.format("%Y-%m-%d %H:%M").to_string()).unwrap_or_else(|| "–".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<img src=x onerror=\"alert(1)\">&'"),
            "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;"
        );
        assert_eq!(esc("plain – text"), "plain – text");
        assert_eq!(seg("a b/c"), "a%20b%2Fc");
        assert_eq!(href("/search", &[("q", "a&b"), ("agent", "")]), "/search?q=a%26b");
    }
}
