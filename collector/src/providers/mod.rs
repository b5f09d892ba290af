//! The wire protocols: each turns one question into a request (typed `serde` structs) and one
//! response body into a [`Reply`]: the text, the sources the provider says it cited and the ones
//! it says it consulted, exactly as its API serves them. No I/O here: `client` sends, these
//! modules only speak.

pub mod anthropic;
pub mod compatible;
pub mod google;
pub mod openai;

use crate::config::{Kind, Location};

/// What one call asks.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    pub model: &'a str,
    pub prompt: &'a str,
    pub instructions: Option<&'a str>,
    pub temperature: Option<f64>,
    pub max_output_tokens: u32,
    pub web_search: bool,
    pub max_searches: Option<u32>,
    pub effort: Option<&'a str>,
    pub location: Option<&'a Location>,
}

/// What one call answered, in the content format's terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    /// The full text, as the model gave it.
    pub text: String,
    /// Every cited source, in order of first citation, without repeats.
    pub sources: Vec<Source>,
    /// Every source the provider says it consulted, cited or not, in the order it lists them,
    /// without repeats; `None` when the API does not say (an OpenAI-compatible server without
    /// `search_results`).
    pub consulted: Option<Vec<Source>>,
    /// The dated version the provider reports.
    pub version: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Web searches the provider reports (the unit of its search price).
    pub searches: u64,
    /// The provider flagged a refusal (or blocked the answer).
    pub refusal: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub url: String,
    pub title: String,
}

/// An HTTP request to send: path under the base URL, headers (the key among them) and body.
#[derive(Debug, Clone)]
pub struct Request {
    pub path: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

/// Builds the request of one call for a protocol. `key` is `None` for a keyless local server.
pub fn request(kind: Kind, call: &Call<'_>, key: Option<&str>) -> Request {
    match kind {
        Kind::Openai => openai::request(call, key),
        Kind::Anthropic => anthropic::request(call, key),
        Kind::Google => google::request(call, key),
        Kind::Compatible => compatible::request(call, key),
    }
}

/// Reads a successful response body.
pub fn parse(kind: Kind, body: &[u8]) -> Result<Reply, String> {
    match kind {
        Kind::Openai => openai::parse(body),
        Kind::Anthropic => anthropic::parse(body),
        Kind::Google => google::parse(body),
        Kind::Compatible => compatible::parse(body),
    }
    .map_err(|e| e.to_string())
}

/// Adds a source unless its URL is already there; a missing title becomes the host; URLs that are
/// not http(s) with a host are left out (the content format would reject them).
pub(crate) fn push_source(sources: &mut Vec<Source>, url: &str, title: Option<&str>) {
    let Ok(parsed) = url::Url::parse(url.trim()) else { return };
    if !matches!(parsed.scheme(), "http" | "https") {
        return;
    }
    let Some(host) = parsed.host_str().map(str::to_owned) else { return };
    if sources.iter().any(|s| s.url == url.trim()) {
        return;
    }
    let title = title.map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned).unwrap_or(host);
    sources.push(Source { url: url.trim().to_owned(), title });
}

pub(crate) fn json_body<T: serde::Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}
