#![no_main]
//! Fuzz the `copilot-cli` parser (and everything that reads what it makes).
debrief_fuzz::target!("copilot-cli");
