//! Facts derived from a message that search filters on and detectors share: which
//! tools it called, which programs its shell commands ran, which files they touched.

use crate::model::Message;

/// Filterable facts of one message.
#[derive(Debug, Default, PartialEq)]
pub struct Facets {
    /// Tool names, lowercased (`bash`, `read`, `exec_command`).
    pub tools: Vec<String>,
    /// Programs its shell commands ran (`grep`, `tail`, `python`).
    pub programs: Vec<String>,
    /// Files the calls named: full path as written and its file name.
    pub files: Vec<String>,
}

/// Input fields through which tools name the file they work on.
const FILE_FIELDS: &[&str] = &["file_path", "path", "notebook_path", "filename", "file"];

pub fn facets(m: &Message) -> Facets {
    let mut f = Facets::default();
    for c in &m.calls {
        f.tools.push(c.name.to_lowercase());
        for key in FILE_FIELDS {
            if let Some(p) = c.input.get(*key).and_then(|v| v.as_str()) {
                add_file(&mut f.files, p);
            }
        }
    }
    f.tools.sort();
    f.tools.dedup();
    f.programs.sort();
    f.programs.dedup();
    f.files.sort();
    f.files.dedup();
    f
}

fn add_file(files: &mut Vec<String>, path: &str) {
    if path.is_empty() || path.len() > 512 {
        return;
    }
    files.push(path.to_string());
    if let Some(name) = path.rsplit(['/', '\\']).next()
        && name != path
        && !name.is_empty()
    {
        files.push(name.to_string());
    }
}
