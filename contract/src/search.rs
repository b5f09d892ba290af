//! The search index the gate answers `/buscar` from: its format and its query side.
//!
//! Nine studies are a tiny corpus: a folded inverted index (term → postings) is enough and
//! deterministic, so the generator builds it ahead of time into `gate.json` like every other
//! output. The gate folds queries with the same [`crate::fold`] rules the index was built
//! with, ranks by field weight × term frequency ([`SearchIndex::query`] is the definition,
//! [`PreparedIndex`] the same ranking with the per-index work done once) and says why a study
//! matched. Both halves read this one definition, so the words a study was indexed under and
//! the words a buyer types cannot be folded differently.

use std::collections::BTreeMap;
use std::hash::BuildHasher;

use serde::{Deserialize, Serialize};

use crate::fold::search_terms;

/// Fields a study is indexed by, with their ranking weights.
pub const FIELDS: [(&str, f64); 5] =
    [("titulo", 3.0), ("marcas", 2.0), ("industria", 2.0), ("preguntas", 1.5), ("descripcion", 1.0)];

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SearchIndex {
    /// Field name → weight, in [`FIELDS`] order by index.
    #[serde(rename = "campos")]
    pub fields: Vec<FieldWeight>,
    #[serde(rename = "documentos")]
    pub documents: Vec<SearchDocument>,
    /// Folded term → postings `[document, field, term frequency]`, sorted.
    #[serde(rename = "terminos")]
    pub terms: BTreeMap<String, Vec<[u32; 3]>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FieldWeight {
    #[serde(rename = "campo")]
    pub field: String,
    #[serde(rename = "peso")]
    pub weight: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SearchDocument {
    pub slug: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "nombre_en")]
    pub name_en: String,
    #[serde(rename = "industria")]
    pub industry: String,
    #[serde(rename = "pais")]
    pub country: Vec<String>,
    /// Brand display names, for "why it matched".
    #[serde(rename = "marcas")]
    pub brands: Vec<String>,
    /// The folded terms of each brand name, in `marcas` order (so queries never fold brands).
    #[serde(default)]
    #[serde(rename = "marcas_terminos")]
    pub brand_terms: Vec<Vec<String>>,
}

/// Longest query the gate accepts, in characters (Unicode scalar values: what `maxLength`
/// counts in the published contract).
pub const MAX_QUERY_CHARS: usize = 128;
/// What a query must contain to be searched, as a regular expression (ECMA-262 and Python
/// read it alike): one character that is not an ASCII sign, space or control character.
/// The published contract states it; [`QueryError::Empty`] is its negation.
pub const SEARCHABLE_PATTERN: &str = r"[^\u0000-\u002F\u003A-\u0040\u005B-\u0060\u007B-\u007F]";
/// The most bytes a query within [`MAX_QUERY_CHARS`] can take in UTF-8.
pub const MAX_QUERY_BYTES: usize = MAX_QUERY_CHARS * 4;
/// Query terms at least this long also match indexed terms they begin ("hotel" → "hoteles").
const MIN_PREFIX: usize = 3;
/// A prefix match counts this much of an exact one.
const PREFIX_FACTOR: f64 = 0.5;

/// Why a query is refused.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryError {
    /// Only ASCII signs, spaces and control characters ([`SEARCHABLE_PATTERN`] does not
    /// match): nothing to search. A query of only common words ("de la") or of other signs
    /// ("¿…?") is not refused: it has no terms and finds nothing.
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
        let terms = query_terms(text)?;
        // Matches are sorted by (query term, indexed term, field name) for display. Ranking
        // the query terms and field names once lets that sort compare numbers, not strings:
        // the indexed terms of one query term arrive in order already (a range of the index).
        let term_ranks = string_ranks(terms.iter().map(String::as_str));
        let field_ranks = string_ranks(self.fields.iter().map(|f| f.field.as_str()));
        // One running score per document; every match of every document in one list.
        let mut scores = vec![0.0f64; self.documents.len()];
        let mut found: Vec<(u32, MatchOrder, Reason<'a>)> = Vec::with_capacity(64);
        for (term, term_rank) in terms.iter().zip(&term_ranks) {
            for (sequence, (indexed, postings, factor)) in self.matching_terms(term).enumerate() {
                // The hit names the indexed term, which is the query term or begins with it.
                let term = &indexed[..term.len().min(indexed.len())];
                for [doc, field, tf] in postings {
                    let (weight, name, field_rank) = self
                        .fields
                        .get(*field as usize)
                        .map_or((1.0, "?", u32::MAX), |f| (f.weight, f.field.as_str(), field_ranks[*field as usize]));
                    let Some(score) = scores.get_mut(*doc as usize) else { continue };
                    *score += weight * factor * (1.0 + f64::from(*tf).ln());
                    found.push((*doc, (*term_rank, sequence as u32, field_rank), (term, indexed, name)));
                }
            }
        }
        found.sort_unstable_by_key(|m| (m.0, m.1));
        found.dedup_by_key(|m| (m.0, m.1));
        let mut hits: Vec<Hit<'a>> = Vec::new();
        for group in found.chunk_by(|a, b| a.0 == b.0) {
            let position = group[0].0 as usize;
            let (Some(document), Some(score)) = (self.documents.get(position), scores.get(position)) else { continue };
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
        self.terms
            .range::<str, _>((std::ops::Bound::Included(term), std::ops::Bound::Unbounded))
            .take_while(move |(indexed, _)| indexed.starts_with(term))
            .filter(move |(indexed, _)| indexed.as_str() == term || term.len() >= MIN_PREFIX)
            .map(move |(indexed, postings)| {
                let factor = if indexed.as_str() == term { 1.0 } else { PREFIX_FACTOR };
                (indexed.as_str(), postings.as_slice(), factor)
            })
    }
}

/// The index arranged for answering, built once when the gate loads.
///
/// [`SearchIndex::query`] defines a search; this gives the same ranking with the work that
/// does not depend on the query done ahead of time. Every word that can match (each indexed
/// term, and each prefix of one long enough to match by prefix) is one hash lookup away from
/// the terms it matches; each term's postings are grouped by document with their weights, its
/// reasons already in display order and the brands it names. What is left per query is
/// folding, a few lookups, one add per posting and a sort of the studies found. A property
/// test holds it equal to `query`: the same hits in the same order, scores bit for bit.
#[derive(Debug, Clone)]
pub struct PreparedIndex {
    /// Indexed terms, sorted.
    terms: Vec<PreparedTerm>,
    /// A query word → the range of `terms` it matches.
    words: WordTable,
    /// (indexed term, field name) of each reason id.
    reasons: Vec<(u32, u32)>,
    /// Field names, then `"?"` for a field the index does not name.
    field_names: Vec<String>,
    /// Each document's rank by slug, for the final tie-break.
    slug_ranks: Vec<u32>,
}

#[derive(Debug, Clone)]
struct PreparedTerm {
    text: String,
    /// The documents this term is indexed in, in document order.
    documents: Vec<TermInDocument>,
}

#[derive(Debug, Clone)]
struct TermInDocument {
    document: u32,
    /// (field weight, 1 + ln tf) of each posting, in postings order.
    weights: Box<[(f64, f64)]>,
    /// Reason ids in field name order, each once.
    reasons: Box<[u32]>,
    /// Brands (positions in the document's `marcas`) whose name has this term, when the term
    /// was indexed in the brands field.
    brands: Box<[u32]>,
}

/// What preparing an index carries from term to term: the fields' names and ranks, and the
/// reasons given an id so far.
struct Preparing<'i> {
    index: &'i SearchIndex,
    /// Each field's rank by name, as `query` sorts reasons.
    field_ranks: Vec<u32>,
    /// Field names, then `"?"` for a field the index does not name.
    field_names: Vec<String>,
    /// (term, field slot) → reason id.
    reason_ids: BTreeMap<(u32, u32), u32>,
    reasons: Vec<(u32, u32)>,
}

impl<'i> Preparing<'i> {
    fn new(index: &'i SearchIndex) -> Preparing<'i> {
        let mut field_names: Vec<String> = index.fields.iter().map(|f| f.field.clone()).collect();
        field_names.push("?".to_owned());
        Preparing {
            index,
            field_ranks: string_ranks(index.fields.iter().map(|f| f.field.as_str())),
            field_names,
            reason_ids: BTreeMap::new(),
            reasons: Vec::new(),
        }
    }

    /// The term at `position` with its postings grouped by document (postings naming a
    /// document the index does not have count for nothing, as in `query`).
    fn term(&mut self, position: u32, text: &str, postings: &[[u32; 3]]) -> PreparedTerm {
        let mut by_document: BTreeMap<u32, Vec<[u32; 3]>> = BTreeMap::new();
        for posting in postings.iter().filter(|p| (p[0] as usize) < self.index.documents.len()) {
            by_document.entry(posting[0]).or_default().push(*posting);
        }
        let documents = by_document
            .into_iter()
            .map(|(document, postings)| self.term_in_document(position, text, document, &postings))
            .collect();
        PreparedTerm { text: text.to_owned(), documents }
    }

    /// One term's postings in one document: their weights in order, the reasons they give
    /// sorted by field name and each once (as `query` dedups them), the brands they name.
    fn term_in_document(&mut self, term: u32, text: &str, document: u32, postings: &[[u32; 3]]) -> TermInDocument {
        let fields = &self.index.fields;
        let weights = postings
            .iter()
            .map(|[_, field, tf]| (fields.get(*field as usize).map_or(1.0, |f| f.weight), 1.0 + f64::from(*tf).ln()))
            .collect();
        let unknown_field = fields.len() as u32;
        let mut fields: Vec<(u32, u32)> = postings
            .iter()
            .map(|[_, field, _]| match self.field_ranks.get(*field as usize) {
                Some(rank) => (*rank, *field),
                None => (u32::MAX, unknown_field),
            })
            .collect();
        fields.sort_unstable();
        fields.dedup_by_key(|(rank, _)| *rank);
        let in_brands = fields.iter().any(|(_, slot)| self.field_names[*slot as usize] == "marcas");
        let reasons = fields.iter().map(|(_, slot)| self.reason_id(term, *slot)).collect();
        let brands = match self.index.documents.get(document as usize) {
            Some(study) if in_brands => brands_named_by(study, text),
            _ => Box::default(),
        };
        TermInDocument { document, weights, reasons, brands }
    }

    fn reason_id(&mut self, term: u32, field_slot: u32) -> u32 {
        let reasons = &mut self.reasons;
        *self.reason_ids.entry((term, field_slot)).or_insert_with(|| {
            reasons.push((term, field_slot));
            reasons.len() as u32 - 1
        })
    }
}

/// The studies a query found, best first, with why; reasons and brands of every hit in two
/// shared lists.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The query's folded terms, each once, in order of appearance.
    pub terms: Vec<String>,
    pub hits: Vec<RankedHit>,
    /// (position in `terms`, reason id) of every hit, in display order.
    pub reasons: Vec<(u32, u32)>,
    /// Brand positions of every hit, in document order.
    pub brands: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RankedHit {
    /// Position of the study in the index's `documentos`.
    pub position: usize,
    /// Distinct query terms the study matched.
    pub matched_terms: usize,
    pub score: f64,
    /// This hit's part of [`Ranked::reasons`].
    pub reasons: std::ops::Range<usize>,
    /// This hit's part of [`Ranked::brands`].
    pub brands: std::ops::Range<usize>,
}

/// One (query term, indexed term, document) found while ranking.
struct Found<'a> {
    document: u32,
    term_rank: u32,
    query_term: u32,
    indexed: u32,
    postings: &'a TermInDocument,
}

impl PreparedIndex {
    /// Arranges `index` for answering.
    pub fn new(index: &SearchIndex) -> PreparedIndex {
        let mut preparing = Preparing::new(index);
        let terms: Vec<PreparedTerm> = index
            .terms
            .iter()
            .enumerate()
            .map(|(position, (text, postings))| preparing.term(position as u32, text, postings))
            .collect();
        let words = WordTable::new(&terms);
        let slug_ranks = string_ranks(index.documents.iter().map(|d| d.slug.as_str()));
        let Preparing { reasons, field_names, .. } = preparing;
        PreparedIndex { terms, words, reasons, field_names, slug_ranks }
    }

    /// The (indexed term, field name) of every reason, in id order (ids run from 0).
    pub fn reasons(&self) -> impl ExactSizeIterator<Item = (&str, &str)> {
        self.reasons
            .iter()
            .map(|(term, field)| (self.terms[*term as usize].text.as_str(), self.field_names[*field as usize].as_str()))
    }

    /// Ranks the studies for a free-text query exactly as [`SearchIndex::query`] does.
    pub fn query(&self, text: &str) -> Result<Ranked, QueryError> {
        let terms = query_terms(text)?;
        let term_ranks = string_ranks(terms.iter().map(String::as_str));
        let mut scores = vec![0.0f64; self.slug_ranks.len()];
        let mut found: Vec<Found<'_>> = Vec::with_capacity(32);
        for (query_term, (term, term_rank)) in terms.iter().zip(&term_ranks).enumerate() {
            let Some((start, end)) = self.words.find(&self.terms, term) else { continue };
            for (indexed, prepared) in self.terms[start as usize..end as usize].iter().enumerate() {
                let factor = if prepared.text == *term { 1.0 } else { PREFIX_FACTOR };
                for postings in &prepared.documents {
                    let score = &mut scores[postings.document as usize];
                    for (weight, frequency) in &postings.weights {
                        *score += weight * factor * frequency;
                    }
                    found.push(Found {
                        document: postings.document,
                        term_rank: *term_rank,
                        query_term: query_term as u32,
                        indexed: start + indexed as u32,
                        postings,
                    });
                }
            }
        }
        found.sort_unstable_by_key(|f| (f.document, f.term_rank, f.indexed));
        let documents_found = found.chunk_by(|a, b| a.document == b.document).count();
        let mut ranked = Ranked {
            terms,
            hits: Vec::with_capacity(documents_found),
            reasons: Vec::with_capacity(found.iter().map(|f| f.postings.reasons.len()).sum()),
            brands: Vec::with_capacity(found.iter().map(|f| f.postings.brands.len()).sum()),
        };
        for group in found.chunk_by(|a, b| a.document == b.document) {
            let position = group[0].document as usize;
            let reasons_start = ranked.reasons.len();
            for f in group {
                ranked.reasons.extend(f.postings.reasons.iter().map(|id| (f.query_term, *id)));
            }
            let brands_start = ranked.brands.len();
            for brand in group.iter().flat_map(|f| f.postings.brands.iter()) {
                if !ranked.brands[brands_start..].contains(brand) {
                    ranked.brands.push(*brand);
                }
            }
            ranked.brands[brands_start..].sort_unstable();
            ranked.hits.push(RankedHit {
                position,
                matched_terms: group.chunk_by(|a, b| a.term_rank == b.term_rank).count(),
                score: scores[position],
                reasons: reasons_start..ranked.reasons.len(),
                brands: brands_start..ranked.brands.len(),
            });
        }
        ranked.hits.sort_by(|a, b| {
            b.matched_terms
                .cmp(&a.matched_terms)
                .then(b.score.total_cmp(&a.score))
                .then(self.slug_ranks[a.position].cmp(&self.slug_ranks[b.position]))
        });
        Ok(ranked)
    }
}

/// Positions of the brands of `document` whose folded name has `term`.
fn brands_named_by(document: &SearchDocument, term: &str) -> Box<[u32]> {
    document
        .brands
        .iter()
        .zip(&document.brand_terms)
        .enumerate()
        .filter(|(_, (_, terms))| terms.iter().any(|t| t == term))
        .map(|(position, _)| position as u32)
        .collect()
}

/// Every word that matches at least one indexed term, with the range of terms it matches: an
/// indexed term matches itself and, when at least [`MIN_PREFIX`] bytes long, every term it
/// begins; a shorter word matches only itself. A word is held as a prefix of a term (which
/// term, how many bytes), so the table costs 16 bytes a word however long the terms are; words
/// longer than a query can be are left out.
#[derive(Debug, Clone)]
struct WordTable {
    hasher: hashbrown::DefaultHashBuilder,
    words: hashbrown::HashTable<Word>,
}

#[derive(Debug, Clone, Copy)]
struct Word {
    /// The term this word begins, and its length in bytes.
    term: u32,
    len: u32,
    /// The range of terms it matches.
    start: u32,
    end: u32,
}

impl WordTable {
    /// The table for `terms` (sorted).
    fn new(terms: &[PreparedTerm]) -> WordTable {
        let mut table = WordTable { hasher: Default::default(), words: hashbrown::HashTable::new() };
        let range_of = |word: &str| {
            let start = terms.partition_point(|t| t.text.as_str() < word);
            let end = start + terms[start..].partition_point(|t| t.text.starts_with(word));
            (start as u32, end as u32)
        };
        for (position, term) in terms.iter().enumerate() {
            let text = term.text.as_str();
            let prefixes = text.char_indices().map(|(end, _)| end).skip(1).filter(|end| *end >= MIN_PREFIX);
            for end in prefixes.chain([text.len()]).filter(|end| *end <= MAX_QUERY_BYTES) {
                let word = &text[..end];
                if table.find(terms, word).is_some() {
                    continue;
                }
                let (start, stop) =
                    if end < MIN_PREFIX { (position as u32, position as u32 + 1) } else { range_of(word) };
                let entry = Word { term: position as u32, len: end as u32, start, end: stop };
                let hasher = &table.hasher;
                table.words.insert_unique(hasher.hash_one(word), entry, |w| hasher.hash_one(word_of(terms, w)));
            }
        }
        table
    }

    /// The range of `terms` that `word` matches, if any.
    fn find(&self, terms: &[PreparedTerm], word: &str) -> Option<(u32, u32)> {
        self.words.find(self.hasher.hash_one(word), |w| word_of(terms, w) == word).map(|w| (w.start, w.end))
    }
}

/// The text of a word of the table.
fn word_of<'t>(terms: &'t [PreparedTerm], word: &Word) -> &'t str {
    terms.get(word.term as usize).and_then(|t| t.text.get(..word.len as usize)).unwrap_or_default()
}

/// (query term rank, indexed term sequence, field name rank).
type MatchOrder = (u32, u32, u32);
/// (query term, indexed term, field name).
type Reason<'a> = (&'a str, &'a str, &'a str);

/// Each string's rank in sorted order (equal strings share a rank): how many are smaller.
fn string_ranks<'s>(strings: impl Iterator<Item = &'s str>) -> Vec<u32> {
    let strings: Vec<&str> = strings.collect();
    if strings.len() <= 16 {
        // A query has a handful of terms: counting beats sorting a copy.
        return strings.iter().map(|s| strings.iter().filter(|other| *other < s).count() as u32).collect();
    }
    let mut sorted = strings.clone();
    sorted.sort_unstable();
    strings.iter().map(|s| sorted.partition_point(|other| other < s) as u32).collect()
}

/// A query's folded terms, each once, in order of appearance; or why it is refused.
fn query_terms(text: &str) -> Result<Vec<String>, QueryError> {
    if text.len() > MAX_QUERY_CHARS {
        let characters = text.chars().count();
        if characters > MAX_QUERY_CHARS {
            return Err(QueryError::TooLong(characters));
        }
    }
    if text.bytes().all(|b| b.is_ascii() && !b.is_ascii_alphanumeric()) {
        return Err(QueryError::Empty);
    }
    Ok(distinct(search_terms(text)))
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
        .brands
        .iter()
        .zip(&document.brand_terms)
        .filter(|(_, terms)| terms.iter().any(|t| brand_terms.contains(&t.as_str())))
        .map(|(name, _)| name.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::{fold, terms};

    fn doc(slug: &str, brands: &[&str]) -> SearchDocument {
        SearchDocument {
            slug: slug.into(),
            name: slug.into(),
            name_en: slug.into(),
            industry: "x".into(),
            country: vec!["Argentina".into()],
            brands: brands.iter().map(|m| (*m).to_owned()).collect(),
            brand_terms: brands.iter().map(|m| terms(&fold(m)).map(str::to_owned).collect()).collect(),
        }
    }

    fn index() -> SearchIndex {
        let mut terms = BTreeMap::new();
        terms.insert("hoteles".to_owned(), vec![[0, 0, 2]]);
        terms.insert("hotel".to_owned(), vec![[1, 4, 1]]);
        terms.insert("galicia".to_owned(), vec![[1, 1, 1]]);
        terms.insert("banco".to_owned(), vec![[1, 0, 1], [1, 1, 3]]);
        terms.insert("cordoba".to_owned(), vec![[0, 2, 1], [1, 2, 1]]);
        SearchIndex {
            fields: FIELDS.iter().map(|(c, p)| FieldWeight { field: (*c).into(), weight: *p }).collect(),
            documents: vec![doc("hoteles-2026", &[]), doc("banca-2026", &["Banco Galicia", "Ualá"])],
            terms,
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
    fn a_term_longer_than_any_query_is_found_by_its_prefixes() {
        let mut index = index();
        index.terms.insert("x".repeat(2000), vec![[0, 4, 1]]);
        let prepared = PreparedIndex::new(&index);
        assert!(prepared.words.words.len() < 600, "words past the longest query are not kept");
        for query in ["xxx".to_owned(), "x".repeat(MAX_QUERY_CHARS)] {
            let ranked = prepared.query(&query).unwrap();
            assert_eq!(ranked.hits.len(), 1);
            assert_eq!(ranked.hits[0].position, 0);
            assert_eq!(index.query(&query).unwrap().1.len(), 1);
        }
    }

    #[test]
    fn empty_and_long_queries_are_refused() {
        let index = index();
        assert_eq!(index.query("  ?!, \u{7f}").unwrap_err(), QueryError::Empty);
        assert!(index.query("¿…?").expect("signs past ASCII: searched, nothing found").1.is_empty());
        let (terms, hits) = index.query("  de la ").expect("common words are a query that finds nothing");
        assert!(terms.is_empty() && hits.is_empty());
        let ranked = PreparedIndex::new(&index).query("De LA").expect("the same, prepared");
        assert!(ranked.terms.is_empty() && ranked.hits.is_empty());
        assert_eq!(index.query(&"a".repeat(600)).unwrap_err(), QueryError::TooLong(600));
        assert!(index.query(&"ñ".repeat(MAX_QUERY_CHARS)).is_ok(), "the limit counts characters, not bytes");
        let over = "ñ".repeat(MAX_QUERY_CHARS + 1);
        assert_eq!(index.query(&over).unwrap_err(), QueryError::TooLong(MAX_QUERY_CHARS + 1));
    }

    /// A hand-written index with every oddity `query` tolerates: duplicate field names, a field
    /// called "marcas" twice, postings naming a missing field or study, repeated postings,
    /// short terms, prefixes that are terms, accents, duplicate slugs.
    fn odd_index() -> impl proptest::strategy::Strategy<Value = SearchIndex> {
        use proptest::prelude::*;
        let words = [
            "ab", "abc", "abcd", "abcde", "ho", "hot", "hotel", "hoteles", "hotelero", "nandu", "ñandú", "ñan",
            "banco", "bancos", "x",
        ];
        let fields = prop::collection::vec(
            (
                prop::sample::select(vec!["titulo", "marcas", "industria", "?", "marcas", "marcas"]),
                prop::sample::select(vec![3.0, 2.0, 1.5, 1.0, 0.5]),
            ),
            0..5,
        );
        let documents = prop::collection::vec(
            (
                prop::sample::select(vec!["a-2026", "b-2026", "c-2026", "a-2026"]),
                prop::collection::vec(prop::collection::vec(prop::sample::select(words.to_vec()), 1..3), 0..6),
            ),
            1..5,
        );
        let postings = prop::collection::btree_map(
            prop::sample::select(words.to_vec()),
            prop::collection::vec((0u32..5, 0u32..6, 1u32..5), 1..6),
            0..12,
        );
        (fields, documents, postings).prop_map(|(fields, documents, postings)| SearchIndex {
            fields: fields.into_iter().map(|(c, p)| FieldWeight { field: c.to_owned(), weight: p }).collect(),
            documents: documents
                .into_iter()
                .map(|(slug, brands)| SearchDocument {
                    slug: slug.to_owned(),
                    name: slug.to_owned(),
                    name_en: slug.to_owned(),
                    industry: String::new(),
                    country: Vec::new(),
                    brands: brands.iter().map(|terms| terms.join(" ")).collect(),
                    brand_terms: brands.iter().map(|terms| terms.iter().map(|t| fold(t)).collect()).collect(),
                })
                .collect(),
            terms: postings
                .into_iter()
                .map(|(t, p)| (fold(t), p.into_iter().map(|(d, f, tf)| [d, f, tf]).collect()))
                .collect(),
        })
    }

    /// `PreparedIndex::query`'s answer in the shape `SearchIndex::query` gives.
    fn as_hits<'a>(index: &'a SearchIndex, prepared: &'a PreparedIndex, ranked: &'a Ranked) -> Vec<Hit<'a>> {
        ranked
            .hits
            .iter()
            .map(|hit| {
                let document = &index.documents[hit.position];
                Hit {
                    document,
                    position: hit.position,
                    matched_terms: hit.matched_terms,
                    score: hit.score,
                    matches: ranked.reasons[hit.reasons.clone()]
                        .iter()
                        .map(|(term, id)| {
                            let (indexed, field) = prepared.reasons().nth(*id as usize).unwrap();
                            (ranked.terms[*term as usize].as_str(), indexed, field)
                        })
                        .collect(),
                    brands: ranked.brands[hit.brands.clone()]
                        .iter()
                        .map(|b| document.brands[*b as usize].as_str())
                        .collect(),
                }
            })
            .collect()
    }

    proptest::proptest! {
        /// The prepared index answers every query exactly as the definition does: same hits,
        /// same order, same reasons and brands, scores equal bit for bit.
        #[test]
        fn prepared_equals_the_definition(
            index in odd_index(),
            words in proptest::collection::vec("(ab|abc|abcd|ho|hot|hote|hotel|hoteles|hotelerox|nan|ñan|ÑANDÚ|banc|BANCOS|x|de|zz)", 1..6),
        ) {
            let prepared = PreparedIndex::new(&index);
            let text = words.join(" ");
            match (index.query(&text), prepared.query(&text)) {
                (Ok((terms, hits)), Ok(ranked)) => {
                    proptest::prop_assert_eq!(&terms, &ranked.terms);
                    let prepared_hits = as_hits(&index, &prepared, &ranked);
                    proptest::prop_assert_eq!(hits.len(), prepared_hits.len());
                    for (expected, got) in hits.iter().zip(&prepared_hits) {
                        proptest::prop_assert_eq!(expected.score.to_bits(), got.score.to_bits());
                        proptest::prop_assert_eq!(expected, got);
                    }
                }
                (Err(expected), Err(got)) => proptest::prop_assert_eq!(expected, got),
                (expected, got) => proptest::prop_assert!(false, "{:?} against {:?}", expected.map(|_| ()), got.map(|_| ())),
            }
        }

        /// Ranks by counting (few strings) and by sorting (many) agree with their definition.
        #[test]
        fn string_ranks_count_the_smaller_strings(strings in proptest::collection::vec("[a-c]{0,3}", 0..40)) {
            let ranks = string_ranks(strings.iter().map(String::as_str));
            for (s, rank) in strings.iter().zip(&ranks) {
                proptest::prop_assert_eq!(*rank as usize, strings.iter().filter(|o| *o < s).count());
            }
        }

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
                for (term, indexed, _) in &hit.matches {
                    proptest::prop_assert!(terms.iter().any(|t| t == term) && indexed.starts_with(term));
                }
            }
        }
    }
}
