#![no_main]
//! Fuzz the `specstory` parser (and everything that reads what it makes).
debrief_fuzz::target!("specstory");
