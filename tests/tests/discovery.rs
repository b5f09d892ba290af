//! The discovery documents that crawlers, registries and dataset search engines read, on the
//! real build: `openapi.json`'s payment and auth declarations and its guidance for agents, the
//! MCP registry's `server.json` (validated against the registry's own schema, served by the
//! gate), and the schema.org JSON-LD of the pages (read with an HTML parser and checked against
//! the schema.org vocabulary: every term exists, applies to its type and holds a value of a type
//! its range allows; Google Dataset Search's required and recommended properties are there).
//!
//! Python does the two jobs a real implementation should do: `jsonschema` validates server.json
//! (`tests/tools/validate_json_schema.py`) and the standard library's HTML parser extracts the
//! JSON-LD (`tests/tools/json_ld_blocks.py`). The reference files are in `tests/vendor/`.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::gate::{client, start_local};
use common::{SLUGS, built, read_json, sample_dir, sha256_hex};
use serde_json::{Value, json};

/// The registry's schema of server.json, byte for byte (see `tests/vendor/README.md`).
const SERVER_SCHEMA_SHA256: &str = "d4c163f299ece68b7432f4e44c4108f2fdb663d99dc088c8344142e5b0a4b520";

fn vendor(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vendor").join(file)
}

fn tool(script: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tools").join(script)
}

/// Runs a script of `tests/tools/` and returns its standard output as JSON.
fn python(script: &str, args: &[&Path]) -> Value {
    let output = Command::new("python3").arg(tool(script)).args(args).output().expect("python3 runs");
    assert!(
        output.status.success(),
        "{script} failed (install tests/tools/requirements.txt, see README):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{script}: output is not JSON: {e}"))
}

/// The content's `servicio.toml`.
fn service_settings() -> toml::Table {
    let text = std::fs::read_to_string(sample_dir().join("servicio.toml")).expect("servicio.toml");
    toml::from_str(&text).expect("servicio.toml parses")
}

fn base_url(dist: &Path) -> String {
    read_json(&dist.join("gate.json"))["servicio"]["base_url"].as_str().expect("base_url").to_owned()
}

fn str_of<'a>(value: &'a Value, at: &str) -> &'a str {
    value.as_str().unwrap_or_else(|| panic!("{at}: expected a string, got {value}"))
}

// ---------------------------------------------------------------------------------------
// openapi.json

#[test]
fn openapi_declares_the_paid_operation_and_the_free_ones_as_crawlers_read_them() {
    let dist = built();
    let spec = read_json(&dist.join("public/openapi.json"));
    let catalog = read_json(&dist.join("public/catalogo.json"));
    let base = base_url(dist);
    let prices: BTreeSet<String> = catalog["estudios"]
        .as_array()
        .expect("estudios")
        .iter()
        .map(|e| e["precio_usd"].as_f64().expect("precio_usd").to_string())
        .collect();
    assert_eq!(prices.len(), 1, "the sample studies share one price: {prices:?}");
    let price = prices.first().expect("price").clone();

    let mut paid = Vec::new();
    let mut free = 0;
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            let at = format!("openapi.json paths.{path}.{method}");
            if let Some(info) = operation.get("x-payment-info") {
                // x402scan's shape and the MPP discovery draft's offers, side by side: one
                // `evm` `charge` offer per MPP challenge of the 402, same amount and token.
                let accepted = common::gate::accepted_of(dist, common::SLUGS[0], "completo");
                let offers = json!([{
                    "intent": "charge",
                    "method": "evm",
                    "amount": accepted["amount"],
                    "currency": accepted["asset"],
                    "description": "USDC en Base Sepolia (eip155:84532), EIP-3009",
                }]);
                assert_eq!(
                    info,
                    &json!({"price": {"mode": "fixed", "currency": "USD", "amount": price},
                            "protocols": [{"x402": {}}, {"mpp": {}}], "offers": offers}),
                    "{at}.x-payment-info"
                );
                let amount = str_of(&info["price"]["amount"], &at);
                assert!(amount.parse::<f64>().is_ok_and(|a| a > 0.0), "{at}: amount {amount}");
                assert!(operation.get("security").is_none(), "{at}: a paid operation is not declared free");
                let responses = &operation["responses"];
                for status in ["200", "402"] {
                    assert!(responses[status]["content"]["application/json"]["schema"].is_object(), "{at}: {status}");
                }
                assert!(
                    operation["parameters"].as_array().is_some_and(|p| p.iter().all(|p| p["schema"].is_object())),
                    "{at}: input schema"
                );
                paid.push(path.clone());
            } else {
                assert_eq!(operation.get("security"), Some(&json!([])), "{at}: free operations declare security: []");
                free += 1;
            }
        }
    }
    assert_eq!(paid, ["/estudio/{slug}"]);
    assert!(free >= 9, "{free} free operations");

    let guidance = str_of(&spec["info"]["x-guidance"], "openapi.json info.x-guidance");
    for needle in [
        "402",
        "PAYMENT-REQUIRED",
        "PAYMENT-SIGNATURE",
        "200",
        "PAYMENT-RESPONSE",
        "/estudio/{slug}",
        "/catalogo",
        "comprar_estudio",
        "params._meta[\"x402/payment\"]",
        "WWW-Authenticate: Payment",
        "Authorization: Payment",
        "How to buy",
    ] {
        assert!(guidance.contains(needle), "info.x-guidance lacks {needle:?}:\n{guidance}");
    }
    assert!(guidance.contains(&format!("{base}/mcp")), "the MCP alternative at {base}/mcp");
    assert!(guidance.contains(&price), "the price {price}");
    assert!(guidance.lines().count() <= 12, "a few lines, not a manual:\n{guidance}");
    assert_eq!(spec["x-discovery"]["llmsTxtUrl"], format!("{base}/llms.txt"));
    // That openapi.json still validates as OpenAPI 3.1 is `build.rs`'s `openapi_passes_a_real_validator`.
}

// ---------------------------------------------------------------------------------------
// server.json

/// Validates `document` with the registry's schema; the errors as (JSON pointer, message).
fn registry_errors(document: &Value) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().expect("temp");
    let file = dir.path().join("server.json");
    std::fs::write(&file, serde_json::to_vec(document).expect("json")).expect("write");
    let schema = vendor("mcp-registry-server.schema-2025-12-11.json");
    let errors = python("validate_json_schema.py", &[schema.as_path(), file.as_path()]);
    errors
        .as_array()
        .expect("error list")
        .iter()
        .map(|e| (str_of(&e["path"], "path").to_owned(), str_of(&e["message"], "message").to_owned()))
        .collect()
}

#[test]
fn server_json_is_valid_for_the_mcp_registry() {
    let dist = built();
    let schema_bytes = std::fs::read(vendor("mcp-registry-server.schema-2025-12-11.json")).expect("schema");
    assert_eq!(sha256_hex(&schema_bytes), SERVER_SCHEMA_SHA256, "the vendored schema changed");
    let schema: Value = serde_json::from_slice(&schema_bytes).expect("schema is JSON");
    let server = read_json(&dist.join("public/server.json"));
    let base = base_url(dist);

    assert_eq!(registry_errors(&server), Vec::<(String, String)>::new(), "public/server.json");
    assert_eq!(server["$schema"], schema["$id"], "server.json names the schema it follows");
    let web = service_settings()["web"].as_str().expect("web").to_owned();
    let host = url::Url::parse(&web).expect("web").host_str().expect("host").to_owned();
    let namespace: Vec<&str> = host.split('.').rev().collect();
    assert_eq!(server["name"], format!("{}/estudios", namespace.join(".")), "reverse-DNS of the publisher's web");
    let description = str_of(&server["description"], "server.json description");
    assert!((1..=100).contains(&description.chars().count()), "description of {} characters", description.len());
    let version = str_of(&server["version"], "server.json version");
    assert!(version.split('.').all(|n| n.parse::<u32>().is_ok()), "one specific version, not a range: {version}");
    assert_eq!(server["remotes"], json!([{"type": "streamable-http", "url": format!("{base}/mcp")}]));
    let meta = &server["_meta"]["io.modelcontextprotocol.registry/publisher-provided"];
    assert_eq!(meta["mcp_solo_catalogo"], format!("{base}/mcp/catalogo"));
    assert_eq!(meta["herramienta_pago"], "comprar_estudio");

    // Served from a manifest route, listed where agents look.
    let gate = read_json(&dist.join("gate.json"));
    let route = &gate["rutas"]["/server.json"];
    assert_eq!(route["archivo"], "public/server.json");
    assert_eq!(route["tipo"], "application/json; charset=utf-8");
    let llms = std::fs::read_to_string(dist.join("public/llms.txt")).expect("llms.txt");
    assert!(llms.contains(&format!("{base}/server.json")), "llms.txt lists server.json");
    assert_eq!(
        read_json(&dist.join("public/index.json"))["endpoints"]["mcp_server_json"],
        format!("{base}/server.json")
    );

    // The validator does reject what the registry would: it is not a check that cannot fail.
    let mut broken = server.clone();
    broken["name"] = json!("estudios sin espacio de nombres");
    broken["description"] = json!("x".repeat(101));
    broken["remotes"][0]["url"] = json!("mcp");
    let errors = registry_errors(&broken);
    let paths: BTreeSet<&str> = errors.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, BTreeSet::from(["/description", "/name", "/remotes/0"]), "{errors:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gate_serves_server_json_at_its_stable_path() {
    let dist = built();
    let gate = start_local(dist);
    let bytes = std::fs::read(dist.join("public/server.json")).expect("server.json");
    let response = client().get(gate.url("/server.json")).send().await.expect("get");
    assert_eq!(response.status(), 200);
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
    assert_eq!(content_type.as_deref(), Some("application/json; charset=utf-8"));
    assert!(response.headers().get("etag").is_some());
    assert_eq!(response.bytes().await.expect("body").as_ref(), bytes.as_slice());
    let head = client().head(gate.url("/server.json")).send().await.expect("head");
    assert_eq!(head.status(), 200);
}

// ---------------------------------------------------------------------------------------
// schema.org JSON-LD: the vocabulary

/// The vendored extract of schema.org 30.0 (`tests/vendor/README.md`).
struct Vocabulary {
    /// Types and data types, each with its direct superclasses.
    classes: BTreeMap<String, Vec<String>>,
    data_types: BTreeSet<String>,
    /// Property → (domainIncludes, rangeIncludes).
    properties: BTreeMap<String, (Vec<String>, Vec<String>)>,
}

fn names(value: &Value) -> Vec<String> {
    value.as_array().expect("list").iter().map(|v| v.as_str().expect("name").to_owned()).collect()
}

impl Vocabulary {
    fn load() -> Vocabulary {
        let extract = read_json(&vendor("schemaorg-30.0-extract.json"));
        let mut classes = BTreeMap::new();
        let mut data_types = BTreeSet::new();
        for (section, is_data_type) in [("types", false), ("dataTypes", true)] {
            for (name, entry) in extract[section].as_object().expect(section) {
                classes.insert(name.clone(), names(&entry["subClassOf"]));
                if is_data_type {
                    data_types.insert(name.clone());
                }
            }
        }
        let properties = extract["properties"]
            .as_object()
            .expect("properties")
            .iter()
            .map(|(name, p)| (name.clone(), (names(&p["domainIncludes"]), names(&p["rangeIncludes"]))))
            .collect();
        Vocabulary { classes, data_types, properties }
    }

    /// A class and all its superclasses; empty for a name the vocabulary does not have.
    fn lineage(&self, class: &str) -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        let mut stack = vec![class.to_owned()];
        while let Some(c) = stack.pop() {
            if let Some(parents) = self.classes.get(&c) {
                stack.extend(parents.iter().cloned());
                found.insert(c);
            }
        }
        found
    }

    /// Every problem of a node (an object with `@type`) and the nodes inside it, each named by
    /// its path from `at`.
    fn check(&self, at: &str, node: &Value, problems: &mut Vec<String>) {
        let Some(object) = node.as_object() else {
            problems.push(format!("{at}: expected an object, got {node}"));
            return;
        };
        let Some(class) = object.get("@type").and_then(Value::as_str) else {
            problems.push(format!("{at}: no @type"));
            return;
        };
        let lineage = self.lineage(class);
        if lineage.is_empty() || self.data_types.contains(class) {
            problems.push(format!("{at}: @type {class} is not a schema.org type of the extract"));
            return;
        }
        for (key, value) in object {
            let here = format!("{at}.{key}");
            match key.as_str() {
                "@type" => continue,
                "@context" => {
                    if value != "https://schema.org" {
                        problems.push(format!("{here}: expected \"https://schema.org\", got {value}"));
                    }
                    continue;
                }
                "@id" => {
                    if !value.as_str().is_some_and(is_absolute_url) {
                        problems.push(format!("{here}: expected an absolute URL, got {value}"));
                    }
                    continue;
                }
                _ => {}
            }
            let Some((domain, range)) = self.properties.get(key) else {
                problems.push(format!("{here}: not a schema.org property (schema.org 30.0 extract)"));
                continue;
            };
            if !domain.iter().any(|d| lineage.contains(d)) {
                problems.push(format!("{here}: applies to {domain:?}, not to {class}"));
            }
            let values = match value {
                Value::Array(items) if items.is_empty() => {
                    problems.push(format!("{here}: empty list"));
                    continue;
                }
                Value::Array(items) => items.iter().collect(),
                single => vec![single],
            };
            for (i, v) in values.iter().enumerate() {
                let here = if value.is_array() { format!("{here}[{i}]") } else { here.clone() };
                self.check_value(&here, v, range, problems);
            }
        }
    }

    /// Whether `value` is of one of the types of `range`; nodes are checked in turn.
    fn check_value(&self, at: &str, value: &Value, range: &[String], problems: &mut Vec<String>) {
        let allows = |t: &str| range.iter().any(|r| r == t);
        let ok = match value {
            Value::Object(object) => {
                let class = object.get("@type").and_then(Value::as_str).unwrap_or_default();
                let fits = self.lineage(class).iter().any(|c| allows(c));
                if fits {
                    self.check(at, value, problems);
                }
                fits
            }
            Value::String(text) => {
                allows("Text")
                    || (allows("URL") && is_absolute_url(text))
                    || (allows("Date") && is_date(text))
                    || (allows("DateTime") && is_date_time(text))
                    || (allows("Number") && text.parse::<f64>().is_ok())
            }
            Value::Bool(_) => allows("Boolean"),
            Value::Number(_) => allows("Number"),
            Value::Null | Value::Array(_) => false,
        };
        if !ok {
            problems.push(format!("{at}: {value} is none of {range:?}"));
        }
    }

    fn problems_of(&self, at: &str, node: &Value) -> Vec<String> {
        let mut problems = Vec::new();
        self.check(at, node, &mut problems);
        problems
    }
}

fn is_absolute_url(text: &str) -> bool {
    url::Url::parse(text).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
}

fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn is_date_time(text: &str) -> bool {
    text.len() > 11 && is_date(&text[..10]) && text.as_bytes()[10] == b'T'
}

#[test]
fn the_vocabulary_check_refuses_what_schema_org_does_not_define() {
    let vocabulary = Vocabulary::load();
    let good = json!({
        "@context": "https://schema.org", "@type": "Dataset", "@id": "https://example.com/d#dataset",
        "name": "n", "description": "d", "isAccessibleForFree": false, "datePublished": "2026-03-10",
        "spatialCoverage": [{"@type": "Place", "name": "Argentina"}],
        "distribution": [{"@type": "DataDownload", "encodingFormat": "application/zip", "contentUrl": "https://example.com/x"}],
    });
    assert_eq!(vocabulary.problems_of("d", &good), Vec::<String>::new());
    for (change, expected) in [
        (json!({"precio": "0.99"}), "d.precio: not a schema.org property"),
        (json!({"isAccessibleForFree": "no"}), "d.isAccessibleForFree: \"no\" is none of [\"Boolean\"]"),
        (json!({"url": "/estudios/x"}), "d.url: \"/estudios/x\" is none of [\"URL\"]"),
        (json!({"datePublished": "10/03/2026"}), "d.datePublished: \"10/03/2026\" is none of"),
        (json!({"spatialCoverage": {"@type": "Organization", "name": "x"}}), "d.spatialCoverage: {"),
        (json!({"distribution": [{"@type": "DataDownload", "price": "1"}]}), "d.distribution[0].price: applies to"),
        (json!({"@type": "Datasett"}), "d: @type Datasett is not a schema.org type"),
        (json!({"variableMeasured": []}), "d.variableMeasured: empty list"),
    ] {
        let mut bad = good.clone();
        for (k, v) in change.as_object().expect("change") {
            bad[k] = v.clone();
        }
        let problems = vocabulary.problems_of("d", &bad);
        assert!(problems.iter().any(|p| p.starts_with(expected)), "{change}: {problems:?}");
    }
}

// ---------------------------------------------------------------------------------------
// schema.org JSON-LD: the pages

/// The JSON-LD blocks of each page, parsed, by file relative to `dist/`.
fn json_ld(dist: &Path, files: &[String]) -> BTreeMap<String, Vec<Value>> {
    let paths: Vec<PathBuf> = files.iter().map(|f| dist.join(f)).collect();
    let args: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let found = python("json_ld_blocks.py", &args);
    files
        .iter()
        .zip(&paths)
        .map(|(file, path)| {
            let blocks = found[path.to_str().expect("utf-8 path")].as_array().expect("blocks");
            let parsed = blocks
                .iter()
                .map(|b| {
                    serde_json::from_str(str_of(b, file)).unwrap_or_else(|e| panic!("{file}: JSON-LD is not JSON: {e}"))
                })
                .collect();
            (file.clone(), parsed)
        })
        .collect()
}

/// Google Dataset Search's required properties of a `Dataset`
/// (developers.google.com/search/docs/appearance/structured-data/dataset).
const REQUIRED: [&str; 2] = ["name", "description"];

/// Its recommended properties that this service has something true to say about. Left out:
/// `citation` (a publication the dataset comes from), `funder`, `hasPart`, `isBasedOn`, `sameAs`
/// and `identifier` (no DOI), `measurementTechnique` (methodology is prose in the sheet);
/// `license` is added when `servicio.toml` declares one.
const RECOMMENDED: [&str; 12] = [
    "alternateName",
    "creator",
    "distribution",
    "includedInDataCatalog",
    "isAccessibleForFree",
    "keywords",
    "offers",
    "spatialCoverage",
    "temporalCoverage",
    "url",
    "variableMeasured",
    "version",
];

#[test]
fn study_pages_carry_a_dataset_json_ld_valid_for_schema_org() {
    let dist = built();
    let vocabulary = Vocabulary::load();
    let index = read_json(&dist.join("public/index.json"));
    let metrics = read_json(&dist.join("public/metricas.json"));
    let metric_names: BTreeMap<&str, &str> = metrics["metricas"]
        .as_array()
        .expect("metricas")
        .iter()
        .map(|m| (m["id"].as_str().expect("id"), m["nombre"].as_str().expect("nombre")))
        .collect();
    let license = service_settings().get("licencia").and_then(|l| l.as_str().map(str::to_owned));
    let files: Vec<String> = SLUGS.iter().map(|s| format!("public/estudios/{s}.html")).collect();
    let pages = json_ld(dist, &files);
    let home_blocks = json_ld(dist, &["public/index.html".to_owned()]);
    let home = &home_blocks["public/index.html"][0];

    for (slug, file) in SLUGS.iter().zip(&files) {
        let blocks = &pages[file];
        assert_eq!(blocks.len(), 1, "{file}: one JSON-LD block");
        let dataset = &blocks[0];
        let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
        assert_eq!(dataset["@type"], "Dataset", "{file}");
        assert_eq!(vocabulary.problems_of(file, dataset), Vec::<String>::new(), "{file}");

        for property in REQUIRED.iter().chain(&RECOMMENDED) {
            assert!(dataset.get(*property).is_some(), "{file}: lacks {property}");
        }
        let description = str_of(&dataset["description"], file);
        assert!((50..=5000).contains(&description.chars().count()), "{file}: description of 50 to 5000 characters");
        assert_eq!(dataset.get("license").and_then(Value::as_str).map(str::to_owned), license, "{file}: license");

        // What it says is what the free sheet says.
        assert_eq!(dataset["name"], sheet["nombre"], "{file}");
        assert_eq!(dataset["description"], sheet["descripcion"], "{file}");
        assert_eq!(dataset["url"], format!("{}/estudios/{slug}", base_url(dist)), "{file}");
        assert_eq!(dataset["keywords"], sheet["tags"], "{file}");
        assert_eq!(dataset["version"], sheet["version_paquete"], "{file}");
        let run = &sheet["fecha_corrida"];
        let (from, to) = (str_of(&run["desde"], file), str_of(&run["hasta"], file));
        assert_eq!(dataset["temporalCoverage"], format!("{from}/{to}"), "{file}: fieldwork as an ISO 8601 interval");
        let places: Vec<&Value> =
            dataset["spatialCoverage"].as_array().expect("places").iter().map(|p| &p["name"]).collect();
        let countries: Vec<&Value> = sheet["pais"].as_array().expect("pais").iter().collect();
        assert_eq!(places, countries, "{file}: spatialCoverage");
        let measured: Vec<(&str, &str)> = dataset["variableMeasured"]
            .as_array()
            .expect("variableMeasured")
            .iter()
            .map(|v| (str_of(&v["propertyID"], file), str_of(&v["name"], file)))
            .collect();
        let used: Vec<(&str, &str)> = sheet["metricas_usadas"]
            .as_array()
            .expect("metricas_usadas")
            .iter()
            .map(|id| (str_of(id, file), metric_names[str_of(id, file)]))
            .collect();
        assert_eq!(measured, used, "{file}: variableMeasured are the metrics the study uses");
        assert_eq!(dataset["creator"]["@type"], "Organization");
        assert_eq!(dataset["creator"]["name"], index["editor"], "{file}: the publisher");

        // A paid dataset: its two downloads, bought at the purchase URL, and its price.
        assert_eq!(dataset["isAccessibleForFree"], false, "{file}");
        let buy = str_of(&sheet["urls"]["comprar"], file);
        let downloads = dataset["distribution"].as_array().expect("distribution");
        let formats: Vec<&str> = downloads.iter().map(|d| str_of(&d["encodingFormat"], file)).collect();
        assert_eq!(formats, ["application/json", "application/zip"], "{file}");
        for (download, kind) in downloads.iter().zip(["json", "zip"]) {
            let info = &sheet["archivos"][kind];
            assert_eq!(download["name"], info["nombre"], "{file}: {kind}");
            assert_eq!(download["contentUrl"], buy, "{file}: {kind} is bought at the purchase URL");
            assert_eq!(download["contentSize"], format!("{} B", info["bytes"]), "{file}: {kind}");
            assert!(str_of(&download["description"], file).contains(str_of(&info["sha256"], file)), "{file}: {kind}");
        }
        let offer = &dataset["offers"];
        assert_eq!(offer["@type"], "Offer");
        assert_eq!(offer["priceCurrency"], "USD", "{file}: USDC settles as USD");
        let price: f64 = str_of(&offer["price"], file).parse().expect("price");
        assert_eq!(Some(price), sheet["precio_usd"].as_f64(), "{file}: price");
        assert_eq!(offer["url"], buy, "{file}");
        assert_eq!(dataset["includedInDataCatalog"]["@id"], home["@id"], "{file}: in the home page's catalog");

        // Nothing paid: no finding text in the markup.
        let text = dataset.to_string();
        let package = read_json(&dist.join(format!("private/descargas/{slug}.json")));
        for finding in package["hallazgos"].as_array().expect("hallazgos") {
            let claim = str_of(&finding["texto"], "texto");
            assert!(!text.contains(claim), "{file}: the JSON-LD leaks finding {}", finding["id"]);
        }
    }
}

#[test]
fn the_home_page_carries_the_data_catalog_of_every_study() {
    let dist = built();
    let vocabulary = Vocabulary::load();
    let file = "public/index.html".to_owned();
    let found = json_ld(dist, std::slice::from_ref(&file));
    let blocks = &found[&file];
    assert_eq!(blocks.len(), 1, "one JSON-LD block");
    let catalog = &blocks[0];
    assert_eq!(catalog["@type"], "DataCatalog");
    assert_eq!(vocabulary.problems_of(&file, catalog), Vec::<String>::new());
    let index = read_json(&dist.join("public/index.json"));
    assert_eq!(catalog["name"], index["servicio"]);
    assert_eq!(catalog["url"], format!("{}/", base_url(dist)));

    let pages = json_ld(dist, &SLUGS.iter().map(|s| format!("public/estudios/{s}.html")).collect::<Vec<_>>());
    let listed: Vec<&Value> = catalog["dataset"].as_array().expect("dataset").iter().map(|d| &d["@id"]).collect();
    let on_pages: Vec<&Value> = read_json(&dist.join("public/catalogo.json"))["estudios"]
        .as_array()
        .expect("estudios")
        .iter()
        .map(|e| &pages[&format!("public/estudios/{}.html", str_of(&e["slug"], "slug"))][0]["@id"])
        .collect();
    assert_eq!(listed.len(), SLUGS.len());
    assert_eq!(listed, on_pages, "the catalog lists each study page's Dataset, in the catalog's order");
    for entry in catalog["dataset"].as_array().expect("dataset") {
        for property in REQUIRED {
            assert!(entry[property].as_str().is_some_and(|v| !v.is_empty()), "{}: {property}", entry["@id"]);
        }
        assert_eq!(entry["isAccessibleForFree"], false);
    }
}

#[test]
fn a_declared_license_is_validated_and_published() {
    let root = sample_dir();
    let loaded = generator::load::load(&root);
    let metrics = loaded.metrics.clone().expect("metricas.toml");
    let mut service = loaded.service.clone().expect("servicio.toml");

    service.license = Some("licencia propia".to_owned());
    let problems = generator::validate::validate_service(&root, &service, &metrics).to_string();
    assert!(problems.contains("servicio.toml") && problems.contains("campo `licencia`"), "{problems}");

    let license = "https://observatorio-ia.example.com/licencia";
    service.license = Some(license.to_owned());
    assert!(generator::validate::validate_service(&root, &service, &metrics).is_empty());
    let content = generator::model::Content { service, metrics, change_method: None, studies: loaded.studies };
    let site = generator::render::site::Site::new(&content);
    let study = &content.studies[0];
    let sheet = generator::render::json::sheet(&site, study, &[], None);
    let dataset = generator::render::jsonld::dataset(&site, &sheet, site.price_of(study));
    assert_eq!(dataset["license"], license);
    assert_eq!(Vocabulary::load().problems_of("dataset", &dataset), Vec::<String>::new());
}
