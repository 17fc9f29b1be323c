//! Adapters: one file per harness, each speaking that harness's protocol.
pub mod agent_settings;
pub mod chibi;
pub mod chibi_turn;
pub mod coding_agent;
pub mod picoclaw;
pub mod search_walk;
pub mod tool_call;
