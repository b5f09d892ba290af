//! The gate's HTTP layer: a Pingora server that knows nothing of what it serves. It reads a
//! request within the [`Limits`], hands it to a [`Handler`] and writes the [`Reply`] it gets back;
//! the gate's domain (what is for sale, the sales record, MCP) lives above it, in the `gate`
//! crate, and this crate cannot name it: Cargo refuses the cycle.
//!
//! | module | owns |
//! |---|---|
//! | [`handler`] | what a server is given: the [`Handler`] and the two views of a request |
//! | [`server`] | the Pingora application: one request read, admitted, handled, answered, logged |
//! | [`admission`] | the limits and the refusals before any route: heads, framing, `Host`, bodies |
//! | [`writing`] | a reply onto the wire: `sendfile(2)`, chunked files, the access log line |
//! | [`lifecycle`] | the process: bind, run until a signal, hand over on SIGQUIT, in-process [`spawn`] |
//! | [`quick`] | the fast lane for simple GET/HEAD on plain HTTP/1.1 |
//! | [`response`] | what a route answers: [`Reply`], bodies, JSON errors |
//! | [`client`] | who the client is behind trusted proxies |
//! | [`range`] | `Range` requests |
//! | [`pages`] | the choice between HTML and JSON |
//! | [`tls`] | HTTPS on the gate's own listener |
//! | [`sendfile`], [`socket`] | the system calls under a session |

pub mod admission;
pub mod client;
pub mod handler;
pub mod lifecycle;
pub mod pages;
pub mod quick;
pub mod range;
pub mod response;
mod sendfile;
pub mod server;
mod socket;
pub mod tls;
pub mod writing;

pub use admission::Limits;
pub use handler::{Handler, Quick, Request, query_param};
pub use lifecycle::{
    DEFAULT_LOG, RunOptions, Running, check_address, run, run_with_limits, spawn, spawn_tls, spawn_with_limits,
};
pub use response::{Body, Reply};
pub use server::App;
pub use writing::preflight;
