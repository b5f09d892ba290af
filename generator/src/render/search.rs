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
        .flat_map(|b| std::iter::once(b.nombre.as_str()).chain(b.alias.iter().map(String::as_str)))
        .collect();
    let questions: Vec<&str> = study.questions.iter().map(|q| q.texto.as_str()).collect();
    [
        format!("{} {}", d.nombre, d.nombre_en),
        brands.join(" "),
        format!(
            "{} {} {} {}{}",
            d.industria,
            d.subindustria,
            d.pais.join(" "),
            d.tags.join(" "),
            // A study compared with its previous run is found by asking for that.
            if d.corrida_anterior.is_some() { " corrida anterior cambio previous run change" } else { "" }
        ),
        questions.join(" "),
        format!("{} {}", d.descripcion, d.descripcion_en),
    ]
}

pub fn build_index(studies: &[Study]) -> SearchIndex {
    let mut terminos: BTreeMap<String, BTreeMap<(u32, u32), u32>> = BTreeMap::new();
    for (doc, study) in studies.iter().enumerate() {
        for (field, text) in field_texts(study).iter().enumerate() {
            for term in search_terms(text) {
                let postings = terminos.entry(term).or_default();
                *postings.entry((doc as u32, field as u32)).or_default() += 1;
            }
        }
    }
    SearchIndex {
        campos: FIELDS.iter().map(|(campo, peso)| FieldWeight { campo: (*campo).to_owned(), peso: *peso }).collect(),
        documentos: studies
            .iter()
            .map(|s| SearchDocument {
                slug: s.slug.clone(),
                nombre: s.design.nombre.clone(),
                nombre_en: s.design.nombre_en.clone(),
                industria: s.design.industria.clone(),
                pais: s.design.pais.clone(),
                marcas: s.brands.iter().map(|b| b.nombre.clone()).collect(),
                marcas_terminos: s
                    .brands
                    .iter()
                    .map(|b| terms(&fold(&b.nombre)).map(str::to_owned).collect())
                    .collect(),
            })
            .collect(),
        terminos: terminos
            .into_iter()
            .map(|(term, postings)| (term, postings.into_iter().map(|((doc, field), tf)| [doc, field, tf]).collect()))
            .collect(),
    }
}
