pub mod lint;
pub mod structure;
pub mod types;
