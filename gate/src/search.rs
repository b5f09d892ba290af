//! `GET /buscar?q=`: ranked search over the index the generator built into the manifest.
//!
//! Folding and ranking live with the index format in `generator::search`, so the words a
//! study was indexed under and the words a buyer types are folded by the same code. This
//! module turns hits into the JSON a buyer reads: why each study matched and where to go next.

use generator::search::{MAX_QUERY_BYTES, QueryError, SearchIndex};
use serde_json::{Value, json};

use crate::response::Reply;

/// Most results returned.
const MAX_RESULTS: usize = 20;

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
    match index.query(&q) {
        Ok((terms, hits)) => {
            let resultados: Vec<Value> = hits
                .iter()
                .take(MAX_RESULTS)
                .map(|hit| {
                    let d = hit.document;
                    let campos: Vec<Value> = hit
                        .matches
                        .iter()
                        .map(|(term, indexed, field)| json!({"termino": term, "coincide_con": indexed, "campo": field}))
                        .collect();
                    json!({
                        "slug": d.slug,
                        "nombre": d.nombre,
                        "nombre_en": d.nombre_en,
                        "industria": d.industria,
                        "pais": d.pais,
                        "puntaje": (hit.score * 1000.0).round() / 1000.0,
                        "terminos_encontrados": hit.matched_terms,
                        "por_que": campos,
                        "marcas_coincidentes": hit.brands,
                        "urls": {
                            "ficha": format!("{base_url}/estudio/{}/ficha", d.slug),
                            "comprar": format!("{base_url}/estudio/{}", d.slug),
                        },
                    })
                })
                .collect();
            Reply::json(
                200,
                &json!({
                    "q": q,
                    "terminos": terms,
                    "total": hits.len(),
                    "resultados": resultados,
                    "catalogo": format!("{base_url}/catalogo"),
                }),
            )
            .with_header("Cache-Control", "public, max-age=60")
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
