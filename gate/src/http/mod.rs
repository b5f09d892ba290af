//! HTTP plumbing under the routes: the Pingora server and its limits ([`server`]), the fast lane
//! for simple requests on plain HTTP/1.1 ([`quick`]), who the client
//! is behind trusted proxies ([`client`]), what a route
//! answers ([`response`]), files sent with `sendfile(2)` ([`sendfile`]) on the socket under a
//! session ([`socket`]), `Range` requests ([`range`]), HTTPS on the gate's own listener ([`tls`]),
//! the free files held in memory ([`statics`]) and the choice between HTML and JSON ([`pages`]).

pub mod client;
pub mod pages;
mod quick;
pub mod range;
pub mod response;
mod sendfile;
pub mod server;
mod socket;
pub mod statics;
pub mod tls;
