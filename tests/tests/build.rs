//! `generator build` on the sample content (`tests/muestra/`): what a publisher deploys and an agent reads.

mod common;

use std::io::{Cursor, Read};
use std::path::Path;
use std::process::Command;

use calamine::Reader;
use common::*;
use serde_json::Value;

#[test]
fn two_builds_give_identical_bytes() {
    let first = built();
    let other = tempfile::tempdir().expect("temp");
    let second = other.path().join("dist");
    // A different thread count must not change a byte either.
    let pool = rayon_pool(1);
    pool.install(|| build_into(&sample_dir(), &second));
    let files = files_under(first);
    assert_eq!(files, files_under(&second), "same file list");
    assert!(files.len() > 40, "a full dist has many files, got {}", files.len());
    for file in &files {
        let a = std::fs::read(first.join(file)).expect("read");
        let b = std::fs::read(second.join(file)).expect("read");
        assert!(a == b, "{} differs between builds", file.display());
    }
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool")
}

#[test]
fn dist_has_the_documented_layout() {
    let dist = built();
    for path in [
        "public/index.json",
        "public/catalogo.json",
        "public/metricas.json",
        "public/openapi.json",
        "public/llms.txt",
        "public/.well-known/x402.json",
        "public/server.json",
        "public/privacidad.html",
        "public/_headers",
        "public/_redirects",
        "gate.json",
        "SHA256SUMS",
        "README.md",
    ] {
        assert!(dist.join(path).is_file(), "missing {path}");
    }
    for slug in SLUGS {
        for path in [
            format!("public/estudio/{slug}/ficha.json"),
            format!("private/descargas/{slug}.json"),
            format!("private/descargas/{slug}.zip"),
            format!("private/estudio/{slug}/resumen.json"),
        ] {
            assert!(dist.join(&path).is_file(), "missing {path}");
        }
    }
}

#[test]
fn sha256sums_cover_every_file_and_match() {
    let dist = built();
    let sums = std::fs::read_to_string(dist.join("SHA256SUMS")).expect("sums");
    let mut listed = Vec::new();
    for line in sums.lines() {
        let (hash, path) = line.split_once("  ").expect("sha256sum format");
        let bytes = std::fs::read(dist.join(path)).expect("listed file exists");
        assert_eq!(sha256_hex(&bytes), hash, "{path}");
        listed.push(path.to_owned());
    }
    let mut all: Vec<String> = files_under(dist).iter().map(|p| p.display().to_string()).collect();
    all.retain(|p| p != "SHA256SUMS");
    listed.sort();
    assert_eq!(listed, all);
    // And the real tool agrees.
    let status = Command::new("sha256sum").args(["--check", "--quiet", "SHA256SUMS"]).current_dir(dist).status();
    assert!(status.expect("sha256sum runs").success());
}

#[test]
fn every_zip_and_xlsx_opens_with_real_readers() {
    let dist = built();
    for slug in SLUGS {
        let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
        let bytes = std::fs::read(dist.join(format!("private/descargas/{slug}.zip"))).expect("zip");
        let mut archive = zip::ZipArchive::new(Cursor::new(&bytes)).expect("zip opens");
        let names: Vec<String> = (0..archive.len())
            .map(|i| archive.by_index(i).expect("entry").name().expect("name").into_owned())
            .collect();
        let listed: Vec<String> = sheet["archivos"]["zip"]["contiene"]
            .as_array()
            .expect("contiene")
            .iter()
            .map(|v| v.as_str().expect("name").to_owned())
            .collect();
        assert_eq!(names, listed, "{slug}: ZIP entries are the sheet's `contiene`, sorted");
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        for i in 0..archive.len() {
            let entry = archive.by_index(i).expect("entry");
            assert!(
                matches!(entry.compression(), zip::CompressionMethod::Deflated | zip::CompressionMethod::Stored),
                "{slug}: {:?} uses {:?}",
                entry.name(),
                entry.compression()
            );
            assert_eq!(entry.unix_mode().map(|m| m & 0o777), Some(0o644));
        }

        // The JSON inside is byte for byte the downloadable JSON.
        let mut inner = Vec::new();
        archive.by_name(&format!("{slug}/{slug}.json")).expect("json entry").read_to_end(&mut inner).expect("read");
        let download = std::fs::read(dist.join(format!("private/descargas/{slug}.json"))).expect("json");
        assert!(inner == download, "{slug}: JSON in ZIP equals the download");
        let package: Value = serde_json::from_slice(&download).expect("package parses");

        // The xlsx opens and holds every table and every answer.
        let mut xlsx = Vec::new();
        archive.by_name(&format!("{slug}/{slug}.xlsx")).expect("xlsx entry").read_to_end(&mut xlsx).expect("read");
        let mut book: calamine::Xlsx<_> = calamine::open_workbook_from_rs(Cursor::new(xlsx)).expect("xlsx opens");
        let sheets = book.sheet_names().to_vec();
        let tables = package["analisis"].as_array().expect("tables");
        for table in tables {
            let id = table["id"].as_str().expect("id");
            let name = sheets.iter().find(|s| s.starts_with(id)).unwrap_or_else(|| panic!("{slug}: no {id} sheet"));
            let range = book.worksheet_range(name).expect("table sheet");
            intervals_match_the_package(slug, table, &range);
        }
        let answers = book.worksheet_range("respuestas").expect("answers sheet");
        let n_answers = package["respuestas"].as_array().expect("answers").len();
        assert_eq!(answers.height(), n_answers + 1, "{slug}: one row per answer plus header");
        assert!(sheets.contains(&"preguntas".to_owned()));

        let mut readme = String::new();
        archive.by_name(&format!("{slug}/README.md")).expect("readme").read_to_string(&mut readme).expect("utf-8");
        assert!(readme.contains(sheet["nombre"].as_str().expect("nombre")));
        assert!(readme.contains("(English)"), "README is bilingual");
    }
}

/// Columns that are neither rates nor means: labels, counts and the HHI index.
fn is_rate_or_mean_column(table: &Value, column: usize, name: &str) -> bool {
    let counts = ["respuestas", "preguntas", "omitidas", "marcas_distintas", "pos", "neu", "neg", "n_orden", "n_tono"];
    if column == 0 || counts.contains(&name) || name.starts_with("hhi_") {
        return false;
    }
    // A column of text (leader, models of a pair, the brand owning a domain) is not a number.
    table["filas"].as_array().expect("rows").iter().any(|row| row[column].is_f64())
}

/// Every rate or mean column of a package table is followed by `_n`, `_n_ef` and `_ic95`
/// (an interval `[low, high]` around the value, or null), and the spreadsheet holds the same
/// numbers with the interval split into `_ic95_inf` and `_ic95_sup`.
fn intervals_match_the_package(slug: &str, table: &Value, sheet: &calamine::Range<calamine::Data>) {
    let id = table["id"].as_str().expect("id");
    let columns: Vec<&str> =
        table["columnas"].as_array().expect("columns").iter().map(|c| c.as_str().expect("name")).collect();
    let rows = table["filas"].as_array().expect("rows");
    let header: Vec<String> = sheet.rows().next().expect("header").iter().map(|c| c.to_string()).collect();
    let mut checked = 0;
    for (c, name) in columns.iter().enumerate() {
        if name.ends_with("_n") || name.ends_with("_n_ef") || name.ends_with("_ic95") {
            continue;
        }
        if !is_rate_or_mean_column(table, c, name) {
            continue;
        }
        let at = |suffix: &str| columns.iter().position(|x| *x == format!("{name}{suffix}"));
        let (Some(n), Some(n_ef), Some(ic)) = (at("_n"), at("_n_ef"), at("_ic95")) else {
            panic!("{slug} {id}: `{name}` lacks its _n, _n_ef or _ic95 column ({columns:?})");
        };
        assert_eq!((n, n_ef, ic), (c + 1, c + 2, c + 3), "{slug} {id}: companions follow `{name}`");
        let low_col = header.iter().position(|h| *h == format!("{name}_ic95_inf")).expect("xlsx _inf column");
        assert_eq!(header.get(low_col + 1), Some(&format!("{name}_ic95_sup")), "{slug} {id}");
        for (r, row) in rows.iter().enumerate() {
            let value = row[c].as_f64();
            match (value, &row[ic]) {
                (None, interval) => {
                    assert!(interval.is_null() && row[n] == 0, "{slug} {id} {name}: a null value has no base");
                }
                (Some(v), Value::Array(bounds)) => {
                    let (low, high) = (bounds[0].as_f64().expect("low"), bounds[1].as_f64().expect("high"));
                    assert!(
                        low <= v + 1e-4 && v <= high + 1e-4,
                        "{slug} {id} {name} row {r}: {v} outside [{low}, {high}]"
                    );
                    assert!(row[n].as_u64().is_some_and(|n| n >= 1), "{slug} {id} {name}: n ≥ 1");
                    let cells: Vec<f64> = [low_col, low_col + 1]
                        .iter()
                        .map(|&col| {
                            sheet.get((r + 1, col)).and_then(calamine::DataType::as_f64).unwrap_or_else(|| {
                                panic!(
                                    "{slug} {id} {name} row {r}: xlsx bound {:?} at {col} in {header:?}",
                                    sheet.get((r + 1, col))
                                )
                            })
                        })
                        .collect();
                    assert_eq!(cells, vec![low, high], "{slug} {id} {name} row {r}: xlsx bounds");
                    checked += 1;
                }
                (Some(_), other) => assert!(other.is_null(), "{slug} {id} {name}: interval {other}"),
            }
        }
    }
    assert!(checked > 0 || rows.is_empty(), "{slug} {id}: no interval checked");
}

#[test]
fn zips_pass_unzip_and_python_zipfile() {
    let dist = built();
    let zip = dist.join("private/descargas/banca-2026.zip");
    let unzip = Command::new("unzip").arg("-tq").arg(&zip).output().expect("unzip is installed (see README)");
    assert!(unzip.status.success(), "{}", String::from_utf8_lossy(&unzip.stdout));
    let python = Command::new("python3").args(["-m", "zipfile", "-t"]).arg(&zip).output().expect("python3");
    assert!(python.status.success(), "{}", String::from_utf8_lossy(&python.stderr));
}

#[test]
fn openapi_passes_a_real_validator() {
    let dist = built();
    let spec = read_json(&dist.join("public/openapi.json"));
    assert_eq!(spec["openapi"], "3.1.0");
    assert_eq!(spec["info"]["version"], "1.0.0");
    let paths = spec["paths"].as_object().expect("paths");
    for path in [
        "/catalogo",
        "/estudio/{slug}/ficha",
        "/estudio/{slug}",
        "/buscar",
        "/metricas",
        "/descarga/{archivo}",
        "/llms.txt",
    ] {
        assert!(paths.contains_key(path), "openapi lacks {path}");
    }
    let paid = &spec["paths"]["/estudio/{slug}"]["get"];
    for status in ["402", "404", "400"] {
        assert!(paid["responses"][status].is_object(), "paid route lacks {status}");
    }
    let slugs = paid["parameters"][0]["schema"]["enum"].as_array().expect("slug enum");
    assert_eq!(slugs.len(), 9);
    assert_eq!(spec["x-x402"]["version"], 2);
    assert_eq!(spec["x-x402"]["currency"], "USDC");
    assert_eq!(spec["x-x402"]["prices_usd"]["banca-2026"], 0.99);

    let output = Command::new("python3")
        .args(["-m", "openapi_spec_validator", "--schema", "3.1"])
        .arg(dist.join("public/openapi.json"))
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "openapi-spec-validator rejected openapi.json (install it with `pip install -r tests/tools/requirements.txt`):\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every field the issue lists for a sheet.
const SHEET_FIELDS: &[&str] = &[
    "slug",
    "nombre",
    "nombre_en",
    "descripcion",
    "descripcion_en",
    "industria",
    "subindustria",
    "pais",
    "idioma",
    "precio_usd",
    "moneda",
    "fecha_corrida",
    "n_preguntas",
    "n_respuestas",
    "n_analisis",
    "n_hallazgos",
    "modelos",
    "metricas_usadas",
    "contenido",
    "tags",
    "version_paquete",
    "generado",
    "archivos",
    "metodologia",
    "universo",
    "analisis_indice",
    "hallazgos_indice",
    "ejemplos",
    "como_citar",
    "nota",
    "urls",
    "como_comprar",
    "superficies",
];

#[test]
fn every_sheet_has_every_field() {
    let dist = built();
    let gate = read_json(&dist.join("gate.json"));
    let base = gate["servicio"]["base_url"].as_str().expect("base_url").to_owned();
    for slug in SLUGS {
        let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
        for field in SHEET_FIELDS {
            assert!(sheet.get(field).is_some(), "{slug}: sheet lacks `{field}`");
        }
        assert_eq!(sheet["slug"], slug);
        assert_eq!(sheet["precio_usd"], 0.99);
        assert_eq!(sheet["moneda"], "USDC");
        for key in ["desde", "hasta"] {
            assert!(sheet["fecha_corrida"][key].as_str().is_some_and(|d| d.len() == 10));
        }
        for m in sheet["modelos"].as_array().expect("modelos") {
            assert!(m["modelo"].is_string() && m["respuestas"].is_u64());
        }
        let models: u64 =
            sheet["modelos"].as_array().expect("modelos").iter().map(|m| m["respuestas"].as_u64().expect("n")).sum();
        assert_eq!(Some(models), sheet["n_respuestas"].as_u64());
        let contents = sheet["contenido"].as_object().expect("contenido");
        for key in ["ficha", "diseno", "analisis", "metricas", "respuestas"] {
            assert!(contents.contains_key(key), "{slug}: contenido lacks {key}");
        }
        let has_findings = sheet["n_hallazgos"].as_u64() != Some(0);
        assert_eq!(
            contents.contains_key("hallazgos"),
            has_findings,
            "{slug}: `hallazgos` only when there are findings"
        );
        let findings = &sheet["hallazgos_indice"];
        if !has_findings {
            assert_eq!(findings["total"], 0);
            assert_eq!(findings["por_tipo"], serde_json::json!({}));
            assert_eq!(findings["secciones"], serde_json::json!([]));
        }
        // archivos: the real sizes and hashes of the served files.
        for (kind, ext) in [("json", "json"), ("zip", "zip")] {
            let bytes = std::fs::read(dist.join(format!("private/descargas/{slug}.{ext}"))).expect("download");
            assert_eq!(sheet["archivos"][kind]["bytes"].as_u64(), Some(bytes.len() as u64), "{slug} {kind} bytes");
            assert_eq!(
                sheet["archivos"][kind]["sha256"].as_str(),
                Some(sha256_hex(&bytes).as_str()),
                "{slug} {kind} sha256"
            );
        }
        assert!(sheet["archivos"]["zip"]["contiene"].as_array().is_some_and(|c| c.len() >= 3));
        for m in sheet["metodologia"].as_array().expect("metodologia") {
            assert!(m["titulo"].is_string() && m["texto"].is_string());
        }
        for u in sheet["universo"].as_array().expect("universo") {
            let values = u["valores"].as_array().expect("valores");
            assert_eq!(u["n_valores"].as_u64(), Some(values.len() as u64));
            let counts: Vec<u64> = values.iter().map(|v| v["n_preguntas"].as_u64().expect("n")).collect();
            if u["dimension"] == "superficie" {
                // The answers' dimension: a question answered on two surfaces counts in both.
                let n = sheet["n_preguntas"].as_u64().expect("n");
                assert!(counts.iter().all(|c| *c <= n) && counts.contains(&n), "{slug}: {counts:?} of {n}");
                let surfaces = sheet["superficies"].as_array().expect("superficies");
                assert_eq!(surfaces.len(), values.len(), "{slug}: the sheet lists each surface");
                continue;
            }
            assert_eq!(
                Some(counts.iter().sum::<u64>()),
                sheet["n_preguntas"].as_u64(),
                "{slug}: every question has one value of {}",
                u["dimension"]
            );
        }
        for t in sheet["analisis_indice"].as_array().expect("indice") {
            for key in ["id", "nombre", "titulo", "columnas", "filas"] {
                assert!(t.get(key).is_some(), "{slug}: analisis_indice lacks {key}");
            }
        }
        let sample = &sheet["ejemplos"]["respuesta"];
        for key in ["pregunta", "modelo", "fecha", "respuesta", "fuentes", "nota"] {
            assert!(sample.get(key).is_some(), "{slug}: sample answer lacks {key}");
        }
        assert!(!sheet["ejemplos"]["preguntas"].as_array().expect("preguntas").is_empty());
        for q in sheet["ejemplos"]["preguntas"].as_array().expect("preguntas") {
            assert!(q["id"].is_string() && q["texto"].is_string() && q["modelo"].is_string());
        }
        for key in ["comprar", "comprar_resumen", "catalogo"] {
            assert!(
                sheet["urls"][key].as_str().is_some_and(|u| u.starts_with(&base)),
                "{slug}: urls.{key} is absolute"
            );
        }
        let buy = &sheet["como_comprar"];
        for key in
            ["protocolo", "moneda", "modo", "redes", "pasos", "vistas", "no_se_cobra_si", "tope_de_tu_cliente", "en"]
        {
            assert!(buy.get(key).is_some(), "{slug}: como_comprar lacks {key}");
        }
        assert_eq!(buy["pasos"].as_array().map(Vec::len), Some(3));
        // MPP beside x402: its steps name the challenge, the credential and the receipt, and
        // the amount is the x402 offer's.
        let mpp = buy["mpp"]["pasos"].as_array().expect("como_comprar.mpp.pasos");
        let mpp_text = mpp.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ");
        for needle in ["WWW-Authenticate", "Authorization: Payment", "Payment-Receipt", "method=\"evm\""] {
            assert!(mpp_text.contains(needle), "{slug}: como_comprar.mpp lacks {needle}");
        }
        assert!(mpp_text.contains(buy["monto_atomico"].as_str().expect("monto_atomico")), "{slug}: MPP amount");
        assert!(buy["clientes_oficiales"].to_string().contains("mppx"), "{slug}: mppx among the clients");
        assert_eq!(buy["modo"], gate["servicio"]["modo"]);
        for r in buy["redes"].as_array().expect("redes") {
            assert!(r["red"].is_string() && r["caip2"].is_string() && r["pagar_a"].is_string());
        }
    }
}

/// Collects every number in a JSON value with the key it sits under.
fn numbers<'a>(value: &'a Value, key: &'a str, out: &mut Vec<(&'a str, f64)>) {
    match value {
        Value::Number(n) => out.push((key, n.as_f64().expect("finite"))),
        Value::Array(items) => items.iter().for_each(|v| numbers(v, key, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| numbers(v, k, out)),
        _ => {}
    }
}

#[test]
fn sheets_leak_nothing_paid() {
    let dist = built();
    for slug in SLUGS {
        let sheet_text =
            std::fs::read_to_string(dist.join(format!("public/estudio/{slug}/ficha.json"))).expect("sheet");
        let sheet: Value = serde_json::from_str(&sheet_text).expect("sheet parses");
        let package = read_json(&dist.join(format!("private/descargas/{slug}.json")));
        // No finding text.
        for f in package["hallazgos"].as_array().expect("hallazgos") {
            for key in ["texto", "texto_en"] {
                let text = f[key].as_str().expect("text");
                assert!(!sheet_text.contains(text), "{slug}: sheet leaks finding {}", f["id"]);
            }
        }
        // No complete answer.
        for a in package["respuestas"].as_array().expect("respuestas") {
            let text = a["respuesta"].as_str().expect("text");
            let escaped = serde_json::to_string(text).expect("escape");
            assert!(!sheet_text.contains(&escaped), "{slug}: sheet leaks full answer {}", a["id"]);
        }
        // No analysis number: every number in the sheet is a count, a size or the price.
        let mut found = Vec::new();
        numbers(&sheet, "", &mut found);
        for (key, n) in found {
            if key == "precio_usd" {
                continue;
            }
            assert!(n.fract() == 0.0, "{slug}: non-integer {n} under `{key}` in a free sheet");
        }
        // The sample answer is trimmed, shorter than the original.
        let sample = sheet["ejemplos"]["respuesta"]["respuesta"].as_str().expect("sample");
        assert!(sample.ends_with("[…]"));
    }
}

#[test]
fn package_and_summary_views() {
    let dist = built();
    for slug in SLUGS {
        let package = read_json(&dist.join(format!("private/descargas/{slug}.json")));
        assert!(package["ficha"].get("archivos").is_none(), "{slug}: a package cannot hold its own hash");
        for key in ["ficha", "diseno", "analisis", "hallazgos", "metricas", "respuestas"] {
            assert!(package.get(key).is_some(), "{slug}: package lacks {key}");
        }
        let questions = package["diseno"]["preguntas"].as_array().expect("preguntas");
        assert_eq!(Some(questions.len() as u64), package["ficha"]["n_preguntas"].as_u64());
        for a in package["respuestas"].as_array().expect("respuestas") {
            for key in ["id", "pregunta", "modelo", "version", "fecha", "respuesta", "fuentes", "marcas_nombradas"] {
                assert!(a.get(key).is_some(), "{slug}: answer lacks {key}");
            }
        }
        assert!(package["analisis"].as_array().is_some_and(|t| t.len() >= 6), "{slug}: at least six tables");
        for f in package["hallazgos"].as_array().expect("hallazgos") {
            for b in f["respaldo"].as_array().expect("respaldo") {
                assert!(b["valor_calculado"].is_number(), "{slug}: backing carries the computed value");
            }
        }

        let summary = read_json(&dist.join(format!("private/estudio/{slug}/resumen.json")));
        assert_eq!(summary["vista"], "resumen");
        for key in ["ficha", "diseno", "hallazgos", "metricas", "analisis_indice", "descargas"] {
            assert!(summary.get(key).is_some(), "{slug}: summary lacks {key}");
        }
        assert!(summary.get("respuestas").is_none() && summary.get("analisis").is_none());
    }
}

#[test]
fn service_documents_agree_on_mode_networks_and_price() {
    let dist = built();
    let index = read_json(&dist.join("public/index.json"));
    let gate = read_json(&dist.join("gate.json"));
    let discovery = read_json(&dist.join("public/.well-known/x402.json"));
    let openapi = read_json(&dist.join("public/openapi.json"));
    let llms = std::fs::read_to_string(dist.join("public/llms.txt")).expect("llms");
    let mode = gate["servicio"]["modo"].as_str().expect("modo");
    assert_eq!(index["modo"], mode);
    assert_eq!(index["como_comprar"]["modo"], mode);
    assert_eq!(discovery["modo"], mode);
    assert_eq!(openapi["x-x402"]["mode"], mode);
    assert!(llms.contains(&format!("Modo de pago: {mode}")));
    assert_eq!(index["estudios_disponibles"], 9);
    for key in ["catalogo", "ficha_gratis", "estudio_pago", "buscar", "metricas", "llms_txt", "openapi", "mcp"] {
        assert!(index["endpoints"][key].is_string(), "index endpoints lack {key}");
    }

    let network = &gate["servicio"]["redes"][0];
    let caip2 = network["caip2"].as_str().expect("caip2");
    assert_eq!(openapi["x-x402"]["networks"][0], caip2);
    assert_eq!(index["como_comprar"]["redes"][0]["caip2"], caip2);
    assert!(llms.contains(caip2));
    assert!(llms.contains("## También con MPP") && llms.contains("Authorization: Payment"), "llms.txt says MPP");
    for slug in SLUGS {
        let study = &gate["estudios"][slug];
        assert_eq!(study["monto"], "990000");
        for view in ["completo", "resumen"] {
            let required = &study["vistas"][view]["pago_requerido"];
            assert_eq!(required["x402Version"], 2);
            let accept = &required["accepts"][0];
            assert_eq!(accept["amount"], "990000");
            assert_eq!(accept["network"], caip2);
            assert_eq!(accept["payTo"], network["pagar_a"]);
            assert_eq!(accept["scheme"], "exact");
            assert!(accept["extra"]["name"].is_string() && accept["extra"]["version"] == "2");
            let url = required["resource"]["url"].as_str().expect("url");
            assert!(url.ends_with(&format!("/estudio/{slug}?vista={view}")));
            assert!(dist.join(study["vistas"][view]["archivo"].as_str().expect("file")).is_file());
        }
        let catalog = read_json(&dist.join("public/catalogo.json"));
        assert!(catalog["estudios"].as_array().expect("estudios").iter().any(|e| e["slug"] == slug));
        assert!(llms.contains(slug), "llms.txt lists {slug}");
    }
}

#[test]
fn manifest_routes_and_downloads_point_at_real_files() {
    let dist = built();
    let gate = read_json(&dist.join("gate.json"));
    for (url, route) in gate["rutas"].as_object().expect("rutas") {
        let bytes = std::fs::read(dist.join(route["archivo"].as_str().expect("file"))).expect("route file");
        assert_eq!(route["bytes"].as_u64(), Some(bytes.len() as u64), "{url}");
        assert!(route["etag"].as_str().is_some_and(|e| e.starts_with('"') && e.len() > 10));
        assert!(route["tipo"].is_string());
    }
    for url in [
        "/",
        "/catalogo",
        "/metricas",
        "/openapi.json",
        "/llms.txt",
        "/.well-known/x402",
        "/server.json",
        "/privacidad",
        "/estudio/banca-2026/ficha",
    ] {
        assert!(gate["rutas"].get(url).is_some(), "manifest lacks route {url}");
    }
    for (name, file) in gate["descargas"].as_object().expect("descargas") {
        let bytes = std::fs::read(dist.join(file["archivo"].as_str().expect("file"))).expect("download");
        assert_eq!(file["sha256"].as_str(), Some(sha256_hex(&bytes).as_str()), "{name}");
    }
    assert_eq!(gate["descargas"].as_object().map(|d| d.len()), Some(18));
    // The search index folds accents and knows brands.
    let terms = gate["busqueda"]["terminos"].as_object().expect("terms");
    assert!(terms.contains_key("galicia"));
    assert!(terms.keys().all(|t| t.chars().all(|c| !c.is_uppercase())));
    assert!(!terms.contains_key("dermatitis atópica") && terms.contains_key("atopica"));
    let redirects = std::fs::read_to_string(dist.join("public/_redirects")).expect("redirects");
    assert!(redirects.contains("/catalogo /catalogo.json 200"));
    let headers = std::fs::read_to_string(dist.join("public/_headers")).expect("headers");
    assert!(headers.contains("Access-Control-Expose-Headers: PAYMENT-REQUIRED, PAYMENT-RESPONSE"));
}

#[test]
fn a_broken_study_fails_the_build_and_leaves_dist_untouched() {
    let work = tempfile::tempdir().expect("temp");
    let content = work.path().join("content");
    copy_tree(&sample_dir(), &content);
    let dist = work.path().join("dist");
    build_into(&content, &dist);
    let before = snapshot(&dist);

    // Break one study: an answer to a question that does not exist.
    let answers = content.join("estudios/farma-2026/respuestas.jsonl");
    let text = std::fs::read_to_string(&answers).expect("answers");
    let broken = text.replacen("\"pregunta\":\"", "\"pregunta\":\"NO-EXISTE-", 1);
    std::fs::write(&answers, broken).expect("write");

    let options = generator::build::BuildOptions {
        content: content.clone(),
        out: dist.clone(),
        quiet: true,
        discard_previous: false,
    };
    let error = generator::build::build(&options).expect_err("a broken study fails the build").to_string();
    assert!(error.contains("farma-2026") && error.contains("respuestas.jsonl"), "{error}");
    assert!(error.contains("línea 1") && error.contains("NO-EXISTE-"), "{error}");
    assert_eq!(snapshot(&dist), before, "dist/ untouched");
    let list = work.path().join("dist.purgar.txt");
    let first_list = std::fs::read(&list).expect("the first build's purge list");
    let error = generator::build::build(&options).expect_err("fails again");
    assert!(error.to_string().contains("farma-2026"));
    assert_eq!(std::fs::read(&list).expect("list"), first_list, "the purge list untouched");
    let mut leftovers: Vec<_> =
        std::fs::read_dir(work.path()).expect("dir").map(|e| e.expect("e").file_name()).collect();
    leftovers.sort();
    assert_eq!(leftovers, ["content", "dist", "dist.purgar.txt"], "no temporary folder left behind");
}

fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, String)> {
    files_under(dir)
        .into_iter()
        .map(|f| {
            let hash = sha256_hex(&std::fs::read(dir.join(&f)).expect("read"));
            (f, hash)
        })
        .collect()
}

/// Studies re-run over the same questions carry change tables everywhere a buyer looks: the
/// package and the summary (the same tables), one xlsx sheet each, the sheet and the catalog
/// (which run, how many questions shared; no numbers), and every verdict follows its interval.
#[test]
fn studies_with_a_previous_run_carry_their_change_tables() {
    let dist = built();
    let catalog = read_json(&dist.join("public/catalogo.json"));
    let mut compared = 0;
    for slug in SLUGS {
        let package = read_json(&dist.join(format!("private/descargas/{slug}.json")));
        let summary = read_json(&dist.join(format!("private/estudio/{slug}/resumen.json")));
        let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
        let entry =
            catalog["estudios"].as_array().expect("estudios").iter().find(|e| e["slug"] == slug).expect("entry");
        let Some(changes) = package.get("cambios") else {
            assert!(summary.get("cambios").is_none() && sheet.get("corrida_anterior").is_none(), "{slug}");
            assert!(entry["corrida_anterior"].is_null(), "{slug}");
            continue;
        };
        compared += 1;
        assert_eq!(summary["cambios"], *changes, "{slug}: the summary carries the same change tables");
        let previous = &sheet["corrida_anterior"];
        assert_eq!(changes["corrida_anterior"], *previous, "{slug}");
        let shared = previous["preguntas_compartidas"].as_u64().expect("shared");
        assert!(shared > 0 && previous["preguntas_agregadas"].as_u64() > Some(0), "{slug}: {previous}");
        assert!(previous["preguntas_retiradas"].as_u64() > Some(0), "{slug}: {previous}");
        assert_eq!(entry["corrida_anterior"]["preguntas_compartidas"].as_u64(), Some(shared), "{slug}");
        // One family of tests per study: the multiplicity control says how many and which.
        let family = &changes["multiplicidad"];
        let (tests, found) =
            (family["pruebas"].as_u64().expect("pruebas"), family["cambios"].as_u64().expect("cambios"));
        let threshold = family["umbral_p"].as_f64().expect("umbral_p");
        assert!(tests > 100 && found <= family["cambios_sin_ajuste"].as_u64().expect("sin ajuste"), "{slug}: {family}");
        let tables = changes["tablas"].as_array().expect("tablas");
        let (mut n_tests, mut n_found) = (0, 0);
        let ids: Vec<&str> = tables.iter().map(|t| t["id"].as_str().expect("id")).collect();
        assert_eq!(ids[0], "cambio_total", "{slug}");
        assert!(ids.iter().any(|id| id.starts_with("cambio_nivel_")), "{slug}: the replaced model, by tier: {ids:?}");
        let listed: Vec<&str> = previous["tablas_cambio"]
            .as_array()
            .expect("listed")
            .iter()
            .map(|t| t["id"].as_str().expect("id"))
            .collect();
        assert_eq!(listed, ids, "{slug}: the sheet lists the change tables");

        let bytes = std::fs::read(dist.join(format!("private/descargas/{slug}.zip"))).expect("zip");
        let mut archive = zip::ZipArchive::new(Cursor::new(&bytes)).expect("zip opens");
        let mut xlsx = Vec::new();
        archive.by_name(&format!("{slug}/{slug}.xlsx")).expect("xlsx entry").read_to_end(&mut xlsx).expect("read");
        let mut book: calamine::Xlsx<_> = calamine::open_workbook_from_rs(Cursor::new(xlsx)).expect("xlsx opens");
        for table in tables {
            let id = table["id"].as_str().expect("id");
            let range = book.worksheet_range(id).unwrap_or_else(|e| panic!("{slug}: no sheet {id}: {e}"));
            let rows = table["filas"].as_array().expect("rows");
            assert_eq!(range.height(), rows.len() + 1, "{slug} {id}: one row per brand");
            let columns: Vec<&str> =
                table["columnas"].as_array().expect("cols").iter().map(|c| c.as_str().expect("c")).collect();
            for (c, name) in columns.iter().enumerate() {
                let Some(metric) = name.strip_suffix("_diferencia_ic_ajustado") else { continue };
                let at = |suffix: &str| columns.iter().position(|x| *x == format!("{metric}{suffix}")).expect(suffix);
                let (verdict, p, ic95) = (at("_veredicto"), at("_diferencia_p"), at("_diferencia_ic95"));
                for row in rows {
                    let what = format!("{slug} {id} {} {metric}", row[0]);
                    let (Value::Array(adjusted), Some(p)) = (&row[c], row[p].as_f64()) else {
                        // No interval, or too few questions to test: no p-value, no verdict.
                        assert!(row[verdict].is_null() && row[c].is_null() && row[p].is_null(), "{what}");
                        continue;
                    };
                    n_tests += 1;
                    n_found += u64::from(row[verdict] != "sin cambio más allá del ruido");
                    let (low, high) = (adjusted[0].as_f64().expect("low"), adjusted[1].as_f64().expect("high"));
                    let (low95, high95) = (row[ic95][0].as_f64().expect("low"), row[ic95][1].as_f64().expect("high"));
                    assert!(low <= low95 && high >= high95, "{what}: the adjusted interval holds the 95% one");
                    // The verdict is Benjamini–Hochberg's (p at most R·q/m, p rounded to four
                    // significant digits) and follows the adjusted interval (bounds rounded).
                    match row[verdict].as_str().expect("verdict") {
                        "creció" => assert!(p <= threshold * 1.001 && low >= 0.0, "{what}: p {p}, [{low}, {high}]"),
                        "cayó" => assert!(p <= threshold * 1.001 && high <= 0.0, "{what}: p {p}, [{low}, {high}]"),
                        _ => assert!(
                            (found == 0 || p >= threshold * 0.999) && low <= 0.0 && high >= 0.0,
                            "{what}: p {p}, [{low}, {high}]"
                        ),
                    }
                }
            }
        }
        assert_eq!((n_tests, n_found), (tests, found), "{slug}: the family is every change cell with an interval");
    }
    assert!(compared >= 3, "at least three sample studies are compared with a previous run");
}
