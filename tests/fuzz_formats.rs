//! Parsers never panic: a short, deterministic fuzz run of every format (see
//! `tests/fuzzing/mod.rs` for the mutations and what each execution runs), plus the
//! inputs a random mutator rarely makes — nesting deeper than any stack, a line of
//! 100 MB, a file of nothing but invalid UTF-8.
//!
//! `DEBRIEF_FUZZ_ITERS` sets the executions per format (default 250), and
//! `DEBRIEF_FUZZ_FIRST` the first execution number, so a failure is reproduced by
//! running its number alone. `scripts/fuzz.sh` runs the same fuzzer for longer.

mod fuzzing;

use debrief::formats;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn mutated_inputs_never_panic_any_parser() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Large seeds cost time per execution in a debug build; the script uses them all.
    let max_seed = env_u64("DEBRIEF_FUZZ_MAX_SEED", 96 * 1024) as usize;
    let seeds = fuzzing::load_seeds(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), tmp.path(), max_seed);
    let iters = env_u64("DEBRIEF_FUZZ_ITERS", 250);
    let first = env_u64("DEBRIEF_FUZZ_FIRST", 0);
    let only = std::env::var("DEBRIEF_FUZZ_FORMAT").ok();
    let missing: Vec<&str> =
        formats::all().iter().map(|f| f.id()).filter(|id| !seeds.by_format.contains_key(id)).collect();
    assert!(missing.is_empty(), "no seed for {missing:?}");
    // Quiet the default hook: caught panics are listed at the end instead.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut panics = Vec::new();
    let mut total = 0;
    let keep = std::env::var_os("DEBRIEF_FUZZ_KEEP").map(std::path::PathBuf::from);
    for f in formats::all() {
        if only.as_deref().is_some_and(|o| o != f.id()) {
            continue;
        }
        let started = std::time::Instant::now();
        let t = fuzzing::run_format(&seeds, f.id(), first, iters, keep.as_deref(), None);
        eprintln!(
            "{:<18} {} executions, {} with messages, {} panics, {:.1}s",
            f.id(),
            t.executions,
            t.with_messages,
            t.panics.len(),
            started.elapsed().as_secs_f64()
        );
        // A fuzzer that never gets an input through the parser tests nothing.
        assert!(
            t.with_messages > 0 || fuzzing::DATABASES.contains(&f.id()),
            "{}: no mutated input parsed at all",
            f.id()
        );
        total += t.executions;
        panics.extend(t.panics);
    }
    std::panic::set_hook(hook);
    eprintln!("{total} executions");
    assert!(panics.is_empty(), "{} panics:\n{}", panics.len(), panics.join("\n"));
}

/// Each format's parser, forced, on `bytes` written as the file `name`.
fn parse_all_formats(name: &str, bytes: &[u8]) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join(name);
    std::fs::write(&path, bytes).expect("write");
    for f in formats::all() {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fuzzing::exercise(&path, *f)));
        assert!(r.is_ok(), "{} panicked on {name}", f.id());
    }
}

#[test]
fn nesting_deeper_than_any_stack_is_a_bad_record() {
    // serde_json stops at 128 levels; nothing of ours may recurse further.
    let deep = |open: &str, close: &str, n: usize| format!("{}{}", open.repeat(n), close.repeat(n));
    let mut lines = vec![
        deep("[", "]", 200_000),
        format!("{{\"type\":\"user\",\"message\":{}}}", deep("{\"content\":", "}", 100_000).replace("}", "1}")),
        deep("{\"a\":", "}", 50_000),
        "[".repeat(1_000_000),
    ];
    lines.push(
        r#"{"type":"user","message":{"role":"user","content":"still here"},"uuid":"u1","sessionId":"s","timestamp":"2026-03-05T10:00:00Z"}"#
            .to_string(),
    );
    let text = lines.join("\n") + "\n";
    parse_all_formats("deep.jsonl", text.as_bytes());
    parse_all_formats("deep.json", deep("[", "]", 300_000).as_bytes());
    parse_all_formats(
        ".aider.chat.history.md",
        format!("#### {}\n\n{}\n", "> ".repeat(100_000), "`".repeat(100_000)).as_bytes(),
    );
    // The good record after the deep ones is kept.
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("deep.jsonl");
    std::fs::write(&path, &text).expect("write");
    let parsed = formats::parse_file(&path, formats::by_id("claude-code")).expect("parses");
    let texts: Vec<&str> = parsed.sessions.iter().flat_map(|s| &s.messages).map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["still here"]);
    assert_eq!(parsed.bad.len(), 4, "{:?}", parsed.bad);
}

#[test]
fn binary_garbage_and_invalid_utf8_are_reported_not_fatal() {
    let mut rng = fuzzing::Rng::new(7);
    let garbage: Vec<u8> = (0..256 * 1024).map(|_| rng.next() as u8).collect();
    parse_all_formats("garbage.jsonl", &garbage);
    parse_all_formats("garbage.json", &garbage);
    parse_all_formats("garbage.md", &garbage);
    let invalid: Vec<u8> =
        std::iter::repeat_n(&b"\xff\xfe\xc3\x28\xed\xa0\x80\n"[..], 10_000).flatten().copied().collect();
    parse_all_formats("invalid.jsonl", &invalid);
    parse_all_formats("empty.jsonl", b"");
    parse_all_formats("nl.jsonl", b"\n\n\n");
    parse_all_formats("nul.jsonl", &[0u8; 4096]);
}

/// Every format read one JSON record a line words a broken line the same way
/// (`formats::Line::json`): a line that is not an object, one that does not parse, one
/// whose bytes are not UTF-8. Not Gemini CLI's session JSONL (read whole: its `$rewindTo`
/// records rewrite what came before), nor its stream-json, where a line that is not JSON
/// is what a wrapper printed (counted as foreign, not bad).
#[test]
fn every_jsonl_format_words_a_broken_line_the_same() {
    let mut text = b"this is not json\n[1, 2]\n{\"type\": nope}\n\n".to_vec();
    text.extend_from_slice(b"{\"type\":\"caf\xff\"}\n");
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("broken.jsonl");
    std::fs::write(&path, &text).expect("write");
    let line_formats =
        ["claude-code", "codex", "antigravity", "copilot-cli", "cursor", "goose", "iflow", "pi", "qwen-code"];
    for id in line_formats {
        let f = formats::by_id(id).expect("a format");
        let parsed = formats::parse_file(&path, Some(f)).expect("parses");
        let bad: Vec<(Option<u32>, &str)> = parsed.bad.iter().map(|b| (b.line, b.reason.as_str())).collect();
        assert_eq!(
            bad.get(..4).unwrap_or(&bad),
            [
                (Some(1), "not a JSON object"),
                (Some(2), "not a JSON object"),
                (Some(3), "expected ident (column 11)"),
                (Some(5), "invalid UTF-8 replaced"),
            ],
            "{id}"
        );
    }
}

/// `scripts/fuzz.sh` seeds cargo-fuzz's corpus folders with this: the seeds of each
/// format in `$DEBRIEF_FUZZ_SEED_DIR/<target>/` (target = format id with `_`), and all
/// of them in `redaction/`.
#[test]
#[ignore = "run by scripts/fuzz.sh"]
fn write_seed_corpus() {
    let Some(out) = std::env::var_os("DEBRIEF_FUZZ_SEED_DIR") else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let seeds = fuzzing::load_seeds(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), tmp.path(), usize::MAX);
    for (id, list) in &seeds.by_format {
        let dir = std::path::Path::new(&out).join(id.replace('-', "_"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        for (i, s) in list.iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i:03}")), &s.bytes).expect("write seed");
        }
    }
    // The redactor's target starts from every format's seeds (transcript text as it is).
    let dir = std::path::Path::new(&out).join("redaction");
    std::fs::create_dir_all(&dir).expect("mkdir");
    for (i, s) in seeds.by_format.values().flatten().enumerate() {
        std::fs::write(dir.join(format!("seed-{i:03}")), &s.bytes).expect("write seed");
    }
}

/// A line of 100 MB: line formats skip it (over the 64 MB limit) and keep the records
/// around it; every other parser reads or refuses it without falling over.
#[test]
fn a_100_mb_line_is_skipped_or_read_by_every_format() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let good = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/claude-code/ledger-timezone-fix.jsonl"),
    )
    .expect("sample");
    let huge = format!(r#"{{"type":"user","message":{{"role":"user","content":"{}"}}}}"#, "x".repeat(100 << 20));
    let path = tmp.path().join("huge.jsonl");
    std::fs::write(&path, format!("{good}{huge}\n{good}")).expect("write");
    for f in formats::all() {
        let started = std::time::Instant::now();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| formats::parse_file(&path, Some(*f))));
        assert!(r.is_ok(), "{} panicked on a 100 MB line", f.id());
        eprintln!("{:<18} {:.1}s", f.id(), started.elapsed().as_secs_f64());
    }
    let parsed = formats::parse_file(&path, formats::by_id("claude-code")).expect("parses");
    assert!(parsed.bad.iter().any(|b| b.reason.contains("longer than")), "{:?}", parsed.bad);
    let n: usize = parsed.sessions.iter().map(|s| s.messages.len()).sum();
    assert_eq!(n, 24, "both copies of the good session around the huge line are kept");
}
