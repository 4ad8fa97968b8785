//! The template environment: one loader that looks in the user's folder first and falls
//! back to the defaults embedded in the binary, the phrase table, and the filters that
//! make one phrase read right in Markdown and in HTML.
//!
//! Overriding works at every grain without copying the rest:
//! - a whole report: `episode.md.j2` in the user folder replaces the default;
//! - one block: that file may `{% extends "default/episode.md.j2" %}` and redefine a
//!   block (`default/…` always names the embedded original);
//! - one section: the reports include `sections/<report>/<name>.<fmt>.j2` per section,
//!   so a file of that name in the user folder replaces just that section;
//! - wording: `phrases.toml` in the user folder replaces or adds phrase keys;
//! - glossary: `glossary.toml` in the user folder replaces or adds terms.
//!
//! A user folder can never make debrief read outside it: names with `..`, absolute
//! paths, backslashes or hidden segments are refused, and a file whose real path (after
//! following symlinks) leaves the folder is an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use minijinja::value::{Kwargs, Value};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, State, UndefinedBehavior};

use super::glossary::Glossary;
use crate::analysis::text::stable_hash;

/// The default templates, compiled into the binary.
const EMBEDDED: &[(&str, &str)] = &[
    ("episode.md.j2", include_str!("../../templates/episode.md.j2")),
    ("episode.html.j2", include_str!("../../templates/episode.html.j2")),
    ("arc.md.j2", include_str!("../../templates/arc.md.j2")),
    ("arc.html.j2", include_str!("../../templates/arc.html.j2")),
    ("session.md.j2", include_str!("../../templates/session.md.j2")),
    ("session.html.j2", include_str!("../../templates/session.html.j2")),
    ("layout.html.j2", include_str!("../../templates/layout.html.j2")),
    ("sections/belief.md.j2", include_str!("../../templates/sections/belief.md.j2")),
    ("sections/belief.html.j2", include_str!("../../templates/sections/belief.html.j2")),
    ("sections/episode/context.md.j2", include_str!("../../templates/sections/episode/context.md.j2")),
    ("sections/episode/context.html.j2", include_str!("../../templates/sections/episode/context.html.j2")),
    ("sections/episode/subject.md.j2", include_str!("../../templates/sections/episode/subject.md.j2")),
    ("sections/episode/subject.html.j2", include_str!("../../templates/sections/episode/subject.html.j2")),
    ("sections/episode/analysis.md.j2", include_str!("../../templates/sections/episode/analysis.md.j2")),
    ("sections/episode/analysis.html.j2", include_str!("../../templates/sections/episode/analysis.html.j2")),
    ("sections/story.md.j2", include_str!("../../templates/sections/story.md.j2")),
    ("sections/story.html.j2", include_str!("../../templates/sections/story.html.j2")),
    ("sections/cited.md.j2", include_str!("../../templates/sections/cited.md.j2")),
    ("sections/cited.html.j2", include_str!("../../templates/sections/cited.html.j2")),
];
const PHRASES: &str = include_str!("../../templates/phrases.toml");
const GLOSSARY: &str = include_str!("../../templates/glossary.toml");

/// Where templates come from: the embedded defaults, and optionally a user folder.
#[derive(Debug, Clone, Default)]
pub struct Templates {
    /// The user's folder, canonical.
    user: Option<PathBuf>,
    /// Undefined variables are errors (tests; a typo in a template must not pass).
    pub strict: bool,
}

/// Phrase variants: table (detector id, `_default`, …) → key → variants.
type PhraseTable = BTreeMap<String, BTreeMap<String, Vec<String>>>;

impl Templates {
    pub fn embedded() -> Templates {
        Templates::default()
    }

    /// Use `dir` before the embedded defaults.
    pub fn with_user_dir(dir: &Path) -> Result<Templates> {
        let user = dir.canonicalize().with_context(|| format!("templates folder {}", dir.display()))?;
        if !user.is_dir() {
            bail!("templates folder {} is not a folder", dir.display());
        }
        Ok(Templates { user: Some(user), strict: false })
    }

    /// A file of the user folder by template name, read only if it is really inside.
    fn user_file(&self, name: &str) -> Result<Option<String>> {
        let Some(root) = &self.user else { return Ok(None) };
        read_inside(root, name)
    }

    /// The glossary: the default plus the user's `glossary.toml`.
    pub fn glossary(&self) -> Result<Glossary> {
        let ext: Vec<(String, String)> = self
            .user_file("glossary.toml")?
            .map(|t| ("glossary.toml (templates folder)".to_string(), t))
            .into_iter()
            .collect();
        Glossary::load(GLOSSARY, &ext)
    }

    fn phrases(&self) -> Result<PhraseTable> {
        let mut table: PhraseTable = toml::from_str(PHRASES).context("reading templates/phrases.toml")?;
        if let Some(user) = self.user_file("phrases.toml")? {
            let ext: PhraseTable = toml::from_str(&user).context("reading phrases.toml in the templates folder")?;
            for (t, keys) in ext {
                table.entry(t).or_default().extend(keys);
            }
        }
        Ok(table)
    }

    /// The environment for one output format (`md` or `html`).
    pub fn environment(&self, ext: &'static str) -> Result<Environment<'static>> {
        let mut env = Environment::new();
        env.set_undefined_behavior(if self.strict { UndefinedBehavior::Strict } else { UndefinedBehavior::Chainable });
        // Block tags on their own lines leave no blank lines or indentation behind.
        env.set_syntax(
            minijinja::syntax::SyntaxConfig::builder()
                .trim_blocks(true)
                .lstrip_blocks(true)
                .keep_trailing_newline(true)
                .build()
                .context("template syntax")?,
        );
        env.set_auto_escape_callback(
            |name| if name.ends_with(".html.j2") { AutoEscape::Html } else { AutoEscape::None },
        );
        let user = self.user.clone();
        env.set_loader(move |name| {
            if let Some(rest) = name.strip_prefix("default/") {
                return Ok(embedded(rest).map(str::to_string));
            }
            if let Some(root) = &user {
                match read_inside(root, name) {
                    Ok(Some(src)) => return Ok(Some(src)),
                    Ok(None) => {}
                    Err(e) => return Err(Error::new(ErrorKind::InvalidOperation, format!("{e:#}"))),
                }
            }
            Ok(embedded(name).map(str::to_string))
        });

        // Phrases become templates of the output format, so auto-escaping applies to
        // everything they print from the transcript.
        let table = self.phrases()?;
        let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (t, keys) in &table {
            for (k, variants) in keys {
                for (i, v) in variants.iter().enumerate() {
                    env.add_template_owned(phrase_name(t, k, i, ext), v.clone())
                        .with_context(|| format!("phrase {t}.{k}[{i}]: {v}"))?;
                }
                index.insert((t.clone(), k.clone()), variants.len());
            }
        }
        let index = Arc::new(index);
        let one = index.clone();
        env.add_function("phrase", move |state: &State, key: String, facts: Value, kw: Kwargs| {
            let x: Option<Value> = kw.get("x")?;
            kw.assert_all_used()?;
            let (table, key, n) = lookup(&one, &key, &facts, x.as_ref())?;
            let seed = facts.get_attr("seed").ok().map(|s| s.to_string()).unwrap_or_default();
            let extra = x.as_ref().map(identity).unwrap_or_default();
            let pick = (stable_hash(&[&table, &key, &seed, &extra]) % n as u64) as usize;
            render_phrase(state, &table, &key, pick, ext, &facts, x)
        });
        let all = index;
        env.add_function("phrases", move |state: &State, key: String, facts: Value, kw: Kwargs| {
            let x: Option<Value> = kw.get("x")?;
            kw.assert_all_used()?;
            let (table, key, n) = lookup(&all, &key, &facts, x.as_ref())?;
            let mut out = Vec::new();
            for i in 0..n {
                let p = render_phrase(state, &table, &key, i, ext, &facts, x.clone())?;
                if !p.as_str().is_some_and(|s| s.trim().is_empty()) {
                    out.push(p);
                }
            }
            Ok(Value::from(out))
        });
        super::export::filters::register(&mut env);
        Ok(env)
    }
}

/// What an item handed to `phrase` is, for choosing its variant: its detector, kind and
/// the message it stands on (a moment's detector and key, a beat's kind and message, an
/// assumption's kind and seed), so that a change of any other field (a quote clipped
/// differently, a count) does not change the wording. An item with none of these (a
/// string, a number) is itself.
fn identity(x: &Value) -> String {
    const IDENTITY: &[&str] = &["detector", "kind", "seed", "key", "idx", "at"];
    let parts: Vec<String> = IDENTITY
        .iter()
        .filter_map(|k| x.get_attr(k).ok().filter(|v| !v.is_undefined() && !v.is_none()).map(|v| format!("{k}={v}")))
        .collect();
    if parts.is_empty() { x.to_string() } else { parts.join(";") }
}

fn embedded(name: &str) -> Option<&'static str> {
    EMBEDDED.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

fn phrase_name(table: &str, key: &str, i: usize, ext: &str) -> String {
    format!("phrase/{table}/{key}/{i}.{ext}.j2")
}

/// The phrase key to use: the facts' detector table before `_default`, and within a
/// table `key.<situation>` before `key` — the item's situations (`x`, a beat or an
/// assumption) first, then the facts', most specific first.
fn lookup(
    index: &BTreeMap<(String, String), usize>,
    key: &str,
    facts: &Value,
    x: Option<&Value>,
) -> Result<(String, String, usize), Error> {
    let detector = facts.get_attr("detector").ok().and_then(|d| d.as_str().map(str::to_string)).unwrap_or_default();
    let mut situations = Vec::new();
    for v in x.into_iter().chain(std::iter::once(facts)) {
        if let Ok(s) = v.get_attr("situations")
            && let Ok(it) = s.try_iter()
        {
            situations.extend(it.filter_map(|v| v.as_str().map(str::to_string)));
        }
    }
    for table in [detector.as_str(), "_default"] {
        for sit in &situations {
            let k = format!("{key}.{sit}");
            if let Some(n) = index.get(&(table.to_string(), k.clone())) {
                return Ok((table.to_string(), k, *n));
            }
        }
        if let Some(n) = index.get(&(table.to_string(), key.to_string())) {
            return Ok((table.to_string(), key.to_string(), *n));
        }
    }
    Err(Error::new(
        ErrorKind::UndefinedError,
        format!("no phrase `{key}` for `{detector}` or `_default` in phrases.toml"),
    ))
}

fn render_phrase(
    state: &State,
    table: &str,
    key: &str,
    i: usize,
    ext: &str,
    facts: &Value,
    x: Option<Value>,
) -> Result<Value, Error> {
    let tmpl = state.env().get_template(&phrase_name(table, key, i, ext))?;
    let out = tmpl.render(minijinja::context! { f => facts, x => x })?;
    // Phrase sources may break lines for readability; prose is one line.
    let out = crate::analysis::text::tidy_punctuation(&crate::analysis::text::one_line(&out));
    Ok(if ext == "html" { Value::from_safe_string(out) } else { Value::from(out) })
}

/// Read `name` under `root` if it exists and really lies inside `root`.
fn read_inside(root: &Path, name: &str) -> Result<Option<String>> {
    let bad = name.is_empty()
        || name.starts_with('/')
        || name.contains('\\')
        || name.contains(':')
        || name.split('/').any(|seg| seg.is_empty() || seg == "." || seg == ".." || seg.starts_with('.'));
    if bad {
        bail!(
            "template name `{name}` is not allowed: templates are named by relative paths inside the templates folder"
        );
    }
    let path = root.join(name);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let real = path.canonicalize().with_context(|| format!("template {}", path.display()))?;
    if !real.starts_with(root) {
        bail!("template `{name}` resolves to {}, outside the templates folder {}", real.display(), root.display());
    }
    if !real.is_file() {
        return Ok(None);
    }
    std::fs::read_to_string(&real).with_context(|| format!("reading template {}", real.display())).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_variant_follows_the_item_not_its_other_fields() {
        let item = |quote: &str, idx: u32| {
            minijinja::context! { kind => "failure", idx => idx, quote => quote, count => 3 }
        };
        // The same beat with its quote clipped otherwise is the same item…
        assert_eq!(identity(&item("cargo test failed", 7)), identity(&item("cargo test fail…", 7)));
        // …another message's beat is not, and an item without identity is itself.
        assert_ne!(identity(&item("cargo test failed", 7)), identity(&item("cargo test failed", 8)));
        assert_eq!(identity(&Value::from("plain")), "plain");
    }
}
