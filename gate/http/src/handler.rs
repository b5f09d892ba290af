//! What a server built on this crate is given: the [`Handler`] a gate or a facilitator
//! implements, and the two views of a request it answers ([`Request`], read by Pingora with its
//! body; [`Quick`], a simple GET or HEAD read by the fast lane). A leaf: the server, the lane and
//! the admission rules all stand on it.

use async_trait::async_trait;
use bytes::Bytes;
use http::Method;
use pingora_http::RequestHeader;

use crate::response::Reply;

/// A request as routes see it: the parsed head and the whole (bounded) body.
pub struct Request<'a> {
    pub head: &'a RequestHeader,
    pub body: Bytes,
    /// The client's address (the peer of the connection, or what a trusted proxy says), when
    /// known.
    pub client: Option<std::net::IpAddr>,
}

impl Request<'_> {
    pub fn method(&self) -> &Method {
        &self.head.method
    }

    pub fn path(&self) -> &str {
        self.head.uri.path()
    }

    pub fn query(&self) -> Option<&str> {
        self.head.uri.query()
    }

    /// A header's value as bytes, if present.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.head.headers.get(name).map(|v| v.as_bytes())
    }

    /// The first value of a query parameter, percent-decoded.
    pub fn query_param(&self, name: &str) -> Option<String> {
        query_param(self.query(), name)
    }
}

/// The first value of a query parameter of `query`, percent-decoded.
pub fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    url::form_urlencoded::parse(query?.as_bytes()).find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

/// What a server built on this module does with each request.
#[async_trait]
pub trait Handler: Send + Sync + 'static {
    async fn handle(&self, request: &Request<'_>) -> Reply;

    /// Largest request body read, in bytes; longer bodies get 413.
    fn body_limit(&self) -> usize {
        64 * 1024
    }

    /// Whether `authority` (`host[:port]` of an absolute-form target) names this server.
    fn serves_host(&self, _authority: &str) -> bool {
        true
    }

    /// The answer to a simple GET or HEAD when it is in memory and needs no waiting (a free
    /// document, a search), for the fast lane of plain HTTP/1.1 ([`crate::quick`]); `None`
    /// sends the request the usual way, to [`Handler::handle`]. When both answer, they must
    /// answer the same.
    fn answer_at_once(&self, _request: &Quick<'_>) -> Option<Reply> {
        None
    }

    /// Called once per answered request with its path and status (the gate's metrics).
    fn observe(&self, _path: &str, _status: u16) {}
}

/// A simple request as the fast lane read it: GET or HEAD, origin-form target, no body.
pub struct Quick<'a> {
    pub(crate) head_only: bool,
    pub(crate) path: &'a str,
    pub(crate) query: Option<&'a str>,
    pub(crate) headers: &'a [httparse::Header<'a>],
}

impl Quick<'_> {
    pub fn path(&self) -> &str {
        self.path
    }

    pub fn query(&self) -> Option<&str> {
        self.query
    }

    /// Whether it is a HEAD (else a GET).
    pub fn is_head(&self) -> bool {
        self.head_only
    }

    /// The first value of a header, by name in any case.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers.iter().find(|h| h.name.eq_ignore_ascii_case(name)).map(|h| h.value)
    }

    /// Every value of a header, in order.
    pub(crate) fn values(&self, name: &str) -> Vec<&[u8]> {
        self.headers.iter().filter(|h| h.name.eq_ignore_ascii_case(name)).map(|h| h.value).collect()
    }
}
