#![no_main]
//! Fuzz the `opencode` parser (and everything that reads what it makes).
debrief_fuzz::target!("opencode");
