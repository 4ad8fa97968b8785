//! `parse-bench`: how fast debrief's parsers read transcripts, without indexing them.
//!
//! ```sh
//! cargo run --release --example parse-bench -- target/bench/corpus-1G-s1
//! ```
//!
//! Parses every `.jsonl` file under the paths five times and prints the best time: the
//! parser's share of `index`, `detect` and `report` (see docs/performance.md).

use std::path::PathBuf;

fn main() {
    let files: Vec<PathBuf> = std::env::args()
        .skip(1)
        .flat_map(|p| {
            walkdir::WalkDir::new(p)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "jsonl"))
                .map(|e| e.path().to_path_buf())
        })
        .collect();
    let bytes: u64 = files.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();
    let mut best = f64::MAX;
    let mut messages = 0;
    for _ in 0..5 {
        let start = std::time::Instant::now();
        messages = 0;
        for f in &files {
            match debrief::formats::parse_file(f, None) {
                Ok(p) => messages += p.sessions.iter().map(|s| s.messages.len()).sum::<usize>(),
                Err(e) => eprintln!("parse-bench: {e:#}"),
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "{} files, {messages} messages, {:.0} MB: best of 5 {best:.3} s, {:.0} MB/s",
        files.len(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / best
    );
}
