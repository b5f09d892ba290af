//! What every renderer shares: the [`Site`] of one build (the content and its base URL, a
//! study's price and how to buy it), [`to_json`], and the facts about a study that several
//! documents show (its run dates, the metrics its tables use). A leaf of the render stage: the
//! renderers stand on it, and it names none of them but [`super::offer`], which decides what a
//! buyer is offered.

use contract::Price;
use serde::Serialize;

use crate::model::{Content, Study, TableKind};
use crate::render::offer::{self, HowToBuy};

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
        study.design.price_usd.unwrap_or(self.content.service.price_usd)
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
            0 => Some(self.content.service.price_usd),
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
    #[serde(rename = "desde")]
    pub since: String,
    #[serde(rename = "hasta")]
    pub until: String,
}

/// First and last answer dates (dates are `YYYY-MM-DD`, so string order is date order).
pub fn run_dates(study: &Study) -> RunDates {
    let dates = study.answers.iter().map(|a| a.date.as_str());
    RunDates {
        since: dates.clone().min().unwrap_or_default().to_owned(),
        until: dates.max().unwrap_or_default().to_owned(),
    }
}

/// Metric ids a study's tables use, sorted.
pub fn metrics_used(study: &Study) -> Vec<String> {
    let mut used: Vec<String> = Vec::new();
    for spec in &study.design.analyses {
        used.extend(spec.metrics.iter().map(|m| m.id().to_owned()));
        match spec.kind {
            TableKind::Concentration => used.extend(["hhi".to_owned(), "top1".to_owned()]),
            TableKind::Agreement | TableKind::Stability => used.push("acuerdo".to_owned()),
            TableKind::Tone => used.push("tono_neto".to_owned()),
            TableKind::Sources => used.push("citacion".to_owned()),
            _ => {}
        }
    }
    used.sort();
    used.dedup();
    used
}
