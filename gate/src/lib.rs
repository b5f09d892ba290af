//! The gate: a Pingora server that serves `dist/`, answers search, sells each study over
//! x402 v2, guards the signed download links and exposes the same functions over MCP.
//!
//! It reads only `dist/` (through `dist/gate.json`, the contract with the generator) and its
//! own `--data` folder; it never reads `content/`. One module per concern: the router
//! dispatches, each route's module answers, and the payment logic lives once in
//! [`payment`] for both HTTP and MCP.

pub mod buyer;
pub mod downloads;
pub mod facilitator;
pub mod facilitator_service;
pub mod journal;
pub mod links;
pub mod live;
pub mod manifest;
pub mod mcp;
pub mod pages;
pub mod payment;
pub mod response;
pub mod router;
pub mod sales;
pub mod search;
mod sendfile;
pub mod server;
pub mod settings;
pub mod statics;
pub mod ventas;
pub mod x402;
