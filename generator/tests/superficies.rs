//! A study with two surfaces (a provider's API and Google's AI Overviews) whose API answers
//! record the sources the provider consulted: `generator check` and `build` accept it, the
//! tables cut by surface and the new metric "consulted, not cited" come out as the texts say
//! (hand-computed here), the package and the xlsx carry each answer's surface and sources, and
//! the independent recomputation (`tests/recalculo/recalcular.py`) agrees with every cell.

use std::io::{Cursor, Read};
use std::path::Path;
use std::process::{Command, Output};

use calamine::{Data, Reader, Xlsx, open_workbook_from_rs};
use generator::metrics::analysis::{Cell, Table};
use generator::metrics::exact::round_float;
use generator::metrics::interval::wilson;
use serde_json::Value;

const SLUG: &str = "superficies-prueba";

/// The sample content's folder: its `servicio.toml` and `metricas.toml` serve this study too.
fn sample_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/muestra")
}

const STUDY: &str = r#"nombre = "Superficies de prueba"
nombre_en = "Surfaces test"
descripcion = "Un estudio chico con dos superficies."
descripcion_en = "A small study with two surfaces."
industria = "Prueba"
subindustria = "Prueba"
pais = ["Argentina"]
idioma = ["es"]
publicado = "2026-04-15"
version_paquete = "1.0.0"
tags = []
como_citar = "Prueba (2026)."
nota = "Datos de prueba."

[[metodologia]]
titulo = "Diseño"
texto = "Cuatro preguntas, hechas a la API de GPT-5 mini y buscadas en Google."

[[dimensiones]]
id = "superficie"
etiqueta = "Superficie"
etiqueta_en = "Surface"
valores = ["api", "google_ai_overview"]

[[modelos]]
id = "gpt-5-mini"
nombre = "GPT-5 mini"
proveedor = "OpenAI"
nivel = "estándar"

[[modelos]]
id = "google-ai-overview"
nombre = "Google AI Overviews"
proveedor = "Google"
nivel = "estándar"

[[analisis]]
id = "A01"
nombre = "visibilidad"
titulo = "Visibilidad"
titulo_en = "Visibility"
tipo = "marcas"
metricas = ["mencion", "citacion", "consultada_no_citada"]

[[analisis]]
id = "A02"
nombre = "mencion_por_superficie"
titulo = "Mención por superficie"
titulo_en = "Mention by surface"
tipo = "marca_por_dimension"
metricas = ["mencion"]
dimension = "superficie"

[[analisis]]
id = "A03"
nombre = "consultada_por_superficie"
titulo = "Consultada y no citada por superficie"
titulo_en = "Consulted, not cited, by surface"
tipo = "marca_por_dimension"
metricas = ["consultada_no_citada"]
dimension = "superficie"

[[analisis]]
id = "A04"
nombre = "consultada_resumen_google"
titulo = "Consultada y no citada, solo el resumen de Google"
titulo_en = "Consulted, not cited, Google's overview only"
tipo = "marcas"
metricas = ["consultada_no_citada"]
filtro = { superficie = "google_ai_overview" }
"#;

const BRANDS: &str = r#"[[marcas]]
id = "acme"
nombre = "Acme"
dominios = ["acme.com.ar"]

[[marcas]]
id = "beta"
nombre = "Beta"
dominios = ["beta.com.ar"]
"#;

const QUESTIONS: &str = r#"{"id": "P1", "texto": "¿Cuál conviene?", "idioma": "es", "modelo": "estándar"}
{"id": "P2", "texto": "¿Cuál es más barata?", "idioma": "es", "modelo": "estándar"}
{"id": "P3", "texto": "¿Cuál atiende mejor?", "idioma": "es", "modelo": "estándar"}
{"id": "P4", "texto": "¿Cuál tiene más sucursales?", "idioma": "es", "modelo": "estándar"}
"#;

/// R1–R4: the API, recording what it consulted (R1 consulted Beta and cited only Acme; R2
/// consulted Beta and cited nothing; R3 consulted nothing; R4 cited the Acme page it consulted,
/// with OpenAI's `utm_source`). R5–R8: Google's overview, captured without its list of
/// references (consulted sources not recorded).
const ANSWERS: &str = r#"{"id": "R1", "pregunta": "P1", "modelo": "gpt-5-mini", "version": "v1", "fecha": "2026-04-02", "respuesta": "Acme y Beta.", "fuentes": [{"url": "https://www.acme.com.ar/x", "titulo": "Acme"}], "superficie": "api", "fuentes_consultadas": [{"url": "https://www.acme.com.ar/x", "titulo": "Acme"}, {"url": "https://beta.com.ar/y", "titulo": "Beta"}, {"url": "https://www.diario.com.ar/z", "titulo": "Diario"}]}
{"id": "R2", "pregunta": "P2", "modelo": "gpt-5-mini", "version": "v1", "fecha": "2026-04-02", "respuesta": "Beta.", "fuentes_consultadas": [{"url": "https://ayuda.beta.com.ar/p", "titulo": "Ayuda Beta"}]}
{"id": "R3", "pregunta": "P3", "modelo": "gpt-5-mini", "version": "v1", "fecha": "2026-04-03", "respuesta": "Ninguna en particular.", "superficie": "api", "fuentes_consultadas": []}
{"id": "R4", "pregunta": "P4", "modelo": "gpt-5-mini", "version": "v1", "fecha": "2026-04-03", "respuesta": "Acme.", "fuentes": [{"url": "https://www.acme.com.ar/?utm_source=openai", "titulo": "Acme"}], "fuentes_consultadas": [{"url": "https://www.acme.com.ar/", "titulo": "Acme"}]}
{"id": "R5", "pregunta": "P1", "modelo": "google-ai-overview", "version": "ai-overview", "fecha": "2026-04-04", "respuesta": "Acme.", "fuentes": [{"url": "https://acme.com.ar/", "titulo": "Acme"}], "superficie": "google_ai_overview"}
{"id": "R6", "pregunta": "P2", "modelo": "google-ai-overview", "version": "ai-overview", "fecha": "2026-04-04", "respuesta": "Beta y Acme.", "superficie": "google_ai_overview"}
{"id": "R7", "pregunta": "P3", "modelo": "google-ai-overview", "version": "ai-overview", "fecha": "2026-04-05", "respuesta": "Acme.", "superficie": "google_ai_overview"}
{"id": "R8", "pregunta": "P4", "modelo": "google-ai-overview", "version": "ai-overview", "fecha": "2026-04-05", "respuesta": "Nada que recomendar.", "superficie": "google_ai_overview"}
"#;

/// A content folder with the sample's service files and the two-surface study.
fn content(root: &Path) -> std::path::PathBuf {
    let content = root.join("content");
    let study = content.join("estudios").join(SLUG);
    std::fs::create_dir_all(&study).expect("mkdir");
    for file in ["servicio.toml", "metricas.toml"] {
        std::fs::copy(sample_dir().join(file), content.join(file)).expect("copy");
    }
    for (name, text) in [
        ("estudio.toml", STUDY),
        ("marcas.toml", BRANDS),
        ("preguntas.jsonl", QUESTIONS),
        ("respuestas.jsonl", ANSWERS),
        ("hallazgos.toml", ""),
    ] {
        std::fs::write(study.join(name), text).expect("write");
    }
    content
}

fn generator(args: &[&str], content: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_generator")).args(args).arg("--contenido").arg(content).output().expect("runs")
}

fn num(t: &Table, row: &str, col: &str) -> Option<f64> {
    t.cell(row, col).and_then(Cell::as_f64)
}

fn rounded_wilson(p: f64, n: f64) -> Cell {
    let (low, high) = wilson(p, n);
    Cell::Interval(round_float(low, 4), round_float(high, 4))
}

#[test]
fn a_study_with_two_surfaces_checks_builds_and_recomputes() {
    let work = tempfile::tempdir().expect("temp");
    let content = content(work.path());
    let output = generator(&["check"], &content);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("aviso"), "no warning: {stderr}");

    let checked = generator::check(&content).unwrap_or_else(|p| panic!("{p}"));
    let tables = &checked.tables[0];
    let t = |id: &str| tables.iter().find(|t| t.id == id).expect(id);
    // Each model weighs 1/2 and answers four questions: every answer weighs 1/8.
    let a01 = t("A01");
    assert_eq!(num(a01, "Acme", "mencion"), Some(0.625), "R1, R4, R5, R6, R7");
    assert_eq!(num(a01, "Beta", "mencion"), Some(0.375), "R1, R2, R6");
    assert_eq!(num(a01, "Acme", "citacion"), Some(0.375), "R1, R4 (utm_source), R5");
    // Consulted, not cited: over the four API answers that record what they consulted.
    assert_eq!(num(a01, "Beta", "consultada_no_citada"), Some(0.5), "R1 and R2 of R1–R4");
    assert_eq!(num(a01, "Beta", "consultada_no_citada_n"), Some(4.0));
    // One model, one answer per question in the base: plain Wilson on 4.
    assert_eq!(a01.cell("Beta", "consultada_no_citada_ic95"), Some(&rounded_wilson(0.5, 4.0)));
    assert_eq!(num(a01, "Acme", "consultada_no_citada"), Some(0.0), "R4 cited what it consulted");
    assert!(a01.note.as_deref().is_some_and(|n| n.contains("sobre las 4 respuestas que registran")), "{:?}", a01.note);

    // Cut by surface: a column per surface, the total over both.
    let a02 = t("A02");
    assert_eq!(a02.columns[1..5], ["api", "api_n", "api_n_ef", "api_ic95"]);
    assert_eq!((num(a02, "Acme", "api"), num(a02, "Acme", "google_ai_overview")), (Some(0.5), Some(0.75)));
    assert_eq!((num(a02, "Beta", "api"), num(a02, "Beta", "google_ai_overview")), (Some(0.5), Some(0.25)));
    assert_eq!(num(a02, "Acme", "total"), Some(0.625));
    // The overview records nothing consulted: its column is empty, not 0.
    let a03 = t("A03");
    assert_eq!(num(a03, "Beta", "api"), Some(0.5));
    assert_eq!(a03.cell("Beta", "google_ai_overview"), Some(&Cell::Null));
    assert_eq!(a03.cell("Beta", "google_ai_overview_n"), Some(&Cell::Int(0)));
    assert_eq!(num(a03, "Beta", "total"), Some(0.5));
    let a04 = t("A04");
    assert!(a04.rows.iter().all(|r| r[1] == Cell::Null), "{:?}", a04.rows);
    assert!(a04.note.as_deref().is_some_and(|n| n.contains("no registrada")), "{:?}", a04.note);

    let dist = work.path().join("dist");
    let output = generator(&["build", "--salida", dist.to_str().expect("utf-8"), "--silencioso"], &content);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let package: Value =
        serde_json::from_slice(&std::fs::read(dist.join(format!("private/descargas/{SLUG}.json"))).expect("package"))
            .expect("json");
    let answers = package["respuestas"].as_array().expect("answers");
    let answer = |id: &str| answers.iter().find(|a| a["id"] == id).expect(id);
    assert_eq!(answer("R1")["superficie"], "api");
    assert_eq!(answer("R2")["superficie"], "api", "a line without `superficie` is the API");
    assert_eq!(answer("R5")["superficie"], "google_ai_overview");
    assert_eq!(answer("R1")["fuentes_consultadas"].as_array().map(Vec::len), Some(3));
    assert_eq!(answer("R1")["marcas_consultadas"], serde_json::json!(["acme", "beta"]));
    assert_eq!(answer("R1")["marcas_citadas"], serde_json::json!(["acme"]));
    assert_eq!(answer("R3")["fuentes_consultadas"], serde_json::json!([]));
    assert_eq!(answer("R3")["marcas_consultadas"], serde_json::json!([]));
    assert!(answer("R5")["fuentes_consultadas"].is_null() && answer("R5")["marcas_consultadas"].is_null());
    let sheet = &package["ficha"];
    assert_eq!(
        sheet["superficies"],
        serde_json::json!([
            {"id": "api", "nombre": "API del proveedor", "nombre_en": "Provider's API", "respuestas": 4, "con_fuentes_consultadas": 4},
            {"id": "google_ai_overview", "nombre": "Google: visión general creada por IA (AI Overview)", "nombre_en": "Google AI Overview", "respuestas": 4, "con_fuentes_consultadas": 0}
        ])
    );
    let method = sheet["metodologia"].as_array().expect("metodologia");
    let surfaces = method.iter().find(|s| s["titulo"] == "Superficies y fuentes consultadas").expect("section");
    assert!(surfaces["texto"].as_str().is_some_and(|t| t.contains("vienen de 2 superficies")), "{surfaces}");

    // The xlsx's answers sheet: surface and consulted sources per answer.
    let zip = std::fs::read(dist.join(format!("private/descargas/{SLUG}.zip"))).expect("zip");
    let mut archive = zip::ZipArchive::new(Cursor::new(zip)).expect("zip opens");
    let mut xlsx = Vec::new();
    archive.by_name(&format!("{SLUG}/{SLUG}.xlsx")).expect("xlsx").read_to_end(&mut xlsx).expect("read");
    let mut book: Xlsx<_> = open_workbook_from_rs(Cursor::new(xlsx)).expect("xlsx opens");
    let sheet = book.worksheet_range("respuestas").expect("respuestas");
    let header: Vec<String> =
        (0..sheet.width()).map(|c| sheet.get((0, c)).map(|d| d.to_string()).unwrap_or_default()).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("{name} in {header:?}"));
    let (surface, consulted) = (col("superficie"), col("fuentes_consultadas"));
    assert_eq!(sheet.get((5, surface)), Some(&Data::String("google_ai_overview".into())));
    assert_eq!(sheet.get((5, consulted)), Some(&Data::String("(no registradas)".into())));
    assert_eq!(sheet.get((3, consulted)), Some(&Data::Empty), "R3 recorded that it consulted nothing");

    recompute(&content, &dist);
}

/// `tests/recalculo/recalcular.py` on the built study, when Python is here (CI has it).
fn recompute(content: &Path, dist: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/recalculo/recalcular.py");
    match Command::new("python3").arg(script).arg("--content").arg(content).arg("--dist").arg(dist).output() {
        Ok(output) => {
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
            assert!(stdout.contains(", 0 mismatches"), "{stdout}");
        }
        Err(e) => eprintln!("python3 no está: se omite el recálculo independiente ({e})"),
    }
}

#[test]
fn a_bad_surface_or_consulted_source_is_located() {
    let work = tempfile::tempdir().expect("temp");
    let content = content(work.path());
    let study = content.join("estudios").join(SLUG);
    let answers = ANSWERS
        .replacen("\"superficie\": \"api\"", "\"superficie\": \"Google AI\"", 1)
        .replacen("https://ayuda.beta.com.ar/p", "ayuda.beta.com.ar/p", 1)
        .replace("\"superficie\": \"google_ai_overview\"}", "\"superficie\": \"google_ai_mode\"}");
    std::fs::write(study.join("respuestas.jsonl"), answers).expect("write");
    std::fs::write(
        study.join("preguntas.jsonl"),
        QUESTIONS.replacen("\"modelo\": \"estándar\"}", "\"modelo\": \"estándar\", \"superficie\": \"api\"}", 1),
    )
    .expect("write");
    let output = generator(&["check"], &content);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    let file = study.join("respuestas.jsonl").display().to_string();
    assert!(
        stderr.contains(&format!("{file}: línea 1, campo `superficie`: `Google AI` no es una superficie")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{file}: línea 2, campo `fuentes_consultadas[0].url`: `ayuda.beta.com.ar/p` no es una URL válida"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{file}: línea 5, campo `superficie`: `google_ai_mode` no es un valor de la dimensión `superficie` de estudio.toml (api, google_ai_overview)"
        )),
        "{stderr}"
    );
    let questions = study.join("preguntas.jsonl").display().to_string();
    assert!(
        stderr.contains(&format!("{questions}: línea 1, campo `superficie`: la superficie es de cada respuesta")),
        "{stderr}"
    );
}

#[test]
fn asking_for_consulted_sources_none_recorded_is_a_warning() {
    let work = tempfile::tempdir().expect("temp");
    let content = content(work.path());
    let study = content.join("estudios").join(SLUG);
    let unrecorded: String = ANSWERS
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).expect("line");
            v.as_object_mut().expect("object").remove("fuentes_consultadas");
            format!("{v}\n")
        })
        .collect();
    std::fs::write(study.join("respuestas.jsonl"), unrecorded).expect("write");
    let output = generator(&["check"], &content);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "a warning, not an error: {stderr}");
    assert!(
        stderr.contains("analisis[0].metricas: A01: `consultada_no_citada` sale vacía (no registrada)"),
        "{stderr}"
    );
    let checked = generator::check(&content).unwrap_or_else(|p| panic!("{p}"));
    let a01 = checked.tables[0].iter().find(|t| t.id == "A01").expect("A01");
    assert!(a01.rows.iter().all(|r| r[9] == Cell::Null), "never a misleading 0: {:?}", a01.rows);
}
