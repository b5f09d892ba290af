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

use super::Chosen;
use super::wording::{cap, pick, relevant, spanish};
use crate::industry::{BaseQuestion, QuestionKind};
use crate::industry::{Industry, TrackedBrand};
use crate::models::Model;

/// A brand's weight for one question and model: its salience, × 2.5 when the question has one
/// of its `foco` values, × `debil_factor` when it has one of its `debil` values, × every bias
/// of the model for it, all raised to the model's sharpness.
pub(crate) fn weight_of(ind: &Industry, i: usize, values: &[&str], model: &Model) -> f64 {
    let m = &ind.brands[i];
    let mut w = m.weight;
    if m.focus.iter().any(|f| values.contains(&f.as_str())) {
        w *= 2.5;
    }
    if m.weak.iter().any(|f| values.contains(&f.as_str())) {
        w *= ind.weak_factor;
    }
    for s in &ind.biases {
        if s.model == model.id && s.brand == m.id {
            w *= s.factor;
        }
    }
    w.powf(model.style.sharpness)
}

/// Brands for one answer: weighted sampling without replacement (Efraimidis–Spirakis),
/// sharpened per model. A comparison names its pair first (the heavier one, with some noise,
/// leading), a question about a brand names that brand first, list and advice answers sample
/// from all brands or (now and then) name none.
pub(crate) fn choose_brands<'a>(
    ind: &'a Industry,
    question: &BaseQuestion,
    model: &Model,
    rng: &mut ChaCha8Rng,
) -> Vec<Chosen<'a>> {
    let values = question.values();
    let weight = |i: usize| weight_of(ind, i, &values, model);
    let sample = |rng: &mut ChaCha8Rng, excluded: &[usize], k: usize| -> Vec<usize> {
        let mut keys: Vec<(f64, usize)> = (0..ind.brands.len())
            .filter(|i| !excluded.contains(i))
            .filter_map(|i| {
                let w = weight(i);
                let u: f64 = rng.random_range(1e-9..1.0);
                (w > 0.0).then(|| (u.powf(1.0 / w), i))
            })
            .collect();
        keys.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        keys.into_iter().take(k).map(|(_, i)| i).collect()
    };
    let (kmin, kmax) = model.style.brand_range;
    let order: Vec<usize> = match &question.kind {
        QuestionKind::Compare { a, b, .. } => {
            let (ia, ib) = (ind.brand_index(a), ind.brand_index(b));
            let mut pair = if ia == ib {
                vec![ia]
            } else {
                let pa = weight(ia) * rng.random_range(0.5..1.5);
                let pb = weight(ib) * rng.random_range(0.5..1.5);
                if pa >= pb { vec![ia, ib] } else { vec![ib, ia] }
            };
            let extra =
                if ia == ib { 1 + usize::from(rng.random_bool(0.4)) } else { usize::from(rng.random_bool(0.3)) };
            let more = sample(rng, &pair.clone(), extra);
            pair.extend(more);
            pair
        }
        QuestionKind::AboutBrand(id) => {
            let i = ind.brand_index(id);
            let n = if rng.random_bool(0.6) { rng.random_range(1..=3) } else { 0 };
            let mut v = vec![i];
            v.extend(sample(rng, &[i], n));
            v
        }
        QuestionKind::List | QuestionKind::Advice => {
            let mut p = ind.brandless_rate * model.style.brandless_factor;
            if matches!(question.kind, QuestionKind::Advice) {
                p = (p * 2.2).min(0.85);
            }
            if rng.random_bool(p.clamp(0.0, 0.95)) {
                Vec::new()
            } else {
                let mut k = rng.random_range(kmin..=kmax);
                if matches!(question.kind, QuestionKind::Advice) {
                    k = k.saturating_sub(2).max(1);
                }
                sample(rng, &[], k)
            }
        }
    };
    let caveat_factor = model.style.caveat_factor;
    let two_pros = model.style.verbosity;
    order
        .into_iter()
        .map(|idx| {
            let m = &ind.brands[idx];
            let name = choose_name(m, model, rng);
            let n_pros = if rng.random_bool(two_pros) { 2 + usize::from(rng.random_bool(two_pros * 0.3)) } else { 1 };
            let mut pros = relevant(rng, m.arguments(&question.language), &values, n_pros);
            if pros.is_empty() {
                let generic: &[&'static str] = if spanish(&question.language) {
                    &["es una de las opciones más conocidas de la categoría", "tiene buenas reseñas en general"]
                } else {
                    &["is one of the best-known options in the category", "gets good reviews overall"]
                };
                pros = vec![pick(rng, generic)];
            }
            let caveat = rng
                .random_bool(((0.10 + m.neg) * caveat_factor).clamp(0.0, 0.9))
                .then(|| relevant(rng, m.caveats(&question.language), &values, 1).pop())
                .flatten();
            Chosen { idx, name, pros, caveat }
        })
        .collect()
}

/// The display name or one of the aliases; some models prefer full names.
///
/// Aliases written with a leading `~` are sub-brands or products ("~Ibis", "~Actron"): they
/// count as mentions when an argument names them, but never stand for the whole entity.
pub(crate) fn choose_name(m: &TrackedBrand, model: &Model, rng: &mut ChaCha8Rng) -> String {
    let names: Vec<&str> = m.alias.iter().map(String::as_str).filter(|a| !a.starts_with('~')).collect();
    if names.is_empty() || rng.random_bool(model.style.full_name) {
        m.name.clone()
    } else {
        pick(rng, &names).to_owned()
    }
}

/// Tone labels: caveats pull towards neutral or negative, the first brand towards positive.
pub(crate) fn label_tones(
    ind: &Industry,
    chosen: &[Chosen<'_>],
    text: &str,
    rng: &mut ChaCha8Rng,
) -> BTreeMap<String, Tone> {
    chosen
        .iter()
        .enumerate()
        .map(|(pos, e)| {
            let u: f64 = rng.random();
            // Only a caveat that made it into the text counts.
            let written = e.caveat.is_some_and(|c| text.contains(c) || text.contains(&cap(c)));
            let tone = match (written, pos) {
                (true, _) if u < 0.6 => Tone::Neg,
                (true, _) => Tone::Neu,
                (false, 0) if u < 0.72 => Tone::Pos,
                (false, _) if u < 0.5 => Tone::Pos,
                (false, _) if u < 0.99 => Tone::Neu,
                _ => Tone::Neg,
            };
            (ind.brands[e.idx].id.clone(), tone)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::fixture::{self, industry, model, rng};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn weights_multiply_focus_weakness_bias_then_sharpen() {
        let ind = industry();
        let gpt = model("gpt-5");
        let n = gpt.style.sharpness;
        let (alfa, beta, gama) = (ind.brand_index("alfa"), ind.brand_index("beta"), ind.brand_index("gama"));
        let accounts = ["cuentas", "jóvenes"];
        assert!(close(weight_of(&ind, alfa, &accounts, &gpt), (1.0f64 * 2.5).powf(n)), "focus × 2.5");
        assert!(close(weight_of(&ind, beta, &accounts, &gpt), 0.5f64.powf(n)));
        assert!(close(weight_of(&ind, gama, &accounts, &gpt), (0.25f64 * 3.0).powf(n)), "gpt-5's bias for gama");
        let cards = ["tarjetas"];
        assert!(close(weight_of(&ind, beta, &cards, &gpt), (0.5f64 * 0.2).powf(n)), "weak × debil_factor");
        let mini = model("gpt-5-mini");
        assert!(close(weight_of(&ind, gama, &accounts, &mini), 0.25f64.powf(mini.style.sharpness)), "no bias");
    }

    #[test]
    fn a_comparison_names_its_pair_first_the_heavier_more_often() {
        let ind = industry();
        let q = &ind.questions[10];
        assert!(matches!(q.kind, QuestionKind::Compare { .. }));
        let (alfa, beta) = (ind.brand_index("alfa"), ind.brand_index("beta"));
        let mut alfa_first = 0;
        for m in fixture::all_models() {
            for seed in 0..100 {
                let chosen = choose_brands(&ind, q, &m, &mut rng(seed));
                let pair: Vec<usize> = chosen.iter().take(2).map(|e| e.idx).collect();
                assert!(pair == [alfa, beta] || pair == [beta, alfa], "{pair:?}");
                alfa_first += usize::from(pair[0] == alfa);
            }
        }
        // alfa weighs 2.5 here (focus on "cuentas"), beta 0.5.
        assert!(alfa_first > 450, "{alfa_first} of 600");
    }

    #[test]
    fn a_question_about_a_brand_names_it_first() {
        let ind = industry();
        let q = &ind.questions[12];
        let gama = ind.brand_index("gama");
        for seed in 0..100 {
            let chosen = choose_brands(&ind, q, &model("claude-sonnet-4-5"), &mut rng(seed));
            assert_eq!(chosen[0].idx, gama);
            let mut idx: Vec<usize> = chosen.iter().map(|e| e.idx).collect();
            idx.sort_unstable();
            idx.dedup();
            assert_eq!(idx.len(), chosen.len(), "no brand twice");
        }
    }

    #[test]
    fn a_bias_of_zero_keeps_a_brand_out_of_that_model_s_answers() {
        let ind = fixture::industry_with(
            "sesgos = [{ modelo = \"gpt-5\", marca = \"gama\", factor = 3.0 }]",
            "sesgos = [{ modelo = \"gpt-5-mini\", marca = \"beta\", factor = 0.0 }]",
        );
        let q = &ind.questions[0];
        let beta = ind.brand_index("beta");
        let with = |id: &str| {
            (0..200).filter(|&s| choose_brands(&ind, q, &model(id), &mut rng(s)).iter().any(|e| e.idx == beta)).count()
        };
        assert_eq!(with("gpt-5-mini"), 0);
        assert!(with("gemini-2.5-flash") > 50);
    }

    #[test]
    fn arguments_fit_the_question_and_its_language() {
        let ind = industry();
        let alfa = ind.brand_index("alfa");
        for seed in 0..100 {
            // cuentas, jóvenes: nothing tagged for cards or retirees.
            for e in choose_brands(&ind, &ind.questions[0], &model("gpt-5"), &mut rng(seed)) {
                assert!(!e.pros.is_empty());
                assert!(e.pros.iter().all(|p| !p.contains("tarjeta") && !p.contains("jubilados")), "{:?}", e.pros);
            }
            // English: English arguments only; a brand without any gets a generic one.
            for e in choose_brands(&ind, &ind.questions[14], &model("gpt-5"), &mut rng(seed)) {
                if e.idx == alfa {
                    assert_eq!(e.pros, ["has a simple app"]);
                    assert!(e.caveat.is_none_or(|c| c == "charges a monthly fee"));
                } else {
                    let generics = ["is one of the best-known options in the category", "gets good reviews overall"];
                    assert!(e.pros.iter().all(|p| generics.contains(p)), "{:?}", e.pros);
                    assert!(e.caveat.is_none(), "no English caveats for {}", e.name);
                }
            }
        }
    }

    #[test]
    fn the_same_seed_chooses_the_same_brands() {
        let ind = industry();
        let m = model("gemini-2.5-pro");
        for seed in 0..20 {
            let a = choose_brands(&ind, &ind.questions[3], &m, &mut rng(seed));
            let b = choose_brands(&ind, &ind.questions[3], &m, &mut rng(seed));
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
    }

    #[test]
    fn names_are_the_display_name_or_a_plain_alias_never_a_product() {
        let ind = industry();
        let alfa = &ind.brands[ind.brand_index("alfa")];
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            seen.insert(choose_name(alfa, &model("claude-haiku-4-5"), &mut rng(seed)));
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), ["Alfa", "Banco Alfa"]);
        let gama = &ind.brands[ind.brand_index("gama")];
        assert_eq!(choose_name(gama, &model("claude-haiku-4-5"), &mut rng(1)), "Gama", "no alias");
    }

    #[test]
    fn a_written_caveat_is_never_a_positive_mention() {
        let ind = industry();
        let with = Chosen {
            idx: 0,
            name: "Banco Alfa".into(),
            pros: vec!["tiene una app simple"],
            caveat: Some("cobra mantenimiento"),
        };
        let without = Chosen {
            idx: 1,
            name: "Beta".into(),
            pros: vec!["no cobra comisiones"],
            caveat: Some("tiene pocas sucursales"),
        };
        let text = "Banco Alfa tiene una app simple, aunque cobra mantenimiento. Beta no cobra comisiones.";
        let mut positives = 0;
        for seed in 0..200 {
            let tone = label_tones(&ind, &[with.clone(), without.clone()], text, &mut rng(seed));
            assert_eq!(tone.keys().collect::<Vec<_>>(), ["alfa", "beta"]);
            assert_ne!(tone["alfa"], Tone::Pos, "its caveat is in the text");
            // Beta's caveat was chosen but not written: it does not count.
            positives += usize::from(tone["beta"] == Tone::Pos);
        }
        assert!(positives > 50, "{positives}");
    }
}
