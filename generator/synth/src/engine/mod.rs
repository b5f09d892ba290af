//! The shared answer engine: industry data in, assistant-like answers out.
//!
//! The industry files ([`crate::industry`]) describe *what* a study is about (brands with
//! their arguments, question blocks, advice, media sites); the engine decides *how* an
//! assistant would word it. Each answer picks a structure (numbered list, prose, table, pros
//! and cons, a comparison, a no-brand answer, ...), chooses brands by weighted sampling with
//! a per-model bias (so the metrics show a leader, a challenger, a long tail and a model that
//! prefers another brand), labels the tone of every brand it names and cites sources. Brands
//! are written in the order they were sampled, so the order the metrics detect is the order
//! the engine intended (a test checks this with the real matcher).
//!
//! One module per step, in the order an answer is made: [`questions`] expands the question
//! blocks, [`brands`] chooses the brands and labels their tone, [`writing`] and
//! [`layouts`] write the text, [`sources`] cites the sources; [`wording`] holds the wording
//! helpers they share. [`answer_question`] below ties them together. Every random draw comes from
//! the one ChaCha8 stream of the question, in a fixed order: changing the order of two draws
//! changes every answer after it (the sample-content test catches that).

pub(crate) mod brands;
#[cfg(test)]
pub(crate) mod fixture;
mod layouts;
pub(crate) mod questions;
pub(crate) mod sources;
pub(crate) mod wording;
pub(crate) mod writing;

use std::collections::BTreeMap;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use generator::model::{Source, Tier, Tone};

use crate::industry::{BaseQuestion, Industry};
use crate::models::Model;

use self::wording::{already_said, pick, relevant, spanish, word_count};

/// One generated answer, before it gets its id.
pub(crate) struct Draft {
    pub answer: String,
    pub sources: Vec<Source>,
    pub tone: BTreeMap<String, Tone>,
    /// Brand indexes in order of appearance (what the matcher must find).
    pub order: Vec<usize>,
}

/// A brand chosen for one answer, with what will be said about it.
#[derive(Clone, Debug)]
pub(crate) struct Chosen<'a> {
    pub idx: usize,
    /// The name written: the display name or an alias.
    pub name: String,
    pub pros: Vec<&'a str>,
    pub caveat: Option<&'a str>,
}

/// Writes one answer for `question` as `model` would.
pub(crate) fn answer_question(ind: &Industry, question: &BaseQuestion, model: &Model, rng: &mut ChaCha8Rng) -> Draft {
    let language = question.language.as_str();
    let chosen = brands::choose_brands(ind, question, model, rng);
    let mut text = writing::compose(ind, question, model, &chosen, rng);
    // Short answers and verbose models get a block of advice (brandless) at the end, the
    // way a model adds context; it never repeats advice already in the text.
    let values = question.values();
    let long_form = model.tier == Tier::Advanced;
    let wanted = if rng.random_bool(model.style.extension) {
        if long_form { rng.random_range(2..=4) } else { rng.random_range(1..=3) }
    } else {
        0
    };
    let available: Vec<&str> = relevant(rng, ind.advice.in_language(language), &values, 20)
        .into_iter()
        .filter(|c| !already_said(&text, c))
        .collect();
    let mut added_advice: Vec<&str> = available.iter().copied().take(wanted).collect();
    // Never below 60 words: add advice until the answer reaches it.
    let mut rest = available.iter().copied().skip(wanted);
    while word_count(&text) + added_advice.iter().map(|c| word_count(c)).sum::<usize>() < 62 {
        match rest.next() {
            Some(c) => added_advice.push(c),
            None => break,
        }
    }
    if !added_advice.is_empty() {
        let heading = if spanish(language) {
            pick(
                rng,
                &[
                    "Algunos puntos a tener en cuenta:",
                    "Para decidir, tené en cuenta:",
                    "Consejos prácticos:",
                    "Antes de decidir:",
                ],
            )
        } else {
            pick(rng, &["A few things to keep in mind:", "Practical tips:", "Before deciding:"])
        };
        let list: Vec<String> = added_advice.iter().map(|c| format!("- {c}")).collect();
        text.push_str(&format!("\n\n{heading}\n{}", list.join("\n")));
    }
    // Last resort for very short answers: general remarks that fit any study.
    let general: &[&str] = if spanish(language) {
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
    for g in general {
        if word_count(&text) >= 60 {
            break;
        }
        text.push_str("\n\n");
        text.push_str(g);
    }
    if long_form && rng.random_bool(0.35) && !text.contains("Si me contás") {
        let offer = if ind.health {
            if spanish(language) {
                "Si querés, te ayudo a preparar las preguntas para la próxima consulta con tu médico."
            } else {
                "If you like, I can help you prepare questions for your next appointment."
            }
        } else if spanish(language) {
            pick(
                rng,
                &[
                    "Si me contás un poco más de tu situación, te ayudo a afinar la elección.",
                    "Si querés, puedo armarte una comparación más detallada con tu caso concreto.",
                    "Decime qué priorizás y te recomiendo una sola opción.",
                ],
            )
        } else {
            pick(
                rng,
                &[
                    "If you tell me more about your situation, I can narrow it down.",
                    "Happy to put together a more detailed comparison for your case.",
                ],
            )
        };
        text.push_str("\n\n");
        text.push_str(offer);
    }
    let tone = brands::label_tones(ind, &chosen, &text, rng);
    let sources = sources::cite(ind, question, model, &chosen, rng);
    Draft { answer: text, sources, tone, order: chosen.iter().map(|e| e.idx).collect() }
}

#[cfg(test)]
mod tests {
    use generator::metrics::mentions::BrandMatcher;

    use super::*;
    use crate::engine::fixture::{all_models, industry, rng};

    #[test]
    fn an_answer_names_what_it_chose_labels_it_and_reads_long_enough() {
        let ind = industry();
        let matcher = BrandMatcher::new(&crate::brands(&ind));
        for m in all_models() {
            for (qi, q) in ind.questions.iter().enumerate() {
                let b = answer_question(&ind, q, &m, &mut rng(qi as u64));
                assert_eq!(matcher.brands_in_text(&b.answer), b.order, "{} {qi}\n{}", m.id, b.answer);
                let ids: Vec<&str> = b.order.iter().map(|&i| ind.brands[i].id.as_str()).collect();
                let mut labelled: Vec<&str> = b.tone.keys().map(String::as_str).collect();
                let mut named = ids.clone();
                labelled.sort_unstable();
                named.sort_unstable();
                assert_eq!(labelled, named, "a tone for every brand named, no other");
                assert!(word_count(&b.answer) >= 45, "{} {qi}: {}", m.id, b.answer);
                assert!(b.sources.len() <= 6);
            }
        }
    }

    #[test]
    fn the_same_stream_writes_the_same_answer() {
        let ind = industry();
        let m = &all_models()[3];
        for (qi, q) in ind.questions.iter().enumerate() {
            let a = answer_question(&ind, q, m, &mut rng(7));
            let b = answer_question(&ind, q, m, &mut rng(7));
            assert_eq!((&a.answer, &a.order, &a.tone), (&b.answer, &b.order, &b.tone), "{qi}");
            assert_eq!(format!("{:?}", a.sources), format!("{:?}", b.sources));
        }
    }

    #[test]
    fn english_questions_get_english_answers() {
        let ind = industry();
        for m in all_models() {
            for seed in 0..10 {
                let b = answer_question(&ind, &ind.questions[14], &m, &mut rng(seed));
                for word in [" tiene ", " conviene ", " también ", "Consejos"] {
                    assert!(!b.answer.contains(word), "{word:?} in\n{}", b.answer);
                }
            }
        }
    }
}
