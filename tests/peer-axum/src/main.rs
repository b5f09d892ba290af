//! The Rust reference x402 seller for the peer benchmark (`tests/interop/bench-peer.sh`).
//!
//! A minimal axum server protected by `x402-axum`, the Rust counterpart of
//! `tests/interop/peer-server.mjs` (`@x402/express`): it makes the gate's offer for a study
//! (exact EVM scheme, USD 0.99 = 990000 USDC units on Base Sepolia, the same `payTo`,
//! `maxTimeoutSeconds` 300, USDC's EIP-712 name and version in `extra`), verifies and settles
//! through the same local facilitator over HTTP, and serves the same free catalog JSON. A paid
//! request gets the study's package file when `STUDIES` names their folder
//! (`dist/private/descargas`: the bytes the gate's full view delivers), else the express peer's
//! small stub. It lives in its own crate, outside the workspace, so the gate's dependency tree
//! never contains axum or x402-axum (`bench-peer.sh` builds it with `--manifest-path`).
//!
//! ```sh
//! PORT=… FACILITATOR_URL=http://127.0.0.1:… PAY_TO=0x… CATALOG=dist/public/catalogo.json \
//!   [STUDIES=dist/private/descargas] peer-axum
//! ```
//!
//! Each variable can also be given as an argument (`--port 8081`, …, `--studies DIR`).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;
use x402_axum::X402Middleware;
use x402_chain_eip155::chain::{AssetTransferMethod, ChecksummedAddress};
use x402_chain_eip155::{KnownNetworkEip155, V2Eip155Exact};
use x402_types::networks::USDC;
use x402_types::proto::v2;

/// The gate's price: USD 0.99 in USDC (6 decimals, so 990000 units).
const PRICE: &str = "0.99";

/// What the peer needs, each from `--name value` or the environment variable `NAME`.
struct Config {
    port: u16,
    facilitator_url: String,
    pay_to: ChecksummedAddress,
    catalog: Vec<u8>,
    /// Folder of the studies' package files (`<slug>.json`), if paid requests get them.
    studies: Option<PathBuf>,
}

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("peer-axum: {e:#}");
        std::process::exit(2);
    }
}

async fn run() -> Result<()> {
    let config = config()?;
    let x402 = X402Middleware::try_new(&config.facilitator_url)
        .map_err(|e| anyhow::anyhow!("FACILITATOR_URL inválida {}: {e}", config.facilitator_url))?;
    let catalog = Bytes::from(config.catalog);
    let app = Router::new()
        .route(
            "/estudio/{slug}",
            get(study).layer(
                x402.with_price_tag(offer(config.pay_to)?)
                    .with_description("Estudio de visibilidad en IA".to_owned())
                    .with_mime_type("application/json".to_owned()),
            ),
        )
        .route(
            "/catalogo",
            get(move || std::future::ready(([(header::CONTENT_TYPE, "application/json")], catalog.clone()))),
        )
        .with_state(config.studies.map(Arc::new));
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, config.port));
    let listener =
        tokio::net::TcpListener::bind(address).await.with_context(|| format!("no se pudo escuchar en {address}"))?;
    println!("peer-axum: http://{address}");
    axum::serve(listener, app).await.context("el servidor se detuvo")
}

/// The offer: x402-chain-eip155's V2 exact price tag for USDC on Base Sepolia.
///
/// x402-chain-eip155 2.0.2 writes `"assetTransferMethod": "eip3009"` into `extra` beside the
/// EIP-712 name and version. The gate and `@x402/evm` send only `name` and `version` (EIP-3009 is
/// what the exact EVM scheme means when no method is named), so `extra` is set to those two for
/// the three sellers' decoded offers to be identical.
fn offer(pay_to: ChecksummedAddress) -> Result<v2::PriceTag> {
    let usdc = USDC::base_sepolia();
    let (AssetTransferMethod::Eip3009 { name, version } | AssetTransferMethod::Permit2 { name, version }) =
        usdc.transfer_method.clone();
    let amount = usdc.parse(PRICE).map_err(|e| anyhow::anyhow!("precio {PRICE}: {e}"))?;
    let mut tag = V2Eip155Exact::price_tag(pay_to, amount).with_timeout(300);
    tag.requirements.extra = Some(json!({ "name": name, "version": version }));
    Ok(tag)
}

/// What a paid request gets: the study's package file read from `STUDIES`, or without it the
/// express peer's stub. A 404 here is not settled (x402-axum settles after a successful answer).
async fn study(State(studies): State<Option<Arc<PathBuf>>>, Path(slug): Path<String>) -> Response {
    let Some(dir) = studies else { return axum::Json(json!({ "estudio": slug })).into_response() };
    if !slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        return StatusCode::NOT_FOUND.into_response();
    }
    match tokio::fs::read(dir.join(format!("{slug}.json"))).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

fn config() -> Result<Config> {
    const FLAGS: [&str; 5] = ["--port", "--facilitator-url", "--pay-to", "--catalog", "--studies"];
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.len().is_multiple_of(2) {
        bail!("cada argumento lleva un valor: {}", args.join(" "));
    }
    if let Some(unknown) = args.iter().step_by(2).find(|a| !FLAGS.contains(&a.as_str())) {
        bail!("argumento desconocido {unknown}; se aceptan {}", FLAGS.join(", "));
    }
    // `--name value` first, then the environment variable NAME.
    let flag = |name: &str| format!("--{}", name.to_lowercase().replace('_', "-"));
    let optional = |name: &str| {
        args.chunks(2)
            .find(|pair| pair[0] == flag(name))
            .map(|pair| pair[1].clone())
            .or_else(|| std::env::var(name).ok())
    };
    let required =
        |name: &str| optional(name).with_context(|| format!("falta {name} (variable de entorno o {})", flag(name)));
    let port = required("PORT")?;
    let pay_to = required("PAY_TO")?;
    let catalog = required("CATALOG")?;
    Ok(Config {
        port: port.parse().with_context(|| format!("PORT inválido: {port}"))?,
        facilitator_url: required("FACILITATOR_URL")?,
        pay_to: pay_to.parse().map_err(|e| anyhow::anyhow!("PAY_TO no es una dirección EVM ({pay_to}): {e}"))?,
        catalog: std::fs::read(&catalog).with_context(|| format!("no se pudo leer CATALOG {catalog}"))?,
        studies: optional("STUDIES").map(PathBuf::from),
    })
}
