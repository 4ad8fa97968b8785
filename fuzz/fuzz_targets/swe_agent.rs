#![no_main]
//! Fuzz the `swe-agent` parser (and everything that reads what it makes).
debrief_fuzz::target!("swe-agent");
