//! Adapters: one file per harness, each speaking that harness's protocol.
pub mod chibi;
