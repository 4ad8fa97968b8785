#![no_main]
//! Fuzz the `qwen-code` parser (and everything that reads what it makes).
debrief_fuzz::target!("qwen-code");
