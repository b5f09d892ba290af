//! HTML pages for people: the catalog home, one page per study, the browser's 402 page.
//!
//! Agents read JSON; analysts, journalists and the publisher want to look. Every page is
//! rendered from `templates/` out of the same free documents agents read (the catalog and
//! the study sheets), so a page cannot show anything the free JSON does not. Charts are inline
//! SVG whose geometry is computed here, so they need no JavaScript; the scripts are the
//! catalog's filter and search box and the checkout of the study pages and the 402 page (pay
//! with a browser wallet, or sign in to get a study again). Pages load nothing from other
//! hosts: one stylesheet and those scripts, served from `dist/public`, and a
//! Content-Security-Policy that says so (`contract::CONTENT_SECURITY_POLICY`, which the
//! manifest's `_headers` and the gate send). Every page works without its script.

use std::collections::BTreeSet;

use anyhow::Result;
use contract::Price;
use serde::Serialize;

use crate::paths::{CHECKOUT_SCRIPT_URL, SCRIPT_URL, STYLESHEET_URL, study_page_url};
use crate::render::json::{Catalog, Sheet};
use crate::render::jsonld;
use crate::render::site::Site;
use crate::render::templates::Templates;

/// The stylesheet every page links, served at [`STYLESHEET_URL`].
pub const STYLESHEET: &[u8] = include_bytes!("../../../templates/recursos/estilo.css");
/// The catalog's filter and search box, served at [`SCRIPT_URL`].
pub const SCRIPT: &[u8] = include_bytes!("../../../templates/recursos/catalogo.js");
/// The site's icon (32×32, a bar chart), served at [`crate::paths::FAVICON_URL`].
pub const FAVICON: &[u8] = include_bytes!("../../../templates/recursos/favicon.ico");
/// The checkout (pay with a browser wallet, sign in again), served at [`CHECKOUT_SCRIPT_URL`].
pub const CHECKOUT_SCRIPT: &[u8] = include_bytes!("../../../templates/recursos/billetera.js");

// ---------------------------------------------------------------------------------------
// Charts

/// A horizontal bar chart drawn as SVG by `templates/_graficos.html.j2`.
///
/// Bars are percentages of the chart's width, labels and values are fixed-size text, so the
/// chart is as wide as its column on any screen without shrinking the text.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BarChart {
    /// Unique within the page: ids of the SVG `title` and `desc`.
    pub id: String,
    #[serde(rename = "titulo")]
    pub title: String,
    /// Every value in words, for screen readers (the SVG's `desc`).
    #[serde(rename = "descripcion")]
    pub description: String,
    /// Height in CSS pixels.
    #[serde(rename = "alto")]
    pub height: u32,
    #[serde(rename = "barras")]
    pub bars: Vec<Bar>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Bar {
    #[serde(rename = "etiqueta")]
    pub label: String,
    #[serde(rename = "valor")]
    pub value: u64,
    /// Length as a percentage of the chart width (at most `MAX_BAR_PERCENT`).
    #[serde(rename = "largo")]
    pub length: f64,
    /// Baselines and top, in pixels from the chart top.
    #[serde(rename = "y_etiqueta")]
    pub y_label: u32,
    #[serde(rename = "y_barra")]
    pub y_bar: u32,
    #[serde(rename = "y_valor")]
    pub y_value: u32,
    /// CSS class that colours the bar (a model tier, or the default).
    #[serde(rename = "clase")]
    pub class: String,
}

/// Room left right of the longest bar for its value.
const MAX_BAR_PERCENT: f64 = 86.0;
const ROW_HEIGHT: u32 = 46;
const BAR_HEIGHT: u32 = 16;

/// One row of a chart before layout: label, value, CSS class.
pub struct Row {
    pub label: String,
    pub value: u64,
    pub class: String,
}

/// Lays out a chart; `unit` names what is counted ("preguntas") in the description.
pub fn bar_chart(id: &str, title: &str, unit: &str, rows: Vec<Row>) -> BarChart {
    let max = rows.iter().map(|r| r.value).max().unwrap_or(0).max(1) as f64;
    let description = rows.iter().map(|r| format!("{}: {} {unit}", r.label, r.value)).collect::<Vec<_>>().join("; ");
    let bars = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let top = i as u32 * ROW_HEIGHT;
            Bar {
                length: ((r.value as f64 / max * MAX_BAR_PERCENT) * 10.0).round() / 10.0,
                label: r.label,
                value: r.value,
                y_label: top + 15,
                y_bar: top + 22,
                y_value: top + 22 + BAR_HEIGHT - 3,
                class: r.class,
            }
        })
        .collect::<Vec<_>>();
    BarChart {
        id: id.to_owned(),
        title: title.to_owned(),
        description: format!("{title}. {description}."),
        height: bars.len() as u32 * ROW_HEIGHT + 4,
        bars,
    }
}

/// CSS class of a model tier ("estándar" → "nivel-estandar").
fn tier_class(tier: &str) -> String {
    let ascii: String = contract::fold::fold(tier).chars().filter(char::is_ascii_alphanumeric).collect();
    format!("nivel-{ascii}")
}

/// Questions per value of each dimension, one chart a dimension.
fn universe_charts(sheet: &Sheet) -> Vec<BarChart> {
    sheet
        .universe
        .iter()
        .map(|u| {
            let rows = u
                .values
                .iter()
                .map(|v| Row { label: v.value.clone(), value: v.n_questions as u64, class: "barra".to_owned() })
                .collect();
            bar_chart(
                &format!("universo-{}", u.dimension),
                &format!("Preguntas por {}", u.label.to_lowercase()),
                "preguntas",
                rows,
            )
        })
        .collect()
}

/// Answers per model, coloured by tier.
fn models_chart(sheet: &Sheet) -> BarChart {
    let rows = sheet
        .models
        .iter()
        .map(|m| Row {
            label: format!("{} · {} · nivel {}", m.name, m.provider, m.level),
            value: m.answers as u64,
            class: tier_class(&m.level),
        })
        .collect();
    bar_chart("modelos", "Respuestas por modelo", "respuestas", rows)
}

/// The tiers present, in the order models list them, for the chart legend.
fn tiers(sheet: &Sheet) -> Vec<Tier> {
    let mut seen = BTreeSet::new();
    sheet
        .models
        .iter()
        .filter(|m| seen.insert(m.level.clone()))
        .map(|m| Tier { name: m.level.clone(), class: tier_class(&m.level) })
        .collect()
}

#[derive(Serialize)]
struct Tier {
    #[serde(rename = "nombre")]
    name: String,
    #[serde(rename = "clase")]
    class: String,
}

// ---------------------------------------------------------------------------------------
// Pages

/// What every page's frame needs.
#[derive(Serialize)]
struct Frame<'a> {
    /// Which navigation entry is current ("catalogo", "privacidad" or "").
    #[serde(rename = "seccion")]
    section: &'static str,
    #[serde(rename = "servicio")]
    service: &'a crate::model::ServiceSettings,
    #[serde(rename = "estilo")]
    style: &'static str,
    #[serde(rename = "modo")]
    mode: &'static str,
    /// Absolute URL of the service, as agents must call it.
    base_url: &'a str,
}

fn frame<'a>(site: &Site<'a>, section: &'static str) -> Frame<'a> {
    let service = &site.content.service;
    Frame { section, service, style: STYLESHEET_URL, mode: service.mode.as_str(), base_url: site.base_url }
}

#[derive(Serialize)]
struct HomeContext<'a> {
    #[serde(flatten)]
    frame: Frame<'a>,
    #[serde(rename = "catalogo")]
    catalog: &'a Catalog,
    script: &'static str,
    #[serde(rename = "industrias")]
    industries: Vec<&'a str>,
    #[serde(rename = "paises")]
    countries: Vec<&'a str>,
    #[serde(rename = "total_preguntas")]
    total_questions: usize,
    #[serde(rename = "total_respuestas")]
    total_answers: usize,
    /// The price of every study, or the lowest when they differ ([`HomeContext::price_varies`]).
    #[serde(rename = "precio")]
    price: String,
    #[serde(rename = "precio_varia")]
    price_varies: bool,
    #[serde(rename = "paginas")]
    pages: Vec<String>,
    /// The schema.org `DataCatalog` of the service, as the text of a JSON-LD script.
    #[serde(rename = "datos_estructurados")]
    structured_data: String,
}

/// The home page: the catalog, its filters and the search box.
pub fn home(site: &Site<'_>, templates: &Templates, catalog: &Catalog) -> Result<Vec<u8>> {
    let industries: BTreeSet<&str> = catalog.studies.iter().map(|e| e.industry.as_str()).collect();
    let countries: BTreeSet<&str> = catalog.studies.iter().flat_map(|e| e.country.iter().map(String::as_str)).collect();
    let prices: BTreeSet<Price> = site.content.studies.iter().map(|s| site.price_of(s)).collect();
    let lowest = prices.first().copied().unwrap_or(site.content.service.price_usd);
    let context = HomeContext {
        frame: frame(site, "catalogo"),
        catalog,
        script: SCRIPT_URL,
        industries: industries.into_iter().collect(),
        countries: countries.into_iter().collect(),
        total_questions: catalog.studies.iter().map(|e| e.n_questions).sum(),
        total_answers: catalog.studies.iter().map(|e| e.n_answers).sum(),
        price: lowest.usd(),
        price_varies: prices.len() > 1,
        pages: catalog.studies.iter().map(|e| study_page_url(&e.slug)).collect(),
        structured_data: jsonld::script_text(&jsonld::catalog(site))?,
    };
    templates.render("inicio.html.j2", &context)
}

#[derive(Serialize)]
struct StudyContext<'a> {
    #[serde(flatten)]
    frame: Frame<'a>,
    #[serde(rename = "ficha")]
    sheet: &'a Sheet,
    #[serde(rename = "pagina")]
    page: String,
    #[serde(rename = "precio")]
    price: String,
    #[serde(rename = "graficos_universo")]
    universe_charts: Vec<BarChart>,
    #[serde(rename = "grafico_modelos")]
    models_chart: BarChart,
    #[serde(rename = "niveles")]
    levels: Vec<Tier>,
    /// The checkout script, which both the study page and the 402 page load.
    #[serde(rename = "script_billetera")]
    checkout_script: &'static str,
}

fn study_context<'a>(site: &Site<'a>, sheet: &'a Sheet, price: Price) -> StudyContext<'a> {
    StudyContext {
        frame: frame(site, ""),
        sheet,
        page: study_page_url(&sheet.slug),
        price: price.usd(),
        universe_charts: universe_charts(sheet),
        models_chart: models_chart(sheet),
        levels: tiers(sheet),
        checkout_script: CHECKOUT_SCRIPT_URL,
    }
}

/// A study page's context: the shared one plus its schema.org `Dataset`.
#[derive(Serialize)]
struct StudyPageContext<'a> {
    #[serde(flatten)]
    study: StudyContext<'a>,
    /// The schema.org `Dataset` of the study, as the text of a JSON-LD script.
    #[serde(rename = "datos_estructurados")]
    structured_data: String,
}

/// A study's page, built only from its free sheet (with `archivos`).
pub fn study_page(site: &Site<'_>, templates: &Templates, sheet: &Sheet, price: Price) -> Result<Vec<u8>> {
    let context = StudyPageContext {
        study: study_context(site, sheet, price),
        structured_data: jsonld::script_text(&jsonld::dataset(site, sheet, price))?,
    };
    templates.render("estudio.html.j2", &context)
}

/// The 402 page a browser gets from `/estudio/{slug}` without payment.
pub fn payment_page(site: &Site<'_>, templates: &Templates, sheet: &Sheet, price: Price) -> Result<Vec<u8>> {
    templates.render("pago.html.j2", &study_context(site, sheet, price))
}

#[derive(Serialize)]
struct PrivacyContext<'a> {
    #[serde(flatten)]
    frame: Frame<'a>,
    #[serde(rename = "privacidad")]
    privacy: &'a crate::model::Privacy,
}

/// The privacy page, in Spanish and English.
pub fn privacy(site: &Site<'_>, templates: &Templates) -> Result<Vec<u8>> {
    let context = PrivacyContext { frame: frame(site, "privacidad"), privacy: &site.content.service.privacy };
    templates.render("privacidad.html.j2", &context)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, value: u64) -> Row {
        Row { label: label.to_owned(), value, class: "barra".to_owned() }
    }

    #[test]
    fn bars_scale_to_the_largest_value_and_stack_in_rows() {
        let chart =
            bar_chart("x", "Preguntas por producto", "preguntas", vec![row("a", 40), row("b", 20), row("c", 0)]);
        let lengths: Vec<f64> = chart.bars.iter().map(|b| b.length).collect();
        assert_eq!(lengths, vec![MAX_BAR_PERCENT, MAX_BAR_PERCENT / 2.0, 0.0]);
        assert_eq!(chart.bars[1].y_label, ROW_HEIGHT + 15);
        assert_eq!(chart.height, 3 * ROW_HEIGHT + 4);
        assert_eq!(chart.description, "Preguntas por producto. a: 40 preguntas; b: 20 preguntas; c: 0 preguntas.");
    }

    #[test]
    fn an_empty_chart_has_no_bars_and_no_division_by_zero() {
        let chart = bar_chart("x", "t", "u", vec![row("a", 0)]);
        assert_eq!(chart.bars[0].length, 0.0);
    }

    #[test]
    fn tier_classes_are_ascii() {
        assert_eq!(tier_class("estándar"), "nivel-estandar");
        assert_eq!(tier_class("avanzado"), "nivel-avanzado");
    }
}
