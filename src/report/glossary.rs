//! The technology glossary: data (`templates/glossary.toml`, extendable with a
//! `glossary.toml` in the user's templates folder) mapping a term to the patterns that
//! recognise it in a transcript and a one-line explanation. A report's "input
//! knowledge required" lists the terms its messages mention — recognised, not guessed.

use regex::{RegexSet, RegexSetBuilder};
use serde::{Deserialize, Serialize};

use anyhow::{Context, Result};

/// One glossary entry, as the file spells it.
#[derive(Debug, Clone, Deserialize)]
struct Entry {
    name: String,
    patterns: Vec<String>,
    explain: String,
    /// A tool or program: involved only when a command ran it. A mention in prose or in
    /// an output ("docker" in an audit report, "until" in a sentence) is not its use.
    #[serde(default)]
    commands_only: bool,
}

#[derive(Debug, Deserialize)]
struct File {
    #[serde(default)]
    term: Vec<Entry>,
}

/// A term found in the text, with its explanation.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Term {
    pub name: String,
    pub explain: String,
}

pub struct Glossary {
    entries: Vec<Entry>,
    /// One pattern per entry: the alternation of its patterns.
    set: RegexSet,
}

/// Terms listed at most per report section.
const MAX_TERMS: usize = 10;

impl Glossary {
    /// The default glossary, then each extension in order: an entry with the same name
    /// replaces the earlier one, new names are added.
    pub fn load(default: &str, extensions: &[(String, String)]) -> Result<Glossary> {
        let mut entries: Vec<Entry> = toml::from_str::<File>(default).context("reading templates/glossary.toml")?.term;
        for (name, text) in extensions {
            let ext: File = toml::from_str(text).with_context(|| format!("reading {name}"))?;
            for e in ext.term {
                match entries.iter_mut().find(|x| x.name.eq_ignore_ascii_case(&e.name)) {
                    Some(x) => *x = e,
                    None => entries.push(e),
                }
            }
        }
        let pats: Vec<String> = entries.iter().map(|e| format!("(?i)(?:{})", e.patterns.join("|"))).collect();
        let set = RegexSetBuilder::new(&pats).size_limit(32 << 20).build().context("compiling glossary patterns")?;
        Ok(Glossary { entries, set })
    }

    /// Terms mentioned in any of `texts` (prose and outputs) or `commands` (the command
    /// lines that ran), in glossary order; a `commands_only` term only in `commands`.
    pub fn find(&self, texts: &[&str], commands: &[&str]) -> Vec<Term> {
        let mut hit = vec![false; self.entries.len()];
        for (t, is_command) in texts.iter().map(|t| (t, false)).chain(commands.iter().map(|c| (c, true))) {
            // Huge outputs are scanned in full by the DFA; that is linear and cheap.
            for i in self.set.matches(t).iter() {
                hit[i] |= is_command || !self.entries[i].commands_only;
            }
        }
        self.entries
            .iter()
            .zip(hit)
            .filter(|(_, h)| *h)
            .take(MAX_TERMS)
            .map(|(e, _)| Term { name: e.name.clone(), explain: e.explain.clone() })
            .collect()
    }
}
