//! Bounded resources, the small variant (`scripts/resources.sh` measures 60–600 MB
//! sessions and 50,000 files with GNU time): indexing a session eight times larger
//! must not take eight times the memory. Peak RSS is read from the child's
//! `/proc/<pid>/status` (VmHWM) while it runs.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::synth::Transcript;

/// A Claude Code session of about `mb` MB: exchanges with commands and long outputs.
fn write_session(path: &Path, mb: usize) {
    let output: String = (0..60).map(|k| format!("{k}: [10:00:{k:02}] INFO worker {k} loss 0.{k:04}\n")).collect();
    let mut t = Transcript::new();
    let mut i = 0;
    // (Measured every 100 exchanges: text_len walks every line.)
    while i % 100 != 0 || t.text_len() < mb << 20 {
        i += 1;
        t = t.user(&format!("step {i}: the server crashed again, check the log")).bash(
            &format!("grep -n ERROR logs/run_{i}.log | tail -50"),
            &output,
            i % 7 == 0,
        );
    }
    std::fs::write(path, t.text()).expect("write");
}

/// Peak resident memory of `debrief index` on `dir`, in MB.
fn peak_rss_mb(ix: &Path, dir: &Path) -> u64 {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("debrief"))
        .env("DEBRIEF_INDEX", ix)
        .args(["index", "--quiet"])
        .arg(dir)
        .spawn()
        .expect("spawn");
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(s) = std::fs::read_to_string(&status)
            && let Some(kb) = s.lines().find_map(|l| l.strip_prefix("VmHWM:"))
        {
            peak = peak.max(kb.trim().trim_end_matches(" kB").trim().parse::<u64>().unwrap_or(0));
        }
        if let Some(st) = child.try_wait().expect("wait") {
            assert!(st.success(), "index failed");
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    peak / 1024
}

#[test]
fn memory_does_not_grow_with_the_size_of_a_session() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("no /proc: skipped");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut peaks = Vec::new();
    for mb in [3, 24] {
        let dir = tmp.path().join(format!("s{mb}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        write_session(&dir.join("session.jsonl"), mb);
        peaks.push((mb, peak_rss_mb(&tmp.path().join(format!("ix{mb}")), &dir)));
        std::fs::remove_dir_all(&dir).expect("rm");
    }
    eprintln!("peak RSS by session size (MB): {peaks:?}");
    let (small, large) = (peaks[0].1, peaks[1].1);
    // Eight times the input; the index writer's buffer (96 MB budget) may fill, nothing
    // else may grow with it.
    assert!(large < small + 110, "memory grows with the session: {peaks:?}");
    assert!(large < 8 * small.max(20), "{peaks:?}");
}
