//! Stage 4, render: the analysed content turned into the documents `dist/` publishes.
//!
//! Each output format has its module: JSON documents ([`json`]), HTML pages ([`html`]) with
//! their schema.org JSON-LD ([`jsonld`]), `llms.txt` ([`llms`]), the OpenAPI and x402
//! discovery documents ([`openapi`]), the MCP registry's `server.json` ([`registry`]), the
//! search index ([`search`]) and the PDF reports' model ([`report`]). What a buyer is offered is
//! decided once, in [`offer`], and every document that talks about payment derives from it.
//! This module holds what they all share: the [`Site`] of one build, [`to_json`], and the
//! facts about a study that several documents show.
//!
//! [`service_files`] and [`study_files`] list what this stage adds to `dist/`, each file with
//! its path from [`crate::paths`]; writing them is the output stage's job.

pub mod extensions;
pub mod html;
pub mod json;
pub mod jsonld;
pub mod llms;
pub mod offer;
pub mod openapi;
pub mod registry;
pub mod report;
pub mod search;
pub mod templates;

use anyhow::Result;
use contract::Price;
use serde::Serialize;

use crate::metrics::analysis::Table;
use crate::model::{Content, Study, TableKind};
use crate::paths;
use crate::render::json::Files;
use crate::render::offer::HowToBuy;
use crate::render::templates::Templates;

/// A rendered file: its path in `dist/` and its bytes.
pub type RenderedFile = (String, Vec<u8>);

/// The service's documents and pages: index, catalog, metrics, openapi, discovery, the MCP
/// registry's server.json, llms.txt, privacy page, home page, and the pages' stylesheet and
/// script.
pub fn service_files(site: &Site<'_>, templates: &Templates) -> Result<Vec<RenderedFile>> {
    let catalog = json::catalog(site);
    Ok(vec![
        (paths::SERVICE_INDEX.to_owned(), to_json(&json::service_index(site))?),
        (paths::CATALOG.to_owned(), to_json(&catalog)?),
        (paths::METRICS.to_owned(), to_json(&json::metrics_document(site))?),
        (paths::OPENAPI.to_owned(), to_json(&openapi::openapi(site))?),
        (paths::DISCOVERY.to_owned(), to_json(&openapi::discovery(site))?),
        (paths::MCP_SERVER.to_owned(), to_json(&registry::server_json(site))?),
        (paths::LLMS_TXT.to_owned(), llms::llms_txt(site, templates, &catalog)?),
        (paths::PRIVACY_PAGE.to_owned(), html::privacy(site, templates)?),
        (paths::HOME_PAGE.to_owned(), html::home(site, templates, &catalog)?),
        (paths::public_file(paths::STYLESHEET_URL), html::STYLESHEET.to_vec()),
        (paths::public_file(paths::SCRIPT_URL), html::SCRIPT.to_vec()),
    ])
}

/// A study's free sheet, its page and its 402 page; `downloads` are the sizes and hashes of
/// its paid files, which the sheet publishes.
pub fn study_files(
    site: &Site<'_>,
    templates: &Templates,
    study: &Study,
    tables: &[Table],
    downloads: Files,
) -> Result<Vec<RenderedFile>> {
    let sheet = json::sheet(site, study, tables, Some(downloads));
    let price = site.price_of(study);
    Ok(vec![
        (paths::sheet(&study.slug), to_json(&sheet)?),
        (paths::study_page(&study.slug), html::study_page(site, templates, &sheet, price)?),
        (paths::payment_page(&study.slug), html::payment_page(site, templates, &sheet, price)?),
    ])
}

/// Settings every document of one build shares.
pub struct Site<'a> {
    pub content: &'a Content,
    pub base_url: &'a str,
}

impl<'a> Site<'a> {
    /// The site of `content`, at the base URL its `servicio.toml` declares.
    pub fn new(content: &'a Content) -> Site<'a> {
        Site { content, base_url: &content.service.base_url }
    }
}

impl Site<'_> {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    /// A study's price: its own, or the service's default.
    pub fn price_of(&self, study: &Study) -> Price {
        study.design.precio_usd.unwrap_or(self.content.service.precio_usd)
    }

    /// Slug → price of every study.
    pub fn prices(&self) -> std::collections::BTreeMap<String, Price> {
        self.content.studies.iter().map(|s| (s.slug.clone(), self.price_of(s))).collect()
    }

    /// The one price every study is sold at (the service's default when there is no study), or
    /// `None` when the studies' own prices differ.
    pub fn common_price(&self) -> Option<Price> {
        let prices: std::collections::BTreeSet<Price> = self.prices().into_values().collect();
        match prices.len() {
            0 => Some(self.content.service.precio_usd),
            1 => prices.first().copied(),
            _ => None,
        }
    }

    /// The buying steps for a study, or for any study (with each study's own price when they
    /// differ, never the service's default in their place).
    pub fn how_to_buy(&self, study: Option<&Study>) -> HowToBuy {
        let service = &self.content.service;
        match study {
            Some(s) => offer::how_to_buy(
                service,
                offer::Pricing::One(self.price_of(s)),
                &self.url(&format!("/estudio/{}", s.slug)),
            ),
            None => {
                let url = self.url("/estudio/{slug}");
                match self.common_price() {
                    Some(price) => offer::how_to_buy(service, offer::Pricing::One(price), &url),
                    None => offer::how_to_buy(service, offer::Pricing::PerStudy(&self.prices()), &url),
                }
            }
        }
    }
}

/// Pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(value: &T) -> anyhow::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// First and last day a study's answers were collected.
#[derive(Debug, Clone, Serialize)]
pub struct RunDates {
    pub desde: String,
    pub hasta: String,
}

/// First and last answer dates (dates are `YYYY-MM-DD`, so string order is date order).
pub fn run_dates(study: &Study) -> RunDates {
    let dates = study.answers.iter().map(|a| a.fecha.as_str());
    RunDates {
        desde: dates.clone().min().unwrap_or_default().to_owned(),
        hasta: dates.max().unwrap_or_default().to_owned(),
    }
}

/// Metric ids a study's tables use, sorted.
pub fn metrics_used(study: &Study) -> Vec<String> {
    let mut used: Vec<String> = Vec::new();
    for spec in &study.design.analisis {
        used.extend(spec.metricas.iter().map(|m| m.id().to_owned()));
        match spec.tipo {
            TableKind::Concentracion => used.extend(["hhi".to_owned(), "top1".to_owned()]),
            TableKind::Acuerdo | TableKind::Estabilidad => used.push("acuerdo".to_owned()),
            TableKind::Tono => used.push("tono_neto".to_owned()),
            TableKind::Fuentes => used.push("citacion".to_owned()),
            _ => {}
        }
    }
    used.sort();
    used.dedup();
    used
}
