//! The gate: a Pingora server that serves `dist/`, answers search, sells each study over
//! x402 v2, guards the signed download links and exposes the same functions over MCP.
//!
//! It reads only `dist/` (through `dist/gate.json`, the contract with the generator, typed in
//! the `contract` crate) and its own `--datos` folder; it never reads `content/`. The
//! [`router`] dispatches; one module per concern answers. The HTTP layer under them (the
//! Pingora server, its limits, replies, sendfile, TLS, ranges) is the `gate-http` crate, which
//! cannot import any of them:
//!
//! | module | owns |
//! |---|---|
//! | [`app`] | the state loaded from one `dist/` ([`app::Gate`]) and its swap on SIGHUP ([`app::Live`]) |
//! | [`router`] | which module answers which method and path |
//! | [`statics`] | the free files of `dist/` held in memory, negotiated between HTML and JSON |
//! | [`payment`] | what is for sale, the one purchase implementation, its HTTP and MCP bindings |
//! | [`sales`] | the journal of every purchase step, the replay book, the `gate ventas` report |
//! | [`facilitator`] | who verifies and settles: any HTTP facilitator, or the local one |
//! | [`chain`] | what the chain says about a payment: the proof a sale needs beyond a facilitator's word |
//! | [`mcp`] | MCP over Streamable HTTP: transport rules, tools, tool results |
//! | [`search`], [`downloads`], [`links`] | `/buscar`, `/descarga/…`, the signed links |
//! | [`x402`] | payment headers and the EVM `exact` scheme (EIP-3009 signatures) |
//! | [`settings`], [`manifest`], [`clock`], [`buyer`] | command line, `gate.json` loading, time, the buyer client |
//! | [`preflight`] | `gate verificar`: the go-live checks, without moving money |
//! | [`metrics`], [`telemetry`] | Prometheus metrics; `/salud`, `/listo` and the `--escuchar-metricas` listener |

pub mod app;
pub mod buyer;
pub mod chain;
pub mod clock;
pub mod dev_secret;
pub mod downloads;
pub mod facilitator;
pub mod links;
pub mod manifest;
pub mod mcp;
pub mod metrics;
pub mod payment;
pub mod preflight;
pub mod router;
pub mod sales;
pub mod search;
pub mod settings;
pub mod statics;
pub mod telemetry;
pub mod x402;
