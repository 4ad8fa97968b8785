//! What a tool call did, as detectors need to know it: which files it changed, whether
//! it failed, whether it only looked at things. Shared by the detectors that ask "did
//! anything change between these two runs?" (`confounded-change`, `retry-loop`).
//!
//! Tool names differ per agent (Claude Code `Edit`/`Write`, Codex `apply_patch`,
//! SWE-agent and OpenHands `str_replace_editor`, Gemini `replace`/`write_file`, Cline
//! `replace_in_file`…), so edit tools are recognised by a table of lowercased names;
//! shell commands are read with the shell parser, never by substring.

use serde_json::Value;

use crate::model::Call;
use crate::shell::{self, Script, SimpleCommand};

/// Tools whose whole purpose is to change a file.
const EDIT_TOOLS: &[&str] = &[
    "edit",
    "multiedit",
    "write",
    "notebookedit",
    "apply_patch",
    "write_file",
    "replace",
    "replace_in_file",
    "write_to_file",
    "edit_file",
    "create_file",
    "insert_content",
    "search_and_replace",
];

/// Tools that edit or only view, depending on their `command` input.
const EDITOR_TOOLS: &[&str] = &["str_replace_editor", "str_replace_based_edit_tool"];

/// Input fields through which tools name the file they work on.
const FILE_FIELDS: &[&str] =
    &["file_path", "path", "notebook_path", "filename", "file", "target_file", "absolute_path"];

/// Tools that never change anything (reading, searching, planning, asking).
const LOOKING_TOOLS: &[&str] = &[
    "read",
    "read_file",
    "read_many_files",
    "view",
    "view_image",
    "glob",
    "grep",
    "ls",
    "list_dir",
    "list_directory",
    "list_files",
    "search_files",
    "search_file_content",
    "codebase_search",
    "file_search",
    "todowrite",
    "todoread",
    "update_plan",
    "webfetch",
    "web_fetch",
    "websearch",
    "web_search",
    "google_web_search",
    "bashoutput",
    "write_stdin",
    "exitplanmode",
    "askuserquestion",
    "think",
];

/// Programs that only look: reading files, listing, searching, probing processes and
/// endpoints, printing. Running one changes nothing a later run could depend on.
const LOOKING_PROGRAMS: &[&str] = &[
    "cat",
    "tac",
    "nl",
    "head",
    "tail",
    "less",
    "more",
    "bat",
    "batcat",
    "grep",
    "egrep",
    "fgrep",
    "zgrep",
    "rg",
    "ag",
    "ack",
    "awk",
    "gawk",
    "jq",
    "yq",
    "find",
    "fd",
    "ls",
    "tree",
    "du",
    "df",
    "wc",
    "sort",
    "uniq",
    "cut",
    "tr",
    "diff",
    "cmp",
    "stat",
    "file",
    "readlink",
    "realpath",
    "dirname",
    "basename",
    "which",
    "type",
    "whereis",
    "command",
    "echo",
    "printf",
    "pwd",
    "date",
    "whoami",
    "id",
    "hostname",
    "uname",
    "env",
    "printenv",
    "ps",
    "ssh-add",
    "pgrep",
    "top",
    "htop",
    "free",
    "uptime",
    "nproc",
    "lscpu",
    "lsof",
    "ss",
    "netstat",
    "nvidia-smi",
    "nvcc",
    "journalctl",
    "logread",
    "dmesg",
    "sleep",
    "true",
    "false",
    "test",
    "[",
    "[[",
    "curl",
    "wget",
    "nc",
    "ping",
    "xxd",
    "hexdump",
    "od",
    "strings",
    "md5sum",
    "sha256sum",
    "column",
    "seq",
    "cd",
    "tee",
    "sed",
    "git",
    "break",
    "continue",
    ":",
    "pidof",
    "pg_isready",
    "redis-cli",
    "docker",
    "podman",
    "kubectl",
    "oc",
    "systemctl",
    "service",
];

/// PowerShell verbs (lowercased, with their dash) whose cmdlets only look.
const POWERSHELL_LOOKING_VERBS: &[&str] =
    &["get-", "test-", "select-", "where-", "format-", "measure-", "sort-", "out-string", "resolve-", "compare-"];

/// `git` subcommands that only look.
const GIT_LOOKING: &[&str] =
    &["status", "log", "diff", "show", "blame", "branch", "remote", "rev-parse", "ls-files", "grep", "describe"];

/// Lowercased tool name.
fn tool(call: &Call) -> String {
    call.name.to_lowercase()
}

/// A file a call changed, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    pub file: String,
    /// The machine (`ssh` destination as written, or container) the file is on; `None`
    /// for the agent's own machine.
    pub place: Option<String>,
    /// For a shell edit, the index in the parsed script of the command that made it.
    pub command: Option<usize>,
}

/// Edits a call made: edit tools' target files, files named in an `apply_patch` patch
/// (also one a Codex code-mode script applies), and shell edits (`sed -i`, `perl -pi`, `patch`, `tee`, `> file`, `git apply` and
/// `git checkout -- file`, `apply_patch <<EOF`), each with the machine it happened on.
/// Empty when the call changed no file it names (which does not prove it changed
/// nothing: see [`only_looks`]).
pub fn edits(call: &Call) -> Vec<FileEdit> {
    let mut out = Vec::new();
    if is_edit_tool(call) {
        let mut files = Vec::new();
        for key in FILE_FIELDS {
            if let Some(p) = call.input.get(*key).and_then(Value::as_str) {
                files.push(p.to_string());
            }
        }
        // Codex's apply_patch carries the patch as a string (custom tool) or in `input`.
        let patch = match &call.input {
            Value::String(s) => Some(s.as_str()),
            v => v.get("input").or_else(|| v.get("patch")).and_then(Value::as_str),
        };
        if let Some(p) = patch {
            files.extend(patch_files(p));
        }
        if files.is_empty() {
            files.push(String::from("(an unnamed file)"));
        }
        out.extend(files.into_iter().map(|file| FileEdit { file, place: None, command: None }));
    }
    // Codex code mode: an `exec` cell's script patches files through `tools.apply_patch`.
    if call.name == "exec"
        && let Some(script) = call.input.as_str()
    {
        for patch in crate::formats::codex::code_mode_patches(script) {
            out.extend(patch_files(&patch).into_iter().map(|file| FileEdit { file, place: None, command: None }));
        }
    }
    if let Some(cmd) = call.command.as_deref().filter(|_| !is_edit_tool(call)) {
        let script = shell::parse(cmd);
        for (k, file) in script_edited_files(&script) {
            let place = script.commands.get(k).and_then(place_of);
            out.push(FileEdit { file, place, command: Some(k) });
        }
    }
    out
}

/// The call is an editing tool (`Edit`, `apply_patch`, SWE-agent's `edit`, a
/// `str_replace_editor` command other than `view`…). Its `command`, when the format
/// sets one, is an edit script, not a shell command line.
pub fn is_edit_tool(call: &Call) -> bool {
    let name = tool(call);
    EDIT_TOOLS.contains(&name.as_str())
        || (EDITOR_TOOLS.contains(&name.as_str())
            && call.input.get("command").and_then(Value::as_str).is_some_and(|c| c != "view"))
}

/// Files a call changes, wherever they are (see [`edits`]).
pub fn edited_files(call: &Call) -> Vec<String> {
    let mut files: Vec<String> = edits(call).into_iter().map(|e| e.file).collect();
    files.sort();
    files.dedup();
    files
}

/// The machine a command runs on: its `ssh` destination without the user, or its
/// container; `None` for the agent's own machine.
pub fn place_of(c: &SimpleCommand) -> Option<String> {
    c.remote_host.as_deref().map(host_only).or(c.container.as_deref()).map(str::to_string)
}

/// `root@10.0.0.5` → `10.0.0.5`.
fn host_only(dest: &str) -> &str {
    dest.rsplit_once('@').map_or(dest, |(_, h)| h)
}

/// Machines a call copies local files to (`rsync … host:dir`, `scp f user@host:dir`),
/// with the index of the copying command: edits made here reach those machines from
/// then on.
pub fn copies_to(call: &Call) -> Vec<(usize, String)> {
    let Some(cmd) = &call.command else { return Vec::new() };
    let script = shell::parse(cmd);
    let mut out = Vec::new();
    for (k, c) in script.commands.iter().enumerate() {
        if c.remote_host.is_some() || !matches!(c.name(), "rsync" | "scp") {
            continue;
        }
        // The destination is the last operand; `host:path` names a remote machine.
        if let Some(dest) = c.positionals().last()
            && !dest.contains("://")
            && let Some((host, _)) = dest.split_once(':')
            && !host.is_empty()
            && !host.contains('/')
        {
            out.push((k, host_only(host).to_string()));
        }
    }
    out
}

/// What an edit did to a file's text, as far as the call says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    pub file: String,
    /// The machine the file is on (see [`FileEdit::place`]).
    pub place: Option<String>,
    /// For a shell edit, the index in the parsed script of the command that made it.
    pub command: Option<usize>,
    /// The lines the edit took out (an Edit tool's old string, a patch's `-` lines).
    pub removed: Vec<String>,
    /// The lines it put in; for a whole write, the file's whole new content.
    pub added: Vec<String>,
    /// `added` is the whole file (the Write tool, `cat > f <<EOF`, `tee f <<EOF`); what
    /// it held before is not said.
    pub whole: bool,
}

/// The text edits of a call: an Edit tool's old and new strings (also each of a
/// MultiEdit's), a Write tool's content, an `apply_patch` patch's `-`/`+` lines per file
/// (as a tool, through `apply_patch <<EOF` in a shell, or in a Codex code-mode script),
/// and heredocs written to a file (`cat > f <<EOF` whole, `cat >> f <<EOF` and `tee -a`
/// appended). Calls that failed changed nothing and give none.
pub fn text_edits(call: &Call) -> Vec<TextEdit> {
    let mut out = Vec::new();
    let failed = call.result.as_ref().is_some_and(|r| r.is_error) || failed(call);
    if failed && (call.command.is_none() || is_edit_tool(call)) {
        return out;
    }
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    let text = |v: &Value, keys: &[&str]| keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str)).map(lines);
    if is_edit_tool(call) {
        let input = &call.input;
        let file = FILE_FIELDS.iter().find_map(|k| input.get(*k).and_then(Value::as_str)).unwrap_or("").to_string();
        let edit =
            |removed, added, whole| TextEdit { file: file.clone(), place: None, command: None, removed, added, whole };
        const OLD: &[&str] = &["old_string", "old_str", "oldText", "old_text"];
        const NEW: &[&str] = &["new_string", "new_str", "newText", "new_text"];
        if let (Some(old), Some(new)) = (text(input, OLD), text(input, NEW)) {
            out.push(edit(old, new, false));
        }
        for e in input.get("edits").and_then(Value::as_array).into_iter().flatten() {
            if let (Some(old), Some(new)) = (text(e, OLD), text(e, NEW)) {
                out.push(edit(old, new, false));
            }
        }
        if out.is_empty()
            && !file.is_empty()
            && let Some(content) = input.get("content").and_then(Value::as_str)
        {
            out.push(edit(Vec::new(), lines(content), true));
        }
        let patch = match input {
            Value::String(s) => Some(s.as_str()),
            v => v.get("input").or_else(|| v.get("patch")).and_then(Value::as_str),
        };
        out.extend(patch.into_iter().flat_map(patch_edits));
        return out;
    }
    if call.name == "exec"
        && let Some(script) = call.input.as_str()
    {
        for patch in crate::formats::codex::code_mode_patches(script) {
            out.extend(patch_edits(&patch));
        }
    }
    let Some(cmd) = call.command.as_deref() else { return out };
    let script = shell::parse(cmd);
    for ((k, c), docs) in script.commands.iter().enumerate().zip(heredocs_by_command(&script)) {
        let place = place_of(c);
        let mut found: Vec<TextEdit> = Vec::new();
        match (c.name(), docs) {
            ("apply_patch", _) => {
                found.extend(docs.iter().chain(&c.args).flat_map(|p| patch_edits(p)));
            }
            ("cat", [body]) => {
                if let Some(r) = c.redirects.iter().find(|r| matches!(r.op, ">" | ">|" | ">>")) {
                    let whole = r.op != ">>";
                    found.push(TextEdit {
                        file: r.target.clone(),
                        place: None,
                        command: None,
                        removed: Vec::new(),
                        added: lines(body),
                        whole,
                    });
                }
            }
            ("tee", [body]) => {
                let whole = !c.has_flag(Some('a'), Some("append"));
                if let Some(f) = c.positionals().first() {
                    found.push(TextEdit {
                        file: f.to_string(),
                        place: None,
                        command: None,
                        removed: Vec::new(),
                        added: lines(body),
                        whole,
                    });
                }
            }
            _ => {}
        }
        // A failed command line whose last command is the edit: the edit failed.
        if failed && k + 1 == script.commands.len() {
            continue;
        }
        out.extend(found.into_iter().map(|e| TextEdit { place: place.clone(), command: Some(k), ..e }));
    }
    out
}

/// The `-` and `+` lines of a patch, per file: a Codex patch (`*** Update File: f`,
/// `*** Add File: f`) or a unified diff (`+++ b/f`).
pub fn patch_edits(patch: &str) -> Vec<TextEdit> {
    let mut out: Vec<TextEdit> = Vec::new();
    let mut lines = patch.lines().peekable();
    while let Some(line) = lines.next() {
        let l = line.trim_end();
        let header = ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
            .iter()
            .find_map(|p| l.strip_prefix(p))
            .or_else(|| l.strip_prefix("+++ b/"))
            .or_else(|| l.strip_prefix("+++ ").filter(|n| !n.starts_with("/dev/null")));
        if let Some(name) = header {
            let name = name.split('\t').next().unwrap_or(name).trim();
            out.push(TextEdit {
                file: name.to_string(),
                place: None,
                command: None,
                removed: Vec::new(),
                added: Vec::new(),
                whole: false,
            });
            continue;
        }
        // A unified diff's `--- a/f` line comes before its `+++` line.
        if l.starts_with("--- ") && lines.peek().is_some_and(|n| n.starts_with("+++ ")) {
            continue;
        }
        if l.starts_with("*** ") || l.starts_with("@@") {
            continue;
        }
        let Some(cur) = out.last_mut() else { continue };
        if let Some(r) = line.strip_prefix('-') {
            cur.removed.push(r.to_string());
        } else if let Some(a) = line.strip_prefix('+') {
            cur.added.push(a.to_string());
        }
    }
    out.retain(|e| !e.removed.is_empty() || !e.added.is_empty());
    out
}

/// Files named by `*** Update File:`/`*** Add File:`/`*** Delete File:` lines of a
/// Codex patch, or by `+++ b/…` lines of a unified diff.
pub fn patch_files(patch: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in patch.lines() {
        let l = line.trim_end();
        let name = ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
            .iter()
            .find_map(|p| l.strip_prefix(p))
            .or_else(|| l.strip_prefix("+++ b/"))
            .or_else(|| l.strip_prefix("+++ ").filter(|n| !n.starts_with("/dev/null")));
        if let Some(n) = name {
            let n = n.split('\t').next().unwrap_or(n).trim();
            if !n.is_empty() {
                out.push(n.to_string());
            }
        }
    }
    out
}

/// Files the commands of a shell script write to, with the index of the command that
/// writes each.
/// The heredoc bodies each command of `script` reads on stdin, by command: the
/// script's heredocs, in order, shared out by each command's `<<` redirects.
pub fn heredocs_by_command(script: &Script) -> Vec<&[String]> {
    let mut at = 0usize;
    script
        .commands
        .iter()
        .map(|c| {
            let n = c.redirects.iter().filter(|r| r.op == "<<" || r.op == "<<-").count();
            let docs = script.heredocs.get(at..at + n).unwrap_or(&[]);
            at += n;
            docs
        })
        .collect()
}

pub fn script_edited_files(script: &Script) -> Vec<(usize, String)> {
    let mut all = Vec::new();
    for ((k, c), docs) in script.commands.iter().enumerate().zip(heredocs_by_command(script)) {
        let mut files: Vec<String> = Vec::new();
        for r in &c.redirects {
            if matches!(r.op, ">" | ">>" | ">|" | "&>" | "&>>")
                && writes_a_file(&r.target)
                && redirect_edits(c, &r.target)
            {
                files.push(r.target.clone());
            }
        }
        match c.name() {
            "sed" | "gsed" if c.has_flag(Some('i'), Some("in-place")) => files.extend(owned(c.file_args())),
            "perl" if c.args.iter().any(|a| a.starts_with("-pi") || a.starts_with("-i")) => {
                // Without `-e` the first operand is the script.
                let skip = usize::from(!c.has_flag(Some('e'), None) && !c.has_flag(Some('E'), None));
                files.extend(c.positionals().into_iter().skip(skip).map(str::to_string));
            }
            "tee" => {
                files.extend(owned(c.file_args()).into_iter().filter(|f| writes_a_file(f) && is_source_file(f)));
            }
            "patch" => files.push(c.flag_value(Some('i'), Some("input")).unwrap_or("(patch)").to_string()),
            "apply_patch" => {
                for d in docs {
                    files.extend(patch_files(d));
                }
                for a in &c.args {
                    files.extend(patch_files(a));
                }
            }
            "git" => {
                let pos = c.positionals();
                match pos.first().copied() {
                    Some("apply" | "am" | "cherry-pick" | "revert" | "merge" | "rebase" | "stash" | "reset") => {
                        files.push(format!("(git {})", pos[0]));
                    }
                    Some("checkout" | "restore") if c.args.iter().any(|a| a == "--") || pos.len() > 1 => {
                        files.extend(owned(c.file_args()));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        all.extend(files.into_iter().map(|f| (k, f)));
    }
    all
}

fn owned(v: Vec<&str>) -> Vec<String> {
    v.into_iter().map(str::to_string).collect()
}

/// A redirect target that is a real file, not a device or a descriptor.
fn writes_a_file(target: &str) -> bool {
    !target.is_empty() && !target.starts_with("/dev/") && !target.starts_with('&') && target != "-"
}

/// Does writing stdout to `target` edit something a later run depends on? Content
/// written on purpose (`cat > f <<EOF`, `echo x > f`) does; so does generating a source
/// or config file. Anything else is capturing a run's output (`cmd > run.log 2>&1`).
fn redirect_edits(c: &SimpleCommand, target: &str) -> bool {
    matches!(c.name(), "cat" | "echo" | "printf") || is_source_file(target)
}

/// Code and configuration, by extension.
fn is_source_file(path: &str) -> bool {
    const EXT: &[&str] = &[
        "py",
        "rs",
        "go",
        "js",
        "mjs",
        "ts",
        "tsx",
        "jsx",
        "java",
        "kt",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cu",
        "cuh",
        "rb",
        "php",
        "sh",
        "bash",
        "zsh",
        "yaml",
        "yml",
        "toml",
        "json",
        "ini",
        "cfg",
        "conf",
        "env",
        "properties",
        "xml",
        "gradle",
        "cmake",
        "mk",
        "sql",
        "lua",
        "swift",
        "scala",
        "ex",
        "exs",
    ];
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(name, "Makefile" | "Dockerfile" | "CMakeLists.txt" | ".env")
        || name.rsplit_once('.').is_some_and(|(_, ext)| EXT.contains(&ext.to_ascii_lowercase().as_str()))
}

/// Did the call fail? A non-zero exit code, or an error result without one. Where the
/// format records neither (aider's `/run` output), the end of the output decides: a
/// traceback, an error or a failure count in its last lines.
pub fn failed(call: &Call) -> bool {
    let Some(r) = &call.result else { return false };
    match r.exit_code {
        Some(c) => c != 0,
        None if r.is_error => true,
        None => output_says_it_failed(&r.output),
    }
}

/// The last lines of an output say it failed: a traceback, an error, a failure count.
pub fn output_says_it_failed(output: &str) -> bool {
    let tail: Vec<&str> = output.lines().rev().filter(|l| !l.trim().is_empty()).take(5).collect();
    tail.iter().any(|l| {
        let low = l.to_lowercase();
        low.starts_with("traceback")
            || low.contains("error:")
            || low.contains("error[")
            || (low.contains(" failed") && !low.contains(" 0 failed"))
            || low.starts_with("failed")
            || low.starts_with("fatal:")
            || low.contains("exception:")
    })
}

/// The call only looks: a reading/searching tool, or a shell command whose every program
/// only reads (`git` only with a looking subcommand, `sed` without `-i`, `tee` only to
/// /dev/null). Anything unknown counts as possibly changing something.
pub fn only_looks(call: &Call) -> bool {
    let name = tool(call);
    if LOOKING_TOOLS.contains(&name.as_str()) {
        return true;
    }
    if is_edit_tool(call) {
        return false;
    }
    if EDITOR_TOOLS.contains(&name.as_str()) {
        return call.input.get("command").and_then(Value::as_str) == Some("view");
    }
    let Some(cmd) = &call.command else { return false };
    let script = shell::parse(cmd);
    script.exports.is_empty()
        && script_edited_files(&script).is_empty()
        && script.commands.iter().all(command_only_looks)
}

/// A command's first positional argument: its subcommand, for most tools.
fn sub(c: &SimpleCommand) -> &str {
    c.positionals().first().copied().unwrap_or("")
}

/// One simple command only reads.
pub fn command_only_looks(c: &SimpleCommand) -> bool {
    let name = c.name();
    // PowerShell's verbs that only look (`Get-ChildItem`, `Test-Path`, `Select-Object`…),
    // and cmd's `dir`.
    let lower = name.to_ascii_lowercase();
    if POWERSHELL_LOOKING_VERBS.iter().any(|v| lower.starts_with(v)) || lower == "dir" {
        return true;
    }
    if !LOOKING_PROGRAMS.contains(&name) {
        return false;
    }
    match name {
        "git" => GIT_LOOKING.contains(&sub(c)),
        "sed" => !c.has_flag(Some('i'), Some("in-place")),
        "curl" | "wget" => {
            // A request that sends data may change the server's state.
            !(c.has_flag(Some('d'), Some("data"))
                || c.has_flag(None, Some("data-raw"))
                || c.has_flag(None, Some("data-binary"))
                || c.has_flag(None, Some("json"))
                || c.has_flag(Some('F'), Some("form"))
                || c.flag_value(Some('X'), Some("request")).is_some_and(|m| !m.eq_ignore_ascii_case("GET")))
        }
        "find" => !c.args.iter().any(|a| a == "-delete" || a == "-exec" || a == "-execdir"),
        // `ssh-add -l` / `-L` list the agent's keys; without them it adds or removes keys.
        "ssh-add" => c.has_flag(Some('l'), None) || c.has_flag(Some('L'), None),
        // Tools that also change things look only with their looking subcommands.
        "docker" | "podman" => matches!(sub(c), "logs" | "ps" | "inspect" | "stats" | "top" | "images"),
        "kubectl" | "oc" => matches!(sub(c), "get" | "logs" | "describe" | "top" | "wait" | "explain"),
        "systemctl" | "service" => {
            matches!(sub(c), "status" | "is-active" | "is-failed" | "show" | "list-units") || c.args.len() == 2
        }
        "redis-cli" => {
            matches!(sub(c).to_ascii_lowercase().as_str(), "ping" | "info" | "get" | "exists" | "ttl" | "dbsize")
        }
        _ => true,
    }
}

/// Files whose edits do not change what runs: notes, plans, docs, logs.
pub fn is_note(path: &str) -> bool {
    let p = path.to_lowercase();
    [".md", ".markdown", ".rst", ".txt", ".ipynb", ".log"].iter().any(|e| p.ends_with(e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CallResult;
    use serde_json::json;

    fn bash(cmd: &str) -> Call {
        Call { name: "Bash".into(), command: Some(cmd.into()), input: json!({ "command": cmd }), ..Call::default() }
    }

    #[test]
    fn edit_tools_name_their_files() {
        let c = Call { name: "Edit".into(), input: json!({"file_path": "/r/src/a.py"}), ..Call::default() };
        assert_eq!(edited_files(&c), ["/r/src/a.py"]);
        let patch =
            "*** Begin Patch\n*** Update File: worker/backoff.py\n@@\n-x\n+y\n*** Add File: t.py\n*** End Patch";
        let c = Call { name: "apply_patch".into(), input: json!(patch), ..Call::default() };
        assert_eq!(edited_files(&c), ["t.py", "worker/backoff.py"]);
        // Codex code mode: the same patch through the `exec` tool's script.
        let script = format!("await tools.apply_patch({});\ntext(\"patched\");", json!(patch));
        let c = Call { name: "exec".into(), input: json!(script), ..Call::default() };
        assert_eq!(edited_files(&c), ["t.py", "worker/backoff.py"]);
        let view = Call {
            name: "str_replace_editor".into(),
            input: json!({"command": "view", "path": "/a.py"}),
            ..Call::default()
        };
        assert!(edited_files(&view).is_empty());
        assert!(only_looks(&view));
    }

    #[test]
    fn powershell_looking_cmdlets_only_look() {
        assert!(only_looks(&bash("Get-NetTCPConnection -LocalPort 3005 | Select-Object OwningProcess")));
        assert!(only_looks(&bash("Test-Path C:\\x; dir /s /b *.lnk")));
        assert!(!only_looks(&bash("Get-Process node | Stop-Process -Force")));
        assert!(!only_looks(&bash("Set-Content -Path a.txt -Value x")));
    }

    #[test]
    fn shell_edits_are_found_and_log_capture_is_not_an_edit() {
        assert_eq!(edited_files(&bash("sed -i 's/a/b/' src/x.py")), ["src/x.py"]);
        assert_eq!(edited_files(&bash("ssh h \"sed -i 's/a/b/' /srv/c.py\"")), ["/srv/c.py"]);
        assert_eq!(edited_files(&bash("cat > cfg.yaml <<EOF\na: 1\nEOF")), ["cfg.yaml"]);
        assert!(edited_files(&bash("nohup python -m srv --tp 8 > /data/logs/srv.log 2>&1 &")).is_empty());
        assert!(edited_files(&bash("grep -n x f.py 2>/dev/null | head")).is_empty());
        let ap = bash("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.rs\n@@\n-1\n+2\n*** End Patch\nEOF");
        assert_eq!(edited_files(&ap), ["a.rs"]);
    }

    #[test]
    fn edits_know_their_machine_and_copies_carry_them() {
        let e = edits(&bash("ssh root@gpu 'sed -i s/a/b/ /opt/x.py' && sed -i s/c/d/ y.py"));
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].file.as_str(), e[0].place.as_deref()), ("/opt/x.py", Some("gpu")));
        assert_eq!((e[1].file.as_str(), e[1].place.as_deref()), ("y.py", None));
        let c = bash("rsync -az a.py b.py root@10.0.0.5:/opt/app/ --relative && echo ok");
        assert_eq!(copies_to(&c), [(0, "10.0.0.5".to_string())]);
        assert_eq!(copies_to(&bash("scp -P 2222 x.py gpu:/tmp/")), [(0, "gpu".to_string())]);
        assert!(copies_to(&bash("rsync -a root@h:/logs/ ./logs/")).is_empty());
    }

    #[test]
    fn looking_and_failing() {
        assert!(only_looks(&bash("tail -50 /data/logs/x.log | grep -i error")));
        assert!(only_looks(&bash("git status && git diff")));
        assert!(!only_looks(&bash("git stash")));
        assert!(!only_looks(&bash("pip install flashinfer")));
        assert!(!only_looks(&bash("curl -X POST localhost:8000/reset")));
        assert!(!only_looks(&bash("export A=1")));
        assert!(only_looks(&bash("docker logs api --tail 5 && kubectl get pods && systemctl status api")));
        assert!(!only_looks(&bash("docker restart api")));
        assert!(!only_looks(&bash("kubectl apply -f deploy.yaml")));
        assert!(only_looks(&bash("redis-cli ping")) && !only_looks(&bash("redis-cli FLUSHALL")));
        let mut c = bash("make");
        c.result = Some(CallResult { exit_code: Some(2), ..CallResult::default() });
        assert!(failed(&c));
        c.result = Some(CallResult { exit_code: Some(0), is_error: true, ..CallResult::default() });
        assert!(!failed(&c));
        c.result = Some(CallResult { exit_code: None, is_error: true, ..CallResult::default() });
        assert!(failed(&c));
        // No exit code recorded: the output's end decides.
        let said = |out: &str| CallResult { output: out.into(), ..CallResult::default() };
        c.result = Some(said("collected 3 items\n1 failed, 2 passed in 0.2s"));
        assert!(failed(&c));
        c.result = Some(said("Traceback (most recent call last):\n  File x\nValueError: bad"));
        assert!(failed(&c));
        c.result = Some(said("3 passed in 0.1s"));
        assert!(!failed(&c));
    }
}
