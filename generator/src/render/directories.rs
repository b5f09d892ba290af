//! The store's entry for MPP's service directory, generated at build from `servicio.toml`.
//!
//! MPP's directory (`tempoxyz/mpp`, the list of services at mpp.dev, also served as an MCP
//! server that agents search) takes a service by a pull request that adds one `ServiceDef` to
//! `schemas/services.ts`; its build (`scripts/generate-discovery.ts`) turns each into an entry
//! of `discovery.json` (`schemas/discovery.schema.json`). This module writes the `ServiceDef`
//! of this store, as JSON (which is also a TypeScript object literal), from the same offer as
//! the 402s: the `evm` method and `charge` intent, USDC's contract and decimals, the realm the
//! gate's challenges name (the host and port of `base_url`), the paid route and the free ones.
//! Written against `tempoxyz/mpp` at 2f8740e; `tests/vendor/mpp/` holds the files it is
//! checked with, and `tests/tests/directorios.rs` type-checks it with TypeScript and runs the
//! directory's own build on it.
//!
//! A store in `local` mode, or whose URLs are not `https`, cannot be listed (the directory
//! lists live services and requires `https`): the document says so and why, in `listable` and
//! `motivos`, and still carries the entry it would submit.

use serde_json::{Value, json};

use contract::Mode;

use crate::render::offer;
use crate::render::site::Site;

/// Where the entry goes, and the revision it follows.
pub const MPP_DIRECTORY: &str = "tempoxyz/mpp schemas/services.ts (ServiceDef), revisión 2f8740e";

/// The directory's categories this store belongs to (`CATEGORIES` in `services.ts`).
const CATEGORIES: [&str; 1] = ["data"];

/// `ServiceDef.id`: the first label of the publisher's web host (`observatorio-ia` for
/// `https://observatorio-ia.example.com`), lowercase letters, digits and hyphens.
pub fn service_id(web: &str) -> String {
    let host = url::Url::parse(web).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default();
    let label = host.split('.').next().unwrap_or_default().to_lowercase();
    kebab(&label)
}

/// Lowercase kebab-case (`[a-z0-9-]+`), as the directory's tags and ids must be.
fn kebab(text: &str) -> String {
    let folded = contract::fold::strip_accents(text).to_lowercase();
    let mut out = String::new();
    for c in folded.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// The realm of the gate's MPP challenges: the host (and port) of `base_url`, as the gate
/// computes it.
fn realm(base_url: &str) -> String {
    url::Url::parse(base_url)
        .ok()
        .and_then(|u| {
            let host = u.host_str()?.to_owned();
            Some(match u.port() {
                Some(port) => format!("{host}:{port}"),
                None => host,
            })
        })
        .unwrap_or_else(|| base_url.to_owned())
}

/// Why this store cannot be listed yet (empty: it can).
fn unlisted_reasons(site: &Site<'_>) -> Vec<String> {
    let service = &site.content.service;
    let mut reasons = Vec::new();
    if service.mode == Mode::Local {
        reasons.push(
            "modo local: no se cobra en ninguna cadena (el directorio lista servicios que aceptan pagos)".to_owned(),
        );
    }
    for (field, value) in [("web", &service.web), ("base_url", &service.base_url)] {
        if !value.starts_with("https://") {
            reasons.push(format!("{field} no empieza con https:// (el directorio lo exige)"));
        }
    }
    reasons
}

/// The `ServiceDef` of this store.
pub fn mpp_service(site: &Site<'_>) -> Value {
    let service = &site.content.service;
    let evm = offer::networks(service).into_iter().find(|n| !n.is_solana());
    let mut tags: Vec<String> =
        vec!["ai-visibility".into(), "brand-monitoring".into(), "llm-answers".into(), "datasets".into()];
    for study in &site.content.studies {
        for tag in std::iter::once(&study.design.industry).chain(&study.design.country) {
            let tag = kebab(tag);
            if !tag.is_empty() && !tags.contains(&tag) {
                tags.push(tag);
            }
        }
    }
    let paid = match site.common_price() {
        Some(price) => json!({
            "route": "GET /estudio/:slug",
            "desc": format!("Buy one study whole ({} USD in USDC): the study and signed links to its JSON package and ZIP", price.usd()),
            "amount": price.atomic_string(),
            "unitType": "study",
        }),
        None => {
            let prices = site.prices();
            let (low, high) = (prices.values().min().copied(), prices.values().max().copied());
            json!({
                "route": "GET /estudio/:slug",
                "desc": "Buy one study whole: the study and signed links to its JSON package and ZIP",
                "dynamic": true,
                "amountHint": format!(
                    "${} – ${} depending on the study",
                    low.map(|p| p.usd()).unwrap_or_default(),
                    high.map(|p| p.usd()).unwrap_or_default()
                ),
            })
        }
    };
    let mut entry = json!({
        "id": service_id(&service.web),
        "name": service.name_en,
        "url": service.web,
        "serviceUrl": service.base_url,
        "description": service.description_en,
        "categories": CATEGORIES,
        "integration": "first-party",
        "tags": tags,
        "status": if service.mode == Mode::Mainnet { "active" } else { "beta" },
        "docs": {
            "homepage": site.url("/"),
            "llmsTxt": site.url("/llms.txt"),
            "apiReference": site.url("/openapi.json"),
        },
        "provider": {"name": service.editor, "url": service.web},
        "realm": realm(&service.base_url),
        "intent": "charge",
        "payments": [{
            "method": "evm",
            "currency": evm.as_ref().map(|n| n.asset.clone()).unwrap_or_default(),
            "decimals": 6,
        }],
        "endpoints": [
            paid,
            {"route": "GET /estudio/:slug/ficha", "desc": "Free study sheet: design, universe, analysis index, examples, files and how to buy"},
            {"route": "GET /catalogo", "desc": "Free catalog of the studies for sale"},
            {"route": "GET /buscar", "desc": "Search the studies by topic, industry, country or brand (q=)"},
            {"route": "POST /mcp", "desc": "MCP over Streamable HTTP: the free tools and comprar_estudio, paid with MPP (JSON-RPC -32042) or x402"},
        ],
    });
    if let Some(icon) = &service.icon_url {
        entry["icon"] = json!(icon);
    }
    entry
}

/// The document published at [`crate::paths::MPP_DIRECTORY_URL`]: the entry, whether it can be
/// listed, and how.
pub fn mpp_document(site: &Site<'_>) -> Value {
    let reasons = unlisted_reasons(site);
    json!({
        "directorio": MPP_DIRECTORY,
        "listable": reasons.is_empty(),
        "motivos": reasons,
        "como_publicar": "Agregue el objeto `servicio` al arreglo `services` de schemas/services.ts en un pull request a tempoxyz/mpp (plantilla .github/PULL_REQUEST_TEMPLATE/service.md); el directorio valida los tipos (pnpm check:types) y arma discovery.json (pnpm generate:discovery).",
        "how_to_publish": "Add the `servicio` object to the `services` array of schemas/services.ts in a pull request to tempoxyz/mpp.",
        "servicio": mpp_service(site),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_tags_are_lowercase_kebab_case() {
        assert_eq!(service_id("https://observatorio-ia.example.com"), "observatorio-ia");
        assert_eq!(kebab("Servicios financieros"), "servicios-financieros");
        assert_eq!(kebab("Bebidas & Snacks (Perú)"), "bebidas-snacks-peru");
        assert_eq!(realm("http://127.0.0.1:8080"), "127.0.0.1:8080");
        assert_eq!(realm("https://estudios.example.com"), "estudios.example.com");
    }
}
