//! The gate's routes: which module answers which method and path.
//!
//! | route | module |
//! |---|---|
//! | `GET /`, `/catalogo`, `/metricas`, `/estudio/{slug}/ficha`, … (every manifest route) | [`crate::statics`] |
//! | `GET /buscar?q=` | [`crate::search`] |
//! | `GET /estudio/{slug}?vista=` | [`crate::payment`] through [`Gate::paid`] |
//! | `GET /descarga/{archivo}?vence=&firma=` | [`crate::downloads`] |
//! | `POST /mcp`, `POST /mcp/catalogo` (GET/DELETE → 405 `Allow: POST`) | [`crate::mcp`]: stateless MCP, the paid tool through [`crate::payment`] |
//! | anything else | 404 JSON; a known path with another method, 405 JSON with `Allow` |

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use http::Method;
use serde_json::{Value, json};

use crate::facilitator::Facilitator;
use crate::links::LinkSigner;
use crate::manifest::Manifest;
use crate::payment::{Offer, OfferError, Refusal, Shop, VIEWS};
use crate::response::{Body, Reply};
use crate::server::{Handler, Request, preflight};
use crate::statics::Statics;
use crate::x402::header::{decode_payment_signature, encode_json};
use crate::{downloads, mcp, search};

const ALLOW_READ: &str = "GET, HEAD, OPTIONS";

/// Everything a request may need, loaded once.
pub struct Gate {
    pub dist: PathBuf,
    pub manifest: Manifest,
    pub statics: Statics,
    pub shop: Shop,
    /// The precomputed 402 answer of each offer, by (slug, view).
    unpaid: std::collections::BTreeMap<(String, String), Reply>,
    /// The service index's "how to buy" block, repeated in every 402 body.
    how_to_buy: Value,
    search_cache: search::Cache,
    /// The MCP endpoints' allow-list, tool lists and instructions.
    pub mcp: mcp::McpServer,
}

impl Gate {
    /// Loads `dist/` and wires the shop to a facilitator.
    pub fn load(
        dist: &Path,
        facilitator: Arc<dyn Facilitator>,
        links: LinkSigner,
        purchases_log: Option<&Path>,
    ) -> anyhow::Result<Gate> {
        let manifest = Manifest::load(dist)?;
        let statics = Statics::load(dist, &manifest)?;
        let shop = Shop::new(dist, &manifest, facilitator, links, purchases_log)?;
        let how_to_buy = statics
            .get("/")
            .and_then(|f| serde_json::from_slice::<Value>(&f.bytes).ok())
            .and_then(|index| index.get("como_comprar").cloned())
            .unwrap_or(Value::Null);
        let mcp = mcp::McpServer::new(&manifest, &[]);
        let mut gate = Gate {
            dist: dist.to_owned(),
            manifest,
            statics,
            shop,
            unpaid: Default::default(),
            how_to_buy,
            search_cache: search::Cache::default(),
            mcp,
        };
        gate.precompute_unpaid();
        Ok(gate)
    }

    /// Replaces the shop (after filling Solana fee payers) and recomputes the 402 answers.
    pub fn with_shop(mut self, shop: Shop) -> Gate {
        self.shop = shop;
        self.precompute_unpaid();
        self
    }

    /// Allows more hosts in the MCP endpoints' `Host` and `Origin` checks.
    pub fn with_mcp_hosts(mut self, extra: &[String]) -> Gate {
        self.mcp = self.mcp.with_extra_hosts(extra);
        self
    }

    fn precompute_unpaid(&mut self) {
        let replies = self
            .shop
            .offers()
            .map(|offer| {
                let reply = self.payment_required_reply(offer, None);
                ((offer.slug.clone(), offer.view.clone()), reply)
            })
            .collect();
        self.unpaid = replies;
    }

    /// The 402 for an offer: `PAYMENT-REQUIRED` header and the same object in the body.
    fn payment_required_reply(&self, offer: &Offer, refusal: Option<&Refusal>) -> Reply {
        let (status, code, message, required) = match refusal {
            Some(r) => (r.status, r.code.as_str(), r.message.clone(), r.required.clone()),
            None => {
                let required = Shop::required_with_error(offer, "PAYMENT-SIGNATURE header is required");
                let message = format!(
                    "Este estudio cuesta {} USDC. Pague con x402 v2: firme uno de los requisitos de x402.accepts y repita el pedido con el encabezado PAYMENT-SIGNATURE.",
                    offer.required.accepts.first().map(|a| format_usdc(&a.amount)).unwrap_or_default()
                );
                (402, "pago_requerido", message, required)
            }
        };
        let body = json!({
            "error": code,
            "mensaje": message,
            "estudio": offer.slug,
            "vista": offer.view,
            "x402": required,
            "como_comprar": self.how_to_buy,
        });
        let mut reply = Reply::json(status, &body).with_header("Cache-Control", "no-store");
        if status == 402 || status == 400 {
            reply = reply.with_header("PAYMENT-REQUIRED", encode_json(&required));
        }
        if let Some(settlement) = refusal.and_then(|r| r.settlement.as_ref()) {
            reply = reply.with_header("PAYMENT-RESPONSE", encode_json(settlement));
        }
        reply
    }

    /// `GET /estudio/{slug}?vista=`.
    async fn paid(&self, request: &Request<'_>, slug: &str) -> Reply {
        let view = query_param(request.query(), "vista");
        let offer = match self.shop.offer(slug, view.as_deref()) {
            Ok(offer) => offer,
            Err(OfferError::UnknownStudy) => return unknown_study(slug),
            Err(OfferError::UnknownView) => {
                return Reply::error_with(
                    400,
                    "vista_desconocida",
                    format!("La vista {:?} no existe; use vista=completo o vista=resumen (mismo precio).", view.unwrap_or_default()),
                    json!({"vistas": VIEWS}),
                );
            }
        };
        let Some(header) = request.header("payment-signature") else {
            return self.unpaid.get(&(offer.slug.clone(), offer.view.clone())).cloned().unwrap_or_else(|| self.payment_required_reply(offer, None));
        };
        let payload = match decode_payment_signature(header) {
            Ok(payload) => payload,
            Err(e) => {
                let refusal = Refusal {
                    status: 400,
                    code: e.code().to_owned(),
                    message: e.to_string(),
                    required: Shop::required_with_error(offer, e.code()),
                    settlement: None,
                };
                return self.payment_required_reply(offer, Some(&refusal));
            }
        };
        match self.shop.purchase(offer, &payload).await {
            Ok(delivery) => Reply::new(200, crate::response::JSON, Body::Bytes(delivery.body))
                .with_header("Cache-Control", "no-store")
                .with_header("PAYMENT-RESPONSE", encode_json(&delivery.settlement))
                .with_header("Server-Timing", delivery.timing.header()),
            Err(refusal) => self.payment_required_reply(offer, Some(&refusal)),
        }
    }

    fn route_exists(&self, path: &str) -> Option<&'static str> {
        if self.statics.get(path).is_some() || path == "/buscar" || path.starts_with("/descarga/") {
            return Some(ALLOW_READ);
        }
        if let Some(slug) = path.strip_prefix("/estudio/")
            && self.manifest.estudios.contains_key(slug)
        {
            return Some(ALLOW_READ);
        }
        None
    }
}

#[async_trait]
impl Handler for Gate {
    async fn handle(&self, request: &Request<'_>) -> Reply {
        let path = request.path();
        let method = request.method();
        if let Some(endpoint) = mcp::Endpoint::from_path(path) {
            return mcp::handle(self, request, endpoint).await;
        }
        if method == Method::OPTIONS {
            return match self.route_exists(path) {
                Some(allow) => preflight(allow),
                None => Reply::not_found(path),
            };
        }
        if method != Method::GET && method != Method::HEAD {
            return match self.route_exists(path) {
                Some(allow) => Reply::method_not_allowed(method.as_str(), allow),
                None => Reply::not_found(path),
            };
        }
        if let Some(file) = self.statics.get(path) {
            return file.reply(request.header("if-none-match"));
        }
        if path == "/buscar" {
            return self.search_cache.answer(&self.manifest.busqueda, &self.manifest.servicio.base_url, request.query());
        }
        if let Some(name) = path.strip_prefix("/descarga/") {
            return downloads::answer(&self.dist, &self.manifest, self.shop.links(), name, request.query());
        }
        if let Some(slug) = path.strip_prefix("/estudio/") {
            return self.paid(request, slug).await;
        }
        Reply::not_found(path)
    }
}

fn unknown_study(slug: &str) -> Reply {
    Reply::error_with(
        404,
        "estudio_desconocido",
        format!("No hay un estudio {slug:?}. Vea la lista en /catalogo o busque en /buscar?q=."),
        json!({"catalogo": "/catalogo"}),
    )
}

/// The first value of a query parameter, percent-decoded.
pub fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    url::form_urlencoded::parse(query?.as_bytes()).find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

/// "990000" atomic units → "0.99".
fn format_usdc(amount: &str) -> String {
    let Ok(units) = amount.parse::<u64>() else { return amount.to_owned() };
    format!("{}.{:02}", units / 1_000_000, (units % 1_000_000) / 10_000)
}

/// A small reply body, for tests that inspect it.
pub fn body_bytes(reply: &Reply) -> Option<&Bytes> {
    match &reply.body {
        Body::Bytes(b) => Some(b),
        _ => None,
    }
}
