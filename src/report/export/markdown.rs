//! Markdown: the `.md.j2` templates, no escaping (the text is the transcript's own).

use anyhow::Result;

use super::{Exporter, render_template};
use crate::report::Report;
use crate::report::templates::Templates;

pub struct Markdown;

impl Exporter for Markdown {
    fn id(&self) -> &'static str {
        "md"
    }

    fn render(&self, report: &Report, templates: &Templates) -> Result<String> {
        let out = render_template(report, templates, "md")?;
        Ok(tidy_markdown(&out))
    }
}

/// Blocks need blank lines around them in Markdown; templates with optional sections
/// leave too many or too few. One pass: at most one blank line anywhere, exactly one
/// before and after headings and rules, and one where a paragraph meets a list, a table,
/// a quote or a fence (and back). Fenced code is left untouched.
fn tidy_markdown(s: &str) -> String {
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        Blank,
        Heading,
        Rule,
        List,
        Table,
        Quote,
        Text,
    }
    fn kind(l: &str) -> Kind {
        let t = l.trim_start();
        if t.is_empty() {
            Kind::Blank
        } else if t.starts_with('#') {
            Kind::Heading
        } else if t == "---" {
            Kind::Rule
        } else if t.starts_with("- ")
            || t.starts_with("[") && t.contains("] ")
            || t.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        {
            Kind::List
        } else if t.starts_with('|') {
            Kind::Table
        } else if t.starts_with('>') {
            Kind::Quote
        } else {
            Kind::Text
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut prev = Kind::Blank;
    let mut fence: Option<String> = None;
    for line in s.lines() {
        let line = line.trim_end();
        if let Some(f) = &fence {
            out.push(line.to_string());
            if line.trim_start() == f {
                fence = None;
                prev = Kind::Quote; // a closed fence is a block: the next text needs a blank.
            }
            continue;
        }
        let t = line.trim_start();
        if t.starts_with("```") {
            if prev != Kind::Blank {
                out.push(String::new());
            }
            fence = Some(t.chars().take_while(|c| *c == '`').collect());
            out.push(line.to_string());
            prev = Kind::Quote;
            continue;
        }
        let k = kind(line);
        if k == Kind::Blank {
            if prev != Kind::Blank {
                out.push(String::new());
            }
            prev = Kind::Blank;
            continue;
        }
        let needs_blank = prev != Kind::Blank
            && (k != prev || matches!(k, Kind::Heading | Kind::Rule) || matches!(prev, Kind::Heading | Kind::Rule))
            // A nested list item or a wrapped list line stays with its list.
            && !(prev == Kind::List && line.starts_with(' '));
        if needs_blank && !out.is_empty() {
            out.push(String::new());
        }
        out.push(line.to_string());
        prev = k;
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    format!("{}\n", out.join("\n"))
}
