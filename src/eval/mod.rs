//! Evaluation: deciding one payload against a compiled policy.
pub mod decide;
pub mod json_val;

pub use decide::{decide, decide_for_reply, DecideContext, Decision, Logged};
