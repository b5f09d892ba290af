//! The pages for people: every page the generator writes is in the manifest, has a language,
//! landmarks and accessible charts, asks no other host for anything, shows only the free
//! sheet; and the real gate negotiates `/` and the unpaid 402 by `Accept`.
//!
//! The HTML validator, axe-core and the real browser run in `tests/browser/` (see README).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::gate::{client, start_local};
use common::{SLUGS, built, read_json};
use serde_json::Value;

const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

// ---------------------------------------------------------------------------------------
// A small HTML tag reader: enough for generated pages (the Nu checker validates them fully).

#[derive(Debug)]
struct Tag {
    name: String,
    attrs: BTreeMap<String, String>,
}

/// Start tags with their attributes (entity-decoded), in document order.
fn tags(html: &str) -> Vec<Tag> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        rest = &rest[start + 1..];
        if let Some(after) = rest.strip_prefix("!--") {
            rest = after.find("-->").map_or("", |end| &after[end + 3..]);
            continue;
        }
        if rest.starts_with('/') || rest.starts_with('!') {
            continue;
        }
        let name_len = rest.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(rest.len());
        let name = rest[..name_len].to_ascii_lowercase();
        rest = &rest[name_len..];
        let mut attrs = BTreeMap::new();
        loop {
            rest = rest.trim_start();
            if rest.is_empty() || rest.starts_with('>') || rest.starts_with("/>") {
                break;
            }
            let key_len = rest.find(|c: char| c == '=' || c == '>' || c.is_whitespace()).unwrap_or(rest.len());
            let key = rest[..key_len].to_ascii_lowercase();
            rest = &rest[key_len..];
            let value = if let Some(after) = rest.strip_prefix('=') {
                let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'');
                match quote {
                    Some(q) => {
                        let end = after[1..].find(q).expect("closing quote");
                        rest = &after[end + 2..];
                        decode(&after[1..end + 1])
                    }
                    None => {
                        let end = after.find(|c: char| c == '>' || c.is_whitespace()).unwrap_or(after.len());
                        rest = &after[end..];
                        decode(&after[..end])
                    }
                }
            } else {
                String::new()
            };
            attrs.insert(key, value);
        }
        out.push(Tag { name, attrs });
    }
    out
}

/// Decodes the character references minijinja and the templates write.
fn decode(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(semi) = rest.find(';') else { break };
        let entity = &rest[1..semi];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text between `<tag ...>` and `</tag>` of the first such element.
fn element_text<'a>(html: &'a str, tag: &str) -> Option<&'a str> {
    let open = html.find(&format!("<{tag}"))?;
    let start = open + html[open..].find('>')? + 1;
    let end = start + html[start..].find(&format!("</{tag}>"))?;
    Some(&html[start..end])
}

fn read(dist: &Path, file: &str) -> String {
    std::fs::read_to_string(dist.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Every HTML file the build wrote, relative to `dist/`.
fn html_files(dist: &Path) -> Vec<String> {
    common::files_under(dist)
        .into_iter()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".html"))
        .collect()
}

// ---------------------------------------------------------------------------------------
// The generator's pages

#[test]
fn every_page_is_a_route_of_the_manifest_or_a_402_page() {
    let dist = built();
    let manifest = read_json(&dist.join("gate.json"));
    let routes = manifest["rutas"].as_object().expect("rutas");
    let route_file = |url: &str| routes.get(url).and_then(|r| r["archivo"].as_str()).map(str::to_owned);
    let html_type = |url: &str| routes[url]["tipo"].as_str() == Some("text/html; charset=utf-8");

    assert_eq!(routes["/"]["html"], "/index.html", "/ offers the home page to browsers");
    assert_eq!(route_file("/").as_deref(), Some("public/index.json"), "/ stays the JSON index for agents");
    assert_eq!(route_file("/index.json").as_deref(), Some("public/index.json"));
    assert_eq!(route_file("/index.html").as_deref(), Some("public/index.html"));
    assert_eq!(route_file("/privacidad").as_deref(), Some("public/privacidad.html"));
    assert!(html_type("/index.html") && html_type("/privacidad"));
    assert_eq!(routes["/recursos/estilo.css"]["tipo"], "text/css; charset=utf-8");
    assert_eq!(routes["/recursos/catalogo.js"]["tipo"], "text/javascript; charset=utf-8");
    for slug in SLUGS {
        let url = format!("/estudios/{slug}");
        assert_eq!(route_file(&url), Some(format!("public/estudios/{slug}.html")), "{url}");
        assert!(html_type(&url));
        assert_eq!(
            route_file(&format!("/estudio/{slug}/ficha")),
            Some(format!("public/estudio/{slug}/ficha.json")),
            "the sheet stays JSON"
        );
        assert_eq!(manifest["estudios"][slug]["pagina_402"], format!("private/paginas/pago-{slug}.html"));
    }

    let mut listed: Vec<String> = routes
        .values()
        .filter_map(|r| r["archivo"].as_str())
        .filter(|f| f.ends_with(".html"))
        .map(str::to_owned)
        .collect();
    listed.extend(SLUGS.iter().map(|s| format!("private/paginas/pago-{s}.html")));
    listed.sort();
    listed.dedup();
    assert_eq!(html_files(dist), listed, "every HTML file is served, and nothing else is HTML");
    assert_eq!(listed.len(), 2 + 2 * SLUGS.len());
}

#[test]
fn pages_have_a_language_landmarks_a_title_and_labelled_charts() {
    let dist = built();
    for file in html_files(dist) {
        let html = read(dist, &file);
        assert!(html.starts_with("<!doctype html>\n"), "{file}");
        let tags = tags(&html);
        let count = |name: &str| tags.iter().filter(|t| t.name == name).count();
        let root = tags.iter().find(|t| t.name == "html").expect("html");
        assert_eq!(root.attrs.get("lang").map(String::as_str), Some("es"), "{file}");
        assert!(
            tags.iter().any(|t| t.name == "meta" && t.attrs.get("name").map(String::as_str) == Some("viewport")),
            "{file}"
        );
        for landmark in ["header", "nav", "main", "footer"] {
            assert!(count(landmark) >= 1, "{file} lacks <{landmark}>");
        }
        assert_eq!(count("main"), 1, "{file}");
        assert_eq!(count("h1"), 1, "{file}");
        assert!(element_text(&html, "title").is_some_and(|t| t.trim().len() > 10), "{file}");
        for nav in tags.iter().filter(|t| t.name == "nav") {
            assert!(nav.attrs.get("aria-label").is_some_and(|l| !l.is_empty()), "{file}: a <nav> without a name");
        }
        let ids: Vec<&str> = tags.iter().filter_map(|t| t.attrs.get("id").map(String::as_str)).collect();
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "{file}: duplicate ids");
        for tag in &tags {
            for reference in ["aria-labelledby", "aria-describedby"] {
                for id in tag.attrs.get(reference).map(|v| v.split_whitespace().collect::<Vec<_>>()).unwrap_or_default()
                {
                    assert!(ids.contains(&id), "{file}: {reference} names a missing id {id}");
                }
            }
        }
        for svg in tags.iter().filter(|t| t.name == "svg") {
            assert_eq!(svg.attrs.get("role").map(String::as_str), Some("img"), "{file}");
            assert!(svg.attrs.contains_key("aria-labelledby"), "{file}: a chart without a name");
        }
        for img in tags.iter().filter(|t| t.name == "img") {
            assert!(img.attrs.contains_key("alt"), "{file}: <img> without alt");
        }
        for field in tags.iter().filter(|t| t.name == "input" || t.name == "select") {
            let id = field.attrs.get("id").expect("form fields have ids");
            assert!(
                tags.iter().any(|t| t.name == "label" && t.attrs.get("for") == Some(id)),
                "{file}: {id} has no label"
            );
        }
        assert!(tags.iter().filter(|t| t.attrs.contains_key("lang")).count() >= 2, "{file}: no English part");
    }
}

#[test]
fn pages_ask_no_other_host_for_anything() {
    let dist = built();
    for file in html_files(dist) {
        let html = read(dist, &file);
        let tags = tags(&html);
        for tag in &tags {
            for attr in ["src", "href", "action", "srcset", "poster", "data", "formaction", "xlink:href"] {
                let Some(value) = tag.attrs.get(attr) else { continue };
                let lower = value.to_ascii_lowercase();
                assert!(
                    !lower.starts_with("http:") && !lower.starts_with("https:") && !lower.starts_with("//"),
                    "{file}: <{} {attr}=\"{value}\"> points at another host",
                    tag.name
                );
                assert!(
                    lower.starts_with('/') || lower.starts_with('#') || lower.starts_with("mailto:"),
                    "{file}: {attr}={value}"
                );
            }
            // The Content-Security-Policy forbids inline style and script: none may be written.
            assert!(!tag.attrs.contains_key("style"), "{file}: inline style on <{}>", tag.name);
            assert!(!tag.attrs.keys().any(|k| k.starts_with("on")), "{file}: inline handler on <{}>", tag.name);
            // A JSON-LD data block (schema.org markup) is data, never executed: script-src does
            // not apply to it. Every script that runs is ours.
            let data_block = tag.attrs.get("type").is_some_and(|t| t == "application/ld+json");
            if tag.name == "script" && !data_block {
                assert!(
                    tag.attrs.get("src").is_some_and(|s| s == "/recursos/catalogo.js" || s == "/recursos/billetera.js"),
                    "{file}: a script that is not ours"
                );
            }
            if tag.name == "script" && data_block {
                assert!(!tag.attrs.contains_key("src"), "{file}: a JSON-LD block loads nothing");
            }
            if tag.name == "link" {
                // The stylesheet, or (a study page) its Croissant description: a link that
                // names an alternate format of the page loads nothing.
                let alternate = tag.attrs.get("rel").is_some_and(|r| r == "alternate")
                    && tag
                        .attrs
                        .get("href")
                        .is_some_and(|h| h.starts_with("/estudio/") && h.ends_with("/croissant.jsonld"));
                assert!(
                    alternate || tag.attrs.get("href").map(String::as_str) == Some("/recursos/estilo.css"),
                    "{file}: <link {:?}>",
                    tag.attrs
                );
            }
        }
        assert!(!html.contains("<style"), "{file}: inline <style>");
        assert!(!html.contains("@import") && !html.contains("url("), "{file}");
    }
    let css = read(dist, "public/recursos/estilo.css");
    assert!(
        !css.contains("url(") && !css.contains("@import") && !css.contains("@font-face"),
        "the stylesheet loads nothing"
    );
    let js = read(dist, "public/recursos/catalogo.js");
    assert!(
        !js.contains("http:") && !js.contains("https:") && !js.contains(".innerHTML"),
        "the script calls only this origin"
    );
    // The checkout names other hosts only as data: the explorers it links a transaction to
    // and the public RPCs a wallet is told about when it must add Base or Base Sepolia. It
    // fetches only this origin's paths (the CSP's connect-src 'self' holds it to that too).
    let checkout = read(dist, "public/recursos/billetera.js");
    let named: BTreeSet<&str> = checkout
        .match_indices("https://")
        .map(|(at, _)| checkout[at..].split(['"', '/', '`']).nth(2).unwrap_or(""))
        .collect();
    let allowed = BTreeSet::from(["basescan.org", "sepolia.basescan.org", "mainnet.base.org", "sepolia.base.org"]);
    assert_eq!(named, allowed, "hosts the checkout names");
    assert!(!checkout.contains("http:"), "no plain-HTTP host");
    for call in checkout.match_indices("fetch(").map(|(at, _)| &checkout[at..at + 20]) {
        assert!(call.starts_with("fetch(url") || call.starts_with("fetch(entry.url"), "the checkout fetches {call}");
    }
    for forbidden in
        [".innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setTimeout(\""]
    {
        assert!(!checkout.contains(forbidden), "the checkout uses {forbidden}");
    }
}

#[test]
fn the_home_page_lists_every_study_with_filters_and_a_search_box() {
    let dist = built();
    let html = read(dist, "public/index.html");
    let catalog = read_json(&dist.join("public/catalogo.json"));
    let tags = tags(&html);
    let cards: Vec<&Tag> =
        tags.iter().filter(|t| t.name == "li" && t.attrs.get("class").is_some_and(|c| c == "tarjeta")).collect();
    assert_eq!(cards.len(), 9);
    for (card, entry) in cards.iter().zip(catalog["estudios"].as_array().expect("estudios")) {
        assert_eq!(card.attrs["data-industria"], entry["industria"].as_str().expect("industria"));
        let countries: Vec<&str> = entry["pais"].as_array().expect("pais").iter().filter_map(Value::as_str).collect();
        assert_eq!(card.attrs["data-paises"], countries.join("|"));
        let slug = entry["slug"].as_str().expect("slug");
        assert!(
            tags.iter()
                .any(|t| t.name == "a" && t.attrs.get("href").is_some_and(|h| *h == format!("/estudios/{slug}"))),
            "{slug}"
        );
        assert!(decode(&html).contains(entry["nombre_en"].as_str().expect("nombre_en")), "English name of {slug}");
    }
    let form = tags.iter().find(|t| t.name == "form").expect("search form");
    assert_eq!(form.attrs["action"], "/buscar");
    assert_eq!(form.attrs["role"], "search");
    assert!(tags.iter().any(|t| t.name == "input" && t.attrs.get("name").is_some_and(|n| n == "q")));
    let options = |select: &str| -> Vec<String> {
        let start = html.find(&format!("id=\"{select}\"")).expect("select");
        let end = start + html[start..].find("</select>").expect("end");
        tags_in(&html[start..end])
            .into_iter()
            .filter(|t| t.name == "option")
            .map(|t| t.attrs["value"].clone())
            .filter(|v| !v.is_empty())
            .collect()
    };
    let mut industries: Vec<String> = catalog["estudios"]
        .as_array()
        .expect("e")
        .iter()
        .map(|e| e["industria"].as_str().expect("i").to_owned())
        .collect();
    industries.sort();
    industries.dedup();
    assert_eq!(options("filtro-industria"), industries);
    assert!(options("filtro-pais").contains(&"Chile".to_owned()));
}

fn tags_in(fragment: &str) -> Vec<Tag> {
    tags(fragment)
}

#[test]
fn study_pages_show_the_free_sheet_and_nothing_paid() {
    let dist = built();
    for slug in SLUGS {
        let html = read(dist, &format!("public/estudios/{slug}.html"));
        let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
        let package = read_json(&dist.join(format!("private/descargas/{slug}.json")));
        let text = decode(&html);
        assert_eq!(element_text(&html, "h1").map(decode), sheet["nombre"].as_str().map(str::to_owned), "{slug}");
        for field in ["nombre_en", "descripcion", "descripcion_en", "como_citar"] {
            assert!(text.contains(sheet[field].as_str().expect(field)), "{slug}: {field}");
        }
        for table in sheet["analisis_indice"].as_array().expect("tables") {
            assert!(text.contains(table["titulo"].as_str().expect("titulo")), "{slug}: {}", table["id"]);
            assert!(text.contains(table["titulo_en"].as_str().expect("titulo_en")), "{slug}: {}", table["id"]);
        }
        for file in ["json", "zip"] {
            assert!(text.contains(sheet["archivos"][file]["sha256"].as_str().expect("sha")), "{slug}: {file} hash");
            assert!(text.contains(&format!("value=\"{}\"", sheet["archivos"][file]["bytes"])), "{slug}: {file} size");
        }
        for question in sheet["ejemplos"]["preguntas"].as_array().expect("preguntas") {
            assert!(text.contains(question["texto"].as_str().expect("texto")), "{slug}: sample question");
        }
        let sample = &sheet["ejemplos"]["respuesta"];
        assert!(text.contains(sample["respuesta"].as_str().expect("sample")), "{slug}: sample answer");

        // Charts: one per dimension (a bar per value) and one of the models (a bar per model).
        let svgs = html.matches("<svg").count();
        let dimensions = sheet["universo"].as_array().expect("universo");
        assert_eq!(svgs, dimensions.len() + 1, "{slug}");
        let bars = html.matches("<rect").count();
        let values: usize = dimensions.iter().map(|d| d["valores"].as_array().expect("v").len()).sum();
        assert_eq!(bars, values + sheet["modelos"].as_array().expect("m").len(), "{slug}");
        for model in sheet["modelos"].as_array().expect("modelos") {
            let described = format!(
                "{} · {} · nivel {}: {} respuestas",
                model["nombre"].as_str().expect("n"),
                model["proveedor"].as_str().expect("p"),
                model["nivel"].as_str().expect("t"),
                model["respuestas"]
            );
            assert!(text.contains(&described), "{slug}: chart description of {}", model["modelo"]);
        }

        // Nothing paid: no finding text, no complete answer beyond the trimmed sample.
        for finding in package["hallazgos"].as_array().expect("hallazgos") {
            for field in ["texto", "texto_en"] {
                let claim = finding[field].as_str().expect("texto");
                assert!(!text.contains(claim), "{slug}: the page leaks finding {}", finding["id"]);
            }
        }
        let shown = package["respuestas"]
            .as_array()
            .expect("respuestas")
            .iter()
            .filter(|a| text.contains(a["respuesta"].as_str().expect("r")))
            .count();
        assert_eq!(shown, 0, "{slug}: the page shows a complete answer");
    }
}

#[test]
fn static_hosts_serve_the_home_page_as_index_html() {
    let dist = built();
    let redirects = read(dist, "public/_redirects");
    assert!(!redirects.lines().any(|l| l.starts_with("/ ")), "no rewrite of /: the host serves index.html");
    assert!(redirects.contains("/estudios/banca-2026 /estudios/banca-2026.html 200"));
    let headers = read(dist, "public/_headers");
    let mut blocks: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut current = "";
    for line in headers.lines().filter(|l| !l.starts_with('#')) {
        match line.strip_prefix("  ") {
            Some(rule) => blocks.entry(current).or_default().push(rule),
            None => current = line,
        }
    }
    let home = &blocks["/"];
    assert!(home.contains(&"Content-Type: text/html; charset=utf-8"), "{home:?}");
    assert!(home.iter().any(|r| r.starts_with("Content-Security-Policy: default-src 'none'")), "{home:?}");
    assert_eq!(blocks["/index.html"], *home);
    assert!(blocks["/index.json"].contains(&"Content-Type: application/json; charset=utf-8"));
    assert!(blocks["/estudios/banca-2026"].contains(&"Content-Type: text/html; charset=utf-8"));
    assert!(blocks["/recursos/estilo.css"].contains(&"Content-Type: text/css; charset=utf-8"));
    assert!(dist.join("public/index.html").is_file());
}

// ---------------------------------------------------------------------------------------
// The gate's content negotiation

/// A `PAYMENT-REQUIRED` value decoded, without the sign-in challenge every 402 issues anew.
fn without_challenge(encoded: Option<&str>) -> Value {
    let mut required: Value = gate::x402::header::decode_json(encoded.expect("PAYMENT-REQUIRED")).expect("decodes");
    let info = &mut required["extensions"]["sign-in-with-x"]["info"];
    assert!(info["nonce"].is_string(), "a challenge: {info}");
    for field in ["nonce", "issuedAt", "expirationTime"] {
        info[field] = Value::Null;
    }
    required
}

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response.headers().get(name).map(|v| v.to_str().expect("ascii header").to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gate_answers_slash_with_html_to_browsers_and_json_to_agents() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    let home = std::fs::read(dist.join("public/index.html")).expect("home");
    let index = std::fs::read(dist.join("public/index.json")).expect("index");

    for accept in [
        None,
        Some("application/json"),
        Some("*/*"),
        Some("application/json, text/html"),
        Some("text/html;q=0.5, application/json"),
    ] {
        let mut request = client.get(gate.url("/"));
        if let Some(a) = accept {
            request = request.header("Accept", a);
        }
        let response = request.send().await.expect("get");
        assert_eq!(response.status(), 200, "{accept:?}");
        assert_eq!(header(&response, "content-type").as_deref(), Some("application/json; charset=utf-8"), "{accept:?}");
        assert_eq!(header(&response, "vary").as_deref(), Some("Accept"));
        assert_eq!(response.bytes().await.expect("body").as_ref(), index.as_slice(), "{accept:?}");
    }
    for accept in [BROWSER_ACCEPT, "text/html", "text/*, application/json;q=0.9"] {
        let response = client.get(gate.url("/")).header("Accept", accept).send().await.expect("get");
        assert_eq!(response.status(), 200);
        assert_eq!(header(&response, "content-type").as_deref(), Some("text/html; charset=utf-8"), "{accept}");
        assert_eq!(header(&response, "vary").as_deref(), Some("Accept"));
        assert!(header(&response, "content-security-policy").is_some_and(|c| c.starts_with("default-src 'none'")));
        let etag = header(&response, "etag").expect("etag");
        assert_eq!(response.bytes().await.expect("body").as_ref(), home.as_slice());

        let cached = client
            .get(gate.url("/"))
            .header("Accept", accept)
            .header("If-None-Match", &etag)
            .send()
            .await
            .expect("304");
        assert_eq!(cached.status(), 304);
        let head = client.head(gate.url("/")).header("Accept", accept).send().await.expect("head");
        assert_eq!(header(&head, "content-length"), Some(home.len().to_string()));
    }
    // The JSON index's ETag does not validate the page, nor the reverse.
    let json_etag = header(&client.get(gate.url("/")).send().await.expect("get"), "etag").expect("etag");
    let page = client
        .get(gate.url("/"))
        .header("Accept", BROWSER_ACCEPT)
        .header("If-None-Match", json_etag)
        .send()
        .await
        .expect("get");
    assert_eq!(page.status(), 200);

    // Other routes do not negotiate.
    let catalog = client.get(gate.url("/catalogo")).header("Accept", BROWSER_ACCEPT).send().await.expect("get");
    assert_eq!(header(&catalog, "content-type").as_deref(), Some("application/json; charset=utf-8"));
    assert_eq!(header(&catalog, "vary"), None);
    let study = client.get(gate.url("/estudios/banca-2026")).send().await.expect("get");
    assert_eq!(header(&study, "content-type").as_deref(), Some("text/html; charset=utf-8"));
    assert!(header(&study, "content-security-policy").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unpaid_browser_gets_an_html_402_with_the_same_payment_header() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    for slug in SLUGS {
        let page = std::fs::read(dist.join(format!("private/paginas/pago-{slug}.html"))).expect("page");
        for view in ["", "?vista=completo", "?vista=resumen"] {
            let url = gate.url(&format!("/estudio/{slug}{view}"));
            let agent = client.get(&url).send().await.expect("agent");
            assert_eq!(agent.status(), 402);
            assert_eq!(header(&agent, "content-type").as_deref(), Some("application/json; charset=utf-8"));
            assert_eq!(header(&agent, "vary").as_deref(), Some("Accept, Accept-Payment"));
            let required = header(&agent, "payment-required").expect("PAYMENT-REQUIRED");
            let body: Value = serde_json::from_slice(&agent.bytes().await.expect("body")).expect("json");
            assert_eq!(body["error"], "pago_requerido");

            let browser = client.get(&url).header("Accept", BROWSER_ACCEPT).send().await.expect("browser");
            assert_eq!(browser.status(), 402, "{slug}{view}");
            assert_eq!(header(&browser, "content-type").as_deref(), Some("text/html; charset=utf-8"));
            assert_eq!(header(&browser, "vary").as_deref(), Some("Accept, Accept-Payment"));
            assert_eq!(header(&browser, "cache-control").as_deref(), Some("no-store"));
            assert_eq!(
                without_challenge(header(&browser, "payment-required").as_deref()),
                without_challenge(Some(required.as_str())),
                "{slug}{view}: same requirements"
            );
            assert!(header(&browser, "content-security-policy").is_some());
            assert_eq!(browser.bytes().await.expect("body").as_ref(), page.as_slice());
        }
    }
    // The page says what is sold, for how much, where and how to pay.
    let text = decode(
        &String::from_utf8(std::fs::read(dist.join("private/paginas/pago-banca-2026.html")).expect("page"))
            .expect("utf-8"),
    );
    let sheet = read_json(&dist.join("public/estudio/banca-2026/ficha.json"));
    let offer = &sheet["como_comprar"];
    for needle in [
        sheet["nombre"].as_str().expect("nombre"),
        "0,99 USD",
        offer["redes"][0]["caip2"].as_str().expect("caip2"),
        offer["redes"][0]["pagar_a"].as_str().expect("payTo"),
        "PAYMENT-REQUIRED",
        "@x402/fetch",
        "x402HttpxClient",
        "comprar_estudio",
        "/mcp",
    ] {
        assert!(text.contains(needle), "the 402 page lacks {needle}");
    }

    // A payment attempt, even from a browser, is answered in JSON; so are unknown studies.
    let bad = client
        .get(gate.url("/estudio/banca-2026"))
        .header("Accept", BROWSER_ACCEPT)
        .header("PAYMENT-SIGNATURE", "no-es-base64")
        .send()
        .await
        .expect("bad");
    assert_eq!(bad.status(), 400);
    assert_eq!(header(&bad, "content-type").as_deref(), Some("application/json; charset=utf-8"));
    let unknown =
        client.get(gate.url("/estudio/no-existe")).header("Accept", BROWSER_ACCEPT).send().await.expect("unknown");
    assert_eq!(unknown.status(), 404);
    assert_eq!(header(&unknown, "content-type").as_deref(), Some("application/json; charset=utf-8"));
}

#[test]
fn the_tag_reader_decodes_attributes() {
    let t = tags("<!doctype html><a href=\"&#x2f;estudios&#x2f;x\" class=x>y</a><!-- <b> --><svg role='img'>");
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].attrs["href"], "/estudios/x");
    assert_eq!(t[0].attrs["class"], "x");
    assert_eq!(t[1].attrs["role"], "img");
}
