//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod http;
pub mod secrets;
pub mod synth;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use debrief::formats;
use debrief::model::Session;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Set (to anything but `0`) by `.ci/run`: a missing `../shared` fails the tests that
/// read it instead of skipping them.
pub const REQUIRE_SHARED: &str = "DEBRIEF_REQUIRE_SHARED";

/// `../shared/corpus-real`, the real public transcripts kept beside the checkout (not
/// part of the repository), or `None` when it is not there: then this prints one line
/// saying which test is skipped and why, or fails the test when `DEBRIEF_REQUIRE_SHARED`
/// is set. Use as `let Some(dir) = real_dir() else { return };`.
pub fn real_dir() -> Option<PathBuf> {
    shared_corpus(None)
}

/// A file or folder of `../shared/corpus-real`; `None` (after one line on stderr) when
/// that folder is absent, see [`real_dir`]. A path missing inside a present folder is
/// returned as is, so the test fails on it.
pub fn real(rel: &str) -> Option<PathBuf> {
    real_dir().map(|d| d.join(rel))
}

/// For a test that reads the real corpus in addition to its own samples: the file or
/// folder, or `None` after one line saying that `part` is left out (a failure when
/// `DEBRIEF_REQUIRE_SHARED` is set).
pub fn real_part(rel: &str, part: &str) -> Option<PathBuf> {
    shared_corpus(Some(part)).map(|d| d.join(rel))
}

/// `../shared/corpus-real-new`, the second set of real public transcripts (Gemini CLI's
/// own history, pi, OpenHands V1, SpecStory exports of Copilot, Cursor, Codex CLI and
/// Gemini CLI, …), or `None` after one line when absent: as [`real_dir`].
pub fn real_new_dir() -> Option<PathBuf> {
    shared_folder("corpus-real-new", None)
}

/// A file or folder of `../shared/corpus-real-new`; `None` (after one line on stderr)
/// when that folder is absent, a failure when `DEBRIEF_REQUIRE_SHARED` is set.
pub fn real_new(rel: &str) -> Option<PathBuf> {
    real_new_dir().map(|d| d.join(rel))
}

/// The file a format reads for a transcript of the shared corpora: the file itself, or
/// for a folder (an OpenHands V1 conversation, one event per file) its first event file
/// in name order, through which the reader takes the whole folder.
pub fn transcript_file(path: &Path) -> PathBuf {
    if !path.is_dir() {
        return path.to_path_buf();
    }
    let mut events: Vec<PathBuf> = std::fs::read_dir(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|e| e.unwrap().path())
        .collect();
    events.sort();
    events.remove(0)
}

fn shared_corpus(part: Option<&str>) -> Option<PathBuf> {
    shared_folder("corpus-real", part)
}

/// `../shared`, or `$DEBRIEF_SHARED` (a checkout elsewhere, such as a git worktree, can
/// point at the shared folder with it).
pub fn shared_root() -> PathBuf {
    std::env::var_os("DEBRIEF_SHARED").map(PathBuf::from).unwrap_or_else(|| root().join("../shared"))
}

fn shared_folder(name: &str, part: Option<&str>) -> Option<PathBuf> {
    let dir = shared_root().join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    let why = format!("../shared/{name} not found (real transcripts beside the checkout)");
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    if std::env::var_os(REQUIRE_SHARED).is_some_and(|v| v != "0") {
        panic!("{test}: {why}, and {REQUIRE_SHARED} is set");
    }
    let what = match part {
        None => format!("skipped {test}"),
        Some(p) => format!("{test}: skipped {p}"),
    };
    // Straight to the process's stderr: the test harness captures `eprintln!` of a
    // passing test, and a skip nobody sees is a silent pass.
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{what}: {why}; set {REQUIRE_SHARED}=1 to make this a failure");
    None
}

/// A file of the project's own corpus.
pub fn corpus(rel: &str) -> PathBuf {
    root().join("corpus").join(rel)
}

/// A sample of the corpus with the records broken on purpose that the tests of bad
/// input need (`tests/data/broken/`, laid out as `corpus/`). The corpus copy has them
/// removed, so that a first run over `corpus/` (the README's) reads clean.
pub fn broken(rel: &str) -> PathBuf {
    root().join("tests/data/broken").join(rel)
}

/// Parse a file with format detection; panics with the error.
pub fn parse(path: &Path) -> Vec<Session> {
    formats::parse_file(path, None).unwrap_or_else(|e| panic!("{}: {e:#}", path.display())).sessions
}

/// A `debrief` command with its own index folder, no colour, and one indexing thread
/// (documents in the order they were read, so equal scores rank the same every run).
pub fn debrief(index: &Path) -> Command {
    let mut c = Command::cargo_bin("debrief").expect("the debrief binary is built");
    c.env("DEBRIEF_INDEX", index)
        .env("NO_COLOR", "1")
        .env("DEBRIEF_INDEX_THREADS", "1")
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR");
    c
}

/// Calls, shell commands, failed calls and calls without a result in a session.
pub fn call_counts(s: &Session) -> (usize, usize, usize, usize) {
    let calls: Vec<_> = s.messages.iter().flat_map(|m| &m.calls).collect();
    (
        calls.len(),
        calls.iter().filter(|c| c.command.is_some()).count(),
        calls.iter().filter(|c| c.result.as_ref().is_some_and(|r| r.is_error)).count(),
        calls.iter().filter(|c| c.result.is_none()).count(),
    )
}

/// Every file under a folder of the real corpus, hidden ones included, sorted; `None`
/// when the real corpus is absent (see [`real_dir`]).
pub fn real_files(dir: &str) -> Option<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(real(dir)?)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    out.sort();
    Some(out)
}

/// Path relative to the real corpus, for messages and tables.
pub fn rel(path: &Path) -> String {
    let base = root().join("../shared/corpus-real/");
    path.strip_prefix(&base).unwrap_or(path).to_string_lossy().into_owned()
}

/// Non-blank source lines that no message's `line..=end_line` covers, except those
/// `structural` accepts (headers, separators): what a line-oriented parser dropped.
pub fn uncovered_lines(path: &Path, sessions: &[Session], structural: impl Fn(&str) -> bool) -> Vec<(u32, String)> {
    let text = std::fs::read_to_string(path).expect("readable");
    let mut covered = vec![false; text.lines().count() + 2];
    for m in sessions.iter().flat_map(|s| &s.messages) {
        let (Some(a), Some(b)) = (m.line, m.end_line) else { panic!("{}: msg {} has no lines", path.display(), m.idx) };
        assert!(a <= b, "{}: msg {} ends before it starts", path.display(), m.idx);
        for l in a..=b {
            if let Some(c) = covered.get_mut(l as usize) {
                *c = true;
            }
        }
    }
    text.lines()
        .enumerate()
        .map(|(i, l)| (i as u32 + 1, l))
        .filter(|(n, l)| !l.trim().is_empty() && !covered[*n as usize] && !structural(l))
        .map(|(n, l)| (n, l.to_string()))
        .collect()
}

/// Resume a line-oriented parse at checkpoints of a full parse (at most `samples` of
/// them, spread over the file) and check that the messages it yields are the full
/// parse's messages from that point on. Returns how many checkpoints were tried.
pub fn resumes_reproduce_the_full_parse(path: &Path, format: &'static dyn formats::Format, samples: usize) -> usize {
    let full = formats::parse_file(path, Some(format)).expect("parses");
    let mut first = formats::Input::open(path, None).unwrap();
    let mut sink = formats::Collect::default();
    format.parse(&mut first, &mut sink).unwrap();
    let step = sink.checkpoints.len().div_ceil(samples.max(1)).max(1);
    let checkpoints: Vec<_> = sink.checkpoints.into_iter().step_by(step).collect();
    for cp in &checkpoints {
        let resume = formats::Resume { checkpoint: cp.clone(), session: full.sessions[cp.session].meta.clone() };
        let mut input = formats::Input::open(path, Some(resume)).unwrap();
        let mut again = formats::Collect::default();
        format.parse(&mut input, &mut again).unwrap();
        for (s, msgs) in again.messages.iter().enumerate().skip(cp.session) {
            let expected: Vec<_> =
                full.sessions[s].messages.iter().filter(|m| s > cp.session || m.idx >= cp.next_idx).collect();
            let got: Vec<_> = msgs.iter().collect();
            assert_eq!(got, expected, "{}: resumed at line {} (session {})", path.display(), cp.line, cp.session);
        }
    }
    checkpoints.len()
}

/// A command's stderr, for assertion messages.
pub fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A command's stdout read as JSON lines.
pub fn json_lines(out: &std::process::Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect()
}

/// `debrief search ARGS --json` on the index at `ix`, which must succeed: its hits.
pub fn search_json(ix: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let out = debrief(ix).arg("search").args(args).arg("--json").output().unwrap();
    assert!(out.status.success(), "search failed: {}", stderr_of(&out));
    json_lines(&out)
}
