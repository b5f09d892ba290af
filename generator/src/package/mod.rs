//! Stage 5, package: what a buyer of one study gets, as bytes.
//!
//! Per study: the full package JSON, the summary JSON (view `resumen`: no answers), and the
//! ZIP that holds the package, the spreadsheet ([`xlsx`]), the committed PDF reports and a
//! README. The ZIP ([`zip`]) and the spreadsheet are reproducible: their sizes and sha256 are
//! published before anyone buys, so the same content must give the same bytes on every build,
//! and every timestamp inside them comes from the study's publication date (`date`).
//!
//! Packaging runs before the free study sheets are rendered, because each sheet publishes
//! the size and sha256 of its study's downloads. Nothing here writes files: the build stores
//! the bytes it gets back.

mod date;
pub mod xlsx;
pub mod zip;

use std::borrow::Cow;
use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde::Serialize;

use self::zip::ZipEntry;
use crate::metrics::analysis::Table;
use crate::metrics::mentions::AnswerBrands;
use crate::metrics::multiplicity::Family;
use crate::model::{ServiceSettings, Study};
use crate::render::json::{self, Sheet};
use crate::render::paid;
use crate::render::site::{Site, to_json};
use crate::render::templates::Templates;

/// One study's paid files.
pub struct PaidFiles {
    /// The full package JSON (view `completo`), also inside the ZIP.
    pub package: Vec<u8>,
    /// The summary JSON (view `resumen`), served only by the gate.
    pub summary: Vec<u8>,
    pub zip: Vec<u8>,
    /// The ZIP's entry names, sorted.
    pub zip_entries: Vec<String>,
}

/// Builds the paid files of `study`; `brands[i]` holds what was found in `study.answers[i]`.
/// The package JSON and the xlsx are built at the same time (rayon `join`), so one large
/// study keeps both threads busy.
pub fn study(
    site: &Site<'_>,
    templates: &Templates,
    study: &Study,
    tables: &[Table],
    changes: &[Table],
    family: Option<&Family>,
    brands: &[AnswerBrands],
) -> Result<PaidFiles> {
    let context = || format!("estudio {}", study.slug);
    let editor = &site.content.service.editor;
    let date = &study.design.published;
    let (package, xlsx) = rayon::join(
        || to_json(&paid::package(site, study, tables, changes, family, brands)),
        || {
            // The change tables are sheets too, after the analysis tables.
            let all: Vec<Table> = tables.iter().chain(changes).cloned().collect();
            xlsx::study_xlsx(study, &all, editor, date)
        },
    );
    let package = package.with_context(context)?;
    let xlsx = xlsx.with_context(context)?;
    let summary = to_json(&paid::summary(site, study, tables, changes, family)).with_context(context)?;

    let slug = &study.slug;
    let package_name = format!("{slug}/{slug}.json");
    let mut entries = vec![ZipEntry { name: format!("{slug}/{slug}.xlsx"), bytes: Cow::Owned(xlsx) }];
    for (name, bytes) in &study.reports {
        entries.push(ZipEntry { name: format!("{slug}/informes/{name}"), bytes: Cow::Borrowed(bytes) });
    }
    let readme_name = format!("{slug}/README.md");
    let mut names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    names.push(package_name.clone());
    names.push(readme_name.clone());
    names.sort();
    let readme = templates.render("README.md.j2", &readme_context(site, study, tables, &names))?;
    entries.push(ZipEntry { name: readme_name, bytes: Cow::Owned(readme) });
    entries.push(ZipEntry { name: package_name, bytes: Cow::Borrowed(&package) });
    let zip = zip::write_zip(entries, date).with_context(context)?;
    Ok(PaidFiles { package, summary, zip, zip_entries: names })
}

/// What `templates/README.md.j2` gets: the service, the sheet and a line per ZIP entry.
#[derive(Serialize)]
struct ReadmeContext<'a> {
    #[serde(rename = "servicio")]
    service: &'a ServiceSettings,
    #[serde(rename = "ficha")]
    sheet: Sheet,
    #[serde(rename = "contiene")]
    contains: &'a [String],
    #[serde(rename = "descripciones")]
    descriptions: BTreeMap<&'a str, String>,
    #[serde(rename = "descriptions")]
    descriptions_en: BTreeMap<&'a str, String>,
}

fn readme_context<'a>(site: &Site<'a>, study: &Study, tables: &[Table], names: &'a [String]) -> ReadmeContext<'a> {
    let mut es = BTreeMap::new();
    let mut en = BTreeMap::new();
    for name in names {
        let (d_es, d_en) = entry_description(name);
        es.insert(name.as_str(), d_es.to_owned());
        en.insert(name.as_str(), d_en.to_owned());
    }
    ReadmeContext {
        service: &site.content.service,
        sheet: json::sheet(site, study, tables, None),
        contains: names,
        descriptions: es,
        descriptions_en: en,
    }
}

/// What a ZIP entry holds, in Spanish and in English, told by its name.
fn entry_description(name: &str) -> (&'static str, &'static str) {
    if name.ends_with(".json") {
        (
            "Paquete completo en JSON: ficha, diseño, tablas (y cambios desde la corrida anterior, si la hay), hallazgos, métricas y todas las respuestas.",
            "Full package as JSON: sheet, design, tables (and changes since the previous run, when there is one), findings, metrics and every answer.",
        )
    } else if name.ends_with(".xlsx") {
        (
            "Planilla: índice, una hoja por tabla de análisis (y por tabla de cambio, si el estudio se compara con una corrida anterior), preguntas y respuestas.",
            "Spreadsheet: index, one sheet per analysis table (and per change table, when the study is compared with a previous run), questions and answers.",
        )
    } else if name.ends_with("README.md") {
        ("Este archivo.", "This file.")
    } else {
        ("Informe en PDF.", "PDF report.")
    }
}
