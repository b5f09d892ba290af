//! `GET /buscar?q=`: ranked search over the index the generator built into the manifest.
//!
//! Folding and ranking live with the index format in `generator::search`, so the words a
//! study was indexed under and the words a buyer types are folded by the same code. This
//! module turns hits into the JSON a buyer reads: why each study matched and where to go next.

use generator::search::{MAX_QUERY_BYTES, QueryError, SearchIndex};
use serde::Serialize;
use serde_json::json;

use crate::response::Reply;

/// Most results returned.
const MAX_RESULTS: usize = 20;

/// Answers already given, by raw query: the index is immutable while the gate runs, so an
/// answer is a pure function of `q` and repeated searches (agents repeat them) cost a lookup.
#[derive(Default)]
pub struct Cache {
    answers: parking_lot::Mutex<std::collections::HashMap<String, Reply>>,
}

/// Answers kept before the cache starts over.
const CACHE_ENTRIES: usize = 2048;

impl Cache {
    /// Answers a search through the cache.
    pub fn answer(&self, index: &SearchIndex, base_url: &str, query: Option<&str>) -> Reply {
        let key = query.unwrap_or_default();
        if key.len() <= MAX_QUERY_BYTES * 3
            && let Some(reply) = self.answers.lock().get(key)
        {
            return reply.clone();
        }
        let reply = answer(index, base_url, query);
        if reply.status == 200 && key.len() <= MAX_QUERY_BYTES * 3 {
            let mut answers = self.answers.lock();
            if answers.len() >= CACHE_ENTRIES {
                answers.clear();
            }
            answers.insert(key.to_owned(), reply.clone());
        }
        reply
    }
}

/// Answers a search; `query` is the raw query string of the request.
pub fn answer(index: &SearchIndex, base_url: &str, query: Option<&str>) -> Reply {
    let q = query.and_then(|query| {
        url::form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "q").map(|(_, v)| v.into_owned())
    });
    let Some(q) = q.filter(|q| !q.trim().is_empty()) else {
        return Reply::error_with(
            400,
            "falta_q",
            "Indique qué busca en el parámetro q, por ejemplo /buscar?q=bancos+argentina.",
            json!({"ejemplo": format!("{base_url}/buscar?q=hoteles")}),
        );
    };
    answer_for(index, base_url, &q)
}

/// Answers a search for an already extracted, non-blank `q` (also the MCP `buscar_estudios` tool).
pub fn answer_for(index: &SearchIndex, base_url: &str, q: &str) -> Reply {
    match index.query(q) {
        Ok((terms, hits)) => {
            let catalogo = format!("{base_url}/catalogo");
            let results: Vec<SearchResult<'_>> = hits
                .iter()
                .take(MAX_RESULTS)
                .map(|hit| {
                    let d = hit.document;
                    SearchResult {
                        slug: &d.slug,
                        nombre: &d.nombre,
                        nombre_en: &d.nombre_en,
                        industria: &d.industria,
                        pais: &d.pais,
                        puntaje: (hit.score * 1000.0).round() / 1000.0,
                        terminos_encontrados: hit.matched_terms,
                        por_que: hit
                            .matches
                            .iter()
                            .map(|&(termino, coincide_con, campo)| Why { termino, coincide_con, campo })
                            .collect(),
                        marcas_coincidentes: &hit.brands,
                        urls: Urls { base_url, slug: &d.slug },
                    }
                })
                .collect();
            let answer = SearchAnswer { q, terminos: &terms, total: hits.len(), resultados: results, catalogo };
            Reply::json(200, &answer).with_header("Cache-Control", "public, max-age=60")
        }
        Err(QueryError::Empty) => Reply::error(
            400,
            "q_sin_terminos",
            "La búsqueda no tiene palabras útiles (solo signos o palabras muy comunes).",
        ),
        Err(QueryError::TooLong(n)) => Reply::error(
            400,
            "q_demasiado_larga",
            format!("La búsqueda tiene {n} bytes; el máximo es {MAX_QUERY_BYTES}."),
        ),
    }
}

#[derive(Serialize)]
struct SearchAnswer<'a> {
    q: &'a str,
    terminos: &'a [String],
    total: usize,
    resultados: Vec<SearchResult<'a>>,
    catalogo: String,
}

#[derive(Serialize)]
struct SearchResult<'a> {
    slug: &'a str,
    nombre: &'a str,
    nombre_en: &'a str,
    industria: &'a str,
    pais: &'a [String],
    puntaje: f64,
    terminos_encontrados: usize,
    por_que: Vec<Why<'a>>,
    marcas_coincidentes: &'a [String],
    urls: Urls<'a>,
}

#[derive(Serialize)]
struct Why<'a> {
    termino: &'a str,
    coincide_con: &'a str,
    campo: &'a str,
}

/// `{"ficha": …, "comprar": …}`, written straight into the answer (no string per URL).
struct Urls<'a> {
    base_url: &'a str,
    slug: &'a str,
}

impl Serialize for Urls<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Url<'a>(std::fmt::Arguments<'a>);
        impl Serialize for Url<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(&self.0)
            }
        }
        let (base, slug) = (self.base_url, self.slug);
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("ficha", &Url(format_args!("{base}/estudio/{slug}/ficha")))?;
        map.serialize_entry("comprar", &Url(format_args!("{base}/estudio/{slug}")))?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::router::body_bytes;

    /// A small index in the shape the generator writes.
    fn index() -> SearchIndex {
        serde_json::from_value(json!({
            "campos": [{"campo": "nombre", "peso": 3.0}, {"campo": "marcas", "peso": 3.0}, {"campo": "industria", "peso": 2.0}, {"campo": "preguntas", "peso": 1.5}, {"campo": "descripcion", "peso": 1.0}],
            "documentos": [
                {"slug": "banca-2026", "nombre": "Banca", "nombre_en": "Banking", "industria": "Banca", "pais": ["AR"], "marcas": ["Banco Nación"], "marcas_terminos": [["banco", "nacion"]]},
                {"slug": "hoteles-2026", "nombre": "Hoteles", "nombre_en": "Hotels", "industria": "Turismo", "pais": ["AR", "CL"], "marcas": [], "marcas_terminos": []}
            ],
            "terminos": {"banca": [[0, 0, 2]], "banco": [[0, 1, 1]], "nacion": [[0, 1, 1]], "hoteles": [[1, 0, 1]], "turismo": [[1, 2, 1]]}
        }))
        .unwrap()
    }

    #[test]
    fn a_known_term_finds_its_study() {
        let reply = answer(&index(), "http://x", Some("q=Banca"));
        assert_eq!(reply.status, 200);
        let body: serde_json::Value = serde_json::from_slice(body_bytes(&reply).unwrap()).unwrap();
        assert_eq!(body["resultados"][0]["slug"], "banca-2026");
    }

    proptest::proptest! {
        /// Any raw query string: 200 with results from the index, or 400 JSON; never a panic.
        #[test]
        fn arbitrary_queries_get_an_answer(raw in "\\PC{0,700}", encoded in "[%a-zA-Z0-9+&=]{0,700}") {
            let index = index();
            for query in [format!("q={raw}"), encoded.clone(), raw.clone()] {
                let reply = answer(&index, "http://x", Some(&query));
                proptest::prop_assert!(reply.status == 200 || reply.status == 400, "{}", reply.status);
                let body: serde_json::Value = serde_json::from_slice(body_bytes(&reply).unwrap()).unwrap();
                if reply.status == 200 {
                    for hit in body["resultados"].as_array().unwrap() {
                        proptest::prop_assert!(["banca-2026", "hoteles-2026"].contains(&hit["slug"].as_str().unwrap()));
                    }
                } else {
                    proptest::prop_assert!(body["error"].is_string());
                }
            }
        }
    }
}
