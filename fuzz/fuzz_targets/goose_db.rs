#![no_main]
//! Fuzz the `goose-db` parser (and everything that reads what it makes).
debrief_fuzz::target!("goose-db");
