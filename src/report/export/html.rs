//! HTML: the `.html.j2` templates, auto-escaped — transcript text always prints as
//! text. One self-contained file: inline CSS, no scripts, no external requests.

use anyhow::Result;

use super::{Exporter, render_template};
use crate::report::Report;
use crate::report::templates::Templates;

pub struct Html;

impl Exporter for Html {
    fn id(&self) -> &'static str {
        "html"
    }

    fn render(&self, report: &Report, templates: &Templates) -> Result<String> {
        render_template(report, templates, "html")
    }
}
