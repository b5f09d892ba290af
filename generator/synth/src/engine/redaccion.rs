//! Writing an answer: which layout it takes and the pieces every layout is made of.
//!
//! A model's style weights fifteen list layouts (numbered, prose, table, FAQ, ...); a
//! comparison, a question about one brand and a brandless answer have their own shapes. The
//! [`Escritor`] keeps the answer being written and what it already said, so advice and
//! profiles never repeat, and offers the pieces (opening line, list intro, closing, health
//! caveat, one sentence per brand) that the layouts in [`super::estructuras`] assemble.

use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use generator::model::Tier;

use super::Elegida;
use super::texto::{enumerar, es, etiquetas, minuscula, relevantes, una};
use crate::industria::Industria;
use crate::industria::{PreguntaBase, TipoPregunta};
use crate::modelos::Modelo;
use crate::modelos::{Estructura, LISTAS};

/// The text of one answer naming the brands `el`, in that order.
pub(crate) fn redactar(
    ind: &Industria,
    pregunta: &PreguntaBase,
    modelo: &Modelo,
    el: &[Elegida<'_>],
    rng: &mut ChaCha8Rng,
) -> String {
    let idioma = pregunta.idioma.as_str();
    let valores = pregunta.valores();
    let mut w = Escritor { ind, idioma, modelo, rng, out: String::new(), valores, usados: Vec::new() };
    if el.is_empty() {
        w.sin_marcas();
        return w.out;
    }
    match &pregunta.tipo {
        TipoPregunta::Comparar { a, b, la, lb } if el.len() >= 2 || a == b => {
            let ia = ind.marca(a);
            // The labels name the products; the first one written is the model's favourite.
            let (l1, l2) = if el[0].idx == ia { (la.clone(), lb.clone()) } else { (lb.clone(), la.clone()) };
            w.comparar(el, &l1, &l2, a == b);
        }
        TipoPregunta::Marca(_) => w.sobre_marca(el),
        TipoPregunta::Consejo => {
            let e =
                [Estructura::ChecklistPrimero, Estructura::AclaracionPrimero, Estructura::Encabezados, Estructura::Faq];
            let i = w.rng.random_range(0..e.len());
            let e = if el.len() == 1 && e[i] == Estructura::Faq { Estructura::ChecklistPrimero } else { e[i] };
            w.lista(e, el);
        }
        _ => {
            let mut idx = elegir_estructura(&modelo.estilo.pesos(), w.rng);
            if ind.salud && LISTAS[idx] == Estructura::Ranking {
                idx = 0;
            }
            if el.len() == 1 && matches!(LISTAS[idx], Estructura::Tabla | Estructura::Ranking | Estructura::Faq) {
                idx = 2;
            }
            w.lista(LISTAS[idx], el);
        }
    }
    w.out
}

/// A list layout drawn by weight (an index into [`LISTAS`]).
pub(crate) fn elegir_estructura(pesos: &[f64; 15], rng: &mut ChaCha8Rng) -> usize {
    let total: f64 = pesos.iter().sum();
    let mut u = rng.random_range(0.0..total);
    for (i, p) in pesos.iter().enumerate() {
        if u < *p {
            return i;
        }
        u -= p;
    }
    0
}

/// An answer being written.
pub(crate) struct Escritor<'a> {
    pub ind: &'a Industria,
    pub idioma: &'a str,
    pub modelo: &'a Modelo,
    pub rng: &'a mut ChaCha8Rng,
    pub out: String,
    /// The question's dimension values (to pick relevant advice).
    pub valores: Vec<&'a str>,
    /// Advice and profiles already written, so nothing repeats.
    pub usados: Vec<&'a str>,
}

impl<'a> Escritor<'a> {
    pub(crate) fn es(&self) -> bool {
        es(self.idioma)
    }

    /// Picks from the Spanish or the English bank.
    pub(crate) fn t(&mut self, es_: &[&'static str], en: &[&'static str]) -> &'static str {
        let banco = if self.es() { es_ } else { en };
        una(self.rng, banco)
    }

    /// Appends a paragraph.
    pub(crate) fn p(&mut self, s: &str) {
        if !self.out.is_empty() {
            self.out.push_str("\n\n");
        }
        self.out.push_str(s);
    }

    /// One advice sentence not written yet ("" when none is left).
    pub(crate) fn consejo(&mut self) -> &'a str {
        self.consejos(1).pop().unwrap_or("")
    }

    /// Up to `n` advice sentences relevant to the question, never repeating one.
    pub(crate) fn consejos(&mut self, n: usize) -> Vec<&'a str> {
        let banco = self.ind.consejos.de(self.idioma);
        let todos = relevantes(self.rng, banco, &self.valores, banco.len());
        let v: Vec<&'a str> = todos.into_iter().filter(|c| !self.usados.contains(c)).take(n).collect();
        self.usados.extend(v.iter().copied());
        v
    }

    /// A profile that fits the brand (tagged with its id or a question value), unused so far.
    pub(crate) fn perfil(&mut self, marca: usize) -> &'a str {
        let id = self.ind.marcas[marca].id.as_str();
        let mut claves = self.valores.clone();
        claves.push(id);
        let banco = self.ind.perfiles.de(self.idioma);
        let mut propios: Vec<&'a str> = banco
            .iter()
            .filter_map(|e| match etiquetas(e) {
                (Some(t), texto) if t.split(',').any(|x| x == id) => Some(texto),
                _ => None,
            })
            .filter(|p| !self.usados.contains(p))
            .collect();
        propios.shuffle(self.rng);
        let elegido = propios.first().copied().or_else(|| {
            relevantes(self.rng, banco, &claves, banco.len()).into_iter().find(|p| !self.usados.contains(p))
        });
        match elegido {
            Some(p) => {
                self.usados.push(p);
                p
            }
            None => {
                let generico: &[&'static str] = if self.es() {
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
                let libre = generico.iter().copied().find(|p| !self.usados.contains(p)).unwrap_or(generico[0]);
                self.usados.push(libre);
                libre
            }
        }
    }

    pub(crate) fn perfiles(&mut self, marcas: &[usize]) -> Vec<&'a str> {
        marcas.iter().map(|m| self.perfil(*m)).collect()
    }

    /// Opening line in the provider's manner (sometimes none).
    pub(crate) fn apertura(&mut self) {
        let prov = self.modelo.proveedor.as_str();
        let abre = self.rng.random_bool(self.modelo.estilo.apertura);
        let s = match (prov, self.es(), self.ind.salud) {
            ("Google", true, _) => una(
                self.rng,
                &[
                    "¡Claro! Aquí tienes un resumen de las opciones más recomendadas.",
                    "¡Excelente pregunta! Hay varias alternativas según lo que priorices.",
                    "¡Por supuesto! Te dejo una guía rápida para decidir.",
                ],
            ),
            ("Google", false, _) => una(
                self.rng,
                &[
                    "Of course! Here's a quick overview of the most recommended options.",
                    "Great question! There are several good options depending on your priorities.",
                ],
            ),
            ("Anthropic", true, true) => una(
                self.rng,
                &[
                    "Te doy información general, pero las decisiones de tratamiento siempre tienen que pasar por tu médico.",
                    "Es una consulta frecuente; te cuento lo más importante con una aclaración: no reemplaza una consulta profesional.",
                ],
            ),
            ("Anthropic", true, false) => una(
                self.rng,
                &[
                    "Te doy un panorama general, con la aclaración de que las condiciones cambian seguido.",
                    "Es una buena pregunta y no tiene una única respuesta correcta.",
                    "Puedo darte una orientación general para que compares con criterio.",
                ],
            ),
            ("Anthropic", false, _) => una(
                self.rng,
                &[
                    "Here's a general overview, with the caveat that conditions change often.",
                    "Good question, and there isn't a single right answer.",
                ],
            ),
            (_, true, _) => una(
                self.rng,
                &[
                    "Depende bastante de tu caso, pero hay opciones que se repiten en casi todas las recomendaciones.",
                    "Buena pregunta: la respuesta corta es que depende de cómo lo vayas a usar.",
                    "Te resumo lo esencial.",
                ],
            ),
            (_, false, _) => una(
                self.rng,
                &[
                    "It depends on your situation, but a few options come up again and again.",
                    "Short answer: it depends on how you'll use it.",
                ],
            ),
        };
        if abre {
            self.p(s);
        }
        // Advanced models often frame the answer before listing anything.
        if self.avanzado() && self.rng.random_bool(0.45) {
            let cs = self.consejos(2);
            if cs.len() == 2 {
                let lead = if self.es() {
                    una(
                        self.rng,
                        &[
                            "Antes de ir a las opciones, dos cosas clave:",
                            "Primero, un poco de contexto:",
                            "Para elegir bien conviene tener en cuenta algo:",
                        ],
                    )
                } else {
                    una(self.rng, &["Before the options, two key points:", "Some context first:"])
                };
                let t = format!("{lead} {} {}", minuscula(cs[0]), cs[1]);
                self.p(&t);
            }
        }
    }

    pub(crate) fn intro_lista(&mut self) -> &'static str {
        if self.ind.salud {
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
    pub(crate) fn cierre(&mut self, top: &str, segunda: Option<&str>) {
        let s = if self.ind.salud {
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
            let b = match segunda {
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
            b.replace("{top}", top).replace("{dos}", segunda.unwrap_or(""))
        };
        self.p(&s);
    }

    pub(crate) fn aviso_salud(&mut self) {
        if self.ind.salud {
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
    pub(crate) fn frase(&mut self, e: &Elegida<'_>, sujeto: &str) -> String {
        let pros: Vec<String> = e.pro.iter().map(|p| p.to_string()).collect();
        let mut s = format!("{sujeto} {}", enumerar(&pros, self.idioma));
        match e.contra {
            Some(c) => {
                s.push_str(if self.es() { ", aunque " } else { ", although it " });
                s.push_str(c);
                s.push('.');
            }
            None => s.push('.'),
        }
        s
    }

    /// Justification without subject, for "**A**: ..." lines.
    pub(crate) fn justificacion(&mut self, e: &Elegida<'_>) -> String {
        let mut s = e.pro.first().copied().unwrap_or("").to_owned();
        if e.pro.len() > 1 {
            let resto: Vec<String> = e.pro[1..].iter().map(|p| p.to_string()).collect();
            s.push_str(if self.es() { "; además, " } else { "; it also " });
            s.push_str(&enumerar(&resto, self.idioma));
        }
        s.push('.');
        if let Some(c) = e.contra {
            s.push(' ');
            s.push_str(&if self.es() {
                format!("Como punto en contra, {c}.")
            } else {
                format!("On the downside, it {c}.")
            });
        }
        if self.avanzado() && self.rng.random_bool(0.45) {
            let perfil = self.perfil(e.idx);
            s.push_str(&if self.es() { format!(" Ideal si {perfil}.") } else { format!(" Best if {perfil}.") });
        }
        s
    }

    pub(crate) fn avanzado(&self) -> bool {
        self.modelo.nivel == Tier::Advanced
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use generator::metrics::mentions::BrandMatcher;

    use super::*;
    use crate::engine::prueba::{industria, los_modelos, modelo, rng};

    fn elegidas() -> Vec<Elegida<'static>> {
        vec![
            Elegida {
                idx: 0,
                nombre: "Banco Alfa".into(),
                pro: vec!["tiene una app simple", "da descuentos con tarjeta"],
                contra: Some("cobra mantenimiento"),
            },
            Elegida { idx: 1, nombre: "Beta".into(), pro: vec!["no cobra comisiones"], contra: None },
            Elegida { idx: 2, nombre: "Gama".into(), pro: vec!["tiene buena atención"], contra: None },
        ]
    }

    fn escritor<'a>(ind: &'a Industria, modelo: &'a Modelo, rng: &'a mut ChaCha8Rng) -> Escritor<'a> {
        Escritor { ind, idioma: "es", modelo, rng, out: String::new(), valores: vec!["cuentas"], usados: Vec::new() }
    }

    #[test]
    fn layouts_have_the_names_of_modelos_toml() {
        for e in LISTAS {
            let leido: BTreeMap<String, Estructura> =
                generator::load::parse_toml(&format!("x = \"{}\"", e.nombre())).expect("a layout name");
            assert_eq!(leido["x"], e);
        }
    }

    #[test]
    fn layouts_are_drawn_by_weight() {
        let mut solo = [0.0; 15];
        solo[7] = 1.0;
        assert!((0..50).all(|s| elegir_estructura(&solo, &mut rng(s)) == 7));
        let mut dos = [0.0; 15];
        (dos[0], dos[14]) = (3.0, 1.0);
        let n = 4000;
        let primeros = (0..n).filter(|&s| elegir_estructura(&dos, &mut rng(s)) == 0).count();
        assert!((2800..=3200).contains(&primeros), "{primeros} of {n}, expected about three quarters");
    }

    /// The invariant the metrics rest on: every layout names the brands in the order chosen.
    #[test]
    fn every_layout_names_the_brands_in_the_order_chosen() {
        let ind = industria();
        let matcher = BrandMatcher::new(&crate::marcas(&ind));
        let el = elegidas();
        for m in los_modelos() {
            for e in &LISTAS {
                for seed in 0..5 {
                    let mut r = rng(seed);
                    let mut w = escritor(&ind, &m, &mut r);
                    w.lista(*e, &el);
                    assert_eq!(matcher.brands_in_text(&w.out), [0, 1, 2], "{e:?}\n{}", w.out);
                    let mut r = rng(seed);
                    let mut w = escritor(&ind, &m, &mut r);
                    w.lista(*e, &el[..1]);
                    assert_eq!(matcher.brands_in_text(&w.out), [0], "{e:?} with one brand\n{}", w.out);
                }
            }
            let mut r = rng(1);
            let mut w = escritor(&ind, &m, &mut r);
            w.comparar(&el[..2], "Alfa", "Beta", false);
            assert_eq!(matcher.brands_in_text(&w.out), [0, 1], "{}", w.out);
            let mut r = rng(1);
            let mut w = escritor(&ind, &m, &mut r);
            w.sobre_marca(&el);
            assert_eq!(matcher.brands_in_text(&w.out)[0], 0, "{}", w.out);
            let mut r = rng(1);
            let mut w = escritor(&ind, &m, &mut r);
            w.sin_marcas();
            assert!(matcher.brands_in_text(&w.out).is_empty(), "{}", w.out);
        }
    }

    #[test]
    fn a_health_study_never_ranks_and_always_warns() {
        let mut ind = industria();
        ind.salud = true;
        let el = elegidas();
        let q = &ind.preguntas[0];
        for m in los_modelos() {
            for seed in 0..40 {
                let texto = redactar(&ind, q, &m, &el, &mut rng(seed));
                assert!(!texto.contains("Ranking orientativo"), "{texto}");
                assert!(!texto.contains("Si tengo que elegir una, me quedo con"), "{texto}");
            }
        }
        let mini = modelo("gpt-5-mini");
        let mut r = rng(3);
        let mut w = escritor(&ind, &mini, &mut r);
        w.lista(Estructura::Numerada, &el);
        // The closing defers to the doctor and the caveat says it is no medical advice.
        let ultimo = w.out.rsplit("\n\n").next().unwrap_or_default();
        assert!(["médic", "profesional"].iter().any(|x| ultimo.contains(x)), "{}", w.out);
    }

    #[test]
    fn advice_and_profiles_never_repeat_in_one_answer() {
        let ind = industria();
        let m = modelo("gpt-5");
        let mut r = rng(9);
        let mut w = escritor(&ind, &m, &mut r);
        let a = w.consejos(2);
        let b = w.consejos(10);
        assert_eq!(a.len(), 2);
        assert!(b.iter().all(|c| !a.contains(c)), "{a:?} {b:?}");
        // Untagged advice and advice tagged "cuentas" only: 3 of the 5 entries.
        assert_eq!(a.len() + b.len(), 3);
        assert_eq!(w.consejo(), "", "nothing left");
        // A profile tagged with the brand first; then a generic one, not the same twice.
        assert_eq!(w.perfil(0), "cobrás el sueldo");
        let otro = w.perfil(0);
        assert_ne!(otro, "cobrás el sueldo");
        assert_ne!(w.perfil(0), otro);
    }
}
