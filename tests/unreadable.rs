//! Files that cannot be read get a clear `path: reason` line, go to `last-run.log`,
//! make the exit code 1, and every other file is still indexed. Tests may run as root,
//! where `chmod 000` blocks nothing, so the problems are made honestly: a file that
//! vanishes between listing and reading (a hook deletes it), a named pipe and a path
//! through a file given on the command line, a folder named like a transcript, and —
//! when `setpriv` can drop to the `nobody` user — a file and a folder without read
//! permission, read as that user. (As a non-root user the permission case runs
//! directly.)

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

fn debrief(ix: &Path) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("debrief"));
    c.env("DEBRIEF_INDEX", ix).env("NO_COLOR", "1");
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A folder with two good sessions, one of which is also the file that goes missing.
fn folder(root: &Path) -> std::path::PathBuf {
    let d = root.join("projects");
    std::fs::create_dir_all(d.join("sub")).expect("mkdir");
    std::fs::copy(common::corpus("claude-code/ledger-timezone-fix.jsonl"), d.join("ledger.jsonl")).expect("copy");
    std::fs::copy(common::corpus("claude-code/rewind-compact.jsonl"), d.join("sub/rewind.jsonl")).expect("copy");
    d
}

/// Whether a session from a file whose path ends with `tail` is indexed.
fn indexed(ix: &Path, tail: &str) -> bool {
    let out = debrief(ix).args(["sessions", "--json", "--no-redact"]).output().expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).lines().any(|l| {
        let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
        v["source"].as_str().is_some_and(|s| s.ends_with(tail))
    })
}

#[test]
fn special_and_impossible_paths_are_named_and_the_rest_is_indexed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = folder(tmp.path());
    let ix = tmp.path().join("ix");
    // A folder named like a transcript is a folder: walked, not read as a file.
    std::fs::create_dir_all(d.join("fake.jsonl")).expect("mkdir");
    std::fs::copy(
        common::corpus("codex/2025/07/28/rollout-2025-07-28T09-14-03-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl"),
        d.join("fake.jsonl/inside.jsonl"),
    )
    .expect("copy");
    // A named pipe: reading it would wait for a writer for ever.
    let fifo = d.join("pipe.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success();
    assert!(made);
    let through = d.join("ledger.jsonl/more.jsonl");
    let out = debrief(&ix)
        .args(["index"])
        .arg(&d)
        .arg(&fifo)
        .arg(&through)
        .arg(tmp.path().join("missing.jsonl"))
        .output()
        .expect("run");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{}: not a regular file or folder (a named pipe); skipped", fifo.display())),
        "{err}"
    );
    assert!(err.contains(&format!("{}: Not a directory", through.display())), "{err}");
    assert!(err.contains("missing.jsonl: No such file or directory"), "{err}");
    assert!(err.contains("3 unreadable files: see"), "{err}");
    let log = std::fs::read_to_string(ix.join("last-run.log")).expect("log");
    assert!(log.contains("pipe.jsonl: unreadable: not a regular file"), "{log}");
    // Everything else is in: both sessions of the folder and the one inside fake.jsonl/.
    assert!(indexed(&ix, "projects/ledger.jsonl") && indexed(&ix, "sub/rewind.jsonl"));
    assert!(indexed(&ix, "fake.jsonl/inside.jsonl"), "the session inside the folder named like a transcript");
    // The pipe in the folder walk is passed over without blocking; show and detect name it too.
    let out = debrief(&ix).args(["detect"]).arg(&fifo).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not a regular file or folder (a named pipe)"), "{}", stderr(&out));
}

#[test]
fn a_file_that_vanishes_between_listing_and_reading_is_reported_and_the_run_goes_on() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = folder(tmp.path());
    let ix = tmp.path().join("ix");
    // The hidden hook deletes the file just after the folder was listed.
    let gone = d.join("ledger.jsonl");
    let out =
        debrief(&ix).env("DEBRIEF_TEST_REMOVE_AFTER_LISTING", &gone).args(["index"]).arg(&d).output().expect("run");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("{}: ", gone.display())) && err.contains("No such file"), "{err}");
    assert!(indexed(&ix, "sub/rewind.jsonl"), "the other session is indexed");
    // The next run knows nothing of it and is clean.
    let out = debrief(&ix).args(["index"]).arg(&d).output().expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Run `debrief` as `nobody` when we are root and `setpriv` works; as ourselves when
/// we are not root (then permissions apply already). `None` when neither can test.
fn as_unprivileged(ix: &Path) -> Option<Command> {
    let root = Command::new("id").arg("-u").output().ok().is_some_and(|o| o.stdout.starts_with(b"0\n"));
    if !root {
        return Some(debrief(ix));
    }
    let probe = Command::new("setpriv").args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        return None;
    }
    let mut c = Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("debrief"))
        .env("DEBRIEF_INDEX", ix)
        .env("NO_COLOR", "1")
        .env("HOME", ix);
    Some(c)
}

#[test]
fn files_and_folders_without_read_permission_are_named_and_skipped() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = folder(tmp.path());
    let ix = tmp.path().join("ix");
    let Some(mut cmd) = as_unprivileged(&ix) else {
        eprintln!("cannot drop privileges here (no setpriv): permission case skipped");
        return;
    };
    // Everyone may reach the folder and the index; the two victims only their owner.
    for p in [tmp.path(), &d, &d.join("sub")] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    std::fs::create_dir_all(&ix).expect("mkdir");
    std::fs::set_permissions(&ix, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    std::fs::set_permissions(d.join("ledger.jsonl"), std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let locked = d.join("locked");
    std::fs::create_dir_all(&locked).expect("mkdir");
    std::fs::copy(common::corpus("claude-code/headless-error.jsonl"), locked.join("x.jsonl")).expect("copy");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let bin_ok = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("debrief"))
        .arg("--version")
        .status()
        .is_ok_and(|s| s.success());
    if !bin_ok {
        eprintln!("`nobody` cannot run the test binary here: permission case skipped");
        return;
    }
    let out = cmd.args(["index"]).arg(&d).output().expect("run");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{}: ", d.join("ledger.jsonl").display())) && err.contains("Permission denied"),
        "{err}"
    );
    assert!(err.contains(&format!("{}: ", locked.display())), "the locked folder is named: {err}");
    assert!(err.contains("2 unreadable files"), "{err}");
    // Restore, so the files can be cleaned up and searched.
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert!(indexed(&ix, "sub/rewind.jsonl"), "the readable session is indexed");
}

/// Searching needs no write access to the index: an index another user built (here:
/// root's, searched as `nobody`; as a non-root user, one made read-only) answers
/// `search` and `sessions`, with and without tantivy's lock file in it. What cannot be
/// done is said in one plain line that names the folder.
#[test]
fn a_read_only_index_can_be_searched() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = folder(tmp.path());
    let ix = tmp.path().join("ix");
    let out = debrief(&ix).args(["index"]).arg(&d).output().expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let root = Command::new("id").arg("-u").output().ok().is_some_and(|o| o.stdout.starts_with(b"0\n"));
    // Readable by all, writable by its owner only (as non-root: by nobody).
    let mode = if root { 0o755 } else { 0o555 };
    let mut dirs: Vec<std::path::PathBuf> = vec![tmp.path().to_path_buf(), d.clone(), d.join("sub")];
    dirs.extend(
        walkdir::WalkDir::new(&ix)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_dir())
            .map(|e| e.into_path()),
    );
    for p in &dirs {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    // tantivy writes some files readable by their owner only; the index is shared here.
    for e in walkdir::WalkDir::new(&ix).into_iter().filter_map(Result::ok).filter(|e| e.file_type().is_file()) {
        std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(mode & 0o644)).expect("chmod");
    }
    let lock = ix.join("tantivy/.tantivy-meta.lock");
    for with_lock_file in [true, false] {
        if !with_lock_file {
            std::fs::set_permissions(ix.join("tantivy"), std::fs::Permissions::from_mode(0o755)).expect("chmod");
            let _ = std::fs::remove_file(&lock);
            std::fs::set_permissions(ix.join("tantivy"), std::fs::Permissions::from_mode(mode)).expect("chmod");
        }
        let Some(mut cmd) = as_unprivileged(&ix) else {
            eprintln!("cannot drop privileges here (no setpriv): read-only index case skipped");
            return;
        };
        let bin_ok = !root
            || Command::new("setpriv")
                .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(assert_cmd::cargo::cargo_bin("debrief"))
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success());
        if !bin_ok {
            eprintln!("`nobody` cannot run the test binary here: read-only index case skipped");
            return;
        }
        let out = cmd.args(["search", "timezone", "--json"]).output().expect("run");
        let err = stderr(&out);
        assert!(out.status.success(), "lock file there: {with_lock_file}: {err}");
        assert!(!out.stdout.is_empty(), "hits");
        let out = as_unprivileged(&ix).expect("as before").args(["sessions"]).output().expect("run");
        assert!(out.status.success(), "{}", stderr(&out));
    }
    // Writing is what needs write access, and says so plainly.
    let out = as_unprivileged(&ix).expect("as before").args(["index"]).arg(&d).output().expect("run");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&ix.display().to_string()) && err.contains("Permission denied"), "{err}");
    assert!(!err.contains("Os {") && !err.contains("IoError("), "no debug output: {err}");
    for p in &dirs {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}
