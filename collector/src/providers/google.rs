//! Google's Gemini API: `POST /v1beta/models/{model}:generateContent` (`x-goog-api-key`) with the
//! `google_search` tool; the answer is the first candidate's text parts (thoughts left out), its
//! consulted sources `groundingMetadata.groundingChunks[].web`, its cited sources the chunks that
//! `groundingSupports[].groundingChunkIndices` name (in the order the text first cites them),
//! `modelVersion` the version, searches the `webSearchQueries`. Gemini gives each chunk's `uri` as
//! a redirect through
//! `vertexaisearch.cloud.google.com` and its `title` as the site's domain: [`redirect_of`] finds
//! those so the caller can resolve them (see `client`).

use serde::{Deserialize, Serialize};

use super::{Call, Method, Reply, Request, json_body, push_source};

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Body<'a> {
    pub contents: Vec<Content<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Instruction<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    pub generation_config: GenerationConfig,
}

#[derive(Debug, Serialize)]
pub struct Content<'a> {
    pub role: &'static str,
    pub parts: Vec<Part<'a>>,
}

#[derive(Debug, Serialize)]
pub struct Instruction<'a> {
    pub parts: Vec<Part<'a>>,
}

#[derive(Debug, Serialize)]
pub struct Part<'a> {
    pub text: &'a str,
}

#[derive(Debug, Serialize)]
pub struct Tool {
    pub google_search: Empty,
}

#[derive(Debug, Serialize)]
pub struct Empty {}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    pub max_output_tokens: u32,
}

pub fn request(call: &Call<'_>, key: Option<&str>) -> Request {
    let body = Body {
        contents: vec![Content { role: "user", parts: vec![Part { text: call.prompt }] }],
        system_instruction: call.instructions.map(|text| Instruction { parts: vec![Part { text }] }),
        tools: if call.web_search { vec![Tool { google_search: Empty {} }] } else { Vec::new() },
        generation_config: GenerationConfig {
            temperature: call.temperature,
            max_output_tokens: call.max_output_tokens,
        },
    };
    let mut headers = vec![("content-type", "application/json".to_owned())];
    if let Some(key) = key {
        headers.push(("x-goog-api-key", key.to_owned()));
    }
    Request {
        method: Method::Post,
        path: format!("/v1beta/models/{}:generateContent", call.model),
        headers,
        body: json_body(&body),
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    #[serde(default)]
    pub candidates: Vec<Candidate>,
    pub prompt_feedback: Option<PromptFeedback>,
    pub usage_metadata: Option<UsageMetadata>,
    pub model_version: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub content: Option<CandidateContent>,
    pub finish_reason: Option<String>,
    pub grounding_metadata: Option<GroundingMetadata>,
}

#[derive(Debug, Deserialize)]
pub struct CandidateContent {
    #[serde(default)]
    pub parts: Vec<ResponsePart>,
}

#[derive(Debug, Deserialize)]
pub struct ResponsePart {
    pub text: Option<String>,
    #[serde(default)]
    pub thought: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingMetadata {
    #[serde(default)]
    pub web_search_queries: Vec<String>,
    #[serde(default)]
    pub grounding_chunks: Vec<GroundingChunk>,
    #[serde(default)]
    pub grounding_supports: Vec<GroundingSupport>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingSupport {
    #[serde(default)]
    pub grounding_chunk_indices: Vec<usize>,
}

#[derive(Debug, Deserialize)]
pub struct GroundingChunk {
    pub web: Option<Web>,
}

#[derive(Debug, Deserialize)]
pub struct Web {
    pub uri: Option<String>,
    pub title: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptFeedback {
    pub block_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageMetadata {
    #[serde(default)]
    pub prompt_token_count: u64,
    #[serde(default)]
    pub candidates_token_count: u64,
    #[serde(default)]
    pub tool_use_prompt_token_count: u64,
    #[serde(default)]
    pub thoughts_token_count: u64,
}

/// Finish reasons that mean the answer was withheld.
const BLOCKED: [&str; 5] = ["SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION"];

pub fn parse(body: &[u8]) -> Result<Reply, serde_json::Error> {
    let response: Response = serde_json::from_slice(body)?;
    let mut reply = Reply { version: response.model_version, ..Reply::default() };
    if response.prompt_feedback.and_then(|f| f.block_reason).is_some() {
        reply.refusal = true;
    }
    if let Some(candidate) = response.candidates.into_iter().next() {
        if candidate.finish_reason.as_deref().is_some_and(|r| BLOCKED.contains(&r)) {
            reply.refusal = true;
        }
        let parts = candidate.content.map(|c| c.parts).unwrap_or_default();
        reply.text = parts.into_iter().filter(|p| !p.thought).filter_map(|p| p.text).collect::<String>();
        let mut consulted = Vec::new();
        if let Some(grounding) = candidate.grounding_metadata {
            reply.searches = grounding.web_search_queries.len() as u64;
            let chunk = |index: usize| match grounding.grounding_chunks.get(index) {
                Some(GroundingChunk { web: Some(Web { uri: Some(uri), title }) }) => Some((uri, title.as_deref())),
                _ => None,
            };
            for index in 0..grounding.grounding_chunks.len() {
                if let Some((uri, title)) = chunk(index) {
                    push_source(&mut consulted, uri, title);
                }
            }
            for support in &grounding.grounding_supports {
                for &index in &support.grounding_chunk_indices {
                    if let Some((uri, title)) = chunk(index) {
                        push_source(&mut reply.sources, uri, title);
                    }
                }
            }
        }
        reply.consulted = Some(consulted);
    }
    if let Some(usage) = response.usage_metadata {
        reply.input_tokens = usage.prompt_token_count + usage.tool_use_prompt_token_count;
        reply.output_tokens = usage.candidates_token_count + usage.thoughts_token_count;
    }
    Ok(reply)
}

/// Whether a source URL is one of Gemini's grounding redirects (to resolve to the real page).
pub fn redirect_of(url: &str) -> bool {
    url.contains("/grounding-api-redirect/")
}

/// What a redirect becomes when it cannot be resolved: the site's home page, from a title that
/// is a bare domain ("uefa.com"), or nothing.
pub fn fallback_of(title: &str) -> Option<String> {
    let title = title.trim().to_ascii_lowercase();
    let looks_like_domain = title.contains('.')
        && !title.starts_with('.')
        && !title.ends_with('.')
        && title.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    looks_like_domain.then(|| format!("https://{title}/"))
}
