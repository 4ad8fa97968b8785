#![no_main]
//! Fuzz the `gemini-checkpoint` parser (and everything that reads what it makes).
debrief_fuzz::target!("gemini-checkpoint");
