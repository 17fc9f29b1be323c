//! Adapters: one file per harness, each speaking that harness's protocol.
pub mod chibi;
pub mod coding_agent;
pub mod picoclaw;
pub mod tool_call;
pub mod typed_input;
