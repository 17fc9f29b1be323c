//! hook-policy: YAML + CEL guardrails for AI agent harness hooks.
//!
//! The stages, each in its own module: [`load`] (YAML with spans) →
//! [`check`] (schema, hooks, effects, CEL) → [`compile`] (decision tree per
//! hook point) → [`eval`] (decide one payload) → [`adapters`] (speak a
//! harness's protocol). [`catalogue`] is the data all of them read.
pub mod catalogue;
pub mod diagnostic;
pub mod load;
pub mod model;
pub mod check;
pub mod eval;
pub mod expr;
pub mod compile;
pub mod adapters;
pub mod engine;
pub mod render;
