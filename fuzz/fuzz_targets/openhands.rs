#![no_main]
//! Fuzz the `openhands` parser (and everything that reads what it makes).
debrief_fuzz::target!("openhands");
