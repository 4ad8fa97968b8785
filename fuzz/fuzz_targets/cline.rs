#![no_main]
//! Fuzz the `cline` parser (and everything that reads what it makes).
debrief_fuzz::target!("cline");
