#![no_main]
//! Fuzz the `antigravity` parser (and everything that reads what it makes).
debrief_fuzz::target!("antigravity");
