//! `tok-bench`: how fast the code tokenizer turns the text debrief indexes into terms.
//!
//! ```sh
//! cargo run --release --example tok-bench -- target/bench/corpus-100M-s1
//! ```
//!
//! Builds the indexed text of every message under the paths (as `index` does), then
//! tokenizes it all seven times and prints the best time per token.

use debrief::index::tokenizer::CodeTokenizer;
use tantivy::tokenizer::{TokenStream, Tokenizer};

fn main() {
    let mut texts = Vec::new();
    for p in std::env::args().skip(1) {
        for e in walkdir::WalkDir::new(&p).into_iter().filter_map(Result::ok) {
            if !e.file_type().is_file() || e.path().extension().is_none_or(|x| x != "jsonl") {
                continue;
            }
            let Ok(parsed) = debrief::formats::parse_file(e.path(), None) else { continue };
            for m in parsed.sessions.into_iter().flat_map(|s| s.messages) {
                let mut text = String::new();
                debrief::index::writer::index_text(&m, &mut text);
                texts.push(text);
            }
        }
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    let mut tokenizer = CodeTokenizer::default();
    let mut best = f64::MAX;
    let mut tokens = 0u64;
    for _ in 0..7 {
        let start = std::time::Instant::now();
        tokens = 0;
        for t in &texts {
            let mut s = tokenizer.token_stream(t);
            while s.advance() {
                tokens += 1;
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "{tokens} tokens from {:.0} MB of index text: best of 7 {best:.3} s, {:.0} MB/s, {:.1} ns per token",
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / best,
        best * 1e9 / tokens.max(1) as f64
    );
}
