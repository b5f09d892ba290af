//! Collection runs against the local simulator: what is written, what is sent, and what happens
//! on 429 with `Retry-After`, 500s, timeouts, malformed bodies, empty answers, refusals, a bad key
//! and the budget's cap.

#![allow(clippy::unwrap_used)] // helpers of the tests panic on failure, like the tests

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use collector::client::StopReason;
use collector::config::Kind;
use collector::simulator::{Behaviour, Fault, Overview, Simulator, overview_of};
use common::{CALL_COST, FileSpec, collect, lines, write_questions};

async fn simulator() -> Simulator {
    Simulator::start("127.0.0.1:0", Behaviour::default(), true).await.unwrap()
}

fn setup(dir: &std::path::Path, questions: usize, spec: &FileSpec<'_>) {
    write_questions(dir, questions);
    std::fs::write(dir.join("recoleccion.toml"), spec.render()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_provider_answers_in_the_content_format() {
    let sim = simulator().await;
    let dir = tempfile::tempdir().unwrap();
    let url = sim.url();
    let spec = FileSpec { repetitions: 2, ..FileSpec::new(&url) };
    setup(dir.path(), 3, &spec);
    let summary = collect(dir.path(), "sk-prueba").await;
    assert!(summary.complete(), "{}", summary.render(100.0));
    assert_eq!(summary.answers, 3 * 6 * 2);
    let answers = lines(&dir.path().join("respuestas.jsonl"));
    assert_eq!(answers.len(), 36);
    let triples: BTreeSet<(String, String, u64)> = answers
        .iter()
        .map(|a| {
            (
                a["pregunta"].as_str().unwrap().into(),
                a["modelo"].as_str().unwrap().into(),
                a["repeticion"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(triples.len(), 36, "every triple once");
    for answer in &answers {
        let (q, m, r) = (
            answer["pregunta"].as_str().unwrap(),
            answer["modelo"].as_str().unwrap(),
            answer["repeticion"].as_u64().unwrap(),
        );
        assert_eq!(answer["id"], format!("{q}-{m}-r{r}"));
        assert!(answer["respuesta"].as_str().unwrap().contains("opciones que más se recomiendan"));
        assert_eq!(answer["fecha"].as_str().unwrap().len(), 10);
        let collected = &answer["recoleccion"];
        assert!(collected["hora"].as_str().unwrap().ends_with('Z'));
        assert_eq!(
            (collected["tokens_entrada"].as_u64(), collected["tokens_salida"].as_u64()),
            (Some(1000), Some(300))
        );
        assert_eq!(collected["busquedas"], 1);
        assert!((collected["costo_usd"].as_f64().unwrap() - CALL_COST).abs() < 1e-9);
        let sources = answer["fuentes"].as_array().unwrap();
        assert!(sources.len() >= 3);
        for s in sources {
            let url = s["url"].as_str().unwrap();
            assert!(url.starts_with("https://www."), "Gemini's redirects are resolved: {url}");
            assert!(!s["titulo"].as_str().unwrap().is_empty());
        }
        let version = answer["version"].as_str().unwrap();
        let expected = match m {
            "gpt-5-mini" | "gpt-5" => format!("{m}-2025-08-07"),
            "claude-haiku-4-5" | "claude-sonnet-4-5" => format!("{m}-20250929"),
            "gemini-2.5-flash" => "gemini-2.5-flash-001".to_owned(),
            _ => m.to_owned(),
        };
        assert_eq!(version, expected, "the version the provider reports");
    }
    // What was sent, as each reference documents it.
    let requests = sim.requests();
    let posts: Vec<_> = requests.iter().filter(|r| r.method == "POST").collect();
    assert_eq!(posts.len(), 36);
    for request in posts {
        let body = request.json();
        match request.path.as_str() {
            "/v1/responses" => {
                assert_eq!(request.headers["authorization"], "Bearer sk-prueba-openai");
                assert_eq!(body["tools"][0]["type"], "web_search");
                assert_eq!(body["tools"][0]["user_location"]["country"], "AR");
                assert!(body["input"].as_str().unwrap().starts_with("¿Qué compañía"));
                assert_eq!(body["max_output_tokens"], 2048);
            }
            "/v1/messages" => {
                assert_eq!(request.headers["x-api-key"], "sk-prueba-anthropic");
                assert_eq!(request.headers["anthropic-version"], "2023-06-01");
                assert_eq!(body["tools"][0]["type"], "web_search_20250305");
                assert_eq!(body["tools"][0]["name"], "web_search");
                assert_eq!(body["tools"][0]["max_uses"], 3);
                assert_eq!(body["messages"][0]["role"], "user");
                assert_eq!(body["max_tokens"], 2048);
            }
            "/v1beta/models/gemini-2.5-flash:generateContent" => {
                assert_eq!(request.headers["x-goog-api-key"], "sk-prueba-google");
                assert_eq!(body["tools"][0]["google_search"], serde_json::json!({}));
                assert_eq!(body["generationConfig"]["maxOutputTokens"], 2048);
            }
            "/chat/completions" => {
                assert_eq!(request.headers["authorization"], "Bearer sk-prueba-perplexity");
                assert_eq!(body["model"], "sonar");
                assert_eq!(body["web_search_options"]["user_location"]["country"], "AR");
            }
            other => panic!("unexpected path {other}"),
        }
    }
    let gemini_sources: usize = answers
        .iter()
        .filter(|a| a["modelo"] == "gemini-2.5-flash")
        .map(|a| a["fuentes_consultadas"].as_array().unwrap().len())
        .sum();
    assert_eq!(requests.iter().filter(|r| r.method == "GET").count(), gemini_sources, "one GET per Gemini redirect");
}

/// (url, titulo) pairs of a list of sources in an answer line.
fn pairs(list: &serde_json::Value) -> Vec<(String, String)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| (s["url"].as_str().unwrap().to_owned(), s["titulo"].as_str().unwrap().to_owned()))
        .collect()
}

fn host(url: &str) -> String {
    url::Url::parse(url).unwrap().host_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consulted_and_cited_sources_are_exactly_what_each_api_served() {
    let sim = simulator().await;
    let dir = tempfile::tempdir().unwrap();
    let url = sim.url();
    setup(dir.path(), 4, &FileSpec { repetitions: 1, ..FileSpec::new(&url) });
    let summary = collect(dir.path(), "k").await;
    assert!(summary.complete(), "{}", summary.render(100.0));
    let served = sim.served_sources();
    let answers = lines(&dir.path().join("respuestas.jsonl"));
    assert_eq!(answers.len(), 24);
    let mut not_cited = 0;
    for answer in &answers {
        let model = answer["modelo"].as_str().unwrap();
        let case = answer["pregunta"].as_str().unwrap().trim_start_matches('P').parse::<usize>().unwrap();
        let prompt = format!("¿Qué compañía de celular me conviene? (caso {case})");
        let asked = common::SIX_MODELS.iter().find(|m| m.0 == model).unwrap().3;
        let matching: Vec<_> = served.iter().filter(|s| s.prompt == prompt && s.model == asked).collect();
        assert_eq!(matching.len(), 1, "{model} {prompt}");
        let served = matching[0];
        // What each API serves, as its reference says: OpenAI's consulted sources come without a
        // title (the collector takes a citation's title for the same URL, else the host); Gemini's
        // chunks are titled with the bare domain and reached through redirects.
        let (cited, consulted) = match served.kind {
            Kind::Openai => {
                let titled = served
                    .consulted
                    .iter()
                    .map(|(url, _)| {
                        let title =
                            served.cited.iter().find(|(u, _)| u == url).map_or_else(|| host(url), |(_, t)| t.clone());
                        (url.clone(), title)
                    })
                    .collect();
                (served.cited.clone(), titled)
            }
            Kind::Google => {
                let domain = |list: &[(String, String)]| {
                    list.iter().map(|(url, _)| (url.clone(), host(url).trim_start_matches("www.").to_owned())).collect()
                };
                (domain(&served.cited), domain(&served.consulted))
            }
            _ => (served.cited.clone(), served.consulted.clone()),
        };
        assert_eq!(pairs(&answer["fuentes"]), cited, "{model}: cited");
        assert_eq!(pairs(&answer["fuentes_consultadas"]), consulted, "{model}: consulted");
        assert_eq!(answer["superficie"], "api");
        not_cited += consulted.len() - cited.len();
    }
    assert!(not_cited >= 24, "consulted and not cited in every answer: {not_cited}");
}

fn one_model(kind: &'static str) -> [(&'static str, &'static str, &'static str, &'static str); 1] {
    match kind {
        "openai" => [("gpt-5-mini", "openai", "openai", "gpt-5-mini")],
        "anthropic" => [("claude-haiku-4-5", "anthropic", "anthropic", "claude-haiku-4-5")],
        "google" => [("gemini-2.5-flash", "google", "google", "gemini-2.5-flash")],
        _ => [("sonar", "perplexity", "compatible", "sonar")],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_waits_what_retry_after_says_for_every_provider() {
    for (name, kind) in [
        ("openai", Kind::Openai),
        ("anthropic", Kind::Anthropic),
        ("google", Kind::Google),
        ("compatible", Kind::Compatible),
    ] {
        let sim = simulator().await;
        sim.push_fault(kind, Fault::Status(429, Some(1)));
        let dir = tempfile::tempdir().unwrap();
        let url = sim.url();
        let models = one_model(name);
        setup(dir.path(), 1, &FileSpec { models: &models, repetitions: 1, ..FileSpec::new(&url) });
        let started = Instant::now();
        let summary = collect(dir.path(), "k").await;
        assert!(summary.complete(), "{name}: {}", summary.render(1.0));
        assert!(started.elapsed() >= Duration::from_millis(990), "{name}: waited {:?}", started.elapsed());
        assert_eq!(sim.requests().iter().filter(|r| r.method == "POST").count(), 2, "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consumer_surfaces_and_perplexity_record_what_they_served_with_their_search() {
    let sim = simulator().await;
    let dir = tempfile::tempdir().unwrap();
    let url = sim.url();
    setup(dir.path(), 12, &FileSpec { models: &common::SURFACE_MODELS, repetitions: 1, ..FileSpec::new(&url) });
    let summary = collect(dir.path(), "k").await;
    assert!(summary.complete(), "{}", summary.render(100.0));
    let served = sim.served_sources();
    let answers = lines(&dir.path().join("respuestas.jsonl"));
    let incidents = lines(&dir.path().join("incidencias.jsonl"));
    let prompt = |case: &str| {
        format!(
            "¿Qué compañía de celular me conviene? (caso {})",
            case.trim_start_matches('P').parse::<usize>().unwrap()
        )
    };
    let (mut deferred, mut absent) = (0, 0);
    for answer in &answers {
        let model = answer["modelo"].as_str().unwrap();
        let asked = prompt(answer["pregunta"].as_str().unwrap());
        let surface = common::SURFACE_MODELS.iter().find(|m| m.0 == model).unwrap().3;
        let collected = &answer["recoleccion"];
        let version = answer["version"].as_str().unwrap();
        let matching: Vec<_> = served
            .iter()
            .filter(|s| s.prompt == asked && s.model == surface && (surface != "sonar" || s.kind == Kind::Compatible))
            .collect();
        assert_eq!(matching.len(), 1, "{model}: {asked}");
        assert_eq!(pairs(&answer["fuentes"]), matching[0].cited, "{model}: cited");
        assert_eq!(pairs(&answer["fuentes_consultadas"]), matching[0].consulted, "{model}: consulted");
        assert!(matching[0].consulted.len() > matching[0].cited.len());
        match model {
            "sonar-perplexity" => {
                assert_eq!(answer["superficie"], "api");
                assert_eq!(collected["modelo_proveedor"], "sonar");
                assert!(
                    (collected["costo_usd"].as_f64().unwrap() - common::PERPLEXITY_CALL).abs() < 1e-9,
                    "tokens and the request fee"
                );
            }
            _ => {
                assert_eq!(answer["superficie"], surface);
                let engine = if surface == "google_ai_mode" { "google_ai_mode" } else { "google" };
                assert_eq!(collected["modelo_proveedor"], engine);
                assert!(
                    version.starts_with(&format!("serpapi {engine}; 2026-11-28 14:03:11 UTC; búsqueda ")),
                    "{version}"
                );
                assert!(version.ends_with("; Buenos Aires,Argentina; hl=es; gl=ar"), "{version}");
                assert!(answer["respuesta"].as_str().unwrap().contains("las opciones que más se recomiendan"));
                let searches = if surface == "google_ai_overview" && overview_of(&asked) == Overview::Deferred {
                    deferred += 1;
                    assert!(version.contains("; ai_overview "), "the second search is named: {version}");
                    2
                } else {
                    1
                };
                assert_eq!(collected["busquedas"], searches);
                assert!(
                    (collected["costo_usd"].as_f64().unwrap() - searches as f64 * common::SEARCH_PRICE).abs() < 1e-9
                );
            }
        }
    }
    // A search without an AI Overview: an empty answer, paid (one search), not asked again.
    for incident in &incidents {
        assert_eq!(incident["modelo"], "google-ai-overview");
        assert_eq!(overview_of(&prompt(incident["pregunta"].as_str().unwrap())), Overview::Absent);
        assert_eq!((incident["causa"].as_str(), incident["definitiva"].as_bool()), (Some("vacia"), Some(true)));
        assert!((incident["costo_usd"].as_f64().unwrap() - common::SEARCH_PRICE).abs() < 1e-9);
        absent += 1;
    }
    assert_eq!(answers.len() + incidents.len(), 36);
    assert!(deferred > 0 && absent > 0, "the twelve questions cover every case: {deferred} deferred, {absent} without");
    // What was sent: the key only as `api_key`; the follow-up with the page token, at once.
    let requests = sim.requests();
    let serp: Vec<_> = requests.iter().filter(|r| r.path.starts_with("/search.json")).collect();
    assert_eq!(serp.len(), 24 + deferred, "one search per call, two for a deferred overview");
    for request in &serp {
        assert!(request.path.ends_with("&api_key=k-serpapi"), "{}", request.path);
        assert!(!request.headers.contains_key("authorization"));
        assert!(
            request.path.contains("engine=google_ai_overview&page_token=")
                || request.path.contains("&hl=es&gl=ar&location=Buenos+Aires&no_cache=true"),
            "{}",
            request.path
        );
    }
    let sonar = requests.iter().find(|r| r.path == "/chat/completions").unwrap();
    assert_eq!(sonar.headers["authorization"], "Bearer k-perplexity");
    assert_eq!(sonar.json()["web_search_options"]["search_context_size"], "low");
    assert_eq!(sonar.json()["web_search_options"]["user_location"]["country"], "AR");
    // Asked again: nothing left (answers and paid empty searches are done).
    let again = collect(dir.path(), "k").await;
    assert_eq!((again.planned, again.already_done), (0, 36));
    let text = summary.render(100.0);
    assert!(text.contains("google-ai-mode (serpapi google_ai_mode; Buenos Aires,Argentina; hl=es; gl=ar)"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_request_reaches_a_provider_inside_its_pause() {
    // Four calls in flight, slots booked 100 ms apart, answers taking 100 ms; 500s whose retries
    // (50 ms of backoff) fall inside the pauses; pauses said by `Retry-After` and by each
    // provider's own rate-limit headers (OpenAI's and Anthropic's resets, Gemini's RetryInfo).
    for (name, kind) in [
        ("openai", Kind::Openai),
        ("anthropic", Kind::Anthropic),
        ("google", Kind::Google),
        ("compatible", Kind::Compatible),
    ] {
        let behaviour = Behaviour { latency: Duration::from_millis(100), ..Behaviour::default() };
        let sim = Simulator::start("127.0.0.1:0", behaviour, true).await.unwrap();
        for fault in [
            Fault::Status(500, None),
            Fault::Status(429, Some(1)),
            Fault::Status(500, None),
            Fault::Status(503, None),
            Fault::RateLimit(Duration::from_millis(800)),
            Fault::Status(500, None),
            Fault::Status(429, Some(1)),
        ] {
            sim.push_fault(kind, fault);
        }
        let dir = tempfile::tempdir().unwrap();
        let url = sim.url();
        let models = one_model(name);
        setup(
            dir.path(),
            24,
            &FileSpec { models: &models, repetitions: 1, rpm: 600, concurrency: 4, attempts: 6, ..FileSpec::new(&url) },
        );
        let summary = collect(dir.path(), "k").await;
        assert!(summary.complete(), "{name}: {}", summary.render(100.0));
        assert_eq!(sim.pauses(), 3, "{name}");
        let arrivals = sim.pause_arrivals();
        assert_eq!(arrivals.inside, 0, "{name}: requests sent inside a pause: {arrivals:?}");
        assert!(arrivals.at_start <= 3 * 3, "{name}: at most the other calls in flight, per pause: {arrivals:?}");
    }
}

#[test]
fn the_providers_rate_limit_headers_say_how_long_to_wait() {
    use collector::client::{go_duration, reset_wait, retry_info, rfc3339};
    use reqwest::header::{HeaderMap, HeaderValue};
    assert_eq!(go_duration("6m0s"), Some(Duration::from_secs(360)));
    assert_eq!(go_duration("1h2m3.5s"), Some(Duration::from_secs_f64(3723.5)));
    assert_eq!(go_duration("20ms"), Some(Duration::from_millis(20)));
    assert_eq!(go_duration("soon"), None);
    let epoch = |s: &str| rfc3339(s).unwrap().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    assert_eq!(epoch("2026-03-31T23:33:20Z"), 1_775_000_000.0);
    assert_eq!(epoch("2026-04-01T01:33:20.5+02:00"), 1_775_000_000.5);
    let mut openai = HeaderMap::new();
    openai.insert("x-ratelimit-remaining-requests", HeaderValue::from_static("0"));
    openai.insert("x-ratelimit-reset-requests", HeaderValue::from_static("1.5s"));
    openai.insert("x-ratelimit-remaining-tokens", HeaderValue::from_static("9000"));
    openai.insert("x-ratelimit-reset-tokens", HeaderValue::from_static("6m0s"));
    assert_eq!(reset_wait(&openai, false), Some(Duration::from_millis(1500)), "the limit that ran out");
    openai.insert("x-ratelimit-remaining-requests", HeaderValue::from_static("3"));
    assert_eq!(reset_wait(&openai, false), None, "nothing ran out: no pause after a 200");
    assert_eq!(reset_wait(&openai, true), Some(Duration::from_secs(360)), "a 429 without a hint: the latest reset");
    let mut anthropic = HeaderMap::new();
    anthropic.insert("anthropic-ratelimit-input-tokens-remaining", HeaderValue::from_static("0"));
    anthropic.insert("anthropic-ratelimit-input-tokens-reset", HeaderValue::from_static("2099-01-01T00:00:00Z"));
    assert!(reset_wait(&anthropic, false).unwrap() > Duration::from_secs(86_400));
    let gemini = br#"{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}]}}"#;
    assert_eq!(retry_info(gemini), Some(Duration::from_secs(37)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_errors_are_retried_and_when_they_persist_recorded_and_asked_again_next_run() {
    let sim = simulator().await;
    for _ in 0..2 {
        sim.push_fault(Kind::Anthropic, Fault::Status(500, None));
    }
    sim.push_fault(Kind::Anthropic, Fault::Status(529, None));
    let dir = tempfile::tempdir().unwrap();
    let url = sim.url();
    let models = one_model("anthropic");
    // Two attempts: the first call meets 500 and 500 and fails; the second meets 529, then succeeds.
    setup(
        dir.path(),
        2,
        &FileSpec { models: &models, repetitions: 1, attempts: 2, concurrency: 1, ..FileSpec::new(&url) },
    );
    let summary = collect(dir.path(), "k").await;
    assert_eq!(summary.answers, 1);
    assert_eq!(summary.failures.get("http_500"), Some(&1), "{:?}", summary.failures);
    assert!(!summary.complete());
    let incidents = lines(&dir.path().join("incidencias.jsonl"));
    assert_eq!(incidents.len(), 1);
    assert_eq!(incidents[0]["causa"], "http_500");
    assert_eq!(incidents[0]["definitiva"], false);
    // A rerun asks only what is missing.
    let again = collect(dir.path(), "k").await;
    assert!(again.complete());
    assert_eq!((again.planned, again.already_done, again.answers), (1, 1, 1));
    assert_eq!(lines(&dir.path().join("respuestas.jsonl")).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_outlives_its_timeout_is_abandoned_and_retried() {
    let sim = simulator().await;
    sim.push_fault(Kind::Google, Fault::Delay(Duration::from_secs(3)));
    let dir = tempfile::tempdir().unwrap();
    let url = sim.url();
    let models = one_model("google");
    setup(
        dir.path(),
        1,
        &FileSpec { models: &models, repetitions: 1, timeout_s: 1, attempts: 1, ..FileSpec::new(&url) },
    );
    let started = Instant::now();
    let summary = collect(dir.path(), "k").await;
    assert!(started.elapsed() < Duration::from_millis(2500), "gave up at the timeout: {:?}", started.elapsed());
    assert_eq!(summary.failures.get("tiempo_agotado"), Some(&1), "{:?}", summary.failures);
    // With a second attempt, the retry answers.
    sim.push_fault(Kind::Google, Fault::Delay(Duration::from_secs(3)));
    std::fs::write(
        dir.path().join("recoleccion.toml"),
        FileSpec { models: &models, repetitions: 1, timeout_s: 1, attempts: 2, ..FileSpec::new(&url) }.render(),
    )
    .unwrap();
    let again = collect(dir.path(), "k").await;
    assert!(again.complete(), "{}", again.render(1.0));
    assert_eq!(again.answers, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_body_is_retried_not_written() {
    let sim = simulator().await;
    sim.push_fault(Kind::Openai, Fault::Malformed);
    sim.push_fault(Kind::Compatible, Fault::Malformed);
    let dir = tempfile::tempdir().unwrap();
    let url = sim.url();
    let models = [one_model("openai")[0], one_model("perplexity")[0]];
    setup(dir.path(), 1, &FileSpec { models: &models, repetitions: 1, ..FileSpec::new(&url) });
    let summary = collect(dir.path(), "k").await;
    assert!(summary.complete(), "{}", summary.render(1.0));
    assert_eq!(summary.answers, 2);
    assert_eq!(sim.requests().len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_answers_and_refusals_are_recorded_as_such_and_not_asked_again() {
    let sim = simulator().await;
    sim.push_fault(Kind::Openai, Fault::Empty);
    sim.push_fault(Kind::Openai, Fault::Refusal);
    let dir = tempfile::tempdir().unwrap();
    let url = sim.url();
    let models = one_model("openai");
    setup(dir.path(), 3, &FileSpec { models: &models, repetitions: 1, concurrency: 1, ..FileSpec::new(&url) });
    let summary = collect(dir.path(), "k").await;
    assert_eq!((summary.answers, summary.empty), (1, 2));
    assert!(summary.failures.is_empty());
    let incidents = lines(&dir.path().join("incidencias.jsonl"));
    let causes: BTreeSet<&str> = incidents.iter().map(|i| i["causa"].as_str().unwrap()).collect();
    assert_eq!(causes, BTreeSet::from(["rechazo", "vacia"]));
    assert!(incidents.iter().all(|i| i["definitiva"] == true && i["costo_usd"].as_f64().unwrap() > 0.0));
    let again = collect(dir.path(), "k").await;
    assert_eq!((again.planned, again.already_done), (0, 3), "paid non-answers are not asked again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_key_stops_the_run_and_is_not_written_anywhere() {
    let sim = simulator().await;
    sim.push_fault(Kind::Anthropic, Fault::Status(401, None));
    let dir = tempfile::tempdir().unwrap();
    let url = sim.url();
    let models = one_model("anthropic");
    setup(dir.path(), 5, &FileSpec { models: &models, repetitions: 1, concurrency: 1, ..FileSpec::new(&url) });
    let summary = collect(dir.path(), "sk-ant-secreta-123456").await;
    assert!(
        matches!(summary.stop, Some(StopReason::Fatal(ref why)) if why.contains("ANTHROPIC_API_KEY")),
        "{:?}",
        summary.stop
    );
    assert_eq!(summary.answers, 0);
    assert_eq!(summary.not_asked, 4);
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains("secreta"));
    }
    assert!(!summary.render(1.0).contains("secreta"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_cap_stops_at_the_cap() {
    let sim = simulator().await;
    let dir = tempfile::tempdir().unwrap();
    let url = sim.url();
    // Room for exactly 25 calls of 0.01085 USD (and not 26).
    let budget = CALL_COST * 25.0 + CALL_COST / 2.0;
    setup(dir.path(), 20, &FileSpec { budget, ..FileSpec::new(&url) });
    let summary = collect(dir.path(), "k").await;
    assert_eq!(summary.stop, Some(StopReason::Budget));
    assert_eq!(summary.answers, 25, "{}", summary.render(budget));
    assert!(summary.cost <= budget, "spent {} of {budget}", summary.cost);
    assert_eq!(summary.not_asked, 360 - 25);
    assert_eq!(sim.requests().iter().filter(|r| r.method == "POST").count(), 25, "nothing asked past the cap");
    assert!(summary.render(budget).contains("detenida por presupuesto"));
    // Raising the budget continues where it stopped.
    std::fs::write(dir.path().join("recoleccion.toml"), FileSpec::new(&url).render()).unwrap();
    let rest = collect(dir.path(), "k").await;
    assert!(rest.complete());
    assert_eq!((rest.already_done, rest.answers), (25, 335));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_paces_calls() {
    let sim = simulator().await;
    let dir = tempfile::tempdir().unwrap();
    let url = sim.url();
    let models = one_model("openai");
    // 600 per minute: one call every 100 ms; 11 calls take at least 1 s.
    setup(
        dir.path(),
        11,
        &FileSpec { models: &models, repetitions: 1, rpm: 600, concurrency: 8, ..FileSpec::new(&url) },
    );
    let started = Instant::now();
    let summary = collect(dir.path(), "k").await;
    assert!(summary.complete());
    assert!(started.elapsed() >= Duration::from_millis(990), "{:?}", started.elapsed());
    assert!(started.elapsed() < Duration::from_millis(2500), "{:?}", started.elapsed());
}

#[test]
fn the_plan_counts_calls_tokens_and_cost_before_asking() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), 20, &FileSpec::new("http://127.0.0.1:9"));
    let file = collector::config::CollectionFile::read(&dir.path().join("recoleccion.toml")).unwrap();
    let plan = collector::run::plan(dir.path(), &file).unwrap();
    assert_eq!(plan.calls(), 360);
    assert!((plan.cost() - 360.0 * CALL_COST).abs() < 1e-9);
    let text = collector::run::render_plan(&plan, &file);
    assert!(text.contains("360 llamadas por hacer (0 ya hechas)"), "{text}");
    assert!(text.contains("3.91"), "{text}");
}

#[test]
fn collection_file_problems_are_all_reported_with_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recoleccion.toml");
    std::fs::write(
        &path,
        "repeticiones = 0\npresupuesto_usd = -1\n[proveedores.x]\ntipo = \"compatible\"\nconcurrencia = 0\n[[modelos]]\nid = \"a\"\nproveedor = \"y\"\nmodelo = \"m\"\nnivel = \"estandar\"\nprecio = { entrada = 1, salida = -2 }\n",
    )
    .unwrap();
    let problems = collector::config::CollectionFile::read(&path).unwrap_err().join("\n");
    for expected in [
        "repeticiones",
        "presupuesto_usd",
        "proveedores.x.concurrencia",
        "proveedores.x.url_base",
        "modelos[0].proveedor: `y`",
        "modelos[0].nivel",
        "modelos[0].precio.salida",
    ] {
        assert!(problems.contains(expected), "missing {expected}: {problems}");
    }
    std::fs::write(
        &path,
        "repeticiones = 1\npresupuesto_usd = 3\n[proveedores.serpapi]\ntipo = \"serpapi\"\n[proveedores.openai]\ntipo = \"openai\"\n[[modelos]]\nid = \"a\"\nproveedor = \"serpapi\"\nmodelo = \"gpt-5\"\nnivel = \"estándar\"\nprecio = { entrada = 1, salida = 2 }\n[[modelos]]\nid = \"b\"\nproveedor = \"openai\"\nsuperficie = \"google_ai_mode\"\nnivel = \"estándar\"\ncontexto_busqueda = \"low\"\nprecio = { busqueda = 0.01 }\n[[modelos]]\nid = \"c\"\nproveedor = \"serpapi\"\nsuperficie = \"chatgpt\"\nnivel = \"estándar\"\nprecio = { busqueda = 0.01 }\n",
    )
    .unwrap();
    let problems = collector::config::CollectionFile::read(&path).unwrap_err().join("\n");
    for expected in [
        "modelos[0].superficie: un proveedor `serpapi` recolecta una superficie de consumo",
        "modelos[0].modelo: una superficie de consumo no tiene modelo que elegir",
        "modelos[0].precio.busqueda",
        "modelos[1].superficie: `google_ai_mode` se recolecta con un proveedor `serpapi`",
        "modelos[1].modelo: falta el id de modelo del proveedor",
        "modelos[1].precio: faltan `entrada` y `salida`",
        "modelos[1].contexto_busqueda: solo para un proveedor `perplexity`",
        "modelos[2].superficie: `chatgpt` no es una superficie conocida (api, google_ai_overview, google_ai_mode)",
    ] {
        assert!(problems.contains(expected), "missing {expected}: {problems}");
    }
    std::fs::write(&path, "repeticiones = 1\npresupuesto = 3\n").unwrap();
    let problems = collector::config::CollectionFile::read(&path).unwrap_err().join("\n");
    assert!(problems.contains("línea 2") && problems.contains("presupuesto"), "{problems}");
}

#[test]
fn the_example_collection_file_reads_with_and_without_its_commented_surfaces() {
    let example = format!("{}/recoleccion.ejemplo.toml", env!("CARGO_MANIFEST_DIR"));
    let file = collector::config::CollectionFile::read(std::path::Path::new(&example)).unwrap();
    assert_eq!(file.models.len(), 6);
    let text = std::fs::read_to_string(&example).unwrap();
    let start = text.find("# [proveedores.perplexity]").unwrap();
    let end = text.find("# El juez").unwrap();
    let uncommented: String =
        text[start..end].lines().map(|l| format!("{}\n", l.trim_start_matches("# ").trim_start_matches('#'))).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recoleccion.toml");
    std::fs::write(&path, format!("{}{uncommented}{}", &text[..start], &text[end..])).unwrap();
    let file = collector::config::CollectionFile::read(&path).unwrap_or_else(|p| panic!("{p:#?}"));
    let surfaces: Vec<&str> = file.models.iter().map(|m| m.surface.as_str()).collect();
    assert_eq!(surfaces[6..], ["api", "google_ai_overview", "google_ai_mode"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_record_each_answer_as_the_direct_path_does_at_the_batch_price() {
    let sim = simulator().await;
    let url = sim.url();
    let models = [
        ("gpt-5-mini", "openai", "openai", "gpt-5-mini"),
        ("claude-haiku-4-5", "anthropic", "anthropic", "claude-haiku-4-5"),
        ("gemini-2.5-flash", "google", "google", "gemini-2.5-flash"),
        common::SURFACE_MODELS[0],
    ];
    // The same study twice: once call by call, once with `--lote`.
    let direct = tempfile::tempdir().unwrap();
    setup(direct.path(), 5, &FileSpec { models: &models, repetitions: 2, ..FileSpec::new(&url) });
    assert!(collect(direct.path(), "k").await.complete());
    assert_eq!(sim.batches_created(), 0);
    let batched = tempfile::tempdir().unwrap();
    setup(batched.path(), 5, &FileSpec { models: &models, repetitions: 2, ..FileSpec::new(&url) });
    let before = sim.requests().len();
    let served_before = sim.served_sources().len();
    sim.fail_batch_items(2);
    let summary = common::collect_with(batched.path(), "k", true).await;
    assert_eq!((summary.batches_sent, summary.batches_collected), (3, 3), "{}", summary.render(100.0));
    assert_eq!(sim.batches_created(), 3, "one batch per model whose provider has a batch API");
    assert_eq!(summary.failures.get("lote"), Some(&2), "{:?}", summary.failures);
    let sent: Vec<_> = sim.requests()[before..]
        .iter()
        .map(|r| format!("{} {}", r.method, r.path.split('?').next().unwrap()))
        .collect();
    for expected in [
        "POST /v1/files",
        "POST /v1/batches",
        "POST /v1/messages/batches",
        "POST /v1beta/models/gemini-2.5-flash:batchGenerateContent",
        "POST /chat/completions",
    ] {
        assert!(sent.iter().any(|s| s == expected), "{expected} in {sent:?}");
    }
    assert!(
        !sent.iter().any(|s| s == "POST /v1/responses" || s == "POST /v1/messages"),
        "batched calls are not sent one by one"
    );
    // Each answer as the direct path writes it (the same fields; the sources the stand-in served
    // for it), but for the price: half the tokens.
    let by_triple = |dir: &std::path::Path| -> std::collections::BTreeMap<String, serde_json::Value> {
        lines(&dir.join("respuestas.jsonl")).into_iter().map(|a| (a["id"].as_str().unwrap().to_owned(), a)).collect()
    };
    let (one_by_one, in_batches) = (by_triple(direct.path()), by_triple(batched.path()));
    assert_eq!(in_batches.len(), 40 - 2);
    let served = sim.served_sources()[served_before..].to_vec();
    let urls = |list: &serde_json::Value| -> Vec<String> {
        list.as_array().unwrap().iter().map(|s| s["url"].as_str().unwrap().to_owned()).collect()
    };
    let served_urls = |list: &[(String, String)]| -> Vec<String> { list.iter().map(|(u, _)| u.clone()).collect() };
    for (id, answer) in &in_batches {
        let reference = &one_by_one[id];
        for field in ["pregunta", "modelo", "version", "repeticion", "superficie"] {
            assert_eq!(answer[field], reference[field], "{id}: {field}");
        }
        let case = answer["pregunta"].as_str().unwrap().trim_start_matches('P').parse::<usize>().unwrap();
        let prompt = format!("¿Qué compañía de celular me conviene? (caso {case})");
        let asked = models.iter().find(|m| m.0 == answer["modelo"]).unwrap().3;
        assert!(
            served.iter().any(|s| s.prompt == prompt
                && s.model == asked
                && served_urls(&s.cited) == urls(&answer["fuentes"])
                && served_urls(&s.consulted) == urls(&answer["fuentes_consultadas"])),
            "{id}: the sources the stand-in served for it"
        );
        let cost = answer["recoleccion"]["costo_usd"].as_f64().unwrap();
        let expected =
            if answer["modelo"] == "sonar-perplexity" { common::PERPLEXITY_CALL } else { 0.000125 + 0.0003 + 0.01 };
        assert!((cost - expected).abs() < 1e-9, "{id}: {cost}");
    }
    // The batch journal: prepared, sent, finished; every call closed.
    let events: Vec<String> =
        lines(&batched.path().join("lotes.jsonl")).iter().map(|l| l["evento"].as_str().unwrap().to_owned()).collect();
    assert_eq!(events.iter().filter(|e| *e == "terminado").count(), 3, "{events:?}");
    let spent = collector::journal::spent(batched.path()).unwrap();
    assert_eq!(spent.open, 0);
    // The two that errored are asked again by the next run (here, one by one).
    let again = collect(batched.path(), "k").await;
    assert!(again.complete(), "{}", again.render(100.0));
    assert_eq!((again.answers, lines(&batched.path().join("respuestas.jsonl")).len()), (2, 40));
}

#[test]
fn the_plan_prices_the_calls_one_by_one_and_in_batches() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), 20, &FileSpec::new("http://127.0.0.1:9"));
    let file = collector::config::CollectionFile::read(&dir.path().join("recoleccion.toml")).unwrap();
    let plan = collector::run::plan(dir.path(), &file).unwrap();
    // Five models with a batch API at half the token price (0.000125 + 0.0003 + 0.01 a call),
    // the sixth (an OpenAI-compatible server) without one.
    let batch_call = 0.000125 + 0.0003 + 0.01;
    let expected = 300.0 * batch_call + 60.0 * CALL_COST;
    assert!((plan.batch_cost() - expected).abs() < 1e-9, "{}", plan.batch_cost());
    let text = collector::run::render_plan(&plan, &file);
    assert!(text.contains("en lotes USD"), "{text}");
    assert!(text.contains(&format!("En lotes (`recolectar --lote`): {expected:.2} USD")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("sonar ") && l.trim_end().ends_with('—')), "{text}");
}
