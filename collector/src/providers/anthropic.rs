//! Anthropic's Messages API: `POST /v1/messages` (`x-api-key`, `anthropic-version`) with the
//! `web_search_20250305` server tool; the answer is the `text` blocks, its cited sources their
//! `web_search_result_location` citations, its consulted sources every `web_search_result` of the
//! `web_search_tool_result` blocks, searches `usage.server_tool_use.web_search_requests`.

use serde::{Deserialize, Serialize};

use super::{Call, Method, Reply, Request, json_body, push_source};

pub const API_VERSION: &str = "2023-06-01";

#[derive(Debug, Serialize)]
pub struct Body<'a> {
    pub model: &'a str,
    pub max_tokens: u32,
    pub messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool<'a>>,
}

#[derive(Debug, Serialize)]
pub struct Message<'a> {
    pub role: &'static str,
    pub content: &'a str,
}

#[derive(Debug, Serialize)]
pub struct Tool<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_location: Option<UserLocation<'a>>,
}

#[derive(Debug, Serialize)]
pub struct UserLocation<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub country: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<&'a str>,
}

pub fn request(call: &Call<'_>, key: Option<&str>) -> Request {
    let tools = if call.web_search {
        vec![Tool {
            kind: "web_search_20250305",
            name: "web_search",
            max_uses: call.max_searches,
            user_location: call.location.map(|l| UserLocation {
                kind: "approximate",
                country: &l.country,
                city: l.city.as_deref(),
                region: l.region.as_deref(),
                timezone: l.timezone.as_deref(),
            }),
        }]
    } else {
        Vec::new()
    };
    let body = Body {
        model: call.model,
        max_tokens: call.max_output_tokens,
        messages: vec![Message { role: "user", content: call.prompt }],
        system: call.instructions,
        temperature: call.temperature,
        tools,
    };
    let mut headers =
        vec![("content-type", "application/json".to_owned()), ("anthropic-version", API_VERSION.to_owned())];
    if let Some(key) = key {
        headers.push(("x-api-key", key.to_owned()));
    }
    Request { method: Method::Post, path: "/v1/messages".to_owned(), headers, body: json_body(&body) }
}

#[derive(Debug, Deserialize)]
pub struct Response {
    pub model: Option<String>,
    #[serde(default)]
    pub content: Vec<Block>,
    pub stop_reason: Option<String>,
    pub usage: Option<Usage>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum Block {
    #[serde(rename = "text")]
    Text {
        text: String,
        #[serde(default)]
        citations: Option<Vec<Citation>>,
    },
    /// The results of one search: a list of `web_search_result`, or an error object.
    #[serde(rename = "web_search_tool_result")]
    WebSearchToolResult {
        #[serde(default)]
        content: serde_json::Value,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum SearchResult {
    #[serde(rename = "web_search_result")]
    WebSearchResult { url: String, title: Option<String> },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum Citation {
    #[serde(rename = "web_search_result_location")]
    WebSearchResultLocation { url: String, title: Option<String> },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    pub server_tool_use: Option<ServerToolUse>,
}

#[derive(Debug, Deserialize)]
pub struct ServerToolUse {
    #[serde(default)]
    pub web_search_requests: u64,
}

pub fn parse(body: &[u8]) -> Result<Reply, serde_json::Error> {
    let response: Response = serde_json::from_slice(body)?;
    let mut reply = Reply {
        version: response.model,
        refusal: response.stop_reason.as_deref() == Some("refusal"),
        consulted: Some(Vec::new()),
        ..Reply::default()
    };
    let mut consulted = Vec::new();
    // Text blocks in a row are one passage split at its citations ("Based on the search results, "
    // + "Claude Shannon was born…"): they join as they are. Text after a search starts a new
    // paragraph, as the assistants' own apps show it.
    let mut text = String::new();
    let mut after_tool = false;
    for block in response.content {
        match block {
            Block::Text { text: part, citations } => {
                for citation in citations.unwrap_or_default() {
                    if let Citation::WebSearchResultLocation { url, title } = citation {
                        push_source(&mut reply.sources, &url, title.as_deref());
                    }
                }
                if after_tool && !text.is_empty() && !text.ends_with(char::is_whitespace) {
                    text.push_str("\n\n");
                }
                after_tool = false;
                text.push_str(&part);
            }
            Block::WebSearchToolResult { content } => {
                after_tool = true;
                // An error (`web_search_tool_result_error`) is an object, not a list: nothing consulted.
                let results: Vec<SearchResult> = serde_json::from_value(content).unwrap_or_default();
                for result in results {
                    if let SearchResult::WebSearchResult { url, title } = result {
                        push_source(&mut consulted, &url, title.as_deref());
                    }
                }
            }
            Block::Other => after_tool = true,
        }
    }
    reply.text = text;
    reply.consulted = Some(consulted);
    if let Some(usage) = response.usage {
        reply.input_tokens = usage.input_tokens
            + usage.cache_creation_input_tokens.unwrap_or(0)
            + usage.cache_read_input_tokens.unwrap_or(0);
        reply.output_tokens = usage.output_tokens;
        reply.searches = usage.server_tool_use.map_or(0, |s| s.web_search_requests);
    }
    Ok(reply)
}
