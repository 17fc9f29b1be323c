//! Adapters: one file per harness, each speaking that harness's protocol.
pub mod agent_settings;
pub mod chibi;
pub mod chibi_turn;
pub mod coding_agent;
pub mod copilot;
pub mod cursor;
pub mod hook_command;
pub mod hook_config;
pub mod kiro;
pub mod opencode;
pub mod opencode_install;
pub mod picoclaw;
pub mod search_walk;
pub mod tool_call;
pub mod typed_input;
pub mod windsurf;
