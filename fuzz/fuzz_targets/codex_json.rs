#![no_main]
//! Fuzz the `codex-json` parser (and everything that reads what it makes).
debrief_fuzz::target!("codex-json");
