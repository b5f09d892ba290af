//! The gate's routes: which module answers which method and path.
//!
//! | route | module |
//! |---|---|
//! | `GET /`, `/catalogo`, `/metricas`, `/estudio/{slug}/ficha`, … (every manifest route) | [`crate::statics`] (`/` by `Accept`, [`crate::pages`]) |
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
use crate::manifest::{self, Manifest};
use contract::{Price, View};

use crate::payment::{Offer, OfferError, Refusal, Shop};
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
    unpaid: std::collections::BTreeMap<(String, View), Reply>,
    /// The same 402 for a browser: the study's HTML page with the same `PAYMENT-REQUIRED`.
    unpaid_html: std::collections::BTreeMap<(String, View), Reply>,
    /// Each study's HTML 402 page, rendered by the generator.
    payment_pages: std::collections::BTreeMap<String, Bytes>,
    /// The service index's "how to buy" block, repeated in every 402 body.
    how_to_buy: Value,
    pub search: search::Search,
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
        let manifest = manifest::load(dist)?;
        let shop = Shop::new(dist, &manifest, facilitator, links, purchases_log)?;
        Gate::load_parts(dist, manifest, shop)
    }

    fn load_parts(dist: &Path, manifest: Manifest, shop: Shop) -> anyhow::Result<Gate> {
        let statics = Statics::load(dist, &manifest)?;
        let payment_pages = crate::pages::load_payment_pages(dist, &manifest)?;
        let how_to_buy = statics
            .get("/")
            .and_then(|f| serde_json::from_slice::<Value>(&f.bytes).ok())
            .and_then(|index| index.get("como_comprar").cloned())
            .unwrap_or(Value::Null);
        let mcp = mcp::McpServer::new(&manifest, &[]);
        let search = search::Search::new(&manifest.busqueda, &manifest.servicio.base_url);
        let mut gate = Gate {
            dist: dist.to_owned(),
            manifest,
            statics,
            shop,
            unpaid: Default::default(),
            unpaid_html: Default::default(),
            payment_pages,
            how_to_buy,
            search,
            mcp,
        };
        gate.precompute_unpaid();
        Ok(gate)
    }

    /// Loads `dist/` again (a new build swapped in) into a new gate that keeps this one's
    /// facilitator, link key, journal and replay book, and its Solana fee payers.
    pub fn reload(&self) -> anyhow::Result<Gate> {
        let old = &self.shop;
        let manifest = manifest::load(&self.dist)?;
        let mut shop =
            Shop::with_sales(&self.dist, &manifest, Arc::clone(old.facilitator()), old.links().clone(), old.sales())?;
        if let Some(supported) = old.supported() {
            shop.apply_fee_payers(supported);
        }
        let mut gate = Gate::load_parts(&self.dist, manifest, shop)?;
        // The MCP allow-list (flags and environment) carries over; a new base_url needs a restart.
        gate.mcp.allowed = self.mcp.allowed.clone();
        Ok(gate)
    }

    /// Applies the facilitator's `/supported` answer: fills Solana `feePayer`s, withdraws the
    /// Solana requirements it cannot pay for, and recomputes the 402 answers. Returns the
    /// networks withdrawn.
    pub fn apply_supported(&mut self, supported: &crate::x402::SupportedResponse) -> Vec<String> {
        let withdrawn = self.shop.apply_fee_payers(supported);
        self.precompute_unpaid();
        withdrawn
    }

    /// Whether any offer takes a Solana network (and so needs the facilitator's fee payer).
    pub fn offers_solana(&self) -> bool {
        self.shop.offers().any(|o| o.required.accepts.iter().any(|a| a.network.starts_with("solana:")))
    }

    /// Allows more hosts in the MCP endpoints' `Host` and `Origin` checks.
    pub fn with_mcp_hosts(mut self, extra: &[String]) -> Gate {
        self.mcp = self.mcp.with_extra_hosts(extra);
        self
    }

    fn precompute_unpaid(&mut self) {
        let replies: std::collections::BTreeMap<_, _> = self
            .shop
            .offers()
            .map(|offer| {
                let reply = self.payment_required_reply(offer, None).with_header("Vary", "Accept");
                ((offer.slug.clone(), offer.view), reply)
            })
            .collect();
        self.unpaid_html = replies
            .iter()
            .filter_map(|(key, json)| {
                let page = self.payment_pages.get(&key.0)?.clone();
                Some((key.clone(), crate::pages::html_payment_reply(json, page)))
            })
            .collect();
        self.unpaid = replies;
    }

    /// The unpaid 402 of an offer: HTML for a browser, JSON for everyone else.
    fn unpaid_reply(&self, offer: &Offer, accept: Option<&[u8]>) -> Reply {
        let key = (offer.slug.clone(), offer.view);
        let html = if crate::pages::prefers_html(accept) { self.unpaid_html.get(&key) } else { None };
        html.or_else(|| self.unpaid.get(&key)).cloned().unwrap_or_else(|| self.payment_required_reply(offer, None))
    }

    /// The 402 for an offer: `PAYMENT-REQUIRED` header and the same object in the body.
    fn payment_required_reply(&self, offer: &Offer, refusal: Option<&Refusal>) -> Reply {
        let (status, code, message, required) = match refusal {
            Some(r) => (r.status, r.code.as_str(), r.message.clone(), r.required.clone()),
            None => {
                let required = Shop::required_with_error(offer, "PAYMENT-SIGNATURE header is required");
                let message = format!(
                    "Este estudio cuesta {} USDC. Pague con x402 v2: firme uno de los requisitos de x402.accepts y repita el pedido con el encabezado PAYMENT-SIGNATURE.",
                    offer
                        .required
                        .accepts
                        .first()
                        .and_then(|a| Price::from_atomic_str(&a.amount))
                        .map(Price::usd)
                        .unwrap_or_default()
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
                    format!(
                        "La vista {:?} no existe; use vista=completo o vista=resumen (mismo precio).",
                        view.unwrap_or_default()
                    ),
                    json!({"vistas": View::NAMES}),
                );
            }
        };
        let Some(header) = request.header("payment-signature") else {
            return self.unpaid_reply(offer, request.header("accept"));
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
        if let Some(reply) = self.statics.answer(path, request.header("accept"), request.header("if-none-match")) {
            return reply;
        }
        if path == "/buscar" {
            return self.search.answer(request.query());
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

/// A small reply body, for tests that inspect it.
pub fn body_bytes(reply: &Reply) -> Option<&Bytes> {
    match &reply.body {
        Body::Bytes(b) => Some(b),
        _ => None,
    }
}
