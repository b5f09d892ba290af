//! The previous run of a study (`[anterior]` in its industry file), with the drift real
//! re-runs show: one model replaced since by its newer version, one brand that has risen
//! since (it weighed less then), one site the answers cited then and no longer, some
//! questions added since and some retired.
//!
//! The previous run is written with the same engine and the same question texts, from its own
//! random streams (the seed mixed with a fixed salt), so this run's files do not change when a
//! previous run is added or removed.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use generator::model::{Answer, ModelSpec, PreviousRunSpec, Question, Study, Tier, Weighting};

use crate::engine;
use crate::industry::BaseQuestion;
use crate::industry::{Industry, PreviousRun};
use crate::models::Model;
use crate::{design, seed_for, width};

/// Salt of the previous run's random streams.
const SALT: u64 = 0x00A1_7E12_0A2D_2025;

/// The previous run of `study` (this run, already generated from `questions`): its
/// `[corrida_anterior]` and its questions and answers as a study of their own.
pub(crate) fn generate(
    ind: &Industry,
    prev: &PreviousRun,
    models: &[Model],
    study: &Study,
    questions: &[(Question, BaseQuestion)],
    seed: u64,
) -> (PreviousRunSpec, Study) {
    // The industry as it was: the rising brand weighed less, the retired site was cited.
    let mut before: Industry = ind.clone();
    if let Some(m) = before.brands.iter_mut().find(|m| m.id == prev.rising.brand) {
        m.weight *= prev.rising.factor;
    }
    before.sources.media.push(prev.retired_site.clone());
    // The models as they were: the replaced one under its old id, with today's style.
    let old_models: Vec<Model> = models
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if m.id == prev.replacement.current {
                m.id = prev.replacement.id.clone();
                m.name = prev.replacement.name.clone();
                m.versions = [prev.replacement.version.clone(), prev.replacement.version.clone()];
            }
            m
        })
        .collect();
    // The questions then: this run's but the last `agregadas`, and `retiradas` more from
    // the pool (texts this run does not ask), numbered after this run's.
    let mut rng = ChaCha8Rng::seed_from_u64(seed_for(seed ^ SALT, &ind.slug, u64::MAX));
    let kept = questions.len().saturating_sub(prev.added);
    let mut questions_before: Vec<(Question, BaseQuestion)> = questions[..kept].to_vec();
    let used: Vec<&str> = questions.iter().map(|(q, _)| q.text.as_str()).collect();
    let mut unused: Vec<&BaseQuestion> = ind.questions.iter().filter(|b| !used.contains(&b.text.as_str())).collect();
    if unused.len() < prev.retired {
        unused = ind.questions.iter().collect();
    }
    let w = width(questions.len() + prev.retired, 3);
    for (i, base) in unused.into_iter().take(prev.retired).enumerate() {
        let mut dims: std::collections::BTreeMap<String, String> = base.dims.iter().cloned().collect();
        if ind.dimensions.iter().any(|d| d.id == "repeticion") {
            dims.insert("repeticion".into(), "1".into());
        }
        let q = Question {
            id: format!("P{:0w$}", questions.len() + i + 1),
            text: base.text.clone(),
            language: base.language.clone(),
            model: if rng.random_bool(0.5) { Tier::Standard } else { Tier::Advanced },
            dimensions: dims,
        };
        questions_before.push((q, base.clone()));
    }
    let nq = questions_before.len();
    let mut answers = Vec::new();
    for (qi, (q, base)) in questions_before.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(seed_for(seed ^ SALT, &ind.slug, qi as u64));
        let base_day = (qi as u64 * u64::from(prev.days) / nq as u64) as u32;
        for m in old_models.iter().filter(|m| m.tier == q.model) {
            let b = engine::answer_question(&before, base, m, &mut rng);
            let day = (base_day + rng.random_range(0..=1)).min(prev.days - 1);
            answers.push(Answer {
                id: String::new(),
                question: q.id.clone(),
                model: m.id.clone(),
                version: m.versions[0].clone(),
                date: design::date(prev.start, day),
                answer: b.answer,
                sources: b.sources,
                tone: b.tone,
                repetition: None,
                collection: None,
                surface: None,
                consulted: None,
            });
        }
    }
    let w = width(answers.len(), 5);
    for (i, a) in answers.iter_mut().enumerate() {
        a.id = format!("R{:0w$}", i + 1);
    }
    let specs: Vec<ModelSpec> = old_models
        .iter()
        .map(|m| ModelSpec { id: m.id.clone(), name: m.name.clone(), provider: m.provider.clone(), level: m.tier })
        .collect();
    // The market shares of then: the replaced model held its successor's.
    let weighting = study.design.weighting.as_ref().map(|p| Weighting {
        source: p.source.clone(),
        weights: p
            .weights
            .iter()
            .map(|(id, w)| (if *id == prev.replacement.current { prev.replacement.id.clone() } else { id.clone() }, *w))
            .collect(),
    });
    let spec = PreviousRunSpec {
        description: prev.description.clone(),
        description_en: prev.description_en.clone(),
        models: specs.clone(),
        weighting: weighting.clone(),
    };
    let mut design = study.design.clone();
    design.models = specs;
    design.weighting = weighting;
    design.analyses = Vec::new();
    design.previous_run = None;
    let previous = Study {
        slug: study.slug.clone(),
        design,
        brands: study.brands.clone(),
        questions: questions_before.into_iter().map(|(q, _)| q).collect(),
        answers,
        findings: Vec::new(),
        reports: Vec::new(),
        question_lines: Vec::new(),
        answer_lines: Vec::new(),
        previous: None,
    };
    (spec, previous)
}

/// The tier a `cambio_nivel_*` table compares.
fn tier_of(id: &str) -> Tier {
    if id.ends_with("avanzado") { Tier::Advanced } else { Tier::Standard }
}

/// The findings about change: the rising brand's mention (which the data show grew beyond
/// the noise), and, in the tier whose model was replaced, the leader's mention with its
/// verdict as computed. Each number is backed by its change cell; none is written unless its
/// cell bears it out.
pub(crate) fn change_findings(prev: &PreviousRun, study: &Study) -> Vec<generator::model::Finding> {
    use generator::metrics::analysis::{Cell, Table};
    use generator::metrics::change::{self, FELL, GREW, NO_CHANGE};
    use generator::model::{Backing, Finding};

    let facts = generator::metrics::extract_facts(study);
    let tables = change::change_tables(study, &facts);
    let Some(counts) = change::question_counts(study) else { return Vec::new() };
    let num = |t: &Table, row: &str, col: &str| t.cell(row, col).and_then(Cell::as_f64);
    let text = |t: &Table, row: &str, col: &str| match t.cell(row, col) {
        Some(Cell::Text(v)) => Some(v.clone()),
        _ => None,
    };
    let interval = |t: &Table, row: &str, col: &str| match t.cell(row, col) {
        Some(Cell::Interval(l, h)) => Some((*l, *h)),
        _ => None,
    };
    // Percentages with one decimal, as the text prints them (decimal comma in Spanish).
    let pct = |x: f64| format!("{:.1}", x * 100.0);
    let pct_es = |x: f64| pct(x).replace('.', ",");
    let three = |x: f64| (x * 1000.0).round() / 1000.0;
    let backing = |table: &str, row: &str, column: &str, value: f64, tied: bool| Backing {
        table: table.into(),
        row: row.into(),
        column: column.into(),
        value: three(value),
        decimals: 3,
        context: false,
        tie: tied,
    };
    let mut out = Vec::new();
    // Evidence: the first two answers of this run (in `scope` models) that name the brand.
    let evidence = |brand: &str, tier: Option<Tier>| -> Vec<String> {
        let Some(b) = study.brands.iter().position(|x| x.name == brand) else { return Vec::new() };
        facts
            .iter()
            .filter(|f| f.names(b) && tier.is_none_or(|t| study.design.models[f.model].level == t))
            .take(2)
            .map(|f| study.answers[f.answer].id.clone())
            .collect()
    };
    let next_id = |taken: usize| format!("H{:02}", study.findings.len() + taken + 1);

    // The rising brand, all models.
    if let (Some(total), Some(brand)) = (tables.first(), study.brands.iter().find(|b| b.id == prev.rising.brand)) {
        let row = brand.name.as_str();
        let (a, b, d) = (
            num(total, row, "mencion_anterior"),
            num(total, row, "mencion_actual"),
            num(total, row, "mencion_diferencia"),
        );
        let ic = interval(total, row, "mencion_diferencia_ic95");
        if let (Some(a), Some(b), Some(d), Some((l, h)), Some(GREW)) =
            (a, b, d, ic, text(total, row, "mencion_veredicto").as_deref())
        {
            out.push(Finding {
                id: next_id(out.len()),
                kind: "cambio".into(),
                section: "Cambio desde la corrida anterior".into(),
                text: format!(
                    "{row} creció desde la corrida anterior más allá del ruido: sobre las {} preguntas que comparten las dos corridas, la nombra el {} % de las respuestas, frente al {} % entonces (+{} puntos; intervalo al 95 % de la diferencia, de +{} a +{} puntos).",
                    counts.shared, pct_es(b), pct_es(a), pct_es(d), pct_es(l), pct_es(h)
                ),
                text_en: format!(
                    "{row} grew since the previous run beyond the noise: over the {} questions both runs share, {}% of answers name it, against {}% then (+{} points; 95% interval of the difference, +{} to +{} points).",
                    counts.shared, pct(b), pct(a), pct(d), pct(l), pct(h)
                ),
                backing: vec![
                    backing(&total.id, row, "mencion_anterior", a, false),
                    backing(&total.id, row, "mencion_actual", b, false),
                    backing(&total.id, row, "mencion_diferencia", d, false),
                ],
                evidence: evidence(row, None),
            });
        }
    }

    // The tier whose model was replaced: its most named brand now.
    if let Some(tier) = tables.iter().find(|t| t.id.starts_with("cambio_nivel_")) {
        let leader = tier
            .row_keys()
            .filter_map(|row| num(tier, row, "mencion_actual").map(|v| (row.to_owned(), v)))
            .fold(None::<(String, f64)>, |best, (row, v)| match best {
                Some((_, bv)) if bv >= v => best,
                _ => Some((row, v)),
            });
        if let Some((row, _)) = leader {
            let row = row.as_str();
            let values = (
                num(tier, row, "mencion_anterior"),
                num(tier, row, "mencion_actual"),
                num(tier, row, "mencion_diferencia"),
                text(tier, row, "mencion_veredicto"),
            );
            if let (Some(a), Some(b), Some(d), Some(v)) = values {
                let (es, en) = match v.as_str() {
                    GREW => ("creció más allá del ruido", "grew beyond the noise"),
                    FELL => ("cayó más allá del ruido", "fell beyond the noise"),
                    _ => ("no cambió más allá del ruido", "did not change beyond the noise"),
                };
                let sign = if d > 0.0 { "+" } else { "" };
                let new_model = study
                    .design
                    .models
                    .iter()
                    .find(|m| m.id == prev.replacement.current)
                    .map_or(prev.replacement.current.as_str(), |m| m.name.as_str());
                out.push(Finding {
                    id: next_id(out.len()),
                    kind: "cambio".into(),
                    section: "Cambio desde la corrida anterior".into(),
                    text: format!(
                        "{} fue reemplazado por {new_model}: ese cambio se mide por nivel y no por modelo. En ese nivel, la mención de {row} pasó del {} % al {} % ({sign}{} puntos) y {es} (intervalo al 95 % de la diferencia).",
                        prev.replacement.name, pct_es(a), pct_es(b), pct_es(d)
                    ),
                    text_en: format!(
                        "{} was replaced by {new_model}: that change is measured by tier, not by model. In that tier, {row}'s mention rate went from {}% to {}% ({sign}{} points) and {en} (95% interval of the difference).",
                        prev.replacement.name, pct(a), pct(b), pct(d)
                    ),
                    backing: vec![
                        backing(&tier.id, row, "mencion_anterior", a, false),
                        backing(&tier.id, row, "mencion_actual", b, false),
                        backing(&tier.id, row, "mencion_diferencia", d, v == NO_CHANGE),
                    ],
                    evidence: evidence(row, Some(tier_of(&tier.id))),
                });
            }
        }
    }
    out
}
