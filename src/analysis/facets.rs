//! Facts derived from a message that search filters on and detectors share: which
//! tools it called, which programs its shell commands ran, which files they touched.

use crate::model::Message;
use crate::shell;

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
        if let Some(cmd) = &c.command {
            let script = shell::parse(cmd);
            for sc in &script.commands {
                let name = sc.name();
                if !name.is_empty() && name.len() <= 64 {
                    f.programs.push(name.to_string());
                }
                for file in sc.file_args() {
                    add_file(&mut f.files, file);
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Call;

    #[test]
    fn programs_and_files_come_from_the_parsed_command() {
        let m = Message {
            calls: vec![Call {
                name: "Bash".into(),
                command: Some("ssh root@10.0.0.5 'tail -50 /data/logs/exp.log' 2>&1 | grep -v INFO".into()),
                ..Call::default()
            }],
            ..Message::default()
        };
        let f = facets(&m);
        assert_eq!(f.tools, vec!["bash"]);
        assert_eq!(f.programs, vec!["grep", "tail"]);
        assert!(f.files.contains(&"/data/logs/exp.log".to_string()));
        assert!(f.files.contains(&"exp.log".to_string()));
    }
}
