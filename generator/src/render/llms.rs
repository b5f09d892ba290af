//! `llms.txt`: the service described for language models, as plain text.
//!
//! Agents that read `llms.txt` before anything else find there what the JSON index says: the
//! service, how to buy, the catalog, the endpoints and the metric definitions. The text comes
//! from `templates/llms.txt.j2`, fed with the same documents the JSON endpoints publish.

use anyhow::Result;
use serde_json::Value;

use crate::render::json::{self, Catalog};
use crate::render::site::Site;
use crate::render::templates::Templates;

/// The `llms.txt` of the service.
pub fn llms_txt(site: &Site<'_>, templates: &Templates, catalog: &Catalog) -> Result<Vec<u8>> {
    let mut service = serde_json::to_value(&site.content.service)?;
    service["privacidad_url"] = Value::String(site.url("/privacidad"));
    let context = serde_json::json!({
        "servicio": service,
        "oferta": site.how_to_buy(None),
        "catalogo": catalog,
        "endpoints": json::endpoints(site),
        "metricas": site.content.metrics,
    });
    templates.render("llms.txt.j2", &context)
}
