//! MCP 2026-07-28, the stateless revision, beside the legacy era on the same endpoints.
//!
//! A modern request carries its protocol version and the client's capabilities in
//! `params._meta` and mirrors its method (and tool name) in the `MCP-Protocol-Version`,
//! `Mcp-Method` and `Mcp-Name` headers, so a load balancer can route on the headers without
//! reading the body. This module decides which era a request speaks, refuses a modern request
//! whose envelope is incomplete or whose headers say something other than its body (the
//! specification's `-32602`, `-32020` and `-32022` errors, each with HTTP 400), and dresses
//! modern results the way the revision asks (`resultType`, the server's identity in `_meta`,
//! caching hints on lists). The legacy era (`initialize`, 2025-03-26 to 2025-11-25) is left
//! exactly as it was: a dual-era server picks the era from how each request opens.

use base64::Engine;
use serde_json::{Map, Value, json};

use super::{RpcError, code};
use gate_http::Request;

/// The stateless revisions this server speaks.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];
/// The revisions of the `initialize` era this server speaks, newest first.
pub const LEGACY_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// Every revision, newest first: what `server/discover` and version errors list.
pub const SUPPORTED_VERSIONS: [&str; 4] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];

/// `_meta` keys of the revision.
pub mod keys {
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
}

/// How long a client may keep `tools/list` and `server/discover` (one hour). The tools and
/// their study lists change only when the publisher builds a new `dist/` and reloads the gate,
/// so a client that caches them for an hour sees a new study at most an hour late.
pub const LIST_TTL_MS: u64 = 3_600_000;

/// The era a request speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// `initialize` and the version header only (2025-03-26 to 2025-11-25).
    Legacy,
    /// Per-request `_meta` and mirrored headers (2026-07-28).
    Modern,
}

fn unsupported(requested: &str) -> RpcError {
    RpcError::new(
        400,
        code::UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "Unsupported protocol version: {requested:?} no es una versión de MCP que este servidor hable; versiones admitidas: {}.",
            SUPPORTED_VERSIONS.join(", ")
        ),
    )
    .with_data(json!({"supported": SUPPORTED_VERSIONS, "requested": requested}))
}

fn invalid_meta(message: &str) -> RpcError {
    RpcError::new(400, code::INVALID_PARAMS, format!("Invalid params: {message}"))
}

fn mismatch(message: String) -> RpcError {
    RpcError::new(400, code::HEADER_MISMATCH, format!("Header mismatch: {message}"))
}

/// A header as text: `Ok(None)` when absent, an error when it is not visible ASCII.
fn header_text(request: &Request<'_>, name: &str) -> Result<Option<String>, RpcError> {
    let Some(raw) = request.header(name) else { return Ok(None) };
    let valid = raw.iter().all(|&b| b == b'\t' || (b' '..=b'~').contains(&b));
    match std::str::from_utf8(raw) {
        Ok(text) if valid => Ok(Some(text.trim().to_owned())),
        _ => Err(mismatch(format!("el encabezado {name} tiene caracteres no válidos."))),
    }
}

/// The version a request's `MCP-Protocol-Version` header names, refused when it is one this
/// server does not speak (in either era).
pub fn version_header(request: &Request<'_>) -> Result<Option<String>, RpcError> {
    let header = header_text(request, "mcp-protocol-version")?;
    match header {
        Some(version) if !SUPPORTED_VERSIONS.contains(&version.as_str()) => Err(unsupported(&version)),
        other => Ok(other),
    }
}

/// Which era a request speaks, and for a modern one whether its envelope and headers are
/// complete and agree. `params` is the request's `params` object, if any.
pub fn era(request: &Request<'_>, method: &str, params: Option<&Map<String, Value>>) -> Result<Era, RpcError> {
    let header = version_header(request)?;
    let meta = params.and_then(|p| p.get("_meta"));
    let meta_version = meta.and_then(|m| m.get(keys::PROTOCOL_VERSION));
    let header_modern = header.as_deref().is_some_and(|v| MODERN_VERSIONS.contains(&v));
    let meta_modern = meta_version.and_then(Value::as_str).is_some_and(|v| !LEGACY_VERSIONS.contains(&v));
    // `server/discover` exists only in the modern era: without its envelope it is refused as
    // an incomplete modern request, never answered as a legacy one.
    if !header_modern && !meta_modern && method != "server/discover" {
        return Ok(Era::Legacy);
    }
    let meta = match meta {
        Some(Value::Object(meta)) => meta,
        Some(_) => return Err(invalid_meta("params._meta debe ser un objeto.")),
        None => {
            return Err(invalid_meta(
                "falta params._meta con io.modelcontextprotocol/protocolVersion y io.modelcontextprotocol/clientCapabilities (MCP 2026-07-28).",
            ));
        }
    };
    let version = match meta.get(keys::PROTOCOL_VERSION) {
        Some(Value::String(version)) => version.as_str(),
        Some(_) => return Err(invalid_meta("io.modelcontextprotocol/protocolVersion debe ser un texto.")),
        None => return Err(invalid_meta("falta io.modelcontextprotocol/protocolVersion en params._meta.")),
    };
    if header.as_deref() != Some(version) {
        return Err(mismatch(format!(
            "MCP-Protocol-Version {:?} no coincide con io.modelcontextprotocol/protocolVersion {version:?} del cuerpo.",
            header.unwrap_or_default()
        )));
    }
    if !MODERN_VERSIONS.contains(&version) {
        return Err(unsupported(version));
    }
    if !meta.get(keys::CLIENT_CAPABILITIES).is_some_and(Value::is_object) {
        return Err(invalid_meta(
            "falta io.modelcontextprotocol/clientCapabilities (un objeto, vacío si el cliente no declara ninguna) en params._meta.",
        ));
    }
    check_mirrored_headers(request, method, params)?;
    Ok(Era::Modern)
}

/// `Mcp-Method` always, `Mcp-Name` for the methods that name a tool, prompt or resource: both
/// required and equal to the body.
fn check_mirrored_headers(
    request: &Request<'_>,
    method: &str,
    params: Option<&Map<String, Value>>,
) -> Result<(), RpcError> {
    match header_text(request, "mcp-method")? {
        None => return Err(mismatch(format!("falta el encabezado Mcp-Method (debe ser {method:?})."))),
        Some(header) if header != method => {
            return Err(mismatch(format!("Mcp-Method {header:?} no coincide con el método {method:?} del cuerpo.")));
        }
        Some(_) => {}
    }
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return Ok(()),
    };
    let body = params.and_then(|p| p.get(field)).and_then(Value::as_str);
    let header = header_text(request, "mcp-name")?.map(|value| decode_header_value(&value)).transpose()?;
    match (header, body) {
        (None, Some(body)) => Err(mismatch(format!("falta el encabezado Mcp-Name (debe ser {body:?})."))),
        (Some(header), Some(body)) if header != body => {
            Err(mismatch(format!("Mcp-Name {header:?} no coincide con params.{field} {body:?} del cuerpo.")))
        }
        (Some(header), None) => {
            Err(mismatch(format!("Mcp-Name {header:?} no tiene params.{field} con qué coincidir en el cuerpo.")))
        }
        _ => Ok(()),
    }
}

/// A mirrored header value: as sent, or decoded from the `=?base64?…?=` form clients use for
/// values that are not plain ASCII.
fn decode_header_value(value: &str) -> Result<String, RpcError> {
    let Some(encoded) = value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?=")) else {
        return Ok(value.to_owned());
    };
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| mismatch(format!("el valor {value:?} no es base64 de un texto UTF-8.")))
}

/// Dresses a modern result: `resultType: "complete"` (unless it already says another, such as
/// x402's `payment_required`) and the server's identity in `_meta` (kept beside whatever
/// `_meta` the result already has, such as the x402 receipt).
pub fn complete(mut result: Value, server_info: &Value) -> Value {
    if let Value::Object(map) = &mut result {
        map.entry("resultType").or_insert_with(|| json!("complete"));
        let meta = map.entry("_meta").or_insert_with(|| json!({}));
        if let Value::Object(meta) = meta {
            meta.insert(keys::SERVER_INFO.to_owned(), server_info.clone());
        }
    }
    result
}

/// Adds the caching hints of a list result: the same for every client (`public`).
pub fn cacheable(mut result: Value) -> Value {
    if let Value::Object(map) = &mut result {
        map.insert("ttlMs".to_owned(), json!(LIST_TTL_MS));
        map.insert("cacheScope".to_owned(), json!("public"));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrored_values_decode_from_base64() {
        assert_eq!(decode_header_value("ver_ficha").unwrap(), "ver_ficha");
        assert_eq!(decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(), "Hello, 世界");
        assert_eq!(decode_header_value("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=").unwrap(), "=?base64?literal?=");
        assert_eq!(decode_header_value("=?base64?%%%?=").unwrap_err().code, code::HEADER_MISMATCH);
    }

    #[test]
    fn results_are_dressed_without_losing_their_meta() {
        let info = json!({"name": "estudios-ia", "version": "1"});
        let result = complete(json!({"isError": false, "_meta": {"x402/payment-response": {"success": true}}}), &info);
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["_meta"]["x402/payment-response"]["success"], true);
        assert_eq!(result["_meta"][keys::SERVER_INFO], info);
        let list = cacheable(json!({"tools": []}));
        assert_eq!((list["ttlMs"].as_u64(), list["cacheScope"].as_str()), (Some(LIST_TTL_MS), Some("public")));
    }
}
