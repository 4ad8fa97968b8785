//! Output formats: one renderer per format behind [`Exporter`] (hyperfine's exporters
//! are the model). Markdown and HTML render the report's templates; JSON prints the
//! report model itself, for scripts and for checking what a template had to work with.

pub mod filters;
mod html;
mod json;
mod markdown;

use anyhow::Result;

use super::Report;
use super::templates::Templates;

/// Renders a report in one output format.
pub trait Exporter {
    /// The format's name on the command line (`md`, `html`, `json`).
    fn id(&self) -> &'static str;
    fn render(&self, report: &Report, templates: &Templates) -> Result<String>;
}

/// The exporter for `--format NAME`.
pub fn by_id(name: &str) -> Result<Box<dyn Exporter>> {
    Ok(match name {
        "md" | "markdown" => Box::new(markdown::Markdown),
        "html" => Box::new(html::Html),
        "json" => Box::new(json::Json),
        _ => crate::usage!("unknown report format `{name}` (use md, html or json)"),
    })
}

/// Render `<kind>.<ext>.j2` with the report's facts as `r`.
fn render_template(report: &Report, templates: &Templates, ext: &'static str) -> Result<String> {
    let env = templates.environment(ext)?;
    let name = format!("{}.{ext}.j2", report.kind);
    let tmpl = env.get_template(&name).map_err(|e| anyhow::anyhow!("template {name}: {}", describe(&e)))?;
    tmpl.render(minijinja::context! { r => minijinja::value::Serde(&report.facts), format => ext })
        .map_err(|e| anyhow::anyhow!("rendering {name}: {}", describe(&e)))
}

/// A template error with its location and cause chain, for people editing templates.
fn describe(e: &minijinja::Error) -> String {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}
