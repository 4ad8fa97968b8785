#![no_main]
//! Fuzz the `claude-code-web` parser (and everything that reads what it makes).
debrief_fuzz::target!("claude-code-web");
