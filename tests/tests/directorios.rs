//! The entries the store gives directories, each checked against the schema or spec text
//! pinned in `tests/vendor/` (source, commit and license in its README):
//!
//! - MPP's service directory (`tempoxyz/mpp` at 2f8740e): the `ServiceDef` the generator writes
//!   (`/directorios/mpp.json`) type-checked by TypeScript against the directory's own type
//!   definitions and run through the directory's own build (`scripts/generate-discovery.ts`,
//!   `tests/directorios/validar-mpp.mjs`), whose output is validated against its
//!   `discovery.schema.json` with Python `jsonschema`; plus the rules of its
//!   `schemas/services.test.ts` that no type expresses;
//! - x402 Bazaar (`specs/extensions/bazaar.md` at 5dc34292, `tests/vendor/x402/bazaar-extract.md`):
//!   every field of every `bazaar` declaration and of every `resource` in `gate.json`, read
//!   against the tables, rules and schema of the pinned text.
//!
//! Needs `(cd tests/directorios && npm ci)` and the Python tools (`./tienda probar` installs both).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::gate::{client, start_local};
use common::{built, read_json, sample_dir, sha256_hex};
use serde_json::{Value, json};

/// The pinned files, byte for byte (see `tests/vendor/README.md`).
const PINNED: [(&str, &str); 4] = [
    ("mpp/services-types.ts", "26007dc479e4bb98aa31ca364beba8cdf49bfd551acab5ddb207d56d0bd9dfad"),
    ("mpp/generate-discovery.ts", "7f8630302cb41e24483238505c3574f45064c522a73f937d23d32f757af75dd8"),
    ("mpp/discovery.schema.json", "27a23ad5963a7afa36e9400dd798aba9b382558f636ca35e6e2f09d61eac375f"),
    ("x402/bazaar-extract.md", "c07aa73c8bbb225a375867107162b8727043c9c649c458e860414c049c3df233"),
];

fn vendor(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vendor").join(file)
}

fn tool(script: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tools").join(script)
}

/// Validates `document` against a JSON Schema with Python `jsonschema`: (pointer, message)s.
fn schema_errors(schema: &Path, document: &Value) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().expect("temp");
    let file = dir.path().join("document.json");
    std::fs::write(&file, serde_json::to_vec(document).expect("json")).expect("write");
    let output =
        Command::new("python3").arg(tool("validate_json_schema.py")).arg(schema).arg(&file).output().expect("python3");
    assert!(output.status.success(), "validate_json_schema.py: {}", String::from_utf8_lossy(&output.stderr));
    let errors: Value = serde_json::from_slice(&output.stdout).expect("json");
    errors
        .as_array()
        .expect("list")
        .iter()
        .map(|e| {
            (e["path"].as_str().unwrap_or_default().to_owned(), e["message"].as_str().unwrap_or_default().to_owned())
        })
        .collect()
}

/// [`schema_errors`] for a schema given as a value.
fn errors_against(schema: &Value, document: &Value) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().expect("temp");
    let file = dir.path().join("schema.json");
    std::fs::write(&file, serde_json::to_vec(schema).expect("json")).expect("write");
    schema_errors(&file, document)
}

#[test]
fn the_pinned_files_are_the_ones_checked_against() {
    for (file, sha256) in PINNED {
        let bytes = std::fs::read(vendor(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        if !sha256.is_empty() {
            assert_eq!(
                sha256_hex(&bytes),
                sha256,
                "tests/vendor/{file} changed: update it from its source and its pin"
            );
        }
    }
    let readme = std::fs::read_to_string(vendor("README.md")).expect("README");
    for needle in [
        "2f8740e55097a7aafd2ca54108b8fcd8147ebf3c",
        "5dc34292c9381881c2f57e4d87ae14b59acc9cef",
        "mpp/discovery.schema.json",
        "x402/bazaar-extract.md",
    ] {
        assert!(readme.contains(needle), "tests/vendor/README.md names {needle}");
    }
}

// ---------------------------------------------------------------------------------------
// MPP's service directory

/// The sample content as a publisher going live would set it: testnet, https URLs, an icon.
fn listable_content() -> generator::model::Content {
    let root = sample_dir();
    let loaded = generator::load::load(&root);
    let mut service = loaded.service.clone().expect("servicio.toml");
    service.mode = generator::model::Mode::Testnet;
    service.base_url = "https://estudios.observatorio-ia.example.com".to_owned();
    service.icon_url = Some("https://observatorio-ia.example.com/icono.png".to_owned());
    let metrics = loaded.metrics.clone().expect("metricas.toml");
    assert!(generator::validate::validate_service(&root, &service, &metrics).is_empty());
    generator::model::Content { service, metrics, change_method: None, studies: loaded.studies }
}

/// What `tests/directorios/validar-mpp.mjs` says of an entry.
fn directory_check(entry: &Value) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("directorios");
    assert!(
        dir.join("node_modules/typescript/package.json").is_file(),
        "faltan los paquetes npm de {} (cd tests/directorios && npm ci)",
        dir.display()
    );
    let temp = tempfile::tempdir().expect("temp");
    let file = temp.path().join("entry.json");
    std::fs::write(&file, serde_json::to_vec(entry).expect("json")).expect("write");
    let output = Command::new(std::env::var_os("NODE").unwrap_or_else(|| "node".into()))
        .arg(dir.join("validar-mpp.mjs"))
        .arg(&file)
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("json line")
}

/// `schemas/services.test.ts`'s rules that the types leave to tests: ids, tags and routes.
fn services_test_rules(entry: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let kebab = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !entry["id"].as_str().is_some_and(kebab) {
        problems.push(format!("id {}", entry["id"]));
    }
    for field in ["url", "serviceUrl"] {
        if !entry[field].as_str().is_some_and(|u| u.starts_with("https://") && url::Url::parse(u).is_ok()) {
            problems.push(format!("{field} {}", entry[field]));
        }
    }
    let tags: Vec<&str> = entry["tags"].as_array().expect("tags").iter().filter_map(Value::as_str).collect();
    if tags.iter().any(|t| !kebab(t)) || tags.iter().collect::<BTreeSet<_>>().len() != tags.len() {
        problems.push(format!("tags {tags:?}"));
    }
    let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
    let mut routes = BTreeSet::new();
    for endpoint in entry["endpoints"].as_array().expect("endpoints") {
        let route = endpoint["route"].as_str().unwrap_or_default();
        let ok = route.split_once(' ').is_some_and(|(method, path)| {
            methods.contains(&method)
                && path.starts_with('/')
                && path.bytes().all(|b| b.is_ascii_alphanumeric() || b"/_:.-*".contains(&b))
        });
        if !ok || !routes.insert(route) {
            problems.push(format!("route {route:?}"));
        }
        if endpoint["desc"].as_str().is_none_or(|d| d.trim().is_empty()) {
            problems.push(format!("{route}: desc"));
        }
        if let Some(amount) = endpoint.get("amount")
            && !amount.as_str().is_some_and(|a| !a.is_empty() && a.bytes().all(|b| b.is_ascii_digit()))
        {
            problems.push(format!("{route}: amount {amount}"));
        }
    }
    problems
}

#[test]
fn the_mpp_directory_entry_passes_the_directorys_own_checks() {
    let content = listable_content();
    let site = generator::render::site::Site::new(&content);
    let document = generator::render::directories::mpp_document(&site);
    assert_eq!(document["listable"], true, "{document}");
    assert_eq!(document["motivos"], json!([]));
    let entry = &document["servicio"];

    let checked = directory_check(entry);
    assert_eq!(checked["typeErrors"], json!([]), "the directory's types: {checked}");
    assert_eq!(checked["generated"], true, "the directory's build: {}", checked["error"]);
    let discovery = &checked["discovery"];
    assert_eq!(schema_errors(&vendor("mpp/discovery.schema.json"), discovery), Vec::<(String, String)>::new());
    assert_eq!(services_test_rules(entry), Vec::<String>::new());

    // What it says is the offer the gate makes.
    let listed = &discovery["services"][0];
    let accepts = generator::render::offer::accepts(&content.service, content.service.price_usd);
    assert_eq!(listed["realm"], "estudios.observatorio-ia.example.com", "the realm of the gate's challenges");
    assert_eq!(listed["methods"], json!({"evm": {"intents": ["charge"], "assets": [accepts[0].asset]}}));
    assert_eq!(listed["icon"], "https://observatorio-ia.example.com/icono.png");
    let paid = &listed["endpoints"][0];
    assert_eq!((paid["method"].as_str(), paid["path"].as_str()), (Some("GET"), Some("/estudio/:slug")));
    assert_eq!(paid["payment"]["amount"], accepts[0].amount);
    assert_eq!(paid["payment"]["decimals"], 6);
    for free in &listed["endpoints"].as_array().expect("endpoints")[1..] {
        assert_eq!(free["payment"], Value::Null, "{free}");
    }

    // The checks refuse what the directory would: they are not checks that cannot fail.
    let mut broken = entry.clone();
    broken["categories"] = json!(["datos"]);
    broken["precio"] = json!("0.99");
    let checked = directory_check(&broken);
    let errors = checked["typeErrors"].as_array().expect("errors");
    assert!(errors.iter().any(|e| e.as_str().is_some_and(|e| e.contains("\"datos\""))), "{checked}");
    let mut broken = entry.clone();
    broken["serviceUrl"] = json!("http://127.0.0.1:8080");
    broken["endpoints"][0]["amount"] = json!("0.99");
    let checked = directory_check(&broken);
    assert_eq!(checked["generated"], false, "{checked}");
    assert!(services_test_rules(&broken).len() >= 2);
    let mut listing = discovery.clone();
    listing["services"][0]["methods"]["evm"]["intents"] = json!("charge");
    assert!(!schema_errors(&vendor("mpp/discovery.schema.json"), &listing).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_entry_says_why_a_local_store_is_not_listable_and_is_served() {
    let dist = built();
    let document = read_json(&dist.join("public/directorios/mpp.json"));
    assert_eq!(document["listable"], false);
    let reasons: Vec<&str> =
        document["motivos"].as_array().expect("motivos").iter().filter_map(Value::as_str).collect();
    assert!(reasons.iter().any(|r| r.starts_with("modo local")), "{reasons:?}");
    assert!(reasons.iter().any(|r| r.starts_with("base_url no empieza con https://")), "{reasons:?}");
    // Apart from what only a live store has, the entry is the directory's shape.
    let checked = directory_check(&document["servicio"]);
    assert_eq!(checked["typeErrors"], json!([]), "{checked}");
    let llms = std::fs::read_to_string(dist.join("public/llms.txt")).expect("llms.txt");
    assert!(llms.contains("/directorios/mpp.json"));

    let gate = start_local(dist);
    let response = client().get(gate.url("/directorios/mpp.json")).send().await.expect("get");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json; charset=utf-8");
    let served: Value = response.json().await.expect("json");
    assert_eq!(served, document);
}

// ---------------------------------------------------------------------------------------
// x402 Bazaar

/// The pinned spec text.
struct Bazaar {
    text: String,
}

impl Bazaar {
    fn load() -> Bazaar {
        Bazaar { text: std::fs::read_to_string(vendor("x402/bazaar-extract.md")).expect("bazaar extract") }
    }

    /// The section that starts at `heading` (up to the next heading of any level).
    fn section(&self, heading: &str) -> &str {
        let start = self.text.find(heading).unwrap_or_else(|| panic!("the spec has {heading:?}"));
        let body = &self.text[start + heading.len()..];
        let end = body.find("\n#").unwrap_or(body.len());
        &body[..end]
    }

    /// The rows of the first Markdown table of a section: (first cell without backticks, cells).
    fn table(&self, heading: &str) -> Vec<(String, Vec<String>)> {
        self.section(heading)
            .lines()
            .filter(|l| l.starts_with('|') && !l.starts_with("|--") && !l.starts_with("|-"))
            .skip(1)
            .map(|l| {
                let cells: Vec<String> = l.trim_matches('|').split('|').map(|c| c.trim().to_owned()).collect();
                (cells[0].trim_matches('`').to_owned(), cells)
            })
            .collect()
    }

    /// Field → required, from a "| Field | Type | Required | …" table.
    fn fields(&self, heading: &str) -> Vec<(String, bool)> {
        self.table(heading).into_iter().map(|(name, cells)| (name, cells[2] == "Yes")).collect()
    }

    /// The JSON of the first ```json block of a section.
    fn json(&self, heading: &str) -> Value {
        let section = self.section(heading);
        let start = section.find("```json").expect("a JSON block") + "```json".len();
        let end = section[start..].find("```").expect("its end") + start;
        serde_json::from_str(&section[start..end]).expect("the spec's JSON parses")
    }

    /// The `routeTemplate` pattern of the validation rules (`^/[…]+$`).
    fn route_template_pattern(&self) -> String {
        let rules = self.section("### `routeTemplate` Validation Rules");
        let start = rules.find("`^/").expect("the pattern") + 1;
        let end = rules[start..].find('`').expect("its end") + start;
        rules[start..end].to_owned()
    }
}

/// Whether `value` is allowed by the rule `^/[a-zA-Z0-9_/:.\-~%]+$` as the spec writes it (a
/// single bracket class repeated): the class's characters are read from the pinned text.
fn matches_route_template(pattern: &str, value: &str) -> bool {
    let class = pattern.strip_prefix("^/[").and_then(|p| p.strip_suffix("]+$")).expect("the spec's shape of the rule");
    // The bracket class as a regex reads it: `a-z` is a range, `\-` a literal hyphen.
    let mut members: Vec<(char, bool)> = Vec::new();
    let mut chars = class.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => members.push((chars.next().expect("an escaped character"), true)),
            _ => members.push((c, false)),
        }
    }
    let mut allowed = BTreeSet::new();
    let mut i = 0;
    while i < members.len() {
        let (c, _) = members[i];
        match (members.get(i + 1), members.get(i + 2)) {
            (Some(('-', false)), Some((end, _))) => {
                allowed.extend(c..=*end);
                i += 3;
            }
            _ => {
                allowed.insert(c);
                i += 1;
            }
        }
    }
    let decoded = percent_decode(value);
    value.len() > 1
        && value.starts_with('/')
        && value[1..].chars().all(|c| allowed.contains(&c))
        && !decoded.contains("..")
        && !decoded.contains("://")
}

fn percent_decode(value: &str) -> String {
    url::form_urlencoded::parse(value.replace('+', "%2B").as_bytes()).map(|(k, v)| format!("{k}{v}")).collect()
}

/// Every `$ref` and `$id` in a schema: same-document fragments only.
fn external_references(schema: &Value, at: &str, found: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                if (key == "$ref" || key == "$id") && !value.as_str().is_some_and(|v| v.starts_with('#')) {
                    found.push(format!("{at}/{key}: {value}"));
                }
                external_references(value, &format!("{at}/{key}"), found);
            }
        }
        Value::Array(items) => {
            items.iter().enumerate().for_each(|(i, v)| external_references(v, &format!("{at}/{i}"), found))
        }
        _ => {}
    }
}

fn printable_ascii(text: &str) -> bool {
    !text.is_empty() && text.len() <= 32 && text.chars().all(|c| (' '..='~').contains(&c))
}

/// Every problem of one declaration and the `resource` beside it, against the pinned text.
fn bazaar_problems(spec: &Bazaar, required: &Value, transport: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let bazaar = &required["extensions"]["bazaar"];
    let info = &bazaar["info"];
    let input = &info["input"];
    let table = if transport == "mcp" { "#### MCP Tools" } else { "#### Query Parameter Methods (GET, HEAD, DELETE)" };
    let fields = spec.fields(table);
    for (name, value) in input.as_object().expect("input") {
        if !fields.iter().any(|(f, _)| f == name) {
            problems.push(format!("input.{name} is not a field of {table}"));
        }
        if name == "method" && !["GET", "HEAD", "DELETE"].contains(&value.as_str().unwrap_or_default()) {
            problems.push(format!("input.method {value}"));
        }
        if name == "transport" && !["streamable-http", "sse"].contains(&value.as_str().unwrap_or_default()) {
            problems.push(format!("input.transport {value}"));
        }
    }
    for (name, needed) in &fields {
        if *needed && input.get(name).is_none() {
            problems.push(format!("input lacks {name}, required by {table}"));
        }
    }
    assert_eq!(input["type"], transport);
    for (name, _) in info["output"].as_object().expect("output") {
        if !spec.fields("### Output Types").iter().any(|(f, _)| f == name) {
            problems.push(format!("output.{name} is not an output field"));
        }
    }
    // Only `info`, `schema` and (for dynamic routes) `routeTemplate` make a declaration.
    for key in bazaar.as_object().expect("bazaar").keys() {
        if !["info", "schema", "routeTemplate"].contains(&key.as_str()) {
            problems.push(format!("bazaar.{key}"));
        }
    }
    let schema = &bazaar["schema"];
    if schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
        problems.push(format!("schema.$schema {}", schema["$schema"]));
    }
    if !schema["required"].as_array().is_some_and(|r| r.contains(&json!("input"))) {
        problems.push("schema does not require input".to_owned());
    }
    let mut external = Vec::new();
    external_references(schema, "schema", &mut external);
    problems.extend(external);
    for (pointer, message) in errors_against(schema, info) {
        problems.push(format!("info does not validate against its schema at {pointer}: {message}"));
    }
    if transport == "mcp" {
        let spec_schema = spec.json("### MCP Schema Example");
        for (pointer, message) in errors_against(&spec_schema, info) {
            problems.push(format!("info does not validate against the spec's MCP schema at {pointer}: {message}"));
        }
    }
    let metadata = spec.table("## Service Metadata on `resource`");
    let known: Vec<&str> =
        ["url", "description", "mimeType"].into_iter().chain(metadata.iter().map(|(n, _)| n.as_str())).collect();
    let resource = &required["resource"];
    for key in resource.as_object().expect("resource").keys() {
        if !known.contains(&key.as_str()) {
            problems.push(format!("resource.{key} is no field of the spec"));
        }
    }
    if let Some(name) = resource.get("serviceName")
        && !name.as_str().is_some_and(printable_ascii)
    {
        problems.push(format!("serviceName {name}"));
    }
    if let Some(tags) = resource.get("tags") {
        let tags: Vec<&str> = tags.as_array().expect("tags").iter().filter_map(Value::as_str).collect();
        let folded: BTreeSet<String> = tags.iter().map(|t| t.to_lowercase()).collect();
        if tags.len() > 5 || folded.len() != tags.len() || !tags.iter().all(|t| printable_ascii(t)) {
            problems.push(format!("tags {tags:?}"));
        }
    }
    if let Some(icon) = resource.get("iconUrl")
        && let Err(why) = generator::validate::check_icon_url(icon.as_str().unwrap_or_default())
    {
        problems.push(format!("iconUrl {icon}: {why}"));
    }
    problems
}

#[test]
fn every_bazaar_declaration_follows_the_pinned_spec_text() {
    let spec = Bazaar::load();
    // The spec text itself reads as the test expects (a changed extract fails here, not silently).
    assert!(spec.fields("#### MCP Tools").contains(&("toolName".to_owned(), true)), "toolName, not tool");
    assert_eq!(spec.table("## Service Metadata on `resource`").len(), 3);
    assert_eq!(spec.route_template_pattern(), r"^/[a-zA-Z0-9_/:.\-~%]+$");

    let dist = built();
    let manifest = read_json(&dist.join("gate.json"));
    let mut checked = 0;
    for (slug, study) in manifest["estudios"].as_object().expect("estudios") {
        for (view, offer) in study["vistas"].as_object().expect("vistas") {
            for (key, transport) in [("pago_requerido", "http"), ("pago_requerido_mcp", "mcp")] {
                let problems = bazaar_problems(&spec, &offer[key], transport);
                assert_eq!(problems, Vec::<String>::new(), "{slug} {view} {key}");
                // Each study is its own catalog entry (its own description, tags and price): no
                // routeTemplate folds the studies into one (README, "Discovery documents").
                assert!(offer[key]["extensions"]["bazaar"].get("routeTemplate").is_none());
                checked += 1;
            }
            assert_eq!(offer["pago_requerido"]["resource"]["serviceName"], "AI Visibility: Southern Cone");
        }
    }
    assert_eq!(checked, common::SLUGS.len() * 4);

    // The discovery document names the route by the spec's template syntax.
    let pattern = spec.route_template_pattern();
    let discovery = read_json(&dist.join("public/.well-known/x402.json"));
    for item in discovery["items"].as_array().expect("items") {
        let template = item["input"]["routeTemplate"].as_str().expect("routeTemplate");
        assert_eq!(template, "/estudio/:slug");
        assert!(matches_route_template(&pattern, template), "{template}");
    }
    // The rule as read refuses what the spec refuses.
    for bad in ["/estudio/{slug}", "estudio/:slug", "/a/../b", "/a/%2e%2e/b", "/http://x", "/"] {
        assert!(!matches_route_template(&pattern, bad), "{bad}");
    }
}

#[test]
fn a_declared_icon_goes_to_every_402_and_a_bad_one_stops_the_build() {
    let content = listable_content();
    let site = generator::render::site::Site::new(&content);
    let study = &content.studies[0];
    let spec = Bazaar::load();
    for view in contract::View::ALL {
        let required =
            serde_json::to_value(generator::render::openapi::payment_required(&site, study, view)).expect("json");
        assert_eq!(required["resource"]["iconUrl"], "https://observatorio-ia.example.com/icono.png");
        assert_eq!(bazaar_problems(&spec, &required, "http"), Vec::<String>::new());
        let mcp =
            serde_json::to_value(generator::render::openapi::payment_required_mcp(&site, study, view)).expect("json");
        assert_eq!(mcp["resource"]["iconUrl"], required["resource"]["iconUrl"]);
        assert_eq!(bazaar_problems(&spec, &mcp, "mcp"), Vec::<String>::new());
    }
    let root = sample_dir();
    for bad in [
        "http://observatorio-ia.example.com/i.png",
        "https://127.0.0.1/i.png",
        "https://localhost/i.png",
        "https://2130706433/i.png",
        "https://0x7f000001/i.png",
        "https://user@observatorio-ia.example.com/i.png",
        "data:image/png;base64,AAAA",
    ] {
        let mut service = content.service.clone();
        service.icon_url = Some(bad.to_owned());
        let problems = generator::validate::validate_service(&root, &service, &content.metrics).to_string();
        assert!(problems.contains("servicio.toml") && problems.contains("campo `icono_url`"), "{bad}: {problems}");
    }
}
