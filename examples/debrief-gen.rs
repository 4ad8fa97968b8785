//! `debrief-gen`: write a deterministic synthetic transcript archive for benchmarks.
//!
//! ```sh
//! cargo run --release --example debrief-gen -- --size 1G --seed 1 target/bench/corpus
//! ```
//!
//! The same arguments give byte-identical files on every run (see `debrief_synth`).

use std::path::PathBuf;
use std::process::ExitCode;

use debrief_synth::{self as synth, Spec};

const USAGE: &str = "usage: debrief-gen [--size 1G] [--seed N] [--codex-share 0.1] [--big-session 600M] \
                     [--files N] [--threads N] [--plan] OUT_DIR";

fn main() -> ExitCode {
    let mut spec = Spec::new(1 << 30, 1);
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut out: Option<PathBuf> = None;
    let mut plan_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        let res: Result<(), String> = (|| {
            match a.as_str() {
                "--size" => spec.size = synth::parse_size(&value("--size")?).ok_or("bad --size")?,
                "--seed" => spec.seed = value("--seed")?.parse().map_err(|_| "bad --seed")?,
                "--codex-share" => {
                    spec.codex_share = value("--codex-share")?.parse().map_err(|_| "bad --codex-share")?
                }
                "--big-session" => {
                    spec.big_session = Some(synth::parse_size(&value("--big-session")?).ok_or("bad --big-session")?)
                }
                "--files" => spec.files = Some(value("--files")?.parse().map_err(|_| "bad --files")?),
                "--threads" => threads = value("--threads")?.parse().map_err(|_| "bad --threads")?,
                "--plan" => plan_only = true,
                "-h" | "--help" => return Err(String::new()),
                s if !s.starts_with('-') && out.is_none() => out = Some(PathBuf::from(s)),
                s => return Err(format!("unexpected argument `{s}`")),
            }
            Ok(())
        })();
        if let Err(e) = res {
            if !e.is_empty() {
                eprintln!("debrief-gen: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    }
    if plan_only {
        for p in synth::plan(&spec) {
            println!("{}\t{}", p.target, p.path.display());
        }
        return ExitCode::SUCCESS;
    }
    let Some(out) = out else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let started = std::time::Instant::now();
    match synth::generate(&spec, &out, threads) {
        Ok(bytes) => {
            let files = synth::plan(&spec).len();
            eprintln!(
                "debrief-gen: wrote {files} files, {bytes} bytes ({:.1} MB/s) to {}",
                bytes as f64 / 1e6 / started.elapsed().as_secs_f64(),
                out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("debrief-gen: writing {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}
