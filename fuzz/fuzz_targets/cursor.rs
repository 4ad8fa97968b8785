#![no_main]
//! Fuzz the `cursor` parser (and everything that reads what it makes).
debrief_fuzz::target!("cursor");
