//! The PDF reports' content: one localized document model per study and language.
//!
//! Every number a report prints comes from the analysis tables the build publishes in the
//! package JSON (the same [`Table`]s, the same findings with their computed backing cells), and
//! every word and number is chosen and formatted here, in Rust, so the typesetting template
//! (`templates/informe.typ`) only lays the model out. This half needs no typesetting engine and
//! is always compiled; `pdf` (cargo feature `pdf`) turns the model into PDF bytes with typst.
//!
//! [`report`] assembles the model, one module per part: the [`cover`], the [`tables`] and the
//! findings backed by their cells, the [`charts`], the [`changes`] since the previous run (for
//! a study that has one), the [`methodology`] and metric definitions.
//! Per language, [`format`](mod@format) writes numbers, dates and headings, and [`labels`] the
//! fixed words.

pub mod changes;
pub mod charts;
pub mod cover;
pub mod format;
pub mod labels;
pub mod methodology;
#[cfg(feature = "pdf")]
pub mod pdf;
pub mod tables;

use serde::Serialize;

use self::changes::ChangeSection;
use self::charts::Chart;
use self::cover::KeyFigure;
use self::format::long_date;
use self::labels::Labels;
use self::methodology::{MetricView, Section};
use self::tables::{FindingView, TableView, specs_and_tables};
use crate::metrics::analysis::Table;
use crate::metrics::multiplicity::Family;
use crate::model::Study;
use crate::render::site::Site;

/// The report languages, in file order.
pub const LANGUAGES: [Lang; 2] = [Lang::Es, Lang::En];

/// A report language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Es,
    En,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::Es => "es",
            Lang::En => "en",
        }
    }

    /// `es` text or `en` text.
    fn pick<'a>(self, es: &'a str, en: &'a str) -> &'a str {
        match self {
            Lang::Es => es,
            Lang::En => en,
        }
    }
}

/// File name of a study's report in one language (inside `informes/` and the ZIP).
pub fn report_file_name(lang: Lang) -> String {
    format!("informe-{}.pdf", lang.code())
}

/// Everything one report shows, already in its language.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub lang: Lang,
    /// Stable document identifier (`<slug>-<lang>`): the PDF's `/ID` is derived from it.
    pub ident: String,
    #[serde(rename = "etiquetas")]
    pub labels: Labels,
    #[serde(rename = "servicio")]
    pub service: String,
    pub editor: String,
    pub web: String,
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "descripcion")]
    pub description: String,
    /// Publication date, written out.
    #[serde(rename = "publicado")]
    pub published: String,
    /// Label/value pairs of the study's design, for the cover.
    #[serde(rename = "ficha")]
    pub sheet: Vec<[String; 2]>,
    #[serde(rename = "cifras")]
    pub figures: Vec<KeyFigure>,
    #[serde(rename = "nota")]
    pub note: Note,
    #[serde(rename = "hallazgos")]
    pub findings: Vec<FindingView>,
    #[serde(rename = "graficos")]
    pub charts: Vec<Chart>,
    /// Each brand's change since the previous run with its interval (`None`: a first run).
    #[serde(rename = "cambios")]
    pub changes: Option<ChangeSection>,
    #[serde(rename = "tablas")]
    pub tables: Vec<TableView>,
    #[serde(rename = "metodologia")]
    pub methodology: Vec<Section>,
    #[serde(rename = "metricas")]
    pub metrics: Vec<MetricView>,
    #[serde(rename = "como_citar")]
    pub how_to_cite: Note,
    #[serde(rename = "colofon")]
    pub colophon: String,
}

/// A text block with a heading (the editor's note, how to cite: written in Spanish only).
#[derive(Debug, Clone, Serialize)]
pub struct Note {
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "texto")]
    pub text: String,
}

/// Builds the report of `study` in `lang` from its computed tables and change tables.
pub fn report(
    site: &Site<'_>,
    study: &Study,
    tables: &[Table],
    changes: &[Table],
    family: Option<&Family>,
    lang: Lang,
) -> Report {
    let d = &study.design;
    let service = &site.content.service;
    Report {
        lang,
        ident: format!("{}-{}", study.slug, lang.code()),
        labels: labels::labels(lang),
        service: lang.pick(&service.name, &service.name_en).to_owned(),
        editor: service.editor.clone(),
        web: service.web.clone(),
        title: lang.pick(&d.name, &d.name_en).to_owned(),
        description: lang.pick(&d.description, &d.description_en).to_owned(),
        published: long_date(&d.published, lang),
        sheet: cover::design_facts(study, lang),
        figures: cover::key_figures(study, tables, lang),
        note: Note {
            title: lang.pick("Nota del editor", "Publisher's note (original in Spanish)").to_owned(),
            text: d.note.clone(),
        },
        findings: tables::findings(study, tables, changes, lang),
        charts: charts::charts(study, tables, lang),
        changes: changes::section(study, changes, family, lang),
        tables: specs_and_tables(study, tables)
            .map(|(spec, table)| tables::table_view(study, spec, table, lang))
            .collect(),
        methodology: methodology::methodology(study, lang),
        metrics: methodology::metric_definitions(site, study, lang),
        how_to_cite: Note {
            title: lang.pick("Cómo citar", "How to cite (as published, in Spanish)").to_owned(),
            text: d.how_to_cite.clone(),
        },
        colophon: colophon(site, study, lang),
    }
}

fn colophon(site: &Site<'_>, study: &Study, lang: Lang) -> String {
    let service = &site.content.service;
    let d = &study.design;
    match lang {
        Lang::Es => format!(
            "{} · {} · {}. Informe generado a partir del paquete de datos {} versión {}, publicado el {}: cada número sale de las mismas tablas que el JSON y la planilla del paquete. Contacto: {}.",
            service.name,
            service.editor,
            service.web,
            study.slug,
            d.package_version,
            long_date(&d.published, lang),
            service.contact
        ),
        Lang::En => format!(
            "{} · {} · {}. Report generated from data package {} version {}, published {}: every number comes from the same tables as the package's JSON and spreadsheet. Contact: {}.",
            service.name_en,
            service.editor,
            service.web,
            study.slug,
            d.package_version,
            long_date(&d.published, lang),
            service.contact
        ),
    }
}
