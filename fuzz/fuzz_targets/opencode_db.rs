#![no_main]
//! Fuzz the `opencode-db` parser (and everything that reads what it makes).
debrief_fuzz::target!("opencode-db");
