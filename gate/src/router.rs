//! Which module answers which method and path. Nothing else: each route's module does the work.
//!
//! | route | module |
//! |---|---|
//! | `GET /`, `/catalogo`, `/metricas`, `/estudio/{slug}/ficha`, … (every manifest route) | [`crate::statics`] (`/` by `Accept`) |
//! | `GET /buscar?q=` | [`crate::search`] |
//! | `GET /estudio/{slug}?vista=` | [`crate::payment::http`] |
//! | `GET /descarga/{archivo}?vence=&firma=` | [`crate::downloads`] |
//! | `POST /mcp`, `POST /mcp/catalogo` (GET/DELETE → 405 `Allow: POST`) | [`crate::mcp`] |
//! | `GET /salud` (liveness), `/listo` (readiness) | [`crate::telemetry`] |
//! | anything else | 404 JSON; a known path with another method, 405 JSON with `Allow` |
//!
//! The free documents, searches and unpaid 402s need no waiting: `Gate::answer_from_memory`
//! answers them for both [`Handler::handle`] and the fast lane of plain HTTP/1.1
//! ([`Handler::answer_at_once`]).

use async_trait::async_trait;
use http::Method;

use crate::app::{Gate, Live};
use crate::{downloads, mcp, payment, telemetry};
use gate_http::response::Reply;
use gate_http::{Handler, Quick, Request, preflight};

const ALLOW_READ: &str = "GET, HEAD, OPTIONS";

#[async_trait]
impl Handler for Gate {
    async fn handle(&self, request: &Request<'_>) -> Reply {
        let path = request.path();
        let method = request.method();
        if let Some(endpoint) = mcp::Endpoint::from_path(path) {
            return mcp::handle(&self.mcp, &self.store(request), request, endpoint).await;
        }
        if method == Method::OPTIONS {
            return match self.allowed_methods(path) {
                Some(allow) => preflight(allow),
                None => Reply::not_found(path),
            };
        }
        if method != Method::GET && method != Method::HEAD {
            return match self.allowed_methods(path) {
                Some(allow) => Reply::method_not_allowed(method.as_str(), allow),
                None => Reply::not_found(path),
            };
        }
        match path {
            telemetry::LIVENESS_PATH => return telemetry::liveness(),
            telemetry::READINESS_PATH => return telemetry::readiness(self).await.1,
            _ => {}
        }
        let head_only = method == Method::HEAD;
        let in_memory = self.answer_from_memory(path, request.query(), head_only, |name| request.header(name));
        if let Some(reply) = in_memory {
            return reply;
        }
        if let Some(name) = path.strip_prefix("/descarga/") {
            let asked = downloads::Asked {
                query: request.query(),
                range: request.header("range"),
                if_range: request.header("if-range"),
            };
            let now = self.shop.clock().now();
            return downloads::answer(&self.dist, &self.manifest, self.shop.links(), name, asked, now);
        }
        if let Some(slug) = path.strip_prefix("/estudio/") {
            return payment::http::answer(&self.storefront, &self.offers, &self.shop, request, slug).await;
        }
        Reply::not_found(path)
    }

    fn serves_host(&self, authority: &str) -> bool {
        self.mcp.allowed.host_allowed(authority)
    }

    fn answer_at_once(&self, request: &Quick<'_>) -> Option<Reply> {
        if mcp::Endpoint::from_path(request.path()).is_some() {
            return None;
        }
        self.answer_from_memory(request.path(), request.query(), request.is_head(), |name| request.header(name))
    }

    fn observe(&self, path: &str, status: u16) {
        self.shop.metrics().request(telemetry::route_of(self, path), status);
    }
}

impl Gate {
    /// A GET or HEAD of a free document, a search or a study without a payment (its 402):
    /// answered from memory, without waiting, by [`Handler::handle`] and by the fast lane alike.
    fn answer_from_memory<'a>(
        &self,
        path: &str,
        query: Option<&'a str>,
        head_only: bool,
        header: impl Fn(&str) -> Option<&'a [u8]>,
    ) -> Option<Reply> {
        if let Some(reply) = self.statics.answer(path, header("accept"), header("if-none-match")) {
            return Some(reply);
        }
        if path == "/buscar" {
            return Some(self.search.answer(query));
        }
        let slug = path.strip_prefix("/estudio/")?;
        let asked = payment::http::Asked {
            query,
            head_only,
            accept: header("accept"),
            payment: header("payment-signature"),
            sign_in: header("sign-in-with-x"),
            mpp: header("authorization").and_then(payment::mpp::credential_of),
            accept_payment: header("accept-payment"),
        };
        payment::http::answer_unpaid(&self.storefront, &self.offers, slug, &asked)
    }

    /// The methods a known path answers, for 405 and CORS preflight; `None` for unknown paths.
    fn allowed_methods(&self, path: &str) -> Option<&'static str> {
        let known = self.statics.get(path).is_some()
            || path == "/buscar"
            || path == telemetry::LIVENESS_PATH
            || path == telemetry::READINESS_PATH
            || path.starts_with("/descarga/")
            || path.strip_prefix("/estudio/").is_some_and(|slug| self.manifest.studies.contains_key(slug));
        known.then_some(ALLOW_READ)
    }

    /// What the MCP tools read: the same free files, search and offers the HTTP routes serve.
    fn store(&self, request: &Request<'_>) -> mcp::Store<'_> {
        mcp::Store {
            manifest: &self.manifest,
            statics: &self.statics,
            search: &self.search,
            offers: &self.offers,
            shop: &self.shop,
            mpp: self.storefront.mpp(),
            client: request.client,
            accept_payment: request.header("accept-payment").and_then(payment::preferences::AcceptPayment::parse),
        }
    }
}

#[async_trait]
impl Handler for Live {
    async fn handle(&self, request: &Request<'_>) -> Reply {
        let gate = self.current();
        gate.handle(request).await
    }

    fn body_limit(&self) -> usize {
        self.current().body_limit()
    }

    fn serves_host(&self, authority: &str) -> bool {
        self.current().serves_host(authority)
    }

    fn answer_at_once(&self, request: &Quick<'_>) -> Option<Reply> {
        self.current().answer_at_once(request)
    }

    fn observe(&self, path: &str, status: u16) {
        self.current().observe(path, status)
    }
}
