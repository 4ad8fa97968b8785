#![no_main]
//! Fuzz the `claude-extract` parser (and everything that reads what it makes).
debrief_fuzz::target!("claude-extract");
