//! The search index the gate answers `/buscar` from, built ahead of time.
//!
//! Nine studies are a tiny corpus: a folded inverted index (term → postings) is enough and
//! deterministic, so it can sit in `gate.json` with a hash like every other output
//! (`reference/generator-notes.md` §4). The gate folds queries with the same
//! [`crate::fold`] rules, ranks by field weight × term frequency, and says why a study matched.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::fold::search_terms;
use crate::model::Study;

/// Fields a study is indexed by, with their ranking weights.
pub const FIELDS: [(&str, f64); 5] = [
    ("titulo", 3.0),
    ("marcas", 2.0),
    ("industria", 2.0),
    ("preguntas", 1.5),
    ("descripcion", 1.0),
];

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SearchIndex {
    /// Field name → weight, in [`FIELDS`] order by index.
    pub campos: Vec<FieldWeight>,
    pub documentos: Vec<SearchDocument>,
    /// Folded term → postings `[document, field, term frequency]`, sorted.
    pub terminos: BTreeMap<String, Vec<[u32; 3]>>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FieldWeight {
    pub campo: &'static str,
    pub peso: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SearchDocument {
    pub slug: String,
    pub nombre: String,
    pub nombre_en: String,
    pub industria: String,
    pub pais: Vec<String>,
    /// Brand display names, for "why it matched".
    pub marcas: Vec<String>,
}

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
        format!("{} {} {} {}", d.industria, d.subindustria, d.pais.join(" "), d.tags.join(" ")),
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
        campos: FIELDS.iter().map(|(campo, peso)| FieldWeight { campo, peso: *peso }).collect(),
        documentos: studies
            .iter()
            .map(|s| SearchDocument {
                slug: s.slug.clone(),
                nombre: s.design.nombre.clone(),
                nombre_en: s.design.nombre_en.clone(),
                industria: s.design.industria.clone(),
                pais: s.design.pais.clone(),
                marcas: s.brands.iter().map(|b| b.nombre.clone()).collect(),
            })
            .collect(),
        terminos: terminos
            .into_iter()
            .map(|(term, postings)| {
                (term, postings.into_iter().map(|((doc, field), tf)| [doc, field, tf]).collect())
            })
            .collect(),
    }
}
