//! JSON: the report model itself (redacted like every export), pretty-printed.

use anyhow::Result;

use super::Exporter;
use crate::report::Report;
use crate::report::templates::Templates;

pub struct Json;

impl Exporter for Json {
    fn id(&self) -> &'static str {
        "json"
    }

    fn render(&self, report: &Report, _templates: &Templates) -> Result<String> {
        let v = serde_json::json!({ "kind": report.kind, "facts": report.facts });
        Ok(format!("{}\n", serde_json::to_string_pretty(&v)?))
    }
}
