#![no_main]
//! Fuzz the `gemini-stream` parser (and everything that reads what it makes).
debrief_fuzz::target!("gemini-stream");
