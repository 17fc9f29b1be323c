pub mod structure;
pub mod types;
