#![no_main]
//! Fuzz the `iflow` parser (and everything that reads what it makes).
debrief_fuzz::target!("iflow");
