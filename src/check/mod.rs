pub mod lint;
pub mod never_match;
pub mod structure;
pub mod types;
