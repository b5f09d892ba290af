//! The gate's state: everything one `dist/` is loaded into, and the swap to a new one.
//!
//! A [`Gate`] holds what requests read (the free files, the search, the offers and their 402
//! answers, the MCP tool lists) beside what outlives a `dist/` (the shop's facilitator, link
//! key, receipt key and sales record). [`Live`] lets SIGHUP load a new `dist/` into a new
//! `Gate` and swap it in: requests in flight keep the gate they started with (an `Arc`), new
//! ones get the new one, so nothing is dropped, and the sales record carries over.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use parking_lot::RwLock;
use serde_json::Value;
use sha2::Digest;

use crate::chain::Chains;
use crate::clock::Clock;
use crate::facilitator::Facilitator;
use crate::links::LinkSigner;
use crate::manifest::{self, Manifest};
use crate::mcp::McpServer;
use crate::payment::http::Storefront;
use crate::payment::limits::{Limiter, RefusalLimits};
use crate::payment::mpp::Mpp;
use crate::payment::offer::Offers;
use crate::payment::receipt::sign_offers;
use crate::payment::shop::Shop;
use crate::payment::signin::Challenger;
use crate::sales::Sales;
use crate::search::Search;
use crate::statics::{StaticFile, Statics};
use crate::x402::SupportedResponse;
use crate::x402::receipt::{DID_DOCUMENT_PATH, ReceiptKey};
use gate_http::tls::Certificate;

/// Everything a request may need, loaded once from one `dist/`.
pub struct Gate {
    pub dist: PathBuf,
    pub manifest: Manifest,
    pub statics: Statics,
    pub search: Search,
    pub offers: Offers,
    pub storefront: Storefront,
    pub shop: Shop,
    /// The MCP endpoints' allow-list, tool lists and instructions.
    pub mcp: McpServer,
    /// The facilitator's `/supported` last applied, kept for reloads.
    supported: Option<SupportedResponse>,
}

/// What outlives one `dist/`: handed from a gate to the gate that reloads it.
#[derive(Clone)]
pub struct Services {
    pub facilitator: Arc<dyn Facilitator>,
    pub links: LinkSigner,
    pub sales: Arc<Sales>,
    pub limiter: Arc<Limiter>,
    /// The publisher's key that signs offers and receipts.
    pub receipts: ReceiptKey,
    /// The time the gate goes by (the system clock; tests move it).
    pub clock: Clock,
    /// Where payments are proven when a facilitator's word is not enough.
    pub chains: Chains,
}

impl Gate {
    /// Loads `dist/` and wires the shop to a facilitator. `journal` is the sales journal's
    /// file (see [`crate::sales::journal`]); `None` keeps the sales in memory only. Offers and
    /// receipts are signed with the public development key ([`ReceiptKey::development`]), the
    /// same for every gate loaded this way (tests); `gate` itself loads its own with
    /// [`Gate::load_with`].
    pub fn load(
        dist: &Path,
        facilitator: Arc<dyn Facilitator>,
        links: LinkSigner,
        journal: Option<&Path>,
    ) -> Result<Gate> {
        let sales = match journal {
            Some(path) => Sales::open(path, crate::sales::journal::DEFAULT_SEGMENT_BYTES)?,
            None => Sales::in_memory(),
        };
        let limiter = Arc::new(Limiter::new(RefusalLimits::default()));
        let receipts = ReceiptKey::development();
        Gate::load_with(
            dist,
            Services {
                facilitator,
                links,
                sales: Arc::new(sales),
                limiter,
                receipts,
                clock: Clock::system(),
                chains: Chains::new(),
            },
        )
    }

    /// Loads `dist/` around services that outlive it.
    pub fn load_with(dist: &Path, services: Services) -> Result<Gate> {
        let Services { facilitator, links, sales, limiter, receipts, clock, chains } = services;
        let manifest = manifest::load(dist)?;
        let mut statics = Statics::load(dist, &manifest)?;
        statics.insert(DID_DOCUMENT_PATH, did_document(&receipts, &manifest.service.base_url));
        let challenger = Challenger::new(&links, clock.clone());
        let mut offers = Offers::from_manifest(dist, &manifest, &challenger)?;
        sign_offers(&mut offers, &receipts);
        let mpp = Mpp::new(&links, &manifest.service.base_url, clock.clone());
        let storefront = Storefront::load(dist, &manifest, &offers, how_to_buy(&statics, &manifest))?.with_mpp(mpp);
        Ok(Gate {
            dist: dist.to_owned(),
            search: Search::new(&manifest.search, &manifest.service.base_url),
            mcp: McpServer::new(&manifest, &[]).with_contract(&published_contract(&statics)),
            shop: Shop::new(&manifest.service.base_url, facilitator, links, sales, limiter, receipts, clock, chains),
            manifest,
            statics,
            offers,
            storefront,
            supported: None,
        })
    }

    /// Loads `dist/` again (a new build swapped in) into a new gate that keeps this one's
    /// facilitator, link key, receipt key, sales record, Solana fee payers and MCP allow-list.
    pub fn reload(&self) -> Result<Gate> {
        let services = Services {
            facilitator: Arc::clone(self.shop.facilitator()),
            links: self.shop.links().clone(),
            sales: self.shop.sales(),
            limiter: self.shop.limiter(),
            receipts: self.shop.receipts().clone(),
            clock: self.shop.clock().clone(),
            chains: self.shop.chains().clone(),
        };
        let mut gate = Gate::load_with(&self.dist, services)?;
        if let Some(supported) = &self.supported {
            gate.apply_supported(supported);
        }
        // The MCP allow-list (flags and environment) carries over; a new base_url needs a restart.
        gate.mcp.allowed = self.mcp.allowed.clone();
        Ok(gate)
    }

    /// The same gate selling with x402 only: no MPP challenge on HTTP or MCP (the reference the
    /// benchmarks measure MPP's cost against).
    pub fn without_mpp(mut self) -> Gate {
        self.storefront = self.storefront.without_mpp();
        self
    }

    /// Applies the facilitator's `/supported` answer: fills Solana `feePayer`s, withdraws the
    /// Solana requirements it cannot pay for, signs the offers again and rebuilds the 402
    /// answers. Returns the networks withdrawn.
    pub fn apply_supported(&mut self, supported: &SupportedResponse) -> Vec<String> {
        let withdrawn = self.offers.apply_fee_payers(supported);
        sign_offers(&mut self.offers, self.shop.receipts());
        self.supported = Some(supported.clone());
        self.storefront.refresh(&self.offers);
        withdrawn
    }

    /// Whether any offer takes a Solana network (and so needs the facilitator's fee payer).
    pub fn offers_solana(&self) -> bool {
        self.offers.any_solana()
    }

    /// Allows more hosts in the MCP endpoints' `Host` and `Origin` checks.
    pub fn with_mcp_hosts(mut self, extra: &[String]) -> Gate {
        self.mcp = self.mcp.with_extra_hosts(extra);
        self
    }
}

/// The receipt key's `did:web` document: served by the gate only, since the key is the gate's
/// (never in `dist/`). Short-lived in caches, so a new key shows soon.
fn did_document(receipts: &ReceiptKey, base_url: &str) -> StaticFile {
    let bytes = serde_json::to_vec_pretty(&receipts.did_document(base_url)).unwrap_or_default();
    let etag = format!("\"{}\"", hex::encode(sha2::Sha256::digest(&bytes)));
    StaticFile::new(
        http::HeaderValue::from_static("application/did+json"),
        http::HeaderValue::from_str(&etag).unwrap_or_else(|_| http::HeaderValue::from_static("\"did\"")),
        http::HeaderValue::from_static("public, max-age=300"),
        bytes::Bytes::from(bytes),
        None,
    )
}

/// The `openapi.json` that `dist/` publishes (null when a build has none).
fn published_contract(statics: &Statics) -> Value {
    statics.get("/openapi.json").and_then(|f| serde_json::from_slice::<Value>(&f.bytes).ok()).unwrap_or(Value::Null)
}

/// Each study's "how to buy" block, as its JSON 402s carry it: [`in_the_402`] of its sheet's,
/// which states the study's own price (the service index's lists every price when they differ).
fn how_to_buy(statics: &Statics, manifest: &Manifest) -> BTreeMap<String, Value> {
    let sheet = |path: &str| statics.get(path).and_then(|f| serde_json::from_slice::<Value>(&f.bytes).ok());
    manifest
        .studies
        .keys()
        .map(|slug| (slug.clone(), sheet(&format!("/estudio/{slug}/ficha")).map_or(Value::Null, |s| in_the_402(&s))))
        .collect()
}

/// Of a sheet's `como_comprar`, what a buyer needs to pay now (price, networks, the x402
/// steps in Spanish and English, MPP in one line), and where the whole guide is: every 402
/// carries it, so the rest (MPP's steps, retries, receipts, getting a study again) stays in the
/// sheet, which `guia_completa` names. A 402 body of 15.7 KB was 10 KB of guide (issue 47).
fn in_the_402(sheet: &Value) -> Value {
    const KEPT: [&str; 8] =
        ["protocolo", "moneda", "precio_usd", "monto_atomico", "modo", "redes", "pasos", "tope_de_tu_cliente"];
    let Some(full) = sheet.get("como_comprar").and_then(Value::as_object) else {
        return Value::Null;
    };
    let mut block: serde_json::Map<String, Value> =
        KEPT.iter().filter_map(|key| full.get(*key).map(|value| ((*key).to_owned(), value.clone()))).collect();
    if let Some(summary) = full.get("mpp").and_then(|mpp| mpp.get("resumen")) {
        block.insert("mpp".into(), serde_json::json!({"resumen": summary}));
    }
    if let Some(en) = full.get("en") {
        let english = ["protocol", "steps", "client_cap"]
            .iter()
            .filter_map(|key| en.get(*key).map(|v| ((*key).to_owned(), v.clone())));
        block.insert("en".into(), Value::Object(english.collect()));
    }
    if let Some(url) = sheet.get("urls").and_then(|urls| urls.get("ficha")) {
        block.insert(
            "guia_completa".into(),
            serde_json::json!({
                "url": url,
                "campo": "como_comprar",
                "que_trae": "MPP paso a paso, reintentos, recibos firmados, liquidación incierta y cómo recibir de nuevo un estudio ya comprado",
                "what": "MPP step by step, retries, signed receipts, uncertain settlement and getting a study you bought again",
            }),
        );
    }
    Value::Object(block)
}

/// The gate new requests go to, swappable under a running server.
pub struct Live {
    current: RwLock<Arc<Gate>>,
}

impl Live {
    pub fn new(gate: Gate) -> Live {
        Live { current: RwLock::new(Arc::new(gate)) }
    }

    /// The gate new requests go to.
    pub fn current(&self) -> Arc<Gate> {
        Arc::clone(&self.current.read())
    }

    /// Loads `dist/` again and swaps it in; on error the running gate stays as it was.
    pub fn reload(&self) -> Result<()> {
        let next = self.current().reload()?;
        let studies = next.manifest.studies.len();
        *self.current.write() = Arc::new(next);
        tracing::info!("dist/ recargado: {studies} estudios");
        Ok(())
    }

    /// Reloads on every SIGHUP, on a thread of its own: `dist/`, and the TLS certificate when the
    /// gate serves HTTPS. The handler is installed before this returns, so a SIGHUP sent once the
    /// server answers never kills the process.
    pub fn reload_on_sighup(self: &Arc<Self>, certificate: Option<Arc<Certificate>>) -> Result<()> {
        use tokio::signal::unix::{SignalKind, signal};
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let mut hangups = {
            let _entered = runtime.enter();
            signal(SignalKind::hangup())?
        };
        let live = Arc::clone(self);
        std::thread::Builder::new().name("sighup".into()).spawn(move || {
            runtime.block_on(async move {
                while hangups.recv().await.is_some() {
                    tracing::info!("SIGHUP: recargando dist/");
                    if let Err(e) = live.reload() {
                        tracing::error!("SIGHUP: no se pudo recargar dist/, sigue el anterior: {e:#}");
                    }
                    match certificate.as_ref().map(|c| c.reload()) {
                        Some(Ok(())) => tracing::info!("SIGHUP: certificado TLS recargado"),
                        Some(Err(e)) => {
                            tracing::error!("SIGHUP: no se pudo recargar el certificado TLS, sigue el anterior: {e:#}")
                        }
                        None => {}
                    }
                }
            });
        })?;
        Ok(())
    }
}
