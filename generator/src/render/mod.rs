//! Stage 4, render: the analysed content turned into the documents `dist/` publishes.
//!
//! Each output format has its module: JSON documents ([`json`]), HTML pages ([`html`]) with
//! their schema.org JSON-LD ([`jsonld`]), `llms.txt` ([`llms`]), the OpenAPI and x402
//! discovery documents ([`openapi`]), the MCP registry's `server.json` ([`registry`]), MPP's
//! directory entry ([`directories`]), the Croissant 1.1 descriptions for dataset tools
//! ([`croissant`]), the search index ([`search`]) and the PDF reports' model ([`report`]). What a buyer is offered is
//! decided once, in [`offer`], and every document that talks about payment derives from it.
//! What they all share (the [`site::Site`] of one build, [`site::to_json`], and the facts
//! about a study that several documents show) is [`site`], a leaf they stand on.
//!
//! [`service_files`] and [`study_files`] list what this stage adds to `dist/`, each file with
//! its path from [`crate::paths`]; writing them is the output stage's job.

pub mod croissant;
pub mod directories;
pub mod extensions;
pub mod html;
pub mod json;
pub mod jsonld;
pub mod llms;
pub mod offer;
pub mod openapi;
pub mod paid;
pub mod registry;
pub mod report;
pub mod search;
pub mod site;
pub mod templates;

use anyhow::Result;

use crate::metrics::analysis::Table;
use crate::model::Study;
use crate::paths;
use crate::render::json::Files;
use crate::render::site::{Site, to_json};
use crate::render::templates::Templates;

/// A rendered file: its path in `dist/` and its bytes.
pub type RenderedFile = (String, Vec<u8>);

/// The service's documents and pages: index, catalog, metrics, openapi, discovery, the MCP
/// registry's server.json, llms.txt, privacy page, home page, and the pages' stylesheet,
/// scripts and icon.
pub fn service_files(site: &Site<'_>, templates: &Templates) -> Result<Vec<RenderedFile>> {
    let catalog = json::catalog(site);
    let catalog_bytes = to_json(&catalog)?;
    Ok(vec![
        (paths::SERVICE_INDEX.to_owned(), to_json(&json::service_index(site))?),
        (paths::CROISSANT_CATALOG.to_owned(), to_json(&croissant::catalog(site, &catalog_bytes))?),
        (paths::CATALOG.to_owned(), catalog_bytes),
        (paths::MPP_DIRECTORY.to_owned(), to_json(&directories::mpp_document(site))?),
        (paths::METRICS.to_owned(), to_json(&json::metrics_document(site))?),
        (paths::OPENAPI.to_owned(), to_json(&openapi::openapi(site))?),
        (paths::DISCOVERY.to_owned(), to_json(&openapi::discovery(site))?),
        (paths::MCP_SERVER.to_owned(), to_json(&registry::server_json(site))?),
        (paths::LLMS_TXT.to_owned(), llms::llms_txt(site, templates, &catalog)?),
        (paths::PRIVACY_PAGE.to_owned(), html::privacy(site, templates)?),
        (paths::HOME_PAGE.to_owned(), html::home(site, templates, &catalog)?),
        (paths::public_file(paths::STYLESHEET_URL), html::STYLESHEET.to_vec()),
        (paths::public_file(paths::SCRIPT_URL), html::SCRIPT.to_vec()),
        (paths::public_file(paths::CHECKOUT_SCRIPT_URL), html::CHECKOUT_SCRIPT.to_vec()),
        (paths::public_file(paths::FAVICON_URL), html::FAVICON.to_vec()),
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
    let sheet_bytes = to_json(&sheet)?;
    let croissant = croissant::study(site, study, &sheet, &sheet_bytes, tables, price);
    Ok(vec![
        (paths::croissant(&study.slug), to_json(&croissant)?),
        (paths::sheet(&study.slug), sheet_bytes),
        (paths::study_page(&study.slug), html::study_page(site, templates, &sheet, price)?),
        (paths::payment_page(&study.slug), html::payment_page(site, templates, &sheet, price)?),
    ])
}
