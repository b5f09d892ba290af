//! SerpApi, a SERP API (`GET /search.json`, the key only as the `api_key` query parameter): the
//! consumer surfaces of Google that people see, which have no API of their own.
//!
//! - **AI Overview** (`google_ai_overview`): an ordinary search, `engine=google`; the overview is
//!   the `ai_overview` block (`text_blocks`, `references`). When Google defers it, the block holds
//!   only a `page_token`, and a second request, `engine=google_ai_overview&page_token=…`, fetches
//!   it (the token expires within minutes: it is asked at once). A search without the block had
//!   no AI Overview.
//! - **AI Mode** (`google_ai_mode`): `engine=google_ai_mode`; `text_blocks` and `references` at
//!   the top level.
//!
//! The answer is the text of the `text_blocks` (paragraphs, headings, lists, tables, expandable
//! sections, code), the consulted sources every `references` entry (`link`, `title`), the cited
//! ones those whose `index` a `reference_indexes` of some block names, in the order the text
//! first cites them. Each request is a search SerpApi bills (`precio.busqueda`); `no_cache=true`
//! makes every repetition a new search. A surface has no model version: [`Search`] is what SerpApi
//! reports of the search (engine, id, date, location, language), and `version` says it.
//!
//! References: SerpApi's *Google AI Overview Results* (`serpapi.com/ai-overview`), *Google AI
//! Overview API* (`serpapi.com/google-ai-overview-api`) and *Google AI Mode API*
//! (`serpapi.com/google-ai-mode-api`); the search metadata of *Google Search API*
//! (`serpapi.com/search-api`).

use serde::Deserialize;
use serde_json::Value;

use super::{Call, Method, Reply, Request, Source, push_source};
use crate::surface;

/// What SerpApi reports of one search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    /// `search_parameters.engine`: `google`, `google_ai_overview` or `google_ai_mode`.
    pub engine: String,
    /// `search_metadata.id`: the search, archived at SerpApi (`/searches/{id}.json`).
    pub id: String,
    /// `search_metadata.created_at` (`2026-11-28 14:03:11 UTC`).
    pub created_at: String,
    /// `search_parameters.location_used` (or the location asked).
    pub location: String,
    /// `search_parameters.hl` and `gl`: the interface language and the country.
    pub language: String,
    pub country: String,
    /// For an AI Overview Google deferred: the id of the second search, which fetched it.
    pub overview_id: Option<String>,
}

impl Search {
    /// `version` of an answer from a SERP surface: what SerpApi reports of the search.
    pub fn version(&self) -> String {
        let mut parts = vec![format!("serpapi {}", self.engine)];
        if !self.id.is_empty() {
            parts.push(format!("búsqueda {}", self.id));
        }
        if let Some(id) = &self.overview_id {
            parts.push(format!("ai_overview {id}"));
        }
        parts.extend(self.place());
        if !self.created_at.is_empty() {
            parts.insert(1, self.created_at.clone());
        }
        parts.join("; ")
    }

    /// The same without what changes per search (id, date): for summaries.
    pub fn family(&self) -> String {
        let mut parts = vec![format!("serpapi {}", self.engine)];
        parts.extend(self.place());
        parts.join("; ")
    }

    fn place(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if !self.location.is_empty() {
            parts.push(self.location.clone());
        }
        if !self.language.is_empty() {
            parts.push(format!("hl={}", self.language));
        }
        if !self.country.is_empty() {
            parts.push(format!("gl={}", self.country));
        }
        parts
    }
}

/// The search of one call: the engine of its surface, the question as `q`, the question's
/// language (`hl`), the country and the city of `[ubicacion]` (`gl`, `location`).
pub fn request(call: &Call<'_>, key: Option<&str>) -> Request {
    let engine = if call.surface == surface::GOOGLE_AI_MODE { "google_ai_mode" } else { "google" };
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    query.append_pair("engine", engine);
    query.append_pair("q", call.prompt);
    if let Some(language) = call.language.filter(|l| !l.is_empty()) {
        query.append_pair("hl", language);
    }
    if let Some(location) = call.location {
        query.append_pair("gl", &location.country.to_ascii_lowercase());
        let place: Vec<&str> = [location.city.as_deref(), location.region.as_deref()].into_iter().flatten().collect();
        if !place.is_empty() {
            query.append_pair("location", &place.join(", "));
        }
    }
    query.append_pair("no_cache", "true");
    with_key(format!("/search.json?{}", query.finish()), key)
}

/// The second request of an AI Overview Google deferred (`path` from [`Reply::follow_up`]).
pub fn follow_up(path: &str, key: Option<&str>) -> Request {
    with_key(path.to_owned(), key)
}

fn with_key(mut path: String, key: Option<&str>) -> Request {
    if let Some(key) = key {
        path.push_str("&api_key=");
        path.push_str(&url::form_urlencoded::byte_serialize(key.as_bytes()).collect::<String>());
    }
    Request { method: Method::Get, path, headers: Vec::new(), body: Vec::new() }
}

#[derive(Debug, Deserialize)]
struct Response {
    #[serde(default)]
    search_metadata: Metadata,
    #[serde(default)]
    search_parameters: Parameters,
    ai_overview: Option<Overview>,
    text_blocks: Option<Vec<Value>>,
    references: Option<Vec<Reference>>,
}

#[derive(Debug, Default, Deserialize)]
struct Metadata {
    #[serde(default)]
    id: String,
    #[serde(default)]
    created_at: String,
}

#[derive(Debug, Default, Deserialize)]
struct Parameters {
    #[serde(default)]
    engine: String,
    location_used: Option<String>,
    location_requested: Option<String>,
    #[serde(default)]
    hl: String,
    #[serde(default)]
    gl: String,
}

#[derive(Debug, Deserialize)]
struct Overview {
    text_blocks: Option<Vec<Value>>,
    references: Option<Vec<Reference>>,
    page_token: Option<String>,
    error: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Reference {
    index: Option<i64>,
    title: Option<String>,
    link: Option<String>,
}

fn source_of(reference: &Reference) -> Option<(&str, Option<&str>)> {
    reference.link.as_deref().map(|link| (link, reference.title.as_deref()))
}

/// Reads a search. An AI Overview that Google deferred gives a reply with `follow_up` set and no
/// text; a search without an overview (or an AI Mode without text) gives a reply without text,
/// which the collector records as an empty answer (paid, not asked again).
pub fn parse(body: &[u8]) -> Result<Reply, serde_json::Error> {
    let response: Response = serde_json::from_slice(body)?;
    let parameters = &response.search_parameters;
    let search = Search {
        engine: parameters.engine.clone(),
        id: response.search_metadata.id.clone(),
        created_at: response.search_metadata.created_at.clone(),
        location: parameters
            .location_used
            .clone()
            .or_else(|| parameters.location_requested.clone())
            .unwrap_or_default(),
        language: parameters.hl.clone(),
        country: parameters.gl.clone(),
        overview_id: None,
    };
    let mut reply = Reply { searches: 1, version: Some(search.version()), ..Reply::default() };
    let (blocks, references) = match response.ai_overview {
        Some(overview) => {
            if let Some(token) = overview.page_token.filter(|_| overview.text_blocks.is_none()) {
                let token: String = url::form_urlencoded::byte_serialize(token.as_bytes()).collect();
                reply.follow_up = Some(format!("/search.json?engine=google_ai_overview&page_token={token}"));
            }
            // The overview could not be fetched (an expired token): not an answer; the call is
            // asked again.
            if let Some(error) = overview.error {
                return Err(serde::de::Error::custom(format!("SerpApi: ai_overview.error: {error}")));
            }
            (overview.text_blocks.unwrap_or_default(), overview.references.unwrap_or_default())
        }
        // No overview (or an AI Mode without text): a search, paid, that showed no AI answer.
        // `error` says why when Google had no results at all.
        None => (response.text_blocks.unwrap_or_default(), response.references.unwrap_or_default()),
    };
    let mut lines = Vec::new();
    let mut cited = Vec::new();
    render(&blocks, 0, &mut lines, &mut cited);
    reply.text = lines.join("\n").trim().to_owned();
    let mut consulted: Vec<Source> = Vec::new();
    for reference in &references {
        if let Some((link, title)) = source_of(reference) {
            push_source(&mut consulted, link, title);
        }
    }
    for index in cited {
        if let Some((link, title)) = references.iter().find(|r| r.index == Some(index)).and_then(source_of) {
            push_source(&mut reply.sources, link, title);
        }
    }
    reply.consulted = Some(consulted);
    reply.search = Some(search);
    Ok(reply)
}

/// The answer of an AI Overview Google deferred: the second search's text and sources, the first
/// search's place and id (the results page the overview belongs to), both searches billed.
pub fn merge(first: Reply, second: Reply) -> Reply {
    let mut search = first.search.unwrap_or_default();
    search.overview_id = second.search.as_ref().map(|s| s.id.clone()).filter(|id| !id.is_empty());
    Reply {
        version: Some(search.version()),
        search: Some(search),
        searches: first.searches + second.searches,
        follow_up: None,
        ..second
    }
}

/// The text of `text_blocks`, one line per paragraph, heading, list item or table row (a blank
/// line between blocks), and the reference indexes in the order the text cites them.
fn render(blocks: &[Value], depth: usize, lines: &mut Vec<String>, cited: &mut Vec<i64>) {
    let indent = "  ".repeat(depth);
    for block in blocks {
        note_references(block, cited);
        let snippet = block["snippet"].as_str().unwrap_or("").trim();
        match block["type"].as_str().unwrap_or("") {
            "list" => {
                for item in block["list"].as_array().into_iter().flatten() {
                    note_references(item, cited);
                    let title = item["title"].as_str().unwrap_or("").trim();
                    let text = item["snippet"].as_str().unwrap_or("").trim();
                    let line = match (title.is_empty(), text.is_empty()) {
                        (false, false) => format!("{title}: {text}"),
                        (false, true) => title.to_owned(),
                        _ => text.to_owned(),
                    };
                    if !line.is_empty() {
                        lines.push(format!("{indent}- {line}"));
                    }
                    if let Some(nested) = item["list"].as_array() {
                        render(&[serde_json::json!({"type": "list", "list": nested})], depth + 1, lines, cited);
                        lines.pop_if(|l| l.is_empty());
                    }
                    if let Some(nested) = item["text_blocks"].as_array() {
                        render(nested, depth + 1, lines, cited);
                        lines.pop_if(|l| l.is_empty());
                    }
                }
            }
            "table" => {
                for row in block["table"].as_array().into_iter().flatten() {
                    let cells: Vec<String> = row
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_owned))
                        .collect();
                    lines.push(format!("{indent}{}", cells.join(" | ")));
                }
            }
            "expandable" => {
                if let Some(title) = block["title"].as_str() {
                    lines.push(format!("{indent}{}", title.trim()));
                }
                render(block["text_blocks"].as_array().map_or(&[][..], Vec::as_slice), depth, lines, cited);
                lines.pop_if(|l| l.is_empty());
            }
            "code_block" => lines.push(block["code"].as_str().unwrap_or("").to_owned()),
            _ if !snippet.is_empty() => lines.push(format!("{indent}{snippet}")),
            _ => continue,
        }
        lines.push(String::new());
    }
}

fn note_references(block: &Value, cited: &mut Vec<i64>) {
    for index in block["reference_indexes"].as_array().into_iter().flatten().filter_map(Value::as_i64) {
        if !cited.contains(&index) {
            cited.push(index);
        }
    }
}
