//! Any OpenAI-compatible chat completions endpoint: `POST {url_base}/chat/completions`.
//! Perplexity's `sonar` models search on every call and add `citations` (URLs: the cited
//! sources) and `search_results` (`title`, `url`, `date`: the consulted ones); OpenAI's search
//! models add `url_citation` annotations to the message (cited); a local vLLM or llama.cpp server
//! adds nothing (and says nothing of what it consulted).

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
    pub user_location: UserLocation<'a>,
}

#[derive(Debug, Serialize)]
pub struct UserLocation<'a> {
    pub country: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<&'a str>,
}

pub fn request(call: &Call<'_>, key: Option<&str>) -> Request {
    let mut messages = Vec::new();
    if let Some(instructions) = call.instructions {
        messages.push(Message { role: "system", content: instructions });
    }
    messages.push(Message { role: "user", content: call.prompt });
    let body = Body {
        model: call.model,
        messages,
        max_tokens: call.max_output_tokens,
        temperature: call.temperature,
        web_search_options: call.location.filter(|_| call.web_search).map(|l| WebSearchOptions {
            user_location: UserLocation { country: &l.country, city: l.city.as_deref(), region: l.region.as_deref() },
        }),
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
    pub refusal: Option<String>,
    #[serde(default)]
    pub annotations: Vec<Annotation>,
}

#[derive(Debug, Deserialize)]
pub struct Annotation {
    pub url_citation: Option<UrlCitation>,
}

#[derive(Debug, Deserialize)]
pub struct UrlCitation {
    pub url: String,
    pub title: Option<String>,
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
}

pub fn parse(body: &[u8]) -> Result<Reply, serde_json::Error> {
    let response: Response = serde_json::from_slice(body)?;
    let mut reply = Reply { version: response.model, ..Reply::default() };
    let results = response.search_results.as_deref().unwrap_or_default();
    let title_of = |url: &str| results.iter().find(|r| r.url == url).and_then(|r| r.title.clone());
    if let Some(choice) = response.choices.into_iter().next() {
        if choice.finish_reason.as_deref() == Some("content_filter") {
            reply.refusal = true;
        }
        if let Some(message) = choice.message {
            match (message.content.filter(|c| !c.trim().is_empty()), message.refusal) {
                (Some(content), _) => reply.text = content,
                (None, Some(refusal)) => {
                    reply.refusal = true;
                    reply.text = refusal;
                }
                (None, None) => {}
            }
            for annotation in message.annotations {
                if let Some(c) = annotation.url_citation {
                    push_source(&mut reply.sources, &c.url, c.title.as_deref());
                }
            }
        }
    }
    let citations = response.citations.unwrap_or_default();
    for url in &citations {
        push_source(&mut reply.sources, url, title_of(url).as_deref());
    }
    if response.search_results.is_some() {
        let mut consulted = Vec::new();
        for result in results {
            push_source(&mut consulted, &result.url, result.title.as_deref());
        }
        reply.consulted = Some(consulted);
    }
    if !citations.is_empty() || !results.is_empty() {
        reply.searches = 1;
    }
    if let Some(usage) = response.usage {
        reply.input_tokens = usage.prompt_tokens;
        reply.output_tokens = usage.completion_tokens;
    }
    Ok(reply)
}
