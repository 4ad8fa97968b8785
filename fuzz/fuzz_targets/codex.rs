#![no_main]
//! Fuzz the `codex` parser (and everything that reads what it makes).
debrief_fuzz::target!("codex");
