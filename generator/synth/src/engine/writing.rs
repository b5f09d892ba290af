//! Writing an answer: which layout it takes and the pieces every layout is made of.
//!
//! A model's style weights fifteen list layouts (numbered, prose, table, FAQ, ...); a
//! comparison, a question about one brand and a brandless answer have their own shapes. The
//! [`Writer`] keeps the answer being written and what it already said, so advice and
//! profiles never repeat, and offers the pieces (opening line, list intro, closing, health
//! caveat, one sentence per brand) that the layouts in [`super::layouts`] assemble.

use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use generator::model::Tier;

use super::Chosen;
use super::wording::{join_list, lowercase_first, pick, relevant, spanish, split_tag};
use crate::industry::Industry;
use crate::industry::{BaseQuestion, QuestionKind};
use crate::models::Model;
use crate::models::{LIST_LAYOUTS, Layout};

/// The text of one answer naming the brands `chosen`, in that order.
pub(crate) fn compose(
    ind: &Industry,
    question: &BaseQuestion,
    model: &Model,
    chosen: &[Chosen<'_>],
    rng: &mut ChaCha8Rng,
) -> String {
    let language = question.language.as_str();
    let values = question.values();
    let mut w = Writer { ind, language, model, rng, out: String::new(), values, used: Vec::new() };
    if chosen.is_empty() {
        w.brandless_answer();
        return w.out;
    }
    match &question.kind {
        QuestionKind::Compare { a, b, label_a, label_b } if chosen.len() >= 2 || a == b => {
            let ia = ind.brand_index(a);
            // The labels name the products; the first one written is the model's favourite.
            let (l1, l2) = if chosen[0].idx == ia {
                (label_a.clone(), label_b.clone())
            } else {
                (label_b.clone(), label_a.clone())
            };
            w.compare(chosen, &l1, &l2, a == b);
        }
        QuestionKind::AboutBrand(_) => w.about_brand(chosen),
        QuestionKind::Advice => {
            let e = [Layout::ChecklistFirst, Layout::ClarificationFirst, Layout::Headings, Layout::Faq];
            let i = w.rng.random_range(0..e.len());
            let e = if chosen.len() == 1 && e[i] == Layout::Faq { Layout::ChecklistFirst } else { e[i] };
            w.list(e, chosen);
        }
        _ => {
            let mut idx = choose_layout(&model.style.weights(), w.rng);
            if ind.health && LIST_LAYOUTS[idx] == Layout::Ranking {
                idx = 0;
            }
            if chosen.len() == 1 && matches!(LIST_LAYOUTS[idx], Layout::Table | Layout::Ranking | Layout::Faq) {
                idx = 2;
            }
            w.list(LIST_LAYOUTS[idx], chosen);
        }
    }
    w.out
}

/// A list layout drawn by weight (an index into [`LIST_LAYOUTS`]).
pub(crate) fn choose_layout(weights: &[f64; 15], rng: &mut ChaCha8Rng) -> usize {
    let total: f64 = weights.iter().sum();
    let mut u = rng.random_range(0.0..total);
    for (i, p) in weights.iter().enumerate() {
        if u < *p {
            return i;
        }
        u -= p;
    }
    0
}

/// An answer being written.
pub(crate) struct Writer<'a> {
    pub ind: &'a Industry,
    pub language: &'a str,
    pub model: &'a Model,
    pub rng: &'a mut ChaCha8Rng,
    pub out: String,
    /// The question's dimension values (to pick relevant advice).
    pub values: Vec<&'a str>,
    /// Advice and profiles already written, so nothing repeats.
    pub used: Vec<&'a str>,
}

impl<'a> Writer<'a> {
    pub(crate) fn spanish(&self) -> bool {
        spanish(self.language)
    }

    /// Picks from the Spanish or the English bank.
    pub(crate) fn t(&mut self, spanish: &[&'static str], en: &[&'static str]) -> &'static str {
        let bank = if self.spanish() { spanish } else { en };
        pick(self.rng, bank)
    }

    /// Appends a paragraph.
    pub(crate) fn p(&mut self, s: &str) {
        if !self.out.is_empty() {
            self.out.push_str("\n\n");
        }
        self.out.push_str(s);
    }

    /// One advice sentence not written yet ("" when none is left).
    pub(crate) fn one_advice(&mut self) -> &'a str {
        self.advice(1).pop().unwrap_or("")
    }

    /// Up to `n` advice sentences relevant to the question, never repeating one.
    pub(crate) fn advice(&mut self, n: usize) -> Vec<&'a str> {
        let bank = self.ind.advice.in_language(self.language);
        let all = relevant(self.rng, bank, &self.values, bank.len());
        let v: Vec<&'a str> = all.into_iter().filter(|c| !self.used.contains(c)).take(n).collect();
        self.used.extend(v.iter().copied());
        v
    }

    /// A profile that fits the brand (tagged with its id or a question value), unused so far.
    pub(crate) fn profile(&mut self, brand: usize) -> &'a str {
        let id = self.ind.brands[brand].id.as_str();
        let mut keys = self.values.clone();
        keys.push(id);
        let bank = self.ind.profiles.in_language(self.language);
        let mut own: Vec<&'a str> = bank
            .iter()
            .filter_map(|e| match split_tag(e) {
                (Some(t), text) if t.split(',').any(|x| x == id) => Some(text),
                _ => None,
            })
            .filter(|p| !self.used.contains(p))
            .collect();
        own.shuffle(self.rng);
        let picked = own
            .first()
            .copied()
            .or_else(|| relevant(self.rng, bank, &keys, bank.len()).into_iter().find(|p| !self.used.contains(p)));
        match picked {
            Some(p) => {
                self.used.push(p);
                p
            }
            None => {
                let generic: &[&'static str] = if self.spanish() {
                    &[
                        "buscás una opción equilibrada",
                        "querés algo práctico",
                        "priorizás la relación precio-calidad",
                        "preferís un nombre conocido",
                        "querés probar una alternativa",
                    ]
                } else {
                    &[
                        "you want a balanced option",
                        "you want something practical",
                        "value for money matters most",
                        "you prefer a well-known name",
                        "you want to try an alternative",
                    ]
                };
                let free = generic.iter().copied().find(|p| !self.used.contains(p)).unwrap_or(generic[0]);
                self.used.push(free);
                free
            }
        }
    }

    pub(crate) fn profiles(&mut self, brands: &[usize]) -> Vec<&'a str> {
        brands.iter().map(|m| self.profile(*m)).collect()
    }

    /// Opening line in the provider's manner (sometimes none).
    pub(crate) fn opening(&mut self) {
        let provider = self.model.provider.as_str();
        let opens = self.rng.random_bool(self.model.style.opening);
        let s = match (provider, self.spanish(), self.ind.health) {
            ("Google", true, _) => pick(
                self.rng,
                &[
                    "¡Claro! Aquí tienes un resumen de las opciones más recomendadas.",
                    "¡Excelente pregunta! Hay varias alternativas según lo que priorices.",
                    "¡Por supuesto! Te dejo una guía rápida para decidir.",
                ],
            ),
            ("Google", false, _) => pick(
                self.rng,
                &[
                    "Of course! Here's a quick overview of the most recommended options.",
                    "Great question! There are several good options depending on your priorities.",
                ],
            ),
            ("Anthropic", true, true) => pick(
                self.rng,
                &[
                    "Te doy información general, pero las decisiones de tratamiento siempre tienen que pasar por tu médico.",
                    "Es una consulta frecuente; te cuento lo más importante con una aclaración: no reemplaza una consulta profesional.",
                ],
            ),
            ("Anthropic", true, false) => pick(
                self.rng,
                &[
                    "Te doy un panorama general, con la aclaración de que las condiciones cambian seguido.",
                    "Es una buena pregunta y no tiene una única respuesta correcta.",
                    "Puedo darte una orientación general para que compares con criterio.",
                ],
            ),
            ("Anthropic", false, _) => pick(
                self.rng,
                &[
                    "Here's a general overview, with the caveat that conditions change often.",
                    "Good question, and there isn't a single right answer.",
                ],
            ),
            (_, true, _) => pick(
                self.rng,
                &[
                    "Depende bastante de tu caso, pero hay opciones que se repiten en casi todas las recomendaciones.",
                    "Buena pregunta: la respuesta corta es que depende de cómo lo vayas a usar.",
                    "Te resumo lo esencial.",
                ],
            ),
            (_, false, _) => pick(
                self.rng,
                &[
                    "It depends on your situation, but a few options come up again and again.",
                    "Short answer: it depends on how you'll use it.",
                ],
            ),
        };
        if opens {
            self.p(s);
        }
        // Advanced models often frame the answer before listing anything.
        if self.advanced() && self.rng.random_bool(0.45) {
            let cs = self.advice(2);
            if cs.len() == 2 {
                let lead = if self.spanish() {
                    pick(
                        self.rng,
                        &[
                            "Antes de ir a las opciones, dos cosas clave:",
                            "Primero, un poco de contexto:",
                            "Para elegir bien conviene tener en cuenta algo:",
                        ],
                    )
                } else {
                    pick(self.rng, &["Before the options, two key points:", "Some context first:"])
                };
                let t = format!("{lead} {} {}", lowercase_first(cs[0]), cs[1]);
                self.p(&t);
            }
        }
    }

    pub(crate) fn list_intro(&mut self) -> &'static str {
        if self.ind.health {
            self.t(
                &[
                    "Estas son algunas de las opciones que suelen indicarse o recomendarse:",
                    "Entre las alternativas que más se mencionan:",
                    "Algunas opciones que vale la pena conocer (siempre con indicación profesional):",
                ],
                &[
                    "These are some of the options that are commonly recommended:",
                    "Options that come up most often (always under medical supervision):",
                ],
            )
        } else {
            self.t(
                &[
                    "Estas son las opciones que más se suelen recomendar:",
                    "Las alternativas más mencionadas hoy son:",
                    "Si tuviera que armar una lista corta, incluiría:",
                    "Entre las opciones más sólidas:",
                    "Un resumen de las más recomendadas:",
                    "Estas son las que yo miraría primero:",
                ],
                &[
                    "These are the options most often recommended:",
                    "If I had to make a short list, I'd include:",
                    "Among the strongest options:",
                    "Here are the ones I'd look at first:",
                ],
            )
        }
    }

    /// Closing recommendation naming the first brand (already named above).
    pub(crate) fn closing(&mut self, top: &str, second: Option<&str>) {
        let s = if self.ind.health {
            let b = self.t(
                &[
                    "La elección entre {top} y otras alternativas depende de la evaluación de tu médico, de tus antecedentes y de la cobertura de tu obra social o prepaga.",
                    "En resumen: {top} es una opción muy mencionada, pero cualquier tratamiento tiene que indicarlo y controlarlo un especialista.",
                    "Si te indicaron {top}, consultá con tu médico antes de cambiar o suspender cualquier tratamiento.",
                ],
                &[
                    "Whether {top} or another option fits you depends on your doctor's assessment and your coverage.",
                    "In short: {top} is frequently mentioned, but any treatment should be prescribed and monitored by a specialist.",
                ],
            );
            b.replace("{top}", top)
        } else {
            let b = match second {
                Some(_) => self.t(
                    &[
                        "En resumen, {top} es la opción más equilibrada para la mayoría; {dos} es una buena alternativa si tu caso es distinto.",
                        "Mi recomendación: empezá por {top} y compará con {dos} antes de decidir.",
                        "Si tuviera que elegir hoy, iría por {top}, con {dos} como plan B.",
                    ],
                    &[
                        "In short, {top} is the most balanced choice for most people; {dos} is a good alternative if your case is different.",
                        "My recommendation: start with {top} and compare it with {dos} before deciding.",
                    ],
                ),
                None => self.t(
                    &[
                        "Si tuviera que quedarme con una sola, elegiría {top}.",
                        "Para un perfil típico, {top} suele ser la apuesta más segura.",
                        "En resumen, {top} es la opción más equilibrada para la mayoría de los casos.",
                    ],
                    &[
                        "If I had to pick just one, I'd choose {top}.",
                        "For a typical profile, {top} is usually the safest bet.",
                    ],
                ),
            };
            b.replace("{top}", top).replace("{dos}", second.unwrap_or(""))
        };
        self.p(&s);
    }

    pub(crate) fn health_warning(&mut self) {
        if self.ind.health {
            let s = self.t(
                &[
                    "Importante: esta información es general y no reemplaza la consulta médica. No te automediques.",
                    "Recordá que la indicación de cualquier medicamento la tiene que hacer un médico que conozca tu caso.",
                    "Ante síntomas que empeoran o no mejoran, consultá a un profesional de la salud.",
                ],
                &[
                    "Important: this is general information and does not replace medical advice.",
                    "Any medication should be prescribed by a doctor who knows your case.",
                ],
            );
            self.p(s);
        }
    }

    /// "Galicia tiene ..., aunque ...".
    pub(crate) fn sentence(&mut self, e: &Chosen<'_>, subject: &str) -> String {
        let pros: Vec<String> = e.pros.iter().map(|p| p.to_string()).collect();
        let mut s = format!("{subject} {}", join_list(&pros, self.language));
        match e.caveat {
            Some(c) => {
                s.push_str(if self.spanish() { ", aunque " } else { ", although it " });
                s.push_str(c);
                s.push('.');
            }
            None => s.push('.'),
        }
        s
    }

    /// Justification without subject, for "**A**: ..." lines.
    pub(crate) fn justification(&mut self, e: &Chosen<'_>) -> String {
        let mut s = e.pros.first().copied().unwrap_or("").to_owned();
        if e.pros.len() > 1 {
            let rest: Vec<String> = e.pros[1..].iter().map(|p| p.to_string()).collect();
            s.push_str(if self.spanish() { "; además, " } else { "; it also " });
            s.push_str(&join_list(&rest, self.language));
        }
        s.push('.');
        if let Some(c) = e.caveat {
            s.push(' ');
            s.push_str(&if self.spanish() {
                format!("Como punto en contra, {c}.")
            } else {
                format!("On the downside, it {c}.")
            });
        }
        if self.advanced() && self.rng.random_bool(0.45) {
            let profile = self.profile(e.idx);
            s.push_str(&if self.spanish() { format!(" Ideal si {profile}.") } else { format!(" Best if {profile}.") });
        }
        s
    }

    pub(crate) fn advanced(&self) -> bool {
        self.model.tier == Tier::Advanced
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use generator::metrics::mentions::BrandMatcher;

    use super::*;
    use crate::engine::fixture::{all_models, industry, model, rng};

    fn chosen() -> Vec<Chosen<'static>> {
        vec![
            Chosen {
                idx: 0,
                name: "Banco Alfa".into(),
                pros: vec!["tiene una app simple", "da descuentos con tarjeta"],
                caveat: Some("cobra mantenimiento"),
            },
            Chosen { idx: 1, name: "Beta".into(), pros: vec!["no cobra comisiones"], caveat: None },
            Chosen { idx: 2, name: "Gama".into(), pros: vec!["tiene buena atención"], caveat: None },
        ]
    }

    fn writer<'a>(ind: &'a Industry, model: &'a Model, rng: &'a mut ChaCha8Rng) -> Writer<'a> {
        Writer { ind, language: "es", model, rng, out: String::new(), values: vec!["cuentas"], used: Vec::new() }
    }

    #[test]
    fn layouts_have_the_names_of_modelos_toml() {
        for e in LIST_LAYOUTS {
            let parsed: BTreeMap<String, Layout> =
                generator::load::parse_toml(&format!("x = \"{}\"", e.file_name())).expect("a layout name");
            assert_eq!(parsed["x"], e);
        }
    }

    #[test]
    fn layouts_are_drawn_by_weight() {
        let mut only = [0.0; 15];
        only[7] = 1.0;
        assert!((0..50).all(|s| choose_layout(&only, &mut rng(s)) == 7));
        let mut second = [0.0; 15];
        (second[0], second[14]) = (3.0, 1.0);
        let n = 4000;
        let firsts = (0..n).filter(|&s| choose_layout(&second, &mut rng(s)) == 0).count();
        assert!((2800..=3200).contains(&firsts), "{firsts} of {n}, expected about three quarters");
    }

    /// The invariant the metrics rest on: every layout names the brands in the order chosen.
    #[test]
    fn every_layout_names_the_brands_in_the_order_chosen() {
        let ind = industry();
        let matcher = BrandMatcher::new(&crate::brands(&ind));
        let chosen = chosen();
        for m in all_models() {
            for e in &LIST_LAYOUTS {
                for seed in 0..5 {
                    let mut r = rng(seed);
                    let mut w = writer(&ind, &m, &mut r);
                    w.list(*e, &chosen);
                    assert_eq!(matcher.brands_in_text(&w.out), [0, 1, 2], "{e:?}\n{}", w.out);
                    let mut r = rng(seed);
                    let mut w = writer(&ind, &m, &mut r);
                    w.list(*e, &chosen[..1]);
                    assert_eq!(matcher.brands_in_text(&w.out), [0], "{e:?} with one brand\n{}", w.out);
                }
            }
            let mut r = rng(1);
            let mut w = writer(&ind, &m, &mut r);
            w.compare(&chosen[..2], "Alfa", "Beta", false);
            assert_eq!(matcher.brands_in_text(&w.out), [0, 1], "{}", w.out);
            let mut r = rng(1);
            let mut w = writer(&ind, &m, &mut r);
            w.about_brand(&chosen);
            assert_eq!(matcher.brands_in_text(&w.out)[0], 0, "{}", w.out);
            let mut r = rng(1);
            let mut w = writer(&ind, &m, &mut r);
            w.brandless_answer();
            assert!(matcher.brands_in_text(&w.out).is_empty(), "{}", w.out);
        }
    }

    #[test]
    fn a_health_study_never_ranks_and_always_warns() {
        let mut ind = industry();
        ind.health = true;
        let chosen = chosen();
        let q = &ind.questions[0];
        for m in all_models() {
            for seed in 0..40 {
                let text = compose(&ind, q, &m, &chosen, &mut rng(seed));
                assert!(!text.contains("Ranking orientativo"), "{text}");
                assert!(!text.contains("Si tengo que elegir una, me quedo con"), "{text}");
            }
        }
        let mini = model("gpt-5-mini");
        let mut r = rng(3);
        let mut w = writer(&ind, &mini, &mut r);
        w.list(Layout::Numbered, &chosen);
        // The closing defers to the doctor and the caveat says it is no medical advice.
        let last = w.out.rsplit("\n\n").next().unwrap_or_default();
        assert!(["médic", "profesional"].iter().any(|x| last.contains(x)), "{}", w.out);
    }

    #[test]
    fn advice_and_profiles_never_repeat_in_one_answer() {
        let ind = industry();
        let m = model("gpt-5");
        let mut r = rng(9);
        let mut w = writer(&ind, &m, &mut r);
        let a = w.advice(2);
        let b = w.advice(10);
        assert_eq!(a.len(), 2);
        assert!(b.iter().all(|c| !a.contains(c)), "{a:?} {b:?}");
        // Untagged advice and advice tagged "cuentas" only: 3 of the 5 entries.
        assert_eq!(a.len() + b.len(), 3);
        assert_eq!(w.one_advice(), "", "nothing left");
        // A profile tagged with the brand first; then a generic one, not the same twice.
        assert_eq!(w.profile(0), "cobrás el sueldo");
        let other = w.profile(0);
        assert_ne!(other, "cobrás el sueldo");
        assert_ne!(w.profile(0), other);
    }
}
