#![no_main]
//! Fuzz the `gemini-cli` parser (and everything that reads what it makes).
debrief_fuzz::target!("gemini-cli");
