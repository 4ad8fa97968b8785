//! The technology glossary: data (`templates/glossary.toml`, extendable with a
//! `glossary.toml` in the user's templates folder) mapping a term to the patterns that
//! recognise it in a transcript and a one-line explanation. A report's "input
//! knowledge required" lists the terms its messages mention — recognised, not guessed.

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
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
    /// The same patterns one by one, to see where a match stands: compiled only for the
    /// entries the set matched (a report mentions a few of them).
    pats: Vec<String>,
    each: Vec<OnceLock<Regex>>,
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
        let each = pats.iter().map(|_| OnceLock::new()).collect();
        Ok(Glossary { entries, set, pats, each })
    }

    /// Terms mentioned in any of `texts` (prose and outputs) or `commands` (the command
    /// lines that ran), in glossary order; a `commands_only` term only in `commands`.
    pub fn find(&self, texts: &[&str], commands: &[&str]) -> Vec<Term> {
        let mut hit = vec![false; self.entries.len()];
        for (t, is_command) in texts.iter().map(|t| (t, false)).chain(commands.iter().map(|c| (c, true))) {
            // Huge outputs are scanned in full by the DFA; that is linear and cheap.
            for i in self.set.matches(t).iter() {
                if hit[i] || (!is_command && self.entries[i].commands_only) {
                    continue;
                }
                // A name inside a file's name (`.env.vllm-template`, `tools/vllm.ps1`) is
                // the project's file, not the technology in use.
                let one = self.each[i].get_or_init(|| {
                    // The set compiled the same pattern, so it is valid.
                    RegexBuilder::new(&self.pats[i])
                        .size_limit(32 << 20)
                        .build()
                        .expect("glossary pattern compiled in the set")
                });
                hit[i] = one.find_iter(t).any(|m| !in_file_name(t, m.start(), m.end()));
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

/// Whether `t[start..end]` lies inside a file name or path: the word around it (up to
/// white space, quotes or brackets) holds a `/` or `\\`, starts with a dot, or ends in a
/// file's extension.
fn in_file_name(t: &str, start: usize, end: usize) -> bool {
    // A pattern over several words (`until … sleep`) is no name.
    if t[start..end].contains(char::is_whitespace) {
        return false;
    }
    let stop = |c: char| c.is_whitespace() || "`'\"()[]{}<>,;=:".contains(c);
    let from = t[..start].rfind(stop).map_or(0, |i| i + t[i..].chars().next().map_or(1, char::len_utf8));
    let to = t[end..].find(stop).map_or(t.len(), |i| end + i);
    let word = t[from..to].trim_end_matches(['.', '!', '?']);
    // Extensions of files a project keeps; not any short suffix (`torch.cuda` is no file).
    const EXT: &[&str] = &[
        "sh", "ps1", "bat", "py", "js", "ts", "json", "toml", "yaml", "yml", "md", "txt", "env", "cfg", "ini", "log",
        "conf", "rs", "go", "template", "example", "lock",
    ];
    let ext = word.rsplit_once('.').is_some_and(|(stem, e)| !stem.is_empty() && EXT.contains(&e));
    word.contains(['/', '\\']) || word.starts_with('.') || ext
}

#[cfg(test)]
mod tests {
    use super::in_file_name;

    fn at(t: &str, w: &str) -> bool {
        let i = t.find(w).expect("word in text");
        in_file_name(t, i, i + w.len())
    }

    #[test]
    fn a_name_inside_a_file_name_is_not_a_mention() {
        // cx06: vLLM only ever appeared in the names of the project's files.
        assert!(at("M .env.vllm-template", "vllm"));
        assert!(at("Mirror placeholders in `.env.vllm-template`", "vllm"));
        assert!(at(" M tools/entrypoint-vllm.sh", "vllm"));
        assert!(at("M tools/vllm.ps1", "vllm"));
        // Near misses: the program and its modules.
        assert!(!at("pip install vllm", "vllm"));
        assert!(!at("python -m vllm.entrypoints.openai.api_server", "vllm"));
        assert!(!at("the vLLM server crashed.", "vLLM"));
        assert!(!at("torch.cuda is not available", "cuda"));
        assert!(!at(
            "until curl -sf localhost:5174/health; do sleep 1; done",
            "until curl -sf localhost:5174/health; do sleep"
        ));
    }
}
