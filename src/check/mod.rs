pub mod exclusive;
pub mod lint;
pub mod never_match;
pub mod structure;
pub mod tool_names;
pub mod types;
