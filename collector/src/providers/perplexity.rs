//! Perplexity's Sonar API: `POST /chat/completions` (`Authorization: Bearer`), OpenAI's chat
//! completions shape plus Perplexity's own fields. Every call searches the web; the answer is the
//! first choice's message, its cited sources `citations` (URLs, titled from `search_results`),
//! its consulted sources `search_results` (`title`, `url`, `date`), searches
//! `usage.num_search_queries` (one when the response does not say). Perplexity bills a fee per
//! request (by `search_context_size`) besides the tokens: `precio.solicitud`.
//!
//! Perplexity's documentation now calls Sonar's chat completions a legacy interface, superseded
//! by its Agent API; the request and response below are those of its Sonar reference.

use serde::{Deserialize, Serialize};

use super::{Call, Method, Reply, Request, json_body, push_source};

#[derive(Debug, Serialize)]
pub struct Body<'a> {
    pub model: &'a str,
    pub messages: Vec<Message<'a>>,
    pub max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_search_options: Option<WebSearchOptions<'a>>,
}

#[derive(Debug, Serialize)]
pub struct Message<'a> {
    pub role: &'static str,
    pub content: &'a str,
}

#[derive(Debug, Serialize)]
pub struct WebSearchOptions<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_context_size: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_location: Option<UserLocation<'a>>,
}

#[derive(Debug, Serialize)]
pub struct UserLocation<'a> {
    pub country: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<&'a str>,
}

pub fn request(call: &Call<'_>, key: Option<&str>) -> Request {
    let mut messages = Vec::new();
    if let Some(instructions) = call.instructions {
        messages.push(Message { role: "system", content: instructions });
    }
    messages.push(Message { role: "user", content: call.prompt });
    let user_location = call.location.map(|l| UserLocation {
        country: &l.country,
        region: l.region.as_deref(),
        city: l.city.as_deref(),
    });
    let web_search_options = (call.search_context.is_some() || user_location.is_some())
        .then_some(WebSearchOptions { search_context_size: call.search_context, user_location });
    let body = Body {
        model: call.model,
        messages,
        max_tokens: call.max_output_tokens,
        temperature: call.temperature,
        web_search_options,
    };
    let mut headers = vec![("content-type", "application/json".to_owned())];
    if let Some(key) = key {
        headers.push(("authorization", format!("Bearer {key}")));
    }
    Request { method: Method::Post, path: "/chat/completions".to_owned(), headers, body: json_body(&body) }
}

#[derive(Debug, Deserialize)]
pub struct Response {
    pub model: Option<String>,
    #[serde(default)]
    pub choices: Vec<Choice>,
    pub usage: Option<Usage>,
    pub citations: Option<Vec<String>>,
    pub search_results: Option<Vec<SearchResult>>,
}

#[derive(Debug, Deserialize)]
pub struct Choice {
    pub message: Option<ChoiceMessage>,
    pub finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct ChoiceMessage {
    pub content: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct SearchResult {
    pub title: Option<String>,
    pub url: String,
}

#[derive(Debug, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    pub num_search_queries: Option<u64>,
}

pub fn parse(body: &[u8]) -> Result<Reply, serde_json::Error> {
    let response: Response = serde_json::from_slice(body)?;
    let mut reply = Reply { version: response.model, ..Reply::default() };
    let results = response.search_results.unwrap_or_default();
    if let Some(choice) = response.choices.into_iter().next() {
        reply.refusal = choice.finish_reason.as_deref() == Some("content_filter");
        reply.text = choice.message.and_then(|m| m.content).unwrap_or_default();
    }
    let title_of = |url: &str| results.iter().find(|r| r.url == url).and_then(|r| r.title.clone());
    for url in response.citations.unwrap_or_default() {
        push_source(&mut reply.sources, &url, title_of(&url).as_deref());
    }
    let mut consulted = Vec::new();
    for result in &results {
        push_source(&mut consulted, &result.url, result.title.as_deref());
    }
    reply.consulted = Some(consulted);
    reply.searches = 1;
    if let Some(usage) = response.usage {
        reply.input_tokens = usage.prompt_tokens;
        reply.output_tokens = usage.completion_tokens;
        reply.searches = usage.num_search_queries.unwrap_or(1);
    }
    Ok(reply)
}
