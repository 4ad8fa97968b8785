//! What both the detectors and the reports need to know about a session, in one
//! place: what a call did (edited, launched, looked at, waited, failed — [`calls`],
//! described for prose in [`call_facts`]), what a search looked for and how its output
//! buried it ([`searches`]), whether a process was said to be down, came up or made
//! progress ([`liveness`]), the assistant's own words ([`statements`]: prose without
//! code and quotes, sentences, hedges; [`claims`]: what kind of statement a sentence
//! is), the facets search filters on ([`facets`]), and the text helpers every quote and
//! summary goes through ([`text`]), with the one walk that knows which lines are
//! fenced code ([`fences`]).
//!
//! `detect/` holds detectors only and `report/` reports only; both read from here.

pub mod call_facts;
pub mod calls;
pub mod claims;
pub mod facets;
pub mod fences;
pub mod liveness;
pub mod searches;
pub mod statements;
pub mod text;

pub use facets::{Facets, facets};
