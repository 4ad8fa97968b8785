#![no_main]
//! Fuzz the `aider` parser (and everything that reads what it makes).
debrief_fuzz::target!("aider");
