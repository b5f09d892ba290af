//! Selling studies: what is for sale ([`offer`]), the one purchase implementation ([`shop`])
//! with what a settlement's outcome means for the money ([`settlement`]), the re-access of past
//! buyers who sign in with their wallet ([`reaccess`], x402 `sign-in-with-x`, whose challenge is
//! [`signin`]), why a purchase is refused ([`refusal`]) and what tells payments apart
//! ([`identifiers`]), and the two
//! bindings, HTTP ([`http`]: `GET /estudio/{slug}`, its unpaid 402s prepared in [`unpaid`]) and
//! MCP ([`mcp`]: the tool `comprar_estudio`). Both bindings build their 402 from
//! [`offer::Offer::payment_required`], sell through [`shop::Shop::purchase`] and deliver again
//! through [`shop::Shop::reaccess`], so the checks, the replay guards and
//! settle-after-production are the same whichever way a buyer comes. What a settlement that is
//! not a plain success means is decided by the chain ([`proof`]), never by a facilitator's word. Every 402 carries the
//! publisher's signed offers and every sale its signed receipt ([`receipt`]); the study files a
//! sale embeds are kept in memory after their first sale ([`study`]). MPP (the Machine
//! Payments Protocol, method `evm`) is offered beside x402 on the same 402s; its credentials are
//! checked against their stateless challenges at the edge ([`mpp`]) and sold by the same
//! [`shop::Shop::purchase_as`]. What a buyer says it can pay with (MPP's `Accept-Payment`)
//! filters and orders the requirements and challenges of every 402 ([`preferences`]).

pub mod http;
pub mod identifiers;
pub mod limits;
pub mod mcp;
pub mod mpp;
pub mod offer;
pub mod preferences;
pub mod proof;
pub mod reaccess;
pub mod receipt;
pub mod refusal;
pub mod settlement;
pub mod shop;
pub mod signin;
pub mod study;
pub mod unpaid;
