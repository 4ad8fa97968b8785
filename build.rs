//! Link the `debrief` binary as a position-dependent executable.
//!
//! A position-independent one has about 50,000 relative relocations (vtables, string
//! tables, the redaction rules) that the dynamic loader applies on every start, touching
//! some 250 pages of data copy-on-write: 2–3 ms of every command, more than half of what a
//! search is allowed (issue 21: p50 ≤ 5 ms). Linked at a fixed address, the linker applies
//! them once. Only the binaries are linked this way; the library is unchanged.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
