//! `server.json`: the MCP server described for MCP registries (schema dated 2025-12-11).
//!
//! The official MCP registry and the sub-registries that mirror it read one `server.json` per
//! server: a reverse-DNS name, a description of at most 100 characters, a version and, for a
//! server reached over the network, its `remotes`. The gate's MCP server has no package to
//! install, so the document has one remote, `streamable-http` at `{base_url}/mcp`.
//! `/mcp/catalogo` (the free tools only) is not listed as a second remote: registry clients
//! treat remotes as interchangeable endpoints of one server, and that one cannot buy; it is
//! named in the publisher-provided `_meta` instead, with the other discovery documents.

use serde_json::{Value, json};

use crate::paths;
use crate::render::site::Site;

/// The registry schema this document follows.
pub const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The schema's limit on `description` and `title`, in characters.
pub const MAX_TEXT: usize = 100;

/// What the server does, for registry listings (at most [`MAX_TEXT`] characters).
pub const DESCRIPTION: &str =
    "Estudios de visibilidad de marcas en asistentes de IA: buscar, ver fichas y comprar con x402.";

/// The server's name within the publisher's namespace.
const SERVER_NAME: &str = "estudios";

/// The key the schema reserves for what a publisher adds.
const PUBLISHER_META: &str = "io.modelcontextprotocol.registry/publisher-provided";

/// `server.json` for the MCP server of this build.
pub fn server_json(site: &Site<'_>) -> Value {
    let service = &site.content.service;
    json!({
        "$schema": SCHEMA,
        "name": server_name(&service.web),
        "title": truncate(&service.name, MAX_TEXT),
        "description": DESCRIPTION,
        "version": env!("CARGO_PKG_VERSION"),
        "websiteUrl": site.url("/"),
        "remotes": [{"type": "streamable-http", "url": site.url("/mcp")}],
        "_meta": {PUBLISHER_META: {
            "mcp_solo_catalogo": site.url("/mcp/catalogo"),
            "herramienta_pago": contract::mcp::BUY_TOOL,
            "pago": "x402 v2 (USDC); el binding x402 de MCP lleva el pago en params._meta[\"x402/payment\"]",
            "openapi": site.url("/openapi.json"),
            "llms_txt": site.url("/llms.txt"),
            "descubrimiento_x402": site.url("/.well-known/x402"),
            "server_json": site.url(paths::MCP_SERVER_URL),
        }},
    })
}

/// The registry name: the publisher's web host in reverse-DNS order, a slash and
/// [`SERVER_NAME`] (`https://observatorio-ia.example.com` → `com.example.observatorio-ia/estudios`).
/// The registry verifies a `com.example.*` namespace against the domain `example.com`, which is
/// the publisher's, not necessarily the gate's.
pub fn server_name(web: &str) -> String {
    let host = url::Url::parse(web).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default();
    let reversed: Vec<&str> = host.trim_end_matches('.').split('.').rev().collect();
    format!("{}/{SERVER_NAME}", reversed.join("."))
}

/// `text` cut at a word boundary to at most `max` characters (with "…" when cut).
fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out = String::new();
    for word in text.split_whitespace() {
        let extra = usize::from(!out.is_empty()) + word.chars().count();
        if out.chars().count() + extra + 1 > max {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_publisher_domain_reversed() {
        assert_eq!(server_name("https://observatorio-ia.example.com"), "com.example.observatorio-ia/estudios");
        assert_eq!(server_name("https://www.example.org:8443/x"), "org.example.www/estudios");
    }

    #[test]
    fn texts_fit_the_registry_limit() {
        assert!(DESCRIPTION.chars().count() <= MAX_TEXT, "{} characters", DESCRIPTION.chars().count());
        let long = "palabra ".repeat(30);
        let cut = truncate(&long, MAX_TEXT);
        assert!(cut.chars().count() <= MAX_TEXT && cut.ends_with('…'), "{cut}");
        assert_eq!(truncate("corto", MAX_TEXT), "corto");
    }
}
