#![no_main]
//! Fuzz the `pi` parser (and everything that reads what it makes).
debrief_fuzz::target!("pi");
