//! MCP at `POST /mcp` and `POST /mcp/catalogo`: the service's functions as tools for agents.
//!
//! Agents that speak MCP rather than plain HTTP reach the same catalog, search, sheets and
//! purchase through here. The server is stateless and speaks both eras of Streamable HTTP: the
//! stateless revision 2026-07-28 (per-request `_meta`, `server/discover`, mirrored headers;
//! see [`modern`]) and the `initialize` era (2025-03-26 to 2025-11-25), told apart by how each
//! request opens. Every POST carries one JSON-RPC message and gets one plain JSON answer, no
//! session id is ever issued, and GET and DELETE get 405. The types are a handful of JSON
//! shapes written by hand with serde_json, which keeps the transport rules (status codes,
//! Origin and Host checks, version and mirrored headers) explicit and testable in one place,
//! without an SDK between Pingora and the wire.
//!
//! `/mcp/catalogo` is the same server with the free tools only. The paid tool,
//! `comprar_estudio`, uses the x402 tool-result binding ([`crate::payment::mcp`]) over
//! [`crate::payment::shop::Shop::purchase`], the one implementation of checks and settlement.
//! The tools read a [`Store`]: the same free files, search and offers the HTTP routes serve.

pub mod modern;
pub mod result;
pub mod tools;

use std::collections::BTreeSet;

use bytes::Bytes;
use http::Method;
use serde_json::{Map, Value, json};

use crate::manifest::Manifest;
use crate::payment::offer::Offers;
use crate::payment::shop::Shop;
use crate::search::Search;
use crate::statics::Statics;
use gate_http::response::{Body, Reply};
use gate_http::{Request, preflight};

pub use modern::{Era, SUPPORTED_VERSIONS};
/// What `initialize` offers a client that asks for a revision of that era we do not speak.
pub const LATEST_LEGACY_VERSION: &str = modern::LEGACY_VERSIONS[0];
/// Environment variable with extra allowed hosts (comma-separated), beside localhost and the public host.
pub const HOSTS_ENV: &str = "GATE_MCP_HOSTS";
const JSON_RPC: &str = "2.0";
const ALLOW: &str = "POST";

/// JSON-RPC 2.0 error codes.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    /// Transport-level refusals (Origin, Accept, Content-Type).
    pub const SERVER_ERROR: i64 = -32000;
    /// MCP 2026-07-28: a mirrored header is missing or says something else than the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// MCP 2026-07-28: a revision this server does not speak (with the ones it does).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// Which of the two MCP servers a request reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `/mcp`: every tool, including the paid one.
    Full,
    /// `/mcp/catalogo`: the free catalog tools only.
    Catalog,
}

impl Endpoint {
    /// The endpoint a path names (a trailing slash is the same path).
    pub fn from_path(path: &str) -> Option<Endpoint> {
        match path.strip_suffix('/').unwrap_or(path) {
            "/mcp" => Some(Endpoint::Full),
            "/mcp/catalogo" => Some(Endpoint::Catalog),
            _ => None,
        }
    }
}

/// Hosts accepted in `Host` and `Origin` (DNS-rebinding protection): localhost forms, the
/// public host of `base_url`, and any configured extras. Ports are not compared.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    hosts: BTreeSet<String>,
}

impl AllowedHosts {
    pub fn new(base_url: &str, extra: &[String]) -> AllowedHosts {
        let mut hosts: BTreeSet<String> = ["localhost", "127.0.0.1", "[::1]"].into_iter().map(str::to_owned).collect();
        if let Some(host) = url::Url::parse(base_url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)) {
            hosts.insert(host);
        }
        for item in extra {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            // Accept "host", "host:port" or a full origin like "https://host".
            let host = url::Url::parse(item)
                .ok()
                .filter(|u| u.has_host())
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| host_of_authority(item).to_owned());
            hosts.insert(host.to_ascii_lowercase());
        }
        AllowedHosts { hosts }
    }

    /// Extra hosts from a comma-separated list (the `--hosts-mcp` flag or `GATE_MCP_HOSTS`).
    pub fn parse_list(list: &str) -> Vec<String> {
        list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
    }

    pub fn hosts(&self) -> impl Iterator<Item = &str> {
        self.hosts.iter().map(String::as_str)
    }

    /// A `Host` header value (`name[:port]`).
    pub fn host_allowed(&self, host: &str) -> bool {
        self.hosts.contains(&host_of_authority(host.trim()).to_ascii_lowercase())
    }

    /// An `Origin` header value (`scheme://name[:port]`); `null` and garbage are refused.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        url::Url::parse(origin.trim())
            .ok()
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
            .is_some_and(|host| self.hosts.contains(&host))
    }
}

/// `example.com:8080` → `example.com`, `[::1]:8080` → `[::1]`.
fn host_of_authority(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority.find(']').map(|end| &authority[..=end]).unwrap_or(authority);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// What the MCP endpoints know besides the gate's own data: the allow-list and the texts and
/// tool lists worked out once at start.
#[derive(Debug, Clone)]
pub struct McpServer {
    pub allowed: AllowedHosts,
    base_url: String,
    tools_full: Value,
    tools_catalog: Value,
    instructions_full: String,
    instructions_catalog: String,
    server_name: String,
}

impl McpServer {
    pub fn new(manifest: &Manifest, extra_hosts: &[String]) -> McpServer {
        let base_url = manifest.service.base_url.trim_end_matches('/').to_owned();
        let slugs: Vec<&str> = manifest.studies.keys().map(String::as_str).collect();
        McpServer {
            allowed: AllowedHosts::new(&base_url, extra_hosts),
            tools_full: json!({"tools": tools::definitions(&slugs, Endpoint::Full)}),
            tools_catalog: json!({"tools": tools::definitions(&slugs, Endpoint::Catalog)}),
            instructions_full: tools::instructions(manifest, &base_url, Endpoint::Full),
            instructions_catalog: tools::instructions(manifest, &base_url, Endpoint::Catalog),
            server_name: manifest.service.name.clone(),
            base_url,
        }
    }

    /// The same server with each tool's `outputSchema` taken from the published contract
    /// (`openapi.json`), see [`tools::add_output_schemas`].
    pub fn with_contract(mut self, openapi: &Value) -> McpServer {
        tools::add_output_schemas(&mut self.tools_full["tools"], openapi);
        tools::add_output_schemas(&mut self.tools_catalog["tools"], openapi);
        self
    }

    /// The same server with more allowed hosts.
    pub fn with_extra_hosts(mut self, extra: &[String]) -> McpServer {
        self.allowed = AllowedHosts::new(&self.base_url, extra);
        self
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn instructions(&self, endpoint: Endpoint) -> &str {
        match endpoint {
            Endpoint::Full => &self.instructions_full,
            Endpoint::Catalog => &self.instructions_catalog,
        }
    }

    /// What the server offers: tools, whose list never changes while it runs (a new `dist/`
    /// is a reload, and clients cache the list for [`modern::LIST_TTL_MS`]).
    ///
    /// `/mcp` also declares how it is paid: MPP's client-facing capability
    /// (`experimental.payment`, `draft-payment-transport-mcp-00`) and, on the stateless
    /// revision, x402's `org.x402/payment` extension. The catalog sells nothing.
    fn capabilities(&self, endpoint: Endpoint, era: Era) -> Value {
        let mut capabilities = json!({"tools": {"listChanged": false}});
        if endpoint == Endpoint::Full {
            capabilities["experimental"] = json!({"payment": {"methods": {(crate::payment::mpp::METHOD): {"intents": [crate::payment::mpp::INTENT]}}}});
            if era == Era::Modern {
                capabilities["extensions"] = json!({(crate::payment::mcp::X402_EXTENSION): {}});
            }
        }
        capabilities
    }

    /// Who answers: the same identity in `initialize` and in every modern result's `_meta`.
    fn server_info(&self, endpoint: Endpoint) -> Value {
        let (name, title) = match endpoint {
            Endpoint::Full => ("estudios-ia", self.server_name.clone()),
            Endpoint::Catalog => ("estudios-ia-catalogo", format!("{} (catálogo)", self.server_name)),
        };
        json!({"name": name, "title": title, "version": env!("CARGO_PKG_VERSION"), "websiteUrl": self.base_url})
    }

    fn tool_list(&self, endpoint: Endpoint) -> &Value {
        match endpoint {
            Endpoint::Full => &self.tools_full,
            Endpoint::Catalog => &self.tools_catalog,
        }
    }
}

/// What the tools read: the same data the HTTP routes serve, borrowed from the loaded gate.
pub struct Store<'a> {
    pub manifest: &'a Manifest,
    pub statics: &'a Statics,
    pub search: &'a Search,
    pub offers: &'a Offers,
    pub shop: &'a Shop,
    /// The MPP challenges offered beside x402 (`None`: x402 only).
    pub mpp: Option<&'a crate::payment::mpp::Mpp>,
    /// The address of the client calling, for the limits on refused payments.
    pub client: Option<std::net::IpAddr>,
    /// The HTTP request's `Accept-Payment` (MPP), parsed: what the caller can pay with.
    pub accept_payment: Option<crate::payment::preferences::AcceptPayment>,
}

/// A JSON-RPC error, with the HTTP status it travels with.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub status: u16,
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(status: u16, code: i64, message: impl Into<String>) -> RpcError {
        RpcError { status, code, message: message.into(), data: None }
    }

    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    /// Invalid params: JSON-RPC errors of a well-formed request travel with HTTP 200.
    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(200, code::INVALID_PARAMS, message)
    }

    fn to_value(&self, id: Option<&Value>) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        json!({"jsonrpc": JSON_RPC, "id": id.cloned().unwrap_or(Value::Null), "error": error})
    }

    fn reply(&self, id: Option<&Value>) -> Reply {
        json_reply(self.status, &self.to_value(id))
    }
}

fn json_reply(status: u16, value: &Value) -> Reply {
    match serde_json::to_vec(value) {
        Ok(bytes) => Reply::new(status, "application/json", Body::Bytes(Bytes::from(bytes))),
        Err(_) => Reply::error(500, "error_interno", "No se pudo serializar la respuesta MCP."),
    }
    .with_header("Cache-Control", "private, no-store")
}

/// Answers one HTTP request to an MCP endpoint.
pub async fn handle(server: &McpServer, store: &Store<'_>, request: &Request<'_>, endpoint: Endpoint) -> Reply {
    let method = request.method();
    if method == Method::OPTIONS {
        return preflight(ALLOW);
    }
    if method != Method::POST {
        return Reply::method_not_allowed(method.as_str(), ALLOW);
    }
    if let Err(error) = check_transport(&server.allowed, request) {
        return error.reply(None);
    }
    let message = match parse_message(&request.body) {
        Ok(message) => message,
        Err(error) => return error.reply(None),
    };
    match message {
        Message::Request { id, method, params } => {
            let era = match modern::era(request, &method, params.as_ref()) {
                Ok(era) => era,
                Err(error) => return error.reply(Some(&id)),
            };
            let outcome = match era {
                Era::Legacy => answer(server, store, endpoint, &method, params).await,
                Era::Modern => answer_modern(server, store, endpoint, &method, params).await,
            };
            match outcome {
                Ok(result) => json_reply(200, &json!({"jsonrpc": JSON_RPC, "id": id, "result": result})),
                Err(error) => error.reply(Some(&id)),
            }
        }
        Message::Notification | Message::Response => {
            if let Err(error) = modern::version_header(request) {
                return error.reply(None);
            }
            Reply {
                status: 202,
                headers: vec![("Cache-Control", http::HeaderValue::from_static("no-store"))],
                body: Body::Empty,
            }
        }
    }
}

/// Origin and Host (403), Accept (406) and Content-Type (415), in that order.
fn check_transport(allowed: &AllowedHosts, request: &Request<'_>) -> Result<(), RpcError> {
    let text = |name: &str| request.header(name).map(|v| String::from_utf8_lossy(v).into_owned());
    let host = text("host").or_else(|| request.head.uri.authority().map(|a| a.as_str().to_owned()));
    if let Some(host) = host
        && !allowed.host_allowed(&host)
    {
        return Err(forbidden(&format!("Host {host:?}")));
    }
    if let Some(origin) = text("origin")
        && !allowed.origin_allowed(&origin)
    {
        return Err(forbidden(&format!("Origin {origin:?}")));
    }
    let accept = text("accept").unwrap_or_default();
    if !(accepts(&accept, "application", "json") && accepts(&accept, "text", "event-stream")) {
        return Err(RpcError::new(
            406,
            code::SERVER_ERROR,
            "Not Acceptable: el cliente debe aceptar application/json y text/event-stream (Accept: application/json, text/event-stream).",
        ));
    }
    let content_type = text("content-type").unwrap_or_default();
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        return Err(RpcError::new(
            415,
            code::SERVER_ERROR,
            "Unsupported Media Type: envíe el mensaje JSON-RPC con Content-Type: application/json.",
        ));
    }
    Ok(())
}

fn forbidden(what: &str) -> RpcError {
    RpcError::new(
        403,
        code::SERVER_ERROR,
        format!("Forbidden: {what} no está permitido en este servidor MCP (protección contra DNS rebinding)."),
    )
}

/// Whether an `Accept` value admits `kind/sub` (exactly, `kind/*` or `*/*`, with q > 0).
fn accepts(accept: &str, kind: &str, sub: &str) -> bool {
    accept.split(',').any(|item| {
        let mut parts = item.split(';');
        let range = parts.next().unwrap_or_default().trim();
        let refused = parts.any(|p| {
            let p = p.trim();
            p.strip_prefix("q=").and_then(|q| q.trim().parse::<f32>().ok()).is_some_and(|q| q <= 0.0)
        });
        let (k, s) = range.split_once('/').unwrap_or((range, ""));
        let matches =
            (k == "*" && s == "*") || (k.eq_ignore_ascii_case(kind) && (s == "*" || s.eq_ignore_ascii_case(sub)));
        matches && !refused
    })
}

/// One JSON-RPC message, classified.
#[derive(Debug, PartialEq)]
enum Message {
    Request { id: Value, method: String, params: Option<Map<String, Value>> },
    Notification,
    Response,
}

fn invalid_request(message: &str) -> RpcError {
    RpcError::new(400, code::INVALID_REQUEST, format!("Invalid Request: {message}"))
}

/// 2^53: every integer up to it, and none beyond, is exact in a double.
const MAX_EXACT_INTEGER: f64 = 9_007_199_254_740_992.0;

/// Whether a JSON-RPC `id` is one the gate takes: text, or an integer that fits 64 bits as JSON
/// Schema counts integers (`7` and `7.0` alike, as `openapi.json` states it; `7.0` up to 2^53),
/// never null. The answer repeats it as it came.
fn is_request_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) if n.is_i64() || n.is_u64() => true,
        // Written with a fraction or an exponent: taken where a double holds the integer exactly
        // (an integer text beyond 64 bits, such as -9223372036854775809, also arrives here, and
        // rounds onto i64::MIN).
        Value::Number(n) => n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() <= MAX_EXACT_INTEGER),
        _ => false,
    }
}

/// Parses a POST body into one message: arrays (batches) and malformed envelopes are 400.
fn parse_message(body: &[u8]) -> Result<Message, RpcError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        RpcError::new(400, code::PARSE_ERROR, format!("Parse error: el cuerpo no es JSON válido ({e})."))
    })?;
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(invalid_request(
                "no se admiten lotes (arrays) de JSON-RPC; envíe un mensaje por POST (batches are not supported).",
            ));
        }
        _ => return Err(invalid_request("se espera un objeto JSON-RPC 2.0.")),
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some(JSON_RPC) {
        return Err(invalid_request("falta \"jsonrpc\": \"2.0\"."));
    }
    let id = object.get("id");
    if let Some(method) = object.get("method") {
        let Some(method) = method.as_str() else { return Err(invalid_request("\"method\" debe ser un texto.")) };
        let params = match object.get("params") {
            None => None,
            Some(Value::Object(params)) => Some(params.clone()),
            Some(_) => return Err(invalid_request("\"params\" debe ser un objeto.")),
        };
        return match id {
            None => Ok(Message::Notification),
            Some(id) if is_request_id(id) => Ok(Message::Request { id: id.clone(), method: method.to_owned(), params }),
            Some(_) => Err(invalid_request("\"id\" debe ser un texto o un entero (nunca null).")),
        };
    }
    if id.is_some() && (object.contains_key("result") || object.contains_key("error")) {
        return Ok(Message::Response);
    }
    Err(invalid_request("el mensaje no es un pedido, una notificación ni una respuesta."))
}

/// Runs one request of the `initialize` era.
async fn answer(
    server: &McpServer,
    store: &Store<'_>,
    endpoint: Endpoint,
    method: &str,
    params: Option<Map<String, Value>>,
) -> Result<Value, RpcError> {
    let params = params.unwrap_or_default();
    match method {
        "initialize" => initialize(server, endpoint, &params),
        "ping" => Ok(json!({})),
        "tools/list" => list_tools(server, endpoint, &params),
        "tools/call" => tools::call(server, store, endpoint, Era::Legacy, &params).await,
        other => Err(RpcError::new(200, code::METHOD_NOT_FOUND, format!("Method not found: {other}"))),
    }
}

/// Runs one request of MCP 2026-07-28: no handshake, and only what the revision keeps. Every
/// result says it is complete and who answered; the lists say how long they may be cached.
async fn answer_modern(
    server: &McpServer,
    store: &Store<'_>,
    endpoint: Endpoint,
    method: &str,
    params: Option<Map<String, Value>>,
) -> Result<Value, RpcError> {
    let params = params.unwrap_or_default();
    let result = match method {
        "server/discover" => modern::cacheable(discover(server, endpoint)),
        "tools/list" => modern::cacheable(list_tools(server, endpoint, &params)?),
        "tools/call" => tools::call(server, store, endpoint, Era::Modern, &params).await?,
        other => {
            // Removed methods (initialize, ping, logging/setLevel, ...) and unknown ones alike.
            return Err(RpcError::new(
                404,
                code::METHOD_NOT_FOUND,
                format!(
                    "Method not found: {other} (MCP 2026-07-28 en este servidor: server/discover, tools/list, tools/call)"
                ),
            ));
        }
    };
    Ok(modern::complete(result, &server.server_info(endpoint)))
}

/// `tools/list`: one page, in a fixed order.
fn list_tools(server: &McpServer, endpoint: Endpoint, params: &Map<String, Value>) -> Result<Value, RpcError> {
    if params.get("cursor").is_some_and(|c| !c.is_null()) {
        return Err(RpcError::invalid_params("Invalid cursor: la lista de herramientas tiene una sola página."));
    }
    Ok(server.tool_list(endpoint).clone())
}

/// `initialize`: echo a revision of that era we speak, otherwise offer our latest.
fn initialize(server: &McpServer, endpoint: Endpoint, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let Some(requested) = params.get("protocolVersion").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params("initialize: falta params.protocolVersion."));
    };
    let version = if modern::LEGACY_VERSIONS.contains(&requested) { requested } else { LATEST_LEGACY_VERSION };
    Ok(json!({
        "protocolVersion": version,
        "capabilities": server.capabilities(endpoint, Era::Legacy),
        "serverInfo": server.server_info(endpoint),
        "instructions": server.instructions(endpoint),
    }))
}

/// `server/discover`: every revision spoken, the capabilities, and how to use the server.
fn discover(server: &McpServer, endpoint: Endpoint) -> Value {
    json!({
        "supportedVersions": SUPPORTED_VERSIONS,
        "capabilities": server.capabilities(endpoint, Era::Modern),
        "instructions": server.instructions(endpoint),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_by_path() {
        assert_eq!(Endpoint::from_path("/mcp"), Some(Endpoint::Full));
        assert_eq!(Endpoint::from_path("/mcp/"), Some(Endpoint::Full));
        assert_eq!(Endpoint::from_path("/mcp/catalogo"), Some(Endpoint::Catalog));
        assert_eq!(Endpoint::from_path("/mcp/otro"), None);
        assert_eq!(Endpoint::from_path("/mcpx"), None);
    }

    #[test]
    fn hosts_and_origins() {
        let allowed = AllowedHosts::new(
            "https://estudios.example.com",
            &["Otro.example:8443".into(), "https://tercero.example".into()],
        );
        for host in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "[::1]:8080",
            "[::1]",
            "estudios.example.com",
            "ESTUDIOS.example.com:443",
            "otro.example",
            "tercero.example",
        ] {
            assert!(allowed.host_allowed(host), "{host}");
        }
        for host in ["evil", "evil:80", "estudios.example.com.evil.net", "127.0.0.2", ""] {
            assert!(!allowed.host_allowed(host), "{host}");
        }
        for origin in ["http://localhost:3000", "http://127.0.0.1", "http://[::1]:6274", "https://estudios.example.com"]
        {
            assert!(allowed.origin_allowed(origin), "{origin}");
        }
        for origin in ["http://evil", "null", "", "https://localhost.evil.net", "file:///etc"] {
            assert!(!allowed.origin_allowed(origin), "{origin}");
        }
        assert_eq!(AllowedHosts::parse_list(" a.example, ,b.example:80 "), vec!["a.example", "b.example:80"]);
    }

    #[test]
    fn accept_needs_json_and_event_stream() {
        assert!(accepts("application/json, text/event-stream", "application", "json"));
        assert!(accepts("application/json, text/event-stream", "text", "event-stream"));
        assert!(accepts("*/*", "text", "event-stream"));
        assert!(accepts("text/*;q=0.5", "text", "event-stream"));
        assert!(!accepts("application/json", "text", "event-stream"));
        assert!(!accepts("text/event-stream;q=0, application/json", "text", "event-stream"));
        assert!(!accepts("", "application", "json"));
    }

    #[test]
    fn messages_are_classified() {
        let parse = |s: &str| parse_message(s.as_bytes());
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#),
            Ok(Message::Request { id: json!(7), method: "ping".into(), params: None })
        );
        // JSON Schema counts -236.0 as an integer (Schemathesis sent it); it is repeated as it came.
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":-236.0,"method":"ping"}"#),
            Ok(Message::Request { id: json!(-236.0), method: "ping".into(), params: None })
        );
        assert_eq!(parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Ok(Message::Notification));
        assert_eq!(parse(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#), Ok(Message::Response));
        assert_eq!(parse("{nope").unwrap_err().code, code::PARSE_ERROR);
        for bad in [
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1e300,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":3}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            "42",
        ] {
            let error = parse(bad).unwrap_err();
            assert_eq!((error.status, error.code), (400, code::INVALID_REQUEST), "{bad}");
        }
    }
}
