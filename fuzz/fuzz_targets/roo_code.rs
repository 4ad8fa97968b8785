#![no_main]
//! Fuzz the `roo-code` parser (and everything that reads what it makes).
debrief_fuzz::target!("roo-code");
