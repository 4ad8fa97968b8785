#![no_main]
//! Fuzz the `openai-chat` parser (and everything that reads what it makes).
debrief_fuzz::target!("openai-chat");
