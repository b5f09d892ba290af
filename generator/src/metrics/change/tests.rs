use std::collections::BTreeMap;

use super::*;
use crate::model::{Answer, Brand, ModelSpec, PreviousRunSpec, Question, StudyFile};

fn model(id: &str, level: Tier) -> ModelSpec {
    ModelSpec { id: id.into(), name: id.into(), provider: "p".into(), level }
}

/// A run: its models, its questions (id, tier) and answers (question, model, text).
fn run(models: &[(&str, Tier)], questions: &[(&str, Tier)], answers: &[(&str, &str, &str)]) -> Study {
    Study {
        slug: "prueba".into(),
        design: StudyFile {
            name: "Prueba".into(),
            name_en: "Test".into(),
            description: "d".into(),
            description_en: "d".into(),
            industry: "i".into(),
            subindustry: "s".into(),
            country: vec!["Argentina".into()],
            language: vec!["es".into()],
            published: "2026-04-01".into(),
            price_usd: None,
            package_version: "1.0.0".into(),
            tags: vec![],
            how_to_cite: "c".into(),
            note: "n".into(),
            methodology: vec![],
            dimensions: vec![],
            models: models.iter().map(|&(id, tier)| model(id, tier)).collect(),
            weighting: None,
            analyses: vec![],
            previous_run: None,
        },
        brands: vec![
            Brand { id: "alfa".into(), name: "Alfa".into(), alias: vec![], exclude: vec![], domains: vec![] },
            Brand { id: "beta".into(), name: "Beta".into(), alias: vec![], exclude: vec![], domains: vec![] },
        ],
        questions: questions
            .iter()
            .map(|&(id, model)| Question {
                id: id.into(),
                text: format!("¿{id}?"),
                language: "es".into(),
                model,
                dimensions: BTreeMap::new(),
            })
            .collect(),
        answers: answers
            .iter()
            .enumerate()
            .map(|(i, &(q, m, text))| Answer {
                id: format!("R{i}"),
                question: q.into(),
                model: m.into(),
                version: "v".into(),
                date: "2026-03-01".into(),
                answer: text.into(),
                sources: vec![],
                tone: BTreeMap::new(),
                repetition: None,
                collection: None,
                surface: None,
                consulted: None,
            })
            .collect(),
        findings: vec![],
        reports: vec![],
        question_lines: vec![],
        answer_lines: vec![],
        previous: None,
    }
}

fn compared(mut now: Study, before: Study) -> Study {
    now.design.previous_run = Some(PreviousRunSpec {
        description: "antes".into(),
        description_en: "before".into(),
        models: before.design.models.clone(),
        weighting: None,
    });
    now.previous = Some(Box::new(before));
    now
}

fn tables(study: &Study) -> Vec<Table> {
    change_tables(study, &metrics::extract_facts(study))
}

fn cell<'a>(t: &'a Table, row: &str, col: &str) -> &'a Cell {
    t.cell(row, col).unwrap_or_else(|| panic!("{} / {row} / {col}", t.id))
}

const S: Tier = Tier::Standard;
const A: Tier = Tier::Advanced;

/// Ten questions q1..q10 of one model `m`: the runs name Alfa where `named(i)` holds.
fn ten(named: impl Fn(usize) -> bool) -> Study {
    let ids: Vec<String> = (1..=10).map(|i| format!("q{i}")).collect();
    let questions: Vec<(&str, Tier)> = ids.iter().map(|id| (id.as_str(), S)).collect();
    let answers: Vec<(&str, &str, &str)> =
        ids.iter().enumerate().map(|(i, id)| (id.as_str(), "m", if named(i) { "Alfa." } else { "Nada." })).collect();
    run(&[("m", S)], &questions, &answers)
}

#[test]
fn a_hand_worked_change_cell() {
    // Alfa named in 2 of 10 questions before (q1, q2), in 9 now (q1..q9); c = 1/10.
    // Before: R1 = 0.2, residuals e1 = 0.1·(y − 0.2): 0.08 (×2), −0.02 (×8), V1 = 0.016,
    // n_ef = 0.16/0.016 = 10 → Wilson(0.2, 10) = [0.056682, 0.509838].
    // Now: R2 = 0.9, e2 = 0.1·(y − 0.9): 0.01 (×9), −0.09 (q10), V2 = 0.009, n_ef = 10 →
    // Wilson(0.9, 10) = [0.595850, 0.982124].
    // Σ e1·e2 = 2·0.0008 − 7·0.0002 + 0.0018 = 0.002, ρ = 0.002/√(0.016·0.009) = 1/6.
    // D = 0.7; L = 0.7 − √(0.30415² + 0.30984² − 2/6·0.30415·0.30984) = 0.3036;
    // U = 0.7 + √(0.08212² + 0.14332² − 2/6·0.08212·0.14332) = 0.8528 → creció.
    let study = compared(ten(|i| i < 9), ten(|i| i < 2));
    let t = &tables(&study)[0];
    assert_eq!(t.id, "cambio_total");
    assert_eq!(cell(t, "Alfa", "mencion_anterior"), &Cell::Num(0.2));
    assert_eq!(cell(t, "Alfa", "mencion_anterior_n"), &Cell::Int(10));
    assert_eq!(cell(t, "Alfa", "mencion_actual"), &Cell::Num(0.9));
    assert_eq!(cell(t, "Alfa", "mencion_diferencia"), &Cell::Num(0.7));
    assert_eq!(cell(t, "Alfa", "mencion_diferencia_ic95"), &Cell::Interval(0.3036, 0.8528));
    // s = (0.7 − 0.30365)/z = 0.20222, t = 3.4615 on 9 degrees of freedom (ten questions):
    // p = 0.007144 (docs/src/publicar/metricas.md, the worked example).
    assert_eq!(cell(t, "Alfa", "mencion_diferencia_p"), &Cell::Num(0.007144));
    assert_eq!(cell(t, "Alfa", "mencion_veredicto"), &Cell::Text(GREW.into()));
    // Beta is never named: 0 in both runs, no change.
    assert_eq!(cell(t, "Beta", "mencion_diferencia"), &Cell::Num(0.0));
    assert_eq!(cell(t, "Beta", "mencion_veredicto"), &Cell::Text(NO_CHANGE.into()));
    // Its order is null in both runs: no difference at all.
    assert_eq!(cell(t, "Beta", "orden_diferencia"), &Cell::Null);
    // The same model in both runs gets its own table, with the same numbers.
    assert_eq!(tables(&study)[1].id, "cambio_m");
    assert_eq!(cell(&tables(&study)[1], "Alfa", "mencion_diferencia_ic95"), &Cell::Interval(0.3036, 0.8528));
}

#[test]
fn a_large_change_within_the_noise_is_no_change() {
    // Four questions: Alfa in 2 before, in all 4 now: +0.5, yet
    // L = 0.5 − √((1 − 0.5101)² + (0.84996 − 0.5)²) = −0.1021 < 0.
    let ids = ["q1", "q2", "q3", "q4"];
    let q: Vec<(&str, Tier)> = ids.iter().map(|&id| (id, S)).collect();
    let before = run(&[("m", S)], &q, &[("q1", "m", "Alfa"), ("q2", "m", "Alfa"), ("q3", "m", "x"), ("q4", "m", "x")]);
    let now = run(&[("m", S)], &q, &ids.map(|id| (id, "m", "Alfa")));
    let t = &tables(&compared(now, before))[0];
    assert_eq!(cell(t, "Alfa", "mencion_diferencia"), &Cell::Num(0.5));
    assert_eq!(cell(t, "Alfa", "mencion_diferencia_ic95"), &Cell::Interval(-0.1021, 0.85));
    // Four questions are too few to test (fewer than ten): no p-value, no verdict.
    for column in ["mencion_diferencia_p", "mencion_diferencia_ic_ajustado", "mencion_veredicto"] {
        assert_eq!(cell(t, "Alfa", column), &Cell::Null, "{column}");
    }
}

#[test]
fn a_replaced_model_is_compared_per_tier_not_per_model() {
    // Standard tier: `viejo` replaced by `nuevo`; advanced tier: `grande` in both runs.
    let q = [("q1", S), ("q2", S), ("q3", A), ("q4", A)];
    let before = run(
        &[("viejo", S), ("grande", A)],
        &q,
        &[("q1", "viejo", "Beta"), ("q2", "viejo", "Beta"), ("q3", "grande", "Alfa"), ("q4", "grande", "x")],
    );
    let now = run(
        &[("nuevo", S), ("grande", A)],
        &q,
        &[("q1", "nuevo", "Alfa"), ("q2", "nuevo", "Alfa"), ("q3", "grande", "Alfa"), ("q4", "grande", "Alfa")],
    );
    let study = compared(now, before);
    let ids: Vec<String> = table_ids(&study).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["cambio_total", "cambio_grande", "cambio_nivel_estandar"]);
    let t = tables(&study);
    assert!(t[2].title.contains("cambió el modelo: viejo → nuevo"), "{}", t[2].title);
    assert_eq!(cell(&t[2], "Alfa", "mencion_anterior"), &Cell::Num(0.0));
    assert_eq!(cell(&t[2], "Alfa", "mencion_actual"), &Cell::Num(1.0));
    assert_eq!(cell(&t[1], "Alfa", "mencion_anterior"), &Cell::Num(0.5));
}

#[test]
fn added_and_retired_questions_are_counted_and_left_out() {
    // q1, q2 shared; q3 retired (asked before only); q4 added (asked now only).
    let before = run(
        &[("m", S)],
        &[("q1", S), ("q2", S), ("q3", S)],
        &[("q1", "m", "Alfa"), ("q2", "m", "x"), ("q3", "m", "Alfa")],
    );
    let now = run(
        &[("m", S)],
        &[("q1", S), ("q2", S), ("q4", S)],
        &[("q1", "m", "x"), ("q2", "m", "x"), ("q4", "m", "Alfa")],
    );
    let study = compared(now, before);
    assert_eq!(question_counts(&study), Some(QuestionCounts { shared: 2, added: 1, withdrawn: 1 }));
    let t = &tables(&study)[0];
    // Over q1 and q2 only: 1/2 before, 0 now (q3 and q4 do not count).
    assert_eq!(cell(t, "Alfa", "mencion_anterior"), &Cell::Num(0.5));
    assert_eq!(cell(t, "Alfa", "mencion_anterior_n"), &Cell::Int(2));
    assert_eq!(cell(t, "Alfa", "mencion_actual"), &Cell::Num(0.0));
    assert!(
        t.note
            .as_deref()
            .unwrap_or_default()
            .starts_with("Base: 2 preguntas compartidas por las dos corridas (1 agregadas y 1 retiradas")
    );
}

#[test]
fn a_mean_difference_is_the_paired_interval() {
    // MOVER on symmetric intervals R ± z·√V is D ± z·√(V1 + V2 − 2ρ√(V1·V2)).
    let (v1, v2, rho): (f64, f64, f64) = (0.04, 0.09, 0.5);
    let (h1, h2) = (Z95 * v1.sqrt(), Z95 * v2.sqrt());
    let (low, high) = difference_interval((5.0, (5.0 - h1, 5.0 + h1)), (6.0, (6.0 - h2, 6.0 + h2)), rho);
    let half = Z95 * (v1 + v2 - 2.0 * rho * (v1 * v2).sqrt()).sqrt();
    assert_eq!((low, high), (round_float(1.0 - half, 4), round_float(1.0 + half, 4)));
    assert_eq!(verdict(low, high), GREW);
    assert_eq!(verdict(-0.2, -0.01), FELL);
    assert_eq!(verdict(-0.2, 0.0), NO_CHANGE);
    assert_eq!(published_difference(0.2863, 0.1), -0.1863);
    assert_eq!(published_difference(0.3, 0.3), 0.0);
}

#[test]
fn the_question_sums_follow_the_per_answer_definition() {
    let before = run(
        &[("m", S), ("n", S)],
        &[("q1", S), ("q2", S), ("q3", S)],
        &[
            ("q1", "m", "Alfa y Beta"),
            ("q1", "n", "Beta, luego Alfa"),
            ("q2", "m", "nada"),
            ("q2", "n", "Alfa"),
            ("q3", "m", "Beta"),
        ],
    );
    let mut study = before.clone();
    study.answers[0].tone = BTreeMap::from([("alfa".into(), Tone::Pos), ("beta".into(), Tone::Neg)]);
    study.answers[3].tone = BTreeMap::from([("alfa".into(), Tone::Neu)]);
    let facts = metrics::extract_facts(&study);
    let scope = Scope::new(facts.iter().collect(), &metrics::model_weights(&study));
    let key: Vec<Option<usize>> = vec![Some(0), None, Some(2)];
    let (fast, slow) = (cluster_sums(&scope, &key, 2), cluster_sums_by_answer(&scope, &key, 2));
    for b in 0..2 {
        for m in 0..METRICS.len() {
            let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
            assert_eq!(fast.clusters[b][m].len(), slow.clusters[b][m].len(), "{b} {m}");
            for (f, s) in fast.clusters[b][m].iter().zip(&slow.clusters[b][m]) {
                assert!(f.0 == s.0 && close(f.1, s.1) && close(f.2, s.2), "{b} {m}: {f:?} {s:?}");
            }
            assert!(close(fast.cx2[b][m], slow.cx2[b][m]), "{b} {m}");
        }
    }
}

#[test]
fn the_single_run_interval_matches_the_analysis_tables() {
    // The linearisation here must give the same interval the tables publish.
    let study = ten(|i| i % 3 == 0);
    let facts = metrics::extract_facts(&study);
    let scope = Scope::new(facts.iter().collect(), &metrics::model_weights(&study));
    let published = brand_stats(&scope, 2).estimate(0, Metric::Mention).and_then(|e| e.uncertainty.ic95);
    let sums = cluster_sums(&scope, &(0..10).map(Some).collect::<Vec<_>>(), 2);
    let l = linearise(0.4, &sums.clusters[0][0], sums.cx2[0][0], Metric::Mention);
    assert_eq!(l.bounds.map(|(a, b)| (round_float(a, 4), round_float(b, 4))), published);
}
