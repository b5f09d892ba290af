//! The search index the gate answers `/buscar` from: its format and its query side.
//!
//! Nine studies are a tiny corpus: a folded inverted index (term → postings) is enough and
//! deterministic, so the generator builds it ahead of time into `gate.json` like every other
//! output. The gate folds queries with the same [`crate::fold`] rules the index was built
//! with, ranks by field weight × term frequency ([`SearchIndex::query`]) and says why a study
//! matched. Both halves read this one definition, so the words a study was indexed under and
//! the words a buyer types cannot be folded differently.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::fold::search_terms;

/// Fields a study is indexed by, with their ranking weights.
pub const FIELDS: [(&str, f64); 5] =
    [("titulo", 3.0), ("marcas", 2.0), ("industria", 2.0), ("preguntas", 1.5), ("descripcion", 1.0)];

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SearchIndex {
    /// Field name → weight, in [`FIELDS`] order by index.
    pub campos: Vec<FieldWeight>,
    pub documentos: Vec<SearchDocument>,
    /// Folded term → postings `[document, field, term frequency]`, sorted.
    pub terminos: BTreeMap<String, Vec<[u32; 3]>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FieldWeight {
    pub campo: String,
    pub peso: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SearchDocument {
    pub slug: String,
    pub nombre: String,
    pub nombre_en: String,
    pub industria: String,
    pub pais: Vec<String>,
    /// Brand display names, for "why it matched".
    pub marcas: Vec<String>,
    /// The folded terms of each brand name, in `marcas` order (so queries never fold brands).
    #[serde(default)]
    pub marcas_terminos: Vec<Vec<String>>,
}

/// Longest query the gate accepts, in bytes.
pub const MAX_QUERY_BYTES: usize = 512;
/// Query terms at least this long also match indexed terms they begin ("hotel" → "hoteles").
const MIN_PREFIX: usize = 3;
/// A prefix match counts this much of an exact one.
const PREFIX_FACTOR: f64 = 0.5;

/// Why a query is refused.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryError {
    Empty,
    TooLong(usize),
}

/// One study that matched, with why.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit<'a> {
    pub document: &'a SearchDocument,
    /// Position of `document` in the index's `documentos`.
    pub position: usize,
    /// Distinct query terms the study matched.
    pub matched_terms: usize,
    pub score: f64,
    /// (query term, indexed term, field name), sorted, deduplicated; borrowed from the
    /// query and the index, so ranking allocates nothing per posting.
    pub matches: Vec<(&'a str, &'a str, &'a str)>,
    /// Tracked brands whose name contains a matched term.
    pub brands: Vec<&'a str>,
}

impl SearchIndex {
    /// Ranks the studies for a free-text query: studies matching more of the query's terms
    /// first, then by score (field weight × (1 + ln tf), prefix matches at half weight), then slug.
    pub fn query<'a>(&'a self, text: &str) -> Result<(Vec<String>, Vec<Hit<'a>>), QueryError> {
        if text.len() > MAX_QUERY_BYTES {
            return Err(QueryError::TooLong(text.len()));
        }
        let terms = distinct(search_terms(text));
        if terms.is_empty() {
            return Err(QueryError::Empty);
        }
        // Matches are sorted by (query term, indexed term, field name) for display. Ranking
        // the query terms and field names once lets that sort compare numbers, not strings:
        // the indexed terms of one query term arrive in order already (a range of the index).
        let term_ranks = string_ranks(terms.iter().map(String::as_str));
        let field_ranks = string_ranks(self.campos.iter().map(|f| f.campo.as_str()));
        // One running score per document; every match of every document in one list.
        let mut scores = vec![0.0f64; self.documentos.len()];
        let mut found: Vec<(u32, MatchOrder, Reason<'a>)> = Vec::with_capacity(64);
        for (term, term_rank) in terms.iter().zip(&term_ranks) {
            for (sequence, (indexed, postings, factor)) in self.matching_terms(term).enumerate() {
                // The hit names the indexed term, which is the query term or begins with it.
                let termino = &indexed[..term.len().min(indexed.len())];
                for [doc, field, tf] in postings {
                    let (weight, name, field_rank) = self
                        .campos
                        .get(*field as usize)
                        .map_or((1.0, "?", u32::MAX), |f| (f.peso, f.campo.as_str(), field_ranks[*field as usize]));
                    let Some(score) = scores.get_mut(*doc as usize) else { continue };
                    *score += weight * factor * (1.0 + f64::from(*tf).ln());
                    found.push((*doc, (*term_rank, sequence as u32, field_rank), (termino, indexed, name)));
                }
            }
        }
        found.sort_unstable_by_key(|m| (m.0, m.1));
        found.dedup_by_key(|m| (m.0, m.1));
        let mut hits: Vec<Hit<'a>> = Vec::new();
        for group in found.chunk_by(|a, b| a.0 == b.0) {
            let position = group[0].0 as usize;
            let (Some(document), Some(score)) = (self.documentos.get(position), scores.get(position)) else { continue };
            let matched_terms = group.chunk_by(|a, b| a.1.0 == b.1.0).count();
            let matches: Vec<Reason<'a>> = group.iter().map(|m| m.2).collect();
            let brands = matching_brands(document, &matches);
            hits.push(Hit { document, position, matched_terms, score: *score, matches, brands });
        }
        hits.sort_by(|a, b| {
            b.matched_terms
                .cmp(&a.matched_terms)
                .then(b.score.total_cmp(&a.score))
                .then(a.document.slug.cmp(&b.document.slug))
        });
        Ok((terms, hits))
    }

    /// Indexed terms a query term matches: itself, and those it begins when long enough.
    fn matching_terms<'a, 'q>(&'a self, term: &'q str) -> impl Iterator<Item = (&'a str, &'a [[u32; 3]], f64)> + 'q
    where
        'a: 'q,
    {
        self.terminos
            .range::<str, _>((std::ops::Bound::Included(term), std::ops::Bound::Unbounded))
            .take_while(move |(indexed, _)| indexed.starts_with(term))
            .filter(move |(indexed, _)| indexed.as_str() == term || term.len() >= MIN_PREFIX)
            .map(move |(indexed, postings)| {
                let factor = if indexed.as_str() == term { 1.0 } else { PREFIX_FACTOR };
                (indexed.as_str(), postings.as_slice(), factor)
            })
    }
}

/// (query term rank, indexed term sequence, field name rank).
type MatchOrder = (u32, u32, u32);
/// (query term, indexed term, field name).
type Reason<'a> = (&'a str, &'a str, &'a str);

/// Each string's rank in sorted order (equal strings share a rank).
fn string_ranks<'s>(strings: impl Iterator<Item = &'s str>) -> Vec<u32> {
    let strings: Vec<&str> = strings.collect();
    let mut sorted = strings.clone();
    sorted.sort_unstable();
    strings.iter().map(|s| sorted.partition_point(|other| other < s) as u32).collect()
}

/// The terms in order of first appearance, each once (a query has a few dozen at most).
fn distinct(terms: Vec<String>) -> Vec<String> {
    let mut unique: Vec<String> = Vec::with_capacity(terms.len());
    for term in terms {
        if !unique.contains(&term) {
            unique.push(term);
        }
    }
    unique
}

/// Brand names of a document that contain an indexed term matched in the brands field.
fn matching_brands<'a>(document: &'a SearchDocument, matches: &[(&str, &str, &str)]) -> Vec<&'a str> {
    let brand_terms: Vec<&str> = matches.iter().filter(|m| m.2 == "marcas").map(|m| m.1).collect();
    if brand_terms.is_empty() {
        return Vec::new();
    }
    document
        .marcas
        .iter()
        .zip(&document.marcas_terminos)
        .filter(|(_, terms)| terms.iter().any(|t| brand_terms.contains(&t.as_str())))
        .map(|(name, _)| name.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::{fold, terms};

    fn doc(slug: &str, marcas: &[&str]) -> SearchDocument {
        SearchDocument {
            slug: slug.into(),
            nombre: slug.into(),
            nombre_en: slug.into(),
            industria: "x".into(),
            pais: vec!["Argentina".into()],
            marcas: marcas.iter().map(|m| (*m).to_owned()).collect(),
            marcas_terminos: marcas.iter().map(|m| terms(&fold(m)).map(str::to_owned).collect()).collect(),
        }
    }

    fn index() -> SearchIndex {
        let mut terminos = BTreeMap::new();
        terminos.insert("hoteles".to_owned(), vec![[0, 0, 2]]);
        terminos.insert("hotel".to_owned(), vec![[1, 4, 1]]);
        terminos.insert("galicia".to_owned(), vec![[1, 1, 1]]);
        terminos.insert("banco".to_owned(), vec![[1, 0, 1], [1, 1, 3]]);
        terminos.insert("cordoba".to_owned(), vec![[0, 2, 1], [1, 2, 1]]);
        SearchIndex {
            campos: FIELDS.iter().map(|(c, p)| FieldWeight { campo: (*c).into(), peso: *p }).collect(),
            documentos: vec![doc("hoteles-2026", &[]), doc("banca-2026", &["Banco Galicia", "Ualá"])],
            terminos,
        }
    }

    #[test]
    fn folds_the_query_and_ranks_by_coverage_then_score() {
        let index = index();
        let (terms, hits) = index.query("BANCO Galicia en Córdoba").unwrap();
        assert_eq!(terms, ["banco", "galicia", "cordoba"]);
        assert_eq!(hits[0].document.slug, "banca-2026");
        assert_eq!(hits[0].matched_terms, 3);
        assert_eq!(hits[0].brands, ["Banco Galicia"]);
        assert_eq!(hits[1].document.slug, "hoteles-2026");
        assert_eq!(hits[1].matched_terms, 1);
    }

    #[test]
    fn prefixes_match_at_half_weight() {
        let index = index();
        let (_, hits) = index.query("hotel").unwrap();
        // hoteles-2026 only by prefix in the title (3 × 0.5 × (1 + ln 2)), banca by the exact
        // term in the description (1 × 1).
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].document.slug, "hoteles-2026");
        assert!((hits[0].score - 1.5 * (1.0 + 2f64.ln())).abs() < 1e-9);
        assert!((hits[1].score - 1.0).abs() < 1e-9);
        assert!(index.query("ho").unwrap().1.is_empty(), "two letters match only exactly");
    }

    #[test]
    fn empty_and_long_queries_are_refused() {
        let index = index();
        assert_eq!(index.query("  de la ").unwrap_err(), QueryError::Empty);
        assert_eq!(index.query(&"a".repeat(600)).unwrap_err(), QueryError::TooLong(600));
    }

    proptest::proptest! {
        /// Whatever the query, each hit's reasons are sorted by (query term, indexed term,
        /// field name) as strings, each once, and it matched as many terms as it names.
        #[test]
        fn reasons_are_sorted_as_strings(words in proptest::collection::vec("(hot|hoteles|hotel|banco|galicia|cordoba|ba|x)", 1..6)) {
            let index = index();
            let Ok((terms, hits)) = index.query(&words.join(" ")) else { return Ok(()) };
            for hit in &hits {
                let mut sorted = hit.matches.clone();
                sorted.sort_unstable();
                sorted.dedup();
                proptest::prop_assert_eq!(&hit.matches, &sorted);
                let mut named: Vec<&str> = hit.matches.iter().map(|m| m.0).collect();
                named.dedup();
                proptest::prop_assert_eq!(hit.matched_terms, named.len());
                for (termino, indexed, _) in &hit.matches {
                    proptest::prop_assert!(terms.iter().any(|t| t == termino) && indexed.starts_with(termino));
                }
            }
        }
    }
}
