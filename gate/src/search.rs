//! `GET /buscar?q=`: ranked search over the index the generator built into the manifest.
//!
//! Folding and ranking live with the index format in `contract::search`, so the words a
//! study was indexed under and the words a buyer types are folded by the same code. This
//! module turns hits into the JSON a buyer reads: why each study matched and where to go next.
//!
//! A search answer is mostly fixed text: each study's names, countries, brands and links, and
//! each reason's indexed term and field, are the same in every answer that names them. They
//! are written as JSON once, when the gate loads, and ranking runs on the index arranged for
//! answering ([`PreparedIndex`]); an answer is those pieces around the few values that depend
//! on the query (the query terms, scores, counts), so a search that misses the cache costs
//! little more than a file served from memory.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use contract::search::{
    MAX_QUERY_BYTES, MAX_QUERY_CHARS, PreparedIndex, QueryError, Ranked, RankedHit, SearchDocument, SearchIndex,
};
use hashbrown::DefaultHashBuilder;
use serde_json::json;

use gate_http::response::{Body, JSON, PreparedHead, Reply};

/// Most results returned.
const MAX_RESULTS: usize = 20;
/// Answers kept before the cache starts over.
const CACHE_ENTRIES: usize = 2048;
/// Longest raw query string kept in the cache (longer ones are refused as too long anyway).
const CACHE_KEY_BYTES: usize = MAX_QUERY_BYTES * 3;
/// How long a browser or CDN may keep an answer.
const CACHE_CONTROL: &str = "public, max-age=60";

/// Why a query is refused: a stable code and a Spanish message, for either transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub code: &'static str,
    pub message: String,
}

/// The gate's search: the manifest's index arranged for answering, the fixed JSON of each
/// study and of each reason, and the answers given.
pub struct Search {
    index: PreparedIndex,
    base_url: String,
    /// `,"catalogo":"…/catalogo"}`, the answer's last field.
    closing: Vec<u8>,
    /// Each study's fixed JSON, in index order.
    documents: Vec<DocumentJson>,
    /// Each reason id's JSON, for either way a query term can match it.
    reasons: Vec<ReasonJson>,
    cache: AnswerCache,
    /// The head of a 200 answer, prepared once.
    found: PreparedHead,
}

/// Answers already given, by raw query string. The index is immutable while the gate runs, so
/// an answer is a pure function of `q`, and a repeated search (agents repeat them) costs a
/// lookup. An answer is kept from the second time its query is asked: a stream of one-off
/// queries then costs a fingerprint each instead of churning kilobytes through the cache, and
/// a query whose fingerprint is not in its slot skips the lock.
struct AnswerCache {
    /// Seeded at random per gate, so the slots a query falls in cannot be planned.
    hasher: DefaultHashBuilder,
    /// The fingerprint of the last query that fell in each slot.
    seen: Box<[AtomicU64]>,
    answers: parking_lot::Mutex<HashMap<String, Bytes, DefaultHashBuilder>>,
}

/// Slots of the table of queries seen once.
const SEEN_SLOTS: usize = 4096;

impl Default for AnswerCache {
    fn default() -> Self {
        AnswerCache {
            hasher: Default::default(),
            seen: (0..SEEN_SLOTS).map(|_| AtomicU64::new(0)).collect(),
            answers: Default::default(),
        }
    }
}

impl AnswerCache {
    fn fingerprint(&self, key: &str) -> u64 {
        self.hasher.hash_one(key)
    }

    fn slot(&self, fingerprint: u64) -> &AtomicU64 {
        &self.seen[(fingerprint % SEEN_SLOTS as u64) as usize]
    }

    /// The answer kept for `key`. A key is only kept once its fingerprint was in its slot, and
    /// one that was pushed out of its slot since is answered anew (and finds its slot again).
    fn get(&self, key: &str, fingerprint: u64) -> Option<Bytes> {
        if self.slot(fingerprint).load(Ordering::Relaxed) != fingerprint {
            return None;
        }
        self.answers.lock().get(key).cloned()
    }

    /// Keeps `body` as the answer to `key` if `key` was asked before.
    fn offer(&self, key: &str, fingerprint: u64, body: &Bytes) {
        if self.slot(fingerprint).swap(fingerprint, Ordering::Relaxed) != fingerprint {
            return;
        }
        let evicted = {
            let mut answers = self.answers.lock();
            let evicted =
                if answers.len() >= CACHE_ENTRIES { std::mem::take(&mut *answers) } else { HashMap::default() };
            answers.insert(key.to_owned(), body.clone());
            evicted
        };
        // Freed after the lock is released, so the other threads do not wait for it.
        drop(evicted);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.answers.lock().len()
    }
}

/// A study's result object around the parts that depend on the query.
struct DocumentJson {
    /// `{"slug":…,"nombre":…,"nombre_en":…,"industria":…,"pais":[…],"puntaje":`
    head: Box<[u8]>,
    /// `"urls":{"ficha":…,"comprar":…}}`
    tail: Box<[u8]>,
    /// Each brand's name as a JSON string, in `marcas` order.
    brands: Vec<Box<[u8]>>,
}

impl Search {
    /// Prepares the search over `index`, with links under `base_url`.
    pub fn new(index: &SearchIndex, base_url: &str) -> Search {
        let base_url = base_url.trim_end_matches('/').to_owned();
        let documents = index.documents.iter().map(|d| DocumentJson::new(d, &base_url)).collect();
        let mut closing = b",\"catalogo\":".to_vec();
        push_json(&mut closing, &format!("{base_url}/catalogo"));
        closing.push(b'}');
        let index = PreparedIndex::new(index);
        let reasons = index.reasons().map(|(indexed, field)| ReasonJson::new(indexed, field)).collect();
        Search { index, base_url, closing, documents, reasons, cache: Default::default(), found: found_head() }
    }

    /// Answers `GET /buscar` with the raw query string of the request, through the cache.
    pub fn answer(&self, query: Option<&str>) -> Reply {
        let key = query.unwrap_or_default();
        let fingerprint = (key.len() <= CACHE_KEY_BYTES).then(|| self.cache.fingerprint(key));
        if let Some(fingerprint) = fingerprint
            && let Some(body) = self.cache.get(key, fingerprint)
        {
            return self.found.reply(body);
        }
        let q = query
            .and_then(|query| url::form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "q").map(|(_, v)| v));
        let Some(q) = q.filter(|q| !q.trim().is_empty()) else {
            return Reply::error_with(
                400,
                "falta_q",
                "Indique qué busca en el parámetro q, por ejemplo /buscar?q=bancos+argentina.",
                json!({"ejemplo": format!("{}/buscar?q=hoteles", self.base_url)}),
            );
        };
        let body = match self.results(&q) {
            Ok(body) => body,
            Err(refused) => return Reply::error(400, refused.code, refused.message),
        };
        if let Some(fingerprint) = fingerprint {
            self.cache.offer(key, fingerprint, &body);
        }
        self.found.reply(body)
    }

    /// The JSON answer to an already extracted, non-blank `q` (for `/buscar` and the MCP tool
    /// `buscar_estudios`), or why it is refused.
    pub fn results(&self, q: &str) -> Result<Bytes, Refused> {
        match self.index.query(q) {
            Ok(ranked) => Ok(Bytes::from(self.write_answer(q, &ranked))),
            Err(QueryError::Empty) => Err(Refused {
                code: "q_sin_terminos",
                message: "La búsqueda solo tiene signos y espacios: indique qué busca, por ejemplo q=bancos."
                    .to_owned(),
            }),
            Err(QueryError::TooLong(n)) => Err(Refused {
                code: "q_demasiado_larga",
                message: format!("La búsqueda tiene {n} caracteres; el máximo es {MAX_QUERY_CHARS}."),
            }),
        }
    }

    /// `{"q", "terminos", "total", "resultados": [...], "catalogo"}`, each result
    /// `{"slug", "nombre", "nombre_en", "industria", "pais", "puntaje", "terminos_encontrados",
    /// "por_que": [{"termino", "coincide_con", "campo"}], "marcas_coincidentes", "urls"}`.
    fn write_answer(&self, q: &str, ranked: &Ranked) -> Vec<u8> {
        let shown = &ranked.hits[..ranked.hits.len().min(MAX_RESULTS)];
        let openings = TermOpenings::new(&ranked.terms);
        let mut out = Vec::with_capacity(self.answer_capacity(q, ranked, shown));
        out.extend_from_slice(b"{\"q\":");
        push_json(&mut out, q);
        out.extend_from_slice(b",\"terminos\":");
        push_json_list(&mut out, ranked.terms.iter().map(String::as_str));
        out.extend_from_slice(b",\"total\":");
        out.extend_from_slice(itoa::Buffer::new().format(ranked.hits.len()).as_bytes());
        out.extend_from_slice(b",\"resultados\":[");
        let documents = shown.iter().filter_map(|hit| Some((hit, self.documents.get(hit.position)?)));
        for (n, (hit, document)) in documents.enumerate() {
            if n > 0 {
                out.push(b',');
            }
            self.write_hit(&mut out, hit, document, ranked, &openings);
        }
        out.push(b']');
        out.extend_from_slice(&self.closing);
        out
    }

    /// Room for the whole answer as it is usually written, so that writing it does not move
    /// it, and no more (a larger buffer costs the allocator more than it saves): every reason
    /// counted as `whole`, the query and its terms as needing no escapes (when they do, the
    /// buffer grows).
    fn answer_capacity(&self, q: &str, ranked: &Ranked, shown: &[RankedHit]) -> usize {
        // `,"terminos_encontrados":`, `,"por_que":[`, `],"marcas_coincidentes":[`, `],`, a
        // score and a count.
        const HIT_FRAME: usize = 112;
        let terms: usize = ranked.terms.iter().map(|t| t.len() + 3).sum();
        let hits: usize = shown
            .iter()
            .filter_map(|hit| {
                let document = self.documents.get(hit.position)?;
                let reasons = ranked.reasons[hit.reasons.clone()]
                    .iter()
                    .filter_map(|(_, reason)| self.reasons.get(*reason as usize))
                    .map(|json| json.whole.len() + 1);
                let brands = ranked.brands[hit.brands.clone()]
                    .iter()
                    .filter_map(|brand| document.brands.get(*brand as usize))
                    .map(|json| json.len() + 1);
                Some(
                    document.head.len()
                        + document.tail.len()
                        + HIT_FRAME
                        + reasons.sum::<usize>()
                        + brands.sum::<usize>(),
                )
            })
            .sum();
        64 + q.len() + terms + hits + self.closing.len()
    }

    /// One result object: the study's fixed JSON around its score, count, reasons and brands.
    fn write_hit(
        &self,
        out: &mut Vec<u8>,
        hit: &RankedHit,
        document: &DocumentJson,
        ranked: &Ranked,
        openings: &TermOpenings,
    ) {
        out.extend_from_slice(&document.head);
        push_score(out, hit.score);
        out.extend_from_slice(b",\"terminos_encontrados\":");
        out.extend_from_slice(itoa::Buffer::new().format(hit.matched_terms).as_bytes());
        out.extend_from_slice(b",\"por_que\":[");
        let reasons = ranked.reasons[hit.reasons.clone()].iter().filter_map(|(term, reason)| {
            let json = self.reasons.get(*reason as usize)?;
            let exact = ranked.terms.get(*term as usize)?.len() == json.indexed_len;
            Some((openings.get(*term)?, json, exact))
        });
        for (i, (opening, json, exact)) in reasons.enumerate() {
            if i > 0 {
                out.push(b',');
            }
            if exact {
                out.extend_from_slice(&json.whole);
            } else {
                out.extend_from_slice(opening);
                out.extend_from_slice(&json.rest);
            }
        }
        out.extend_from_slice(b"],\"marcas_coincidentes\":[");
        let brands = ranked.brands[hit.brands.clone()].iter().filter_map(|b| document.brands.get(*b as usize));
        for (i, brand) in brands.enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(brand);
        }
        out.extend_from_slice(b"],");
        out.extend_from_slice(&document.tail);
    }
}

/// `{"termino":"…"` of each query term, written once for all the reasons that name it.
struct TermOpenings {
    bytes: Vec<u8>,
    /// Where each term's opening ends in `bytes`.
    ends: Vec<usize>,
}

impl TermOpenings {
    fn new(terms: &[String]) -> TermOpenings {
        let mut bytes = Vec::with_capacity(terms.iter().map(|t| t.len() + 16).sum());
        let mut ends = Vec::with_capacity(terms.len());
        for term in terms {
            bytes.extend_from_slice(b"{\"termino\":");
            push_json(&mut bytes, term);
            ends.push(bytes.len());
        }
        TermOpenings { bytes, ends }
    }

    fn get(&self, term: u32) -> Option<&[u8]> {
        let term = term as usize;
        let start = if term == 0 { 0 } else { *self.ends.get(term - 1)? };
        self.bytes.get(start..*self.ends.get(term)?)
    }
}

/// A reason's JSON. A query term matches the indexed term either whole, and then the reason
/// is the same in every answer (`whole`), or as a prefix, and then the query term opens it.
struct ReasonJson {
    /// `{"termino":…,"coincide_con":…,"campo":…}` with the indexed term as `termino`.
    whole: Box<[u8]>,
    /// `,"coincide_con":…,"campo":…}`: all of it but the query term.
    rest: Box<[u8]>,
    /// Bytes of the indexed term: a query term of this length that matched it is the term.
    indexed_len: usize,
}

impl ReasonJson {
    fn new(indexed: &str, field: &str) -> ReasonJson {
        let mut rest = b",\"coincide_con\":".to_vec();
        push_json(&mut rest, indexed);
        rest.extend_from_slice(b",\"campo\":");
        push_json(&mut rest, field);
        rest.push(b'}');
        let mut whole = b"{\"termino\":".to_vec();
        push_json(&mut whole, indexed);
        whole.extend_from_slice(&rest);
        ReasonJson { whole: whole.into(), rest: rest.into(), indexed_len: indexed.len() }
    }
}

impl DocumentJson {
    fn new(d: &SearchDocument, base_url: &str) -> DocumentJson {
        let mut head = b"{\"slug\":".to_vec();
        push_json(&mut head, &d.slug);
        head.extend_from_slice(b",\"nombre\":");
        push_json(&mut head, &d.name);
        head.extend_from_slice(b",\"nombre_en\":");
        push_json(&mut head, &d.name_en);
        head.extend_from_slice(b",\"industria\":");
        push_json(&mut head, &d.industry);
        head.extend_from_slice(b",\"pais\":");
        push_json_list(&mut head, d.country.iter().map(String::as_str));
        head.extend_from_slice(b",\"puntaje\":");
        let mut tail = b"\"urls\":{\"ficha\":".to_vec();
        push_json(&mut tail, &format!("{base_url}/estudio/{}/ficha", d.slug));
        tail.extend_from_slice(b",\"comprar\":");
        push_json(&mut tail, &format!("{base_url}/estudio/{}", d.slug));
        tail.extend_from_slice(b"}}");
        let brands = d
            .brands
            .iter()
            .map(|brand| {
                let mut json = Vec::new();
                push_json(&mut json, brand);
                json.into()
            })
            .collect();
        DocumentJson { head: head.into(), tail: tail.into(), brands }
    }
}

/// The head of every 200 search answer.
fn found_head() -> PreparedHead {
    PreparedHead::new(&Reply::new(200, JSON, Body::Empty).with_header("Cache-Control", CACHE_CONTROL))
}

/// Appends `text` as a JSON string. Folded terms and most names need no escaping and are
/// copied as they are; anything else goes through `serde_json`.
fn push_json(out: &mut Vec<u8>, text: &str) {
    // Without an early exit the check compiles to a few vector instructions.
    if text.bytes().fold(true, |plain, b| plain & (b >= 0x20) & (b != b'"') & (b != b'\\')) {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        // Writing into a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut *out, text);
    }
}

/// Appends a JSON array of strings.
fn push_json_list<'a>(out: &mut Vec<u8>, items: impl Iterator<Item = &'a str>) {
    out.push(b'[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_json(out, item);
    }
    out.push(b']');
}

/// Appends a score rounded to three decimals, written as `serde_json` writes that `f64`.
///
/// A score is a whole number of thousandths `k`; below 2^43 (where one unit in the last place
/// is under 0.001) the shortest decimal that reads back as `k / 1000` is `k / 1000` itself, so
/// it is written from the integer. Anything else (negative, huge, not finite) goes through
/// `serde_json`.
fn push_score(out: &mut Vec<u8>, score: f64) {
    let thousandths = (score * 1000.0).round();
    if thousandths.is_sign_positive() && thousandths < 1e12 {
        let k = thousandths as u64;
        let mut digits = itoa::Buffer::new();
        out.extend_from_slice(digits.format(k / 1000).as_bytes());
        out.push(b'.');
        let fraction = k % 1000;
        if fraction == 0 {
            out.push(b'0');
        } else {
            let written =
                [b'0' + (fraction / 100) as u8, b'0' + (fraction / 10 % 10) as u8, b'0' + (fraction % 10) as u8];
            let significant = if fraction.is_multiple_of(100) {
                1
            } else if fraction.is_multiple_of(10) {
                2
            } else {
                3
            };
            out.extend_from_slice(&written[..significant]);
        }
        return;
    }
    let rounded = thousandths / 1000.0;
    // Writing into a `Vec` cannot fail; a non-finite score (impossible) is written `null`.
    let _ = serde_json::to_writer(&mut *out, &rounded);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    /// A small index in the shape the generator writes, with names that need JSON escaping.
    fn index() -> SearchIndex {
        serde_json::from_value(json!({
            "campos": [{"campo": "titulo", "peso": 3.0}, {"campo": "marcas", "peso": 2.0}, {"campo": "industria", "peso": 2.0}, {"campo": "preguntas", "peso": 1.5}, {"campo": "descripcion", "peso": 1.0}],
            "documentos": [
                {"slug": "banca-2026", "nombre": "Banca \"digital\" en Argentina", "nombre_en": "Banking\\wallets", "industria": "Banca", "pais": ["AR"], "marcas": ["Banco Nación", "Ualá \u{1}"], "marcas_terminos": [["banco", "nacion"], ["uala"]]},
                {"slug": "hoteles-2026", "nombre": "Hoteles", "nombre_en": "Hotels", "industria": "Turismo\tviajes", "pais": ["AR", "CL"], "marcas": [], "marcas_terminos": []},
                {"slug": "seguros-2026", "nombre": "Seguros de auto", "nombre_en": "Car insurance", "industria": "Seguros", "pais": ["Argentina"], "marcas": ["Sancor Seguros"], "marcas_terminos": [["sancor", "seguros"]]}
            ],
            "terminos": {
                "argentina": [[0, 0, 1], [0, 2, 1], [2, 2, 1]], "banca": [[0, 0, 2]], "banco": [[0, 1, 1]], "bancos": [[0, 4, 3]],
                "nacion": [[0, 1, 1]], "uala": [[0, 1, 1]], "hoteles": [[1, 0, 1]], "hotel": [[1, 4, 1]], "turismo": [[1, 2, 1]],
                "sancor": [[2, 1, 1]], "seguros": [[2, 0, 1], [2, 1, 1]], "auto": [[2, 0, 1], [2, 3, 4]], "2026": [[0, 0, 1], [1, 0, 1], [2, 0, 1]]
            }
        }))
        .unwrap()
    }

    /// The same index with an indexed term that needs escaping (a hand-edited manifest): the
    /// answer must still be valid JSON.
    fn index_with_a_quoted_term() -> SearchIndex {
        let mut index = index();
        index.terms.insert("hot\"el\\x".to_owned(), vec![[1, 3, 1]]);
        index
    }

    fn body(reply: &Reply) -> serde_json::Value {
        serde_json::from_slice(reply.bytes().unwrap()).unwrap()
    }

    #[test]
    fn a_known_term_finds_its_study() {
        let search = Search::new(&index(), "http://x/");
        let reply = search.answer(Some("q=Banca"));
        assert_eq!(reply.status, 200);
        let answer = body(&reply);
        assert_eq!(answer["resultados"][0]["slug"], "banca-2026");
        assert_eq!(answer["resultados"][0]["nombre"], "Banca \"digital\" en Argentina");
        assert_eq!(answer["resultados"][0]["urls"]["comprar"], "http://x/estudio/banca-2026");
        assert_eq!(answer["catalogo"], "http://x/catalogo");
    }

    #[test]
    fn repeated_queries_come_from_the_cache_with_the_same_bytes() {
        let search = Search::new(&index(), "http://x");
        let first = search.answer(Some("q=seguros+auto"));
        assert_eq!(search.cache.len(), 0, "a query asked once is not kept");
        let second = search.answer(Some("q=seguros+auto"));
        assert_eq!(search.cache.len(), 1, "kept the second time");
        let third = search.answer(Some("q=seguros+auto"));
        assert_eq!(first.bytes(), second.bytes());
        assert_eq!(first.bytes(), third.bytes());
        assert!(third.headers.iter().any(|(n, v)| *n == "Cache-Control" && v == CACHE_CONTROL));
        for n in 0..CACHE_ENTRIES + 5 {
            search.answer(Some(&format!("q=seguros+{n}")));
        }
        assert_eq!(search.cache.len(), 1, "one-off queries are not kept");
        for n in 0..CACHE_ENTRIES + 5 {
            for _ in 0..2 {
                search.answer(Some(&format!("q=auto+{n}")));
            }
        }
        assert!(search.cache.len() <= CACHE_ENTRIES, "the cache starts over when full");
        assert!(search.cache.len() >= 5);
    }

    #[test]
    fn refusals_are_json_and_not_cached() {
        let search = Search::new(&index(), "http://x");
        for (query, code) in [(None, "falta_q"), (Some("q="), "falta_q"), (Some("q=+%3F%21"), "q_sin_terminos")] {
            let reply = search.answer(query);
            assert_eq!(reply.status, 400);
            assert_eq!(body(&reply)["error"], code);
        }
        let long = format!("q={}", "a".repeat(MAX_QUERY_CHARS + 1));
        assert_eq!(body(&search.answer(Some(&long)))["error"], "q_demasiado_larga");
        search.answer(Some("q=+%3F%21"));
        assert_eq!(search.cache.len(), 0);
        let common = search.answer(Some("q=+de+la"));
        assert_eq!(common.status, 200, "only common words: a search that finds nothing");
        assert_eq!(body(&common)["total"], 0);
        assert_eq!(body(&common)["terminos"], json!([]));
    }

    /// The answer as `serde_json` writes it from plain structs: what the hand-assembled
    /// answer must equal byte for byte.
    mod reference {
        use super::*;
        use serde::Serialize;

        #[derive(Serialize)]
        struct SearchAnswer<'a> {
            q: &'a str,
            #[serde(rename = "terminos")]
            terms: &'a [String],
            total: usize,
            #[serde(rename = "resultados")]
            results: Vec<SearchResult<'a>>,
            #[serde(rename = "catalogo")]
            catalog: String,
        }

        #[derive(Serialize)]
        struct SearchResult<'a> {
            slug: &'a str,
            #[serde(rename = "nombre")]
            name: &'a str,
            #[serde(rename = "nombre_en")]
            name_en: &'a str,
            #[serde(rename = "industria")]
            industry: &'a str,
            #[serde(rename = "pais")]
            country: &'a [String],
            #[serde(rename = "puntaje")]
            score: f64,
            #[serde(rename = "terminos_encontrados")]
            found_terms: usize,
            #[serde(rename = "por_que")]
            why: Vec<Why<'a>>,
            #[serde(rename = "marcas_coincidentes")]
            matching_brands: &'a [&'a str],
            urls: Urls,
        }

        #[derive(Serialize)]
        struct Why<'a> {
            #[serde(rename = "termino")]
            term: &'a str,
            #[serde(rename = "coincide_con")]
            matches_with: &'a str,
            #[serde(rename = "campo")]
            field: &'a str,
        }

        #[derive(Serialize)]
        struct Urls {
            #[serde(rename = "ficha")]
            sheet: String,
            #[serde(rename = "comprar")]
            buy: String,
        }

        pub(super) fn answer(index: &SearchIndex, base_url: &str, q: &str) -> Option<Vec<u8>> {
            let (terms, hits) = index.query(q).ok()?;
            let results = hits
                .iter()
                .take(MAX_RESULTS)
                .map(|hit| {
                    let d = hit.document;
                    SearchResult {
                        slug: &d.slug,
                        name: &d.name,
                        name_en: &d.name_en,
                        industry: &d.industry,
                        country: &d.country,
                        score: (hit.score * 1000.0).round() / 1000.0,
                        found_terms: hit.matched_terms,
                        why: hit
                            .matches
                            .iter()
                            .map(|&(term, matches_with, field)| Why { term, matches_with, field })
                            .collect(),
                        matching_brands: &hit.brands,
                        urls: Urls {
                            sheet: format!("{base_url}/estudio/{}/ficha", d.slug),
                            buy: format!("{base_url}/estudio/{}", d.slug),
                        },
                    }
                })
                .collect();
            let answer =
                SearchAnswer { q, terms: &terms, total: hits.len(), results, catalog: format!("{base_url}/catalogo") };
            serde_json::to_vec(&answer).ok()
        }
    }

    /// The score as `serde_json` writes the rounded `f64`.
    fn score_by_serde(score: f64) -> String {
        serde_json::to_string(&((score * 1000.0).round() / 1000.0)).unwrap()
    }

    #[test]
    fn scores_are_written_as_serde_json_writes_them() {
        for score in [
            0.0,
            -0.0,
            0.0004,
            0.0005,
            0.001,
            0.01,
            0.1,
            1.0,
            5.0,
            12.16,
            33.614,
            3.6935,
            1e9 + 0.5,
            8.79e9,
            1e12,
            1e15,
            -1.0,
            f64::NAN,
            f64::INFINITY,
        ] {
            let mut out = Vec::new();
            push_score(&mut out, score);
            assert_eq!(String::from_utf8(out).unwrap(), score_by_serde(score), "{score}");
        }
    }

    proptest::proptest! {
        /// Any raw query string: 200 with results from the index, or 400 JSON; never a panic.
        #[test]
        fn arbitrary_queries_get_an_answer(raw in "\\PC{0,700}", encoded in "[%a-zA-Z0-9+&=]{0,700}") {
            let search = Search::new(&index(), "http://x");
            for query in [format!("q={raw}"), encoded.clone(), raw.clone()] {
                let reply = search.answer(Some(&query));
                proptest::prop_assert!(reply.status == 200 || reply.status == 400, "{}", reply.status);
                let body = body(&reply);
                if reply.status == 200 {
                    for hit in body["resultados"].as_array().unwrap() {
                        proptest::prop_assert!(["banca-2026", "hoteles-2026", "seguros-2026"].contains(&hit["slug"].as_str().unwrap()));
                    }
                } else {
                    proptest::prop_assert!(body["error"].is_string());
                }
            }
        }

        /// Any score, small or large, is written as `serde_json` writes it.
        #[test]
        fn any_score_is_written_as_serde_json_writes_it(thousandths in 0u64..2_000_000_000_000, noise in -0.49f64..0.49, raw in proptest::num::f64::ANY) {
            for score in [(thousandths as f64 + noise) / 1000.0, raw] {
                let mut out = Vec::new();
                push_score(&mut out, score);
                proptest::prop_assert_eq!(String::from_utf8(out).unwrap(), score_by_serde(score));
            }
        }

        /// The assembled answer is byte for byte what serializing the results would give,
        /// for queries made of indexed words, prefixes, accents, quotes and noise.
        #[test]
        fn the_assembled_answer_equals_plain_serialization(
            words in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec!["Argentina", "BANCA", "bancos", "Nación", "uala", "hotel", "hot", "HOT", "ho", "turismo", "sancor", "SEGUROS", "auto", "2026", "de", "la"]).prop_map(str::to_owned),
                    "[a-zA-Z0-9\"\\\\ñáé\t]{1,8}",
                ],
                1..8,
            )
        ) {
            let q = words.join(" ");
            for index in [index(), index_with_a_quoted_term()] {
                let search = Search::new(&index, "http://x");
                let expected = reference::answer(&index, "http://x", &q);
                match (expected, search.results(&q)) {
                    (Some(expected), Ok(bytes)) => {
                        proptest::prop_assert_eq!(String::from_utf8_lossy(&bytes), String::from_utf8_lossy(&expected));
                    }
                    (None, Err(_)) => {}
                    (expected, answer) => proptest::prop_assert!(false, "expected {:?}, got {:?}", expected.is_some(), answer.is_ok()),
                }
            }
        }
    }
}
