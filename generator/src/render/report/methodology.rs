//! The report's methodology and metric definitions.
//!
//! The Spanish report prints the study's own methodology; its prose exists in Spanish only, so
//! the English report writes an equivalent from the study's design. Metric definitions come
//! from `content/metricas.toml`, limited to the metrics the study's tables use. Both end with
//! the generated sections on surfaces and consulted sources and on uncertainty (bases,
//! intervals, comparisons).

use serde::Serialize;

use super::Lang;
use super::format::long_date;
use crate::model::{Study, Tier};
use crate::render::site::{Site, metrics_used, run_dates};

#[derive(Debug, Clone, Serialize)]
pub struct Section {
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "parrafos")]
    pub paragraphs: Vec<String>,
}

pub(super) fn methodology(study: &Study, lang: Lang) -> Vec<Section> {
    let mut sections = study_methodology(study, lang);
    let surfaces = crate::surfaces::methodology(study);
    sections.push(Section {
        title: lang.pick(surfaces.title, surfaces.title_en).to_owned(),
        paragraphs: match lang {
            Lang::Es => surfaces.paragraphs,
            Lang::En => surfaces.paragraphs_en,
        },
    });
    let text = &crate::render::json::UNCERTAINTY;
    sections.push(Section {
        title: lang.pick(text.title, text.title_en).to_owned(),
        paragraphs: vec![lang.pick(text.text, text.text_en).to_owned()],
    });
    sections
}

fn study_methodology(study: &Study, lang: Lang) -> Vec<Section> {
    match lang {
        Lang::Es => study
            .design
            .methodology
            .iter()
            .map(|s| Section {
                title: s.title.clone(),
                paragraphs: s.text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect(),
            })
            .collect(),
        Lang::En => methodology_en(study),
    }
}

/// The English methodology, written from the study's design (its prose is Spanish only).
fn methodology_en(study: &Study) -> Vec<Section> {
    let d = &study.design;
    let dates = run_dates(study);
    let dimensions: Vec<String> =
        d.dimensions.iter().map(|dim| format!("{} ({})", dim.label_en.to_lowercase(), dim.values.join(", "))).collect();
    let tier = |t: Tier| match t {
        Tier::Standard => "standard",
        Tier::Advanced => "advanced",
    };
    let models: Vec<String> = d
        .models
        .iter()
        .map(|m| {
            let n = study.answers.iter().filter(|a| a.model == m.id).count();
            format!("{} ({}, {} tier, {n} answers)", m.name, m.provider, tier(m.level))
        })
        .collect();
    let mut sections = vec![
        Section {
            title: "Design and corpus".to_owned(),
            paragraphs: vec![
                format!(
                    "The study gathers {} questions and {} answers, collected between {} and {}.",
                    study.questions.len(),
                    study.answers.len(),
                    long_date(&dates.since, Lang::En),
                    long_date(&dates.until, Lang::En)
                ),
                format!("Each question is classified by {}.", dimensions.join("; ")),
                format!(
                    "Each question carries a model tier and is answered by the models of that tier: {}.",
                    models.join("; ")
                ),
                format!("{} brands are tracked, each with its aliases, exclusions and web domains.", study.brands.len()),
            ],
        },
        Section {
            title: "Brand and source detection".to_owned(),
            paragraphs: vec![
                "A brand is mentioned in an answer when one of its names appears as a whole word, ignoring case and accents; when two aliases overlap the longer one wins, and occurrences inside an exclusion phrase do not count.".to_owned(),
                "Order of appearance is the position (1, 2, 3...) of the brand's first mention among the distinct brands of the answer; the average order is computed over the answers that mention the brand only, and published with its base (n order).".to_owned(),
                "Citation as a source: the answer cites a domain of the brand, or a subdomain of it, among its sources. Ghost citation: it cites it without naming the brand in the text.".to_owned(),
            ],
        },
        Section {
            title: "Agreement between models".to_owned(),
            paragraphs: vec![
                "For each question and each pair of models that answered it, the Jaccard index of the sets of brands mentioned (intersection over union) is computed, together with whether the first brand matches.".to_owned(),
                "Pairs in which neither model names a brand are skipped and counted apart (column skipped). The mean per pair of models and the overall mean are published.".to_owned(),
            ],
        },
    ];
    let weighting = match &d.weighting {
        Some(w) => {
            let shares: Vec<String> = d
                .models
                .iter()
                .filter_map(|m| w.weights.get(&m.id).map(|p| format!("{} {}", m.id, trim_number(*p))))
                .collect();
            vec![
                format!("Totals weight each model by its declared market share: {}.", shares.join("; ")),
                format!("Source of the shares (in Spanish): {}.", w.source),
                "Within each cell a model's answers share its weight, so each model contributes its weight whatever its number of answers. Agreement between models is not weighted.".to_owned(),
            ]
        }
        None => vec!["Every model weighs the same in every aggregate.".to_owned()],
    };
    sections.push(Section { title: "Model weighting".to_owned(), paragraphs: weighting });
    sections
}

/// A weight as written by a person: no trailing zeros.
fn trim_number(value: f64) -> String {
    let text = format!("{value:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[derive(Debug, Clone, Serialize)]
pub struct MetricView {
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "definicion")]
    pub definition: String,
    pub formula: String,
    #[serde(rename = "escala")]
    pub scale: String,
}

/// Definitions of the metrics the study's tables use, in `lang`.
pub(super) fn metric_definitions(site: &Site<'_>, study: &Study, lang: Lang) -> Vec<MetricView> {
    let used = metrics_used(study);
    site.content
        .metrics
        .iter()
        .filter(|m| used.contains(&m.id))
        .map(|m| MetricView {
            name: lang.pick(&m.name, &m.name_en).to_owned(),
            definition: lang.pick(&m.definition, &m.definition_en).to_owned(),
            formula: lang.pick(&m.formula, &m.formula_en).to_owned(),
            scale: lang.pick(&m.scale, &m.scale_en).to_owned(),
        })
        .collect()
}
