//! OpenAI's Responses API: `POST /v1/responses` with the `web_search` tool and
//! `include: ["web_search_call.action.sources"]`; the answer is the `output_text` of the `message`
//! items, its cited sources the `url_citation` annotations, its consulted sources the
//! `action.sources` of every `web_search_call` (`{"type": "url", "url"}`: the API gives no title,
//! so a consulted source takes the title of a citation of the same URL, or its host), `model` the
//! dated snapshot, `usage` the tokens, and each `web_search_call` of action `search` one search.

use serde::{Deserialize, Serialize};

use super::{Call, Method, Reply, Request, json_body, push_source};

#[derive(Debug, Serialize)]
pub struct Body<'a> {
    pub model: &'a str,
    pub input: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    pub max_output_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning<'a>>,
    /// Nothing is kept on OpenAI's side for later turns.
    pub store: bool,
    /// `web_search_call.action.sources`: every source the search consulted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<&'static str>,
}

/// What `include` asks for, so that each `web_search_call` lists the sources it consulted.
pub const INCLUDE_SOURCES: &str = "web_search_call.action.sources";

#[derive(Debug, Serialize)]
pub struct Tool<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
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

#[derive(Debug, Serialize)]
pub struct Reasoning<'a> {
    pub effort: &'a str,
}

pub fn request(call: &Call<'_>, key: Option<&str>) -> Request {
    let tools = if call.web_search {
        vec![Tool {
            kind: "web_search",
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
        input: call.prompt,
        instructions: call.instructions,
        tools,
        temperature: call.temperature,
        max_output_tokens: call.max_output_tokens,
        reasoning: call.effort.map(|effort| Reasoning { effort }),
        store: false,
        include: if call.web_search { vec![INCLUDE_SOURCES] } else { Vec::new() },
    };
    let mut headers = vec![("content-type", "application/json".to_owned())];
    if let Some(key) = key {
        headers.push(("authorization", format!("Bearer {key}")));
    }
    Request { method: Method::Post, path: "/v1/responses".to_owned(), headers, body: json_body(&body) }
}

#[derive(Debug, Deserialize)]
pub struct Response {
    pub model: Option<String>,
    #[serde(default)]
    pub output: Vec<OutputItem>,
    pub usage: Option<Usage>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum OutputItem {
    #[serde(rename = "message")]
    Message {
        #[serde(default)]
        content: Vec<Content>,
    },
    #[serde(rename = "web_search_call")]
    WebSearchCall { action: Option<Action> },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
pub struct Action {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// With `include: ["web_search_call.action.sources"]`: what the search consulted.
    #[serde(default)]
    pub sources: Vec<ActionSource>,
}

/// A consulted source: a web page (`url`), or one of OpenAI's own data sources (`api`, with a
/// `name`), which is not a web page and is left out.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum ActionSource {
    #[serde(rename = "url")]
    Url { url: String },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum Content {
    #[serde(rename = "output_text")]
    OutputText {
        text: String,
        #[serde(default)]
        annotations: Vec<Annotation>,
    },
    #[serde(rename = "refusal")]
    Refusal { refusal: String },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum Annotation {
    #[serde(rename = "url_citation")]
    UrlCitation { url: String, title: Option<String> },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
}

pub fn parse(body: &[u8]) -> Result<Reply, serde_json::Error> {
    let response: Response = serde_json::from_slice(body)?;
    let mut reply = Reply { version: response.model, consulted: Some(Vec::new()), ..Reply::default() };
    let mut texts: Vec<String> = Vec::new();
    let mut consulted: Vec<String> = Vec::new();
    for item in response.output {
        match item {
            OutputItem::Message { content } => {
                for part in content {
                    match part {
                        Content::OutputText { text, annotations } => {
                            for annotation in annotations {
                                if let Annotation::UrlCitation { url, title } = annotation {
                                    push_source(&mut reply.sources, &url, title.as_deref());
                                }
                            }
                            texts.push(text);
                        }
                        Content::Refusal { refusal } => {
                            reply.refusal = true;
                            texts.push(refusal);
                        }
                        Content::Other => {}
                    }
                }
            }
            OutputItem::WebSearchCall { action } => {
                // Only `search` actions are billed as a search; `open_page` and `find` are not.
                if action.as_ref().and_then(|a| a.kind.as_deref()).is_none_or(|kind| kind == "search") {
                    reply.searches += 1;
                }
                for source in action.map(|a| a.sources).unwrap_or_default() {
                    if let ActionSource::Url { url } = source {
                        consulted.push(url);
                    }
                }
            }
            OutputItem::Other => {}
        }
    }
    reply.text = texts.join("\n\n");
    let mut listed = Vec::new();
    for url in consulted {
        let title = reply.sources.iter().find(|s| s.url == url.trim()).map(|s| s.title.clone());
        push_source(&mut listed, &url, title.as_deref());
    }
    reply.consulted = Some(listed);
    if let Some(usage) = response.usage {
        reply.input_tokens = usage.input_tokens;
        reply.output_tokens = usage.output_tokens;
    }
    Ok(reply)
}
