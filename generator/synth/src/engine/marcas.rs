//! Which brands an answer names, in which order, under which name and with which tone.
//!
//! This is where the metrics come from: brands are sampled by weight (salience, focus on the
//! question's values, the model's bias, sharpened per model), and the order they are drawn in
//! is the order they are written, so a leader, a challenger and a long tail emerge from the
//! data files rather than being written in. Tone labels follow what the text actually says
//! about each brand.

use std::collections::BTreeMap;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use generator::model::Tone;

use super::Elegida;
use super::texto::{cap, es, relevantes, una};
use crate::industria::{Industria, Marca};
use crate::industria::{PreguntaBase, TipoPregunta};
use crate::modelos::Modelo;

/// A brand's weight for one question and model: its salience, × 2.5 when the question has one
/// of its `foco` values, × `debil_factor` when it has one of its `debil` values, × every bias
/// of the model for it, all raised to the model's sharpness.
pub(crate) fn peso_de(ind: &Industria, i: usize, valores: &[&str], modelo: &Modelo) -> f64 {
    let m = &ind.marcas[i];
    let mut w = m.peso;
    if m.foco.iter().any(|f| valores.contains(&f.as_str())) {
        w *= 2.5;
    }
    if m.debil.iter().any(|f| valores.contains(&f.as_str())) {
        w *= ind.debil_factor;
    }
    for s in &ind.sesgos {
        if s.modelo == modelo.id && s.marca == m.id {
            w *= s.factor;
        }
    }
    w.powf(modelo.estilo.nitidez)
}

/// Brands for one answer: weighted sampling without replacement (Efraimidis–Spirakis),
/// sharpened per model. A comparison names its pair first (the heavier one, with some noise,
/// leading), a question about a brand names that brand first, list and advice answers sample
/// from all brands or (now and then) name none.
pub(crate) fn elegir_marcas<'a>(
    ind: &'a Industria,
    pregunta: &PreguntaBase,
    modelo: &Modelo,
    rng: &mut ChaCha8Rng,
) -> Vec<Elegida<'a>> {
    let valores = pregunta.valores();
    let peso = |i: usize| peso_de(ind, i, &valores, modelo);
    let muestrear = |rng: &mut ChaCha8Rng, excluidas: &[usize], k: usize| -> Vec<usize> {
        let mut claves: Vec<(f64, usize)> = (0..ind.marcas.len())
            .filter(|i| !excluidas.contains(i))
            .filter_map(|i| {
                let w = peso(i);
                let u: f64 = rng.random_range(1e-9..1.0);
                (w > 0.0).then(|| (u.powf(1.0 / w), i))
            })
            .collect();
        claves.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        claves.into_iter().take(k).map(|(_, i)| i).collect()
    };
    let (kmin, kmax) = modelo.estilo.marcas;
    let orden: Vec<usize> = match &pregunta.tipo {
        TipoPregunta::Comparar { a, b, .. } => {
            let (ia, ib) = (ind.marca(a), ind.marca(b));
            let mut par = if ia == ib {
                vec![ia]
            } else {
                let pa = peso(ia) * rng.random_range(0.5..1.5);
                let pb = peso(ib) * rng.random_range(0.5..1.5);
                if pa >= pb { vec![ia, ib] } else { vec![ib, ia] }
            };
            let extra =
                if ia == ib { 1 + usize::from(rng.random_bool(0.4)) } else { usize::from(rng.random_bool(0.3)) };
            let mas = muestrear(rng, &par.clone(), extra);
            par.extend(mas);
            par
        }
        TipoPregunta::Marca(id) => {
            let i = ind.marca(id);
            let n = if rng.random_bool(0.6) { rng.random_range(1..=3) } else { 0 };
            let mut v = vec![i];
            v.extend(muestrear(rng, &[i], n));
            v
        }
        TipoPregunta::Lista | TipoPregunta::Consejo => {
            let mut p = ind.sin_marca * modelo.estilo.sin_marca;
            if matches!(pregunta.tipo, TipoPregunta::Consejo) {
                p = (p * 2.2).min(0.85);
            }
            if rng.random_bool(p.clamp(0.0, 0.95)) {
                Vec::new()
            } else {
                let mut k = rng.random_range(kmin..=kmax);
                if matches!(pregunta.tipo, TipoPregunta::Consejo) {
                    k = k.saturating_sub(2).max(1);
                }
                muestrear(rng, &[], k)
            }
        }
    };
    let contra_p = modelo.estilo.contra;
    let dos_pros = modelo.estilo.verbosidad;
    orden
        .into_iter()
        .map(|idx| {
            let m = &ind.marcas[idx];
            let nombre = elegir_nombre(m, modelo, rng);
            let n_pro = if rng.random_bool(dos_pros) { 2 + usize::from(rng.random_bool(dos_pros * 0.3)) } else { 1 };
            let mut pro = relevantes(rng, m.argumentos(&pregunta.idioma), &valores, n_pro);
            if pro.is_empty() {
                let generico: &[&'static str] = if es(&pregunta.idioma) {
                    &["es una de las opciones más conocidas de la categoría", "tiene buenas reseñas en general"]
                } else {
                    &["is one of the best-known options in the category", "gets good reviews overall"]
                };
                pro = vec![una(rng, generico)];
            }
            let contra = rng
                .random_bool(((0.10 + m.neg) * contra_p).clamp(0.0, 0.9))
                .then(|| relevantes(rng, m.advertencias(&pregunta.idioma), &valores, 1).pop())
                .flatten();
            Elegida { idx, nombre, pro, contra }
        })
        .collect()
}

/// The display name or one of the aliases; some models prefer full names.
///
/// Aliases written with a leading `~` are sub-brands or products ("~Ibis", "~Actron"): they
/// count as mentions when an argument names them, but never stand for the whole entity.
pub(crate) fn elegir_nombre(m: &Marca, modelo: &Modelo, rng: &mut ChaCha8Rng) -> String {
    let nombres: Vec<&str> = m.alias.iter().map(String::as_str).filter(|a| !a.starts_with('~')).collect();
    if nombres.is_empty() || rng.random_bool(modelo.estilo.nombre_completo) {
        m.nombre.clone()
    } else {
        una(rng, &nombres).to_owned()
    }
}

/// Tone labels: caveats pull towards neutral or negative, the first brand towards positive.
pub(crate) fn etiquetar(
    ind: &Industria,
    elegidas: &[Elegida<'_>],
    texto: &str,
    rng: &mut ChaCha8Rng,
) -> BTreeMap<String, Tone> {
    elegidas
        .iter()
        .enumerate()
        .map(|(pos, e)| {
            let u: f64 = rng.random();
            // Only a caveat that made it into the text counts.
            let escrita = e.contra.is_some_and(|c| texto.contains(c) || texto.contains(&cap(c)));
            let tono = match (escrita, pos) {
                (true, _) if u < 0.6 => Tone::Neg,
                (true, _) => Tone::Neu,
                (false, 0) if u < 0.72 => Tone::Pos,
                (false, _) if u < 0.5 => Tone::Pos,
                (false, _) if u < 0.99 => Tone::Neu,
                _ => Tone::Neg,
            };
            (ind.marcas[e.idx].id.clone(), tono)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::prueba::{self, industria, modelo, rng};

    fn cerca(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn weights_multiply_focus_weakness_bias_then_sharpen() {
        let ind = industria();
        let gpt = modelo("gpt-5");
        let n = gpt.estilo.nitidez;
        let (alfa, beta, gama) = (ind.marca("alfa"), ind.marca("beta"), ind.marca("gama"));
        let cuentas = ["cuentas", "jóvenes"];
        assert!(cerca(peso_de(&ind, alfa, &cuentas, &gpt), (1.0f64 * 2.5).powf(n)), "focus × 2.5");
        assert!(cerca(peso_de(&ind, beta, &cuentas, &gpt), 0.5f64.powf(n)));
        assert!(cerca(peso_de(&ind, gama, &cuentas, &gpt), (0.25f64 * 3.0).powf(n)), "gpt-5's bias for gama");
        let tarjetas = ["tarjetas"];
        assert!(cerca(peso_de(&ind, beta, &tarjetas, &gpt), (0.5f64 * 0.2).powf(n)), "weak × debil_factor");
        let mini = modelo("gpt-5-mini");
        assert!(cerca(peso_de(&ind, gama, &cuentas, &mini), 0.25f64.powf(mini.estilo.nitidez)), "no bias");
    }

    #[test]
    fn a_comparison_names_its_pair_first_the_heavier_more_often() {
        let ind = industria();
        let q = &ind.preguntas[10];
        assert!(matches!(q.tipo, TipoPregunta::Comparar { .. }));
        let (alfa, beta) = (ind.marca("alfa"), ind.marca("beta"));
        let mut alfa_primero = 0;
        for m in prueba::los_modelos() {
            for seed in 0..100 {
                let el = elegir_marcas(&ind, q, &m, &mut rng(seed));
                let par: Vec<usize> = el.iter().take(2).map(|e| e.idx).collect();
                assert!(par == [alfa, beta] || par == [beta, alfa], "{par:?}");
                alfa_primero += usize::from(par[0] == alfa);
            }
        }
        // alfa weighs 2.5 here (focus on "cuentas"), beta 0.5.
        assert!(alfa_primero > 450, "{alfa_primero} of 600");
    }

    #[test]
    fn a_question_about_a_brand_names_it_first() {
        let ind = industria();
        let q = &ind.preguntas[12];
        let gama = ind.marca("gama");
        for seed in 0..100 {
            let el = elegir_marcas(&ind, q, &modelo("claude-sonnet-4-5"), &mut rng(seed));
            assert_eq!(el[0].idx, gama);
            let mut idx: Vec<usize> = el.iter().map(|e| e.idx).collect();
            idx.sort_unstable();
            idx.dedup();
            assert_eq!(idx.len(), el.len(), "no brand twice");
        }
    }

    #[test]
    fn a_bias_of_zero_keeps_a_brand_out_of_that_model_s_answers() {
        let ind = prueba::industria_con(
            "sesgos = [{ modelo = \"gpt-5\", marca = \"gama\", factor = 3.0 }]",
            "sesgos = [{ modelo = \"gpt-5-mini\", marca = \"beta\", factor = 0.0 }]",
        );
        let q = &ind.preguntas[0];
        let beta = ind.marca("beta");
        let con = |id: &str| {
            (0..200).filter(|&s| elegir_marcas(&ind, q, &modelo(id), &mut rng(s)).iter().any(|e| e.idx == beta)).count()
        };
        assert_eq!(con("gpt-5-mini"), 0);
        assert!(con("gemini-2.5-flash") > 50);
    }

    #[test]
    fn arguments_fit_the_question_and_its_language() {
        let ind = industria();
        let alfa = ind.marca("alfa");
        for seed in 0..100 {
            // cuentas, jóvenes: nothing tagged for cards or retirees.
            for e in elegir_marcas(&ind, &ind.preguntas[0], &modelo("gpt-5"), &mut rng(seed)) {
                assert!(!e.pro.is_empty());
                assert!(e.pro.iter().all(|p| !p.contains("tarjeta") && !p.contains("jubilados")), "{:?}", e.pro);
            }
            // English: English arguments only; a brand without any gets a generic one.
            for e in elegir_marcas(&ind, &ind.preguntas[14], &modelo("gpt-5"), &mut rng(seed)) {
                if e.idx == alfa {
                    assert_eq!(e.pro, ["has a simple app"]);
                    assert!(e.contra.is_none_or(|c| c == "charges a monthly fee"));
                } else {
                    let genericos = ["is one of the best-known options in the category", "gets good reviews overall"];
                    assert!(e.pro.iter().all(|p| genericos.contains(p)), "{:?}", e.pro);
                    assert!(e.contra.is_none(), "no English caveats for {}", e.nombre);
                }
            }
        }
    }

    #[test]
    fn the_same_seed_chooses_the_same_brands() {
        let ind = industria();
        let m = modelo("gemini-2.5-pro");
        for seed in 0..20 {
            let a = elegir_marcas(&ind, &ind.preguntas[3], &m, &mut rng(seed));
            let b = elegir_marcas(&ind, &ind.preguntas[3], &m, &mut rng(seed));
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
    }

    #[test]
    fn names_are_the_display_name_or_a_plain_alias_never_a_product() {
        let ind = industria();
        let alfa = &ind.marcas[ind.marca("alfa")];
        let mut vistos = std::collections::BTreeSet::new();
        for seed in 0..200 {
            vistos.insert(elegir_nombre(alfa, &modelo("claude-haiku-4-5"), &mut rng(seed)));
        }
        assert_eq!(vistos.into_iter().collect::<Vec<_>>(), ["Alfa", "Banco Alfa"]);
        let gama = &ind.marcas[ind.marca("gama")];
        assert_eq!(elegir_nombre(gama, &modelo("claude-haiku-4-5"), &mut rng(1)), "Gama", "no alias");
    }

    #[test]
    fn a_written_caveat_is_never_a_positive_mention() {
        let ind = industria();
        let con = Elegida {
            idx: 0,
            nombre: "Banco Alfa".into(),
            pro: vec!["tiene una app simple"],
            contra: Some("cobra mantenimiento"),
        };
        let sin = Elegida {
            idx: 1,
            nombre: "Beta".into(),
            pro: vec!["no cobra comisiones"],
            contra: Some("tiene pocas sucursales"),
        };
        let texto = "Banco Alfa tiene una app simple, aunque cobra mantenimiento. Beta no cobra comisiones.";
        let mut positivos = 0;
        for seed in 0..200 {
            let tono = etiquetar(&ind, &[con.clone(), sin.clone()], texto, &mut rng(seed));
            assert_eq!(tono.keys().collect::<Vec<_>>(), ["alfa", "beta"]);
            assert_ne!(tono["alfa"], Tone::Pos, "its caveat is in the text");
            // Beta's caveat was chosen but not written: it does not count.
            positivos += usize::from(tono["beta"] == Tone::Pos);
        }
        assert!(positivos > 50, "{positivos}");
    }
}
