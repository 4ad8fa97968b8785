//! Filters that let one phrase or template line read right in both formats: the output
//! format is the template's auto-escape mode (`.html.j2` escapes, `.md.j2` does not).
//! In HTML every filter escapes the transcript text it wraps and returns markup marked
//! safe; in Markdown it returns Markdown.

use minijinja::value::Value;
use minijinja::{AutoEscape, Environment, State};

fn is_html(state: &State) -> bool {
    matches!(state.auto_escape(), AutoEscape::Html)
}

/// Escape text for HTML element content and attribute values.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            _ => out.push(c),
        }
    }
    out
}

/// Text of a value for HTML: safe markup as is, anything else escaped.
fn html_of(v: &Value) -> String {
    if v.is_safe() { v.to_string() } else { escape_html(&v.to_string()) }
}

/// The shortest backtick fence that does not occur in `s`.
fn fence(s: &str, min: usize) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(min))
}

/// Inline code: `` `tail -50 x.log` `` / `<code>tail -50 x.log</code>`.
fn code(state: &State, s: Value) -> Value {
    let s = s.to_string();
    if is_html(state) {
        return Value::from_safe_string(format!("<code>{}</code>", escape_html(&s)));
    }
    let f = fence(&s, 1);
    let pad = if s.starts_with('`') || s.ends_with('`') { " " } else { "" };
    Value::from(format!("{f}{pad}{s}{pad}{f}"))
}

/// An inline quotation in curly quotes.
fn q(state: &State, s: Value) -> Value {
    if is_html(state) {
        Value::from_safe_string(format!("“{}”", html_of(&s)))
    } else {
        Value::from(format!("“{s}”"))
    }
}

/// A citation: `[msg 5084]`, linked to the message's anchor in HTML.
fn cite(state: &State, idx: Value) -> Value {
    if is_html(state) {
        Value::from_safe_string(format!("<a class=\"cite\" href=\"#msg-{idx}\">[msg {idx}]</a>"))
    } else {
        Value::from(format!("[msg {idx}]"))
    }
}

/// A block of code or output.
fn block(state: &State, s: Value, lang: Option<String>) -> Value {
    let s = s.to_string();
    if is_html(state) {
        return Value::from_safe_string(format!("<pre><code>{}</code></pre>", escape_html(&s)));
    }
    let f = fence(&s, 3);
    Value::from(format!("{f}{}\n{}\n{f}", lang.unwrap_or_default(), s.trim_end_matches('\n')))
}

/// A block quotation of a message's text (paragraphs kept).
fn bq(state: &State, s: Value) -> Value {
    let s = s.to_string();
    if is_html(state) {
        let paras: Vec<String> = s
            .split("\n\n")
            .filter(|p| !p.trim().is_empty())
            .map(|p| format!("<p>{}</p>", escape_html(p.trim()).replace('\n', "<br>")))
            .collect();
        return Value::from_safe_string(format!("<blockquote>{}</blockquote>", paras.join("")));
    }
    Value::from(
        s.trim()
            .lines()
            .map(|l| if l.is_empty() { ">".to_string() } else { format!("> {l}") })
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// Small counts in words, as people write them: "two attempts", "14 messages".
fn num(n: Value) -> Value {
    const WORDS: [&str; 13] =
        ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    match i64::try_from(n.clone()) {
        Ok(i) if (0..=12).contains(&i) => Value::from(WORDS[i as usize]),
        _ => n,
    }
}

/// "a, b and c" — items escaped in HTML unless already markup.
fn and_list(state: &State, items: Vec<Value>) -> Value {
    let html = is_html(state);
    let parts: Vec<String> = items.iter().map(|v| if html { html_of(v) } else { v.to_string() }).collect();
    let s = match parts.len() {
        0 => String::new(),
        1 => parts[0].clone(),
        n => format!("{} and {}", parts[..n - 1].join(", "), parts[n - 1]),
    };
    if html { Value::from_safe_string(s) } else { Value::from(s) }
}

/// A paragraph assembled from phrases, whitespace collapsed: phrases that print
/// nothing leave no gaps. Markup stays markup.
fn prose(s: Value) -> Value {
    let text = crate::analysis::text::tidy_punctuation(&crate::analysis::text::one_line(&s.to_string()));
    if s.is_safe() { Value::from_safe_string(text) } else { Value::from(text) }
}

/// Text for a Markdown table cell: pipes escaped (GFM needs it inside code spans too).
fn cell(state: &State, s: Value) -> Value {
    if is_html(state) {
        return s;
    }
    Value::from(s.to_string().replace('|', "\\|"))
}

/// Seconds as people read a span: "42 s", "9 min 43 s".
fn duration(n: i64) -> String {
    crate::analysis::text::duration(n)
}

/// Lines of an excerpt, joined for a block.
fn lines(items: Vec<String>) -> String {
    items.join("\n")
}

/// At most `n` characters, cut at a word, with "…".
fn clip(s: Value, n: usize) -> Value {
    if s.is_safe() {
        return s;
    }
    Value::from(crate::analysis::text::clip(&s.to_string(), n))
}

/// The last component of a path.
fn basename(s: String) -> String {
    s.rsplit('/').next().unwrap_or(&s).to_string()
}

/// Text without markup, for places that cannot hold tags (the HTML `<title>`).
fn plain(s: Value) -> Value {
    let text = s.to_string();
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' if s.is_safe() => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    // Entities of safe markup stay escaped; a plain string is escaped by the template.
    if s.is_safe() { Value::from_safe_string(out) } else { Value::from(out) }
}

/// `n|pluralize` → "" or "s"; `n|pluralize("y", "ies")` → the given endings.
fn pluralize(n: Value, singular: Option<String>, plural: Option<String>) -> String {
    let one = i64::try_from(n.clone()).is_ok_and(|i| i == 1) || n.len() == Some(1);
    if one { singular.unwrap_or_default() } else { plural.unwrap_or_else(|| "s".to_string()) }
}

/// `name|article` → "a Codex CLI session" wording: "a NAME" or "an NAME" by the
/// name's first letter; `article(true)` starts a sentence ("An Aider").
fn article(name: String, capital: Option<bool>) -> String {
    let an = name.chars().next().is_some_and(|c| "aeioAEIO".contains(c));
    let a = match (an, capital.unwrap_or(false)) {
        (true, true) => "An",
        (true, false) => "an",
        (false, true) => "A",
        (false, false) => "a",
    };
    format!("{a} {name}")
}

pub fn register(env: &mut Environment<'static>) {
    env.add_filter("pluralize", pluralize);
    env.add_filter("article", article);
    env.add_filter("plain", plain);
    env.add_filter("clip", clip);
    env.add_filter("basename", basename);
    env.add_filter("code", code);
    env.add_filter("q", q);
    env.add_filter("cite", cite);
    env.add_filter("block", block);
    env.add_filter("bq", bq);
    env.add_filter("num", num);
    env.add_filter("and_list", and_list);
    env.add_filter("lines", lines);
    env.add_filter("prose", prose);
    env.add_filter("cell", cell);
    env.add_filter("duration", duration);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_follow_the_first_letter() {
        assert_eq!(article("Aider".into(), Some(true)), "An Aider");
        assert_eq!(article("OpenHands".into(), None), "an OpenHands");
        assert_eq!(article("Claude Code".into(), Some(true)), "A Claude Code");
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fence("a `b` c", 1), "``");
        assert_eq!(fence("no ticks", 3), "```");
        assert_eq!(fence("has ``` inside", 3), "````");
    }
}
