//! schema.org JSON-LD for dataset search engines: a `Dataset` on each study page and a
//! `DataCatalog` on the home page.
//!
//! Google Dataset Search and the crawlers that follow it read `<script type="application/ld+json">`
//! in a page. Each study is a paid dataset: `isAccessibleForFree: false`, an `Offer` with its
//! price in USD (USDC settles one to one), and two `DataDownload`s, the JSON package and the
//! ZIP, whose `contentUrl` is the purchase URL, since the signed download links only exist
//! after a payment. Like the pages, the markup is built from the free documents only (the
//! sheet, the catalog, the metric definitions of `/metricas`): nothing paid is in it.
//!
//! Keys come out sorted (`serde_json` maps), so the bytes are a function of the content.

use anyhow::Result;
use contract::Price;
use serde_json::{Value, json};

use crate::model::MetricDefinition;
use crate::paths::study_page_url;
use crate::render::json::Sheet;
use crate::render::site::Site;

/// The vocabulary every document uses.
pub const CONTEXT: &str = "https://schema.org";

/// `@id` of the service's `DataCatalog` (the home page).
pub fn catalog_id(site: &Site<'_>) -> String {
    format!("{}#catalogo", site.url("/"))
}

/// `@id` of a study's `Dataset` (its page).
pub fn dataset_id(site: &Site<'_>, slug: &str) -> String {
    format!("{}#dataset", site.url(&study_page_url(slug)))
}

/// The publisher, creator and publisher of every dataset.
fn publisher(site: &Site<'_>) -> Value {
    let service = &site.content.service;
    json!({"@type": "Organization", "name": service.editor, "url": service.web})
}

/// A study's price as an `Offer`.
fn offer(site: &Site<'_>, price: Price, buy: &str) -> Value {
    json!({
        "@type": "Offer",
        "price": price.usd(),
        "priceCurrency": "USD",
        "url": buy,
        "description": format!(
            "Estudio completo por {} USD, pagados en {} con x402 v2 (GET {buy}) o con la herramienta MCP {} en {}.",
            price.usd(),
            site.content.service.currency,
            contract::mcp::BUY_TOOL,
            site.url("/mcp"),
        ),
    })
}

/// ISO 8601 interval of the fieldwork ("2026-02-02/2026-02-15"), or the day when it took one.
pub fn temporal_coverage(since: &str, until: &str) -> String {
    if since == until { since.to_owned() } else { format!("{since}/{until}") }
}

/// A metric the study publishes, as a `PropertyValue`.
fn variable(metric: &MetricDefinition) -> Value {
    json!({
        "@type": "PropertyValue",
        "propertyID": metric.id,
        "name": metric.name,
        "alternateName": metric.name_en,
        "description": metric.definition,
    })
}

/// The `Dataset` of a study page, from its free sheet (with `archivos`).
pub fn dataset(site: &Site<'_>, sheet: &Sheet, price: Price) -> Value {
    let service = &site.content.service;
    let buy = &sheet.urls.buy;
    let metrics: Vec<Value> = sheet
        .metrics_used
        .iter()
        .filter_map(|id| site.content.metrics.iter().find(|m| &m.id == id))
        .map(variable)
        .collect();
    let places: Vec<Value> = sheet.country.iter().map(|p| json!({"@type": "Place", "name": p})).collect();
    let downloads: Vec<Value> = sheet
        .files
        .iter()
        .flat_map(|files| {
            [
                (&files.json.name, files.json.bytes, &files.json.sha256, "application/json"),
                (&files.zip.name, files.zip.bytes, &files.zip.sha256, "application/zip"),
            ]
        })
        .map(|(name, bytes, sha256, format)| {
            json!({
                "@type": "DataDownload",
                "name": name,
                "encodingFormat": format,
                "contentUrl": buy,
                "contentSize": format!("{bytes} B"),
                "description": format!(
                    "Se entrega tras el pago en {buy}: la respuesta trae un enlace de descarga firmado, válido {} días. SHA-256: {sha256}.",
                    service.link_validity_days
                ),
            })
        })
        .collect();
    let page = site.url(&study_page_url(&sheet.slug));
    let mut value = json!({
        "@context": CONTEXT,
        "@type": "Dataset",
        "@id": dataset_id(site, &sheet.slug),
        "name": sheet.name,
        "alternateName": sheet.name_en,
        "description": sheet.description,
        "url": page,
        "keywords": sheet.tags,
        "inLanguage": sheet.language,
        "version": sheet.package_version,
        "datePublished": sheet.generated,
        "creator": publisher(site),
        "publisher": publisher(site),
        "temporalCoverage": temporal_coverage(&sheet.run_date.since, &sheet.run_date.until),
        "spatialCoverage": places,
        "variableMeasured": metrics,
        "distribution": downloads,
        "isAccessibleForFree": false,
        "offers": offer(site, price, buy),
        "includedInDataCatalog": {
            "@type": "DataCatalog",
            "@id": catalog_id(site),
            "name": service.name,
            "url": site.url("/"),
        },
    });
    if let Some(license) = &service.license {
        value["license"] = json!(license);
    }
    // An empty list says nothing a crawler can use (a sheet without `archivos` has no downloads).
    if let Some(object) = value.as_object_mut() {
        object.retain(|_, v| v.as_array().is_none_or(|items| !items.is_empty()));
    }
    value
}

/// The home page's `DataCatalog`: the service and every study it sells.
pub fn catalog(site: &Site<'_>) -> Value {
    let service = &site.content.service;
    let datasets: Vec<Value> = site
        .content
        .studies
        .iter()
        .map(|study| {
            let buy = site.url(&format!("/estudio/{}", study.slug));
            json!({
                "@type": "Dataset",
                "@id": dataset_id(site, &study.slug),
                "name": study.design.name,
                "alternateName": study.design.name_en,
                "description": study.design.description,
                "url": site.url(&study_page_url(&study.slug)),
                "isAccessibleForFree": false,
                "offers": offer(site, site.price_of(study), &buy),
            })
        })
        .collect();
    json!({
        "@context": CONTEXT,
        "@type": "DataCatalog",
        "@id": catalog_id(site),
        "name": service.name,
        "alternateName": service.name_en,
        "description": service.description,
        "url": site.url("/"),
        "inLanguage": "es",
        "creator": publisher(site),
        "publisher": publisher(site),
        "dataset": datasets,
    })
}

/// JSON-LD as the text of a `<script type="application/ld+json">`: pretty JSON in which `<`,
/// `>` and `&` are written as `\u003c`, `\u003e` and `\u0026`, so no value can close the
/// element or open a comment; the JSON means the same.
pub fn script_text(value: &Value) -> Result<String> {
    let text = serde_json::to_string_pretty(value)?;
    Ok(text.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fieldwork_is_an_iso_interval() {
        assert_eq!(temporal_coverage("2026-02-02", "2026-02-15"), "2026-02-02/2026-02-15");
        assert_eq!(temporal_coverage("2026-02-02", "2026-02-02"), "2026-02-02");
    }

    #[test]
    fn script_text_cannot_close_its_element() {
        let value = json!({"description": "a </script><!-- b & c"});
        let text = script_text(&value).expect("json");
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'), "{text}");
        let back: Value = serde_json::from_str(&text).expect("still JSON");
        assert_eq!(back, value);
    }
}
