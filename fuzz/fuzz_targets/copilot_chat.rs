#![no_main]
//! Fuzz the `copilot-chat` parser (and everything that reads what it makes).
debrief_fuzz::target!("copilot-chat");
