//! The search index of the catalog, built from the studies ahead of time.
//!
//! The format and the query side live in [`contract::search`], which the gate reads; this is
//! the one place that decides which text of a study goes into which field.

use std::collections::BTreeMap;

use contract::fold::{fold, search_terms, terms};
use contract::search::{FIELDS, FieldWeight, SearchDocument, SearchIndex};

use crate::model::Study;

/// The text of each field of a study, in [`FIELDS`] order.
fn field_texts(study: &Study) -> [String; 5] {
    let d = &study.design;
    let brands: Vec<&str> = study
        .brands
        .iter()
        .flat_map(|b| std::iter::once(b.name.as_str()).chain(b.alias.iter().map(String::as_str)))
        .collect();
    let questions: Vec<&str> = study.questions.iter().map(|q| q.text.as_str()).collect();
    [
        format!("{} {}", d.name, d.name_en),
        brands.join(" "),
        format!(
            "{} {} {} {}{}",
            d.industry,
            d.subindustry,
            d.country.join(" "),
            d.tags.join(" "),
            // A study compared with its previous run is found by asking for that.
            if d.previous_run.is_some() { " corrida anterior cambio previous run change" } else { "" }
        ),
        questions.join(" "),
        format!("{} {}", d.description, d.description_en),
    ]
}

pub fn build_index(studies: &[Study]) -> SearchIndex {
    let mut postings_by_term: BTreeMap<String, BTreeMap<(u32, u32), u32>> = BTreeMap::new();
    for (doc, study) in studies.iter().enumerate() {
        for (field, text) in field_texts(study).iter().enumerate() {
            for term in search_terms(text) {
                let postings = postings_by_term.entry(term).or_default();
                *postings.entry((doc as u32, field as u32)).or_default() += 1;
            }
        }
    }
    SearchIndex {
        fields: FIELDS
            .iter()
            .map(|(field, weight)| FieldWeight { field: (*field).to_owned(), weight: *weight })
            .collect(),
        documents: studies
            .iter()
            .map(|s| SearchDocument {
                slug: s.slug.clone(),
                name: s.design.name.clone(),
                name_en: s.design.name_en.clone(),
                industry: s.design.industry.clone(),
                country: s.design.country.clone(),
                brands: s.brands.iter().map(|b| b.name.clone()).collect(),
                brand_terms: s.brands.iter().map(|b| terms(&fold(&b.name)).map(str::to_owned).collect()).collect(),
            })
            .collect(),
        terms: postings_by_term
            .into_iter()
            .map(|(term, postings)| (term, postings.into_iter().map(|((doc, field), tf)| [doc, field, tf]).collect()))
            .collect(),
    }
}
