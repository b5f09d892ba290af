//! Each protocol against its public reference: the reference's example responses
//! (`tests/fixtures/`, sources in its README) read into the content format, and each request
//! body checked field by field against what the reference documents.

#![allow(clippy::unwrap_used)] // helpers of the tests panic on failure, like the tests

use collector::config::{Kind, Location};
use collector::providers::{self, Call, Source, google};
use serde_json::{Value, json};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn source(url: &str, title: &str) -> Source {
    Source { url: url.to_owned(), title: title.to_owned() }
}

fn location() -> Location {
    Location {
        country: "AR".into(),
        city: Some("Buenos Aires".into()),
        region: None,
        timezone: Some("America/Argentina/Buenos_Aires".into()),
    }
}

fn call(location: &Location) -> Call<'_> {
    Call {
        model: "modelo-x",
        prompt: "¿Qué banco me conviene?",
        instructions: Some("Respondé en castellano."),
        temperature: Some(0.7),
        max_output_tokens: 1500,
        web_search: true,
        max_searches: Some(5),
        effort: Some("low"),
        location: Some(location),
        language: Some("es"),
        search_context: None,
        surface: "api",
    }
}

fn body(request: &providers::Request) -> Value {
    serde_json::from_slice(&request.body).unwrap()
}

fn header<'a>(request: &'a providers::Request, name: &str) -> Option<&'a str> {
    request.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
}

// ---- OpenAI Responses API ----

#[test]
fn openai_reference_response_reads_text_citations_version_usage_and_searches() {
    let reply = providers::parse(Kind::Openai, &fixture("openai-responses-web-search.json")).unwrap();
    assert_eq!(reply.text, "On March 6, 2025, several news outlets reported positive developments. (apnews.com)");
    assert_eq!(
        reply.sources,
        vec![source(
            "https://apnews.com/article/positive-news-march-6-2025?utm_source=openai",
            "Positive news stories | AP News"
        )],
        "a citation repeated in the text is one source"
    );
    assert_eq!(
        reply.consulted,
        Some(vec![
            source("https://apnews.com/article/positive-news-march-6-2025", "apnews.com"),
            source("https://www.goodnewsnetwork.org/category/news/", "www.goodnewsnetwork.org"),
        ]),
        "every `url` source of `action.sources`, exactly as served (no title: the host); `api` sources are not pages"
    );
    assert_eq!(reply.version.as_deref(), Some("gpt-4.1-2025-04-14"));
    assert_eq!((reply.input_tokens, reply.output_tokens, reply.searches), (328, 356, 1));
    assert!(!reply.refusal);
}

#[test]
fn openai_request_follows_the_reference() {
    let location = location();
    let request = providers::request(Kind::Openai, &call(&location), Some("sk-prueba"));
    assert_eq!(request.path, "/v1/responses");
    assert_eq!(header(&request, "authorization"), Some("Bearer sk-prueba"));
    assert_eq!(header(&request, "content-type"), Some("application/json"));
    assert_eq!(
        body(&request),
        json!({
            "model": "modelo-x",
            "input": "¿Qué banco me conviene?",
            "instructions": "Respondé en castellano.",
            "tools": [{"type": "web_search", "user_location": {"type": "approximate", "country": "AR", "city": "Buenos Aires", "timezone": "America/Argentina/Buenos_Aires"}}],
            "temperature": 0.7,
            "max_output_tokens": 1500,
            "reasoning": {"effort": "low"},
            "store": false,
            "include": ["web_search_call.action.sources"]
        })
    );
    let plain = Call { web_search: false, instructions: None, temperature: None, effort: None, ..call(&location) };
    let request = providers::request(Kind::Openai, &plain, None);
    assert_eq!(
        body(&request),
        json!({"model": "modelo-x", "input": "¿Qué banco me conviene?", "max_output_tokens": 1500, "store": false})
    );
    assert_eq!(header(&request, "authorization"), None, "no key, no header (a local server)");
}

#[test]
fn openai_refusal_is_flagged() {
    let body = json!({"model": "gpt-5-2025-08-07", "output": [{"type": "message", "content": [{"type": "refusal", "refusal": "I can't help with that."}]}], "usage": {"input_tokens": 5, "output_tokens": 6}});
    let reply = providers::parse(Kind::Openai, body.to_string().as_bytes()).unwrap();
    assert!(reply.refusal);
    assert_eq!(reply.text, "I can't help with that.");
}

// ---- Anthropic Messages API ----

#[test]
fn anthropic_reference_response_reads_text_blocks_and_their_citations() {
    let reply = providers::parse(Kind::Anthropic, &fixture("anthropic-messages-web-search.json")).unwrap();
    assert_eq!(
        reply.text,
        "I'll search for when Claude Shannon was born.\n\nBased on the search results, Claude Shannon was born on April 30, 1916, in Petoskey, Michigan"
    );
    assert_eq!(
        reply.sources,
        vec![source("https://en.wikipedia.org/wiki/Claude_Shannon", "Claude Shannon - Wikipedia")]
    );
    assert_eq!(
        reply.consulted,
        Some(vec![
            source("https://en.wikipedia.org/wiki/Claude_Shannon", "Claude Shannon - Wikipedia"),
            source(
                "https://www.britannica.com/biography/Claude-Shannon",
                "Claude Shannon | Biography & Facts | Britannica"
            ),
        ]),
        "every result of the web_search_tool_result blocks, cited or not"
    );
    assert_eq!(reply.version.as_deref(), Some("claude-opus-4-20250514"));
    assert_eq!((reply.input_tokens, reply.output_tokens, reply.searches), (6039, 931, 1));
    assert!(!reply.refusal);
}

#[test]
fn anthropic_request_follows_the_reference() {
    let location = location();
    let request = providers::request(Kind::Anthropic, &call(&location), Some("sk-ant-prueba"));
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(header(&request, "x-api-key"), Some("sk-ant-prueba"));
    assert_eq!(header(&request, "anthropic-version"), Some("2023-06-01"));
    assert_eq!(header(&request, "authorization"), None);
    assert_eq!(
        body(&request),
        json!({
            "model": "modelo-x",
            "max_tokens": 1500,
            "messages": [{"role": "user", "content": "¿Qué banco me conviene?"}],
            "system": "Respondé en castellano.",
            "temperature": 0.7,
            "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5, "user_location": {"type": "approximate", "country": "AR", "city": "Buenos Aires", "timezone": "America/Argentina/Buenos_Aires"}}]
        })
    );
}

#[test]
fn anthropic_refusal_stop_reason_is_flagged() {
    let body = json!({"model": "claude-sonnet-4-5-20250929", "content": [], "stop_reason": "refusal", "usage": {"input_tokens": 10, "output_tokens": 0}});
    let reply = providers::parse(Kind::Anthropic, body.to_string().as_bytes()).unwrap();
    assert!(reply.refusal);
    assert!(reply.text.is_empty());
}

// ---- Gemini API ----

#[test]
fn gemini_reference_response_reads_parts_grounding_chunks_and_version() {
    let reply = providers::parse(Kind::Google, &fixture("gemini-grounding.json")).unwrap();
    assert_eq!(
        reply.text,
        "Spain won Euro 2024, defeating England 2-1 in the final. This victory marks Spain's record fourth European Championship title."
    );
    let aljazeera =
        source("https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQHaljazeera", "aljazeera.com");
    let uefa = source("https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQHuefa", "uefa.com");
    let wikipedia =
        source("https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQHwikipedia", "wikipedia.org");
    assert_eq!(reply.sources, vec![aljazeera.clone(), uefa.clone()], "the chunks groundingSupports names");
    assert_eq!(reply.consulted, Some(vec![aljazeera, uefa, wikipedia]), "every grounding chunk");
    assert!(reply.sources.iter().all(|s| google::redirect_of(&s.url)), "the collector resolves these (client)");
    assert_eq!(google::fallback_of("uefa.com").as_deref(), Some("https://uefa.com/"));
    assert_eq!(google::fallback_of("UEFA Euro 2024"), None);
    assert_eq!(reply.version.as_deref(), Some("gemini-2.5-flash"));
    assert_eq!((reply.input_tokens, reply.output_tokens, reply.searches), (8 + 412, 31, 2));
}

#[test]
fn gemini_request_follows_the_reference() {
    let location = location();
    let request = providers::request(Kind::Google, &call(&location), Some("AIza-prueba"));
    assert_eq!(request.path, "/v1beta/models/modelo-x:generateContent");
    assert_eq!(header(&request, "x-goog-api-key"), Some("AIza-prueba"));
    assert_eq!(
        body(&request),
        json!({
            "contents": [{"role": "user", "parts": [{"text": "¿Qué banco me conviene?"}]}],
            "systemInstruction": {"parts": [{"text": "Respondé en castellano."}]},
            "tools": [{"google_search": {}}],
            "generationConfig": {"temperature": 0.7, "maxOutputTokens": 1500}
        })
    );
}

#[test]
fn gemini_blocked_answers_are_refusals() {
    let body = json!({"candidates": [{"content": {"parts": []}, "finishReason": "SAFETY"}], "modelVersion": "gemini-2.5-flash"});
    assert!(providers::parse(Kind::Google, body.to_string().as_bytes()).unwrap().refusal);
    let body = json!({"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "gemini-2.5-flash"});
    assert!(providers::parse(Kind::Google, body.to_string().as_bytes()).unwrap().refusal);
    let body = json!({"candidates": [{"content": {"parts": [{"text": "pensando", "thought": true}, {"text": "Respuesta."}]}}]});
    assert_eq!(providers::parse(Kind::Google, body.to_string().as_bytes()).unwrap().text, "Respuesta.");
}

// ---- OpenAI-compatible (Perplexity) ----

#[test]
fn perplexity_reference_response_reads_citations_with_search_result_titles() {
    let reply = providers::parse(Kind::Compatible, &fixture("perplexity-chat-completions.json")).unwrap();
    assert_eq!(reply.text, "The latest developments in AI include new reasoning models [1] and agent frameworks [2].");
    assert_eq!(
        reply.sources,
        vec![
            source("https://www.example.com/ai-reasoning-2025", "AI reasoning models in 2025"),
            source("https://news.example.org/agents", "news.example.org"),
        ]
    );
    assert_eq!(
        reply.consulted,
        Some(vec![
            source("https://www.example.com/ai-reasoning-2025", "AI reasoning models in 2025"),
            source("https://news.example.org/agents", "news.example.org"),
            source("https://blog.example.net/benchmarks", "Benchmarks of reasoning models"),
        ]),
        "every search result, cited or not"
    );
    assert_eq!(reply.version.as_deref(), Some("sonar"));
    assert_eq!((reply.input_tokens, reply.output_tokens, reply.searches), (14, 212, 1));
}

#[test]
fn compatible_request_follows_chat_completions() {
    let location = location();
    let request = providers::request(Kind::Compatible, &call(&location), Some("pplx-prueba"));
    assert_eq!(request.path, "/chat/completions");
    assert_eq!(header(&request, "authorization"), Some("Bearer pplx-prueba"));
    assert_eq!(
        body(&request),
        json!({
            "model": "modelo-x",
            "messages": [{"role": "system", "content": "Respondé en castellano."}, {"role": "user", "content": "¿Qué banco me conviene?"}],
            "max_tokens": 1500,
            "temperature": 0.7,
            "web_search_options": {"user_location": {"country": "AR", "city": "Buenos Aires"}}
        })
    );
}

#[test]
fn malformed_bodies_are_errors_not_answers() {
    for kind in [Kind::Openai, Kind::Anthropic, Kind::Google, Kind::Compatible] {
        assert!(providers::parse(kind, b"{\"output\": [ not json").is_err(), "{kind:?}");
        assert!(providers::parse(kind, b"<html>502 Bad Gateway</html>").is_err(), "{kind:?}");
    }
}

#[test]
fn sources_that_are_not_web_pages_are_left_out() {
    let body = json!({"model": "m", "choices": [{"message": {"content": "x"}}], "citations": ["ftp://a.b/c", "not a url", "https://ok.example.com/a", "https://ok.example.com/a"]});
    let reply = providers::parse(Kind::Compatible, body.to_string().as_bytes()).unwrap();
    assert_eq!(reply.sources, vec![source("https://ok.example.com/a", "ok.example.com")]);
    assert_eq!(reply.consulted, None, "a server that does not say what it consulted records nothing");
}

// ---- Perplexity's Sonar API, a provider of its own ----

#[test]
fn perplexity_reads_search_results_as_consulted_and_citations_as_cited() {
    let reply = providers::parse(Kind::Perplexity, &fixture("perplexity-chat-completions.json")).unwrap();
    assert_eq!(reply.text, "The latest developments in AI include new reasoning models [1] and agent frameworks [2].");
    assert_eq!(
        reply.sources,
        vec![
            source("https://www.example.com/ai-reasoning-2025", "AI reasoning models in 2025"),
            source("https://news.example.org/agents", "news.example.org"),
        ]
    );
    assert_eq!(reply.consulted.as_ref().map(Vec::len), Some(3));
    assert_eq!((reply.input_tokens, reply.output_tokens, reply.searches), (14, 212, 1));
}

#[test]
fn perplexity_request_follows_the_sonar_reference() {
    let location = location();
    let with_context = Call { search_context: Some("medium"), ..call(&location) };
    let request = providers::request(Kind::Perplexity, &with_context, Some("pplx-prueba"));
    assert_eq!(request.path, "/chat/completions");
    assert_eq!(header(&request, "authorization"), Some("Bearer pplx-prueba"));
    assert_eq!(
        body(&request),
        json!({
            "model": "modelo-x",
            "messages": [{"role": "system", "content": "Respondé en castellano."}, {"role": "user", "content": "¿Qué banco me conviene?"}],
            "max_tokens": 1500,
            "temperature": 0.7,
            "web_search_options": {"search_context_size": "medium", "user_location": {"country": "AR", "city": "Buenos Aires"}}
        })
    );
}

#[test]
fn perplexity_prices_tokens_and_the_request_fee() {
    let price = collector::config::Price { input: Some(1.0), output: Some(1.0), search: 0.0, request: 0.005 };
    // The reference's own arithmetic: 9 input and 402 output tokens at 1 USD per million, plus
    // 5 USD per thousand requests (low context).
    assert!((price.cost(9, 402, 0.0) - (0.000009 + 0.000402 + 0.005)).abs() < 1e-12);
}

// ---- SerpApi: Google's AI Overview and AI Mode ----

#[test]
fn serpapi_ai_overview_in_the_results_page() {
    let reply = providers::parse(Kind::Serpapi, &fixture("serpapi-google-ai-overview.json")).unwrap();
    assert!(reply.text.starts_with("Drop shipping is a retail method"), "{}", reply.text);
    assert!(
        reply.text.contains("\n\nHere are some steps to start a drop shipping business:\n\n- Identify a niche:"),
        "{}",
        reply.text
    );
    assert_eq!(
        reply.sources,
        vec![
            source("https://www.shopify.com/blog/what-is-dropshipping", "What Is Dropshipping and How Does It Work?"),
            source(
                "https://www.bigcommerce.com/articles/ecommerce/dropshipping/",
                "Drop Shipping - Definition and Examples"
            ),
            source(
                "https://www.wix.com/blog/how-to-start-a-dropshipping-business",
                "How to Start a Dropshipping Business in 2024"
            ),
        ],
        "the references some reference_indexes names, in the order the text first cites them"
    );
    assert_eq!(reply.consulted.as_ref().map(Vec::len), Some(5), "every reference");
    assert_eq!(reply.follow_up, None);
    assert_eq!(reply.searches, 1);
    assert_eq!(
        reply.version.as_deref(),
        Some(
            "serpapi google; 2026-11-25 13:54:56 UTC; búsqueda 6744a1f0c2b7d3a1e4f50a11; Austin,Texas,United States; hl=en; gl=us"
        )
    );
}

#[test]
fn serpapi_ai_overview_deferred_to_a_page_token_is_fetched_by_a_second_search() {
    let first = providers::parse(Kind::Serpapi, &fixture("serpapi-google-ai-overview-page-token.json")).unwrap();
    assert_eq!(first.text, "");
    let path = first.follow_up.clone().unwrap();
    assert_eq!(
        path,
        "/search.json?engine=google_ai_overview&page_token=KIVu-nictZPdbtowFMdnuZOGkl5GAYdbcnPiTHS_Zi0d2QOnYQ8w"
    );
    let request = providers::follow_up(Kind::Serpapi, &path, Some("clave secreta"));
    assert_eq!(request.path, format!("{path}&api_key=clave+secreta"));
    let second = providers::parse(Kind::Serpapi, &fixture("serpapi-google-ai-overview-api.json")).unwrap();
    let reply = collector::providers::serpapi::merge(first, second);
    assert_eq!(
        reply.text,
        "For rural roads, the carrier with the widest low-band network usually keeps a signal longest.\n\nWhat to compare\n\n- Coverage maps: check the official map for the roads you drive.\n- Roaming: some plans add partner networks in remote areas.\n\nCarrier | Low-band\nA | 600 MHz\nB | 700 MHz"
    );
    assert_eq!(
        reply.sources.iter().map(|s| s.url.as_str()).collect::<Vec<_>>(),
        [
            "https://www.reviews.example.org/rural-coverage-2026",
            "https://www.carrier-a.example.com/coverage-map",
            "https://www.carrier-b.example.com/roaming"
        ]
    );
    assert_eq!(reply.consulted.as_ref().map(Vec::len), Some(4));
    assert_eq!(reply.searches, 2, "both searches are billed");
    assert_eq!(
        reply.version.as_deref(),
        Some(
            "serpapi google; 2026-11-25 13:58:16 UTC; búsqueda 6744a2b8e0f1d2c3b4a59612; ai_overview 6744a2b9f1a2b3c4d5e6f713; hl=en; gl=us"
        )
    );
}

#[test]
fn serpapi_ai_mode_with_nested_lists() {
    let reply = providers::parse(Kind::Serpapi, &fixture("serpapi-google-ai-mode.json")).unwrap();
    assert!(
        reply.text.contains("- Unsupervised learning: finds structure in unlabelled data.\n  - Clustering"),
        "{}",
        reply.text
    );
    assert_eq!(
        reply.sources.iter().map(|s| s.title.as_str()).collect::<Vec<_>>(),
        ["Machine learning, explained", "What is machine learning?", "Unsupervised learning"]
    );
    assert_eq!(reply.consulted.as_ref().map(Vec::len), Some(4), "Wikipedia consulted, not cited");
    assert!(
        reply
            .version
            .unwrap()
            .starts_with("serpapi google_ai_mode; 2026-11-25 14:02:40 UTC; búsqueda 6744a3c0a1b2c3d4e5f60814")
    );
}

#[test]
fn serpapi_request_follows_the_reference_the_key_only_as_api_key() {
    let location = location();
    for (surface, engine) in [("google_ai_overview", "google"), ("google_ai_mode", "google_ai_mode")] {
        let serp = Call { surface, ..call(&location) };
        let request = providers::request(Kind::Serpapi, &serp, Some("serp-prueba"));
        assert_eq!(request.method, providers::Method::Get);
        assert_eq!(
            request.path,
            format!(
                "/search.json?engine={engine}&q=%C2%BFQu%C3%A9+banco+me+conviene%3F&hl=es&gl=ar&location=Buenos+Aires&no_cache=true&api_key=serp-prueba"
            )
        );
        assert!(request.headers.is_empty() && request.body.is_empty());
    }
}

#[test]
fn serpapi_an_overview_that_could_not_be_fetched_is_not_an_answer() {
    let body = json!({"search_metadata": {"id": "x"}, "search_parameters": {"engine": "google_ai_overview"}, "ai_overview": {"error": "Page token expired."}});
    assert!(providers::parse(Kind::Serpapi, body.to_string().as_bytes()).unwrap_err().contains("Page token expired"));
    let none =
        json!({"search_metadata": {"id": "y"}, "search_parameters": {"engine": "google"}, "organic_results": []});
    let reply = providers::parse(Kind::Serpapi, none.to_string().as_bytes()).unwrap();
    assert_eq!(
        (reply.text.as_str(), reply.searches, reply.follow_up.is_none()),
        ("", 1, true),
        "no overview: an empty, paid search"
    );
}
