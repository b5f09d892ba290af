//! The committed PDF reports, read back with poppler (`pdftotext`, `pdfinfo`) and compared
//! with the package JSON the build produces from the same content. No typesetting here: the
//! reports are content inputs rendered by `generator informes` (cargo feature `pdf`).

mod common;

use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use generator::model::{Metric, Study, TableKind, TableSpec};
use serde_json::Value;

const LANGS: [&str; 2] = ["es", "en"];

fn report_path(slug: &str, lang: &str) -> PathBuf {
    sample_dir().join(format!("estudios/{slug}/informes/informe-{lang}.pdf"))
}

/// Studies whose `informes/` folder holds reports.
fn studies_with_reports() -> Vec<&'static str> {
    SLUGS.iter().copied().filter(|slug| sample_dir().join(format!("estudios/{slug}/informes")).is_dir()).collect()
}

/// `pdftotext -layout`: table rows stay on one line.
fn pdf_text(path: &Path) -> String {
    let out = Command::new("pdftotext")
        .args(["-layout", "-enc", "UTF-8"])
        .arg(path)
        .arg("-")
        .output()
        .expect("pdftotext is installed (poppler-utils, see README)");
    assert!(out.status.success(), "pdftotext {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 text")
}

fn pdf_info(path: &Path) -> String {
    let out = Command::new("pdfinfo").arg(path).output().expect("pdfinfo is installed (poppler-utils)");
    assert!(out.status.success(), "pdfinfo {}", path.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whitespace collapsed to single spaces.
/// Whitespace collapsed to single spaces; a line broken after a hyphen ("gemini-2.5-" /
/// "pro") joined again, as the PDF's text breaks a model id at its hyphens.
fn squash(text: &str) -> String {
    let mut joined = String::with_capacity(text.len());
    for line in text.lines() {
        let continues = joined.ends_with('-');
        if !continues && !joined.is_empty() {
            joined.push('\n');
        }
        joined.push_str(if continues { line.trim_start() } else { line });
    }
    joined.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How a number is printed in the reports: rates as percentages with one decimal, scores with
/// two, HHI whole; decimal comma in Spanish; a true minus sign.
#[derive(Clone, Copy, Debug)]
enum Shown {
    Percent,
    Two,
    Signed,
    Whole,
    /// A difference between runs: a rate's in points, a score's, always with its sign.
    SignedPercent,
    SignedTwo,
}

fn shown(value: f64, how: Shown, lang: &str) -> String {
    let text = match how {
        Shown::Percent => format!("{:.1}", value * 100.0),
        Shown::Two => format!("{value:.2}"),
        Shown::Signed if value > 0.0 => format!("+{value:.2}"),
        Shown::Signed => format!("{value:.2}"),
        Shown::Whole => format!("{value:.0}"),
        Shown::SignedPercent => with_sign(format!("{:.1}", value * 100.0)),
        Shown::SignedTwo => with_sign(format!("{value:.2}")),
    };
    let text = if text.trim_start_matches(['-', '0', '.']).is_empty() {
        text.replace('-', "")
    } else {
        text.replace('-', "\u{2212}")
    };
    if lang == "es" { text.replace('.', ",") } else { text }
}

/// A `+` before a positive number (not before zero or a negative one).
fn with_sign(text: String) -> String {
    if text.starts_with('-') || text.trim_start_matches(['0', '.']).is_empty() { text } else { format!("+{text}") }
}

/// How a difference of `metric` is printed.
fn difference_shown(metric: Metric) -> Shown {
    match metric_shown(metric) {
        Shown::Percent => Shown::SignedPercent,
        Shown::Two => Shown::SignedTwo,
        other => other,
    }
}

/// How column `column` of a change table is printed: `<metric>_anterior` and `_actual` as the
/// metric, `<metric>_diferencia` signed.
fn change_column_shown(column: &str) -> Option<Shown> {
    let metric = Metric::ALL.iter().copied().find(|m| column.starts_with(&format!("{}_", m.id())))?;
    match &column[metric.id().len()..] {
        "_anterior" | "_actual" => Some(metric_shown(metric)),
        "_diferencia" => Some(difference_shown(metric)),
        _ => None,
    }
}

fn metric_shown(metric: Metric) -> Shown {
    match metric {
        Metric::Order | Metric::Prominence => Shown::Two,
        Metric::NetTone => Shown::Signed,
        _ => Shown::Percent,
    }
}

/// How column `column` of the table built from `spec` is printed (`None`: a count or text).
fn column_shown(spec: &TableSpec, column: &str) -> Option<Shown> {
    if let Some(metric) = Metric::ALL.iter().find(|m| m.id() == column) {
        return Some(metric_shown(*metric));
    }
    match column {
        "con_marca" | "top1_lider" | "tasa" | "top1_coincide" => Some(Shown::Percent),
        "hhi_sov" | "hhi_top1" => Some(Shown::Whole),
        "jaccard" => Some(Shown::Two),
        _ if matches!(
            spec.kind,
            TableKind::BrandByModel | TableKind::BrandByDimension | TableKind::ModelByDimension
        ) =>
        {
            spec.metrics.first().map(|m| metric_shown(*m))
        }
        _ => None,
    }
}

fn lines_with<'a>(text: &'a str, parts: &[&str]) -> Vec<&'a str> {
    text.lines().filter(|line| parts.iter().all(|p| line.contains(p))).collect()
}

/// True when some line starting with `key` (a table row's name) has every one of `parts` on
/// it or on the two lines above or below it (the rest of the row).
fn rows_with(text: &str, key: &str, parts: &[&str]) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    lines.iter().enumerate().filter(|(_, l)| l.trim_start().starts_with(key)).any(|(i, _)| {
        let block = lines[i.saturating_sub(2)..(i + 3).min(lines.len())].join("\n");
        parts.iter().all(|p| block.contains(p))
    })
}

/// An analysis table of the package, or one of its change tables (`cambios.tablas`).
fn table<'a>(package: &'a Value, id: &str) -> &'a Value {
    let changes = package["cambios"]["tablas"].as_array().into_iter().flatten();
    package["analisis"].as_array().expect("analisis").iter().chain(changes).find(|t| t["id"] == id).expect("table")
}

fn cell(table: &Value, row: &str, column: &str) -> Value {
    let columns = table["columnas"].as_array().expect("columnas");
    let i = columns.iter().position(|c| c == column).expect("column");
    let row = table["filas"].as_array().expect("filas").iter().find(|r| r[0] == row).expect("row");
    row[i].clone()
}

/// The loaded study (its table specs say which metric a crossed table shows).
fn content_study(slug: &str) -> &'static Study {
    static CHECKED: std::sync::OnceLock<generator::Checked> = std::sync::OnceLock::new();
    let checked =
        CHECKED.get_or_init(|| generator::check(&sample_dir()).unwrap_or_else(|p| panic!("content checks: {p}")));
    checked.content.studies.iter().find(|s| s.slug == slug).expect("study")
}

#[test]
fn four_or_more_studies_ship_both_reports_and_the_rest_none() {
    let with = studies_with_reports();
    assert!(with.len() >= 4, "at least four studies have reports, got {with:?}");
    assert!(with.len() < SLUGS.len(), "some studies ship without reports, as in the service this replaces");
    // Both kinds of study have reports: compared with a previous run and first runs.
    let compared = with.iter().filter(|slug| sample_dir().join(format!("estudios/{slug}/anterior")).is_dir()).count();
    assert!(compared >= 1 && compared < with.len(), "{compared} of {with:?} compared with a previous run");
    for slug in SLUGS {
        let dir = sample_dir().join(format!("estudios/{slug}/informes"));
        if !dir.is_dir() {
            continue;
        }
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["informe-en.pdf", "informe-es.pdf"], "{slug}");
    }
}

#[test]
fn zips_carry_exactly_the_committed_reports() {
    let dist = built();
    let with = studies_with_reports();
    for slug in SLUGS {
        let bytes = std::fs::read(dist.join(format!("private/descargas/{slug}.zip"))).expect("zip");
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("zip opens");
        let reports: Vec<String> = archive
            .file_names()
            .map(|n| n.expect("entry name").into_owned())
            .filter(|n| n.contains("/informes/"))
            .collect();
        let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
        let listed: Vec<&str> = sheet["archivos"]["zip"]["contiene"]
            .as_array()
            .expect("contiene")
            .iter()
            .filter_map(Value::as_str)
            .filter(|n| n.contains("/informes/"))
            .collect();
        if !with.contains(&slug) {
            assert!(reports.is_empty() && listed.is_empty(), "{slug}: no reports, none in the ZIP");
            continue;
        }
        let mut expected = vec![format!("{slug}/informes/informe-en.pdf"), format!("{slug}/informes/informe-es.pdf")];
        expected.sort();
        let mut found = reports.clone();
        found.sort();
        assert_eq!(found, expected, "{slug}: both reports in the ZIP");
        assert_eq!(listed, expected.iter().map(String::as_str).collect::<Vec<_>>(), "{slug}: the sheet lists them");
        for lang in LANGS {
            let mut inner = Vec::new();
            archive
                .by_name(&format!("{slug}/informes/informe-{lang}.pdf"))
                .expect("entry")
                .read_to_end(&mut inner)
                .expect("read");
            assert!(
                inner == std::fs::read(report_path(slug, lang)).expect("committed pdf"),
                "{slug} {lang}: ZIP holds the committed bytes"
            );
        }
    }
}

#[test]
fn reports_print_the_packages_numbers() {
    let dist = built();
    for slug in studies_with_reports() {
        let package = read_json(&dist.join(format!("private/descargas/{slug}.json")));
        let study = content_study(slug);
        let specs: Vec<&TableSpec> = study.design.analyses.iter().collect();
        let spec_of = |id: &str| specs.iter().find(|s| s.id == id).copied();
        let brand_spec = specs
            .iter()
            .find(|s| s.kind == TableKind::Brands && s.filter.is_empty() && s.metrics.contains(&Metric::Prominence))
            .expect("a brand table with Protagonismo IA");
        let brands = table(&package, &brand_spec.id);
        let n_answers = package["respuestas"].as_array().expect("respuestas").len();
        assert_eq!(package["ficha"]["n_respuestas"].as_u64(), Some(n_answers as u64));

        for lang in LANGS {
            let path = report_path(slug, lang);
            let text = pdf_text(&path);
            let label = if lang == "es" { "Respuestas" } else { "Answers" };
            let n = n_answers.to_string();
            assert!(
                !lines_with(&text, &[label, n.as_str()]).is_empty(),
                "{slug} {lang}: the number of answers ({n_answers}) is printed"
            );

            // Every brand row of the visibility table: mention rate and Protagonismo IA.
            let rows = brands["filas"].as_array().expect("filas");
            assert!(rows.len() >= 5);
            for (i, row) in rows.iter().enumerate() {
                let brand = row[0].as_str().expect("brand");
                let mention = cell(brands, brand, "mencion").as_f64().expect("mention");
                let prominence = cell(brands, brand, "protagonismo").as_f64().expect("prominence");
                let (m, p) = (shown(mention, Shown::Percent, lang), shown(prominence, Shown::Two, lang));
                // A row of many columns can be three lines tall (an interval that wraps), and the
                // text layer puts its name on the middle one: look at the lines around the name.
                let hits = rows_with(&text, brand, &[m.as_str(), p.as_str()]);
                assert!(hits, "{slug} {lang}: row {brand} with mention {m} and Protagonismo IA {p}");
                if i == 0 {
                    // The top brand is also the cover's headline figure.
                    let unit = if lang == "es" { " %" } else { "%" };
                    assert!(text.contains(&format!("{m}{unit}")), "{slug} {lang}: cover shows {m}{unit} for {brand}");
                }
            }

            // Every number a finding rests on, as its backing row prints it.
            let findings = package["hallazgos"].as_array().expect("hallazgos");
            assert!(!findings.is_empty(), "{slug}: reports are made for studies with findings");
            let (mut checked, mut intervals, mut verdicts) = (0, 0, 0);
            for f in findings {
                for b in f["respaldo"].as_array().expect("respaldo") {
                    let table_id = b["tabla"].as_str().expect("tabla");
                    let row = b["fila"].as_str().expect("fila");
                    let column = b["columna"].as_str().expect("columna");
                    let computed = b["valor_calculado"].as_f64().expect("computed");
                    assert_eq!(cell(table(&package, table_id), row, column).as_f64(), Some(computed));
                    let how = match spec_of(table_id) {
                        Some(spec) => column_shown(spec, column),
                        None => change_column_shown(column),
                    };
                    let value = match how {
                        Some(how) => shown(computed, how, lang),
                        None => format!("{computed:.0}"),
                    };
                    let key = generator::render::report::tables::display_key(study, row);
                    // A rate or mean prints its 95% interval on the same row.
                    let mut parts = vec![table_id.to_owned(), key.clone(), value.clone()];
                    if let (Some(how), Some(bounds)) = (how, b["ic95"].as_array()) {
                        let bound = |i: usize| shown(bounds[i].as_f64().expect("bound"), how, lang);
                        parts.push(format!("[{} – {}]", bound(0), bound(1)));
                        intervals += 1;
                    }
                    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
                    assert!(
                        !lines_with(&text, &parts).is_empty(),
                        "{slug} {lang}: finding {} backing {table_id}/{row}/{column} printed as {parts:?}",
                        f["id"]
                    );
                    checked += 1;
                }
                // Each comparison the finding makes, with its verdict in the report's language.
                let squashed = squash(&text);
                for c in f["comparaciones"].as_array().expect("comparaciones") {
                    let verdict = c[if lang == "es" { "veredicto" } else { "veredicto_en" }].as_str().expect("verdict");
                    let side = |s: &Value| {
                        let key = |k: &str| {
                            generator::render::report::tables::display_key(study, s[k].as_str().expect("key"))
                        };
                        format!("{} ({})", key("fila"), key("columna"))
                    };
                    let claim = match (c["afirma"].as_str(), lang) {
                        (Some("diferencia"), "es") => "se afirma una diferencia",
                        (Some("diferencia"), _) => "a difference is claimed",
                        (_, "es") => "se afirma un empate",
                        _ => "a tie is claimed",
                    };
                    let against = if lang == "es" { "frente a" } else { "against" };
                    // The whole line: both sides, in order, what is claimed and the verdict.
                    let line = format!("{} {against} {}: {claim}. {verdict}", side(&c["a"]), side(&c["b"]));
                    assert!(squashed.contains(&squash(&line)), "{slug} {lang}: {} prints {line}", f["id"]);
                    verdicts += 1;
                }
            }
            assert!(intervals >= 5 && verdicts >= 1, "{slug} {lang}: {intervals} intervals, {verdicts} verdicts");
            assert!(checked >= 10, "{slug}: {checked} backing values checked");
        }
    }
}

/// A verdict as a report prints it; a cell with a 95% interval and no verdict had too few
/// questions to be tested.
fn verdict_shown(verdict: &Value, has_interval: bool, lang: &str) -> &'static str {
    match (verdict.as_str(), lang) {
        (None, "es") if has_interval => "pocas preguntas, sin veredicto",
        (None, _) if has_interval => "too few questions, no verdict",
        (Some("creció"), "es") => "creció",
        (Some("creció"), _) => "grew",
        (Some("cayó"), "es") => "cayó",
        (Some("cayó"), _) => "fell",
        (Some("sin cambio más allá del ruido"), "es") => "sin cambio más allá del ruido",
        (Some("sin cambio más allá del ruido"), _) => "no change beyond the noise",
        (_, "es") => "sin intervalo",
        _ => "no interval",
    }
}

#[test]
fn reports_draw_each_brands_change_since_the_previous_run() {
    let dist = built();
    let (mut with_previous, mut without) = (0, 0);
    for slug in studies_with_reports() {
        let package = read_json(&dist.join(format!("private/descargas/{slug}.json")));
        for lang in LANGS {
            let text = pdf_text(&report_path(slug, lang));
            let title = if lang == "es" { "Cambio desde la corrida anterior" } else { "Change since the previous run" };
            let Some(tables) = package["cambios"]["tablas"].as_array() else {
                assert!(!text.contains(title), "{slug} {lang}: a first run has no change section");
                without += 1;
                continue;
            };
            with_previous += 1;
            let sheet = &package["cambios"]["corrida_anterior"];
            let shared = sheet["preguntas_compartidas"].as_u64().expect("shared");
            let squashed = squash(&text);
            assert!(squashed.contains(title), "{slug} {lang}: the change section");
            let says = if lang == "es" {
                format!("usa las {shared} preguntas que comparten las dos corridas")
            } else {
                format!("uses the {shared} questions both runs share")
            };
            assert!(squashed.contains(&says), "{slug} {lang}: says how many questions are shared ({shared})");
            // And how many cells the study compares, with and without the adjustment.
            let family = &package["cambios"]["multiplicidad"];
            let (tests, unadjusted) =
                (family["pruebas"].as_u64().expect("m"), family["cambios_sin_ajuste"].as_u64().expect("u"));
            let says = if lang == "es" {
                format!(
                    "El estudio prueba {tests} celdas (marca, métrica y tabla con al menos 10 preguntas en su base) y con tantas comparaciones algunas cruzarían el cero por azar: al 95 % cada una, {unadjusted} celdas dirían"
                )
            } else {
                format!(
                    "The study tests {tests} cells (brand, metric and table with at least 10 questions in their base), and with so many comparisons some would cross zero by chance: at 95% each, {unadjusted} cells would say"
                )
            };
            assert!(squashed.contains(&says), "{slug} {lang}: says how many cells it compares ({tests}, {unadjusted})");
            let (mut rows, mut verdicts) = (0, std::collections::BTreeSet::new());
            for t in tables {
                let id = t["id"].as_str().expect("id");
                // Every metric of the whole-study table; the mention rate of the others.
                let metrics: Vec<Metric> = if id == "cambio_total" {
                    generator::metrics::change::METRICS.to_vec()
                } else {
                    vec![Metric::Mention]
                };
                for metric in metrics {
                    let m = metric.id();
                    for row in t["filas"].as_array().expect("filas") {
                        let brand = row[0].as_str().expect("brand");
                        let number = |suffix: &str, how: Shown| match cell(t, brand, &format!("{m}{suffix}")).as_f64() {
                            Some(v) => shown(v, how, lang),
                            None => "–".to_owned(),
                        };
                        let before = number("_anterior", metric_shown(metric));
                        let now = number("_actual", metric_shown(metric));
                        let difference = number("_diferencia", difference_shown(metric));
                        // The bar and the interval printed are the adjusted ones, which the
                        // verdict follows.
                        let interval = match cell(t, brand, &format!("{m}_diferencia_ic_ajustado")).as_array() {
                            Some(b) => {
                                let bound =
                                    |i: usize| shown(b[i].as_f64().expect("bound"), difference_shown(metric), lang);
                                format!("[{} – {}]", bound(0), bound(1))
                            }
                            None => "–".to_owned(),
                        };
                        let verdict = cell(t, brand, &format!("{m}_veredicto"));
                        verdicts.insert(verdict.as_str().unwrap_or("").to_owned());
                        let has_interval = !cell(t, brand, &format!("{m}_diferencia_ic95")).is_null();
                        let verdict = verdict_shown(&verdict, has_interval, lang);
                        let parts =
                            [brand, before.as_str(), now.as_str(), difference.as_str(), interval.as_str(), verdict];
                        assert!(
                            !lines_with(&text, &parts).is_empty(),
                            "{slug} {lang}: {id} {m} row printed as {parts:?}"
                        );
                        rows += 1;
                    }
                }
            }
            assert!(rows >= 7 * 5, "{slug} {lang}: {rows} change rows checked");
            // The sample's previous runs have changes beyond the noise and changes within it.
            assert!(
                verdicts.contains("creció") && verdicts.contains("sin cambio más allá del ruido"),
                "{slug}: verdicts {verdicts:?}"
            );
        }
    }
    assert!(
        with_previous >= 2 && without >= 2,
        "reports with ({with_previous}) and without ({without}) a previous run"
    );
}

#[test]
fn spanish_and_english_reports_differ_in_language() {
    let dist = built();
    for slug in studies_with_reports() {
        let package = read_json(&dist.join(format!("private/descargas/{slug}.json")));
        let es = squash(&pdf_text(&report_path(slug, "es")));
        let en = squash(&pdf_text(&report_path(slug, "en")));
        for word in
            ["Hallazgos", "Metodología", "Tablas de análisis", "Definiciones de las métricas", "Tasa de mención"]
        {
            assert!(es.contains(word), "{slug} es: `{word}`");
            assert!(!en.contains(word), "{slug} en: no `{word}`");
        }
        for word in ["Findings", "Methodology", "Analysis tables", "Metric definitions", "Mention rate"] {
            assert!(en.contains(word), "{slug} en: `{word}`");
            assert!(!es.contains(word), "{slug} es: no `{word}`");
        }
        assert!(es.contains(package["ficha"]["nombre"].as_str().expect("nombre")));
        assert!(en.contains(package["ficha"]["nombre_en"].as_str().expect("nombre_en")));
        for f in package["hallazgos"].as_array().expect("hallazgos") {
            let (text, text_en) = (f["texto"].as_str().expect("texto"), f["texto_en"].as_str().expect("texto_en"));
            assert!(es.contains(&squash(text)), "{slug} es: finding {} in Spanish", f["id"]);
            assert!(en.contains(&squash(text_en)), "{slug} en: finding {} in English", f["id"]);
            assert!(!es.contains(&squash(text_en)) && !en.contains(&squash(text)), "{slug}: one language per report");
        }
        assert_ne!(
            std::fs::read(report_path(slug, "es")).expect("es"),
            std::fs::read(report_path(slug, "en")).expect("en")
        );
    }
}

#[test]
fn reports_carry_their_title_and_no_clock() {
    let dist = built();
    for slug in studies_with_reports() {
        let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
        for (lang, key) in [("es", "nombre"), ("en", "nombre_en")] {
            let info = pdf_info(&report_path(slug, lang));
            let title = info.lines().find_map(|l| l.strip_prefix("Title:")).map(str::trim);
            assert_eq!(title, sheet[key].as_str(), "{slug} {lang}: PDF title");
            assert!(!info.contains("CreationDate") && !info.contains("ModDate"), "{slug} {lang}: no dates\n{info}");
            let pages: usize = info
                .lines()
                .find_map(|l| l.strip_prefix("Pages:"))
                .and_then(|p| p.trim().parse().ok())
                .expect("page count");
            assert!(pages >= 6, "{slug} {lang}: cover, findings, charts, tables and methodology ({pages} pages)");
            let fonts = Command::new("pdffonts").arg(report_path(slug, lang)).output().expect("pdffonts");
            let fonts = String::from_utf8_lossy(&fonts.stdout).into_owned();
            let rows: Vec<&str> = fonts.lines().skip(2).collect();
            assert!(!rows.is_empty(), "{slug} {lang}: fonts listed");
            for row in rows {
                // Columns: name type encoding emb sub uni object ID.
                let cols: Vec<&str> = row.split_whitespace().collect();
                let n = cols.len();
                assert!(n >= 7 && cols[n - 5] == "yes", "{slug} {lang}: every font embedded: {row}");
            }
        }
    }
}
