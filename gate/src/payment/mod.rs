//! Selling studies: what is for sale ([`offer`]), the one purchase implementation ([`shop`])
//! with what a settlement's outcome means for the money ([`settlement`])
//! and its two bindings, HTTP ([`http`]: `GET /estudio/{slug}`) and MCP ([`mcp`]: the tool
//! `comprar_estudio`). Both bindings build their 402 from [`offer::Offer::payment_required`]
//! and sell through [`shop::Shop::purchase`], so the checks, the replay guard and
//! settle-after-production are the same whichever way a buyer pays. Every 402 carries the
//! publisher's signed offers and every sale its signed receipt ([`receipt`]).

pub mod http;
pub mod limits;
pub mod mcp;
pub mod offer;
pub mod receipt;
pub mod settlement;
pub mod shop;
