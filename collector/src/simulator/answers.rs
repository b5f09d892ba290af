//! What the stand-in answers: a deterministic answer composed from the brands, and each API's
//! response body for it (OpenAI, Anthropic, Gemini, OpenAI-compatible and Perplexity, SerpApi's
//! text blocks), in the shapes of the fixtures in `collector/tests/fixtures/`.

use serde_json::{Value, json};

use super::state::{Behaviour, Served, State, lock};
use crate::config::Kind;

/// The question of a request body, as each API carries it.
pub(super) fn prompt_of(kind: Kind, body: &Value) -> String {
    match kind {
        Kind::Openai => body["input"].as_str().unwrap_or(""),
        Kind::Anthropic => body["messages"][0]["content"].as_str().unwrap_or(""),
        Kind::Google => body["contents"][0]["parts"][0]["text"].as_str().unwrap_or(""),
        _ => body["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or(""),
    }
    .to_owned()
}

/// The response body of one request (direct, or an item of a batch), recorded with its sources.
pub(super) fn respond(state: &State, kind: Kind, model: &str, body: &Value, mode: Mode, n: u64, host: &str) -> Value {
    let prompt = prompt_of(kind, body);
    let composed = match mode {
        Mode::Normal if prompt.starts_with("MARCAS: ") => Composed { text: judge(&prompt), ..Composed::default() },
        Mode::Normal => compose(&state.behaviour, &prompt, model, n),
        Mode::Empty | Mode::Refusal => Composed::default(),
    };
    let refusal = mode == Mode::Refusal;
    let (input, output) = state.behaviour.usage;
    // OpenAI lists the consulted sources only when `include` asks for them.
    let with_sources =
        body["include"].as_array().is_some_and(|i| i.iter().any(|v| v == "web_search_call.action.sources"));
    let value = match kind {
        Kind::Openai => openai(model, &prompt, &composed, with_sources, refusal, input, output, n),
        Kind::Anthropic => anthropic(model, &prompt, &composed, refusal, input, output, n),
        Kind::Google => google(model, &composed, refusal, input, output, host),
        _ => compatible(model, &composed, refusal, input, output, n),
    };
    lock(&state.served_sources).push(Served {
        kind,
        model: model.to_owned(),
        prompt,
        cited: composed.cited,
        consulted: composed.consulted,
    });
    value
}

/// What an ordinary Google search shows of an AI Overview, in the stand-in: decided by the query,
/// so tests know which searches have one, which Google defers, and which have none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overview {
    /// In the results page (`ai_overview` with `text_blocks`).
    Inline,
    /// Deferred: the page holds a `page_token`, and `engine=google_ai_overview` fetches it.
    Deferred,
    /// No AI Overview for this search.
    Absent,
}

/// See [`Overview`].
pub fn overview_of(query: &str) -> Overview {
    match hash(query) % 4 {
        0 => Overview::Absent,
        1 => Overview::Deferred,
        _ => Overview::Inline,
    }
}

/// The `text_blocks` and `references` of an AI answer, as SerpApi shapes them: a paragraph citing
/// the first source, a list of the brands each citing its page, the consulted sources numbered.
pub(super) fn serp_blocks(composed: &Composed) -> (Value, Value) {
    let index_of = |source: &(String, String)| composed.consulted.iter().position(|c| c == source);
    let first: Vec<usize> = composed.cited.first().and_then(index_of).into_iter().collect();
    let items: Vec<Value> = composed
        .cited
        .iter()
        .skip(1)
        .map(|source| {
            let name = source.1.split(':').next().unwrap_or("").to_owned();
            json!({"title": name, "snippet": "planes, precios y cobertura", "reference_indexes": index_of(source).into_iter().collect::<Vec<_>>()})
        })
        .collect();
    let mut blocks = vec![json!({"type": "paragraph", "snippet": composed.text, "reference_indexes": first})];
    if !items.is_empty() {
        blocks.push(json!({"type": "heading", "snippet": "Para comparar"}));
        blocks.push(json!({"type": "list", "list": items}));
    }
    let references: Vec<Value> = composed
        .consulted
        .iter()
        .enumerate()
        .map(|(index, (link, title))| {
            let source = url::Url::parse(link).ok().and_then(|u| u.host_str().map(str::to_owned)).unwrap_or_default();
            json!({"title": title, "link": link, "snippet": "…", "source": source, "index": index})
        })
        .collect();
    (Value::Array(blocks), Value::Array(references))
}

/// What the stand-in answered: the text, the sources it cites and the ones it consulted, as
/// (URL of the page, title). Each API serves them in its own shape.
#[derive(Debug, Clone, Default)]
pub(super) struct Composed {
    pub(super) text: String,
    pub(super) cited: Vec<(String, String)>,
    pub(super) consulted: Vec<(String, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Normal,
    Empty,
    Refusal,
}

pub(super) fn hash(text: &str) -> u64 {
    // FNV-1a: stable across runs and platforms.
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A deterministic answer: two or three brands in an order that depends on the question, the
/// model and the answer's number, each cited by its domain, and one neutral source cited; it also
/// consulted, without citing them, another brand's page (when there is one left) and a neutral
/// comparison site.
pub(super) fn compose(behaviour: &Behaviour, prompt: &str, model: &str, n: u64) -> Composed {
    let brands = &behaviour.brands;
    if brands.is_empty() {
        return Composed { text: format!("Sobre «{prompt}»: depende de lo que busque."), ..Composed::default() };
    }
    let seed = hash(prompt) ^ hash(model).rotate_left(17) ^ (n % 3);
    let count = 2 + (seed % 2) as usize;
    let first = (seed / 7) as usize % brands.len();
    let chosen: Vec<&(String, String)> =
        (0..count.min(brands.len())).map(|i| &brands[(first + i * 2) % brands.len()]).collect();
    let names: Vec<&str> = chosen.iter().map(|b| b.0.as_str()).collect();
    let text = format!(
        "Para «{prompt}», las opciones que más se recomiendan son {}. {} suele destacar por precio y atención.",
        names.join(", "),
        names[0]
    );
    let page = |(name, domain): &(String, String)| (format!("https://www.{domain}/planes"), format!("{name}: planes"));
    let mut cited: Vec<(String, String)> = chosen.iter().map(|b| page(b)).collect();
    cited.push(("https://www.infobae.com/economia/comparativa-2026/".to_owned(), "Comparativa 2026".to_owned()));
    let mut consulted = vec![("https://www.xataka.com.ar/moviles/guia-2026".to_owned(), "Guía 2026".to_owned())];
    consulted.extend(cited.iter().cloned());
    if let Some(other) = brands.iter().find(|b| !chosen.contains(b)) {
        let (name, domain) = other;
        consulted.push((format!("https://www.{domain}/ofertas"), format!("{name}: ofertas")));
    }
    Composed { text, cited, consulted }
}

/// A tone judge's reply to `tone::judge_prompt`: a label per listed brand, from a hash.
pub(super) fn judge(prompt: &str) -> String {
    let first_line = prompt.lines().next().unwrap_or("").trim_start_matches("MARCAS: ");
    let labels: Vec<String> = first_line
        .split("; ")
        .filter_map(|pair| pair.split('=').next())
        .filter(|id| !id.is_empty())
        .map(|id| {
            let label = ["pos", "neu", "neg"][(hash(prompt) ^ hash(id)) as usize % 3];
            format!("\"{id}\": \"{label}\"")
        })
        .collect();
    format!("{{{}}}", labels.join(", "))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn openai(
    model: &str,
    prompt: &str,
    composed: &Composed,
    with_sources: bool,
    refusal: bool,
    input: u64,
    output: u64,
    n: u64,
) -> Value {
    let text = &composed.text;
    let content = if refusal {
        json!([{"type": "refusal", "refusal": ""}])
    } else {
        let annotations: Vec<Value> = composed
            .cited
            .iter()
            .map(|(url, title)| json!({"type": "url_citation", "start_index": 0, "end_index": text.len(), "url": url, "title": title}))
            .collect();
        json!([{"type": "output_text", "text": text, "annotations": annotations}])
    };
    let mut action = json!({"type": "search", "query": prompt, "queries": [prompt]});
    if with_sources {
        let mut sources: Vec<Value> =
            composed.consulted.iter().map(|(url, _)| json!({"type": "url", "url": url})).collect();
        // OpenAI's own data sources are listed too; they are not web pages.
        sources.push(json!({"type": "api", "name": "oai-sports"}));
        action["sources"] = Value::Array(sources);
    }
    json!({
        "id": format!("resp_sim{n}"),
        "object": "response",
        "created_at": 1_741_476_542,
        "status": "completed",
        "model": format!("{model}-2025-08-07"),
        "output": [
            {"type": "web_search_call", "id": format!("ws_sim{n}"), "status": "completed", "action": action},
            {"id": format!("msg_sim{n}"), "type": "message", "status": "completed", "role": "assistant", "content": content}
        ],
        "usage": {"input_tokens": input, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": input + output}
    })
}

pub(super) fn anthropic(
    model: &str,
    prompt: &str,
    composed: &Composed,
    refusal: bool,
    input: u64,
    output: u64,
    n: u64,
) -> Value {
    let results: Vec<Value> = composed
        .consulted
        .iter()
        .map(|(url, title)| json!({"type": "web_search_result", "url": url, "title": title, "encrypted_content": "EqgfCioIARgB", "page_age": "April 30, 2025"}))
        .collect();
    let citations: Vec<Value> = composed
        .cited
        .iter()
        .map(|(url, title)| json!({"type": "web_search_result_location", "url": url, "title": title, "encrypted_index": "Eo8BCioIAhgB", "cited_text": "…"}))
        .collect();
    let mut content = vec![
        json!({"type": "server_tool_use", "id": format!("srvtoolu_sim{n}"), "name": "web_search", "input": {"query": prompt}}),
        json!({"type": "web_search_tool_result", "tool_use_id": format!("srvtoolu_sim{n}"), "content": results}),
    ];
    if !refusal && !composed.text.is_empty() {
        content.push(json!({"type": "text", "text": composed.text, "citations": citations}));
    }
    json!({
        "id": format!("msg_sim{n}"),
        "type": "message",
        "role": "assistant",
        "model": if model.ends_with("-20250929") { model.to_owned() } else { format!("{model}-20250929") },
        "content": content,
        "stop_reason": if refusal { "refusal" } else { "end_turn" },
        "stop_sequence": null,
        "usage": {"input_tokens": input, "output_tokens": output, "server_tool_use": {"web_search_requests": 1}}
    })
}

pub(super) fn google(model: &str, composed: &Composed, refusal: bool, input: u64, output: u64, host: &str) -> Value {
    let text = &composed.text;
    let chunks: Vec<Value> = composed
        .consulted
        .iter()
        .map(|(url, _)| {
            let domain = url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(|h| h.trim_start_matches("www.").to_owned()))
                .unwrap_or_default();
            json!({"web": {"uri": format!("http://{host}/grounding-api-redirect/{}", hex(url)), "title": domain}})
        })
        .collect();
    // One support per sentence of the text, each naming the chunks it rests on: together, every
    // cited source; the other chunks were consulted and are supported by nothing.
    let cited: Vec<usize> =
        composed.cited.iter().filter_map(|c| composed.consulted.iter().position(|s| s == c)).collect();
    let (first, rest) = cited.split_at(cited.len().min(1));
    let supports: Vec<Value> = [first, rest]
        .iter()
        .filter(|indices| !indices.is_empty())
        .map(|indices| json!({"segment": {"startIndex": 0, "endIndex": text.len(), "text": text}, "groundingChunkIndices": indices}))
        .collect();
    let parts = if text.is_empty() { json!([]) } else { json!([{"text": text}]) };
    json!({
        "candidates": [{
            "content": {"parts": parts, "role": "model"},
            "finishReason": if refusal { "SAFETY" } else { "STOP" },
            "groundingMetadata": {
                "webSearchQueries": ["consulta simulada"],
                "searchEntryPoint": {"renderedContent": "<!-- HTML and CSS for the search widget -->"},
                "groundingChunks": chunks,
                "groundingSupports": supports
            }
        }],
        "usageMetadata": {"promptTokenCount": input, "candidatesTokenCount": output, "totalTokenCount": input + output},
        "modelVersion": format!("{model}-001")
    })
}

pub(super) fn compatible(model: &str, composed: &Composed, refusal: bool, input: u64, output: u64, n: u64) -> Value {
    let citations: Vec<&str> = composed.cited.iter().map(|(url, _)| url.as_str()).collect();
    let results: Vec<Value> = composed
        .consulted
        .iter()
        .map(|(url, title)| json!({"title": title, "url": url, "date": "2026-03-01"}))
        .collect();
    json!({
        "id": format!("sim-{n}"),
        "model": model,
        "created": 1_724_369_245,
        "object": "chat.completion",
        "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output, "search_context_size": "low", "num_search_queries": 1},
        "citations": citations,
        "search_results": results,
        "choices": [{"index": 0, "finish_reason": if refusal { "content_filter" } else { "stop" }, "message": {"role": "assistant", "content": composed.text}}]
    })
}

pub(super) fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn unhex(text: &str) -> Option<String> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> =
        (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect();
    String::from_utf8(bytes?).ok()
}
