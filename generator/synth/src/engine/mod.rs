//! The shared answer engine: industry data in, assistant-like answers out.
//!
//! The industry files ([`crate::industria`]) describe *what* a study is about (brands with
//! their arguments, question blocks, advice, media sites); the engine decides *how* an
//! assistant would word it. Each answer picks a structure (numbered list, prose, table, pros
//! and cons, a comparison, a no-brand answer, ...), chooses brands by weighted sampling with
//! a per-model bias (so the metrics show a leader, a challenger, a long tail and a model that
//! prefers another brand), labels the tone of every brand it names and cites sources. Brands
//! are written in the order they were sampled, so the order the metrics detect is the order
//! the engine intended (a test checks this with the real matcher).
//!
//! One module per step, in the order an answer is made: [`preguntas`] expands the question
//! blocks, [`marcas`] chooses the brands and labels their tone, [`redaccion`] and
//! [`estructuras`] write the text, [`fuentes`] cites the sources; [`texto`] holds the wording
//! helpers they share. [`responder`] below ties them together. Every random draw comes from
//! the one ChaCha8 stream of the question, in a fixed order: changing the order of two draws
//! changes every answer after it (the sample-content test catches that).

mod estructuras;
pub(crate) mod fuentes;
pub(crate) mod marcas;
pub(crate) mod preguntas;
#[cfg(test)]
pub(crate) mod prueba;
pub(crate) mod redaccion;
pub(crate) mod texto;

use std::collections::BTreeMap;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use generator::model::{Source, Tier, Tone};

use crate::industria::{Industria, PreguntaBase};
use crate::modelos::Modelo;

use self::texto::{es, palabras, relevantes, una, ya_dicho};

/// One generated answer, before it gets its id.
pub(crate) struct Borrador {
    pub respuesta: String,
    pub fuentes: Vec<Source>,
    pub tono: BTreeMap<String, Tone>,
    /// Brand indexes in order of appearance (what the matcher must find).
    pub orden: Vec<usize>,
}

/// A brand chosen for one answer, with what will be said about it.
#[derive(Clone, Debug)]
pub(crate) struct Elegida<'a> {
    pub idx: usize,
    /// The name written: the display name or an alias.
    pub nombre: String,
    pub pro: Vec<&'a str>,
    pub contra: Option<&'a str>,
}

/// Writes one answer for `pregunta` as `modelo` would.
pub(crate) fn responder(ind: &Industria, pregunta: &PreguntaBase, modelo: &Modelo, rng: &mut ChaCha8Rng) -> Borrador {
    let idioma = pregunta.idioma.as_str();
    let elegidas = marcas::elegir_marcas(ind, pregunta, modelo, rng);
    let mut texto = redaccion::redactar(ind, pregunta, modelo, &elegidas, rng);
    // Short answers and verbose models get a block of advice (brandless) at the end, the
    // way a model adds context; it never repeats advice already in the text.
    let valores = pregunta.valores();
    let largo = modelo.nivel == Tier::Advanced;
    let quiere = if rng.random_bool(modelo.estilo.extension) {
        if largo { rng.random_range(2..=4) } else { rng.random_range(1..=3) }
    } else {
        0
    };
    let disponibles: Vec<&str> =
        relevantes(rng, ind.consejos.de(idioma), &valores, 20).into_iter().filter(|c| !ya_dicho(&texto, c)).collect();
    let mut nuevos: Vec<&str> = disponibles.iter().copied().take(quiere).collect();
    // Never below 60 words: add advice until the answer reaches it.
    let mut resto = disponibles.iter().copied().skip(quiere);
    while palabras(&texto) + nuevos.iter().map(|c| palabras(c)).sum::<usize>() < 62 {
        match resto.next() {
            Some(c) => nuevos.push(c),
            None => break,
        }
    }
    if !nuevos.is_empty() {
        let enc = if es(idioma) {
            una(
                rng,
                &[
                    "Algunos puntos a tener en cuenta:",
                    "Para decidir, tené en cuenta:",
                    "Consejos prácticos:",
                    "Antes de decidir:",
                ],
            )
        } else {
            una(rng, &["A few things to keep in mind:", "Practical tips:", "Before deciding:"])
        };
        let lista: Vec<String> = nuevos.iter().map(|c| format!("- {c}")).collect();
        texto.push_str(&format!("\n\n{enc}\n{}", lista.join("\n")));
    }
    // Last resort for very short answers: general remarks that fit any study.
    let generales: &[&str] = if es(idioma) {
        &[
            "Las condiciones y los precios cambian seguido, así que conviene verificar la información actualizada en los sitios oficiales antes de decidir.",
            "Lo ideal es comparar al menos dos o tres alternativas con tu caso concreto, y leer opiniones recientes de otros usuarios.",
        ]
    } else {
        &[
            "Prices and conditions change often, so check up-to-date information on official sites before deciding.",
            "Ideally, compare two or three alternatives against your own situation and read recent reviews from other users.",
        ]
    };
    for g in generales {
        if palabras(&texto) >= 60 {
            break;
        }
        texto.push_str("\n\n");
        texto.push_str(g);
    }
    if largo && rng.random_bool(0.35) && !texto.contains("Si me contás") {
        let oferta = if ind.salud {
            if es(idioma) {
                "Si querés, te ayudo a preparar las preguntas para la próxima consulta con tu médico."
            } else {
                "If you like, I can help you prepare questions for your next appointment."
            }
        } else if es(idioma) {
            una(
                rng,
                &[
                    "Si me contás un poco más de tu situación, te ayudo a afinar la elección.",
                    "Si querés, puedo armarte una comparación más detallada con tu caso concreto.",
                    "Decime qué priorizás y te recomiendo una sola opción.",
                ],
            )
        } else {
            una(
                rng,
                &[
                    "If you tell me more about your situation, I can narrow it down.",
                    "Happy to put together a more detailed comparison for your case.",
                ],
            )
        };
        texto.push_str("\n\n");
        texto.push_str(oferta);
    }
    let tono = marcas::etiquetar(ind, &elegidas, &texto, rng);
    let fuentes = fuentes::citar(ind, pregunta, modelo, &elegidas, rng);
    Borrador { respuesta: texto, fuentes, tono, orden: elegidas.iter().map(|e| e.idx).collect() }
}

#[cfg(test)]
mod tests {
    use generator::metrics::mentions::BrandMatcher;

    use super::*;
    use crate::engine::prueba::{industria, los_modelos, rng};

    #[test]
    fn an_answer_names_what_it_chose_labels_it_and_reads_long_enough() {
        let ind = industria();
        let matcher = BrandMatcher::new(&crate::marcas(&ind));
        for m in los_modelos() {
            for (qi, q) in ind.preguntas.iter().enumerate() {
                let b = responder(&ind, q, &m, &mut rng(qi as u64));
                assert_eq!(matcher.brands_in_text(&b.respuesta), b.orden, "{} {qi}\n{}", m.id, b.respuesta);
                let ids: Vec<&str> = b.orden.iter().map(|&i| ind.marcas[i].id.as_str()).collect();
                let mut etiquetadas: Vec<&str> = b.tono.keys().map(String::as_str).collect();
                let mut nombradas = ids.clone();
                etiquetadas.sort_unstable();
                nombradas.sort_unstable();
                assert_eq!(etiquetadas, nombradas, "a tone for every brand named, no other");
                assert!(palabras(&b.respuesta) >= 45, "{} {qi}: {}", m.id, b.respuesta);
                assert!(b.fuentes.len() <= 6);
            }
        }
    }

    #[test]
    fn the_same_stream_writes_the_same_answer() {
        let ind = industria();
        let m = &los_modelos()[3];
        for (qi, q) in ind.preguntas.iter().enumerate() {
            let a = responder(&ind, q, m, &mut rng(7));
            let b = responder(&ind, q, m, &mut rng(7));
            assert_eq!((&a.respuesta, &a.orden, &a.tono), (&b.respuesta, &b.orden, &b.tono), "{qi}");
            assert_eq!(format!("{:?}", a.fuentes), format!("{:?}", b.fuentes));
        }
    }

    #[test]
    fn english_questions_get_english_answers() {
        let ind = industria();
        for m in los_modelos() {
            for seed in 0..10 {
                let b = responder(&ind, &ind.preguntas[14], &m, &mut rng(seed));
                for palabra in [" tiene ", " conviene ", " también ", "Consejos"] {
                    assert!(!b.respuesta.contains(palabra), "{palabra:?} in\n{}", b.respuesta);
                }
            }
        }
    }
}
