//! The wire protocols: each turns one question into a request (typed `serde` structs) and one
//! response body into a [`Reply`]: the text, the sources the provider says it cited and the ones
//! it says it consulted, exactly as its API serves them. No I/O here: `client` sends, these
//! modules only speak.

pub mod anthropic;
pub mod compatible;
pub mod google;
pub mod openai;
pub mod perplexity;
pub mod serpapi;

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
    /// The question's language (`idioma`), for a SERP API's `hl`.
    pub language: Option<&'a str>,
    /// Perplexity's `search_context_size`.
    pub search_context: Option<&'a str>,
    /// The surface asked (`api`, or the consumer surface a SERP API captures).
    pub surface: &'a str,
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
    /// A SERP API's search: what it reports of it (engine, id, date, location, language).
    pub search: Option<serpapi::Search>,
    /// A second request this answer needs (SerpApi's AI Overview, when Google defers it): the
    /// path of the follow-up request, the key added by [`follow_up`].
    pub follow_up: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub url: String,
    pub title: String,
}

/// An HTTP request to send: method, path under the base URL (with its query), headers (the key
/// among them, except for SerpApi, which takes it only as the `api_key` query parameter) and body.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: Method,
    pub path: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

/// Builds the request of one call for a protocol. `key` is `None` for a keyless local server.
pub fn request(kind: Kind, call: &Call<'_>, key: Option<&str>) -> Request {
    match kind {
        Kind::Openai => openai::request(call, key),
        Kind::Anthropic => anthropic::request(call, key),
        Kind::Google => google::request(call, key),
        Kind::Perplexity => perplexity::request(call, key),
        Kind::Serpapi => serpapi::request(call, key),
        Kind::Compatible => compatible::request(call, key),
    }
}

/// The follow-up request a reply asked for (see [`Reply::follow_up`]).
pub fn follow_up(kind: Kind, path: &str, key: Option<&str>) -> Request {
    match kind {
        Kind::Serpapi => serpapi::follow_up(path, key),
        _ => Request { method: Method::Get, path: path.to_owned(), headers: Vec::new(), body: Vec::new() },
    }
}

/// Reads a successful response body.
pub fn parse(kind: Kind, body: &[u8]) -> Result<Reply, String> {
    match kind {
        Kind::Openai => openai::parse(body),
        Kind::Anthropic => anthropic::parse(body),
        Kind::Google => google::parse(body),
        Kind::Perplexity => perplexity::parse(body),
        Kind::Serpapi => serpapi::parse(body),
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
