//! Croissant 1.1 on the real build, judged by MLCommons' own library: `mlcroissant` 1.1.1
//! (pinned in `tests/tools/requirements.txt`, driven by `tests/tools/croissant_check.py`)
//! validates every generated file with no error and no warning, and loads their record sets:
//! the free ones from the built `dist/` (its `mapping` to the local files), the paid ones after
//! a purchase from the gate, through the signed download links the purchase returned (it
//! downloads them and checks their sha256). Every value it reads equals the sheet's, the
//! catalog's or the package's.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::gate::{DEV_KEY, accepted_of, client, signed_header, signer, start_local};
use common::{SLUGS, built, read_json};
use serde_json::{Value, json};

const CROISSANT_1_1: &str = "http://mlcommons.org/croissant/1.1";
const MEDIA_TYPE: &str = "application/ld+json; profile=\"http://mlcommons.org/croissant/1.1\"";

fn tool() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/croissant_check.py")
}

/// Runs `croissant_check.py` with a fresh download cache; its output as JSON.
fn check(args: &[&str]) -> Value {
    let cache = tempfile::tempdir().expect("cache");
    let output = Command::new("python3")
        .arg(tool())
        .args(args)
        .env("CROISSANT_CACHE", cache.path())
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "croissant_check.py {args:?} failed (install tests/tools/requirements.txt):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("json")
}

/// The records of `sets` in `file`, with each FileObject placed as `places` says.
fn records(file: &Path, places: &Value, sets: &[&str]) -> BTreeMap<String, Vec<Value>> {
    let dir = tempfile::tempdir().expect("temp");
    let places_file = dir.path().join("places.json");
    std::fs::write(&places_file, serde_json::to_vec(places).expect("json")).expect("write");
    let mut args = vec!["records", file.to_str().expect("utf-8"), places_file.to_str().expect("utf-8")];
    args.extend_from_slice(sets);
    let found = check(&args);
    found
        .as_object()
        .expect("object")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_array().expect("records").clone()))
        .collect()
}

fn study_file(dist: &Path, slug: &str) -> PathBuf {
    dist.join(format!("public/estudio/{slug}/croissant.jsonld"))
}

/// A field's values across the records of a set (`set/field` keys, as mlcroissant names them).
fn column(records: &[Value], set: &str, field: &str) -> Vec<Value> {
    records.iter().map(|r| r[format!("{set}/{field}")].clone()).collect()
}

/// The values a JSON path of the form `$.a.b[*].c` reaches in `document` (enough for ours).
fn values_at(document: &Value, path: &str) -> Vec<Value> {
    let mut current = vec![document.clone()];
    for step in path.trim_start_matches("$.").split('.') {
        let (name, all) = match step.strip_suffix("[*]") {
            Some(name) => (name, true),
            None => (step, false),
        };
        current = current
            .into_iter()
            .flat_map(|v| {
                let inner = v.get(name).cloned().unwrap_or(Value::Null);
                if all { inner.as_array().cloned().unwrap_or_default() } else { vec![inner] }
            })
            .collect();
    }
    current
}

#[test]
fn mlcroissant_validates_every_generated_file_without_errors_or_warnings() {
    let dist = built();
    let mut files: Vec<PathBuf> = SLUGS.iter().map(|s| study_file(dist, s)).collect();
    files.push(dist.join("public/croissant.jsonld"));
    let args: Vec<&str> = std::iter::once("validate").chain(files.iter().map(|f| f.to_str().expect("utf-8"))).collect();
    let report = check(&args);
    for file in &files {
        let issues = &report[file.to_str().expect("utf-8")];
        assert_eq!(issues, &json!({"errors": [], "warnings": []}), "{}", file.display());
    }
    // The same validation finds what is wrong: a file without conformsTo, with a field of an
    // unknown type and a distribution without its hash type.
    let mut broken = read_json(&files[0]);
    broken.as_object_mut().expect("object").remove("conformsTo");
    broken["recordSet"][0]["field"][0]["dataType"] = json!("sc:NoEsUnTipo");
    broken.as_object_mut().expect("object").remove("name");
    let dir = tempfile::tempdir().expect("temp");
    let bad = dir.path().join("roto.jsonld");
    std::fs::write(&bad, serde_json::to_vec(&broken).expect("json")).expect("write");
    let report = check(&["validate", bad.to_str().expect("utf-8")]);
    let issues = &report[bad.to_str().expect("utf-8")];
    let all = format!("{issues}");
    assert!(!issues["errors"].as_array().expect("errors").is_empty(), "{all}");
}

#[test]
fn each_study_file_says_what_the_sheet_says_with_its_files_terms_and_provenance() {
    let dist = built();
    for slug in SLUGS {
        let croissant = read_json(&study_file(dist, slug));
        let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
        assert_eq!(croissant["conformsTo"], CROISSANT_1_1);
        assert_eq!(croissant["@type"], "sc:Dataset");
        assert_eq!(croissant["name"], sheet["nombre"]);
        assert_eq!(croissant["description"], sheet["descripcion"]);
        assert_eq!(croissant["version"], sheet["version_paquete"]);
        assert_eq!(croissant["citeAs"], sheet["como_citar"]);
        assert_eq!(croissant["isAccessibleForFree"], false);
        assert_eq!(sheet["urls"]["croissant"], format!("http://127.0.0.1:8080/estudio/{slug}/croissant.jsonld"));
        // The paid files: name, size and sha256 of the sheet's `archivos`, at the download route.
        let distribution = croissant["distribution"].as_array().expect("distribution");
        for (id, kind, format) in [("paquete", "json", "application/json"), ("zip", "zip", "application/zip")] {
            let file = distribution.iter().find(|d| d["@id"] == id).unwrap_or_else(|| panic!("{slug}: {id}"));
            let info = &sheet["archivos"][kind];
            assert_eq!(file["@type"], "cr:FileObject");
            assert_eq!(file["name"], info["nombre"]);
            assert_eq!(file["sha256"], info["sha256"]);
            assert_eq!(file["contentSize"], format!("{} B", info["bytes"]));
            assert_eq!(file["encodingFormat"], format);
            assert_eq!(
                file["contentUrl"],
                format!("http://127.0.0.1:8080/descarga/{}", info["nombre"].as_str().expect("name"))
            );
        }
        // Every FileObject a record set reads is one of those files, byte for byte.
        for file in distribution {
            let id = file["@id"].as_str().expect("id");
            let base = id.split('/').next().expect("base");
            let canonical = distribution.iter().find(|d| d["@id"] == base).expect("its file");
            for key in ["contentUrl", "sha256", "contentSize", "name"] {
                assert_eq!(file[key], canonical[key], "{slug}: {id}.{key}");
            }
        }
        // Paid, with the price as ODRL's duty to compensate and as schema.org's offer.
        let price = sheet["precio_usd"].as_f64().expect("price");
        let policy = &croissant["usageInfo"];
        assert!(policy["@type"].as_array().expect("types").contains(&json!("odrl:Offer")));
        let duty = &policy["odrl:permission"]["odrl:duty"];
        assert_eq!(duty["odrl:action"]["@id"], "odrl:compensate");
        let amount = &duty["odrl:constraint"]["odrl:rightOperand"]["@value"];
        assert_eq!(amount.as_str().and_then(|a| a.parse::<f64>().ok()), Some(price));
        assert_eq!(croissant["offers"]["price"], *amount);
        // Provenance: the run's dates, and the collection's agents.
        let activity = &croissant["prov:wasGeneratedBy"][0];
        assert_eq!(activity["prov:startedAtTime"]["@value"], sheet["fecha_corrida"]["desde"]);
        assert_eq!(activity["prov:endedAtTime"]["@value"], sheet["fecha_corrida"]["hasta"]);
        // The sample studies are synthetic, and the RAI fields say so.
        assert!(sheet["nota"].as_str().expect("nota").contains("sintéticos"), "{slug}: the sample says it");
        assert_eq!(croissant["rai:dataCollectionType"], json!(["Synthetic data"]));
        for key in ["rai:dataCollection", "rai:dataLimitations"] {
            assert!(croissant[key].as_str().expect(key).to_lowercase().contains("sintétic"), "{slug}: {key}");
        }
        assert_eq!(
            croissant["rai:dataCollectionTimeframe"],
            json!([sheet["fecha_corrida"]["desde"], sheet["fecha_corrida"]["hasta"]])
        );
        // A free file: nothing paid in it (no finding, no answer, no analysis number).
        let text = croissant.to_string();
        let package = read_json(&dist.join(format!("private/descargas/{slug}.json")));
        for finding in package["hallazgos"].as_array().expect("hallazgos") {
            assert!(!text.contains(finding["texto"].as_str().expect("texto")), "{slug}: leaks {}", finding["id"]);
        }
        for answer in package["respuestas"].as_array().expect("respuestas") {
            let escaped = serde_json::to_string(answer["respuesta"].as_str().expect("respuesta")).expect("json");
            assert!(!text.contains(&escaped), "{slug}: leaks answer {}", answer["id"]);
        }
        // Linked from the study's page.
        let page = std::fs::read_to_string(dist.join(format!("public/estudios/{slug}.html"))).expect("page");
        let link = format!(
            "<link rel=\"alternate\" type=\"application/ld+json; profile=&quot;http://mlcommons.org/croissant/1.1&quot;\" href=\"/estudio/{slug}/croissant.jsonld\""
        );
        assert!(page.contains(&link), "{slug}: the page links its Croissant file");
    }
    // From the catalog and llms.txt.
    let catalog = read_json(&dist.join("public/catalogo.json"));
    for entry in catalog["estudios"].as_array().expect("estudios") {
        assert!(entry["croissant"].as_str().is_some_and(|u| u.ends_with("/croissant.jsonld")));
    }
    let llms = std::fs::read_to_string(dist.join("public/llms.txt")).expect("llms.txt");
    assert!(
        llms.contains("http://127.0.0.1:8080/croissant.jsonld")
            && llms.contains("/estudio/banca-2026/croissant.jsonld")
    );
}

#[test]
fn the_free_record_sets_load_from_the_built_dist_and_equal_the_sheet_and_catalog() {
    let dist = built();
    for slug in SLUGS {
        let sheet_path = dist.join(format!("public/estudio/{slug}/ficha.json"));
        let sheet = read_json(&sheet_path);
        let place = json!({"path": sheet_path});
        let places = json!({"ficha": place, "ficha/modelos": place, "ficha/analisis_indice": place});
        let found = records(&study_file(dist, slug), &places, &["modelos", "analisis_indice"]);
        for field in ["modelo", "nombre", "proveedor", "nivel", "respuestas"] {
            assert_eq!(
                column(&found["modelos"], "modelos", field),
                values_at(&sheet, &format!("$.modelos[*].{field}")),
                "{slug}: modelos/{field}"
            );
        }
        for field in ["id", "titulo", "titulo_en", "columnas", "filas"] {
            assert_eq!(
                column(&found["analisis_indice"], "analisis_indice", field),
                values_at(&sheet, &format!("$.analisis_indice[*].{field}")),
                "{slug}: analisis_indice/{field}"
            );
        }
    }
    let catalog_path = dist.join("public/catalogo.json");
    let catalog = read_json(&catalog_path);
    let found =
        records(&dist.join("public/croissant.jsonld"), &json!({"catalogo": {"path": catalog_path}}), &["estudios"]);
    assert_eq!(found["estudios"].len(), SLUGS.len());
    for field in [
        "slug",
        "nombre",
        "industria",
        "pais",
        "publicado",
        "n_preguntas",
        "n_respuestas",
        "precio_usd",
        "ficha",
        "comprar",
        "croissant",
    ] {
        assert_eq!(
            column(&found["estudios"], "estudios", field),
            values_at(&catalog, &format!("$.estudios[*].{field}")),
            "estudios/{field}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paid_record_sets_load_through_the_links_a_purchase_returns() {
    let dist = built();
    let gate = start_local(dist);
    let http = client();
    let slug = "banca-2026";
    let file = study_file(dist, slug);
    let croissant = read_json(&file);
    let paid: Vec<String> = croissant["distribution"]
        .as_array()
        .expect("distribution")
        .iter()
        .filter_map(|d| d["@id"].as_str())
        .filter(|id| id.starts_with("paquete/"))
        .map(str::to_owned)
        .collect();
    let sets: Vec<String> = paid.iter().map(|id| id.trim_start_matches("paquete/").to_owned()).collect();
    assert!(
        sets.len() >= 3 && sets.contains(&"preguntas".to_owned()) && sets.contains(&"respuestas".to_owned()),
        "{sets:?}"
    );

    // Without a purchase the download route refuses, and so the load fails.
    let unsigned = gate.url(&format!("/descarga/{slug}.json"));
    assert_eq!(http.get(&unsigned).send().await.expect("get").status(), 403);

    // A purchase: its signed link is where mlcroissant reads the package from.
    let accepted = accepted_of(dist, slug, "completo");
    let header = signed_header(&accepted, &signer(DEV_KEY), |_, _| {});
    let response = http
        .get(gate.url(&format!("/estudio/{slug}?vista=completo")))
        .header("PAYMENT-SIGNATURE", header)
        .send()
        .await
        .expect("purchase");
    assert_eq!(response.status(), 200);
    let bought: Value = response.json().await.expect("json");
    let link = gate.local_url(bought["acceso"]["descargas"]["json"]["url"].as_str().expect("signed link"));
    let places: serde_json::Map<String, Value> = paid.iter().map(|id| (id.clone(), json!({"url": link}))).collect();
    let wanted = sets.clone();
    let found = tokio::task::spawn_blocking(move || {
        let names: Vec<&str> = wanted.iter().map(String::as_str).collect();
        records(&file, &Value::Object(places), &names)
    })
    .await
    .expect("join");

    let package = read_json(&dist.join(format!("private/descargas/{slug}.json")));
    let questions = &found["preguntas"];
    assert_eq!(questions.len(), package["diseno"]["preguntas"].as_array().expect("preguntas").len());
    for field in ["id", "texto", "idioma", "modelo"] {
        assert_eq!(
            column(questions, "preguntas", field),
            values_at(&package, &format!("$.diseno.preguntas[*].{field}")),
            "preguntas/{field}"
        );
    }
    for dimension in package["diseno"]["dimensiones"].as_array().expect("dimensiones") {
        let id = dimension["id"].as_str().expect("id");
        if id != "idioma" {
            assert_eq!(
                column(questions, "preguntas", id),
                values_at(&package, &format!("$.diseno.preguntas[*].{id}")),
                "preguntas/{id}"
            );
        }
    }
    let answers = &found["respuestas"];
    let published = package["respuestas"].as_array().expect("respuestas");
    assert_eq!(answers.len(), published.len());
    for field in [
        "id",
        "pregunta",
        "modelo",
        "version",
        "superficie",
        "fecha",
        "respuesta",
        "marcas_nombradas",
        "marcas_citadas",
    ] {
        assert_eq!(
            column(answers, "respuestas", field),
            values_at(&package, &format!("$.respuestas[*].{field}")),
            "respuestas/{field}"
        );
    }
    let urls = |key: &str, part: &str| -> Vec<Value> {
        published
            .iter()
            .map(|a| match a[key].as_array() {
                Some(list) => Value::Array(list.iter().map(|s| s[part].clone()).collect()),
                None => Value::Null,
            })
            .collect()
    };
    assert_eq!(column(answers, "respuestas", "fuentes"), urls("fuentes", "url"));
    assert_eq!(column(answers, "respuestas", "fuentes_titulos"), urls("fuentes", "titulo"));
    assert_eq!(column(answers, "respuestas", "fuentes_consultadas"), urls("fuentes_consultadas", "url"));
    assert!(published.iter().all(|a| a["superficie"] == "api"), "the sample answers come from the providers' APIs");

    // Every analysis table: one record per row, every cell as published.
    let tables = package["analisis"].as_array().expect("analisis");
    for table in tables {
        let set = format!("tabla_{}", table["id"].as_str().expect("id").to_lowercase());
        let rows = &found[&set];
        let published_rows = table["filas"].as_array().expect("filas");
        assert_eq!(rows.len(), published_rows.len(), "{set}");
        let fields: Vec<&Value> = croissant["recordSet"]
            .as_array()
            .expect("recordSet")
            .iter()
            .find(|r| r["@id"] == set.as_str())
            .expect("its record set")["field"]
            .as_array()
            .expect("fields")
            .iter()
            .collect();
        for (column_index, field) in fields.iter().enumerate() {
            let id = field["@id"].as_str().expect("id");
            for (row, published_row) in rows.iter().zip(published_rows) {
                let read = &row[id];
                let cell = &published_row[column_index];
                let same = match (read, cell) {
                    (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
                    (a, b) => a == b,
                };
                assert!(same, "{set} {id}: mlcroissant read {read}, the package has {cell}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gate_serves_each_croissant_file_as_croissant_json_ld() {
    let dist = built();
    let gate = start_local(dist);
    for url in ["/croissant.jsonld".to_owned(), format!("/estudio/{}/croissant.jsonld", SLUGS[0])] {
        let response = client().get(gate.url(&url)).send().await.expect("get");
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(response.headers()["content-type"], MEDIA_TYPE, "{url}");
        let file = dist.join(format!("public{url}"));
        assert_eq!(response.bytes().await.expect("body").as_ref(), std::fs::read(file).expect("file").as_slice());
    }
    let headers = std::fs::read_to_string(dist.join("public/_headers")).expect("_headers");
    assert!(headers.contains(&format!("/croissant.jsonld\n  Content-Type: {MEDIA_TYPE}")), "static hosts send it too");
}
